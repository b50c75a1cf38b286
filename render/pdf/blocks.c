/* blocks.c — PDF blocks that are not running text: metric cards, images,
 * and the table of contents (space reserved in the flow, filled at the end
 * when every heading's page is known). */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "render/core/delta.h"
#include "render/pdf/pdf_int.h"

/* ---- metrics ---------------------------------------------------------------- */

/* The metric's value as its format shows it, and the format's colour for
 * it ([Red]; -1: none) in *color. */
static size_t metric_value(const fo_metric *m, char *buf, size_t cap, long *color)
{
    fo_numfmt *f = fo_numfmt_compile(m->format ? m->format : "General", NULL, 0);
    size_t n;
    const char *s = fo_value_text(&m->value, f, buf, cap, &n, NULL);
    if (s != buf) n = (size_t)snprintf(buf, cap, "%s", s);
    *color = fo_value_color(&m->value, f);
    fo_numfmt_free(f);
    return n < cap ? n : cap - 1;
}

/* Draws s in font f, shrunk until it fits w; returns the size used. */
static double fit_size(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len, double w)
{
    double tw = fo_pdf_text_width(c, f, size, s, len);
    return tw > w && tw > 0 ? size * w / tw : size;
}

void fo_pdf_metrics(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    size_t n = b->u.metrics.nitems;
    if (n == 0) return;
    size_t per = n < 4 ? n : 4;
    double gap = 10, pad = 9;
    double cw = (c->width - gap * (per - 1)) / per;
    double ls = t->body_size * 0.85, vs = t->heading_size[0] * 1.1, ds = t->body_size * 0.85;
    bool any_delta = false;
    for (size_t i = 0; i < n; i++) any_delta |= b->u.metrics.items[i].has_delta;
    double ch = pad + ls * 1.3 + vs * 1.15 + (any_delta ? ds * 1.5 : 0) + pad;
    fo_pdf_font *fr = fo_pdf_face(c, &t->body, FO_PDF_REGULAR);
    fo_pdf_font *fb = fo_pdf_face(c, &t->heading, FO_PDF_BOLD);
    if (!fr || !fb) return;
    for (size_t i = 0; i < n && c->st == FO_OK; i += per) {
        fo_pdf_need(c, ch + gap);
        HPDF_Page p = c->page;
        for (size_t j = i; j < n && j < i + per; j++) {
            const fo_metric *m = &b->u.metrics.items[j];
            double x = c->left + (j - i) * (cw + gap), top = c->y;
            fo_pdf_fill_rgb(p, t->table.band_fill);
            HPDF_Page_Rectangle(p, (HPDF_REAL)x, (HPDF_REAL)(top - ch), (HPDF_REAL)cw, (HPDF_REAL)ch);
            HPDF_Page_Fill(p);
            fo_pdf_fill_rgb(p, t->accent);
            HPDF_Page_Rectangle(p, (HPDF_REAL)x, (HPDF_REAL)(top - ch), 3, (HPDF_REAL)ch);
            HPDF_Page_Fill(p);
            double tx = x + pad + 2, tw = cw - 2 * pad - 2;
            double y = top - pad - ls;
            const char *label = m->label ? m->label : "";
            fo_pdf_text_draw(c, fr, fit_size(c, fr, ls, label, strlen(label), tw), t->muted,
                             tx, y, label, strlen(label));
            char val[256];
            long vc;
            size_t vl = metric_value(m, val, sizeof val, &vc);
            y -= vs * 1.15;
            fo_pdf_text_draw(c, fb, fit_size(c, fb, vs, val, vl, tw), vc >= 0 ? (fo_rgb)vc : t->heading_color,
                             tx, y, val, vl);
            if (m->has_delta) {
                char line[256];
                fo_delta_text(m, line, sizeof line);
                y -= ds * 1.5;
                fo_pdf_text_draw(c, fr, fit_size(c, fr, ds, line, strlen(line), tw),
                                 fo_delta_rgb(m, t->muted, t->table.band_fill),
                                 tx, y, line, strlen(line));
            }
        }
        c->fresh = false;
        c->y -= ch + gap;
    }
    c->y -= t->body_size * 0.4;
}

/* ---- images ------------------------------------------------------------------ */

/* PNGs are decoded with cairo, not libharu: libharu 2.3 misreads 16-bit and
 * some palette PNGs (half-width, wrong colours). Transparency is composited
 * onto the page background, which is what a reader shows anyway. */
HPDF_Image fo_pdf_load_png(fo_pdf *c, const char *path)
{
    HPDF_Image img = NULL;
    unsigned char *rgb = NULL;
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) goto cleanup;
    cairo_surface_flush(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    rgb = fo_malloc((size_t)w * (size_t)h * 3);
    if (!rgb || !px) goto cleanup;
    fo_rgb bg = c->t->background;
    unsigned br = bg >> 16 & 255, bgc = bg >> 8 & 255, bb = bg & 255;
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
        unsigned char *out = rgb + (size_t)y * (size_t)w * 3;
        for (int x = 0; x < w; x++) {
            uint32_t p = row[x]; /* premultiplied ARGB */
            unsigned a = p >> 24, inv = 255 - a;
            out[3 * x] = (unsigned char)(((p >> 16) & 255) + (br * inv + 127) / 255);
            out[3 * x + 1] = (unsigned char)(((p >> 8) & 255) + (bgc * inv + 127) / 255);
            out[3 * x + 2] = (unsigned char)((p & 255) + (bb * inv + 127) / 255);
        }
    }
    img = HPDF_LoadRawImageFromMem(c->pdf, rgb, (HPDF_UINT)w, (HPDF_UINT)h, HPDF_CS_DEVICE_RGB, 8);
cleanup:
    fo_free(rgb);
    cairo_surface_destroy(s);
    return img;
}

void fo_pdf_image(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    const char *path = b->u.image.path;
    if (!path) return;
    c->loading = path;
    HPDF_Image img = b->u.image.is_png ? fo_pdf_load_png(c, path) : HPDF_LoadJpegImageFromFile(c->pdf, path);
    c->loading = NULL;
    if (!img) { /* checked at spec time, so rare: never a silently missing picture */
        fo_diags_add(c->d, c->doc->spec_path, b->line, b->column, b->pointer, NULL,
                     "the image %s could not be decoded", path);
        if (c->st == FO_OK) c->st = FO_ERR_INPUT;
        return;
    }
    HPDF_Point px = HPDF_Image_GetSize(img);
    double nw = px.x > 0 ? px.x : 1, nh = px.y > 0 ? px.y : 1;
    double w = b->u.image.width, h = b->u.image.height;
    if (w <= 0 && h <= 0) { w = nw; h = nh; }
    else if (w <= 0) w = h * nw / nh;
    else if (h <= 0) h = w * nh / nw;
    w *= 0.75;  /* px -> pt at 96 dpi */
    h *= 0.75;
    double cap_h = b->u.image.caption ? t->body_size * 1.35 * 2 + 4 : 0;
    double maxh = (c->top - c->bottom) - cap_h - 8;
    if (w > c->width) { h *= c->width / w; w = c->width; }
    if (h > maxh) { w *= maxh / h; h = maxh; }
    fo_pdf_need(c, h + 4 + (cap_h ? t->body_size * 1.4 : 0));
    if (c->st != FO_OK) return;
    double x = c->left + (c->width - w) / 2;
    HPDF_Page_DrawImage(c->page, img, (HPDF_REAL)x, (HPDF_REAL)(c->y - 2 - h), (HPDF_REAL)w,
                        (HPDF_REAL)h);
    c->fresh = false;
    c->y -= h + 6;
    if (b->u.image.caption) {
        const char *cap = b->u.image.caption;
        fo_pdf_font *f = fo_pdf_face(c, &t->body, FO_PDF_ITALIC);
        double size = t->body_size * 0.95;
        double cw = f ? fo_pdf_text_width(c, f, size, cap, strlen(cap)) : 0;
        fo_pdf_style st = {&t->body, size, t->muted, FO_PDF_ITALIC};
        double cx = cw < c->width ? c->left + (c->width - cw) / 2 : c->left;
        fo_pdf_markup(c, cap, true, &st, cx, c->right - cx, t->body_size * 1.35);
    }
    c->y -= t->body_size * 0.8;
}

/* ---- table of contents ----------------------------------------------------- */

#define TOC_MAX_LEVEL 3

static size_t toc_entries(const fo_doc *doc)
{
    size_t n = 0;
    for (size_t i = 0; i < doc->nblocks; i++)
        if (doc->blocks[i].kind == FO_BLOCK_HEADING && doc->blocks[i].u.heading.level <= TOC_MAX_LEVEL) n++;
    return n;
}

static double toc_lh(const fo_theme *t) { return t->body_size * 1.6; }

/* A TOC is one line per heading of level 1..3 in the document: the lines
 * are reserved now (the entries count is known from the blocks) and drawn by
 * fo_pdf_toc_fill. Several TOC blocks each get their own slots. */
void fo_pdf_toc_reserve(fo_pdf *c, const fo_block *b)
{
    (void)b;
    const fo_theme *t = c->t;
    size_t n = toc_entries(c->doc);
    fo_pdf_style st = {&t->heading, t->heading_size[1], t->heading_color, FO_PDF_BOLD};
    fo_pdf_need(c, t->heading_size[1] * 1.3 + 3 * toc_lh(t));
    fo_pdf_markup(c, "Contents", false, &st, c->left, c->width, t->heading_size[1] * 1.3);
    c->y -= t->body_size * 0.5;
    if (!fo_grow((void **)&c->toc, &c->toc_cap, c->ntoc + n + 1, n + 1, sizeof *c->toc)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    for (size_t i = 0; i < n && c->st == FO_OK; i++) {
        fo_pdf_need(c, toc_lh(t));
        c->toc[c->ntoc++] = (fo_pdf_tocslot){c->npages - 1, c->y - toc_lh(t) + t->body_size * 0.45};
        c->y -= toc_lh(t);
        c->fresh = false;
    }
    c->y -= t->body_size * 0.8;
}

void fo_pdf_toc_fill(fo_pdf *c)
{
    const fo_theme *t = c->t;
    size_t n = toc_entries(c->doc);
    if (!c->ntoc || !n) return;
    fo_pdf_font *fr = fo_pdf_face(c, &t->body, FO_PDF_REGULAR);
    fo_pdf_font *fb = fo_pdf_face(c, &t->body, FO_PDF_BOLD);
    if (!fr || !fb) return;
    HPDF_Page saved = c->page;
    size_t k = 0;
    for (size_t i = 0; i < c->nmarks && c->st == FO_OK; i++) {
        const fo_pdf_mark *m = &c->marks[i];
        if (m->level > TOC_MAX_LEVEL) continue;
        for (size_t s = k % n; s < c->ntoc; s += n) {
            const fo_pdf_tocslot *slot = &c->toc[s];
            c->page = c->pages[slot->page];
            fo_pdf_font *f = m->level == 1 ? fb : fr;
            double x = c->left + (m->level - 1) * 14, size = t->body_size;
            char num[32];
            snprintf(num, sizeof num, "%zu", m->page + 1);
            double nw = fo_pdf_text_width(c, fr, size, num, strlen(num));
            double room = c->width - (x - c->left) - nw - 24;
            size_t len = strlen(m->text);
            /* one line per entry: cut a long heading at a character boundary */
            while (len > 0 && fo_pdf_text_width(c, f, size, m->text, len) > room) {
                len--;
                while (len > 0 && ((unsigned char)m->text[len] & 0xC0) == 0x80) len--;
            }
            double tw = fo_pdf_text_width(c, f, size, m->text, len);
            fo_pdf_text_draw(c, f, size, t->text, x, slot->y, m->text, len);
            fo_pdf_text_draw(c, fr, size, t->text, c->right - nw, slot->y, num, strlen(num));
            /* dotted leader */
            HPDF_UINT16 dash[2] = {1, 3};
            HPDF_Page_GSave(c->page);
            HPDF_Page_SetDash(c->page, dash, 2, 0);
            fo_pdf_stroke_rgb(c->page, t->muted);
            HPDF_Page_SetLineWidth(c->page, 0.6);
            HPDF_Page_MoveTo(c->page, (HPDF_REAL)(x + tw + 6), (HPDF_REAL)slot->y);
            HPDF_Page_LineTo(c->page, (HPDF_REAL)(c->right - nw - 6), (HPDF_REAL)slot->y);
            HPDF_Page_Stroke(c->page);
            HPDF_Page_GRestore(c->page);
            /* the whole line jumps to the heading */
            HPDF_Rect r = {(HPDF_REAL)x, (HPDF_REAL)(slot->y - size * 0.3), (HPDF_REAL)c->right,
                           (HPDF_REAL)(slot->y + size)};
            HPDF_Destination dst = HPDF_Page_CreateDestination(c->pages[m->page]);
            HPDF_Destination_SetFitH(dst, (HPDF_REAL)m->y);
            HPDF_Annotation a = HPDF_Page_CreateLinkAnnot(c->page, r, dst);
            if (a) HPDF_LinkAnnot_SetBorderStyle(a, 0, 0, 0);
        }
        k++;
    }
    c->page = saved;
}
