/* rows.c — fo_rows: one row at a time from an inline dataset or a CSV file,
 * each cell converted to its column's type (render/core/model.h).
 *
 * CSV rows stream: the reader's record buffer and one fo_value per column are
 * all the memory a pass needs. A cell that does not fit its column's type is
 * handed out as TEXT with its exact original text; an empty cell is NULL. */
#include <string.h>

#include "formats/csv.h"
#include "formats/infer.h"

typedef struct {
    const fo_dataset *ds;
    fo_csv *csv;          /* the open reader */
    fo_value *row;        /* ncols converted values */
    const char **cur_sym; /* currency symbol of each CURRENCY column's format */
    uint64_t done;        /* rows handed out, for progress */
} csv_pass;

static void pass_close(void *state)
{
    csv_pass *r = state;
    if (!r) return;
    fo_csv_close(r->csv);
    fo_free(r->row);
    fo_free(r->cur_sym);
    fo_free(r);
}

static fo_status pass_open(const fo_dataset *ds, void **out, fo_diags *d)
{
    *out = NULL;
    csv_pass *r = fo_calloc(1, sizeof *r);
    if (!r) return FO_ERR_NOMEM;
    r->ds = ds;
    r->row = fo_calloc(ds->ncols, sizeof *r->row);
    r->cur_sym = fo_calloc(ds->ncols, sizeof *r->cur_sym);
    if (!r->row || !r->cur_sym) {
        pass_close(r);
        return FO_ERR_NOMEM;
    }
    for (size_t j = 0; j < ds->ncols; j++)
        if (ds->cols[j].type == FO_TYPE_CURRENCY) r->cur_sym[j] = fo_infer_format_symbol(ds->cols[j].format);
    fo_status st = fo_csv__open_dataset(ds, &r->csv, d);
    if (st != FO_OK) {
        pass_close(r);
        return st;
    }
    *out = r;
    return FO_OK;
}

static int pass_next(void *state, const fo_value **row, fo_diags *d)
{
    csv_pass *r = state;
    const fo_dataset *ds = r->ds;
    const char *const *f;
    const size_t *l;
    size_t nf;
    int rc = fo_csv_next(r->csv, &f, &l, &nf, d);
    if (rc <= 0) return rc;
    if (!fo_csv__check_width(r->csv, fo_csv__display(ds), l, nf, ds->ncols, d)) return -1;
    for (size_t j = 0; j < ds->ncols; j++) {
        if (j < nf) {
            fo_infer_convert(&ds->cols[j], r->cur_sym[j], f[j], l[j], &r->row[j]);
        } else {
            memset(&r->row[j], 0, sizeof r->row[j]);
            r->row[j].kind = FO_VAL_NULL;
        }
    }
    *row = r->row;
    if ((++r->done & 0xFFFF) == 0) fo_progress_tick(ds->name, r->done, ds->nrows);
    return 1;
}

static size_t pass_line(const void *state)
{
    const csv_pass *r = state;
    return r && r->csv ? fo_csv_line(r->csv) : 0;
}

const fo_row_stream fo_csv_stream = {pass_open, pass_next, pass_close, pass_line};
