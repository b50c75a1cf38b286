/* serve.h — `folio serve`: folio over HTTP for chat backends (PRODUCT.md §7).
 *
 * Files of serve/ (linked into folio-engine only):
 *   server.c   options, listening socket, tokens, signals (SIGHUP reload,
 *              SIGTERM drain), the libmicrohttpd daemon, fo_serve_main
 *   http.c     the route table (every route), uploads streamed into a per-request scratch
 *              folder, limits and refusals, JSON errors, the request log
 *   limits.c   the operator's ceilings on what a client may ask (--session-limits)
 *   framing.c  refuses requests whose body could be read two ways (smuggling)
 *   metrics.c  counters and latency histograms, /metrics in Prometheus text
 *   zygote.c   confinement: a pre-jailed zygote that forks a fresh,
 *              non-dumpable child per render (the server keeps no renderer
 *              state), or (--reuse-workers) a worker per tenant that proves
 *              itself clean between requests; the wire protocol between
 *              server and child
 *   region.c   the render children's allocator (replaces malloc in
 *              folio-engine; glibc's until a child turns it on)
 *   hugetext.c the zygote's code and rodata moved onto 2 MiB pages
 * Library rule: only server.c prints (its own start-up errors and the one
 * JSON log line per request that http.c formats). */
#ifndef FO_SERVE_H
#define FO_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entry point of `folio serve [options]` (argv[0] = "serve"); engine is the
   absolute path of this folio-engine (bound into the zygote's jail). Returns
   the exit code: 0 after a clean drain, 1 usage, 5 start-up failure. */
int fo_serve_main(int argc, char **argv, const char *engine);

/* Turns on (then off) learning while the zygote's warm-up renders: a part
   of a workbook deflated meanwhile is kept, and a later part with the same
   bytes is given the same deflated bytes without deflating again (the
   theme, the rels and the content types of most small workbooks). Only the
   zygote's built-in spec is ever learned, never a request's. Defined by the
   executable that interposes libxlsxwriter's zip (cli/lxw_zip.c); weak, so
   serve/ runs without it. Not thread-safe: only while single-threaded. */
void fo_serve_warm_learn(bool on) __attribute__((weak));

/* ======================= private to serve/ ============================== */
#ifdef FO_SERVE_PRIVATE

/* 1 in an AddressSanitizer build (gcc's or clang's), where region.c and
   hugetext.c do nothing: the sanitizer brings its own malloc, and its
   redzones forbid copying the program's segments. */
#if defined(__SANITIZE_ADDRESS__)
#define FO_SERVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FO_SERVE_ASAN 1
#endif
#endif
#ifndef FO_SERVE_ASAN
#define FO_SERVE_ASAN 0
#endif

#include <pthread.h>
#include <stdatomic.h>

#define FO_SERVE_MAX_FORMATS 8

/* What a client may ask a session (and a run) for, each under a ceiling of
   the operator's (limits.c): their order in fo_serve_config's arrays. */
enum { FO_LIMIT_MEMORY, FO_LIMIT_DISK, FO_LIMIT_TIMEOUT, FO_LIMIT_CPUS, FO_LIMIT_IDLE,
       FO_LIMIT_PIDS, FO_LIMIT_N };
#define FO_SERVE_MAX_NAME    200    /* bytes of an uploaded file's relative path */

typedef struct {
    const char *listen;        /* "HOST:PORT" or "unix:PATH" */
    const char *token_file;    /* NULL: no auth (loopback/unix only) */
    const char *scratch;       /* root of the per-request scratch folders */
    const char *instance;      /* this instance's name: X-Folio-Instance, session ids */
    unsigned workers;          /* concurrent renders (default: cores) */
    unsigned queue;            /* renders waiting for a worker before 429 */
    unsigned threads;          /* libmicrohttpd's thread pool */
    unsigned max_conns;        /* open connections */
    unsigned conn_timeout;     /* seconds of client inactivity */
    unsigned max_parts;        /* parts of one multipart body */
    unsigned max_sessions;     /* live sessions (a session's --max-sessions) */
    unsigned max_cells;        /* session cells running at once, then 429 */
    unsigned run_ttl;          /* seconds a run's files are kept for download */
    unsigned retain;           /* seconds a hibernated session is kept, then deleted */
    const char *folio;         /* the static folio binary (runs, session supervisors), or NULL */
    const char *session_dir;   /* the sessions' runtime folder (FOLIO_SESSION_DIR) */
    const char *state_dir;     /* saved sessions, maybe shared (FOLIO_STATE_DIR) */
    double checkpoint_idle;    /* idle seconds before a live session is checkpointed */
    double lease_s;            /* a session's lease in the state folder (FOLIO_LEASE_S) */
    uint64_t max_bytes;        /* output ceiling per file */
    uint64_t max_body;         /* request body ceiling (and per part) */
    double timeout_s;          /* one render's wall clock */
    unsigned memory_mb;        /* the zygote jail's memory (all renders) */
    unsigned reuse_jobs;       /* --reuse-workers: requests per worker; 0/1: a child per request */
    unsigned worker_memory_mb; /* --worker-memory: a reused worker's RSS bound between requests */
    double worker_idle_s;      /* --worker-idle: an idle worker is ended after this */
    int jail;                  /* 1: renders in the jailed zygote; 0: plain fork */
    double session_max[FO_LIMIT_N];  /* --session-limits: the most a session may ask */
    double run_max[FO_LIMIT_N];      /* --run-limits: the most a run may ask (timeout) */
} fo_serve_config;

/* ---- limits.c --------------------------------------------------------- */
/* The ceilings' defaults: memory the smaller of 4 x a session's default
   (4096 MB) and the physical memory, disk 4096 MB, timeout 600 s, cpus the
   online CPUs, idle 86400 s, pids 1024; a run's timeout 600 s. */
void fo_serve_limits_defaults(fo_serve_config *c);
/* --session-limits KEY=V,... or --run-limits timeout=S (opt names which)
   over the defaults: 0, or 1 after printing a usage error. */
int fo_serve_limits_parse(fo_serve_config *c, const char *opt, const char *spec);
/* The key of limit k ("memory"), its unit ("MB"), or -1 / NULL. */
int fo_serve_limit_index(const char *key);
const char *fo_serve_limit_unit(int k);
/* What a session gets for limit k when its request leaves it out (disk:
   the session's memory, given as memory_mb). */
double fo_serve_limit_default(int k, double memory_mb);

/* ---- zygote.c --------------------------------------------------------- */
typedef struct fo_serve_zygote fo_serve_zygote;

/* What one render gets: uploaded files (fds owned by the caller, read-only),
   the spec or CSV input, the formats to write. */
typedef struct {
    int kind;                  /* 'S' spec (input_fd: JSON), 'C' CSV/TSV input */
    int input_fd;
    const char *input_name;    /* 'C': "input.csv" or "input.tsv" */
    const char *const *names;  /* relative paths of referenced files */
    const int *fds;
    size_t n_files;
    char formats[FO_SERVE_MAX_FORMATS][8];
    size_t n_formats;
    uint64_t max_bytes;
    double timeout_s;
} fo_serve_job;

typedef struct {
    int status;                /* fo_status of the render; -1: the child died */
    int timed_out;
    char *diags_json;          /* fo_malloc'd JSON array (validate --json objects) or NULL */
    int out_fds[FO_SERVE_MAX_FORMATS];   /* -1 where none; caller closes */
    size_t n_outs;
    uint64_t worker; /* reuse: the worker's random name; 0 otherwise */
} fo_serve_result;

/* Starts the zygote: jailed (jail=1, in a jail as `folio run --render`
   builds it, running engine) or a plain fork of this process. NULL and a
   message in err on failure. */
fo_serve_zygote *fo_serve_zygote_start(const fo_serve_config *cfg, const char *engine,
                                       char *err, size_t errlen);
/* Runs one job in a fresh child of the zygote (restarting a dead zygote
   once). With --reuse-workers and a tenant (32 bytes: the SHA-256 of the
   bearer token; NULL: a fresh child all the same), in an idle worker of that
   tenant that proves itself clean, else a new worker; a worker is ended
   after a failure, a timeout or its last request (zygote.c). 0, or -1 with a
   message in err when no child could be made. */
int fo_serve_zygote_render(fo_serve_zygote *z, const fo_serve_job *job, const unsigned char *tenant,
                           fo_serve_result *r, char *err, size_t errlen);
void fo_serve_result_free(fo_serve_result *r);
/* The zygote's pid as seen here (for SIGCHLD), or -1. */
int fo_serve_zygote_pid(fo_serve_zygote *z);
/* Called when pid, read from fo_serve_zygote_pid, was reaped: the next
   render restarts it. Nothing when a request's restart has replaced that
   zygote meanwhile (the new one's control socket stays open). */
void fo_serve_zygote_lost(fo_serve_zygote *z, int pid);
long fo_serve_zygote_restarts(const fo_serve_zygote *z);
void fo_serve_zygote_stop(fo_serve_zygote *z);
/* `folio-engine serve --zygote` inside the jail: the zygote's loop. */
int fo_serve_zygote_main(void);

/* ---- hugetext.c ------------------------------------------------------- */
/* In the zygote, before its warm-up: this executable's read-only segments
   (code, rodata) moved onto 2 MiB pages, same bytes at the same addresses,
   so a child reads them for one page-table fill each. How many segments
   moved (0 when the link or the kernel does not allow it: nothing changes). */
unsigned fo_serve_huge_text(void);

/* ---- region.c --------------------------------------------------------- */
/* In a render child, at its start: from now on malloc, calloc and realloc
   take fresh memory of this process (up to bytes, then glibc's heap again)
   and free forgets it -- the child lives for one request. Without it (or in
   a sanitizer build, where it does nothing) the child's allocations reuse
   the zygote's heap pages, each copied on first write. */
void fo_serve_region_begin(size_t bytes);
/* The most bytes of the region in use at once so far (0 when it is off or
   not built). */
size_t fo_serve_region_used(void);

/* ---- metrics.c -------------------------------------------------------- */
/* The metrics label (route="...") of a row of the route table (http.c): a
   new route takes one of these; a new label is one more here and its name
   in metrics.c's route_names. */
enum { FO_ROUTE_HEALTHZ, FO_ROUTE_METRICS, FO_ROUTE_OPENAPI, FO_ROUTE_RENDER,
       FO_ROUTE_CONVERT, FO_ROUTE_RUN, FO_ROUTE_SESSIONS, FO_ROUTE_OTHER, FO_ROUTE_N };
const char *fo_serve_route_name(int route);
void fo_serve_metrics_request(int route, unsigned status, double seconds);
void fo_serve_metrics_render(const char *format);
void fo_serve_metrics_refusal(const char *reason);
void fo_serve_metrics_run(void);
void fo_serve_metrics_session(void);
/* A reused worker's event: "started", "reused" (a render in a worker that
   served before), or why one was ended: "count", "failure", "timeout",
   "unclean", "memory", "idle", "evicted", "gone". */
void fo_serve_metrics_worker(const char *event);
/* Prometheus text exposition (version 0.0.4); the caller fo_frees it.
   NULL when out of memory. */
char *fo_serve_metrics_text(long in_flight, long renders_running, long renders_queued,
                            long zygote_restarts, long sessions_live, long cells_running);

/* ---- framing.c -------------------------------------------------------- */
/* A request's body framing, from its headers (RFC 9112 §6.3). Zero it, add
   every header (name and value as received), then check. */
typedef struct {
    uint64_t length;           /* the Content-Length value */
    unsigned n_length;         /* Content-Length headers */
    unsigned n_coding;         /* Transfer-Encoding headers */
    const char *why;           /* the first refusal, or NULL */
} fo_http_framing;
void fo_http_framing_add(fo_http_framing *f, const char *name, const char *value);
/* NULL when the body is framed one way only (no length, one Content-Length
   or identical ones, or exactly "Transfer-Encoding: chunked"); else why not
   (a static string): the request must be refused and its connection closed. */
const char *fo_http_framing_check(const fo_http_framing *f);

/* ---- http.c ----------------------------------------------------------- */
struct MHD_Daemon;
typedef struct {
    fo_serve_config cfg;
    fo_serve_zygote *zygote;
    pthread_rwlock_t tokens_lock;
    unsigned char (*tokens)[32];   /* SHA-256 of each token */
    size_t n_tokens;
    pthread_mutex_t slots_lock;
    pthread_cond_t slots_free;
    unsigned running, waiting;     /* renders in a worker, renders queued */
    atomic_long in_flight;         /* requests between start and completion */
    atomic_long fresh_conns;       /* accepted connections with no request begun yet */
    atomic_ulong next_id;
    atomic_int draining;
    atomic_long cells;             /* session cells running */
    atomic_long deferred;          /* requests whose handler runs on a thread of its own */
    char runs_dir[4200];           /* SCRATCH/runs: one folder per run, kept run_ttl */
} fo_serve_state;

/* runs.c, sessions.c */
void fo_serve_runs_sweep(fo_serve_state *s);
/* Interrupts every running cell of this instance; how many ran. */
unsigned fo_serve_sessions_interrupt(void);
/* Hibernates every live session of this instance; how many. */
unsigned fo_serve_sessions_hibernate(void);
/* Deletes the sessions hibernated longer than --retain; how many. */
unsigned fo_serve_sessions_sweep(fo_serve_state *s);
/* Live sessions of this instance, or -1. */
long fo_serve_sessions_live(void);

/* Starts libmicrohttpd on the listening socket lfd (taken). */
struct MHD_Daemon *fo_serve_http_start(fo_serve_state *s, int lfd);
/* At shutdown, once libmicrohttpd has stopped: wakes the deferred requests'
   parked threads and joins every one that ends within seconds (one still
   running a request past the drain's grace is left). */
void fo_serve_http_stop_threads(double seconds);
/* The request log goes through this (server.c prints it). */
void fo_serve_log(const char *json_line);
/* The SHA-256 of TOKEN in an Authorization value "Bearer TOKEN" into hash:
   1, or 0 when authorization is not a bearer token. A request's token is
   hashed once, here; the hash serves the token check and a session's owner. */
int fo_serve_bearer(const char *authorization, unsigned char hash[32]);
/* Constant-time check of a bearer token's hash (NULL: none sent) against
   the loaded tokens. */
int fo_serve_token_ok(fo_serve_state *s, const unsigned char *hash);
/* Removes a scratch folder and everything below it (no link followed). */
void fo_serve_rmtree(const char *path);

/* The embedded OpenAPI document (docs/openapi.json). */
const unsigned char *fo_serve_doc_find(const char *name, size_t *len);

#endif /* FO_SERVE_PRIVATE */
#endif
