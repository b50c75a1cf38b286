/* convert.c — a plain CSV/TSV file as a one-table document (`folio convert`).
 *
 * The table sheet is named after the file; there is no title, so renderers
 * that add a summary or title page leave it out. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/theme.h"
#include "formats/csv.h"
#include "render/core/model.h"

fo_status fo_csv_doc(const char *path, fo_doc **out, fo_diags *d)
{
    *out = NULL;
    fo_doc *doc = fo_calloc(1, sizeof *doc);
    if (!doc || !(doc->arena = fo_arena_new())) { fo_free(doc); return FO_ERR_NOMEM; }
    fo_status st = FO_ERR_NOMEM;
    fo_theme_default(&doc->theme);
    doc->epoch = fo_default_epoch();
    char tmp[PATH_MAX], real[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    doc->base_dir = fo_arena_strdup(doc->arena, realpath(dirname(tmp), real) ? real : ".");

    fo_dataset *ds = fo_arena_alloc(doc->arena, sizeof *ds);
    if (!ds) goto fail;
    snprintf(tmp, sizeof tmp, "%s", path);
    char *base = basename(tmp);
    char *dot = strrchr(base, '.');
    if (dot && dot != base) *dot = '\0';
    ds->name = fo_arena_strdup(doc->arena, base);
    ds->src = FO_SRC_CSV;
    ds->stream = &fo_csv_stream;
    ds->header = true;
    ds->csv_path = fo_arena_strdup(doc->arena, path);
    ds->csv_display = fo_arena_strdup(doc->arena, path);
    const char *ext = strrchr(path, '.');
    if (ext && strcasecmp(ext, ".tsv") == 0) ds->delimiter = '\t';
    if (!ds->name || !ds->csv_path) goto fail;
    st = fo_csv_scan(ds, doc->arena, NULL, 0, d);
    if (st != FO_OK) goto fail;
    st = FO_ERR_NOMEM;
    for (size_t i = 0; i < ds->ncols; i++)
        if (!ds->cols[i].format) ds->cols[i].format = (char *)fo_type_default_format(ds->cols[i].type);

    doc->datasets = fo_arena_alloc(doc->arena, sizeof *doc->datasets);
    doc->blocks = fo_arena_alloc(doc->arena, sizeof *doc->blocks);
    if (!doc->datasets || !doc->blocks) goto fail;
    doc->datasets[0] = ds;
    doc->ndatasets = 1;
    fo_block *b = &doc->blocks[0];
    b->kind = FO_BLOCK_TABLE;
    b->pointer = fo_arena_strdup(doc->arena, "");
    b->u.table.data = ds;
    b->u.table.ncols = ds->ncols;
    b->u.table.cols = fo_arena_alloc(doc->arena, (ds->ncols ? ds->ncols : 1) * sizeof *b->u.table.cols);
    if (!b->u.table.cols) goto fail;
    for (size_t i = 0; i < ds->ncols; i++) {
        fo_table_col *c = &b->u.table.cols[i];
        c->field = i;
        c->title = ds->cols[i].name;
        c->format = ds->cols[i].format;
        c->type = ds->cols[i].type;
    }
    doc->nblocks = 1;
    *out = doc;
    return FO_OK;
fail:
    fo_doc_free(doc);
    return st;
}
