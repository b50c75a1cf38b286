/* table.c — totals and column widths, one rule for every writer
 * (render/core/table.h). */
#include <math.h>
#include <stdio.h>

#include "render/core/numfmt.h"
#include "render/core/table.h"

void fo_table_acc_add(fo_table_acc *a, const fo_value *v)
{
    if (v->kind == FO_VAL_NULL) return;
    a->count++;
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
    default: *v = 0; return false;
    }
}

size_t fo_table_total_text(const fo_table_acc *a, fo_total k, size_t j, const fo_numfmt *f,
                           char *buf, size_t cap, bool *numeric)
{
    double v;
    bool has = fo_table_total(a, k, &v);
    if (numeric) *numeric = has;
    if (!has) return (size_t)snprintf(buf, cap, "%s", j == 0 && k == FO_TOTAL_NONE ? "Total" : "");
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
