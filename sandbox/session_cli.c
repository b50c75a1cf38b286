/* session_cli.c — `folio session VERB ...` (PRODUCT.md §6): options, files on
 * the caller's side (put opens, get and render write atomically into
 * --out DIR without following links) and printing. The work is done by the
 * C API of session.h, which folio serve calls the same way. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: folio session new [--in FILE|DIR]... [--memory MB] [--disk MB] [--pids N]\n"
          "                         [--max-bytes N] [--timeout SEC] [--net none|all|packages|allow=LIST]\n"
          "                         [--idle SEC] [--max-sessions N] [--json]\n"
          "       folio session exec ID [--timeout SEC] [--json] (-c CODE | FILE | -)\n"
          "       folio session put ID FILE... [--to DIR]\n"
          "       folio session get ID PATH... --out DIR\n"
          "       folio session render ID --render xlsx,pdf,... --out DIR [--json]\n"
          "       folio session ls [--json]\n"
          "       folio session interrupt ID [--json]\n"
          "       folio session hibernate ID\n"
          "       folio session export ID (--ipynb FILE | --record FILE)   (FILE - : stdout)\n"
          "       folio session close ID\n"
          "\n"
          "A session is a folio run jail with a Python interpreter that lives on between\n"
          "cells: variables, imports and files persist. new prints its id. exec runs one\n"
          "cell (stdout/stderr stream; --json prints the result object). Idle sessions\n"
          "(--idle, default 1800 s) hibernate and resume at the next exec.\n"
          "interrupt stops the running cell (KeyboardInterrupt): its exec answers\n"
          "\"interrupted\", variables kept.\n"
          "exit: 0 ok, 1 usage, 2 invalid input or unknown session, 3 over the ceiling,\n"
          "      4 the cell failed, timed out, was interrupted or restarted,\n"
          "      5 internal or limit reached\n", f);
}

/* A failure: "folio: session VERB: MESSAGE [code]" and its hint on stderr
   (and the error object on stdout with --json). Returns its exit code. */
static int print_error(const char *verb, const fo_session_error *e, int json)
{
    if (json) {
        fo_buf b = { 0 };
        fo_buf_puts(&b, "{\"error\": {\"code\": ");
        fo_buf_json_str(&b, e->code, strlen(e->code));
        fo_buf_puts(&b, ", \"message\": ");
        fo_buf_json_str(&b, e->message, strlen(e->message));
        fo_buf_puts(&b, ", \"hint\": ");
        fo_buf_json_str(&b, e->hint, strlen(e->hint));
        fo_buf_puts(&b, "}}\n");
        fputs(b.data ? b.data : "", stdout);
        fo_buf_free(&b);
    }
    fprintf(stderr, "folio: session %s: %s [%s]\n", verb, e->message, e->code);
    if (e->hint[0]) fprintf(stderr, "  hint: %s\n", e->hint);
    return e->exit ? e->exit : 5;
}

/* A usage error of VERB: which option (or argument) and why. */
__attribute__((format(printf, 2, 3)))
static int usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "folio: session %s: ", verb);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n  hint: folio session --help lists the options\n", stderr);
    return 1;
}

/* Removes flag from argv in place; true if it was there. */
static int take_flag(int *argc, char **argv, const char *flag)
{
    int found = 0, k, out = 0;

    for (k = 0; k < *argc; k++) {
        if (!strcmp(argv[k], flag))
            found = 1;
        else argv[out++] = argv[k];
    }
    *argc = out;
    return found;
}

/* Removes "OPT VALUE" (after the id) from argv; returns VALUE or NULL. */
static const char *take_option(int *argc, char **argv, const char *opt)
{
    for (int k = 1; k + 1 < *argc; k++)
        if (!strcmp(argv[k], opt)) {
            const char *v = argv[k + 1];
            memmove(&argv[k], &argv[k + 2], (size_t)(*argc - k - 2) * sizeof *argv);
            *argc -= 2;
            return v;
        }
    return NULL;
}

static int cmd_new(int argc, char **argv, const char *folio)
{
    int json = take_flag(&argc, argv, "--json"), cold = take_flag(&argc, argv, "--cold");
    fo_session_new o = { folio, argv, argc, cold };
    fo_session_error err = { 0 };
    char id[33], *info = NULL;

    if (fo_session_create(&o, id, &info, &err) < 0) return print_error("new", &err, json);
    if (json)
        printf("%s\n", info ? info : "{}");
    else printf("%s\n", id);
    fo_free(info);
    return 0;
}

/* Reads the cell: -c CODE, FILE, or - (stdin), within FO_SESSION_MAX_CODE. */
static char *read_code(const char *src, size_t *len)
{
    int fd = strcmp(src, "-") ? open(src, O_RDONLY | O_CLOEXEC) : 0;
    char *buf = fd >= 0 ? fo_malloc(FO_SESSION_MAX_CODE + 1) : NULL;
    size_t got = 0;
    int err = 0;

    if (buf) {
        got = fo_read_upto(fd, buf, FO_SESSION_MAX_CODE + 1, -1);
        err = got <= FO_SESSION_MAX_CODE ? errno : 0;
    }
    if (fd > 0) close(fd);
    if (!buf || err || got > FO_SESSION_MAX_CODE) {
        fprintf(stderr, "folio: session: exec %s: %s\n", src,
                !buf  ? strerror(errno)
                : err ? strerror(err)
                      : "the cell is over 1 MiB");
        fo_free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

static void stream_out(void *ud, int stream, const char *s, size_t n)
{
    (void)ud;
    if (stream != 1 && stream != 2)
        return;                           /* the cell's number: nothing to print */
    fwrite(s, 1, n, stream == 1 ? stdout : stderr);
    fflush(stream == 1 ? stdout : stderr);
}

/* Ctrl-C while a cell runs interrupts the cell, as in a notebook: SIGINT is
   taken by a thread of its own (sigwait), which asks the supervisor; the
   exec then answers "interrupted". A second Ctrl-C ends this command (the
   cell is already being stopped). */
static void *on_ctrl_c(void *arg)
{
    const char *id = arg;
    sigset_t set;
    int sig, first = 1;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    while (sigwait(&set, &sig) == 0) {
        fo_session_error err;

        if (!first) _exit(130);
        first = 0;
        memset(&err, 0, sizeof err);
        (void)fo_session_interrupt(id, &(int){ 0 }, &err);
    }
    return NULL;
}

static void catch_ctrl_c(const char *id)
{
    sigset_t set;
    pthread_t t;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) == 0 &&
        pthread_create(&t, NULL, on_ctrl_c, (void *)id) == 0)
        pthread_detach(t);
}

static int cmd_exec(int argc, char **argv)
{
    int json = take_flag(&argc, argv, "--json"), k;
    const char *id = argc > 0 ? argv[0] : "", *src = NULL, *inline_code = NULL;
    double timeout = 0;
    fo_session_error err = { 0 };
    char *code, *result = NULL, status[16] = "";
    size_t len = 0;
    unsigned cell;
    int rc;

    for (k = 1; k < argc; k++) {
        int valued = !strcmp(argv[k], "--timeout") || !strcmp(argv[k], "-c");
        if (valued && k + 1 >= argc) return usage_error("exec", "%s needs a value", argv[k]);
        if (!strcmp(argv[k], "--timeout")) {
            if (fo_sandbox_parse_number(argv[++k], 0, 86400, &timeout) < 0 || !(timeout > 0))
                return usage_error("exec", "--timeout: expected seconds in (0, 86400], got "
                                   "\"%s\"", argv[k]);
        } else if (!strcmp(argv[k], "-c")) {
            if (src || inline_code)
                return usage_error("exec", "-c: the cell is given twice (-c CODE, FILE or -: "
                                   "one of them)");
            inline_code = argv[++k];
        } else if (argv[k][0] == '-' && strcmp(argv[k], "-")) {
            return usage_error("exec", "unknown option \"%s\" (exec takes --timeout SEC, "
                               "--json, -c CODE)", argv[k]);
        } else if (src || inline_code) {
            return usage_error("exec", "\"%s\": the cell is given twice (-c CODE, FILE or -: "
                               "one of them)", argv[k]);
        } else {
            src = argv[k];
        }
    }
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("exec", "needs a session id first: exec ID [--timeout SEC] [--json] "
                           "(-c CODE | FILE | -)");
    if (!src && !inline_code) return usage_error("exec", "needs a cell: -c CODE, FILE or -");
    if (inline_code) {
        len = strlen(inline_code);
        code = fo_strdup(inline_code);
    } else {
        code = read_code(src, &len);
    }
    if (!code) return 2;
    catch_ctrl_c(id);
    rc = fo_session_exec(id, code, len, timeout, json ? NULL : stream_out, NULL, &result, &err);
    fo_free(code);
    if (rc < 0) return print_error("exec", &err, json);
    if (json) printf("%s\n", result);
    if (sscanf(result, "{\"cell\": %u, \"status\": \"%15[a-z]\"", &cell, status) != 2) status[0] = 0;
    fo_free(result);
    return !strcmp(status, "ok") ? 0 : 4;
}

/* Opens (creating) --out DIR. */
static int open_out(const char *dir)
{
    int fd;

    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "folio: session: --out %s: %s\n", dir, strerror(errno));
        return -1;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fprintf(stderr, "folio: session: --out %s: %s\n", dir, strerror(errno));
    return fd;
}

static int cmd_put(int argc, char **argv)
{
    const char *to = NULL;
    fo_session_error err = { 0 };
    int k, n = 0;

    to = take_option(&argc, argv, "--to");
    if (argc < 2) return usage_error("put", "needs ID FILE... [--to DIR]");
    for (k = 1; k < argc; k++) {
        const char *base = strrchr(argv[k], '/');
        char dest[512];
        struct stat st;
        /* the caller's side: never through a link either */
        int fd = open(argv[k], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

        base = base ? base + 1 : argv[k];
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "folio: session: put %s: %s\n", argv[k], fd < 0 && errno == ELOOP ?
                    "a symbolic link (put the file it points to)" : fd < 0 ? strerror(errno) :
                    "not a regular file");
            if (fd >= 0) close(fd);
            return 2;
        }
        snprintf(dest, sizeof dest, "%s%s%s", to ? to : "", to ? "/" : "", base);
        if (fo_session_put(argv[0], fd, dest, &err) < 0) {
            close(fd);
            return print_error("put", &err, 0);
        }
        close(fd);
        printf("/work/%s\n", dest);
        n++;
    }
    return n ? 0 : 1;
}

static int cmd_get(int argc, char **argv)
{
    const char *out = NULL;
    fo_session_error err = { 0 };
    int k, dfd;

    out = take_option(&argc, argv, "--out");
    if (argc < 2 || !out) return usage_error("get", "needs ID PATH... --out DIR");
    dfd = open_out(out);
    if (dfd < 0) return 5;
    for (k = 1; k < argc; k++) {
        const char *base = strrchr(argv[k], '/');
        unsigned long long bytes;
        int fd;

        base = base ? base + 1 : argv[k];
        if (fo_session_get(argv[0], argv[k], &fd, &bytes, &err) < 0) {
            close(dfd);
            return print_error("get", &err, 0);
        }
        if (fo_sandbox_write_copy(dfd, base, fd) < 0) {
            fprintf(stderr, "folio: session: can't write %s/%s: %s\n", out, base, strerror(errno));
            close(fd);
            close(dfd);
            return 5;
        }
        close(fd);
        printf("%s/%s\n", out, base);
    }
    close(dfd);
    return 0;
}

typedef struct { int dfd; const char *dir; int failed, json; } render_out;

static int write_rendered(void *ud, const char *name, int fd)
{
    render_out *r = ud;

    if (strchr(name, '/') || fo_sandbox_write_copy(r->dfd, name, fd) < 0) {
        fprintf(stderr, "folio: session: can't write %s/%s: %s\n", r->dir, name, strerror(errno));
        r->failed = 1;
        return -1;
    }
    if (!r->json) printf("%s/%s\n", r->dir, name);
    return 0;
}

/* The result's "refused" files on stderr, as folio run prints its own
   ("refused /out/result.pdf: reserved for the --render output"). Names are
   shown as the result escapes them. */
static void print_refused(const char *result)
{
    const char *p = strstr(result, "\"refused\": [");
    const char *end = p ? strchr(p, ']') : NULL;

    while (p && (p = strstr(p, "{\"name\": \"")) && p < end) {
        const char *name = p + 10, *q = name;
        int nl, rl;
        while (*q && *q != '"') q += *q == '\\' && q[1] ? 2 : 1;
        nl = (int)(q - name);
        p = strstr(q, "\"reason\": \"");
        if (!p) break;
        p += 11;
        rl = (int)strcspn(p, "\"");
        fprintf(stderr, "folio: session render: refused /out/%.*s: %.*s\n", nl, name, rl, p);
    }
}

static int cmd_render(int argc, char **argv)
{
    int json = take_flag(&argc, argv, "--json"), k, code = 5;
    const char *formats = NULL;
    render_out r = { -1, NULL, 0, 0 };
    fo_session_error err = { 0 };
    char *result = NULL;

    for (k = 1; k + 1 < argc; k += 2) {
        if (!strcmp(argv[k], "--render"))
            formats = argv[k + 1];
        else if (!strcmp(argv[k], "--out")) r.dir = argv[k + 1];
        else
            return usage_error("render", "unknown option \"%s\" (render ID --render FORMATS "
                               "--out DIR [--json])", argv[k]);
    }
    if (argc < 1 || !formats || !r.dir || k != argc)
        return usage_error("render", "needs ID --render FORMATS --out DIR [--json]");
    r.json = json;
    r.dfd = open_out(r.dir);
    if (r.dfd < 0) return 5;
    if (fo_session_render(argv[0], formats, write_rendered, &r, &result, &err) < 0) {
        close(r.dfd);
        return print_error("render", &err, json);
    }
    close(r.dfd);
    if (json) printf("%s\n", result);
    if (sscanf(result, "{\"exit\": %d", &code) != 1) code = 5;
    if (!json) print_refused(result);
    if (code && !json) fprintf(stderr, "folio: session: render failed (exit %d): %s\n", code, result);
    fo_free(result);
    return r.failed ? 5 : code;
}

/* `interrupt ID [--json]`: stops the running cell; says whether one ran. */
static int cmd_interrupt(int argc, char **argv)
{
    int json = take_flag(&argc, argv, "--json"), yes = 0;
    fo_session_error err = { 0 };

    if (argc != 1 || argv[0][0] == '-')
        return usage_error("interrupt", "needs one session id: interrupt ID [--json]");
    if (fo_session_interrupt(argv[0], &yes, &err) < 0) return print_error("interrupt", &err, json);
    if (json)
        printf("{\"interrupted\": %s}\n", yes ? "true" : "false");
    else printf("%s\n", yes ? "interrupted" : "no cell was running");
    return 0;
}

/* Writes text to path ("-": stdout) at once: a temporary beside it, renamed. */
static int write_whole(const char *path, const char *text, size_t len)
{
    char dir[4096];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    int dfd, rc;

    if (!strcmp(path, "-")) return fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -1;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..") ||
        (size_t)(slash ? slash - path : 1) >= sizeof dir) {
        errno = EINVAL;
        return -1;
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -1;
    rc = fo_sandbox_write_buf(dfd, base, text, len);
    close(dfd);
    return rc;
}

/* `export ID (--ipynb FILE | --record FILE)`: the session's record, read
   without waking it (fo_session_export). */
static int cmd_export(int argc, char **argv)
{
    fo_session_error err = { 0 };
    const char *nb = NULL, *rec = NULL;
    char *text;
    size_t len;
    int k;

    for (k = 1; k + 1 < argc; k += 2) {
        if (!strcmp(argv[k], "--ipynb") && !nb)
            nb = argv[k + 1];
        else if (!strcmp(argv[k], "--record") && !rec) rec = argv[k + 1];
        else
            return usage_error("export", "unknown or repeated option \"%s\" (export ID "
                               "--ipynb FILE | --record FILE)", argv[k]);
    }
    if (argc < 1 || argv[0][0] == '-' || k != argc || !nb == !rec)
        return usage_error("export", "needs ID and one of --ipynb FILE, --record FILE");
    if (fo_session_export(argv[0], nb ? FO_EXPORT_NOTEBOOK : FO_EXPORT_RECORD, &text, &len,
                          &err) < 0)
        return print_error("export", &err, 0);
    if (write_whole(nb ? nb : rec, text, len) < 0) {
        fprintf(stderr, "folio: session export: can't write %s: %s\n  hint: name a file in a "
                "folder you can write\n", nb ? nb : rec, strerror(errno));
        fo_free(text);
        return 5;
    }
    fo_free(text);
    return 0;
}

static int cmd_simple(const char *verb, int argc, char **argv)
{
    int json = take_flag(&argc, argv, "--json"), rc;
    fo_session_error err = { 0 };
    char *list = NULL;

    if (!strcmp(verb, "ls")) {
        if (fo_session_list(&list, &err) < 0) return print_error("ls", &err, json);
        if (json) {
            printf("%s\n", list);
        } else {
            char id[33], state[16];
            const char *p = list;
            while ((p = strstr(p, "{\"id\": \"")) &&
                   sscanf(p, "{\"id\": \"%32[0-9a-f]\", \"state\": \"%15[a-z]\"", id, state) == 2) {
                printf("%s  %s\n", id, state);
                p++;
            }
        }
        fo_free(list);
        return 0;
    }
    if (argc != 1) return usage_error(verb, "needs one session id");
    rc = !strcmp(verb, "close") ? fo_session_close(argv[0], &err)
                                : fo_session_hibernate(argv[0], &err);
    return rc < 0 ? print_error(verb, &err, json) : 0;
}

int fo_session_main(int argc, char **argv, const char *folio, const char *engine)
{
    const char *verb = argc > 1 ? argv[1] : "";

    if (!strcmp(verb, "_supervise")) return fo_session_supervise(argc - 1, argv + 1, folio, engine);
    if (!strcmp(verb, "_lease") && argc == 3) return fo_session_lease_keep(argv[2]);
    if (!strcmp(verb, "_spare")) return fo_session_spare(folio, argv + 2, argc - 2);
    if (!strcmp(verb, "new")) return cmd_new(argc - 2, argv + 2, folio);
    if (!strcmp(verb, "exec")) return cmd_exec(argc - 2, argv + 2);
    if (!strcmp(verb, "put")) return cmd_put(argc - 2, argv + 2);
    if (!strcmp(verb, "get")) return cmd_get(argc - 2, argv + 2);
    if (!strcmp(verb, "render")) return cmd_render(argc - 2, argv + 2);
    if (!strcmp(verb, "export")) return cmd_export(argc - 2, argv + 2);
    if (!strcmp(verb, "interrupt")) return cmd_interrupt(argc - 2, argv + 2);
    if (!strcmp(verb, "ls") || !strcmp(verb, "close") || !strcmp(verb, "hibernate"))
        return cmd_simple(verb, argc - 2, argv + 2);
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 1;
}
