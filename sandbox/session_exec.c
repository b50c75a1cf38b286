/* session_exec.c — the supervisor's side of the kernel: one cell from the
 * request to the result object of PRODUCT.md §6, interrupts and restarts,
 * and the hibernate/restore commands.
 *
 * Everything the kernel sends is hostile: frames are read from non-blocking
 * pipes into a fixed buffer (FO_SESSION_MAX_KFRAME; a bigger length ends the
 * kernel), only known types are used, stdout and stderr are kept up to
 * FO_SESSION_OUT_CAP each (the rest counted), and the result JSON is written
 * here, never parsed from the jail. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_store.h"
#include "sandbox/session_super.h"
#include "sandbox/session_record.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_S      1.0     /* after SIGINT, before the interpreter is restarted */
#define MAX_DISPLAYS 32

/* --------------------------------------------------------- kernel frames */

/* Next whole frame from the kernel's pipe: 1 (type in *type, payload in
   f->buf, f->got bytes), 0 (nothing more for now), -1 (closed, or a frame
   over the bound or of no known type: the kernel is not trusted further). */
static int kframe_next(fo_kframe *f, int fd, char *type)
{
    static const char known[] = "koexnvthbmBuE";

    for (;;) {
        ssize_t r;

        if (f->hn < sizeof f->hdr) {
            r = read(fd, f->hdr + f->hn, sizeof f->hdr - f->hn);
        } else {
            if (f->got == f->need) {
                *type = (char)f->hdr[0];
                f->buf[f->got] = 0;
                f->hn = 0;
                return 1;
            }
            r = read(fd, f->buf + f->got, f->need - f->got);
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EAGAIN) return 0;
        if (r <= 0) return -1;
        if (f->hn < sizeof f->hdr) {
            f->hn += (size_t)r;
            if (f->hn == sizeof f->hdr) {
                f->need = (size_t)f->hdr[1] | (size_t)f->hdr[2] << 8 | (size_t)f->hdr[3] << 16 |
                          (size_t)f->hdr[4] << 24;
                f->got = 0;
                if (f->need > FO_SESSION_MAX_KFRAME || !strchr(known, f->hdr[0]) || !f->hdr[0]) return -1;
            }
        } else {
            f->got += (size_t)r;
        }
    }
}

static void kframe_reset(fo_session *s)
{
    if (!s->kf.buf) s->kf.buf = fo_malloc(FO_SESSION_MAX_KFRAME + 1);
    s->kf.hn = s->kf.got = s->kf.need = 0;
    if (s->j.out_r >= 0) (void)fcntl(s->j.out_r, F_SETFL, O_NONBLOCK);
    if (s->j.err_r >= 0) (void)fcntl(s->j.err_r, F_SETFL, O_NONBLOCK);
}

/* Writes bytes to the kernel's stdin within 10 s (it may be wedged). 0 or -1. */
static int write_raw(fo_session *s, const char *p, size_t n)
{
    (void)fcntl(s->j.in_w, F_SETFL, O_NONBLOCK);
    return fo_write_all(s->j.in_w, p, n, fo_now() + 10);
}

/* One frame to the kernel: header, then a and b (payload in two parts). */
static int kwrite(fo_session *s, char type, const char *a, size_t an, const char *b, size_t bn)
{
    unsigned char hdr[5];
    size_t total = an + bn;

    hdr[0] = (unsigned char)type;
    for (int k = 0; k < 4; k++) hdr[1 + k] = (unsigned char)(total >> (8 * k));
    return write_raw(s, (const char *)hdr, sizeof hdr) < 0 || write_raw(s, a, an) < 0 ||
           write_raw(s, b, bn) < 0 ? -1 : 0;
}

/* Waits up to timeout_ms for the kernel's pipe; 1 readable, 0 not, -1 error. */
static int kwait(fo_session *s, int timeout_ms)
{
    struct pollfd pf = { s->j.out_r, POLLIN, 0 };
    int n = poll(&pf, 1, timeout_ms);

    return n < 0 ? (errno == EINTR ? 0 : -1) : n;
}

int fo_session_kernel_hello(fo_session *s, int timeout_ms)
{
    double end = fo_now() + timeout_ms / 1000.0;
    char type;
    int r;

    kframe_reset(s);
    if (!s->kf.buf || write_raw(s, s->kernel_src, s->kernel_len) < 0) return -1;
    while (fo_now() < end) {
        while ((r = kframe_next(&s->kf, s->j.out_r, &type)) == 1)
            if (type == 'k') {
                snprintf(s->python, sizeof s->python, "%.*s", (int)s->kf.got, s->kf.buf);
                return 0;
            }
        if (r < 0 || kwait(s, (int)((end - fo_now()) * 1000) + 1) < 0) return -1;
    }
    return -1;
}

int fo_session_kernel_restart(fo_session *s)
{
    double end = fo_now() + 10;
    int ws, ev;

    if (fo_sandbox_jail_ctl(&s->j, 'R') < 0) return -1;
    while (fo_now() < end) {
        struct pollfd pf = { s->j.ctl, POLLIN, 0 };
        if (poll(&pf, 1, 1000) <= 0) continue;
        ev = fo_sandbox_jail_event(&s->j, &ws);
        if (ev == 'P') return fo_session_kernel_hello(s, 10000);
        if (ev <= 0) return -1;
    }
    return -1;
}

/* "name\treason" -> {"name": ..., "reason": ...} */
static void add_item(fo_buf *b, const char *p, size_t n)
{
    const char *tab = memchr(p, '\t', n);
    size_t nl = tab ? (size_t)(tab - p) : n;

    fo_buf_puts(b, b->len ? ", {\"name\": " : "{\"name\": ");
    fo_buf_json_str(b, p, nl > 200 ? 200 : nl);
    fo_buf_puts(b, ", \"reason\": ");
    fo_buf_json_str(b, tab ? tab + 1 : "", tab ? n - nl - 1 : 0);
    fo_buf_puts(b, "}");
}

int fo_session_kernel_command(fo_session *s, char cmd, fo_buf *b, int timeout_ms)
{
    double end = fo_now() + timeout_ms / 1000.0;
    unsigned items = 0;
    char type;
    int r;

    if (kwrite(s, cmd, NULL, 0, NULL, 0) < 0) return -1;
    while (fo_now() < end) {
        while ((r = kframe_next(&s->kf, s->j.out_r, &type)) == 1) {
            if (type == 'E') return 0;
            if (type == 'u' && items++ < 1000) add_item(b, s->kf.buf, s->kf.got);
        }
        if (r < 0 || kwait(s, (int)((end - fo_now()) * 1000) + 1) < 0) return -1;
    }
    return -1;
}

/* ------------------------------------------------------------- one cell */

typedef struct {
    char *raw[2];                     /* stdout, stderr: up to FO_SESSION_OUT_CAP each */
    size_t len[2];
    unsigned long long total[2];
    fo_buf repr, ename, evalue, etb, ehint;
    fo_bundle cur;                    /* the bundle being received */
    fo_bundle displays[MAX_DISPLAYS];
    size_t n_displays, bundle_bytes;
    fo_buf result_data;               /* the last expression's bundle */
    int ended, error, timed_out, interrupted, restarted, died, wstatus, stream, cfd;
    int http;                         /* the caller speaks HTTP: hints name JSON fields */
} cell_run;

static void keep(cell_run *c, int which, const char *p, size_t n)
{
    int k = which == 1 ? 0 : 1;
    size_t room = FO_SESSION_OUT_CAP - c->len[k];

    c->total[k] += n;
    if (n > room) n = room;
    if (!n) return;
    if (!c->raw[k] && !(c->raw[k] = fo_malloc(FO_SESSION_OUT_CAP))) return;
    memcpy(c->raw[k] + c->len[k], p, n);
    c->len[k] += n;
    if (c->stream && c->cfd >= 0 &&
        fo_session_send(c->cfd, which == 1 ? 'o' : 'e', p, n, -1) < 0)
        c->cfd = -1;                      /* the client left: the cell goes on */
}

/* Streaming clients of the terminal kind (the CLI) also see the result,
   displays and the traceback as a notebook shows them (text), a line each. */
static void show(cell_run *c, char stream, const char *p, size_t n)
{
    if (c->stream != FO_SESSION_STREAM_TEXT || c->cfd < 0) return;
    if (fo_session_send(c->cfd, stream, p, n, -1) < 0 ||
        (n && p[n - 1] != '\n' && fo_session_send(c->cfd, stream, "\n", 1, -1) < 0))
        c->cfd = -1;
}

static void set_text(fo_buf *b, const char *p, size_t n)
{
    b->len = 0;
    fo_buf_json_str(b, p, n);
}

/* A finished bundle: the last expression's value, or a display, which a
   streaming client gets at once (its text, or the bundle as JSON). */
static void bundle_done(cell_run *c)
{
    fo_bundle *b = &c->cur;

    if (fo_session_bundle_end(b) < 0) return;
    c->bundle_bytes += b->json.len;
    if (b->kind == 'x') {
        c->result_data.len = 0;
        fo_buf_append(&c->result_data, b->json.data, b->json.len);
        return;
    }
    if (c->n_displays >= MAX_DISPLAYS) return;
    if (c->stream == FO_SESSION_STREAM_EVENTS && c->cfd >= 0 &&
        fo_session_send(c->cfd, 'D', b->json.data, b->json.len, -1) < 0)
        c->cfd = -1;
    show(c, 'o', b->plain.data ? b->plain.data : "", b->plain.len);
    c->displays[c->n_displays++] = *b;           /* moved: cur starts afresh */
    memset(b, 0, sizeof *b);
}

static void on_frame(cell_run *c, char type, const char *p, size_t n)
{
    switch (type) {
    case 'o': keep(c, 1, p, n); break;
    case 'e': keep(c, 2, p, n); break;
    case 'x': set_text(&c->repr, p, n); show(c, 'o', p, n); break;
    case 'n': set_text(&c->ename, p, n); c->error = 1; break;
    case 'v': set_text(&c->evalue, p, n); break;
    case 't': set_text(&c->etb, p, n); show(c, 'e', p, n); break;
    case 'h': set_text(&c->ehint, p, n); show(c, 'e', p, n); break;
    case 'b':
        fo_session_bundle_begin(&c->cur, p, n, c->bundle_bytes < FO_SESSION_BUNDLES_CAP ?
                                FO_SESSION_BUNDLES_CAP - c->bundle_bytes : 0);
        break;
    case 'm': fo_session_bundle_add(&c->cur, p, n); break;
    case 'B': bundle_done(c); break;
    case 'E': c->ended = 1; c->error = n == 5 && !memcmp(p, "error", 5); break;
    default: break;
    }
}

/* Reads what the kernel sent; -1 when its channel is closed or broken. */
static int drain_kernel(fo_session *s, cell_run *c)
{
    char type, buf[65536];
    ssize_t n;
    int r;

    while ((r = kframe_next(&s->kf, s->j.out_r, &type)) == 1 && !c->ended)
        on_frame(c, type, s->kf.buf, s->kf.got);
    while ((n = read(s->j.err_r, buf, sizeof buf)) > 0)
        keep(c, 2, buf, (size_t)n);              /* the interpreter's own messages */
    return r < 0 ? -1 : 0;
}

char fo_session_control(fo_session *s)
{
    struct ucred cr;
    socklen_t crlen = sizeof cr;
    char type = 0, *p = NULL;
    size_t n;
    int cfd = accept4(s->ctl, NULL, NULL, SOCK_CLOEXEC), fd = -1;

    if (cfd < 0) return 0;
    if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0 && cr.uid == geteuid() &&
        fo_session_recv(cfd, &type, &p, &n, 4096, 1000, &fd) == 0) {
        if ((type == 'p' || type == 'g') && s->spare) {
            type = 0; /* unanswered: claimed on the request socket */
        } else if (type == 'p') {
            fo_session_put_file(s, cfd, p, fd);
        } else if (type == 'g') {
            fo_session_get_file(s, cfd, p);
        } else if (type == 'I') {
            const char *yes = "{\"interrupted\": true}", *no = "{\"interrupted\": false}";
            if (s->in_cell) s->interrupt = 1;
            (void)fo_session_send(cfd, 'R', s->in_cell ? yes : no,
                                  strlen(s->in_cell ? yes : no), -1);
        } else {
            fo_session_error e;
            fo_session_fail(&e, "bad_request", 1, "", "unknown control request");
            (void)fo_session_error_send(cfd, &e);
            type = 0;
        }
    }
    if (fd >= 0) close(fd);
    fo_free(p);
    close(cfd);
    return type;
}

/* Runs the cell until its end frame, the interpreter's death, or the
   timeout or an interrupt request (SIGINT, then after GRACE_S a restart). */
/* A cell that has run BUSY_S yields the CPU to quicker ones: its session's
   cpu.weight drops to BUSY_WEIGHT until it ends, so a `1+1` in another
   session does not queue behind a dozen long computations on a few cores
   (each still gets the CPU nobody else wants, and --cpus holds as before). */
#define BUSY_S      1.0
#define BUSY_WEIGHT 10

static void supervise_loop(fo_session *s, cell_run *c, double timeout_s);

static void supervise_cell(fo_session *s, cell_run *c, double timeout_s)
{
    s->busy_since = fo_now();
    s->yielded = 0;
    supervise_loop(s, c, timeout_s);
    if (s->yielded == 1) (void)fo_sandbox_cgroup_weight(&s->j.cg, 100);
}

static void supervise_loop(fo_session *s, cell_run *c, double timeout_s)
{
    double deadline = fo_now() + timeout_s, grace_end = 0;

    while (!c->ended) {
        int stopping = c->timed_out || c->interrupted;
        double now = fo_now(), left = (stopping ? grace_end : deadline) - now, wait;

        if (!s->yielded && now - s->busy_since >= BUSY_S)
            s->yielded = fo_sandbox_cgroup_weight(&s->j.cg, BUSY_WEIGHT) == 0 ? 1 : -1;
        wait = !s->yielded && s->busy_since + BUSY_S - now < left ? s->busy_since + BUSY_S - now
                                                                  : left;
        struct pollfd pf[4] = { { s->j.out_r, POLLIN, 0 }, { s->j.err_r, POLLIN, 0 },
                                { s->j.ctl, POLLIN, 0 }, { s->ctl, POLLIN, 0 } };

        if (!stopping && (left <= 0 || s->interrupt)) {
            c->interrupted = left > 0;          /* asked for, before the timeout */
            c->timed_out = !c->interrupted;
            (void)fo_sandbox_jail_ctl(&s->j, 'I');
            grace_end = fo_now() + GRACE_S;
            continue;
        }
        if (left <= 0) {
            c->restarted = 1;
            return;
        }
        if (poll(pf, s->ctl >= 0 ? 4 : 3, (int)(wait * 1000) + 1) < 0 && errno != EINTR) break;
        if (pf[3].revents) fo_session_control(s); /* an interrupt (acted on above), a put, a get */
        if ((pf[0].revents || pf[1].revents) && drain_kernel(s, c) < 0) {
            /* closed (it died: init's word follows) or a frame it had no
               right to send: either way it is restarted */
            struct pollfd cp = { s->j.ctl, POLLIN, 0 };
            c->died = 1;
            if (poll(&cp, 1, 1000) > 0) (void)fo_sandbox_jail_event(&s->j, &c->wstatus);
            return;
        }
        if (pf[2].revents) {
            int ev = fo_sandbox_jail_event(&s->j, &c->wstatus);
            if (ev == 'S' || ev <= 0) {
                (void)drain_kernel(s, c);
                c->died = 1;
                return;
            }
        }
    }
}

static void failure(fo_buf *b, const char *code, const char *msg, const char *hint,
                    cell_run *c)
{
    char line[1024];

    snprintf(line, sizeof line, "folio: session: %s [%s]\n  hint: %s\n", msg, code, hint);
    show(c, 'e', line, strlen(line));
    fo_buf_puts(b, "{\"code\": ");
    fo_buf_json_str(b, code, strlen(code));
    fo_buf_puts(b, ", \"message\": ");
    fo_buf_json_str(b, msg, strlen(msg));
    fo_buf_puts(b, ", \"hint\": ");
    fo_buf_json_str(b, hint, strlen(hint));
    fo_buf_puts(b, "}");
}

/* A hint in the caller's words: the CLI's options, or the JSON fields of an
   HTTP request. */
static const char *say(const cell_run *c, const char *cli, const char *http)
{
    return c->http ? http : cli;
}

/* Bytes in use on the session's disk (/work, /out, /tmp: one tmpfs), or 0. */
static unsigned long long disk_used(fo_session *s)
{
    struct statvfs v;

    if (s->j.out_dir < 0 || fstatvfs(s->j.out_dir, &v) < 0) return 0;
    return (unsigned long long)(v.f_blocks - v.f_bfree) * v.f_frsize;
}

/* The disk filled: its pages are the session's memory too, so a full disk
   ends as an out-of-memory kill or as ENOSPC in the cell. Either way the
   user has to delete or shrink files, not process data in chunks. */
static int disk_filled(fo_session *s, const cell_run *c, unsigned long long used, int oom)
{
    unsigned long long disk = (unsigned long long)s->plan.disk_mb << 20,
                       memory = (unsigned long long)s->plan.memory_mb << 20;

    if (c->error && c->evalue.data && strstr(c->evalue.data, "[Errno 28]"))
        return 1;                                 /* ENOSPC, raised in the cell */
    if (!c->died) return 0;
    return (disk && used >= disk - disk / 10) || (oom && memory && used >= memory / 2);
}

static const char *disk_full(fo_session *s, cell_run *c, unsigned long long used, fo_buf *f)
{
    char msg[320];

    snprintf(msg, sizeof msg, "the session's disk is full: /work, /out and /tmp hold %llu MB "
             "(disk %llu MB, memory %llu MB, which the disk's pages count against)%s",
             used >> 20, (unsigned long long)s->plan.disk_mb,
             (unsigned long long)s->plan.memory_mb, c->died ? "; the interpreter was restarted:"
             " files kept, variables lost" : "");
    failure(f, "disk_full", msg, say(c, "delete files you no longer need (os.remove) or write "
            "smaller ones, or start the session with a larger --disk (and --memory: the disk's "
            "pages count as memory)", "delete files you no longer need (os.remove) or write "
            "smaller ones, or create the session with a larger \"disk\" (and \"memory\": the "
            "disk's pages count as memory)"), c);
    return c->died ? "restarted" : "error";
}

/* Status and failure of a finished cell. */
static const char *judge(fo_session *s, cell_run *c, double timeout_s, fo_buf *f)
{
    char msg[256];
    long oom = 0, pids = 0;
    unsigned long long used = disk_used(s);

    fo_sandbox_cgroup_events(&s->j.cg, &oom, &pids);
    if (c->interrupted && !c->restarted && !c->died) {
        failure(f, "interrupted", "the cell was interrupted on request (KeyboardInterrupt); "
                "the variables are kept", "run the cell again, or the next one", c);
        return "interrupted";
    }
    if (c->interrupted && c->restarted) {
        snprintf(msg, sizeof msg, "the cell was interrupted on request and did not stop within "
                 "%g s: the interpreter was restarted, files kept, variables lost", GRACE_S);
        failure(f, "interrupted", msg, "re-run the cells that define what you need; do not "
                "catch KeyboardInterrupt or ignore SIGINT in a long loop", c);
        return "restarted";
    }
    if (c->timed_out && !c->restarted && !c->died) {
        snprintf(msg, sizeof msg, "the cell ran past its timeout of %g s and was interrupted "
                 "(KeyboardInterrupt); the variables are kept", timeout_s);
        failure(f, "cell_timeout", msg, say(c, "pass a larger --timeout to exec, or make the "
                "cell faster", "send a larger \"timeout\" with the exec, or make the cell "
                "faster"), c);
        return "timeout";
    }
    if (c->restarted) {
        snprintf(msg, sizeof msg, "the cell ran past its timeout of %g s and did not stop within "
                 "%g s of the interrupt: the interpreter was restarted, files kept, variables lost",
                 timeout_s, GRACE_S);
        failure(f, "cell_timeout", msg, "re-run the cells that define what you need; do not "
                "catch KeyboardInterrupt or ignore SIGINT in a long loop", c);
        return "restarted";
    }
    if (disk_filled(s, c, used, oom > s->oom_kills)) return disk_full(s, c, used, f);
    if (c->died && oom > s->oom_kills) {
        snprintf(msg, sizeof msg, "the interpreter ran out of memory (%llu MB, of which the "
                 "files in /work, /out and /tmp hold %llu MB) and was restarted: files kept, "
                 "variables lost", (unsigned long long)s->plan.memory_mb, used >> 20);
        failure(f, "oom_killed", msg, say(c, "process the data in chunks, or start the session "
                "with a larger --memory", "process the data in chunks, or create the session "
                "with a larger \"memory\""), c);
        return "restarted";
    }
    if (c->died) {
        if (WIFSIGNALED(c->wstatus))
            snprintf(msg, sizeof msg, "the interpreter was killed by SIG%s and restarted: files "
                     "kept, variables lost", sigabbrev_np(WTERMSIG(c->wstatus)) ?
                     sigabbrev_np(WTERMSIG(c->wstatus)) : "?");
        else
            snprintf(msg, sizeof msg, "the interpreter exited (code %d) and was restarted: "
                     "files kept, variables lost", WIFEXITED(c->wstatus) ?
                     WEXITSTATUS(c->wstatus) : -1);
        failure(f, "kernel_restarted", msg, "re-run the cells that define what you need", c);
        return "restarted";
    }
    fo_buf_puts(f, "null");
    return c->error ? "error" : "ok";
}

static void put_json(fo_buf *b, const char *key, const fo_buf *v)
{
    fo_buf_printf(b, ", \"%s\": ", key);
    fo_buf_puts(b, v->len ? v->data : "null");
}

static void result_json(fo_session *s, cell_run *c, unsigned cell, const char *status,
                        const fo_buf *fail, double ms, fo_buf *b, fo_buf *files)
{
    fo_sandbox_collection now;

    fo_buf_printf(b, "{\"cell\": %u, \"status\": \"%s\", \"stdout\": ", cell, status);
    fo_buf_json_str(b, c->raw[0] ? c->raw[0] : "", c->len[0]);
    fo_buf_puts(b, ", \"stderr\": ");
    fo_buf_json_str(b, c->raw[1] ? c->raw[1] : "", c->len[1]);
    put_json(b, "result", &c->repr);
    put_json(b, "result_data", c->repr.len ? &c->result_data : &(fo_buf){ 0 });
    if (c->error && c->ename.len) {
        fo_buf_puts(b, ", \"error\": {\"name\": ");
        fo_buf_puts(b, c->ename.data);
        fo_buf_puts(b, ", \"value\": ");
        fo_buf_puts(b, c->evalue.len ? c->evalue.data : "\"\"");
        fo_buf_puts(b, ", \"traceback\": ");
        fo_buf_puts(b, c->etb.len ? c->etb.data : "\"\"");
        if (c->ehint.len) {
            fo_buf_puts(b, ", \"hint\": ");
            fo_buf_puts(b, c->ehint.data);
        }
        fo_buf_puts(b, "}");
    } else {
        fo_buf_puts(b, ", \"error\": null");
    }
    memset(&now, 0, sizeof now);
    fo_session_out_collect(s->j.out_dir, &s->plan, &s->outs, &now);
    fo_buf_puts(b, ", \"displays\": ");
    fo_session_displays(b, &now, c->displays, c->n_displays);
    if (c->n_displays == MAX_DISPLAYS)
        fo_buf_printf(b, ", \"displays_dropped\": \"at most %d displays a cell are kept\"",
                      MAX_DISPLAYS);
    fo_buf_puts(b, ", \"files\": ");
    fo_session_out_changes(files, &s->outs, &now);          /* for the record too */
    fo_buf_append(b, files->data ? files->data : "[]", files->data ? files->len : 2);
    fo_buf_puts(b, ", \"refused\": ");
    fo_session_out_refused(b, &s->outs, &now);
    fo_buf_printf(b, ", \"hashed_bytes\": %llu", (unsigned long long)now.hashed);
    fo_sandbox_collection_free(&s->outs);
    s->outs = now;
    fo_buf_printf(b, ", \"ms\": %.1f, \"truncated\": ", ms);
    if (c->total[0] > c->len[0] || c->total[1] > c->len[1])
        fo_buf_printf(b, "{\"stdout_bytes\": %llu, \"stderr_bytes\": %llu, \"kept\": %u}",
                              c->total[0], c->total[1], FO_SESSION_OUT_CAP);
    else fo_buf_puts(b, "null");
    put_json(b, "failure", fail);
    if (s->resumed) {
        fo_buf_printf(b, ", \"resumed\": true, \"from\": \"%s\", \"not_restored\": [",
                      s->from ? s->from : "hibernation");
        fo_buf_puts(b, s->not_restored.data ? s->not_restored.data : "");
        fo_buf_puts(b, "]");
        s->resumed = 0;
    }
    fo_buf_puts(b, "}");
}

/* The egress proxy's log lines written since the last cell, as JSON items
   (FO_RECORD_EGRESS_CAP bytes at most: past that, the rest is skipped and
   an item says how much). Nothing without a proxy. */
static void egress_since(fo_session *s, fo_buf *b)
{
    char *buf;
    ssize_t n;
    size_t used = 0;

    if (s->px.pid <= 0 || s->px.log_fd < 0 || !(buf = fo_malloc(FO_RECORD_EGRESS_CAP))) return;
    n = pread(s->px.log_fd, buf, FO_RECORD_EGRESS_CAP, (off_t)s->egress_off);
    while (n > 0 && used < (size_t)n) {
        char *nl = memchr(buf + used, '\n', (size_t)n - used);
        if (!nl) break;
        size_t len = (size_t)(nl - buf) - used;
        if (len && buf[used] == '{' && fo_session_json_valid(buf + used, len)) {
            fo_buf_puts(b, b->len ? ", " : "");
            fo_buf_append(b, buf + used, len);
        }
        used = (size_t)(nl - buf) + 1;
    }
    s->egress_off += (long long)used;
    if (n == (ssize_t)FO_RECORD_EGRESS_CAP && used < FO_RECORD_EGRESS_CAP / 2) {
        struct stat st;                        /* one line over the cap: skip to the end */
        if (fstat(s->px.log_fd, &st) == 0 && st.st_size > s->egress_off) {
            fo_buf_printf(b, "%s{\"skipped_bytes\": %lld}", b->len ? ", " : "",
                          (long long)st.st_size - s->egress_off);
            s->egress_off = (long long)st.st_size;
        }
    }
    fo_free(buf);
}

/* The cell into the session's record (session_record.c). */
static void record(fo_session *s, const cell_run *c, unsigned cell, const char *status,
                   double started, double ms, const char *code, size_t len, const fo_buf *files)
{
    const char *displays[MAX_DISPLAYS];
    fo_record_cell r = { .cell = cell, .status = status, .started = started, .ms = ms,
                         .code = code, .code_len = len, .out = c->raw[0], .err = c->raw[1],
                         .out_len = c->len[0], .err_len = c->len[1],
                         .out_total = c->total[0], .err_total = c->total[1],
                         .result_data = c->repr.len && c->result_data.len ? c->result_data.data : "",
                         .ename = c->error && c->ename.len ? c->ename.data : "",
                         .evalue = c->evalue.len ? c->evalue.data : "",
                         .etb = c->etb.len ? c->etb.data : "",
                         .displays = displays, .files = files->data ? files->data : "[]" };

    fo_buf egress = { 0 };

    for (size_t k = 0; k < c->n_displays; k++)
        if (c->displays[k].json.len && !c->displays[k].json.failed)
            displays[r.n_displays++] = c->displays[k].json.data;
    egress_since(s, &egress);
    r.egress = egress.len && !egress.failed ? egress.data : "";
    fo_session_record_cell(s->dir, &r);
    fo_buf_free(&egress);
}

static void cell_free(cell_run *c)
{
    fo_buf *all[] = { &c->repr, &c->ename, &c->evalue, &c->etb, &c->ehint, &c->result_data };

    for (size_t k = 0; k < sizeof all / sizeof *all; k++) fo_buf_free(all[k]);
    fo_session_bundle_free(&c->cur);
    for (size_t k = 0; k < c->n_displays; k++) fo_session_bundle_free(&c->displays[k]);
    fo_free(c->raw[0]);
    fo_free(c->raw[1]);
}

void fo_session_exec_cell(fo_session *s, int cfd, const char *p, size_t n)
{
    cell_run c;
    fo_buf fail = { 0 }, res = { 0 }, files = { 0 };
    unsigned char no[4];
    unsigned timeout_ms = 0, cell;
    double start = fo_now(), timeout_s, ms;
    struct timespec wall;
    const char *status;

    memset(&c, 0, sizeof c);
    c.cfd = cfd;
    clock_gettime(CLOCK_REALTIME, &wall);
    if (n >= 5) {
        timeout_ms = (unsigned)(unsigned char)p[0] | (unsigned)(unsigned char)p[1] << 8 |
                     (unsigned)(unsigned char)p[2] << 16 | (unsigned)(unsigned char)p[3] << 24;
        c.stream = (unsigned char)p[4] & FO_SESSION_STREAM_MASK;
        c.http = ((unsigned char)p[4] & FO_SESSION_CALLER_HTTP) != 0;
    }
    timeout_s = timeout_ms ? timeout_ms / 1000.0 : s->plan.timeout_s;
    cell = ++s->cells;
    for (int k = 0; k < 4; k++) no[k] = (unsigned char)(cell >> (8 * k));
    if (s->kernel_lost) {
        s->kernel_lost = 0;
        failure(&fail, "kernel_restarted", "the interpreter died after the previous cell and "
                "was restarted: files kept, variables lost; this cell was not run",
                "run the cell again, after the cells that define what it needs", &c);
        status = "restarted";
    } else if (n < 5 || kwrite(s, 'c', (const char *)no, 4, p + 5, n - 5) < 0) {
        c.died = 1;
        status = judge(s, &c, timeout_s, &fail);
    } else {
        char no_text[16];
        int len = snprintf(no_text, sizeof no_text, "%u", cell);

        if (c.cfd >= 0 && fo_session_send(c.cfd, 'N', no_text, (size_t)len, -1) < 0)
            c.cfd = -1;                           /* the cell has begun: its number */
        s->in_cell = 1;
        s->interrupt = 0;
        supervise_cell(s, &c, timeout_s);
        s->in_cell = s->interrupt = 0;
        status = judge(s, &c, timeout_s, &fail);
    }
    if ((c.restarted || c.died) && fo_session_kernel_restart(s) < 0) s->kernel_lost = 1;
    fo_sandbox_cgroup_events(&s->j.cg, &s->oom_kills, &(long){ 0 });
    ms = (fo_now() - start) * 1000;
    result_json(s, &c, cell, status, &fail, ms, &res, &files);
    record(s, &c, cell, status, (double)wall.tv_sec + wall.tv_nsec / 1e9, ms,
           n >= 5 ? p + 5 : "", n >= 5 ? n - 5 : 0, &files);   /* before the answer: an
                                                                    export after it has it */
    if (c.cfd >= 0 && (res.failed || fo_session_send(c.cfd, 'R', res.data, res.len, -1) < 0)) c.cfd = -1;
    fo_buf_free(&files);
    fo_buf_free(&fail);
    fo_buf_free(&res);
    cell_free(&c);
}
