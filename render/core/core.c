/* core.c — the renderer's shared basics: diagnostics, arena, progress.
 * (Status strings and allocation are base/alloc.c, below every layer.) */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "folio.h"
#include "render/core/model.h"

/* ---- diagnostics ---------------------------------------------------------*/
void fo_diags_init(fo_diags *d) { memset(d, 0, sizeof *d); }

void fo_diags_free(fo_diags *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) {
        fo_diag *g = &d->items[i];
        fo_free(g->file); fo_free(g->pointer); fo_free(g->message); fo_free(g->hint);
    }
    fo_free(d->items);
    memset(d, 0, sizeof *d);
}

void fo_diags_add(fo_diags *d, const char *file, int line, int column,
                  const char *pointer, const char *hint, const char *fmt, ...)
{
    if (!d) return;
    if (!fo_grow((void **)&d->items, &d->cap, d->n + 1, 8, sizeof *d->items)) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fo_diag *g = &d->items[d->n];
    memset(g, 0, sizeof *g);
    g->file = fo_strdup(file);
    g->line = line;
    g->column = column;
    g->pointer = fo_strdup(pointer);
    g->message = fo_strdup(msg);
    g->hint = fo_strdup(hint);
    if (!g->message) return;
    d->n++;
}

char *fo_diag_format(const fo_diag *g)
{
    char buf[2048];
    size_t n = 0;
    if (g->file) {
        if (g->line > 0)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s:%d:%d: ", g->file, g->line, g->column);
        else n += (size_t)snprintf(buf + n, sizeof buf - n, "%s: ", g->file);
    }
    if (n < sizeof buf && g->pointer)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s: ", g->pointer[0] ? g->pointer : "/");
    if (n < sizeof buf) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", g->message);
    if (n < sizeof buf && g->hint) snprintf(buf + n, sizeof buf - n, " (%s)", g->hint);
    return fo_strdup(buf);
}

/* ---- writers' failures ---------------------------------------------------*/
void fo_fail_atv(fo_diags *d, fo_status *st, const fo_doc *doc, const fo_block *b, fo_status err,
                 const char *hint, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (st && *st == FO_OK) *st = err;
    /* a CSV conversion has no spec (spec_path NULL): no place in one to name */
    bool spec = doc && doc->spec_path;
    fo_diags_add(d, spec ? doc->spec_path : NULL, spec && b ? b->line : 0, spec && b ? b->column : 0,
                 spec && b ? b->pointer : NULL, hint, "%s", msg);
}

void fo_fail_at(fo_diags *d, fo_status *st, const fo_doc *doc, const fo_block *b, fo_status err,
                const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fo_fail_atv(d, st, doc, b, err, hint, fmt, ap);
    va_end(ap);
}

/* ---- arena ---------------------------------------------------------------
 * A list of chunks; big requests get a chunk of their own. Alignment 16. */
typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} chunk;

struct fo_arena {
    chunk *head;
};

fo_arena *fo_arena_new(void) { return fo_calloc(1, sizeof(fo_arena)); }

void fo_arena_free(fo_arena *a)
{
    if (!a) return;
    for (chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        fo_free(c);
    }
    fo_free(a);
}

void *fo_arena_alloc(fo_arena *a, size_t n)
{
    /* Rounding up to 16 and the chunk header must not wrap: a request within
     * 15 bytes of SIZE_MAX would round to 0 and get 16 bytes. */
    if (n > SIZE_MAX - sizeof(chunk) - 15) return NULL;
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > 16384 ? n : 16384;
        chunk *nc = fo_malloc(sizeof *nc + size);
        if (!nc) return NULL;
        nc->used = 0;
        nc->size = size;
        if (c && n > 16384) { /* keep filling the current chunk */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *fo_arena_strndup(fo_arena *a, const char *s, size_t n)
{
    if (!s) return NULL;
    char *r = fo_arena_alloc(a, n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *fo_arena_strdup(fo_arena *a, const char *s)
{
    return s ? fo_arena_strndup(a, s, strlen(s)) : NULL;
}

/* ---- progress ------------------------------------------------------------
 * One process-wide hook: progress is a property of the command being run,
 * not of a document, and threading it through every renderer's row loop
 * would add a parameter to each for a terminal nicety. */
static fo_progress_fn progress_fn;
static void *progress_ctx;

void fo_progress_set(fo_progress_fn fn, void *ctx)
{
    progress_fn = fn;
    progress_ctx = ctx;
}

void fo_progress_tick(const char *dataset, uint64_t done, uint64_t total)
{
    if (progress_fn) progress_fn(progress_ctx, dataset, done, total);
}
