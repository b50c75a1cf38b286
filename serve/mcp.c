/* mcp.c — the Model Context Protocol core (mcp.h): JSON-RPC 2.0 messages
 * in, answers and notifications out through the transport's send function.
 * Knows no transport: mcp_stdio.c and mcp_http.c both hand it one message
 * at a time.
 *
 * Lifecycle (2025-11-25, basic/lifecycle): initialize answers the client's
 * protocol version when folio speaks it (2025-11-25, 2025-06-18,
 * 2025-03-26), else its own latest. Server capabilities: tools and
 * resources (the session's files and renders, as folio:// URIs), neither
 * with list-changed notifications.
 *
 * Concurrency: each tools/call runs on the caller's thread; the calls in
 * flight are listed so that notifications/cancelled (utilities/cancellation)
 * finds its request: the call is marked, its cell interrupted (when the
 * session layer: fo_session_interrupt), and no answer is sent for it.
 * A request with _meta.progressToken gets notifications/progress
 * (utilities/progress): one a second while it runs, and one per event a
 * tool reports (a line of output, a rendered file). */
#define FO_SERVE_PRIVATE
#define FO_MCP_PRIVATE
#include "serve/serve.h"
#include "serve/mcp.h"
#include "folio.h"
#include "base/clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static const char *const versions[] = { FO_MCP_PROTOCOL, "2025-06-18", "2025-03-26" };

static const char instructions[] =
    "folio runs Python in a sandboxed session whose variables, imports and files persist "
    "between calls (pandas, numpy, matplotlib are there; no network unless the server allows "
    "it). Put input files with put_file, run code with run_python, read results with get_file. "
    "To make a document: write a folio spec (JSON; `folio schema` describes it) to "
    "/out/result.json in a cell, check it with validate_spec, then render it to xlsx, docx, "
    "pptx, pdf or png with render.";

struct fo_mcp_call {
    fo_mcp *m;
    json_t *id;                  /* the request's id */
    json_t *token;               /* _meta.progressToken, or NULL */
    fo_mcp_send_fn send;
    void *ud;
    atomic_int cancelled;
    pthread_mutex_t lock;        /* progress: counter and order */
    pthread_cond_t done_cv;
    int done;
    long progress;
    double t0;
    char sid[33];                /* the folio session the call runs in ("" none yet) */
    fo_mcp_call *next;
};

struct fo_mcp {
    pthread_mutex_t lock;        /* calls, busy, sid, limits */
    pthread_cond_t idle;
    pthread_mutex_t starting;    /* one session start at a time */
    unsigned busy;
    fo_mcp_call *calls;
    char sid[33];
    json_t *limits;
    char *const *argv;
    int argc, cold;
    char scratch[4096];
};

/* ---------------------------------------------------------- sessions */

int fo_mcp_session(fo_mcp *m, char id[33], fo_session_error *err)
{
    fo_session_new o = { NULL, m->argv, m->argc, m->cold };
    char *info = NULL;
    json_t *j;

    pthread_mutex_lock(&m->starting);
    pthread_mutex_lock(&m->lock);
    memcpy(id, m->sid, 33);
    pthread_mutex_unlock(&m->lock);
    if (id[0]) {
        pthread_mutex_unlock(&m->starting);
        return 0;
    }
    if (fo_session_create(&o, id, &info, err) < 0) {
        pthread_mutex_unlock(&m->starting);
        return -1;
    }
    j = info ? json_loads(info, 0, NULL) : NULL;
    fo_free(info);
    pthread_mutex_lock(&m->lock);
    memcpy(m->sid, id, 33);
    json_decref(m->limits);
    m->limits = json_incref(json_object_get(j, "limits"));
    pthread_mutex_unlock(&m->lock);
    json_decref(j);
    pthread_mutex_unlock(&m->starting);
    return 0;
}

void fo_mcp_session_drop(fo_mcp *m)
{
    fo_session_error err;
    char id[33];

    pthread_mutex_lock(&m->lock);
    memcpy(id, m->sid, 33);
    m->sid[0] = '\0';
    pthread_mutex_unlock(&m->lock);
    memset(&err, 0, sizeof err);
    if (id[0]) (void)fo_session_close(id, &err);
}

double fo_mcp_limit(fo_mcp *m, const char *key, double dflt)
{
    double v = dflt;

    pthread_mutex_lock(&m->lock);
    if (json_is_number(json_object_get(m->limits, key)))
        v = json_number_value(json_object_get(m->limits, key));
    pthread_mutex_unlock(&m->lock);
    return v;
}

const char *fo_mcp_scratch(fo_mcp *m)
{
    return m->scratch;
}

fo_mcp *fo_mcp_new(const fo_mcp_config *cfg)
{
    fo_mcp *m = fo_calloc(1, sizeof *m);

    if (!m) return NULL;
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_init(&m->starting, NULL);
    pthread_cond_init(&m->idle, NULL);
    m->argv = cfg->session_argv;
    m->argc = cfg->session_argc;
    m->cold = cfg->no_spares;
    snprintf(m->scratch, sizeof m->scratch, "%s/mcp-XXXXXX", cfg->scratch ? cfg->scratch : "/tmp");
    if (!mkdtemp(m->scratch)) {
        pthread_mutex_destroy(&m->lock);
        pthread_mutex_destroy(&m->starting);
        pthread_cond_destroy(&m->idle);
        fo_free(m);
        return NULL;
    }
    return m;
}

/* Interrupts the cell of every call in flight (when the session layer
   can); each call's answer is dropped. */
void fo_mcp_cancel(fo_mcp *m)
{
    fo_session_error err;
    char sid[33];
    int any = 0;

    pthread_mutex_lock(&m->lock);
    for (fo_mcp_call *c = m->calls; c; c = c->next, any = 1) atomic_store(&c->cancelled, 1);
    memcpy(sid, m->sid, 33);
    pthread_mutex_unlock(&m->lock);
    memset(&err, 0, sizeof err);
    if (any && sid[0])
        (void)fo_session_interrupt(sid, &(int){ 0 }, &err);
}

void fo_mcp_free(fo_mcp *m)
{
    if (!m) return;
    fo_mcp_cancel(m);
    pthread_mutex_lock(&m->lock);
    while (m->busy) pthread_cond_wait(&m->idle, &m->lock);
    pthread_mutex_unlock(&m->lock);
    fo_mcp_session_drop(m);
    fo_serve_rmtree(m->scratch);
    json_decref(m->limits);
    pthread_mutex_destroy(&m->lock);
    pthread_mutex_destroy(&m->starting);
    pthread_cond_destroy(&m->idle);
    fo_free(m);
}

/* ---------------------------------------------------------- messages */

static void send_json(fo_mcp_send_fn send, void *ud, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10));

    if (text) {
        send(ud, text, strlen(text));
        free(text);                               /* json_dumps'd: plain free */
    }
}

static void answer(fo_mcp_send_fn send, void *ud, json_t *id, json_t *result)
{
    json_t *msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                            "result", result ? result : json_object());
    send_json(send, ud, msg);
    json_decref(msg);
}

static void answer_error(fo_mcp_send_fn send, void *ud, json_t *id, int code, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));
static void answer_error(fo_mcp_send_fn send, void *ud, json_t *id, int code, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    json_t *msg;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    msg = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                    "error", "code", code, "message", why);
    send_json(send, ud, msg);
    json_decref(msg);
}

int fo_mcp_kind(const char *msg, size_t len)
{
    json_t *j = json_loadb(msg, len, 0, NULL), *method, *id;
    int kind = 0;

    if (json_is_object(j)) {
        method = json_object_get(j, "method");
        id = json_object_get(j, "id");
        if (json_is_string(method) && !strcmp(json_string_value(method), "initialize") && id)
            kind = 'I';
        else if (json_is_string(method)) kind = id ? 'R' : 'N';
        else if (id && (json_object_get(j, "result") || json_object_get(j, "error"))) kind = 'S';
    }
    json_decref(j);
    return kind;
}

/* ---------------------------------------------------------- progress */

void fo_mcp_progress(fo_mcp_call *c, const char *message)
{
    json_t *msg;

    if (!c || !c->token || atomic_load(&c->cancelled)) return;
    pthread_mutex_lock(&c->lock);
    if (!c->done) {
        msg = json_pack("{s:s, s:s, s:{s:O, s:I, s:s}}", "jsonrpc", "2.0", "method",
                        "notifications/progress", "params", "progressToken", c->token,
                        "progress", (json_int_t)++c->progress, "message", message ? message : "");
        send_json(c->send, c->ud, msg);
        json_decref(msg);
    }
    pthread_mutex_unlock(&c->lock);
}

int fo_mcp_cancelled(fo_mcp_call *c)
{
    return c && atomic_load(&c->cancelled);
}

/* A second's heartbeat while the call runs: long cells and renders show
   that they are alive even when they print nothing. */
static void *ticker(void *arg)
{
    fo_mcp_call *c = arg;
    struct timespec until;
    char line[96];

    pthread_mutex_lock(&c->lock);
    while (!c->done) {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        if (pthread_cond_timedwait(&c->done_cv, &c->lock, &until) != ETIMEDOUT || c->done) break;
        pthread_mutex_unlock(&c->lock);
        snprintf(line, sizeof line, "running for %.0f s", fo_now() - c->t0);
        fo_mcp_progress(c, line);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* ------------------------------------------------------------- tools */

json_t *fo_mcp_tool_error(const char *code, const char *message, const char *hint)
{
    char text[1400];

    snprintf(text, sizeof text, "error [%s]: %s%s%s", code ? code : "internal", message,
             hint && *hint ? "\nhint: " : "", hint && *hint ? hint : "");
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text,
                     "isError", 1);
}

json_t *fo_mcp_session_error(const fo_session_error *e)
{
    return fo_mcp_tool_error(e->code[0] ? e->code : "internal", e->message, e->hint);
}

static json_t *tool_list(void)
{
    json_t *tools = json_array();

    for (const fo_mcp_tool *t = fo_mcp_tools; t->name; t++) {
        json_error_t je;
        json_t *schema = json_loads(t->input_schema, 0, &je);
        json_t *tool = json_pack("{s:s, s:s, s:s, s:o, s:{s:s, s:b, s:b, s:b, s:b}}",
                                 "name", t->name, "title", t->title, "description", t->description,
                                 "inputSchema", schema ? schema : json_pack("{s:s}", "type", "object"),
                                 "annotations", "title", t->title, "readOnlyHint", t->read_only,
                                 "destructiveHint", t->destructive, "idempotentHint", t->idempotent,
                                 "openWorldHint", 0);
        json_array_append_new(tools, tool);
    }
    return json_pack("{s:o}", "tools", tools);
}

static void call_begin(fo_mcp *m, fo_mcp_call *c)
{
    pthread_mutex_lock(&m->lock);
    c->next = m->calls;
    m->calls = c;
    memcpy(c->sid, m->sid, 33);
    pthread_mutex_unlock(&m->lock);
}

static void call_end(fo_mcp *m, fo_mcp_call *c)
{
    pthread_mutex_lock(&m->lock);
    for (fo_mcp_call **p = &m->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    pthread_mutex_unlock(&m->lock);
}

static void tools_call(fo_mcp *m, json_t *id, json_t *params, fo_mcp_send_fn send, void *ud)
{
    const char *name = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments"), *result;
    json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");
    const fo_mcp_tool *t;
    fo_mcp_call c;
    pthread_t tick;
    int ticking = 0;

    for (t = fo_mcp_tools; t->name && (!name || strcmp(t->name, name)); t++)
        ;
    if (!t->name) {
        answer_error(send, ud, id, -32602, "Unknown tool: %.100s (tools/list names them)",
                     name ? name : "(no name)");
        return;
    }
    if (args && !json_is_object(args)) {
        answer_error(send, ud, id, -32602, "tools/call: \"arguments\" must be an object");
        return;
    }
    memset(&c, 0, sizeof c);
    c.m = m;
    c.id = id;
    c.token = json_is_string(token) || json_is_integer(token) ? token : NULL;
    c.send = send;
    c.ud = ud;
    c.t0 = fo_now();
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.done_cv, NULL);
    call_begin(m, &c);
    if (c.token) ticking = pthread_create(&tick, NULL, ticker, &c) == 0;
    {
        json_t *none = json_object();
        result = t->fn(m, &c, args ? args : none);
        json_decref(none);
    }
    pthread_mutex_lock(&c.lock);
    c.done = 1;
    pthread_cond_signal(&c.done_cv);
    pthread_mutex_unlock(&c.lock);
    if (ticking) pthread_join(tick, NULL);
    call_end(m, &c);
    if (!atomic_load(&c.cancelled))       /* a cancelled request gets no answer */
        answer(send, ud, id, result ? result : fo_mcp_tool_error("internal", "the tool made "
                                                                  "no result (a bug)", ""));
    else json_decref(result);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.done_cv);
}

/* notifications/cancelled {requestId, reason}: the call is marked (its
   answer dropped) and its cell interrupted when the session layer can. */
static void cancel(fo_mcp *m, json_t *params)
{
    json_t *rid = json_object_get(params, "requestId");
    fo_session_error err;
    char sid[33] = "";

    pthread_mutex_lock(&m->lock);
    for (fo_mcp_call *c = m->calls; rid && c; c = c->next)
        if (json_equal(c->id, rid)) {
            atomic_store(&c->cancelled, 1);
            memcpy(sid, m->sid, 33);
        }
    pthread_mutex_unlock(&m->lock);
    memset(&err, 0, sizeof err);
    if (sid[0])
        (void)fo_session_interrupt(sid, &(int){ 0 }, &err);
}

static json_t *initialize(json_t *params)
{
    const char *want = json_string_value(json_object_get(params, "protocolVersion"));
    const char *v = FO_MCP_PROTOCOL;

    for (size_t k = 0; want && k < sizeof versions / sizeof *versions; k++)
        if (!strcmp(want, versions[k])) v = versions[k];
    return json_pack("{s:s, s:{s:{s:b}, s:{s:b, s:b}}, s:{s:s, s:s, s:s}, s:s}",
                     "protocolVersion", v, "capabilities", "tools", "listChanged", 0,
                     "resources", "listChanged", 0, "subscribe", 0, "serverInfo", "name", "folio",
                     "title", "folio: analysis code in a sandbox, results as documents",
                     "version", FOLIO_VERSION, "instructions", instructions);
}

static void request(fo_mcp *m, const char *method, json_t *id, json_t *params,
                    fo_mcp_send_fn send, void *ud)
{
    if (!strcmp(method, "initialize")) {
        answer(send, ud, id, initialize(params));
    } else if (!strcmp(method, "ping")) {
        answer(send, ud, id, NULL);
    } else if (!strcmp(method, "tools/list")) {
        answer(send, ud, id, tool_list());
    } else if (!strcmp(method, "tools/call")) {
        tools_call(m, id, params, send, ud);
    } else if (!strcmp(method, "resources/list")) {
        answer(send, ud, id, fo_mcp_resource_list(m));
    } else if (!strcmp(method, "resources/templates/list")) {
        answer(send, ud, id, json_pack("{s:[]}", "resourceTemplates"));
    } else if (!strcmp(method, "resources/read")) {
        char why[600] = "";
        int code = -32603;
        const char *uri = json_string_value(json_object_get(params, "uri"));
        json_t *r = uri ? fo_mcp_resource_read(m, uri, &code, why, sizeof why) : NULL;
        if (r)
            answer(send, ud, id, r);
        else
            answer_error(send, ud, id, uri ? code : -32602, "%s",
                         uri ? why : "resources/read needs \"uri\"");
    } else {
        answer_error(send, ud, id, -32601, "Method not found: %.100s (folio offers tools and "
                     "resources)", method);
    }
}

int fo_mcp_handle(fo_mcp *m, const char *msg, size_t len, fo_mcp_send_fn send, void *ud)
{
    json_error_t je;
    json_t *j = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &je), *id, *params;
    const char *method;
    int is_request = 0;

    if (!j) {
        answer_error(send, ud, NULL, -32700, "Parse error: %s (line %d, column %d)", je.text,
                     je.line, je.column);
        return 1;
    }
    pthread_mutex_lock(&m->lock);
    m->busy++;
    pthread_mutex_unlock(&m->lock);
    id = json_object_get(j, "id");
    method = json_string_value(json_object_get(j, "method"));
    params = json_object_get(j, "params");
    if (!json_is_object(j) || (id && !json_is_string(id) && !json_is_integer(id)) ||
        (!method && !id) || (params && !json_is_object(params))) {
        answer_error(send, ud, json_is_object(j) ? id : NULL, -32600, "Invalid Request: %s",
                     json_is_array(j) ? "batches are not part of MCP 2025-11-25; send one "
                     "message at a time" : "a JSON-RPC 2.0 object with \"method\" (and \"id\" "
                     "for a request)");
        is_request = 1;
    } else if (method && id) {
        request(m, method, id, params, send, ud);
        is_request = 1;
    } else if (method && !strcmp(method, "notifications/cancelled")) {
        cancel(m, params);
    }
    /* other notifications (initialized, roots) and the client's responses
       need nothing */
    json_decref(j);
    pthread_mutex_lock(&m->lock);
    if (!--m->busy) pthread_cond_broadcast(&m->idle);
    pthread_mutex_unlock(&m->lock);
    return is_request;
}
