/* workbook.c — the workbook a native chart carries its data in (the part
 * behind c:externalData), so "Edit Data" in PowerPoint and Word opens it.
 *
 * Layout, as PowerPoint's own and python-pptx's: one sheet "Sheet1";
 * column A the categories (scatter: the x values) from row 2, columns B..
 * one series each, its name in row 1 and its values from row 2. A1 holds
 * the x column's name. The chart's c:f formulas point at these ranges
 * (fo_chartxml_range). Categories are the labels the chart shows (text);
 * values are the exact doubles, each series in its column's number format
 * (as its c:numCache formatCode says); a missing value is an empty cell.
 *
 * libxlsxwriter 1.1.4 writes only to a file: the workbook goes to a
 * scratch file in $TMPDIR (else /tmp), is read back and removed.
 * Determinism: libxlsxwriter stamps zip entries 1980-01-01 and takes the
 * docProps dates from lxw_doc_properties.created, set to the given epoch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xlsxwriter.h>

#include "render/chartxml/chartxml.h"
#include "base/buf.h"

#define SHEET "Sheet1"

void fo_chartxml_range(char *buf, size_t cap, size_t col, size_t first_row, size_t last_row)
{
    char r[64];
    if (first_row == last_row)
        lxw_rowcol_to_cell_abs(r, (lxw_row_t)first_row, (lxw_col_t)col, 1, 1);
    else
        lxw_rowcol_to_range_abs(r, (lxw_row_t)first_row, (lxw_col_t)col, (lxw_row_t)last_row,
                                (lxw_col_t)col);
    snprintf(buf, cap, SHEET "!%s", r);
}

/* A number format, or NULL for General (or when out of memory: General). */
static lxw_format *num_format(lxw_workbook *wb, const char *code)
{
    if (!code || !*code || !strcmp(code, "General")) return NULL;
    lxw_format *f = workbook_add_format(wb);
    if (f) format_set_num_format(f, code);
    return f;
}

/* Column col from row 1 on: v[0..n), NaN left empty. */
static lxw_error write_column(lxw_worksheet *ws, size_t col, const double *v, size_t n,
                              lxw_format *f)
{
    lxw_error e = LXW_NO_ERROR;
    for (size_t i = 0; i < n && e == LXW_NO_ERROR; i++)
        if (v[i] == v[i]) e = worksheet_write_number(ws, (lxw_row_t)(i + 1), (lxw_col_t)col, v[i], f);
    return e;
}

static lxw_error write_sheet(lxw_workbook *wb, const fo_chartxml_data *dt, bool scatter,
                             size_t nseries)
{
    lxw_worksheet *ws = workbook_add_worksheet(wb, SHEET);
    if (!ws) return LXW_ERROR_MEMORY_MALLOC_FAILED;
    lxw_error e = LXW_NO_ERROR;
    if (dt->xname && *dt->xname) e = worksheet_write_string(ws, 0, 0, dt->xname, NULL);
    if (scatter && e == LXW_NO_ERROR)
        e = write_column(ws, 0, dt->x, dt->n, num_format(wb, dt->xfmt));
    for (size_t i = 0; !scatter && i < dt->n && e == LXW_NO_ERROR; i++)
        if (dt->cat[i][0]) e = worksheet_write_string(ws, (lxw_row_t)(i + 1), 0, dt->cat[i], NULL);
    for (size_t s = 0; s < nseries && e == LXW_NO_ERROR; s++) {
        if (dt->names[s][0]) e = worksheet_write_string(ws, 0, (lxw_col_t)(s + 1), dt->names[s], NULL);
        lxw_format *f = num_format(wb, dt->fmts[s]);
        if (e == LXW_NO_ERROR) e = write_column(ws, s + 1, dt->y + s * dt->n, dt->n, f);
    }
    if (e == LXW_NO_ERROR) e = worksheet_set_column(ws, 0, 0, 18, NULL);
    return e;
}

/* A fresh scratch file name in $TMPDIR (created empty), or NULL. */
static char *scratch_path(void)
{
    const char *t = getenv("TMPDIR");
    fo_buf b = {0};
    fo_buf_printf(&b, "%s/folio-chart-XXXXXX", t && *t ? t : "/tmp");
    char *path = fo_buf_take(&b, NULL);
    if (!path) return NULL;
    int fd = mkstemp(path);
    if (fd < 0) { fo_free(path); return NULL; }
    close(fd);
    return path;
}

fo_status fo_chartxml_workbook(const fo_chartxml_data *dt, bool scatter, size_t nseries,
                               long long epoch, void **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    char *path = scratch_path(), *dir = NULL;
    if (!path) return FO_ERR_IO;
    fo_status st = FO_ERR_NOMEM;
    dir = fo_strdup(path);
    if (!dir) goto cleanup;
    *strrchr(dir, '/') = '\0';
    lxw_workbook_options wo = {.tmpdir = dir};
    lxw_workbook *wb = workbook_new_opt(path, &wo);
    if (!wb) goto cleanup;
    lxw_doc_properties props = {.created = (time_t)epoch};
    lxw_error e = workbook_set_properties(wb, &props);
    if (e == LXW_NO_ERROR) e = write_sheet(wb, dt, scatter, nseries);
    if (e != LXW_NO_ERROR) { lxw_workbook_free(wb); goto cleanup; }
    e = workbook_close(wb);
    if (e != LXW_NO_ERROR) {
        st = e == LXW_ERROR_MEMORY_MALLOC_FAILED ? FO_ERR_NOMEM : FO_ERR_IO;
        goto cleanup;
    }
    *out = fo_file_read(path, 0, len);
    st = *out ? FO_OK : FO_ERR_IO;
cleanup:
    unlink(path);
    fo_free(path);
    fo_free(dir);
    return st;
}
