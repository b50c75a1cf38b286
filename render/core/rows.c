/* rows.c — fo_rows: the one row cursor every writer uses, over an inline
 * dataset's cells or the stream its reader attached (render/core/model.h).
 *
 * The model knows no file format: a CSV dataset's rows come through
 * ds->stream, which formats/csv_rows.c provides. */
#include "render/core/model.h"

struct fo_rows {
    const fo_dataset *ds;
    size_t next;  /* INLINE: index of the next row */
    void *state;  /* streamed: the stream's pass */
};

fo_status fo_rows_open(const fo_dataset *ds, fo_rows **out, fo_diags *d)
{
    *out = NULL;
    if (ds->src != FO_SRC_INLINE && !ds->stream) {
        fo_diags_add(d, NULL, 0, 0, ds->pointer, NULL, "dataset \"%s\" has no row stream",
                     ds->name ? ds->name : "");
        return FO_ERR_INTERNAL;
    }
    fo_rows *r = fo_calloc(1, sizeof *r);
    if (!r) return FO_ERR_NOMEM;
    r->ds = ds;
    if (ds->src != FO_SRC_INLINE) {
        fo_status st = ds->stream->open(ds, &r->state, d);
        if (st != FO_OK) {
            fo_free(r);
            return st;
        }
    }
    *out = r;
    return FO_OK;
}

int fo_rows_next(fo_rows *r, const fo_value **row, fo_diags *d)
{
    const fo_dataset *ds = r->ds;
    if (ds->src != FO_SRC_INLINE) return ds->stream->next(r->state, row, d);
    if (r->next >= ds->nrows) return 0;
    *row = ds->cells + r->next * ds->ncols;
    r->next++;
    return 1;
}

size_t fo_rows_line(const fo_rows *r)
{
    if (r->ds->src == FO_SRC_INLINE || !r->ds->stream->line) return 0;
    return r->ds->stream->line(r->state);
}

void fo_rows_close(fo_rows *r)
{
    if (!r) return;
    if (r->ds->src != FO_SRC_INLINE) r->ds->stream->close(r->state);
    fo_free(r);
}
