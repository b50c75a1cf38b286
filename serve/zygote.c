/* zygote.c — confinement of `folio serve`'s renders: one pre-jailed zygote,
 * a fresh, non-dumpable child per request.
 *
 * Why a zygote: a jail per request (what `folio run --render` does) costs a
 * clone into six namespaces, a new root and the exec of folio-engine with
 * its 36 shared libraries: 8.5 ms of wall time and 6 ms of CPU for the jail
 * alone (README, `make bench`), plus ~15 ms of dynamic loading and font
 * set-up, which would cap this 2-core machine near 100 renders/s. The zygote
 * pays that once: it is folio-engine itself (`serve --zygote`), started by
 * fo_sandbox_jail_start exactly as the render jail of `folio run` is — new
 * user/PID/mount/net/IPC/UTS/cgroup namespaces, uid 1000 mapped to an
 * unprivileged host id, read-only system folders, no network, no
 * capabilities, rlimits, the seccomp filter — and forks a child per render
 * (~0.2 ms). As Chrome's and Android's zygotes do, the child is made
 * non-dumpable at once (siblings cannot ptrace it or read its /proc files),
 * works in a folder of its own with a 128-bit random name, gets a CPU and a
 * wall-clock limit, and exits when done; nothing of one request survives in
 * the zygote, which never touches request data.
 *
 * With --reuse-workers N (off by default) a child is instead a worker of one
 * tenant (one bearer token): up to N of its requests, one at a time, each in
 * a new folder; between them it proves itself clean (worker_dirty) or exits,
 * and the server ends it on any failure, a timeout, or when idle.
 *
 * The wire (SOCK_SEQPACKET, one message each; fds by SCM_RIGHTS):
 *   server -> zygote (control connection): 'J' child_params + fd  a new
 *                      request's socket, and what its child is: one request
 *                      (its allocator region's size) or a reused worker
 *   server -> child:   'F' name + fd   an uploaded file, at its relative path
 *                      'C' name + fd   a CSV/TSV to convert
 *                      'G' job_head    go; with the spec's fd (JSON) for a render
 *   child -> server:   'E' text        part of the diagnostics JSON
 *                      'O' fmt + fd    a written output (read-only), all but the last
 *                      'R' int [+ fd]  the fo_status, with the last output's fd when
 *                                      it is FO_OK; last message of a request
 *                      'K'             (a reused worker, after 'R') clean: ready
 *                                      for the next request on this socket
 *                      'X' why         (a reused worker) not clean: it exits
 * (One message where two would do: a small render's exchange is one message
 * from the server and one back, not two and two.)
 * The control connection is the only way to the zygote: its socket file in
 * the jail's /out is unlinked as soon as the server has connected. */
#define FO_SANDBOX_PRIVATE
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "sandbox/sandbox.h"
#include "sandbox/fdpass.h"
#include "folio.h"
#include "base/buf.h"

#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_MAX 65536
#define SOCK_NAME "zygote.sock"
#define MAX_SPEC_BYTES (64u << 20)
/* A child's allocator region (region.c): an eighth of the jail's memory, at
   most 256 MiB (a small render takes 2-13 MB; a larger one goes on in glibc's
   heap), so a region that is never recycled cannot take the memory limit. */
#define REGION_MAX ((uint64_t)256 << 20)

struct fo_serve_zygote {
    pthread_mutex_t lock;
    const fo_serve_config *cfg;
    const char *engine;
    int ctl;                   /* control connection to the zygote, or -1 */
    pid_t pid;                 /* jail init (jailed) or the zygote (plain) */
    int jailed, err_r, out_dir;
    fo_sandbox_jail j;
    pthread_t err_thread;
    int err_thread_on;
    long restarts;
    /* the keeper: the thread that forks every restarted zygote (keeper()) */
    pthread_t keeper;
    pthread_mutex_t keep_lock;
    pthread_cond_t keep_cond;
    int keep_ask, keep_quit, keep_rc; /* a restart asked for; stop; its result */
    char keep_err[256];
    /* --reuse-workers: the idle workers, each waiting for its tenant */
    pthread_mutex_t pool_lock;
    struct idle_worker *pool;
    size_t n_pool, pool_cap;
    uint32_t leak; /* FOLIO_SERVE_TEST_LEAK (tests only), else 0 */
};

/* A worker between two requests, kept by the server. */
struct idle_worker {
    int sock;
    unsigned char tenant[32];
    uint64_t id;     /* random, never 0: X-Folio-Worker (a count would tell a
                                  tenant how busy the others are) */
    unsigned served; /* requests answered so far */
    double since;    /* fo_now() when its last request ended */
};

typedef struct {
    uint64_t max_bytes;
    double timeout_s;
    char formats[FO_SERVE_MAX_FORMATS][8];
    uint32_t n_formats;
} job_head;

/* What a child is, in the zygote's 'J' message. */
typedef struct {
    uint64_t region;   /* a one-request child's allocator region (region.c) */
    uint64_t max_rss;  /* a worker's RSS bound between requests, bytes */
    double idle_s;     /* a worker ends when no request comes in this long */
    uint32_t max_jobs; /* 0: one request; N > 1: a reused worker of N requests */
    uint32_t leak;     /* test hook (test_leak), 0 otherwise */
} child_params;

/* ---------------------------------------------------------------- wire */

/* One message: tag, then len bytes of data, with fd (or none when -1).
   Most messages are a few bytes: they are built in a small buffer, so the
   zygote's loop stays on the stack page it is on. (A 64 KiB buffer reached a
   page 64 KiB further down, which every fork write-protected and the
   zygote's next request then faulted in again.) */
static int send_msg(int sock, char tag, const void *data, size_t len, int fd)
{
    char small[256], *buf = small;
    int rc;

    if (len + 1 > MSG_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    if (len + 1 > sizeof small && !(buf = malloc(len + 1))) return -1;
    buf[0] = tag;
    if (len) memcpy(buf + 1, data, len);
    rc = fo_fdpass_send(sock, buf, len + 1, &fd, fd >= 0 ? 1 : 0);
    if (buf != small) free(buf);
    return rc;
}

/* One message into buf (NUL-terminated); *fd gets a passed descriptor or -1.
   Returns the length (tag included), 0 at EOF, -1 on error. */
static ssize_t recv_msg(int sock, char *buf, size_t cap, int *fd)
{
    ssize_t n = fo_fdpass_recv(sock, buf, cap - 1, fd, 1, NULL);

    if (n >= 0) buf[n] = '\0';
    return n;
}

/* ------------------------------------------------------- the child side */

/* True for a relative path of plain components: no "", ".", "..", no
   leading '/', no backslash or control characters. Shared with http.c. */
int fo_serve_name_ok(const char *name);
int fo_serve_name_ok(const char *name)
{
    size_t len = strlen(name), k, comp = 0;

    if (!len || len > FO_SERVE_MAX_NAME || name[0] == '/') return 0;
    for (k = 0; k <= len; k++) {
        unsigned char c = (unsigned char)name[k];
        if (c == '/' || c == '\0') {
            size_t n = k - comp;
            const char *s = name + comp;
            if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return 0;
            comp = k + 1;
        } else if (c < 0x20 || c == 0x7f || c == '\\') {
            return 0;
        }
    }
    return 1;
}

/* Creates name (folders as needed, never through a link) from src. */
static int copy_in(const char *name, int src)
{
    char path[FO_SERVE_MAX_NAME + 1], buf[65536];
    char *slash;
    int dst;
    ssize_t n;

    if (!fo_serve_name_ok(name)) return -1;
    snprintf(path, sizeof path, "%.*s", FO_SERVE_MAX_NAME, name);
    for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0700) < 0 && errno != EEXIST) return -1;
        *slash = '/';
    }
    dst = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (dst < 0) return -1;
    while ((n = read(src, buf, sizeof buf)) > 0)
        if (write(dst, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    return close(dst) < 0 || n < 0 ? -1 : 0;
}

void fo_serve_rmtree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;

    if (d) {
        while ((e = readdir(d))) {
            char sub[4096];
            struct stat st;
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                fo_serve_rmtree(sub);
            else (void)unlink(sub);
        }
        closedir(d);
    }
    (void)rmdir(path);
}

/* Diagnostics name files as the client sent them: "data/x.csv", not the
   child's private folder. */
static void strip_dir(fo_diags *d, const char *dir)
{
    size_t len = strlen(dir), k;

    for (k = 0; k < d->n; k++) {
        char *f = d->items[k].file;
        if (f && !strncmp(f, dir, len) && f[len] == '/') memmove(f, f + len + 1, strlen(f + len + 1) + 1);
    }
}

/* Sends the diagnostics JSON in chunks, then each output, the last one with
   the status. */
static void child_reply(int sock, fo_status st, const fo_diags *d, const job_head *h)
{
    size_t k;
    int last = -1;

    if (d->n) {
        const char *json = fo_diags_json(d);
        size_t len = strlen(json), off;
        for (off = 0; off < len; off += MSG_MAX - 2)
            (void)send_msg(sock, 'E', json + off, len - off < MSG_MAX - 2 ? len - off : MSG_MAX - 2, -1);
    }
    for (k = 0; st == FO_OK && k < h->n_formats; k++) {
        char out[32];
        int fd;
        snprintf(out, sizeof out, "result.%s", h->formats[k]);
        fd = open(out, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && k + 1 == h->n_formats) {
            last = fd;
            break;
        }
        if (fd < 0 || send_msg(sock, 'O', h->formats[k], strlen(h->formats[k]) + 1, fd) < 0) st = FO_ERR_IO;
        if (fd >= 0) close(fd);
    }
    int32_t code = (int32_t)st;
    (void)send_msg(sock, 'R', &code, sizeof code, st == FO_OK ? last : -1);
    if (last >= 0) close(last);
}

static fo_status child_render(const job_head *h, int kind, const char *spec, size_t spec_len,
                              const char *input, fo_diags *d)
{
    char outs[FO_SERVE_MAX_FORMATS][32];
    const char *paths[FO_SERVE_MAX_FORMATS];
    fo_render_opts opts;
    fo_doc *doc = NULL;
    fo_status st;
    size_t k;

    for (k = 0; k < h->n_formats && k < FO_SERVE_MAX_FORMATS; k++) {
        snprintf(outs[k], sizeof outs[k], "result.%.7s", h->formats[k]);
        paths[k] = outs[k];
    }
    if (kind == 'S')
        st = fo_spec_parse(spec, spec_len, "spec", ".", &doc, d);
    else if (kind == 'C') st = fo_csv_doc(input, &doc, d);
    else {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "no spec or input was sent");
        st = FO_ERR_INPUT;
    }
    if (st == FO_OK) {
        memset(&opts, 0, sizeof opts);
        opts.max_bytes = h->max_bytes;
        opts.scratch = true;   /* sent as an fd, then removed with the folder */
        st = fo_render(doc, paths, k, &opts, NULL, d);
    }
    fo_doc_free(doc);
    return st;
}

/* A new folder parent/PREFIX<128 random bits, hex> (mode 0700) into dir. */
static int make_dir(char *dir, size_t cap, const char *parent, const char *prefix)
{
    unsigned char rnd[16];
    size_t k;

    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) return -1;
    k = (size_t)snprintf(dir, cap, "%s/%s", parent, prefix);
    for (size_t i = 0; i < sizeof rnd && k < cap; i++)
        k += (size_t)snprintf(dir + k, cap - k, "%02x", rnd[i]);
    return k < cap && mkdir(dir, 0700) == 0 ? 0 : -1;
}

/* The limits of one render: CPU seconds from now (soft; the hard limit one
   second above it for a one-request child, left alone for a worker, which
   could not raise it again), then the wall clock. */
static void job_limits(const job_head *h, int reuse)
{
    struct rlimit cpu;
    struct rusage ru;
    rlim_t used = 0;

    if (reuse && getrusage(RUSAGE_SELF, &ru) == 0)
        used = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1);
    if (getrlimit(RLIMIT_CPU, &cpu) == 0) {
        cpu.rlim_cur = used + (rlim_t)h->timeout_s + 1;
        if (!reuse) cpu.rlim_max = cpu.rlim_cur + 1;
        else if (cpu.rlim_max != RLIM_INFINITY && cpu.rlim_cur > cpu.rlim_max) cpu.rlim_cur = cpu.rlim_max;
        (void)setrlimit(RLIMIT_CPU, &cpu);
    }
    alarm((unsigned)h->timeout_s + 1);
}

/* One request in a new private folder under parent: receives the job,
   renders, replies, removes the folder and what the request allocated.
   wait_ms >= 0: gives up when no request begins within it (a worker's idle
   limit). 1 served, 0 the server hung up or the wait ran out, -1 a bad job. */
static int serve_one(int sock, const char *parent, int wait_ms, int reuse)
{
    static char msg[MSG_MAX + 1];
    char dir[256], input[FO_SERVE_MAX_NAME + 1] = "";
    char *spec = NULL;
    size_t spec_len = 0, k;
    int kind = 0, fd, bad = 0, rc = 1;
    job_head h;
    fo_diags d;
    ssize_t n;

    if (wait_ms >= 0) {
        struct pollfd pf = {sock, POLLIN, 0};
        if (poll(&pf, 1, wait_ms) != 1) return 0;
    }
    if (make_dir(dir, sizeof dir, parent, "folio-r-") < 0 || chdir(dir) < 0) return -1;
    memset(&h, 0, sizeof h);
    fo_diags_init(&d);
    while ((n = recv_msg(sock, msg, sizeof msg, &fd)) > 0) {
        if (msg[0] == 'G' && (size_t)n == 1 + sizeof h) {
            memcpy(&h, msg + 1, sizeof h);
            if (fd >= 0 && !kind) {
                kind = 'S';
                spec = fo_fd_read(fd, MAX_SPEC_BYTES, &spec_len);
            } else if (fd >= 0) {
                bad = 1;
            }
            if (fd >= 0) close(fd);
            break;
        }
        if (fd < 0) {
            bad = 1;
        } else if (msg[0] == 'F') {
            if (copy_in(msg + 1, fd) < 0)
                fo_diags_add(&d, NULL, 0, 0, NULL, NULL, "can't store the upload \"%s\"", msg + 1);
        } else if (msg[0] == 'C' && copy_in(msg + 1, fd) == 0) {
            kind = 'C';
            snprintf(input, sizeof input, "%.*s", FO_SERVE_MAX_NAME, msg + 1);
        } else {
            bad = 1;
        }
        if (fd >= 0) close(fd);
    }
    if (n <= 0 || bad || h.n_formats > FO_SERVE_MAX_FORMATS || (kind == 'S' && !spec)) {
        rc = n == 0 && !bad ? 0 : -1;
    } else {
        job_limits(&h, reuse);
        for (k = 0; k < h.n_formats; k++) h.formats[k][sizeof h.formats[k] - 1] = '\0';
        fo_status st = d.n ? FO_ERR_IO : child_render(&h, kind, spec, spec_len, input, &d);
        strip_dir(&d, dir);
        child_reply(sock, st, &d, &h);
        alarm(0);
    }
    fo_free(spec);
    fo_diags_free(&d);
    if (chdir("/") == 0) fo_serve_rmtree(dir);
    return rc;
}

/* ------------------------------------------- a reused worker's proof */

/* What /proc/self/status says of this process: threads, resident KiB, and
   its signals as the kernel keeps them -- pending (for the thread and the
   process), blocked, ignored and caught (a handler installed). */
enum { SIG_PND, SIG_SHDPND, SIG_BLK, SIG_IGN_SET, SIG_CGT, SIG_N };
typedef struct {
    long threads, rss_kb;
    unsigned long long sig[SIG_N];
} proc_state;

static int read_state(proc_state *p)
{
    static const char *const keys[SIG_N] = {"SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:"};
    char line[256];
    int seen = 0;
    FILE *f = fopen("/proc/self/status", "re");

    memset(p, 0, sizeof *p);
    p->threads = p->rss_kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Threads:", 8)) p->threads = strtol(line + 8, NULL, 10);
        else if (!strncmp(line, "VmRSS:", 6)) p->rss_kb = strtol(line + 6, NULL, 10);
        for (int k = 0; k < SIG_N; k++)
            if (!strncmp(line, keys[k], strlen(keys[k]))) {
                p->sig[k] = strtoull(line + strlen(keys[k]), NULL, 16);
                seen |= 1 << k;
            }
    }
    fclose(f);
    return seen == (1 << SIG_N) - 1 ? 0 : -1;
}

/* What a worker is made of before its first request: each check between
   requests compares with it. */
#define MAX_BASE_FDS 32
typedef struct {
    int n_fds;
    struct {
        int fd;
        dev_t dev;
        ino_t ino;
    } fds[MAX_BASE_FDS];
    proc_state state;
    mode_t umask;
} worker_base;

/* The open descriptors (number, device, inode) into b; -1 if more than fit. */
static int list_fds(worker_base *b)
{
    DIR *dir = opendir("/proc/self/fd");
    struct dirent *e;
    struct stat st;
    int self, rc = 0;

    if (!dir) return -1;
    self = dirfd(dir);
    b->n_fds = 0;
    while ((e = readdir(dir))) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd == self) continue;
        if (b->n_fds == MAX_BASE_FDS || fstat(fd, &st) < 0) {
            rc = -1;
            break;
        }
        b->fds[b->n_fds].fd = fd;
        b->fds[b->n_fds].dev = st.st_dev;
        b->fds[b->n_fds++].ino = st.st_ino;
    }
    closedir(dir);
    return rc;
}

static void take_base(worker_base *b)
{
    memset(b, 0, sizeof *b);
    if (list_fds(b) < 0 || read_state(&b->state) < 0) _exit(3);
    b->umask = umask(077);
    umask(b->umask);
}

static int folder_empty(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *e;
    int n = 0;

    if (!dir) return 0;
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dir);
    return n == 0;
}

static int same_fds(const worker_base *a, const worker_base *b)
{
    if (a->n_fds != b->n_fds) return 0;
    for (int k = 0; k < a->n_fds; k++)
        if (a->fds[k].fd != b->fds[k].fd || a->fds[k].dev != b->fds[k].dev || a->fds[k].ino != b->fds[k].ino)
            return 0;
    return 1;
}

/* Why the worker is not as it was before its first request, or NULL: its
   folder under /tmp empty (the request's folder removed), its working
   folder "/", the same descriptors (numbers and files), one thread, no
   child process (running or exited), the same signals ignored, caught
   and blocked, none pending, no interval timer armed, the same umask, and
   RSS within max_rss. */
static const char *worker_dirty(const worker_base *b, const char *home, uint64_t max_rss)
{
    static const char *const sig_why[SIG_N] = {"pending signals", "pending signals", "signal mask",
                                               "ignored signals", "signal handlers"};
    worker_base now;
    struct itimerval it;
    char cwd[8];
    mode_t um;
    int st;

    if (!folder_empty(home)) return "files";
    if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, "/")) return "working folder";
    if (list_fds(&now) < 0 || !same_fds(&now, b)) return "descriptors";
    if (read_state(&now.state) < 0) return "status";
    if (now.state.threads != 1) return "threads";
    if (waitpid(-1, &st, WNOHANG) != -1 || errno != ECHILD) return "child processes";
    for (int k = 0; k < SIG_N; k++)
        if (now.state.sig[k] != b->state.sig[k]) return sig_why[k];
    for (int which = ITIMER_REAL; which <= ITIMER_PROF; which++)
        if (getitimer(which, &it) < 0 || it.it_value.tv_sec || it.it_value.tv_usec) return "timers";
    um = umask(077);
    umask(um);
    if (um != b->umask) return "umask";
    if (now.state.rss_kb < 0 || (uint64_t)now.state.rss_kb * 1024 > max_rss) return "memory";
    return NULL;
}

/* Test hook (FOLIO_SERVE_TEST_LEAK, read by the server, never by a
   request): leaves what a compromised render might, so the test of the
   proof can see the worker refuse to serve again. */
static void leak_handler(int sig) { (void)sig; }

static void test_leak(uint32_t leak, const char *home)
{
    char path[300];

    if (leak == 1) (void)open("/dev/null", O_RDONLY);
    if (leak == 2) {
        snprintf(path, sizeof path, "%s/left-over", home);
        close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    }
    if (leak == 3 && fork() == 0) _exit(0);
    if (leak == 4) signal(SIGUSR1, leak_handler);
    if (leak == 6) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR2);
        (void)sigprocmask(SIG_BLOCK, &set, NULL);
    }
    if (leak == 5) {
        struct itimerval it = {{0, 0}, {100, 0}};
        (void)setitimer(ITIMER_VIRTUAL, &it, NULL);
    }
}

/* A reused worker keeps the heap pages its renders freed, for the next
   render. glibc gave them back to the kernel at the end of each render (the
   heap's top over its trim threshold, which glibc sets itself from the
   blocks freed: ~1.3 MiB for a small PDF), and the next render faulted each
   page in again, zero-filled: 117 page faults of a reused worker's PDF
   render, ~0.6 ms of its 4.2 ms on a VM whose page faults trap (perf,
   issue 39). Blocks up to KEEP_MMAP come from the heap, not from an mmap of
   their own that free unmaps; up to KEEP_TOP free bytes at the heap's top
   stay mapped. RSS is still bounded by --worker-memory (worker_dirty). What
   the kept pages hold is what glibc's free lists held already: memory of
   this tenant's earlier requests, which a render working as designed never
   reads (docs/serve.md, "What each mode isolates"). */
#define KEEP_MMAP ((size_t)4 << 20)
#define KEEP_TOP ((size_t)16 << 20)

static void keep_heap(uint64_t max_rss)
{
    size_t top = KEEP_TOP < max_rss / 4 ? KEEP_TOP : (size_t)(max_rss / 4);
    (void)mallopt(M_MMAP_THRESHOLD, (int)KEEP_MMAP);
    (void)mallopt(M_TRIM_THRESHOLD, (int)top);
}

/* A reused worker (--reuse-workers): up to p->max_jobs requests of one
   tenant on this socket, each in a new folder under a folder of its own
   (also its TMPDIR). After each request it proves itself clean
   (worker_dirty) and says so ('K'), or says why not ('X') and exits; it
   exits too after its last request, or when none comes within p->idle_s. */
static __attribute__((noreturn)) void worker_main(int sock, const child_params *p)
{
    char home[64];
    worker_base b;
    int wait_ms = (int)(p->idle_s * 1000) + 5000;

    if (make_dir(home, sizeof home, "/tmp", "folio-w-") < 0 || setenv("TMPDIR", home, 1) < 0 ||
        chdir("/") < 0)
        _exit(3);
    keep_heap(p->max_rss);
    take_base(&b);
    for (uint32_t jobs = 1;; jobs++) {
        const char *why;
        if (serve_one(sock, home, jobs == 1 ? -1 : wait_ms, 1) <= 0 || jobs >= p->max_jobs) break;
        test_leak(p->leak, home);
        why = worker_dirty(&b, home, p->max_rss);
        if (why) {
            (void)send_msg(sock, 'X', why, strlen(why) + 1, -1);
            break;
        }
        if (send_msg(sock, 'K', NULL, 0, -1) < 0) break;
    }
    fo_serve_rmtree(home);
    _exit(0);
}

/* A child of the zygote with its request socket: one request (the
   default), or a reused worker. */
static __attribute__((noreturn)) void child_main(int sock, const child_params *p)
{
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    signal(SIGCHLD, SIG_DFL);
    if (p->max_jobs > 1) worker_main(sock, p);
    fo_serve_region_begin((size_t)p->region);
    (void)serve_one(sock, "/tmp", -1, 0);
    _exit(0);
}

/* Preloading, as Android's zygote does: one render of a small built-in spec
   to every format loads the fonts into the face caches of render/core/text.c and
   render/png, and pages in the renderers' code, so each child starts warm;
   the workbooks' parts it deflates are learned (fo_serve_warm_learn), so a
   child's part with the same bytes is not deflated again.
   The spec is ours, not a request's: nothing of a request is ever held here. */
static void warm_up(void)
{
    static const char spec[] =
        "{\"folio\": 1, \"title\": \"warm-up\", \"data\": {\"d\": {\"columns\": ["
        "{\"name\": \"k\", \"type\": \"text\"}, {\"name\": \"v\", \"type\": \"number\"}],"
        " \"rows\": [[\"a\", 1], [\"b\", 2]]}}, \"blocks\": [{\"type\": \"heading\", \"text\": \"W\"},"
        " {\"type\": \"paragraph\", \"text\": \"**w** _w_\"}, {\"type\": \"table\", \"data\": \"d\"},"
        " {\"type\": \"chart\", \"kind\": \"bar\", \"data\": \"d\", \"x\": \"k\", \"y\": [\"v\"]}]}";
    static const char *const outs[] = { "w.xlsx", "w.docx", "w.pptx", "w.pdf", "w.png" };
    char dir[] = "/tmp/folio-warm-XXXXXX", cwd[4096];
    fo_render_opts opts = { .scratch = true };
    fo_doc *doc = NULL;
    fo_diags d;

    if (!getcwd(cwd, sizeof cwd) || !mkdtemp(dir) || chdir(dir) < 0) return;
    fo_diags_init(&d);
    if (fo_serve_warm_learn) fo_serve_warm_learn(true);
    if (fo_spec_parse(spec, sizeof spec - 1, "warm-up", ".", &doc, &d) == FO_OK)
        (void)fo_render(doc, outs, 5, &opts, NULL, &d);
    if (fo_serve_warm_learn) fo_serve_warm_learn(false);
    fo_doc_free(doc);
    fo_diags_free(&d);
    if (chdir(cwd) == 0) fo_serve_rmtree(dir);
    /* what the warm-up freed goes back to the kernel: a child's malloc then
       takes fresh zero pages instead of copying the zygote's (copy-on-write) */
    (void)malloc_trim(0);
}

/* A child of the zygote: glibc's _Fork, a fork without the pthread_atfork
   handlers. The zygote is single-threaded, so no lock of glibc's needs them;
   the handlers the linked libraries register (GnuTLS, p11-kit, OpenSSL: to
   re-seed and re-initialise what a render never uses) made every child run,
   and page in, their code: 0.6 ms of CPU per render on the CI's VM
   (docs/serve.md). No render child uses a random generator of a library's
   own; the child's folder names come from getrandom. */
static pid_t fork_child(void) { return _Fork(); }

/* The spare: the child forked ahead of the next request. It waits on its
   end of a socket for the request's 'J', so the fork and the child's first
   page faults are paid between requests, not while a client waits. It is a
   fork of the zygote like any child and holds no request data until then.
   The zygote's end of that socket (-1 if none) and its message buffer are
   the loop's locals, not statics: between requests the zygote writes no page
   of its own data, only its stack, so it takes that many fewer faults after
   each fork (each written page one, with a TLB flush). */
__attribute__((noreturn))
static void spare_main(int hand)
{
    static char msg[64];
    child_params p;
    int fd;
    ssize_t n;

    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    n = recv_msg(hand, msg, sizeof msg, &fd);
    if (n != 1 + (ssize_t)sizeof p || msg[0] != 'J' || fd < 0) _exit(0); /* the zygote hung up */
    close(hand);
    memcpy(&p, msg + 1, sizeof p);
    child_main(fd, &p);
}

static void fork_spare(int ctl, int *spare)
{
    int sp[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return;
    pid = fork_child();
    if (pid == 0) {
        close(ctl);
        close(sp[0]);
        spare_main(sp[1]);
    }
    close(sp[1]);
    if (pid < 0)
        close(sp[0]);
    else *spare = sp[0];
}

/* One request: to the spare if there is one, else to a child forked now. */
static void hand_out(int ctl, int fd, const child_params *p, int *spare)
{
    if (*spare >= 0) {
        int ok = send_msg(*spare, 'J', p, sizeof *p, fd) == 0;
        close(*spare);
        *spare = -1;
        if (ok) return;
    }
    if (fork_child() == 0) {
        close(ctl);
        child_main(fd, p);
    }
}

/* The zygote: one child per 'J' message on the control connection; children
   are reaped by the kernel (SIGCHLD ignored). Returns when the server hangs up. */
static int zygote_loop(int ctl)
{
    char msg[64];
    int fd, spare = -1;
    ssize_t n;

    signal(SIGCHLD, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    (void)fo_serve_huge_text();
    warm_up();
    fork_spare(ctl, &spare);
    while ((n = recv_msg(ctl, msg, sizeof msg, &fd)) > 0) {
        child_params p;
        if (msg[0] != 'J' || fd < 0 || n != 1 + (ssize_t)sizeof p) {
            if (fd >= 0) close(fd);
            continue;
        }
        memcpy(&p, msg + 1, sizeof p);
        hand_out(ctl, fd, &p, &spare);
        close(fd);
        fork_spare(ctl, &spare);
    }
    return 0;
}

/* Every symbol bound once, here: with lazy binding each child resolved the
   functions the warm-up had not called yet, in every child again, and wrote
   the GOT pages it then had to copy. The jail's environment is the program's
   own (sandbox/jail.c), so the zygote sets LD_BIND_NOW and runs itself again
   once; if that exec fails it simply goes on, lazily bound.
   The same exec turns off glibc's restartable sequences: the kernel writes a
   thread's rseq area (in its thread control block) on its way back to user
   space, so after every fork the zygote, and then each child, took a
   copy-on-write fault for that page. Nothing in folio uses rseq (glibc's
   sched_getcpu then makes a system call). */
#define NO_RSEQ "glibc.pthread.rseq=0"
static void bind_now(void)
{
    static const char *const argv[] = { "folio", "serve", "--zygote", NULL };

    if (getenv("LD_BIND_NOW")) return;
    if (setenv("LD_BIND_NOW", "1", 1) == 0 && setenv("GLIBC_TUNABLES", NO_RSEQ, 1) == 0)
        (void)execv("/proc/self/exe", (char *const *)argv);   /* execv only reads the strings */
}

int fo_serve_zygote_main(void)
{
    struct sockaddr_un a;
    int ls, ctl;

    bind_now();

    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/out/" SOCK_NAME);
    ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 1) < 0) {
        fprintf(stderr, "folio: serve: zygote: can't listen on %s: %s\n", a.sun_path, strerror(errno));
        return 5;
    }
    if (write(1, "R", 1) != 1) return 5;
    do
        ctl = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
    while (ctl < 0 && errno == EINTR);
    /* from now on the control connection is the only way in */
    (void)unlink(a.sun_path);
    close(ls);
    if (ctl < 0) return 5;
    return zygote_loop(ctl);
}

/* ------------------------------------------------------ the server side */

static void *drain_stderr(void *arg)
{
    fo_serve_zygote *z = arg;
    char buf[4096];
    ssize_t n;

    while ((n = read(z->err_r, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0 && write(2, buf, (size_t)n) < 0) break;
    return NULL;
}

static int wait_ready(int fd, double seconds)
{
    struct pollfd pf = { fd, POLLIN, 0 };
    char c = 0;

    if (poll(&pf, 1, (int)(seconds * 1000)) != 1 || read(fd, &c, 1) != 1) return -1;
    return c == 'R' ? 0 : -1;
}

static int start_jailed(fo_serve_zygote *z, char *err, size_t errlen)
{
    static const char *const argv[] = { "/run/folio", "serve", "--zygote", NULL };
    fo_sandbox_plan p;
    struct sockaddr_un a;

    memset(&p, 0, sizeof p);
    p.argv = (char **)argv;      /* only read, and passed on to execve */
    p.in_dir = "work";
    p.timeout_s = 1e9;
    p.memory_mb = z->cfg->memory_mb;
    p.max_bytes = fo_sandbox_render_fsize(z->cfg->memory_mb, z->cfg->max_bytes);
    p.pids = 64 + 4 * (z->cfg->workers + z->cfg->queue);
    p.nofile = 256;
    p.cpus = (double)z->cfg->workers;   /* each of the workers renders on one CPU */
    p.net = FO_NET_NONE;
    p.engine = z->engine;
    p.quiet = 1;
    if (fo_sandbox_jail_start(&p, &z->j, (int)z->restarts) != 0) {
        snprintf(err, errlen, "can't start the render jail (see the message above)");
        return -1;
    }
    z->jailed = 1;
    z->pid = z->j.pid;
    z->err_r = z->j.err_r;
    if (wait_ready(z->j.out_r, 10) < 0) {
        snprintf(err, errlen, "the render zygote did not start");
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/" SOCK_NAME, z->j.out_dir);
    z->ctl = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (z->ctl < 0 || connect(z->ctl, (struct sockaddr *)&a, sizeof a) < 0) {
        snprintf(err, errlen, "can't reach the render zygote: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int start_plain(fo_serve_zygote *z, char *err, size_t errlen)
{
    int sp[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(sp[0]);
        close(sp[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        close(sp[0]);
        _exit(zygote_loop(sp[1]));
    }
    close(sp[1]);
    z->pid = pid;
    z->ctl = sp[0];
    return 0;
}

static void halt(fo_serve_zygote *z)
{
    int st;

    if (z->ctl >= 0) close(z->ctl);
    z->ctl = -1;
    if (z->pid > 0) {
        kill(z->pid, SIGKILL);
        (void)waitpid(z->pid, &st, 0);
    }
    z->pid = -1;
    if (z->err_thread_on) pthread_join(z->err_thread, NULL);
    z->err_thread_on = 0;
    if (z->jailed) {
        if (z->j.out_r >= 0) close(z->j.out_r);
        z->j.out_r = -1;
        fo_sandbox_jail_close(&z->j);
    }
    z->jailed = 0;
    z->err_r = -1;
}

static int boot(fo_serve_zygote *z, char *err, size_t errlen)
{
    int rc = z->cfg->jail ? start_jailed(z, err, errlen) : start_plain(z, err, errlen);

    if (rc == 0 && z->err_r >= 0 && pthread_create(&z->err_thread, NULL, drain_stderr, z) == 0)
        z->err_thread_on = 1;
    if (rc < 0) halt(z);
    return rc;
}

/* The keeper thread: boots the zygote when asked (keep_ask), until
   keep_quit. The zygote's child asks the kernel for SIGKILL when its parent
   dies (PR_SET_PDEATHSIG, here and in the jail), and the kernel sends it
   when the *thread* that forked it ends, not the process: a zygote forked
   from a request's thread died with that thread (http.c ends it a while
   after its last request). This thread lives as long as the server. */
static void *keeper(void *arg)
{
    fo_serve_zygote *z = arg;

    pthread_mutex_lock(&z->keep_lock);
    for (;;) {
        while (!z->keep_ask && !z->keep_quit) pthread_cond_wait(&z->keep_cond, &z->keep_lock);
        if (!z->keep_ask) break;
        z->keep_err[0] = '\0';
        z->keep_rc = boot(z, z->keep_err, sizeof z->keep_err);
        z->keep_ask = 0;
        pthread_cond_broadcast(&z->keep_cond);
    }
    pthread_mutex_unlock(&z->keep_lock);
    return NULL;
}

/* boot() run on the keeper thread; the caller holds z->lock. */
static int reboot(fo_serve_zygote *z, char *err, size_t errlen)
{
    int rc;

    pthread_mutex_lock(&z->keep_lock);
    z->keep_ask = 1;
    pthread_cond_broadcast(&z->keep_cond);
    while (z->keep_ask) pthread_cond_wait(&z->keep_cond, &z->keep_lock);
    rc = z->keep_rc;
    snprintf(err, errlen, "%s", z->keep_err);
    pthread_mutex_unlock(&z->keep_lock);
    return rc;
}

/* Starts the keeper once the first zygote runs (it was forked by the main
   thread, which lives as long as the server); halts that zygote if the
   keeper can't be started. */
static int start_keeper(fo_serve_zygote *z, char *err, size_t errlen)
{
    int e = pthread_create(&z->keeper, NULL, keeper, z);

    if (e == 0) return 0;
    halt(z);
    snprintf(err, errlen, "can't start the zygote's keeper thread: %s", strerror(e));
    return -1;
}

static void stop_keeper(fo_serve_zygote *z)
{
    pthread_mutex_lock(&z->keep_lock);
    z->keep_quit = 1;
    pthread_cond_broadcast(&z->keep_cond);
    pthread_mutex_unlock(&z->keep_lock);
    pthread_join(z->keeper, NULL);
}

static void zygote_free(fo_serve_zygote *z)
{
    pthread_mutex_destroy(&z->lock);
    pthread_mutex_destroy(&z->pool_lock);
    pthread_mutex_destroy(&z->keep_lock);
    pthread_cond_destroy(&z->keep_cond);
    fo_free(z->pool);
    fo_free(z);
}

fo_serve_zygote *fo_serve_zygote_start(const fo_serve_config *cfg, const char *engine,
                                       char *err, size_t errlen)
{
    fo_serve_zygote *z = fo_calloc(1, sizeof *z);

    err[0] = '\0';
    if (!z) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&z->lock, NULL);
    pthread_mutex_init(&z->pool_lock, NULL);
    pthread_mutex_init(&z->keep_lock, NULL);
    pthread_cond_init(&z->keep_cond, NULL);
    z->cfg = cfg;
    z->engine = engine;
    z->ctl = z->err_r = -1;
    z->pid = -1;
    z->leak = (uint32_t)atoi(getenv("FOLIO_SERVE_TEST_LEAK") ? getenv("FOLIO_SERVE_TEST_LEAK") : "0");
    if (cfg->reuse_jobs > 1) {
        z->pool_cap = 2 * (size_t)cfg->workers;
        z->pool = fo_calloc(z->pool_cap, sizeof *z->pool);
    }
    if ((cfg->reuse_jobs > 1 && !z->pool) || boot(z, err, errlen) < 0 || start_keeper(z, err, errlen) < 0) {
        if (!err[0]) snprintf(err, errlen, "out of memory");
        zygote_free(z);
        return NULL;
    }
    return z;
}

/* A new request socket handed to the zygote for a one-request child, or
   (reuse) a worker; restarts a dead zygote once (on the keeper thread). */
static int new_child(fo_serve_zygote *z, int reuse, char *err, size_t errlen)
{
    child_params p;
    int sp[2], attempt;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return -1;
    }
    memset(&p, 0, sizeof p);
    if (reuse) {
        p.max_jobs = z->cfg->reuse_jobs;
        p.max_rss = (uint64_t)z->cfg->worker_memory_mb << 20;
        p.idle_s = z->cfg->worker_idle_s;
        p.leak = z->leak;
    } else {
        p.region = ((uint64_t)z->cfg->memory_mb << 20) / 8;
        if (p.region > REGION_MAX) p.region = REGION_MAX;
    }
    pthread_mutex_lock(&z->lock);
    for (attempt = 0; attempt < 2; attempt++) {
        if (z->ctl >= 0 && send_msg(z->ctl, 'J', &p, sizeof p, sp[1]) == 0) break;
        halt(z);
        z->restarts++;
        if (reboot(z, err, errlen) < 0) attempt = 2;
    }
    pthread_mutex_unlock(&z->lock);
    close(sp[1]);
    if (attempt >= 2) {
        close(sp[0]);
        if (!err[0]) snprintf(err, errlen, "the render zygote is gone and could not be restarted");
        return -1;
    }
    return sp[0];
}

static int send_job(int sock, const fo_serve_job *job)
{
    job_head h;
    size_t k;
    int rc = 0;

    for (k = 0; rc == 0 && k < job->n_files; k++)
        rc = send_msg(sock, 'F', job->names[k], strlen(job->names[k]) + 1, job->fds[k]);
    if (rc == 0 && job->kind == 'C')
        rc = send_msg(sock, 'C', job->input_name, strlen(job->input_name) + 1, job->input_fd);
    memset(&h, 0, sizeof h);
    h.max_bytes = job->max_bytes;
    h.timeout_s = job->timeout_s;
    h.n_formats = (uint32_t)job->n_formats;
    memcpy(h.formats, job->formats, sizeof h.formats);
    return rc == 0 ? send_msg(sock, 'G', &h, sizeof h, job->kind == 'S' ? job->input_fd : -1) : rc;
}

/* Reads the child's reply until 'R', EOF or the deadline. */
static void read_reply(int sock, const fo_serve_job *job, fo_serve_result *r, fo_buf *diags)
{
    static __thread char msg[MSG_MAX + 1];
    double deadline = fo_now() + job->timeout_s + 3;

    for (;;) {
        struct pollfd pf = { sock, POLLIN, 0 };
        double left = deadline - fo_now();
        ssize_t n;
        int fd;

        if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0) {
            r->timed_out = 1;
            return;
        }
        n = recv_msg(sock, msg, sizeof msg, &fd);
        if (n <= 0) return;
        if (msg[0] == 'E')
            fo_buf_append(diags, msg + 1, (size_t)n - 1);
        else if (msg[0] == 'O' && fd >= 0 && r->n_outs < FO_SERVE_MAX_FORMATS) {
            r->out_fds[r->n_outs++] = fd;
            fd = -1;
        } else if (msg[0] == 'R' && (size_t)n == 1 + sizeof(int32_t)) {
            int32_t code;
            memcpy(&code, msg + 1, sizeof code);
            r->status = code;
            if (fd >= 0 && r->n_outs < FO_SERVE_MAX_FORMATS) r->out_fds[r->n_outs++] = fd;
            else if (fd >= 0) close(fd);
            return;
        }
        if (fd >= 0) close(fd);
    }
}

/* ------------------------------------------ reused workers (the pool) */

/* Ends an idle worker (its socket closed: it gets EOF and exits), counted
   as replaced for why. */
static void end_worker(int sock, const char *why)
{
    close(sock);
    fo_serve_metrics_worker(why);
}

/* Removes pool entry k, keeping the others in order (oldest first). */
static struct idle_worker pool_remove(fo_serve_zygote *z, size_t k)
{
    struct idle_worker w = z->pool[k];

    memmove(z->pool + k, z->pool + k + 1, (z->n_pool - k - 1) * sizeof *z->pool);
    z->n_pool--;
    return w;
}

/* An idle worker of tenant taken out of the pool (sock -1: none), the one
   whose proof has arrived first, else the oldest. Ends workers idle longer
   than --worker-idle on the way. */
static struct idle_worker pool_take(fo_serve_zygote *z, const unsigned char *tenant)
{
    struct idle_worker w = {.sock = -1};
    double now = fo_now();
    size_t k, pick = SIZE_MAX;

    pthread_mutex_lock(&z->pool_lock);
    for (k = 0; k < z->n_pool;) {
        if (now - z->pool[k].since > z->cfg->worker_idle_s) {
            end_worker(pool_remove(z, k).sock, "idle");
            continue;
        }
        if (!memcmp(z->pool[k].tenant, tenant, 32)) {
            struct pollfd pf = {z->pool[k].sock, POLLIN, 0};
            if (pick == SIZE_MAX) pick = k;
            if (poll(&pf, 1, 0) == 1) {
                pick = k;
                break;
            }
        }
        k++;
    }
    if (pick != SIZE_MAX) w = pool_remove(z, pick);
    pthread_mutex_unlock(&z->pool_lock);
    return w;
}

/* Back into the pool after a request; the least recently used idle
   worker is ended when the pool is full. */
static void pool_give(fo_serve_zygote *z, const struct idle_worker *w)
{
    pthread_mutex_lock(&z->pool_lock);
    if (z->n_pool == z->pool_cap) end_worker(pool_remove(z, 0).sock, "evicted");
    z->pool[z->n_pool] = *w;
    z->pool[z->n_pool++].since = fo_now();
    pthread_mutex_unlock(&z->pool_lock);
}

/* The worker's word after its last request: NULL when it proved itself
   clean ('K'), else why it is not to be used ("unclean", "memory", "gone"). */
static const char *worker_word(int sock)
{
    struct pollfd pf = {sock, POLLIN, 0};
    char msg[64];
    int fd = -1;
    ssize_t n;

    if (poll(&pf, 1, 5000) != 1) return "gone";
    n = recv_msg(sock, msg, sizeof msg, &fd);
    if (fd >= 0) close(fd);
    if (n == 1 && msg[0] == 'K') {
        pf.revents = 0; /* and it has not died since */
        return poll(&pf, 1, 0) == 0 ? NULL : "gone";
    }
    if (n > 1 && msg[0] == 'X') return strcmp(msg + 1, "memory") ? "unclean" : "memory";
    return "gone";
}

/* A worker for tenant: an idle one that proves itself clean, else a new one. */
static struct idle_worker worker_for(fo_serve_zygote *z, const unsigned char *tenant, char *err,
                                     size_t errlen)
{
    struct idle_worker w;
    const char *why;

    for (;;) {
        w = pool_take(z, tenant);
        if (w.sock < 0) break;
        if (!(why = worker_word(w.sock))) {
            fo_serve_metrics_worker("reused");
            return w;
        }
        end_worker(w.sock, why);
    }
    memset(&w, 0, sizeof w);
    w.sock = new_child(z, 1, err, errlen);
    if (w.sock >= 0) {
        memcpy(w.tenant, tenant, 32);
        while (!w.id && getrandom(&w.id, sizeof w.id, 0) == (ssize_t)sizeof w.id)
            ;
        fo_serve_metrics_worker("started");
    }
    return w;
}

/* After a request: the worker goes back to the pool when the render ended
   as a render should (written, or refused as a bad spec: FO_ERR_INPUT,
   FO_ERR_UNSUPPORTED) and it has requests left; else it is ended. */
static void worker_done(fo_serve_zygote *z, struct idle_worker *w, const fo_serve_result *r)
{
    const char *why = NULL;

    w->served++;
    if (r->timed_out) why = "timeout";
    else if (r->status != FO_OK && r->status != FO_ERR_INPUT && r->status != FO_ERR_UNSUPPORTED)
        why = "failure";
    else if (w->served >= z->cfg->reuse_jobs) why = "count";
    if (why) end_worker(w->sock, why);
    else pool_give(z, w);
}

int fo_serve_zygote_render(fo_serve_zygote *z, const fo_serve_job *job, const unsigned char *tenant,
                           fo_serve_result *r, char *err, size_t errlen)
{
    struct idle_worker w = {.sock = -1};
    int reuse = tenant && z->cfg->reuse_jobs > 1;
    size_t k;

    memset(r, 0, sizeof *r);
    r->status = -1;
    for (k = 0; k < FO_SERVE_MAX_FORMATS; k++) r->out_fds[k] = -1;
    err[0] = '\0';
    if (reuse) w = worker_for(z, tenant, err, errlen);
    else w.sock = new_child(z, 0, err, errlen);
    if (w.sock < 0) return -1;
    int sent = send_job(w.sock, job) == 0;
    if (!sent && reuse && w.served) {
        /* the worker died after its proof, before it took the job: another */
        end_worker(w.sock, "gone");
        w = worker_for(z, tenant, err, errlen);
        if (w.sock < 0) return -1;
        sent = send_job(w.sock, job) == 0;
    }
    if (sent) {
        fo_buf diags = { 0 };
        read_reply(w.sock, job, r, &diags);
        r->diags_json = fo_buf_take(&diags, NULL);
    }
    r->worker = w.id;
    if (reuse) worker_done(z, &w, r);
    else close(w.sock); /* a child still running gets EOF/EPIPE; its alarm ends it */
    return 0;
}

void fo_serve_result_free(fo_serve_result *r)
{
    size_t k;

    for (k = 0; k < r->n_outs; k++)
        if (r->out_fds[k] >= 0) close(r->out_fds[k]);
    r->n_outs = 0;
    fo_free(r->diags_json);
    r->diags_json = NULL;
}

int fo_serve_zygote_pid(fo_serve_zygote *z)
{
    if (!z) return -1;
    pthread_mutex_lock(&z->lock);
    int pid = (int)z->pid;
    pthread_mutex_unlock(&z->lock);
    return pid;
}

void fo_serve_zygote_lost(fo_serve_zygote *z, int pid)
{
    pthread_mutex_lock(&z->lock);
    if (z->pid == pid) { /* not already replaced by a request's restart */
        z->pid = -1;     /* reaped already: halt must not wait for it */
        if (z->ctl >= 0) close(z->ctl);
        z->ctl = -1;
    }
    pthread_mutex_unlock(&z->lock);
}

long fo_serve_zygote_restarts(const fo_serve_zygote *z)
{
    return z ? z->restarts : 0;
}

void fo_serve_zygote_stop(fo_serve_zygote *z)
{
    if (!z) return;
    for (size_t k = 0; k < z->n_pool; k++) close(z->pool[k].sock);
    halt(z);
    stop_keeper(z);
    zygote_free(z);
}
