/* mcp_http.c — `folio serve`'s /mcp: the MCP core (mcp.c) over the
 * protocol's streamable HTTP transport (2025-11-25, basic/transports),
 * behind the same bearer tokens as /v1.
 *
 *   POST /mcp    one JSON-RPC message. initialize makes an MCP session and
 *                answers its id in Mcp-Session-Id; every later message
 *                carries it (400 without, 404 for an unknown or ended one,
 *                or one another token made). A request is answered with
 *                application/json, or with text/event-stream when it asked
 *                for progress (_meta.progressToken) and accepts it: the
 *                progress notifications, then the answer. A notification
 *                or a response is answered 202 with no body.
 *   DELETE /mcp  ends the MCP session and its folio session (204).
 *   GET /mcp     405 (from the route table, http.c: Allow: POST, DELETE):
 *                folio sends nothing the client did not ask for, so it
 *                offers no standalone stream.
 *
 * An MCP session owns one folio session, made at its first tool call with
 * the server's limits (`folio serve`'s --max-sessions and --max-bytes, the
 * session defaults otherwise; no network), so no client can ask for more
 * than the server gives. A request whose Origin
 * header names another host than the one it was sent to is refused (403),
 * as the transport's security warning asks (DNS rebinding). */
#define FO_SERVE_PRIVATE
#define FO_MCP_PRIVATE
#include "serve/serve.h"
#include "folio.h"
#include "serve/http.h"
#include "serve/mcp.h"
#include "sandbox/sandbox.h"
#include "sandbox/session.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_MCP_SESSIONS 256

typedef struct {
    char id[33];
    unsigned char owner[32];
    int has_owner;
    fo_mcp *m;
    unsigned refs;
    int dead;
} entry;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table[MAX_MCP_SESSIONS];
static char max_sessions[16], max_bytes[24];
static char opt_sessions[] = "--max-sessions", opt_bytes[] = "--max-bytes";
static char *const mcp_argv[] = { opt_sessions, max_sessions, opt_bytes, max_bytes, NULL };

/* ------------------------------------------------------------ answers */

static void add_common(struct MHD_Response *resp, const char *sid)
{
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (sid) MHD_add_response_header(resp, "Mcp-Session-Id", sid);
}

static void reply(struct MHD_Connection *c, req *r, unsigned status, const char *type,
                  const char *body, size_t len, const char *sid)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body,
                                                                MHD_RESPMEM_MUST_COPY);
    if (!resp) return;
    if (type) MHD_add_response_header(resp, "Content-Type", type);
    add_common(resp, sid);
    fo_http_send_response(c, r, status, resp, len);
}

/* A JSON-RPC error as the body of an HTTP refusal. */
static void refuse(struct MHD_Connection *c, req *r, unsigned status, int code, const char *why)
{
    json_t *o = json_pack("{s:s, s:n, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", "error", "code",
                          code, "message", why);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    r->reason = "mcp";
    reply(c, r, status, "application/json", text ? text : "", text ? strlen(text) : 0, NULL);
    free(text);                                   /* json_dumps'd: plain free */
}

/* ------------------------------------------------------------- table */

static int owner_ok(const entry *e, const req *r)
{
    unsigned char diff = 0;

    if (e->has_owner != r->has_bearer) return 0;
    for (int k = 0; k < 32; k++) diff |= (unsigned char)(e->owner[k] ^ r->bearer[k]);
    return diff == 0;
}

/* The live entry of id for this request's token, with a reference; NULL
   when there is none (or another token made it: not told apart). */
static entry *lookup(const char *id, const req *r)
{
    entry *found = NULL;

    pthread_mutex_lock(&table_lock);
    for (int k = 0; id && k < MAX_MCP_SESSIONS && !found; k++)
        if (table[k] && !table[k]->dead && !strcmp(table[k]->id, id) && owner_ok(table[k], r))
            found = table[k];
    if (found) found->refs++;
    pthread_mutex_unlock(&table_lock);
    return found;
}

static void release(entry *e)
{
    int last;

    pthread_mutex_lock(&table_lock);
    last = !--e->refs && e->dead;
    pthread_mutex_unlock(&table_lock);
    if (last) {
        fo_mcp_free(e->m);
        fo_free(e);
    }
}

/* A new entry (one reference held), or NULL when the table is full. */
static entry *make(fo_serve_state *s, const req *r)
{
    fo_mcp_config cfg = { mcp_argv, 4, s->cfg.scratch, 0 };
    entry *e = fo_calloc(1, sizeof *e);
    int k;

    snprintf(max_sessions, sizeof max_sessions, "%u", s->cfg.max_sessions);
    snprintf(max_bytes, sizeof max_bytes, "%llu", (unsigned long long)s->cfg.max_bytes);
    if (!e || !(e->m = fo_mcp_new(&cfg))) {
        fo_free(e);
        return NULL;
    }
    fo_session_new_id(e->id);
    e->has_owner = r->has_bearer;
    memcpy(e->owner, r->bearer, 32);
    e->refs = 1;
    pthread_mutex_lock(&table_lock);
    for (k = 0; k < MAX_MCP_SESSIONS && table[k]; k++)
        ;
    if (k < MAX_MCP_SESSIONS) table[k] = e;
    pthread_mutex_unlock(&table_lock);
    if (k == MAX_MCP_SESSIONS) {
        fo_mcp_free(e->m);
        fo_free(e);
        return NULL;
    }
    return e;
}

/* Takes e out of the table; freed when its last reference goes. */
static void end(entry *e)
{
    pthread_mutex_lock(&table_lock);
    for (int k = 0; k < MAX_MCP_SESSIONS; k++)
        if (table[k] == e) table[k] = NULL;
    e->dead = 1;
    pthread_mutex_unlock(&table_lock);
}

/* ------------------------------------------------------------ bodies */

static char *read_body(req *r, size_t *len)
{
    off_t n;
    char *buf;

    *len = 0;
    if (!r->n_files || (n = lseek(r->files[0].fd, 0, SEEK_END)) <= 0) return NULL;
    buf = fo_malloc((size_t)n + 1);
    if (!buf || pread(r->files[0].fd, buf, (size_t)n, 0) != n) {
        fo_free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* The answers of one message, gathered (application/json). */
typedef struct {
    char *data;
    size_t len;
} gathered;

static void gather(void *ud, const char *json, size_t len)
{
    gathered *g = ud;
    char *more = fo_realloc(g->data, g->len + len + 1);

    if (!more) return;
    if (g->len)          /* one answer per request; a second would be a bug */
        return;
    memcpy(more + g->len, json, len);
    g->data = more;
    g->len += len;
    g->data[g->len] = '\0';
}

/* ------------------------------------------------------------ streams */

/* An event stream: the call's thread appends events, libmicrohttpd's
   content reader takes them; while there is nothing to send the
   connection is suspended (no thread held, none spinning) and the next
   event resumes it. Freed by whichever side lets go last. */
typedef struct {
    pthread_mutex_t lock;
    struct MHD_Connection *conn;
    entry *e;
    char *msg;
    size_t len;
    char *buf;           /* events not yet taken */
    size_t have, cap;
    int ended;           /* the call has answered */
    int gone;            /* the response was destroyed (sent, or the client left) */
    int suspended;
    int refs;
} stream;

static void stream_unref(stream *st)
{
    int last;

    pthread_mutex_lock(&st->lock);
    last = !--st->refs;
    pthread_mutex_unlock(&st->lock);
    if (last) {
        pthread_mutex_destroy(&st->lock);
        fo_free(st->buf);
        fo_free(st->msg);
        fo_free(st);
    }
}

/* Must be called with st->lock held. */
static void wake(stream *st)
{
    if (st->suspended && !st->gone) {
        st->suspended = 0;
        MHD_resume_connection(st->conn);
    }
}

/* One server-sent event per message. */
static void send_event(void *ud, const char *json, size_t len)
{
    stream *st = ud;
    size_t need;

    pthread_mutex_lock(&st->lock);
    need = st->have + len + 23;
    if (!st->gone && need > st->cap) {
        char *more = fo_realloc(st->buf, need * 2);
        if (more) {
            st->buf = more;
            st->cap = need * 2;
        }
    }
    if (!st->gone && need <= st->cap) {
        memcpy(st->buf + st->have, "event: message\ndata: ", 21);
        memcpy(st->buf + st->have + 21, json, len);
        memcpy(st->buf + st->have + 21 + len, "\n\n", 2);
        st->have += len + 23;
        wake(st);
    }
    pthread_mutex_unlock(&st->lock);
}

static ssize_t take_events(void *cls, uint64_t pos, char *out, size_t max)
{
    stream *st = cls;
    ssize_t n;

    (void)pos;
    pthread_mutex_lock(&st->lock);
    if (st->have) {
        n = (ssize_t)(st->have < max ? st->have : max);
        memcpy(out, st->buf, (size_t)n);
        memmove(st->buf, st->buf + n, st->have - (size_t)n);
        st->have -= (size_t)n;
    } else if (st->ended) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        st->suspended = 1;
        MHD_suspend_connection(st->conn);
        n = 0;
    }
    pthread_mutex_unlock(&st->lock);
    return n;
}

static void response_gone(void *cls)
{
    stream *st = cls;

    pthread_mutex_lock(&st->lock);
    st->gone = 1;
    pthread_mutex_unlock(&st->lock);
    stream_unref(st);
}

static void *stream_job(void *arg)
{
    stream *st = arg;

    (void)fo_mcp_handle(st->e->m, st->msg, st->len, send_event, st);
    release(st->e);
    pthread_mutex_lock(&st->lock);
    st->ended = 1;
    wake(st);
    pthread_mutex_unlock(&st->lock);
    stream_unref(st);
    return NULL;
}

/* Answers the request as an event stream fed by a thread; 0 (msg and the
   reference on e taken), or -1 when no stream could be made (the caller
   answers at once instead). */
static int answer_stream(struct MHD_Connection *c, req *r, entry *e, char *msg, size_t len)
{
    struct MHD_Response *resp;
    stream *st = fo_calloc(1, sizeof *st);
    pthread_attr_t a;
    pthread_t t;
    int ok;

    if (!st) return -1;
    pthread_mutex_init(&st->lock, NULL);
    st->conn = c;
    st->e = e;
    st->refs = 2;            /* the response, the thread */
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, take_events, st,
                                             response_gone);
    if (!resp) {
        pthread_mutex_destroy(&st->lock);
        fo_free(st);
        return -1;
    }
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    add_common(resp, e->id);
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    st->msg = msg;
    st->len = len;
    ok = pthread_create(&t, &a, stream_job, st) == 0;
    pthread_attr_destroy(&a);
    if (!ok) {
        st->msg = NULL;
        st->refs = 1;
        MHD_destroy_response(resp);   /* frees st through response_gone */
        return -1;
    }
    fo_http_send_response(c, r, 200, resp, 0);
    return 0;
}

/* ------------------------------------------------------------- route */

static int accepts(struct MHD_Connection *c, const char *type)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return a && strcasestr(a, type);
}

static int wants_progress(const char *msg, size_t len)
{
    json_t *j = json_loadb(msg, len, 0, NULL);
    int yes = json_object_get(json_object_get(json_object_get(j, "params"), "_meta"),
                              "progressToken") != NULL;
    json_decref(j);
    return yes;
}

/* An Origin (sent by browsers) must name the host the request was sent to. */
static int origin_ok(struct MHD_Connection *c)
{
    const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    const char *rest;

    if (!o) return 1;
    rest = !strncasecmp(o, "http://", 7) ? o + 7 : !strncasecmp(o, "https://", 8) ? o + 8 : NULL;
    return rest && h && !strcasecmp(rest, h);
}

static int version_ok(struct MHD_Connection *c)
{
    static const char *const known[] = { FO_MCP_PROTOCOL, "2025-06-18", "2025-03-26" };
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "MCP-Protocol-Version");

    for (size_t k = 0; v && k < sizeof known / sizeof *known; k++)
        if (!strcmp(v, known[k])) return 1;
    return v == NULL;     /* none sent: the negotiated one is assumed */
}

static void post(fo_serve_state *s, struct MHD_Connection *c, req *r, const char *sid)
{
    size_t len;
    char *msg = read_body(r, &len);
    int kind = msg ? fo_mcp_kind(msg, len) : 0;
    gathered g = { NULL, 0 };
    entry *e;

    if (!msg || !kind) {
        fo_free(msg);
        refuse(c, r, 400, -32700, "Parse error: send one JSON-RPC message as the body");
        return;
    }
    if (kind == 'I') {
        e = make(s, r);
        if (!e) {
            fo_free(msg);
            refuse(c, r, 503, -32603, "too many MCP sessions on this instance: end unused ones "
                   "with DELETE /mcp");
            return;
        }
    } else if (!sid) {
        fo_free(msg);
        refuse(c, r, 400, -32600, "Bad Request: no Mcp-Session-Id header (send initialize first)");
        return;
    } else if (!(e = lookup(sid, r))) {
        fo_free(msg);
        refuse(c, r, 404, -32001, "Session not found: initialize a new MCP session");
        return;
    }
    if (kind == 'R' && accepts(c, "text/event-stream") && wants_progress(msg, len) &&
        answer_stream(c, r, e, msg, len) == 0)
        return;                    /* the thread owns msg and the reference now */
    (void)fo_mcp_handle(e->m, msg, len, gather, &g);
    fo_free(msg);
    if (kind == 'N' || kind == 'S' || !g.len)
        reply(c, r, 202, NULL, "", 0, e->id);    /* nothing to answer, or cancelled */
    else reply(c, r, 200, "application/json", g.data, g.len, e->id);
    fo_free(g.data);
    release(e);
}

void fo_mcp_http(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
    entry *e;

    if (!origin_ok(c)) {
        refuse(c, r, 403, -32600, "Forbidden: the Origin header names another host");
    } else if (!version_ok(c)) {
        refuse(c, r, 400, -32600, "Bad Request: unsupported MCP-Protocol-Version (folio speaks "
               FO_MCP_PROTOCOL ", 2025-06-18, 2025-03-26)");
    } else if (!strcmp(r->method, "POST")) {
        post(s, c, r, sid);
    } else {          /* DELETE: the route table (http.c) answers GET's 405 */
        if (!sid || !(e = lookup(sid, r))) {
            refuse(c, r, sid ? 404 : 400, -32001, "Session not found");
            return;
        }
        end(e);
        release(e);
        reply(c, r, 204, NULL, "", 0, NULL);
    }
}
