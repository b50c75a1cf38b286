/* data.c — reading a chart's series from its dataset (through fo_rows), nice
 * axis scales (1-2-5 steps), and value formatting through numfmt.
 *
 * Missing values (null cells, text cells, non-finite numbers) become NaN and
 * are gaps in the chart, never zeros. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/layout.h"
#include "base/buf.h"

/* ---- nice scale ------------------------------------------------------------- */

/* k * m * 10^e computed so that decimal ticks come out as the nearest double
 * (3 * 0.1 gives 0.30000000000000004; 3 / 10 gives 0.3). */
static double tick_value(long k, double m, int e)
{
    return e >= 0 ? (double)k * m * pow(10, e) : (double)k * m / pow(10, -e);
}

fo_axis_scale fo_chart_nice_scale(double lo, double hi, int target, bool zero_based)
{
    fo_axis_scale s;
    if (!isfinite(lo) || !isfinite(hi)) { lo = 0; hi = 1; }
    if (lo > hi) { double tmp = lo; lo = hi; hi = tmp; }
    if (zero_based) {
        if (lo > 0) lo = 0;
        if (hi < 0) hi = 0;
    }
    if (target < 2) target = 2;
    if (hi - lo <= fabs(hi) * 1e-12) { /* one value, or all equal */
        if (hi == 0) { hi = 1; }
        else {
            double mag = pow(10, floor(log10(fabs(hi))));
            if (zero_based) { if (hi > 0) lo = 0; else hi = 0; }
            else { lo -= mag; hi += mag; }
            if (lo == hi) hi = lo + mag;
        }
    }
    double raw = (hi - lo) / (target - 1);
    int e = (int)floor(log10(raw));
    double norm = raw / pow(10, e);
    double m = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
    if (m == 10) { m = 1; e++; }
    double step = tick_value(1, m, e);
    long kmin = (long)floor(lo / step + 1e-9);
    long kmax = (long)ceil(hi / step - 1e-9);
    if (kmax <= kmin) kmax = kmin + 1;
    s.min = tick_value(kmin, m, e);
    s.max = tick_value(kmax, m, e);
    s.step = step;
    s.nticks = (int)(kmax - kmin + 1);
    s.log = false;
    return s;
}

fo_axis_scale fo_chart_time_scale(double lo, double hi, int target)
{
    static const double minutes[] = {1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440};
    if (target < 2) target = 2;
    if (!(hi > lo)) hi = lo + 1.0 / 24;
    double step = 1;
    for (size_t i = 0; i < sizeof minutes / sizeof *minutes; i++) {
        step = minutes[i] / 1440;
        if ((hi - lo) / step <= target - 1) break;
    }
    fo_axis_scale s;
    double k0 = floor(lo / step + 1e-9), k1 = ceil(hi / step - 1e-9);
    if (k1 <= k0) k1 = k0 + 1;
    s.min = k0 * step;
    s.max = k1 * step;
    s.step = step;
    s.nticks = (int)(k1 - k0) + 1;
    s.log = false;
    return s;
}

fo_axis_scale fo_chart_log_scale(double lo, double hi)
{
    fo_axis_scale s;
    if (!(lo > 0) || !isfinite(lo)) lo = 1;
    if (!(hi >= lo) || !isfinite(hi)) hi = lo;
    /* a value on a power of ten is never on the axis' edge: a bar of it shows */
    int e0 = (int)ceil(log10(lo) - 1e-9) - 1, e1 = (int)floor(log10(hi) + 1e-9) + 1;
    if (e1 <= e0) e1 = e0 + 1;
    s.min = tick_value(1, 1, e0);
    s.max = tick_value(1, 1, e1);
    s.step = s.min;
    s.nticks = e1 - e0 + 1;
    s.log = true;
    return s;
}

double fo_chart_tick_value(const fo_axis_scale *s, int i)
{
    if (!s->log) return s->min + i * s->step;
    int e0 = (int)floor(log10(s->min) + 0.5);
    return tick_value(1, 1, e0 + i);
}

double fo_chart_scale_map(const fo_axis_scale *s, double v, double a, double b)
{
    if (!s->log) return a + (v - s->min) / (s->max - s->min) * (b - a);
    if (!(v > 0)) return a;
    return a + (log10(v) - log10(s->min)) / (log10(s->max) - log10(s->min)) * (b - a);
}

/* ---- formatting ----------------------------------------------------------------- */
void fo_chart_format(const fo_numfmt *f, double v, char *buf, size_t cap)
{
    if (v == 0) v = 0; /* turns -0 into 0 */
    if (f) {
        fo_numfmt_format(f, v, buf, cap);
        return;
    }
    snprintf(buf, cap, "%.10g", v);
}

/* ---- tick labels ------------------------------------------------------------------ */

/* Decimals a tick step needs (0.25 -> 2, 0.5 -> 1, 50 -> 0), at most 10. */
static int step_decimals(double step)
{
    step = fabs(step);
    if (!(step > 0) || !isfinite(step)) return 0;
    for (int d = 0; d < 10; d++) {
        double r = step * pow(10, d);
        if (fabs(r - nearbyint(r)) <= 1e-6 * r) return d;
    }
    return 10;
}

/* Bounded appender: counts everything, writes what fits (like snprintf). */
typedef struct {
    char *out;
    size_t cap, n;
} sink;

static void put(sink *k, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++, k->n++)
        if (k->n + 1 < k->cap) k->out[k->n] = s[i];
}

/* "#,##0.00" or "0" etc.: the number body with dec decimals. */
static void put_body(sink *k, bool thousands, int dec)
{
    put(k, thousands ? "#,##0" : "0", thousands ? 5 : 1);
    if (dec > 0) put(k, ".", 1);
    for (int i = 0; i < dec; i++) put(k, "0", 1);
}

/* Length of the literal element at code[i] that the scan must copy whole:
 * a quoted string, an escaped or padding character, a [bracket]; else 1. */
static size_t literal_len(const char *code, size_t i)
{
    char c = code[i];
    size_t j = i + 1;
    if (c == '"') {
        while (code[j] && code[j] != '"') j++;
        return code[j] ? j + 1 - i : j - i;
    }
    if (c == '[') {
        while (code[j] && code[j] != ']') j++;
        return code[j] ? j + 1 - i : j - i;
    }
    if ((c == '\\' || c == '_' || c == '*') && code[j]) return 2;
    return 1;
}

static bool is_placeholder(char c) { return c == '0' || c == '#' || c == '?'; }

size_t fo_chart_tick_format(const char *code, const fo_axis_scale *s, char *out, size_t cap)
{
    sink k = {out, cap, 0};
    double step = s->step, mag = fmax(fabs(s->min), fabs(s->max));
    fo_numfmt *f = code && *code && strcmp(code, "@") != 0 ? fo_numfmt_compile(code, NULL, 0) : NULL;
    bool plain = !f || fo_numfmt_is_general(f), date = f && fo_numfmt_is_date(f);
    fo_numfmt_free(f);
    if (plain) {
        put_body(&k, mag >= 10000, step_decimals(step));
    } else if (date) {
        put(&k, code, strlen(code));
    } else {
        size_t i = 0;
        while (code[i]) { /* one section a turn */
            size_t end = i, pct = 0;
            bool keep = false; /* scientific or fraction: shown as the column says */
            while (code[end] && code[end] != ';') {
                char c = code[end];
                if (c == '%') pct++;
                if (c == '/' || ((c == 'E' || c == 'e') && (code[end + 1] == '+' || code[end + 1] == '-')))
                    keep = true;
                end += literal_len(code, end);
            }
            bool done = keep;
            while (i < end) {
                if (done || !is_placeholder(code[i])) {
                    size_t n = literal_len(code, i);
                    put(&k, code + i, n);
                    i += n;
                    continue;
                }
                /* the number run: placeholders, '.' and ','; trailing commas scale by 1000 */
                size_t j = i, trail = 0;
                bool thousands = false;
                while (j < end && (is_placeholder(code[j]) || code[j] == '.' || code[j] == ',')) {
                    if (code[j] == ',') trail++;
                    else if (is_placeholder(code[j])) { thousands = thousands || trail > 0; trail = 0; }
                    else trail = 0;
                    j++;
                }
                double scale = pow(100, (double)pct) / pow(1000, (double)trail);
                put_body(&k, thousands || mag * scale >= 10000, step_decimals(step * scale));
                for (size_t t = 0; t < trail; t++) put(&k, ",", 1);
                i = j;
                done = true;
            }
            if (code[i] == ';') {
                put(&k, ";", 1);
                i++;
            }
        }
    }
    if (cap) out[k.n < cap ? k.n : cap - 1] = '\0';
    return k.n;
}

fo_numfmt *fo_chart_tick_numfmt(const char *code, const fo_axis_scale *s)
{
    char buf[256];
    if (fo_chart_tick_format(code, s, buf, sizeof buf) >= sizeof buf) return NULL;
    return fo_numfmt_compile(buf, NULL, 0);
}

void fo_chart_tick_label(const fo_numfmt *f, const fo_axis_scale *s, int i, char *buf, size_t cap)
{
    double v = fo_chart_tick_value(s, i);
    if (!s->log && fabs(v) < fabs(s->step) * 1e-9) v = 0; /* -0.3 + 3 * 0.1 is 0, not -5e-17 */
    fo_chart_format(f, v, buf, cap);
}

fo_rgb fo_chart_color(const fo_chart_ctx *cx, size_t i)
{
    static const fo_rgb fallback[] = {0x2F5597, 0xED7D31, 0x70AD47, 0xFFC000, 0x5B9BD5, 0xA5A5A5};
    fo_rgb pal = cx->t->npalette == 0 ? fallback[i % 6] : cx->t->palette[i % cx->t->npalette];
    bool round = fo_chart_traits_of(cx->c->kind)->family == FO_CHART_ROUND; /* i is a slice */
    return round ? pal : fo_chart_series_color(&cx->data, i, pal);
}

/* ---- reading the rows ------------------------------------------------------------ */

const char *fo_chart_value_label(const fo_numfmt *f, const fo_value *v, char *buf, size_t cap)
{
    switch (v->kind) {
    case FO_VAL_NULL: return "";
    case FO_VAL_TEXT: return v->str ? v->str : "";
    case FO_VAL_URL: return v->label ? v->label : v->str ? v->str : "";
    case FO_VAL_BOOL: return v->num != 0 ? "TRUE" : "FALSE";
    case FO_VAL_FORMULA:
        if (!v->has_num) return v->label ? v->label : "";
        /* fall through */
    case FO_VAL_NUMBER: case FO_VAL_DATE:
    default:
        fo_chart_format(f, v->num, buf, cap);
        return buf;
    }
}

/* Grows the row-major buffers of s (x, cat, y[i][s]) to hold need points. */
static bool grow_points(fo_chart_series *s, double **ybuf, size_t *cap, size_t need)
{
    size_t ns = s->ns ? s->ns : 1;
    return fo_grow_all(cap, need, 64, 3, (void **const[]){(void **)&s->x, (void **)&s->cat, (void **)ybuf},
                       (size_t[]){sizeof *s->x, sizeof *s->cat, ns * sizeof **ybuf});
}

/* The y columns of c that exist in its dataset: s->ns, s->names, s->cols. */
static fo_status series_columns(const fo_chart *c, fo_chart_series *s)
{
    const fo_dataset *ds = c->data;
    for (size_t k = 0; ds && k < c->ny; k++)
        if (c->y[k] < ds->ncols) s->ns++;
    s->names = fo_arena_alloc(s->arena, (s->ns + 1) * sizeof *s->names);
    s->cols = fo_arena_alloc(s->arena, (s->ns + 1) * sizeof *s->cols);
    s->fmts = fo_arena_alloc(s->arena, (s->ns + 1) * sizeof *s->fmts);
    s->colors = fo_arena_alloc(s->arena, (s->ns + 1) * sizeof *s->colors);
    if (!s->names || !s->cols || !s->fmts || !s->colors) return FO_ERR_NOMEM;
    for (size_t k = 0, j = 0; ds && k < c->ny; k++)
        if (c->y[k] < ds->ncols) {
            s->cols[j] = c->y[k];
            s->fmts[j] = fo_chart_column_format(ds, c->y[k]);
            s->colors[j] = c->y_colors ? c->y_colors[k] : -1;
            const char *title = c->y_titles ? c->y_titles[k] : NULL;
            s->names[j++] = title ? title : ds->cols[c->y[k]].name ? ds->cols[c->y[k]].name : "";
        }
    s->xname = ds && c->x < ds->ncols && ds->cols[c->x].name ? ds->cols[c->x].name : "";
    return FO_OK;
}

/* Reads one row into point n of the row-major buffers. */
static fo_status read_point(const fo_chart *c, const fo_numfmt *xfmt, fo_chart_series *s,
                            double *ybuf, size_t n, const fo_value *row, fo_rows *rows)
{
    char buf[256];
    const fo_value *xv = c->x < c->data->ncols ? &row[c->x] : NULL;
    const char *lab = buf;
    if (xv) {
        s->x[n] = fo_value_number(xv);
        lab = fo_chart_value_label(xfmt, xv, buf, sizeof buf);
    } else {
        s->x[n] = (double)(n + 1);
        snprintf(buf, sizeof buf, "%zu", n + 1);
    }
    s->cat[n] = fo_arena_strdup(s->arena, lab);
    if (!s->cat[n]) return FO_ERR_NOMEM;
    for (size_t k = 0; k < s->ns; k++) {
        ybuf[n * s->ns + k] = fo_value_number(&row[s->cols[k]]);
        if (!s->bad_line && fabs(ybuf[n * s->ns + k]) > FO_CHART_VALUE_MAX) s->bad_line = fo_rows_line(rows);
        if (!s->log_line && c->y_log && ybuf[n * s->ns + k] <= 0) s->log_line = fo_rows_line(rows);
    }
    if (!s->bad_line && fo_chart_traits_of(c->kind)->family == FO_CHART_XY && fabs(s->x[n]) > FO_CHART_VALUE_MAX)
        s->bad_line = fo_rows_line(rows);
    return FO_OK;
}

/* Row-major ybuf [i][s] into series-major s->y [s][i]. */
static fo_status transpose(fo_chart_series *s, const double *ybuf, size_t n)
{
    s->y = fo_malloc((n > 0 && s->ns > 0 ? n * s->ns : 1) * sizeof *s->y);
    if (!s->y) return FO_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < s->ns; k++) s->y[k * n + i] = ybuf[i * s->ns + k];
    s->n = n;
    return FO_OK;
}

const char *fo_chart_column_format(const fo_dataset *ds, size_t col)
{
    if (!ds || col >= ds->ncols || !ds->cols[col].format || !*ds->cols[col].format) return "General";
    return ds->cols[col].format;
}

/* x values that are dates with times all on one day read as times: their
 * labels (and a scatter chart's ticks, s->xfmt) "hh:mm", or "hh:mm:ss" when
 * one has seconds, rather than the column's full stamp repeating the day. */
static fo_status shorten_times(fo_chart_series *s)
{
    if (s->n < 2 || !strpbrk(s->xfmt, "hH")) return FO_OK;
    fo_numfmt *f = fo_numfmt_compile(s->xfmt, NULL, 0);
    bool date = f && fo_numfmt_is_date(f);
    fo_numfmt_free(f);
    if (!date) return FO_OK;
    double day = NAN;
    bool seconds = false;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->x[i];
        if (!isfinite(v) || v < 0) return FO_OK;
        if (isnan(day)) day = floor(v);
        else if (floor(v) != day) return FO_OK;
        double sec = (v - floor(v)) * 86400;
        seconds |= fabs(sec - 60 * nearbyint(sec / 60)) > 0.5;
    }
    s->xfmt = seconds ? "hh:mm:ss" : "hh:mm";
    fo_numfmt *t = fo_numfmt_compile(s->xfmt, NULL, 0);
    if (!t) return FO_ERR_NOMEM;
    char buf[64];
    for (size_t i = 0; i < s->n; i++) {
        fo_numfmt_format(t, s->x[i], buf, sizeof buf);
        if (!(s->cat[i] = fo_arena_strdup(s->arena, buf))) { fo_numfmt_free(t); return FO_ERR_NOMEM; }
    }
    fo_numfmt_free(t);
    return FO_OK;
}

fo_status fo_chart_series_read(const fo_chart *c, const fo_numfmt *xfmt, fo_chart_series *s,
                               fo_diags *d)
{
    memset(s, 0, sizeof *s);
    s->xfmt = fo_chart_column_format(c->data, c->x);
    s->yfmt = fo_chart_column_format(c->data, c->ny ? c->y[0] : (size_t)-1);
    s->arena = fo_arena_new();
    if (!s->arena) return FO_ERR_NOMEM;
    fo_status st = series_columns(c, s);
    if (st != FO_OK || !c->data) return st;
    fo_rows *rows = NULL;
    if ((st = fo_rows_open(c->data, &rows, d)) != FO_OK) return st;
    double *ybuf = NULL;
    size_t cap = 0, n = 0;
    const fo_value *row;
    int rc = 0;
    while (st == FO_OK && (rc = fo_rows_next(rows, &row, d)) == 1) {
        if (!grow_points(s, &ybuf, &cap, n + 1)) st = FO_ERR_NOMEM;
        else st = read_point(c, xfmt, s, ybuf, n++, row, rows);
    }
    if (st == FO_OK && rc < 0) st = FO_ERR_INPUT;
    if (st == FO_OK) st = transpose(s, ybuf, n);
    if (st == FO_OK) st = shorten_times(s);
    fo_free(ybuf);
    fo_rows_close(rows);
    return st;
}

fo_rgb fo_chart_series_color(const fo_chart_series *s, size_t i, fo_rgb palette_color)
{
    return s && s->colors && i < s->ns && s->colors[i] >= 0 ? (fo_rgb)s->colors[i] : palette_color;
}

/* The name of the dataset column of series s (the x column past the series). */
static const char *column_name(const fo_chart *c, const fo_chart_series *dt, size_t s)
{
    const fo_dataset *ds = c->data;
    size_t f = s < dt->ns ? dt->cols[s] : c->x;
    return ds && f < ds->ncols && ds->cols[f].name ? ds->cols[f].name : "x";
}

/* Reports value v of series s at point i: at its CSV line when the data are
 * a CSV's and line is known. */
static void report_point(const fo_chart *c, const fo_chart_series *dt, size_t s, size_t line,
                         fo_diags *d, const char *hint, const char *what, double v, size_t i)
{
    const fo_dataset *ds = c->data;
    size_t field = s < dt->ns ? dt->cols[s] : c->x;
    bool csv = ds->src == FO_SRC_CSV && line;
    fo_diags_add(d, csv ? (ds->csv_display ? ds->csv_display : ds->csv_path) : NULL,
                 csv ? (int)line : 0, csv ? (int)field + 1 : 0, NULL, hint,
                 "chart value %g (column \"%s\", row %zu) %s", v, column_name(c, dt, s), i + 1, what);
}

fo_status fo_chart_series_check_log(const fo_chart *c, const fo_chart_series *dt, fo_diags *d)
{
    if (!c->y_log) return FO_OK;
    for (size_t i = 0; i < dt->n; i++)
        for (size_t s = 0; s < dt->ns; s++) {
            double v = dt->y[s * dt->n + i];
            if (!(v <= 0)) continue;
            report_point(c, dt, s, dt->log_line, d,
                         "a log axis shows only positive values: leave the cell empty, or drop \"y_scale\": \"log\"",
                         "is not positive; \"y_scale\": \"log\" cannot show it", v, i);
            return FO_ERR_INPUT;
        }
    return FO_OK;
}

void fo_chart_series_free(fo_chart_series *s)
{
    if (!s) return;
    fo_free(s->x);
    fo_free(s->y);
    fo_free(s->cat);
    fo_arena_free(s->arena);
    memset(s, 0, sizeof *s);
}

/* FO_ERR_INPUT (reported) when a series value, or a scatter chart's x, is
 * beyond FO_CHART_VALUE_MAX (the first such point, in row order).
 * The CSV line is the series' bad_line (0: inline data, which the spec
 * reader refuses at the cell already). */
static fo_status check_magnitudes(const fo_chart_ctx *cx, fo_diags *d)
{
    const fo_chart_series *dt = &cx->data;
    bool xy = fo_chart_traits_of(cx->c->kind)->family == FO_CHART_XY;
    for (size_t i = 0; i < dt->n; i++)
        for (size_t s = 0; s <= dt->ns; s++) {
            double v = s < dt->ns ? dt->y[s * dt->n + i] : xy ? dt->x[i] : 0;
            if (!(fabs(v) > FO_CHART_VALUE_MAX)) continue; /* NaN (a gap) passes */
            report_point(cx->c, dt, s, dt->bad_line, d,
                         "scale the values (e.g. show millions) or show them in a table",
                         "is beyond +-1e15, the largest a chart draws", v, i);
            return FO_ERR_INPUT;
        }
    return FO_OK;
}

void fo_chart_series_reverse(fo_chart_series *dt)
{
    for (size_t a = 0, b = dt->n ? dt->n - 1 : 0; a < b; a++, b--) {
        char *c = dt->cat[a];
        dt->cat[a] = dt->cat[b];
        dt->cat[b] = c;
        double x = dt->x[a];
        dt->x[a] = dt->x[b];
        dt->x[b] = x;
        for (size_t s = 0; s < dt->ns; s++) {
            double y = dt->y[s * dt->n + a];
            dt->y[s * dt->n + a] = dt->y[s * dt->n + b];
            dt->y[s * dt->n + b] = y;
        }
    }
}

fo_status fo_chart_data_read(fo_chart_ctx *cx, fo_diags *d)
{
    fo_status st = fo_chart_series_read(cx->c, cx->xfmt, &cx->data, d);
    if (st == FO_OK && cx->xcode && strcmp(cx->data.xfmt, cx->xcode) != 0 &&
        strncmp(cx->data.xfmt, "hh:mm", 5) == 0)
        cx->xcode = cx->data.xfmt;   /* times of one day: ticks "hh:mm" too */
    if (st == FO_OK) st = check_magnitudes(cx, d);
    if (st == FO_OK) st = fo_chart_series_check_log(cx->c, &cx->data, d);
    if (st == FO_OK && cx->c->rtl && fo_chart_traits_of(cx->c->kind)->rtl_mirror)
        fo_chart_series_reverse(&cx->data); /* the first category drawn at the right */
    return st;
}
