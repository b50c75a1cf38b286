/* text.c — text measuring from TrueType files through FreeType, line wrapping,
 * ellipsizing, and glyph runs with DejaVu Sans, then Droid Sans Fallback
 * (CJK), for characters a font lacks (see text.h).
 *
 * Invariant: a face in the cache is never resized (we only read unscaled
 * advances with FT_LOAD_NO_SCALE), so widths are exact multiples of the font's
 * design units and independent of any hinting or of who else uses FreeType.
 * Widths are additive per character (no kerning), which keeps wrapping linear.
 * Cache entries are allocated one by one and never move or go away, so a
 * face_entry pointer (and its path) stays valid for the life of the process. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_ADVANCES_H
#include FT_OUTLINE_H

#include "folio.h"
#include "base/buf.h"
#include "render/core/fonts.h"
#include "render/core/linebreak.h"
#include "render/core/shape.h"
#include "render/core/text.h"
#include "base/utf8.h"

/* ---- characters no font has ------------------------------------------------ */
static _Thread_local uint32_t missing[FO_TEXT_MISSING_MAX];
static _Thread_local size_t nmissing;

void fo_text_missing_note(uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7F || cp == 0xFFFD) return;
    for (size_t i = 0; i < nmissing; i++)
        if (missing[i] == cp) return;
    if (nmissing < FO_TEXT_MISSING_MAX) missing[nmissing++] = cp;
}

size_t fo_text_missing_take(uint32_t *out, size_t cap)
{
    size_t n = nmissing;
    for (size_t i = 0; out && i < n && i < cap; i++) out[i] = missing[i];
    nmissing = 0;
    return n;
}

/* ---- face cache ------------------------------------------------------------ */
#define LATIN 256

typedef struct {
    char *path;
    FT_Face face;          /* NULL: could not be loaded */
    double upem;
    double ascent, descent, height; /* in em */
    int32_t adv[LATIN];    /* design units; -1 = not looked up yet */
    uint32_t gid[LATIN];
} face_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FT_Library library;
static bool library_failed;
static face_entry **faces;
static size_t nfaces, capfaces;

/* Returns the cache entry for path (loading it on first use); never NULL
 * unless out of memory. Caller holds the lock. */
static face_entry *face_get(const char *path)
{
    if (!path || !*path) path = FO_TEXT_FALLBACK_REGULAR;
    for (size_t i = 0; i < nfaces; i++)
        if (strcmp(faces[i]->path, path) == 0) return faces[i];
    if (!fo_grow((void **)&faces, &capfaces, nfaces + 1, 8, sizeof *faces)) return NULL;
    face_entry *e = fo_malloc(sizeof *e);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    e->path = fo_strdup(path);
    if (!e->path) { fo_free(e); return NULL; }
    for (size_t k = 0; k < LATIN; k++) e->adv[k] = -1;
    if (!library && !library_failed && FT_Init_FreeType(&library) != 0) library_failed = true;
    if (library && FT_New_Face(library, path, 0, &e->face) != 0) e->face = NULL;
    if (e->face && !FT_IS_SCALABLE(e->face)) {
        FT_Done_Face(e->face);
        e->face = NULL;
    }
    if (e->face) {
        e->upem = e->face->units_per_EM ? e->face->units_per_EM : 1000;
        e->ascent = e->face->ascender / e->upem;
        e->descent = -e->face->descender / e->upem;
        e->height = e->face->height / e->upem;
        if (e->ascent <= 0) e->ascent = 0.8;
        if (e->descent <= 0) e->descent = 0.2;
        if (e->height < e->ascent + e->descent) e->height = e->ascent + e->descent;
    }
    faces[nfaces++] = e;
    return e;
}

static void face_free(void *p)
{
    face_entry *e = p;
    if (e->face) FT_Done_Face(e->face);
    fo_free(e->path);
    fo_free(e);
}

void fo_text_forget_fonts(void)
{
    pthread_mutex_lock(&lock);
    fo_grow_free((void ***)&faces, &nfaces, &capfaces, face_free);
    pthread_mutex_unlock(&lock);
}

const char *fo_text_fallback(const char *font_file)
{
    if (font_file && strstr(font_file, "Bold")) return FO_TEXT_FALLBACK_BOLD;
    return FO_TEXT_FALLBACK_REGULAR;
}

/* The primary face for font_file: itself when loadable, else its fallback. */
static face_entry *face_primary(const char *font_file)
{
    face_entry *e = face_get(font_file);
    if (e && e->face) return e;
    face_entry *fb = face_get(fo_text_fallback(font_file));
    return fb && fb->face ? fb : e;
}

const char *fo_text_resolve(const char *font_file)
{
    pthread_mutex_lock(&lock);
    face_entry *e = face_primary(font_file);
    const char *r = e && e->face ? e->path : (font_file ? font_file : FO_TEXT_FALLBACK_REGULAR);
    pthread_mutex_unlock(&lock);
    return r;
}

/* Glyph index and advance (in em) of c in e; gid 0 = missing. */
static void glyph_of(face_entry *e, uint32_t c, uint32_t *gid, double *adv)
{
    *gid = 0;
    *adv = 0.55;
    if (!e || !e->face) return;
    if (c < LATIN && e->adv[c] >= 0) {
        *gid = e->gid[c];
        *adv = e->adv[c] / e->upem;
        return;
    }
    FT_UInt g = FT_Get_Char_Index(e->face, c);
    FT_Fixed a = 0;
    if (FT_Get_Advance(e->face, g, FT_LOAD_NO_SCALE, &a) != 0) a = 0;
    if (c < LATIN) {
        e->gid[c] = g;
        e->adv[c] = (int32_t)a;
    }
    *gid = g;
    *adv = a / e->upem;
}

bool fo_text_has_char(const char *font_file, uint32_t cp)
{
    uint32_t gid = 0;
    double adv;
    pthread_mutex_lock(&lock);
    face_entry *e = face_get(font_file);
    if (e && e->face) glyph_of(e, cp, &gid, &adv);
    pthread_mutex_unlock(&lock);
    return gid != 0;
}

bool fo_text_invisible(uint32_t c)
{
    return (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) ||
           (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

static bool is_zero_width(uint32_t c)
{
    return c < 0x20 || c == 0x7F || fo_text_invisible(c) ||
           (c >= 0xFE00 && c <= 0xFE0F); /* variation selectors: the emoji/text style of ⚠️ */
}

/* One character as drawn: which face (*used), glyph, advance in em. A glyph
 * the primary face lacks comes from the first fallback that has it: the
 * script's font (fonts.h: Droid Sans Fallback for 中 and の, never the
 * symbol font that happens to have them), DejaVu
 * Sans (bold for a bold font: Latin, Greek, Cyrillic, symbols), then Symbola
 * (check marks, dingbats, emoji), then Droid Sans Fallback (Chinese,
 * Japanese), then Nanum Gothic (Hangul). When none has it, the primary's
 * glyph 0 and advance stand (backends draw nothing for glyph 0). */
static double char_advance(face_entry *pri, const char *font_file, uint32_t c,
                           uint32_t *gid, face_entry **used)
{
    double adv;
    *used = pri;
    *gid = 0;
    if (is_zero_width(c)) return 0;
    glyph_of(pri, c, gid, &adv);
    if (*gid == 0 && pri && pri->face) {
        const char *chain[] = {fo_fonts_for_char(c), fo_text_fallback(font_file),
                               FO_TEXT_FALLBACK_SYMBOLS, FO_TEXT_FALLBACK_CJK,
                               FO_TEXT_FALLBACK_KOREAN};
        for (size_t k = 0; k < sizeof chain / sizeof *chain; k++) {
            face_entry *fb = chain[k] ? face_get(chain[k]) : NULL;
            if (!fb || !fb->face || fb == pri) continue;
            uint32_t g2;
            double a2;
            glyph_of(fb, c, &g2, &a2);
            if (g2 != 0) {
                *gid = g2;
                *used = fb;
                return a2;
            }
        }
        fo_text_missing_note(c);
    }
    return adv;
}

/* A printable ASCII character the primary face has, its advance looked up
 * already: what char_advance gives (the same division), without its calls.
 * Why: measuring table cells and wrapping paragraphs called char_advance and
 * glyph_of 318,000 times on the 50-section report deck (25 M instructions).
 * Otherwise char_advance. */
static inline double advance_of(face_entry *pri, const char *font_file, uint32_t c,
                                uint32_t *gid, face_entry **used)
{
    if (c >= 0x20 && c < 0x7F && pri && pri->face && pri->adv[c] >= 0 && pri->gid[c] != 0) {
        *used = pri;
        *gid = pri->gid[c];
        return pri->adv[c] / pri->upem;
    }
    return char_advance(pri, font_file, c, gid, used);
}

/* fo_text_glyphs for text that needs shaping. */
static size_t shaped_glyphs(const char *font_file, double size, const char *utf8, size_t len,
                            fo_glyph *out, size_t cap, double *width)
{
    fo_shaped stack[64], *g = stack;
    size_t n = fo_shape(font_file, size, utf8, len, FO_DIR_AUTO, NULL, 0, NULL);
    if (n > 64 && !(g = fo_malloc(n * sizeof *g))) n = 0;
    n = fo_shape(font_file, size, utf8, len, FO_DIR_AUTO, g, n, width);
    const char *pri = fo_text_resolve(font_file);
    for (size_t k = 0; k < n && out && k < cap; k++)
        out[k] = (fo_glyph){g[k].gid, g[k].x, g[k].y, strcmp(g[k].font, pri) != 0, g[k].font};
    if (g != stack) fo_free(g);
    return n;
}

size_t fo_text_glyphs(const char *font_file, double size, const char *utf8, size_t len,
                      fo_glyph *out, size_t cap, double *width)
{
    size_t n = 0, i = 0;
    double x = 0;
    if (utf8 && fo_shape_needed(utf8, len)) return shaped_glyphs(font_file, size, utf8, len, out, cap, width);
    pthread_mutex_lock(&lock);
    face_entry *pri = face_primary(font_file);
    while (utf8 && i < len) {
        uint32_t c = fo_utf8_next(utf8, len, &i), gid;
        face_entry *used;
        double adv = char_advance(pri, font_file, c, &gid, &used);
        if (is_zero_width(c)) continue;
        if (out && n < cap) {
            out[n].index = gid;
            out[n].x = x;
            out[n].y = 0;
            out[n].fallback = used != pri;
            out[n].font = used ? used->path : FO_TEXT_FALLBACK_REGULAR;
        }
        n++;
        x += adv * size;
    }
    pthread_mutex_unlock(&lock);
    if (width) *width = x;
    return n;
}

/* FT_Outline_Decompose callbacks: font units to em, conics raised to cubics. */
typedef struct {
    const fo_text_path *path;
    void *ctx;
    double upem, x, y;      /* current point, em */
} outline_sink;

/* Makes to (font units) the current point, in em. */
static outline_sink *ol_to(void *u, const FT_Vector *to)
{
    outline_sink *o = u;
    o->x = to->x / o->upem;
    o->y = to->y / o->upem;
    return o;
}

static int ol_move(const FT_Vector *to, void *u)
{
    outline_sink *o = ol_to(u, to);
    o->path->move(o->ctx, o->x, o->y);
    return 0;
}

static int ol_line(const FT_Vector *to, void *u)
{
    outline_sink *o = ol_to(u, to);
    o->path->line(o->ctx, o->x, o->y);
    return 0;
}

static int ol_conic(const FT_Vector *c, const FT_Vector *to, void *u)
{
    outline_sink *o = u;
    double cx = c->x / o->upem, cy = c->y / o->upem, x = to->x / o->upem, y = to->y / o->upem;
    o->path->cubic(o->ctx, o->x + 2.0 / 3 * (cx - o->x), o->y + 2.0 / 3 * (cy - o->y),
                   x + 2.0 / 3 * (cx - x), y + 2.0 / 3 * (cy - y), x, y);
    o->x = x;
    o->y = y;
    return 0;
}

static int ol_cubic(const FT_Vector *c1, const FT_Vector *c2, const FT_Vector *to, void *u)
{
    outline_sink *o = u;
    o->x = to->x / o->upem;
    o->y = to->y / o->upem;
    o->path->cubic(o->ctx, c1->x / o->upem, c1->y / o->upem, c2->x / o->upem,
                   c2->y / o->upem, o->x, o->y);
    return 0;
}

bool fo_text_outline(const char *font_file, uint32_t cp, const fo_text_path *path, void *ctx,
                     double *advance)
{
    static const FT_Outline_Funcs funcs = {ol_move, ol_line, ol_conic, ol_cubic, 0, 0};
    uint32_t gid;
    face_entry *used;
    bool ok = false;
    pthread_mutex_lock(&lock);
    double adv = char_advance(face_primary(font_file), font_file, cp, &gid, &used);
    if (gid != 0 && used && used->face &&
        FT_Load_Glyph(used->face, gid, FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP | FT_LOAD_NO_HINTING) == 0 &&
        used->face->glyph->format == FT_GLYPH_FORMAT_OUTLINE) {
        ok = true;
        if (path) {
            outline_sink o = {path, ctx, used->upem, 0, 0};
            ok = FT_Outline_Decompose(&used->face->glyph->outline, &funcs, &o) == 0;
        }
    }
    pthread_mutex_unlock(&lock);
    if (ok && advance) *advance = adv;
    return ok;
}

bool fo_text_glyph_outline(const char *font_path, uint32_t gid, const fo_text_path *path,
                           void *ctx)
{
    static const FT_Outline_Funcs funcs = {ol_move, ol_line, ol_conic, ol_cubic, 0, 0};
    bool ok = false;
    pthread_mutex_lock(&lock);
    face_entry *e = face_get(font_path);
    if (e && e->face &&
        FT_Load_Glyph(e->face, gid, FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP | FT_LOAD_NO_HINTING) == 0 &&
        e->face->glyph->format == FT_GLYPH_FORMAT_OUTLINE) {
        outline_sink o = {path, ctx, e->upem, 0, 0};
        ok = !path || FT_Outline_Decompose(&e->face->glyph->outline, &funcs, &o) == 0;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

double fo_text_width(const char *font_file, double size, const char *utf8, size_t len)
{
    double w = 0;
    size_t i = 0;
    if (utf8 && fo_shape_needed(utf8, len)) {
        fo_shape(font_file, size, utf8, len, FO_DIR_AUTO, NULL, 0, &w);
        return w;
    }
    pthread_mutex_lock(&lock);
    face_entry *pri = face_primary(font_file);
    while (utf8 && i < len) {
        uint32_t c = fo_utf8_next(utf8, len, &i), gid;
        face_entry *used;
        w += advance_of(pri, font_file, c, &gid, &used);
    }
    pthread_mutex_unlock(&lock);
    return w * size;
}

void fo_text_metrics(const char *font_file, double size, double *ascent,
                     double *descent, double *line_height)
{
    double a = 0.8, dsc = 0.2, h = 1.15;
    pthread_mutex_lock(&lock);
    face_entry *e = face_primary(font_file);
    if (e && e->face) { a = e->ascent; dsc = e->descent; h = e->height; }
    pthread_mutex_unlock(&lock);
    if (ascent) *ascent = a * size;
    if (descent) *descent = dsc * size;
    if (line_height) *line_height = h * size;
}

/* ---- wrapping -------------------------------------------------------------- */
static bool is_space(uint32_t c) { return c == ' ' || c == '\t' || c == 0x3000; }
static bool is_break_after(uint32_t c) { return c == '-' || c == 0x2010 || c == 0x2013 || c == 0x2014; }

typedef struct {
    fo_text_line *lines;
    size_t cap, n;
} line_sink;

static void emit(line_sink *s, size_t start, size_t end, double width)
{
    if (s->lines && s->n < s->cap) {
        s->lines[s->n].start = start;
        s->lines[s->n].len = end - start;
        s->lines[s->n].width = width;
    }
    s->n++;
}

/* For text that needs shaping: the shaped advance of each cluster, at the
 * byte offset where the cluster starts (0 elsewhere), so wrapping measures
 * what is drawn. NULL for other text (or out of memory: per character). */
static double *shaped_advances(const char *font_file, double size, const char *utf8, size_t len)
{
    if (!fo_shape_needed(utf8, len)) return NULL;
    size_t n = fo_shape(font_file, size, utf8, len, FO_DIR_AUTO, NULL, 0, NULL);
    fo_shaped *g = fo_malloc((n ? n : 1) * sizeof *g);
    double *adv = fo_calloc(len, sizeof *adv);
    if (!g || !adv) { fo_free(g); fo_free(adv); return NULL; }
    n = fo_shape(font_file, size, utf8, len, FO_DIR_AUTO, g, n, NULL);
    for (size_t k = 0; k < n; k++) adv[g[k].cluster] += g[k].advance;
    fo_free(g);
    return adv;
}

static double cluster_width(const double *adv, size_t from, size_t to)
{
    double w = 0;
    for (size_t k = from; k < to; k++) w += adv[k];
    return w;
}

size_t fo_text_wrap(const char *font_file, double size, const char *utf8, size_t len,
                    double max_width, fo_text_line *lines, size_t cap)
{
    line_sink s = {lines, cap, 0};
    if (!utf8 || len == 0) { emit(&s, 0, 0, 0); return s.n; }
    char *brks = fo_linebreaks(utf8, len);   /* UAX #14; NULL for ASCII */
    double *adv = shaped_advances(font_file, size, utf8, len);
    pthread_mutex_lock(&lock);
    face_entry *pri = face_primary(font_file);
    size_t pos = 0;
    for (;;) {
        size_t start = pos, i = pos;
        double w = 0;
        size_t content_end = start;   /* end of the last non-space character */
        double content_w = 0;
        bool have_brk = false;
        size_t brk_end = 0, brk_resume = 0;
        double brk_w = 0;
        bool done = false, newline = false;
        for (;;) {
            if (i >= len) { done = true; break; }
            size_t next = i;
            uint32_t c = fo_utf8_next(utf8, len, &next), gid;
            if (c == '\n') { newline = true; pos = next; break; }
            face_entry *used;
            double cw = adv ? cluster_width(adv, i, next)
                            : advance_of(pri, font_file, c, &gid, &used) * size;
            if (is_space(c)) {
                if (content_end > start) {
                    have_brk = true;
                    brk_end = content_end;
                    brk_w = content_w;
                    brk_resume = next;
                }
                w += cw;
                i = next;
                continue;
            }
            if (w + cw > max_width && content_end > start) {
                if (have_brk) {
                    emit(&s, start, brk_end, brk_w);
                    pos = brk_resume;
                } else {
                    emit(&s, start, content_end, content_w);
                    pos = i;
                }
                break;
            }
            w += cw;
            i = next;
            content_end = i;
            content_w = w;
            if (is_break_after(c) || fo_linebreak_after(brks, i - 1)) {
                have_brk = true;
                brk_end = content_end;
                brk_w = content_w;
                brk_resume = i;
            }
        }
        if (done || newline) emit(&s, start, content_end, content_w);
        if (done) break;
        if (!newline) /* a wrapped line: the next one starts after the spaces */
            while (pos < len) {
                size_t next = pos;
                uint32_t c = fo_utf8_next(utf8, len, &next);
                if (!is_space(c)) break;
                pos = next;
            }
        if (pos >= len && !newline) break;
    }
    pthread_mutex_unlock(&lock);
    fo_free(brks);
    fo_free(adv);
    return s.n;
}

size_t fo_text_ellipsize(const char *font_file, double size, const char *utf8, size_t len,
                         double max_width, char *out, size_t cap)
{
    static const char ell[] = "\xE2\x80\xA6";
    if (cap == 0) return 0;
    if (!utf8) len = 0;
    double full = fo_text_width(font_file, size, utf8, len);
    size_t keep = len;
    bool add = false;
    if (full > max_width) {
        double ew = fo_text_width(font_file, size, ell, 3), w = 0;
        size_t i = 0;
        keep = 0;
        while (i < len) {
            size_t next = i;
            fo_utf8_next(utf8, len, &next);
            w += fo_text_width(font_file, size, utf8 + i, next - i);
            if (w + ew > max_width) break;
            i = next;
            keep = i;
        }
        while (keep > 0 && utf8[keep - 1] == ' ') keep--;
        add = true;
    }
    size_t need = keep + (add ? 3 : 0);
    if (need + 1 > cap) { /* cut at a character boundary */
        size_t room = cap - 1 - (add ? 3 : 0);
        if (cap - 1 < (add ? 3u : 0u)) room = 0;
        size_t i = 0, last = 0;
        while (i < keep) {
            fo_utf8_next(utf8, keep, &i);
            if (i > room) break;
            last = i;
        }
        keep = last;
        if (add && keep + 3 + 1 > cap) add = false;
    }
    memcpy(out, utf8 ? utf8 : "", keep);
    if (add) memcpy(out + keep, ell, 3);
    out[keep + (add ? 3 : 0)] = '\0';
    return keep + (add ? 3 : 0);
}
