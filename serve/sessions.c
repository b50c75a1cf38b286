/* sessions.c — /v1/sessions: the sessions of `folio session` over HTTP
 * (PRODUCT.md §6, §7), through the same client API (sandbox/session.h), so
 * the same supervisors hold the jails. A session id on the wire is
 * "INSTANCE-HEX": the instance's name first, so that a load balancer routes
 * it to the instance that holds it (deploy/haproxy.cfg); this instance
 * answers 404 for another's. A call that waits on a supervisor runs on a
 * thread of its own (a deferred request, http.c), so no libmicrohttpd
 * thread or keep-alive connection waits behind a cell; cells in flight are
 * bounded (--max-cells), then 429.
 * The handlers are rows of the route table (http.c), which routes by method
 * and path and has {id} resolved (fo_http_session_id, here) before them. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "folio.h"
#include "serve/http.h"
#include "sandbox/session.h"


#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int fo_serve_name_ok(const char *name);   /* zygote.c */

/* ------------------------------------------------------------ owners */

/* DIR/ID/owner: written once, as the session is made. 0 or -1. */
static int write_owner(const char *dir, const char *id, const char *who)
{
    char path[4200];
    int fd, ok;

    snprintf(path, sizeof path, "%s/%s", dir, id);
    (void)mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/owner", dir, id);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    ok = write(fd, who, strlen(who)) == (ssize_t)strlen(who);
    close(fd);
    return ok ? 0 : -1;
}

/* The owner in the runtime folder, and in the state folder when it is
   another (an instance that resumes the session reads it there). */
static int set_owner(fo_serve_state *s, const char *id, const char *who)
{
    if (write_owner(s->cfg.session_dir, id, who) < 0) return -1;
    return !s->cfg.state_dir || !strcmp(s->cfg.state_dir, s->cfg.session_dir) ? 0 :
           write_owner(s->cfg.state_dir, id, who);
}

/* True when the session id was made by the same token as this request;
   compared in full whatever differs. */
static int is_owner(fo_serve_state *s, const req *r, const char *id)
{
    char path[4200], have[72] = "", want[65];
    unsigned char diff = 0;
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "%s/%s/owner", s->cfg.session_dir, id);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && s->cfg.state_dir) {          /* a session saved by another instance */
        snprintf(path, sizeof path, "%s/%s/owner", s->cfg.state_dir, id);
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) return 0;
    n = read(fd, have, sizeof have - 1);
    close(fd);
    if (n <= 0) return 0;
    have[n] = '\0';
    fo_http_asker(r, want);
    if (strlen(have) != strlen(want)) return 0;
    for (size_t k = 0; want[k]; k++) diff |= (unsigned char)(have[k] ^ want[k]);
    return diff == 0;
}

/* The HTTP status of a session failure's code. */
static unsigned status_of(const char *code)
{
    static const struct { const char *code; unsigned status; } map[] = {
        { "session_not_found", 404 }, { "session_expired", 410 }, { "bad_request", 400 },
        { "limit_reached", 429 }, { "restore_failed", 503 }, { "cell_timeout", 504 },
        { "oom_killed", 507 }, { "kernel_restarted", 500 },
        { "memory_unenforced", 503 },
    };
    for (size_t k = 0; k < sizeof map / sizeof *map; k++)
        if (!strcmp(map[k].code, code)) return map[k].status;
    return 500;
}

/* {"errors": [{"code", "message", "hint"}]} with status (0: the code's). */
static void refuse_session_as(struct MHD_Connection *c, req *r, const fo_session_error *e,
                              unsigned status)
{
    json_t *o = json_pack("{s:[{s:s, s:s, s:s}]}", "errors", "code", e->code[0] ? e->code : "internal",
                          "message", e->message, "hint", e->hint);
    char *body = o ? json_dumps(o, JSON_COMPACT) : NULL;

    if (!status) status = status_of(e->code);
    json_decref(o);
    r->reason = !strcmp(e->code, "file_not_found") ? "not_found" : status == 413 ? "ceiling"
              : status == 404 ? "session_not_found" : status == 410 ? "session_expired"
              : status == 429 ? "limit_reached" : status == 503 ? "restore_failed" : NULL;
    if (r->reason) fo_serve_metrics_refusal(r->reason);
    if (!body) {
        fo_http_refuse(c, r, 500, NULL, NULL, "out of memory");
        return;
    }
    fo_http_send_text(c, r, status, "application/json", body, strlen(body));
    free(body);                                   /* json_dumps'd: plain free */
}

void fo_http_session_refuse(struct MHD_Connection *c, req *r, const fo_session_error *e)
{
    refuse_session_as(c, r, e, 0);
}

/* A put or get the supervisor refused: the session tells "bad_request"
   with exit 2 (no such file, or not a plain relative path) or 3 (over the
   session's max_bytes, or its disk full). Over HTTP: 404 file_not_found
   for a get of nothing, 413 too_large / disk_full for either past a
   ceiling, with hints that name HTTP fields; the rest as it came. */
static void refuse_file(struct MHD_Connection *c, req *r, fo_session_error *e, int put)
{
    unsigned status = 0;

    if (strcmp(e->code, "bad_request")) {
        fo_http_session_refuse(c, r, e);
        return;
    }
    if (e->exit == 3 && put && strstr(e->message, strerror(ENOSPC))) {
        snprintf(e->code, sizeof e->code, "disk_full");
        snprintf(e->hint, sizeof e->hint, "the session's disk is full: delete files in a cell, or "
                 "create a session with a larger \"disk\" (MB)");
        status = 413;
    } else if (e->exit == 3) {
        snprintf(e->code, sizeof e->code, "too_large");
        snprintf(e->message, sizeof e->message, "%s: the file is over the session's ceiling "
                 "(limits.max_bytes)", put ? "put" : "get");
        snprintf(e->hint, sizeof e->hint, "a session moves files up to its limits.max_bytes "
                 "(POST /v1/sessions answered it): %s", put ? "send a smaller file, or split it"
                                                             : "split the file in a cell");
        status = 413;
    } else if (!put && e->exit == 2) {
        snprintf(e->code, sizeof e->code, "file_not_found");
        snprintf(e->hint, sizeof e->hint, "files/PATH is /work/PATH and files/out/PATH is "
                 "/out/PATH; an exec result lists the files its cell made (links are never "
                 "followed)");
        status = 404;
    }
    refuse_session_as(c, r, e, status);
}

json_t *fo_http_read_json(struct MHD_Connection *c, req *r)
{
    json_error_t je;
    json_t *o;
    char *buf;
    off_t len;

    if (!r->n_files || (len = lseek(r->files[0].fd, 0, SEEK_END)) <= 0) return json_object();
    buf = fo_malloc((size_t)len + 1);
    if (!buf || pread(r->files[0].fd, buf, (size_t)len, 0) != len) {
        fo_free(buf);
        fo_http_refuse(c, r, 500, NULL, NULL, "can't read the request body");
        return NULL;
    }
    o = json_loadb(buf, (size_t)len, JSON_REJECT_DUPLICATES, &je);
    fo_free(buf);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        fo_http_refuse(c, r, 400, "bad_request", "send a JSON object, e.g. {\"code\": \"1+1\"}",
                       "the body is not a JSON object%s%s", o ? "" : ": ", o ? "" : je.text);
        return NULL;
    }
    return o;
}

/* ------------------------------------------------------------- create */

/* The options a client may set on a new session, as `folio session new`
   options; --net all is the host's network and is never offered here. */
static const struct { const char *key, *opt; int number; } new_opts[] = {
    { "timeout", "--timeout", 1 }, { "memory", "--memory", 1 }, { "cpus", "--cpus", 1 },
    { "idle", "--idle", 1 }, { "disk", "--disk", 1 }, { "pids", "--pids", 1 },
    { "net", "--net", 0 },
};

/* The session options a request left out whose folio default is over the
   operator's ceiling: the ceiling, as if asked (disk's default is the
   session's memory). */
static void clamp_defaults(fo_serve_state *s, const double *given, const char **argv,
                           char bufs[][256], int *argc)
{
    double memory = given[FO_LIMIT_MEMORY] > 0 ? given[FO_LIMIT_MEMORY]
                                               : fo_serve_limit_default(FO_LIMIT_MEMORY, 0);
    size_t k;

    if (memory > s->cfg.session_max[FO_LIMIT_MEMORY]) memory = s->cfg.session_max[FO_LIMIT_MEMORY];
    for (k = 0; k < sizeof new_opts / sizeof *new_opts; k++) {
        int li = fo_serve_limit_index(new_opts[k].key);
        if (li < 0 || given[li] > 0 ||
            fo_serve_limit_default(li, memory) <= s->cfg.session_max[li])
            continue;
        argv[(*argc)++] = new_opts[k].opt;
        snprintf(bufs[k], 256, "%.17g", s->cfg.session_max[li]);
        argv[(*argc)++] = bufs[k];
    }
}

/* Body keys to argv, each number under the operator's ceiling; 0, or -1
   after answering 400. */
static int new_argv(fo_serve_state *s, struct MHD_Connection *c, req *r, json_t *body, const char **argv,
                    char bufs[][256], int *argc)
{
    double given[FO_LIMIT_N] = { 0 };
    const char *key;
    json_t *v;
    size_t k;

    json_object_foreach(body, key, v) {
        for (k = 0; k < sizeof new_opts / sizeof *new_opts && strcmp(new_opts[k].key, key); k++)
            ;
        if (k == sizeof new_opts / sizeof *new_opts) {
            fo_http_refuse(c, r, 400, "bad_request", "keys: timeout, memory, cpus, idle, disk, "
                           "pids, net", "unknown key \"%.100s\"", key);
            return -1;
        }
        if (new_opts[k].number ? !json_is_number(v) : !json_is_string(v)) {
            fo_http_refuse(c, r, 400, "bad_request", NULL, "\"%s\" must be a %s", key,
                           new_opts[k].number ? "number" : "string");
            return -1;
        }
        if (!new_opts[k].number && !strcmp(json_string_value(v), "all")) {
            fo_http_refuse(c, r, 403, "net_refused", "use \"packages\" or \"allow=HOST,...\": "
                           "egress through folio's checked proxy", "net \"all\" (the host's "
                           "network) is not offered over HTTP");
            return -1;
        }
        if (new_opts[k].number) {
            int li = fo_serve_limit_index(key);
            if (!fo_http_limit_ok(c, r, key, json_number_value(v), s->cfg.session_max[li],
                                  fo_serve_limit_unit(li)))
                return -1;
            given[li] = json_number_value(v);
        }
        argv[(*argc)++] = new_opts[k].opt;
        if (new_opts[k].number)
            snprintf(bufs[k], 256, "%.17g", json_number_value(v));
        else snprintf(bufs[k], 256, "%s", json_string_value(v));
        argv[(*argc)++] = bufs[k];
    }
    clamp_defaults(s, given, argv, bufs, argc);
    return 0;
}

void fo_http_session_create(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    char bufs[sizeof new_opts / sizeof *new_opts][256], maxs[16], id[33], who[65], *info = NULL;
    const char *argv[2 * sizeof new_opts / sizeof *new_opts + 2];
    fo_session_new o = { s->cfg.folio, (char *const *)argv, 0, 0 };   /* only read, passed on to execv */
    fo_session_error err;
    json_t *body = fo_http_read_json(c, r), *j;
    char *text;

    memset(&err, 0, sizeof err);
    if (!body) return;
    if (new_argv(s, c, r, body, argv, bufs, &o.argc) < 0) {
        json_decref(body);
        return;
    }
    json_decref(body);
    snprintf(maxs, sizeof maxs, "%u", s->cfg.max_sessions);
    argv[o.argc++] = "--max-sessions";
    argv[o.argc++] = maxs;
    if (fo_session_create(&o, id, &info, &err) < 0) {
        fo_http_session_refuse(c, r, &err);
        return;
    }
    fo_http_asker(r, who);
    if (set_owner(s, id, who) < 0) {
        fo_session_close(id, &err);
        fo_free(info);
        fo_http_refuse(c, r, 500, NULL, NULL, "can't record the session's owner: %s",
                       strerror(errno));
        return;
    }
    j = info ? json_loads(info, 0, NULL) : NULL;
    fo_free(info);
    if (j) {
        char wire[80];
        snprintf(wire, sizeof wire, "%s-%s", s->cfg.instance, id);
        json_object_set_new(j, "id", json_string(wire));
    }
    text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    json_decref(j);
    if (!text) {
        fo_http_refuse(c, r, 500, NULL, NULL, "the session started but its answer was unreadable");
        return;
    }
    fo_serve_metrics_session();
    fo_http_send_text(c, r, 201, "application/json", text, strlen(text));
    free(text);                                   /* json_dumps'd: plain free */
}

/* -------------------------------------------------------------- files */

/* files/out/P is /out/P; files/work/P and files/P are /work/P. */
static void session_path(const char *rest, char *path, size_t len)
{
    if (!strncmp(rest, "out/", 4) || !strncmp(rest, "work/", 5))
        snprintf(path, len, "/%s", rest);
    else snprintf(path, len, "%s", rest);
}

/* {path*} of .../files/{path*} when it is a safe relative path, else NULL
   after answering 400. */
static const char *file_name(struct MHD_Connection *c, req *r)
{
    const char *rest = r->arg[1];

    if (fo_serve_name_ok(rest)) return rest;
    fo_http_refuse(c, r, 400, "bad_name", "a relative path of plain names, e.g. "
                   "files/data/sales.csv or files/out/chart.png", "\"%.200s\" is not a safe "
                   "relative path", rest);
    return NULL;
}

/* PUT /v1/sessions/{id}/files/{path} */
void fo_http_session_put(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_session_error err;
    char dest[FO_SERVE_MAX_NAME + 8];
    const char *id = r->sid, *rest = file_name(c, r);

    (void)s;
    if (!rest) return;
    memset(&err, 0, sizeof err);
    if (!strncmp(rest, "out/", 4)) {
        fo_http_refuse(c, r, 400, "bad_request", "PUT files/NAME (or files/work/NAME)",
                       "files are put into /work; /out is what the session makes");
        return;
    }
    snprintf(dest, sizeof dest, "%s", strncmp(rest, "work/", 5) ? rest : rest + 5);
    if (!r->n_files) {
        fo_http_refuse(c, r, 500, NULL, NULL, "the upload was not stored");
        return;
    }
    if (fo_session_put(id, r->files[0].fd, dest, &err) < 0) {
        refuse_file(c, r, &err, 1);
        return;
    }
    fo_http_send_text(c, r, 201, "application/json", "{}\n", 3);
}

/* GET /v1/sessions/{id}/files/{path} */
void fo_http_session_get(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_session_error err;
    char path[FO_SERVE_MAX_NAME + 8];
    const char *id = r->sid, *rest = file_name(c, r), *base;
    unsigned long long bytes;
    int fd;

    (void)s;
    if (!rest) return;
    base = strrchr(rest, '/');
    memset(&err, 0, sizeof err);
    session_path(rest, path, sizeof path);
    if (fo_session_get(id, path, &fd, &bytes, &err) < 0) {
        refuse_file(c, r, &err, 0);
        return;
    }
    fo_http_send_file(c, r, fd, "application/octet-stream", base ? base + 1 : rest);
}

/* GET notebook | record: the session's record (fo_session_export), read
   from its folder without waking it. */
static void send_export(struct MHD_Connection *c, req *r, const char *id, int what)
{
    fo_session_error err;
    char *text;
    size_t len;

    memset(&err, 0, sizeof err);
    if (fo_session_export(id, what, &text, &len, &err) < 0) {
        fo_http_session_refuse(c, r, &err);
        return;
    }
    fo_http_send_text(c, r, 200, what == FO_EXPORT_NOTEBOOK ? "application/x-ipynb+json"
                      : "application/jsonl", text, len);
    fo_free(text);
}

/* ------------------------------------------------------------- render */

typedef struct {
    char names[FO_SERVE_MAX_FORMATS][32];
    int fds[FO_SERVE_MAX_FORMATS];
    size_t n;
} rendered;

static int on_file(void *ud, const char *name, int fd)
{
    rendered *o = ud;

    if (o->n == FO_SERVE_MAX_FORMATS || strlen(name) >= sizeof o->names[0]) return -1;
    o->fds[o->n] = dup(fd);
    if (o->fds[o->n] < 0) return -1;
    snprintf(o->names[o->n++], sizeof o->names[0], "%s", name);
    return 0;
}

/* A render that made no file: its exit code and stderr as the error. */
static void render_failed(struct MHD_Connection *c, req *r, const char *result)
{
    json_t *j = json_loads(result ? result : "{}", 0, NULL);
    int code = (int)json_integer_value(json_object_get(j, "exit"));
    const char *why = json_string_value(json_object_get(j, "stderr"));
    fo_session_error e;

    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "%s", code == 3 ? "ceiling" : code == 2 ? "bad_request"
                                                                            : "internal");
    snprintf(e.message, sizeof e.message, "the render ended with exit %d: %s", code,
             why && *why ? why : "no message");
    snprintf(e.hint, sizeof e.hint, "%s", "check /out/result.json with folio validate in a cell");
    json_decref(j);
    if (code == 3) {
        fo_http_refuse(c, r, 413, "ceiling", e.hint, "%s", e.message);
        return;
    }
    fo_http_session_refuse(c, r, &e);
}

/* GET /v1/sessions/{id}/notebook */
void fo_http_session_notebook(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    (void)s;
    send_export(c, r, r->sid, FO_EXPORT_NOTEBOOK);
}

/* GET /v1/sessions/{id}/record */
void fo_http_session_record(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    (void)s;
    send_export(c, r, r->sid, FO_EXPORT_RECORD);
}

/* POST /v1/sessions/{id}/render */
void fo_http_session_render(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *id = r->sid;
    fo_serve_job job;
    fo_session_error err;
    rendered out = { .n = 0 };
    char formats[FO_SERVE_MAX_FORMATS * 8] = "", *result = NULL;
    size_t k, want;

    memset(&job, 0, sizeof job);
    memset(&err, 0, sizeof err);
    if (fo_http_read_formats(c, r, &job, "format") < 0) return;
    for (k = 0; k < job.n_formats; k++)
        snprintf(formats + strlen(formats), sizeof formats - strlen(formats), "%s%s",
                 k ? "," : "", job.formats[k]);
    if (!fo_http_slot_take(s)) {
        fo_http_refuse(c, r, 429, "busy", "retry after the number of seconds in Retry-After",
                       "all %u render workers are busy and the queue is full", s->cfg.workers);
        return;
    }
    if (fo_session_render(id, formats, on_file, &out, &result, &err) < 0) {
        fo_http_session_refuse(c, r, &err);
    } else if (out.n != job.n_formats) {
        render_failed(c, r, result);
    } else {
        /* the files come in the supervisor's (name) order: answer in the asked one */
        int fds[FO_SERVE_MAX_FORMATS];
        char names[FO_SERVE_MAX_FORMATS][32];
        for (k = 0; k < job.n_formats; k++) {
            snprintf(names[k], sizeof names[k], "result.%s", job.formats[k]);
            for (want = 0; want < out.n && strcmp(out.names[want], names[k]); want++)
                ;
            fds[k] = want < out.n ? out.fds[want] : -1;
            fo_serve_metrics_render(job.formats[k]);
        }
        if (job.n_formats == 1 && fds[0] >= 0) {
            fo_http_send_file(c, r, dup(fds[0]), fo_http_mime(job.formats[0]), names[0]);
        } else {
            int fd = fo_http_zip(r, names, fds, job.n_formats);
            if (fd < 0)
                fo_http_refuse(c, r, 500, NULL, NULL, "can't build the zip of the outputs");
            else fo_http_send_file(c, r, fd, "application/zip", "result.zip");
        }
    }
    fo_http_slot_give(s);
    for (k = 0; k < out.n; k++) close(out.fds[k]);
    fo_free(result);
}

/* ---------------------------------------------------------- interrupt */

/* The running cell gets KeyboardInterrupt; its exec (on another connection)
   answers "interrupted". Through the supervisor's control socket: never
   waits for the cell, takes no cell or render slot. */
void fo_http_session_interrupt(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_session_error err;
    const char *id = r->sid;
    int yes = 0;

    (void)s;
    memset(&err, 0, sizeof err);
    if (fo_session_interrupt(id, &yes, &err) < 0) {
        fo_http_session_refuse(c, r, &err);
        return;
    }
    fo_http_send_text(c, r, 200, "application/json", yes ? "{\"interrupted\": true}\n"
                      : "{\"interrupted\": false}\n", yes ? 22 : 23);
}

/* -------------------------------------------------------------- route */

/* True when p..p+n is "NAME-HEX" of another instance NAME whose session
   HEX is saved in the state folder (its instance died or left): this
   instance resumes it (docs/serve.md, "Several instances"). *hex: HEX. */
static int other_instance(const char *p, size_t n, const char **hex)
{
    char id[33];

    if (n <= 33 || n > 33 + 32 || p[n - 33] != '-' ||
        strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789") != n - 33)
        return 0;
    memcpy(id, p + n - 32, 32);
    id[32] = '\0';
    if (!fo_session_state_has(id)) return 0;
    *hex = p + n - 32;
    return 1;
}

int fo_http_session_id(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *p = r->arg[0], *hex;
    size_t il = strlen(s->cfg.instance), n = strlen(p);
    char *id = r->sid;

    hex = p + il + 1;
    if (!(n == il + 33 && !strncmp(p, s->cfg.instance, il) && p[il] == '-') &&
        !other_instance(p, n, &hex)) {
        fo_session_error e = { "session_not_found", "", "session ids are what POST /v1/sessions "
                               "answered, INSTANCE-HEX; this instance is the one X-Folio-Instance "
                               "names", 2 };
        snprintf(e.message, sizeof e.message, "no session \"%.80s\" on instance %s", p,
                 s->cfg.instance);
        fo_http_session_refuse(c, r, &e);
        return -1;
    }
    memcpy(id, hex, 32);
    id[32] = '\0';
    if (strspn(id, "0123456789abcdef") != 32 || !is_owner(s, r, id)) {
        /* another token's session is answered as no session: its existence
           is not told */
        fo_session_error e = { "session_not_found", "", "session ids are what POST /v1/sessions "
                               "answered to this token", 2 };
        snprintf(e.message, sizeof e.message, "no session %.80s", p);
        fo_http_session_refuse(c, r, &e);
        return -1;
    }
    return 0;
}

/* This instance's sessions as fo_session_list gives them (an array of
   {"id", "state", ...}; the caller decrefs), or NULL with err filled. */
static json_t *all_sessions(fo_session_error *err)
{
    char *list = NULL;
    json_t *all;

    memset(err, 0, sizeof *err);
    if (fo_session_list(&list, err) < 0) {
        fo_free(list);
        return NULL;
    }
    all = json_loads(list, 0, NULL);
    fo_free(list);
    return all;
}

/* GET /v1/sessions: the caller's sessions on this instance, live and
   hibernated (an expired one, whose supervisor was killed, is not listed). */
void fo_http_session_list(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_session_error err;
    char *text;
    json_t *all = all_sessions(&err), *mine, *e;
    size_t k;

    if (!all) {
        fo_http_session_refuse(c, r, &err);
        return;
    }
    mine = json_array();
    json_array_foreach(all, k, e) {
        const char *id = json_string_value(json_object_get(e, "id"));
        const char *state = json_string_value(json_object_get(e, "state"));
        char wire[80];

        if (!id || !state || !strcmp(state, "expired") || !is_owner(s, r, id)) continue;
        snprintf(wire, sizeof wire, "%s-%s", s->cfg.instance, id);
        json_object_set_new(e, "id", json_string(wire));
        json_array_append(mine, e);
    }
    json_decref(all);
    all = json_pack("{s:o}", "sessions", mine);          /* takes mine */
    text = all ? json_dumps(all, JSON_COMPACT) : NULL;
    json_decref(all);
    if (!text) {
        fo_http_refuse(c, r, 500, NULL, NULL, "out of memory");
        return;
    }
    fo_http_send_text(c, r, 200, "application/json", text, strlen(text));
    free(text);                                   /* json_dumps'd: plain free */
}

unsigned fo_serve_sessions_sweep(fo_serve_state *s)
{
    fo_session_error err;
    json_t *all = all_sessions(&err), *e;
    size_t k;
    unsigned n = 0;

    json_array_foreach(all, k, e) {
        const char *id = json_string_value(json_object_get(e, "id"));
        json_t *age = json_object_get(e, "hibernated_s");

        if (id && json_is_integer(age) && json_integer_value(age) > (json_int_t)s->cfg.retain &&
            fo_session_close(id, &err) == 0)
            n++;
    }
    json_decref(all);
    return n;
}

/* DELETE /v1/sessions/{id} */
void fo_http_session_delete(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    fo_session_error err;

    (void)s;
    memset(&err, 0, sizeof err);
    if (fo_session_close(r->sid, &err) < 0)
        fo_http_session_refuse(c, r, &err);
    else fo_http_send_text(c, r, 204, "application/json", "", 0);
}

/* Calls fn on the id of every live session of this instance; how many
   calls returned 1, or -1 when the sessions cannot be listed. */
static long each_live(int (*fn)(const char *id))
{
    fo_session_error err;
    json_t *j = all_sessions(&err), *e;
    size_t k;
    long n = 0;

    if (!j) return -1;
    json_array_foreach(j, k, e) {
        const char *id = json_string_value(json_object_get(e, "id"));
        const char *state = json_string_value(json_object_get(e, "state"));
        if (id && state && !strcmp(state, "live")) n += fn(id) == 1;
    }
    json_decref(j);
    return n;
}

static int hibernate_one(const char *id)
{
    fo_session_error err;

    memset(&err, 0, sizeof err);
    return fo_session_hibernate(id, &err) == 0;
}

static int count_one(const char *id)
{
    (void)id;
    return 1;
}

static int interrupt_one(const char *id)
{
    fo_session_error err;
    int yes = 0;

    memset(&err, 0, sizeof err);
    return fo_session_interrupt(id, &yes, &err) == 0 && yes;
}

/* SIGTERM, past --drain-timeout: the running cells are interrupted (their
   execs answer "interrupted"); how many were running. */
unsigned fo_serve_sessions_interrupt(void)
{
    long n = each_live(interrupt_one);

    return n > 0 ? (unsigned)n : 0;
}

/* SIGTERM: every live session of this instance saved (hibernated); the
   next exec on its id resumes it, on this instance once it is back. Spares
   end: there is nothing in them to save. */
unsigned fo_serve_sessions_hibernate(void)
{
    long n;

    (void)fo_session_drop_spares();
    n = each_live(hibernate_one);
    return n > 0 ? (unsigned)n : 0;
}

/* Sessions in this instance's folder that are live now. */
long fo_serve_sessions_live(void)
{
    return each_live(count_one);
}
