/* server.c — `folio serve`: options, the listening socket, bearer tokens,
 * the render zygote, libmicrohttpd, and the signals (PRODUCT.md §7).
 *
 * Order at start-up: parse -> tokens -> listen -> zygote (forked before any
 * thread exists) -> block signals -> daemon threads. The main thread then only
 * waits for signals: SIGHUP re-reads the token file (the old tokens stay if
 * the new file is unreadable), SIGCHLD notices a dead zygote (the next render
 * restarts it), SIGTERM/SIGINT drain: stop accepting, let requests in flight
 * finish (up to --drain-timeout), stop. Everything printed is one JSON object
 * per line on stderr. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "serve/mcp.h"   /* fo_serve_find_folio */
#include "sandbox/session.h"
#include "sandbox/sandbox.h"
#include "base/sha256.h"
#include "folio.h"                  /* FO_DEFAULT_MAX_BYTES */
#include "base/usage.h"
#include "base/proc.h" /* fo_self_stat */

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TOKENS 1024

static const char usage[] =
    "usage: folio serve [--listen HOST:PORT | --listen unix:PATH] [--token-file FILE]\n"
    "                   [--workers N] [--queue N] [--max-bytes N] [--max-body N] [--max-parts N]\n"
    "                   [--timeout SEC] [--memory MB] [--conn-timeout SEC] [--max-conns N]\n"
    "                   [--max-sessions N] [--max-cells N] [--session-dir DIR] [--run-ttl SEC]\n"
    "                   [--scratch DIR] [--drain-timeout SEC] [--instance NAME] [--retain SEC]\n"
    "                   [--state-dir DIR] [--checkpoint-idle SEC] [--lease SEC]\n"
    "                   [--memory-per-process]\n"
    "                   [--session-limits memory=MB,disk=MB,timeout=S,cpus=N,idle=S,pids=N]\n"
    "                   [--run-limits timeout=S] [--no-jail]\n"
    "                   [--reuse-workers N [--worker-memory MB] [--worker-idle SEC]]\n"
    "  Serves folio over HTTP (docs/serve.md): renders, conversions, runs, sessions\n"
    "  and MCP; GET /v1/openapi.json lists every route. Default --listen 127.0.0.1:8080.\n"
    "  Without --token-file it listens only on loopback or a Unix socket.\n"
    "  --session-limits and --run-limits are the most a request may ask for (a request\n"
    "  over one gets 400); defaults memory=min(4096, RAM),disk=4096,timeout=600,\n"
    "  cpus=CPUs,idle=86400,pids=1024 and timeout=600.\n"
    "  --no-jail renders in a plain fork, without the jail: for measurements only.\n"
    "  --reuse-workers N: a render worker serves up to N requests of one bearer token\n"
    "  (default: a fresh process per request); docs/serve.md says what that isolates.\n";

void fo_serve_log(const char *json_line)
{
    size_t len = strlen(json_line);
    char buf[2048];

    if (len + 2 > sizeof buf) len = sizeof buf - 2;
    memcpy(buf, json_line, len);
    buf[len] = '\n';
    (void)!write(2, buf, len + 1);   /* one write: lines never interleave */
}

__attribute__((format(printf, 1, 2)))
static void log_event(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fo_serve_log(line);
}

/* ------------------------------------------------------------ options */

typedef struct { const char *name; double lo, hi; void *dst; char kind; } num_opt;

static int parse_args(int argc, char **argv, fo_serve_config *c, double *drain, int *zygote)
{
    double v;
    uint64_t max_bytes = c->max_bytes, max_body = c->max_body;
    num_opt nums[] = {
        {"--workers", 1, 1024, &c->workers, 'u'},
        {"--queue", 0, 4096, &c->queue, 'u'},
        {"--max-parts", 1, 256, &c->max_parts, 'u'},
        {"--max-sessions", 1, 100000, &c->max_sessions, 'u'},
        {"--max-cells", 1, 4096, &c->max_cells, 'u'},
        {"--run-ttl", 1, 7 * 86400, &c->run_ttl, 'u'},
        {"--retain", 60, 366 * 86400, &c->retain, 'u'},
        {"--conn-timeout", 1, 3600, &c->conn_timeout, 'u'},
        {"--max-conns", 1, 100000, &c->max_conns, 'u'},
        {"--memory", 64, 1 << 20, &c->memory_mb, 'u'},
        {"--reuse-workers", 0, 1000000, &c->reuse_jobs, 'u'},
        {"--worker-memory", 1, 1 << 20, &c->worker_memory_mb, 'u'},
        {"--worker-idle", 1, 86400, &c->worker_idle_s, 'd'},
        {"--timeout", 0.1, 3600, &c->timeout_s, 'd'},
        {"--drain-timeout", 0, 3600, drain, 'd'},
        {"--checkpoint-idle", 1, 86400, &c->checkpoint_idle, 'd'},
        {"--lease", 1, 3600, &c->lease_s, 'd'},
        {"--max-bytes", 1, 1e15, &max_bytes, 'q'},
        {"--max-body", 1, 1e15, &max_body, 'q'},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t k;
        if (!strcmp(a, "--zygote")) { *zygote = 1; continue; }
        if (!strcmp(a, "--no-jail")) { c->jail = 0; continue; }
        if (!strcmp(a, "--memory-per-process")) {   /* no cgroup: RLIMIT_AS per process */
            if (setenv("FOLIO_MEMORY_PER_PROCESS", "1", 1) < 0) return 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(usage, stdout); return -1; }
        if (i + 1 >= argc) return fo_usage_error("serve", "unknown option or missing value: %s", a);
        if (!strcmp(a, "--listen")) { c->listen = argv[++i]; continue; }
        if (!strcmp(a, "--token-file")) { c->token_file = argv[++i]; continue; }
        if (!strcmp(a, "--scratch")) { c->scratch = argv[++i]; continue; }
        if (!strcmp(a, "--session-dir")) { c->session_dir = argv[++i]; continue; }
        if (!strcmp(a, "--state-dir")) {
            c->state_dir = argv[++i];
            if (c->state_dir[0] != '/')
                return fo_usage_error("serve", "--state-dir needs an absolute path, not \"%s\"",
                                      c->state_dir);
            continue;
        }
        if (!strcmp(a, "--session-limits") || !strcmp(a, "--run-limits")) {
            if (fo_serve_limits_parse(c, a, argv[i + 1])) return 1;
            i++;
            continue;
        }
        if (!strcmp(a, "--instance")) {
            c->instance = argv[++i];
            if (!*c->instance || strlen(c->instance) > 32 ||
                strspn(c->instance, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(c->instance))
                return fo_usage_error("serve", "--instance needs 1 to 32 lowercase letters or digits, "
                                      "not \"%s\"", c->instance);
            continue;
        }
        for (k = 0; k < sizeof nums / sizeof *nums && strcmp(nums[k].name, a); k++)
            ;
        if (k == sizeof nums / sizeof *nums) return fo_usage_error("serve", "unknown option %s", a);
        if (fo_sandbox_parse_number(argv[++i], nums[k].lo, nums[k].hi, &v) < 0 ||
            (nums[k].kind != 'd' && v != (double)(uint64_t)v))
            return fo_usage_error("serve", "%s needs a number from %g to %g, not \"%s\"", a, nums[k].lo,
                                  nums[k].hi, argv[i]);
        if (nums[k].kind == 'u') *(unsigned *)nums[k].dst = (unsigned)v;
        else if (nums[k].kind == 'd') *(double *)nums[k].dst = v;
        else *(uint64_t *)nums[k].dst = (uint64_t)v;
    }
    c->max_bytes = max_bytes;
    c->max_body = max_body;
    return 0;
}

/* ------------------------------------------------------------- tokens */

/* Reads one token per line ('#' comments and blank lines skipped) and keeps
   their SHA-256; 0, or -1 with a message in err. */
static int load_tokens(fo_serve_state *s, char *err, size_t errlen)
{
    FILE *f = fopen(s->cfg.token_file, "r");
    unsigned char (*toks)[32] = fo_calloc(MAX_TOKENS, 32), (*old)[32];
    char line[4096];
    size_t n = 0;

    if (!f || !toks) {
        snprintf(err, errlen, "%s: %s", s->cfg.token_file, strerror(errno));
        if (f) fclose(f);
        fo_free(toks);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *t = line, *e;
        fo_sha256 h;
        while (*t == ' ' || *t == '\t') t++;
        e = t + strcspn(t, "\r\n");
        while (e > t && (e[-1] == ' ' || e[-1] == '\t')) e--;
        if (e == t || *t == '#') continue;
        if (n == MAX_TOKENS) {
            snprintf(err, errlen, "%s: more than %d tokens", s->cfg.token_file, MAX_TOKENS);
            fclose(f);
            fo_free(toks);
            return -1;
        }
        fo_sha256_init(&h);
        fo_sha256_update(&h, t, (size_t)(e - t));
        fo_sha256_final(&h, toks[n++]);
    }
    fclose(f);
    pthread_rwlock_wrlock(&s->tokens_lock);
    old = s->tokens;
    s->tokens = toks;
    s->n_tokens = n;
    pthread_rwlock_unlock(&s->tokens_lock);
    fo_free(old);
    return 0;
}

/* ------------------------------------------------------------- listen */

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a)) return 1;
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return 0;
}

static int listen_unix(const char *path, char *shown, size_t shownlen)
{
    struct sockaddr_un a;
    struct stat st;
    int fd;

    if (strlen(path) >= sizeof a.sun_path)
        return fo_usage_error("serve", "--listen unix:%s: path too long (at most %zu bytes)", path,
                              sizeof a.sun_path - 1), -1;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return fo_usage_error("serve", "--listen unix:%s: exists and is not a socket", path), -1;
        (void)unlink(path);   /* a socket left by an earlier run */
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1024) < 0) {
        fprintf(stderr, "folio: serve: can't listen on unix:%s: %s\n", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    snprintf(shown, shownlen, "unix:%s", path);
    return fd;
}

/* "HOST:PORT" or "[V6]:PORT"; refuses anything but loopback without tokens. */
static int listen_tcp(const char *spec, int have_tokens, char *shown, size_t shownlen)
{
    char host[256], port[16], addr[INET6_ADDRSTRLEN];
    const char *colon = strrchr(spec, ':');
    struct addrinfo hints, *ai = NULL;
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    int fd, one = 1, rc;
    size_t hl;

    if (!colon || colon == spec || !colon[1] || strlen(colon + 1) >= sizeof port)
        return fo_usage_error("serve", "--listen %s: use HOST:PORT, [IPV6]:PORT or unix:PATH", spec), -1;
    hl = (size_t)(colon - spec);
    if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']')
        snprintf(host, sizeof host, "%.*s", (int)(hl - 2), spec + 1);
    else snprintf(host, sizeof host, "%.*s", (int)hl, spec);
    snprintf(port, sizeof port, "%s", colon + 1);
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc) return fo_usage_error("serve", "--listen %s: %s", spec, gai_strerror(rc)), -1;
    if (!have_tokens && !is_loopback(ai->ai_addr)) {
        freeaddrinfo(ai);
        return fo_usage_error("serve", "--listen %s: not a loopback address, and no --token-file: anyone "
                              "who can reach it could render (give --token-file FILE, or listen on "
                              "127.0.0.1, [::1] or unix:PATH)", spec), -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &blen) < 0) {
        fprintf(stderr, "folio: serve: can't listen on %s: %s\n", spec, strerror(errno));
        freeaddrinfo(ai);
        if (fd >= 0) close(fd);
        return -1;
    }
    freeaddrinfo(ai);
    if (bound.ss_family == AF_INET6) {
        const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)&bound;
        inet_ntop(AF_INET6, &b->sin6_addr, addr, sizeof addr);
        snprintf(shown, shownlen, "[%s]:%u", addr, ntohs(b->sin6_port));
    } else {
        const struct sockaddr_in *b = (const struct sockaddr_in *)&bound;
        inet_ntop(AF_INET, &b->sin_addr, addr, sizeof addr);
        snprintf(shown, shownlen, "%s:%u", addr, ntohs(b->sin_port));
    }
    return fd;
}

/* -------------------------------------------------------------- run */

static void reap(fo_serve_state *s)
{
    pid_t pid;
    int st;

    /* only the zygote: runs and session supervisors are waited for by the
       threads that started them, which need their exit codes */
    pid = fo_serve_zygote_pid(s->zygote);
    if (pid > 0 && waitpid(pid, &st, WNOHANG) == pid) {
        fo_serve_zygote_lost(s->zygote, pid);
        log_event("{\"event\": \"zygote_exited\", \"status\": %d}", st);
    }
}

/* A connection accepted just before the signal may not have sent its request
   yet; like Go's http.Server.Shutdown, it counts as in flight for a moment. */
#define FRESH_GRACE 2.0

/* After --drain-timeout, the interrupted cells' execs answer within ~100 ms,
   or after the supervisor's grace and a restart when a cell ignores the
   interrupt: this long at most. */
#define INTERRUPT_GRACE 15.0

/* True once no request is in flight; false at t0 + seconds. interrupt: the
   running cells are interrupted meanwhile (again every 200 ms: an exec that
   was queued behind one starts when it ends). */
static int wait_idle(fo_serve_state *s, double t0, double seconds, int interrupt)
{
    double next = 0;

    for (;;) {
        double t = fo_now() - t0;
        int busy = atomic_load(&s->in_flight) > 0 ||
                   (atomic_load(&s->fresh_conns) > 0 && t < FRESH_GRACE);
        if (!busy) return 1;
        if (t > seconds) return 0;
        if (interrupt && t >= next && atomic_load(&s->cells) > 0) {
            unsigned n = fo_serve_sessions_interrupt();
            if (n) log_event("{\"event\": \"cells_interrupted\", \"count\": %u}", n);
            next = t + 0.2;
        }
        nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
    }
}

/* SIGTERM (PRODUCT.md §7, §8): new requests are refused (503 draining;
   /healthz answers 503 too, the listening socket stays open for it), those
   in flight get --drain-timeout to finish; then the running cells are
   interrupted and their execs answered ("interrupted"); then the daemon
   stops and every session hibernates. */
static void drain(fo_serve_state *s, struct MHD_Daemon *d, double seconds)
{
    double t0 = fo_now();
    MHD_socket lfd;

    atomic_store(&s->draining, 1);
    log_event("{\"event\": \"draining\", \"in_flight\": %ld, \"connecting\": %ld, "
              "\"cells\": %ld}", atomic_load(&s->in_flight), atomic_load(&s->fresh_conns),
              atomic_load(&s->cells));
    if (!wait_idle(s, t0, seconds, 0) && atomic_load(&s->cells) > 0)
        (void)wait_idle(s, t0, seconds + INTERRUPT_GRACE, 1);
    lfd = MHD_quiesce_daemon(d);
    if (lfd != MHD_INVALID_SOCKET) close(lfd);
    MHD_stop_daemon(d);
    fo_serve_http_stop_threads(5);
    log_event("{\"event\": \"sessions_hibernated\", \"count\": %u}",
              fo_serve_sessions_hibernate());
}

/* Threads of this process (num_threads of /proc/self/stat), or -1: the
   "stopped" event's count, which shows the process ends with none of its
   own threads still on their way out. */
static long count_threads(void)
{
    unsigned long long f[21];

    return fo_self_stat(f, 21) < 0 ? -1 : (long)f[20];
}

/* Waits for signals until SIGTERM/SIGINT; returns after the drain. */
static void wait_signals(fo_serve_state *s, struct MHD_Daemon *d, const sigset_t *set, double grace)
{
    for (;;) {
        char err[512];
        struct timespec tick = { 10, 0 };
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig < 0) {
            fo_serve_runs_sweep(s);           /* expired runs' files go even when idle */
            fo_serve_sessions_sweep(s);       /* and sessions hibernated past --retain */
            continue;
        }
        if (sig == SIGHUP && s->cfg.token_file) {
            if (load_tokens(s, err, sizeof err) < 0)
                log_event("{\"event\": \"tokens_kept\", \"message\": \"can't re-read the token file\"}");
            else log_event("{\"event\": \"tokens_reloaded\", \"tokens\": %zu}", s->n_tokens);
        } else if (sig == SIGCHLD) {
            reap(s);
        } else if (sig == SIGTERM || sig == SIGINT) {
            drain(s, d, grace);
            return;
        }
    }
}

/* Room for --max-conns connections and their uploads: the soft limit of open
   files raised toward the hard one. */
static void raise_nofile(unsigned conns)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)conns * 2 + 256) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)conns * 2 + 256
                          ? (rlim_t)conns * 2 + 256 : rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void config_defaults(fo_serve_config *c)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *tmp = getenv("TMPDIR");

    memset(c, 0, sizeof *c);
    c->listen = "127.0.0.1:8080";
    c->instance = "folio";
    c->scratch = tmp && *tmp ? tmp : "/tmp";
    c->workers = cores > 0 ? (unsigned)cores : 1;
    c->queue = 0;                 /* set from workers below, unless given */
    c->max_conns = 1024;
    c->conn_timeout = 10;
    c->max_parts = 64;
    c->max_sessions = 64;
    c->max_cells = 0;             /* 4 per worker, unless given */
    c->run_ttl = 900;
    c->retain = 7 * 86400;        /* a hibernated session is kept a week */
    c->checkpoint_idle = 60;
    c->lease_s = 10;
    c->max_bytes = FO_DEFAULT_MAX_BYTES;
    c->max_body = 33554432ULL;
    c->timeout_s = 30;
    c->memory_mb = 2048;
    c->worker_memory_mb = 256;
    c->worker_idle_s = 30;
    c->jail = 1;
    c->queue = (unsigned)-1;
    fo_serve_limits_defaults(c);
}

/* The static folio beside folio-engine (build/, or PREFIX/bin from
   PREFIX/libexec/folio): it runs /v1/run and the session supervisors. */
const char *fo_serve_find_folio(const char *engine)
{
    static const char *const places[] = { "folio", "../../bin/folio" };
    static char path[4200];
    const char *slash = strrchr(engine, '/');

    for (size_t k = 0; slash && k < sizeof places / sizeof *places; k++) {
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - engine), engine, places[k]);
        if (access(path, X_OK) == 0) return path;
    }
    return NULL;
}

/* The sessions' folder (kept across restarts: a hibernated session resumes
   on the instance that comes back), handed to the session code and the
   supervisors through FOLIO_SESSION_DIR. Default SCRATCH/folio-sessions-INSTANCE.
   Saved sessions go to --state-dir (FOLIO_STATE_DIR; default the same
   folder), which several instances may share (session_state.c). */
static int session_dir(fo_serve_state *s)
{
    static char dflt[4200];
    char ckpt[32], lease[32];

    if (!s->cfg.session_dir) {
        char base[4096];
        snprintf(base, sizeof base, "%s", s->cfg.scratch);
        *strrchr(base, '/') = '\0';        /* the scratch root's parent: --scratch */
        snprintf(dflt, sizeof dflt, "%s/folio-sessions-%s", base, s->cfg.instance);
        s->cfg.session_dir = dflt;
    }
    if (mkdir(s->cfg.session_dir, 0700) < 0 && errno != EEXIST) return -1;
    if (!s->cfg.state_dir) s->cfg.state_dir = s->cfg.session_dir;
    if (mkdir(s->cfg.state_dir, 0700) < 0 && errno != EEXIST) return -1;
    snprintf(ckpt, sizeof ckpt, "%g", s->cfg.checkpoint_idle);
    snprintf(lease, sizeof lease, "%g", s->cfg.lease_s);
    return setenv("FOLIO_SESSION_DIR", s->cfg.session_dir, 1) < 0 ||
           setenv("FOLIO_STATE_DIR", s->cfg.state_dir, 1) < 0 ||
           setenv("FOLIO_INSTANCE", s->cfg.instance, 1) < 0 ||
           setenv("FOLIO_CHECKPOINT_IDLE", ckpt, 1) < 0 ||
           setenv("FOLIO_LEASE_S", lease, 1) < 0 ? -1 : 0;
}

static int start(fo_serve_state *s, const char *engine, int *lfd, char *shown, size_t shownlen,
                 char *scratch_root, size_t rootlen)
{
    char err[512];

    if (s->cfg.token_file && load_tokens(s, err, sizeof err) < 0) {
        fprintf(stderr, "folio: serve: --token-file %s\n", err);
        return 1;
    }
    *lfd = !strncmp(s->cfg.listen, "unix:", 5)
               ? listen_unix(s->cfg.listen + 5, shown, shownlen)
               : listen_tcp(s->cfg.listen, s->cfg.token_file != NULL, shown, shownlen);
    if (*lfd < 0) return 1;
    snprintf(scratch_root, rootlen, "%s/folio-serve-XXXXXX", s->cfg.scratch);
    if (!mkdtemp(scratch_root)) {
        fprintf(stderr, "folio: serve: can't make a scratch folder in %s: %s (--scratch DIR)\n",
                s->cfg.scratch, strerror(errno));
        return 5;
    }
    s->cfg.scratch = scratch_root;
    snprintf(s->runs_dir, sizeof s->runs_dir, "%s/runs", scratch_root);
    if (mkdir(s->runs_dir, 0700) < 0 || session_dir(s) < 0) {
        fprintf(stderr, "folio: serve: can't make %s: %s (--session-dir DIR)\n",
                s->cfg.session_dir ? s->cfg.session_dir : s->runs_dir, strerror(errno));
        fo_serve_rmtree(scratch_root);
        return 5;
    }
    s->cfg.folio = fo_serve_find_folio(engine);
    if (s->cfg.folio) fo_session_use_folio(s->cfg.folio);
    s->zygote = fo_serve_zygote_start(&s->cfg, engine, err, sizeof err);
    if (!s->zygote) {
        fprintf(stderr, "folio: serve: %s\n", err);
        fo_serve_rmtree(scratch_root);
        return 5;
    }
    return 0;
}

int fo_serve_main(int argc, char **argv, const char *engine)
{
    static fo_serve_state s;
    char shown[300], scratch_root[4096];
    double grace = 30;
    int zygote = 0, lfd = -1, rc;
    struct MHD_Daemon *d;
    sigset_t set;

    config_defaults(&s.cfg);
    rc = parse_args(argc, argv, &s.cfg, &grace, &zygote);
    if (rc) return rc < 0 ? 0 : rc;
    if (zygote) return fo_serve_zygote_main();
    if (s.cfg.queue == (unsigned)-1) s.cfg.queue = 4 * s.cfg.workers;
    if (!s.cfg.max_cells) s.cfg.max_cells = 4 * s.cfg.workers;
    /* libmicrohttpd's threads never wait (a request that may is deferred to
       a thread of its own, http.c): one per core is enough */
    s.cfg.threads = s.cfg.workers < 2 ? 2 : s.cfg.workers > 16 ? 16 : s.cfg.workers;
    pthread_rwlock_init(&s.tokens_lock, NULL);
    pthread_mutex_init(&s.slots_lock, NULL);
    pthread_cond_init(&s.slots_free, NULL);
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(s.cfg.max_conns);
    /* blocked before start(): the zygote's stderr thread is made there, and
       a thread that left SIGTERM unblocked would take it (and end the
       process) whenever this one is not in sigtimedwait */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    rc = start(&s, engine, &lfd, shown, sizeof shown, scratch_root, sizeof scratch_root);
    if (rc) {
        if (lfd >= 0) close(lfd);
        return rc;
    }
    d = fo_serve_http_start(&s, lfd);
    if (!d) {
        fprintf(stderr, "folio: serve: can't start the HTTP server on %s\n", shown);
        fo_serve_zygote_stop(s.zygote);
        fo_serve_rmtree(scratch_root);
        return 5;
    }
    log_event("{\"event\": \"listening\", \"address\": \"%s\", \"instance\": \"%s\", \"workers\": %u, "
              "\"queue\": %u, \"jail\": %s, \"auth\": %s, \"reuse_workers\": %u}",
              shown, s.cfg.instance, s.cfg.workers, s.cfg.queue, s.cfg.jail ? "true" : "false",
              s.cfg.token_file ? "true" : "false", s.cfg.reuse_jobs > 1 ? s.cfg.reuse_jobs : 0);
    wait_signals(&s, d, &set, grace);
    fo_serve_zygote_stop(s.zygote);
    fo_serve_rmtree(scratch_root);
    if (!strncmp(s.cfg.listen, "unix:", 5)) (void)unlink(s.cfg.listen + 5);
    log_event("{\"event\": \"stopped\", \"threads\": %ld}", count_threads());
    fo_free(s.tokens);
    return 0;
}
