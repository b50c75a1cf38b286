/* output.c — what the CLI prints on stdout: --json results and the schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"


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
