/* shaped.c — PDF text that needs shaping (Arabic, Hebrew, Indic, Thai,
 * combining marks): the glyphs HarfBuzz chose (render/shape.h), in visual
 * order, drawn as filled outlines, with the logical text laid over them as
 * invisible text (rendering mode 3) stretched to the same width, so
 * pdftotext, copy and search give back the characters in reading order.
 *
 * Why outlines: libharu shows text only through a Unicode encoder (content
 * codes are BMP code points, mapped to glyphs by the font's cmap), so it
 * cannot address the contextual forms, conjuncts and ligatures a shaper
 * picks, which have no code point. Outlines draw exactly the shaped glyphs
 * at the size asked; the cost is size (each occurrence carries its path). */
#include <stdlib.h>
#include <string.h>

#include "render/pdf/pdf_int.h"
#include "render/text.h"

typedef struct {
    HPDF_Page p;
    double x, y, size;
    bool any;
} pen;

static void pen_move(void *u, double x, double y)
{
    pen *o = u;
    HPDF_Page_MoveTo(o->p, (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
    o->any = true;
}

static void pen_line(void *u, double x, double y)
{
    pen *o = u;
    HPDF_Page_LineTo(o->p, (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
}

static void pen_cubic(void *u, double x1, double y1, double x2, double y2, double x, double y)
{
    pen *o = u;
    HPDF_Page_CurveTo(o->p, (HPDF_REAL)(o->x + x1 * o->size), (HPDF_REAL)(o->y + y1 * o->size),
                      (HPDF_REAL)(o->x + x2 * o->size), (HPDF_REAL)(o->y + y2 * o->size),
                      (HPDF_REAL)(o->x + x * o->size), (HPDF_REAL)(o->y + y * o->size));
}

double fo_pdf_shaped_width(fo_pdf_font *f, double size, const char *s, size_t len, fo_dir dir)
{
    double w = 0;
    fo_shape(f->path, size, s, len, dir, NULL, 0, &w);
    return w;
}

/* Appends code point cp to out as libharu's UTF-8 encoder can take it
 * (outside the BMP: U+FFFD; controls: a space); returns its width in f. */
static double put_cp(fo_pdf_font *f, uint32_t cp, char *out, size_t *o)
{
    if (cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x20 || cp == 0x7F) cp = ' ';
    if (cp < 0x80) out[(*o)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*o)++] = (char)(0xC0 | cp >> 6);
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*o)++] = (char)(0xE0 | cp >> 12);
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
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

/* The text layer in visual order, as a PDF producer writes it and as readers
 * (poppler's pdftotext, Acrobat) expect before they apply the bidi algorithm
 * to give back reading order: the characters of each cluster, cluster by
 * cluster in the order their glyphs are drawn. Writes NUL-terminated UTF-8
 * to out (room for 3 bytes per input byte) and returns its width in f at
 * size, as libharu will advance; -1 when out of memory. */
static double visual_text(fo_pdf_font *f, double size, const char *s, size_t len,
                          const fo_shaped *g, size_t n, char *out)
{
    uint32_t *starts = fo_malloc((n + 1) * sizeof *starts);
    if (!starts) return -1;
    for (size_t i = 0; i < n; i++) starts[i] = g[i].cluster;
    qsort(starts, n, sizeof *starts, cmp_u32);
    size_t o = 0;
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && g[i].cluster == g[i - 1].cluster) continue;
        uint32_t *next = bsearch(&g[i].cluster, starts, n, sizeof *starts, cmp_u32);
        while (next && next < starts + n && *next <= g[i].cluster) next++;
        size_t end = next && next < starts + n ? *next : len, from = o;
        for (size_t k = g[i].cluster, m; k < end; k += m)
            w += put_cp(f, fo_pdf_utf8(s + k, end - k, &m), out, &o);
        if (g[i].rtl) reverse_chars(out + from, o - from);   /* a ligature: لا */
    }
    out[o] = 0;
    fo_free(starts);
    return w * size / 1000.0;
}

/* Fills the outline of every shaped glyph and writes the text layer to buf;
 * returns false when out of memory. */
static bool draw_glyphs(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                        const char *s, size_t len, fo_dir dir, double *width, char *buf,
                        double *text_w)
{
    static const fo_text_path draw = {pen_move, pen_line, pen_cubic};
    fo_shaped stack[64], *g = stack;
    size_t n = fo_shape(f->path, size, s, len, dir, NULL, 0, NULL);
    if (n > 64 && !(g = fo_malloc(n * sizeof *g))) return false;
    n = fo_shape(f->path, size, s, len, dir, g, n, width);
    for (size_t i = 0; i < n; i++) {
        pen o = {c->page, x + g[i].x, y + g[i].y, size, false};
        if (g[i].gid != 0 && fo_text_glyph_outline(g[i].font, g[i].gid, &draw, &o) && o.any)
            HPDF_Page_Fill(c->page);          /* nonzero winding, as TrueType means it */
    }
    *text_w = visual_text(f, size, s, len, g, n, buf);
    if (g != stack) fo_free(g);
    return *text_w >= 0;
}

void fo_pdf_show_shaped(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                        const char *s, size_t len, fo_dir dir)
{
    if (c->st != FO_OK || !f || !f->font || len == 0) return;
    HPDF_Page p = c->page;
    bool in_text = HPDF_Page_GetGMode(p) == HPDF_GMODE_TEXT_OBJECT;
    if (in_text) HPDF_Page_EndText(p);
    double w = 0, lw = 0;
    char stackbuf[512];
    char *buf = 3 * len + 1 > sizeof stackbuf ? fo_malloc(3 * len + 1) : stackbuf;
    if (!buf || !draw_glyphs(c, f, size, x, y, s, len, dir, &w, buf, &lw)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        if (buf != stackbuf) fo_free(buf);
        if (in_text) HPDF_Page_BeginText(p);
        return;
    }
    HPDF_Page_BeginText(p);
    HPDF_Page_SetTextRenderingMode(p, HPDF_INVISIBLE);
    double scale = lw > 0 ? 100 * w / lw : 100;
    if (scale < 10) scale = 10;                  /* libharu's limits for Tz */
    if (scale > 300) scale = 300;
    HPDF_Page_SetHorizontalScalling(p, (HPDF_REAL)scale);
    fo_pdf_set_font(p, f->font, size);
    HPDF_Page_TextOut(p, fo_pdf_q(x), fo_pdf_q(y), buf);
    HPDF_Page_SetHorizontalScalling(p, 100);
    HPDF_Page_SetTextRenderingMode(p, HPDF_FILL);
    if (!in_text) HPDF_Page_EndText(p);
    if (buf != stackbuf) fo_free(buf);
    c->fresh = false;
}
