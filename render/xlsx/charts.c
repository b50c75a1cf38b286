/* charts.c — native Excel charts whose series reference worksheet cells.
 *
 * A chart reads its cells from the first table sheet that shows its dataset
 * with every field the chart needs; when no table does, the dataset is
 * written once to a sheet of its own ("Data - sales") that every chart on
 * it shares. Series colours follow the theme palette in order; a pie or
 * doughnut colours its slices from the palette instead. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "render/xlsx/xlsx_internal.h"

#define DATA_ROWS_PER_SHEET (FO_XLSX_MAX_ROWS - 1)
#define MAX_COLORED_POINTS 255 /* slices coloured one by one; more keep Excel's */

static bool ref_covers(const fo_xlsx_dataref *r, const fo_chart *c)
{
    if (r->ds != c->data || r->col_of_field[c->x] == SIZE_MAX) return false;
    for (size_t k = 0; k < c->ny; k++)
        if (r->col_of_field[c->y[k]] == SIZE_MAX) return false;
    return true;
}

static fo_xlsx_dataref *new_ref(fo_xlsx *x, const fo_dataset *ds)
{
    if (!fo_grow((void **)&x->refs, &x->refcap, x->nrefs + 1, 4, sizeof *x->refs)) return NULL;
    fo_xlsx_dataref *r = &x->refs[x->nrefs];
    memset(r, 0, sizeof *r);
    r->ds = ds;
    if (!(r->col_of_field = fo_malloc((ds->ncols ? ds->ncols : 1) * sizeof(size_t)))) return NULL;
    for (size_t f = 0; f < ds->ncols; f++) r->col_of_field[f] = SIZE_MAX;
    x->nrefs++;
    return r;
}

/* Writes every column of ds on a new "Data - name" sheet. */
static fo_status write_data_sheet(fo_xlsx *x, const fo_dataset *ds, fo_xlsx_dataref *r)
{
    fo_table_col *cols = fo_calloc(ds->ncols ? ds->ncols : 1, sizeof *cols);
    fo_xlsx_table t = {0};
    fo_status st = FO_OK;
    if (!cols) return FO_ERR_NOMEM;
    for (size_t f = 0; f < ds->ncols; f++) {
        cols[f].field = f;
        cols[f].title = ds->cols[f].name;
        cols[f].format = ds->cols[f].format;
        cols[f].type = ds->cols[f].type;
        cols[f].total = FO_TOTAL_NONE;
    }
    t.nparts = fo_xlsx_parts_for(ds->nrows, false);
    if (!(t.parts = fo_calloc(t.nparts, sizeof *t.parts))) { st = FO_ERR_NOMEM; goto cleanup; }
    char want[FO_XLSX_NAME_CAP * 4];
    snprintf(want, sizeof want, "Data - %s", ds->name ? ds->name : "chart");
    if ((st = fo_xlsx_sheet_name(&x->names, want, t.parts[0])) != FO_OK) goto cleanup;
    for (size_t p = 1; p < t.nparts && st == FO_OK; p++) {
        snprintf(want, sizeof want, "%s (%zu)", t.parts[0], p + 1);
        st = fo_xlsx_sheet_name(&x->names, want, t.parts[p]);
    }
    if (st != FO_OK) goto cleanup;
    if ((st = fo_xlsx_write_table(x, ds, cols, ds->ncols, false, &t)) != FO_OK) goto cleanup;
    snprintf(r->sheet, sizeof r->sheet, "%s", t.parts[0]);
    r->rows = t.rows_written < DATA_ROWS_PER_SHEET ? t.rows_written : DATA_ROWS_PER_SHEET;
    for (size_t f = 0; f < ds->ncols; f++) r->col_of_field[f] = f;
cleanup:
    fo_free(t.parts);
    fo_free(cols);
    return st;
}

fo_status fo_xlsx_dataref_for(fo_xlsx *x, const fo_chart *c, const fo_xlsx_dataref **out)
{
    *out = NULL;
    for (size_t i = 0; i < x->nrefs; i++)
        if (ref_covers(&x->refs[i], c)) { *out = &x->refs[i]; return FO_OK; }
    const fo_dataset *ds = c->data;
    fo_xlsx_dataref *r = new_ref(x, ds);
    if (!r) return FO_ERR_NOMEM;
    for (size_t i = 0; i < x->ntables; i++) {
        const fo_block *b = x->tables[i].block;
        if (b->u.table.data != ds) continue;
        for (size_t f = 0; f < ds->ncols; f++) r->col_of_field[f] = SIZE_MAX;
        for (size_t j = b->u.table.ncols; j-- > 0;)
            r->col_of_field[b->u.table.cols[j].field] = j; /* first column showing f wins */
        if (!ref_covers(r, c)) continue;
        snprintf(r->sheet, sizeof r->sheet, "%s", x->tables[i].parts[0]);
        size_t n = x->tables[i].rows_written;
        r->rows = n < DATA_ROWS_PER_SHEET ? n : DATA_ROWS_PER_SHEET;
        *out = r;
        return FO_OK;
    }
    fo_status st = write_data_sheet(x, ds, r);
    if (st == FO_OK) *out = r;
    return st;
}

/* ---- the chart ------------------------------------------------------------ */

/* libxlsxwriter's chart type of each kind: plain, and stacked (a kind that
 * does not stack has its plain type twice). The rest of a kind's mapping
 * is its row of fo_chart_kinds (render/core/model.c). */
static const uint8_t chart_types[][2] = {
    [FO_CHART_BAR] = {LXW_CHART_BAR, LXW_CHART_BAR_STACKED},
    [FO_CHART_COLUMN] = {LXW_CHART_COLUMN, LXW_CHART_COLUMN_STACKED},
    [FO_CHART_LINE] = {LXW_CHART_LINE, LXW_CHART_LINE_STACKED},
    [FO_CHART_AREA] = {LXW_CHART_AREA, LXW_CHART_AREA_STACKED},
    [FO_CHART_PIE] = {LXW_CHART_PIE, LXW_CHART_PIE},
    [FO_CHART_DOUGHNUT] = {LXW_CHART_DOUGHNUT, LXW_CHART_DOUGHNUT},
    [FO_CHART_SCATTER] = {LXW_CHART_SCATTER, LXW_CHART_SCATTER},
};
_Static_assert(sizeof chart_types / sizeof *chart_types == FO_CHART_NKINDS, "an xlsx chart type per chart kind");

static uint8_t chart_type(const fo_chart *c)
{
    return (unsigned)c->kind < FO_CHART_NKINDS ? chart_types[c->kind][c->stacked] : LXW_CHART_COLUMN;
}

/* Plain chart text. libxlsxwriter reads a name starting with '=' as a cell
 * reference, so such a title gets a zero-width space in front. Returns a
 * string in x->buf2, or NULL on out of memory. */
static const char *chart_text(fo_xlsx *x, const char *s)
{
    const char *c = fo_xlsx_clean(&x->buf, s, strlen(s), FO_XLSX_PLAIN);
    if (!c) return NULL;
    size_t n = strlen(c);
    x->buf2.len = 0;
    if (!fo_buf_reserve(&x->buf2, n + 3)) return NULL;
    size_t o = 0;
    if (c[0] == '=') { memcpy(x->buf2.data, "\xE2\x80\x8B", 3); o = 3; }
    memmove(x->buf2.data + o, c, n + 1);
    return x->buf2.data;
}

static fo_status color_points(fo_xlsx *x, lxw_chart_series *s, size_t n)
{
    const fo_theme *th = x->th;
    /* no rows: nothing to colour (libxlsxwriter refuses an empty point list) */
    if (n == 0 || n > MAX_COLORED_POINTS || th->npalette == 0) return FO_OK;
    lxw_chart_point *pts = fo_calloc(n ? n : 1, sizeof *pts);
    lxw_chart_fill *fills = fo_calloc(n ? n : 1, sizeof *fills);
    lxw_chart_point **list = fo_calloc(n + 1, sizeof *list);
    fo_status st = FO_OK;
    if (!pts || !fills || !list) { st = FO_ERR_NOMEM; goto cleanup; }
    for (size_t i = 0; i < n; i++) {
        fills[i].color = fo_xlsx_color(th->palette[i % th->npalette]);
        pts[i].fill = &fills[i];
        list[i] = &pts[i];
    }
    if (chart_series_set_points(s, list) != LXW_NO_ERROR) st = FO_ERR_NOMEM;
cleanup:
    fo_free(pts);
    fo_free(fills);
    fo_free(list);
    return st;
}

static void style_series(fo_xlsx *x, const fo_chart *c, lxw_chart_series *s, size_t k)
{
    const fo_theme *th = x->th;
    lxw_color_t col = th->npalette ? fo_xlsx_color(th->palette[k % th->npalette]) : LXW_COLOR_BLUE;
    if (c->y_colors && k < c->ny && c->y_colors[k] >= 0) col = fo_xlsx_color((fo_rgb)c->y_colors[k]);
    lxw_chart_fill fill = {.color = col};
    lxw_chart_line line = {.color = col, .width = 2.25f};
    switch (fo_chart_traits_of(c->kind)->mark) {
    case FO_MARK_LINE:
        chart_series_set_line(s, &line);
        chart_series_set_marker_type(s, LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(s, 5);
        chart_series_set_marker_fill(s, &fill);
        chart_series_set_marker_line(s, &line);
        break;
    case FO_MARK_POINT:
        chart_series_set_marker_type(s, LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(s, 6);
        chart_series_set_marker_fill(s, &fill);
        line.width = 0.75f;
        chart_series_set_marker_line(s, &line);
        break;
    case FO_MARK_SLICE:
        break;
    case FO_MARK_BAR:
    case FO_MARK_AREA:
        chart_series_set_fill(s, &fill);
        break;
    }
}

/* The format code of column col of the chart's dataset, NULL for General. */
static const char *column_format(const fo_chart *c, size_t col)
{
    const fo_dataset *ds = c->data;
    if (!ds || col >= ds->ncols) return NULL;
    const char *f = ds->cols[col].format;
    return f && *f && strcmp(f, "General") != 0 ? f : NULL;
}

/* Value axes labelled with their column's format code, as the slides' and
 * Word's chart parts are ("$#,##0" data shows "$250,000" ticks), instead of
 * libxlsxwriter's General, source-linked default. The value axis is
 * libxlsxwriter's x_axis in a bar chart, its y_axis otherwise; a scatter
 * chart's x axis holds values too. */
static void set_axis_formats(const fo_chart *c, lxw_chart *ch)
{
    const char *yf = c->ny ? column_format(c, c->y[0]) : NULL;
    const fo_chart_traits *kt = fo_chart_traits_of(c->kind);
    lxw_chart_axis *value_axis = kt->sideways ? ch->x_axis : ch->y_axis;
    if (yf) chart_axis_set_num_format(value_axis, yf);
    /* libxlsxwriter 1.1.4 does not flag an area chart's y axis as a value
       axis, so its setter refuses it (with a warning on stderr): the field is
       what its writer reads, set here for every kind */
    if (c->y_log) value_axis->log_base = 10;
    const char *xf = kt->family == FO_CHART_XY ? column_format(c, c->x) : NULL;
    if (xf) chart_axis_set_num_format(ch->x_axis, xf);
}

fo_status fo_xlsx_chart_build(fo_xlsx *x, const fo_block *b, const fo_xlsx_dataref *ref,
                              lxw_chart **out)
{
    const fo_chart *c = &b->u.chart;
    lxw_chart *ch = workbook_add_chart(x->wb, chart_type(c));
    *out = NULL;
    if (!ch) return FO_ERR_NOMEM;
    lxw_row_t last = (lxw_row_t)(ref->rows ? ref->rows : 1);
    lxw_col_t xc = (lxw_col_t)ref->col_of_field[c->x];
    const fo_chart_traits *kt = fo_chart_traits_of(c->kind);
    bool round = kt->family == FO_CHART_ROUND;
    size_t nseries = round && !kt->all_series && c->ny > 1 ? 1 : c->ny;
    for (size_t k = 0; k < nseries; k++) {
        lxw_col_t yc = (lxw_col_t)ref->col_of_field[c->y[k]];
        lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
        if (!s) return FO_ERR_NOMEM;
        chart_series_set_categories(s, ref->sheet, 1, xc, last, xc);
        chart_series_set_values(s, ref->sheet, 1, yc, last, yc);
        const char *title = c->y_titles ? c->y_titles[k] : NULL;
        if (title) {  /* the spec's series title, else the column's header cell */
            const char *t = chart_text(x, title);
            if (!t) return FO_ERR_NOMEM;
            chart_series_set_name(s, t);
        } else {
            chart_series_set_name_range(s, ref->sheet, 0, yc);
        }
        style_series(x, c, s, k);
        if (round && k == 0 && color_points(x, s, ref->rows) != FO_OK) return FO_ERR_NOMEM;
    }
    lxw_chart_font title_font = {.name = (char *)x->th->heading.family, .size = 14, .bold = LXW_TRUE,
                                 .color = fo_xlsx_color(x->th->heading_color)};
    lxw_chart_font axis_font = {.name = (char *)x->th->body.family, .size = 10, .bold = LXW_TRUE,
                                .color = fo_xlsx_color(x->th->text)};
    if (c->title && c->title[0]) {
        const char *t = chart_text(x, c->title);
        if (!t) return FO_ERR_NOMEM;
        chart_title_set_name(ch, t);
        chart_title_set_name_font(ch, &title_font);
    } else {
        chart_title_off(ch);
    }
    if (!round) {
        /* x_title names the categories, y_title the values: in a bar chart
           libxlsxwriter's y_axis is the category axis */
        bool bar = kt->sideways;
        lxw_chart_axis *cat_axis = bar ? ch->y_axis : ch->x_axis, *val_axis = bar ? ch->x_axis : ch->y_axis;
        if (c->x_title && c->x_title[0]) {
            const char *t = chart_text(x, c->x_title);
            if (!t) return FO_ERR_NOMEM;
            chart_axis_set_name(cat_axis, t);
            chart_axis_set_name_font(cat_axis, &axis_font);
        }
        if (c->y_title && c->y_title[0]) {
            const char *t = chart_text(x, c->y_title);
            if (!t) return FO_ERR_NOMEM;
            chart_axis_set_name(val_axis, t);
            chart_axis_set_name_font(val_axis, &axis_font);
        }
    }
    if (!round) set_axis_formats(c, ch);
    /* right to left: categories from the right, the value axis on the right
       (where Excel puts it for a reversed category axis), as PDF and PNG draw */
    if (c->rtl && kt->rtl_mirror) chart_axis_set_reverse(ch->x_axis);
    if (kt->sideways) {
        /* Excel draws a bar chart's categories bottom-up; reversed (with the
         * value axis kept at the bottom) they read top-down, as in the PDF,
         * the PNG and the slides */
        chart_axis_set_reverse(ch->y_axis);      /* a bar chart's y_axis is its category axis */
        chart_axis_set_crossing_max(ch->y_axis); /* written on the value axis: crosses at max */
    }
    switch (c->legend) {
    case FO_LEGEND_RIGHT: chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT); break;
    case FO_LEGEND_BOTTOM: chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM); break;
    case FO_LEGEND_NONE: chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE); break;
    }
    *out = ch;
    return FO_OK;
}
