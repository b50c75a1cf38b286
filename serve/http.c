/* http.c — the routes of `folio serve` on libmicrohttpd (PRODUCT.md §7).
 *
 * One request, one context: routed and authenticated on the first call
 * (headers only), then its body streamed — a multipart part or a raw body
 * is written to the request's own scratch folder as it arrives and refused
 * (413) the moment it passes the ceiling, the whole body too — then the
 * render handed to the zygote (zygote.c) once a worker slot is free (a short
 * queue, then 429). Whatever happens, the completion callback closes the
 * files, removes the scratch folder and writes the one JSON log line.
 *
 * Every route is one row of `routes` below (method, path pattern, metrics
 * label, body, flags) and its handler: adding one is that row and the
 * handler (declared in http.h when it lives in another file), documented in
 * docs/openapi.json and docs/serve.md's table (tests/serve/test_serve.py
 * checks that the three agree). The router answers 404 for a path no row
 * has and 405, with Allow, for a method its rows don't take. /v1/sessions'
 * handlers are in sessions.c and cells.c, /v1/run and its downloads in
 * runs.c, /mcp in mcp_http.c. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "serve/http.h"
#include "folio.h"
#include "base/sha256.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fo_serve_name_ok(const char *name);   /* zygote.c */

static void h_healthz(fo_serve_state *s, struct MHD_Connection *c, req *r);
static void h_metrics(fo_serve_state *s, struct MHD_Connection *c, req *r);
static void h_openapi(fo_serve_state *s, struct MHD_Connection *c, req *r);
static void h_render(fo_serve_state *s, struct MHD_Connection *c, req *r);
static void h_convert(fo_serve_state *s, struct MHD_Connection *c, req *r);

#define OPEN FO_RT_OPEN
#define QUICK FO_RT_QUICK
#define DRAINING FO_RT_DRAINING
#define SESSION FO_RT_SESSION

/* The routes of `folio serve`. Rows of one path are kept together, in the
   order of a 405's Allow header. */
static const route_def routes[] = {
    /* method   path                                  metrics label      body flags */
    { "GET",    "/healthz",                           FO_ROUTE_HEALTHZ,  0, OPEN | QUICK | DRAINING, h_healthz },
    { "GET",    "/metrics",                           FO_ROUTE_METRICS,  0, QUICK | DRAINING, h_metrics },
    { "GET",    "/v1/openapi.json",                   FO_ROUTE_OPENAPI,  0, OPEN | QUICK, h_openapi },
    { "POST",   "/v1/render",                         FO_ROUTE_RENDER, 'M', 0, h_render },
    { "POST",   "/v1/convert",                        FO_ROUTE_CONVERT, 'R', 0, h_convert },
    { "POST",   "/v1/run",                            FO_ROUTE_RUN,    'M', 0, fo_http_run },
    { "GET",    "/v1/runs/{run}/files/{path*}",       FO_ROUTE_RUN,      0, 0, fo_http_run_files },
    { "GET",    "/v1/environment",                    FO_ROUTE_OTHER,    0, 0, fo_http_environment },
    { "GET",    "/v1/sessions",                       FO_ROUTE_SESSIONS, 'B', 0, fo_http_session_list },
    { "POST",   "/v1/sessions",                       FO_ROUTE_SESSIONS, 'B', 0, fo_http_session_create },
    { "DELETE", "/v1/sessions/{id}",                  FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_delete },
    { "POST",   "/v1/sessions/{id}/exec",             FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_exec },
    { "GET",    "/v1/sessions/{id}/cells/{n}",        FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_cell },
    { "POST",   "/v1/sessions/{id}/render",           FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_render },
    { "POST",   "/v1/sessions/{id}/interrupt",        FO_ROUTE_SESSIONS, 'B', SESSION | DRAINING, fo_http_session_interrupt },
    { "GET",    "/v1/sessions/{id}/notebook",         FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_notebook },
    { "GET",    "/v1/sessions/{id}/record",           FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_record },
    { "PUT",    "/v1/sessions/{id}/files/{path*}",    FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_put },
    { "GET",    "/v1/sessions/{id}/files/{path*}",    FO_ROUTE_SESSIONS, 'B', SESSION, fo_http_session_get },
    { "POST",   "/mcp",                               FO_ROUTE_OTHER,  'B', 0, fo_mcp_http },
    { "DELETE", "/mcp",                               FO_ROUTE_OTHER,  'B', 0, fo_mcp_http },
};
#define N_ROUTES (sizeof routes / sizeof *routes)

/* ------------------------------------------------------------ answers */

void fo_http_send_response(struct MHD_Connection *c, req *r, unsigned status,
                           struct MHD_Response *resp, uint64_t bytes)
{
    if (!resp || r->answered) {
        if (resp) MHD_destroy_response(resp);
        return;
    }
    MHD_add_response_header(resp, "X-Request-Id", r->id);
    MHD_add_response_header(resp, "X-Folio-Instance", r->s->cfg.instance);
    if (r->worker[0]) MHD_add_response_header(resp, "X-Folio-Worker", r->worker);
    if (r->close) MHD_add_response_header(resp, "Connection", "close");
    if (r->susp) {
        /* a deferred handler, on its own thread: the answer is queued when
           the connection is resumed (fo_http_defer, fo_http_answer_now) */
        r->pending = resp;
        r->answered = 1;
        r->status = status;
        r->resp_bytes = bytes;
        return;
    }
    if (r->conn && r->conn == c) {
        /* mid-body: libmicrohttpd queues a response only before the body or
           after it. Nothing more is stored; the answer waits for the end of
           the body, which is read and dropped up to drain_limit; past it
           the connection is cut (a client that sent Content-Length over
           that, or Expect: 100-continue, got its 413 before the body) */
        MHD_add_response_header(resp, "Connection", "close");
        r->pending = resp;
        r->answered = 1;
        r->status = status;
        r->resp_bytes = bytes;
        return;
    }
    if (MHD_queue_response(c, status, resp) == MHD_YES) {
        r->answered = 1;
        r->status = status;
        r->resp_bytes = bytes;
    }
    MHD_destroy_response(resp);
}

void fo_http_send_text(struct MHD_Connection *c, req *r, unsigned status, const char *type,
                      const char *body, size_t len)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body,
                                                                MHD_RESPMEM_MUST_COPY);
    if (!resp) return;
    MHD_add_response_header(resp, "Content-Type", type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (status == 429 || status == 503) MHD_add_response_header(resp, "Retry-After", "1");
    if (status == 401) MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (status == 405 && r->allow[0]) MHD_add_response_header(resp, "Allow", r->allow);
    fo_http_send_response(c, r, status, resp, len);
}

void fo_http_json_escape(char *dst, size_t cap, const char *s)
{
    size_t n = 0;

    for (; *s && n + 7 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            dst[n++] = '\\';
            dst[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(dst + n, cap - n, "\\u%04x", ch);
        } else {
            dst[n++] = (char)ch;
        }
    }
    dst[n] = '\0';
}

/* {"errors": [{["code", "field", "limit",] "message", "hint"}]} with the
   status; reason goes to the log and the refusal counter. */
__attribute__((format(printf, 9, 0)))
static void refuse_v(struct MHD_Connection *c, req *r, unsigned status, const char *reason,
                     const char *code, const char *field, double limit, const char *hint,
                     const char *fmt, va_list ap)
{
    char msg[512], emsg[1024], ehint[1024], efield[256], head[400] = "", body[2800];
    size_t h = 0;
    int n;

    vsnprintf(msg, sizeof msg, fmt, ap);
    fo_http_json_escape(emsg, sizeof emsg, msg);
    fo_http_json_escape(ehint, sizeof ehint, hint ? hint : "");
    if (code) h += (size_t)snprintf(head + h, sizeof head - h, "\"code\": \"%s\", ", code);
    if (field) {
        fo_http_json_escape(efield, sizeof efield, field);
        h += (size_t)snprintf(head + h, sizeof head - h, "\"field\": \"%s\", ", efield);
    }
    if (!isnan(limit) && h < sizeof head) snprintf(head + h, sizeof head - h, "\"limit\": %.15g, ", limit);
    n = snprintf(body, sizeof body, "{\"errors\": [{%s\"message\": \"%s\", \"hint\": %s%s%s}]}\n",
                 head, emsg, hint ? "\"" : "", hint ? ehint : "null", hint ? "\"" : "");
    r->reason = reason;
    if (reason) fo_serve_metrics_refusal(reason);
    fo_http_send_text(c, r, status, "application/json", body, (size_t)n);
}

__attribute__((format(printf, 6, 7)))
void fo_http_refuse(struct MHD_Connection *c, req *r, unsigned status, const char *reason,
                   const char *hint, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    refuse_v(c, r, status, reason, NULL, NULL, NAN, hint, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 9, 10)))
void fo_http_refuse_field(struct MHD_Connection *c, req *r, unsigned status, const char *reason,
                          const char *code, const char *field, double limit, const char *hint,
                          const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    refuse_v(c, r, status, reason, code, field, limit, hint, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------- auth, log */

/* Who asks: the SHA-256 (hex) of the request's bearer token, or "-" when
   the server has no tokens. A session answers only the token that made it. */
void fo_http_asker(const req *r, char out[65])
{
    if (!r->has_bearer) {
        snprintf(out, 65, "-");
        return;
    }
    for (int k = 0; k < 32; k++) snprintf(out + 2 * k, 3, "%02x", r->bearer[k]);
}

int fo_serve_bearer(const char *authorization, unsigned char hash[32])
{
    fo_sha256 h;

    if (!authorization || strncasecmp(authorization, "Bearer ", 7)) return 0;
    fo_sha256_init(&h);
    fo_sha256_update(&h, authorization + 7, strlen(authorization + 7));
    fo_sha256_final(&h, hash);
    return 1;
}

int fo_serve_token_ok(fo_serve_state *s, const unsigned char *hash)
{
    unsigned char diff = 1;
    size_t k;
    int ok = 0;

    pthread_rwlock_rdlock(&s->tokens_lock);
    if (!s->n_tokens) {
        pthread_rwlock_unlock(&s->tokens_lock);
        return !s->cfg.token_file;      /* no token file: no auth; an empty one: none pass */
    }
    if (hash) {
        /* every token compared in full, whatever matched */
        for (k = 0; k < s->n_tokens; k++) {
            unsigned char d = 0;
            for (size_t i = 0; i < 32; i++) d |= (unsigned char)(hash[i] ^ s->tokens[k][i]);
            diff &= (unsigned char)(d != 0);
        }
        ok = diff == 0;
    }
    pthread_rwlock_unlock(&s->tokens_lock);
    return ok;
}

static void log_request(req *r, enum MHD_RequestTerminationCode toe)
{
    char line[1024], epath[300];
    double secs = fo_now() - r->t0;
    const char *reason = r->reason;

    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && !reason)
        reason = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? "client_timeout"
               : toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN ? "shutdown" : "client_gone";
    fo_http_json_escape(epath, sizeof epath, r->path);
    snprintf(line, sizeof line,
             "{\"id\": \"%s\", \"method\": \"%s\", \"route\": \"%s\", \"path\": \"%s\", "
             "\"status\": %u, \"bytes\": %llu, \"ms\": %.2f, \"reason\": %s%s%s}",
             r->id, r->method, fo_serve_route_name(r->rt ? r->rt->route : FO_ROUTE_OTHER), epath,
             r->status, (unsigned long long)r->resp_bytes, secs * 1e3, reason ? "\"" : "",
             reason ? reason : "null", reason ? "\"" : "");
    fo_serve_log(line);
    fo_serve_metrics_request(r->rt ? r->rt->route : FO_ROUTE_OTHER, r->status, secs);
}

/* ------------------------------------------------------ render slots */

/* A worker slot: at once, after a short wait in the queue, or not (429). */
int fo_http_slot_take(fo_serve_state *s)
{
    struct timespec until;
    int ok = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&s->slots_lock);
    if (s->running < s->cfg.workers) {
        ok = 1;
    } else if (s->waiting < s->cfg.queue) {
        s->waiting++;
        while (s->running >= s->cfg.workers &&
               pthread_cond_timedwait(&s->slots_free, &s->slots_lock, &until) == 0)
            ;
        s->waiting--;
        ok = s->running < s->cfg.workers;
    }
    if (ok) s->running++;
    pthread_mutex_unlock(&s->slots_lock);
    return ok;
}

void fo_http_slot_give(fo_serve_state *s)
{
    pthread_mutex_lock(&s->slots_lock);
    s->running--;
    pthread_cond_signal(&s->slots_free);
    pthread_mutex_unlock(&s->slots_lock);
}

/* ------------------------------------------------------------ uploads */

/* Bodies up to this many bytes (Content-Length) are kept in memfds: a
   folder and a file on the scratch disk per request (mkdir, create, unlink,
   rmdir: an ext4 inode allocated and freed each) were 45% of the server's
   CPU per small render (perf, issue 39). Larger bodies, chunked ones and
   /v1/run's (its files are moved into the run's /work by name) go to disk. */
#define MEM_BODY_MAX ((uint64_t)1 << 20)

int fo_http_req_dir(req *r)
{
    if (r->dir[0]) return 0;
    snprintf(r->dir, sizeof r->dir, "%s/req-XXXXXX", r->s->cfg.scratch);
    if (!mkdtemp(r->dir)) {
        r->dir[0] = '\0';
        return -1;
    }
    return 0;
}

int fo_http_new_file(req *r, const char *name)
{
    char path[1024];
    upload *u;

    if (r->n_files == MAX_FILES) return -1;
    u = &r->files[r->n_files];
    u->name = fo_strdup(name);
    if (r->mem_files) {
        u->fd = memfd_create("folio-upload", MFD_CLOEXEC);
    } else if (fo_http_req_dir(r) == 0) {
        snprintf(path, sizeof path, "%s/f%zu", r->dir, r->n_files);
        u->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    } else {
        u->fd = -1;
    }
    u->bytes = 0;
    if (!u->name || u->fd < 0) {
        fo_free(u->name);
        if (u->fd >= 0) close(u->fd);
        return -1;
    }
    r->cur = (long)r->n_files++;
    return 0;
}

static int part_start(req *r, const char *key)
{
    struct MHD_Connection *c = r->conn;
    size_t k;

    if (r->n_files >= r->s->cfg.max_parts || r->n_files == MAX_FILES) {
        fo_http_refuse(c, r, 413, "too_many_parts", "send the spec and the files it references, nothing else",
               "more than %u parts in one request", r->s->cfg.max_parts);
        return -1;
    }
    if (strcmp(key, "spec") && !fo_serve_name_ok(key)) {
        fo_http_refuse(c, r, 400, "bad_name", "name each file part by its path relative to the spec, "
               "e.g. \"data/sales.csv\"", "part name \"%.200s\" is not a safe relative path", key);
        return -1;
    }
    for (k = 0; k < r->n_files; k++)
        if (!strcmp(r->files[k].name, key)) {
            fo_http_refuse(c, r, 400, "bad_multipart", NULL, "part \"%.200s\" is sent twice", key);
            return -1;
        }
    if (fo_http_new_file(r, key) < 0) {
        fo_http_refuse(c, r, 500, NULL, NULL, "can't store the upload: %s", strerror(errno));
        return -1;
    }
    if (!strcmp(key, "spec")) r->spec_idx = (int)r->cur;
    return 0;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *filename, const char *content_type,
                               const char *transfer_encoding, const char *data, uint64_t off,
                               size_t size)
{
    req *r = cls;
    upload *u;

    (void)kind; (void)filename; (void)content_type; (void)transfer_encoding;
    if (r->answered) return MHD_NO;
    if (off == 0 && (r->cur < 0 || strcmp(r->files[r->cur].name, key) || r->files[r->cur].bytes))
        if (part_start(r, key ? key : "") < 0) return MHD_NO;
    if (r->cur < 0) return MHD_NO;
    u = &r->files[r->cur];
    if (u->bytes + size > r->s->cfg.max_body) {
        fo_http_refuse(r->conn, r, 413, "body_too_large", "send smaller files, or raise "
               "folio serve --max-body", "part \"%.200s\" is over the ceiling of %llu bytes",
               u->name, (unsigned long long)r->s->cfg.max_body);
        return MHD_NO;
    }
    if (size && fo_write_all(u->fd, data, size, 0) < 0) {
        fo_http_refuse(r->conn, r, 500, NULL, NULL, "can't store the upload: %s",
               strerror(errno));
        return MHD_NO;
    }
    u->bytes += size;
    return MHD_YES;
}

/* The most body bytes of a declared length (Content-Length) read and
   dropped before a refusal is answered: 4 times --max-body. */
static uint64_t drain_limit(const req *r)
{
    uint64_t m = r->s->cfg.max_body;

    return m > UINT64_MAX / 4 ? UINT64_MAX : 4 * m;
}

/* Body bytes read and dropped after a refusal before the connection is cut:
   drain_limit for a body whose declared length is within it (its client
   then reads the answer), else --max-body (a stream is cut at once). */
static uint64_t discard_limit(struct MHD_Connection *c, const req *r)
{
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");

    return len && strtoull(len, NULL, 10) <= drain_limit(r) ? drain_limit(r) : r->s->cfg.max_body;
}

/* Takes the next chunk of the body. */
static void take_body(struct MHD_Connection *c, req *r, const char *data, size_t size)
{
    r->conn = c;   /* a problem found while parsing is answered at once */
    r->body_bytes += size;
    if (r->body_bytes > r->s->cfg.max_body) {
        fo_http_refuse(c, r, 413, "body_too_large", "send less, or raise folio serve --max-body",
               "request body over the ceiling of %llu bytes", (unsigned long long)r->s->cfg.max_body);
        return;
    }
    if (r->pp) {
        if (MHD_post_process(r->pp, data, size) != MHD_YES && !r->answered)
            fo_http_refuse(c, r, 400, "bad_multipart", "send multipart/form-data as RFC 7578 describes it",
                   "malformed multipart body");
    } else if (r->cur >= 0 && fo_write_all(r->files[r->cur].fd, data, size, 0) < 0) {
        fo_http_refuse(c, r, 500, NULL, NULL, "can't store the upload: %s", strerror(errno));
    } else if (r->cur >= 0) {
        r->files[r->cur].bytes += size;
    }
}

/* ------------------------------------------------------------ handlers */

static void h_healthz(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    if (atomic_load(&s->draining)) {
        static const char body[] = "{\"status\": \"draining\"}\n";
        r->reason = "draining";
        fo_http_send_text(c, r, 503, "application/json", body, sizeof body - 1);
        return;
    }
    char body[96];
    int n = snprintf(body, sizeof body, "{\"status\": \"ok\", \"instance\": \"%s\"}\n", s->cfg.instance);
    fo_http_send_text(c, r, 200, "application/json", body, (size_t)n);
}

static void h_metrics(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    long running, waiting;
    char *text;

    pthread_mutex_lock(&s->slots_lock);
    running = s->running;
    waiting = s->waiting;
    pthread_mutex_unlock(&s->slots_lock);
    text = fo_serve_metrics_text(atomic_load(&s->in_flight), running, waiting,
                                 fo_serve_zygote_restarts(s->zygote), fo_serve_sessions_live(),
                                 atomic_load(&s->cells));
    if (!text) {
        fo_http_refuse(c, r, 500, NULL, NULL, "out of memory");
        return;
    }
    fo_http_send_text(c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
    fo_free(text);
}

static void h_openapi(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    size_t len = 0;
    const unsigned char *doc = fo_serve_doc_find("docs/openapi.json", &len);

    (void)s;
    if (!doc) {
        fo_http_refuse(c, r, 500, NULL, NULL, "the OpenAPI document is not built in");
        return;
    }
    fo_http_send_text(c, r, 200, "application/json", (const char *)doc, len);
}

static const struct { const char *fmt, *type; } mime[] = {
    { "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
    { "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
    { "pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation" },
    { "pdf", "application/pdf" },
    { "png", "image/png" },
};

const char *fo_http_mime(const char *fmt)
{
    for (size_t k = 0; k < sizeof mime / sizeof *mime; k++)
        if (!strcmp(mime[k].fmt, fmt)) return mime[k].type;
    return NULL;
}

typedef struct { fo_serve_job *job; int bad; char badval[64]; const char *key; } fmt_scan;

static enum MHD_Result scan_format(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    fmt_scan *f = cls;
    size_t k;

    (void)kind;
    if (strcmp(key, f->key)) return MHD_YES;
    if (!value || !fo_http_mime(value)) {
        f->bad = 1;
        snprintf(f->badval, sizeof f->badval, "%.60s", value ? value : "");
        return MHD_NO;
    }
    for (k = 0; k < f->job->n_formats; k++)
        if (!strcmp(f->job->formats[k], value)) return MHD_YES;
    if (f->job->n_formats == FO_SERVE_MAX_FORMATS) return MHD_YES;
    snprintf(f->job->formats[f->job->n_formats++], 8, "%s", value);
    return MHD_YES;
}

/* The formats asked for in ?key=...; 0, or -1 after answering. */
int fo_http_read_formats(struct MHD_Connection *c, req *r, fo_serve_job *job, const char *key)
{
    fmt_scan f = { job, 0, "", key };

    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, scan_format, &f);
    if (f.bad) {
        fo_http_refuse(c, r, 400, "bad_request", "formats: xlsx, docx, pptx, pdf, png",
               "unknown format \"%s\"", f.badval);
        return -1;
    }
    if (!job->n_formats) {
        fo_http_refuse(c, r, 400, "bad_request", key[0] == 't' ? "e.g. POST /v1/convert?to=xlsx"
               : "e.g. POST /v1/render?format=pdf (repeat format for a zip of several)",
               "no output format: add ?%s=", key);
        return -1;
    }
    return 0;
}

int fo_http_zip(req *r, char names[][32], const int *fds, size_t n)
{
    char path[600];
    const char *name[FO_SERVE_MAX_FORMATS];

    if (n > FO_SERVE_MAX_FORMATS) return -1;
    for (size_t k = 0; k < n; k++) name[k] = names[k];
    if (fo_http_req_dir(r) < 0) return -1;
    snprintf(path, sizeof path, "%s/result.zip", r->dir);
    if (fo_zip_fds(path, name, fds, n) < 0) return -1;
    return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

/* attr-char of RFC 8187: what filename*= carries unencoded. */
static int attr_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("!#$&+-.^_`|~", ch));
}

void fo_http_disposition(char *dst, size_t cap, const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n, k, len = strlen(name);
    int plain = 1;

    if (cap < 32) {
        if (cap) dst[0] = '\0';
        return;
    }
    /* the quoted fallback: printable ASCII but for " \ ; %, one _ per
       other character (a UTF-8 sequence counts once); it leaves room for
       the encoded name */
    n = (size_t)snprintf(dst, cap, "attachment; filename=\"");
    for (k = 0; k < len && n + 2 < cap / 3; k++) {
        unsigned char ch = (unsigned char)name[k];
        if ((ch & 0xc0) == 0x80) {
            plain = 0;                         /* continuation byte: its lead gave the _ */
            continue;
        }
        if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' || ch == ';' || ch == '%') {
            plain = 0;
            ch = '_';
        }
        dst[n++] = (char)ch;
    }
    if (k < len || n == sizeof "attachment; filename=\"" - 1) plain = 0;
    if (n == sizeof "attachment; filename=\"" - 1) n += (size_t)snprintf(dst + n, cap - n, "download");
    dst[n++] = '"';
    dst[n] = '\0';
    if (plain || !len) return;
    n += (size_t)snprintf(dst + n, cap - n, "; filename*=UTF-8''");
    for (k = 0; k < len && n + 4 < cap; k++) {
        unsigned char ch = (unsigned char)name[k];
        if (attr_char(ch)) {
            dst[n++] = (char)ch;
        } else {
            dst[n++] = '%';
            dst[n++] = hex[ch >> 4];
            dst[n++] = hex[ch & 15];
        }
    }
    dst[n] = '\0';
}

void fo_http_send_file(struct MHD_Connection *c, req *r, int fd, const char *type, const char *fname)
{
    struct stat st;
    struct MHD_Response *resp;
    char disp[1024];

    if (fstat(fd, &st) < 0 || st.st_size > (off_t)r->s->cfg.max_bytes) {
        close(fd);
        fo_http_refuse(c, r, 413, "ceiling", "raise folio serve --max-bytes, or render less",
               "the output is over the ceiling of %llu bytes", (unsigned long long)r->s->cfg.max_bytes);
        return;
    }
    resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);   /* takes fd */
    if (!resp) {
        close(fd);
        fo_http_refuse(c, r, 500, NULL, NULL, "can't send the output");
        return;
    }
    fo_http_disposition(disp, sizeof disp, fname);
    MHD_add_response_header(resp, "Content-Type", type);
    MHD_add_response_header(resp, "Content-Disposition", disp);
    fo_http_send_response(c, r, 200, resp, (uint64_t)st.st_size);
}

/* The render's outcome as an HTTP answer. */
static void answer_result(struct MHD_Connection *c, req *r, const fo_serve_job *job,
                          fo_serve_result *res)
{
    size_t k;

    if (res->status == 0 && res->n_outs == job->n_formats) {
        for (k = 0; k < res->n_outs; k++) fo_serve_metrics_render(job->formats[k]);
        if (res->n_outs == 1) {
            char fname[32];
            snprintf(fname, sizeof fname, "result.%s", job->formats[0]);
            fo_http_send_file(c, r, res->out_fds[0], fo_http_mime(job->formats[0]), fname);
            res->out_fds[0] = -1;
        } else {
            char names[FO_SERVE_MAX_FORMATS][32];
            int fd;
            for (k = 0; k < res->n_outs; k++)
                snprintf(names[k], sizeof names[k], "result.%s", job->formats[k]);
            fd = fo_http_zip(r, names, res->out_fds, res->n_outs);
            if (fd < 0)
                fo_http_refuse(c, r, 500, NULL, NULL, "can't build the zip of the outputs");
            else fo_http_send_file(c, r, fd, "application/zip", "result.zip");
        }
    } else if ((res->status == 2 || res->status == 3) && res->diags_json) {
        /* FO_ERR_INPUT, FO_ERR_UNSUPPORTED: the validate --json objects */
        size_t len = strlen(res->diags_json) + 16;
        char *body = fo_malloc(len);
        r->reason = "invalid_spec";
        fo_serve_metrics_refusal("invalid_spec");
        if (body) {
            int n = snprintf(body, len, "{\"errors\": %s}", res->diags_json);
            fo_http_send_text(c, r, 400, "application/json", body, (size_t)n);
            fo_free(body);
        }
    } else if (res->status == 4) {
        fo_http_refuse(c, r, 413, "ceiling", "raise folio serve --max-bytes, or render less",
               "an output would be over the ceiling of %llu bytes",
               (unsigned long long)job->max_bytes);
    } else if (res->timed_out || res->status == -1) {
        fo_http_refuse(c, r, res->timed_out ? 504 : 500, "timeout", "make the spec smaller",
               res->timed_out ? "the render took longer than %.0f s and was stopped"
                              : "the render stopped without an answer (limit of %.0f s, memory or a bug)",
               job->timeout_s);
    } else {
        fo_http_refuse(c, r, 500, NULL, NULL, "the render failed (status %d)", res->status);
    }
}

/* Whose worker may render this (--reuse-workers): the SHA-256 of the
   request's bearer token, checked already; without --token-file every
   client is one tenant (only loopback or a Unix socket can reach the server
   then). NULL: a fresh child, as without the option. */
static const unsigned char *tenant_of(const fo_serve_state *s, const req *r)
{
    static const unsigned char anyone[32];

    if (s->cfg.reuse_jobs < 2) return NULL;
    if (!s->cfg.token_file) return anyone;
    return r->has_bearer ? r->bearer : NULL;
}

static void run_job(fo_serve_state *s, struct MHD_Connection *c, req *r, fo_serve_job *job)
{
    fo_serve_result res;
    char err[256];

    if (!fo_http_slot_take(s)) {
        fo_http_refuse(c, r, 429, "busy", "retry after the number of seconds in Retry-After",
               "all %u render workers are busy and the queue is full", s->cfg.workers);
        return;
    }
    job->max_bytes = s->cfg.max_bytes;
    job->timeout_s = s->cfg.timeout_s;
    if (fo_serve_zygote_render(s->zygote, job, tenant_of(s, r), &res, err, sizeof err) < 0) {
        fo_http_refuse(c, r, 503, "busy", NULL, "can't render now: %s", err);
    } else {
        if (res.worker) snprintf(r->worker, sizeof r->worker, "%016llx", (unsigned long long)res.worker);
        answer_result(c, r, job, &res);
    }
    fo_http_slot_give(s);
    fo_serve_result_free(&res);
}

static void h_render(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *names[MAX_FILES];
    int fds[MAX_FILES];
    fo_serve_job job;
    size_t k, n = 0;

    memset(&job, 0, sizeof job);
    if (r->spec_idx < 0) {
        fo_http_refuse(c, r, 400, "bad_request", "send the spec JSON as a part named \"spec\"",
               "no part named \"spec\"");
        return;
    }
    if (fo_http_read_formats(c, r, &job, "format") < 0) return;
    for (k = 0; k < r->n_files; k++) {
        lseek(r->files[k].fd, 0, SEEK_SET);
        if ((int)k == r->spec_idx) continue;
        names[n] = r->files[k].name;
        fds[n++] = r->files[k].fd;
    }
    job.kind = 'S';
    job.input_fd = r->files[r->spec_idx].fd;
    job.names = names;
    job.fds = fds;
    job.n_files = n;
    run_job(s, c, r, &job);
}

static void h_convert(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_serve_job job;

    memset(&job, 0, sizeof job);
    if (fo_http_read_formats(c, r, &job, "to") < 0) return;
    if (job.n_formats != 1) {
        fo_http_refuse(c, r, 400, "bad_request", "use POST /v1/render for several formats",
               "convert writes one format (one ?to=)");
        return;
    }
    lseek(r->files[0].fd, 0, SEEK_SET);
    job.input_fd = r->files[0].fd;
    if (!strcmp(r->raw_name, "input.json")) {
        job.kind = 'S';
    } else {
        job.kind = 'C';
        job.input_name = r->raw_name;
    }
    run_job(s, c, r, &job);
}

/* ------------------------------------------------ the access handler */

/* path against the pattern pat (route_def.path): 1 when it matches, with
   the {name} parts copied into r->argbuf and pointed to by r->arg (when r
   is not NULL); 0 when not. */
static int path_match(const char *pat, const char *path, req *r)
{
    size_t used = 0;
    int k = 0;

    while (*pat) {
        if (*pat == '{') {
            const char *close = strchr(pat, '}');
            size_t n = close[-1] == '*' ? strlen(path) : strcspn(path, "/");
            if (r && k < FO_ROUTE_ARGS && used + n < sizeof r->argbuf) {
                memcpy(r->argbuf + used, path, n);
                r->argbuf[used + n] = '\0';
                r->arg[k++] = r->argbuf + used;
                used += n + 1;
            }
            path += n;
            pat = close + 1;
        } else if (*pat++ != *path++) {
            return 0;
        }
    }
    return *path == '\0';
}

/* The row of routes for method and url, with its {name} parts in r->arg;
   else NULL after answering 404 (no row has the path) or 405 (its rows
   don't take the method: Allow lists those that do). */
static const route_def *find_route(struct MHD_Connection *c, req *r, const char *url,
                                   const char *method)
{
    const route_def *first = NULL;
    size_t k, n = 0;

    for (k = 0; k < N_ROUTES; k++) {
        const route_def *d = &routes[k];
        for (size_t a = 0; a < FO_ROUTE_ARGS; a++) r->arg[a] = "";
        if (!path_match(d->path, r->path, r)) continue;
        if (!strcmp(d->method, method)) return d;
        first = first ? first : d;
        n += (size_t)snprintf(r->allow + n, n < sizeof r->allow ? sizeof r->allow - n : 0,
                              "%s%s", n ? ", " : "", d->method);
    }
    if (!first) {
        fo_http_refuse(c, r, 404, "not_found", "see GET /v1/openapi.json", "no route %s", url);
        return NULL;
    }
    r->rt = first;     /* its metrics label */
    fo_http_refuse(c, r, 405, "method", "see GET /v1/openapi.json", "%s does not take %s", url, method);
    return NULL;
}

static int content_type_is(struct MHD_Connection *c, const char *want)
{
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    size_t n = strlen(want);
    return ct && !strncasecmp(ct, want, n) && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* Scratch folder and body reader for routes that take a body; 0 or -1
   after answering. */
static int open_body(struct MHD_Connection *c, req *r)
{
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    const char *expect = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Expect");

    if (len && strtoull(len, NULL, 10) > r->s->cfg.max_body) {
        /* a client that sends the body without waiting (no Expect:
           100-continue, e.g. Python requests) would see the connection reset
           under its upload: the body is read and dropped up to drain_limit,
           then 413 */
        if (!(expect && !strcasecmp(expect, "100-continue")) &&
            strtoull(len, NULL, 10) <= drain_limit(r))
            r->conn = c;
        fo_http_refuse(c, r, 413, "body_too_large", "send less, or raise folio serve --max-body",
               "request body of %s bytes is over the ceiling of %llu bytes", len,
               (unsigned long long)r->s->cfg.max_body);
        return -1;
    }
    if (r->rt->body == 'M' && !content_type_is(c, "multipart/form-data")) {
        fo_http_refuse(c, r, 415, "content_type", "send multipart/form-data: a part \"spec\" and one "
               "part per referenced file", "%s needs a multipart/form-data body", r->path);
        return -1;
    }
    if (r->rt->body == 'B') snprintf(r->raw_name, sizeof r->raw_name, "body");
    if (r->rt->body == 'R') {
        if (content_type_is(c, "text/csv"))
            snprintf(r->raw_name, sizeof r->raw_name, "input.csv");
        else if (content_type_is(c, "text/tab-separated-values"))
            snprintf(r->raw_name, sizeof r->raw_name, "input.tsv");
        else if (content_type_is(c, "application/json"))
            snprintf(r->raw_name, sizeof r->raw_name, "input.json");
        else {
            fo_http_refuse(c, r, 415, "content_type", "Content-Type: text/csv, text/tab-separated-values "
                   "or application/json (a spec)", "%s needs a CSV, TSV or spec JSON body", r->path);
            return -1;
        }
    }
    r->mem_files = len && strtoull(len, NULL, 10) <= MEM_BODY_MAX && r->rt->fn != fo_http_run;
    if (!r->mem_files && fo_http_req_dir(r) < 0) {
        fo_http_refuse(c, r, 500, NULL, NULL, "can't make a scratch folder: %s", strerror(errno));
        return -1;
    }
    if (r->rt->body == 'R' || r->rt->body == 'B') {
        if (fo_http_new_file(r, r->raw_name) < 0) {
            fo_http_refuse(c, r, 500, NULL, NULL, "can't store the upload: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    r->pp = MHD_create_post_processor(c, POST_BUFFER, on_part, r);
    if (!r->pp) {
        fo_http_refuse(c, r, 400, "bad_multipart", "Content-Type: multipart/form-data; boundary=...",
               "the multipart body has no usable boundary");
        return -1;
    }
    return 0;
}

static req *new_req(fo_serve_state *s, const char *url, const char *method)
{
    req *r = fo_calloc(1, sizeof *r);

    if (!r) return NULL;
    r->s = s;
    r->cur = -1;
    r->spec_idx = -1;
    r->t0 = fo_now();
    snprintf(r->id, sizeof r->id, "%08lx", atomic_fetch_add(&s->next_id, 1));
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->path, sizeof r->path, "%s", url);
    atomic_fetch_add(&s->in_flight, 1);
    return r;
}

static enum MHD_Result add_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    fo_http_framing_add(cls, key, value);
    return MHD_YES;
}

/* First call: framing, route, method, auth, then the body's set-up. in_flight:
   the connection's first request, on a connection accepted before a drain began.
   0, or -1 once refused (answered, unless even the refusal failed). */
static int first_call(fo_serve_state *s, struct MHD_Connection *c, req *r, const char *url,
                      const char *method, int in_flight)
{
    fo_http_framing framing = { 0, 0, 0, NULL };
    const route_def *rt;
    const char *why;

    MHD_get_connection_values(c, MHD_HEADER_KIND, add_framing, &framing);
    if ((why = fo_http_framing_check(&framing))) {
        /* what follows on this connection can't be told from this body */
        r->close = 1;
        fo_http_refuse(c, r, 400, "bad_framing", "send one Content-Length, or "
                       "Transfer-Encoding: chunked and no Content-Length (RFC 9112 section 6.3)",
                       "the request's body length is ambiguous: %s", why);
        return -1;
    }
    if (strlen(url) >= sizeof r->path) {
        fo_http_refuse_field(c, r, 414, "uri_too_long", "uri_too_long", NULL, NAN,
                             "a session file's path is at most 200 bytes",
                             "the request's path is over %zu bytes", sizeof r->path - 1);
        return -1;
    }
    if (!(rt = find_route(c, r, url, method))) return -1;
    r->rt = rt;
    if (atomic_load(&s->draining) && !in_flight && !(r->rt->flags & FO_RT_DRAINING)) {
        /* SIGTERM: the socket stays open for /healthz's 503 while the requests
           in flight (and connections accepted before, still silent) finish;
           new work goes to another instance */
        fo_http_refuse(c, r, 503, "draining", "send it to another instance, or retry once this "
                       "one is back", "this instance is shutting down (SIGTERM)");
        return -1;
    }
    r->has_bearer = fo_serve_bearer(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization"),
                                    r->bearer);
    if (!(r->rt->flags & FO_RT_OPEN) && !fo_serve_token_ok(s, r->has_bearer ? r->bearer : NULL)) {
        fo_http_refuse(c, r, 401, "auth", "send Authorization: Bearer TOKEN with a token of --token-file",
               "missing or wrong bearer token");
        return -1;
    }
    return r->rt->body ? open_body(c, r) : 0;
}

/* The connection's first request has begun: it is in_flight now, no longer
   fresh. True when it was fresh (accepted before a drain, no request yet). */
static int conn_started(fo_serve_state *s, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    atomic_int *fresh = info ? info->socket_context : NULL;

    if (fresh && atomic_exchange(fresh, 0) == 1) {
        atomic_fetch_sub(&s->fresh_conns, 1);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------- deferred requests */

/* A request whose handler may wait (a cell, a render queued for a worker,
   a session resumed from disk) runs on a thread of its own while its
   connection is suspended: libmicrohttpd's threads never wait, so no other
   request, on any connection, waits behind it (PRODUCT.md §8). The thread
   holds nothing another request needs; after its handler it waits a while
   for another deferred request (park), then ends. */
#define DEFER_STACK (512u << 10)

/* Set on a deferred thread once its request was resumed early: from then
   on the request may be answered and freed under it. */
static _Thread_local int resumed_early;

/* The route's handler, once its session id is resolved (FO_RT_SESSION). */
static void dispatch(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    if ((r->rt->flags & FO_RT_SESSION) && fo_http_session_id(s, c, r) < 0) return;
    r->rt->fn(s, c, r);
}

/* A deferred thread that has answered its request waits here a while for
   the next one instead of ending: a thread started and ended per request
   (clone3, its stack's guard and madvise, the robust list) was ~14% of the
   server's CPU per small render (perf, issue 39). Up to PARK_MAX wait, each
   up to PARK_S seconds; defer() hands a request to a waiting one, else
   starts a thread. A request never waits for a thread to come free. */
#define PARK_MAX 32
#define PARK_S 10
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static req *park_queue[PARK_MAX]; /* handed over, not yet taken */
static int n_queued, n_parked;    /* requests in park_queue; threads waiting */

/* The threads are joined, not detached: one that ended is put on a list
   (ended) that the next defer() joins, and at shutdown every one is woken
   and joined (fo_serve_http_stop_threads), so the process never exits with
   a thread of its own half way out. */
typedef struct deferred_thread {
    pthread_t self;
    req *first;                   /* the request it was started for */
    struct deferred_thread *next; /* on the ended list */
} deferred_thread;

static pthread_cond_t ended_cond = PTHREAD_COND_INITIALIZER;
static deferred_thread *ended; /* ended, not yet joined */
static unsigned n_running;     /* started, not yet on the ended list */
static int park_quit;          /* shutting down: no thread parks */

/* The next request for a parked thread, or NULL after PARK_S seconds with
   none (or when PARK_MAX already wait): then the thread ends. */
static req *park(void)
{
    struct timespec until;
    req *r = NULL;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += PARK_S;
    pthread_mutex_lock(&park_lock);
    if (n_parked < PARK_MAX) {
        n_parked++;
        while (!n_queued && !park_quit && pthread_cond_timedwait(&park_cond, &park_lock, &until) == 0)
            ;
        if (n_queued) r = park_queue[--n_queued];
        n_parked--;
    }
    pthread_mutex_unlock(&park_lock);
    return r;
}

/* Hands r to a parked thread; 0, or -1 when none waits for it. */
static int unpark(req *r)
{
    int ok;

    pthread_mutex_lock(&park_lock);
    ok = n_queued < n_parked;
    if (ok) {
        park_queue[n_queued++] = r;
        pthread_cond_signal(&park_cond);
    }
    pthread_mutex_unlock(&park_lock);
    return ok ? 0 : -1;
}

/* Joins the deferred threads that have ended. */
static void join_ended(void)
{
    deferred_thread *list;

    pthread_mutex_lock(&park_lock);
    list = ended;
    ended = NULL;
    pthread_mutex_unlock(&park_lock);
    while (list) {
        deferred_thread *next = list->next;
        pthread_join(list->self, NULL);
        fo_free(list);
        list = next;
    }
}

static void *deferred_main(void *arg)
{
    deferred_thread *me = arg;

    for (req *r = me->first; r; r = park()) {
        struct MHD_Connection *c = r->susp;
        fo_serve_state *s = r->s;

        resumed_early = 0;
        dispatch(s, c, r);
        if (!resumed_early) {
            if (!r->answered) fo_http_refuse(c, r, 500, NULL, NULL, "no answer was made (a bug)");
            MHD_resume_connection(c); /* r may be gone from here on */
        }
        atomic_fetch_sub(&s->deferred, 1);
    }
    pthread_mutex_lock(&park_lock);
    me->self = pthread_self();
    me->next = ended;
    ended = me;
    n_running--;
    pthread_cond_broadcast(&ended_cond);
    pthread_mutex_unlock(&park_lock);
    return NULL;
}

void fo_serve_http_stop_threads(double seconds)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)seconds;
    pthread_mutex_lock(&park_lock);
    park_quit = 1;
    pthread_cond_broadcast(&park_cond);
    while (n_running > 0 && pthread_cond_timedwait(&ended_cond, &park_lock, &until) == 0)
        ;
    pthread_mutex_unlock(&park_lock);
    join_ended();
}

void fo_http_answer_now(req *r)
{
    resumed_early = 1;
    MHD_resume_connection(r->susp);
}

static void defer(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    deferred_thread *me;
    pthread_attr_t attr;
    pthread_t t;
    int ok;

    r->susp = c;
    atomic_fetch_add(&s->deferred, 1);
    MHD_suspend_connection(c);
    if (unpark(r) == 0) return;
    join_ended();
    me = fo_malloc(sizeof *me);
    ok = me != NULL;
    if (ok) {
        me->first = r;
        pthread_mutex_lock(&park_lock);
        n_running++;
        pthread_mutex_unlock(&park_lock);
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, DEFER_STACK);
        ok = pthread_create(&t, &attr, deferred_main, me) == 0;
        pthread_attr_destroy(&attr);
        if (!ok) {
            pthread_mutex_lock(&park_lock);
            n_running--;
            pthread_mutex_unlock(&park_lock);
            fo_free(me);
        }
    }
    if (!ok) {
        fo_http_refuse(c, r, 503, "busy", "retry after the number of seconds in Retry-After",
                       "no thread could be started for the request");
        atomic_fetch_sub(&s->deferred, 1);
        MHD_resume_connection(c);
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    fo_serve_state *s = cls;
    req *r = *con_cls;

    (void)version;
    if (!r) {
        int fresh;
        r = new_req(s, url, method);     /* in flight before it stops being fresh */
        fresh = conn_started(s, c);
        if (!r) return MHD_NO;
        *con_cls = r;
        if (first_call(s, c, r, url, method, fresh) < 0 && !r->answered)
            return MHD_NO;         /* refused, and not even that could be sent: cut */
        return MHD_YES;
    }
    if (*size) {
        if (!r->answered)
            take_body(c, r, data, *size);
        else if ((r->discarded += *size) + r->body_bytes > discard_limit(c, r))
            return MHD_NO;            /* refused, and past the ceiling: cut */
        r->conn = NULL;
        *size = 0;
        return MHD_YES;
    }
    if (r->pending) {
        MHD_queue_response(c, r->status, r->pending);
        MHD_destroy_response(r->pending);
        r->pending = NULL;
        return MHD_YES;
    }
    if (r->answered) return MHD_YES;
    if (r->pp) {
        MHD_destroy_post_processor(r->pp);
        r->pp = NULL;
    }
    if (!(r->rt->flags & FO_RT_QUICK)) {
        defer(s, c, r);
        return MHD_YES;
    }
    dispatch(s, c, r);
    if (!r->answered) fo_http_refuse(c, r, 500, NULL, NULL, "no answer was made (a bug)");
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    fo_serve_state *s = cls;
    req *r = *con_cls;
    size_t k;

    (void)c;
    if (!r) return;
    if (r->pp) MHD_destroy_post_processor(r->pp);
    if (r->pending) MHD_destroy_response(r->pending);
    for (k = 0; k < r->n_files; k++) {
        close(r->files[k].fd);
        fo_free(r->files[k].name);
    }
    if (r->dir[0]) fo_serve_rmtree(r->dir);
    log_request(r, toe);
    atomic_fetch_sub(&s->in_flight, 1);
    fo_free(r);
    *con_cls = NULL;
}

/* Nagle's algorithm would hold the body of a response written after its
   headers until the client's delayed ACK (40 ms on Linux) — every render
   paid it. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    fo_serve_state *s = cls;
    const union MHD_ConnectionInfo *info;
    int one = 1;

    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_int *fresh = *socket_context;
        if (fresh && atomic_exchange(fresh, 0) == 1) atomic_fetch_sub(&s->fresh_conns, 1);
        fo_free(fresh);
        *socket_context = NULL;
        return;
    }
    if (code != MHD_CONNECTION_NOTIFY_STARTED) return;
    info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) (void)setsockopt(info->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* accepted, no request begun yet: a drain waits a moment for it (1); one
       accepted during a drain (2) is only answered /healthz and the like */
    *socket_context = fo_malloc(sizeof(atomic_int));
    if (*socket_context) {
        int late = atomic_load(&s->draining) != 0;
        atomic_init((atomic_int *)*socket_context, late ? 2 : 1);
        if (!late) atomic_fetch_add(&s->fresh_conns, 1);
    }
}


__attribute__((format(printf, 2, 0)))
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512], emsg[1100], line[1200];

    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    fo_http_json_escape(emsg, sizeof emsg, msg);
    snprintf(line, sizeof line, "{\"event\": \"http\", \"message\": \"%s\"}", emsg);
    fo_serve_log(line);
}

struct MHD_Daemon *fo_serve_http_start(fo_serve_state *s, int lfd)
{
    /* the connection's memory pool bounds the request line and headers:
       a larger request gets 414/431 from libmicrohttpd itself */
    return MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG |
            MHD_ALLOW_SUSPEND_RESUME,
        0, NULL, NULL, on_request, s,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)s->cfg.threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)s->cfg.max_conns,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)s->cfg.conn_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_END);
}
