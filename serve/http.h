/* http.h — what the route files of `folio serve` share (http.c: the
 * server, uploads, answers; sessions.c: /v1/sessions; runs.c: /v1/run).
 * Private to serve/; needs FO_SERVE_PRIVATE. */
#ifndef FO_SERVE_HTTP_H
#define FO_SERVE_HTTP_H

#include "sandbox/session.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdint.h>
#include <time.h>

#define MAX_FILES 256
#define POST_BUFFER 65536

typedef struct {
    char *name;
    int fd;
    uint64_t bytes;
} upload;

typedef struct req req;
typedef void (*handler_fn)(fo_serve_state *s, struct MHD_Connection *c, req *r);

/* A route_def's flags. */
enum {
    FO_RT_OPEN = 1,       /* no bearer token needed (even when tokens are configured) */
    FO_RT_QUICK = 2,      /* answered on libmicrohttpd's thread; without it the handler
                             runs on a thread of its own while the connection is
                             suspended (http.c, defer) */
    FO_RT_DRAINING = 4,   /* still answered after SIGTERM (a drain), to any connection */
    FO_RT_SESSION = 8     /* {id} is a session id ("INSTANCE-HEX") of the asking token:
                             resolved into req.sid before the handler, else 404
                             session_not_found (sessions.c, fo_http_session_id) */
};

/* One row of the route table (http.c, `routes`): a method and a path
   pattern, and what the server does before the handler runs. */
typedef struct {
    const char *method;       /* "GET", "POST", "PUT", "DELETE" */
    const char *path;         /* literal, with {name} for one path segment (may be
                                 empty) and, last, {name*} for the rest (may hold
                                 '/'); they go to req.arg in order */
    int route;                /* the metrics label, FO_ROUTE_* (serve.h) */
    int body;                 /* 0 none, 'M' multipart, 'R' CSV/TSV/spec, 'B' any (one file) */
    int flags;                /* FO_RT_* */
    handler_fn fn;
} route_def;

#define FO_ROUTE_ARGS 2
/* bytes of a request's path (its URL, decoded): the longest a route takes,
   .../sessions/{id}/files/{a name of FO_SERVE_MAX_NAME bytes}, fits; a
   longer one is answered 414 before routing */
#define FO_SERVE_MAX_PATH 512

struct req {
    fo_serve_state *s;
    const route_def *rt;       /* the route; for a 405, the first row of its path */
    char id[24];
    char method[8], path[FO_SERVE_MAX_PATH];
    const char *arg[FO_ROUTE_ARGS];    /* the {name} parts of path, in order ("" none) */
    char argbuf[FO_SERVE_MAX_PATH + FO_ROUTE_ARGS]; /* where they are kept */
    char sid[33];              /* FO_RT_SESSION: the session's hex id */
    char worker[24];           /* --reuse-workers: X-Folio-Worker, the render's worker; "" none */
    char allow[40];            /* a 405's Allow header: the path's methods */
    double t0;                     /* fo_now() when it arrived */
    unsigned status;
    uint64_t resp_bytes;
    const char *reason;        /* refusal reason for the log and metrics, or NULL */
    int answered;              /* a response is queued */
    char dir[512];             /* scratch folder, "" if none (yet): made at the first file
                                  that needs a name (fo_http_req_dir) */
    int mem_files;             /* uploads go to memfds, no folder (a small body, not /v1/run) */
    struct MHD_PostProcessor *pp;
    upload files[MAX_FILES];
    size_t n_files;
    long cur;                  /* index of the part being received, -1 none */
    int spec_idx;              /* index of the "spec" part, -1 none */
    uint64_t body_bytes;
    char raw_name[16];         /* 'R' bodies: input.csv | input.tsv | input.json */
    struct MHD_Connection *conn;   /* set while the body streams in */
    struct MHD_Response *pending;  /* a refusal decided mid-body, sent at its end */
    uint64_t discarded;            /* body bytes dropped after that refusal */
    unsigned char bearer[32];      /* SHA-256 of the bearer token (fo_serve_bearer) */
    int has_bearer;                /* 0: the request sent none */
    struct MHD_Connection *susp;   /* deferred: the suspended connection, else NULL */
    int close;                     /* the answer closes the connection */
};

/* Answers {"errors": [{"message", "hint"}]} with status; reason (or NULL)
   goes to the log and the refusal counter. */
void fo_http_refuse(struct MHD_Connection *c, req *r, unsigned status, const char *reason,
                    const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Answers resp (taken: destroyed here) with status, as every answer goes;
   bytes: its length for the log (0 when unknown, e.g. a stream). */
void fo_http_send_response(struct MHD_Connection *c, req *r, unsigned status,
                           struct MHD_Response *resp, uint64_t bytes);
/* Answers {"errors": [{"code", "field", "limit", "message", "hint"}]}
   with status: a refusal of one field of the request (limit: NAN for
   none); reason goes to the log and the refusal counter. */
void fo_http_refuse_field(struct MHD_Connection *c, req *r, unsigned status, const char *reason,
                          const char *code, const char *field, double limit, const char *hint,
                          const char *fmt, ...) __attribute__((format(printf, 9, 10)));
/* A number a client asked for in field, against the operator's ceiling
   (unit names its unit in messages): 1 when it is finite, above zero and at
   most ceiling; else 0 after answering 400 (code bad_value or
   over_ceiling, with the field and the ceiling). limits.c. */
int fo_http_limit_ok(struct MHD_Connection *c, req *r, const char *field, double v,
                     double ceiling, const char *unit);
/* The same for a field sent as text (a multipart part): it must be a whole
   decimal number; the value into *out. */
int fo_http_limit_text(struct MHD_Connection *c, req *r, const char *field, const char *text,
                       double ceiling, const char *unit, double *out);
/* Answers body (copied) with status and type. */
void fo_http_send_text(struct MHD_Connection *c, req *r, unsigned status, const char *type,
                       const char *body, size_t len);
/* Answers the file fd (taken) as an attachment named fname; 413 over the ceiling. */
void fo_http_send_file(struct MHD_Connection *c, req *r, int fd, const char *type,
                       const char *fname);
/* The Content-Disposition of an attachment named name (UTF-8, any bytes)
   into dst, as RFC 6266 writes it: filename="FALLBACK", where the fallback
   has printable ASCII only and never a quote, backslash, semicolon or
   percent sign (each other character one "_"), then, unless the fallback is
   the name itself, filename*=UTF-8''PERCENT-ENCODED. A name that does not
   fit cap is cut (at most cap/3 bytes of fallback). */
void fo_http_disposition(char *dst, size_t cap, const char *name);
/* JSON string contents of s into dst (cap bytes, cut if longer). */
void fo_http_json_escape(char *dst, size_t cap, const char *s);
/* The MIME type of an output format ("pdf"), or NULL for an unknown one. */
const char *fo_http_mime(const char *fmt);
/* ?key=FMT... into job->formats; 0, or -1 after answering 400. */
int fo_http_read_formats(struct MHD_Connection *c, req *r, fo_serve_job *job, const char *key);
/* A deterministic zip of the n files fds (not taken) named names, in the
   request's scratch folder; an fd to read it, or -1. */
int fo_http_zip(req *r, char names[][32], const int *fds, size_t n);
/* A new upload file (the part being received): a memfd when r->mem_files,
   else a file in the request's scratch folder. 0 or -1. */
int fo_http_new_file(req *r, const char *name);
/* Makes the request's scratch folder r->dir unless it exists; 0, or -1
   (errno). Removed with everything in it when the request ends. */
int fo_http_req_dir(req *r);
/* A worker slot (renders, runs): at once, after a short queue, or 0 (answer 429). */
int fo_http_slot_take(fo_serve_state *s);
void fo_http_slot_give(fo_serve_state *s);

/* The handler of a deferred request has its answer ready (in r->pending)
   before it returns -- an event stream, or a cell that goes on detached:
   the connection is resumed now, and r must not be used after this call. */
void fo_http_answer_now(req *r);
/* The bearer token's owner key ("-" without tokens): hex SHA-256. */
void fo_http_asker(const req *r, char out[65]);

/* sessions.c: {"errors": [{"code", "message", "hint"}]} with the status of
   e->code (404 session_not_found, 410, 429, 503, ...). */
void fo_http_session_refuse(struct MHD_Connection *c, req *r, const fo_session_error *e);
/* The request body, parsed: an object (the caller decrefs), or NULL after
   answering 400. An empty body is an empty object. */
json_t *fo_http_read_json(struct MHD_Connection *c, req *r);
/* FO_RT_SESSION: r->arg[0], "INSTANCE-HEX" of a session this request's
   token owns, into r->sid; 0, or -1 after answering 404. */
int fo_http_session_id(fo_serve_state *s, struct MHD_Connection *c, req *r);

/* The handlers of the route table (http.c) that live in other files.
   sessions.c: /v1/sessions and /v1/sessions/{id}... */
void fo_http_session_list(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_create(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_delete(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_render(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_interrupt(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_notebook(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_record(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_put(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_session_get(fo_serve_state *s, struct MHD_Connection *c, req *r);
/* cells.c: .../exec and .../cells/{n} */
void fo_http_exec(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_cell(fo_serve_state *s, struct MHD_Connection *c, req *r);
/* mcp_http.c: /mcp */
void fo_mcp_http(fo_serve_state *s, struct MHD_Connection *c, req *r);
/* runs.c: /v1/run and /v1/runs/{run}/files/{path} */
void fo_http_run(fo_serve_state *s, struct MHD_Connection *c, req *r);
void fo_http_run_files(fo_serve_state *s, struct MHD_Connection *c, req *r);
/* environment.c: /v1/environment */
void fo_http_environment(fo_serve_state *s, struct MHD_Connection *c, req *r);
/* runs.c: runs argv (folio) with stdout to a pipe; its output (malloc'd) and exit code. */
char *fo_serve_run_folio(const char *const *argv, int *code);

#endif
