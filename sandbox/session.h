/* session.h — `folio session`: a jail whose Python interpreter lives on
 * between cells (PRODUCT.md §6, docs/sessions.md).
 *
 * One supervisor process per session (`folio session _supervise`, exec'd
 * from the static folio binary, detached in its own session) holds the jail
 * and the kernel (sandbox/kernel/folio_kernel.py) and answers requests on a
 * Unix socket in the per-user runtime folder. The functions below are the
 * client side of that socket: the CLI (session_cli.c) and `folio serve` call
 * them the same way. All return 0, or -1 with *err filled (a stable code, a
 * message and a recovery hint); none prints.
 *
 *   session_proto.c   frames, runtime folder, ids, the store's small files
 *   session_client.c  this API
 *   session_super.c   the supervisor: jail, kernel, exec, put/get/render
 *   session_store.c   file trees in and out of a jail, /out changes, hibernation
 *   session_cli.c     `folio session ...` options and printing
 */
#ifndef FO_SESSION_H
#define FO_SESSION_H

#include <stddef.h>

/* A failure a client can meet. code is one of: session_not_found,
   session_expired, restore_failed, oom_killed, cell_timeout, limit_reached,
   kernel_restarted, bad_request, internal. exit: folio's exit code for it. */
typedef struct {
    char code[32];
    char message[512];
    char hint[512];
    int exit;
} fo_session_error;

typedef struct {
    const char *folio;          /* the static folio binary (execs the supervisor) */
    char *const *argv;          /* `session new` options (--in, --memory, --net, --idle...) */
    int argc;                   /* borrowed */
    int cold;                   /* 1: never take a spare, start none (see fo_session_spare) */
} fo_session_new;

/* The static folio binary that runs supervisors (for new sessions and
   resumes) when it is not this process's own: folio serve names it. */
void fo_session_use_folio(const char *path);

/* Starts a session; id receives 32 hex digits (128 random bits). *info: the
   session's JSON ({"id", "limits"}), malloc'd, for the caller to free. */
int fo_session_create(const fo_session_new *o, char id[33], char **info, fo_session_error *err);

/* Streamed output of a running cell: stream 1 stdout, 2 stderr, 3 a display
   (its MIME bundle as JSON; FO_SESSION_STREAM_EVENTS only), 4 the cell has
   begun (its number, decimal), 0 nothing came for FO_SESSION_TICK_MS (an
   event stream's keep-alive). */
#define FO_SESSION_TICK_MS 15000
typedef void (*fo_session_stream_fn)(void *ud, int stream, const char *s, size_t n);

/* Runs one cell (timeout_s <= 0: the session's default). fn may be NULL (no
   streaming). *result: the exec result JSON of PRODUCT.md §6, malloc'd,
   bounded (FO_SESSION_MAX_FRAME). A hibernated session is resumed first. */
int fo_session_exec(const char *id, const char *code, size_t len, double timeout_s,
                    fo_session_stream_fn fn, void *ud, char **result, fo_session_error *err);

#define FO_SESSION_STREAM_TEXT   1          /* exec's stream byte: a terminal */
#define FO_SESSION_STREAM_EVENTS 2          /* an event stream: bundles as JSON */
#define FO_SESSION_STREAM_MASK   0x7f
#define FO_SESSION_CALLER_HTTP   0x80       /* hints name JSON fields, not options */

/* As fo_session_exec, for another kind of caller. mode: 0 (no stream),
   FO_SESSION_STREAM_TEXT (a terminal: fn gets what the cell prints, each
   display's text and the result's) or FO_SESSION_STREAM_EVENTS (an event
   stream such as serve's SSE: fn gets what the cell prints and each
   display's bundle, stream 3, and nothing echoed), ORed with
   FO_SESSION_CALLER_HTTP for failures whose hints name JSON fields. */
int fo_session_exec_as(const char *id, const char *code, size_t len, double timeout_s,
                       unsigned mode, fo_session_stream_fn fn, void *ud, char **result,
                       fo_session_error *err);

/* Copies the open regular file fd into /work/dest (safe relative path). */
int fo_session_put(const char *id, int fd, const char *dest, fo_session_error *err);

/* Opens /work/PATH or /out/PATH (a relative path means /work) for reading,
   never following a link; *fd receives it, *bytes its size (within the
   session's ceiling). */
int fo_session_get(const char *id, const char *path, int *fd, unsigned long long *bytes,
                   fo_session_error *err);

/* Called once per rendered file: its name (result.pdf...) and an fd to read. */
typedef int (*fo_session_file_fn)(void *ud, const char *name, int fd);

/* Renders /out/result.json to formats ("pdf,xlsx") in a second jail, as
   `folio run --render` does. *result: {"exit", "files", "stderr"} JSON. */
int fo_session_render(const char *id, const char *formats, fo_session_file_fn fn, void *ud,
                      char **result, fo_session_error *err);

/* `folio session _spare OPTIONS`: starts a session ahead for the next
   fo_session_create with the same options (docs/sessions.md, "Spares").
   Returns the exit code. */
int fo_session_spare(const char *folio, char *const *argv, int argc);
/* Ends every unclaimed spare of this runtime folder; how many. */
unsigned fo_session_drop_spares(void);

/* Interrupts the session's running cell (KeyboardInterrupt; escalated to a
   restart as for a timeout when it is ignored): its exec answers with status
   "interrupted". Never waits for the cell: the request goes to the
   supervisor's control socket. *interrupted: 1 when a cell was running, 0
   when none was (or the session is hibernated). */
int fo_session_interrupt(const char *id, int *interrupted, fo_session_error *err);
int fo_session_close(const char *id, fo_session_error *err);      /* deletes everything */
int fo_session_hibernate(const char *id, fo_session_error *err);  /* now, not at --idle */
int fo_session_list(char **json, fo_session_error *err);          /* [{"id", "state", ...}] */
/* True when the shared state folder (FOLIO_STATE_DIR, folio serve
   --state-dir) holds a saved snapshot of session id: any instance resumes it. */
int fo_session_state_has(const char *id);
/* `folio session _lease ID`, started by a supervisor holding the lease:
   renews it every third of its life while that parent lives, and sends it
   SIGTERM (hibernate) once another instance asks for the session
   (STATE/ID/want). The exit code. */
int fo_session_lease_keep(const char *id);

/* The session's record (sandbox/session_record.h, docs/sessions.md "The
   record"), read from its folder (or its snapshot in the state folder) without
   waking it: FO_EXPORT_NOTEBOOK, a Jupyter notebook (nbformat 4.4, the
   provenance in metadata.folio); FO_EXPORT_RECORD, JSON lines: a first line
   {"folio_record": 1, "head", "puts", "environment"}, then one per cell (what
   `folio replay` reads). *out malloc'd (*len bytes). 0, or -1 + err. */
#define FO_EXPORT_NOTEBOOK 1
#define FO_EXPORT_RECORD   2
int fo_session_export(const char *id, int what, char **out, size_t *len, fo_session_error *err);

/* `folio session ARGS` (argv[0] = "session"); folio: this binary's path,
   engine: folio-engine's, or NULL. Returns the exit code. Prints. */
int fo_session_main(int argc, char **argv, const char *folio, const char *engine);

/* 32 random hex digits (getrandom; aborts rather than hand out a guessable
   id): the id of a session, and of a served run (serve/runs.c). */
void fo_session_new_id(char id[33]);

/* ======================= private to sandbox/session*.c ================== */
#ifdef FO_SESSION_PRIVATE

#include <stdint.h>

/* Frames, on every channel: [type: 1 byte][length: u32 little-endian][payload].
   On RT/ID/ctl: 'I' (interrupt) -> 'R' {"interrupted": true|false}. */
#define FO_SESSION_HDR        5
#define FO_SESSION_MAX_FRAME  (32u << 20)    /* client <-> supervisor */
#define FO_SESSION_MAX_KFRAME (80u << 10)    /* kernel -> supervisor (64 KiB + slack) */
#define FO_SESSION_MAX_CODE   (1u << 20)     /* one cell's source */
#define FO_SESSION_OUT_CAP    (1u << 20)     /* stdout, stderr kept per cell */
#define FO_SESSION_BUNDLE_CAP (4u << 20)     /* one MIME bundle's data */
#define FO_SESSION_BUNDLES_CAP (8u << 20)    /* every bundle of one cell, as JSON */
#define FO_SESSION_MAX_SESSIONS 32           /* default of --max-sessions */

/* Sends one frame (and the descriptor pass_fd, if >= 0). 0 or -1. */
int fo_session_send(int sock, char type, const void *payload, size_t len, int pass_fd);
/* Receives one frame within timeout_ms (-1: none) and max payload bytes;
   *payload malloc'd (NUL-terminated), *fd a passed descriptor or -1.
   0, or -1 (errno; EPROTO for a malformed or oversized frame). */
int fo_session_recv(int sock, char *type, char **payload, size_t *len, size_t max,
                    int timeout_ms, int *fd);

/* The per-user runtime folder ($XDG_RUNTIME_DIR/folio, else /tmp/folio-UID),
   created 0700 and checked (ours, a folder, 0700). An open fd, or -1 + err. */
int fo_session_runtime(fo_session_error *err);
int fo_session_valid_id(const char *id);
/* Connects to the session's socket; -1 with errno when there is none. */
int fo_session_connect(int rt, const char *id);
/* Connects to RT/ID/name: "sock" (requests, one at a time) or "ctl" (control
   requests, answered at once even while a cell runs). */
int fo_session_connect_to(int rt, const char *id, const char *name);
/* Unix socket address of dir/name through /proc/self/fd (short paths). */
struct sockaddr_un;
void fo_session_addr(struct sockaddr_un *a, int dirfd, const char *name);

void fo_session_fail(fo_session_error *err, const char *code, int exit, const char *hint,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An error frame's payload "code\0message\0hint" to *err (bounded, checked). */
void fo_session_error_parse(fo_session_error *err, const char *p, size_t n);
int fo_session_error_send(int sock, const fo_session_error *err);

/* Small files of the store (dir RT/ID): read whole (up to max), written atomically 0600. */
char *fo_session_read_small(int dirfd, const char *name, size_t max);
int fo_session_write_small(int dirfd, const char *name, const char *text);

/* session_super.c: `folio session _supervise RT-FD ID READY-FD [--resume | OPTIONS]`. */
int fo_session_supervise(int argc, char **argv, const char *folio, const char *engine);

#endif /* FO_SESSION_PRIVATE */
#endif
