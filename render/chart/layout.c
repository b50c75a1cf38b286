/* layout.c — fo_chart_layout: sets up fonts, colors and formats, reads the
 * data, draws the frame (title, legend, "No data" note) and hands the free
 * box to the cartesian or pie layout.
 *
 * The free box (cx->x0..x1, y0..y1) shrinks as each piece of the frame takes
 * its space; whatever remains is the plot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/layout.h"
#include "render/core/text.h"

static fo_rgb mix(fo_rgb a, fo_rgb b, double t)
{
    fo_rgb r = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double ca = (a >> sh) & 0xFF, cb = (b >> sh) & 0xFF;
        r |= (fo_rgb)lround(ca + (cb - ca) * t) << sh;
    }
    return r;
}

/* The format code of column col, or NULL for General/text. */
static const char *column_code(const fo_dataset *ds, size_t col)
{
    if (!ds || col >= ds->ncols) return NULL;
    const char *code = ds->cols[col].format;
    if (!code || !*code || strcmp(code, "@") == 0) return NULL;
    return code;
}

/* Compiles the display format of column col, or NULL for General/text. */
static fo_numfmt *column_format(const fo_dataset *ds, size_t col)
{
    const char *code = column_code(ds, col);
    return code ? fo_numfmt_compile(code, NULL, 0) : NULL;
}

void fo_chart_note(fo_chart_ctx *cx, const char *msg)
{
    double cxm = (cx->x0 + cx->x1) / 2, cym = (cx->y0 + cx->y1) / 2;
    fo_dl_add_text(cx->dl, FO_ROLE_NOTE, FO_NONE, FO_NONE, msg, cxm, cym + cx->fs_label * 0.35,
                   cx->fs_label * 1.2, false, cx->font, cx->muted, FO_ANCHOR_MIDDLE, 0);
}

/* ---- legend ----------------------------------------------------------------- */
/* One entry from x: its swatch, then its label; right to left (tw: the
 * label's width), the label, then the swatch at its right. */
static void legend_entry(fo_chart_ctx *cx, size_t i, const char *label, double x, double y, double lh,
                         fo_rgb color, bool rtl, double tw)
{
    double sw = cx->fs_legend * 0.85, gap = 6 * cx->k;
    double top = y + (lh - sw) / 2, at = rtl ? x + tw + gap : x;
    fo_dl_rect(cx->dl, FO_ROLE_LEGEND_SWATCH, i, FO_NONE, at, top, at + sw, top + sw, color, 1);
    fo_dl_add_text(cx->dl, FO_ROLE_LEGEND_TEXT, i, FO_NONE, label, rtl ? x : x + sw + gap,
                   y + lh / 2 + cx->fs_legend * 0.35, cx->fs_legend, false, cx->font, cx->text,
                   FO_ANCHOR_START, 0);
}

void fo_chart_legend(fo_chart_ctx *cx, const char *const *labels, size_t n, fo_legend where)
{
    if (n == 0 || where == FO_LEGEND_NONE) return;
    double k = cx->k, fs = cx->fs_legend, lh = fs * 1.7, sw = fs * 0.85;
    double maxw = cx->w * (where == FO_LEGEND_RIGHT ? 0.25 : 0.4);
    char buf[512], more[64];
    if (where == FO_LEGEND_RIGHT) {
        size_t fit = (size_t)fmax(1, floor((cx->y1 - cx->y0) / lh));
        size_t shown = n <= fit ? n : fit - (fit > 1);
        double tw = 0;
        for (size_t i = 0; i < shown; i++) {
            size_t len = fo_text_ellipsize(cx->font, fs, labels[i], strlen(labels[i]), maxw, buf, sizeof buf);
            tw = fmax(tw, fo_text_width(cx->font, fs, buf, len));
        }
        if (shown < n) {
            snprintf(more, sizeof more, "+%zu more", n - shown);
            tw = fmax(tw, fo_text_width(cx->font, fs, more, strlen(more)));
        }
        double width = sw + 6 * k + tw;
        double x = cx->x1 - width;
        double rows = (double)shown + (shown < n);
        double y = cx->y0 + ((cx->y1 - cx->y0) - rows * lh) / 2;
        for (size_t i = 0; i < shown; i++, y += lh) {
            fo_text_ellipsize(cx->font, fs, labels[i], strlen(labels[i]), maxw, buf, sizeof buf);
            legend_entry(cx, i, buf, x, y, lh, fo_chart_color(cx, i), false, 0);
        }
        if (shown < n)
            fo_dl_add_text(cx->dl, FO_ROLE_LEGEND_TEXT, FO_NONE, FO_NONE, more, x,
                           y + lh / 2 + fs * 0.35, fs, false, cx->font, cx->muted, FO_ANCHOR_START, 0);
        cx->x1 = x - 16 * k;
        return;
    }
    /* bottom: entries flow in the chart's direction (right to left: from the
       right, each label left of its swatch) in up to three centered rows */
    bool rtl = cx->c && cx->c->rtl;
    const size_t max_rows = 3;
    double avail = cx->x1 - cx->x0, gap = 18 * k;
    size_t row_start[4] = {0}, nrows = 0, i = 0;
    double row_w[3] = {0};
    while (i < n && nrows < max_rows) {
        row_start[nrows] = i;
        double w = 0;
        while (i < n) {
            size_t len = fo_text_ellipsize(cx->font, fs, labels[i], strlen(labels[i]), maxw, buf, sizeof buf);
            double ew = sw + 6 * k + fo_text_width(cx->font, fs, buf, len);
            if (w > 0 && w + gap + ew > avail) break;
            w += (w > 0 ? gap : 0) + ew;
            i++;
        }
        row_w[nrows++] = w;
    }
    row_start[nrows] = i;
    size_t shown = i;
    double y = cx->y1 - nrows * lh;
    for (size_t r = 0; r < nrows; r++, y += lh) {
        double x = cx->x0 + (avail - row_w[r]) / 2 + (rtl ? row_w[r] : 0);
        for (size_t j = row_start[r]; j < row_start[r + 1]; j++) {
            size_t len = fo_text_ellipsize(cx->font, fs, labels[j], strlen(labels[j]), maxw, buf, sizeof buf);
            double tw = fo_text_width(cx->font, fs, buf, len), ew = sw + 6 * k + tw;
            legend_entry(cx, j, buf, rtl ? x - ew : x, y, lh, fo_chart_color(cx, j), rtl, tw);
            x += rtl ? -(ew + gap) : ew + gap;
        }
    }
    if (shown < n) { /* say how many did not fit, right-aligned on the last row */
        snprintf(more, sizeof more, "+%zu more", n - shown);
        fo_dl_add_text(cx->dl, FO_ROLE_LEGEND_TEXT, FO_NONE, FO_NONE, more, cx->x1,
                       y - lh / 2 + fs * 0.35, fs, false, cx->font, cx->muted, FO_ANCHOR_END, 0);
    }
    cx->y1 -= nrows * lh + 8 * k;
}

/* ---- the chart ----------------------------------------------------------------- */
static void title(fo_chart_ctx *cx)
{
    const char *s = cx->c->title;
    if (!s || !*s) return;
    double asc, lh;
    char buf[1024];
    fo_text_metrics(cx->font_title, cx->fs_title, &asc, NULL, &lh);
    fo_text_ellipsize(cx->font_title, cx->fs_title, s, strlen(s), cx->x1 - cx->x0, buf, sizeof buf);
    fo_dl_add_text(cx->dl, FO_ROLE_TITLE, FO_NONE, FO_NONE, buf, (cx->x0 + cx->x1) / 2,
                   cx->y0 + asc, cx->fs_title, true, cx->font_title, cx->text, FO_ANCHOR_MIDDLE, 0);
    cx->y0 += lh + 8 * cx->k;
}

/* The layout's context: sizes scaled with the chart's area (k), the theme's
 * fonts and colours, the axes' number formats. */
static fo_chart_ctx ctx_new(const fo_chart *c, const fo_theme *t, double width, double height)
{
    double k = fmin(1.6, fmax(0.7, sqrt(width * height / (800.0 * 500.0))));
    return (fo_chart_ctx){
        .c = c, .t = t, .w = width, .h = height, .k = k,
        .fs_title = 17 * k, .fs_label = 12 * k, .fs_axis_title = 13 * k, .fs_legend = 12 * k,
        .font = t->body.regular, .font_bold = t->body.bold,
        .font_title = t->heading.bold[0] ? t->heading.bold : t->body.bold,
        .text = t->text,
        .muted = mix(t->background, t->text, 0.75),
        .grid = mix(t->background, t->text, 0.12),
        .axis = mix(t->background, t->text, 0.5),
        .yfmt = c->ny > 0 ? column_format(c->data, c->y[0]) : NULL,
        .xfmt = column_format(c->data, c->x),
        .ycode = c->ny > 0 ? column_code(c->data, c->y[0]) : NULL,
        .xcode = column_code(c->data, c->x)};
}

/* The drawing of a kind, by its family (fo_chart_traits). */
typedef void (*draw_fn)(fo_chart_ctx *cx);
static draw_fn draw_of(fo_chart_kind k)
{
    static const draw_fn draws[] = {[FO_CHART_CATEGORY] = fo_chart_cartesian, [FO_CHART_XY] = fo_chart_cartesian,
                                    [FO_CHART_ROUND] = fo_chart_pie};
    return draws[fo_chart_traits_of(k)->family];
}

fo_status fo_chart_layout(const fo_chart *c, const fo_theme *t, double width, double height,
                          fo_dl **out, fo_diags *d)
{
    *out = NULL;
    if (!(width > 0)) width = c->width > 0 ? c->width : FO_CHART_DEFAULT_WIDTH;
    if (!(height > 0)) height = c->height > 0 ? c->height : FO_CHART_DEFAULT_HEIGHT;
    fo_chart_ctx cx = ctx_new(c, t, width, height);
    fo_status st = FO_OK;
    cx.dl = fo_dl_new(width, height, t->background);
    if (!cx.dl) { st = FO_ERR_NOMEM; goto cleanup; }
    st = fo_chart_data_read(&cx, d);
    if (st != FO_OK) goto cleanup;

    double pad = 12 * cx.k;
    cx.x0 = pad;
    cx.y0 = pad;
    cx.x1 = width - pad;
    cx.y1 = height - pad;
    title(&cx);
    draw_of(c->kind)(&cx);
    st = fo_dl_status(cx.dl);
cleanup:
    fo_chart_series_free(&cx.data);
    fo_numfmt_free(cx.yfmt);
    fo_numfmt_free(cx.xfmt);
    if (st == FO_OK) *out = cx.dl;
    else fo_dl_free(cx.dl);
    return st;
}
