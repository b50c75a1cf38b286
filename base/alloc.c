/* alloc.c — status strings and allocation, below every layer (the
 * renderers, the sandbox, the service and the CLI all link it).
 *
 * All of folio allocates through fo_malloc & co. so that tests can make the
 * N-th allocation fail (fo_alloc_fail_after) and check every error path. */
#include <stdlib.h>
#include <string.h>

#include "folio.h"

/* ---- status --------------------------------------------------------------*/
const char *fo_strerror(fo_status s)
{
    switch (s) {
    case FO_OK: return "success";
    case FO_ERR_USAGE: return "usage error";
    case FO_ERR_INPUT: return "invalid input";
    case FO_ERR_UNSUPPORTED: return "format not supported yet";
    case FO_ERR_CEILING: return "output exceeds the size ceiling";
    case FO_ERR_SANDBOX: return "sandboxed program failed";
    case FO_ERR_IO: return "I/O error";
    case FO_ERR_NOMEM: return "out of memory";
    case FO_ERR_INTERNAL: return "internal error";
    }
    return "unknown error";
}

int fo_status_exit_code(fo_status s)
{
    switch (s) {
    case FO_OK: return 0;
    case FO_ERR_USAGE: return 1;
    case FO_ERR_INPUT: case FO_ERR_UNSUPPORTED: return 2;
    case FO_ERR_CEILING: return 3;
    case FO_ERR_SANDBOX: return 4;
    case FO_ERR_NOMEM: case FO_ERR_IO: case FO_ERR_INTERNAL:
    default: return 5;
    }
}

/* ---- allocation ----------------------------------------------------------*/
static unsigned long fail_countdown; /* 0 = never fail */

void fo_alloc_fail_after(unsigned long n) { fail_countdown = n; }

static int alloc_should_fail(void)
{
    if (fail_countdown == 0) return 0;
    if (--fail_countdown == 0) return 1;
    return 0;
}

void *fo_malloc(size_t n)
{
    if (alloc_should_fail()) return NULL;
    return malloc(n ? n : 1);
}

void *fo_calloc(size_t n, size_t size)
{
    if (alloc_should_fail()) return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *fo_realloc(void *p, size_t n)
{
    if (alloc_should_fail()) return NULL;
    return realloc(p, n ? n : 1);
}

char *fo_strndup(const char *s, size_t n)
{
    if (!s) return NULL;
    char *r = fo_malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *fo_strdup(const char *s) { return s ? fo_strndup(s, strlen(s)) : NULL; }

void fo_free(void *p) { free(p); }
