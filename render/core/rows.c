/* rows.c — fo_rows: the one row cursor every writer uses, over an inline
 * dataset's cells or the stream its reader attached (render/core/model.h).
 *
 * The model knows no file format: a CSV dataset's rows come through
 * ds->stream, which formats/csv_rows.c provides. */
#include <string.h>

#include "base/buf.h"
#include "render/core/model.h"

struct fo_rows_keep {
    const fo_dataset *ds;
    fo_value *cells;  /* n rows of ds->ncols values; texts in arena */
    size_t *lines;    /* each kept row's source line */
    size_t n, cap;
    fo_arena *arena;
    size_t bytes;     /* what keeping costs so far, against FO_ROWS_KEEP_BYTES */
    bool full;        /* over the budget: no more rows are kept */
    bool complete;    /* a pass reached the end: every row is kept */
};

struct fo_rows {
    const fo_dataset *ds;
    size_t next;  /* INLINE or kept: index of the next row */
    void *state;  /* streamed: the stream's pass, opened when first needed */
    size_t streamed; /* kept: rows read from state so far */
    fo_rows_keep *keep;
    bool from_keep; /* the last row handed out was a kept one */
};

fo_rows_keep *fo_rows_keep_new(const fo_dataset *ds)
{
    if (ds->src == FO_SRC_INLINE) return NULL;
    fo_rows_keep *k = fo_calloc(1, sizeof *k);
    if (!k) return NULL;
    k->ds = ds;
    k->arena = fo_arena_new();
    if (!k->arena) {
        fo_free(k);
        return NULL;
    }
    return k;
}

void fo_rows_keep_free(fo_rows_keep *k)
{
    if (!k) return;
    fo_free(k->cells);
    fo_free(k->lines);
    fo_arena_free(k->arena);
    fo_free(k);
}

/* Appends row (read at line) to k, copying its texts; over the budget or
 * out of memory, k keeps what it has and takes no more. */
static void keep_row(fo_rows_keep *k, const fo_value *row, size_t line)
{
    size_t nc = k->ds->ncols, need = nc * sizeof *row + sizeof *k->lines;
    for (size_t j = 0; j < nc; j++)
        need += (row[j].str ? strlen(row[j].str) + 1 : 0) + (row[j].label ? strlen(row[j].label) + 1 : 0);
    if (k->bytes + need > FO_ROWS_KEEP_BYTES || !fo_grow_all(&k->cap, k->n + 1, 64, 2,
            (void **const[]){(void **)&k->cells, (void **)&k->lines},
            (const size_t[]){nc * sizeof *row, sizeof *k->lines})) {
        k->full = true;
        return;
    }
    fo_value *to = k->cells + k->n * nc;
    for (size_t j = 0; j < nc; j++) {
        to[j] = row[j];
        if ((row[j].str && !(to[j].str = fo_arena_strdup(k->arena, row[j].str))) ||
            (row[j].label && !(to[j].label = fo_arena_strdup(k->arena, row[j].label)))) {
            k->full = true;
            return;
        }
    }
    k->lines[k->n++] = line;
    k->bytes += need;
}

fo_status fo_rows_open(const fo_dataset *ds, fo_rows **out, fo_diags *d)
{
    return fo_rows_open_kept(ds, NULL, out, d);
}

fo_status fo_rows_open_kept(const fo_dataset *ds, fo_rows_keep *k, fo_rows **out, fo_diags *d)
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
    r->keep = k && k->ds == ds ? k : NULL;
    if (ds->src != FO_SRC_INLINE && (!r->keep || r->keep->n == 0)) {
        fo_status st = ds->stream->open(ds, &r->state, d);
        if (st != FO_OK) {
            fo_free(r);
            return st;
        }
    }
    *out = r;
    return FO_OK;
}

/* A pass through a keep: the kept rows, then the stream beyond them (opened
 * and wound past the kept rows when first needed), keeping what it reads. */
static int next_kept(fo_rows *r, const fo_value **row, fo_diags *d)
{
    fo_rows_keep *k = r->keep;
    const fo_dataset *ds = r->ds;
    if (r->next < k->n) {
        *row = k->cells + r->next++ * ds->ncols;
        r->from_keep = true;
        return 1;
    }
    r->from_keep = false;
    if (k->complete) return 0;
    if (!r->state && ds->stream->open(ds, &r->state, d) != FO_OK) return -1;
    for (; r->streamed < r->next; r->streamed++) { /* past the kept rows */
        int rc = ds->stream->next(r->state, row, d);
        if (rc <= 0) return rc;
    }
    int rc = ds->stream->next(r->state, row, d);
    if (rc == 0 && r->next == k->n) k->complete = true;
    if (rc != 1) return rc;
    if (r->next == k->n && !k->full) keep_row(k, *row, ds->stream->line ? ds->stream->line(r->state) : 0);
    r->next++;
    r->streamed++;
    return 1;
}

int fo_rows_next(fo_rows *r, const fo_value **row, fo_diags *d)
{
    const fo_dataset *ds = r->ds;
    if (r->keep) return next_kept(r, row, d);
    if (ds->src != FO_SRC_INLINE) return ds->stream->next(r->state, row, d);
    if (r->next >= ds->nrows) return 0;
    *row = ds->cells + r->next * ds->ncols;
    r->next++;
    return 1;
}

size_t fo_rows_line(const fo_rows *r)
{
    if (r->from_keep) return r->keep->lines[r->next - 1];
    if (r->ds->src == FO_SRC_INLINE || !r->ds->stream->line || !r->state) return 0;
    return r->ds->stream->line(r->state);
}

void fo_rows_close(fo_rows *r)
{
    if (!r) return;
    if (r->ds->src != FO_SRC_INLINE && r->state) r->ds->stream->close(r->state);
    fo_free(r);
}
