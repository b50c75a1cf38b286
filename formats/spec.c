/* spec.c — reads a result spec (version 1) into the document model.
 *
 * Two layers: jansson + fo_json give a DOM that can locate any pointer; this
 * file walks it block by block, validating everything and collecting every
 * problem (never stopping at the first). The document is returned only when
 * there are none. */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/image.h"
#include "formats/spec_internal.h"
#include "formats/theme.h"
#include "render/core/words.h"

static const char *const top_keys[] = {"folio", "title", "subtitle", "author", "date", "lang", "dir",
                                       "theme", "data", "blocks", "max_pages", "xlsx", "provenance",
                                       "nan", "$schema", NULL};

/* The spec's date as a title block shows it: an ISO date as written; a
 * date and time "2024-03-19T10:00:00" as "2024-03-19 10:00" (seconds only
 * when they are not :00; an offset or Z kept after a space, Z as UTC). */
static char *readable_date(fo_spec_ctx *c, const char *date)
{
    const char *t = strpbrk(date, "Tt ");
    if (!t || t - date != 10) return fo_spec_strdup(c, date);
    const char *clock = t + 1;
    size_t hm = strspn(clock, "0123456789:");
    const char *zone = clock + hm, *frac = zone;
    if (*zone == '.' || *zone == ',') { zone++; zone += strspn(zone, "0123456789"); }
    size_t keep = hm >= 8 && strncmp(clock + 5, ":00", 3) == 0 ? 5 : hm;   /* hh:mm[:ss] */
    if (keep == 5 && frac != zone) keep = hm;  /* fractions of a second: as written */
    char out[96];
    snprintf(out, sizeof out, "%.10s %.*s%s%s", date, (int)keep, clock,
             *zone ? " " : "", (*zone == 'Z' || *zone == 'z') && !zone[1] ? "UTC" : zone);
    return fo_spec_strdup(c, out);
}

/* ---- per-format options ----------------------------------------------------*/
static const char *const first_sheet_names[] = {"data", "summary", NULL};

/* "xlsx": {"first_sheet": "data" | "summary"} */
/* "nan": "blank" (default), "text" or "error": how NaN, Infinity and
 * -Infinity cells of inline data show. */
static void read_nan_option(fo_spec_ctx *c, json_t *root)
{
    static const char *const names[] = {"blank", "text", "error", NULL};
    const char *v = fo_spec_string(c, root, "", "nan", false);
    if (!v) return;
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0) { c->nan = i; c->nan_given = true; return; }
    const char *s = fo_spec_suggest(v, names);
    char hint[160];
    snprintf(hint, sizeof hint, s ? "did you mean '%s'?" : "one of: blank (an empty cell), text (NaN, \xE2\x88\x9E), error (#NUM!)%s",
             s ? s : "");
    fo_spec_error(c, "/nan", false, hint, "unknown \"nan\" value \"%s\"", v);
}

static void read_xlsx_options(fo_spec_ctx *c, json_t *root)
{
    json_t *o = json_object_get(root, "xlsx");
    if (!o) return;
    if (!json_is_object(o)) {
        fo_spec_error(c, "/xlsx", false, "e.g. \"xlsx\": {\"first_sheet\": \"summary\"}",
                      "\"xlsx\" must be an object, not %s", fo_spec_json_type(o));
        return;
    }
    static const char *const keys[] = {"first_sheet", NULL};
    fo_spec_check_keys(c, o, "/xlsx", keys);
    const char *first = fo_spec_string(c, o, "/xlsx", "first_sheet", false);
    if (!first) return;
    if (strcmp(first, "summary") == 0) c->doc->xlsx_summary_first = true;
    else if (strcmp(first, "data") != 0) {
        const char *s = fo_spec_suggest(first, first_sheet_names);
        char hint[128];
        snprintf(hint, sizeof hint, s ? "did you mean '%s'?" : "one of: data summary%s", s ? s : "");
        fo_spec_error(c, "/xlsx/first_sheet", false, hint, "unknown first sheet \"%s\"", first);
    }
}

/* "provenance": {"appendix": true} -- a closing "How this was computed"
 * section (render/core/prov.h, fo_prov_appendix). */
static void read_prov_options(fo_spec_ctx *c, json_t *root)
{
    json_t *o = json_object_get(root, "provenance");
    if (!o) return;
    if (!json_is_object(o)) {
        fo_spec_error(c, "/provenance", false, "e.g. \"provenance\": {\"appendix\": true}",
                      "\"provenance\" must be an object, not %s", fo_spec_json_type(o));
        return;
    }
    static const char *const keys[] = {"appendix", NULL};
    fo_spec_check_keys(c, o, "/provenance", keys);
    json_t *a = json_object_get(o, "appendix");
    if (a && !json_is_boolean(a))
        fo_spec_error(c, "/provenance/appendix", false, "true or false",
                      "\"appendix\" must be true or false, not %s", fo_spec_json_type(a));
    c->doc->prov_appendix = json_is_true(a);
}

/* ---- lists ----------------------------------------------------------------*/
static bool read_list_items(fo_spec_ctx *c, json_t *items, const char *ptr,
                            fo_list_item **out, size_t *n, int depth, bool ordered)
{
    if (!json_is_array(items)) {
        fo_spec_error(c, ptr, false, "e.g. \"items\": [\"first\", {\"text\": \"second\", \"items\": [\"nested\"]}]",
                      "\"items\" must be an array");
        return false;
    }
    if (depth > 8) {
        fo_spec_error(c, ptr, false, NULL, "lists nest at most 9 levels deep");
        return false;
    }
    *n = json_array_size(items);
    *out = fo_arena_alloc(c->doc->arena, (*n ? *n : 1) * sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < *n; i++) {
        json_t *it = json_array_get(items, i);
        fo_list_item *li = &(*out)[i];
        char p[FO_PTR_MAX];
        fo_json_ptr_item(p, sizeof p, ptr, i);
        if (json_is_string(it)) {
            li->text = fo_spec_strdup(c, fo_spec_text_value(c, it, p));
            fo_spec_check_markup(c, li->text, p);
            li->ordered = ordered;
        } else if (json_is_object(it)) {
            static const char *const keys[] = {"text", "items", "ordered", NULL};
            fo_spec_check_keys(c, it, p, keys);
            const char *t = fo_spec_string(c, it, p, "text", true);
            li->text = fo_spec_strdup(c, t ? t : "");
            fo_spec_check_markup(c, li->text, p);
            li->ordered = fo_spec_bool(c, it, p, "ordered", ordered); /* nested lists follow their parent */
            json_t *sub = json_object_get(it, "items");
            if (sub) {
                char sp[FO_PTR_MAX];
                fo_spec_ptr(sp, p, "items");
                read_list_items(c, sub, sp, &li->items, &li->nitems, depth + 1, li->ordered);
            }
        } else {
            fo_spec_error(c, p, false, "an item is a string or {\"text\", \"items\"}",
                          "a list item cannot be %s", fo_spec_json_type(it));
            li->text = fo_spec_strdup(c, "");
        }
    }
    return true;
}

/* ---- metrics ---------------------------------------------------------------*/
static void read_metrics(fo_spec_ctx *c, json_t *b, const char *ptr, fo_block *blk)
{
    static const char *const keys[] = {"label", "value", "format", "delta", "delta_format", "better", NULL};
    json_t *items = json_object_get(b, "items");
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "items");
    if (!json_is_array(items)) {
        fo_spec_error(c, items ? p : ptr, false, "e.g. \"items\": [{\"label\": \"Revenue\", \"value\": 1204.5, \"format\": \"$#,##0\"}]",
                      items ? "\"items\" must be an array" : "missing required key \"items\"");
        return;
    }
    size_t n = json_array_size(items);
    fo_metric *m = fo_arena_alloc(c->doc->arena, (n ? n : 1) * sizeof *m);
    if (!m) return;
    for (size_t i = 0; i < n; i++) {
        json_t *it = json_array_get(items, i);
        char ip[FO_PTR_MAX];
        fo_json_ptr_item(ip, sizeof ip, p, i);
        if (!json_is_object(it)) {
            fo_spec_error(c, ip, false, "{\"label\", \"value\", \"format\", \"delta\"}", "a metric must be an object");
            continue;
        }
        fo_spec_check_keys(c, it, ip, keys);
        const char *label = fo_spec_string(c, it, ip, "label", true);
        m[i].label = fo_spec_strdup(c, label ? label : "");
        json_t *v = json_object_get(it, "value");
        char vp[FO_PTR_MAX];
        fo_spec_ptr(vp, ip, "value");
        if (!v) fo_spec_error(c, ip, false, NULL, "missing required key \"value\"");
        else fo_spec_cell(c, v, vp, &m[i].value);
        const char *fmt = fo_spec_string(c, it, ip, "format", false);
        fo_spec_ptr(vp, ip, "format");
        m[i].format = fo_spec_strdup(c, fmt && fo_spec_check_format(c, fmt, vp) ? fmt :
                                     (m[i].value.kind == FO_VAL_DATE ? "yyyy-mm-dd" : "General"));
        json_t *delta = json_object_get(it, "delta");
        if (delta) {
            fo_spec_ptr(vp, ip, "delta");
            if (!json_is_number(delta))
                fo_spec_error(c, vp, false, "e.g. \"delta\": 0.12 with \"delta_format\": \"+0%;-0%\"",
                              "\"delta\" must be a number");
            else { m[i].has_delta = true; m[i].delta = json_number_value(delta); }
        }
        const char *dfmt = fo_spec_string(c, it, ip, "delta_format", false);
        fo_spec_ptr(vp, ip, "delta_format");
        m[i].delta_format = fo_spec_strdup(c, dfmt && fo_spec_check_format(c, dfmt, vp) ? dfmt : "+0.0%;-0.0%;0.0%");
        const char *better = fo_spec_string(c, it, ip, "better", false);
        if (better && strcmp(better, "lower") == 0) m[i].lower_is_better = true;
        else if (better && strcmp(better, "higher") != 0) {
            static const char *const dirs[] = {"higher", "lower", NULL};
            const char *s = fo_spec_suggest(better, dirs);
            char hint[128];
            snprintf(hint, sizeof hint, s ? "did you mean '%s'?" : "\"higher\" (default) or \"lower\" (a cost)%s",
                     s ? s : "");
            fo_spec_ptr(vp, ip, "better");
            fo_spec_error(c, vp, false, hint, "unknown direction \"%s\"", better);
        }
    }
    blk->u.metrics.items = m;
    blk->u.metrics.nitems = n;
}

/* ---- tables ----------------------------------------------------------------*/
static bool numeric_type(fo_type t)
{
    return t == FO_TYPE_INTEGER || t == FO_TYPE_NUMBER || t == FO_TYPE_PERCENT || t == FO_TYPE_CURRENCY;
}

/* A table column's field: "field", or "name" as the dataset's columns say. */
static const char *column_field(fo_spec_ctx *c, json_t *cv, const char *cp)
{
    json_t *f = json_object_get(cv, "field"), *n = json_object_get(cv, "name");
    if (f && n) {
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, cp, "name");
        fo_spec_error(c, p, true, "\"name\" is another word for \"field\": keep one", "a table column has both \"field\" and \"name\"");
    }
    if (!f && n) return fo_spec_string(c, cv, cp, "name", true);
    if (!f) {
        fo_spec_error(c, cp, false, "e.g. {\"field\": \"revenue\", \"title\": \"Revenue\", \"format\": \"#,##0\"} "
                      "(\"name\" works too)", "missing required key \"field\"");
        return NULL;
    }
    return fo_spec_string(c, cv, cp, "field", true);
}

/* "type" on a table column: types live on the dataset's columns. */
static void column_type_misplaced(fo_spec_ctx *c, json_t *cv, const char *cp, const fo_dataset *ds)
{
    json_t *t = json_object_get(cv, "type");
    if (!t) return;
    char p[FO_PTR_MAX], hint[FO_PTR_MAX + 200];
    fo_spec_ptr(p, cp, "type");
    if (ds->src == FO_SRC_CSV)
        snprintf(hint, sizeof hint, "declare it on the dataset: %s/types, e.g. \"types\": {\"amount\": \"%s\"}",
                 ds->pointer, json_is_string(t) ? json_string_value(t) : "currency");
    else
        snprintf(hint, sizeof hint, "declare it on the dataset's column: %s/columns, e.g. {\"name\": \"amount\", \"type\": \"%s\"}",
                 ds->pointer, json_is_string(t) ? json_string_value(t) : "currency");
    fo_spec_error(c, p, true, hint, "a table column has no \"type\": types belong to the dataset's columns "
                  "(a table column picks a field and may give a title and a format)");
}

/* A table's "sheet": the name its xlsx sheet takes, as Excel allows it (at
 * most 31 characters, none of []:*?/\, not starting or ending with an
 * apostrophe, not "History"); a name taken twice gets " (2)" there. */
static void read_sheet_name(fo_spec_ctx *c, json_t *b, const char *ptr, fo_block *blk)
{
    const char *name = fo_spec_string(c, b, ptr, "sheet", false);
    if (!name) return;
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "sheet");
    size_t units = 0, len = strlen(name);
    for (size_t i = 0; i < len; i++) /* UTF-16 units, as Excel counts */
        if (((unsigned char)name[i] & 0xC0) != 0x80) units += (unsigned char)name[i] >= 0xF0 ? 2 : 1;
    const char *bad = strpbrk(name, "[]:*?/\\");
    if (units == 0 || units > 31)
        fo_spec_error(c, p, false, "Excel allows 1 to 31 characters: shorten it, e.g. \"Income statement\"",
                      "sheet name \"%s\" has %zu characters", name, units);
    else if (bad)
        fo_spec_error(c, p, false, "Excel forbids [ ] : * ? / \\ in sheet names; use ( ) or -",
                      "sheet name \"%s\" holds '%c'", name, *bad);
    else if (name[0] == '\'' || name[len - 1] == '\'' || strcasecmp(name, "History") == 0)
        fo_spec_error(c, p, false, "Excel reserves \"History\" and apostrophes at either end",
                      "sheet name \"%s\" is not allowed", name);
    else blk->u.table.sheet = fo_spec_strdup(c, name);
}

/* "dir": "ltr" | "rtl" of obj at ptr (ptr "" for the document). */
static fo_dir_choice read_dir(fo_spec_ctx *c, json_t *obj, const char *ptr)
{
    const char *d = fo_spec_string(c, obj, ptr, "dir", false);
    if (!d) return FO_DIR_CHOICE_AUTO;
    if (!strcmp(d, "ltr")) return FO_DIR_CHOICE_LTR;
    if (!strcmp(d, "rtl")) return FO_DIR_CHOICE_RTL;
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "dir");
    fo_spec_error(c, p, false, "one of: ltr rtl (left out: the language or the text decides)",
                  "unknown direction \"%s\"", d);
    return FO_DIR_CHOICE_AUTO;
}

static int cmp_row_style(const void *a, const void *b)
{
    size_t x = ((const fo_row_style *)a)->row, y = ((const fo_row_style *)b)->row;
    return x < y ? -1 : x > y;
}

/* "row_styles": [{"row": 3, "bold": true, "indent": 1}, ...]: rows from 0,
 * each once, within the dataset's rows when they are known (inline). */
static void read_row_styles(fo_spec_ctx *c, json_t *b, const char *ptr, fo_block *blk, const fo_dataset *ds)
{
    json_t *rs = json_object_get(b, "row_styles");
    if (!rs) return;
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "row_styles");
    static const char *hint = "e.g. \"row_styles\": [{\"row\": 3, \"bold\": true, \"indent\": 1}] (rows count from 0)";
    if (!json_is_array(rs)) {
        fo_spec_error(c, p, false, hint, "\"row_styles\" must be an array, not %s", fo_spec_json_type(rs));
        return;
    }
    size_t n = json_array_size(rs), k = 0;
    fo_row_style *v = fo_arena_alloc(c->doc->arena, (n ? n : 1) * sizeof *v);
    if (!v) return;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(rs, i);
        char ip[FO_PTR_MAX];
        fo_json_ptr_item(ip, sizeof ip, p, i);
        if (!json_is_object(o)) {
            fo_spec_error(c, ip, false, hint, "a row style is an object, not %s", fo_spec_json_type(o));
            continue;
        }
        static const char *const keys[] = {"row", "bold", "indent", NULL};
        fo_spec_check_keys(c, o, ip, keys);
        json_t *row = json_object_get(o, "row");
        char rp[FO_PTR_MAX];
        fo_spec_ptr(rp, ip, "row");
        if (!row) { fo_spec_error(c, ip, false, hint, "missing required key \"row\""); continue; }
        double rv = json_number_value(row);
        if (!json_is_number(row) || !(rv >= 0 && rv <= 1e15) || rv != floor(rv)) {
            fo_spec_error(c, rp, false, "a data row's index: 0 is the first row under the header",
                          "\"row\" must be a whole number from 0");
            continue;
        }
        size_t r = (size_t)rv;
        if (ds && ds->src == FO_SRC_INLINE && r >= ds->nrows) {
            char h[160];
            snprintf(h, sizeof h, "rows count from 0: the last of the dataset's %zu rows is %zu", ds->nrows,
                     ds->nrows ? ds->nrows - 1 : 0);
            fo_spec_error(c, rp, false, h, "row %zu is past the table's last row", r);
            continue;
        }
        v[k].row = r;
        v[k].bold = fo_spec_bool(c, o, ip, "bold", false);
        v[k].indent = (int)fo_spec_int(c, o, ip, "indent", 0, 6, 0);
        k++;
    }
    qsort(v, k, sizeof *v, cmp_row_style);
    for (size_t i = 1; i < k; i++)
        if (v[i].row == v[i - 1].row) {
            fo_spec_error(c, p, false, "give each row one style: {\"row\": N, \"bold\": true, \"indent\": 1}",
                          "row %zu is styled twice", v[i].row);
            return;
        }
    blk->u.table.row_styles = v;
    blk->u.table.nrow_styles = k;
}

static void read_table(fo_spec_ctx *c, json_t *b, const char *ptr, fo_block *blk, size_t index)
{
    char label[64], p[FO_PTR_MAX];
    snprintf(label, sizeof label, "table %zu", index + 1);
    fo_dataset *ds = fo_spec_block_data(c, b, ptr, label);
    const char *caption = fo_spec_string(c, b, ptr, "caption", false);
    blk->u.table.caption = fo_spec_strdup(c, caption);
    fo_spec_ptr(p, ptr, "caption");
    fo_spec_check_markup(c, caption, p);
    read_sheet_name(c, b, ptr, blk);
    blk->u.table.dir = read_dir(c, b, ptr);
    if (!ds) return;
    blk->u.table.data = ds;
    read_row_styles(c, b, ptr, blk, ds);
    json_t *cols = json_object_get(b, "columns");
    size_t n = cols ? json_array_size(cols) : ds->ncols;
    fo_spec_ptr(p, ptr, "columns");
    if (cols && (!json_is_array(cols) || n == 0)) {
        fo_spec_error(c, p, false, "e.g. \"columns\": [\"month\", {\"field\": \"revenue\", \"format\": \"#,##0\"}]",
                      "\"columns\" must be a non-empty array");
        return;
    }
    fo_table_col *tc = fo_arena_alloc(c->doc->arena, n * sizeof *tc);
    if (!tc) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *field = NULL, *title = NULL, *format = NULL;
        char cp[FO_PTR_MAX];
        fo_json_ptr_item(cp, sizeof cp, p, i);
        if (!cols) field = ds->cols[i].name;
        else {
            json_t *cv = json_array_get(cols, i);
            if (json_is_string(cv)) field = json_string_value(cv);
            else if (json_is_object(cv)) {
                static const char *const keys[] = {"field", "name", "title", "format", "type", NULL};
                fo_spec_check_keys(c, cv, cp, keys);
                field = column_field(c, cv, cp);
                column_type_misplaced(c, cv, cp, ds);
                title = fo_spec_string(c, cv, cp, "title", false);
                format = fo_spec_string(c, cv, cp, "format", false);
                char fp[FO_PTR_MAX];
                fo_spec_ptr(fp, cp, "format");
                if (format && !fo_spec_check_format(c, format, fp)) format = NULL;
                fo_json_ptr_item(cp, sizeof cp, p, i);
                fo_json_ptr_push(cp, sizeof cp, "field");
            } else {
                fo_spec_error(c, cp, false, "a column is a field name or {\"field\", \"title\", \"format\"}",
                              "a table column cannot be %s", fo_spec_json_type(cv));
                continue;
            }
        }
        if (!field) continue;
        long f = fo_spec_field(c, ds, field, cp);
        if (f < 0) continue;
        tc[k].field = (size_t)f;
        tc[k].title = fo_spec_strdup(c, title ? title : field);
        tc[k].format = format ? fo_spec_strdup(c, format) : ds->cols[f].format;
        tc[k].type = ds->cols[f].type;
        k++;
    }
    blk->u.table.cols = tc;
    blk->u.table.ncols = k;

    json_t *totals = json_object_get(b, "totals");
    fo_spec_ptr(p, ptr, "totals");
    if (totals && !json_is_object(totals)) {
        fo_spec_error(c, p, false, "e.g. \"totals\": {\"revenue\": \"sum\"}", "\"totals\" must be an object");
    } else if (totals) {
        const char *key;
        json_t *op;
        json_object_foreach(totals, key, op) {
            char tp[FO_PTR_MAX];
            snprintf(tp, sizeof tp, "%s", p);
            fo_json_ptr_push(tp, sizeof tp, key);
            fo_table_col *col = NULL;
            for (size_t i = 0; i < k && !col; i++)
                if (strcmp(ds->cols[tc[i].field].name, key) == 0) col = &tc[i];
            if (!col) {
                const char **names = fo_arena_alloc(c->doc->arena, (k + 1) * sizeof *names);
                if (!names) return;
                for (size_t i = 0; i < k; i++) names[i] = ds->cols[tc[i].field].name;
                const char *s = fo_spec_suggest(key, names);
                char hint[300];
                snprintf(hint, sizeof hint, s ? "did you mean '%s'?" : "totals are keyed by a field shown in the table%s", s ? s : "");
                fo_spec_error(c, tp, true, hint, "the table shows no column \"%s\"", key);
                continue;
            }
            const char *o = json_is_string(op) ? json_string_value(op) : "";
            fo_total t = FO_TOTAL_NONE;
            bool known = false;
            for (int i = 0; fo_total_names[i]; i++)
                if (strcmp(o, fo_total_names[i]) == 0) { t = (fo_total)i; known = true; }
            if (!known) {
                const char *s = fo_spec_suggest(o, fo_total_names);
                char hint[128];
                snprintf(hint, sizeof hint, s ? "did you mean '%s'?" : "one of: sum avg min max count%s", s ? s : "");
                fo_spec_error(c, tp, false, hint, "unknown total \"%s\"", o);
                continue;
            }
            if (t != FO_TOTAL_COUNT && t != FO_TOTAL_NONE && !numeric_type(col->type) &&
                col->type != FO_TYPE_AUTO && ds->nrows > 0) {
                fo_spec_error(c, tp, false, "use \"count\", or give the column a numeric type",
                              "column \"%s\" is %s; \"%s\" needs numbers", key, fo_type_name(col->type), o);
                continue;
            }
            col->total = t;
            if (t != FO_TOTAL_NONE) blk->u.table.has_totals = true;
        }
    }
}

/* ---- charts ----------------------------------------------------------------*/

/* Refuses, at its cell, an inline value of column f beyond the largest
 * magnitude a chart draws (the chart engine checks CSV data when it reads
 * it). One error per column: the first offending row. */
static void check_chart_column(fo_spec_ctx *c, const fo_dataset *ds, size_t f, const char *ptr)
{
    if (ds->src != FO_SRC_INLINE) return;
    for (size_t r = 0; r < ds->nrows; r++) {
        double v = fo_value_number(&ds->cells[r * ds->ncols + f]);
        if (!(fabs(v) > FO_CHART_VALUE_MAX)) continue;
        char p[FO_PTR_MAX];
        snprintf(p, sizeof p, "%s", ds->pointer ? ds->pointer : ptr);
        fo_json_ptr_push(p, sizeof p, "rows");
        fo_json_ptr_push_index(p, sizeof p, r);
        fo_json_ptr_push_index(p, sizeof p, f);
        fo_spec_error(c, p, false, "scale the values (e.g. show millions) or show them in a table",
                      "chart value %g (column \"%s\", charted by %s) is beyond +-1e15, the largest a chart draws",
                      v, ds->cols[f].name, ptr);
        return;
    }
}

/* Refuses, at its cell, an inline value of column f that a logarithmic
 * axis cannot show (zero or negative). One error per column. */
static void check_log_column(fo_spec_ctx *c, const fo_dataset *ds, size_t f, const char *ptr)
{
    if (ds->src != FO_SRC_INLINE) return;
    for (size_t r = 0; r < ds->nrows; r++) {
        double v = fo_value_number(&ds->cells[r * ds->ncols + f]);
        if (!(v <= 0)) continue; /* NaN (a gap) passes */
        char p[FO_PTR_MAX];
        snprintf(p, sizeof p, "%s", ds->pointer ? ds->pointer : ptr);
        fo_json_ptr_push(p, sizeof p, "rows");
        fo_json_ptr_push_index(p, sizeof p, r);
        fo_json_ptr_push_index(p, sizeof p, f);
        fo_spec_error(c, p, false, "a log axis shows only positive values: leave the cell empty (null), "
                      "or drop \"y_scale\": \"log\"",
                      "value %g (column \"%s\", charted by %s) is not positive; \"y_scale\": \"log\" cannot show it",
                      v, ds->cols[f].name, ptr);
        return;
    }
}

/* "#RRGGBB" into *out; false for anything else. */
static bool parse_rgb(const char *s, long *out)
{
    if (!s || s[0] != '#' || strlen(s) != 7) return false;
    for (int i = 1; i < 7; i++)
        if (!isxdigit((unsigned char)s[i])) return false;
    *out = strtol(s + 1, NULL, 16);
    return true;
}

/* One series of "y": a field name, or {"field", "title", "color"}. Returns
 * the field's name (NULL after an error); the title and colour into
 * ch->y_titles / ch->y_colors at slot k. */
static const char *read_series(fo_spec_ctx *c, fo_chart *ch, json_t *yv, const char *yp, size_t k)
{
    if (json_is_string(yv)) return json_string_value(yv);
    if (!json_is_object(yv)) {
        fo_spec_error(c, yp, false, "e.g. \"revenue\" or {\"field\": \"revenue\", \"title\": \"Revenue\", \"color\": \"#1F77B4\"}",
                      "a series is a field name or an object, not %s", fo_spec_json_type(yv));
        return NULL;
    }
    char p[FO_PTR_MAX];
    if (json_object_get(yv, "name") || json_object_get(yv, "column")) {
        const char *bad = json_object_get(yv, "name") ? "name" : "column";
        fo_spec_ptr(p, yp, bad);
        fo_spec_error(c, p, true, "a series names its column with \"field\" and its legend entry with \"title\": "
                      "{\"field\": \"rev\", \"title\": \"Revenue\"}", "unknown key \"%s\"", bad);
        return NULL;
    }
    static const char *const keys[] = {"field", "title", "color", NULL};
    fo_spec_check_keys(c, yv, yp, keys);
    const char *field = fo_spec_string(c, yv, yp, "field", true);
    const char *title = fo_spec_string(c, yv, yp, "title", false);
    if (title) ch->y_titles[k] = fo_spec_strdup(c, title);
    json_t *col = json_object_get(yv, "color");
    if (col) {
        fo_spec_ptr(p, yp, "color");
        long rgb;
        if (!json_is_string(col) || !parse_rgb(json_string_value(col), &rgb))
            fo_spec_error(c, p, false, "colors are \"#RRGGBB\", e.g. \"#1F77B4\"", "invalid color");
        else if (fo_chart_traits_of(ch->kind)->family == FO_CHART_ROUND)
            fo_spec_error(c, p, false, "a pie's slices take the theme's palette; a series \"color\" is for "
                          "bar, column, line, area and scatter charts", "a %s chart has no series colour",
                          fo_chart_kind_name(ch->kind));
        else ch->y_colors[k] = rgb;
    }
    return field;
}

/* "y_scale": "linear" (default) or "log". */
static void read_y_scale(fo_spec_ctx *c, json_t *b, const char *ptr, fo_chart *ch)
{
    const char *sc = fo_spec_string(c, b, ptr, "y_scale", false);
    if (!sc) return;
    char p[FO_PTR_MAX];
    fo_spec_ptr(p, ptr, "y_scale");
    if (strcmp(sc, "log") == 0) ch->y_log = true;
    else if (strcmp(sc, "linear") != 0) {
        fo_spec_error(c, p, false, "one of: linear log", "unknown scale \"%s\"", sc);
        return;
    }
    if (!ch->y_log) return;
    if (!fo_chart_traits_of(ch->kind)->log_axis)
        fo_spec_error(c, p, false, "drop \"y_scale\", or chart the values as bars or a line",
                      "a %s chart has no value axis to make logarithmic", fo_chart_kind_name(ch->kind));
    else if (ch->stacked)
        fo_spec_error(c, p, false, "drop \"stacked\" (on a log axis stacked parts do not add up visually), or \"y_scale\"",
                      "a stacked chart cannot have a logarithmic axis");
}

/* "one of: bar column ..." from a NULL-terminated list of words. */
static void one_of(char *hint, size_t cap, const char *const *words)
{
    size_t n = (size_t)snprintf(hint, cap, "one of:");
    for (size_t i = 0; words[i] && n < cap; i++) n += (size_t)snprintf(hint + n, cap - n, " %s", words[i]);
}

static void read_chart(fo_spec_ctx *c, json_t *b, const char *ptr, fo_block *blk, size_t index)
{
    fo_chart *ch = &blk->u.chart;
    char p[FO_PTR_MAX], label[64];
    snprintf(label, sizeof label, "chart %zu", index + 1);
    const char *kind = fo_spec_string(c, b, ptr, "kind", true);
    if (kind) {
        bool ok = false;
        const char *names[FO_CHART_NKINDS + 1];
        fo_chart_kind_names(names);
        for (int i = 0; names[i]; i++)
            if (strcmp(kind, names[i]) == 0) { ch->kind = (fo_chart_kind)i; ok = true; }
        if (!ok) {
            const char *s = fo_spec_suggest(kind, names);
            char hint[160];
            if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
            else one_of(hint, sizeof hint, names);
            /* "stacked_bar", "stacked-column", "stackedArea": a kind and "stacked" */
            if (strncasecmp(kind, "stacked", 7) == 0) {
                const char *base = kind + 7 + (kind[7] == '_' || kind[7] == '-' || kind[7] == ' ');
                for (int i = 0; names[i]; i++)
                    if (strcasecmp(base, names[i]) == 0)
                        snprintf(hint, sizeof hint, "stacking is its own key: \"kind\": \"%s\", \"stacked\": true",
                                 names[i]);
            }
            fo_spec_ptr(p, ptr, "kind");
            fo_spec_error(c, p, false, hint, "unknown chart kind \"%s\"", kind);
        }
    }
    ch->stacked = fo_spec_bool(c, b, ptr, "stacked", false);
    read_y_scale(c, b, ptr, ch);
    ch->title = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "title", false));
    ch->x_title = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "x_title", false));
    ch->y_title = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "y_title", false));
    ch->alt = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "alt", false));
    ch->rtl = c->doc->rtl;
    ch->lang = c->doc->lang;
    ch->width = (int)fo_spec_int(c, b, ptr, "width", 100, 4000, 800);
    ch->height = (int)fo_spec_int(c, b, ptr, "height", 100, 4000, 500);
    const char *legend = fo_spec_string(c, b, ptr, "legend", false);
    ch->legend = FO_LEGEND_RIGHT;
    if (legend) {
        bool known = false;
        for (int i = 0; fo_legend_names[i]; i++)
            if (strcmp(legend, fo_legend_names[i]) == 0) { ch->legend = (fo_legend)i; known = true; }
        if (!known) {
            fo_spec_ptr(p, ptr, "legend");
            fo_spec_error(c, p, false, "one of: right bottom none", "unknown legend position \"%s\"", legend);
        }
    }
    fo_dataset *ds = fo_spec_block_data(c, b, ptr, label);
    if (!ds) return;
    ch->data = ds;
    bool xy = fo_chart_traits_of(ch->kind)->family == FO_CHART_XY; /* x holds numbers */
    const char *x = fo_spec_string(c, b, ptr, "x", true);
    if (x) {
        fo_spec_ptr(p, ptr, "x");
        long f = fo_spec_field(c, ds, x, p);
        if (f >= 0) {
            ch->x = (size_t)f;
            fo_type t = ds->cols[f].type;
            if (xy && !numeric_type(t) && t != FO_TYPE_DATE && t != FO_TYPE_DATETIME &&
                t != FO_TYPE_AUTO && ds->nrows > 0)
                fo_spec_error(c, p, false, "a scatter chart needs numeric x values; use \"line\" for categories",
                              "column \"%s\" is %s", x, fo_type_name(t));
        }
    }
    json_t *y = json_object_get(b, "y");
    fo_spec_ptr(p, ptr, "y");
    if (!y) { fo_spec_error(c, ptr, false, "e.g. \"y\": \"revenue\" or [\"revenue\", \"cost\"]", "missing required key \"y\""); return; }
    size_t ny = json_is_array(y) ? json_array_size(y) : 1;
    if ((!json_is_string(y) && !json_is_array(y)) || ny == 0) {
        fo_spec_error(c, p, false, "e.g. \"y\": \"revenue\" or [\"revenue\", \"cost\"]", "\"y\" must be a field name or a non-empty array of them");
        return;
    }
    ch->y = fo_arena_alloc(c->doc->arena, ny * sizeof *ch->y);
    ch->y_titles = fo_arena_alloc(c->doc->arena, ny * sizeof *ch->y_titles);
    ch->y_colors = fo_arena_alloc(c->doc->arena, ny * sizeof *ch->y_colors);
    if (!ch->y || !ch->y_titles || !ch->y_colors) return;
    for (size_t i = 0; i < ny; i++) { ch->y_titles[i] = NULL; ch->y_colors[i] = -1; }
    if (ds->nrows == 0 && !(ds->ncols && ds->cols[0].type == FO_TYPE_AUTO)) {
        char dp[FO_PTR_MAX];
        fo_spec_ptr(dp, ptr, "data");
        fo_spec_warn(c, dp, ds->src == FO_SRC_CSV ? "the CSV file has a header but no data rows"
                     : "give the dataset at least one row: \"rows\": [[...], ...]",
                     "dataset \"%s\" has no rows: the chart says \"No data\"", ds->name);
    }
    for (size_t i = 0; i < ny; i++) {
        json_t *yv = json_is_array(y) ? json_array_get(y, i) : y;
        char yp[FO_PTR_MAX];
        snprintf(yp, sizeof yp, "%s", p);
        if (json_is_array(y)) fo_json_ptr_push_index(yp, sizeof yp, i);
        const char *field = read_series(c, ch, yv, yp, ch->ny);
        if (json_is_object(yv)) fo_json_ptr_push(yp, sizeof yp, "field");
        long f = field ? fo_spec_field(c, ds, field, yp) : -1;
        if (f >= 0 && !numeric_type(ds->cols[f].type) && ds->cols[f].type != FO_TYPE_AUTO && ds->nrows > 0) {
            fo_spec_error(c, yp, false, "a series needs numbers; give the column a numeric type",
                          "column \"%s\" is %s", field, fo_type_name(ds->cols[f].type));
            f = -1;
        }
        if (f < 0) { ch->y_titles[ch->ny] = NULL; ch->y_colors[ch->ny] = -1; continue; }
        ch->y[ch->ny++] = (size_t)f;
        check_chart_column(c, ds, (size_t)f, yp);
        if (ch->y_log) check_log_column(c, ds, (size_t)f, yp);
    }
    if (xy && ch->x < ds->ncols && x) check_chart_column(c, ds, ch->x, ptr);
}

/* ---- one block --------------------------------------------------------------*/
static const char *const *keys_for(const char *type)
{
    static const char *const heading[] = {"type", "text", "level", NULL};
    static const char *const paragraph[] = {"type", "text", NULL};
    static const char *const list[] = {"type", "items", "ordered", NULL};
    static const char *const metrics[] = {"type", "items", NULL};
    static const char *const table[] = {"type", "data", "columns", "caption", "totals", "sheet", "dir",
                                        "row_styles", NULL};
    static const char *const chart[] = {"type", "kind", "data", "x", "y", "stacked", "title", "x_title",
                                        "y_title", "y_scale", "legend", "width", "height", "alt", NULL};
    static const char *const image[] = {"type", "path", "width", "height", "alt", "caption", NULL};
    static const char *const code[] = {"type", "text", "language", NULL};
    static const char *const bare[] = {"type", NULL};
    static const char *const toc[] = {"type", "title", NULL};
    if (!strcmp(type, "heading")) return heading;
    if (!strcmp(type, "paragraph")) return paragraph;
    if (!strcmp(type, "list")) return list;
    if (!strcmp(type, "metrics")) return metrics;
    if (!strcmp(type, "table")) return table;
    if (!strcmp(type, "chart")) return chart;
    if (!strcmp(type, "image")) return image;
    if (!strcmp(type, "code")) return code;
    if (!strcmp(type, "toc")) return toc;
    return bare;
}

static bool read_block(fo_spec_ctx *c, json_t *b, size_t i, fo_block *blk, size_t *ntables, size_t *ncharts)
{
    char ptr[FO_PTR_MAX] = "/blocks";
    fo_json_ptr_push_index(ptr, sizeof ptr, i);
    if (!json_is_object(b)) {
        fo_spec_error(c, ptr, false, "e.g. {\"type\": \"paragraph\", \"text\": \"...\"}",
                      "a block must be an object, not %s", fo_spec_json_type(b));
        return false;
    }
    const char *type = fo_spec_string(c, b, ptr, "type", true);
    if (!type) return false;
    int kind = -1;
    for (int k = 0; fo_block_kind_names[k]; k++)
        if (strcmp(type, fo_block_kind_names[k]) == 0) kind = k;
    if (kind < 0) {
        char p[FO_PTR_MAX], hint[200];
        fo_spec_ptr(p, ptr, "type");
        const char *s = fo_spec_suggest(type, fo_block_kind_names);
        if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
        else snprintf(hint, sizeof hint, "one of: heading paragraph list metrics table chart image code page_break toc");
        fo_spec_error(c, p, false, hint, "unknown block type \"%s\"", type);
        return false;
    }
    fo_spec_check_keys(c, b, ptr, keys_for(type));
    blk->kind = (fo_block_kind)kind;
    blk->pointer = fo_spec_strdup(c, ptr);
    switch (blk->kind) {
    case FO_BLOCK_HEADING: {
        const char *t = fo_spec_string(c, b, ptr, "text", true);
        if (t && strlen(t) > FO_SPEC_NAME_MAX) {
            char p[FO_PTR_MAX];
            fo_spec_ptr(p, ptr, "text");
            t = fo_spec_capped(c, json_object_get(b, "text"), p, FO_SPEC_NAME_MAX);
        }
        blk->u.heading.text = fo_spec_strdup(c, t ? t : "");
        blk->u.heading.level = (int)fo_spec_int(c, b, ptr, "level", 1, 6, 1);
        break;
    }
    case FO_BLOCK_PARAGRAPH: {
        const char *t = fo_spec_string(c, b, ptr, "text", true);
        blk->u.paragraph.text = fo_spec_strdup(c, t ? t : "");
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "text");
        fo_spec_check_markup(c, t, p);
        break;
    }
    case FO_BLOCK_LIST: {
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "items");
        blk->u.list.ordered = fo_spec_bool(c, b, ptr, "ordered", false);
        json_t *items = json_object_get(b, "items");
        if (!items) fo_spec_error(c, ptr, false, NULL, "missing required key \"items\"");
        else read_list_items(c, items, p, &blk->u.list.items, &blk->u.list.nitems, 0, blk->u.list.ordered);
        break;
    }
    case FO_BLOCK_METRICS: read_metrics(c, b, ptr, blk); break;
    case FO_BLOCK_TABLE: read_table(c, b, ptr, blk, (*ntables)++); break;
    case FO_BLOCK_CHART: read_chart(c, b, ptr, blk, (*ncharts)++); break;
    case FO_BLOCK_IMAGE: {
        const char *path = fo_spec_string(c, b, ptr, "path", true);
        blk->u.image.alt = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "alt", false));
        blk->u.image.caption = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "caption", false));
        char cp[FO_PTR_MAX];
        fo_spec_ptr(cp, ptr, "caption");
        fo_spec_check_markup(c, blk->u.image.caption, cp);
        blk->u.image.width = (double)fo_spec_int(c, b, ptr, "width", 1, 10000, 0);
        blk->u.image.height = (double)fo_spec_int(c, b, ptr, "height", 1, 10000, 0);
        if (!path) break;
        char p[FO_PTR_MAX];
        fo_spec_ptr(p, ptr, "path");
        blk->u.image.path = fo_spec_resolve(c, path, p, FO_IMAGE_MAX_BYTES);
        fo_image_info info;
        const char *why = blk->u.image.path ? fo_image_check(blk->u.image.path, &info) : NULL;
        if (why)
            fo_spec_error(c, p, false, "images must be intact PNG or JPEG files of at most 50 megapixels and 30 MiB",
                          "\"%s\" cannot be used: %s", path, why);
        else if (blk->u.image.path) {
            blk->u.image.is_png = info.is_png;
            blk->u.image.px_width = info.width;
            blk->u.image.px_height = info.height;
        }
        break;
    }
    case FO_BLOCK_CODE: {
        const char *t = fo_spec_string(c, b, ptr, "text", true);
        blk->u.code.text = fo_spec_strdup(c, t ? t : "");
        size_t lines = 1;
        for (const char *q = t ? strchr(t, '\n') : NULL; q; q = strchr(q + 1, '\n')) lines++;
        if (lines > FO_SPEC_CODE_LINES) {
            char p[FO_PTR_MAX];
            fo_spec_ptr(p, ptr, "text");
            fo_spec_error(c, p, false, "split it into several code blocks, or attach the file",
                          "a code block of %zu lines is too long (at most %u)", lines, FO_SPEC_CODE_LINES);
        }
        blk->u.code.language = fo_spec_strdup(c, fo_spec_string(c, b, ptr, "language", false));
        break;
    }
    case FO_BLOCK_TOC: {
        const char *t = fo_spec_string(c, b, ptr, "title", false);
        blk->u.heading.text = fo_spec_strdup(c, t ? t : fo_word(c->doc->lang, FO_W_CONTENTS));
        break;
    }
    case FO_BLOCK_PAGE_BREAK: break;
    }
    return true;
}

/* ---- top level ----------------------------------------------------------------*/
static void read_theme(fo_spec_ctx *c, const char *theme);

static void read_meta(fo_spec_ctx *c, json_t *root)
{
    fo_doc *doc = c->doc;
    json_t *v = json_object_get(root, "folio");
    if (!v) fo_spec_error(c, "", false, "start the spec with \"folio\": 1", "missing required key \"folio\" (the spec version)");
    else if (!json_is_number(v) || json_number_value(v) != 1)
        fo_spec_error(c, "/folio", false, "this folio reads spec version 1", "unsupported spec version");
    doc->title = fo_spec_strdup(c, fo_spec_string(c, root, "", "title", false));
    doc->subtitle = fo_spec_strdup(c, fo_spec_string(c, root, "", "subtitle", false));
    doc->author = fo_spec_strdup(c, fo_spec_string(c, root, "", "author", false));
    const char *lang = fo_spec_string(c, root, "", "lang", false);
    if (lang && !fo_lang_valid(lang))
        fo_spec_error(c, "/lang", false, "a BCP 47 language tag, e.g. \"de\", \"pt-BR\", \"ar\", \"zh-Hans\"",
                      "invalid language tag \"%s\"", lang);
    else doc->lang = fo_spec_strdup(c, lang);
    fo_dir_choice dir = doc->dir = read_dir(c, root, "");
    doc->rtl = dir == FO_DIR_CHOICE_RTL || (dir == FO_DIR_CHOICE_AUTO && fo_lang_rtl(doc->lang));
    const char *date = fo_spec_string(c, root, "", "date", false);
    doc->epoch = fo_default_epoch();
    if (date) {
        double serial;
        if (!fo_parse_iso_date(date, strlen(date), &serial, NULL))
            fo_spec_error(c, "/date", false, "use ISO 8601, e.g. \"2026-09-30\"", "invalid date \"%s\"", date);
        else {
            doc->date = readable_date(c, date);
            doc->epoch = (int64_t)((serial - 25569.0) * 86400.0 + 0.5);
        }
    }
    doc->max_pages = (int)fo_spec_int(c, root, "", "max_pages", 1, 30000, 0);
    const char *theme = fo_spec_string(c, root, "", "theme", false);
    fo_theme_default(&doc->theme);
    if (theme) read_theme(c, theme);
    fo_theme_localize(&doc->theme, doc->lang);
}

/* The spec's "theme": a built-in name or a theme file beside the spec. */
static void read_theme(fo_spec_ctx *c, const char *theme)
{
    fo_doc *doc = c->doc;
    /* a built-in name, or a theme file beside the spec */
    size_t n = strlen(theme);
    const char *path = theme;
    if (n > 5 && !strcmp(theme + n - 5, ".json") && !(path = fo_spec_resolve(c, theme, "/theme", FO_THEME_MAX_BYTES))) return;
    fo_diags td;
    fo_diags_init(&td);
    if (fo_theme_load(path, &doc->theme, &td) != FO_OK) {
        c->errors++; /* one for the theme: its own diagnostics are capped already */
        for (size_t i = 0; i < td.n; i++) {
            const fo_diag *g = &td.items[i];
            if (g->file) {
                fo_diags_add(c->d, g->file, g->line, g->column, g->pointer, g->hint, "%s", g->message);
            } else {
                fo_spec_error(c, "/theme", false, g->hint, "%s", g->message);
            }
        }
    }
    fo_diags_free(&td);
}

/* One warning for all the NaN / Infinity values the JSON reader took as
 * null (formats/json.h), at the first. */
static void report_nonfinite(fo_spec_ctx *c)
{
    int line = 0, col = 0;
    size_t n = fo_json_nonfinite(c->json, &line, &col);
    if (!n || c->nan_given) return;   /* "nan" said how they show */
    c->warnings++;
    fo_diags_add(c->d, c->file, line, col, NULL,
                 "write null for a missing value (pandas: df.astype(object).where(df.notna(), None); "
                 "json.dumps(..., allow_nan=False) finds them), or show them as text: \"nan\": \"text\"",
                 "warning: NaN, Infinity and -Infinity are not JSON; %s%zu such value%s read as empty (null)",
                 n == 1 ? "" : "the first is here; ", n, n == 1 ? "" : "s");
}

/* Builds the document from a parsed JSON (takes ownership of json). */
static fo_status spec_from_json(fo_json *json, const char *display, const char *base_real,
                                fo_doc **out, fo_diags *d)
{
    fo_status st = FO_OK;
    fo_spec_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.file = display;
    c.json = json;
    snprintf(c.base_real, sizeof c.base_real, "%s", base_real);
    fo_doc *doc = fo_calloc(1, sizeof *doc);
    if (!doc || !(doc->arena = fo_arena_new())) { fo_free(doc); fo_json_free(json); return FO_ERR_NOMEM; }
    c.doc = doc;
    doc->spec_path = fo_arena_strdup(doc->arena, display);
    memcpy(doc->spec_sha256, fo_json_sha256(json), sizeof doc->spec_sha256);
    doc->base_dir = fo_arena_strdup(doc->arena, c.base_real);

    json_t *root = fo_json_root(c.json);
    if (!json_is_object(root)) {
        fo_spec_error(&c, "", false, "a spec is an object: {\"folio\": 1, \"blocks\": [...]}",
                      "the spec must be a JSON object, not %s", fo_spec_json_type(root));
        goto done;
    }
    read_nan_option(&c, root);
    report_nonfinite(&c);
    fo_spec_check_keys(&c, root, "", top_keys);
    read_meta(&c, root);
    read_xlsx_options(&c, root);
    read_prov_options(&c, root);
    fo_spec_read_datasets(&c, json_object_get(root, "data"));
    json_t *blocks = json_object_get(root, "blocks");
    if (!blocks) {
        fo_spec_error(&c, "", false, "e.g. \"blocks\": [{\"type\": \"heading\", \"text\": \"Summary\"}]",
                      "missing required key \"blocks\"");
    } else if (!json_is_array(blocks)) {
        fo_spec_error(&c, "/blocks", false, NULL, "\"blocks\" must be an array");
    } else {
        size_t n = json_array_size(blocks), ntables = 0, ncharts = 0;
        doc->blocks = fo_arena_alloc(doc->arena, (n ? n : 1) * sizeof *doc->blocks);
        if (!doc->blocks) { st = FO_ERR_NOMEM; goto done; }
        int *lines = fo_calloc(n ? n : 1, sizeof *lines), *cols = fo_calloc(n ? n : 1, sizeof *cols);
        if (!lines || !cols) { fo_free(lines); fo_free(cols); st = FO_ERR_NOMEM; goto done; }
        fo_json_locate_items(c.json, "/blocks", n, lines, cols);
        for (size_t i = 0; i < n; i++) {
            fo_block *blk = &doc->blocks[doc->nblocks];
            if (read_block(&c, json_array_get(blocks, i), i, blk, &ntables, &ncharts)) {
                blk->line = lines[i];
                blk->column = cols[i];
                doc->nblocks++;
            }
        }
        fo_free(lines);
        fo_free(cols);
    }
done:
    fo_json_free(c.json);
    fo_spec_finish(&c);
    if (st == FO_OK && c.errors) st = FO_ERR_INPUT;
    if (st != FO_OK) {
        fo_doc_free(doc);
        return st;
    }
    *out = doc;
    return FO_OK;
}

fo_status fo_spec_load(const char *path, fo_doc **out, fo_diags *d)
{
    *out = NULL;
    fo_json *json;
    fo_status st = fo_json_load(path, path, &json, d);
    if (st != FO_OK) return st;
    char tmp[PATH_MAX], base[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    if (!realpath(dirname(tmp), base)) snprintf(base, sizeof base, ".");
    return spec_from_json(json, path, base, out, d);
}

fo_status fo_spec_parse(const char *text, size_t len, const char *display, const char *base_dir,
                        fo_doc **out, fo_diags *d)
{
    *out = NULL;
    fo_json *json;
    fo_status st = fo_json_parse(text, len, display, &json, d);
    if (st != FO_OK) return st;
    char base[PATH_MAX];
    if (!realpath(base_dir ? base_dir : ".", base)) snprintf(base, sizeof base, ".");
    return spec_from_json(json, display, base, out, d);
}
