/* output.c — what the CLI prints on stdout: --json results and the schema. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"


static char *last_json;

static const char *dump(json_t *v)
{
    free(last_json);
    last_json = v ? json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) : NULL;
    json_decref(v);
    if (!last_json) return "[]\n";
    size_t n = strlen(last_json);
    char *withnl = realloc(last_json, n + 2);
    if (withnl) { withnl[n] = '\n'; withnl[n + 1] = '\0'; last_json = withnl; }
    return last_json;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

const char *fo_cli_diags_json(const fo_diags *d)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < d->n; i++) {
        const fo_diag *g = &d->items[i];
        json_t *o = json_object();
        json_object_set_new(o, "file", str_or_null(g->file));
        json_object_set_new(o, "line", g->line ? json_integer(g->line) : json_null());
        json_object_set_new(o, "column", g->line ? json_integer(g->column) : json_null());
        json_object_set_new(o, "pointer", str_or_null(g->pointer));
        json_object_set_new(o, "message", str_or_null(g->message));
        json_object_set_new(o, "hint", str_or_null(g->hint));
        json_array_append_new(arr, o);
    }
    return dump(arr);
}

const char *fo_cli_written_json(const fo_written_list *w)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < w->n; i++) {
        const fo_written *f = &w->items[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(f->path));
        json_object_set_new(o, "format", json_string(f->format));
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
        json_object_set_new(o, "sha256", json_string(f->sha256));
        json_array_append_new(arr, o);
    }
    return dump(arr);
}

int fo_cli_schema(const fo_cli_request *req)
{
    if (req->npos || req->nouts) { fprintf(stderr, "folio: schema takes no arguments but --theme\n"); return 1; }
    return fo_cli_schema_named("spec");
}

int fo_cli_schema_named(const char *name)
{
    size_t len;
    const char *s = fo_schema(name, &len);
    if (!s) { fprintf(stderr, "folio: schema: not built in\n"); return 5; }
    fwrite(s, 1, len, stdout);
    return 0;
}
