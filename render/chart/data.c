/* data.c — reading a chart's series from its dataset (through fo_rows), nice
 * axis scales (1-2-5 steps), and value formatting through numfmt.
 *
 * Missing values (null cells, text cells, non-finite numbers) become NaN and
 * are gaps in the chart, never zeros. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/layout.h"

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
    return s;
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
    double v = s->min + i * s->step;
    if (fabs(v) < fabs(s->step) * 1e-9) v = 0; /* -0.3 + 3 * 0.1 is 0, not -5e-17 */
    fo_chart_format(f, v, buf, cap);
}

fo_rgb fo_chart_color(const fo_chart_ctx *cx, size_t i)
{
    static const fo_rgb fallback[] = {0x2F5597, 0xED7D31, 0x70AD47, 0xFFC000, 0x5B9BD5, 0xA5A5A5};
    if (cx->t->npalette == 0) return fallback[i % 6];
    return cx->t->palette[i % cx->t->npalette];
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
    default:
        fo_chart_format(f, v->num, buf, cap);
        return buf;
    }
}

typedef struct {
    double *x, *y;
    char **cat;
    size_t cap;
} grow_buf;

static bool grow(fo_chart_data *dt, grow_buf *g, size_t ns)
{
    size_t cap = g->cap ? g->cap * 2 : 64;
    double *x = fo_realloc(g->x, cap * sizeof *x);
    if (!x) return false;
    g->x = x;
    char **cat = fo_realloc(g->cat, cap * sizeof *cat);
    if (!cat) return false;
    g->cat = cat;
    double *y = fo_realloc(g->y, cap * (ns ? ns : 1) * sizeof *y);
    if (!y) return false;
    g->y = y;
    g->cap = cap;
    (void)dt;
    return true;
}

/* FO_ERR_INPUT (reported) when a series value, or a scatter chart's x, is
 * beyond FO_CHART_VALUE_MAX; n points of ns series, y row-major [i][s].
 * bad_line: the CSV line of the first such row (0: inline data, which the
 * spec reader refuses at the cell already). */
static fo_status check_magnitudes(const fo_chart_ctx *cx, const double *x, const double *y,
                                  size_t n, size_t ns, const size_t *cols, size_t bad_line,
                                  fo_diags *d)
{
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s <= ns; s++) {
            double v = s < ns ? y[i * ns + s] : cx->c->kind == FO_CHART_SCATTER ? x[i] : 0;
            if (!(fabs(v) > FO_CHART_VALUE_MAX)) continue; /* NaN (a gap) passes */
            const fo_dataset *ds = cx->c->data;
            const char *col = s < ns ? cx->data.names[s] : cx->c->x < ds->ncols ? ds->cols[cx->c->x].name : "x";
            size_t field = s < ns ? cols[s] : cx->c->x;
            bool csv = ds->src == FO_SRC_CSV && bad_line;
            fo_diags_add(d, csv ? (ds->csv_display ? ds->csv_display : ds->csv_path) : NULL,
                         csv ? (int)bad_line : 0, csv ? (int)field + 1 : 0, NULL,
                         "scale the values (e.g. show millions) or show them in a table",
                         "chart value %g (column \"%s\", row %zu) is beyond +-1e15, the largest a chart draws",
                         v, col ? col : "", i + 1);
            return FO_ERR_INPUT;
        }
    return FO_OK;
}

fo_status fo_chart_data_read(fo_chart_ctx *cx, fo_diags *d)
{
    const fo_chart *c = cx->c;
    fo_chart_data *dt = &cx->data;
    memset(dt, 0, sizeof *dt);
    dt->arena = fo_arena_new();
    if (!dt->arena) return FO_ERR_NOMEM;
    const fo_dataset *ds = c->data;
    size_t ns = 0;
    for (size_t s = 0; ds && s < c->ny; s++)
        if (c->y[s] < ds->ncols) ns++;
    dt->ns = ns;
    dt->names = fo_arena_alloc(dt->arena, (ns + 1) * sizeof *dt->names);
    if (!dt->names) return FO_ERR_NOMEM;
    if (!ds) return FO_OK;
    size_t *cols = fo_arena_alloc(dt->arena, (ns + 1) * sizeof *cols);
    if (!cols) return FO_ERR_NOMEM;
    for (size_t s = 0, j = 0; s < c->ny; s++)
        if (c->y[s] < ds->ncols) {
            cols[j] = c->y[s];
            dt->names[j] = ds->cols[c->y[s]].name ? ds->cols[c->y[s]].name : "";
            j++;
        }
    bool has_x = c->x < ds->ncols;

    fo_rows *rows = NULL;
    fo_status st = fo_rows_open(ds, &rows, d);
    if (st != FO_OK) return st;
    grow_buf g = {0};
    size_t n = 0;
    const fo_value *row;
    int rc;
    char buf[256];
    size_t bad_line = 0; /* CSV line of the first row with a value beyond the limit */
    while ((rc = fo_rows_next(rows, &row, d)) == 1) {
        if (n == g.cap && !grow(dt, &g, ns)) { st = FO_ERR_NOMEM; goto cleanup; }
        const fo_value *xv = has_x ? &row[c->x] : NULL;
        g.x[n] = xv ? fo_value_number(xv) : (double)(n + 1);
        const char *lab = xv ? fo_chart_value_label(cx->xfmt, xv, buf, sizeof buf) : "";
        if (!xv) { snprintf(buf, sizeof buf, "%zu", n + 1); lab = buf; }
        g.cat[n] = fo_arena_strdup(dt->arena, lab);
        if (!g.cat[n]) { st = FO_ERR_NOMEM; goto cleanup; }
        for (size_t s = 0; s < ns; s++) {
            g.y[n * ns + s] = fo_value_number(&row[cols[s]]);
            if (!bad_line && fabs(g.y[n * ns + s]) > FO_CHART_VALUE_MAX) bad_line = fo_rows_line(rows);
        }
        if (!bad_line && c->kind == FO_CHART_SCATTER && fabs(g.x[n]) > FO_CHART_VALUE_MAX)
            bad_line = fo_rows_line(rows);
        n++;
    }
    if (rc < 0) { st = FO_ERR_INPUT; goto cleanup; }
    if ((st = check_magnitudes(cx, g.x, g.y, n, ns, cols, bad_line, d)) != FO_OK) goto cleanup;
    /* transpose row-major [i][s] into series-major [s][i] */
    dt->y = fo_malloc((n > 0 && ns > 0 ? n * ns : 1) * sizeof *dt->y);
    if (!dt->y) { st = FO_ERR_NOMEM; goto cleanup; }
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < ns; s++) dt->y[s * n + i] = g.y[i * ns + s];
    dt->n = n;
    dt->x = g.x;
    dt->cat = g.cat;
    g.x = NULL;
    g.cat = NULL;
cleanup:
    fo_rows_close(rows);
    fo_free(g.x);
    fo_free(g.y);
    fo_free(g.cat);
    return st;
}

void fo_chart_data_free(fo_chart_data *dt)
{
    fo_free(dt->x);
    fo_free(dt->y);
    fo_free(dt->cat);
    fo_arena_free(dt->arena);
    memset(dt, 0, sizeof *dt);
}
