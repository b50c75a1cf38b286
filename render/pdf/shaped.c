/* shaped.c — PDF text that needs shaping (Arabic, Hebrew, Indic, Thai,
 * combining marks): the glyphs HarfBuzz chose (render/shape.h), in visual
 * order, drawn by glyph id in the embedded fonts (glyphs.c), each glyph
 * mapped back to the characters of its cluster for the text layer.
 *
 * Fallback: glyphs of a font libharu cannot embed (OpenType with CFF
 * outlines), or past a font's 2,048 glyph codes, are drawn as filled
 * outlines, with their characters laid over them as invisible text
 * (rendering mode 3) stretched to the same width. */
#include <stdlib.h>
#include <string.h>

#include "render/core/emoji.h"
#include "base/utf8.h"
#include "base/buf.h"
#include "render/pdf/pdf_int.h"
#include "render/core/text.h"


/* A direct-mapped cache of word widths: a slot is overwritten on collision. */
#define WSLOTS 4096u
#define WTEXT 40u
struct fo_pdf_wcache {
    struct {
        const fo_pdf_font *f;
        double size, w;
        fo_dir dir;
        uint8_t len;             /* 0: empty slot */
        char text[WTEXT];
    } slot[WSLOTS];
};

double fo_pdf_shaped_width(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                           fo_dir dir)
{
    double w = 0;
    if (len == 0 || len >= WTEXT || (!c->widths && !(c->widths = fo_calloc(1, sizeof *c->widths)))) {
        fo_shape(f->path, size, s, len, dir, NULL, 0, &w);
        return w;
    }
    uint32_t h = 2166136261u ^ (uint32_t)dir;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    h ^= (uint32_t)(uintptr_t)f ^ (uint32_t)(size * 64);
    __typeof__(c->widths->slot[0]) *e = &c->widths->slot[(h ^ h >> 16) & (WSLOTS - 1)];
    if (e->len == len && e->f == f && e->size == size && e->dir == dir && memcmp(e->text, s, len) == 0)
        return e->w;
    fo_shape(f->path, size, s, len, dir, NULL, 0, &w);
    *e = (__typeof__(*e)){f, size, w, dir, (uint8_t)len, {0}};
    memcpy(e->text, s, len);
    return w;
}

double fo_pdf_shaped_width_in(fo_pdf *c, fo_pdf_font *f, double size, const char *text,
                              size_t tlen, size_t off, size_t len, fo_dir dir)
{
    double w = 0;
    if (off == 0 && len == tlen) return fo_pdf_shaped_width(c, f, size, text, len, dir);
    fo_shape_in(f->path, size, text, tlen, off, len, dir, NULL, 0, &w);
    return w;
}

void fo_pdf_widths_free(fo_pdf *c)
{
    fo_free(c->widths);
    c->widths = NULL;
    fo_free(c->shaped);
    c->shaped = NULL;
    c->shaped_cap = 0;
}

/* Appends code point cp to out as libharu's UTF-8 encoder can take it
 * (outside the BMP: U+FFFD; controls: a space); returns its width in f. */
static double put_cp(fo_pdf_font *f, uint32_t cp, char *out, size_t *o)
{
    if (cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x20 || cp == 0x7F) cp = ' ';
    *o += fo_utf8_put(out + *o, cp);
    return fo_pdf_glyph_width(f, cp);
}

/* Reverses the order of the UTF-8 characters of s[0..n), in place: all
 * bytes first, then each character's bytes (now continuation bytes before
 * their lead byte) back. */
static void reverse_bytes(char *s, size_t n)
{
    for (size_t a = 0, b = n; a + 1 < b; a++, b--) { char t = s[a]; s[a] = s[b - 1]; s[b - 1] = t; }
}

static void reverse_chars(char *s, size_t n)
{
    reverse_bytes(s, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80) j++;
        j = j < n ? j + 1 : n;            /* the lead byte ends the character */
        reverse_bytes(s + i, j - i);
        i = j;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts a run's cluster starts. A run of one direction has them in order
 * already, or in reverse (right to left): those need no qsort, which was 1%
 * of the mixed-script report's PDF. */
static void sort_starts(uint32_t *v, size_t n)
{
    size_t up = 1, down = 1;
    for (size_t i = 1; i < n; i++) {
        up += v[i - 1] <= v[i];
        down += v[i - 1] >= v[i];
    }
    if (up == n || n == 0) return;
    if (down == n) {
        for (size_t a = 0, b = n - 1; a < b; a++, b--) { uint32_t t = v[a]; v[a] = v[b]; v[b] = t; }
        return;
    }
    qsort(v, n, sizeof *v, cmp_u32);
}

/* True for a glyph of the colour emoji font (one whole emoji sequence). */
static bool is_emoji(const fo_shaped *g)
{
    return strcmp(g->font, FO_EMOJI_FONT) == 0;
}

/* The characters each glyph stands for in the text layer, cluster by
 * cluster: the k glyphs of a cluster of m characters take one character
 * each, in drawing order, and the last glyph the rest (a conjunct, a
 * ligature); extra glyphs (a vowel drawn in two parts) take none. Position,
 * not identity: a vowel sign drawn before its consonant still reads back
 * after it. A right-to-left cluster's characters are handed out reversed
 * (drawn right to left, read back by the reader's bidi). A cluster with
 * more glyphs than characters (Thai ำ, a two-part vowel) is read through
 * /ActualText: actual[i] is 1 for its first glyph, whose text is the whole
 * cluster, 2 for the others (text ""), 0 elsewhere. text[i] points
 * into buf (room for 3 bytes per input byte + 1 per glyph). False when out
 * of memory. */
static bool cluster_texts(const char *s, size_t len, const fo_shaped *g, size_t n,
                          char *buf, const char **text, unsigned char *actual)
{
    uint32_t *starts = fo_malloc((n + 1) * sizeof *starts);
    if (!starts) return false;
    for (size_t i = 0; i < n; i++) starts[i] = g[i].cluster;
    sort_starts(starts, n);
    size_t o = 0;
    for (size_t i = 0, j; i < n; i = j) {
        /* glyphs i..j-1 are one cluster (HarfBuzz keeps a cluster together) */
        for (j = i + 1; j < n && g[j].cluster == g[i].cluster; j++) {}
        uint32_t *next = bsearch(&g[i].cluster, starts, n, sizeof *starts, cmp_u32);
        while (next && next < starts + n && *next <= g[i].cluster) next++;
        size_t end = next && next < starts + n ? *next : len, from = o;
        memcpy(buf + o, s + g[i].cluster, end - g[i].cluster);
        size_t clen = end - g[i].cluster;
        if (g[i].rtl) reverse_chars(buf + from, clen);
        /* hand the characters out: one per glyph, the rest to the last */
        char small[64];      /* a cluster is a few characters: no allocation */
        char *chars = clen < sizeof small ? small : fo_malloc(clen + 1);
        if (!chars) { fo_free(starts); return false; }
        memcpy(chars, buf + from, clen);
        size_t at = 0, nchars = 0;
        for (size_t q = 0; q < clen; nchars++) fo_utf8_next(chars, clen, &q);
        /* more glyphs than characters: the whole cluster is read from an
           /ActualText span (an empty mapping would read as a space) */
        if (j - i > nchars && clen > 0) {
            text[i] = buf + o;
            memcpy(buf + o, s + g[i].cluster, clen);   /* logical order */
            o += clen;
            buf[o++] = 0;
            actual[i] = 1;
            for (size_t k = i + 1; k < j; k++) { text[k] = buf + o; buf[o++] = 0; actual[k] = 2; }
            if (chars != small) fo_free(chars);
            continue;
        }
        for (size_t k = i; k < j; k++) {
            actual[k] = 0;
            text[k] = buf + o;
            size_t take = 0;
            if (k + 1 == j) take = clen - at;
            else if (at < clen) { size_t q = at; fo_utf8_next(chars, clen, &q); take = q - at; }
            memcpy(buf + o, chars + at, take);
            o += take;
            at += take;
            buf[o++] = 0;
        }
        if (chars != small) fo_free(chars);
    }
    fo_free(starts);
    return true;
}

/* Glyphs g[0..n) of one font as outlines under invisible text (fallback). */
static void draw_outlines(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                          const fo_shaped *g, const char **text, size_t n, double w)
{
    const fo_text_path *draw = &fo_pdf_pen_path;
    HPDF_Page p = c->page;
    HPDF_Page_EndText(p);
    for (size_t i = 0; i < n; i++) {
        fo_pdf_pen o = {p, x + g[i].x, y + g[i].y, size, false};
        if (g[i].gid != 0 && fo_text_glyph_outline(g[i].font, g[i].gid, draw, &o) && o.any)
            HPDF_Page_Fill(p);                /* nonzero winding, as TrueType means it */
    }
    HPDF_Page_BeginText(p);
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) cap += 3 * strlen(text[i]);
    char *buf = fo_malloc(cap);
    if (!buf) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    size_t o = 0;
    double lw = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0, m, tl = strlen(text[i]); k < tl; k += m)
            lw += put_cp(f, fo_utf8_at(text[i] + k, tl - k, &m), buf, &o);
    buf[o] = 0;
    lw *= size / 1000.0;
    if (o > 0 && lw > 0) {
        double scale = 100 * w / lw;
        HPDF_Page_SetTextRenderingMode(p, HPDF_INVISIBLE);
        HPDF_Page_SetHorizontalScalling(p, (HPDF_REAL)(scale < 10 ? 10 : scale > 300 ? 300 : scale));
        fo_pdf_set_font(c, f, size);
        const char *shown = fo_pdf_mark_codes(c, f, buf);
        HPDF_Page_SetTextMatrix(p, 1, 0, 0, 1, fo_pdf_q(x + g[0].x), fo_pdf_q(y));
        HPDF_Page_ShowText(p, shown);
        HPDF_Page_SetHorizontalScalling(p, 100);
        HPDF_Page_SetTextRenderingMode(p, HPDF_FILL);
    }
    fo_free(buf);
}

/* One stretch of glyphs from one font file: by glyph id when libharu can
 * embed the file and it has codes left, else as outlines. */
static void draw_group(fo_pdf *c, fo_pdf_font *base, double size, double x, double y,
                       const fo_shaped *g, const char **text, const unsigned char *actual, size_t n)
{
    fo_pdf_font *f = fo_pdf_font_load(c, g[0].font);
    if (f && f->def && fo_pdf_glyph_codes_left(f, n)) {
        fo_pdf_glyph stack[64], *pg = n > 64 ? fo_malloc(n * sizeof *pg) : stack;
        if (!pg) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
        for (size_t i = 0; i < n; i++)
            pg[i] = (fo_pdf_glyph){g[i].gid, g[i].x, g[i].y,
                                   i + 1 < n ? g[i + 1].x - g[i].x : g[i].advance, text[i],
                                   actual[i]};
        fo_pdf_glyph_run(c, f, size, x, y, pg, n);
        if (pg != stack) fo_free(pg);
        return;
    }
    double w = g[n - 1].x + g[n - 1].advance - g[0].x;
    draw_outlines(c, base, size, x, y, g, text, n, w);
}

/* The glyph of "?" in f's own file (0: none): an emoji's stand-in in the
 * text layer. */
static uint32_t stand_in(fo_pdf_font *f)
{
    fo_shaped q;
    if (fo_shape(f->path, 10, "?", 1, FO_DIR_LTR, &q, 1, NULL) != 1) return 0;
    return strcmp(q.font, f->path) == 0 ? q.gid : 0;
}

/* Emoji glyphs g[0..n) (inside a text object): each glyph's colour picture
 * painted where shaping put it, and for the text layer an invisible "?" of
 * f as wide as the glyph, reading back as the characters of its sequence
 * (all of them: ZWJs, VS16, modifiers), by its ToUnicode entry. */
static void draw_emoji(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                       const fo_shaped *g, const char **text, const unsigned char *actual, size_t n)
{
    HPDF_Page p = c->page;
    HPDF_Page_EndText(p);
    for (size_t k = 0; k < n; k++) fo_pdf_emoji_draw(c, g[k].gid, size, x + g[k].x, y + g[k].y, g[k].advance);
    HPDF_Page_BeginText(p);
    uint32_t q = stand_in(f);
    if (!q || !fo_pdf_glyph_codes_left(f, n)) return;
    fo_pdf_glyph stack[16], *pg = n > 16 ? fo_malloc(n * sizeof *pg) : stack;
    if (!pg) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    for (size_t k = 0; k < n; k++) pg[k] = (fo_pdf_glyph){q, g[k].x, 0, g[k].advance, text[k], actual[k]};
    HPDF_Page_SetTextRenderingMode(p, HPDF_INVISIBLE);
    fo_pdf_glyph_run(c, f, size, x, y, pg, n);
    HPDF_Page_SetTextRenderingMode(p, HPDF_FILL);
    if (pg != stack) fo_free(pg);
}

void fo_pdf_show_shaped(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                        const char *s, size_t len, fo_dir dir)
{
    fo_pdf_show_shaped_at(c, f, size, x, y, s, len, dir, false);
}

double fo_pdf_show_shaped_at(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                             const char *s, size_t len, fo_dir dir, bool right)
{
    return fo_pdf_show_shaped_in(c, f, size, x, y, s, len, 0, len, dir, right);
}

/* What to shape: text[off, off+len), the rest of text its context, in
 * direction dir; or, with levels, text[0..len) at those bidi levels. */
typedef struct {
    const char *text;
    size_t tlen, off, len;
    fo_dir dir;
    const uint8_t *levels;
} shape_req;

static size_t shape_req_run(const fo_pdf_font *f, double size, const shape_req *r, fo_shaped *out,
                            size_t cap, double *w)
{
    return r->levels ? fo_shape_levels(f->path, size, r->text, r->len, r->levels, out, cap, w)
                     : fo_shape_in(f->path, size, r->text, r->tlen, r->off, r->len, r->dir, out, cap, w);
}

static double show_req(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                       const shape_req *r, bool right)
{
    double w = 0;
    size_t len = r->len;
    if (c->st != FO_OK || !f || !f->def || len == 0) return 0;
    const char *s = r->text + r->off;
    /* shaped once into the render's buffer; again only when it was short */
    size_t n = shape_req_run(f, size, r, c->shaped, c->shaped_cap, &w);
    if (n > c->shaped_cap) {
        if (!fo_grow((void **)&c->shaped, &c->shaped_cap, n, 64, sizeof *c->shaped)) {
            fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
            return 0;
        }
        n = shape_req_run(f, size, r, c->shaped, c->shaped_cap, &w);
    }
    if (n == 0) return w;
    if (right) x -= w;
    const fo_shaped *g = c->shaped;
    const char **text = fo_malloc(n * sizeof *text);
    unsigned char *actual = fo_malloc(n);
    char *buf = fo_malloc(len * 3 + n + 1);
    if (!text || !actual || !buf) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); goto done; }
    if (!cluster_texts(s, len, g, n, buf, text, actual)) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); goto done; }
    HPDF_Page p = c->page;
    bool in_text = HPDF_Page_GetGMode(p) == HPDF_GMODE_TEXT_OBJECT;
    if (!in_text) HPDF_Page_BeginText(p);
    for (size_t i = 0, j; i < n && c->st == FO_OK; i = j) {
        for (j = i + 1; j < n && g[j].font == g[i].font; j++) {}
        if (is_emoji(&g[i])) draw_emoji(c, f, size, x, y, g + i, text + i, actual + i, j - i);
        else draw_group(c, f, size, x, y, g + i, text + i, actual + i, j - i);
    }
    if (!in_text) HPDF_Page_EndText(p);
    c->fresh = false;
done:
    fo_free(text);
    fo_free(actual);
    fo_free(buf);
    return w;
}

double fo_pdf_show_shaped_in(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                             const char *ctx, size_t clen, size_t off, size_t len, fo_dir dir,
                             bool right)
{
    shape_req r = {ctx, clen, off, len, dir, NULL};
    return show_req(c, f, size, x, y, &r, right);
}

double fo_pdf_show_shaped_levels(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                                 const char *s, size_t len, const uint8_t *levels, bool right)
{
    shape_req r = {s, len, 0, len, FO_DIR_AUTO, levels};
    return show_req(c, f, size, x, y, &r, right);
}
