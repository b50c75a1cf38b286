/* runs.c — POST /v1/run and GET /v1/runs/{id}/files/{path} (PRODUCT.md §7).
 *
 * A run is `folio run` itself: the static folio binary started with the
 * uploaded files as --in and a fresh folder of this instance as --out, so
 * the jail, limits, egress policy, render and manifest are exactly the
 * command line's. The answer is the manifest with a download URL for each
 * collected file; the folder is kept --run-ttl seconds, then removed (by the
 * next request, download or the server's periodic sweep). A run holds a
 * render worker slot while it lasts. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "serve/http.h"
#include "folio.h"
#include "base/buf.h"
#include "sandbox/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIELD_MAX     65536          /* bytes of cmd, render, timeout or net */
#define MAX_ARGS      256            /* words of cmd */
#define MANIFEST_MAX  (16u << 20)    /* bytes of the manifest folio run prints */

int fo_serve_name_ok(const char *name);   /* zygote.c */

static int is_field(const char *name)
{
    return !strcmp(name, "cmd") || !strcmp(name, "render") || !strcmp(name, "timeout") ||
           !strcmp(name, "net");
}

/* A field's text (malloc'd, NUL-terminated), NULL when absent or too long. */
static char *field(req *r, const char *name, int *too_long)
{
    for (size_t k = 0; k < r->n_files; k++) {
        char *t;
        if (strcmp(r->files[k].name, name)) continue;
        if (r->files[k].bytes > FIELD_MAX) {
            *too_long = 1;
            return NULL;
        }
        t = fo_calloc(1, r->files[k].bytes + 1);
        if (t && pread(r->files[k].fd, t, r->files[k].bytes, 0) != (ssize_t)r->files[k].bytes) {
            fo_free(t);
            return NULL;
        }
        return t;
    }
    return NULL;
}

/* ------------------------------------------------------------- folders */

static int mkdirs_for(int dir, const char *name)
{
    char part[FO_SERVE_MAX_NAME + 1];
    const char *slash = name;

    while ((slash = strchr(slash, '/'))) {
        snprintf(part, sizeof part, "%.*s", (int)(slash - name), name);
        if (mkdirat(dir, part, 0700) < 0 && errno != EEXIST) return -1;
        slash++;
    }
    return 0;
}

/* The uploaded files moved to DIR/in/NAME; argv gets one --in per top-level
   entry. 0, or -1 (errno). */
static int lay_out_inputs(req *r, const char **argv, int *argc, char (*paths)[1100], size_t *n_paths)
{
    char in[600], from[600];
    int dir;
    size_t k, j;

    snprintf(in, sizeof in, "%s/in", r->dir);
    if (mkdir(in, 0700) < 0 || (dir = open(in, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
    for (k = 0; k < r->n_files; k++) {
        const char *name = r->files[k].name, *slash = strchr(name, '/');
        size_t top = slash ? (size_t)(slash - name) : strlen(name);
        if (is_field(name)) continue;
        snprintf(from, sizeof from, "%s/f%zu", r->dir, k);
        if (mkdirs_for(dir, name) < 0 || renameat(AT_FDCWD, from, dir, name) < 0) {
            close(dir);
            return -1;
        }
        for (j = 0; j < *n_paths; j++)
            if (!strncmp(paths[j] + strlen(in) + 1, name, top) && paths[j][strlen(in) + 1 + top] == 0) break;
        if (j < *n_paths) continue;
        snprintf(paths[*n_paths], sizeof paths[0], "%s/%.*s", in, (int)top, name);
        argv[(*argc)++] = "--in";
        argv[(*argc)++] = paths[(*n_paths)++];
    }
    close(dir);
    return 0;
}

/* Removes the runs whose folder is older than the time to live. */
void fo_serve_runs_sweep(fo_serve_state *s)
{
    DIR *d = opendir(s->runs_dir);
    struct dirent *e;
    struct stat st;
    char path[sizeof s->runs_dir + 256];
    time_t now = time(NULL);

    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", s->runs_dir, e->d_name);
        if (lstat(path, &st) == 0 && now - st.st_mtime > (time_t)s->cfg.run_ttl) fo_serve_rmtree(path);
    }
    if (d) closedir(d);
}

/* ---------------------------------------------------------------- run */

/* What fd gives until its end (fo_fd_read): NULL when it cannot be read or
   is over max bytes; the rest is then drained, so the writer can exit. */
static char *slurp(int fd, size_t max)
{
    size_t len;
    char *text = fo_fd_read(fd, max, &len), sink[4096];
    ssize_t n;

    if (!text && errno == EFBIG)
        while ((n = read(fd, sink, sizeof sink)) > 0 || (n < 0 && errno == EINTR))
            ;
    return text;
}

/* Starts argv with stdout to a pipe; its output (at most MANIFEST_MAX bytes)
   and exit code. Also GET /v1/environment's `folio env --json`. */
char *fo_serve_run_folio(const char *const *argv, int *code)
{
    int out[2], st = 0, nul;
    pid_t pid;
    char *text;

    if (pipe2(out, O_CLOEXEC) < 0) return NULL;
    pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        nul = open("/dev/null", O_RDWR);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(out[1], 1) < 0 || dup2(nul, 2) < 0) _exit(5);
        execv(argv[0], (char *const *)argv);   /* execv only reads the strings */
        _exit(5);
    }
    close(out[1]);
    if (pid < 0) {
        close(out[0]);
        return NULL;
    }
    text = slurp(out[0], MANIFEST_MAX);
    close(out[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : 5;
    return text;
}

/* A "url" on each file of a manifest's list (the program's, the render's):
   the name percent-encoded but for unreserved characters and '/', so that
   the url can be requested as it is whatever the name holds. */
static void add_urls(fo_serve_state *s, const char *id, json_t *files)
{
    static const char hex[] = "0123456789ABCDEF";
    char url[FO_SERVE_MAX_NAME * 3 + 128];
    json_t *f;
    size_t k, n;

    json_array_foreach(files, k, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        if (!name || strlen(name) > FO_SERVE_MAX_NAME) continue;
        n = (size_t)snprintf(url, sizeof url, "/v1/runs/%s-%s/files/", s->cfg.instance, id);
        for (; *name && n + 4 < sizeof url; name++) {
            unsigned char ch = (unsigned char)*name;
            if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                strchr("-._~/", ch)) {
                url[n++] = (char)ch;
            } else {
                url[n++] = '%';
                url[n++] = hex[ch >> 4];
                url[n++] = hex[ch & 15];
            }
        }
        url[n] = '\0';
        json_object_set_new(f, "url", json_string(url));
    }
}

/* The manifest with "run", "expires_in" and a "url" on each collected file. */
static char *answer_json(fo_serve_state *s, const char *id, const char *manifest)
{
    json_t *m = json_loads(manifest, 0, NULL);
    char url[128], *text;

    if (!json_is_object(m)) {
        json_decref(m);
        return NULL;
    }
    add_urls(s, id, json_object_get(m, "files"));
    add_urls(s, id, json_object_get(json_object_get(m, "render"), "files"));
    snprintf(url, sizeof url, "%s-%s", s->cfg.instance, id);
    json_object_set_new(m, "run", json_string(url));
    json_object_set_new(m, "expires_in", json_integer((json_int_t)s->cfg.run_ttl));
    text = json_dumps(m, JSON_INDENT(2));
    json_decref(m);
    return text;
}

/* cmd's JSON array into argv; 0 or -1 after answering. */
static int cmd_words(struct MHD_Connection *c, req *r, json_t *cmd, const char **argv, int *argc)
{
    size_t k;
    json_t *w;

    if (!json_is_array(cmd) || !json_array_size(cmd) || json_array_size(cmd) > MAX_ARGS) {
        fo_http_refuse(c, r, 400, "bad_request", "e.g. cmd = [\"python3\", \"analysis.py\"]",
                       "\"cmd\" must be a JSON array of 1 to %d strings", MAX_ARGS);
        return -1;
    }
    json_array_foreach(cmd, k, w) {
        if (!json_is_string(w) || strlen(json_string_value(w)) != json_string_length(w)) {
            fo_http_refuse(c, r, 400, "bad_request", NULL, "\"cmd\" word %zu is not a string "
                           "without NUL", k);
            return -1;
        }
        argv[(*argc)++] = json_string_value(w);
    }
    return 0;
}

/* The optional fields as folio run options, the timeout under the
   operator's ceiling (which is given when folio run's default is over it);
   0 or -1 after answering. */
static int run_options(fo_serve_state *s, struct MHD_Connection *c, req *r, const char **argv, int *argc,
                       char *vals[3], char ceiling[32])
{
    static const char *const names[] = { "render", "timeout", "net" };
    double max = s->cfg.run_max[FO_LIMIT_TIMEOUT], v;
    int too_long = 0;

    for (int k = 0; k < 3; k++) {
        vals[k] = field(r, names[k], &too_long);
        if (too_long) {
            fo_http_refuse(c, r, 400, "bad_request", NULL, "field \"%s\" is too long", names[k]);
            return -1;
        }
        if (!vals[k]) continue;
        if (k == 2 && !strcmp(vals[k], "all")) {   /* allow=LIST is the checked proxy */
            fo_http_refuse(c, r, 403, "net_refused", "use \"packages\" or \"allow=HOST,...\": "
                           "egress through folio's checked proxy", "net \"all\" (the host's "
                           "network) is not offered over HTTP");
            return -1;
        }
        if (k == 1 && !fo_http_limit_text(c, r, "timeout", vals[k], max, "s", &v)) return -1;
        argv[(*argc)++] = k == 0 ? "--render" : k == 1 ? "--timeout" : "--net";
        argv[(*argc)++] = vals[k];
    }
    if (!vals[1] && fo_serve_limit_default(FO_LIMIT_TIMEOUT, 0) > max) {
        snprintf(ceiling, 32, "%.17g", max);
        argv[(*argc)++] = "--timeout";
        argv[(*argc)++] = ceiling;
    }
    return 0;
}

/* After folio run: the answer for its exit code. */
static void answer_run(fo_serve_state *s, struct MHD_Connection *c, req *r, const char *id,
                       const char *out_dir, char *manifest, int code)
{
    char *text = manifest && *manifest ? answer_json(s, id, manifest) : NULL;

    if (!text) {
        fo_serve_rmtree(out_dir);
        if (code == 1 || code == 2)
            fo_http_refuse(c, r, 400, "bad_request", "see folio run --help for what the "
                           "fields mean", "folio run refused the request (exit %d)", code);
        else fo_http_refuse(c, r, 500, NULL, NULL, "folio run gave no manifest (exit %d)", code);
        return;
    }
    fo_serve_metrics_run();
    fo_http_send_text(c, r, 200, "application/json", text, strlen(text));
    free(text);                                   /* json_dumps'd (answer_json): plain free */
}

void fo_http_run(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *argv[MAX_ARGS + 2 * 64 + 32];
    char *vals[3] = { NULL, NULL, NULL }, *cmd_text, *manifest;
    char maxb[32], tmax[32], out_dir[sizeof s->runs_dir + 40], id[33];
    json_t *cmd = NULL;
    int argc = 0, too_long = 0, code = 5;
    size_t n_paths = 0;

    fo_serve_runs_sweep(s);
    if (!s->cfg.folio) {
        fo_http_refuse(c, r, 503, NULL, "install the folio command beside folio-engine",
                       "folio run is not installed beside this server");
        return;
    }
    cmd_text = field(r, "cmd", &too_long);
    cmd = cmd_text ? json_loads(cmd_text, JSON_REJECT_DUPLICATES, NULL) : NULL;
    fo_free(cmd_text);
    argv[argc++] = s->cfg.folio;
    argv[argc++] = "run";
    argv[argc++] = "--json";
    argv[argc++] = "--quiet";
    snprintf(maxb, sizeof maxb, "%llu", (unsigned long long)s->cfg.max_bytes);
    argv[argc++] = "--max-bytes";
    argv[argc++] = maxb;
    if (!cmd) {
        fo_http_refuse(c, r, 400, "bad_request", "e.g. cmd = [\"python3\", \"analysis.py\"]",
                       "a part \"cmd\" with a JSON array of words is required");
        return;
    }
    fo_session_new_id(id);
    snprintf(out_dir, sizeof out_dir, "%s/%s", s->runs_dir, id);
    {
        char (*inpaths)[1100] = fo_calloc(r->n_files + 1, sizeof *inpaths);
        if (!inpaths || run_options(s, c, r, argv, &argc, vals, tmax) < 0 ||
            lay_out_inputs(r, argv, &argc, inpaths, &n_paths) < 0 || mkdir(out_dir, 0700) < 0) {
            if (!r->answered)
                fo_http_refuse(c, r, 500, NULL, NULL, "can't lay out the run: %s", strerror(errno));
            goto done_paths;
        }
        argv[argc++] = "--out";
        argv[argc++] = out_dir;
        argv[argc++] = "--";
        if (cmd_words(c, r, cmd, argv, &argc) < 0) {
            rmdir(out_dir);
            goto done_paths;
        }
        argv[argc] = NULL;
        if (!fo_http_slot_take(s)) {
            rmdir(out_dir);
            fo_http_refuse(c, r, 429, "busy", "retry after the number of seconds in Retry-After",
                           "all %u workers are busy and the queue is full", s->cfg.workers);
            goto done_paths;
        }
        manifest = fo_serve_run_folio(argv, &code);
        fo_http_slot_give(s);
        answer_run(s, c, r, id, out_dir, manifest, code);
        fo_free(manifest);
done_paths:
        fo_free(inpaths);
    }
    for (int k = 0; k < 3; k++) fo_free(vals[k]);
    json_decref(cmd);
}

/* ---------------------------------------------------------- downloads */

void fo_http_run_files(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *p = r->path + strlen("/v1/runs/"), *slash = strchr(p, '/');
    size_t il = strlen(s->cfg.instance);
    struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
    char dir[sizeof s->runs_dir + 40], id[33];
    struct stat st;
    int dfd, fd;

    fo_serve_runs_sweep(s);
    if (!slash || (size_t)(slash - p) != il + 33 || strncmp(p, s->cfg.instance, il) ||
        p[il] != '-' || strncmp(slash, "/files/", 7) || !fo_serve_name_ok(slash + 7)) {
        fo_http_refuse(c, r, 404, "not_found", "use the url the run's answer gave",
                       "no such run file on instance %s", s->cfg.instance);
        return;
    }
    memcpy(id, p + il + 1, 32);
    id[32] = '\0';
    for (int k = 0; k < 32; k++)
        if (!strchr("0123456789abcdef", id[k]) || !id[k]) {
            fo_http_refuse(c, r, 404, "not_found", NULL, "no such run");
            return;
        }
    snprintf(dir, sizeof dir, "%s/%s", s->runs_dir, id);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        fo_http_refuse(c, r, 404, "gone", "run it again: files are kept for --run-ttl seconds",
                       "run %.80s has expired or never was", p);
        return;
    }
    fd = (int)syscall(SYS_openat2, dfd, slash + 7, &how, sizeof how);
    close(dfd);
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        !strcmp(slash + 7, "manifest.json")) {
        if (fd >= 0) close(fd);
        fo_http_refuse(c, r, 404, "not_found", "the run's answer lists its files",
                       "run %.40s has no file \"%.200s\"", id, slash + 7);
        return;
    }
    fo_http_send_file(c, r, fd, "application/octet-stream",
                      strrchr(slash + 7, '/') ? strrchr(slash + 7, '/') + 1 : slash + 7);
}
