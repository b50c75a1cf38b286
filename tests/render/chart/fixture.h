/* fixture.h — test helper: builds an fo_chart over an inline dataset by hand
 * (a text category column "cat" plus numeric series columns), no spec needed.
 *
 * Header-only so each t_*.c program stays standalone; NAN marks a null cell. */
#ifndef FO_TEST_CHART_FIXTURE_H
#define FO_TEST_CHART_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/theme.h"
#include "render/chart/chart.h"
#include "render/core/model.h"

#define FX_MAX_SERIES 8

typedef struct {
    fo_arena *arena;
    fo_dataset ds;
    fo_chart chart;
    fo_theme theme;
    size_t ys[FX_MAX_SERIES];
} fx_chart;

/* cats: nrows labels (NULL: "C1".."Cn"); vals: nrows x nseries, row-major. */
static inline void fx_init(fx_chart *f, fo_chart_kind kind, size_t nrows, size_t nseries,
                           const char *const *cats, const double *vals, const char *yfmt)
{
    memset(f, 0, sizeof *f);
    f->arena = fo_arena_new();
    fo_theme_default(&f->theme);
    fo_dataset *ds = &f->ds;
    ds->name = fo_arena_strdup(f->arena, "t");
    ds->src = FO_SRC_INLINE;
    ds->ncols = nseries + 1;
    ds->nrows = nrows;
    ds->cols = fo_arena_alloc(f->arena, ds->ncols * sizeof *ds->cols);
    ds->cols[0].name = fo_arena_strdup(f->arena, "cat");
    ds->cols[0].type = FO_TYPE_TEXT;
    ds->cols[0].format = fo_arena_strdup(f->arena, "@");
    for (size_t s = 0; s < nseries; s++) {
        char name[32];
        snprintf(name, sizeof name, "Series %zu", s + 1);
        ds->cols[s + 1].name = fo_arena_strdup(f->arena, name);
        ds->cols[s + 1].type = FO_TYPE_NUMBER;
        ds->cols[s + 1].format = (char *)(yfmt ? yfmt : "General");
        f->ys[s] = s + 1;
    }
    ds->cells = fo_arena_alloc(f->arena, (nrows * ds->ncols + 1) * sizeof *ds->cells);
    for (size_t i = 0; i < nrows; i++) {
        fo_value *row = ds->cells + i * ds->ncols;
        char buf[32];
        snprintf(buf, sizeof buf, "C%zu", i + 1);
        row[0].kind = FO_VAL_TEXT;
        row[0].str = fo_arena_strdup(f->arena, cats ? cats[i] : buf);
        for (size_t s = 0; s < nseries; s++) {
            double v = vals[i * nseries + s];
            if (isnan(v)) row[s + 1].kind = FO_VAL_NULL;
            else { row[s + 1].kind = FO_VAL_NUMBER; row[s + 1].num = v; }
        }
    }
    fo_chart *c = &f->chart;
    c->kind = kind;
    c->data = ds;
    c->x = 0;
    c->y = f->ys;
    c->ny = nseries;
    c->legend = FO_LEGEND_RIGHT;
}

static inline void fx_free(fx_chart *f) { fo_arena_free(f->arena); }

/* Number of ops of one role (and kind, or -1 for any). */
static inline size_t fx_count(const fo_dl *dl, fo_dl_role role, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < fo_dl_count(dl); i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role == role && (kind < 0 || (int)op->kind == kind)) n++;
    }
    return n;
}

#endif
