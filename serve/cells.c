/* cells.c — a session's cell over HTTP (PRODUCT.md §8): POST
 * /v1/sessions/{id}/exec answered when the cell ends, or streamed as
 * Server-Sent Events while it runs (Accept: text/event-stream), or detached
 * ("detach": true: 202 at once, the result kept for GET .../cells/{n}).
 *
 * The exec handler runs deferred (http.c): its connection is suspended and
 * this thread waits on the session's supervisor, so no request on any
 * connection waits behind a cell. An event stream's bytes are queued here
 * and taken by libmicrohttpd's content reader, which suspends the
 * connection while the queue is empty; a push resumes it. Lock order: a
 * stream's lock, then libmicrohttpd's own (suspend and resume are called
 * under the stream's lock, never the other way round). */
#define FO_SERVE_PRIVATE
#define FO_SANDBOX_PRIVATE
#include "serve/serve.h"
#include "serve/http.h"
#include "base/buf.h"
#include "sandbox/sandbox.h"
#include "sandbox/session.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define KEEPALIVE   ": keepalive\n\n"
#define BACKLOG_CAP (16u << 20)   /* stream bytes a slow client may leave unread */
#define KEPT_CAP    (64u << 20)   /* detached results kept, bytes */
#define KEPT_MAX    256           /* detached results kept, count */

/* ------------------------------------------------------ event streams */

typedef struct {
    pthread_mutex_t lock;
    fo_buf out;                   /* bytes not yet taken by libmicrohttpd */
    size_t taken;
    struct MHD_Connection *c;
    int suspended, done, gone, refs;
    unsigned long long dropped;   /* stream bytes not sent: the client read too slowly */
    char tail[2][4];              /* an incomplete UTF-8 sequence held back, per stream */
    size_t tail_n[2];
} sse;

static void sse_unref(sse *ev)
{
    int last;

    pthread_mutex_lock(&ev->lock);
    last = --ev->refs == 0;
    pthread_mutex_unlock(&ev->lock);
    if (!last) return;
    pthread_mutex_destroy(&ev->lock);
    fo_buf_free(&ev->out);
    fo_free(ev);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    sse *ev = cls;
    ssize_t n;

    (void)pos;
    pthread_mutex_lock(&ev->lock);
    if (ev->out.len > ev->taken) {
        n = (ssize_t)(ev->out.len - ev->taken < max ? ev->out.len - ev->taken : max);
        memcpy(buf, ev->out.data + ev->taken, (size_t)n);
        ev->taken += (size_t)n;
        if (ev->taken == ev->out.len) ev->out.len = ev->taken = 0;
    } else if (ev->done) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        ev->suspended = 1;             /* a push resumes it */
        MHD_suspend_connection(ev->c);
        n = 0;
    }
    pthread_mutex_unlock(&ev->lock);
    return n;
}

static void sse_free(void *cls)
{
    sse *ev = cls;

    pthread_mutex_lock(&ev->lock);
    ev->gone = 1;
    ev->c = NULL;
    pthread_mutex_unlock(&ev->lock);
    sse_unref(ev);
}

/* Appends one event (event: NAME, then data lines) and wakes the reader.
   Stream text past the backlog cap is counted, not kept. */
static void sse_push(sse *ev, const char *name, const char *data, size_t len, int droppable)
{
    pthread_mutex_lock(&ev->lock);
    if (ev->gone) {
        pthread_mutex_unlock(&ev->lock);
        return;
    }
    if (droppable && ev->out.len - ev->taken > BACKLOG_CAP) {
        ev->dropped += len;
    } else if (name) {
        fo_buf_printf(&ev->out, "event: %s\n", name);
        for (size_t k = 0; k < len;) {        /* JSON has no raw newline; be sure */
            const char *nl = memchr(data + k, '\n', len - k);
            size_t line = nl ? (size_t)(nl - data - k) : len - k;

            fo_buf_puts(&ev->out, "data: ");
            fo_buf_append(&ev->out, data + k, line);
            fo_buf_puts(&ev->out, "\n");
            k += line + (nl != NULL);
        }
        fo_buf_puts(&ev->out, "\n");
    } else {
        fo_buf_append(&ev->out, data, len);
    }
    if (ev->suspended && ev->c) {
        ev->suspended = 0;
        MHD_resume_connection(ev->c);
    }
    pthread_mutex_unlock(&ev->lock);
}

static void sse_end(sse *ev)
{
    pthread_mutex_lock(&ev->lock);
    ev->done = 1;
    if (ev->suspended && ev->c) {
        ev->suspended = 0;
        MHD_resume_connection(ev->c);
    }
    pthread_mutex_unlock(&ev->lock);
}

/* stdout/stderr text as `event: stream`, cut only between whole UTF-8
   sequences (a chunk of the pipe may end inside one). */
static void sse_stream(sse *ev, int which, const char *p, size_t n)
{
    fo_buf text = { 0 }, json = { 0 };
    size_t keep = 0, k;
    int w = which == 1 ? 0 : 1;

    fo_buf_append(&text, ev->tail[w], ev->tail_n[w]);
    fo_buf_append(&text, p, n);
    for (k = text.len > 3 ? text.len - 3 : 0; k < text.len; k++) {
        unsigned char b = (unsigned char)text.data[k];
        size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;

        if (b >= 0xc0 && k + need > text.len) {
            keep = text.len - k;               /* begun, not finished */
            break;
        }
    }
    memcpy(ev->tail[w], text.data + text.len - keep, keep);
    ev->tail_n[w] = keep;
    fo_buf_printf(&json, "{\"name\": \"%s\", \"text\": ", which == 1 ? "stdout" : "stderr");
    fo_buf_json_str(&json, text.data, text.len - keep);
    fo_buf_puts(&json, "}");
    if (!json.failed && text.len > keep) sse_push(ev, "stream", json.data, json.len, 1);
    fo_buf_free(&text);
    fo_buf_free(&json);
}

/* ------------------------------------------------------ detached cells */

typedef struct kept {
    char sid[33], owner[65];
    unsigned cell;
    int done;
    char *result;
    size_t len;
    time_t at;
    struct kept *next;
} kept;

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static kept *kept_head;           /* newest first */
static size_t kept_bytes, kept_n;

/* Drops finished entries older than ttl, then the oldest finished ones
   while over the caps. Called with kept_lock held. */
static void kept_trim(unsigned ttl)
{
    time_t now = time(NULL);
    kept **pp = &kept_head, *e;
    size_t k = 0;

    while ((e = *pp)) {
        int old = e->done && (now - e->at > (time_t)ttl || kept_bytes > KEPT_CAP ||
                              (kept_n > KEPT_MAX && k >= KEPT_MAX / 2));
        if (old) {
            *pp = e->next;
            kept_bytes -= e->len;
            kept_n--;
            free(e->result);   /* a cell's result, or json_dumps'd: plain free */
            fo_free(e);
            continue;
        }
        pp = &e->next;
        k++;
    }
}

static kept *kept_add(fo_serve_state *s, const char *sid, const char *owner, unsigned cell)
{
    kept *e = fo_calloc(1, sizeof *e);

    if (!e) return NULL;
    snprintf(e->sid, sizeof e->sid, "%s", sid);
    snprintf(e->owner, sizeof e->owner, "%s", owner);
    e->cell = cell;
    e->at = time(NULL);
    pthread_mutex_lock(&kept_lock);
    kept_trim(s->cfg.run_ttl);
    e->next = kept_head;
    kept_head = e;
    kept_n++;
    pthread_mutex_unlock(&kept_lock);
    return e;
}

/* The cell's result (taken), or NULL with its JSON error. */
static void kept_finish(kept *e, char *result)
{
    pthread_mutex_lock(&kept_lock);
    e->result = result;
    e->len = result ? strlen(result) : 0;
    e->done = 1;
    e->at = time(NULL);
    kept_bytes += e->len;
    pthread_mutex_unlock(&kept_lock);
}

/* GET /v1/sessions/{id}/cells/{n} */
void fo_http_cell(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *id = r->sid, *n = r->arg[1];
    char owner[65], *end, *copy = NULL, state[80];
    unsigned long cell = strtoul(n, &end, 10);
    int running = 0;
    size_t len = 0;

    fo_http_asker(r, owner);
    pthread_mutex_lock(&kept_lock);
    kept_trim(s->cfg.run_ttl);
    for (kept *e = kept_head; e && *n && !*end; e = e->next)
        if (e->cell == cell && !strcmp(e->sid, id) && !strcmp(e->owner, owner)) {
            running = !e->done;
            if (e->done && e->result && (copy = fo_malloc(e->len + 1)))
                memcpy(copy, e->result, (len = e->len) + 1);
            break;
        }
    pthread_mutex_unlock(&kept_lock);
    if (running) {
        int k = snprintf(state, sizeof state, "{\"cell\": %lu, \"status\": \"running\"}", cell);
        fo_http_send_text(c, r, 200, "application/json", state, (size_t)k);
    } else if (copy) {
        fo_http_send_text(c, r, 200, "application/json", copy, len);
    } else {
        fo_http_refuse(c, r, 404, "cell_not_found", "GET .../cells/N answers cells that were "
                       "run with \"detach\": true, for --run-ttl seconds after they end",
                       "no detached cell %.20s is kept for this session", n);
    }
    fo_free(copy);
}


/* -------------------------------------------------- clients that hang up */

/* A client that hangs up on a running exec interrupts its cell (PRODUCT.md
   §8; not a detached one). libmicrohttpd does not watch a suspended
   connection, so one thread here does: epoll on a duplicate of each such
   connection's socket (the duplicate keeps its number ours until the exec
   ends), EPOLLRDHUP when the client closes. */
typedef struct hangup {
    int fd;                       /* dup of the client's socket */
    char sid[33];
    struct hangup *next;
} hangup;

static int watch_ep = -1;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static hangup *watched;           /* the entries alive: an event is acted on only for these */

static void *watch_main(void *arg)
{
    struct epoll_event ev[16];

    (void)arg;
    for (;;) {
        int n = epoll_wait(watch_ep, ev, 16, -1);

        for (int k = 0; k < n; k++) {
            fo_session_error err;
            char sid[33] = "";

            pthread_mutex_lock(&watch_lock);
            for (hangup *h = watched; h; h = h->next)
                if (h == ev[k].data.ptr) {
                    snprintf(sid, sizeof sid, "%s", h->sid);
                    (void)epoll_ctl(watch_ep, EPOLL_CTL_DEL, h->fd, NULL);   /* once */
                }
            pthread_mutex_unlock(&watch_lock);
            memset(&err, 0, sizeof err);
            if (sid[0])
                (void)fo_session_interrupt(sid, &(int){ 0 }, &err);
        }
    }
    return NULL;
}

static void watch_start(void)
{
    pthread_attr_t attr;
    pthread_t t;

    watch_ep = epoll_create1(EPOLL_CLOEXEC);
    if (watch_ep < 0) return;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256u << 10);
    if (pthread_create(&t, &attr, watch_main, NULL) != 0) {
        close(watch_ep);
        watch_ep = -1;
    }
    pthread_attr_destroy(&attr);
}

/* Watches the connection c of session sid; NULL when it cannot. */
static hangup *watch_add(struct MHD_Connection *c, const char *sid)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c,
                                                 MHD_CONNECTION_INFO_CONNECTION_FD);
    struct epoll_event ev = { .events = EPOLLRDHUP };
    hangup *h;

    pthread_once(&watch_once, watch_start);
    if (watch_ep < 0 || !info || !(h = fo_calloc(1, sizeof *h))) return NULL;
    snprintf(h->sid, sizeof h->sid, "%s", sid);
    h->fd = fcntl(info->connect_fd, F_DUPFD_CLOEXEC, 0);
    ev.data.ptr = h;
    pthread_mutex_lock(&watch_lock);
    if (h->fd < 0 || epoll_ctl(watch_ep, EPOLL_CTL_ADD, h->fd, &ev) < 0) {
        pthread_mutex_unlock(&watch_lock);
        if (h->fd >= 0) close(h->fd);
        fo_free(h);
        return NULL;
    }
    h->next = watched;
    watched = h;
    pthread_mutex_unlock(&watch_lock);
    return h;
}

static void watch_remove(hangup *h)
{
    if (!h) return;
    pthread_mutex_lock(&watch_lock);
    for (hangup **pp = &watched; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    (void)epoll_ctl(watch_ep, EPOLL_CTL_DEL, h->fd, NULL);
    pthread_mutex_unlock(&watch_lock);
    close(h->fd);
    fo_free(h);
}

/* ---------------------------------------------------------------- exec */

typedef struct {
    fo_serve_state *s;
    req *r;                       /* until the request is answered early */
    struct MHD_Connection *c;
    sse *ev;                      /* an event stream, or NULL */
    kept *detached;               /* a detached cell's entry, or NULL */
    int detach, events;           /* "detach": true; Accept: text/event-stream */
    char sid[33], owner[65];
} exec_ctx;

/* The request is answered (r->pending): resumed now, and not used again. */
static void answered_early(exec_ctx *x)
{
    req *r = x->r;

    x->r = NULL;
    fo_http_answer_now(r);
}

static void start_stream(exec_ctx *x, const char *cell, size_t n)
{
    struct MHD_Response *resp;
    sse *ev = fo_calloc(1, sizeof *ev);
    char json[48];
    int k;

    if (!ev) return;
    pthread_mutex_init(&ev->lock, NULL);
    ev->c = x->c;
    ev->refs = 2;                  /* this thread, and the response */
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, ev, sse_free);
    if (!resp) {
        pthread_mutex_destroy(&ev->lock);
        fo_free(ev);
        return;
    }
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");   /* proxies: pass it through */
    k = snprintf(json, sizeof json, "{\"cell\": %.*s}", (int)(n < 12 ? n : 12), cell);
    sse_push(ev, "cell", json, (size_t)k, 0);
    fo_http_send_response(x->c, x->r, 200, resp, 0);
    x->ev = ev;
    answered_early(x);
}

static void on_event(void *ud, int stream, const char *p, size_t n)
{
    exec_ctx *x = ud;

    if (stream == 4 && x->r && x->detach) {
        char body[160];
        unsigned long cell = strtoul(p, NULL, 10);
        int k = snprintf(body, sizeof body, "{\"cell\": %lu, \"status\": \"running\", \"url\": "
                         "\"/v1/sessions/%s-%s/cells/%lu\"}", cell, x->s->cfg.instance, x->sid,
                         cell);

        x->detached = kept_add(x->s, x->sid, x->owner, (unsigned)cell);
        fo_http_send_text(x->c, x->r, 202, "application/json", body, (size_t)k);
        answered_early(x);
    } else if (stream == 4 && x->r && x->events) {
        start_stream(x, p, n);
    } else if (x->ev && (stream == 1 || stream == 2)) {
        sse_stream(x->ev, stream, p, n);
    } else if (x->ev && stream == 3) {
        sse_push(x->ev, "display", p, n, 0);
    } else if (x->ev && stream == 0) {
        sse_push(x->ev, NULL, KEEPALIVE, strlen(KEEPALIVE), 0);
    }
}

static int cell_take(fo_serve_state *s)
{
    if (atomic_fetch_add(&s->cells, 1) < (long)s->cfg.max_cells) return 1;
    atomic_fetch_sub(&s->cells, 1);
    return 0;
}

static int wants_events(struct MHD_Connection *c)
{
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");

    return accept && strstr(accept, "text/event-stream") != NULL;
}

/* {"code", "timeout"?, "detach"?}: 0, or -1 after answering 400. */
static int exec_args(struct MHD_Connection *c, req *r, json_t *body, json_t **code,
                     double *timeout, int *detach)
{
    json_t *t = json_object_get(body, "timeout"), *d = json_object_get(body, "detach");

    *code = json_object_get(body, "code");
    if (!json_is_string(*code) || (t && !json_is_number(t)) || (d && !json_is_boolean(d)) ||
        json_object_size(body) != 1u + (t != NULL) + (d != NULL)) {
        fo_http_refuse(c, r, 400, "bad_request", "send {\"code\": \"...\", \"timeout\": S, "
                       "\"detach\": false}", "exec takes \"code\" (a string), an optional "
                       "\"timeout\" (seconds) and an optional \"detach\" (true or false)");
        return -1;
    }
    if (t && !fo_http_limit_ok(c, r, "timeout", json_number_value(t),
                               r->s->cfg.session_max[FO_LIMIT_TIMEOUT], "s"))
        return -1;
    *timeout = t ? json_number_value(t) : 0;
    *detach = d && json_is_true(d);
    return 0;
}

/* The cell has ended: its result to whoever waits for it. */
static void deliver(exec_ctx *x, int rc, char *result, const fo_session_error *err)
{
    if (x->r) {                                   /* not answered yet: the plain case */
        if (rc < 0)
            fo_http_session_refuse(x->c, x->r, err);
        else fo_http_send_text(x->c, x->r, 200, "application/json", result, strlen(result));
        fo_free(result);
        return;
    }
    if (x->detached) {
        if (rc < 0) {
            json_t *o = json_pack("{s:[{s:s, s:s, s:s}]}", "errors", "code", err->code,
                                  "message", err->message, "hint", err->hint);
            fo_free(result);
            result = o ? json_dumps(o, JSON_COMPACT) : NULL;
            json_decref(o);
        }
        kept_finish(x->detached, result);
        return;
    }
    if (x->ev) {
        if (rc < 0) {
            json_t *o = json_pack("{s:s, s:s, s:s}", "code", err->code, "message", err->message,
                                  "hint", err->hint);
            char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

            if (text) sse_push(x->ev, "error", text, strlen(text), 0);
            free(text);                        /* jansson's json_dumps: plain free */
            json_decref(o);
        } else {
            sse_push(x->ev, "result", result, strlen(result), 0);
        }
        sse_end(x->ev);
        sse_unref(x->ev);
    }
    fo_free(result);
}

/* POST /v1/sessions/{id}/exec */
void fo_http_exec(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *id = r->sid;
    exec_ctx x = { s, r, c, NULL, NULL, 0, 0, "", "" };
    fo_session_error err;
    json_t *body = fo_http_read_json(c, r), *code;
    char *result = NULL;
    double timeout;
    unsigned mode = FO_SESSION_CALLER_HTTP;
    hangup *watch;
    int rc;

    memset(&err, 0, sizeof err);
    if (!body) return;
    if (exec_args(c, r, body, &code, &timeout, &x.detach) < 0) {
        json_decref(body);
        return;
    }
    if (!cell_take(s)) {
        json_decref(body);
        fo_http_refuse(c, r, 429, "busy", "retry after the number of seconds in Retry-After",
                       "%u cells are running on this instance", s->cfg.max_cells);
        return;
    }
    x.events = !x.detach && wants_events(c);
    if (x.events) mode |= FO_SESSION_STREAM_EVENTS;
    snprintf(x.sid, sizeof x.sid, "%s", id);
    fo_http_asker(r, x.owner);
    watch = x.detach ? NULL : watch_add(c, id);
    rc = fo_session_exec_as(id, json_string_value(code), json_string_length(code), timeout,
                            mode, on_event, &x, &result, &err);
    watch_remove(watch);
    json_decref(body);
    deliver(&x, rc, result, &err);
    atomic_fetch_sub(&s->cells, 1);
}
