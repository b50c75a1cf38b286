/* folio.h — public API of libfolio: status codes, diagnostics, allocation,
 * and the one-call pipeline (load a spec, render it to files).
 *
 * Every module of libfolio uses the prefix fo_. Library code never prints or
 * exits: it returns an fo_status and appends located messages to an fo_diags
 * list; only cli/ decides what to print and which exit code to use. */
#ifndef FOLIO_H
#define FOLIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FOLIO_VERSION "0.1.0"
#define FO_DEFAULT_MAX_BYTES 31457280ULL /* 30 MiB output ceiling */

/* One enum for every failure; fo_strerror() names it. The values are grouped
 * so that fo_status_exit_code() maps them to the CLI's exit codes. */
typedef enum {
    FO_OK = 0,
    FO_ERR_USAGE,       /* bad command line                         -> exit 1 */
    FO_ERR_INPUT,       /* invalid spec, CSV, data or referenced file -> exit 2 */
    FO_ERR_UNSUPPORTED, /* output format not built yet              -> exit 2 */
    FO_ERR_CEILING,     /* an output would exceed the ceiling       -> exit 3 */
    FO_ERR_SANDBOX,     /* sandboxed program failed                 -> exit 4 */
    FO_ERR_IO,          /* reading or writing a file failed         -> exit 5 */
    FO_ERR_NOMEM,       /* out of memory                            -> exit 5 */
    FO_ERR_INTERNAL     /* a library call failed unexpectedly       -> exit 5 */
} fo_status;

const char *fo_strerror(fo_status s);
int fo_status_exit_code(fo_status s);

/* ---- diagnostics ---------------------------------------------------------
 * One problem: where (file, 1-based line and column, JSON Pointer; any may be
 * absent: NULL / 0) and what (message, optional hint). */
typedef struct {
    char *file;
    int line, column;
    char *pointer;
    char *message;
    char *hint;
} fo_diag;

typedef struct {
    fo_diag *items;
    size_t n, cap;
} fo_diags;

void fo_diags_init(fo_diags *d);
void fo_diags_free(fo_diags *d);
/* Appends a problem; strings are copied. Never fails visibly: on allocation
 * failure the problem is dropped (the caller's status still says why). */
void fo_diags_add(fo_diags *d, const char *file, int line, int column,
                  const char *pointer, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* "file:line:col: /pointer: message (hint)" — the CLI's one-line form. */
char *fo_diag_format(const fo_diag *g);

/* ---- allocation ----------------------------------------------------------
 * All allocation goes through these, so tests can make the N-th fail. */
void *fo_malloc(size_t n);
void *fo_calloc(size_t n, size_t size);
void *fo_realloc(void *p, size_t n);
char *fo_strdup(const char *s);
char *fo_strndup(const char *s, size_t n);
void fo_free(void *p);
/* Test hook: the n-th allocation from now fails (0 = never). */
void fo_alloc_fail_after(unsigned long n);

/* ---- the pipeline ----------------------------------------------------------*/
typedef struct fo_doc fo_doc;

/* One provenance record of a rendered file: name ("folio.run") and value,
 * both UTF-8 text. See fo_render_opts.prov and docs/provenance.md. */
typedef struct {
    const char *name;
    const char *value;
} fo_prov_item;
/* At most this many items are recorded (spec, version and 62 of the caller's);
 * every name starts with FO_PROV_PREFIX, and in a PDF's XMP the rest of it is
 * the local name of an element in FO_PROV_XMP_NS. */
#define FO_PROV_MAX 64
#define FO_PROV_PREFIX "folio."
#define FO_PROV_XMP_NS "https://folio.invalid/ns/provenance/1/"

typedef struct {
    uint64_t max_bytes;      /* ceiling per output file; 0 = default */
    double scale;            /* PNG scale factor; 0 = 1 */
    const char *theme;       /* theme name or FILE.json; NULL = spec's or default */
    const char *template_path; /* --template FILE.docx|pptx|xlsx, or NULL: used by the
                                  outputs of its own format only */
    bool progress;           /* report progress on stderr */
    bool scratch;            /* the outputs are scratch files, read once and removed
                                (folio serve's render children): no fsync and no
                                watchdog thread; the ceiling is still checked at the end */
    bool sha256;             /* fill each fo_written's sha256 (folio render --json);
                                else it is "": hashing the mixed-script report's PDF
                                was 3% of its render */
    const fo_prov_item *prov; /* what made the document (a run's or session's id,
                                cell, input hashes), recorded after folio.spec_sha256
                                and folio.version in every file's metadata; borrowed */
    size_t nprov;
} fo_render_opts;

/* Reads and validates a spec. On any problem returns FO_ERR_INPUT with every
 * problem in *d (all at once) and *out = NULL. Caller frees with fo_doc_free. */
fo_status fo_spec_load(const char *path, fo_doc **out, fo_diags *d);
/* The same from a buffer; relative paths resolve in base_dir (NULL = "."). */
fo_status fo_spec_parse(const char *text, size_t len, const char *display, const char *base_dir,
                        fo_doc **out, fo_diags *d);
/* Builds a one-table document from a CSV/TSV file (folio convert). */
fo_status fo_csv_doc(const char *path, fo_doc **out, fo_diags *d);
void fo_doc_free(fo_doc *doc);

/* One written file, for --json. */
typedef struct {
    char *path;
    const char *format;
    uint64_t bytes;
    char sha256[65];         /* hex; "" unless fo_render_opts.sha256 */
} fo_written;

typedef struct {
    fo_written *items;
    size_t n;
} fo_written_list;
void fo_written_free(fo_written_list *w);
/* A render's report as indented JSON text ending in a newline (folio --json):
 * an array of {"file", "line", "column", "pointer", "message", "hint"} for
 * the diagnostics, of {"path", "format", "bytes", "sha256"} for the files
 * written. Valid until the next call of either ("[]\n" when out of memory). */
const char *fo_diags_json(const fo_diags *d);
const char *fo_written_json(const fo_written_list *w);
/* Writes a zip at path (made here: it must not exist) of n files read from
 * fds (from their current offsets), the k-th named names[k]; the same files
 * give the same bytes (fixed dates). 0, or -1 with nothing left at path. */
int fo_zip_fds(const char *path, const char *const *names, const int *fds, size_t n);

/* The provenance a rendered file records (names start FO_PROV_PREFIX). */
typedef struct {
    char *name[FO_PROV_MAX], *value[FO_PROV_MAX];
    size_t n;
} fo_prov_found;
/* Reads it from a file's bytes (data, len; path for OOXML's zip) into f:
 * returns the format ("png", "pdf", or the OOXML file's extension), or NULL
 * when the bytes are no document folio writes. f->n is 0 when the file
 * records none. Free f with fo_prov_found_free. */
const char *fo_prov_read(const char *path, const char *data, size_t len, fo_prov_found *f);
void fo_prov_found_free(fo_prov_found *f);

/* Renders doc to every path in outs (format from each extension). All files
 * are staged and size-checked; either all are renamed into place or none is
 * left behind. *written (may be NULL) receives what was written. */
fo_status fo_render(const fo_doc *doc, const char *const *outs, size_t nouts,
                    const fo_render_opts *opts, fo_written_list *written, fo_diags *d);

/* Progress of long work, for a CLI on a terminal: called about every 64k
 * rows streamed from a dataset, with the rows done and the dataset's total.
 * Library code never prints; the callback decides. NULL turns it off. */
typedef void (*fo_progress_fn)(void *ctx, const char *dataset, uint64_t done, uint64_t total);
void fo_progress_set(fo_progress_fn fn, void *ctx);
/* Called by row streams (render/core/model.h users need not call it). */
void fo_progress_tick(const char *dataset, uint64_t done, uint64_t total);

/* True when the extension of path names a format folio can write. */
bool fo_format_known(const char *path);

/* ---- themes, schemas, counts: the rest of what the folio command uses ---- */
/* Replaces doc's theme with a built-in theme (by name) or a theme FILE.json,
 * as --theme does. Errors, located in the theme file, go to d (FO_ERR_INPUT). */
fo_status fo_doc_set_theme(fo_doc *doc, const char *name_or_path, fo_diags *d);
/* How many blocks and datasets doc has. */
size_t fo_doc_nblocks(const fo_doc *doc);
size_t fo_doc_ndatasets(const fo_doc *doc);
/* Name of the i-th built-in theme (written into buf), NULL past the end. */
const char *fo_theme_builtin(size_t i, char *buf, size_t cap);
/* The one-line description of a built-in theme ("" if none), in buf. */
const char *fo_theme_description(const char *name, char *buf, size_t cap);
/* The JSON Schema (2020-12) of a spec (which "spec") or of a theme ("theme"),
 * with its length in *len; NULL for any other name. Static: not freed. */
const char *fo_schema(const char *which, size_t *len);

/* ---- what only the command line may widen ---------------------------------
 * Nothing in a spec or theme can: links may use http, https and mailto, and
 * formulas may not call outside the workbook, unless these say otherwise. */
/* Adds the comma-separated schemes of list ("ftp,tel") to those allowed.
 * False (nothing changed) when a name is not a URI scheme
 * ([A-Za-z][A-Za-z0-9+.-]*, at most 31 characters) or there are over 16. */
bool fo_link_schemes_allow(const char *list);
/* Formulas that call outside the workbook are refused unless allowed. */
void fo_formulas_external_allow(bool on);

#endif
