/* sandbox.h — `folio run`: run untrusted analysis code in a jail (PRODUCT.md §5).
 *
 * Public part: one entry point, called by cli/ for `folio run`.
 * Private part (below the fence): the plan built from the options and the
 * interfaces between the files of sandbox/:
 *   plan.c     options -> fo_sandbox_plan (no side effects but reading argv)
 *   jail.c     clone into namespaces, uid map, mounts, pivot_root, exec
 *   seccomp.c  installs the syscall filter; the policy is policy/seccomp_policy.c
 *              (libseccomp), compiled to BPF at build time by tools/seccomp-gen
 *   limits.c   cgroup (v2 or v1) and rlimits
 *   collect.c  /out collection, copy to --out, manifest.json
 *   run.c      fo_sandbox_main: plan -> jail -> supervise -> collect -> render
 */
#ifndef FO_SANDBOX_H
#define FO_SANDBOX_H

/* Entry point of `folio run [options] -- CMD [ARG...]`. argv[0] is "run"; the
   options follow. engine: absolute path of folio-engine, which --render runs
   in the second jail; NULL if there is none (then --render is refused). Returns the process exit code per PRODUCT.md §1 (0 ok, 1 usage,
   2 invalid input, 3 over ceiling, 4 sandboxed program failed/timed out/killed,
   5 I/O/internal). Prints its own errors on stderr as "folio: run: ...". */
int fo_sandbox_main(int argc, char **argv, const char *engine);

/* Also used by serve/ (uploads) ---------------------------------------- */
#include <stddef.h>

#include "base/clock.h"                 /* fo_now: deadlines and durations */
#include "base/proc.h"                  /* fo_write_all */

/* A whole decimal number within [lo, hi] (no NaN, no trailing text) into
   *out: 0, or -1 with *out untouched. Options of `folio run` and `serve`. */
int fo_sandbox_parse_number(const char *s, double lo, double hi, double *out);

/* ======================= private to sandbox/ ============================ */
#ifdef FO_SANDBOX_PRIVATE

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "folio.h" /* fo_malloc, fo_free */
#include "base/buf.h"

enum {
    FO_RUN_OK = 0, FO_RUN_USAGE = 1, FO_RUN_INVALID = 2, FO_RUN_CEILING = 3,
    FO_RUN_PROGRAM = 4, FO_RUN_INTERNAL = 5
};

#define FO_SANDBOX_UID          1000u       /* identity inside the jail */
#define FO_SANDBOX_HOST_ID_BASE 0x60000000u /* host uid/gid base when folio runs as root */
#define FO_SANDBOX_MAX_FILES    1000        /* entries collected from /out */
#define FO_SANDBOX_TAIL         65536       /* bytes of stdout/stderr kept */

/* Network policy. FO_NET_ALLOW (--net packages, --net allow=LIST): the jail
   is built as for FO_NET_NONE, and its loopback gets a listening socket on
   127.0.0.1:3128 that the egress proxy serves from outside (jail.c net_setup,
   sandbox/egress/). */
typedef enum { FO_NET_NONE, FO_NET_ALL, FO_NET_ALLOW } fo_sandbox_net;
struct fo_egress_policy;

/* A file copied into the jail before the program starts. */
typedef struct {
    int fd;              /* open for reading; owned by the plan */
    char name[256];      /* safe file name inside the jail */
    uint64_t bytes;
    char sha256[65];     /* filled by fo_sandbox_collect_hash, else "" */
    /* collect.c: what the file was when collected, to know it unchanged later */
    struct { uint64_t dev, ino; int64_t mtime_ns, ctime_ns; } id;
} fo_sandbox_file;

typedef struct {
    char **argv;              /* CMD [ARG...]; borrowed from main's argv */
    const char *const *in_paths; size_t n_in_paths; /* --in, borrowed */
    fo_sandbox_file *in;      /* opened inputs (run.c); owned */
    size_t n_in, cap_in;
    const char *in_dir;       /* where inputs land inside: "work" or "out" */
    const char *out_dir;      /* --out DIR or NULL; borrowed */
    const char *sign_key;     /* --sign KEYFILE (folio run only; needs --out), or NULL */
    char render[8][8];        /* --render formats */
    size_t n_render;
    double timeout_s;
    uint64_t memory_mb;
    uint64_t max_bytes;       /* the ceiling */
    uint64_t max_total;       /* --max-total: all files collected, by apparent size */
    unsigned pids;            /* process count limit */
    unsigned nofile;          /* open files limit */
    double cpus;              /* --cpus: CPU time per wall second (cgroup quota) */
    fo_sandbox_net net;
    struct fo_egress_policy *egress;  /* FO_NET_ALLOW: allow list and pins; owned */
    int json, quiet;
    const char *engine;       /* folio-engine, bound at /run/folio (render jail); else NULL */
    const char *mpl_cache;    /* folder of prebuilt matplotlib font caches, or NULL */
    int session;              /* sessions: init keeps running, (re)starts the program
                                 on request, gives it a stdin pipe (jail.c, init_session) */
    uint64_t disk_mb;         /* >0: /work, /out and /tmp share one tmpfs of this size */
    char *why;                /* set: fo_sandbox_plan_option writes a bad option's */
    size_t why_len;           /* message here ("--memory: ...") instead of printing it */
    const char *provenance;   /* render jail: JSON for `folio render --provenance` (what made
                                 the documents: run or session id, cell, inputs), or NULL */
} fo_sandbox_plan;

/* plan.c */
/* Fills *p from argv (argv[0] = "run"). Returns FO_RUN_OK, or FO_RUN_USAGE after
   printing the problem. *help is set for --help (usage printed, return OK). */
int fo_sandbox_plan_parse(fo_sandbox_plan *p, int argc, char **argv, int *help);
/* The defaults of every option (in_paths allocated). FO_RUN_OK or FO_RUN_INTERNAL. */
int fo_sandbox_plan_defaults(fo_sandbox_plan *p);
/* Applies one option ("--memory", "512"): what `folio run` and `folio session
   new` share. FO_RUN_OK, or FO_RUN_USAGE after printing the problem (or
   writing it to p->why, when set). */
int fo_sandbox_plan_option(fo_sandbox_plan *p, const char *opt, const char *val);
void fo_sandbox_plan_free(fo_sandbox_plan *p);  /* closes in[] fds; p itself borrowed */

void fo_sandbox_usage(FILE *f);

/* limits.c — cgroup: best effort; a field is 0 where no controller was usable. */
typedef struct {
    int version;              /* 0 none, 1 or 2 */
    char mem[512], pids[512]; /* created cgroup directories, "" if none */
    char cpu[512];            /* the cpu controller's (v1), or the same as mem (v2) */
    int mem_ok, pids_ok;
    int cpu_ok;               /* --cpus quota written */
    int tcp_ok;               /* socket buffers charged and capped (v2 always, v1 kmem.tcp) */
} fo_sandbox_cgroup;
void fo_sandbox_cgroup_create(fo_sandbox_cgroup *cg, const fo_sandbox_plan *p, int serial);
int fo_sandbox_cgroup_attach(const fo_sandbox_cgroup *cg, pid_t pid);
/* The group's share of the CPU against its siblings (cgroup v2 cpu.weight,
   1..10000, default 100; v1 cpu.shares scaled); below 100 the group is also
   marked idle (cpu.idle, where the kernel has it), back to 0 at 100. 0 or -1
   (no cpu controller). */
int fo_sandbox_cgroup_weight(const fo_sandbox_cgroup *cg, unsigned weight);
void fo_sandbox_cgroup_events(const fo_sandbox_cgroup *cg, long *oom_kills, long *pids_max);
void fo_sandbox_cgroup_destroy(fo_sandbox_cgroup *cg);
const char *fo_sandbox_cgroup_memory_via(const fo_sandbox_cgroup *cg);
/* The bytes the memory cgroup may still charge (its limit minus its usage).
   0, or -1 when there is no memory cgroup. */
int fo_sandbox_cgroup_memory_room(const fo_sandbox_cgroup *cg, uint64_t *room);
/* In the jail, before exec: core 0, fsize, nofile, nproc; AS when no memory
   cgroup; nice raised to at least FO_SANDBOX_NICE. */
#define FO_SANDBOX_NICE 10
void fo_sandbox_rlimits_apply(const fo_sandbox_plan *p, int need_as, int need_nproc);

/* policy/seccomp_policy.c (build time only: tools/seccomp-gen) — the policy
   compiled with libseccomp to classic BPF (insns: len 8-byte instructions,
   owned). 0 or -1 + errno. */
typedef struct { void *insns; size_t len; } fo_sandbox_filter;
int fo_sandbox_seccomp_compile(fo_sandbox_filter *f);
void fo_sandbox_seccomp_free(fo_sandbox_filter *f);
/* seccomp.c — installs the filter generated from that policy. 0 or -1 + errno. */
int fo_sandbox_seccomp_install(void);

/* jail.c */
typedef struct {
    pid_t pid;             /* the jail's init (PID 1 inside), in our namespace */
    int ctl;               /* seqpacket socket to init: /out fd, then exit status */
    int out_r, err_r;      /* read ends of the program's stdout and stderr */
    int out_dir;           /* the jail's /out (tmpfs), stays valid after exit */
    int egress_listen;     /* FO_NET_ALLOW: listening socket on the jail's 127.0.0.1:3128 */
    int work_dir, tmp_dir; /* the jail's /work and /tmp, likewise */
    int in_w;              /* sessions: write end of the program's stdin, else -1 */
    unsigned host_uid, host_gid; /* the host identity of the jail's user */
    fo_sandbox_cgroup cg;
} fo_sandbox_jail;
/* Starts CMD in a new jail. Returns FO_RUN_OK or FO_RUN_INTERNAL (message printed). */
int fo_sandbox_jail_start(const fo_sandbox_plan *p, fo_sandbox_jail *j, int serial);
/* Closes the descriptors and removes the cgroup. */
void fo_sandbox_jail_close(fo_sandbox_jail *j);
/* Sessions (plan->session): asks init to interrupt the program ('I': SIGINT)
   or restart it ('R': every process of the jail but init killed, then a new
   program, whose pipes arrive as a 'P' event). 0, or -1 (errno). */
int fo_sandbox_jail_ctl(fo_sandbox_jail *j, char cmd);
/* Sessions: reads one message of init from j->ctl. 'S': the program ended,
   *wstatus filled; 'P': a (re)started program's pipes, stored in j->in_w,
   out_r, err_r (the old ones closed); 0: init is gone; -1: error. */
int fo_sandbox_jail_event(fo_sandbox_jail *j, int *wstatus);

/* collect.c */
typedef struct {
    fo_sandbox_file *files; size_t n_files, cap_files; /* collected, fds open */
    struct { char name[256]; char reason[64]; } *refused; size_t n_refused, cap_refused;
    int over_ceiling;                                 /* a file refused for size */
    int over_total;                                   /* refused: --max-total reached */
    uint64_t hashed;                                  /* bytes read by _collect_hash */
} fo_sandbox_collection;
/* Reads the jail's /out and its subfolders (up to 8 levels) without following
   links; names are relative paths ("charts/a.png"). skip[] names (relative
   paths too) are ignored. Refuses, before reading any content: entries past
   FO_SANDBOX_MAX_FILES, files over the ceiling (by apparent size). Nothing
   is hashed yet: apply fo_sandbox_collect_total (and any reservation) first,
   then fo_sandbox_collect_hash, so that only the files kept are read. */
int fo_sandbox_collect(int out_dir, uint64_t ceiling, fo_sandbox_collection *c,
                       const fo_sandbox_file *skip, size_t n_skip);
/* Closes the open fds of n files and frees the array (NULL: no-op). */
void fo_sandbox_files_free(fo_sandbox_file *f, size_t n);
void fo_sandbox_collection_free(fo_sandbox_collection *c);
/* Keeps the files of c, in name order, while their apparent sizes (st_size:
   a sparse file counts in full) add up to at most *budget, which it lowers;
   the others are refused ("over --max-total") and over_total set. 0 or -1. */
int fo_sandbox_collect_total(fo_sandbox_collection *c, uint64_t *budget);
/* SHA-256 of every file of c, in c->files[k].sha256. A file whose name,
   device, inode, size, mtime and ctime are those of a file of prev (an
   earlier collection of the same folder, or NULL) takes prev's hash without
   being read: a session re-hashes only what a cell changed. The bytes read
   are added to c->hashed; after fo_sandbox_collect_total they are at most
   its budget. A file found shorter than listed (cut meanwhile) is refused.
   0, or -1 (errno) when a file could not be read. */
int fo_sandbox_collect_hash(fo_sandbox_collection *c, const fo_sandbox_collection *prev);
/* SHA-256 (lowercase hex) of the first bytes bytes of fd, read with pread
   (its offset stays). 0, or -1 (errno; EIO when it is shorter). */
int fo_sandbox_hash_fd(int fd, uint64_t bytes, char out[65]);
/* The opened inputs of p (in[], fds valid), each hashed now with pread (the
   fds' offsets stay), as the JSON array [{"path": NAME, "sha256": HEX}, ...]
   that `folio render --provenance` reads. malloc'd; NULL when out of memory or
   an input can't be read. */
char *fo_sandbox_inputs_json(const fo_sandbox_plan *p);
/* Refuses (reason given) the files whose path is name or lies below it. 0 or -1. */
int fo_sandbox_collect_reserve(fo_sandbox_collection *c, const char *name, const char *reason);
/* Stages name (a relative path of safe components) below dirfd in the set s
   (base/stage.h): missing folders are created, existing ones are never
   followed if they are links; the first `bytes` bytes of fd (a file that grew
   since it was collected is cut there) or buf are written to a temporary,
   which fo_stage_commit puts in place with the rest of the set. 0 or -1 (errno). */
struct fo_stage;
int fo_sandbox_stage_copy(struct fo_stage *s, int dirfd, const char *name, int fd,
                          uint64_t bytes);
int fo_sandbox_stage_buf(struct fo_stage *s, int dirfd, const char *name, const char *buf,
                         size_t len);
/* Writes name (as above) in dirfd at once, all or nothing: the whole of fd
   (from its start), or len bytes of buf. 0 or -1 (errno). */
int fo_sandbox_write_copy(int dirfd, const char *name, int fd);
int fo_sandbox_write_buf(int dirfd, const char *name, const char *buf, size_t len);
/* Opens name in dirfd for reading without following a link, only if it is a
   regular file once open (O_NONBLOCK: a FIFO swapped in never blocks). The fd
   with *st filled, or -1 (errno; EINVAL when not a regular file). */
struct stat;
int fo_sandbox_open_regular(int dirfd, const char *name, struct stat *st);

/* echo.c — the live echo of the program's output (see there). [output-hardening] */
#define FO_SANDBOX_ECHO_MAX     (8u << 20)  /* bytes of each stream echoed, then a note */
#define FO_SANDBOX_ECHO_PENDING 131072      /* bytes queued per stream */
#define FO_SANDBOX_ECHO_GRACE   5.0         /* s without progress: the reader stalled */
typedef struct {
    int fd;                   /* where to echo; -1: not echoed */
    int tty, sock;            /* escape controls / send(MSG_DONTWAIT) */
    int held_c2, gone, capped, stalled;
    const char *name;         /* "stdout", "stderr" */
    char *pend;               /* FO_SANDBOX_ECHO_PENDING bytes, borrowed */
    size_t len;
    uint64_t echoed, dropped; /* program bytes echoed; bytes dropped */
} fo_sandbox_echo;
/* Reopens folio's stdout/stderr non-blocking when they are pipes or terminals. */
void fo_sandbox_std_nonblocking(void);
void fo_sandbox_echo_open(fo_sandbox_echo *e, int fd, const char *name, char *store);
/* Queues (capped, escaped on a terminal) and writes what the reader takes now. */
void fo_sandbox_echo_add(fo_sandbox_echo *e, const char *s, size_t n);
void fo_sandbox_echo_flush(fo_sandbox_echo *e);
int fo_sandbox_echo_full(const fo_sandbox_echo *e);     /* stop reading the stream */
int fo_sandbox_echo_pending(const fo_sandbox_echo *e);  /* poll for POLLOUT */
/* Writes what is queued until `until` (monotonic s) or the reader stalls; drops the rest. */
void fo_sandbox_echo_finish(fo_sandbox_echo *e, double until);
/* Queues on `to` the note about e (truncated, or not echoed), if any, and finishes `to`. */
void fo_sandbox_echo_note(fo_sandbox_echo *to, const fo_sandbox_echo *e, double until);


/* run.c — also used by folio serve's zygote. RLIMIT_FSIZE (plan max_bytes)
   of a jail that renders: not the output ceiling -- the writers' working
   files are larger than their output (xlsx: ~8x), and a write past the limit
   kills the renderer unanswered; the renderer checks the ceiling itself --
   but the jail's size (memory_mb), or the ceiling when that is larger. */
uint64_t fo_sandbox_render_fsize(uint64_t memory_mb, uint64_t max_bytes);
/* run.c — also used by sessions. The prebuilt matplotlib font caches: the
   folder "matplotlib" beside engine (in buf), or NULL. */
const char *fo_sandbox_mpl_cache(const char *engine, char *buf, size_t len);
/* run.c — --net packages / allow=: starts the egress proxy serving j's
   listener (the listener is the proxy's afterwards; on failure the jail is
   killed, message printed); nothing for other --net. FO_RUN_OK or
   FO_RUN_INTERNAL. egress_end stops it and returns its audit log as JSON
   (malloc'd; NULL without policy network). */
struct fo_egress_proxy;
int fo_sandbox_egress_begin(const fo_sandbox_plan *p, fo_sandbox_jail *j,
                            struct fo_egress_proxy *px);
char *fo_sandbox_egress_end(const fo_sandbox_plan *p, struct fo_egress_proxy *px);
/* Opens every --in path into p->in (files
   within the ceiling, folders whole). FO_RUN_OK or an exit code, printed. */
int fo_sandbox_open_inputs(fo_sandbox_plan *p);
/* Renders result.json, one of col's files, to p->render's formats in a second
   jail exactly as `folio run --render` does. The names the render writes
   (result.FMT, result-N.png) are first refused from col (col->refused, reason
   "reserved for the --render output"): a render is never shadowed by a file
   of the program's. *rendered receives the new files (fds open, for the
   caller to free; within p->max_total, hashed); err_tail the render's last
   stderr.
   Returns folio render's exit code, or -1 if the jail could not run it. */
int fo_sandbox_render(const fo_sandbox_plan *p, const char *engine,
                      fo_sandbox_collection *col, fo_sandbox_collection *rendered,
                      char *err_tail, size_t err_len);
/* c's refused files as a JSON array of {"name", "reason"} (the manifest's
   "refused", a session render's). */
void fo_sandbox_json_refused(fo_buf *b, const fo_sandbox_collection *c);

#endif /* FO_SANDBOX_PRIVATE */
#endif
