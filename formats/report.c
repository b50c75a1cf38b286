/* report.c — a render's report as JSON text: its diagnostics and the files
 * it wrote (folio --json, the service's error bodies). In libfolio so that
 * the CLI and the service print one shape. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "folio.h"

static char *last_json; /* fo_malloc'd: the last dump, kept until the next */

/* A JSON array of n objects, the i-th made by obj(items, i), as indented
 * text ending in a newline; valid until the next call ("[]\n" when it
 * cannot be made). */
static const char *dump_list(size_t n, json_t *(*obj)(const void *items, size_t i),
                             const void *items)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) json_array_append_new(arr, obj(items, i));
    char *s = arr ? json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) : NULL;
    json_decref(arr);
    size_t len = s ? strlen(s) : 0;
    fo_free(last_json);
    last_json = s ? fo_malloc(len + 2) : NULL;
    if (last_json) {
        memcpy(last_json, s, len);
        memcpy(last_json + len, "\n", 2);
    }
    free(s);
    return last_json ? last_json : "[]\n";
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *diag_obj(const void *items, size_t i)
{
    const fo_diag *g = (const fo_diag *)items + i;
    json_t *o = json_object();
    json_object_set_new(o, "file", str_or_null(g->file));
    json_object_set_new(o, "line", g->line ? json_integer(g->line) : json_null());
    json_object_set_new(o, "column", g->line ? json_integer(g->column) : json_null());
    json_object_set_new(o, "pointer", str_or_null(g->pointer));
    json_object_set_new(o, "message", str_or_null(g->message));
    json_object_set_new(o, "hint", str_or_null(g->hint));
    return o;
}

const char *fo_diags_json(const fo_diags *d) { return dump_list(d->n, diag_obj, d->items); }

static json_t *written_obj(const void *items, size_t i)
{
    const fo_written *f = (const fo_written *)items + i;
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(f->path));
    json_object_set_new(o, "format", json_string(f->format));
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_object_set_new(o, "sha256", json_string(f->sha256));
    return o;
}

const char *fo_written_json(const fo_written_list *w)
{
    return dump_list(w->n, written_obj, w->items);
}
