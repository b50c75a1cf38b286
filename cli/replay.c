/* replay.c — `folio replay DIR|MANIFEST|RECORD [--in DIR] [--json]`
 * (PRODUCT.md §9, docs/provenance.md "Replay").
 *
 * Re-runs what a record says was run, and says for each output whether it
 * came out the same:
 *   a run     DIR/manifest.json (or the manifest itself), as `folio run`
 *             wrote it: the command again, through `folio run`, with the
 *             recorded limits and net, on the recorded inputs;
 *   a session a record exported by `folio session export ID --record FILE`:
 *             a new session with the recorded limits and inputs, the puts
 *             and cells in their recorded order, then closed.
 * Inputs are looked up by name in --in DIR (default: the current folder)
 * and must have the recorded SHA-256: any that is missing or differs is
 * named and nothing runs (exit 2). Outputs: a run's files (by name), a
 * session's files per cell and each cell's stdout. A differing JSON file
 * beside the manifest (a result spec) is compared value by value (JSON
 * Pointers). When something differs, the code is searched for the usual
 * causes (unseeded randomness, the wall clock). Exit 0 when everything is
 * identical, 4 when something differs or failed, 2 bad input, 5 internal.
 * The jails pin PYTHONHASHSEED=0 (sandbox/jail.c). */
#define FO_SANDBOX_PRIVATE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "base/buf.h"
#include "base/sha256.h"
#include "sandbox/session.h"

#define MAX_RECORD (256u << 20)

typedef struct {
    int json;
    const char *in_dir;
    json_t *report;           /* {"kind", "outputs": [...], "refused": [...]} */
    json_t *outputs;
    int differs;
} replay;

/* "folio: replay: MESSAGE" and the hint on stderr; returns code. */
__attribute__((format(printf, 3, 4)))
static int fail(int code, const char *hint, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "folio: replay: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  hint: %s\n", hint);
    return code;
}

/* The whole file, within MAX_RECORD. malloc'd, or NULL (errno). */
static char *slurp(const char *path, size_t *len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;
    size_t got = 0;

    if (fd < 0) return NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_RECORD) {
        errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
        close(fd);
        return NULL;
    }
    buf = fo_malloc((size_t)st.st_size + 1);
    if (buf) got = fo_read_upto(fd, buf, (size_t)st.st_size, -1);
    close(fd);
    if (buf) buf[got] = 0;
    *len = got;
    return buf;
}

/* ------------------------------------------------------------- causes */

/* What in the code commonly makes outputs differ, as a JSON array. */
static json_t *causes(const char *code)
{
    json_t *a = json_array();
    int seeded = strstr(code, ".seed(") || strstr(code, "default_rng(") ||
                 strstr(code, "random_state=");

    if (!seeded && (strstr(code, "random") || strstr(code, "uuid") || strstr(code, "secrets.")))
        json_array_append_new(a, json_string("unseeded randomness (random, numpy.random, uuid): "
                                             "seed it, e.g. random.seed(0)"));
    if (strstr(code, "datetime.now") || strstr(code, "time.time") || strstr(code, "date.today") ||
        strstr(code, "utcnow") || strstr(code, "perf_counter") || strstr(code, "time.ctime"))
        json_array_append_new(a, json_string("the wall clock (datetime.now, time.time): pass the "
                                             "date in, or use SOURCE_DATE_EPOCH"));
    if (!json_array_size(a))
        json_array_append_new(a, json_string("unknown: the environment, a package version, or "
                                             "the network"));
    return a;
}

static void output(replay *r, const char *name, const char *was, const char *now,
                   const char *code, json_t *values)
{
    const char *result = !now ? "missing" : !was ? "new" : strcmp(was, now) ? "differs"
                                                                              : "identical";
    json_t *o = json_pack("{s:s, s:s}", "output", name, "result", result);

    if (was) json_object_set_new(o, "recorded_sha256", json_string(was));
    if (now) json_object_set_new(o, "sha256", json_string(now));
    if (!was || !now || strcmp(was, now)) {
        r->differs = 1;
        json_object_set_new(o, "likely_cause", causes(code));
        if (values) json_object_set(o, "values", values);
    }
    json_array_append_new(r->outputs, o);
}

/* JSON Pointers of the values that differ between a and b (at most 50). */
static void json_diff(json_t *a, json_t *b, char *ptr, size_t cap, json_t *out)
{
    size_t len = strlen(ptr);

    if (json_array_size(out) >= 50) return;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v) {
            fo_json_ptr_push(ptr, cap, k);
            json_diff(v, json_object_get(b, k), ptr, cap, out);
            ptr[len] = 0;
        }
        json_object_foreach(b, k, v)
            if (!json_object_get(a, k)) {
                fo_json_ptr_push(ptr, cap, k);
                json_diff(NULL, v, ptr, cap, out);
                ptr[len] = 0;
            }
    } else if (json_is_array(a) && json_is_array(b)) {
        size_t n = json_array_size(a) > json_array_size(b) ? json_array_size(a)
                                                           : json_array_size(b);
        for (size_t k = 0; k < n; k++) {
            fo_json_ptr_push_index(ptr, cap, k);
            json_diff(json_array_get(a, k), json_array_get(b, k), ptr, cap, out);
            ptr[len] = 0;
        }
    } else if (!a || !b || !json_equal(a, b)) {
        json_array_append_new(out, json_pack("{s:s, s:O?, s:O?}", "pointer", ptr, "recorded", a,
                                             "now", b));
    }
}

static json_t *diff_files(const char *was, const char *now)
{
    json_t *a = json_load_file(was, 0, NULL), *b = a ? json_load_file(now, 0, NULL) : NULL, *out;
    char ptr[1024] = "";

    if (!a || !b) {
        json_decref(a);
        return NULL;
    }
    out = json_array();
    json_diff(a, b, ptr, sizeof ptr, out);
    json_decref(a);
    json_decref(b);
    return out;
}

/* ------------------------------------------------------------- inputs */

/* Checks the recorded inputs ([{"path", "sha256"}]) in --in: every one
   missing or differing is named in refused. Fills paths (host paths). */
static void check_inputs(replay *r, json_t *inputs, json_t *refused, json_t *paths)
{
    size_t k;
    json_t *in;

    json_array_foreach(inputs, k, in) {
        const char *p = json_string_value(json_object_get(in, "path"));
        const char *want = json_string_value(json_object_get(in, "sha256"));
        const char *base = p ? strrchr(p, '/') : NULL;
        char host[4096], got[65];

        base = base ? base + 1 : p;
        if (!base || !want || !*base || !strcmp(base, "..")) {
            json_array_append_new(refused, json_pack("{s:s, s:s}", "input", p ? p : "?",
                                                     "reason", "the record names no file"));
            continue;
        }
        snprintf(host, sizeof host, "%s/%s", r->in_dir, base);
        if (!fo_sha256_file_hex(host, got))
            json_array_append_new(refused, json_pack("{s:s, s:s}", "input", host, "reason",
                                                     "missing or unreadable"));
        else if (strcmp(got, want))
            json_array_append_new(refused, json_pack("{s:s, s:s, s:s, s:s}", "input", host,
                                                     "reason", "its SHA-256 differs from the "
                                                     "record's", "recorded", want, "now", got));
        else json_array_append_new(paths, json_string(host));
    }
}

/* ------------------------------------------------------------- a run */

static void folio_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    char *slash;

    out[n > 0 ? n : 0] = 0;
    slash = strrchr(out, '/');
    if (slash && (size_t)(slash - out) + 7 < len)
        strcpy(slash + 1, "folio");
    else snprintf(out, len, "folio");
}

/* "allow=HOST,..." from a manifest's egress log: the hosts its run was
   allowed to reach (the allow list itself is not in the manifest). How many. */
static int allow_list(json_t *egress, fo_buf *b)
{
    json_t *e;
    size_t k;
    int n = 0;

    fo_buf_puts(b, "allow=");
    json_array_foreach(egress, k, e) {
        const char *host = json_string_value(json_object_get(e, "host"));
        const char *d = json_string_value(json_object_get(e, "decision"));
        if (!host || !d || strcmp(d, "allowed") || strchr(host, ',') || n >= 64) continue;
        fo_buf_printf(b, "%s%s", n++ ? "," : "", host);
    }
    return b->failed ? 0 : n;
}

static int run_replay(replay *r, json_t *m, const char *dir)
{
    json_t *cmd = json_object_get(m, "command"), *lim = json_object_get(m, "limits");
    json_t *prov = json_object_get(m, "provenance"), *files = json_object_get(m, "files");
    json_t *refused, *paths, *v, *now = NULL;
    char folio[4096], out[4096], opt[8][32];
    const char **argv;
    const char *net = json_string_value(json_object_get(lim, "net"));
    size_t n = 0, k;
    int status, rc = 0;
    pid_t pid;
    fo_buf code = { 0 }, allow = { 0 };

    if (!json_is_array(cmd) || !json_array_size(cmd) || !json_is_object(lim))
        return fail(2, "name the --out folder of a folio run, or its manifest.json",
                    "%s: not a folio run manifest (no command or limits)", dir);
    refused = json_array();
    paths = json_array();
    check_inputs(r, json_object_get(prov, "inputs"), refused, paths);
    json_object_set_new(r->report, "refused", refused);
    if (json_array_size(refused)) {
        json_decref(paths);
        return 2;
    }
    snprintf(out, sizeof out, "/tmp/folio-replay-XXXXXX");
    if (!mkdtemp(out)) {
        json_decref(paths);
        return fail(5, "check /tmp", "can't make a temporary folder: %s", strerror(errno));
    }
    folio_path(folio, sizeof folio);
    argv = fo_calloc(json_array_size(cmd) + 2 * json_array_size(paths) + 24, sizeof *argv);
    if (!argv) {
        json_decref(paths);
        rmdir(out);
        return fail(5, "free some memory and try again", "out of memory");
    }
    argv[n++] = folio;
    argv[n++] = "run";
    argv[n++] = "--quiet";
    json_array_foreach(paths, k, v) {
        argv[n++] = "--in";
        argv[n++] = json_string_value(v);
    }
    snprintf(opt[0], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "memory_mb")));
    snprintf(opt[1], 32, "%g", json_number_value(json_object_get(lim, "timeout_s")));
    snprintf(opt[2], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "pids")));
    snprintf(opt[3], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "max_bytes")));
    argv[n++] = "--memory", argv[n++] = opt[0];
    argv[n++] = "--timeout", argv[n++] = opt[1];
    argv[n++] = "--pids", argv[n++] = opt[2];
    argv[n++] = "--max-bytes", argv[n++] = opt[3];
    if (net && (!strcmp(net, "all") || !strcmp(net, "packages"))) argv[n++] = "--net", argv[n++] = net;
    if (net && !strcmp(net, "allow") && allow_list(json_object_get(m, "egress"), &allow) > 0)
        argv[n++] = "--net", argv[n++] = allow.data;    /* the hosts the run was let reach */
    argv[n++] = "--out";
    argv[n++] = out;
    argv[n++] = "--";
    json_array_foreach(cmd, k, v) {
        argv[n++] = json_string_value(v);
        fo_buf_puts(&code, json_string_value(v));
        fo_buf_puts(&code, " ");
    }
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(folio, (char *const *)argv);   /* execv only reads the strings */
        _exit(127);
    }
    fo_free(argv);
    fo_buf_free(&allow);
    json_decref(paths);
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 4) {
        fo_buf_free(&code);
        return fail(5, "run it with folio run to see why", "the run did not complete (%s)", folio);
    }
    {
        char path[4200];
        snprintf(path, sizeof path, "%s/manifest.json", out);
        now = json_load_file(path, 0, NULL);
    }
    json_object_set_new(r->report, "exit_code", json_copy(json_object_get(now, "exit_code")));
    json_array_foreach(files, k, v) {         /* recorded outputs, by name */
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *was = json_string_value(json_object_get(v, "sha256")), *got = NULL;
        json_t *w, *values = NULL;
        size_t i;
        if (!name || strchr(name, '/') == name) continue;
        json_array_foreach(json_object_get(now, "files"), i, w)
            if (!strcmp(json_string_value(json_object_get(w, "name")) ?: "", name))
                got = json_string_value(json_object_get(w, "sha256"));
        if (got && was && strcmp(was, got) && strlen(name) > 5 &&
            !strcmp(name + strlen(name) - 5, ".json") && dir) {
            char a[4200], b[4200], h[65];
            snprintf(a, sizeof a, "%s/%s", dir, name);
            snprintf(b, sizeof b, "%s/%s", out, name);
            if (fo_sha256_file_hex(a, h) && !strcmp(h, was)) values = diff_files(a, b);
        }
        output(r, name, was, got, code.data ? code.data : "", values);
        json_decref(values);
    }
    json_decref(now);
    fo_buf_free(&code);
    {
        char rm[4200];
        snprintf(rm, sizeof rm, "%s", out);
        pid = fork();
        if (pid == 0) {
            execl("/bin/rm", "rm", "-rf", "--", rm, (char *)NULL);
            _exit(127);
        }
        if (pid > 0) waitpid(pid, &status, 0);
    }
    return rc;
}

/* ------------------------------------------------------------- a session */

static int put_file(const char *id, const char *host, const char *dest, fo_session_error *err)
{
    int fd = open(host, O_RDONLY | O_CLOEXEC), rc;

    if (fd < 0) {
        snprintf(err->message, sizeof err->message, "can't open %s", host);
        return -1;
    }
    rc = fo_session_put(id, fd, dest, err);
    close(fd);
    return rc;
}

static int session_replay(replay *r, json_t *head, json_t *puts, json_t *cells)
{
    json_t *lim = json_object_get(json_object_get(head, "info"), "limits");
    json_t *refused = json_array(), *paths = json_array(), *put_paths = json_array(), *v;
    char opt[6][32], id[33], *info = NULL;
    const char *net = json_string_value(json_object_get(lim, "net"));
    const char *argv[24];
    int argc = 0, rc = 0;
    size_t k, p = 0;
    fo_session_new o = { 0 };
    fo_session_error err = { 0 };

    check_inputs(r, json_object_get(head, "inputs"), refused, paths);
    check_inputs(r, puts, refused, put_paths);
    json_object_set_new(r->report, "refused", refused);
    if (json_array_size(refused)) {
        json_decref(paths);
        json_decref(put_paths);
        return 2;
    }
    json_array_foreach(paths, k, v)
        if (argc < 8)
            argv[argc++] = "--in", argv[argc++] = json_string_value(v);
    snprintf(opt[0], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "memory_mb")));
    snprintf(opt[1], 32, "%g", json_number_value(json_object_get(lim, "timeout_s")));
    snprintf(opt[2], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "pids")));
    snprintf(opt[3], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "max_bytes")));
    snprintf(opt[4], 32, "%lld", (long long)json_integer_value(json_object_get(lim, "disk_mb")));
    argv[argc++] = "--memory", argv[argc++] = opt[0];
    argv[argc++] = "--timeout", argv[argc++] = opt[1];
    argv[argc++] = "--pids", argv[argc++] = opt[2];
    argv[argc++] = "--max-bytes", argv[argc++] = opt[3];
    argv[argc++] = "--disk", argv[argc++] = opt[4];
    if (net && (!strcmp(net, "all") || !strcmp(net, "packages"))) argv[argc++] = "--net", argv[argc++] = net;
    o.folio = NULL;
    {
        static char folio[4096];
        folio_path(folio, sizeof folio);
        fo_session_use_folio(folio);
    }
    o.argv = (char *const *)argv;   /* only read, and passed on to execv */
    o.argc = argc;
    o.cold = 1;
    if (fo_session_create(&o, id, &info, &err) < 0) {
        json_decref(paths);
        json_decref(put_paths);
        return fail(5, err.hint, "can't start a session: %s", err.message);
    }
    fo_free(info);
    json_array_foreach(cells, k, v) {
        const char *code = json_string_value(json_object_get(v, "code"));
        const char *when = json_string_value(json_object_get(v, "started")) ?: "";
        json_t *res, *f;
        char *result = NULL, name[64];
        size_t i;
        /* the puts made before this cell */
        while (p < json_array_size(puts) &&
               strcmp(json_string_value(json_object_get(json_array_get(puts, p), "at")) ?: "",
                      when) <= 0) {
            const char *dest = json_string_value(json_object_get(json_array_get(puts, p), "path"));
            if (dest && !strncmp(dest, "/work/", 6) &&
                put_file(id, json_string_value(json_array_get(put_paths, p)), dest + 6, &err) < 0)
                break;
            p++;
        }
        if (!code || fo_session_exec(id, code, strlen(code), 0, NULL, NULL, &result, &err) < 0) {
            rc = fail(5, "see folio session --help",
                      "a cell could not run: %s", code ? err.message : "no code recorded");
            break;
        }
        res = json_loads(result, 0, NULL);
        fo_free(result);
        snprintf(name, sizeof name, "cell %lld stdout",
                 (long long)json_integer_value(json_object_get(v, "cell")));
        {
            char was[65], now[65];                 /* the record keeps 64 KiB of stdout */
            const char *a = json_string_value(json_object_get(v, "stdout")) ?: "";
            const char *b = json_string_value(json_object_get(res, "stdout")) ?: "";
            size_t bn = strlen(b);
            if (json_integer_value(json_object_get(v, "stdout_bytes")) > 65536 && bn > strlen(a))
                bn = strlen(a);
            fo_sha256_hex(a, strlen(a), was);
            fo_sha256_hex(b, bn, now);
            output(r, name, was, now, code, NULL);
        }
        json_array_foreach(json_object_get(v, "files"), i, f) {
            const char *path = json_string_value(json_object_get(f, "path")) ?: "?";
            const char *got = NULL;
            json_t *w;
            size_t j;
            char label[512];
            json_array_foreach(json_object_get(res, "files"), j, w)
                if (!strcmp(json_string_value(json_object_get(w, "path")) ?: "", path))
                    got = json_string_value(json_object_get(w, "sha256"));
            snprintf(label, sizeof label, "cell %lld %s",
                     (long long)json_integer_value(json_object_get(v, "cell")), path);
            output(r, label, json_string_value(json_object_get(f, "sha256")), got, code, NULL);
        }
        json_decref(res);
    }
    (void)fo_session_close(id, &err);
    json_decref(paths);
    json_decref(put_paths);
    return rc;
}

/* ------------------------------------------------------------- main */

static int load_session(replay *r, char *text, size_t len)
{
    json_t *first = NULL, *cells = json_array(), *puts, *empty;
    char *line = text;
    int rc;

    while (line < text + len) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        json_t *v;
        if (nl) *nl = 0;
        if (*line) {
            v = json_loads(line, 0, NULL);
            if (!v || !json_is_object(v)) {
                json_decref(v);
                json_decref(first);
                json_decref(cells);
                return fail(2, "export it again with folio session export ID --record FILE",
                            "%s", "the record is damaged (a line is not a JSON object)");
            }
            if (!first)
                first = v;
            else json_array_append_new(cells, v);
        }
        line = nl ? nl + 1 : text + len;
    }
    if (!json_is_object(json_object_get(first, "head"))) {
        json_decref(first);
        json_decref(cells);
        return fail(2, "export one with folio session export ID --record FILE",
                    "%s", "not a session record (no head)");
    }
    json_object_set_new(r->report, "kind", json_string("session"));
    puts = json_object_get(first, "puts");
    empty = json_array();
    rc = session_replay(r, json_object_get(first, "head"), json_is_array(puts) ? puts : empty,
                        cells);
    json_decref(empty);
    json_decref(first);
    json_decref(cells);
    return rc;
}

static void print_report(const replay *r, int rc)
{
    json_t *refused = json_object_get(r->report, "refused"), *v;
    size_t k;

    if (r->json) {
        json_object_set_new(r->report, "identical", json_boolean(rc == 0 && !r->differs));
        json_dumpf(r->report, stdout, JSON_INDENT(1));
        fputc('\n', stdout);
        return;
    }
    json_array_foreach(refused, k, v)
        fprintf(stderr, "folio: replay: refused input %s: %s\n",
                json_string_value(json_object_get(v, "input")),
                json_string_value(json_object_get(v, "reason")));
    json_array_foreach(r->outputs, k, v) {
        json_t *c, *d;
        size_t i;
        printf("%-9s %s\n", json_string_value(json_object_get(v, "result")),
               json_string_value(json_object_get(v, "output")));
        json_array_foreach(json_object_get(v, "values"), i, d) {
            char *a = json_dumps(json_object_get(d, "recorded"), JSON_ENCODE_ANY | JSON_COMPACT);
            char *b = json_dumps(json_object_get(d, "now"), JSON_ENCODE_ANY | JSON_COMPACT);
            printf("          %s: %s -> %s\n", json_string_value(json_object_get(d, "pointer")),
                   a ? a : "(none)", b ? b : "(none)");
            free(a);                          /* json_dumps'd: plain free */
            free(b);
        }
        json_array_foreach(json_object_get(v, "likely_cause"), i, c)
            printf("          likely cause: %s\n", json_string_value(c));
    }
}

int fo_cli_replay(int argc, char **argv)
{
    replay r = { 0 };
    const char *what = NULL;
    char path[4200], *text, dir[4200] = "";
    size_t len;
    struct stat st;
    int rc;

    r.in_dir = ".";
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--json"))
            r.json = 1;
        else if (!strcmp(argv[k], "--in") && k + 1 < argc) r.in_dir = argv[++k];
        else if (argv[k][0] == '-' || what)
            return fail(1, "folio replay DIR|MANIFEST|RECORD [--in DIR] [--json]",
                        "unexpected argument \"%s\"", argv[k]);
        else what = argv[k];
    }
    if (!what)
        return fail(1, "folio replay DIR|MANIFEST|RECORD [--in DIR] [--json]",
                    "%s", "needs what to replay");
    snprintf(path, sizeof path, "%s", what);
    if (stat(what, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", what);
        snprintf(path, sizeof path, "%s/manifest.json", what);
    } else {
        const char *slash = strrchr(what, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - what) : 1, slash ? what : ".");
    }
    text = slurp(path, &len);
    if (!text)
        return fail(2, "name a folio run's --out folder, its manifest.json, "
                    "or a record from folio session export --record (at most 256 MiB)",
                    "can't read %s", path);
    r.report = json_object();
    r.outputs = json_array();
    json_object_set(r.report, "outputs", r.outputs);
    if (len >= 2 && text[0] == '{' && strstr(text, "\"folio_record\"") &&
        strstr(text, "\"folio_record\"") < strchr(text, '\n') + (strchr(text, '\n') ? 0 : len)) {
        rc = load_session(&r, text, len);
    } else {
        json_error_t e;
        json_t *m = json_loadb(text, len, 0, &e);
        if (!m || !json_object_get(m, "folio_run")) {
            rc = fail(2, "name a folio run's --out folder, its manifest.json, or a record from "
                      "folio session export --record",
                      "%s: not a folio run manifest nor a session record", path);
        } else {
            json_object_set_new(r.report, "kind", json_string("run"));
            rc = run_replay(&r, m, dir);
        }
        json_decref(m);
    }
    fo_free(text);
    if (rc == 0 || rc == 2) print_report(&r, rc);
    if (rc == 0 && r.differs) rc = 4;
    json_decref(r.outputs);
    json_decref(r.report);
    return rc;
}
