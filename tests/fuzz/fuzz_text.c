/* fuzz_text.c — libFuzzer target for the world-text path: shaping (bidi,
 * itemizing, HarfBuzz), glyph runs, measuring, UAX #14 wrapping and
 * ellipsizing of arbitrary bytes (invalid UTF-8, controls, bidi controls,
 * marks piled on marks, every script).
 *
 * Input: one control byte (direction, size), then the text. Checked
 * invariants: fo_shape's count is the same with and without an output
 * array; every glyph has a font, a finite position and a cluster inside the
 * input; a piece shaped with the text around it as context (fo_shape_in)
 * keeps the same invariants, its clusters inside the piece, and with no
 * context is fo_shape; wrapped lines cover the input in order without overlap; an
 * ellipsized string fits its buffer and is NUL-terminated; the paragraph's
 * bidi levels (bidi.h) are valid UAX #9 levels, and the L2 order of pieces
 * cut at level changes is a permutation; every colour emoji's picture
 * (emoji.h) fits its box. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "folio.h"
#include "render/core/bidi.h"
#include "render/core/emoji.h"
#include "render/core/linebreak.h"
#include "base/utf8.h"
#include "render/core/shape.h"
#include "render/core/text.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define FONT "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"

static void check_shape(const char *s, size_t len, fo_dir dir, double pt)
{
    size_t n = fo_shape(FONT, pt, s, len, dir, NULL, 0, NULL);
    fo_shaped *g = malloc((n ? n : 1) * sizeof *g);
    if (!g) return;
    double w = -1;
    if (fo_shape(FONT, pt, s, len, dir, g, n, &w) != n) abort();
    for (size_t i = 0; i < n; i++)
        if (g[i].cluster >= len || !isfinite(g[i].x) || !isfinite(g[i].y) || !g[i].font) abort();
    if (!isfinite(w)) abort();
    free(g);
}

/* The piece of s from about a third to two thirds in (cut at character
 * starts), shaped with the rest as context. */
static void check_shape_in(const char *s, size_t len, fo_dir dir, double pt)
{
    size_t off = len / 3, end = len - len / 3;
    while (off < len && ((unsigned char)s[off] & 0xC0) == 0x80) off++;
    while (end < len && ((unsigned char)s[end] & 0xC0) == 0x80) end++;
    if (end <= off) return;
    size_t n = fo_shape_in(FONT, pt, s, len, off, end - off, dir, NULL, 0, NULL);
    fo_shaped *g = malloc((n ? n : 1) * sizeof *g);
    if (!g) return;
    double w = -1;
    if (fo_shape_in(FONT, pt, s, len, off, end - off, dir, g, n, &w) != n) abort();
    for (size_t i = 0; i < n; i++)
        if (g[i].cluster >= end - off || !isfinite(g[i].x) || !isfinite(g[i].advance) || !g[i].font) abort();
    if (!isfinite(w)) abort();
    double w1 = -1, w2 = -2;
    size_t whole = fo_shape_in(FONT, pt, s, len, 0, len, dir, NULL, 0, &w1);
    if (whole != fo_shape(FONT, pt, s, len, dir, NULL, 0, &w2) || w1 != w2) abort();
    free(g);
}

static void check_wrap(const char *s, size_t len, double pt, double width)
{
    size_t n = fo_text_wrap(FONT, pt, s, len, width, NULL, 0);
    fo_text_line *l = malloc((n ? n : 1) * sizeof *l);
    if (!l) return;
    if (fo_text_wrap(FONT, pt, s, len, width, l, n) != n || n == 0) abort();
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].start < end || l[i].start + l[i].len > len) abort();
        end = l[i].start + l[i].len;
    }
    free(l);
}

/* fo_shape_levels at the paragraph's levels lv: the same invariants as
 * fo_shape; and, for valid UTF-8 without controls or paragraph separators
 * (fo_shape reads a control as U+200B), the very glyphs fo_shape gives,
 * which resolves the same levels itself. */
static void check_shape_levels(const char *s, size_t len, fo_dir dir, const uint8_t *lv)
{
    size_t n = fo_shape_levels(FONT, 12, s, len, lv, NULL, 0, NULL);
    fo_shaped *g = malloc((n ? n : 1) * sizeof *g), *h = malloc((n ? n : 1) * sizeof *h);
    double w = -1, w2 = -2;
    if (!g || !h) goto done;
    if (fo_shape_levels(FONT, 12, s, len, lv, g, n, &w) != n || !isfinite(w)) abort();
    for (size_t i = 0; i < n; i++)
        if (g[i].cluster >= len || !isfinite(g[i].x) || !isfinite(g[i].y) || !g[i].font) abort();
    for (size_t i = 0; i < len;) {
        size_t at = i;
        uint32_t c = fo_utf8_next(s, len, &i);
        if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
            (c == 0xFFFD && i == at + 1))
            goto done;
    }
    if (fo_shape(FONT, 12, s, len, dir, h, n, &w2) != n || w != w2) abort();
    for (size_t i = 0; i < n; i++)
        if (g[i].gid != h[i].gid || g[i].cluster != h[i].cluster || g[i].x != h[i].x) abort();
done:
    free(g);
    free(h);
}

static void check_bidi(const char *s, size_t len, fo_dir dir)
{
    uint8_t *lv = malloc(len + 1);
    size_t *order = malloc((len + 1) * sizeof *order);
    uint8_t *runs = malloc(len + 1);
    if (!lv || !order || !runs) goto done;
    fo_dir got = fo_bidi_levels(s, len, dir, lv);
    if (got != FO_DIR_LTR && got != FO_DIR_RTL) abort();
    if (dir != FO_DIR_AUTO && got != dir) abort();
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (lv[i] > 126) abort();   /* UAX #9: max_depth 125, +1 by the implicit rules */
        if (i == 0 || lv[i] != lv[i - 1]) runs[n++] = lv[i];
    }
    check_shape_levels(s, len, dir, lv);
    fo_bidi_order(runs, n, order);
    for (size_t i = 0; i < n; i++) runs[i] = 0;
    for (size_t i = 0; i < n; i++) {
        if (order[i] >= n || runs[order[i]]) abort();
        runs[order[i]] = 1;
    }
done:
    free(lv);
    free(order);
    free(runs);
}

/* Every glyph shaping set in the colour emoji font (a whole sequence) has
 * a picture, boxed inside its advance. */
static void check_emoji(const char *s, size_t len, double pt)
{
    if (!fo_emoji_any(s, len)) return;
    fo_shaped g[64];
    size_t n = fo_shape(FONT, pt, s, len, FO_DIR_AUTO, g, 64, NULL);
    for (size_t i = 0; i < n && i < 64; i++) {
        fo_emoji_image img;
        fo_emoji_box box;
        if (strcmp(g[i].font, FO_EMOJI_FONT) != 0) continue;
        if (!fo_emoji_glyph(g[i].gid, pt, g[i].advance, &img, &box)) continue;
        if (img.w <= 0 || img.h <= 0 || !(box.w > 0) || box.w > g[i].advance + 1e-9 || !(box.h > 0)) abort();
        fo_free(img.rgba);
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    fo_dir dir = (fo_dir)(data[0] % 3);
    double pt = 4 + (data[0] >> 2);
    const char *s = (const char *)data + 1;
    size_t len = size - 1;
    check_shape(s, len, dir, pt);
    check_shape_in(s, len, dir, pt);
    check_bidi(s, len, dir);
    check_emoji(s, len, pt);
    fo_glyph g[64];
    double w;
    fo_text_glyphs(FONT, pt, s, len, g, 64, &w);
    if (!isfinite(w) || !isfinite(fo_text_width(FONT, pt, s, len))) abort();
    check_wrap(s, len, pt, 20 + data[0]);
    char out[32];
    size_t e = fo_text_ellipsize(FONT, pt, s, len, 40, out, sizeof out);
    if (e >= sizeof out || out[e] != '\0') abort();
    char *brks = fo_linebreaks(s, len);
    fo_free(brks);
    fo_text_missing_take(NULL, 0);
    return 0;
}
