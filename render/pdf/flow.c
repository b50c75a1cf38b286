/* flow.c — PDF text layout: measuring and drawing UTF-8 with font fallback,
 * wrapping inline runs into lines (links clickable), title block, headings,
 * paragraphs, nested lists and code blocks.
 *
 * Wrapping is greedy: text is cut into words at spaces (and around each CJK
 * character, which may break anywhere); a word is the unit that moves to the
 * next line, even when it spans runs ("**12%**;" stays together). A word wider
 * than the column is cut between characters. Lines are emitted as soon as
 * they are full, so a paragraph longer than a page flows on. */
#include <stdio.h>
#include <string.h>

#include "render/core/bidi.h"
#include "base/buf.h"
#include "render/core/emoji.h"
#include "render/pdf/pdf_int.h"
#include "render/core/policy.h"
#include "render/core/text.h"
#include "base/utf8.h"
#include "render/core/linebreak.h"

#define LINK_PAD 1.0

/* ---- plain text ------------------------------------------------------------ */

/* What is drawn for cp: controls become a space; characters outside the BMP
 * (libharu's UTF-8 encoder stops there) are drawn as outlines when a fallback
 * font has them (emoji from Symbola), else U+FFFD like surrogates. */
/* Glyph outlines onto the page: em units scaled by size from the pen (x, y). */
static void pen_move(void *u, double x, double y)
{
    fo_pdf_pen *o = u;
    HPDF_Page_MoveTo(o->p, (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
    o->any = true;
}

static void pen_line(void *u, double x, double y)
{
    fo_pdf_pen *o = u;
    HPDF_Page_LineTo(o->p, (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
}

static void pen_cubic(void *u, double x1, double y1, double x2, double y2, double x, double y)
{
    fo_pdf_pen *o = u;
    HPDF_Page_CurveTo(o->p, (HPDF_REAL)(o->x + x1 * o->size), (HPDF_REAL)(o->y + y1 * o->size),
                      (HPDF_REAL)(o->x + x2 * o->size), (HPDF_REAL)(o->y + y2 * o->size),
                      (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
}

const fo_text_path fo_pdf_pen_path = {pen_move, pen_line, pen_cubic};

static uint32_t drawable(uint32_t cp)
{
    if (cp > 0xFFFF && cp <= 0x10FFFF && fo_text_outline(FO_TEXT_FALLBACK_REGULAR, cp, NULL, NULL, NULL))
        return cp;
    if (cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
    if (cp < 0x20 || cp == 0x7F) return ' ';
    return cp;
}


/* Colour emoji never come here: text with an emoji sequence is shaped
 * (fo_shape_needed), and shaped.c paints them. */
void fo_pdf_show(fo_pdf *c, fo_pdf_font *g, double size, double x, double y, const char *s)
{
    const fo_text_path *draw = &fo_pdf_pen_path;
    HPDF_Page p = c->page;
    if (g->def) {
        fo_pdf_set_font(c, g, size);
        HPDF_Page_TextOut(p, fo_pdf_q(x), fo_pdf_q(y), fo_pdf_mark_codes(c, g, s));
        return;
    }
    bool in_text = HPDF_Page_GetGMode(p) == HPDF_GMODE_TEXT_OBJECT;
    if (in_text) HPDF_Page_EndText(p);
    size_t len = strlen(s);
    /* the text layer: each outline inside an /ActualText span holding the
       character, over an invisible "?" for readers to replace (libharu's
       encoder cannot write a character outside the BMP) */
    fo_pdf_font *tf = fo_pdf_font_load(c, FO_TEXT_FALLBACK_REGULAR);
    for (size_t i = 0, n; i < len; i += n) {
        uint32_t cp = fo_utf8_at(s + i, len - i, &n);
        char one[5] = {0};
        memcpy(one, s + i, n < 4 ? n : 4);
        if (tf) fo_pdf_actual_open(p, one);
        fo_pdf_pen o = {p, x, y, size, false};
        double adv = 0;
        if (fo_text_outline(FO_TEXT_FALLBACK_REGULAR, cp, draw, &o, &adv) && o.any)
            HPDF_Page_Fill(p);               /* nonzero winding, as TrueType means it */
        if (tf) {
            HPDF_Page_BeginText(p);
            HPDF_Page_SetTextRenderingMode(p, HPDF_INVISIBLE);
            fo_pdf_set_font(c, tf, size);
            HPDF_Page_TextOut(p, fo_pdf_q(x), fo_pdf_q(y), fo_pdf_mark_codes(c, tf, "?"));
            HPDF_Page_SetTextRenderingMode(p, HPDF_FILL);
            HPDF_Page_EndText(p);
            fo_pdf_actual_close(p);
        }
        x += adv * size;
    }
    if (in_text) HPDF_Page_BeginText(p);
}

double fo_pdf_text_width(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len)
{
    double w = 0;
    if (f && f->def && fo_shape_needed(s, len)) return fo_pdf_shaped_width(c, f, size, s, len, FO_DIR_AUTO);
    for (size_t i = 0, n; i < len; i += n) {
        uint32_t cp = drawable(fo_utf8_at(s + i, len - i, &n));
        w += fo_pdf_glyph_width(fo_pdf_cover(c, f, cp), cp);
    }
    return w * size / 1000.0;
}

/* Draws s in segments of one font each, inside one text object. */
void fo_pdf_text_draw(fo_pdf *c, fo_pdf_font *f, double size, fo_rgb color,
                      double x, double y, const char *s, size_t len)
{
    fo_pdf_text_draw_dir(c, f, size, color, x, y, s, len, FO_DIR_AUTO);
}

void fo_pdf_text_draw_dir(fo_pdf *c, fo_pdf_font *f, double size, fo_rgb color,
                          double x, double y, const char *s, size_t len, fo_dir dir)
{
    if (c->st != FO_OK || !f || len == 0) return;
    /* a line of a right-to-left paragraph is set right to left even when it
       needs no shaping ("Acme 2024" reads "2024 Acme" there) */
    if (f->def && (dir == FO_DIR_RTL || fo_shape_needed(s, len))) {
        fo_pdf_fill_rgb(c->page, color);
        fo_pdf_show_shaped(c, f, size, x, y, s, len, dir);
        return;
    }
    char stackbuf[1024];
    /* a byte may come out as 3 (U+FFFD for a stray byte), 4 bytes as 4 */
    size_t cap = 3 * len + 8 > sizeof stackbuf ? 3 * len + 8 : sizeof stackbuf;
    char *buf = cap > sizeof stackbuf ? fo_malloc(cap) : stackbuf;
    if (!buf) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    HPDF_Page p = c->page;
    /* inside a caller's text object (a table row) we only add to it */
    bool own = HPDF_Page_GetGMode(p) != HPDF_GMODE_TEXT_OBJECT;
    if (own) HPDF_Page_BeginText(p);
    fo_pdf_fill_rgb(p, color);
    size_t i = 0;
    while (i < len) {
        size_t n, o = 0;
        uint32_t cp = drawable(fo_utf8_at(s + i, len - i, &n));
        fo_pdf_font *g = fo_pdf_cover(c, f, cp);
        double w = 0;
        /* longest stretch drawn with font g */
        while (i < len) {
            uint32_t cq = drawable(fo_utf8_at(s + i, len - i, &n));
            if (fo_pdf_cover(c, f, cq) != g) break;
            o += fo_utf8_put(buf + o, cq);
            w += fo_pdf_glyph_width(g, cq);
            i += n;
        }
        buf[o] = 0;
        fo_pdf_show(c, g, size, x, y, buf);
        x += w * size / 1000.0;
    }
    if (own) HPDF_Page_EndText(p);
    if (buf != stackbuf) fo_free(buf);
    c->fresh = false;
}

/* Records line [start, end) (trailing spaces dropped) as line nl when it
 * fits in max; returns nl + 1. */
static size_t put_line(const char *s, size_t start, size_t end, size_t nl, size_t *starts,
                       size_t *lens, size_t max)
{
    while (end > start && s[end - 1] == ' ') end--;
    if (nl < max) { starts[nl] = start; lens[nl] = end - start; }
    return nl + 1;
}

/* wrap() for text that needs shaping (Arabic, Indic, Thai...), measured as
 * it is drawn: by the pieces between break opportunities (linebreak.h:
 * UAX #14, ICU's dictionaries for Thai), each shaped (fo_pdf_text_width),
 * so a table cell's line is never wider than measured. Per character, the
 * letters took the widths of the general fallbacks, which have no
 * Devanagari: a false "no installed font" warning and .notdef widths for
 * Hindi in a table. A piece wider than the line is cut between clusters
 * (fo_shape_cluster_end), each measured shaped. */
static size_t wrap_shaped(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                          double w, bool keep_lead, size_t *starts, size_t *lens, size_t max)
{
    char *brks = fo_linebreaks(s, len);
    size_t nl = 0, i = 0;
    while (i < len) {
        bool hard = i == 0 || s[i - 1] == '\n';
        if (!(keep_lead && hard))
            while (i < len && s[i] == ' ') i++;  /* no leading spaces after a soft break */
        size_t start = i;
        double lw = 0;
        while (i < len && s[i] != '\n') {
            /* the piece [i, e): up to a break opportunity or a newline;
               its trailing spaces hang past the line's end */
            size_t e = i, n;
            do {
                fo_utf8_at(s + e, len - e, &n);
                e += n;
            } while (e < len && s[e] != '\n' && !fo_linebreak_after(brks, e - 1));
            size_t t = e;
            while (t > i && s[t - 1] == ' ') t--;
            double pw = fo_pdf_text_width(c, f, size, s + i, t - i);
            if (lw + pw <= w) {
                /* its spaces shaped with it: in the font of the letters
                   before them, as the line draws them */
                lw += e > t ? fo_pdf_text_width(c, f, size, s + i, e - i) : pw;
                i = e;
                continue;
            }
            if (i == start) {
                /* alone wider than the line: as many clusters as fit (one at least) */
                size_t k = i;
                while (k < t) {
                    size_t q = k;
                    fo_utf8_at(s + q, t - q, &n);
                    q = fo_shape_cluster_end(s, t, q + n);
                    double cw = fo_pdf_text_width(c, f, size, s + k, q - k);
                    if (k > start && lw + cw > w) break;
                    lw += cw;
                    k = q;
                }
                i = k < t ? k : e;
            }
            break;   /* the line is full */
        }
        nl = put_line(s, start, i, nl, starts, lens, max);
        if (i < len && s[i] == '\n') {
            i++;
            if (i == len) break;
        }
    }
    fo_free(brks);
    if (nl == 0) {
        if (max) { starts[0] = 0; lens[0] = 0; }
        nl = 1;
    }
    return nl;
}

static size_t wrap(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                   double w, bool keep_lead, size_t *starts, size_t *lens, size_t max)
{
    if (f && f->def && fo_shape_needed(s, len))
        return wrap_shaped(c, f, size, s, len, w, keep_lead, starts, lens, max);
    size_t nl = 0, i = 0;
    double limit = w * 1000.0 / size;
    while (i < len) {
        bool hard = i == 0 || s[i - 1] == '\n';
        if (!(keep_lead && hard))
            while (i < len && s[i] == ' ') i++;  /* no leading spaces after a soft break */
        size_t start = i, brk = 0, n;
        double lw = 0;
        bool cut = false;
        while (i < len && s[i] != '\n') {
            uint32_t cp = drawable(fo_utf8_at(s + i, len - i, &n));
            double gw = fo_pdf_glyph_width(fo_pdf_cover(c, f, cp), cp);
            size_t e = cp != ' ' ? fo_emoji_sequence_utf8(s + i, len - i) : 0;
            if (e) {   /* an emoji sequence: one glyph, as drawn, never cut */
                n = e;
                gw = fo_pdf_text_width(c, f, size, s + i, e) * 1000.0 / size;
            }
            if (lw + gw > limit && i > start && cp != ' ') {
                if (brk > start) i = brk;           /* back to the last space */
                cut = true;
                break;
            }
            if (cp == ' ') brk = i;
            lw += gw;
            i += n;
        }
        nl = put_line(s, start, i, nl, starts, lens, max);
        if (!cut && i < len && s[i] == '\n') {
            i++;
            if (i == len) break;
        }
    }
    if (nl == 0) {
        if (max) { starts[0] = 0; lens[0] = 0; }
        nl = 1;
    }
    return nl;
}

size_t fo_pdf_wrap_plain(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                         double w, size_t *starts, size_t *lens, size_t max)
{
    return wrap(c, f, size, s, len, w, false, starts, lens, max);
}

/* ---- inline runs ---------------------------------------------------------- */

typedef struct {
    fo_pdf_font *f;    /* the font that draws it; for a shaped piece, the style's */
    double size;
    fo_rgb color;
    const char *url;
    size_t off, len;   /* in line->buf */
    double w;          /* pt */
} piece;

/* A paragraph with text that needs shaping (shape.h) is set in shaped pieces
 * only, one per style while wrapping. Its bidi levels are resolved once over
 * the whole paragraph (bidi.h) and kept per byte of the line. A line of
 * one style is shaped whole at those levels (fo_shape_levels puts its level
 * runs in visual order, UAX #9 L2); a line of several has its pieces cut
 * where the level changes, put in visual order and each shaped in its
 * level's direction. A right-to-left paragraph is right aligned. */
typedef struct {
    piece *p;
    size_t n, cap;
    char *buf;
    uint8_t *lv;       /* shaped: the bidi level of each byte of buf */
    size_t blen, bcap, lcap;
    double w;
    bool shaped;       /* the paragraph needs shaping */
    fo_dir dir;        /* its direction (FO_DIR_RTL: right aligned) */
    double colw;       /* the column's width */
} line_t;

/* The style of one run. */
typedef struct {
    fo_pdf_font *f;
    double size;
    fo_rgb color;
    const char *url;
} rstyle;

static rstyle run_style(fo_pdf *c, const fo_run *r, const fo_pdf_style *st)
{
    rstyle s;
    int face = st->face;
    if (r->flags & FO_RUN_BOLD) face |= FO_PDF_BOLD;
    if (r->flags & FO_RUN_ITALIC) face |= FO_PDF_ITALIC;
    bool code = r->flags & FO_RUN_CODE;
    s.f = fo_pdf_face(c, code ? &c->t->mono : st->family, code ? face & FO_PDF_BOLD : face);
    s.size = code ? st->size * 0.92 : st->size;
    s.url = r->url && fo_link_allowed(r->url) ? r->url : NULL; /* refused: plain text */
    s.color = s.url ? c->t->link : st->color;
    return s;
}

/* Text and the text around it: a piece of a word cut by a style change,
 * measured with its neighbours as the shaper's context (shape.h's
 * fo_shape_in), as the line will draw it. */
typedef struct {
    const char *text;
    size_t len;
} around;

/* Appends text in style rs to the line, split into single-font pieces; lv
 * (shaped lines only) holds the bidi level of each byte of s; ctx (shaped
 * lines only, may be NULL: s alone) the text s lies in. Pieces of a shaped
 * line follow each other without a break, so each is drawn with its
 * neighbours as context; an unshaped line's pieces end in a NUL. */
static bool line_add(fo_pdf *c, line_t *L, const rstyle *rs, const char *s, size_t len,
                     const uint8_t *lv, const around *ctx)
{
    /* per input byte at most 4 out: U+FFFD for a stray byte and a piece's NUL */
    if (!fo_grow((void **)&L->buf, &L->bcap, L->blen + len * 4 + 8, 256, 1)) return false;
    if (L->shaped && !fo_grow((void **)&L->lv, &L->lcap, L->blen + len * 4 + 8, 256, 1)) return false;
    for (size_t i = 0, n; i < len; i += n) {
        uint32_t cp = L->shaped ? fo_utf8_at(s + i, len - i, &n) : drawable(fo_utf8_at(s + i, len - i, &n));
        fo_pdf_font *g = L->shaped ? rs->f : fo_pdf_cover(c, rs->f, cp);
        double gw = L->shaped ? 0 : fo_pdf_glyph_width(g, cp) * rs->size / 1000.0;
        piece *last = L->n ? &L->p[L->n - 1] : NULL;
        if (!last || last->f != g || last->size != rs->size || last->color != rs->color ||
            last->url != rs->url) {
            if (!fo_grow((void **)&L->p, &L->cap, L->n + 1, 8, sizeof *L->p)) return false;
            if (last && !L->shaped) L->buf[L->blen++] = 0;  /* terminate the previous piece */
            last = &L->p[L->n++];
            *last = (piece){g, rs->size, rs->color, rs->url, L->blen, 0, 0};
        }
        size_t k = fo_utf8_put(L->buf + L->blen, cp);
        if (L->shaped) memset(L->lv + L->blen, lv ? lv[i] : 0, k);
        L->blen += k;
        last->len += k;
        last->w += gw;
        L->w += gw;
    }
    if (L->shaped && L->n && len) { /* the text added to the last piece, shaped */
        piece *q = &L->p[L->n - 1];
        double gw = ctx ? fo_pdf_shaped_width_in(c, q->f, q->size, ctx->text, ctx->len,
                                                 (size_t)(s - ctx->text), len, L->dir)
                        : fo_pdf_shaped_width(c, q->f, q->size, s, len, L->dir);
        q->w += gw;   /* words meet at spaces: their widths add up (linear, not the */
        L->w += gw;   /* whole piece again at every word) */
    }
    return true;
}

/* Underlines [x0, x1) at base and makes it a link to url. */
static void link_draw(fo_pdf *c, const piece *q, double x0, double x1, double base)
{
    HPDF_Page p = c->page;
    fo_pdf_stroke_rgb(p, q->color);
    HPDF_Page_SetLineWidth(p, 0.5);
    HPDF_Page_MoveTo(p, (HPDF_REAL)x0, (HPDF_REAL)(base - 1.5));
    HPDF_Page_LineTo(p, (HPDF_REAL)x1, (HPDF_REAL)(base - 1.5));
    HPDF_Page_Stroke(p);
    HPDF_Rect r = {(HPDF_REAL)(x0 - LINK_PAD), (HPDF_REAL)(base - q->size * 0.25),
                   (HPDF_REAL)(x1 + LINK_PAD), (HPDF_REAL)(base + q->size * 0.9)};
    HPDF_Annotation a = HPDF_Page_CreateURILinkAnnot(p, r, q->url);
    if (a) HPDF_LinkAnnot_SetBorderStyle(a, 0, 0, 0);
}

/* A shaped line's piece cut where the bidi level changes. */
typedef struct {
    size_t piece, off, len;   /* off, len: in line->buf */
    double x, w;              /* where it was drawn: left end, width */
} level_run;

/* The line's pieces cut at level changes, in logical order, with their
 * levels in lv; *n gets how many. NULL when out of memory. */
static level_run *level_runs(const line_t *L, uint8_t **lv, size_t *n)
{
    size_t cnt = 0;
    for (size_t i = 0; i < L->n; i++)
        for (size_t k = 0; k < L->p[i].len; k++)
            cnt += k == 0 || L->lv[L->p[i].off + k] != L->lv[L->p[i].off + k - 1];
    level_run *r = fo_malloc((cnt ? cnt : 1) * sizeof *r);
    *lv = fo_malloc(cnt ? cnt : 1);
    if (!r || !*lv) { fo_free(r); fo_free(*lv); *lv = NULL; return NULL; }
    *n = 0;
    for (size_t i = 0; i < L->n; i++)
        for (size_t k = 0, o = L->p[i].off; k < L->p[i].len; k++) {
            if (k == 0 || L->lv[o + k] != L->lv[o + k - 1]) {
                r[*n] = (level_run){i, o + k, 0, 0, 0};
                (*lv)[(*n)++] = L->lv[o + k];
            }
            r[*n - 1].len++;
        }
    return r;
}

/* Draws a shaped line's pieces in visual order from x (the column's left
 * edge; a right-to-left line from its right edge, last piece first): each
 * cut at level changes, shaped once in its level's direction. */
static void emit_shaped(fo_pdf *c, line_t *L, double x, double base)
{
    bool rtl = L->dir == FO_DIR_RTL;
    if (L->n == 1) {
        /* one style: shaped whole at the paragraph's levels, fo_shape_levels
           orders it (without the cost of a shaping per level run: 15 % of
           a mixed-script report's PDF) */
        const piece *q = &L->p[0];
        double px = rtl ? x + L->colw : x;
        HPDF_Page_BeginText(c->page);
        fo_pdf_fill_rgb(c->page, q->color);
        double w = fo_pdf_show_shaped_levels(c, q->f, q->size, px, base, L->buf + q->off, q->len,
                                             L->lv + q->off, rtl);
        HPDF_Page_EndText(c->page);
        if (q->url) link_draw(c, q, rtl ? px - w : px, rtl ? px : px + w, base);
        return;
    }
    uint8_t *lv = NULL;
    size_t n = 0;
    level_run *r = level_runs(L, &lv, &n);
    size_t *order = r ? fo_malloc((n ? n : 1) * sizeof *order) : NULL;
    if (!order) { fo_free(r); fo_free(lv); fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    fo_bidi_order(lv, n, order);
    double px = rtl ? x + L->colw : x;
    HPDF_Page_BeginText(c->page);
    for (size_t v = 0; v < n; v++) {
        size_t i = order[rtl ? n - 1 - v : v];
        const piece *q = &L->p[r[i].piece];
        fo_pdf_fill_rgb(c->page, q->color);
        /* the whole line is the shaper's context: letters joined across a
           style change (مر**حب**ا) keep their joined forms */
        r[i].w = fo_pdf_show_shaped_in(c, q->f, q->size, px, base, L->buf, L->blen, r[i].off,
                                       r[i].len, lv[i] & 1 ? FO_DIR_RTL : FO_DIR_LTR, rtl);
        px += rtl ? -r[i].w : r[i].w;
        r[i].x = rtl ? px : px - r[i].w;
    }
    HPDF_Page_EndText(c->page);
    for (size_t i = 0; i < n; i++) {
        const piece *q = &L->p[r[i].piece];
        if (q->url) link_draw(c, q, r[i].x, r[i].x + r[i].w, base);
    }
    fo_free(order);
    fo_free(lv);
    fo_free(r);
}

/* Draws the line at the cursor (new page first if it does not fit). */
static void line_emit(fo_pdf *c, line_t *L, double x, double line_h)
{
    fo_pdf_need(c, line_h);
    if (c->st != FO_OK) return;
    HPDF_Page p = c->page;
    double base = c->y - line_h + (line_h - (L->n ? L->p[0].size : 10)) * 0.5 +
                  (L->n ? L->p[0].size : 10) * 0.22;
    if (L->n && L->shaped) {
        emit_shaped(c, L, x, base);
        c->fresh = false;
    } else if (L->n) {
        /* no shaping, so left to right: the pieces in order */
        L->buf[L->blen] = 0;
        HPDF_Page_BeginText(p);
        double px = x;
        for (size_t i = 0; i < L->n; i++) {
            piece *q = &L->p[i];
            fo_pdf_fill_rgb(p, q->color);
            fo_pdf_show(c, q->f, q->size, px, base, L->buf + q->off);
            q->off = (size_t)(px * 1000);  /* reuse: x position for links, in mpt */
            px += q->w;
        }
        HPDF_Page_EndText(p);
        /* links: underline and one annotation per stretch of pieces */
        for (size_t i = 0; i < L->n;) {
            if (!L->p[i].url) { i++; continue; }
            size_t j = i;
            double x0 = L->p[i].off / 1000.0, x1 = x0;
            while (j < L->n && L->p[j].url == L->p[i].url) { x1 += L->p[j].w; j++; }
            link_draw(c, &L->p[i], x0, x1, base);
            i = j;
        }
        c->fresh = false;
    }
    c->y -= line_h;
    L->n = 0;
    L->blen = 0;
    L->w = 0;
}

typedef struct { size_t run, off, len, woff; } frag;   /* woff: in the word's text */

/* Adds byte range [i, i+n) of run r to the word: extends its last fragment
 * or starts one. False when out of memory. */
static bool word_extend(frag **word, size_t *nw, size_t *wcap, size_t r, size_t i, size_t n)
{
    frag *w = *word;
    if (*nw && w[*nw - 1].run == r && w[*nw - 1].off + w[*nw - 1].len == i) {
        w[*nw - 1].len += n;
        return true;
    }
    if (!fo_grow((void **)word, wcap, *nw + 1, 8, sizeof *w)) return false;
    (*word)[(*nw)++] = (frag){r, i, n, 0};
    return true;
}

/* The word's fragments one after another into *buf (grown as needed), as
 * ctx, each fragment's woff set: the context its pieces are shaped in when
 * a style changes inside it. False when out of memory. */
static bool word_join(const fo_runs *runs, frag *word, size_t nw, char **buf, size_t *cap,
                      around *ctx)
{
    size_t len = 0;
    for (size_t k = 0; k < nw; k++) len += word[k].len;
    if (!fo_grow((void **)buf, cap, len + 1, 64, 1)) return false;
    len = 0;
    for (size_t k = 0; k < nw; k++) {
        word[k].woff = len;
        memcpy(*buf + len, runs->runs[word[k].run].text + word[k].off, word[k].len);
        len += word[k].len;
    }
    *ctx = (around){*buf, len};
    return true;
}

/* Where fragment f's text is: in the joined word when there is one. */
static const char *frag_text(const fo_runs *runs, const frag *f, const around *ctx)
{
    return ctx ? ctx->text + f->woff : runs->runs[f->run].text + f->off;
}

/* The width of t[0..len) in style rs as line_add measures it: inside ctx
 * (a word cut by style changes, shaped line) with its neighbours as
 * context; else alone. */
static double frag_width(fo_pdf *c, const line_t *L, const rstyle *rs, const char *t, size_t len,
                         const around *ctx)
{
    if (!ctx) return fo_pdf_text_width(c, rs->f, rs->size, t, len);
    return fo_pdf_shaped_width_in(c, rs->f, rs->size, ctx->text, ctx->len, (size_t)(t - ctx->text),
                                  len, L->dir);
}

/* The bidi levels of the paragraph made of all the runs, one byte per byte
 * of the runs in turn (base[r]: where run r starts); sets L->dir. NULL when
 * out of memory. */
static uint8_t *para_levels(const fo_runs *runs, size_t *base, line_t *L)
{
    size_t total = 0;
    for (size_t r = 0; r < runs->n; r++) { base[r] = total; total += runs->runs[r].len; }
    char *text = fo_malloc(total + 1);
    uint8_t *lv = fo_malloc(total + 1);
    if (!text || !lv) { fo_free(text); fo_free(lv); return NULL; }
    for (size_t r = 0; r < runs->n; r++) memcpy(text + base[r], runs->runs[r].text, runs->runs[r].len);
    L->dir = fo_bidi_levels(text, total, FO_DIR_AUTO, lv);
    fo_free(text);
    if (L->dir == FO_DIR_AUTO) { fo_free(lv); return NULL; }
    return lv;
}

void fo_pdf_runs(fo_pdf *c, const fo_runs *runs, const fo_pdf_style *st,
                 double x, double w, double line_h)
{
    line_t L = {0};
    L.colw = w;
    for (size_t r = 0; r < runs->n && !L.shaped; r++)
        L.shaped = fo_shape_needed(runs->runs[r].text, runs->runs[r].len);
    size_t *base = fo_calloc(runs->n ? runs->n : 1, sizeof *base);
    uint8_t *plv = base && L.shaped ? para_levels(runs, base, &L) : NULL;
    if (!base || (L.shaped && !plv)) {
        fo_free(base);
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    /* the levels of byte i of run r (NULL for a line that is not shaped) */
#define LV(r, i) (plv ? plv + base[r] + (i) : NULL)
    frag *word = NULL;
    char *wtext = NULL;     /* a word cut by style changes, whole (word_join) */
    size_t wtcap = 0;
    char *brks = NULL;
    size_t nw = 0, wcap = 0;
    rstyle *styles = fo_calloc(runs->n ? runs->n : 1, sizeof *styles);
    if (!styles) goto oom;
    for (size_t r = 0; r < runs->n; r++) styles[r] = run_style(c, &runs->runs[r], st);
    bool space = false, any = false;
    size_t space_run = 0;   /* the run the pending space was typed in: its style draws it */
    size_t space_at = 0;    /* and where in it */
    /* r == runs->n is a sentinel that flushes the last word */
    for (size_t r = 0; r <= runs->n && c->st == FO_OK; r++) {
        const char *s = r < runs->n ? runs->runs[r].text : "";
        size_t len = r < runs->n ? runs->runs[r].len : 0, i = 0;
        /* UAX #14 (linebreak.h) where the run is not plain ASCII: a word
           also ends where a break is allowed without a space (between CJK
           characters, after a dash) */
        fo_free(brks);
        brks = fo_linebreaks(s, len);
        for (;;) {
            size_t n = 1;
            uint32_t cp = i < len ? fo_utf8_at(s + i, len - i, &n) : 0;
            bool end_run = i >= len;
            bool cjk = !brks && ((cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
                       (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF));
            bool sep = !end_run && (cp == ' ' || cp == '\n' || cp == '\t');
            bool brk_before = !end_run && !sep && i > 0 && s[i - 1] != ' ' &&
                              fo_linebreak_after(brks, i - 1);
            bool add = !sep && !cjk && !end_run;
            bool flush = sep || cjk || brk_before || (end_run && r == runs->n);
            if (add && !brk_before && !word_extend(&word, &nw, &wcap, r, i, n)) goto oom;
            if (flush && nw) {
                double ww = 0, sw = 0;
                /* a word cut by style changes (مر**حب**ا) is measured and
                   drawn piece by piece, the whole word their context */
                around wc = {NULL, 0}, *ctx = NULL;
                if (L.shaped && nw > 1) {
                    if (!word_join(runs, word, nw, &wtext, &wtcap, &wc)) goto oom;
                    ctx = &wc;
                }
                for (size_t k = 0; k < nw; k++)
                    ww += frag_width(c, &L, &styles[word[k].run], frag_text(runs, &word[k], ctx), word[k].len, ctx);
                /* "see [the link]": the space is plain text, not the link's */
                const rstyle *fs = &styles[space_run < runs->n ? space_run : word[0].run];
                if (space && L.n) sw = fo_pdf_glyph_width(fs->f, ' ') * fs->size / 1000.0;
                if (L.n && L.w + sw + ww > w) { line_emit(c, &L, x, line_h); sw = 0; }
                if (sw > 0 && !line_add(c, &L, fs, " ", 1, LV(space_run, space_at), NULL)) goto oom;
                for (size_t k = 0; k < nw; k++) {
                    const rstyle *ks = &styles[word[k].run];
                    const char *t = frag_text(runs, &word[k], ctx);
                    if (ww <= w) {
                        if (!line_add(c, &L, ks, t, word[k].len, LV(word[k].run, word[k].off), ctx)) goto oom;
                        continue;
                    }
                    /* a word wider than the column: cut between characters */
                    for (size_t q = 0, m; q < word[k].len; q += m) {
                        fo_utf8_at(t + q, word[k].len - q, &m);
                        double gw = fo_pdf_text_width(c, ks->f, ks->size, t + q, m);
                        if (L.n && L.w + gw > w) line_emit(c, &L, x, line_h);
                        if (!line_add(c, &L, ks, t + q, m, LV(word[k].run, word[k].off + q), NULL)) goto oom;
                    }
                }
                nw = 0;
                space = false;
                any = true;
            }
            if (add && brk_before && !word_extend(&word, &nw, &wcap, r, i, n)) goto oom;
            if (cjk) {
                /* the character is a word of its own, glued to nothing */
                rstyle *cs = &styles[r];
                double gw = fo_pdf_text_width(c, cs->f, cs->size, s + i, n);
                const rstyle *fs = &styles[space_run < runs->n ? space_run : r];
                double sw = space && L.n ? fo_pdf_glyph_width(fs->f, ' ') * fs->size / 1000.0 : 0;
                if (L.n && L.w + sw + gw > w) { line_emit(c, &L, x, line_h); sw = 0; }
                if (sw > 0 && !line_add(c, &L, fs, " ", 1, LV(space_run, space_at), NULL)) goto oom;
                if (!line_add(c, &L, cs, s + i, n, LV(r, i), NULL)) goto oom;
                space = false;
                any = true;
            }
            if (sep) {
                if (cp == '\n') { line_emit(c, &L, x, line_h); space = false; }
                else if (!space) { space = any; space_run = r; space_at = i; }
            }
            if (end_run) break;
            i += n;
        }
    }
    if (L.n) line_emit(c, &L, x, line_h);
    goto done;
oom:
    fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
done:
#undef LV
    fo_free(plv);
    fo_free(base);
    fo_free(styles);
    fo_free(brks);
    fo_free(word);
    fo_free(wtext);
    fo_free(L.p);
    fo_free(L.buf);
    fo_free(L.lv);
}

void fo_pdf_markup(fo_pdf *c, const char *src, bool markup, const fo_pdf_style *st,
                   double x, double w, double line_h)
{
    if (!src) return;
    if (!markup) {
        fo_run r = {(char *)src, strlen(src), 0, NULL};
        fo_runs one = {&r, 1};
        fo_pdf_runs(c, &one, st, x, w, line_h);
        return;
    }
    fo_runs runs = {0};
    if (fo_markup_parse(src, &runs) != FO_OK) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    fo_pdf_runs(c, &runs, st, x, w, line_h);
    fo_runs_free(&runs);
}

/* ---- blocks ----------------------------------------------------------------- */

static double body_lh(const fo_theme *t) { return t->body_size * 1.4; }

void fo_pdf_title_block(fo_pdf *c)
{
    const fo_doc *doc = c->doc;
    const fo_theme *t = c->t;
    if (!doc->title && !doc->subtitle && !doc->author && !doc->date) return;
    if (doc->title) {
        fo_pdf_style st = {&t->heading, t->title_size, t->heading_color, FO_PDF_BOLD};
        fo_pdf_markup(c, doc->title, false, &st, c->left, c->width, t->title_size * 1.2);
    }
    if (doc->subtitle) {
        double s = t->body_size * 1.45;
        fo_pdf_style st = {&t->heading, s, t->muted, FO_PDF_REGULAR};
        c->y -= s * 0.2;
        fo_pdf_markup(c, doc->subtitle, false, &st, c->left, c->width, s * 1.3);
    }
    char line[512];
    if (fo_doc_byline(doc, true, line, sizeof line)) {
        fo_pdf_style st = {&t->body, t->body_size, t->muted, FO_PDF_REGULAR};
        c->y -= t->body_size * 0.3;
        fo_pdf_markup(c, line, false, &st, c->left, c->width, body_lh(t));
    }
    c->y -= t->body_size * 0.6;
    fo_pdf_stroke_rgb(c->page, t->accent);
    HPDF_Page_SetLineWidth(c->page, 1.2);
    HPDF_Page_MoveTo(c->page, (HPDF_REAL)c->left, (HPDF_REAL)c->y);
    HPDF_Page_LineTo(c->page, (HPDF_REAL)c->right, (HPDF_REAL)c->y);
    HPDF_Page_Stroke(c->page);
    c->y -= t->body_size * 1.6;
}

void fo_pdf_heading(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    int level = b->u.heading.level < 1 ? 1 : b->u.heading.level > 6 ? 6 : b->u.heading.level;
    double size = t->heading_size[level - 1];
    double lh = size * 1.25, before = c->fresh ? 0 : size * (level == 1 ? 0.9 : 0.7);
    fo_pdf_font *f = fo_pdf_face(c, &t->heading, FO_PDF_BOLD);
    if (!f) return;
    double tw = fo_pdf_text_width(c, f, size, b->u.heading.text, strlen(b->u.heading.text));
    double lines = tw / c->width + 1;
    /* keep with what follows: the heading plus the start of the next block */
    size_t bi = (size_t)(b - c->doc->blocks);
    double next = bi + 1 < c->doc->nblocks ? fo_pdf_min_height(c, &c->doc->blocks[bi + 1]) : 0;
    fo_pdf_need(c, before + lh * (int)lines + size * 0.35 + next);
    if (!c->fresh) c->y -= before;
    fo_pdf_mark_add(c, b->u.heading.text, level, c->y + size * 0.3);
    fo_pdf_style st = {&t->heading, size, t->heading_color, FO_PDF_BOLD};
    fo_pdf_markup(c, b->u.heading.text, false, &st, c->left, c->width, lh);
    c->y -= size * 0.35;
}

void fo_pdf_paragraph(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    fo_pdf_style st = {&t->body, t->body_size, t->text, FO_PDF_REGULAR};
    fo_pdf_markup(c, b->u.paragraph.text, true, &st, c->left, c->width, body_lh(t));
    c->y -= t->body_size * 0.7;
}

static void list_marker(bool ordered, int depth, size_t i, char *out, size_t cap)
{
    static const char *const bullets[] = {"\xE2\x80\xA2", "\xE2\x80\x93", "\xC2\xB7"};
    if (!ordered) { snprintf(out, cap, "%s", bullets[depth % 3]); return; }
    if (depth % 2 == 1 && i < 26) snprintf(out, cap, "%c.", (char)('a' + i));
    else snprintf(out, cap, "%zu.", i + 1);
}

static void list_items(fo_pdf *c, const fo_list_item *items, size_t n, bool ordered, int depth)
{
    const fo_theme *t = c->t;
    double lh = body_lh(t), indent = 18.0;
    double x = c->left + indent * (depth + 1);
    fo_pdf_font *mf = fo_pdf_face(c, &t->body, FO_PDF_REGULAR);
    for (size_t i = 0; i < n && c->st == FO_OK; i++) {
        char mark[24];
        list_marker(ordered, depth, i, mark, sizeof mark);
        fo_pdf_need(c, lh);
        double base = c->y - lh + (lh - t->body_size) * 0.5 + t->body_size * 0.22;
        /* a right-to-left item hangs from the right margin, its marker mirrored */
        bool rtl = items[i].text && fo_shape_direction(items[i].text, strlen(items[i].text)) == FO_DIR_RTL;
        fo_rgb mc = ordered ? t->text : t->accent;
        if (rtl && mf) {
            double mw = fo_pdf_shaped_width(c, mf, t->body_size, mark, strlen(mark), FO_DIR_RTL);
            fo_pdf_fill_rgb(c->page, mc);
            fo_pdf_show_shaped(c, mf, t->body_size, c->right - (x - c->left) + 5, base, mark,
                               strlen(mark), FO_DIR_RTL);
            (void)mw;
        } else {
            double mw = fo_pdf_text_width(c, mf, t->body_size, mark, strlen(mark));
            fo_pdf_text_draw(c, mf, t->body_size, mc, x - 5 - mw, base, mark, strlen(mark));
        }
        fo_pdf_style st = {&t->body, t->body_size, t->text, FO_PDF_REGULAR};
        if (items[i].text && items[i].text[0])
            fo_pdf_markup(c, items[i].text, true, &st, rtl ? c->left : x, c->right - x, lh);
        else c->y -= lh;
        c->y -= t->body_size * 0.15;
        if (items[i].nitems) list_items(c, items[i].items, items[i].nitems, items[i].ordered, depth + 1);
    }
}

void fo_pdf_list(fo_pdf *c, const fo_block *b)
{
    list_items(c, b->u.list.items, b->u.list.nitems, b->u.list.ordered, 0);
    c->y -= c->t->body_size * 0.55;
}

/* Code: monospace lines on a shaded band; the band is cut where the page
 * ends and continues on the next. Tabs become four spaces. */
#define CODE_PAD 6.0 /* pt, inside a code block's shaded box */

/* src with each tab as four spaces, carriage returns and trailing newlines
 * dropped, in *len bytes (NUL-terminated); NULL when out of memory. */
static char *code_text(const char *src, size_t *len)
{
    size_t tabs = 0, slen = strlen(src);
    for (size_t i = 0; i < slen; i++) tabs += src[i] == '\t';
    char *text = fo_malloc(slen + tabs * 3 + 1);
    if (!text) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < slen; i++) {
        if (src[i] == '\t') { memcpy(text + o, "    ", 4); o += 4; }
        else if (src[i] != '\r') text[o++] = src[i];
    }
    while (o > 0 && text[o - 1] == '\n') o--;
    text[o] = 0;
    *len = o;
    return text;
}

/* The nl wrapped lines of text (starts, lens) on shaded boxes, as many on
 * each page as fit. */
static void code_boxes(fo_pdf *c, fo_pdf_font *f, const char *text, const size_t *starts,
                       const size_t *lens, size_t nl)
{
    const fo_theme *t = c->t;
    double size = t->mono_size, lh = size * 1.35, pad = CODE_PAD;
    size_t i = 0;
    c->y -= 2;
    while (i < nl && c->st == FO_OK) {
        if (c->y - c->bottom < 2 * pad + lh * (nl - i > 1 ? 2 : 1) && !c->fresh) fo_pdf_new_page(c);
        size_t fit = (size_t)((c->y - c->bottom - 2 * pad) / lh);
        if (fit < 1) fit = 1;
        size_t k = nl - i < fit ? nl - i : fit;
        double h = k * lh + 2 * pad;
        fo_pdf_fill_rgb(c->page, t->code_fill);
        HPDF_Page_Rectangle(c->page, fo_pdf_q(c->left), fo_pdf_q(c->y - h),
                            fo_pdf_q(c->width), fo_pdf_q(h));
        HPDF_Page_Fill(c->page);
        double base = c->y - pad - lh + (lh - size) * 0.5 + size * 0.22;
        for (size_t j = 0; j < k; j++, base -= lh)
            fo_pdf_text_draw(c, f, size, t->text, c->left + pad, base,
                             text + starts[i + j], lens[i + j]);
        c->fresh = false;
        c->y -= h;
        i += k;
    }
    c->y -= t->body_size * 0.8;
}

void fo_pdf_code(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    fo_pdf_font *f = fo_pdf_face(c, &t->mono, FO_PDF_REGULAR);
    if (!f) return;
    size_t len = 0, nl = 0, cap = 0, *starts = NULL, *lens = NULL;
    char *text = code_text(b->u.code.text ? b->u.code.text : "", &len);
    double w = c->width - 2 * CODE_PAD;
    if (text) nl = wrap(c, f, t->mono_size, text, len, w, true, NULL, NULL, 0);
    if (text && fo_grow_all(&cap, nl ? nl : 1, nl, 2, (void **const[]){(void **)&starts, (void **)&lens},
                            (const size_t[]){sizeof *starts, sizeof *lens})) {
        wrap(c, f, t->mono_size, text, len, w, true, starts, lens, nl);
        code_boxes(c, f, text, starts, lens, nl);
    } else {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
    }
    fo_free(text);
    fo_free(starts);
    fo_free(lens);
}
