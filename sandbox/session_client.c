/* session_client.c — the C API of session.h: each call connects to the
 * session's socket, sends one request frame and reads the answer frames.
 * A session that is not live is classified from its store: hibernated
 * (resumed here, by starting a supervisor with --resume), ended without
 * saving (session_expired) or unknown (session_not_found). */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_store.h"

#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <poll.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folio_bin[PATH_MAX];

/* The static folio binary that runs supervisors: this process's own unless
   told otherwise (folio serve, from folio-engine, names it). */
void fo_session_use_folio(const char *path)
{
    snprintf(folio_bin, sizeof folio_bin, "%s", path ? path : "");
}

static const char *folio_path(const char *given)
{
    if (given) return given;
    if (!folio_bin[0]) {
        ssize_t n = readlink("/proc/self/exe", folio_bin, sizeof folio_bin - 1);
        folio_bin[n > 0 ? n : 0] = 0;
    }
    return folio_bin;
}

/* Runs folio with argv detached from the caller: fork, setsid, fork (the
   grandchild, adopted by init, is no session leader), and reaps the
   intermediate child. The grandchild keeps keep_fd across the exec (-1:
   none), closes close_fd (-1: none) and, when quiet, reads and writes
   /dev/null. Only async-signal-safe calls after the fork (folio serve is
   multithreaded): argv is built by the caller. 0, or -1 when fork failed. */
static int detach_exec(const char *folio, const char *const *argv, int keep_fd, int close_fd, bool quiet)
{
    pid_t pid = fork();
    int st;

    if (pid == 0) {
        if (setsid() < 0) _exit(5);
        if (fork() != 0) _exit(0);
        if (close_fd >= 0) close(close_fd);
        if (keep_fd >= 0) (void)fcntl(keep_fd, F_SETFD, 0);
        if (quiet) {
            int nul = open("/dev/null", O_RDWR);
            if (nul >= 0) {
                dup2(nul, 0);
                dup2(nul, 1);
                dup2(nul, 2);
            }
        }
        execv(folio, (char *const *)argv); /* execv only reads the strings */
        _exit(5);
    }
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
    return pid < 0 ? -1 : 0;
}

/* Starts `folio session _supervise ID FD MODE...` detached (double fork,
   own session) and waits for its first frame: 'K' and the info JSON, or 'X'. */
static int spawn(const char *folio, const char *id, const char *mode, char *const *opts,
                 int n_opts, char **info, fo_session_error *err)
{
    int sv[2], started, k = 0;
    char type, *p = NULL, fdtxt[16];
    const char **argv;
    size_t n;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        fo_session_fail(err, "internal", 5, "", "can't start a supervisor: %s", strerror(errno));
        return -1;
    }
    /* argv is built before the fork: folio serve is multithreaded, so the
       child makes only async-signal-safe calls (no allocation) until execv */
    argv = fo_calloc((size_t)n_opts + 8, sizeof *argv);
    if (!argv) {
        close(sv[0]);
        close(sv[1]);
        fo_session_fail(err, "internal", 5, "", "can't start a supervisor: out of memory");
        return -1;
    }
    snprintf(fdtxt, sizeof fdtxt, "%d", sv[1]);
    argv[k++] = "folio";
    argv[k++] = "session";
    argv[k++] = "_supervise";
    argv[k++] = id;
    argv[k++] = fdtxt;
    argv[k++] = mode;
    for (int i = 0; i < n_opts; i++) argv[k++] = opts[i];
    fflush(NULL);
    started = detach_exec(folio, argv, sv[1], sv[0], false);
    fo_free(argv);
    close(sv[1]);
    if (started < 0 || fo_session_recv(sv[0], &type, &p, &n, 65536, 120000, NULL) < 0) {
        close(sv[0]);
        fo_session_fail(err, "internal", 5, "see the supervisor's log in the runtime folder",
                        "the session's supervisor did not start");
        return -1;
    }
    close(sv[0]);
    if (type == 'X') {
        fo_session_error_parse(err, p, n);
        fo_free(p);
        return -1;
    }
    if (info)
        *info = p;
    else fo_free(p);
    return 0;
}

/* ------------------------------------------------------------- spares */

/* A spare is a session started ahead, with the options of the `new` that
   started it, so that the next `new` with the same options answers at once
   (a cold jail and Python take a few hundred ms). RT/spares/ID holds those
   options; the client that unlinks it owns the session. A runtime folder has
   at most one spare (RT/spares.lock is held while one is made; a spare of
   other options is ended for the new one), and it holds a slot of
   --max-sessions from its start, so live supervisors never pass that limit;
   a `new` that finds the limit reached ends the spare and tries again. A
   spare holds no slot of the host's until it is claimed, and ends (nothing
   saved) after --idle unclaimed. */

/* flock on RT/spares.lock: the descriptor, or -1 (held by another when
   !wait; none made yet when wait: no spare was ever made here either). */
static int spare_lock(int rt, int wait)
{
    int fd = openat(rt, "spares.lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC | (wait ? 0 : O_CREAT),
                    0600);

    if (fd >= 0 && flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Ends the unclaimed spares of rt whose options are not key (all when key is
   NULL); how many. *kept: a spare of key remains. */
static unsigned drop_spares_but(int rt, const char *key, int *kept)
{
    int sp = openat(rt, "spares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = sp >= 0 ? fdopendir(sp) : NULL;
    struct dirent *de;
    fo_session_error err;
    unsigned n = 0;

    *kept = 0;
    while (d && (de = readdir(d))) {
        char *have;
        int same;
        if (!fo_session_valid_id(de->d_name)) continue;
        have = key ? fo_session_read_small(dirfd(d), de->d_name, 65536) : NULL;
        same = have && !strcmp(have, key);
        fo_free(have);
        if (same) {
            *kept = 1;
        } else if (unlinkat(dirfd(d), de->d_name, 0) == 0) {   /* claimed: not ours to end */
            memset(&err, 0, sizeof err);
            n += fo_session_close(de->d_name, &err) == 0;
        }
    }
    if (d)
        closedir(d);
    else if (sp >= 0) close(sp);
    return n;
}

/* The options as one string, or NULL when they name --in files (those belong
   to one session: no spare for them). malloc'd. */
static char *spare_key(char *const *argv, int argc)
{
    fo_buf b = { 0 };

    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--in")) {
            fo_buf_free(&b);
            return NULL;
        }
        fo_buf_printf(&b, "%s\n", argv[k]);
    }
    if (b.failed) {
        fo_buf_free(&b);
        return NULL;
    }
    return b.data ? b.data : fo_strdup("");
}

static int session_info(const char *id, char **info, fo_session_error *err);

/* Claims a live spare started with key. 0 (id and *info set) or -1. */
static int take_spare(int rt, const char *key, char id[33], char **info)
{
    int sp = openat(rt, "spares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = sp >= 0 ? fdopendir(sp) : NULL;
    struct dirent *de;
    fo_session_error ignore;
    int rc = -1;

    while (d && rc < 0 && (de = readdir(d))) {
        char *have;
        int match;
        if (!fo_session_valid_id(de->d_name)) continue;
        have = fo_session_read_small(dirfd(d), de->d_name, 65536);
        match = have && !strcmp(have, key);
        fo_free(have);
        if (!match || unlinkat(dirfd(d), de->d_name, 0) < 0)
            continue;                      /* another's, or claimed by another client */
        memset(&ignore, 0, sizeof ignore);
        if (session_info(de->d_name, info, &ignore) == 0) {
            memcpy(id, de->d_name, 33);
            rc = 0;
        } else {
            (void)fo_session_close(de->d_name, &ignore);   /* dead, or over the limit */
        }
    }
    if (d)
        closedir(d);
    else if (sp >= 0) close(sp);
    return rc;
}

/* Starts `folio session _spare OPTIONS` detached; returns at once. Only
   async-signal-safe calls after fork: folio serve is multithreaded. */
static void start_spare(const char *folio, char *const *opts, int n_opts)
{
    const char **argv = fo_calloc((size_t)n_opts + 4, sizeof *argv);

    if (!argv) return;
    argv[0] = "folio";
    argv[1] = "session";
    argv[2] = "_spare";
    for (int k = 0; k < n_opts; k++) argv[3 + k] = opts[k];
    (void)detach_exec(folio, argv, -1, -1, true);
    fo_free(argv);
}

int fo_session_spare(const char *folio, char *const *argv, int argc)
{
    fo_session_error err;
    char id[33], *key = spare_key(argv, argc);
    int rt, sp, rc, lock, kept;

    memset(&err, 0, sizeof err);
    rt = key ? fo_session_runtime(&err) : -1;
    if (rt < 0) {
        fo_free(key);
        return 5;
    }
    lock = spare_lock(rt, 0);             /* another is being made: one is enough */
    (void)drop_spares_but(rt, key, &kept);
    if (lock < 0 || kept) {
        if (lock >= 0) close(lock);
        close(rt);
        fo_free(key);
        return 0;
    }
    do
        fo_session_new_id(id);
    while (mkdirat(rt, id, 0700) < 0 && errno == EEXIST);
    rc = spawn(folio_path(folio), id, "--spare", argv, argc, NULL, &err);
    (void)mkdirat(rt, "spares", 0700);
    sp = openat(rt, "spares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rc == 0 && (sp < 0 || fo_session_write_small(sp, id, key) < 0)) (void)fo_session_close(id, &err);
    if (sp >= 0) close(sp);
    close(lock);
    close(rt);
    fo_free(key);
    return rc == 0 ? 0 : 5;
}

unsigned fo_session_drop_spares(void)
{
    fo_session_error err;
    int rt = fo_session_runtime(&err), lock, kept;
    unsigned n;

    if (rt < 0) return 0;
    lock = spare_lock(rt, 1);             /* after a spare being made is marked */
    n = drop_spares_but(rt, NULL, &kept);
    if (lock >= 0) close(lock);
    close(rt);
    return n;
}

int fo_session_create(const fo_session_new *o, char id[33], char **info, fo_session_error *err)
{
    int rt = fo_session_runtime(err), rc;
    char *key = o->cold ? NULL : spare_key(o->argv, o->argc);

    if (info) *info = NULL;
    if (rt < 0) {
        fo_free(key);
        return -1;
    }
    if (key && take_spare(rt, key, id, info) == 0) {
        rc = 0;
    } else {
        do
            fo_session_new_id(id);
        while (mkdirat(rt, id, 0700) < 0 && errno == EEXIST);
        rc = spawn(folio_path(o->folio), id, "--", o->argv, o->argc, info, err);
        if (rc < 0 && !strcmp(err->code, "limit_reached") && fo_session_drop_spares() > 0) {
            memset(err, 0, sizeof *err);      /* a spare held the slot: it gives way */
            /* a new id: the refused supervisor removed its folder before it
               answered, but may still be on its way out under the old one */
            do fo_session_new_id(id);
            while (mkdirat(rt, id, 0700) < 0 && errno == EEXIST);
            rc = spawn(folio_path(o->folio), id, "--", o->argv, o->argc, info, err);
        }
    }
    if (rc == 0 && key)
        start_spare(folio_path(o->folio), o->argv, o->argc);   /* for the next new */
    fo_free(key);
    close(rt);
    return rc;
}

/* The state of session id in the runtime folder rt ("hibernated\n"...,
   malloc'd), or NULL when it has none. A session whose supervisor is gone
   (its instance died, or this one restarted) and which the shared state
   folder holds a snapshot of is "hibernated" here when resume: the resume
   reads that snapshot. */
static char *adopt(int rt, const char *id, int resume)
{
    int dir = openat(rt, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    char *state = dir >= 0 ? fo_session_read_small(dir, "state", 64) : NULL;

    if ((!state || strcmp(state, "hibernated\n")) && resume && fo_session_state_has(id)) {
        if (dir < 0 && mkdirat(rt, id, 0700) == 0)
            dir = openat(rt, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir >= 0 && fo_session_write_small(dir, "state", "hibernated\n") == 0) {
            fo_free(state);
            state = fo_strdup("hibernated\n");
        }
    }
    if (dir >= 0) close(dir);
    return state;
}

/* A connection to a live session; resumes a hibernated one when resume. */
static int open_session(const char *id, int resume, fo_session_error *err)
{
    int rt, s;
    char *state;

    if (!fo_session_valid_id(id)) {
        fo_session_fail(err, "session_not_found", 2, "a session id is the 32 hex digits "
                        "folio session new printed", "\"%.64s\" is not a session id", id);
        return -1;
    }
    rt = fo_session_runtime(err);
    if (rt < 0) return -1;
    s = fo_session_connect(rt, id);
    if (s >= 0 || errno == EACCES) {
        close(rt);
        if (s < 0)
            fo_session_fail(err, "internal", 5, "", "can't reach session %s: %s", id,
                            strerror(errno));
        return s;
    }
    state = adopt(rt, id, resume);
    if (!state) {
        fo_session_fail(err, "session_not_found", 2, "list sessions with folio session ls; "
                        "start one with folio session new", "no session %s here", id);
    } else if (!strcmp(state, "hibernated\n") && resume) {
        if (spawn(folio_path(NULL), id, "--resume", NULL, 0, NULL, err) == 0) s = fo_session_connect(rt, id);
        if (s < 0 && !err->code[0])
            fo_session_fail(err, "restore_failed", 5, "try again; close the session if it "
                            "persists", "session %s was resumed but does not answer", id);
    } else if (!strcmp(state, "hibernated\n")) {
        fo_session_fail(err, "session_expired", 2, "", "session %s is hibernated", id);
        s = -2;
    } else {
        fo_session_fail(err, "session_expired", 2, "start a new session with folio session new",
                        "session %s has ended: its supervisor stopped without saving it "
                        "(killed, or the machine restarted)", id);
    }
    fo_free(state);
    close(rt);
    return s;
}

/* Sends one request; returns the connection, or -1. */
static int request(const char *id, int resume, char type, const void *p, size_t n, int fd,
                   fo_session_error *err)
{
    int s = open_session(id, resume, err);

    if (s < 0) return -1;
    if (fo_session_send(s, type, p, n, fd) < 0) {
        fo_session_fail(err, "internal", 5, "", "can't talk to session %s: %s", id,
                        strerror(errno));
        close(s);
        return -1;
    }
    return s;
}

/* answer(): the supervisor went away before answering anything. */
#define LOST_UNSERVED (-2)

/* True when the session's state file says it was saved: a request that was
   waiting in the socket's queue while it hibernated was never read. */
static int hibernated_now(const char *id)
{
    fo_session_error ignore;
    int rt = fo_session_runtime(&ignore), dir, yes = 0;
    char *state;

    if (rt < 0) return 0;
    dir = openat(rt, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    state = dir >= 0 ? fo_session_read_small(dir, "state", 64) : NULL;
    yes = state && !strcmp(state, "hibernated\n");
    fo_free(state);
    if (dir >= 0) close(dir);
    close(rt);
    return yes;
}

/* Waits for the supervisor's next frame up to FO_SESSION_TICK_MS: 1 when
   it has something to read, 0 when the wait ran out, -1 on error. */
static int tick_wait(int s)
{
    struct pollfd p = { s, POLLIN, 0 };
    int r;

    while ((r = poll(&p, 1, FO_SESSION_TICK_MS)) < 0 && errno == EINTR)
        ;
    return r;
}

/* Reads answer frames until 'R' (payload to *result, owned) or 'X'.
   Stream frames go to fn; 'F' frames (a file and its fd) to file_fn. */
static int answer(int s, fo_session_stream_fn fn, void *ud, fo_session_file_fn file_fn,
                  void *fud, char **result, int *fd, fo_session_error *err)
{
    unsigned frames = 0;

    for (;;) {
        char type, *p;
        size_t n;
        int got = -1;

        if (fn && tick_wait(s) == 0) {
            fn(ud, 0, "", 0);                 /* nothing for a while: still running */
            continue;
        }
        if (fo_session_recv(s, &type, &p, &n, FO_SESSION_MAX_FRAME, -1, &got) < 0) {
            fo_session_fail(err, "internal", 5, "its log is in the runtime folder",
                            "the session's supervisor ended during the request: %s",
                            strerror(errno));
            close(s);
            return frames ? -1 : LOST_UNSERVED;
        }
        frames++;
        if ((type == 'o' || type == 'e' || type == 'D' || type == 'N') && fn)
            fn(ud, type == 'o' ? 1 : type == 'e' ? 2 : type == 'D' ? 3 : 4, p, n);
        if (type == 'F' && file_fn && got >= 0) (void)file_fn(fud, p, got);
        if (type == 'F' && fd && got >= 0) {
            *fd = got;
            got = -1;
        }
        if (got >= 0) close(got);
        if (type == 'X') fo_session_error_parse(err, p, n);
        if (type == 'R' && result) {
            *result = p;
            p = NULL;
        }
        fo_free(p);
        if (type == 'X' || type == 'R' || (type == 'F' && fd)) {
            close(s);
            return type == 'X' ? -1 : 0;
        }
    }
}

static int exec_cell(const char *id, const char *code, size_t len, double timeout_s, char mode,
                     fo_session_stream_fn fn, void *ud, char **result, fo_session_error *err)
{
    unsigned ms = timeout_s > 0 ? (unsigned)(timeout_s * 1000 + 0.5) : 0;
    char *req;
    int s;

    *result = NULL;
    if (len > FO_SESSION_MAX_CODE) {
        fo_session_fail(err, "bad_request", 2, "split it into several cells", "the cell is over "
                        "%u bytes", FO_SESSION_MAX_CODE);
        return -1;
    }
    req = fo_malloc(len + 5);
    if (!req) {
        fo_session_fail(err, "internal", 5, "", "out of memory");
        return -1;
    }
    for (int k = 0; k < 4; k++) req[k] = (char)(ms >> (8 * k));
    req[4] = mode;
    memcpy(req + 5, code, len);
    for (int tries = 0;; tries++) {
        s = request(id, 1, 'x', req, len + 5, -1, err);
        s = s < 0 ? -1 : answer(s, fn, ud, NULL, NULL, result, NULL, err);
        if (s != LOST_UNSERVED || tries || !hibernated_now(id)) break;
        memset(err, 0, sizeof *err);     /* it hibernated with our cell unread: resume, resend */
    }
    fo_free(req);
    return s < 0 ? -1 : 0;
}

int fo_session_exec(const char *id, const char *code, size_t len, double timeout_s,
                    fo_session_stream_fn fn, void *ud, char **result, fo_session_error *err)
{
    return exec_cell(id, code, len, timeout_s, fn ? FO_SESSION_STREAM_TEXT : 0, fn, ud, result,
                     err);
}

int fo_session_exec_as(const char *id, const char *code, size_t len, double timeout_s,
                       unsigned mode, fo_session_stream_fn fn, void *ud, char **result,
                       fo_session_error *err)
{
    return exec_cell(id, code, len, timeout_s, (char)mode, fn, ud, result, err);
}

/* A connection to the control socket of session id, live on this host; -1
   when it is not (or id is not an id, or there is no runtime folder). */
static int connect_control(const char *id)
{
    fo_session_error ignore;
    int rt, s;

    if (!fo_session_valid_id(id) || (rt = fo_session_runtime(&ignore)) < 0) return -1;
    s = fo_session_connect_to(rt, id, "ctl");
    close(rt);
    return s;
}

/* A put or get on the control socket of a live session, which its
   supervisor reads while a cell runs: the answer's rc, or LOST_UNSERVED when
   the session is not live here or left it unanswered (a spare, or it ended):
   then the request socket serves it, resuming a hibernated session. */
static int control_request(const char *id, char type, const char *arg, int fd, char **result, int *out_fd,
                           fo_session_error *err)
{
    int s = connect_control(id), rc;

    if (s < 0) return LOST_UNSERVED;
    if (fo_session_send(s, type, arg, strlen(arg), fd) < 0) {
        close(s);
        return LOST_UNSERVED;
    }
    rc = answer(s, NULL, NULL, NULL, NULL, result, out_fd, err);
    if (rc == LOST_UNSERVED) memset(err, 0, sizeof *err);
    return rc;
}

int fo_session_put(const char *id, int fd, const char *dest, fo_session_error *err)
{
    int s = control_request(id, 'p', dest, fd, NULL, NULL, err);

    if (s != LOST_UNSERVED) return s < 0 ? -1 : 0;
    for (int tries = 0;; tries++) {
        s = request(id, 1, 'p', dest, strlen(dest), fd, err);
        s = s < 0 ? -1 : answer(s, NULL, NULL, NULL, NULL, NULL, NULL, err);
        if (s != LOST_UNSERVED || tries || !hibernated_now(id)) break;
        memset(err, 0, sizeof *err);
    }
    return s < 0 ? -1 : 0;
}

int fo_session_get(const char *id, const char *path, int *fd, unsigned long long *bytes,
                   fo_session_error *err)
{
    char *size = NULL;
    int s, rc;

    *fd = -1;
    rc = control_request(id, 'g', path, -1, &size, fd, err);
    if (rc == LOST_UNSERVED) {
        fo_free(size);
        size = NULL;
        if ((s = request(id, 1, 'g', path, strlen(path), -1, err)) < 0) return -1;
        rc = answer(s, NULL, NULL, NULL, NULL, &size, fd, err);
    }
    *bytes = 0;
    if (rc == 0 && *fd >= 0) {
        struct stat st;
        if (fstat(*fd, &st) == 0) *bytes = (unsigned long long)st.st_size;
    }
    fo_free(size);
    return rc == 0 && *fd >= 0 ? 0 : -1;
}

int fo_session_render(const char *id, const char *formats, fo_session_file_fn fn, void *ud,
                      char **result, fo_session_error *err)
{
    int s;

    *result = NULL;
    for (int tries = 0;; tries++) {
        s = request(id, 1, 'r', formats, strlen(formats), -1, err);
        s = s < 0 ? -1 : answer(s, NULL, NULL, fn, ud, result, NULL, err);
        if (s != LOST_UNSERVED || tries || !hibernated_now(id)) break;
        memset(err, 0, sizeof *err);
    }
    return s < 0 ? -1 : 0;
}

/* close and hibernate work on a live session; a hibernated one is closed by
   removing its store. */
/* The session's lock file, open (-1 if none): its supervisor holds it
   until the process is gone. */
static int open_lock(const char *id)
{
    fo_session_error ignored;
    char path[64];
    int rt = fo_session_runtime(&ignored), fd;

    if (rt < 0) return -1;
    snprintf(path, sizeof path, "%s/lock", id);
    fd = openat(rt, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    close(rt);
    return fd;
}

/* Waits, up to 10 s, until nobody holds lock: the supervisor that answered
   a close or hibernation has ended, so a caller that counts live sessions
   (folio serve --max-sessions, its spare) no longer sees it. Closes lock. */
static void wait_gone(int lock)
{
    double end = fo_now() + 10;

    while (lock >= 0 && flock(lock, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK &&
           fo_now() < end)
        usleep(2000);
    if (lock >= 0) close(lock);
}

static int end_session(const char *id, char type, fo_session_error *err)
{
    int s = open_session(id, 0, err), rt, rc;

    if (s >= 0) {
        int lock = open_lock(id);

        if (fo_session_send(s, type, NULL, 0, -1) < 0) {
            close(s);
            if (lock >= 0) close(lock);
            fo_session_fail(err, "internal", 5, "", "can't talk to session %s", id);
            return -1;
        }
        rc = answer(s, NULL, NULL, NULL, NULL, NULL, NULL, err);
        if (rc == 0)
            wait_gone(lock);
        else if (lock >= 0) close(lock);
        return rc;
    }
    if (s == -2 && type == 'h')
        return 0;                               /* hibernated already */
    if (type == 'c') fo_session_state_remove(id);
    if (s == -2 || (!strcmp(err->code, "session_expired") && type == 'c')) {
        rt = fo_session_runtime(err);
        if (rt < 0) return -1;
        s = fo_session_remove_tree(rt, id, 0);
        close(rt);
        return s;
    }
    return -1;
}

static int session_info(const char *id, char **info, fo_session_error *err)
{
    int s = request(id, 0, 'i', NULL, 0, -1, err);
    char *text = NULL;

    if (s < 0 || answer(s, NULL, NULL, NULL, NULL, &text, NULL, err) != 0) {
        fo_free(text);
        return -1;
    }
    if (info)
        *info = text;
    else fo_free(text);
    return 0;
}

int fo_session_interrupt(const char *id, int *interrupted, fo_session_error *err)
{
    int s = connect_control(id);
    char *text = NULL;

    *interrupted = 0;
    if (s < 0) {                         /* not live: hibernated (nothing runs) or unknown */
        s = open_session(id, 0, err);
        if (s >= 0)
            close(s);                    /* live, but its control socket is gone: ending */
        if (s >= 0 || s == -2) memset(err, 0, sizeof *err);
        return s >= 0 || s == -2 ? 0 : -1;
    }
    if (fo_session_send(s, 'I', NULL, 0, -1) < 0) {
        close(s);
        fo_session_fail(err, "internal", 5, "", "can't talk to session %s: %s", id,
                        strerror(errno));
        return -1;
    }
    if (answer(s, NULL, NULL, NULL, NULL, &text, NULL, err) < 0) return -1;
    *interrupted = text && strstr(text, "true") != NULL;
    fo_free(text);
    return 0;
}

int fo_session_close(const char *id, fo_session_error *err)
{
    fo_session_error ignored;

    /* a running cell would hold the close until it ends: it is interrupted
       first (restarted when it ignores that), so a close is done at once */
    memset(&ignored, 0, sizeof ignored);
    (void)fo_session_interrupt(id, &(int){ 0 }, &ignored);
    return end_session(id, 'c', err);
}

int fo_session_hibernate(const char *id, fo_session_error *err)
{
    return end_session(id, 'h', err);
}

static int is_spare(int rt, const char *id)
{
    char path[300];

    snprintf(path, sizeof path, "spares/%s", id);
    return faccessat(rt, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int fo_session_list(char **json, fo_session_error *err)
{
    fo_buf b = { 0 };
    int rt = fo_session_runtime(err), n = 0;
    DIR *d;
    struct dirent *de;
    struct stat st;
    time_t now = time(NULL);

    *json = NULL;
    if (rt < 0) return -1;
    d = fdopendir(rt);
    fo_buf_puts(&b, "[");
    while (d && (de = readdir(d))) {
        int dir, lock;
        char *state;
        const char *shown;

        if (!fo_session_valid_id(de->d_name) || is_spare(dirfd(d), de->d_name))
            continue;                       /* a spare is nobody's session yet */
        dir = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0) continue;
        state = fo_session_read_small(dir, "state", 64);
        lock = openat(dir, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (lock >= 0 && flock(lock, LOCK_SH | LOCK_NB) < 0)
            shown = "live";
        else shown = state && !strcmp(state, "hibernated\n") ? "hibernated" : "expired";
        fo_buf_printf(&b, "%s{\"id\": \"%s\", \"state\": \"%s\"", n++ ? ", " : "",
                              de->d_name, shown);
        if (!strcmp(shown, "hibernated") && fstatat(dir, "state", &st, AT_SYMLINK_NOFOLLOW) == 0)
            fo_buf_printf(&b, ", \"hibernated_s\": %lld", (long long)(now - st.st_mtime));
        fo_buf_puts(&b, "}");
        if (lock >= 0) close(lock);
        fo_free(state);
        close(dir);
    }
    fo_buf_puts(&b, "]");
    if (d)
        closedir(d);
    else close(rt);
    *json = b.data;
    return b.failed ? -1 : 0;
}
