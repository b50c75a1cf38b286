/* pie.c — pie and doughnut charts of the first series: slices clockwise from
 * 12 o'clock, whole-number percentage labels rounded as Office rounds them
 * (each on its own), a legend of the categories.
 *
 * Zero, negative and missing values get no slice (a pie cannot show them) but
 * keep their legend entry and color, so colors match the data's order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/layout.h"
#include "render/core/text.h"

/* The label of a slice that is share (0..1] of the whole: as Office's chart
 * labels show it (the native charts' showPercent with "0%"), each slice
 * rounded on its own, half away from zero, so three equal slices read 33%
 * each and a sliver 0%, as in the workbook and the slides. */
static void percent_label(double share, char *buf, size_t cap)
{
    fo_numfmt_format_code("0%", share, buf, cap);
}

static void slice_path(fo_dl *dl, double cx, double cy, double r, double ri, double a0, double a1)
{
    if (ri > 0) {
        fo_dl_path_arc(dl, cx, cy, r, a0, a1);
        fo_dl_path_arc(dl, cx, cy, ri, a1, a0);
    } else {
        fo_dl_path_move(dl, cx, cy);
        fo_dl_path_arc(dl, cx, cy, r, a0, a1);
    }
    fo_dl_path_close(dl);
}

static bool is_dark(fo_rgb c)
{
    double r = (c >> 16) & 0xFF, g = (c >> 8) & 0xFF, b = c & 0xFF;
    return 0.299 * r + 0.587 * g + 0.114 * b < 150;
}

void fo_chart_pie(fo_chart_ctx *cx)
{
    const fo_chart_data *dt = &cx->data;
    size_t n = dt->n;
    if (dt->ns == 0 || n == 0) { fo_chart_note(cx, "No data"); return; }
    double *v = fo_calloc(n, sizeof *v);
    if (!v) goto cleanup;
    double total = 0;
    size_t slices = 0;
    for (size_t i = 0; i < n; i++) {
        double y = dt->y[i];
        v[i] = isfinite(y) && y > 0 ? y : 0;
        total += v[i];
        slices += v[i] > 0;
    }
    if (!(total > 0) || !isfinite(total)) { fo_chart_note(cx, "No data"); goto cleanup; }
    fo_chart_legend(cx, (const char *const *)dt->cat, n, cx->c->legend);

    double k = cx->k, fs = cx->fs_label;
    double mx = (cx->x0 + cx->x1) / 2, my = (cx->y0 + cx->y1) / 2;
    double half = fmin(cx->x1 - cx->x0, cx->y1 - cx->y0) / 2;
    double hole = fo_chart_traits_of(cx->c->kind)->hole / 100.0; /* inner radius / outer */
    bool doughnut = hole > 0;
    char buf[32];
    /* First pass: do labels fit inside their slices at full radius? If not,
     * leave room around the pie for outside labels. */
    double r = half - 4 * k, out_w = 0;
    for (int pass = 0; pass < 2; pass++) {
        double ri = doughnut ? r * hole : 0, lr = doughnut ? (r + ri) / 2 : r * 0.62;
        out_w = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i] <= 0) continue;
            percent_label(v[i] / total, buf, sizeof buf);
            double tw = fo_text_width(cx->font_bold, fs, buf, strlen(buf));
            double span = v[i] / total * 2 * M_PI;
            bool inside = slices == 1 || span * lr >= fmax(tw, fs) * 1.3;
            if (!inside) out_w = fmax(out_w, tw);
        }
        if (out_w == 0 || pass == 1) break;
        r = half - out_w - 12 * k;
    }
    if (r < 8) r = fmax(4, half - 4 * k);
    double ri = doughnut ? r * hole : 0, lr = doughnut ? (r + ri) / 2 : r * 0.62;

    /* slices, separated by a thin line of the background color (gap wide):
     * the rims pulled in by half of it, as the outline of each slice stroked
     * in the background color would leave them, and one stroke of the radii
     * between the slices. Issue 39: stroking every slice's outline (its arcs
     * as curves) was ~40% of the instructions of a pie in PNG. */
    double gap = 1.5 * k, inset = slices > 1 ? gap / 2 : 0;
    double a = -M_PI / 2;
    for (size_t i = 0; i < n; i++) {
        if (v[i] <= 0) continue;
        double span = v[i] / total * 2 * M_PI;
        slice_path(cx->dl, mx, my, r - inset, ri > 0 ? ri + inset : 0, a, a + span);
        fo_dl_path_fill(cx->dl, FO_ROLE_SLICE, 0, i, fo_chart_color(cx, i), 1);
        a += span;
    }
    if (slices > 1) {
        a = -M_PI / 2;
        for (size_t i = 0; i < n; i++) {
            if (v[i] <= 0) continue;
            fo_dl_path_move(cx->dl, mx + ri * cos(a), my + ri * sin(a));
            fo_dl_path_line(cx->dl, mx + r * cos(a), my + r * sin(a));
            a += v[i] / total * 2 * M_PI;
        }
        fo_dl_path_stroke(cx->dl, FO_ROLE_SLICE, 0, FO_NONE, gap, cx->t->background, NULL);
    }
    /* percentage labels: inside when they fit, else just outside the rim;
     * outside labels that would collide with the previous one are dropped */
    a = -M_PI / 2;
    double last_y[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        if (v[i] <= 0) continue;
        double span = v[i] / total * 2 * M_PI, m = a + span / 2;
        a += span;
        percent_label(v[i] / total, buf, sizeof buf);
        double tw = fo_text_width(cx->font_bold, fs, buf, strlen(buf));
        bool inside = slices == 1 || span * lr >= fmax(tw, fs) * 1.3;
        if (inside) {
            double x = slices == 1 && !doughnut ? mx : mx + lr * cos(m);
            double y = slices == 1 && !doughnut ? my : my + lr * sin(m);
            fo_rgb col = is_dark(fo_chart_color(cx, i)) ? 0xFFFFFF : cx->text;
            fo_dl_add_text(cx->dl, FO_ROLE_SLICE_LABEL, 0, i, buf, x, y + fs * 0.35, fs, true,
                           cx->font_bold, col, FO_ANCHOR_MIDDLE, 0);
            continue;
        }
        int side = cos(m) >= 0;
        double x = mx + (r + 6 * k) * cos(m), y = my + (r + 6 * k) * sin(m) + fs * 0.35;
        if (fabs(y - last_y[side]) < fs * 1.15) continue;
        last_y[side] = y;
        fo_dl_add_text(cx->dl, FO_ROLE_SLICE_LABEL, 0, i, buf, x, y, fs, true, cx->font_bold,
                       cx->text, side ? FO_ANCHOR_START : FO_ANCHOR_END, 0);
    }
cleanup:
    fo_free(v);
}
