/* t_chart.c — unit tests of the chart engine: nice scales, exact display-list
 * geometry of a small column chart, odd data (empty, nulls, one point,
 * negative, 1,000 categories), pie percentages, backend replay fallbacks. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/dl_build.h"
#include "render/core/numfmt.h"
#include "tests/render/chart/fixture.h"
#include "tests/check_run.h"

/* ---- nice scales ------------------------------------------------------------ */
static void check_scale(fo_axis_scale s, double min, double max, double step)
{
    ck_assert_double_eq_tol(s.min, min, 1e-12);
    ck_assert_double_eq_tol(s.max, max, 1e-12);
    ck_assert_double_eq_tol(s.step, step, 1e-12);
    ck_assert_int_eq(s.nticks, (int)lround((max - min) / step) + 1);
}

START_TEST(scale_ranges)
{
    check_scale(fo_chart_nice_scale(0, 97, 6, true), 0, 100, 20);
    check_scale(fo_chart_nice_scale(-13, 42, 6, true), -20, 60, 20);
    check_scale(fo_chart_nice_scale(0.001, 0.0042, 6, false), 0.001, 0.005, 0.001);
    check_scale(fo_chart_nice_scale(3, 3, 6, true), 0, 3, 1);       /* one value */
    check_scale(fo_chart_nice_scale(7, 7, 6, false), 6, 8, 0.5);    /* all equal */
    check_scale(fo_chart_nice_scale(0, 0, 6, true), 0, 1, 0.2);     /* all zero */
    check_scale(fo_chart_nice_scale(-50, -5, 6, true), -50, 0, 10); /* all negative */
    check_scale(fo_chart_nice_scale(NAN, 1, 6, true), 0, 1, 0.2);
    fo_axis_scale s = fo_chart_nice_scale(0, 0.3, 4, true);
    ck_assert(s.min + 3 * s.step == 0.30000000000000004 || s.max == 0.3); /* decimal ticks exact */
}
END_TEST

START_TEST(scale_steps_are_1_2_5)
{
    for (double hi = 0.37; hi < 1e7; hi *= 1.7) {
        fo_axis_scale s = fo_chart_nice_scale(0, hi, 6, true);
        double m = s.step / pow(10, floor(log10(s.step) + 1e-9));
        ck_assert_msg(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9, "step %g", s.step);
        ck_assert(s.max >= hi && s.min <= 0);
        ck_assert(s.nticks >= 3 && s.nticks <= 11);
    }
}
END_TEST

START_TEST(log_scale_is_a_decade_a_tick)
{
    fo_axis_scale s = fo_chart_log_scale(10, 1000);   /* 10 on the edge would be a bar of nothing */
    ck_assert(s.log);
    ck_assert_double_eq(s.min, 1);
    ck_assert_double_eq(s.max, 10000);
    ck_assert_int_eq(s.nticks, 5);
    ck_assert_double_eq(fo_chart_tick_value(&s, 3), 1000);
    s = fo_chart_log_scale(0.02, 0.5);
    ck_assert_double_eq(s.min, 0.01);
    ck_assert_double_eq(s.max, 1);
    ck_assert_double_eq(fo_chart_tick_value(&s, 1), 0.1);
    /* a decade is the same length everywhere on the axis */
    s = fo_chart_log_scale(15, 9000);
    double a = fo_chart_scale_map(&s, 10, 0, 300), b = fo_chart_scale_map(&s, 100, 0, 300);
    double c = fo_chart_scale_map(&s, 1000, 0, 300);
    ck_assert_double_eq_tol(b - a, c - b, 1e-9);
    ck_assert_double_eq(fo_chart_scale_map(&s, 0, 0, 300), 0);   /* never NaN */
    fo_axis_scale lin = fo_chart_nice_scale(0, 10, 6, true);
    ck_assert(!lin.log);
    ck_assert_double_eq(fo_chart_scale_map(&lin, 5, 0, 100), 50);
}
END_TEST

/* ---- tick label formats ---------------------------------------------------------- */
static void check_ticks(const char *code, double lo, double hi, const char *want_code,
                        const char *want_labels)
{
    fo_axis_scale s = fo_chart_nice_scale(lo, hi, 6, true);
    char got[128], labels[512] = "", buf[64];
    ck_assert_uint_eq(fo_chart_tick_format(code, &s, got, sizeof got), strlen(want_code));
    ck_assert_str_eq(got, want_code);
    for (int i = 0; i < s.nticks; i++) {
        fo_numfmt_format_code(got, s.min + i * s.step, buf, sizeof buf);
        if (i) strcat(labels, " ");
        strcat(labels, buf);
    }
    ck_assert_str_eq(labels, want_labels);
}

START_TEST(tick_formats)
{
    /* plain columns: decimals from the step, thousands from 10,000 up */
    check_ticks("0.00", 0, 250000, "#,##0", "0 50,000 100,000 150,000 200,000 250,000");
    check_ticks("General", 0, 250000, "#,##0", "0 50,000 100,000 150,000 200,000 250,000");
    check_ticks(NULL, 0, 97, "0", "0 20 40 60 80 100");
    check_ticks("@", 0, 4.5, "0", "0 1 2 3 4 5");
    check_ticks("0.00", 0, 1.3, "0.0", "0.0 0.5 1.0 1.5");
    check_ticks("0", 0, 0.09, "0.00", "0.00 0.02 0.04 0.06 0.08 0.10");
    check_ticks("0.00", 0, 7900, "0", "0 2000 4000 6000 8000");
    check_ticks("0.00", 0, 9000, "#,##0", "0 2,000 4,000 6,000 8,000 10,000");
    /* thousands kept from the column, even below 10,000 */
    check_ticks("#,##0.00", 0, 7900, "#,##0", "0 2,000 4,000 6,000 8,000");
    check_ticks("#,##0", 0, 2.4, "#,##0.0", "0.0 0.5 1.0 1.5 2.0 2.5");
    /* percent: the step counts in percent points */
    check_ticks("0.0%", 0, 0.9, "0%", "0% 20% 40% 60% 80% 100%");
    check_ticks("0%", 0, 0.034, "0%", "0% 1% 2% 3% 4%");
    check_ticks("0%", 0, 0.0042, "0.0%", "0.0% 0.1% 0.2% 0.3% 0.4% 0.5%");
    /* currency, literal text, both sections, scaling commas */
    check_ticks("$#,##0.00;($#,##0.00)", -3, 3, "$#,##0;($#,##0)", "($4) ($2) $0 $2 $4");
    check_ticks("[$€]#,##0.00", 0, 12000, "[$€]#,##0", "€0 €5,000 €10,000 €15,000");
    check_ticks("0.00 \"EUR\"", 0, 900, "0 \"EUR\"", "0 EUR 200 EUR 400 EUR 600 EUR 800 EUR 1000 EUR");
    check_ticks("#,##0.0,\"K\"", 0, 2500000, "#,##0,\"K\"", "0K 500K 1,000K 1,500K 2,000K 2,500K");
    check_ticks("0.0,,\"M\"", 0, 2500000, "0.0,,\"M\"", "0.0M 0.5M 1.0M 1.5M 2.0M 2.5M");
    /* scientific and dates: as the column says */
    check_ticks("0.00E+00", 0, 1e6, "0.00E+00", "0.00E+00 2.00E+05 4.00E+05 6.00E+05 8.00E+05 1.00E+06");
    char small[4];
    fo_axis_scale s = fo_chart_nice_scale(0, 250000, 6, true);
    ck_assert_uint_eq(fo_chart_tick_format("0.00", &s, small, sizeof small), 5); /* like snprintf */
    ck_assert_str_eq(small, "#,#");
}
END_TEST

/* The value axis of a chart over a "0.00" column reads 250,000, not 250000.00. */
START_TEST(value_labels_follow_tick_format)
{
    const double v[] = {120000, 250000, 90000, 180000};
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 4, 1, NULL, v, "0.00");
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    size_t n = 0;
    bool top = false;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_VALUE_LABEL) continue;
        n++;
        ck_assert_msg(!strchr(op->text.utf8, '.'), "label %s has decimals", op->text.utf8);
        top = top || strcmp(op->text.utf8, "250,000") == 0;
    }
    ck_assert_uint_ge(n, 3);
    ck_assert(top);
    fo_dl_free(dl);
    fx_free(&f);

    const double p[] = {0.012, 0.034, 0.027};
    fx_init(&f, FO_CHART_LINE, 3, 1, NULL, p, "0.00%");
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    n = 0;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_VALUE_LABEL) continue;
        char want[16];
        snprintf(want, sizeof want, "%zu%%", n); /* step 1%: no decimals */
        ck_assert_str_eq(op->text.utf8, want);
        n++;
    }
    ck_assert_uint_ge(n, 3);
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

/* A scatter's x axis covers its x values, not 1..n as well: x far from the
 * row numbers (dates, years) used to be squeezed against an axis from 0. */
START_TEST(scatter_x_axis_covers_the_data)
{
    const double y[] = {3, 5, 4};
    fx_chart f;
    fx_init(&f, FO_CHART_SCATTER, 3, 1, NULL, y, NULL);
    f.ds.cols[0].type = FO_TYPE_NUMBER;
    f.ds.cols[0].format = fo_arena_strdup(f.arena, "General");
    for (size_t i = 0; i < 3; i++) {
        fo_value *x = &f.ds.cells[i * f.ds.ncols];
        x->kind = FO_VAL_NUMBER;
        x->num = 2000 + 10.0 * (double)i;
    }
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    size_t n = 0;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_CATEGORY_LABEL) continue;
        double v = strtod(op->text.utf8, NULL);
        ck_assert_msg(v >= 1990 && v <= 2030, "x tick %s outside the data", op->text.utf8);
        n++;
    }
    ck_assert_uint_ge(n, 2);
    fo_dl_free(dl);
    fx_free(&f);

    /* dates a few days apart: ticks on whole days, each date printed once */
    fo_axis_scale s = fo_chart_whole_days(fo_chart_nice_scale(45292, 45296, 8, false), "yyyy-mm-dd");
    ck_assert_double_eq(s.step, 1);
    ck_assert_double_eq(s.min, 45292);
    ck_assert_int_eq(s.nticks, 5);
    s = fo_chart_whole_days(fo_chart_nice_scale(0.1, 0.9, 8, false), "0.0");
    ck_assert_double_lt(s.step, 1);                      /* numbers keep their step */
}
END_TEST

/* ---- a small column chart, exactly -------------------------------------------- */
START_TEST(column_geometry)
{
    const double v[] = {20, 40, 60, 80};
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 4, 1, NULL, v, "General");
    fo_dl *dl = NULL;
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, &d), FO_OK);
    ck_assert_double_eq(fo_dl_width(dl), 800);
    ck_assert_double_eq(fo_dl_height(dl), 500);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_BAR, FO_DL_FILL), 4);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_CATEGORY_LABEL, FO_DL_TEXT), 4);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_LEGEND_TEXT, -1), 0); /* one series: no legend */
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_TITLE, -1), 0);
    /* value labels 0, 20, ..., 80 (or 100) evenly spaced, one grid line each */
    size_t nlab = fx_count(dl, FO_ROLE_VALUE_LABEL, FO_DL_TEXT);
    ck_assert_uint_eq(nlab, fx_count(dl, FO_ROLE_GRID, FO_DL_STROKE));
    ck_assert(nlab >= 5 && nlab <= 6);
    double ys[12];
    size_t k = 0;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_VALUE_LABEL) continue;
        char want[16];
        snprintf(want, sizeof want, "%zu", k * 20);
        ck_assert_str_eq(op->text.utf8, want);
        ys[k++] = op->text.y;
    }
    for (size_t i = 2; i < k; i++) ck_assert_double_eq_tol((ys[i - 1] - ys[i]), (ys[0] - ys[1]), 1.01);
    /* bars: equal widths, heights proportional to the values, one baseline */
    double base = -1, h20 = 0;
    for (size_t i = 0, b = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_BAR) continue;
        ck_assert(op->rect);
        ck_assert_uint_eq(op->point, b);
        ck_assert_uint_eq(op->series, 0);
        if (base < 0) { base = op->y1; h20 = op->y1 - op->y0; }
        ck_assert_double_eq_tol(op->y1, base, 1e-9);
        ck_assert_double_eq_tol((op->y1 - op->y0), (h20 * v[b] / 20), 1e-6);
        ck_assert_uint_eq(op->color, f.theme.palette[0]);
        b++;
    }
    /* 20 units of value are one label step: bar of 20 is as tall as a step */
    ck_assert_double_eq_tol(h20, (ys[0] - ys[1]), 1.0); /* grid lines are snapped to pixel centers */
    fo_dl_free(dl);
    fo_diags_free(&d);
    fx_free(&f);
}
END_TEST

START_TEST(grouped_and_stacked)
{
    const double v[] = {10, 20, 30, 40, -5, 15};
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 2, 3, NULL, v, "#,##0");
    f.chart.title = fo_arena_strdup(f.arena, "Grouped");
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_BAR, -1), 6);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_LEGEND_TEXT, -1), 3);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_TITLE, -1), 1);
    fo_dl_free(dl);
    f.chart.stacked = true;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    /* stacked: bars of one category share x; positives stack upwards */
    const fo_dl_op *b[6];
    for (size_t i = 0, k = 0; i < fo_dl_count(dl); i++)
        if (fo_dl_op_at(dl, i)->role == FO_ROLE_BAR) b[k++] = fo_dl_op_at(dl, i);
    ck_assert_double_eq(b[0]->x0, b[1]->x0);
    ck_assert_double_eq_tol(b[1]->y1, b[0]->y0, 1e-9);
    ck_assert_double_eq_tol(b[2]->y1, b[1]->y0, 1e-9);
    /* second category: 40 up, -5 below the baseline, 15 on top of 40 */
    ck_assert_double_eq_tol(b[4]->y0, b[3]->y1, 1e-9);
    ck_assert_double_eq_tol(b[5]->y1, b[3]->y0, 1e-9);
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

/* ---- odd data ------------------------------------------------------------------ */
static void assert_sane(const fo_dl *dl)
{
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        ck_assert_msg(isfinite(op->x0) && isfinite(op->x1) && isfinite(op->y0) && isfinite(op->y1),
                      "op %zu (role %d) has a non-finite box", i, op->role);
        for (size_t k = 0; k < 2 * op->path.npts; k++) ck_assert(isfinite(op->path.pts[k]));
        if (op->kind == FO_DL_TEXT) ck_assert(isfinite(op->text.x) && isfinite(op->text.y));
        ck_assert(op->x0 >= -1 && op->x1 <= fo_dl_width(dl) + 1);
        ck_assert_msg(op->y0 >= -1 && op->y1 <= fo_dl_height(dl) + 1, "op %zu role %d y %g..%g",
                      i, op->role, op->y0, op->y1);
    }
}

START_TEST(odd_data_every_kind)
{
    const double nulls[] = {NAN, 5, NAN, -3, 7, NAN};
    const double one[] = {42};
    const double neg[] = {-10, -20, -5};
    for (int kind = 0; kind < FO_CHART_NKINDS; kind++) {
        fx_chart f;
        fo_dl *dl = NULL;
        /* empty: "No data" */
        fx_init(&f, (fo_chart_kind)kind, 0, 2, NULL, NULL, NULL);
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        ck_assert_uint_eq(fx_count(dl, FO_ROLE_NOTE, FO_DL_TEXT), 1);
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
        /* nulls, one point, all negative */
        fx_init(&f, (fo_chart_kind)kind, 3, 2, NULL, nulls, NULL);
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        assert_sane(dl);
        fo_dl_free(dl);
        f.chart.stacked = true;
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
        fx_init(&f, (fo_chart_kind)kind, 1, 1, NULL, one, NULL);
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        assert_sane(dl);
        ck_assert(fo_dl_count(dl) > 2);
        fo_dl_free(dl);
        fx_free(&f);
        fx_init(&f, (fo_chart_kind)kind, 3, 1, NULL, neg, NULL);
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
    }
}
END_TEST

/* Every row of the kinds table is whole and agrees with itself: the writers
 * read these traits instead of testing kinds, so a new row that leaves one
 * out, or contradicts its family, fails here rather than in a format. */
START_TEST(kind_rows_are_whole)
{
    const char *names[FO_CHART_NKINDS + 1];
    fo_chart_kind_names(names);
    ck_assert_ptr_null(names[FO_CHART_NKINDS]);
    for (int k = 0; k < FO_CHART_NKINDS; k++) {
        const fo_chart_traits *t = fo_chart_traits_of((fo_chart_kind)k);
        ck_assert_ptr_eq(t, &fo_chart_kinds[k]);
        ck_assert(t->name && t->name[0]);
        ck_assert_str_eq(fo_chart_kind_name((fo_chart_kind)k), t->name);
        ck_assert_str_eq(names[k], t->name);
        for (int j = 0; j < k; j++) ck_assert_str_ne(fo_chart_kinds[j].name, t->name);
        /* a DrawingML chart group: c:barChart needs its c:barDir, the
           category charts their c:grouping, the others have neither */
        ck_assert(t->ooxml && strncmp(t->ooxml, "c:", 2) == 0 && strstr(t->ooxml, "Chart"));
        ck_assert_int_eq(t->bar_dir != NULL, strcmp(t->ooxml, "c:barChart") == 0);
        ck_assert_int_eq(t->bar_dir != NULL, t->mark == FO_MARK_BAR);
        ck_assert_int_eq(t->grouping != NULL, t->family == FO_CHART_CATEGORY);
        ck_assert_int_eq(t->family == FO_CHART_ROUND, t->mark == FO_MARK_SLICE);
        ck_assert_int_eq(t->log_axis, t->family != FO_CHART_ROUND);
        if (t->stacks || t->rtl_mirror || t->sideways) ck_assert_int_eq(t->family, FO_CHART_CATEGORY);
        if (t->sideways) ck_assert(t->mark == FO_MARK_BAR && !t->rtl_mirror);
        if (t->hole || t->all_series) ck_assert_int_eq(t->family, FO_CHART_ROUND);
        ck_assert(t->hole >= 0 && t->hole < 100);
    }
    ck_assert_str_eq(fo_chart_kind_name(FO_CHART_NKINDS), "?");
    ck_assert_ptr_nonnull(fo_chart_traits_of(FO_CHART_NKINDS));
}
END_TEST

START_TEST(one_point_line_has_marker)
{
    const double one[] = {42};
    fx_chart f;
    fx_init(&f, FO_CHART_LINE, 1, 1, NULL, one, NULL);
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_MARKER, FO_DL_FILL), 1);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_LINE, -1), 0);
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

/* Category labels that are drawn never overlap each other. */
static void assert_labels_apart(const fo_dl *dl)
{
    const fo_dl_op *prev = NULL;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role != FO_ROLE_CATEGORY_LABEL) continue;
        if (prev) {
            if (op->text.rotation == 0)
                ck_assert_msg(op->x0 >= prev->x1, "labels %s and %s overlap", prev->text.utf8, op->text.utf8);
            else /* parallel 45-degree labels: perpendicular distance at least the font size */
                ck_assert((op->text.x - prev->text.x) * 0.7071 >= op->text.size);
        }
        prev = op;
    }
}

START_TEST(thousand_categories)
{
    size_t n = 1000;
    double *v = malloc(n * 3 * sizeof *v);
    for (size_t i = 0; i < n * 3; i++) v[i] = (double)(i % 97) - 20;
    for (int kind = FO_CHART_BAR; kind <= FO_CHART_AREA; kind++) {
        fx_chart f;
        fx_init(&f, (fo_chart_kind)kind, n, 3, NULL, v, NULL);
        fo_dl *dl = NULL;
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        size_t labels = fx_count(dl, FO_ROLE_CATEGORY_LABEL, FO_DL_TEXT);
        ck_assert_msg(labels >= 5 && labels <= 60, "kind %d: %zu labels", kind, labels);
        if (kind != FO_CHART_BAR) assert_labels_apart(dl);
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
    }
    free(v);
}
END_TEST

START_TEST(long_labels_rotate)
{
    const char *cats[] = {"North-western region", "South-eastern region", "Central highlands",
                          "Coastal lowlands", "Metropolitan area", "Islands and overseas",
                          "Northern territories", "Southern peninsula", "Eastern plains",
                          "Western mountains", "Capital district", "Rural remainder"};
    double v[12];
    for (int i = 0; i < 12; i++) v[i] = i * 3 + 1;
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 12, 1, cats, v, NULL);
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    size_t rotated = 0;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role == FO_ROLE_CATEGORY_LABEL) rotated += op->text.rotation == -45;
    }
    ck_assert_uint_eq(rotated, 12);
    assert_labels_apart(dl);
    assert_sane(dl);
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

/* A survey's five long questions wrap under their columns (or beside their
 * bars) whole, never cut with "…": each stays distinguishable. */
START_TEST(long_labels_wrap_before_cutting)
{
    const char *cats[] = {"I understand how my work contributes to the company's goals",
                          "I understand how my work contributes to the team's quarterly plan",
                          "My manager gives me regular and useful feedback on my work",
                          "My manager gives me regular and useful feedback on my career",
                          "I would recommend this company as a place to work to a friend"};
    double v[5] = {4.1, 3.8, 3.5, 3.2, 3.9};
    fo_chart_kind kinds[] = {FO_CHART_COLUMN, FO_CHART_BAR, FO_CHART_LINE};
    for (size_t k = 0; k < 3; k++) {
        fx_chart f;
        fx_init(&f, kinds[k], 5, 1, cats, v, NULL);
        fo_dl *dl = NULL;
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        char got[5][256] = {{0}};
        for (size_t i = 0; i < fo_dl_count(dl); i++) {
            const fo_dl_op *op = fo_dl_op_at(dl, i);
            if (op->role != FO_ROLE_CATEGORY_LABEL) continue;
            ck_assert_uint_lt(op->point, 5);
            ck_assert_int_eq(op->text.rotation, 0);
            char *g = got[op->point];
            if (*g) strcat(g, " ");
            strcat(g, op->text.utf8);
        }
        for (size_t i = 0; i < 5; i++) ck_assert_str_eq(got[i], cats[i]);
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
    }
}
END_TEST

/* ---- pie ---------------------------------------------------------------------------- */
/* Each label rounded on its own, as Office's "0%" labels are: 1/21 is
 * 4.76% -> 5%, 3/21 14.29% -> 14%; the seven add up to 101, as in Excel. */
START_TEST(pie_percentages_round_as_office)
{
    const double v[] = {1, 1, 1, 2, 3, 5, 8};
    const int want[] = {5, 5, 5, 10, 14, 24, 38};
    for (int kind = FO_CHART_PIE; kind <= FO_CHART_DOUGHNUT; kind++) {
        fx_chart f;
        fx_init(&f, (fo_chart_kind)kind, 7, 1, NULL, v, NULL);
        fo_dl *dl = NULL;
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        int sum = 0;
        size_t labels = 0;
        for (size_t i = 0; i < fo_dl_count(dl); i++) {
            const fo_dl_op *op = fo_dl_op_at(dl, i);
            if (op->role != FO_ROLE_SLICE_LABEL) continue;
            ck_assert_int_eq(atoi(op->text.utf8), want[op->point]);
            sum += atoi(op->text.utf8);
            ck_assert(strchr(op->text.utf8, '%'));
            labels++;
        }
        ck_assert_uint_eq(labels, 7);
        ck_assert_int_eq(sum, 101);
        ck_assert_uint_eq(fx_count(dl, FO_ROLE_SLICE, FO_DL_FILL), 7);
        ck_assert_uint_eq(fx_count(dl, FO_ROLE_LEGEND_TEXT, -1), 7); /* legend of categories */
        assert_sane(dl);
        fo_dl_free(dl);
        fx_free(&f);
    }
}
END_TEST

/* The gaps between slices: one stroke of every radius between two slices
 * (not each slice's outline, arcs and all: issue 39), the slices' rims
 * pulled in by half the gap, as that outline in the background colour left
 * them. */
START_TEST(pie_gaps_one_stroke_of_radii)
{
    const double v[] = {1, 1, 1, 2, 3, 5, 8};
    for (int kind = FO_CHART_PIE; kind <= FO_CHART_DOUGHNUT; kind++) {
        fx_chart f;
        fx_init(&f, (fo_chart_kind)kind, 7, 1, NULL, v, NULL);
        fo_dl *dl = NULL;
        ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
        ck_assert_uint_eq(fx_count(dl, FO_ROLE_SLICE, FO_DL_STROKE), 1);
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        const fo_dl_op *gaps = NULL;
        for (size_t i = 0; i < fo_dl_count(dl); i++) {
            const fo_dl_op *op = fo_dl_op_at(dl, i);
            if (op->role != FO_ROLE_SLICE) continue;
            if (op->kind == FO_DL_STROKE) {
                ck_assert_ptr_null(gaps); /* after every fill */
                gaps = op;
                continue;
            }
            ck_assert_ptr_null(gaps);
            x0 = fmin(x0, op->x0);
            y0 = fmin(y0, op->y0);
            x1 = fmax(x1, op->x1);
            y1 = fmax(y1, op->y1);
        }
        ck_assert_ptr_nonnull(gaps);
        ck_assert_int_eq(gaps->color, f.theme.background);
        double mx = (x0 + x1) / 2, my = (y0 + y1) / 2, filled = (x1 - x0) / 2;
        ck_assert_uint_eq(gaps->path.ncmds, 14); /* a radius before each of the 7 slices */
        for (size_t k = 0; k < 7; k++) {
            const double *p = gaps->path.pts + 4 * k;
            ck_assert_int_eq(gaps->path.cmds[2 * k], FO_PATH_MOVE);
            ck_assert_int_eq(gaps->path.cmds[2 * k + 1], FO_PATH_LINE);
            double rim = hypot(p[2] - mx, p[3] - my), from = hypot(p[0] - mx, p[1] - my);
            /* radial: the start within half a pixel of the ray from the centre
               (found from the fills' boxes, to a few tenths of a pixel) to the end */
            ck_assert_double_eq_tol(((p[0] - mx) * (p[3] - my) - (p[1] - my) * (p[2] - mx)) / rim, 0, 0.5);
            ck_assert_double_eq_tol(rim - filled, gaps->line_width / 2, 0.3);
            if (kind == FO_CHART_PIE) ck_assert_double_eq_tol(from, 0, 0.5);
            else ck_assert(from > rim / 3 && from < rim);
        }
        fo_dl_free(dl);
        fx_free(&f);
    }
}
END_TEST

/* A curve's box is the curve's own, to its turning points: an arc from -30
 * to 60 degrees (one Bezier) reaches its largest x between two of the
 * sixteen samples the box was once taken from (0.09 px short at r = 100). */
START_TEST(curve_box_reaches_its_turns)
{
    fo_dl *dl = fo_dl_new(400, 400, 0xFFFFFF);
    ck_assert_ptr_nonnull(dl);
    fo_dl_path_arc(dl, 200, 200, 100, -M_PI / 6, M_PI / 3);
    fo_dl_path_fill(dl, FO_ROLE_SLICE, 0, 0, 0, 1);
    const fo_dl_op *op = fo_dl_op_at(dl, 0);
    ck_assert_ptr_nonnull(op);
    const double *q = op->path.pts; /* start, two controls, end */
    ck_assert_uint_eq(op->path.npts, 4);
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i <= 100000; i++) {
        double t = i / 100000.0, u = 1 - t;
        double b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
        double x = b0 * q[0] + b1 * q[2] + b2 * q[4] + b3 * q[6],
               y = b0 * q[1] + b1 * q[3] + b2 * q[5] + b3 * q[7];
        x0 = fmin(x0, x), y0 = fmin(y0, y), x1 = fmax(x1, x), y1 = fmax(y1, y);
    }
    ck_assert_double_eq_tol(op->x1, x1, 1e-6);
    ck_assert_double_eq_tol(op->x0, x0, 1e-6);
    ck_assert_double_eq_tol(op->y0, y0, 1e-6);
    ck_assert_double_eq_tol(op->y1, y1, 1e-6);
    ck_assert(op->x1 > 299.9); /* about the radius right of the centre */
    fo_dl_free(dl);
}
END_TEST

START_TEST(pie_skips_nonpositive)
{
    const double v[] = {0, -4, NAN, 10};
    fx_chart f;
    fx_init(&f, FO_CHART_PIE, 4, 1, NULL, v, NULL);
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    ck_assert_uint_eq(fx_count(dl, FO_ROLE_SLICE, FO_DL_FILL), 1);
    for (size_t i = 0; i < fo_dl_count(dl); i++)
        if (fo_dl_op_at(dl, i)->role == FO_ROLE_SLICE_LABEL)
            ck_assert_str_eq(fo_dl_op_at(dl, i)->text.utf8, "100%");
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

/* ---- replay ------------------------------------------------------------------------------ */
typedef struct { int begin, fill, rect, stroke, text, end; } counts;
static void c_begin(void *c, double w, double h, fo_rgb bg) { (void)w; (void)h; (void)bg; ((counts *)c)->begin++; }
static void c_fill(void *c, const fo_dl_path *p, fo_rgb col, double a) { (void)p; (void)col; (void)a; ((counts *)c)->fill++; }
static void c_rect(void *c, double x, double y, double w, double h, fo_rgb col, double a)
{ (void)x; (void)y; (void)w; (void)h; (void)col; (void)a; ((counts *)c)->rect++; }
static void c_text(void *c, const fo_dl_text *t) { (void)t; ((counts *)c)->text++; }

START_TEST(replay_fallbacks)
{
    const double v[] = {1, 2, 3};
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 3, 1, NULL, v, NULL);
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    counts a = {0}, b = {0};
    fo_dl_backend with_rect = {.begin = c_begin, .fill = c_fill, .fill_rect = c_rect, .text = c_text};
    fo_dl_backend no_rect = {.fill = c_fill}; /* fill_rect NULL -> fill; text NULL -> skipped */
    fo_dl_replay(dl, &with_rect, &a);
    fo_dl_replay(dl, &no_rect, &b);
    ck_assert_int_eq(a.begin, 1);
    ck_assert_int_eq(a.rect, 3);
    ck_assert_int_eq(b.fill, a.fill + a.rect);
    ck_assert_int_eq(b.text, 0);
    ck_assert_int_eq(a.text, (int)(fx_count(dl, FO_ROLE_VALUE_LABEL, -1) + 3));
    fo_dl_free(dl);
    fx_free(&f);
}
END_TEST

START_TEST(layout_out_of_memory)
{
    const double v[] = {1, 2, 3, 4, 5, 6};
    fx_chart f;
    fx_init(&f, FO_CHART_LINE, 3, 2, NULL, v, NULL);
    f.chart.title = fo_arena_strdup(f.arena, "OOM");
    for (unsigned long k = 1; k < 400; k++) {
        fo_dl *dl = (fo_dl *)1;
        fo_alloc_fail_after(k);
        fo_status st = fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL);
        fo_alloc_fail_after(0);
        if (st == FO_OK) { fo_dl_free(dl); break; }
        ck_assert_int_eq(st, FO_ERR_NOMEM);
        ck_assert_ptr_null(dl);
    }
    fx_free(&f);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        scale_ranges,
        scale_steps_are_1_2_5,
        log_scale_is_a_decade_a_tick,
        tick_formats,
        value_labels_follow_tick_format,
        scatter_x_axis_covers_the_data,
        column_geometry,
        grouped_and_stacked,
        odd_data_every_kind,
        kind_rows_are_whole,
        one_point_line_has_marker,
        thousand_categories,
        long_labels_rotate,
        long_labels_wrap_before_cutting,
        pie_percentages_round_as_office,
        pie_skips_nonpositive,
        pie_gaps_one_stroke_of_radii,
        curve_box_reaches_its_turns,
        replay_fallbacks,
        layout_out_of_memory,
        NULL,
    };
    return fo_check_tests("chart", 0, tests);
}
