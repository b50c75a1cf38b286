/* png.c — the .png renderer: one PNG per chart block, drawn by replaying the
 * chart's display list on a cairo image surface (the cairo backend below)
 * and written with folio's own fast encoder (encode.c).
 *
 * Fonts come from the theme's TrueType files through cairo-ft (never a
 * fontconfig lookup), glyphs are placed at the advances text.c measured, and
 * no time or machine data goes into the file: the same spec gives the same
 * bytes. Naming: one chart -> OUT.png; several -> OUT-1.png, OUT-2.png, ... */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include "render/chart/chart.h"
#include "render/png/png_encode.h"
#include "render/render.h"
#include "base/buf.h"
#include "render/core/emoji.h"
#include "render/core/prov.h"
#include "render/core/text.h"
#include "base/utf8.h"

/* ---- font faces: one cairo face per TrueType file, kept for the process ---- */
typedef struct {
    char *path;
    cairo_font_face_t *face; /* NULL: the file could not be loaded */
} face_slot;

static pthread_mutex_t face_lock = PTHREAD_MUTEX_INITIALIZER;
static FT_Library ft;
static face_slot *slots;
static size_t nslots, capslots;

/* the FT_Face a cairo face was made from, freed when cairo lets the face go */
static const cairo_user_data_key_t ft_face_key;

static void ft_face_done(void *face) { FT_Done_Face((FT_Face)face); }

static cairo_font_face_t *face_for(const char *path)
{
    cairo_font_face_t *r = NULL;
    pthread_mutex_lock(&face_lock);
    for (size_t i = 0; i < nslots; i++)
        if (strcmp(slots[i].path, path) == 0) { r = slots[i].face; goto done; }
    if (!fo_grow((void **)&slots, &capslots, nslots + 1, 8, sizeof *slots)) goto done;
    char *p = fo_strdup(path);
    if (!p) goto done;
    FT_Face f = NULL;
    if ((ft || FT_Init_FreeType(&ft) == 0) && FT_New_Face(ft, path, 0, &f) == 0) {
        r = cairo_ft_font_face_create_for_ft_face(f, 0);
        if (cairo_font_face_status(r) != CAIRO_STATUS_SUCCESS ||
            cairo_font_face_set_user_data(r, &ft_face_key, f, ft_face_done) != CAIRO_STATUS_SUCCESS) {
            cairo_font_face_destroy(r);
            FT_Done_Face(f);
            r = NULL;
        }
    }
    slots[nslots].path = p;
    slots[nslots].face = r;
    nslots++;
done:
    pthread_mutex_unlock(&face_lock);
    return r;
}

void fo_png_forget_fonts(void)
{
    pthread_mutex_lock(&face_lock);
    for (size_t i = 0; i < nslots; i++) {
        cairo_font_face_destroy(slots[i].face);
        fo_free(slots[i].path);
    }
    fo_free(slots);
    slots = NULL;
    nslots = capslots = 0;
    pthread_mutex_unlock(&face_lock);
}

/* ---- the cairo backend ------------------------------------------------------- */
static void set_color(cairo_t *cr, fo_rgb c, double alpha)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0,
                          (c & 0xFF) / 255.0, alpha);
}

static void set_path(cairo_t *cr, const fo_dl_path *p)
{
    const double *q = p->pts;
    cairo_new_path(cr);
    for (size_t i = 0; i < p->ncmds; i++) {
        switch (p->cmds[i]) {
        case FO_PATH_MOVE: cairo_move_to(cr, q[0], q[1]); q += 2; break;
        case FO_PATH_LINE: cairo_line_to(cr, q[0], q[1]); q += 2; break;
        case FO_PATH_CURVE: cairo_curve_to(cr, q[0], q[1], q[2], q[3], q[4], q[5]); q += 6; break;
        case FO_PATH_CLOSE: cairo_close_path(cr); break;
        }
    }
}

/* Paints the whole surface: a fractional chart size must not leave an
 * unpainted (black) edge column. */
static void cb_begin(void *ctx, double w, double h, fo_rgb bg)
{
    cairo_t *cr = ctx;
    set_color(cr, bg, 1);
    cairo_paint(cr);
}

static void cb_fill(void *ctx, const fo_dl_path *p, fo_rgb color, double alpha)
{
    cairo_t *cr = ctx;
    set_path(cr, p);
    set_color(cr, color, alpha);
    cairo_fill(cr);
}

/* Rectangles (bars, swatches, the background) snap to whole device pixels,
 * as matplotlib's Agg does: crisp edges, and no blended edge colors, which
 * keeps most charts within a 256-color palette (see encode.c). A rectangle
 * that would snap to nothing is drawn as given, antialiased. */
static void cb_fill_rect(void *ctx, double x, double y, double w, double h, fo_rgb color, double alpha)
{
    cairo_t *cr = ctx;
    double x0 = x, y0 = y, x1 = x + w, y1 = y + h;
    cairo_user_to_device(cr, &x0, &y0);
    cairo_user_to_device(cr, &x1, &y1);
    x0 = round(x0); y0 = round(y0); x1 = round(x1); y1 = round(y1);
    if (x0 != x1 && y0 != y1) {
        cairo_matrix_t m;
        cairo_get_matrix(cr, &m);
        cairo_identity_matrix(cr);
        cairo_rectangle(cr, fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0));
        cairo_set_matrix(cr, &m);
    } else {
        cairo_rectangle(cr, x, y, w, h);
    }
    set_color(cr, color, alpha);
    cairo_fill(cr);
}

static void cb_stroke(void *ctx, const fo_dl_path *p, double width, fo_rgb color, double alpha,
                      const double dash[2])
{
    cairo_t *cr = ctx;
    set_path(cr, p);
    set_color(cr, color, alpha);
    cairo_set_line_width(cr, width);
    cairo_set_dash(cr, dash, dash[0] > 0 ? 2 : 0, 0);
    cairo_stroke(cr);
}

/* Draws the glyphs of g[0..n) that come from font file (pointer identity:
 * fo_glyph.font points into text.c's cache), marking them done. */
static void show_run(cairo_t *cr, const char *file, double size, fo_glyph *g, size_t n,
                     double x0, cairo_glyph_t *buf)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (g[i].font == file) {
            if (g[i].index != 0) {
                buf[m].index = g[i].index;
                buf[m].x = x0 + g[i].x;
                buf[m].y = -g[i].y;   /* cairo's y grows downwards */
                m++;
            }
            g[i].font = NULL;
        }
    if (m == 0) return;
    cairo_font_face_t *face = face_for(file);
    if (!face) return;
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, size);
    cairo_show_glyphs(cr, buf, (int)m);
}

/* Paints emoji picture img into box at the pen position (x, y), y down. */
static void paint_emoji(cairo_t *cr, const fo_emoji_image *img, const fo_emoji_box *box,
                        double x, double y)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, img->w, img->h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { cairo_surface_destroy(s); return; }
    cairo_surface_flush(s);
    unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int r = 0; r < img->h; r++)
        for (int k = 0; k < img->w; k++) {
            const unsigned char *q = img->rgba + ((size_t)r * img->w + k) * 4;
            uint32_t a = q[3];   /* cairo's ARGB32: premultiplied, native-endian words */
            uint32_t v = a << 24 | (q[0] * a + 127) / 255 << 16 | (q[1] * a + 127) / 255 << 8 |
                         (q[2] * a + 127) / 255;
            memcpy(px + (size_t)r * stride + (size_t)k * 4, &v, 4);
        }
    cairo_surface_mark_dirty(s);
    cairo_save(cr);
    cairo_translate(cr, x + box->dx, y - box->top);
    cairo_scale(cr, box->w / img->w, box->h / img->h);
    cairo_set_source_surface(cr, s, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(s);
}

/* Paints the colour picture of every glyph of the colour emoji font among
 * g[0..n) (shaping set each emoji sequence as one such glyph), marking
 * them done so no outline is drawn for them. */
static void emoji_over(cairo_t *cr, double size, fo_glyph *g, size_t n, double x0)
{
    for (size_t k = 0; k < n; k++) {
        fo_emoji_image img;
        fo_emoji_box box;
        /* by path: shaped glyphs name their file from shape.c's cache */
        if (!g[k].font || strcmp(g[k].font, FO_EMOJI_FONT) != 0) continue;
        if (fo_emoji_glyph(g[k].index, size, 0, &img, &box)) {
            paint_emoji(cr, &img, &box, x0 + g[k].x, -g[k].y);
            fo_free(img.rgba);
        }
        g[k].font = NULL;
    }
}

static void cb_text(void *ctx, const fo_dl_text *t)
{
    cairo_t *cr = ctx;
    size_t len = strlen(t->utf8);
    fo_glyph stack[128], *g = stack;
    cairo_glyph_t cstack[128], *cg = cstack;
    double width;
    /* one call when the glyphs fit the stack (it writes up to cap, counts all) */
    size_t n = fo_text_glyphs(t->font_file, t->size, t->utf8, len, stack, 128, &width);
    if (n == 0) return;
    if (n > 128) {
        g = fo_malloc(n * sizeof *g);
        cg = fo_malloc(n * sizeof *cg);
        if (!g || !cg) goto cleanup;
        fo_text_glyphs(t->font_file, t->size, t->utf8, len, g, n, &width);
    }
    double x0 = t->anchor == FO_ANCHOR_START ? 0 : t->anchor == FO_ANCHOR_MIDDLE ? -width / 2 : -width;
    cairo_save(cr);
    cairo_translate(cr, t->x, t->y);
    if (t->rotation != 0) cairo_rotate(cr, t->rotation * M_PI / 180);
    emoji_over(cr, t->size, g, n, x0);
    set_color(cr, t->color, 1);
    /* one run per font, in order of first use: primary, DejaVu, CJK */
    for (size_t i = 0; i < n; i++)
        if (g[i].font) show_run(cr, g[i].font, t->size, g, n, x0, cg);
    cairo_restore(cr);
cleanup:
    if (g != stack) fo_free(g);
    if (cg != cstack) fo_free(cg);
}

static const fo_dl_backend cairo_backend = {
    .begin = cb_begin,
    .fill = cb_fill,
    .fill_rect = cb_fill_rect,
    .stroke = cb_stroke,
    .text = cb_text,
    .end = NULL,
};

/* ---- one chart to PNG bytes ------------------------------------------------------ */

/* The pixels of the charts of one render, in huge pages (fo_huge_map): an
   800x500 chart is 1.6 MB, which as 4 KiB pages is ~400 page faults on first
   touch -- the largest single cost of a PNG in a fresh `folio serve` child
   (measured: 730 -> 335 faults and ~4 ms of CPU less per render). One
   mapping serves every chart of the render (grown when a chart is larger):
   mapping, zeroing and unmapping 2 MiB a chart was ~40% of the CPU time of
   200 line charts, as system time. cb_begin paints every pixel, so what
   the last chart left there never shows. */
typedef struct {
    fo_huge map;
    unsigned char *at;
    size_t cap;
} pixel_store;

static cairo_surface_t *surface_new(int w, int h, pixel_store *p)
{
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, w);
    size_t bytes = stride > 0 ? (size_t)stride * (size_t)h : 0;
    if (bytes && (!p->at || bytes > p->cap)) {
        fo_huge_unmap(&p->map);
        p->at = fo_huge_map(&p->map, bytes);
        p->cap = p->at ? bytes : 0;
    }
    if (!bytes || !p->at) return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    return cairo_image_surface_create_for_data(p->at, CAIRO_FORMAT_RGB24, w, h, stride);
}

static fo_status chart_png(const fo_chart *c, const fo_theme *t, double scale, pixel_store *px, fo_buf *out,
                           fo_diags *d)
{
    if (!(scale > 0)) scale = 1;
    fo_dl *dl = NULL;
    fo_status st = fo_chart_layout(c, t, 0, 0, &dl, d);
    if (st != FO_OK) return st;
    int w = (int)lround(fo_dl_width(dl) * scale), h = (int)lround(fo_dl_height(dl) * scale);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    cairo_surface_t *s = surface_new(w, h, px);
    cairo_t *cr = cairo_create(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "cannot create a %dx%d px image: %s", w, h,
                     cairo_status_to_string(cairo_status(cr)));
        st = cairo_status(cr) == CAIRO_STATUS_NO_MEMORY ? FO_ERR_NOMEM : FO_ERR_INTERNAL;
        goto cleanup;
    }
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_scale(cr, scale, scale);
    fo_dl_replay(dl, &cairo_backend, cr);
    cairo_surface_flush(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "drawing the chart failed: %s",
                     cairo_status_to_string(cairo_status(cr)));
        st = FO_ERR_INTERNAL;
        goto cleanup;
    }
    st = fo_png_encode(cairo_image_surface_get_data(s), w, h, cairo_image_surface_get_stride(s),
                       false, 96 * scale, out);
cleanup:
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    fo_dl_free(dl);
    return st;
}

fo_status fo_chart_render_png(const fo_chart *c, const fo_theme *t, double scale,
                              unsigned char **png, size_t *len, fo_diags *d)
{
    fo_buf b = {0};
    *png = NULL;
    *len = 0;
    pixel_store px = {0};
    fo_status st = chart_png(c, t, scale, &px, &b, d);
    fo_huge_unmap(&px.map);
    if (st != FO_OK) { fo_free(b.data); return st; }
    *png = (unsigned char *)b.data;
    *len = b.len;
    return FO_OK;
}

/* ---- the renderer ------------------------------------------------------------------ */

/* "OUT.png" -> "OUT-3.png" (the extension keeps its case). */
static char *numbered_path(const char *dest, size_t i)
{
    const char *dot = strrchr(dest, '.'), *slash = strrchr(dest, '/');
    if (!dot || (slash && dot < slash)) dot = dest + strlen(dest);
    size_t cap = strlen(dest) + 24;
    char *p = fo_malloc(cap);
    if (p) snprintf(p, cap, "%.*s-%zu%s", (int)(dot - dest), dest, i, dot);
    return p;
}

static fo_status write_file(const char *path, const fo_buf *b, const char *dest, fo_diags *d)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot write", dest);
        return FO_ERR_IO;
    }
    bool ok = fwrite(b->data, 1, b->len, f) == b->len;
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot write (disk full?)", dest);
        return FO_ERR_IO;
    }
    return FO_OK;
}

/* One iTXt chunk per provenance item (render/core/prov.h), keyword = name. */
static void add_provenance(const fo_doc *doc, const fo_render_opts *opts, fo_buf *b)
{
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(doc, opts, items);
    for (size_t k = 0; k < n; k++) fo_png_add_text(b, items[k].name, items[k].value);
}

fo_status fo_png_render(const fo_doc *doc, const char *dest, fo_outset *out,
                        const fo_render_opts *opts, fo_diags *d)
{
    size_t ncharts = 0;
    for (size_t i = 0; i < doc->nblocks; i++) ncharts += doc->blocks[i].kind == FO_BLOCK_CHART;
    if (ncharts == 0) {
        fo_diags_add(d, doc->spec_path, 0, 0, "/blocks", "add a {\"type\": \"chart\", ...} block, "
                     "or write .pdf/.docx for a document", "no chart block to render as PNG");
        return FO_ERR_INPUT;
    }
    double scale = opts && opts->scale > 0 ? opts->scale : 1;
    fo_buf b = {0};
    pixel_store px = {0};
    fo_status st = FO_OK;
    size_t k = 0;
    for (size_t i = 0; i < doc->nblocks && st == FO_OK; i++) {
        const fo_block *blk = &doc->blocks[i];
        if (blk->kind != FO_BLOCK_CHART) continue;
        k++;
        char *name = ncharts == 1 ? fo_strdup(dest) : numbered_path(dest, k);
        if (!name) { st = FO_ERR_NOMEM; break; }
        const char *tmp = fo_outset_add(out, name, "png", d);
        if (!tmp) st = FO_ERR_IO;
        b.len = 0;
        b.failed = false;
        if (st == FO_OK) st = chart_png(&blk->u.chart, &doc->theme, scale, &px, &b, d);
        if (st == FO_OK) add_provenance(doc, opts, &b);
        if (st == FO_OK) st = write_file(tmp, &b, name, d);
        else if (tmp)
            fo_diags_add(d, doc->spec_path, blk->line, blk->column, blk->pointer, NULL,
                         "%s: the chart could not be drawn: %s", name, fo_strerror(st));
        fo_free(name);
    }
    fo_huge_unmap(&px.map);
    fo_free(b.data);
    return st;
}
