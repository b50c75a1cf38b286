/* usage.c — the one shape of a command-line usage error (usage.h). */
#include <stdarg.h>
#include <stdio.h>

#include "base/usage.h"

int fo_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("folio: ", stderr);
    if (cmd) fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd) fprintf(stderr, "\nTry 'folio help %s'.\n", cmd);
    else fputs("\nTry 'folio --help'.\n", stderr);
    return 1;
}
