/* cli.h — the parsed command line and the CLI's output helpers (cli/ only). */
#ifndef FO_CLI_H
#define FO_CLI_H

#include "folio.h"

#define FO_CLI_MAX_OUTS 16
#define FO_CLI_MAX_POS 16   /* folio inspect FILE... */

typedef struct {
    const char *pos[FO_CLI_MAX_POS];
    size_t npos;
    const char *outs[FO_CLI_MAX_OUTS];
    size_t nouts;
    fo_render_opts opts;
    bool json, quiet;
} fo_cli_request;

/* JSON texts for stdout; static buffers owned by the CLI, valid until next call. */
/* `folio schema`: prints the embedded JSON Schema. */
int fo_cli_schema(const fo_cli_request *req);
/* Prints the JSON Schema of "spec" or "theme" (fo_schema); 5 if unknown. */
int fo_cli_schema_named(const char *name);

/* provenance.c: --provenance FILE.json|JSON into opts->prov (2 with the
 * problem printed when it can't be read), and `folio inspect FILE...`
 * (0 when every file records folio's provenance, 2 when one records none
 * or can't be read, 1 usage). */
int fo_cli_provenance(const char *arg, fo_render_opts *opts);
/* The whole file (fo_malloc'd, NUL after its *len bytes), or NULL with errno
 * (EFBIG past max bytes). */
char *fo_cli_read_file(const char *path, size_t max, size_t *len);
int fo_cli_inspect(const fo_cli_request *req);
/* sign.c: `folio sign MANIFEST --key KEY` and `folio verify ENVELOPE
 * [FILE...] --key PUB` (argv after the command name). 0 ok, 1 usage, 2 a
 * bad key, envelope, signature or file not in the record, 5 I/O. */
int fo_cli_sign(int argc, char **argv);
int fo_cli_verify(int argc, char **argv);
/* `folio replay DIR|MANIFEST|RECORD [--in DIR] [--json]` (cli/replay.c). */
int fo_cli_replay(int argc, char **argv);

#endif
