/* model.c — helpers of the document model: names of enums, default formats,
 * Excel date serials, ISO date parsing, freeing a document. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "render/core/model.h"

/* The spec's words for the model's enums, in enum order: the one list the
 * spec reader matches (and suggests from) and every writer names things by.
 * tests/formats/test_schema_enums.py ties them to the JSON Schema. */
const char *const fo_type_names[] = {
    "auto", "text", "integer", "number", "percent", "currency", "date", "datetime", "boolean", NULL
};
const char *const fo_block_kind_names[] = {"heading", "paragraph", "list", "metrics", "table", "chart",
                                           "image", "code", "page_break", "toc", NULL};
const char *const fo_total_names[] = {"none", "sum", "avg", "min", "max", "count", NULL};
const char *const fo_legend_names[] = {"right", "bottom", "none", NULL};

#define NAMES(a) (sizeof(a) / sizeof *(a) - 1)

const char *fo_type_name(fo_type t)
{
    return (unsigned)t < NAMES(fo_type_names) ? fo_type_names[t] : "?";
}

fo_type fo_type_from_name(const char *name)
{
    for (size_t i = 1; i < NAMES(fo_type_names); i++)
        if (strcmp(fo_type_names[i], name) == 0) return (fo_type)i;
    return FO_TYPE_AUTO;
}

const char *fo_type_default_format(fo_type t)
{
    switch (t) {
    case FO_TYPE_INTEGER: return "0";
    case FO_TYPE_PERCENT: return "0%";
    case FO_TYPE_CURRENCY: return "$#,##0.00";
    case FO_TYPE_DATE: return "yyyy-mm-dd";
    case FO_TYPE_DATETIME: return "yyyy-mm-dd hh:mm:ss";
    case FO_TYPE_BOOLEAN: return "General";
    case FO_TYPE_TEXT: return "@";
    case FO_TYPE_AUTO: case FO_TYPE_NUMBER:
    default: return "General";
    }
}

double fo_value_number(const fo_value *v)
{
    switch (v->kind) {
    case FO_VAL_NUMBER: case FO_VAL_DATE: case FO_VAL_BOOL:
        return isfinite(v->num) ? v->num : NAN;
    case FO_VAL_FORMULA:
        return v->has_num && isfinite(v->num) ? v->num : NAN;
    case FO_VAL_NULL: case FO_VAL_TEXT: case FO_VAL_URL:
    default:
        return NAN;
    }
}

static size_t cut(size_t n, size_t cap)
{
    return n < cap ? n : cap - 1;
}

const char *fo_value_text(const fo_value *v, const fo_numfmt *f, char *buf, size_t cap,
                          size_t *len, bool *numeric)
{
    const char *s = "";
    double x = v->num;

    buf[0] = '\0';
    switch (v->kind) {
    case FO_VAL_NULL: break;
    case FO_VAL_TEXT:
        s = v->str ? v->str : "";
        if (f) {                      /* a text section ("@ units") may decorate it */
            size_t k = fo_numfmt_format_text(f, s, buf, cap);
            if (k < cap) { s = buf; break; }
        }
        break;
    case FO_VAL_BOOL: s = x != 0 ? "TRUE" : "FALSE"; break;
    case FO_VAL_URL: s = v->label ? v->label : v->str ? v->str : ""; break;
    case FO_VAL_FORMULA:      /* its cached value, else its label */
        if (!v->has_num) { s = v->label ? v->label : ""; break; }
        /* fall through */
    case FO_VAL_NUMBER:
    case FO_VAL_DATE:
        *len = cut(f ? fo_numfmt_format(f, x, buf, cap) : (size_t)snprintf(buf, cap, "%.15g", x), cap);
        if (numeric) *numeric = true;
        return buf;
    }
    *len = strlen(s);
    if (numeric) *numeric = false;
    return s;
}

long fo_value_color(const fo_value *v, const fo_numfmt *f)
{
    if (!f) return -1;
    switch (v->kind) {
    case FO_VAL_TEXT: return fo_numfmt_text_color(f);
    case FO_VAL_FORMULA: return v->has_num ? fo_numfmt_color(f, v->num) : -1;
    case FO_VAL_NUMBER: case FO_VAL_DATE: return fo_numfmt_color(f, v->num);
    case FO_VAL_NULL: case FO_VAL_BOOL: case FO_VAL_URL:
    default: return -1;
    }
}

const char *fo_total_name(fo_total t)
{
    return (unsigned)t < NAMES(fo_total_names) ? fo_total_names[t] : "?";
}

/* The chart kinds, in enum order (the spec's words are tied to the JSON
 * Schema by tests/formats/t_theme.c). */
const fo_chart_traits fo_chart_kinds[FO_CHART_NKINDS] = {
    [FO_CHART_BAR] = {.name = "bar", .family = FO_CHART_CATEGORY, .mark = FO_MARK_BAR, .stacks = true,
                      .log_axis = true, .sideways = true, .zero_based = true,
                      .ooxml = "c:barChart", .bar_dir = "bar", .grouping = "clustered"},
    [FO_CHART_COLUMN] = {.name = "column", .family = FO_CHART_CATEGORY, .mark = FO_MARK_BAR, .stacks = true,
                         .log_axis = true, .zero_based = true, .rtl_mirror = true,
                         .ooxml = "c:barChart", .bar_dir = "col", .grouping = "clustered"},
    [FO_CHART_LINE] = {.name = "line", .family = FO_CHART_CATEGORY, .mark = FO_MARK_LINE, .stacks = true,
                       .log_axis = true, .rtl_mirror = true, .ooxml = "c:lineChart", .grouping = "standard"},
    [FO_CHART_AREA] = {.name = "area", .family = FO_CHART_CATEGORY, .mark = FO_MARK_AREA, .stacks = true,
                       .log_axis = true, .zero_based = true, .rtl_mirror = true,
                       .ooxml = "c:areaChart", .grouping = "standard"},
    [FO_CHART_PIE] = {.name = "pie", .family = FO_CHART_ROUND, .mark = FO_MARK_SLICE, .ooxml = "c:pieChart"},
    [FO_CHART_DOUGHNUT] = {.name = "doughnut", .family = FO_CHART_ROUND, .mark = FO_MARK_SLICE,
                           .all_series = true, .hole = 55, .ooxml = "c:doughnutChart"},
    [FO_CHART_SCATTER] = {.name = "scatter", .family = FO_CHART_XY, .mark = FO_MARK_POINT, .log_axis = true,
                          .ooxml = "c:scatterChart"},
};

const fo_chart_traits *fo_chart_traits_of(fo_chart_kind k)
{
    return &fo_chart_kinds[(unsigned)k < FO_CHART_NKINDS ? k : FO_CHART_COLUMN];
}

const char *fo_chart_kind_name(fo_chart_kind k)
{
    return (unsigned)k < FO_CHART_NKINDS ? fo_chart_kinds[k].name : "?";
}

void fo_chart_kind_names(const char *names[FO_CHART_NKINDS + 1])
{
    for (size_t k = 0; k < FO_CHART_NKINDS; k++) names[k] = fo_chart_kinds[k].name;
    names[FO_CHART_NKINDS] = NULL;
}

/* Days from 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

static void civil_from_days(long z, int *y, int *m, int *d)
{
    z += 719468;
    long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long yy = (long)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yy + (*m <= 2));
}

/* Excel serial 25569 is 1970-01-01. Dates before 1900-03-01 are off by one in
 * Excel (its phantom 1900-02-29); folio's specs are modern data, so we use
 * the 1899-12-30 base that is exact from March 1900 on. */
double fo_excel_serial(int year, int month, int day, int hh, int mm, double ss)
{
    long days = days_from_civil(year, (unsigned)month, (unsigned)day) + 25569;
    return (double)days + (hh * 3600.0 + mm * 60.0 + ss) / 86400.0;
}

void fo_excel_civil(double serial, int *year, int *month, int *day,
                    int *hh, int *mm, double *ss)
{
    double whole = floor(serial);
    double secs = (serial - whole) * 86400.0;
    secs = floor(secs * 1000.0 + 0.5) / 1000.0; /* to the millisecond */
    if (secs >= 86400.0) { secs -= 86400.0; whole += 1; }
    civil_from_days((long)whole - 25569, year, month, day);
    int s = (int)secs;
    if (hh) *hh = s / 3600;
    if (mm) *mm = (s / 60) % 60;
    if (ss) *ss = secs - (s / 60) * 60;
}

static int digits(const char *s, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static int days_in_month(int y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return dm[m - 1];
}

bool fo_parse_iso_date(const char *s, size_t len, double *serial, bool *has_time)
{
    int y, mo, d, hh = 0, mi = 0;
    double sec = 0;
    if (len < 10 || s[4] != '-' || s[7] != '-') return false;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d)) return false;
    if (y < 1900 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) return false;
    bool t = false;
    if (len > 10) {
        if ((s[10] != 'T' && s[10] != ' ') || len < 16 || s[13] != ':') return false;
        if (!digits(s + 11, 2, &hh) || !digits(s + 14, 2, &mi) || hh > 23 || mi > 59) return false;
        size_t i = 16;
        if (i < len && s[i] == ':') {
            int si;
            if (len < 19 || !digits(s + 17, 2, &si) || si > 59) return false;
            sec = si;
            i = 19;
            if (i < len && s[i] == '.') {
                double scale = 0.1;
                i++;
                if (i >= len || s[i] < '0' || s[i] > '9') return false;
                while (i < len && s[i] >= '0' && s[i] <= '9') {
                    sec += (s[i] - '0') * scale;
                    scale /= 10;
                    i++;
                }
            }
        }
        if (i < len && s[i] == 'Z') i++;
        if (i != len) return false;
        t = true;
    }
    *serial = fo_excel_serial(y, mo, d, hh, mi, sec);
    if (has_time) *has_time = t;
    return true;
}

int64_t fo_default_epoch(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (!s || !*s || strlen(s) > 12) return FO_NO_EPOCH;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return FO_NO_EPOCH;
        v = v * 10 + (*s - '0');
    }
    return v <= 253402300799LL ? v : FO_NO_EPOCH; /* up to 9999-12-31 */
}

void fo_cell_locate(const fo_doc *doc, const fo_dataset *ds, size_t row, size_t field,
                    size_t csv_line, const char **file, int *line, int *column,
                    char *ptr, size_t cap)
{
    *line = *column = 0;
    if (cap) ptr[0] = '\0';
    if (ds->src == FO_SRC_CSV) {
        *file = ds->csv_display ? ds->csv_display : ds->csv_path;
        *line = (int)csv_line;
        *column = (int)field + 1;
        return;
    }
    *file = doc->spec_path;
    snprintf(ptr, cap, "%s/rows/%zu/%zu", ds->pointer ? ds->pointer : "", row, field);
    for (size_t i = 0; i < ds->nspots; i++)
        if (ds->spots[i].row == row && ds->spots[i].field == field) {
            *line = ds->spots[i].line;
            *column = ds->spots[i].column;
        }
}

void fo_doc_free(fo_doc *doc)
{
    if (!doc) return;
    fo_arena_free(doc->arena);
    fo_free(doc);
}

size_t fo_doc_nblocks(const fo_doc *doc) { return doc->nblocks; }

size_t fo_doc_byline(const fo_doc *doc, bool wide, char *buf, size_t cap)
{
    const char *dot = !doc->author || !doc->date ? "" : wide ? "  \xC2\xB7  " : " \xC2\xB7 ";
    const char *mark = doc->date && doc->rtl ? "\xE2\x80\x8E" : ""; /* U+200E */
    int n = snprintf(buf, cap, "%s%s%s%s", doc->author ? doc->author : "", dot, mark,
                     doc->date ? doc->date : "");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}
size_t fo_doc_ndatasets(const fo_doc *doc) { return doc->ndatasets; }
