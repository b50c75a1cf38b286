/* series.c — the data side of a native chart part: reading a chart's series
 * through fo_rows, and writing each c:ser with its literal caches and colors.
 *
 * Caches have c:ptCount = rows and one c:pt per present value: literal
 * (c:strLit for categories, c:numLit for values), or, when the data is
 * linked to the embedded workbook, c:strRef / c:numRef with the c:f of the
 * workbook's range (workbook.c lays it out) and the same points cached. A missing value (null cell, text cell, NaN) gets no c:pt: a gap,
 * as c:dispBlanksAs="gap" says. Category labels are the x cells as their
 * column displays them (DATE serials through the column's date format). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart.h"
#include "render/chartxml/chartxml.h"
#include "render/core/numfmt.h"

/* ---- small writers ---------------------------------------------------------- */

fo_rgb fo_chartxml_color(const fo_theme *t, size_t i)
{
    static const fo_rgb fallback[] = {0x4472C4, 0xED7D31, 0xA5A5A5, 0xFFC000, 0x5B9BD5, 0x70AD47};
    if (!t || t->npalette == 0) return fallback[i % 6];
    return t->palette[i % t->npalette];
}

void fo_chartxml_num(double v, char *buf, size_t cap)
{
    if (v == 0) v = 0; /* no "-0" */
    if (v == floor(v) && fabs(v) < 1e15) { /* an integer: what "%.15g" prints, without printf */
        char d[24], *e = d + sizeof d, *p = e;
        unsigned long long u = (unsigned long long)fabs(v);
        do *--p = (char)('0' + u % 10); while (u /= 10);
        if (v < 0) *--p = '-';
        size_t n = (size_t)(e - p);
        if (cap == 0) return;
        if (n >= cap) n = cap - 1;      /* cut to cap, as snprintf did */
        memcpy(buf, p, n);
        buf[n] = '\0';
        return;
    }
    snprintf(buf, cap, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.17g", v);
}

void fo_chartxml_val(fo_xml *x, const char *name, long long v)
{
    fo_xml_open(x, name, NULL);
    fo_xml_attr_int(x, "val", v);
    fo_xml_close(x);
}

void fo_chartxml_line(fo_xml *x, long long w, long long color, bool round)
{
    fo_xml_open(x, "a:ln", NULL);
    if (w > 0) fo_xml_attr_int(x, "w", w);
    if (round) fo_xml_attr(x, "cap", "rnd");
    if (color < 0) fo_xml_leaf(x, "a:noFill", NULL);
    else fo_xml_solid_fill(x, (fo_rgb)color);
    if (round) fo_xml_leaf(x, "a:round", NULL);
    fo_xml_close(x);
}

void fo_chartxml_line_sppr(fo_xml *x, long long w, long long color, bool round)
{
    fo_xml_open(x, "c:spPr", NULL);
    fo_chartxml_line(x, w, color, round);
    fo_xml_close(x);
}

void fo_chartxml_clear_sppr(fo_xml *x)
{
    fo_xml_open(x, "c:spPr", NULL);
    fo_xml_leaf(x, "a:noFill", NULL);
    fo_chartxml_line(x, 0, -1, false);
    fo_xml_close(x);
}

/* <c:ptCount/> and one <c:pt idx><c:v>label</c:v></c:pt> per label. */
static void str_points(fo_xml *x, char *const *labels, size_t n)
{
    fo_chartxml_val(x, "c:ptCount", (long long)n);
    for (size_t i = 0; i < n; i++) {
        fo_xml_open(x, "c:pt", NULL);
        fo_xml_attr_int(x, "idx", (long long)i);
        fo_xml_text_elem(x, "c:v", labels[i]);
        fo_xml_close(x);
    }
}

/* <c:formatCode/>, <c:ptCount/> and a <c:pt> per present value. */
static void num_points(fo_xml *x, const double *v, size_t n, const char *fmt)
{
    char buf[40];
    fo_xml_text_elem(x, "c:formatCode", fmt && *fmt ? fmt : "General");
    fo_chartxml_val(x, "c:ptCount", (long long)n);
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i])) continue;
        fo_chartxml_num(v[i], buf, sizeof buf);
        fo_xml_open(x, "c:pt", NULL);
        fo_xml_attr_int(x, "idx", (long long)i);
        fo_xml_text_elem(x, "c:v", buf);
        fo_xml_close(x);
    }
}

/* <c:f> of column col, rows 1..n of the workbook (row 1 alone when empty). */
static void formula(fo_xml *x, size_t col, size_t n)
{
    char ref[96];
    fo_chartxml_range(ref, sizeof ref, col, 1, n ? n : 1);
    fo_xml_text_elem(x, "c:f", ref);
}

/* The series name: <c:tx><c:strRef> to row 0 of its column when linked,
 * else <c:tx><c:v>. */
static void series_name(fo_xml *x, const fo_chartxml_data *dt, size_t s)
{
    const char *name = dt->names[s] ? dt->names[s] : "";
    fo_xml_open(x, "c:tx", NULL);
    if (dt->linked) {
        char ref[96];
        fo_chartxml_range(ref, sizeof ref, s + 1, 0, 0);
        fo_xml_open(x, "c:strRef", NULL);
        fo_xml_text_elem(x, "c:f", ref);
        fo_xml_open(x, "c:strCache", NULL);
        char *one[1] = {(char *)name};
        str_points(x, one, 1);
        fo_xml_close(x);
        fo_xml_close(x);
    } else {
        fo_xml_text_elem(x, "c:v", name);
    }
    fo_xml_close(x);
}

/* The category labels: c:strRef (column A) + c:strCache, or c:strLit. */
static void categories(fo_xml *x, const fo_chartxml_data *dt)
{
    if (dt->linked) {
        fo_xml_open(x, "c:strRef", NULL);
        formula(x, 0, dt->n);
        fo_xml_open(x, "c:strCache", NULL);
    } else {
        fo_xml_open(x, "c:strLit", NULL);
    }
    str_points(x, dt->cat, dt->n);
    if (dt->linked) fo_xml_close(x);
    fo_xml_close(x);
}

/* Values of workbook column col (NaN: no point): c:numRef + c:numCache, or
 * c:numLit, with the format they display in. */
static void numbers(fo_xml *x, const fo_chartxml_data *dt, size_t col, const double *v,
                    const char *fmt)
{
    if (dt->linked) {
        fo_xml_open(x, "c:numRef", NULL);
        formula(x, col, dt->n);
        fo_xml_open(x, "c:numCache", NULL);
    } else {
        fo_xml_open(x, "c:numLit", NULL);
    }
    num_points(x, v, dt->n, fmt);
    if (dt->linked) fo_xml_close(x);
    fo_xml_close(x);
}

static void cat_and_val(fo_xml *x, const fo_chartxml_data *dt, size_t s)
{
    fo_xml_open(x, "c:cat", NULL);
    categories(x, dt);
    fo_xml_close(x);
    fo_xml_open(x, "c:val", NULL);
    numbers(x, dt, s + 1, dt->y + s * dt->n, dt->fmts[s]);
    fo_xml_close(x);
}

static void marker(fo_xml *x, fo_rgb color, int size)
{
    fo_xml_open(x, "c:marker", NULL);
    fo_xml_leaf(x, "c:symbol", "val", "circle", NULL);
    fo_chartxml_val(x, "c:size", size);
    fo_xml_open(x, "c:spPr", NULL);
    fo_xml_solid_fill(x, color);
    fo_chartxml_line(x, 9525, (long long)color, false);
    fo_xml_close(x);
    fo_xml_close(x);
}

static void ser_head(fo_xml *x, const fo_chartxml_data *dt, size_t s)
{
    fo_xml_open(x, "c:ser", NULL);
    fo_chartxml_val(x, "c:idx", (long long)s);
    fo_chartxml_val(x, "c:order", (long long)(dt->flipped ? dt->ns - 1 - s : s));
    series_name(x, dt, s);
}

/* ---- one writer per mark (CT_BarSer, CT_LineSer, CT_AreaSer, CT_PieSer,
 *      CT_ScatterSer: idx, order, tx, spPr, then the mark's own elements) -- */

static void bar_series(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    for (size_t k = 0; k < dt->ns; k++) {
        size_t s = dt->flipped ? dt->ns - 1 - k : k; /* in plot order: LibreOffice reads that */
        fo_rgb col = fo_chart_series_color(dt, s, fo_chartxml_color(t, s));
        ser_head(x, dt, s);
        fo_xml_open(x, "c:spPr", NULL);
        fo_xml_solid_fill(x, col);
        fo_chartxml_line(x, 0, -1, false);
        fo_xml_close(x);
        fo_chartxml_val(x, "c:invertIfNegative", 0);
        cat_and_val(x, dt, s);
        fo_xml_close(x);
    }
}

static void line_series(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    for (size_t s = 0; s < dt->ns; s++) {
        fo_rgb col = fo_chart_series_color(dt, s, fo_chartxml_color(t, s));
        ser_head(x, dt, s);
        fo_chartxml_line_sppr(x, 28575, (long long)col, true);
        marker(x, col, 5);
        cat_and_val(x, dt, s);
        fo_chartxml_val(x, "c:smooth", 0);
        fo_xml_close(x);
    }
}

static void area_series(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    bool stacked = c->stacked;
    char hex[7];
    for (size_t s = 0; s < dt->ns; s++) {
        fo_rgb col = fo_chart_series_color(dt, s, fo_chartxml_color(t, s));
        ser_head(x, dt, s);
        fo_xml_open(x, "c:spPr", NULL);
        /* overlapping areas stay readable: 70% opaque unless stacked */
        fo_rgb_hex(col, hex);
        fo_xml_open(x, "a:solidFill", NULL);
        fo_xml_open(x, "a:srgbClr", "val", hex, NULL);
        if (!stacked && dt->ns > 1) fo_xml_leaf(x, "a:alpha", "val", "70000", NULL);
        fo_xml_close(x);
        fo_xml_close(x);
        fo_chartxml_line(x, 12700, (long long)col, false);
        fo_xml_close(x);
        cat_and_val(x, dt, s);
        fo_xml_close(x);
    }
}

/* Pie and doughnut: the first series, one palette color per slice (c:dPt),
 * labels with the percentage of the whole. */
static void pie_series(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    bool doughnut = fo_chart_traits_of(c->kind)->hole > 0;
    if (dt->ns == 0) return;
    ser_head(x, dt, 0);
    fo_chartxml_line_sppr(x, 12700, (long long)(t ? t->background : 0xFFFFFF), false);
    for (size_t i = 0; i < dt->n; i++) {
        fo_xml_open(x, "c:dPt", NULL);
        fo_chartxml_val(x, "c:idx", (long long)i);
        fo_chartxml_val(x, "c:bubble3D", 0);
        fo_xml_open(x, "c:spPr", NULL);
        fo_xml_solid_fill(x, fo_chartxml_color(t, i));
        fo_chartxml_line(x, 12700, (long long)(t ? t->background : 0xFFFFFF), false);
        fo_xml_close(x);
        fo_xml_close(x);
    }
    fo_xml_open(x, "c:dLbls", NULL);
    fo_xml_leaf(x, "c:numFmt", "formatCode", "0%", "sourceLinked", "0", NULL);
    fo_chartxml_clear_sppr(x);
    if (!doughnut) fo_xml_leaf(x, "c:dLblPos", "val", "bestFit", NULL);
    fo_chartxml_val(x, "c:showLegendKey", 0);
    fo_chartxml_val(x, "c:showVal", 0);
    fo_chartxml_val(x, "c:showCatName", 0);
    fo_chartxml_val(x, "c:showSerName", 0);
    fo_chartxml_val(x, "c:showPercent", 1);
    fo_chartxml_val(x, "c:showBubbleSize", 0);
    fo_chartxml_val(x, "c:showLeaderLines", 1);
    fo_xml_close(x);
    cat_and_val(x, dt, 0);
    fo_xml_close(x);
}

static void scatter_series(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    for (size_t s = 0; s < dt->ns; s++) {
        fo_rgb col = fo_chart_series_color(dt, s, fo_chartxml_color(t, s));
        ser_head(x, dt, s);
        fo_chartxml_line_sppr(x, 0, -1, false); /* markers only */
        marker(x, col, 6);
        fo_xml_open(x, "c:xVal", NULL);
        numbers(x, dt, 0, dt->x, dt->xfmt);
        fo_xml_close(x);
        fo_xml_open(x, "c:yVal", NULL);
        numbers(x, dt, s + 1, dt->y + s * dt->n, dt->fmts[s]);
        fo_xml_close(x);
        fo_chartxml_val(x, "c:smooth", 0);
        fo_xml_close(x);
    }
}

size_t fo_chartxml_nseries(const fo_chart *c, const fo_chartxml_data *dt)
{
    bool round = fo_chart_traits_of(c->kind)->family == FO_CHART_ROUND;
    return round && dt->ns > 1 ? 1 : dt->ns;
}

void fo_chartxml_series(fo_xml *x, const fo_chart *c, const fo_theme *t,
                        const fo_chartxml_data *dt)
{
    typedef void (*writer)(fo_xml *, const fo_chart *, const fo_theme *, const fo_chartxml_data *);
    static const writer writers[] = {[FO_MARK_BAR] = bar_series, [FO_MARK_LINE] = line_series,
                                     [FO_MARK_AREA] = area_series, [FO_MARK_SLICE] = pie_series,
                                     [FO_MARK_POINT] = scatter_series};
    writers[fo_chart_traits_of(c->kind)->mark](x, c, t, dt);
}

/* ---- reading the rows ------------------------------------------------------------ */

/* A clustered bar chart of several series, drawn with its first category
 * on top, needs its legend to list the series top down as the bars of a
 * cluster show them. Reversing the category axis (what a lone series gets,
 * cat_val_axes) puts the first category on top, and Office then lists the
 * legend to match, but LibreOffice keeps a bar chart's legend bottom up:
 * the legend reads the series reversed. Written bottom up instead (rows in
 * reverse, the last series plotted first, an axis in its natural order),
 * the chart reads the same in both: first category on top, first series
 * on top of its cluster and of the legend. The embedded workbook holds the
 * rows as the chart shows them. */
static void flip(fo_chartxml_data *dt)
{
    fo_chart_series_reverse(dt);
    dt->flipped = true;
}

fo_status fo_chartxml_data_read(const fo_chart *c, fo_chartxml_data *dt, fo_diags *d)
{
    fo_numfmt *xf = fo_numfmt_compile(fo_chart_column_format(c->data, c->x), NULL, 0); /* NULL: General */
    fo_status st = fo_chart_series_read(c, xf, dt, d);
    fo_numfmt_free(xf);
    if (st == FO_OK) st = fo_chart_series_check_log(c, dt, d);
    if (st == FO_OK && fo_chart_traits_of(c->kind)->sideways && !c->stacked && dt->ns > 1) flip(dt);
    return st;
}
