/* session_record.h — a session's record: what it ran and what came of it
 * (PRODUCT.md §9, docs/sessions.md "The record").
 *
 * The supervisor writes, in the session's folder RT/ID (saved by hibernation
 * and by checkpoints to the state folder, restored on resume):
 *   record.head   one JSON object: session, folio, python, created, policy
 *                 (the limits in force), inputs (--in, hashed)
 *   record.puts   JSON lines, one per `put`: {"path", "bytes", "sha256", "at"}
 *   record.jsonl  JSON lines, one per cell: code (whole), code_sha256, status,
 *                 started, ms, stdout/stderr (FO_RECORD_TEXT_CAP each), the
 *                 result's and displays' MIME bundles (FO_RECORD_BUNDLES_CAP a
 *                 cell, else text/plain only), error, files (path, bytes,
 *                 sha256 of /out's new or changed files), egress (--net
 *                 packages / allow=: the proxy's log of the cell's connections,
 *                 FO_RECORD_EGRESS_CAP bytes)
 *   record.nb     the same cells as Jupyter code cells (nbformat 4), one a line
 *   record.index  one short line per cell: cell, started, status, ms, code_sha256
 * Bounds: record.jsonl and record.nb keep the last FO_RECORD_FULL_CELLS cells
 * (and FO_RECORD_FULL_BYTES), record.index the last FO_RECORD_INDEX_CELLS,
 * record.puts the last FO_RECORD_PUTS; the oldest lines go first.
 * Writers are private to the supervisor (FO_SESSION_PRIVATE); readers
 * (export) are the client API in session.h. */
#ifndef FO_SESSION_RECORD_H
#define FO_SESSION_RECORD_H

#define FO_RECORD_FULL_CELLS  1000
#define FO_RECORD_FULL_BYTES  (64u << 20)
#define FO_RECORD_INDEX_CELLS 100000
#define FO_RECORD_PUTS        10000
#define FO_RECORD_TEXT_CAP    (64u << 10)     /* stdout, stderr kept per cell */
#define FO_RECORD_BUNDLES_CAP (2u << 20)      /* a cell's bundles, as JSON */
#define FO_RECORD_EGRESS_CAP  (64u << 10)     /* a cell's egress log lines */

/* One finished cell, as fo_session_exec_cell saw it. Strings are raw bytes
   (out, err, code) or JSON texts (the others; empty: absent). */
typedef struct {
    unsigned cell;
    const char *status;
    double started;                 /* Unix time, s */
    double ms;
    const char *code;
    size_t code_len;
    const char *out, *err;
    size_t out_len, err_len;
    unsigned long long out_total, err_total;
    const char *result_data;        /* {"data", "metadata"} or "" */
    const char *ename, *evalue, *etb;   /* JSON strings, or "" */
    const char *const *displays;    /* {"data", "metadata"} each */
    size_t n_displays;
    const char *files;              /* JSON array of {path, bytes, sha256} */
    const char *egress;             /* JSON items: the proxy's log lines of the cell, or "" */
} fo_record_cell;

#ifdef FO_SESSION_PRIVATE
/* The header, at a new session's start: info is the session's JSON
   ({"id", "python", "limits"}), inputs the --in array or NULL. */
void fo_session_record_begin(int dir, const char *id, const char *info, const char *inputs);
/* A `put`: /work/path, its size and hash. */
void fo_session_record_put(int dir, const char *path, unsigned long long bytes,
                           const char sha256[65]);
/* Appends one cell (record.jsonl, record.nb, record.index), trimming the
   oldest lines past the bounds. Best effort: a failure is logged, the cell
   goes on. */
void fo_session_record_cell(int dir, const fo_record_cell *c);
/* Copies the record's files from one folder to another (a checkpoint into
   the state folder, a resume out of it). Best effort. */
void fo_session_record_copy(int from, int to);
#endif

#endif
