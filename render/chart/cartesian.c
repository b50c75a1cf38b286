/* cartesian.c — charts on two axes: column and bar (grouped or stacked),
 * line with markers, area (stacked when stacked), scatter with numeric x.
 *
 * Order of work: value range -> axis titles -> (iterate) nice value scale,
 * value-label gutter, category-label plan (horizontal, 45 degrees, or every
 * k-th) -> plot box -> grid, data, axis line, labels. Every label that is
 * drawn has room of its own: crowded category labels rotate, then thin out. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/layout.h"
#include "render/core/linebreak.h"
#include "render/core/text.h"

typedef struct {
    fo_chart_ctx *cx;
    const fo_chart_data *dt;
    bool horiz;            /* bar: categories down the left, values along the bottom */
    bool mirror;           /* right to left: categories from the right, and the series
                              of a cluster too (Office's reversed category axis) */
    bool stacked, scatter;
    fo_axis_scale vs, xs;  /* value scale; scatter x scale */
    double px0, py0, px1, py1;
    size_t step;           /* category labels: every step-th */
    bool rotate;           /* category labels at 45 degrees */
    double cap;            /* category labels are ellipsized to this width */
    double wrap;           /* > 0: category labels wrap at this width ... */
    size_t lines;          /* ... into at most this many lines (the last ellipsized) */
    double asc, lh;        /* label font ascent and line height */
} cart;

static const double SIN45 = 0.70710678118654752;
#define MAX_LABEL_LINES 4   /* a category label wraps into at most this many lines */

/* ---- value range and scales ----------------------------------------------------- */
bool fo_chart_value_range(const double *y, const double *x, size_t n, size_t ns, bool stacked,
                          double *lo, double *hi)
{
    bool any = false;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double pos = 0, neg = 0;
        if (x && !isfinite(x[i])) continue;
        for (size_t s = 0; s < ns; s++) {
            double v = y[s * n + i];
            if (!isfinite(v)) continue;
            any = true;
            if (stacked) { if (v > 0) pos += v; else neg += v; }
            else { *lo = fmin(*lo, v); *hi = fmax(*hi, v); }
        }
        if (stacked) { *lo = fmin(*lo, neg); *hi = fmax(*hi, pos); }
    }
    return any;
}

/* Line and scatter axes start at zero unless the data sit high above it
 * (min above 5/6 of max). */
bool fo_chart_zero_based(fo_chart_kind kind, double lo, double hi)
{
    if (fo_chart_traits_of(kind)->zero_based) return true;
    if (lo >= 0) return lo < hi * 5 / 6;
    if (hi <= 0) return hi > lo * 5 / 6;
    return true;
}

/* Width of the widest tick label of s on an axis whose column has format code. */
static double widest_tick(const fo_chart_ctx *cx, const fo_axis_scale *s, const char *code)
{
    char buf[128];
    double w = 0;
    fo_numfmt *f = fo_chart_tick_numfmt(code, s);
    for (int i = 0; i < s->nticks; i++) {
        fo_chart_tick_label(f, s, i, buf, sizeof buf);
        w = fmax(w, fo_text_width(cx->font, cx->fs_label, buf, strlen(buf)));
    }
    fo_numfmt_free(f);
    return w;
}

fo_axis_scale fo_chart_whole_days(fo_axis_scale s, const char *code)
{
    if (s.step >= 1 || s.nticks < 2) return s;
    char a[64], b[64];
    fo_numfmt *f = fo_chart_tick_numfmt(code, &s);
    bool twice = false;
    if (f && fo_numfmt_is_date(f)) {
        fo_chart_tick_label(f, &s, 0, a, sizeof a);
        fo_chart_tick_label(f, &s, 1, b, sizeof b);
        twice = strcmp(a, b) == 0;
    }
    fo_numfmt_free(f);
    if (!twice) return s;
    s.min = floor(s.min);
    s.max = ceil(s.max);
    s.step = 1;
    s.nticks = (int)(s.max - s.min) + 1;
    return s;
}

/* A scale along a horizontal axis of length len whose labels do not touch. */
static fo_axis_scale horizontal_scale(const fo_chart_ctx *cx, double lo, double hi, bool zero,
                                      double len, const char *code, double *maxw)
{
    int target = (int)fmin(11, fmax(2, len / (70 * cx->k) + 1));
    fo_axis_scale s;
    bool times = code && strncmp(code, "hh:mm", 5) == 0;   /* times of one day (data.c) */
    for (;;) {
        s = times ? fo_chart_time_scale(lo, hi, target)
                  : fo_chart_whole_days(fo_chart_nice_scale(lo, hi, target, zero), code);
        *maxw = widest_tick(cx, &s, code);
        double spacing = len / (s.nticks > 1 ? s.nticks - 1 : 1);
        if (spacing >= *maxw + 12 * cx->k || target <= 2) break;
        target--;
    }
    return s;
}

static double map(const fo_axis_scale *s, double v, double a, double b)
{
    return fo_chart_scale_map(s, v, a, b);
}

static double crisp(double v) { return floor(v) + 0.5; }

/* ---- category labels ------------------------------------------------------------- */
static double label_width(const cart *g, size_t i)
{
    const char *s = g->dt->cat[i];
    return fmin(g->cap, fo_text_width(g->cx->font, g->cx->fs_label, s, strlen(s)));
}

/* Plans labels along a horizontal category axis of length len; returns the
 * band height they need below the plot, and in *left_need how far the first
 * rotated label reaches left of the plot's left edge. */
/* The lines label i takes wrapped at width w; SIZE_MAX when that cuts a
 * word of letters or digits (a break UAX #14 allows, between CJK
 * characters, is no cut). */
static size_t wrapped_lines(const cart *g, size_t i, double w)
{
    const char *s = g->dt->cat[i];
    size_t len = strlen(s);
    fo_text_line ln[MAX_LABEL_LINES + 1];
    size_t n = fo_text_wrap(g->cx->font, g->cx->fs_label, s, len, w, ln, MAX_LABEL_LINES + 1);
    char *brks = NULL;
    bool cut = false;
    for (size_t k = 0; k + 1 < n && k < MAX_LABEL_LINES && !cut; k++) {
        size_t next = ln[k + 1].start;   /* the break is before it */
        if (next == 0 || s[next - 1] == ' ' || s[next - 1] == '\n' || s[next - 1] == '-') continue;
        if (!brks && !(brks = fo_linebreaks(s, len))) cut = true;   /* ASCII: only those */
        else cut = !fo_linebreak_after(brks, next - 1);
    }
    fo_free(brks);
    return cut ? SIZE_MAX : n;
}

/* The most lines any label takes wrapped at w, or SIZE_MAX when one would
 * need more than MAX_LABEL_LINES or a cut word. */
static size_t plan_wrap(const cart *g, double w)
{
    size_t most = 1;
    for (size_t i = 0; i < g->dt->n; i++) {
        size_t k = wrapped_lines(g, i, w);
        if (k > MAX_LABEL_LINES) return SIZE_MAX;
        if (k > most) most = k;
    }
    return most;
}

static double plan_categories(cart *g, double len, double *left_need)
{
    fo_chart_ctx *cx = g->cx;
    size_t n = g->dt->n;
    *left_need = 0;
    g->step = 1;
    g->rotate = false;
    if (n == 0) return g->lh;
    double slot = len / n, mw = 0, full = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = g->dt->cat[i];
        full = fmax(full, fo_text_width(cx->font, cx->fs_label, s, strlen(s)));
        mw = fmax(mw, label_width(g, i));
    }
    double kh = ceil((mw + 8 * cx->k) / slot), kr = ceil(g->lh * 1.25 / slot);
    if (full + 8 * cx->k <= slot) {   /* every label whole on one line, under its column */
        g->cap = fmax(g->cap, full);
        return g->lh + 6 * cx->k;
    }
    /* long labels (a survey's questions) wrap under their column before any
       is thinned out, turned or cut */
    size_t lines = slot > 8 * cx->k ? plan_wrap(g, slot - 8 * cx->k) : SIZE_MAX;
    if (lines != SIZE_MAX && lines * g->lh + 6 * cx->k <= cx->h * 0.35) {
        g->wrap = slot - 8 * cx->k;
        g->lines = lines;
        return lines * g->lh + 6 * cx->k;
    }
    if (kh <= 1) return g->lh + 6 * cx->k;   /* one line each, the longest cut at cap */
    if (kr > 1 && kh <= 2 * kr) { /* thinned, still horizontal */
        g->step = (size_t)kh;
        return g->lh + 6 * cx->k;
    }
    g->rotate = true;
    g->step = (size_t)fmax(1, kr);
    double band_max = cx->h * 0.35;
    if (mw * SIN45 + g->lh * SIN45 + 8 * cx->k > band_max) {
        g->cap = fmax(20 * cx->k, (band_max - g->lh * SIN45 - 8 * cx->k) / SIN45);
        mw = fmin(mw, g->cap);
    }
    *left_need = mw * SIN45 - slot / 2;
    return mw * SIN45 + g->lh * SIN45 + 8 * cx->k;
}

/* Label i wrapped at g->wrap into at most g->lines lines (the last
 * ellipsized when more were needed): under its column from y (top), or
 * centred on y, ending at x, beside its bar. */
static void draw_wrapped_label(cart *g, size_t i, double x, double y)
{
    fo_chart_ctx *cx = g->cx;
    const char *s = g->dt->cat[i];
    size_t len = strlen(s);
    fo_text_line ln[MAX_LABEL_LINES];
    size_t n = fo_text_wrap(cx->font, cx->fs_label, s, len, g->wrap, ln, MAX_LABEL_LINES);
    size_t shown = n < g->lines ? n : g->lines;
    double top = g->horiz ? y - shown * g->lh / 2 + g->asc : y + 6 * cx->k + g->asc;
    for (size_t k = 0; k < shown; k++) {
        char buf[512];
        /* the last line shown holds the rest of the text, cut if need be */
        size_t a = ln[k].start, b = k + 1 == shown ? len : ln[k].start + ln[k].len;
        fo_text_ellipsize(cx->font, cx->fs_label, s + a, b - a, g->wrap, buf, sizeof buf);
        fo_dl_add_text(cx->dl, FO_ROLE_CATEGORY_LABEL, FO_NONE, i, buf, x, top + k * g->lh,
                       cx->fs_label, false, cx->font, cx->muted,
                       g->horiz ? FO_ANCHOR_END : FO_ANCHOR_MIDDLE, 0);
    }
}

static void draw_category_label(cart *g, size_t i, double x, double y)
{
    fo_chart_ctx *cx = g->cx;
    char buf[512];
    const char *s = g->dt->cat[i];
    if (g->wrap > 0) { draw_wrapped_label(g, i, x, y); return; }
    fo_text_ellipsize(cx->font, cx->fs_label, s, strlen(s), g->cap, buf, sizeof buf);
    if (g->horiz)
        fo_dl_add_text(cx->dl, FO_ROLE_CATEGORY_LABEL, FO_NONE, i, buf, x, y + cx->fs_label * 0.35,
                       cx->fs_label, false, cx->font, cx->muted, FO_ANCHOR_END, 0);
    else if (g->rotate)
        fo_dl_add_text(cx->dl, FO_ROLE_CATEGORY_LABEL, FO_NONE, i, buf, x + cx->fs_label * 0.3,
                       y + 4 * cx->k + cx->fs_label * 0.3, cx->fs_label, false, cx->font,
                       cx->muted, FO_ANCHOR_END, -45);
    else
        fo_dl_add_text(cx->dl, FO_ROLE_CATEGORY_LABEL, FO_NONE, i, buf, x, y + 6 * cx->k + g->asc,
                       cx->fs_label, false, cx->font, cx->muted, FO_ANCHOR_MIDDLE, 0);
}

/* ---- axis titles ------------------------------------------------------------------ */
/* The value axis's title beside the plot, read bottom to top: on the left,
 * or on the right for a right-to-left chart (its ascent toward the plot). */
static void side_title(fo_chart_ctx *cx, const char *s, bool right)
{
    if (!s || !*s) return;
    double asc, dsc, lh;
    char buf[512];
    fo_text_metrics(cx->font, cx->fs_axis_title, &asc, &dsc, &lh);
    fo_text_ellipsize(cx->font, cx->fs_axis_title, s, strlen(s), cx->y1 - cx->y0, buf, sizeof buf);
    fo_dl_add_text(cx->dl, FO_ROLE_AXIS_TITLE, FO_NONE, FO_NONE, buf, right ? cx->x1 - dsc : cx->x0 + asc,
                   (cx->y0 + cx->y1) / 2, cx->fs_axis_title, false, cx->font, cx->text,
                   FO_ANCHOR_MIDDLE, -90);
    if (right) cx->x1 -= lh + 6 * cx->k;
    else cx->x0 += lh + 6 * cx->k;
}

static void bottom_title(fo_chart_ctx *cx, const char *s)
{
    if (!s || !*s) return;
    double dsc, lh;
    char buf[512];
    fo_text_metrics(cx->font, cx->fs_axis_title, NULL, &dsc, &lh);
    fo_text_ellipsize(cx->font, cx->fs_axis_title, s, strlen(s), cx->x1 - cx->x0, buf, sizeof buf);
    fo_dl_add_text(cx->dl, FO_ROLE_AXIS_TITLE, FO_NONE, FO_NONE, buf, (cx->x0 + cx->x1) / 2,
                   cx->y1 - dsc, cx->fs_axis_title, false, cx->font, cx->text, FO_ANCHOR_MIDDLE, 0);
    cx->y1 -= lh + 4 * cx->k;
}

/* ---- data ----------------------------------------------------------------------------- */
static void marker(fo_dl *dl, size_t s, size_t i, double x, double y, double r, fo_rgb color)
{
    fo_dl_path_arc(dl, x, y, r, 0, 2 * M_PI);
    fo_dl_path_close(dl);
    fo_dl_path_fill(dl, FO_ROLE_MARKER, s, i, color, 1);
}

static void draw_bars(cart *g)
{
    fo_chart_ctx *cx = g->cx;
    const fo_chart_data *dt = g->dt;
    size_t n = dt->n, ns = dt->ns;
    double len = g->horiz ? g->py1 - g->py0 : g->px1 - g->px0, slot = len / n;
    double base = fmax(g->vs.min, fmin(0, g->vs.max));
    for (size_t i = 0; i < n; i++) {
        double pos = 0, neg = 0;
        for (size_t s = 0; s < ns; s++) {
            double v = dt->y[s * n + i];
            if (!isfinite(v) || v == 0) continue;
            double a, b, c0, c1;
            if (g->stacked) {
                double from = v > 0 ? pos : neg;
                a = from;
                b = from + v;
                if (v > 0) pos = b; else neg = b;
                c0 = i * slot + slot * 0.2;
                c1 = c0 + slot * 0.6;
            } else {
                double group = slot * 0.75, bw = group / ns;
                a = base;
                b = v;
                size_t at = g->mirror ? ns - 1 - s : s; /* the first series on the reading side */
                c0 = i * slot + (slot - group) / 2 + (double)at * bw;
                c1 = c0 + bw;
            }
            if (g->horiz)
                fo_dl_rect(cx->dl, FO_ROLE_BAR, s, i, map(&g->vs, a, g->px0, g->px1), g->py0 + c0,
                           map(&g->vs, b, g->px0, g->px1), g->py0 + c1, fo_chart_color(cx, s), 1);
            else
                fo_dl_rect(cx->dl, FO_ROLE_BAR, s, i, g->px0 + c0, map(&g->vs, a, g->py1, g->py0),
                           g->px0 + c1, map(&g->vs, b, g->py1, g->py0), fo_chart_color(cx, s), 1);
        }
    }
}

/* Values of series s as drawn: cumulative when stacked (missing counts 0). */
static double point_value(const cart *g, size_t s, size_t i, bool *missing)
{
    const fo_chart_data *dt = g->dt;
    double v = dt->y[s * dt->n + i];
    *missing = !isfinite(v);
    if (!g->stacked) return v;
    double sum = 0;
    for (size_t k = 0; k <= s; k++) {
        double w = dt->y[k * dt->n + i];
        if (isfinite(w)) sum += w;
    }
    return sum;
}

static double point_x(const cart *g, size_t i)
{
    if (g->scatter) return map(&g->xs, g->dt->x[i], g->px0, g->px1);
    return g->px0 + (i + 0.5) * (g->px1 - g->px0) / g->dt->n;
}

static void draw_lines(cart *g, bool area)
{
    fo_chart_ctx *cx = g->cx;
    const fo_chart_data *dt = g->dt;
    size_t n = dt->n;
    double lw = 2 * cx->k, r = 3.5 * cx->k;
    double base = map(&g->vs, fmax(g->vs.min, fmin(0, g->vs.max)), g->py1, g->py0);
    for (size_t s = 0; s < dt->ns; s++) {
        fo_rgb col = fo_chart_color(cx, s);
        bool miss;
        if (area && g->stacked && n >= 2) { /* band between this series and the one below */
            for (size_t i = 0; i < n; i++)
                fo_dl_path_line(cx->dl, point_x(g, i), map(&g->vs, point_value(g, s, i, &miss), g->py1, g->py0));
            for (size_t i = n; i-- > 0;) {
                double below = s ? point_value(g, s - 1, i, &miss) : fmax(g->vs.min, fmin(0, g->vs.max));
                fo_dl_path_line(cx->dl, point_x(g, i), map(&g->vs, below, g->py1, g->py0));
            }
            fo_dl_path_close(cx->dl);
            fo_dl_path_fill(cx->dl, FO_ROLE_AREA, s, FO_NONE, col, 0.85);
            continue;
        }
        /* runs of consecutive present points: a line (and an area under it) each */
        size_t i = 0;
        while (i < n) {
            point_value(g, s, i, &miss);
            if (miss || (g->scatter && !isfinite(dt->x[i]))) { i++; continue; }
            size_t j = i;
            while (j < n) {
                point_value(g, s, j, &miss);
                if (miss || (g->scatter && !isfinite(dt->x[j]))) break;
                j++;
            }
            if (area && j - i >= 2) {
                fo_dl_path_move(cx->dl, point_x(g, i), base);
                for (size_t k = i; k < j; k++)
                    fo_dl_path_line(cx->dl, point_x(g, k), map(&g->vs, point_value(g, s, k, &miss), g->py1, g->py0));
                fo_dl_path_line(cx->dl, point_x(g, j - 1), base);
                fo_dl_path_close(cx->dl);
                fo_dl_path_fill(cx->dl, FO_ROLE_AREA, s, FO_NONE, col, 0.35);
            }
            if (!g->scatter && j - i >= 2) {
                for (size_t k = i; k < j; k++)
                    fo_dl_path_line(cx->dl, point_x(g, k), map(&g->vs, point_value(g, s, k, &miss), g->py1, g->py0));
                fo_dl_path_stroke(cx->dl, FO_ROLE_LINE, s, FO_NONE, lw, col, NULL);
            }
            bool markers = g->scatter || (!area && n <= 60) || j - i == 1;
            for (size_t k = i; markers && k < j; k++)
                marker(cx->dl, s, k, point_x(g, k), map(&g->vs, point_value(g, s, k, &miss), g->py1, g->py0),
                       g->scatter ? r * 1.1 : r, col);
            i = j;
        }
    }
}

/* ---- the chart -------------------------------------------------------------------------- */
void fo_chart_cartesian(fo_chart_ctx *cx)
{
    const fo_chart *c = cx->c;
    cart g;
    memset(&g, 0, sizeof g);
    g.cx = cx;
    g.dt = &cx->data;
    const fo_chart_traits *kt = fo_chart_traits_of(c->kind);
    g.horiz = kt->sideways;
    g.scatter = kt->family == FO_CHART_XY;
    g.stacked = c->stacked && kt->stacks && g.dt->ns > 1;
    g.cap = fmin(cx->w * 0.25, 180 * cx->k);
    double dsc;
    fo_text_metrics(cx->font, cx->fs_label, &g.asc, &dsc, NULL);
    g.lh = g.asc + dsc;
    double lo, hi, xlo = INFINITY, xhi = -INFINITY;
    if (g.scatter) {
        if (!fo_chart_value_range(g.dt->x, NULL, g.dt->n, 1, false, &xlo, &xhi)) {
            /* no numeric x: plot against the row number */
            for (size_t i = 0; i < g.dt->n; i++) g.dt->x[i] = (double)(i + 1);
            xlo = 1;
            xhi = fmax(1, (double)g.dt->n);
        }
    }
    if (g.dt->n == 0 || !fo_chart_value_range(g.dt->y, g.scatter ? g.dt->x : NULL, g.dt->n, g.dt->ns, g.stacked,
                                                     &lo, &hi)) {
        fo_chart_note(cx, "No data");
        return;
    }
    fo_legend where = c->legend;
    if (g.dt->ns == 1 && where == FO_LEGEND_RIGHT) where = FO_LEGEND_NONE;
    fo_chart_legend(cx, g.dt->names, g.dt->ns, where);
    /* a right-to-left column, line or area chart runs its categories from
       the right (data.c) and has its value axis there, as Office draws it */
    bool flip = !g.horiz && c->rtl && kt->rtl_mirror;
    g.mirror = flip;
    side_title(cx, g.horiz ? c->x_title : c->y_title, flip);
    bottom_title(cx, g.horiz ? c->y_title : c->x_title);
    bool zero = fo_chart_zero_based(c->kind, lo, hi);
    double top = g.lh / 2, right = 10 * cx->k, left = 0, bottom = g.lh + 6 * cx->k, maxw;

    if (g.horiz) {
        double plot_h = cx->y1 - bottom - cx->y0 - top;
        double slot = plot_h / g.dt->n;
        g.step = (size_t)fmax(1, ceil(g.lh * 1.1 / slot));
        /* a label wider than the gutter wraps there, as many lines as its
           bar's slot holds, before it is cut */
        size_t room = (size_t)fmax(1, fmin(MAX_LABEL_LINES, floor(slot * g.step / g.lh)));
        for (size_t i = 0; i < g.dt->n; i++) {
            const char *s = g.dt->cat[i];
            if (room > 1 && fo_text_width(cx->font, cx->fs_label, s, strlen(s)) > g.cap) {
                g.wrap = g.cap;
                g.lines = room;
            }
        }
        for (size_t i = 0; i < g.dt->n; i++) left = fmax(left, label_width(&g, i));
        left += 8 * cx->k;
        if (c->y_log) {
            g.vs = fo_chart_log_scale(lo, hi);
            maxw = widest_tick(cx, &g.vs, cx->ycode);
        } else {
            g.vs = horizontal_scale(cx, lo, hi, zero, cx->x1 - cx->x0 - left - 20 * cx->k, cx->ycode, &maxw);
        }
        right = fmax(right, maxw / 2 + 2);
    } else {
        for (int iter = 0; iter < 3; iter++) {
            double plot_h = cx->y1 - bottom - cx->y0 - top;
            int target = (int)fmin(11, fmax(3, plot_h / (70 * cx->k) + 1));
            g.vs = c->y_log ? fo_chart_log_scale(lo, hi) : fo_chart_nice_scale(lo, hi, target, zero);
            double ticks = widest_tick(cx, &g.vs, cx->ycode) + 8 * cx->k;
            if (flip) right = ticks, left = 10 * cx->k;
            else left = ticks;
            double len = cx->x1 - right - cx->x0 - left, need;
            if (g.scatter) {
                bool xzero = fo_chart_zero_based(c->kind, xlo, xhi);
                g.xs = horizontal_scale(cx, xlo, xhi, xzero, len, cx->xcode, &maxw);
                right = fmax(10 * cx->k, maxw / 2 + 2);
                left = fmax(left, maxw / 2 + 2);
                bottom = g.lh + 6 * cx->k;
            } else {
                bottom = plan_categories(&g, len, &need);
                left = fmax(left, need + 2);
                if (flip) right = fmax(right, need + 2);
            }
        }
    }
    g.px0 = cx->x0 + left;
    g.px1 = cx->x1 - right;
    g.py0 = cx->y0 + top;
    g.py1 = cx->y1 - bottom;
    if (g.px1 - g.px0 < 10 || g.py1 - g.py0 < 10) { fo_chart_note(cx, "Chart too small"); return; }

    /* value grid and labels */
    char buf[128];
    fo_numfmt *tf = fo_chart_tick_numfmt(cx->ycode, &g.vs);
    for (int t = 0; t < g.vs.nticks; t++) {
        double v = fo_chart_tick_value(&g.vs, t);
        fo_chart_tick_label(tf, &g.vs, t, buf, sizeof buf);
        long ink = fo_numfmt_color(tf, v); /* [Red] of the column's format, as Excel colours ticks */
        fo_rgb tc = ink >= 0 ? (fo_rgb)ink : cx->muted;
        if (g.horiz) {
            double x = crisp(map(&g.vs, v, g.px0, g.px1));
            fo_dl_segment(cx->dl, FO_ROLE_GRID, FO_NONE, FO_NONE, x, g.py0, x, g.py1, 1, cx->grid, NULL);
            fo_dl_add_text(cx->dl, FO_ROLE_VALUE_LABEL, FO_NONE, FO_NONE, buf, x, g.py1 + 6 * cx->k + g.asc,
                           cx->fs_label, false, cx->font, tc, FO_ANCHOR_MIDDLE, 0);
        } else {
            double y = crisp(map(&g.vs, v, g.py1, g.py0));
            fo_dl_segment(cx->dl, FO_ROLE_GRID, FO_NONE, FO_NONE, g.px0, y, g.px1, y, 1, cx->grid, NULL);
            fo_dl_add_text(cx->dl, FO_ROLE_VALUE_LABEL, FO_NONE, FO_NONE, buf,
                           flip ? g.px1 + 6 * cx->k : g.px0 - 6 * cx->k, y + cx->fs_label * 0.35,
                           cx->fs_label, false, cx->font, tc, flip ? FO_ANCHOR_START : FO_ANCHOR_END, 0);
        }
    }
    fo_numfmt_free(tf);
    tf = g.scatter ? fo_chart_tick_numfmt(cx->xcode, &g.xs) : NULL;
    if (g.scatter)
        for (int t = 0; t < g.xs.nticks; t++) {
            double v = g.xs.min + t * g.xs.step, x = crisp(map(&g.xs, v, g.px0, g.px1));
            fo_chart_tick_label(tf, &g.xs, t, buf, sizeof buf);
            fo_dl_segment(cx->dl, FO_ROLE_GRID, FO_NONE, FO_NONE, x, g.py0, x, g.py1, 1, cx->grid, NULL);
            fo_dl_add_text(cx->dl, FO_ROLE_CATEGORY_LABEL, FO_NONE, FO_NONE, buf, x, g.py1 + 6 * cx->k + g.asc,
                           cx->fs_label, false, cx->font, cx->muted, FO_ANCHOR_MIDDLE, 0);
        }

    fo_numfmt_free(tf);

    /* data */
    if (kt->mark == FO_MARK_BAR) draw_bars(&g);
    else draw_lines(&g, kt->mark == FO_MARK_AREA);

    /* the category axis line, at zero when zero is in range */
    double base = fmax(g.vs.min, fmin(0, g.vs.max));
    if (g.horiz) {
        double x = crisp(map(&g.vs, base, g.px0, g.px1));
        fo_dl_segment(cx->dl, FO_ROLE_AXIS, FO_NONE, FO_NONE, x, g.py0, x, g.py1, 1, cx->axis, NULL);
    } else {
        double y = crisp(map(&g.vs, g.scatter ? g.vs.min : base, g.py1, g.py0));
        fo_dl_segment(cx->dl, FO_ROLE_AXIS, FO_NONE, FO_NONE, g.px0, y, g.px1, y, 1, cx->axis, NULL);
    }

    /* category labels */
    if (!g.scatter) {
        size_t n = g.dt->n;
        for (size_t i = 0; i < n; i += g.step) {
            if (g.horiz)
                draw_category_label(&g, i, g.px0 - 6 * cx->k, g.py0 + (i + 0.5) * (g.py1 - g.py0) / n);
            else draw_category_label(&g, i, g.px0 + (i + 0.5) * (g.px1 - g.px0) / n, g.py1);
        }
    }
}
