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
 * The wire (SOCK_SEQPACKET, one message each; fds by SCM_RIGHTS):
 *   server -> zygote (control connection): 'J' region + fd  a new request's
 *                      socket, and the size of its child's allocator region
 *   server -> child:   'F' name + fd   an uploaded file, at its relative path
 *                      'S' + fd        the spec (JSON)
 *                      'C' name + fd   a CSV/TSV to convert
 *                      'G' job_head    go
 *   child -> server:   'E' text        part of the diagnostics JSON
 *                      'O' fmt + fd    a written output (read-only)
 *                      'R' int         the fo_status; last message
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
};

typedef struct {
    uint64_t max_bytes;
    double timeout_s;
    char formats[FO_SERVE_MAX_FORMATS][8];
    uint32_t n_formats;
} job_head;

/* ---------------------------------------------------------------- wire */

/* One message: tag, then len bytes of data, with fd (or none when -1). */
static int send_msg(int sock, char tag, const void *data, size_t len, int fd)
{
    char buf[MSG_MAX];

    if (len + 1 > sizeof buf) {
        errno = EMSGSIZE;
        return -1;
    }
    buf[0] = tag;
    if (len)
        memcpy(buf + 1, data, len);
    return fo_fdpass_send(sock, buf, len + 1, &fd, fd >= 0 ? 1 : 0);
}

/* One message into buf (NUL-terminated); *fd gets a passed descriptor or -1.
   Returns the length (tag included), 0 at EOF, -1 on error. */
static ssize_t recv_msg(int sock, char *buf, size_t cap, int *fd)
{
    ssize_t n = fo_fdpass_recv(sock, buf, cap - 1, fd, 1, NULL);

    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* ------------------------------------------------------- the child side */

/* True for a relative path of plain components: no "", ".", "..", no
   leading '/', no backslash or control characters. Shared with http.c. */
int fo_serve_name_ok(const char *name);
int fo_serve_name_ok(const char *name)
{
    size_t len = strlen(name), k, comp = 0;

    if (!len || len > FO_SERVE_MAX_NAME || name[0] == '/')
        return 0;
    for (k = 0; k <= len; k++) {
        unsigned char c = (unsigned char)name[k];
        if (c == '/' || c == '\0') {
            size_t n = k - comp;
            const char *s = name + comp;
            if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
                return 0;
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

    if (!fo_serve_name_ok(name))
        return -1;
    snprintf(path, sizeof path, "%.*s", FO_SERVE_MAX_NAME, name);
    for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
            return -1;
        *slash = '/';
    }
    dst = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (dst < 0)
        return -1;
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
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                fo_serve_rmtree(sub);
            else
                (void)unlink(sub);
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
        if (f && !strncmp(f, dir, len) && f[len] == '/')
            memmove(f, f + len + 1, strlen(f + len + 1) + 1);
    }
}

/* Sends the diagnostics JSON in chunks, then each output, then the status. */
static void child_reply(int sock, fo_status st, const fo_diags *d, const job_head *h)
{
    size_t k;

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
        if (fd < 0 || send_msg(sock, 'O', h->formats[k], strlen(h->formats[k]) + 1, fd) < 0)
            st = FO_ERR_IO;
        if (fd >= 0)
            close(fd);
    }
    int32_t code = (int32_t)st;
    (void)send_msg(sock, 'R', &code, sizeof code, -1);
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
    else if (kind == 'C')
        st = fo_csv_doc(input, &doc, d);
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

/* Receives the job, renders in a private folder, replies, cleans up. */
__attribute__((noreturn))
static void child_main(int sock, uint64_t region)
{
    static char msg[MSG_MAX + 1];
    char dir[64], input[FO_SERVE_MAX_NAME + 1] = "";
    unsigned char rnd[16];
    char *spec = NULL;
    size_t spec_len = 0, k;
    int kind = 0, fd, bad = 0;
    job_head h;
    fo_diags d;
    ssize_t n;

    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    fo_serve_region_begin((size_t)region);
    signal(SIGCHLD, SIG_DFL);
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        _exit(3);
    k = (size_t)snprintf(dir, sizeof dir, "/tmp/folio-r-");
    for (size_t i = 0; i < sizeof rnd; i++)
        k += (size_t)snprintf(dir + k, sizeof dir - k, "%02x", rnd[i]);
    if (mkdir(dir, 0700) < 0 || chdir(dir) < 0)
        _exit(3);
    memset(&h, 0, sizeof h);
    fo_diags_init(&d);
    while ((n = recv_msg(sock, msg, sizeof msg, &fd)) > 0) {
        if (msg[0] == 'G' && (size_t)n == 1 + sizeof h) {
            memcpy(&h, msg + 1, sizeof h);
            break;
        }
        if (fd < 0) {
            bad = 1;
        } else if (msg[0] == 'F') {
            if (copy_in(msg + 1, fd) < 0)
                fo_diags_add(&d, NULL, 0, 0, NULL, NULL, "can't store the upload \"%s\"", msg + 1);
        } else if (msg[0] == 'S' && !spec) {
            kind = 'S';
            spec = fo_fd_read(fd, MAX_SPEC_BYTES, &spec_len);
        } else if (msg[0] == 'C' && copy_in(msg + 1, fd) == 0) {
            kind = 'C';
            snprintf(input, sizeof input, "%.*s", FO_SERVE_MAX_NAME, msg + 1);
        } else {
            bad = 1;
        }
        if (fd >= 0)
            close(fd);
    }
    if (n <= 0 || bad || h.n_formats > FO_SERVE_MAX_FORMATS || (kind == 'S' && !spec))
        _exit(3);
    /* the limits of this one render: CPU seconds, then the wall clock */
    {
        struct rlimit cpu = { (rlim_t)h.timeout_s + 1, (rlim_t)h.timeout_s + 2 };
        (void)setrlimit(RLIMIT_CPU, &cpu);
        alarm((unsigned)h.timeout_s + 1);
    }
    for (k = 0; k < h.n_formats; k++)
        h.formats[k][sizeof h.formats[k] - 1] = '\0';
    fo_status st = d.n ? FO_ERR_IO : child_render(&h, kind, spec, spec_len, input, &d);
    strip_dir(&d, dir);
    child_reply(sock, st, &d, &h);
    if (chdir("/") == 0)
        fo_serve_rmtree(dir);
    _exit(0);
}

/* Preloading, as Android's zygote does: one render of a small built-in spec
   to every format loads the fonts into the face caches of render/core/text.c and
   render/png, and pages in the renderers' code, so each child starts warm.
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

    if (!getcwd(cwd, sizeof cwd) || !mkdtemp(dir) || chdir(dir) < 0)
        return;
    fo_diags_init(&d);
    if (fo_spec_parse(spec, sizeof spec - 1, "warm-up", ".", &doc, &d) == FO_OK)
        (void)fo_render(doc, outs, 5, &opts, NULL, &d);
    fo_doc_free(doc);
    fo_diags_free(&d);
    if (chdir(cwd) == 0)
        fo_serve_rmtree(dir);
    /* what the warm-up freed goes back to the kernel: a child's malloc then
       takes fresh zero pages instead of copying the zygote's (copy-on-write) */
    (void)malloc_trim(0);
}

/* The child forked ahead of the next request (-1 if none): it waits on its
   end of this socket for the request's 'J', so the fork and the child's first
   page faults are paid between requests, not while a client waits. It is a
   fork of the zygote like any child and holds no request data until then. */
static int spare = -1;

__attribute__((noreturn))
static void spare_main(int hand)
{
    static char msg[64];
    uint64_t region = 0;
    int fd;
    ssize_t n;

    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    n = recv_msg(hand, msg, sizeof msg, &fd);
    if (n != 1 + (ssize_t)sizeof region || msg[0] != 'J' || fd < 0)
        _exit(0);   /* the zygote hung up */
    close(hand);
    memcpy(&region, msg + 1, sizeof region);
    child_main(fd, region);
}

static void fork_spare(int ctl)
{
    int sp[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        return;
    pid = fork();
    if (pid == 0) {
        close(ctl);
        close(sp[0]);
        spare_main(sp[1]);
    }
    close(sp[1]);
    if (pid < 0)
        close(sp[0]);
    else
        spare = sp[0];
}

/* One request: to the spare if there is one, else to a child forked now. */
static void hand_out(int ctl, int fd, uint64_t region)
{
    if (spare >= 0) {
        int ok = send_msg(spare, 'J', &region, sizeof region, fd) == 0;
        close(spare);
        spare = -1;
        if (ok)
            return;
    }
    if (fork() == 0) {
        close(ctl);
        child_main(fd, region);
    }
}

/* The zygote: one child per 'J' message on the control connection; children
   are reaped by the kernel (SIGCHLD ignored). Returns when the server hangs up. */
static int zygote_loop(int ctl)
{
    static char msg[64];
    int fd;
    ssize_t n;

    signal(SIGCHLD, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    warm_up();
    fork_spare(ctl);
    while ((n = recv_msg(ctl, msg, sizeof msg, &fd)) > 0) {
        uint64_t region = 0;
        if (msg[0] != 'J' || fd < 0) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        if (n == 1 + (ssize_t)sizeof region)
            memcpy(&region, msg + 1, sizeof region);
        hand_out(ctl, fd, region);
        close(fd);
        fork_spare(ctl);
    }
    return 0;
}

/* Every symbol bound once, here: with lazy binding each child resolved the
   functions the warm-up had not called yet, in every child again, and wrote
   the GOT pages it then had to copy. The jail's environment is the program's
   own (sandbox/jail.c), so the zygote sets LD_BIND_NOW and runs itself again
   once; if that exec fails it simply goes on, lazily bound. */
static void bind_now(void)
{
    static const char *const argv[] = { "folio", "serve", "--zygote", NULL };

    if (getenv("LD_BIND_NOW"))
        return;
    if (setenv("LD_BIND_NOW", "1", 1) == 0)
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
    if (write(1, "R", 1) != 1)
        return 5;
    do
        ctl = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
    while (ctl < 0 && errno == EINTR);
    /* from now on the control connection is the only way in */
    (void)unlink(a.sun_path);
    close(ls);
    if (ctl < 0)
        return 5;
    return zygote_loop(ctl);
}

/* ------------------------------------------------------ the server side */

static void *drain_stderr(void *arg)
{
    fo_serve_zygote *z = arg;
    char buf[4096];
    ssize_t n;

    while ((n = read(z->err_r, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0 && write(2, buf, (size_t)n) < 0)
            break;
    return NULL;
}

static int wait_ready(int fd, double seconds)
{
    struct pollfd pf = { fd, POLLIN, 0 };
    char c = 0;

    if (poll(&pf, 1, (int)(seconds * 1000)) != 1 || read(fd, &c, 1) != 1)
        return -1;
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

    if (z->ctl >= 0)
        close(z->ctl);
    z->ctl = -1;
    if (z->pid > 0) {
        kill(z->pid, SIGKILL);
        (void)waitpid(z->pid, &st, 0);
    }
    z->pid = -1;
    if (z->err_thread_on)
        pthread_join(z->err_thread, NULL);
    z->err_thread_on = 0;
    if (z->jailed) {
        if (z->j.out_r >= 0)
            close(z->j.out_r);
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
    if (rc < 0)
        halt(z);
    return rc;
}

fo_serve_zygote *fo_serve_zygote_start(const fo_serve_config *cfg, const char *engine,
                                       char *err, size_t errlen)
{
    fo_serve_zygote *z = fo_calloc(1, sizeof *z);

    if (!z) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&z->lock, NULL);
    z->cfg = cfg;
    z->engine = engine;
    z->ctl = z->err_r = -1;
    z->pid = -1;
    if (boot(z, err, errlen) < 0) {
        pthread_mutex_destroy(&z->lock);
        fo_free(z);
        return NULL;
    }
    return z;
}

/* A new request socket handed to the zygote; restarts a dead zygote once. */
static int new_child(fo_serve_zygote *z, char *err, size_t errlen)
{
    int sp[2], attempt;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return -1;
    }
    uint64_t region = ((uint64_t)z->cfg->memory_mb << 20) / 8;
    if (region > REGION_MAX)
        region = REGION_MAX;
    pthread_mutex_lock(&z->lock);
    for (attempt = 0; attempt < 2; attempt++) {
        if (z->ctl >= 0 && send_msg(z->ctl, 'J', &region, sizeof region, sp[1]) == 0)
            break;
        halt(z);
        z->restarts++;
        if (boot(z, err, errlen) < 0)
            attempt = 2;
    }
    pthread_mutex_unlock(&z->lock);
    close(sp[1]);
    if (attempt >= 2) {
        close(sp[0]);
        if (!err[0])
            snprintf(err, errlen, "the render zygote is gone and could not be restarted");
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
    if (rc == 0 && job->kind == 'S')
        rc = send_msg(sock, 'S', NULL, 0, job->input_fd);
    if (rc == 0 && job->kind == 'C')
        rc = send_msg(sock, 'C', job->input_name, strlen(job->input_name) + 1, job->input_fd);
    memset(&h, 0, sizeof h);
    h.max_bytes = job->max_bytes;
    h.timeout_s = job->timeout_s;
    h.n_formats = (uint32_t)job->n_formats;
    memcpy(h.formats, job->formats, sizeof h.formats);
    return rc == 0 ? send_msg(sock, 'G', &h, sizeof h, -1) : rc;
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
        if (n <= 0)
            return;
        if (msg[0] == 'E')
            fo_buf_append(diags, msg + 1, (size_t)n - 1);
        else if (msg[0] == 'O' && fd >= 0 && r->n_outs < FO_SERVE_MAX_FORMATS) {
            r->out_fds[r->n_outs++] = fd;
            fd = -1;
        } else if (msg[0] == 'R' && (size_t)n == 1 + sizeof(int32_t)) {
            int32_t code;
            memcpy(&code, msg + 1, sizeof code);
            r->status = code;
            return;
        }
        if (fd >= 0)
            close(fd);
    }
}

int fo_serve_zygote_render(fo_serve_zygote *z, const fo_serve_job *job, fo_serve_result *r,
                           char *err, size_t errlen)
{
    int sock;
    size_t k;

    memset(r, 0, sizeof *r);
    r->status = -1;
    for (k = 0; k < FO_SERVE_MAX_FORMATS; k++)
        r->out_fds[k] = -1;
    err[0] = '\0';
    sock = new_child(z, err, errlen);
    if (sock < 0)
        return -1;
    if (send_job(sock, job) == 0) {
        fo_buf diags = { 0 };
        read_reply(sock, job, r, &diags);
        r->diags_json = fo_buf_take(&diags, NULL);
    }
    close(sock);     /* a child still running gets EOF/EPIPE; its alarm ends it */
    return 0;
}

void fo_serve_result_free(fo_serve_result *r)
{
    size_t k;

    for (k = 0; k < r->n_outs; k++)
        if (r->out_fds[k] >= 0)
            close(r->out_fds[k]);
    r->n_outs = 0;
    fo_free(r->diags_json);
    r->diags_json = NULL;
}

int fo_serve_zygote_pid(const fo_serve_zygote *z)
{
    return z ? (int)z->pid : -1;
}

void fo_serve_zygote_lost(fo_serve_zygote *z)
{
    pthread_mutex_lock(&z->lock);
    z->pid = -1;       /* reaped already: halt must not wait for it */
    if (z->ctl >= 0)
        close(z->ctl);
    z->ctl = -1;
    pthread_mutex_unlock(&z->lock);
}

long fo_serve_zygote_restarts(const fo_serve_zygote *z)
{
    return z ? z->restarts : 0;
}

void fo_serve_zygote_stop(fo_serve_zygote *z)
{
    if (!z)
        return;
    halt(z);
    pthread_mutex_destroy(&z->lock);
    fo_free(z);
}
