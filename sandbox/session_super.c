/* session_super.c — the supervisor of one session: `folio session _supervise
 * ID READY-FD (--resume | -- OPTIONS)`, exec'd by fo_session_create (or by
 * a client resuming a hibernated session) in a process of its own.
 *
 *   start   lock RT/ID/lock; take a slot (RT/slots/N, flock: the host-wide
 *           count of live sessions); parse the options (new: saved in
 *           RT/ID/meta; resume: read back); the jail (sandbox/jail.c, with
 *           plan.session: init restarts the kernel on request) and the
 *           kernel's hello; resume: files and variables restored; socket
 *           RT/ID/sock (0600); "ready" to the client; stdio detached.
 *   loop    one request per connection, from the session's own user only;
 *           the kernel's death between cells noticed; --idle or SIGTERM:
 *           hibernate.
 *   end     close (store removed) or hibernate (RT/ID/files + the kernel's
 *           pickle, RT/ID/state "hibernated"); the jail dies with init.
 */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_store.h"
#include "sandbox/session_super.h"
#include "sandbox/session_record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* build/kernel_py.c: sandbox/kernel/folio_kernel.py, embedded by tools/embed. */
const unsigned char *fo_session_kernel_find(const char *name, size_t *len);

static const char *const store_dirs[] = { "work", "out", "tmp" };

/* Files and folders a hibernated session keeps, at most (with --disk MB of
   data): the bound of its store on the host. */
#define STORE_MAX_ENTRIES 100000

/* ---------------------------------------------------------------- options */

/* Session options: the plan's (as `folio run`), plus --idle, --disk and
   --max-sessions. Every plan option but --in is saved to meta so that a
   resume rebuilds the same plan. FO_RUN_OK, or FO_RUN_USAGE with the bad
   option and why in why ("--memory: ..."). */
static int parse_options(fo_session *s, int argc, char **argv, fo_buf *meta, char *why,
                         size_t why_len)
{
    uint64_t disk = 0;
    int i;

    if (fo_sandbox_plan_defaults(&s->plan) != FO_RUN_OK) return FO_RUN_INTERNAL;
    s->plan.why = why;
    s->plan.why_len = why_len;
    s->idle_s = 1800;
    s->max_sessions = FO_SESSION_MAX_SESSIONS;
    for (i = 0; i < argc; i++) {
        const char *opt = argv[i], *val;
        double v;

        if (strncmp(opt, "--", 2)) {
            snprintf(why, why_len, "\"%s\" is not an option (options start with --)", opt);
            return FO_RUN_USAGE;
        }
        if (i + 1 >= argc) {
            snprintf(why, why_len, "%s needs a value", opt);
            return FO_RUN_USAGE;
        }
        val = argv[++i];
        if (strchr(val, '\n')) {
            snprintf(why, why_len, "%s: a value cannot hold a line break", opt);
            return FO_RUN_USAGE;
        }
        if (!strcmp(opt, "--idle") || !strcmp(opt, "--disk") || !strcmp(opt, "--max-sessions")) {
            if (fo_sandbox_parse_number(val, 1, 1e7, &v) < 0) {
                snprintf(why, why_len, "%s: expected %s in 1..10000000, got \"%s\"", opt,
                         !strcmp(opt, "--idle") ? "seconds" : !strcmp(opt, "--disk")
                         ? "megabytes" : "a number of sessions", val);
                return FO_RUN_USAGE;
            }
            if (!strcmp(opt, "--idle"))
                s->idle_s = v;
            else if (!strcmp(opt, "--disk")) disk = (uint64_t)v;
            else s->max_sessions = (unsigned)v;
        } else if (!strcmp(opt, "--render") || !strcmp(opt, "--out")) {
            snprintf(why, why_len, "%s is not an option of session new (use folio session "
                     "render / get)", opt);
            return FO_RUN_USAGE;
        } else if (!strcmp(opt, "--sign")) {
            snprintf(why, why_len, "--sign is an option of folio run only (a session's documents "
                     "record its id and cell: folio inspect)");
            return FO_RUN_USAGE;
        } else if (fo_sandbox_plan_option(&s->plan, opt, val) != FO_RUN_OK) {
            return FO_RUN_USAGE;
        }
        if (strcmp(opt, "--in")) fo_buf_printf(meta, "%s\n%s\n", opt, val);
    }
    s->plan.why = NULL;
    s->plan.why_len = 0;
    if (!s->plan.max_total)
        s->plan.max_total = 4 * s->plan.max_bytes;  /* --max-total's default, as in run */
    s->plan.session = 1;
    s->plan.quiet = 1;
    s->plan.disk_mb = disk ? disk : s->plan.memory_mb;
    return FO_RUN_OK;
}

/* meta: one option or value per line, as given to `new`. */
static int parse_meta(fo_session *s, char *meta)
{
    char *argv[64], *save = NULL, *line;
    int argc = 0;
    fo_buf again = { 0 };
    char why[512] = "";
    int rc;

    for (line = strtok_r(meta, "\n", &save); line && argc < 64; line = strtok_r(NULL, "\n", &save))
        argv[argc++] = line;
    rc = parse_options(s, argc, argv, &again, why, sizeof why);
    fo_buf_free(&again);
    return rc;
}

/* -------------------------------------------------------------- locking */

/* flock on dir/name (created 0600); the descriptor, or -1 when another holds it. */
static int lock_file(int dir, const char *name)
{
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The host's slots: a folder the administrator made (root's, not writable
   by others without the sticky bit) holding one file per live session the
   host allows, 0..N-1 (docs/sessions.md, "Limits"). FOLIO_SESSION_SLOTS
   names another (tests); /run/folio/slots by default. -1 when there is none:
   then only the runtime folder's count applies. */
static int host_slots(void)
{
    const char *path = getenv("FOLIO_SESSION_SLOTS");
    struct stat st;
    int fd = open(path && *path ? path : "/run/folio/slots",
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0 && (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
                    ((st.st_mode & 0022) && !(st.st_mode & S_ISVTX)))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* flock on one of the files 0..max-1 of dir (created when create, else only
   those that exist); its descriptor, or -1 when all are held. */
static int lock_one(int dir, unsigned max, int create)
{
    char name[16];
    int fd = -1;

    for (unsigned k = 0; fd < 0 && k < max; k++) {
        snprintf(name, sizeof name, "%u", k);
        fd = create ? lock_file(dir, name)
                    : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (!create && fd < 0 && errno == ENOENT)
            break;                          /* the host's files end here */
        if (!create && fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
            close(fd);
            fd = -1;
        }
    }
    return fd;
}

/* A slot in RT/slots/0..max-1 (this runtime folder's --max-sessions) unless
   one is held already, and, when host, one of the host's when it has some:
   both held while the session lives (the descriptors stay open until the
   supervisor exits). 0, -1 (this folder's limit) or -2 (the host's). */
static int take_slot(fo_session *s, int host_too)
{
    int slots, host = host_too ? host_slots() : -1, mine = s->slot_fd[0], theirs = 0;

    if (mine < 0) {
        (void)mkdirat(s->rt, "slots", 0700);
        slots = openat(s->rt, "slots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        mine = slots >= 0 ? lock_one(slots, s->max_sessions, 1) : -1;
        if (slots >= 0) close(slots);
    }
    if (host >= 0) {
        theirs = lock_one(host, 1u << 20, 0);
        close(host);
    }
    if (mine < 0 || theirs < 0) {
        if (mine >= 0 && mine != s->slot_fd[0]) close(mine);
        if (theirs > 0) close(theirs);
        return mine < 0 ? -1 : -2;
    }
    s->slot_fd[0] = mine;
    s->slot_fd[1] = host >= 0 ? theirs : -1;
    return 0;
}

/* A spare (started ahead by `new`, session_client.c) holds a slot of this
   runtime folder from its start: spares count against --max-sessions. It
   is claimed by the client that unlinks RT/spares/ID; its first request
   takes the host's slot it did not hold. 0, or -1 when the host's limit is
   reached. */
static int claim(fo_session *s)
{
    int sp = openat(s->rt, "spares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (sp >= 0) {
        (void)unlinkat(sp, s->id, 0);
        close(sp);
    }
    s->spare = 0;
    return take_slot(s, 1) < 0 ? -1 : 0;   /* held until teardown */
}

/* True when this is a spare nobody claimed: it takes back its marker. */
static int unclaimed(fo_session *s)
{
    int sp = s->spare ? openat(s->rt, "spares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                      : -1;
    int mine = sp >= 0 && unlinkat(sp, s->id, 0) == 0;

    if (sp >= 0) close(sp);
    return mine;
}

/* ---------------------------------------------------------------- start */

/* The kernel's source comes through its stdin, ended by a NUL, right after
   it starts (fo_session_kernel_hello): its code is then named <folio-kernel>
   in tracebacks, and the command line stays short. */
static const char *const kernel_argv[] = {
    "python3", "-E", "-s", "-c",
    "import os\nb = b''\nwhile not b.endswith(b'\\0'):\n    r = os.read(0, 65536)\n"
    "    if not r: raise SystemExit(70)\n    b += r\n"
    "exec(compile(b[:-1], '<folio-kernel>', 'exec'))\n", NULL
};

static void info_json(fo_session *s, fo_buf *b)
{
    fo_buf_printf(b, "{\"id\": \"%s\", \"state\": \"live\", \"cells\": %u, "
                          "\"python\": ", s->id, s->cells);
    fo_buf_json_str(b, s->python, strlen(s->python));
    fo_buf_printf(b, ", \"limits\": {\"timeout_s\": %g, \"memory_mb\": %llu, "
                          "\"memory_via\": \"%s\", \"disk_mb\": %llu, \"max_bytes\": %llu, "
                          "\"pids\": %u, \"open_files\": %u, \"net\": \"%s\", \"idle_s\": %g, "
                          "\"max_sessions\": %u}}", s->plan.timeout_s,
                          (unsigned long long)s->plan.memory_mb,
                          fo_sandbox_cgroup_memory_via(&s->j.cg),
                          (unsigned long long)s->plan.disk_mb, (unsigned long long)s->plan.max_bytes,
                          s->plan.pids, s->plan.nofile, s->plan.net == FO_NET_ALL ? "all" : s->plan.net == FO_NET_ALLOW ? "allow" : "none",
                          s->idle_s, s->max_sessions);
}

/* The restore's copy, in a child that joined the session's cgroups first:
   the jail's tmpfs pages it writes are charged to the session (its
   --memory, --cpus, pids), not to this supervisor, and a file that would
   leave less than an eighth of --memory free is not restored but reported.
   Should the cgroup still kill it, it goes first (oom_score_adj 1000).
   Its report (JSON items) goes to fd `report`. The exit status: 0, or 1. */
static int restore_child(fo_session *s, int files, int report)
{
    int dst[3] = { s->j.work_dir, s->j.out_dir, s->j.tmp_dir }, rc = 0;
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    fo_session_copy c = { 0 };
    fo_buf lost = { 0 };

    if (adj >= 0) {
        (void)!write(adj, "1000", 4);
        close(adj);
    }
    if (fo_sandbox_cgroup_attach(&s->j.cg, getpid()) < 0) {
        fprintf(stderr, "folio: session %s: can't join the session's cgroup to restore its "
                "files: %s\n", s->id, strerror(errno));
        return 1;
    }
    c.max_bytes = s->plan.disk_mb << 20;
    c.max_files = STORE_MAX_ENTRIES;
    c.as_jail = 1;
    c.uid = s->j.host_uid;
    c.gid = s->j.host_gid;
    c.cg = &s->j.cg;
    c.headroom = (s->plan.memory_mb << 20) / 8;
    c.budget_why = "over --disk when restored";
    c.lost = &lost;
    for (size_t k = 0; rc == 0 && k < 3; k++) {
        int src = openat(files, store_dirs[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (src >= 0) {
            fo_session_copy_root(&c, k == 0 ? "/work" : k == 1 ? "/out" : "/tmp");
            rc = fo_session_copy_tree(src, dst[k], &c, 0);
            close(src);
        }
    }
    if (rc < 0)
        fprintf(stderr, "folio: session %s: can't restore %s: %s\n", s->id, c.path,
                strerror(errno));
    fo_session_copy_end(&c);
    if (lost.len && fo_write_all(report, lost.data, lost.len, fo_now() + 60) < 0) rc = -1;
    return rc < 0 ? 1 : 0;
}

/* Runs restore_child and appends its report to lost. 0, or -1 when the
   copy failed. */
static int restore_files(fo_session *s, int files, fo_buf *lost)
{
    int p[2], st = 0;
    char buf[4096];
    fo_buf got = { 0 };
    pid_t pid;
    ssize_t n;

    if (pipe2(p, O_CLOEXEC) < 0) return -1;
    if ((pid = fork()) == 0) {
        close(p[0]);
        _exit(restore_child(s, files, p[1]));
    }
    close(p[1]);
    while (pid > 0 && ((n = read(p[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
        if (n > 0 && got.len < (1u << 20)) fo_buf_append(&got, buf, (size_t)n);
    close(p[0]);
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (got.len) {                                    /* after the items of hibernation */
        fo_buf_puts(lost, lost->len ? ", " : "");
        fo_buf_append(lost, got.data, got.len);
    }
    fo_buf_free(&got);
    if (pid > 0 && WIFSIGNALED(st)) {
        fo_buf_printf(lost, "%s{\"name\": \"/\", \"path\": \"/\", \"reason\": \"the restore of "
                      "the files was stopped by signal %d (out of --memory?): files not yet "
                      "copied are missing\"}", lost->len ? ", " : "", WTERMSIG(st));
        return 0;
    }
    return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Files saved at hibernation back into the new jail, as its user and in
   its cgroup; then the kernel's variables. not_restored lists, in order,
   the files hibernation did not save, those not restored now, and the
   variables. The store's copy is removed once restored. */
static int restore(fo_session *s, fo_session_error *err)
{
    int files = openat(s->src, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
    char *saved = fo_session_read_small(s->src, "not_saved", 1 << 20);

    if (saved) fo_buf_puts(&s->not_restored, saved);
    fo_free(saved);
    if (files >= 0) {
        rc = restore_files(s, files, &s->not_restored);
        close(files);
    }
    if (rc < 0 || fo_session_kernel_command(s, 'r', &s->not_restored, 600000) < 0) {
        fo_session_fail(err, "restore_failed", 5, "the saved files are kept in the store; close "
                        "the session and start a new one", "can't restore the hibernated session "
                        "%s: %s", s->id, rc < 0 ? "its files could not be copied back (see "
                        "RT/ID/log)" : "the interpreter failed");
        return -1;
    }
    s->resumed = 1;
    if (s->src != s->dir)
        return 0;                      /* a snapshot stays: the last checkpoint until the next */
    (void)unlinkat(s->dir, "not_saved", 0);
    return fo_session_remove_tree(s->dir, "files", 0);
}

/* True when the operator accepts per-process memory limits (RLIMIT_AS)
   where no memory cgroup is usable: FOLIO_MEMORY_PER_PROCESS=1 (folio
   serve --memory-per-process). Otherwise such a session is refused. */
static int per_process_ok(void)
{
    const char *v = getenv("FOLIO_MEMORY_PER_PROCESS");

    return v && !strcmp(v, "1");
}

/* True when a memory cgroup can hold the session (one is made, then removed). */
static int memory_holdable(fo_session *s)
{
    fo_sandbox_cgroup cg;
    int ok;

    fo_sandbox_cgroup_create(&cg, &s->plan, 1);     /* serial 1: not the jail's name */
    ok = cg.mem_ok;
    fo_sandbox_cgroup_destroy(&cg);
    return ok;
}

/* The session refused: its memory could be limited only per process. -1. */
static int refuse_memory(fo_session *s, fo_session_error *err)
{
    fo_session_fail(err, "memory_unenforced", 5, "delegate a cgroup to folio (systemd: "
                    "Delegate=yes in its unit, deploy/folio-serve.service; a container: "
                    "run it with its own writable cgroup v2, e.g. Docker --cgroupns=private "
                    "with cgroupfs rw, or as root on the host), or accept per-process "
                    "limits: folio serve --memory-per-process / FOLIO_MEMORY_PER_PROCESS=1",
                    "can't hold the session to --memory %llu MB as a whole: no memory "
                    "cgroup (v2 delegated, or v1) is usable here, and per-process limits "
                    "(RLIMIT_AS) would let each process use that much",
                    (unsigned long long)s->plan.memory_mb);
    return -1;
}

/* Builds the jail, waits for the kernel, restores a hibernated session. */
static int start(fo_session *s, int resume, fo_session_error *err)
{
    char mpl[4096];
    size_t len;

    s->kernel_src = (const char *)fo_session_kernel_find("sandbox/kernel/folio_kernel.py", &len);
    s->kernel_len = len + 1;                     /* with its NUL */
    s->plan.argv = (char **)kernel_argv;     /* only read, and passed on to execve */
    s->plan.mpl_cache = fo_sandbox_mpl_cache(s->engine, mpl, sizeof mpl);
    if (!per_process_ok() && !memory_holdable(s))
        return refuse_memory(s, err);          /* before anything runs */
    if (fo_sandbox_jail_start(&s->plan, &s->j, 0) != FO_RUN_OK) {
        fo_session_fail(err, resume ? "restore_failed" : "internal", 5, "see the message above",
                        "can't build the session's jail");
        return -1;
    }
    if (!s->j.cg.mem_ok && !per_process_ok())
        return refuse_memory(s, err);          /* the probe passed, the jail's own failed */
    s->net_allow = s->plan.net == FO_NET_ALLOW;
    if (fo_sandbox_egress_begin(&s->plan, &s->j, &s->px) != FO_RUN_OK) {
        fo_session_fail(err, resume ? "restore_failed" : "internal", 5, "see the message above",
                        "can't start the session's egress proxy");
        return -1;
    }
    if (fo_session_kernel_hello(s, 30000) < 0) {
        fo_session_fail(err, resume ? "restore_failed" : "internal", 5,
                        "the jail needs /usr/bin/python3 (Debian's python3 package)",
                        "the session's Python did not start");
        return -1;
    }
    if (resume && restore(s, err) < 0) return -1;
    fo_session_out_collect(s->j.out_dir, &s->plan, NULL, &s->outs);
    fo_sandbox_cgroup_events(&s->j.cg, &s->oom_kills, &(long){ 0 });
    return 0;
}

/* Listens on RT/ID/name (0600): "sock" for requests, "ctl" for control. */
static int listen_socket(fo_session *s, const char *name)
{
    struct sockaddr_un a;
    mode_t old;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

    (void)unlinkat(s->dir, name, 0);
    fo_session_addr(&a, s->dir, name);
    old = umask(077);
    ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    umask(old);
    if (!ok || fchmodat(s->dir, name, 0600, 0) < 0 || listen(fd, 64) < 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

/* stdin/stdout to /dev/null, stderr to RT/ID/log: the caller may be gone. */
static void detach(fo_session *s)
{
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    int log = openat(s->dir, "log", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (nul >= 0) {
        dup2(nul, 0);
        dup2(nul, 1);
        close(nul);
    }
    if (log >= 0) {
        dup2(log, 2);
        close(log);
    }
}

/* The last line of RT/ID/log (what plan.c or jail.c printed), without the
   "folio: ...: " its writer put first. */
static void log_tail(fo_session *s, char *out, size_t len)
{
    char *text = fo_session_read_small(s->dir, "log", 65536), *line, *p;
    size_t n = text ? strlen(text) : 0;

    while (n > 0 && text[n - 1] == '\n') text[--n] = 0;
    line = text ? strrchr(text, '\n') : NULL;
    line = line ? line + 1 : text;
    p = line && !strncmp(line, "folio: ", 7) ? strchr(line + 7, ':') : NULL;
    snprintf(out, len, "%s", p ? p + 2 : line && *line ? line : "invalid session options");
    fo_free(text);
}

/* -------------------------------------------------------------- the end */

static void teardown(fo_session *s)
{
    int st;
    pid_t pid = s->j.pid;

    fo_sandbox_jail_close(&s->j);          /* init sees the hang-up and exits */
    for (int k = 0; k < 2; k++)             /* the slots free at once, not at our exit: */
        if (s->slot_fd[k] >= 0) {           /* the client's next `new` may follow */
            close(s->slot_fd[k]);
            s->slot_fd[k] = -1;
        }
    if (s->net_allow && s->px.pid > 0) {
        fo_sandbox_plan net = { .net = FO_NET_ALLOW };
        fo_free(fo_sandbox_egress_end(&net, &s->px));
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    (void)unlinkat(s->dir, "sock", 0);
    (void)unlinkat(s->dir, "ctl", 0);
    if (s->ctl >= 0) close(s->ctl);
    s->ctl = -1;
}

/* Saves the kernel's picklable variables (into /tmp/.folio, by the kernel)
   and /work, /out, /tmp into RT/ID/files: holes kept, at most --disk MB of
   data by allocated size and STORE_MAX_ENTRIES entries (the store's bound
   on the host); what is not saved is listed in RT/ID/not_saved (JSON items
   for the exec after the resume). 0 or -1. */
static int hibernate(fo_session *s, int into)
{
    fo_buf lost = { 0 }, gone = { 0 };
    fo_session_copy c = { 0 };
    int src[3] = { s->j.work_dir, s->j.out_dir, s->j.tmp_dir }, files, rc = 0;

    if (!s->kernel_lost) (void)fo_session_kernel_command(s, 'h', &lost, 600000);
    fo_buf_free(&lost);                  /* the kernel lists them again at the restore */
    (void)fo_session_remove_tree(into, "files", 0);
    (void)unlinkat(into, "not_saved", 0);
    if (mkdirat(into, "files", 0700) < 0 ||
        (files = openat(into, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    c.max_bytes = s->plan.disk_mb << 20;
    c.max_files = STORE_MAX_ENTRIES;
    c.budget_why = "over --disk when saved (files counted by allocated size)";
    c.lost = &gone;
    for (size_t k = 0; rc == 0 && k < 3; k++) {
        int dst;
        if (mkdirat(files, store_dirs[k], 0700) < 0 ||
            (dst = openat(files, store_dirs[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
            rc = -1;
            break;
        }
        fo_session_copy_root(&c, k == 0 ? "/work" : k == 1 ? "/out" : "/tmp");
        rc = fo_session_copy_tree(src[k], dst, &c, 0);
        close(dst);
    }
    close(files);
    fo_session_copy_end(&c);
    if (c.skipped)
        fprintf(stderr, "folio: session %s: %u entries not saved (links, special files, over "
                "the budget)\n", s->id, c.skipped);
    if (rc == 0 && gone.len && fo_session_write_small(into, "not_saved", gone.data) < 0) rc = -1;
    fo_buf_free(&gone);
    return rc;
}

/* Saves the session into a new snapshot of the state folder (variables,
   files, options, cells, kind), published only once complete: the session
   goes on running (a checkpoint) or ends (kind "hibernation"). The kernel's
   pickles are then removed from its /tmp (they are in the snapshot). 0 or -1. */
static int checkpoint(fo_session *s, const char *kind)
{
    char name[40], cells[32], *meta = fo_session_read_small(s->dir, "meta", 65536);
    int snap = meta ? fo_session_snap_begin(s->state, s->id, name) : -1, rc;
    double t0 = fo_now();

    snprintf(cells, sizeof cells, "%u\n", s->cells);
    rc = snap < 0 || hibernate(s, snap) < 0 || fo_session_write_small(snap, "meta", meta) < 0 ||
         fo_session_write_small(snap, "cells", cells) < 0 ||
         fo_session_write_small(snap, "kind", kind) < 0 ? -1 : 0;
    if (rc == 0)
        fo_session_record_copy(s->dir, snap);      /* the record and inputs go with it */
    if (snap >= 0) {
        close(snap);
        rc = fo_session_snap_commit(s->state, s->id, name, rc == 0) < 0 ? -1 : 0;
    }
    (void)fo_session_remove_tree(s->j.tmp_dir, ".folio", 0);
    fo_free(meta);
    if (rc < 0)
        fprintf(stderr, "folio: session %s: can't save a %s in the state folder: %s\n", s->id,
                kind, strerror(errno));
    else                                 /* RT/ID/log: what a save costs (bench-cluster.sh) */
        fprintf(stderr, "folio: session %s: %s saved in %.1f ms\n", s->id, kind,
                (fo_now() - t0) * 1000);
    s->dirty = 0;
    return rc;
}

/* The lease on STATE/ID renewed by `folio session _lease ID` (a child:
   a long cell does not let the lease lapse) while we live; it dies with us
   (PR_SET_PDEATHSIG), and holds none of our descriptors. */
static void start_renewer(fo_session *s)
{
    pid_t parent = getpid(), pid = fork();

    if (pid == 0) {
        const char *argv[] = { "folio", "session", "_lease", s->id, NULL };
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        for (int fd = 3; fd < 4096; fd++)     /* no lock, slot or jail held by us */
            close(fd);
        execv("/proc/self/exe", (char *const *)argv);   /* execv only reads the strings */
        _exit(5);
    }
    s->renewer = pid > 0 ? pid : 0;
}

/* Stops renewing, and gives the lease up (a session saved or closed). */
static void release_lease(fo_session *s)
{
    int st;

    if (s->renewer > 0) {
        kill(s->renewer, SIGKILL);
        while (waitpid(s->renewer, &st, 0) < 0 && errno == EINTR)
            ;
        s->renewer = 0;
    }
    if (s->state >= 0) fo_session_lease_drop(s->state, s->id);
}

/* Hibernates and ends. "hibernated" is written before the socket goes: a
   client that finds no socket then resumes (its supervisor waits for our
   lock), never reports the session lost. With a state folder, what is
   saved is a snapshot there, which any instance resumes. */
static void end_hibernated(fo_session *s)
{
    int rc = s->state >= 0 ? checkpoint(s, "hibernation") : hibernate(s, s->dir);
    char cells[32];

    snprintf(cells, sizeof cells, "%u\n", s->cells);
    (void)fo_session_write_small(s->dir, "cells", cells);
    (void)fo_session_write_small(s->dir, "state", rc == 0 ? "hibernated\n" : "lost\n");
    release_lease(s);
    teardown(s);
}

/* ------------------------------------------------------------- requests */

static void reply_error(int cfd, const char *code, int exit, const char *hint, const char *msg)
{
    fo_session_error e;

    fo_session_fail(&e, code, exit, hint, "%s", msg);
    (void)fo_session_error_send(cfd, &e);
}

/* A relative path of plain components (no "", ".", ".."), <= 255 bytes. */
static int valid_rel(const char *p)
{
    const char *c = p;

    if (!*p || strlen(p) > 255 || *p == '/') return 0;
    while (*c) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return 0;
        for (size_t k = 0; k < n; k++)
            if ((unsigned char)c[k] < 0x20) return 0;
        c += n;
        if (*c == '/') c++;
    }
    return 1;
}

void fo_session_put_file(fo_session *s, int cfd, const char *dest, int fd)
{
    struct stat st;
    fo_buf b = { 0 };
    char path[300], sha[65];
    int rc, as_jail = geteuid() == 0;

    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !valid_rel(dest)) {
        reply_error(cfd, "bad_request", 2, "put regular files, to a relative path under /work",
                    "put: not a regular file, or not a relative path");
        return;
    }
    if ((uint64_t)st.st_size > s->plan.max_bytes) {
        reply_error(cfd, "bad_request", 3, "start the session with a larger --max-bytes",
                    "put: the file is over the session's ceiling (--max-bytes)");
        return;
    }
    if (as_jail) {
        setfsgid(s->j.host_gid);
        setfsuid(s->j.host_uid);
    }
    rc = fo_sandbox_write_copy(s->j.work_dir, dest, fd);
    if (as_jail) {
        setfsgid(0);
        setfsuid(0);
    }
    if (rc < 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "put: can't write /work/%s: %s", dest, strerror(errno));
        reply_error(cfd, "bad_request", errno == ENOSPC || errno == EFBIG ? 3 : 2,
                    "a link or a file is in the way, or the session's disk is full", msg);
        return;
    }
    snprintf(path, sizeof path, "/work/%s", dest);
    if (fo_sandbox_hash_fd(fd, (uint64_t)st.st_size, sha) == 0)
        fo_session_record_put(s->dir, path, (unsigned long long)st.st_size, sha);
    fo_buf_puts(&b, "{\"path\": ");
    fo_buf_json_str(&b, path, strlen(path));
    fo_buf_printf(&b, ", \"bytes\": %lld}", (long long)st.st_size);
    (void)fo_session_send(cfd, 'R', b.data, b.len, -1);
    fo_buf_free(&b);
}

/* Opens /work/P, /out/P (P relative: /work) through descriptors, no links. */
static int open_in_jail(fo_session *s, const char *path, struct stat *st)
{
    int base = s->j.work_dir, cur, next;
    char comp[256];

    if (!strncmp(path, "/out/", 5))
        base = s->j.out_dir, path += 5;
    else if (!strncmp(path, "/work/", 6)) path += 6;
    if (!valid_rel(path)) return -1;
    cur = dup(base);
    while (cur >= 0 && strchr(path, '/')) {
        size_t n = strcspn(path, "/");
        snprintf(comp, sizeof comp, "%.*s", (int)n, path);
        next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(cur);
        cur = next;
        path += n + 1;
    }
    if (cur < 0) return -1;
    next = fo_sandbox_open_regular(cur, path, st);
    close(cur);
    return next;
}

void fo_session_get_file(fo_session *s, int cfd, const char *path)
{
    struct stat st;
    char size[32];
    int fd = open_in_jail(s, path, &st);

    if (fd < 0) {
        reply_error(cfd, "bad_request", 2, "name a regular file under /work or /out (links are "
                    "never followed)", "get: no such regular file in the session");
        return;
    }
    if ((uint64_t)st.st_size > s->plan.max_bytes) {
        close(fd);
        reply_error(cfd, "bad_request", 3, "split the file, or start the session with a larger "
                    "--max-bytes", "get: the file is over the session's ceiling (--max-bytes)");
        return;
    }
    snprintf(size, sizeof size, "%lld", (long long)st.st_size);
    (void)fo_session_send(cfd, 'F', size, strlen(size), fd);
    close(fd);
}

/* The --in files as given, hashed, kept in the session's folder ("inputs")
   for the provenance of its documents (the plan's copies are gone after the
   start, and a resumed session has none). Best effort: without it a
   document records no inputs. */
static void save_inputs(fo_session *s)
{
    char *json = fo_sandbox_inputs_json(&s->plan);

    if (json) (void)fo_session_write_small(s->dir, "inputs", json);
    fo_free(json);
}

/* {"session": ID, "cell": N, "inputs": [...]}: what made the documents of a
   render now (N cells run so far). malloc'd, or NULL. */
static char *session_provenance(const fo_session *s)
{
    char *inputs = fo_session_read_small(s->dir, "inputs", 1 << 20);
    fo_buf b = { 0 };

    fo_buf_printf(&b, "{\"session\": \"%s\", \"cell\": %u, \"inputs\": %s}", s->id, s->cells,
                  inputs && inputs[0] == '[' ? inputs : "[]");
    fo_free(inputs);
    return b.failed ? (fo_buf_free(&b), NULL) : fo_buf_take(&b, NULL);
}

static void do_render(fo_session *s, int cfd, const char *formats)
{
    char *prov;
    fo_sandbox_plan rp = s->plan;
    fo_sandbox_collection col, out;
    fo_buf b = { 0 };
    char tail[4096];
    int code;
    size_t k, have = 0;

    memset(&col, 0, sizeof col);
    memset(&out, 0, sizeof out);
    rp.n_render = 0;
    rp.session = 0;
    rp.disk_mb = 0;
    rp.quiet = 1;
    if (fo_sandbox_plan_option(&rp, "--render", formats) != FO_RUN_OK) {
        reply_error(cfd, "bad_request", 1, "formats: xlsx, docx, pptx, pdf, png", "render: "
                    "unknown format");
        return;
    }
    fo_session_out_collect(s->j.out_dir, &s->plan, &s->outs, &col);
    for (k = 0; k < col.n_files; k++) have |= !strcmp(col.files[k].name, "result.json");
    if (!have || !s->engine) {
        reply_error(cfd, "bad_request", have ? 5 : 2, have ? "install folio-engine beside folio" :
                    "write the spec to /out/result.json in a cell first",
                    have ? "render: folio-engine is not installed" : "render: no /out/result.json");
        fo_sandbox_collection_free(&col);
        return;
    }
    prov = session_provenance(s);
    rp.provenance = prov;
    code = fo_sandbox_render(&rp, s->engine, &col, &out, tail, sizeof tail);
    fo_free(prov);
    for (k = 0; k < out.n_files; k++)
        (void)fo_session_send(cfd, 'F', out.files[k].name, strlen(out.files[k].name),
                              out.files[k].fd);
    fo_buf_printf(&b, "{\"exit\": %d, \"files\": [", code < 0 ? 5 : code);
    for (k = 0; k < out.n_files; k++) {
        fo_buf_puts(&b, k ? ", {\"name\": " : "{\"name\": ");
        fo_buf_json_str(&b, out.files[k].name, strlen(out.files[k].name));
        fo_buf_printf(&b, ", \"bytes\": %llu, \"sha256\": \"%s\"}",
                              (unsigned long long)out.files[k].bytes, out.files[k].sha256);
    }
    fo_buf_puts(&b, "], \"refused\": ");        /* what of /out the render did not get */
    fo_sandbox_json_refused(&b, &col);
    fo_buf_puts(&b, ", \"stderr\": ");
    fo_buf_json_str(&b, tail, strlen(tail));
    fo_buf_puts(&b, "}");
    (void)fo_session_send(cfd, 'R', b.data, b.len, -1);
    fo_buf_free(&b);
    fo_sandbox_collection_free(&col);
    fo_sandbox_collection_free(&out);
}

enum { GO_ON, END_CLOSE, END_HIBERNATE };

/* One connection, one request. Returns GO_ON or how the session ends. */
static int serve_one(fo_session *s, int lfd, double *idle_from)
{
    struct ucred cr;
    socklen_t crlen = sizeof cr;
    char type, *p = NULL;
    size_t n;
    int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), fd = -1, end = GO_ON;

    if (cfd < 0) return GO_ON;
    if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0 || cr.uid != geteuid() ||
        fo_session_recv(cfd, &type, &p, &n, FO_SESSION_MAX_CODE + 64, 10000, &fd) < 0) {
        close(cfd);
        return GO_ON;
    }
    if (s->spare && claim(s) < 0) {
        reply_error(cfd, "limit_reached", 5, "close or wait for a session to hibernate; the "
                    "administrator sets the host's limit (docs/sessions.md, Limits)", "the "
                    "host's limit of live sessions (all users) is reached");
        type = 0;
        end = END_CLOSE;
    }
    switch (type) {
    case 0: break;
    case 'x': fo_session_exec_cell(s, cfd, p, n); *idle_from = fo_now(); s->dirty = 1; break;
    case 'p':
        fo_session_put_file(s, cfd, p, fd);
        *idle_from = fo_now();
        s->dirty = 1;
        break;
    case 'g':
        fo_session_get_file(s, cfd, p);
        *idle_from = fo_now();
        break;
    case 'r': do_render(s, cfd, p); *idle_from = fo_now(); break;
    case 'c': end = END_CLOSE; break;
    case 'h': end = END_HIBERNATE; break;
    case 'i': {
        fo_buf b = { 0 };
        info_json(s, &b);
        (void)fo_session_send(cfd, 'R', b.data, b.len, -1);
        fo_buf_free(&b);
        break;
    }
    default:
        reply_error(cfd, "bad_request", 1, "", "unknown request");
    }
    if (end == END_CLOSE) {
        release_lease(s);
        teardown(s);
        fo_session_state_remove(s->id);
        (void)fo_session_remove_tree(s->rt, s->id, 0);
    } else if (end == END_HIBERNATE) {
        end_hibernated(s);
    }
    if (end != GO_ON)
        (void)fo_session_send(cfd, 'R', "{}", 2, -1);   /* after the work: the client waits */
    if (fd >= 0) close(fd);
    fo_free(p);
    close(cfd);
    return end;
}

/* The kernel died between cells: restart it, and say so at the next exec. */
static int on_init_event(fo_session *s)
{
    int ws, ev = fo_sandbox_jail_event(&s->j, &ws);

    if (ev == 'S') {
        s->kernel_lost = fo_session_kernel_restart(s) < 0 ? 2 : 1;
        return 0;
    }
    return ev <= 0 ? -1 : 0;
}

static void loop(fo_session *s, int lfd, int sfd)
{
    double idle_from = fo_now();

    for (;;) {
        struct pollfd pf[4] = { { lfd, POLLIN, 0 }, { s->j.ctl, POLLIN, 0 }, { sfd, POLLIN, 0 },
                                { s->ctl, POLLIN, 0 } };
        double left = idle_from + s->idle_s - fo_now(), wait = left;
        int end = GO_ON;

        if (s->state >= 0 && s->dirty) {     /* a checkpoint after --checkpoint-idle */
            double due = idle_from + s->checkpoint_s - fo_now();
            if (due <= 0 && left > 0) {
                (void)checkpoint(s, "checkpoint");
                continue;
            }
            wait = due < wait ? due : wait;
        }

        if (left <= 0 || (pf[2].fd >= 0 && poll(&pf[2], 1, 0) > 0)) {
            if (unclaimed(s)) {             /* a spare has nothing to save */
                release_lease(s);
                fo_session_state_remove(s->id);
                teardown(s);
                (void)fo_session_remove_tree(s->rt, s->id, 0);
            } else {
                end_hibernated(s);
            }
            return;
        }
        if (poll(pf, 4, wait > 3600 ? 3600000 : (int)(wait * 1000) + 1) < 0) continue;
        if (pf[3].revents) {
            char done = fo_session_control(s); /* no cell runs: "interrupted": false */
            if (done == 'p' || done == 'g') idle_from = fo_now();
            if (done == 'p') s->dirty = 1;
        }
        if (pf[1].revents && on_init_event(s) < 0) {
            release_lease(s);               /* its last checkpoint is for any instance */
            teardown(s);                    /* the jail itself is gone */
            (void)fo_session_write_small(s->dir, "state", "lost\n");
            return;
        }
        if (pf[0].revents) end = serve_one(s, lfd, &idle_from);
        if (end != GO_ON) return;
    }
}

/* ----------------------------------------------------------------- main */

static int ready_error(int ready, fo_session_error *err)
{
    if (ready >= 0) (void)fo_session_error_send(ready, err);
    return err->exit;
}

/* With a state folder (FOLIO_STATE_DIR): the session's lease taken (a
   resume waits for a dead holder's to expire) and renewed while we live;
   a resume reads a snapshot there when there is one (s->src, s->from).
   0, or -1 with err set. */
static int shared_state(fo_session *s, int resume, fo_session_error *err)
{
    const char *ck = getenv("FOLIO_CHECKPOINT_IDLE");
    char *kind;

    s->checkpoint_s = ck && strtod(ck, NULL) >= 1 ? strtod(ck, NULL) : 60;
    s->state = fo_session_state_dir();
    if (s->state < 0) return 0;
    if (fo_session_lease_take(s->state, s->id, resume ? fo_session_lease_ttl() + 2 : 0) < 0) {
        fo_session_fail(err, "restore_failed", 5, "retry in a few seconds; its instance answers "
                        "for it meanwhile", "session %s is held by another instance (its lease "
                        "in the state folder is live)", s->id);
        return -1;
    }
    start_renewer(s);
    if (!resume || (s->src = fo_session_snap_open(s->state, s->id)) < 0) {
        s->src = s->dir;
        return 0;
    }
    kind = fo_session_read_small(s->src, "kind", 32);
    s->from = kind && !strcmp(kind, "checkpoint") ? "checkpoint" : "hibernation";
    fo_free(kind);
    return 0;
}

/* A start that failed: the lease given up; a new session's folders (here
   and in the state folder) removed, a resumed one's kept for a retry. */
static void abandon(fo_session *s, int resume)
{
    release_lease(s);
    if (resume) return;
    fo_session_state_remove(s->id);
    (void)fo_session_remove_tree(s->rt, s->id, 0);
}

/* Waits for another supervisor's lock on a resuming session: if it comes
   up (two clients resumed at once), this one has nothing to do. */
static int wait_lock(fo_session *s, int *already)
{
    double end = fo_now() + 30;
    int fd;

    *already = 0;
    while ((fd = lock_file(s->dir, "lock")) < 0 && fo_now() < end) {
        int c = fo_session_connect(s->rt, s->id);
        if (c >= 0) {
            close(c);
            *already = 1;
            return -1;
        }
        usleep(20000);
    }
    return fd;
}

int fo_session_supervise(int argc, char **argv, const char *folio, const char *engine)
{
    fo_session s;
    fo_session_error err;
    fo_buf meta = { 0 }, info = { 0 };
    int ready, resume, lock = -1, slot = -1, lfd = -1, sfd = -1, already = 0, rc;
    sigset_t term;
    char *text = NULL, why[512] = "";

    (void)folio;
    memset(&s, 0, sizeof s);
    memset(&err, 0, sizeof err);
    s.j.pid = -1;
    s.px.pid = s.px.log_fd = -1;
    s.slot_fd[0] = s.slot_fd[1] = -1;
    s.ctl = -1;
    s.state = -1;
    s.engine = engine;
    if (argc < 4 || !fo_session_valid_id(argv[1])) return 1;
    snprintf(s.id, sizeof s.id, "%s", argv[1]);
    ready = atoi(argv[2]);
    resume = !strcmp(argv[3], "--resume");
    s.spare = !strcmp(argv[3], "--spare");
    (void)signal(SIGPIPE, SIG_IGN);
    s.rt = fo_session_runtime(&err);
    if (s.rt < 0) return ready_error(ready, &err);
    s.dir = openat(s.rt, s.id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s.dir < 0) {
        fo_session_fail(&err, "session_not_found", 2, "list sessions with folio session ls",
                        "no session %s", s.id);
        return ready_error(ready, &err);
    }
    detach(&s);              /* before the jail: its processes must not hold the caller's stdio */
    lock = resume ? wait_lock(&s, &already) : lock_file(s.dir, "lock");
    if (already) {
        (void)fo_session_send(ready, 'K', "{}", 2, -1);
        return 0;
    }
    s.src = s.dir;
    if (shared_state(&s, resume, &err) < 0) {
        if (!resume) (void)fo_session_remove_tree(s.rt, s.id, 0);
        return ready_error(ready, &err);
    }
    text = resume ? fo_session_read_small(s.dir, "state", 64) : NULL;
    if (lock < 0 || (resume && (!text || strcmp(text, "hibernated\n")))) {
        fo_session_fail(&err, "session_expired", 2, "start a new session with folio session new",
                        "session %s has ended: its supervisor stopped without saving it "
                        "(killed, or the machine restarted)", s.id);
        fo_free(text);
        release_lease(&s);
        return ready_error(ready, &err);
    }
    fo_free(text);
    if (resume) {
        text = fo_session_read_small(s.src, "cells", 32);
        s.cells = text ? (unsigned)strtoul(text, NULL, 10) : 0;
        fo_free(text);
        text = fo_session_read_small(s.src, "meta", 65536);
        rc = !text || (s.src != s.dir && fo_session_write_small(s.dir, "meta", text) < 0)
             ? FO_RUN_INTERNAL : parse_meta(&s, text);   /* the next checkpoint copies meta */
        fo_free(text);
        fo_session_record_copy(s.src, s.dir);            /* and the record */
    } else {
        rc = parse_options(&s, argc - 4, argv + 4, &meta, why, sizeof why);
        if (rc == FO_RUN_OK && fo_session_write_small(s.dir, "meta", meta.data ? meta.data : "") < 0)
            rc = FO_RUN_INTERNAL;
    }
    fo_buf_free(&meta);
    if (rc != FO_RUN_OK) {
        if (!why[0]) log_tail(&s, why, sizeof why);
        fo_session_fail(&err, rc == FO_RUN_USAGE ? "bad_request" : "internal", rc,
                        "folio session --help lists the options", "%s", why);
        abandon(&s, resume);
        return ready_error(ready, &err);
    }
    slot = take_slot(&s, !s.spare);          /* a spare: this folder's slot only */
    if (slot == -2) {
        fo_session_fail(&err, "limit_reached", 5, "close or wait for a session to hibernate; "
                        "the administrator sets the host's limit (docs/sessions.md, Limits)",
                        "the host's limit of live sessions (all users) is reached");
    } else if (slot < 0) {
        fo_session_fail(&err, "limit_reached", 5, "close or wait for an idle session to hibernate "
                        "(folio session ls), or raise --max-sessions", "the limit of %u live "
                        "sessions is reached", s.max_sessions);
    }
    if (slot < 0) {
        abandon(&s, resume);
        return ready_error(ready, &err);
    }
    if (!resume && (rc = fo_sandbox_open_inputs(&s.plan)) != FO_RUN_OK) {
        log_tail(&s, why, sizeof why);             /* "--in PATH: why", as run says it */
        fo_session_fail(&err, rc == FO_RUN_INTERNAL ? "internal" : "bad_request", rc,
                        "--in names a file or folder you can read", "%s", why);
    }
    if (!resume && !err.code[0]) save_inputs(&s);
    if (err.code[0] || start(&s, resume, &err) < 0 ||
        (s.ctl = listen_socket(&s, "ctl")) < 0 || (lfd = listen_socket(&s, "sock")) < 0) {
        if (!err.code[0])
            fo_session_fail(&err, "internal", 5, "see the message above", "can't start the session");
        teardown(&s);
        abandon(&s, resume);
        return ready_error(ready, &err);
    }
    fo_sandbox_plan_free(&s.plan);             /* the --in copies are in the jail now */
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGHUP);
    sigprocmask(SIG_BLOCK, &term, NULL);
    (void)fo_session_write_small(s.dir, "state", "live\n");   /* SIGTERM now hibernates */
    sfd = signalfd(-1, &term, SFD_CLOEXEC);
    info_json(&s, &info);
    if (!resume) {
        char *inputs = fo_session_read_small(s.dir, "inputs", 1 << 20);
        fo_session_record_begin(s.dir, s.id, info.data, inputs);
        fo_free(inputs);
    }
    (void)fo_session_send(ready, 'K', info.data, info.len, -1);
    fo_buf_free(&info);
    close(ready);
    loop(&s, lfd, sfd);
    close(lfd);
    fo_sandbox_collection_free(&s.outs);
    fo_free(s.kf.buf);
    fo_buf_free(&s.not_restored);
    return 0;
}
