/* mcp_stdio.c — `folio mcp`: the MCP server on stdin/stdout (the protocol's
 * stdio transport: one JSON-RPC message per line, UTF-8, nothing else on
 * stdout; stderr for folio's own messages). The client starts it, e.g.
 * {"command": "folio", "args": ["mcp"]}, and ends it by closing stdin.
 *
 * Each request runs on a thread of its own, so that notifications/cancelled
 * and ping are read while a cell runs; answers are written whole, one at a
 * time. At the end of input (or SIGTERM, SIGINT) the calls in flight are
 * cancelled, waited for, and the session is closed: its jail and files go
 * with the client. A client that dies without closing stdin leaves a
 * session that hibernates at --idle, as any other. */
#define FO_SERVE_PRIVATE
#define FO_MCP_PRIVATE
#include "serve/serve.h"
#include "folio.h"
#include "serve/mcp.h"
#include "base/usage.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

static const char usage[] =
    "usage: folio mcp [--memory MB] [--disk MB] [--pids N] [--cpus N] [--max-bytes N]\n"
    "                 [--timeout SEC] [--idle SEC] [--net none|packages|allow=LIST] [--in FILE|DIR]...\n"
    "\n"
    "  Serves folio as a Model Context Protocol server (revision 2025-11-25) on stdin and\n"
    "  stdout, for an assistant to call: run Python in a session that keeps its state,\n"
    "  put and get files, render and validate a spec (docs/mcp.md). The options are those\n"
    "  of `folio session new`: the session's jail and limits, which no tool call can widen.\n"
    "  MCP client configuration: {\"command\": \"folio\", \"args\": [\"mcp\"]}\n";

/* The options of `folio session new` that folio mcp passes on; a value each. */
static const char *const passed[] = { "--memory", "--disk", "--pids", "--cpus", "--max-bytes",
                                      "--timeout", "--idle", "--net", "--in" };

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t threads_done = PTHREAD_COND_INITIALIZER;
static unsigned threads;
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

/* One message, one line, written whole. */
static void send_line(void *ud, const char *json, size_t len)
{
    (void)ud;
    pthread_mutex_lock(&out_lock);
    if (fo_write_all(1, json, len, 0) == 0) (void)fo_write_all(1, "\n", 1, 0);
    pthread_mutex_unlock(&out_lock);
}

typedef struct {
    fo_mcp *m;
    char *msg;
    size_t len;
} job;

static void *run_job(void *arg)
{
    job *j = arg;

    (void)fo_mcp_handle(j->m, j->msg, j->len, send_line, NULL);
    fo_free(j->msg);
    fo_free(j);
    pthread_mutex_lock(&threads_lock);
    if (!--threads) pthread_cond_broadcast(&threads_done);
    pthread_mutex_unlock(&threads_lock);
    return NULL;
}

/* A request on a thread of its own (inline when MAX_THREADS run); a
   notification here and now. */
static void dispatch(fo_mcp *m, char *msg, size_t len)
{
    pthread_attr_t a;
    pthread_t t;
    job *j;
    int kind = fo_mcp_kind(msg, len), started = 0;

    pthread_mutex_lock(&threads_lock);
    if ((kind == 'R' || kind == 'I') && threads < MAX_THREADS && (j = fo_malloc(sizeof *j)) &&
        (j->msg = fo_malloc(len + 1))) {
        memcpy(j->msg, msg, len);
        j->msg[len] = '\0';
        j->len = len;
        j->m = m;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&t, &a, run_job, j) == 0;
        pthread_attr_destroy(&a);
        if (started)
            threads++;
        else fo_free(j->msg), fo_free(j);
    }
    pthread_mutex_unlock(&threads_lock);
    if (!started) (void)fo_mcp_handle(m, msg, len, send_line, NULL);
}

/* Reads stdin a line at a time (at most FO_MCP_MAX_MESSAGE bytes each; a
   longer one is answered with an error and skipped) until its end or a
   signal. */
static void read_loop(fo_mcp *m)
{
    size_t cap = 1 << 16, len = 0, scan = 0;
    char *buf = fo_malloc(cap);
    int skipping = 0;

    while (buf && !stopping) {
        char *nl = memchr(buf + scan, '\n', len - scan);
        struct pollfd pf = { 0, POLLIN, 0 };
        ssize_t r;

        if (nl) {
            size_t n = (size_t)(nl - buf);
            if (!skipping && n && !(n == 1 && buf[0] == '\r')) dispatch(m, buf, n);
            skipping = 0;
            memmove(buf, nl + 1, len - n - 1);
            len -= n + 1;
            scan = 0;
            continue;
        }
        scan = len;
        if (len == cap) {
            char *more = cap < FO_MCP_MAX_MESSAGE ? fo_realloc(buf, cap * 2) : NULL;
            if (!more) {
                static const char big[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
                    "-32600,\"message\":\"Invalid Request: the message is over folio's limit of "
                    "48 MiB\"}}";
                if (!skipping) send_line(NULL, big, sizeof big - 1);
                skipping = 1;
                len = scan = 0;
                continue;
            }
            buf = more;
            cap *= 2;
        }
        if (poll(&pf, 1, -1) < 0 && errno == EINTR) continue;
        r = read(0, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    fo_free(buf);
}

/* argv (after "mcp") checked against the options folio session new takes
   here; 0, or the usage exit code. */
static int check_options(int argc, char **argv)
{
    for (int k = 0; k < argc; k++) {
        size_t i;
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
            fputs(usage, stdout);
            return -1;
        }
        for (i = 0; i < sizeof passed / sizeof *passed && strcmp(passed[i], argv[k]); i++)
            ;
        if (i == sizeof passed / sizeof *passed) return fo_usage_error("mcp", "unknown option %s", argv[k]);
        if (++k == argc) return fo_usage_error("mcp", "option %s needs a value", argv[k - 1]);
    }
    return 0;
}

int fo_mcp_main(int argc, char **argv, const char *engine)
{
    const char *folio = fo_serve_find_folio(engine), *tmp = getenv("TMPDIR");
    struct sigaction sa;
    fo_mcp_config cfg;
    fo_mcp *m;
    int rc = check_options(argc - 1, argv + 1);

    if (rc) return rc < 0 ? 0 : rc;
    if (!folio) {
        fputs("folio: mcp: can't find the folio binary beside the engine (reinstall folio)\n",
              stderr);
        return 5;
    }
    fo_session_use_folio(folio);
    memset(&cfg, 0, sizeof cfg);
    cfg.session_argv = argv + 1;
    cfg.session_argc = argc - 1;
    cfg.scratch = tmp && *tmp ? tmp : "/tmp";
    m = fo_mcp_new(&cfg);
    if (!m) {
        fprintf(stderr, "folio: mcp: can't make a scratch folder in %s: %s\n", cfg.scratch,
                strerror(errno));
        return 5;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    read_loop(m);
    fo_mcp_cancel(m);
    pthread_mutex_lock(&threads_lock);
    while (threads) pthread_cond_wait(&threads_done, &threads_lock);
    pthread_mutex_unlock(&threads_lock);
    fo_mcp_free(m);
    return 0;
}
