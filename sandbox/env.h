/* env.h — `folio env`: what a cell can import and install (sandbox/env.c,
 * PRODUCT.md §11). */
#ifndef FO_SANDBOX_ENV_H
#define FO_SANDBOX_ENV_H

#include <stddef.h>

/* `folio env [--json] [--refresh]`; argv[0] is "env". Exit code: 0, 1 usage,
   5 when the listing's jail failed (message printed). */
int fo_env_main(int argc, char **argv);

/* The listing, read in a jail or from the cache: its JSON, a line holding
   only U+001E, then its text; malloc'd, NUL-terminated, *len without the
   NUL. NULL with why filled when the jail failed. refresh: skip the cache. */
char *fo_env_listing(int refresh, size_t *len, char *why, size_t why_len);

#endif
