/* spec_data.c — the spec's datasets: CSV references and inline columns/rows,
 * cell values, column types and formats, field lookup for tables and charts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/csv.h"
#include "formats/infer.h"
#include "formats/spec_internal.h"
#include "render/core/policy.h"

static const char *const cell_keys_formula[] = {"formula", "value", NULL};
static const char *const cell_keys_url[] = {"url", "text", NULL};

bool fo_spec_cell(fo_spec_ctx *c, json_t *v, const char *ptr, fo_value *out)
{
    memset(out, 0, sizeof *out);
    switch (json_typeof(v)) {
    case JSON_NULL: out->kind = FO_VAL_NULL; return true;
    case JSON_TRUE: case JSON_FALSE:
        out->kind = FO_VAL_BOOL; out->num = json_is_true(v); return true;
    case JSON_INTEGER: case JSON_REAL:
        out->kind = FO_VAL_NUMBER; out->num = json_number_value(v); return true;
    case JSON_STRING:
        out->kind = FO_VAL_TEXT; out->str = fo_spec_strdup(c, json_string_value(v)); return true;
    case JSON_ARRAY:
        fo_spec_error(c, ptr, false, "a cell is a string, number, boolean, null or an object such as {\"date\": \"2024-03-01\"}",
                      "a cell cannot be an array");
        return false;
    case JSON_OBJECT: break;
    }
    if (json_object_get(v, "formula")) {
        fo_spec_check_keys(c, v, ptr, cell_keys_formula);
        const char *f = fo_spec_string(c, v, ptr, "formula", true);
        if (!f) return false;
        size_t flen = strlen(f);
        char *formula = fo_arena_alloc(c->doc->arena, flen + 2);
        if (!formula) return false;
        snprintf(formula, flen + 2, "%s%s", f[0] == '=' ? "" : "=", f);
        out->kind = FO_VAL_FORMULA;
        out->str = formula;
        const char *why = fo_formula_refusal(formula);
        if (why) {
            char p[FO_PTR_MAX];
            fo_spec_ptr(p, ptr, "formula");
            fo_spec_error(c, p, false, "DDE, WEBSERVICE, IMAGE, other workbooks and the like are refused; "
                          "folio render --allow-external-formulas keeps them",
                          "formula %.80s%s %s", formula, strlen(formula) > 80 ? "..." : "", why);
        }
        json_t *val = json_object_get(v, "value");
        if (val && json_is_number(val)) { out->has_num = true; out->num = json_number_value(val); }
        else if (val && json_is_string(val)) out->label = fo_spec_strdup(c, json_string_value(val));
        else if (val && !json_is_null(val)) {
            char p[FO_PTR_MAX];
            fo_spec_ptr(p, ptr, "value");
            fo_spec_error(c, p, false, "the value a reader without a calculation engine shows",
                          "a formula's \"value\" must be a number or a string");
        }
        return true;
    }
    if (json_object_get(v, "url")) {
        fo_spec_check_keys(c, v, ptr, cell_keys_url);
        const char *u = fo_spec_string(c, v, ptr, "url", true);
        const char *t = fo_spec_string(c, v, ptr, "text", false);
        if (!u) return false;
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "url");
        if (!fo_spec_check_link(c, u, p)) { /* the text stays, without the link */
            out->kind = FO_VAL_TEXT;
            out->str = fo_spec_strdup(c, t ? t : u);
            return true;
        }
        out->kind = FO_VAL_URL;
        out->str = fo_spec_strdup(c, u);
        out->label = t ? fo_spec_strdup(c, t) : NULL;
        return true;
    }
    if (json_object_get(v, "date")) {
        static const char *const keys[] = {"date", NULL};
        fo_spec_check_keys(c, v, ptr, keys);
        const char *s = fo_spec_string(c, v, ptr, "date", true);
        bool has_time;
        if (!s) return false;
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "date");
        if (!fo_parse_iso_date(s, strlen(s), &out->num, &has_time)) {
            fo_spec_error(c, p, false, "use ISO 8601: \"2024-03-01\" or \"2024-03-01T14:30:00\"",
                          "invalid date \"%s\"", s);
            return false;
        }
        out->kind = FO_VAL_DATE;
        return true;
    }
    fo_spec_error(c, ptr, false, "use {\"formula\": ...}, {\"url\": ...} or {\"date\": ...}",
                  "unknown cell object");
    return false;
}

/* Reads one column definition (name or {name, type, format}) into col. */
/* A dataset's or a column's "decimal" and "date_format" into col. */
static void read_notation(fo_spec_ctx *c, json_t *obj, const char *ptr, fo_column *col)
{
    char p[FO_PTR_MAX];
    const char *dec = fo_spec_string(c, obj, ptr, "decimal", false);
    const char *df = fo_spec_string(c, obj, ptr, "date_format", false);
    if (dec) {
        fo_spec_ptr(p, ptr, "decimal");
        if (strcmp(dec, ".") == 0 || strcmp(dec, ",") == 0) col->decimal = dec[0];
        else fo_spec_error(c, p, false, "\".\" (1,234.56) or \",\" (1.234,56)", "unknown decimal separator \"%s\"", dec);
    }
    if (df) {
        fo_spec_ptr(p, ptr, "date_format");
        col->dates = fo_date_order_parse(df);
        if (col->dates == FO_DATES_ANY)
            fo_spec_error(c, p, false, "the order of day, month and year: \"dd/mm/yyyy\", \"mm/dd/yyyy\" or \"yyyy-mm-dd\"",
                          "unknown date_format \"%s\"", df);
    }
}

static bool read_column(fo_spec_ctx *c, json_t *v, const char *ptr, fo_column *col)
{
    static const char *const keys[] = {"name", "type", "format", "date_format", "decimal", NULL};
    memset(col, 0, sizeof *col);
    if (json_is_string(v)) {
        col->name = fo_spec_strdup(c, json_string_value(v));
        return true;
    }
    if (!json_is_object(v)) {
        fo_spec_error(c, ptr, false, "a column is a name or {\"name\", \"type\", \"format\"}",
                      "a column cannot be %s", fo_spec_json_type(v));
        return false;
    }
    fo_spec_check_keys(c, v, ptr, keys);
    const char *name = fo_spec_string(c, v, ptr, "name", true);
    const char *type = fo_spec_string(c, v, ptr, "type", false);
    const char *format = fo_spec_string(c, v, ptr, "format", false);
    if (!name) return false;
    col->name = fo_spec_strdup(c, name);
    if (type) {
        col->type = fo_type_from_name(type);
        if (col->type == FO_TYPE_AUTO) {
            char p[FO_PTR_MAX], hint[300];
            fo_spec_ptr(p, ptr, "type");
            const char *s = fo_spec_suggest(type, fo_type_names + 1);
            if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
            else snprintf(hint, sizeof hint, "one of: text integer number percent currency date datetime boolean");
            fo_spec_error(c, p, false, hint, "unknown column type \"%s\"", type);
        }
    }
    if (format) {
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "format");
        if (fo_spec_check_format(c, format, p)) col->format = fo_spec_strdup(c, format);
    }
    read_notation(c, v, ptr, col);
    return true;
}

/* Where the text cells are that an inline column does not read, for one
 * located warning per column (count and first places). */
#define PLACES 3
typedef struct {
    size_t n, row[PLACES];
    const char *text[PLACES];
} misfits;

static void misfit_report(fo_spec_ctx *c, const fo_dataset *ds, size_t j, const misfits *m)
{
    char p[FO_PTR_MAX], places[600], how[64] = "";
    size_t k = 0;
    const fo_column *col = &ds->cols[j];
    for (size_t i = 0; i < m->n && i < PLACES; i++)
        k += (size_t)snprintf(places + k, sizeof places - k, "%s\"%.40s\" (rows/%zu/%zu)", i ? ", " : "",
                              m->text[i], m->row[i], j);
    if (m->n > PLACES) snprintf(places + k, sizeof places - k, ", and %zu more", m->n - PLACES);
    if ((col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME) && col->dates == FO_DATES_DMY)
        snprintf(how, sizeof how, ", read day/month");
    else if ((col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME) && col->dates == FO_DATES_MDY)
        snprintf(how, sizeof how, ", read month/day");
    snprintf(p, sizeof p, "%s/rows/%zu/%zu", ds->pointer, m->row[0], j);
    bool dates = col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME;
    fo_spec_warn(c, p, dates ? "write dates as 2024-01-15, 15/01/2024 or 01/15/2024; the column's \"date_format\" "
                               "(e.g. \"dd/mm/yyyy\") sets the day/month order"
                 : col->type == FO_TYPE_BOOLEAN ? "use true or false"
                 : "write numbers as 1234.5, 1,234.50, (1,234), 12.5% or $1,200.00; \"decimal\": \",\" reads 1.234,50; "
                   "null, \"n/a\" and \"-\" are left as they are without a warning",
                 "column \"%s\" is %s%s; %zu cell%s %s not and stay%s text: %s", col->name, fo_type_name(col->type),
                 how, m->n, m->n == 1 ? "" : "s", m->n == 1 ? "is" : "are", m->n == 1 ? "s" : "", places);
}

/* Converts the text cells of inline column j to its type (in its notation);
 * a declared column's misfits are reported, an inferred one's are simply
 * kept as text. */
static void convert_inline(fo_spec_ctx *c, fo_dataset *ds, size_t j)
{
    fo_column *col = &ds->cols[j];
    const char *sym = col->type == FO_TYPE_CURRENCY ? fo_infer_format_symbol(col->format) : NULL;
    misfits m = {0};
    for (size_t r = 0; r < ds->nrows; r++) {
        fo_value *v = &ds->cells[r * ds->ncols + j], nv;
        if (v->kind != FO_VAL_TEXT || !v->str) continue;
        size_t len = strlen(v->str);
        if (fo_infer_convert(col, sym, v->str, len, &nv)) {
            if (nv.kind != FO_VAL_TEXT) *v = nv;
            continue;
        }
        if (col->inferred || fo_infer_is_missing(v->str, len)) continue;
        if (m.n < PLACES) {
            m.row[m.n] = r;
            m.text[m.n] = v->str;
        }
        m.n++;
    }
    if (m.n) misfit_report(c, ds, j, &m);
}

/* Types inline column j: a declared type is kept; an undeclared one is
 * inferred from every cell (JSON numbers, dates, booleans and text alike,
 * text read as a CSV cell would be). Its format, when not given, is the
 * type's default, or what its text cells show when they are all text. */
static void type_inline(fo_spec_ctx *c, fo_dataset *ds, size_t j)
{
    fo_column *col = &ds->cols[j];
    fo_infer in;
    fo_infer_init(&in);
    in.nt = fo_column_notation(col);
    bool typed = false; /* a cell that is not text */
    for (size_t r = 0; r < ds->nrows; r++) {
        const fo_value *v = &ds->cells[r * ds->ncols + j];
        fo_infer_add_value(&in, v);
        typed |= v->kind != FO_VAL_TEXT && v->kind != FO_VAL_NULL;
    }
    char fmt[128];
    fo_type t = fo_infer_result(&in, fmt, sizeof fmt);
    if (col->type == FO_TYPE_AUTO) {
        col->type = t;
        col->inferred = true;
    } else if (col->type != t) {
        fo_infer_format(&in, col->type, fmt, sizeof fmt);
    }
    if (!col->format) col->format = typed ? (char *)fo_type_default_format(col->type) : fo_spec_strdup(c, fmt);
    bool amb = false;
    col->dates = fo_infer_date_order(&in, &amb);
    if (col->type == FO_TYPE_TEXT) return;
    convert_inline(c, ds, j);
    if (amb && (col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME)) {
        char p[FO_PTR_MAX];
        snprintf(p, sizeof p, "%s/columns/%zu", ds->pointer, j);
        fo_spec_warn(c, p, "if the day comes first, give the column \"date_format\": \"dd/mm/yyyy\"",
                     "column \"%s\": every date fits both day/month and month/day; read as month/day", col->name);
    }
}

static void finish_columns(fo_spec_ctx *c, fo_dataset *ds)
{
    for (size_t i = 0; i < ds->ncols; i++) {
        fo_column *col = &ds->cols[i];
        if (ds->src == FO_SRC_INLINE) type_inline(c, ds, i);
        if (col->type == FO_TYPE_AUTO) col->type = FO_TYPE_TEXT;
        if (!col->format) col->format = (char *)fo_type_default_format(col->type);
    }
}

/* Remembers where cell (r, i) is: its text is over Excel's cell limit, so
 * the xlsx writer may refuse it and must say where it is. */
static void note_spot(fo_spec_ctx *c, fo_dataset *ds, size_t r, size_t i, const char *ptr)
{
    struct fo_cell_spot *s = fo_arena_alloc(c->doc->arena, (ds->nspots + 1) * sizeof *s);
    if (!s) return;
    if (ds->nspots) memcpy(s, ds->spots, ds->nspots * sizeof *s);
    s[ds->nspots].row = r;
    s[ds->nspots].field = i;
    fo_json_locate(c->json, ptr, false, &s[ds->nspots].line, &s[ds->nspots].column);
    ds->spots = s;
    ds->nspots++;
}

/* A cell the JSON reader took as null because it was NaN, Infinity or
 * -Infinity, as "nan" asks: the text NaN, ∞ or -∞, or Excel's #NUM! (a
 * formula whose value it is: xlsx writes an error cell, the other formats
 * its text). A real null stays empty. */
static void nonfinite_cell(fo_spec_ctx *c, const char *ptr, fo_value *v)
{
    int k = fo_json_nonfinite_kind(c->json, ptr);
    if (!k) return;
    if (c->nan == FO_SPEC_NAN_TEXT) {
        v->kind = FO_VAL_TEXT;
        v->str = k == FO_JSON_NAN ? "NaN" : k == FO_JSON_INF ? "\xE2\x88\x9E" : "-\xE2\x88\x9E";
    } else {
        v->kind = FO_VAL_FORMULA;
        v->str = "=#NUM!";
        v->label = "#NUM!";
    }
}

static bool read_inline(fo_spec_ctx *c, json_t *obj, const char *ptr, fo_dataset *ds)
{
    char p[FO_PTR_MAX];
    json_t *cols = json_object_get(obj, "columns"), *rows = json_object_get(obj, "rows");
    fo_spec_ptr(p, ptr, "columns");
    if (!json_is_array(cols) || json_array_size(cols) == 0) {
        fo_spec_error(c, cols ? p : ptr, false, "e.g. \"columns\": [\"region\", \"revenue\"]",
                      cols ? "\"columns\" must be a non-empty array" : "missing required key \"columns\"");
        return false;
    }
    ds->ncols = json_array_size(cols);
    ds->cols = fo_arena_alloc(c->doc->arena, ds->ncols * sizeof *ds->cols);
    if (!ds->cols) return false;
    for (size_t i = 0; i < ds->ncols; i++) {
        char cp[FO_PTR_MAX];
        fo_json_ptr_item(cp, sizeof cp, p, i);
        read_column(c, json_array_get(cols, i), cp, &ds->cols[i]);
        if (!ds->cols[i].name) ds->cols[i].name = fo_spec_strdup(c, "?");
        for (size_t k = 0; k < i; k++)
            if (ds->cols[k].name && strcmp(ds->cols[k].name, ds->cols[i].name) == 0)
                fo_spec_error(c, cp, false, "column names must be unique", "duplicate column \"%s\"",
                              ds->cols[i].name);
    }
    fo_column dflt = {0};
    read_notation(c, obj, ptr, &dflt);
    for (size_t i = 0; i < ds->ncols; i++) {
        if (!ds->cols[i].decimal) ds->cols[i].decimal = dflt.decimal;
        if (!ds->cols[i].dates) ds->cols[i].dates = dflt.dates;
    }
    fo_spec_ptr(p, ptr, "rows");
    if (rows && !json_is_array(rows)) {
        fo_spec_error(c, p, false, "e.g. \"rows\": [[\"North\", 1204.5]]", "\"rows\" must be an array of arrays");
        rows = NULL; /* the columns still stand: the fields a block names are checked */
    }
    ds->nrows = rows ? json_array_size(rows) : 0;
    ds->cells = fo_arena_alloc(c->doc->arena, (ds->nrows ? ds->nrows : 1) * ds->ncols * sizeof *ds->cells);
    if (!ds->cells) return false;
    for (size_t r = 0; r < ds->nrows; r++) {
        json_t *row = json_array_get(rows, r);
        char rp[FO_PTR_MAX];
        fo_json_ptr_item(rp, sizeof rp, p, r);
        if (!json_is_array(row) || json_array_size(row) != ds->ncols) {
            char hint[64];
            snprintf(hint, sizeof hint, "one value per column: %zu", ds->ncols);
            if (json_is_array(row))
                fo_spec_error(c, rp, false, hint, "row has %zu cells, expected %zu",
                              json_array_size(row), ds->ncols);
            else fo_spec_error(c, rp, false, hint, "a row must be an array, not %s", fo_spec_json_type(row));
            continue;
        }
        for (size_t i = 0; i < ds->ncols; i++) {
            char vp[FO_PTR_MAX];
            fo_json_ptr_item(vp, sizeof vp, rp, i);
            fo_value *v = &ds->cells[r * ds->ncols + i];
            fo_spec_cell(c, json_array_get(row, i), vp, v);
            if (v->kind == FO_VAL_NULL && c->nan != FO_SPEC_NAN_BLANK) nonfinite_cell(c, vp, v);
            if (v->kind == FO_VAL_TEXT && v->str && strlen(v->str) > 32767) note_spot(c, ds, r, i, vp);
        }
    }
    return true;
}

static bool read_csv(fo_spec_ctx *c, json_t *obj, const char *ptr, fo_dataset *ds)
{
    char p[FO_PTR_MAX];
    const char *path = fo_spec_string(c, obj, ptr, "csv", true);
    const char *delim = fo_spec_string(c, obj, ptr, "delimiter", false);
    ds->header = fo_spec_bool(c, obj, ptr, "header", true);
    if (delim) {
        fo_spec_ptr(p, ptr, "delimiter");
        if (strcmp(delim, "tab") == 0 || strcmp(delim, "\t") == 0) ds->delimiter = '\t';
        else if (strlen(delim) == 1 && strchr(",;|", delim[0])) ds->delimiter = delim[0];
        else fo_spec_error(c, p, false, "one of \",\", \";\", \"|\" or \"tab\"", "unsupported delimiter \"%s\"", delim);
    }
    if (!path) return false;
    fo_spec_ptr(p, ptr, "csv");
    ds->csv_path = fo_spec_resolve(c, path, p, UINT64_MAX);
    ds->csv_display = fo_spec_strdup(c, path);
    if (!ds->csv_path) return false;

    /* Type hints: "types": {"col": "integer"} and/or "columns": [...] */
    size_t nhints = 0;
    json_t *types = json_object_get(obj, "types"), *cols = json_object_get(obj, "columns");
    size_t cap = (json_is_object(types) ? json_object_size(types) : 0) + (json_is_array(cols) ? json_array_size(cols) : 0);
    fo_column *hints = fo_arena_alloc(c->doc->arena, (cap ? cap : 1) * sizeof *hints);
    char **hint_ptrs = fo_arena_alloc(c->doc->arena, (cap ? cap : 1) * sizeof *hint_ptrs);
    if (!hints || !hint_ptrs) return false;
    if (types && !json_is_object(types)) {
        fo_spec_ptr(p, ptr, "types");
        fo_spec_error(c, p, false, "e.g. \"types\": {\"zip\": \"text\"}", "\"types\" must be an object");
    } else if (types) {
        const char *k;
        json_t *v;
        json_object_foreach(types, k, v) {
            fo_spec_ptr(p, ptr, "types");
            fo_json_ptr_push(p, sizeof p, k);
            fo_type t = json_is_string(v) ? fo_type_from_name(json_string_value(v)) : FO_TYPE_AUTO;
            if (t == FO_TYPE_AUTO) {
                const char *s = json_is_string(v) ? fo_spec_suggest(json_string_value(v), fo_type_names + 1) : NULL;
                char hint[300];
                if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
                else snprintf(hint, sizeof hint, "one of: text integer number percent currency date datetime boolean");
                fo_spec_error(c, p, false, hint, "unknown column type");
                continue;
            }
            hints[nhints].name = fo_spec_strdup(c, k);
            hints[nhints].type = t;
            hint_ptrs[nhints++] = fo_spec_strdup(c, p);
        }
    }
    if (cols && !json_is_array(cols)) {
        fo_spec_ptr(p, ptr, "columns");
        fo_spec_error(c, p, false, NULL, "\"columns\" must be an array");
    } else if (cols) {
        for (size_t i = 0; i < json_array_size(cols); i++) {
            fo_spec_ptr(p, ptr, "columns");
            fo_json_ptr_push_index(p, sizeof p, i);
            if (read_column(c, json_array_get(cols, i), p, &hints[nhints]) && hints[nhints].name)
                hint_ptrs[nhints++] = fo_spec_strdup(c, p);
        }
    }
    fo_column dflt = {0};
    read_notation(c, obj, ptr, &dflt);
    fo_notation nt = {dflt.decimal ? dflt.decimal : '.', dflt.dates};
    fo_status st = fo_csv_scan_n(ds, c->doc->arena, hints, nhints, &nt, c->d, &c->warnings);
    if (st != FO_OK) {
        c->errors++;
        return ds->ncols > 0; /* the header's names, untyped: fields can still be checked */
    }
    /* every hint must name a column of the file */
    const char **names = fo_arena_alloc(c->doc->arena, (ds->ncols + 1) * sizeof *names);
    if (!names) return false;
    for (size_t i = 0; i < ds->ncols; i++) names[i] = ds->cols[i].name;
    for (size_t h = 0; h < nhints; h++) {
        bool found = false;
        for (size_t i = 0; i < ds->ncols && !found; i++) found = strcmp(names[i], hints[h].name) == 0;
        if (found) continue;
        const char *s = fo_spec_suggest(hints[h].name, names);
        char hint[300];
        if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
        else snprintf(hint, sizeof hint, "the file's columns are named by its header row");
        fo_spec_error(c, hint_ptrs[h], false, hint, "\"%s\" has no column \"%s\"", path, hints[h].name);
    }
    return true;
}

static fo_dataset *read_dataset(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *name)
{
    static const char *const keys[] = {"csv", "delimiter", "header", "types", "columns", "rows",
                                       "decimal", "date_format", NULL};
    if (!json_is_object(obj)) {
        fo_spec_error(c, ptr, false, "a dataset is {\"csv\": \"file.csv\"} or {\"columns\": [...], \"rows\": [...]}",
                      "a dataset must be an object, not %s", fo_spec_json_type(obj));
        return NULL;
    }
    fo_spec_check_keys(c, obj, ptr, keys);
    fo_dataset *ds = fo_arena_alloc(c->doc->arena, sizeof *ds);
    if (!ds) return NULL;
    ds->name = fo_spec_strdup(c, name);
    ds->pointer = fo_spec_strdup(c, ptr);
    bool ok;
    if (json_object_get(obj, "csv")) {
        if (json_object_get(obj, "rows")) {
            char p[FO_PTR_MAX];
            fo_spec_ptr(p, ptr, "rows");
            fo_spec_error(c, p, true, "use either \"csv\" or \"rows\"", "a dataset cannot have both \"csv\" and \"rows\"");
        }
        ds->src = FO_SRC_CSV;
        ds->stream = &fo_csv_stream;
        ok = read_csv(c, obj, ptr, ds);
    } else {
        ds->src = FO_SRC_INLINE;
        if (!json_object_get(obj, "columns")) {
            fo_spec_error(c, ptr, false, "a dataset is {\"csv\": \"file.csv\"} or {\"columns\": [...], \"rows\": [...]}",
                          "dataset has neither \"csv\" nor \"columns\"");
            return NULL;
        }
        ok = read_inline(c, obj, ptr, ds);
    }
    if (!ok) return NULL;
    if (ds->src == FO_SRC_CSV && ds->ncols && ds->cols[0].type == FO_TYPE_AUTO)
        return ds; /* a CSV with errors: its header's names, untyped (a scan types every column) */
    finish_columns(c, ds);
    return ds;
}

static bool add_dataset(fo_spec_ctx *c, fo_dataset *ds)
{
    fo_doc *doc = c->doc;
    fo_dataset **list = fo_arena_alloc(doc->arena, (doc->ndatasets + 1) * sizeof *list);
    if (!list) return false;
    if (doc->ndatasets) memcpy(list, doc->datasets, doc->ndatasets * sizeof *list);
    list[doc->ndatasets++] = ds;
    doc->datasets = list;
    return true;
}

void fo_spec_read_datasets(fo_spec_ctx *c, json_t *data)
{
    if (!data) return;
    if (!json_is_object(data)) {
        fo_spec_error(c, "/data", false, "\"data\": {\"sales\": {\"csv\": \"sales.csv\"}}",
                      "\"data\" must be an object of named datasets");
        return;
    }
    const char *name;
    json_t *v;
    json_object_foreach(data, name, v) {
        char p[FO_PTR_MAX] = "/data";
        fo_json_ptr_push(p, sizeof p, name);
        fo_dataset *ds = read_dataset(c, v, p, name);
        if (ds) add_dataset(c, ds);
    }
}

fo_dataset *fo_spec_block_data(fo_spec_ctx *c, json_t *block, const char *ptr, const char *label)
{
    json_t *v = json_object_get(block, "data");
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "data");
    if (!v) {
        fo_spec_error(c, ptr, false, "name a dataset from \"data\" or give one inline", "missing required key \"data\"");
        return NULL;
    }
    if (json_is_string(v)) {
        const char *name = json_string_value(v);
        const fo_doc *doc = c->doc;
        for (size_t i = 0; i < doc->ndatasets; i++)
            if (strcmp(doc->datasets[i]->name, name) == 0) return doc->datasets[i];
        json_t *data = json_object_get(fo_json_root(c->json), "data");
        if (json_is_object(data) && json_object_get(data, name)) return NULL; /* reported there */
        const char **names = fo_arena_alloc(doc->arena, (doc->ndatasets + 1) * sizeof *names);
        if (!names) return NULL;
        for (size_t i = 0; i < doc->ndatasets; i++) names[i] = doc->datasets[i]->name;
        const char *s = fo_spec_suggest(name, names);
        char hint[300];
        if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
        else if (doc->ndatasets) snprintf(hint, sizeof hint, "datasets defined in \"data\": %s%s", names[0], doc->ndatasets > 1 ? ", ..." : "");
        else snprintf(hint, sizeof hint, "define it under \"data\" or give {\"columns\", \"rows\"} inline");
        fo_spec_error(c, p, false, hint, "unknown dataset \"%s\"", name);
        return NULL;
    }
    fo_dataset *ds = read_dataset(c, v, p, label);
    if (ds) add_dataset(c, ds);
    return ds;
}

long fo_spec_field(fo_spec_ctx *c, const fo_dataset *ds, const char *name, const char *ptr)
{
    for (size_t i = 0; i < ds->ncols; i++)
        if (strcmp(ds->cols[i].name, name) == 0) return (long)i;
    const char **names = fo_arena_alloc(c->doc->arena, (ds->ncols + 1) * sizeof *names);
    if (!names) return -1;
    for (size_t i = 0; i < ds->ncols; i++) names[i] = ds->cols[i].name;
    const char *s = fo_spec_suggest(name, names);
    char hint[512];
    if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
    else {
        size_t n = (size_t)snprintf(hint, sizeof hint, "columns of \"%s\":", ds->name);
        for (size_t i = 0; i < ds->ncols && n < sizeof hint; i++)
            n += (size_t)snprintf(hint + n, sizeof hint - n, " %s", names[i]);
    }
    fo_spec_error(c, ptr, false, hint, "dataset \"%s\" has no column \"%s\"", ds->name, name);
    return -1;
}
