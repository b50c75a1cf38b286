/* run.c — `folio run`: plan -> open inputs -> jail -> supervise (stream output,
 * enforce the wall clock) -> collect /out -> render result.json in a second
 * jail -> write --out DIR and manifest.json -> exit code (PRODUCT.md §1, §5). */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"
#include "base/stage.h"
#include "base/sha256.h"
#include "base/usage.h"
#include "sandbox/egress/egress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Last FO_SANDBOX_TAIL bytes of a stream, and how many there were. The ring
   itself is static storage (tail_store) that is only touched once written:
   zeroing 256 KiB on every launch was a measurable share of its cost. */
typedef struct {
    char *buf;                   /* FO_SANDBOX_TAIL bytes */
    size_t start, len;
    uint64_t total;
} tail_buf;

static char tail_store[4][FO_SANDBOX_TAIL];  /* program out/err, render out/err */
static char echo_store[4][FO_SANDBOX_ECHO_PENDING];  /* their echo queues, the same way */

typedef struct {
    int have_status, wstatus, timed_out, setup_failed;
    int fsize_hit;               /* failed with a file cut at the ceiling in /out */
    double seconds;
    long oom_kills, pids_max;
    const char *memory_via;
    tail_buf out, err;
    fo_sandbox_echo eout, eerr;  /* the live echo of each */
    char *echo_store[2];
} outcome;

static void tail_add(tail_buf *t, const char *s, size_t n)
{
    size_t k;

    t->total += n;
    if (n >= FO_SANDBOX_TAIL) {
        s += n - FO_SANDBOX_TAIL;
        n = FO_SANDBOX_TAIL;
    }
    for (k = 0; k < n; k++) {
        size_t pos = (t->start + t->len) % FO_SANDBOX_TAIL;
        t->buf[pos] = s[k];
        if (t->len < FO_SANDBOX_TAIL)
            t->len++;
        else t->start = (t->start + 1) % FO_SANDBOX_TAIL;
    }
}

/* Writes all of s to fd, waiting for a non-blocking fd (fo_sandbox_std_nonblocking)
   at most until `until`; gives up when the reader is gone or stalled. */
/* Reads one chunk of stream k into its tail and echo; 0 at EOF. */
static int drain(int fd, tail_buf *t, fo_sandbox_echo *e)
{
    char buf[16384];
    ssize_t r = read(fd, buf, sizeof buf);

    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
    if (r <= 0) return 0;
    tail_add(t, buf, (size_t)r);
    fo_sandbox_echo_add(e, buf, (size_t)r);
    return 1;
}

/* Streams stdout/stderr until both close and init has reported, killing the
   whole PID namespace (by killing its init) at the deadline. The echo never
   blocks: while a stream's echo queue is full that stream is not read (the
   program waits on its own write), and the deadline holds regardless. */
static void supervise(const fo_sandbox_plan *p, fo_sandbox_jail *j, outcome *o,
                      int echo_out, int echo_err)
{
    double start = fo_now(), deadline = start + p->timeout_s, grace = 0, until;
    int fds[3] = { j->out_r, j->err_r, j->ctl }, st;
    fo_sandbox_echo *echo[2] = { &o->eout, &o->eerr };
    tail_buf *tails[2] = { &o->out, &o->err };

    fo_sandbox_echo_open(&o->eout, echo_out, "stdout", o->echo_store[0]);
    fo_sandbox_echo_open(&o->eerr, echo_err, "stderr", o->echo_store[1]);
    while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
        struct pollfd pf[5];
        double left = (o->timed_out ? grace : deadline) - fo_now();
        int k, n;

        if (left <= 0) {
            if (o->timed_out)
                break;                               /* should not happen: give up */
            o->timed_out = 1;
            if (kill(j->pid, SIGKILL) < 0 && errno != ESRCH)
                fprintf(stderr, "folio: run: can't kill the jail: %s\n", strerror(errno));
            grace = fo_now() + 5;
            continue;
        }
        for (k = 0; k < 2; k++) {
            /* after the kill, read on regardless: what does not fit is dropped */
            pf[k].fd = fo_sandbox_echo_full(echo[k]) && !o->timed_out ? -1 : fds[k];
            pf[k].events = POLLIN;
            pf[3 + k].fd = fo_sandbox_echo_pending(echo[k]) ? echo[k]->fd : -1;
            pf[3 + k].events = POLLOUT;
        }
        pf[2].fd = fds[2];
        pf[2].events = POLLIN;
        for (k = 0; k < 5; k++) pf[k].revents = 0;
        n = poll(pf, 5, (int)(left * 1000) + 1);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "folio: run: poll: %s\n", strerror(errno));
            break;
        }
        for (k = 0; n > 0 && k < 2; k++) {
            if (pf[3 + k].revents) fo_sandbox_echo_flush(echo[k]);
            if (pf[k].fd >= 0 && pf[k].revents && !drain(fds[k], tails[k], echo[k])) fds[k] = -1;
        }
        if (n > 0 && fds[2] >= 0 && pf[2].revents) {
            char msg[1 + sizeof(int)];
            ssize_t r = recv(fds[2], msg, sizeof msg, 0);
            if (r == (ssize_t)sizeof msg && msg[0] == 'S') {
                memcpy(&o->wstatus, msg + 1, sizeof(int));
                o->have_status = 1;
            } else if (!(r < 0 && errno == EINTR)) {
                fds[2] = -1;
            }
        }
    }
    until = deadline > fo_now() ? deadline : fo_now() + 0.2;
    fo_sandbox_echo_finish(&o->eout, until);
    fo_sandbox_echo_finish(&o->eerr, until);
    fo_sandbox_echo_note(&o->eerr, &o->eout, until);
    fo_sandbox_echo_note(&o->eerr, &o->eerr, until);
    while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!o->have_status && !o->timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 125)
        o->setup_failed = 1;
    else if (!o->have_status && !o->timed_out) {
        o->wstatus = st;        /* init itself died (e.g. the OOM killer chose it) */
        o->have_status = 1;
    }
    j->pid = -1;
    o->seconds = fo_now() - start;
    fo_sandbox_cgroup_events(&j->cg, &o->oom_kills, &o->pids_max);
    o->memory_via = fo_sandbox_cgroup_memory_via(&j->cg);
}

static int program_failed(const outcome *o)
{
    return o->timed_out || !o->have_status || !WIFEXITED(o->wstatus) ||
           WEXITSTATUS(o->wstatus) != 0;
}

/* The limit that stopped the program, or NULL. */
static const char *limit_hit(const outcome *o)
{
    if (o->timed_out) return "timeout";
    if (o->have_status && WIFSIGNALED(o->wstatus)) {
        int sig = WTERMSIG(o->wstatus);
        if (sig == SIGKILL && o->oom_kills > 0) return "memory";
        if (sig == SIGXFSZ) return "file_size";
        if (sig == SIGXCPU) return "cpu";
    }
    if (o->oom_kills > 0) return "memory";
    if (o->fsize_hit)
        return "file_size";         /* e.g. python, which ignores SIGXFSZ: EFBIG */
    return NULL;
}

/* What to change when a limit stopped the program. */
static void hint_limit(const fo_sandbox_plan *p, const char *lim, const outcome *o)
{
    if (!lim) lim = "";
    if (!strcmp(lim, "timeout"))
        fprintf(stderr, "folio: run: hint: the program ran past --timeout %g s; raise "
                "--timeout or make it faster\n", p->timeout_s);
    else if (!strcmp(lim, "memory"))
        fprintf(stderr, "folio: run: hint: the program needed more than --memory %llu MB; "
                "raise --memory or process the data in chunks\n",
                (unsigned long long)p->memory_mb);
    else if (!strcmp(lim, "file_size"))
        fprintf(stderr, "folio: run: hint: a file reached the ceiling of %llu bytes "
                "(--max-bytes); write less, or split it\n", (unsigned long long)p->max_bytes);
    if (o->pids_max > 0)
        fprintf(stderr, "folio: run: hint: the program hit the process limit (--pids %u)\n",
                p->pids);
}

/* ------------------------------------------------------------- manifest */

/* A stream: bytes, the kept tail, and what the live echo did with it (echoed:
   bytes shown, at most FO_SANDBOX_ECHO_MAX; not_echoed: dropped because the
   reader stalled or left). */
static void json_tail(fo_buf *b, const char *key, const tail_buf *t,
                      const fo_sandbox_echo *e)
{
    char *lin = fo_malloc(t->len + 1);
    size_t k, skip = 0;

    fo_buf_printf(b, "  \"%s\": {\"bytes\": %llu, \"truncated\": %s, ", key,
                          (unsigned long long)t->total, t->total > t->len ? "true" : "false");
    if (e->fd >= 0)
        fo_buf_printf(b, "\"echoed\": %llu, \"echo_truncated\": %s, "
                              "\"not_echoed\": %llu, ", (unsigned long long)(e->echoed > e->dropped ?
                              e->echoed - e->dropped : 0), e->capped ? "true" : "false",
                              (unsigned long long)e->dropped);
    fo_buf_puts(b, "\"tail\": ");
    if (!lin) {
        b->failed = 1;
        return;
    }
    for (k = 0; k < t->len; k++) lin[k] = t->buf[(t->start + k) % FO_SANDBOX_TAIL];
    /* a cut tail may start inside a UTF-8 sequence */
    while (t->total > t->len && skip < 3 && skip < t->len && (lin[skip] & 0xc0) == 0x80) skip++;
    fo_buf_json_str(b, lin + skip, t->len - skip);
    fo_buf_puts(b, "},\n");
    fo_free(lin);
}

static void json_status(fo_buf *b, const outcome *o)
{
    const char *lim = limit_hit(o);

    if (o->have_status && WIFEXITED(o->wstatus))
        fo_buf_printf(b, "\"exit_code\": %d, \"signal\": null", WEXITSTATUS(o->wstatus));
    else if (o->have_status && WIFSIGNALED(o->wstatus))
        fo_buf_printf(b, "\"exit_code\": null, \"signal\": \"SIG%s\"",
                              sigabbrev_np(WTERMSIG(o->wstatus)) ?
                              sigabbrev_np(WTERMSIG(o->wstatus)) : "?");
    else fo_buf_puts(b, "\"exit_code\": null, \"signal\": \"SIGKILL\"");
    fo_buf_printf(b, ", \"timed_out\": %s, \"seconds\": %.3f, \"limit\": ",
                          o->timed_out ? "true" : "false", o->seconds);
    if (lim)
        fo_buf_printf(b, "\"%s\"", lim);
    else fo_buf_puts(b, "null");
    fo_buf_printf(b, ", \"limits_reached\": {\"memory_oom_kills\": %ld, "
                          "\"pids_max_hits\": %ld}", o->oom_kills, o->pids_max);
}

static void json_files(fo_buf *b, const fo_sandbox_file *f, size_t n)
{
    size_t k;

    fo_buf_puts(b, "[");
    for (k = 0; k < n; k++) {
        fo_buf_puts(b, k ? ",\n    {\"name\": " : "\n    {\"name\": ");
        fo_buf_json_str(b, f[k].name, strlen(f[k].name));
        fo_buf_printf(b, ", \"bytes\": %llu, \"sha256\": \"%s\"}",
                              (unsigned long long)f[k].bytes, f[k].sha256);
    }
    fo_buf_puts(b, n ? "\n  ]" : "]");
}

void fo_sandbox_json_refused(fo_buf *b, const fo_sandbox_collection *c)
{
    size_t k;

    fo_buf_puts(b, "[");
    for (k = 0; c && k < c->n_refused; k++) {
        fo_buf_puts(b, k ? ",\n    {\"name\": " : "\n    {\"name\": ");
        fo_buf_json_str(b, c->refused[k].name, strlen(c->refused[k].name));
        fo_buf_puts(b, ", \"reason\": ");
        fo_buf_json_str(b, c->refused[k].reason, strlen(c->refused[k].reason));
        fo_buf_puts(b, "}");
    }
    fo_buf_puts(b, c && c->n_refused ? "\n  ]" : "]");
}

/* ---------------------------------------------------------------- steps */

/* --in folders are copied whole, this many levels down at most. */
#define IN_MAX_DEPTH 8

/* True when names a and b cannot both exist in /work: equal, or one a folder
   the other needs ("x" and "x/y"). */
static int names_clash(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

    return !strncmp(a, b, n) && (la == lb || (la < lb ? b[la] : a[lb]) == '/');
}

/* Adds the open file fd (checked: regular) as /work/name. Takes fd. */
/* A file whose size reads 0 may still have content (/proc, /sys, some FUSE
   file systems): read it into memory, up to the ceiling + 1 byte, so that it
   arrives whole or is refused as over the ceiling. Replaces *fd and
   st->st_size when there was content. 0, or -1 (errno). */
static int read_unsized(int *fd, struct stat *st, uint64_t ceiling)
{
    char buf[65536];
    uint64_t total = 0;
    int mem = -1;

    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || total > ceiling) break;
        if (mem < 0 && (mem = memfd_create("folio-in", MFD_CLOEXEC)) < 0) return -1;
        if (fo_write_all(mem, buf, (size_t)n, 0) < 0) {
            close(mem);
            return -1;
        }
        total += (uint64_t)n;
    }
    if (mem < 0)
        return 0;                   /* really empty */
    close(*fd);
    *fd = mem;
    st->st_size = (off_t)total;
    return 0;
}

static int add_input(fo_sandbox_plan *p, int fd, struct stat *st, const char *name,
                     const char *shown)
{
    fo_sandbox_file *f;
    size_t m;

    if (st->st_size == 0 && read_unsized(&fd, st, p->max_bytes) < 0) {
        fprintf(stderr, "folio: run: --in %s: %s\n", shown, strerror(errno));
        close(fd);
        return FO_RUN_INVALID;
    }
    if ((uint64_t)st->st_size > p->max_bytes) {
        close(fd);
        fprintf(stderr, "folio: run: --in %s: %lld bytes is over the ceiling of %llu "
                "(--max-bytes)\n", shown, (long long)st->st_size, (unsigned long long)p->max_bytes);
        return FO_RUN_INVALID;
    }
    if (p->n_in >= FO_SANDBOX_MAX_FILES) {
        close(fd);
        fprintf(stderr, "folio: run: --in: more than %d files\n", FO_SANDBOX_MAX_FILES);
        return FO_RUN_INVALID;
    }
    if (strlen(name) >= sizeof p->in[0].name) {
        close(fd);
        fprintf(stderr, "folio: run: --in %s: path too long inside /work\n", shown);
        return FO_RUN_INVALID;
    }
    for (m = 0; m < p->n_in; m++)
        if (names_clash(p->in[m].name, name)) {
            close(fd);
            fprintf(stderr, "folio: run: --in %s: clashes with another input, /work/%s\n",
                    shown, p->in[m].name);
            return FO_RUN_INVALID;
        }
    if (!fo_grow((void **)&p->in, &p->cap_in, p->n_in + 1, 8, sizeof *p->in)) {
        close(fd);
        fputs("folio: run: out of memory\n", stderr);
        return FO_RUN_INTERNAL;
    }
    f = &p->in[p->n_in++];
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->bytes = (uint64_t)st->st_size;
    snprintf(f->name, sizeof f->name, "%s", name);
    return FO_RUN_OK;
}

/* Adds the files of folder dfd (taken) as /work/prefix/...: entries looked
   at without following links; a link inside the folder is an error (it
   could point anywhere on this machine), so are FIFOs and devices. */
static int add_folder(fo_sandbox_plan *p, int dfd, const char *prefix, const char *shown,
                      int depth)
{
    DIR *d = fdopendir(dfd);
    struct dirent *de;
    int rc = FO_RUN_OK;

    if (!d) {
        close(dfd);
        fprintf(stderr, "folio: run: --in %s: %s\n", shown, strerror(errno));
        return FO_RUN_INVALID;
    }
    while (rc == FO_RUN_OK && (errno = 0, de = readdir(d))) {
        char name[512], where[1024];
        struct stat st;
        int fd;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        snprintf(name, sizeof name, "%s/%s", prefix, de->d_name);
        snprintf(where, sizeof where, "%s/%s", shown, de->d_name);
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            fprintf(stderr, "folio: run: --in %s: %s\n", where, strerror(errno));
            rc = FO_RUN_INVALID;
        } else if (S_ISDIR(st.st_mode)) {
            if (depth >= IN_MAX_DEPTH) {
                fprintf(stderr, "folio: run: --in %s: more than %d folders deep\n", where,
                        IN_MAX_DEPTH);
                rc = FO_RUN_INVALID;
            } else if ((fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                    O_CLOEXEC)) < 0) {
                fprintf(stderr, "folio: run: --in %s: %s\n", where, strerror(errno));
                rc = FO_RUN_INVALID;
            } else {
                rc = add_folder(p, fd, name, where, depth + 1);
            }
        } else if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "folio: run: --in %s: %s; only regular files are copied in\n", where,
                    S_ISLNK(st.st_mode) ? "a symbolic link (pass the file it points to)"
                                        : "not a regular file");
            rc = FO_RUN_INVALID;
        } else if ((fd = fo_sandbox_open_regular(dirfd(d), de->d_name, &st)) < 0) {
            fprintf(stderr, "folio: run: --in %s: changed while being read\n", where);
            rc = FO_RUN_INVALID;
        } else {
            rc = add_input(p, fd, &st, name, where);
        }
    }
    if (rc == FO_RUN_OK && errno) {
        fprintf(stderr, "folio: run: --in %s: %s\n", shown, strerror(errno));
        rc = FO_RUN_INVALID;
    }
    closedir(d);
    return rc;
}

/* Opens every --in path: a regular file lands as /work/NAME, a folder as
   /work/NAME/... (within the ceiling each, names distinct). */
int fo_sandbox_open_inputs(fo_sandbox_plan *p)
{
    size_t k;
    int rc = FO_RUN_OK;

    for (k = 0; rc == FO_RUN_OK && k < p->n_in_paths; k++) {
        const char *path = p->in_paths[k], *base;
        char trimmed[4096];
        size_t len = strlen(path);
        struct stat st;
        int fd;

        /* "data/" names the folder data */
        while (len > 1 && path[len - 1] == '/') len--;
        snprintf(trimmed, sizeof trimmed, "%.*s", (int)len, path);
        base = strrchr(trimmed, '/');
        base = base ? base + 1 : trimmed;
        if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > 200) {
            fprintf(stderr, "folio: run: --in %s: needs a file or folder name\n", path);
            return FO_RUN_INVALID;
        }
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "folio: run: --in %s: %s\n", path, strerror(errno));
            return FO_RUN_INVALID;
        }
        if (fstat(fd, &st) < 0) {
            close(fd);
            fprintf(stderr, "folio: run: --in %s: %s\n", path, strerror(errno));
            return FO_RUN_INVALID;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = add_folder(p, fd, base, trimmed, 1);
        } else if (S_ISREG(st.st_mode)) {
            rc = add_input(p, fd, &st, base, path);
        } else {
            close(fd);
            fprintf(stderr, "folio: run: --in %s: not a regular file or folder\n", path);
            return FO_RUN_INVALID;
        }
    }
    return rc;
}

typedef struct {
    int attempted, code;            /* code: folio render's exit, or -1 */
    char argv_json[512];
    outcome o;
    fo_sandbox_collection files;
} render_result;

/* Renders /out/result.json of the program's jail in a second jail, running
   folio-engine bound at /run/folio. */
static void render(const fo_sandbox_plan *p, const char *engine, fo_sandbox_collection *col,
                   render_result *r)
{
    fo_sandbox_plan rp = *p;
    fo_sandbox_jail j;
    fo_buf cmd = { 0 };
    char outs[8][32], ceiling[24];
    const char *argv[6 + 2 * 8 + 2 + 1];
    size_t k, n = 0;

    argv[n++] = "/run/folio";
    argv[n++] = "render";
    argv[n++] = "/out/result.json";
    snprintf(ceiling, sizeof ceiling, "%llu", (unsigned long long)p->max_bytes);
    argv[n++] = "--max-bytes";      /* the renderer stops at the ceiling itself (exit 3) */
    argv[n++] = ceiling;
    for (k = 0; k < p->n_render; k++) {
        snprintf(outs[k], sizeof outs[k], "/out/result.%s", p->render[k]);
        argv[n++] = "-o";
        argv[n++] = outs[k];
    }
    argv[n] = NULL;
    fo_buf_puts(&cmd, "[");
    for (k = 0; k < n; k++) {
        fo_buf_puts(&cmd, k ? ", " : "");
        fo_buf_json_str(&cmd, argv[k], strlen(argv[k]));
    }
    fo_buf_puts(&cmd, "]");
    snprintf(r->argv_json, sizeof r->argv_json, "%s", cmd.data ? cmd.data : "[]");
    fo_buf_free(&cmd);
    if (p->provenance) {            /* not in the manifest's argv: it has its own "provenance" */
        argv[n++] = "--provenance";
        argv[n++] = p->provenance;
        argv[n] = NULL;
    }

    rp.argv = (char **)argv;          /* only read, and passed on to execve */
    rp.in = col->files;
    rp.n_in = col->n_files;
    rp.in_dir = "out";
    rp.max_bytes = fo_sandbox_render_fsize(p->memory_mb, p->max_bytes);
    rp.engine = engine;
    rp.mpl_cache = NULL;                 /* the render jail runs no Python */
    rp.net = FO_NET_NONE;                /* a hostile spec gets no network */
    r->attempted = 1;
    r->code = -1;
    if (fo_sandbox_jail_start(&rp, &j, 1) != FO_RUN_OK) return;
    supervise(&rp, &j, &r->o, p->quiet ? -1 : 2, p->quiet ? -1 : 2);
    if (r->o.have_status && WIFEXITED(r->o.wstatus)) r->code = WEXITSTATUS(r->o.wstatus);
    if (fo_sandbox_collect(j.out_dir, p->max_bytes, &r->files, col->files, col->n_files) < 0)
        fprintf(stderr, "folio: run: can't collect the rendered files: %s\n", strerror(errno));
    fo_sandbox_jail_close(&j);
}

/* The tail as one string (at most len - 1 bytes: the last ones). */
static void tail_text(const tail_buf *t, char *out, size_t len)
{
    size_t n = t->len < len - 1 ? t->len : len - 1, skip = t->len - n, k;

    for (k = 0; k < n; k++) out[k] = t->buf[(t->start + skip + k) % FO_SANDBOX_TAIL];
    out[n] = 0;
}

static int reserve_render_names(const fo_sandbox_plan *p, fo_sandbox_collection *col);

int fo_sandbox_render(const fo_sandbox_plan *p, const char *engine,
                      fo_sandbox_collection *col, fo_sandbox_collection *rendered,
                      char *err_tail, size_t err_len)
{
    render_result r;
    uint64_t budget;

    memset(&r, 0, sizeof r);
    memset(rendered, 0, sizeof *rendered);
    if (reserve_render_names(p, col) < 0) {     /* folio run did it already; a session not */
        snprintf(err_tail, err_len, "out of memory");
        return -1;
    }
    r.o.out.buf = tail_store[2];
    r.o.err.buf = tail_store[3];
    render(p, engine, col, &r);
    budget = p->max_total;                          /* the rendered files by themselves */
    if (fo_sandbox_collect_total(&r.files, &budget) < 0 ||
        fo_sandbox_collect_hash(&r.files, NULL) < 0)
        fprintf(stderr, "folio: run: can't read the rendered files: %s\n", strerror(errno));
    *rendered = r.files;
    tail_text(&r.o.err, err_tail, err_len);
    return r.code;
}

static int find_file(const fo_sandbox_collection *c, const char *name)
{
    size_t k;

    for (k = 0; k < c->n_files; k++)
        if (!strcmp(c->files[k].name, name)) return (int)k;
    return -1;
}

/* The files the render writes, /out/result.FMT (and result-N.png, one per
   chart), are refused from the program's: a render is never shadowed by a
   file of the same name (issue 16 item 11). 0, or -1 out of memory. */
static int reserve_render_names(const fo_sandbox_plan *p, fo_sandbox_collection *col)
{
    static const char reason[] = "reserved for the --render output";
    char name[32];
    size_t k, m;

    for (k = 0; k < p->n_render; k++) {
        snprintf(name, sizeof name, "result.%s", p->render[k]);
        if (fo_sandbox_collect_reserve(col, name, reason) < 0) return -1;
        if (strcmp(p->render[k], "png")) continue;
        for (m = col->n_files; m-- > 0;) {
            const char *n = col->files[m].name;
            size_t digits = strncmp(n, "result-", 7) ? 0 : strspn(n + 7, "0123456789");
            if (digits && !strcmp(n + 7 + digits, ".png") &&
                fo_sandbox_collect_reserve(col, n, reason) < 0)
                return -1;
        }
    }
    return 0;
}

static void print_refused(const fo_sandbox_collection *c, const char *what)
{
    size_t k;

    for (k = 0; k < c->n_refused; k++)
        fprintf(stderr, "folio: run: refused %s/out/%s: %s\n", what, c->refused[k].name,
                c->refused[k].reason);
}

/* Did the render stop at the ceiling: exit 3, killed by SIGXFSZ (a writer
   that does not handle EFBIG), or a file refused for its size? */
static int render_over_ceiling(const render_result *r)
{
    return r->attempted && (r->code == FO_RUN_CEILING || r->files.over_ceiling ||
                            (r->o.have_status && WIFSIGNALED(r->o.wstatus) &&
                             WTERMSIG(r->o.wstatus) == SIGXFSZ));
}

/* folio run's exit code: the program first, then the ceiling and the total,
   then the render. Says why when the render hit the ceiling. */
static int exit_code(const fo_sandbox_plan *p, const outcome *o,
                     const fo_sandbox_collection *col, const render_result *r)
{
    size_t k;

    if (program_failed(o)) return FO_RUN_PROGRAM;
    if (render_over_ceiling(r)) {
        fputs("folio: run: --render ", stderr);
        for (k = 0; k < p->n_render; k++) fprintf(stderr, "%s%s", k ? "," : "", p->render[k]);
        fprintf(stderr, ": a rendered file passed the ceiling of %llu bytes (--max-bytes); "
                "nothing rendered was kept\n", (unsigned long long)p->max_bytes);
        return FO_RUN_CEILING;
    }
    if (col->over_ceiling || col->over_total || (r->attempted && r->files.over_total)) {
        if (col->over_total || r->files.over_total)
            fprintf(stderr, "folio: run: the files of /out add up to more than --max-total "
                    "%llu bytes (apparent sizes); the rest were refused\n",
                    (unsigned long long)p->max_total);
        return FO_RUN_CEILING;
    }
    if (r->attempted && r->code != 0) return r->code == FO_RUN_INVALID ? r->code : FO_RUN_INTERNAL;
    return FO_RUN_OK;
}

/* Stages every collected file and manifest.json in dir, then puts them in
   place all at once (base/stage.h: a failed rename undoes the others, a
   signal removes the temporaries). 0, or -1 after printing why. */
static int stage_all(fo_stage *s, int dfd, const char *dir, const fo_sandbox_collection *const *cols,
                     const fo_buf *manifest)
{
    size_t k, i, failed = 0;

    for (i = 0; i < 2; i++)
        for (k = 0; cols[i] && k < cols[i]->n_files; k++) {
            const fo_sandbox_file *f = &cols[i]->files[k];
            if (fo_sandbox_stage_copy(s, dfd, f->name, f->fd, f->bytes) < 0) {
                fprintf(stderr, "folio: run: can't write %s/%s: %s\n", dir, f->name,
                        strerror(errno));
                return -1;
            }
        }
    if (fo_sandbox_stage_buf(s, dfd, "manifest.json", manifest->data, manifest->len) < 0) {
        fprintf(stderr, "folio: run: can't write %s/manifest.json: %s\n", dir, strerror(errno));
        return -1;
    }
    if (fo_stage_commit(s, &failed) < 0) {
        fprintf(stderr, "folio: run: can't put %s/%s in place: %s; nothing in %s was changed\n",
                dir, failed < (size_t)s->n ? s->items[failed].name : "?", strerror(errno), dir);
        return -1;
    }
    return 0;
}

/* Writes the collected files, each at its relative path under dir (folders
   created as needed, never through a link), and manifest.json: all or none. */
static int deliver(const char *dir, const fo_sandbox_collection *a,
                   const fo_sandbox_collection *b, const fo_buf *manifest)
{
    const fo_sandbox_collection *cols[2] = { a, b };
    size_t cap = 1 + a->n_files + (b ? b->n_files : 0);
    fo_stage_item *items = fo_calloc(cap, sizeof *items);
    fo_stage s;
    int dfd, rc;

    if (!items || (mkdir(dir, 0777) < 0 && errno != EEXIST) ||
        (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        fprintf(stderr, "folio: run: --out %s: %s\n", dir, strerror(items ? errno : ENOMEM));
        fo_free(items);
        return -1;
    }
    fo_stage_begin(&s, items, cap);
    rc = stage_all(&s, dfd, dir, cols, manifest);
    fo_stage_end(&s);
    close(dfd);
    fo_free(items);
    return rc;
}

uint64_t fo_sandbox_render_fsize(uint64_t memory_mb, uint64_t max_bytes)
{
    return memory_mb << 20 > max_bytes ? memory_mb << 20 : max_bytes;
}

/* The matplotlib font caches `make` prebuilt: the folder "matplotlib" beside
   folio-engine (build tree or libexec/folio), if there is one. */
const char *fo_sandbox_mpl_cache(const char *engine, char *buf, size_t len)
{
    const char *slash = engine ? strrchr(engine, '/') : NULL;
    struct stat st;
    int n;

    if (!slash) return NULL;
    n = snprintf(buf, len, "%.*s/matplotlib", (int)(slash - engine), engine);
    if (n < 0 || (size_t)n >= len || stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) return NULL;
    return buf;
}

/* After a failed program: arguments naming a file that exists here but not
   in the jail, the commonest mistake (`folio run -- python3 analysis.py`
   without `--in analysis.py`). The jail sees /work (the --in files, by name),
   /out, /tmp and the system folders. Printed even with --quiet: it explains
   a failure. */
static void hint_host_paths(const fo_sandbox_plan *p)
{
    static const char *const shared[] = { "/usr/", "/bin/", "/sbin/", "/lib", "/etc/",
                                          "/dev/", "/proc/", "/work/", "/out/", "/run/" };
    size_t k, m;

    for (k = 1; p->argv[k]; k++) {
        const char *a = p->argv[k], *slash = strrchr(a, '/'), *base = slash ? slash + 1 : a;
        struct stat st;
        const char *copied = NULL;      /* the /work name it was copied in as */
        int visible = 0;

        if (a[0] == '-' || !*base || strlen(a) > 1024 || stat(a, &st) < 0 || !S_ISREG(st.st_mode)) continue;
        for (m = 0; a[0] == '/' && m < sizeof shared / sizeof *shared; m++)
            if (!strncmp(a, shared[m], strlen(shared[m]))) visible = 1;
        for (m = 0; m < p->n_in; m++) {
            const char *n = p->in[m].name;
            size_t ln = strlen(n), lb = strlen(base);
            if (a[0] != '/' && !strcmp(n, a))
                visible = 1;            /* relative, and so it is in /work */
            if (!strcmp(n, base) || (ln > lb && n[ln - lb - 1] == '/' && !strcmp(n + ln - lb, base)))
                copied = n;
        }
        if (visible) continue;
        if (copied)
            fprintf(stderr, "folio: run: hint: %s is not in the jail; --in copied it to "
                    "/work/%s, so refer to it as %s\n", a, copied, copied);
        else
            fprintf(stderr, "folio: run: hint: %s is a file here but not in the jail (it "
                    "sees /work with the --in files, /out, its own /tmp and the system "
                    "folders): pass --in %s and refer to it as %s\n", a, a, base);
    }
}

/* ------------------------------------------------------------- egress */

/* --net packages / allow=: the egress proxy for this run, serving the
   listener the jail handed out (PRODUCT.md §5.1, docs/egress.md). It runs as
   nobody when folio is root. FOLIO_EGRESS_RESOLV (the caller's environment,
   never the jail's) names another resolv.conf: for tests and for hosts whose
   proxy must use a particular resolver. Sessions start theirs here too. */
int fo_sandbox_egress_begin(const fo_sandbox_plan *p, fo_sandbox_jail *j, fo_egress_proxy *px)
{
    const char *err = NULL;

    px->pid = -1;
    px->log_fd = -1;
    px->died = 0;
    if (p->net != FO_NET_ALLOW) return FO_RUN_OK;
    if (fo_egress_start(px, p->egress, j->egress_listen, getenv("FOLIO_EGRESS_RESOLV"),
                        65534, &err) < 0) {
        fprintf(stderr, "folio: run: %s: %s\n", err, strerror(errno));
        kill(j->pid, SIGKILL);
        return FO_RUN_INTERNAL;
    }
    close(j->egress_listen);           /* the proxy's alone: if it dies, it closes */
    j->egress_listen = -1;
    return FO_RUN_OK;
}

/* Stops the proxy and returns its log as JSON (malloc'd; NULL without
   policy network). Says so when the proxy had died during the run. */
char *fo_sandbox_egress_end(const fo_sandbox_plan *p, fo_egress_proxy *px)
{
    if (p->net != FO_NET_ALLOW) return NULL;
    fo_egress_stop(px);
    if (px->died)
        fprintf(stderr, "folio: run: the egress proxy ended during the run (status %d): "
                "the program's connections were refused from then on\n", px->died - 1);
    return fo_egress_log_json(px);
}

/* --sign: the record is written to --out DIR and signed by folio-engine
   (libcrypto stays out of this static binary); the key must be readable
   before the program runs, not found missing after it. */
static int sign_ready(const fo_sandbox_plan *p, const char *engine)
{
    if (!p->out_dir)
        return fo_usage_error("run", "--sign needs --out DIR: the signed record is written beside "
                              "DIR/manifest.json");
    if (!engine) {
        fputs("folio: run: --sign needs folio-engine, which is not installed beside folio\n", stderr);
        return FO_RUN_INTERNAL;
    }
    if (access(p->sign_key, R_OK) != 0) {
        fprintf(stderr, "folio: run: --sign %s: %s (an Ed25519 key in PEM: openssl genpkey "
                "-algorithm ed25519 -out key.pem)\n", p->sign_key, strerror(errno));
        return FO_RUN_USAGE;
    }
    return FO_RUN_OK;
}

/* Runs `folio-engine sign DIR/manifest.json --key KEY`, which writes
   DIR/manifest.dsse.json. 0, or -1 when it failed (it said why). */
static int sign_run(const fo_sandbox_plan *p, const char *engine)
{
    char manifest[4096];
    const char *argv[] = { engine, "sign", manifest, "--key", p->sign_key,
                           p->quiet || p->json ? "--quiet" : NULL, NULL };
    int status;
    pid_t pid;

    snprintf(manifest, sizeof manifest, "%s/manifest.json", p->out_dir);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        execv(engine, (char *const *)argv);   /* execv only reads the strings */
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "folio: run: the record in %s was not signed\n", p->out_dir);
        return -1;
    }
    return 0;
}

/* What made a run's documents, for `folio render --provenance` and the
   manifest: {"run": ID, "inputs": [...]}. The id is the first 32 hex digits
   of the SHA-256 of the command (each argument NUL-terminated) and the
   inputs' JSON: the same command on the same inputs has the same id, so a
   re-run renders byte-identical documents. malloc'd, or NULL. */
static char *run_provenance(const fo_sandbox_plan *p)
{
    char *inputs = fo_sandbox_inputs_json(p), hex[65];
    fo_sha256 h;
    unsigned char dig[32];
    fo_buf b = { 0 };
    size_t k;

    if (!inputs) return NULL;
    fo_sha256_init(&h);
    for (k = 0; p->argv[k]; k++) fo_sha256_update(&h, p->argv[k], strlen(p->argv[k]) + 1);
    fo_sha256_update(&h, inputs, strlen(inputs));
    fo_sha256_final(&h, dig);
    for (k = 0; k < 16; k++) snprintf(hex + 2 * k, 3, "%02x", dig[k]);
    fo_buf_printf(&b, "{\"run\": \"%s\", \"inputs\": %s}", hex, inputs);
    fo_free(inputs);
    return b.failed ? (fo_buf_free(&b), NULL) : fo_buf_take(&b, NULL);
}

int fo_sandbox_main(int argc, char **argv, const char *engine)
{
    char *prov = NULL;
    char mpl_dir[4096];
    outcome o;
    render_result r;
    fo_sandbox_plan p;
    fo_sandbox_jail j;
    fo_sandbox_collection col;
    fo_buf m = { 0 };
    fo_egress_proxy px = { -1, -1, 0 };
    char *egress = NULL;
    const char *skipped = NULL;
    uint64_t budget;
    int help, rc, code;
    size_t k;

    memset(&o, 0, sizeof o);
    memset(&r, 0, sizeof r);
    o.out.buf = tail_store[0];
    o.err.buf = tail_store[1];
    r.o.out.buf = tail_store[2];
    r.o.err.buf = tail_store[3];
    o.eout.fd = o.eerr.fd = r.o.eout.fd = r.o.eerr.fd = -1;
    for (k = 0; k < 2; k++) {
        o.echo_store[k] = echo_store[k];
        r.o.echo_store[k] = echo_store[2 + k];
    }
    memset(&col, 0, sizeof col);
    rc = fo_sandbox_plan_parse(&p, argc, argv, &help);
    if (rc != FO_RUN_OK || help) goto done;
    if (p.n_render && !engine) {
        fputs("folio: run: --render needs folio-engine, which is not installed beside folio\n",
              stderr);
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (p.sign_key && (rc = sign_ready(&p, engine)) != FO_RUN_OK) goto done;
    p.mpl_cache = fo_sandbox_mpl_cache(engine, mpl_dir, sizeof mpl_dir);
    rc = fo_sandbox_open_inputs(&p);
    if (rc != FO_RUN_OK) goto done;
    if (!(prov = run_provenance(&p))) {   /* hashed before the program runs: the inputs given */
        fprintf(stderr, "folio: run: can't read the --in files to hash them: %s\n", strerror(errno));
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    p.provenance = prov;
    (void)signal(SIGPIPE, SIG_IGN);        /* a closed stdout must not kill folio */
    fo_sandbox_std_nonblocking();          /* a caller that stops reading can't stall us */

    rc = fo_sandbox_jail_start(&p, &j, 0);
    if (rc != FO_RUN_OK) goto done;
    rc = fo_sandbox_egress_begin(&p, &j, &px);
    supervise(&p, &j, &o, p.quiet ? -1 : (p.json ? 2 : 1), p.quiet ? -1 : 2);
    egress = fo_sandbox_egress_end(&p, &px);
    if (rc != FO_RUN_OK) {
        fo_sandbox_jail_close(&j);
        goto done;
    }
    if (o.setup_failed) {
        fo_sandbox_jail_close(&j);
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (fo_sandbox_collect(j.out_dir, p.max_bytes, &col, NULL, 0) < 0) {
        fprintf(stderr, "folio: run: can't collect /out: %s\n", strerror(errno));
        fo_sandbox_jail_close(&j);
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    fo_sandbox_jail_close(&j);
    o.fsize_hit = program_failed(&o) && col.over_ceiling;
    budget = p.max_total;
    if (reserve_render_names(&p, &col) < 0 || fo_sandbox_collect_total(&col, &budget) < 0 ||
        fo_sandbox_collect_hash(&col, NULL) < 0) {
        fprintf(stderr, "folio: run: can't collect /out: %s\n", strerror(errno));
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    print_refused(&col, "");

    /* a failed program's result.json may be half-written: not rendered */
    if (!p.n_render)
        skipped = NULL;
    else if (program_failed(&o)) skipped = "the program failed";
    else if (find_file(&col, "result.json") < 0) skipped = "no regular file /out/result.json";
    else render(&p, engine, &col, &r);
    if (r.attempted && (fo_sandbox_collect_total(&r.files, &budget) < 0 ||
                        fo_sandbox_collect_hash(&r.files, NULL) < 0)) {
        fprintf(stderr, "folio: run: can't collect the rendered files: %s\n", strerror(errno));
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (r.attempted) print_refused(&r.files, "rendered ");
    code = exit_code(&p, &o, &col, &r);

    fo_buf_puts(&m, "{\n  \"folio_run\": 1,\n  \"command\": [");
    for (k = 0; p.argv[k]; k++) {
        fo_buf_puts(&m, k ? ", " : "");
        fo_buf_json_str(&m, p.argv[k], strlen(p.argv[k]));
    }
    fo_buf_puts(&m, "],\n  ");
    json_status(&m, &o);
    fo_buf_printf(&m, ",\n  \"exit\": %d,\n  \"limits\": {\"timeout_s\": %g, "
                          "\"memory_mb\": %llu, \"memory_via\": \"%s\", \"max_bytes\": %llu, "
                          "\"pids\": %u, \"cpus\": %g, \"open_files\": %u, "
                          "\"net\": \"%s\"},\n", code,
                          p.timeout_s, (unsigned long long)p.memory_mb, o.memory_via,
                          (unsigned long long)p.max_bytes, p.pids, p.cpus, p.nofile,
                          p.net == FO_NET_ALL ? "all" : p.net == FO_NET_ALLOW ? "allow" : "none");
    json_tail(&m, "stdout", &o.out, &o.eout);
    json_tail(&m, "stderr", &o.err, &o.eerr);
    fo_buf_puts(&m, "  \"files\": ");
    json_files(&m, col.files, col.n_files);
    fo_buf_puts(&m, ",\n  \"refused\": ");
    fo_sandbox_json_refused(&m, &col);
    fo_buf_printf(&m, ",\n  \"hashed_bytes\": %llu",
                  (unsigned long long)(col.hashed + r.files.hashed));
    if (p.net == FO_NET_ALLOW) {
        fo_buf_puts(&m, ",\n  \"egress\": ");
        fo_buf_puts(&m, egress ? egress : "[]");
    }
    fo_buf_puts(&m, ",\n  \"provenance\": ");
    fo_buf_puts(&m, prov);
    fo_buf_puts(&m, ",\n  \"render\": ");
    if (!r.attempted && skipped) {
        fo_buf_puts(&m, "{\"skipped\": ");
        fo_buf_json_str(&m, skipped, strlen(skipped));
        fo_buf_puts(&m, "}");
    } else if (!r.attempted) {
        fo_buf_puts(&m, "null");
    } else {
        fo_buf_puts(&m, "{\n  \"formats\": [");
        for (k = 0; k < p.n_render; k++) fo_buf_printf(&m, "%s\"%s\"", k ? ", " : "", p.render[k]);
        fo_buf_printf(&m, "],\n  \"command\": %s,\n  ", r.argv_json);
        json_status(&m, &r.o);
        fo_buf_puts(&m, ",\n");
        json_tail(&m, "stderr", &r.o.err, &r.o.eerr);
        fo_buf_puts(&m, "  \"files\": ");
        json_files(&m, r.files.files, r.files.n_files);
        fo_buf_puts(&m, ",\n  \"refused\": ");
        fo_sandbox_json_refused(&m, &r.files);
        fo_buf_puts(&m, "}");
    }
    fo_buf_puts(&m, "\n}\n");
    if (m.failed) {
        fputs("folio: run: out of memory writing the manifest\n", stderr);
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (p.out_dir && deliver(p.out_dir, &col, r.attempted ? &r.files : NULL, &m) < 0) {
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (p.sign_key && sign_run(&p, engine) < 0) {
        rc = FO_RUN_INTERNAL;
        goto done;
    }
    if (p.json) (void)fo_write_all(1, m.data, m.len, fo_now() + FO_SANDBOX_ECHO_GRACE);
    if (program_failed(&o) && !o.timed_out) hint_host_paths(&p);
    if (program_failed(&o)) hint_limit(&p, limit_hit(&o), &o);
    if (!p.quiet && skipped && !program_failed(&o))
        fprintf(stderr, "folio: run: --render: nothing rendered, %s\n", skipped);
    if (!p.quiet && !p.json) {
        const char *lim = limit_hit(&o);
        fprintf(stderr, "folio: run: %s%s%s; %zu file%s collected%s%s\n",
                o.timed_out ? "timed out" : program_failed(&o) ? "program failed" :
                code == FO_RUN_CEILING ? "a file over the ceiling was refused" :
                code != FO_RUN_OK ? "render failed" : "ok",
                lim ? ", limit: " : "", lim ? lim : "", col.n_files + r.files.n_files,
                col.n_files + r.files.n_files == 1 ? "" : "s",
                p.out_dir ? " into " : "", p.out_dir ? p.out_dir : "");
    }
    rc = code;
done:
    fo_sandbox_collection_free(&col);
    fo_sandbox_collection_free(&r.files);
    fo_sandbox_plan_free(&p);
    fo_buf_free(&m);
    fo_free(egress);
    fo_free(prov);
    return rc;
}
