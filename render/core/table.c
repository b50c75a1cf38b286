/* table.c — totals and column widths, one rule for every writer
 * (render/core/table.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/core/numfmt.h"
#include "render/core/shape.h"
#include "render/core/table.h"
#include "render/core/words.h"

const fo_row_style *fo_table_row_style(const fo_block *b, size_t row)
{
    if (!b || b->kind != FO_BLOCK_TABLE) return NULL;
    const fo_row_style *v = b->u.table.row_styles;
    size_t lo = 0, hi = b->u.table.nrow_styles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].row == row) return &v[mid];
        if (v[mid].row < row) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

bool fo_table_is_error(const char *text)
{
    static const char *const errs[] = {"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", NULL};
    for (size_t i = 0; text && errs[i]; i++)
        if (strcmp(text, errs[i]) == 0) return true;
    return false;
}

void fo_table_acc_add(fo_table_acc *a, const fo_value *v)
{
    if (v->kind == FO_VAL_NULL) return;
    a->count++;
    if (v->kind == FO_VAL_FORMULA && !v->has_num && !a->err && fo_table_is_error(v->label)) a->err = v->label;
    bool num = v->kind == FO_VAL_NUMBER || v->kind == FO_VAL_DATE ||
               (v->kind == FO_VAL_FORMULA && v->has_num);
    if (!num || !isfinite(v->num)) return;
    if (a->nnum == 0 || v->num < a->min) a->min = v->num;
    if (a->nnum == 0 || v->num > a->max) a->max = v->num;
    a->sum += v->num;
    a->nnum++;
}

bool fo_table_total(const fo_table_acc *a, fo_total k, double *v)
{
    switch (k) {
    case FO_TOTAL_SUM: *v = a->sum; return true;
    case FO_TOTAL_AVG: *v = a->nnum ? a->sum / (double)a->nnum : 0; return a->nnum > 0;
    case FO_TOTAL_MIN: *v = a->min; return a->nnum > 0;
    case FO_TOTAL_MAX: *v = a->max; return a->nnum > 0;
    case FO_TOTAL_COUNT: *v = (double)a->count; return true;
    case FO_TOTAL_NONE:
    default: *v = 0; return false;
    }
}

size_t fo_table_total_text(const char *lang, const fo_table_acc *a, fo_total k, size_t j, const fo_numfmt *f,
                           char *buf, size_t cap, bool *numeric)
{
    double v;
    bool has = fo_table_total(a, k, &v);
    if (numeric) *numeric = has;
    if (a->err && k != FO_TOTAL_COUNT && k != FO_TOTAL_NONE) return (size_t)snprintf(buf, cap, "%s", a->err);
    if (!has) return (size_t)snprintf(buf, cap, "%s", j == 0 && k == FO_TOTAL_NONE ? fo_word(lang, FO_W_TOTAL) : "");
    if (k == FO_TOTAL_COUNT) return fo_numfmt_format_code(FO_TABLE_COUNT_FORMAT, v, buf, cap);
    fo_value val = {FO_VAL_NUMBER, false, v, NULL, NULL};
    size_t n;
    fo_value_text(&val, f, buf, cap, &n, NULL);
    return n;
}

void fo_table_fit(const double *natural, const double *minimum, size_t n, double width, double *out)
{
    double total = 0, mins = 0, want = 0;
    for (size_t i = 0; i < n; i++) {
        total += natural[i];
        mins += minimum[i];
        want += natural[i] > minimum[i] ? natural[i] - minimum[i] : 0;
    }
    for (size_t i = 0; i < n; i++) {
        double extra = natural[i] > minimum[i] ? natural[i] - minimum[i] : 0;
        if (total <= width) out[i] = total > 0 ? natural[i] + (width - total) * natural[i] / total : 0;
        else if (mins >= width) out[i] = mins > 0 ? minimum[i] * width / mins : 0;
        else out[i] = minimum[i] + (want > 0 ? (width - mins) * extra / want : 0);
    }
}

/* ---- the column plan ------------------------------------------------------------ */

/* Numbers and dates are right-aligned (render/core/table.h). */
static bool right_aligned(fo_type t)
{
    return t == FO_TYPE_INTEGER || t == FO_TYPE_NUMBER || t == FO_TYPE_PERCENT ||
           t == FO_TYPE_CURRENCY || t == FO_TYPE_DATE || t == FO_TYPE_DATETIME;
}

fo_col_plan *fo_col_plan_new(const fo_table_col *cols, size_t n)
{
    fo_col_plan *p = n ? fo_calloc(n, sizeof *p) : NULL;
    if (!p) return NULL;
    for (size_t j = 0; j < n; j++) {
        const fo_table_col *c = &cols[j];
        p[j].title = c->title ? c->title : "";
        p[j].fmt = fo_numfmt_compile(c->format ? c->format : "General", NULL, 0);
        if (!p[j].fmt) { /* out of memory: a spec's codes were checked */
            fo_col_plan_free(p, j);
            return NULL;
        }
        p[j].right = right_aligned(c->type);
        p[j].is_date = c->type == FO_TYPE_DATE || c->type == FO_TYPE_DATETIME || fo_numfmt_is_date(p[j].fmt);
    }
    return p;
}

void fo_col_plan_free(fo_col_plan *p, size_t n)
{
    for (size_t j = 0; p && j < n; j++) fo_numfmt_free(p[j].fmt);
    fo_free(p);
}

bool fo_col_plan_cell_right(const fo_col_plan *c, bool numeric, size_t len)
{
    return numeric || (c->right && len == 0);
}

bool fo_table_text_rtl(const char *s, size_t n)
{
    return fo_shape_has_rtl(s, n) && fo_shape_direction(s, n) == FO_DIR_RTL;
}

void fo_col_plan_widen_head(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx)
{
    fo_table_width_add(w, m, ctx, true, false, c->title, strlen(c->title));
}

void fo_col_plan_widen(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                       const fo_value *v, char *buf, size_t cap)
{
    size_t n;
    bool numeric = false;
    const char *s = fo_value_text(v, c->fmt, buf, cap, &n, &numeric);
    fo_table_width_add(w, m, ctx, false, numeric || c->right, s, n);
}

void fo_table_advances_init(fo_table_advances *a)
{
    for (size_t i = 0; i < sizeof a->w / sizeof *a->w; i++) a->w[i] = -1;
}

/* The width of s (n bytes) by the advances in a, or -1 when it holds a
 * byte outside printable ASCII (render/core/table.h). */
static double ascii_width(fo_table_advances *a, fo_table_measure m, void *ctx, const char *s, size_t n)
{
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch >= 0x7F) return -1;
        if (a->w[ch] < 0) a->w[ch] = m(ctx, false, s + i, 1);
        w += a->w[ch];
    }
    return w;
}

void fo_col_plan_widen_number(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                              fo_table_advances *a, const fo_value *v, char *buf, size_t cap)
{
    if (v->kind != FO_VAL_NUMBER && v->kind != FO_VAL_DATE && !(v->kind == FO_VAL_FORMULA && v->has_num))
        return;
    size_t n;
    const char *s = fo_value_text(v, c->fmt, buf, cap, &n, NULL);
    double est = ascii_width(a, m, ctx, s, n);
    /* no wider than what the column holds already; the slack absorbs the
       rounding of a sum taken in another order, so that a tie is skipped */
    if (est >= 0 && est <= w->minimum * (1 + 1e-9)) return;
    fo_table_width_add(w, m, ctx, false, true, s, n);
}

void fo_col_plan_widen_total(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                             const char *lang, const fo_table_acc *a, fo_total k, size_t j, char *buf,
                             size_t cap)
{
    size_t n = fo_table_total_text(lang, a, k, j, c->fmt, buf, cap, NULL);
    fo_table_width_add(w, m, ctx, true, true, buf, n < cap ? n : cap - 1);
}

/* ---- column widths ------------------------------------------------------------ */

void fo_table_width_add(fo_table_width *w, fo_table_measure m, void *ctx, bool bold, bool whole,
                        const char *s, size_t n)
{
    for (size_t i = 0; i < n;) { /* lines: natural; words (or the whole line): minimum */
        size_t e = i;
        while (e < n && s[e] != '\n') e++;
        double lw = m(ctx, bold, s + i, e - i);
        if (lw > w->natural) w->natural = lw;
        /* one word (most cells: a number, a name): it is the line, measured */
        bool one = !whole && e > i && !memchr(s + i, ' ', e - i);
        if ((whole || one) && lw > w->minimum) w->minimum = lw;
        for (size_t k = i; !whole && !one && k < e;) {
            size_t q = k;
            while (q < e && s[q] != ' ') q++;
            double ww = q > k ? m(ctx, bold, s + k, q - k) : 0;
            if (ww > w->minimum) w->minimum = ww;
            k = q + 1;
        }
        i = e + 1;
    }
}

/* Total width of columns [a, b) at scale s, with the key column when key. */
static double span(const double *minimum, size_t a, size_t b, bool key, double pad, double s)
{
    double w = key ? minimum[0] * s + pad : 0;
    for (size_t j = a; j < b; j++) w += minimum[j] * s + pad;
    return w;
}

/* The scale at which [0, n) fits width, or 0 below min_scale. */
static double fit_scale(const double *minimum, size_t n, double pad, double width, double min_scale)
{
    double words = span(minimum, 0, n, false, 0, 1), pads = pad * (double)n;
    if (words + pads <= width) return 1;
    double s = words > 0 ? (width - pads) / words : 0;
    return s >= min_scale ? s : 0;
}

/* Column groups filled left to right in width, at most cap columns besides
 * the key in each; every group takes at least one. Returns their number. */
static size_t greedy(const double *minimum, size_t n, double pad, double s, double width,
                     size_t cap, size_t *ends)
{
    size_t g = 0;
    for (size_t a = 0; a < n; g++) {
        size_t b = a + 1, lim = g ? a + cap : 1 + cap;
        while (b < n && b < lim && span(minimum, a, b + 1, g > 0, pad, s) <= width) b++;
        ends[g] = b;
        a = b;
    }
    return g;
}

void fo_table_plan_fit(double *minimum, size_t n, double pad, double width, double wide,
                       double min_scale, fo_table_plan *p, size_t *ends)
{
    double widest = wide > width ? wide : width;
    for (size_t j = 0; j < n; j++)
        if (minimum[j] * min_scale + pad > widest / 3) minimum[j] = (widest / 3 - pad) / min_scale;
    *p = (fo_table_plan){1, false, 1};
    if (n) ends[0] = n;
    double s = fit_scale(minimum, n, pad, width, min_scale);
    if (s > 0) { p->scale = s; return; }
    p->landscape = wide > width;
    s = p->landscape ? fit_scale(minimum, n, pad, wide, min_scale) : 0;
    if (s > 0) { p->scale = s; return; }
    p->scale = min_scale;
    size_t most = greedy(minimum, n, pad, min_scale, widest, n, ends);
    /* the same number of groups with as even a share of columns as fits:
     * 30 columns as 10 + 10 + 10, not 14 + 13 + 3 */
    size_t cap = most > 1 ? (n - 1 + most - 1) / most : n;
    for (; cap < n && most > 1; cap++)
        if (greedy(minimum, n, pad, min_scale, widest, cap, ends) == most) break;
    if (cap >= n || most <= 1) greedy(minimum, n, pad, min_scale, widest, n, ends);
    p->ngroups = most;
}

size_t fo_table_group_cols(const size_t *ends, size_t g, size_t *cols)
{
    size_t k = 0, a = g ? ends[g - 1] : 0;
    if (g) cols[k++] = 0;
    for (size_t j = a; j < ends[g]; j++) cols[k++] = j;
    return k;
}

size_t fo_table_group_note(const char *lang, const size_t *ends, size_t g, size_t n, char *buf,
                           size_t cap)
{
    char a[24], b[24], t[24];
    snprintf(a, sizeof a, "%zu", (g ? ends[g - 1] : 0) + 1);
    snprintf(b, sizeof b, "%zu", ends[g]);
    snprintf(t, sizeof t, "%zu", n);
    const char *args[] = {a, b, t};
    size_t k = fo_word_fill(lang, FO_W_COLUMNS_OF, n, buf, cap, 3, args);
    if (g && k + 1 < cap) k += (size_t)snprintf(buf + k, cap - k, "%s", fo_word(lang, FO_W_KEY_REPEATED));
    return k < cap ? k : cap ? cap - 1 : 0;
}

size_t fo_table_cut_note(const char *lang, size_t shown, size_t total, char *buf, size_t cap)
{
    char a[32], b[32];
    fo_numfmt_format_code("#,##0", (double)shown, a, sizeof a);
    fo_numfmt_format_code("#,##0", (double)total, b, sizeof b);
    const char *args[] = {a, b};
    return fo_word_fill(lang, FO_W_FIRST_ROWS, total, buf, cap, 2, args);
}

/* Adds text's direction (its first strong letter) to the counts. */
static void count_dir(const char *text, size_t *rtl, size_t *ltr)
{
    fo_dir d = text ? fo_shape_direction(text, strlen(text)) : FO_DIR_AUTO;
    *rtl += d == FO_DIR_RTL;
    *ltr += d == FO_DIR_LTR;
}

bool fo_table_rtl(const fo_doc *doc, const fo_block *b)
{
    if (b->u.table.dir != FO_DIR_CHOICE_AUTO) return b->u.table.dir == FO_DIR_CHOICE_RTL;
    if (doc->dir != FO_DIR_CHOICE_AUTO) return doc->dir == FO_DIR_CHOICE_RTL;
    if (doc->rtl) return true;
    size_t rtl = 0, ltr = 0;
    count_dir(b->u.table.caption, &rtl, &ltr);
    for (size_t j = 0; j < b->u.table.ncols; j++) count_dir(b->u.table.cols[j].title, &rtl, &ltr);
    const fo_dataset *ds = b->u.table.data;
    if (ds && ds->src == FO_SRC_INLINE && ds->cells)
        for (size_t r = 0; r < ds->nrows && r < 50; r++)
            for (size_t j = 0; j < b->u.table.ncols; j++) {
                const fo_value *v = &ds->cells[r * ds->ncols + b->u.table.cols[j].field];
                if (v->kind == FO_VAL_TEXT) count_dir(v->str, &rtl, &ltr);
            }
    return rtl > ltr;
}
