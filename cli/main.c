/* main.c — folio-engine, which does every `folio` command but `run`: the
 * launcher (launcher.c) execs it with argv unchanged. Parses the command line
 * into a request, runs it through libfolio, prints diagnostics, and picks the
 * exit code. It also renders inside the sandbox's render jail.
 *
 * This is the only place that prints or exits. Exit codes (PRODUCT.md §1):
 * 0 ok, 1 usage, 2 invalid input, 3 over the ceiling, 4 sandboxed program
 * failed, 5 I/O or internal error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/usage.h"
#include "folio.h"
#include "base/clock.h"
#include "serve/serve.h"
#include "serve/mcp.h"

static const char usage_text[] =
    "usage:\n"
    "  folio render SPEC.json -o OUT.xlsx [-o OUT.pdf ...]   format from each extension\n"
    "  folio convert INPUT OUTPUT                           INPUT: .csv .tsv or a spec .json\n"
    "  folio validate SPEC.json [--json]                    check only, write nothing\n"
    "  folio inspect FILE... [--json]                       where a rendered file came from (its provenance)\n"
    "  folio verify ENVELOPE [FILE...] --key PUB.pem        check a signed run record and files against it\n"
    "  folio schema [--theme]                               print the spec's (or a theme's) JSON Schema\n"
    "  folio themes                                         list the built-in themes\n"
    "  folio run [options] -- CMD [ARG...]                  run analysis code in the sandbox\n"
    "  folio session new|exec|put|get|render|ls|close ...   code that keeps its state between cells\n"
    "  folio env [--json] [--refresh]                       what the sandbox's Python can import and install\n"
    "  folio serve [--listen HOST:PORT|unix:PATH] [...]     serve render/convert over HTTP\n"
    "  folio mcp [session options]                          a Model Context Protocol server on stdio\n"
    "  folio --version | --help | help COMMAND\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   output file (render; repeatable): .xlsx .docx .pptx .pdf .png\n"
    "  --theme NAME|FILE   theme (default: the spec's, else \"default\")\n"
    "  --template FILE     an existing .docx/.pptx/.xlsx whose look to borrow\n"
    "  --max-bytes N       output ceiling per file (default 31457280 = 30 MiB)\n"
    "  --scale S           PNG scale factor for high-DPI charts (default 1)\n"
    "  --allow-link-scheme LIST  link schemes allowed besides http, https, mailto (e.g. ftp,tel)\n"
    "  --provenance FILE.json|JSON  what made the document (run, session, cell, inputs), recorded in it\n"
    "  --allow-external-formulas  keep formulas that call out of the workbook (DDE, WEBSERVICE, ...)\n"
    "  --json              machine-readable result on stdout\n"
    "  --quiet             no progress or success messages\n"
    "\n"
    "exit codes:\n"
    "  0  success                          the requested files are written\n"
    "  1  usage error                      nothing is written\n"
    "  2  invalid input (spec, CSV, data)  nothing is written\n"
    "  3  an output would exceed the ceiling  nothing is written\n"
    "  4  sandboxed program failed, timed out or was killed  its output and manifest\n"
    "  5  I/O or internal error            nothing new is written\n"
    "\n"
    "errors read: folio: FILE:LINE:COL: /json/pointer: message (hint)\n";

static const char *const help_topics[][2] = {
    {"render", "folio render SPEC.json -o OUT.ext [-o OUT.ext ...] [--theme T] [--max-bytes N] [--scale S]\n"
               "             [--allow-link-scheme LIST] [--allow-external-formulas] [--provenance FILE.json]\n"
               "             [--json] [--quiet]\n"
               "  Renders the spec to every output; the format comes from each extension\n"
               "  (.xlsx .docx .pptx .pdf .png). All outputs are written, or none.\n"},
    {"convert", "folio convert INPUT OUTPUT [options]\n"
                "  INPUT is a .csv/.tsv file (one table, types inferred) or a spec .json.\n"},
    {"validate", "folio validate SPEC.json [--json]\n"
                 "  Checks the spec and the files it references; writes nothing.\n"
                 "  Every problem is reported, each with file:line:column and JSON Pointer;\n"
                 "  --json prints them as [{file, line, column, pointer, message, hint}].\n"},
    {"inspect", "folio inspect FILE... [--json]\n"
                "  Prints the provenance a rendered .xlsx/.docx/.pptx/.pdf/.png records (the spec's\n"
                "  SHA-256, folio's version and, when made in a run or session, its id, cell and\n"
                "  input hashes; docs/provenance.md). Exit 0 when every FILE has it, 2 when one\n"
                "  has none (said on stderr; --json prints \"provenance\": null) or can't be read.\n"},
    {"sign", "folio sign DIR/manifest.json --key KEY.pem [--quiet]\n"
             "  Writes DIR/manifest.dsse.json: an in-toto Statement (every file of the manifest\n"
             "  with its SHA-256; the manifest as predicate) in a DSSE envelope signed with the\n"
             "  Ed25519 key (PEM: openssl genpkey -algorithm ed25519). `folio run --sign` does it.\n"},
    {"verify", "folio verify ENVELOPE [FILE...] --key PUB.pem [--quiet]\n"
               "  Checks the envelope's signature with the public key (PEM; a private key works too)\n"
               "  and that each FILE's SHA-256 is one of its subjects. Exit 0 when all hold, 2 when\n"
               "  the signature is bad or a FILE is not in the record (said on stderr).\n"},
    {"replay", "folio replay DIR|MANIFEST|RECORD [--in DIR] [--json]\n"
               "  Re-runs a folio run (its --out DIR or manifest.json) or a session (a record from\n"
               "  `folio session export ID --record FILE`) in the recorded limits, on the inputs of\n"
               "  --in DIR (default .) whose SHA-256 must match the record (else refused, named:\n"
               "  exit 2), and reports each output identical or differs (JSON files: the values,\n"
               "  by JSON Pointer) with the likely cause. Exit 0 all identical, 4 one differs.\n"},
    {"schema", "folio schema\n  Prints the JSON Schema (2020-12) of the result spec.\n"},
    {"run", "folio run [--in FILE|DIR]... [--out DIR] [--render xlsx,pdf,...] [--timeout SEC]\n"
            "          [--memory MB] [--max-bytes N] [--pids N] [--net none|all] [--sign KEY.pem]\n"
            "          [--json] [--quiet]\n"
            "          -- CMD [ARG...]\n"
            "  Runs CMD in the sandbox (docs/sandbox.md) with /work holding the --in files and\n"
            "  /out for results, collected into --out DIR with manifest.json; /out/result.json,\n"
            "  if written, is rendered to the --render formats in a second jail.\n"},
    {"env", "folio env [--json] [--refresh]\n"
            "  Lists what a cell can import: every package of the jail's Python with its\n"
            "  version (read inside a jail, cached until the system's packages change), and\n"
            "  what --net packages lets a run or session install (docs/environment.md).\n"},
    {"serve", "folio serve [--listen HOST:PORT | --listen unix:PATH] [--token-file FILE] [OPTIONS]\n"
              "  Serves renders, conversions, runs and sessions over HTTP, and /mcp: the routes\n"
              "  are in GET /v1/openapi.json and docs/serve.md. Every render runs in a jail as\n"
              "  `folio run --render` does. Without --token-file only loopback or a Unix socket.\n"
              "  Every option (workers, limits, sessions, drain): folio serve --help.\n"},
};

/* ---- printing diagnostics ---------------------------------------------------*/
static void print_diags(const fo_diags *d, bool json)
{
    if (json) {
        fputs(fo_diags_json(d), stdout);
        return;
    }
    for (size_t i = 0; i < d->n; i++) {
        char *line = fo_diag_format(&d->items[i]);
        fprintf(stderr, "folio: %s\n", line ? line : d->items[i].message);
        fo_free(line);
    }
}

/* ---- option parsing -----------------------------------------------------------*/
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') return -1;
    *out = v;
    return 0;
}

/* Parses argv (after the command name) into req. Returns 0 or an exit code. */
static int parse_args(int argc, char **argv, fo_cli_request *req)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define NEED_VALUE()                                                   \
        do {                                                           \
            if (i + 1 >= argc) return fo_usage_error(NULL, "option %s needs a value", a); \
            val = argv[++i];                                           \
        } while (0)
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_VALUE();
            if (req->nouts == FO_CLI_MAX_OUTS) return fo_usage_error(NULL, "too many outputs (at most 16)");
            req->outs[req->nouts++] = val;
        } else if (!strcmp(a, "--theme")) {
            NEED_VALUE();
            req->opts.theme = val;
        } else if (!strcmp(a, "--template")) {
            NEED_VALUE();
            req->opts.template_path = val;
        } else if (!strcmp(a, "--max-bytes")) {
            NEED_VALUE();
            if (parse_u64(val, &req->opts.max_bytes) || req->opts.max_bytes == 0)
                return fo_usage_error(NULL, "--max-bytes needs a positive whole number of bytes, not \"%s\"",
                                      val);
        } else if (!strcmp(a, "--scale")) {
            NEED_VALUE();
            char *end;
            req->opts.scale = strtod(val, &end);
            if (*end || end == val || !(req->opts.scale >= 0.25 && req->opts.scale <= 8))
                return fo_usage_error(NULL, "--scale needs a number from 0.25 to 8, not \"%s\"", val);
        } else if (!strcmp(a, "--allow-link-scheme")) {
            NEED_VALUE();
            if (!fo_link_schemes_allow(val))
                return fo_usage_error(NULL, "--allow-link-scheme needs URI scheme names separated by commas, "
                                      "e.g. ftp,tel, not \"%s\"", val);
        } else if (!strcmp(a, "--provenance")) {
            NEED_VALUE();
            int rc = fo_cli_provenance(val, &req->opts);
            if (rc) return rc;
        } else if (!strcmp(a, "--allow-external-formulas")) {
            fo_formulas_external_allow(true);
        } else if (!strcmp(a, "--json")) {
            req->json = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            req->quiet = true;
        } else if (a[0] == '-' && a[1]) {
            return fo_usage_error(NULL, "unknown option %s", a);
        } else {
            if (req->npos == FO_CLI_MAX_POS) return fo_usage_error(NULL, "unexpected argument \"%s\"", a);
            req->pos[req->npos++] = a;
        }
#undef NEED_VALUE
    }
    return 0;
}

/* ---- commands -------------------------------------------------------------------*/
static bool is_spec(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && strcasecmp(dot, ".json") == 0;
}

static int cmd_validate(fo_cli_request *req)
{
    if (req->npos != 1 || req->nouts) return fo_usage_error(NULL, "validate takes one SPEC.json");
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    fo_status st = fo_spec_load(req->pos[0], &doc, &d);
    print_diags(&d, req->json);
    if (st == FO_OK && !req->json && !req->quiet) {
        size_t nb = fo_doc_nblocks(doc), nd = fo_doc_ndatasets(doc);
        fprintf(stderr, "folio: %s: valid (%zu block%s, %zu dataset%s)\n", req->pos[0],
                nb, nb == 1 ? "" : "s", nd, nd == 1 ? "" : "s");
    }
    fo_doc_free(doc);
    fo_diags_free(&d);
    return fo_status_exit_code(st);
}

/* Progress on a terminal: one line rewritten in place. */
static void show_progress(void *ctx, const char *dataset, uint64_t done, uint64_t total)
{
    (void)ctx;
    if (total)
        fprintf(stderr, "\rfolio: %s: %llu of %llu rows (%d%%)   ", dataset, (unsigned long long)done,
                (unsigned long long)total, (int)(done * 100 / total));
    else fprintf(stderr, "\rfolio: %s: %llu rows   ", dataset, (unsigned long long)done);
}

static int render_doc(fo_cli_request *req, const char *input)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    fo_written_list written = {0};
    bool tty = isatty(STDERR_FILENO) && !req->quiet;
    double t0 = fo_now();
    if (tty) fprintf(stderr, "folio: reading %s...\n", input);
    fo_status st = is_spec(input) ? fo_spec_load(input, &doc, &d) : fo_csv_doc(input, &doc, &d);
    if (st == FO_OK && req->opts.theme) st = fo_doc_set_theme(doc, req->opts.theme, &d);
    if (st == FO_OK) {
        req->opts.progress = tty;
        req->opts.sha256 = req->json;   /* only --json shows it */
        if (tty) fo_progress_set(show_progress, NULL);
        if (tty) fprintf(stderr, "folio: rendering %zu output%s...\n", req->nouts, req->nouts == 1 ? "" : "s");
        st = fo_render(doc, req->outs, req->nouts, &req->opts, &written, &d);
        fo_progress_set(NULL, NULL);
        if (tty) fputc('\n', stderr);
    }
    print_diags(&d, req->json && st != FO_OK);
    if (st == FO_OK) {
        double secs = fo_now() - t0;
        if (req->json) fputs(fo_written_json(&written), stdout);
        else if (!req->quiet)
            for (size_t i = 0; i < written.n; i++)
                fprintf(stderr, "folio: wrote %s (%llu bytes)%s\n", written.items[i].path,
                        (unsigned long long)written.items[i].bytes, i + 1 == written.n && tty ? "" : "");
        if (tty) fprintf(stderr, "folio: done in %.2f s\n", secs);
    }
    fo_written_free(&written);
    fo_doc_free(doc);
    fo_diags_free(&d);
    return fo_status_exit_code(st);
}

static int check_outputs(fo_cli_request *req)
{
    for (size_t i = 0; i < req->nouts; i++)
        if (!fo_format_known(req->outs[i]))
            return fo_usage_error(NULL, "%s: unknown output format (use .xlsx .docx .pptx .pdf or .png)",
                                  req->outs[i]);
    return 0;
}

static int cmd_render(fo_cli_request *req)
{
    if (req->npos != 1) return fo_usage_error(NULL, "render takes one SPEC.json and -o OUT for each output");
    if (req->nouts == 0) return fo_usage_error(NULL, "render needs at least one -o OUT.ext");
    int rc = check_outputs(req);
    return rc ? rc : render_doc(req, req->pos[0]);
}

static int cmd_convert(fo_cli_request *req)
{
    if (req->npos != 2 || req->nouts) return fo_usage_error(NULL, "convert takes INPUT and OUTPUT");
    const char *dot = strrchr(req->pos[0], '.');
    if (!dot || (strcasecmp(dot, ".csv") && strcasecmp(dot, ".tsv") && strcasecmp(dot, ".json")))
        return fo_usage_error(NULL, "%s: convert reads .csv, .tsv or a spec .json", req->pos[0]);
    req->outs[req->nouts++] = req->pos[1];
    int rc = check_outputs(req);
    return rc ? rc : render_doc(req, req->pos[0]);
}

static int cmd_themes(fo_cli_request *req)
{
    if (req->npos || req->nouts) return fo_usage_error(NULL, "themes takes no arguments");
    char name[64], desc[256];
    for (size_t i = 0; fo_theme_builtin(i, name, sizeof name); i++)
        printf("%-12s %s\n", name, fo_theme_description(name, desc, sizeof desc));
    return 0;
}

static int cmd_help(const char *topic)
{
    if (!topic) { fputs(usage_text, stdout); return 0; }
    for (size_t i = 0; i < sizeof help_topics / sizeof *help_topics; i++)
        if (!strcmp(topic, help_topics[i][0])) { fputs(help_topics[i][1], stdout); return 0; }
    return fo_usage_error(NULL, "no help for \"%s\" (commands: render convert validate schema run session serve)",
                          topic);
}

/* folio-engine has no service: serve/ and libmicrohttpd are linked into
 * folio-serve only, which the launcher starts for `folio serve`. */
__attribute__((weak)) int fo_serve_main(int argc, char **argv, const char *engine)
{
    (void)argc;
    (void)argv;
    (void)engine;
    fputs("folio: serve: this engine has no service; run `folio serve` (the launcher starts "
          "folio-serve)\n", stderr);
    return 5;
}

/* The same for `folio mcp` (serve/mcp_stdio.c), also in folio-serve only. */
__attribute__((weak)) int fo_mcp_main(int argc, char **argv, const char *engine)
{
    (void)argc;
    (void)argv;
    (void)engine;
    fputs("folio: mcp: this engine has no MCP server; run `folio mcp`\n", stderr);
    return 5;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fputs(usage_text, stderr); return 1; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) { printf("folio %s\n", FOLIO_VERSION); return 0; }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return cmd_help(NULL);
    if (!strcmp(cmd, "help")) return cmd_help(argc > 2 ? argv[2] : NULL);
    if (!strcmp(cmd, "run")) {
        fputs("folio: `run` is served by the folio command itself, not folio-engine\n", stderr);
        return 1;
    }

    if (!strcmp(cmd, "serve") || !strcmp(cmd, "mcp")) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) { fprintf(stderr, "folio: %s: can't find its own engine: %s\n", cmd, strerror(errno)); return 5; }
        self[n] = '\0';
        return (cmd[0] == 's' ? fo_serve_main : fo_mcp_main)(argc - 1, argv + 1, self);
    }

    if (!strcmp(cmd, "sign")) return fo_cli_sign(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return fo_cli_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "replay")) return fo_cli_replay(argc - 2, argv + 2);

    fo_cli_request req;
    memset(&req, 0, sizeof req);
    if (!strcmp(cmd, "schema") && argc == 3 && !strcmp(argv[2], "--theme"))
        return fo_cli_schema_named("theme");
    int rc = parse_args(argc - 2, argv + 2, &req);
    if (rc) return rc;
    if (!strcmp(cmd, "render")) return cmd_render(&req);
    if (!strcmp(cmd, "convert")) return cmd_convert(&req);
    if (!strcmp(cmd, "validate")) return cmd_validate(&req);
    if (!strcmp(cmd, "schema")) return fo_cli_schema(&req);
    if (!strcmp(cmd, "themes")) return cmd_themes(&req);
    if (!strcmp(cmd, "inspect")) return fo_cli_inspect(&req);
    static const char *const cmds[] = {"render", "convert", "validate", "schema", "themes", "inspect", "sign", "verify", "replay", "run", "serve", "help", NULL};
    const char *best = NULL;
    for (int i = 0; cmds[i]; i++)
        if (strncmp(cmd, cmds[i], 3) == 0) best = cmds[i];
    if (best) {
        fprintf(stderr, "folio: unknown command \"%s\" (did you mean '%s'?)\nTry 'folio --help'.\n", cmd, best);
        return 1;
    }
    return fo_usage_error(NULL, "unknown command \"%s\"", cmd);
}
