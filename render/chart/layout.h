/* layout.h — private to render/chart: the state shared by the layout files
 * (data read from the rows, fonts and colors, the plot box being carved out).
 *
 * Coordinates are px, origin top-left. Series values live in y[s * n + i];
 * NaN marks a missing value (null cell, text cell, non-finite number). */
#ifndef FO_CHART_LAYOUT_H
#define FO_CHART_LAYOUT_H

#include "render/chart/dl_build.h"
#include "render/core/numfmt.h"

typedef fo_chart_series fo_chart_data; /* chart.h */

typedef struct {
    const fo_chart *c;
    const fo_theme *t;
    fo_dl *dl;
    fo_chart_data data;
    double w, h;
    double k;                      /* font scale for the chart size */
    double fs_title, fs_label, fs_axis_title, fs_legend;
    const char *font, *font_bold, *font_title;
    fo_rgb text, muted, grid, axis;
    fo_numfmt *yfmt, *xfmt;        /* NULL = General */
    const char *ycode, *xcode;     /* their format codes (NULL = General), for ticks */
    double x0, y0, x1, y1;         /* box still free for the plot */
} fo_chart_ctx;

/* data.c */
/* cx->data through fo_chart_series_read (labels in cx->xfmt), then
 * FO_ERR_INPUT (in d, naming column and row) for a value beyond
 * FO_CHART_VALUE_MAX. Free cx->data with fo_chart_series_free. */
fo_status fo_chart_data_read(fo_chart_ctx *cx, fo_diags *d);
/* Formats v through f (General when NULL) into buf; "-0" never shows. */
void fo_chart_format(const fo_numfmt *f, double v, char *buf, size_t cap);
fo_rgb fo_chart_color(const fo_chart_ctx *cx, size_t i);
/* The compiled tick format of an axis (fo_chart_tick_format); NULL = General.
 * Caller frees with fo_numfmt_free. */
fo_numfmt *fo_chart_tick_numfmt(const char *code, const fo_axis_scale *s);
/* The label of tick i of s through f (a tick format). */
void fo_chart_tick_label(const fo_numfmt *f, const fo_axis_scale *s, int i, char *buf, size_t cap);

/* layout.c: the frame around the plot */
/* Legend entries: draws them in the free box and shrinks it. */
void fo_chart_legend(fo_chart_ctx *cx, const char *const *labels, size_t n, fo_legend where);
void fo_chart_note(fo_chart_ctx *cx, const char *msg);

/* cartesian.c: bar, column, line, area, scatter */
void fo_chart_cartesian(fo_chart_ctx *cx);
/* pie.c: pie and doughnut */
void fo_chart_pie(fo_chart_ctx *cx);

#endif
