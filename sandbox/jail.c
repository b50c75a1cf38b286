/* jail.c — builds a jail and starts the program in it, in a fixed order:
 *
 *   parent  no_new_privs; clone into new user and PID namespaces; while the
 *           child creates its other namespaces: cgroup created and the child
 *           moved into it; uid/gid maps to an unprivileged identity;
 *           "go" (with which rlimits stand in for a missing cgroup).
 *   child   (PID 1 of the new PID namespace, full capabilities only inside its
 *           own user namespace) new mount/IPC/UTS/network namespaces (while
 *           the parent writes the maps); after "go": new cgroup namespace;
 *           switch to uid/gid 1000;
 *           new root on tmpfs: read-only binds of the system folders, a
 *           synthesized /etc, fresh /proc with host-wide files masked or
 *           synthesized (proc_setup), minimal /dev, capped /tmp /work /out;
 *           inputs copied; /out handed to the parent; hostname; loopback up;
 *           pivot_root; root read-only; a time namespace for the program
 *           (time_setup); init hides folio's argv, environment and memory
 *           (init_disguise);
 *           drop every capability; rlimits and nice; seccomp last (one
 *           filter, built into folio at compile time, for init and the
 *           program it starts).
 *   program (vfork of init) stdin /dev/null, stdout/stderr pipes, nothing else
 *           open, signals reset; execve with a clean environment.
 *   init    waits for the program, reports its status to the parent, exits —
 *           which kills whatever is left in the PID namespace.
 *
 * The child never returns: every failure prints "folio: run: can't ..." and
 * exits 125, which the parent sees as a setup failure (no status message). */
#define FO_SANDBOX_PRIVATE
#include "base/proc.h"
#include "sandbox/sandbox.h"
#include "sandbox/fdpass.h"
#include "sandbox/egress/egress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SETUP_FAILED 125

/* The "go" message: 'g' and which rlimits stand in for a missing cgroup. */
enum { GO_NEED_AS = 1, GO_NEED_NPROC = 2 };

/* ---------------------------------------------------------------- helpers */

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
    int e = errno;
    va_list ap;

    fputs("folio: run: can't ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", strerror(e));
    _exit(SETUP_FAILED);
}

static void write_new(const char *path, const char *text, mode_t mode)
{
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

    if (fd < 0) die("create %s", path);
    if (write(fd, text, len) != (ssize_t)len) die("write %s", path);
    if (close(fd) < 0) die("close %s", path);
}

static void make_dir(const char *path, mode_t mode)
{
    if (mkdir(path, mode) < 0) die("create directory %s", path);
}

static void mount_tmpfs(const char *dst, const char *opts, unsigned long flags)
{
    if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | flags, opts) < 0) die("mount tmpfs on %s", dst);
}

/* A remount inside a user namespace must keep the flags the host locked
   (nodev, noexec, atime...), so they are read back and kept. */
static unsigned long kept_flags(const char *path)
{
    struct statvfs sv;
    unsigned long f = 0;

    if (statvfs(path, &sv) < 0) die("read mount flags of %s", path);
    if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
    return f;
}

/* Binds host src at dst (which must exist), read-only, nosuid. */
static void bind_ro(const char *src, const char *dst)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0) die("bind %s", src);
    if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept_flags(dst),
              NULL) < 0)
        die("make %s read-only", dst);
}

/* Mirrors host path /name at ./name: a symlink as the same symlink (merged
   /usr), a directory or file as a read-only bind. Absent: nothing. */
static void mirror(const char *host, const char *dst)
{
    struct stat st;
    char link[4096];
    ssize_t n;

    if (lstat(host, &st) < 0) {
        if (errno == ENOENT) return;
        die("inspect %s", host);
    }
    if (S_ISLNK(st.st_mode)) {
        n = readlink(host, link, sizeof link - 1);
        if (n < 0) die("read link %s", host);
        link[n] = 0;
        if (symlink(link, dst) < 0) die("create symlink %s", dst);
        return;
    }
    if (S_ISDIR(st.st_mode))
        make_dir(dst, 0755);
    else write_new(dst, "", 0644);
    bind_ro(host, dst);
}

/* Same, but a symlink is followed (resolv.conf, ld.so.cache may be links). */
static void mirror_target(const char *host, const char *dst)
{
    struct stat st;

    if (stat(host, &st) < 0) {
        if (errno == ENOENT) return;
        die("inspect %s", host);
    }
    if (S_ISDIR(st.st_mode))
        make_dir(dst, 0755);
    else write_new(dst, "", 0644);
    bind_ro(host, dst);
}


/* --------------------------------------------------------- child: setup */

static const char etc_passwd[] =
    "folio:x:1000:1000:folio:/work:/bin/sh\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char etc_group[] = "folio:x:1000:\nnogroup:x:65534:\n";
static const char etc_hosts[] =
    "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tfolio\n";

/* Host /etc entries a program may need and that hold no secrets. */
static const char *const etc_shared[] = {
    "ld.so.cache", "fonts", "alternatives", "ssl/certs", "ca-certificates", "mime.types",
    "matplotlibrc",
};

static void build_etc(const fo_sandbox_plan *p)
{
    size_t k;
    char host[256], dst[256];

    make_dir("etc", 0755);
    write_new("etc/passwd", etc_passwd, 0644);
    write_new("etc/group", etc_group, 0644);
    write_new("etc/hosts", etc_hosts, 0644);
    write_new("etc/hostname", "folio\n", 0644);
    make_dir("etc/ssl", 0755);                 /* certs only, never ssl/private */
    write_new("etc/nsswitch.conf", p->net == FO_NET_ALL
              ? "passwd: files\ngroup: files\nhosts: files dns\n"
              : "passwd: files\ngroup: files\nhosts: files\n", 0644);
    for (k = 0; k < sizeof etc_shared / sizeof *etc_shared; k++) {
        snprintf(host, sizeof host, "/etc/%s", etc_shared[k]);
        snprintf(dst, sizeof dst, "etc/%s", etc_shared[k]);
        mirror_target(host, dst);
    }
    mirror("/etc/localtime", "etc/localtime");
    if (p->net == FO_NET_ALL) mirror_target("/etc/resolv.conf", "etc/resolv.conf");
}

static void build_dev(const fo_sandbox_plan *p)
{
    static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
    static const char *const links[][2] = {
        { "/proc/self/fd", "dev/fd" }, { "/proc/self/fd/0", "dev/stdin" },
        { "/proc/self/fd/1", "dev/stdout" }, { "/proc/self/fd/2", "dev/stderr" },
    };
    char host[64], dst[64], opts[64];
    size_t k;

    make_dir("dev", 0755);
    mount_tmpfs("dev", "mode=0755,size=64k", MS_NOEXEC);
    for (k = 0; k < sizeof nodes / sizeof *nodes; k++) {
        snprintf(host, sizeof host, "/dev/%s", nodes[k]);
        snprintf(dst, sizeof dst, "dev/%s", nodes[k]);
        write_new(dst, "", 0666);
        if (mount(host, dst, NULL, MS_BIND, NULL) < 0) die("bind %s", host);
    }
    for (k = 0; k < sizeof links / sizeof *links; k++)
        if (symlink(links[k][0], links[k][1]) < 0) die("create symlink %s", links[k][1]);
    make_dir("dev/shm", 01777);
    snprintf(opts, sizeof opts, "mode=1777,size=%llum", (unsigned long long)p->memory_mb);
    mount_tmpfs("dev/shm", opts, MS_NOEXEC);
}

/* Creates dst (new, never through a link) with the bytes of src from its
   start. 0, or -1 (errno). */
static int copy_new(const char *dst, int src, uint64_t bytes)
{
    int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), ok = fd >= 0;
    off_t off = 0;

    while (ok && bytes > 0) {
        ssize_t n = sendfile(fd, src, &off, bytes > (1u << 30) ? (1u << 30) : bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;            /* the source got shorter */
            ok = 0;
        } else {
            bytes -= (uint64_t)n;
        }
    }
    if (fd >= 0 && close(fd) < 0) ok = 0;
    return ok ? 0 : -1;
}

static void copy_inputs(const fo_sandbox_plan *p)
{
    char dst[512];
    size_t k;

    for (k = 0; k < p->n_in; k++) {
        char *slash;

        snprintf(dst, sizeof dst, "%s/%s", p->in_dir, p->in[k].name);
        /* a file in a folder (--in DIR, or collected from a subfolder of /out
           for the render jail) gets its folders back; names were checked
           where they were read, and this tmpfs is still ours alone */
        for (slash = strchr(dst + strlen(p->in_dir) + 1, '/'); slash;
             slash = strchr(slash + 1, '/')) {
            *slash = 0;
            if (mkdir(dst, 0755) < 0 && errno != EEXIST) die("create directory /%s", dst);
            *slash = '/';
        }
        if (copy_new(dst, p->in[k].fd, p->in[k].bytes) < 0)
            die("copy %s into the jail as /%s", p->in[k].name, dst);
    }
}

/* matplotlib builds its font list on first use, ~0.4 s, and the jail's /tmp
   is new each run: the fontlist-*.json that `make` prebuilt (from the same
   system fonts the jail sees, at the same paths) is copied into
   /tmp/.matplotlib (MPLCONFIGDIR), the jail's own. Optional: any problem
   just leaves matplotlib to build it. dfd: the folder, taken. */
static void seed_matplotlib(int dfd)
{
    DIR *d = fdopendir(dfd);
    struct dirent *de;

    if (!d) {
        close(dfd);
        return;
    }
    if (mkdir("tmp/.matplotlib", 0700) == 0) {
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            char dst[300];
            struct stat st;
            int in;

            if (strncmp(de->d_name, "fontlist-", 9) || n < 14 || n > 200 ||
                strcmp(de->d_name + n - 5, ".json"))
                continue;
            in = fo_sandbox_open_regular(dirfd(d), de->d_name, &st);
            if (in < 0) continue;
            snprintf(dst, sizeof dst, "tmp/.matplotlib/%s", de->d_name);
            if (st.st_size < (4 << 20)) (void)copy_new(dst, in, (uint64_t)st.st_size);
            close(in);
        }
    }
    closedir(d);
}

/* ------------------------------------------------ child: /proc, masked */

/* /proc files that tell the host apart and that an analysis does not need:
   covered by an empty read-only file. The kernel command line, interrupt
   and scheduler counters, kernel symbols and modules, the keyring, host-wide
   locks (with inode numbers), devices, disks and memory zones, boot_id.
   (Root-only ones — kcore, kmsg, kpage*, slabinfo, vmallocinfo, timer_list,
   pagetypeinfo — are unreadable to the jail's user already: no mount spent.) */
static const char *const proc_masked_files[] = {
    "cmdline", "interrupts", "softirqs", "sched_debug", "schedstat", "kallsyms", "modules",
    "keys", "key-users", "locks", "latency_stats", "iomem", "ioports", "diskstats",
    "partitions", "swaps", "zoneinfo", "buddyinfo", "vmstat", "devices", "consoles", "misc",
    "mtrr", "dma", "fb", "cgroups", "execdomains", "config.gz", "bootconfig",
    "sys/kernel/random/boot_id",
};

/* /proc folders of the same kind: covered by an empty read-only folder. */
static const char *const proc_masked_dirs[] = {
    "acpi", "asound", "bus", "driver", "dynamic_debug", "fs", "irq", "pressure", "scsi",
    "tty",
};

/* The sources of the masks: a small tmpfs mounted at ./proc first, filled,
   made read-only, then covered by the procfs itself — unreachable from
   then on, and nothing to unmount (a detach waits for an RCU grace period:
   0.25 ms here, milliseconds on a busy host). */
enum { SRC_EMPTY, SRC_DIR, SRC_MEMINFO, SRC_LOADAVG, SRC_STAT, SRC_N };
static const char *const proc_src_names[SRC_N] = {
    "empty", "dir", "meminfo", "loadavg", "stat"
};

/* Binds source fd (O_PATH, reached through the host's /proc/self/fd, still
   mounted at /proc) over proc/dst; dst absent in this kernel: nothing. The
   source's file system is read-only, so the bound files and folders are
   too, at no cost per mount. */
static void proc_cover(int fd, const char *dst)
{
    char from[64], to[128];

    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    snprintf(to, sizeof to, "proc/%s", dst);
    if (mount(from, to, NULL, MS_BIND, NULL) < 0 && errno != ENOENT) die("mask /%s", to);
}

/* Host-wide counters an analysis does read (psutil, pandas, glibc's CPU
   count): synthesized, truthful for the jail — meminfo with --memory as
   the total, loadavg idle, stat with one cpu line per CPU of --cpus and the
   jail's start as btime. */
static void proc_synthesize(const fo_sandbox_plan *p)
{
    static const char *const meminfo_zero[] = {
        "Buffers", "Cached", "SwapCached", "Active", "Inactive", "Active(anon)",
        "Inactive(anon)", "Active(file)", "Inactive(file)", "Unevictable", "Mlocked",
        "SwapTotal", "SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem",
        "KReclaimable", "Slab", "SReclaimable", "SUnreclaim", "KernelStack", "PageTables",
        "CommitLimit", "Committed_AS", "VmallocTotal", "VmallocUsed", "VmallocChunk",
        "HugePages_Total", "HugePages_Free",
    };
    char buf[4096];
    size_t k;
    int n = 0, host = (int)sysconf(_SC_NPROCESSORS_ONLN), cpus = (int)p->cpus;
    unsigned long long kb = (unsigned long long)p->memory_mb << 10;

    n += snprintf(buf + n, sizeof buf - (size_t)n, "MemTotal: %14llu kB\nMemFree: %15llu kB\n"
                  "MemAvailable: %10llu kB\n", kb, kb, kb);
    for (k = 0; k < sizeof meminfo_zero / sizeof *meminfo_zero; k++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s:%*s0 kB\n", meminfo_zero[k],
                      (int)(16 - strlen(meminfo_zero[k])), "");
    write_new("proc/meminfo", buf, 0444);
    write_new("proc/loadavg", "0.00 0.00 0.00 1/1 1\n", 0444);
    if (cpus < p->cpus) cpus++;
    if (host > 0 && cpus > host) cpus = host;
    n = snprintf(buf, sizeof buf, "cpu  0 0 0 0 0 0 0 0 0 0\n");
    for (k = 0; k < (size_t)cpus && k < 64; k++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "cpu%zu 0 0 0 0 0 0 0 0 0 0\n", k);
    snprintf(buf + n, sizeof buf - (size_t)n, "intr 0\nctxt 0\nbtime %lld\nprocesses 1\n"
             "procs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n",
             (long long)time(NULL));
    write_new("proc/stat", buf, 0444);
}

/* Mounts the jail's /proc at ./proc (an existing folder) and hides the host
   in it: masks and the synthesized files, from the sources above. */
static void proc_setup(const fo_sandbox_plan *p)
{
    int src[SRC_N];
    char path[64];
    size_t k;

    mount_tmpfs("proc", "mode=0555,size=64k,nr_inodes=64", MS_NOEXEC);
    make_dir("proc/dir", 0555);
    write_new("proc/empty", "", 0444);
    proc_synthesize(p);
    if (mount(NULL, "proc", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
              NULL) < 0)
        die("make /proc's masks read-only");
    for (k = 0; k < SRC_N; k++) {
        snprintf(path, sizeof path, "proc/%s", proc_src_names[k]);
        src[k] = open(path, O_PATH | O_CLOEXEC);
        if (src[k] < 0) die("open %s", path);
    }
    if (mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) die("mount /proc");
    for (k = 0; k < sizeof proc_masked_files / sizeof *proc_masked_files; k++)
        proc_cover(src[SRC_EMPTY], proc_masked_files[k]);
    for (k = 0; k < sizeof proc_masked_dirs / sizeof *proc_masked_dirs; k++)
        proc_cover(src[SRC_DIR], proc_masked_dirs[k]);
    for (k = SRC_MEMINFO; k < SRC_N; k++) proc_cover(src[k], proc_src_names[k]);
    for (k = 0; k < SRC_N; k++) close(src[k]);
}

/* ------------------------------------------------- child: init's identity */


/* PID 1 is a fork of folio: its argv and environment pages hold folio's
   host command line and environment, its memory the plan (host paths).
   The program can read /proc/1/cmdline whatever it does, and /proc/1/
   {environ,mem,maps,auxv} while init is dumpable. So: init is made
   non-dumpable (those files are then refused to the program: it would need
   CAP_SYS_PTRACE), named "init", and its argv area rewritten to "init" —
   kept non-NUL at its end, so the kernel reads it as a retitled command
   line and shows "init" alone, not the old length — and its environment
   zeroed. argv: the program's command, copied first (it lives there);
   returns the copy. Every other string of the plan borrowed from folio's
   argv (in_paths, out_dir, net_allow) is overwritten: use them before. */
__attribute__((noinline))   /* its locals never live across jail_child's vfork */
static char **init_disguise(char *const *argv)
{
    unsigned long long f[52], *a = f + 48;     /* arg_start arg_end env_start env_end */
    char **copy;
    size_t n = 0, k;

    if (fo_self_stat(f, 52) < 0 || a[1] < a[0] + 6 || a[3] < a[2]) {
        errno = EINVAL;
        die("find init's command line");
    }
    while (argv[n]) n++;
    copy = fo_calloc(n + 1, sizeof *copy);
    for (k = 0; copy && k < n; k++)
        if (!(copy[k] = fo_strdup(argv[k]))) copy = NULL;
    if (!copy) die("copy the command");
    memset((char *)(uintptr_t)a[0], 'x', (size_t)(a[1] - a[0]));
    memcpy((char *)(uintptr_t)a[0], "init", 5);
    memset((char *)(uintptr_t)a[2], 0, (size_t)(a[3] - a[2]));
    if (prctl(PR_SET_NAME, "init", 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) die("hide init");
    return copy;
}

/* --net packages / allow=: a socket listening on the jail's own 127.0.0.1:3128,
   handed to folio, whose egress proxy serves it from outside. The jail thus
   reaches the proxy and nothing else (no route, no DNS, no Unix socket), and
   nothing in it can take the port: the socket is bound without SO_REUSEPORT.
   If the proxy dies the socket closes with it: connections are refused. */
static void egress_listener(int ctl)
{
    struct sockaddr_in a;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (s < 0) die("open the egress proxy's socket");
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(FO_EGRESS_PORT);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1024) < 0)
        die("listen on 127.0.0.1:%d for the egress proxy", FO_EGRESS_PORT);
    if (fo_fdpass_send(ctl, "N", 1, &s, 1) < 0) die("hand the egress listener to folio");
    close(s);
}

/* --net none: the new network namespace has only lo, down; bring it up.
   --net packages / allow=: the same, plus the egress proxy's listener. */
static void net_setup(const fo_sandbox_plan *p, int ctl)
{
    struct ifreq ifr;
    int s;

    if (p->net == FO_NET_ALL) return;
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) die("open a socket to configure lo");
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) die("read the flags of lo");
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) die("bring lo up");
    close(s);
    if (p->net == FO_NET_ALLOW) egress_listener(ctl);
}

/* A time namespace for the program (init stays in the host's; the program
   enters it at execve): CLOCK_BOOTTIME and CLOCK_MONOTONIC start at the
   jail's start, so /proc/uptime, sysinfo's uptime and the clocks no longer
   tell the host's uptime. Optional: a kernel without CONFIG_TIME_NS (EINVAL)
   keeps the host's clocks. */
static void time_setup(void)
{
    struct timespec boot, mono;
    char offs[96];
    int fd, n;

    if (unshare(CLONE_NEWTIME) < 0) {
        if (errno == EINVAL) return;
        die("create a time namespace");
    }
    if (clock_gettime(CLOCK_BOOTTIME, &boot) < 0 || clock_gettime(CLOCK_MONOTONIC, &mono) < 0)
        die("read the clocks");
    /* whole seconds: the clocks stay positive. /proc/self is ours to write
       only while we are dumpable, which the uid change turned off
       (init_disguise turns it off again) */
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) die("reach /proc/self");
    n = snprintf(offs, sizeof offs, "%d %lld 0\n%d %lld 0\n", CLOCK_BOOTTIME,
                 -(long long)boot.tv_sec, CLOCK_MONOTONIC, -(long long)mono.tv_sec);
    fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, offs, (size_t)n) != n || close(fd) < 0) die("set the jail's clocks");
}

static void drop_caps(void)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    int cap;

    for (cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
            die("drop capability %d from the bounding set", cap);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        die("clear ambient capabilities");
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &hdr, data) < 0) die("drop capabilities");
}

/* The program's whole environment. The render jail runs folio itself, which
   may be a sanitizer build: LeakSanitizer needs ptrace, which the filter
   denies, so leak checking is off there (other tests cover leaks).
   Installs (docs/environment.md) go into /work, never the host: pip into the
   virtual environment /work/.venv that the shims in /run/bin create on first
   use (it sees the system's packages), npm into /work/node_modules or, with
   -g, /work/.npm-global; both are first on PATH once they exist. */
static const char *const program_env[] = {
    "PATH=/work/.venv/bin:/work/.npm-global/bin:/run/bin:/usr/local/bin:/usr/bin:/bin",
    "HOME=/work", "USER=folio", "LOGNAME=folio",
    "LANG=C.UTF-8", "TMPDIR=/tmp", "MPLBACKEND=Agg", "MPLCONFIGDIR=/tmp/.matplotlib",
    "XDG_CACHE_HOME=/tmp/.cache", "FOLIO_SANDBOX=1",
    "PYTHONHASHSEED=0",             /* str hashes, set order: the same on every run */
    "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1",
    "npm_config_prefix=/work/.npm-global", "npm_config_cache=/tmp/.cache/npm",
    "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false",
    "NODE_PATH=/work/.npm-global/lib/node_modules", NULL
};

/* The shims of /run/bin (read-only in the jail): pip creates /work/.venv
   (--system-site-packages: the stack stays importable; pip sees a virtual
   environment, so Debian's PEP 668 marker is honoured, not overridden)
   and installs there; without network it says what would work. python3
   -m pip (a cell's sys.executable -m pip) goes the same way. */
static const char shim_pip[] =
    "#!/bin/sh\n"
    "# folio: pip installs into this sandbox's own environment, /work/.venv\n"
    "[ \"$FOLIO_NET\" = none ] && export PIP_NO_INDEX=1    # no index to wait for\n"
    "if [ ! -x /work/.venv/bin/python3 ]; then\n"
    "  /usr/bin/python3 -m venv --without-pip --system-site-packages /work/.venv || exit 1\n"
    "fi\n"
    "/work/.venv/bin/python3 -m pip \"$@\"\n"
    "rc=$?\n"
    "if [ $rc -ne 0 ] && [ \"$FOLIO_NET\" = none ]; then\n"
    "  echo \"folio: this sandbox has no network (--net none): pip installs only local files,\" \\\n"
    "       \"e.g. pip install /work/NAME.whl of an uploaded wheel; a run or session started\" \\\n"
    "       \"with --net packages installs from the package indexes. 'folio env' lists what\" \\\n"
    "       \"is installed.\" >&2\n"
    "fi\n"
    "exit $rc\n";
static const char shim_python[] =
    "#!/bin/sh\n"
    "# folio: python3 -m pip installs into /work/.venv; else the venv's python if any\n"
    "if [ \"$1\" = -m ] && { [ \"$2\" = pip ] || [ \"$2\" = pip3 ]; }; then\n"
    "  shift 2; exec /run/bin/pip \"$@\"\n"
    "fi\n"
    "[ -x /work/.venv/bin/python3 ] && exec /work/.venv/bin/python3 \"$@\"\n"
    "exec /usr/bin/python3 \"$@\"\n";

/* --net packages / allow=: every client that reads the usual variables (curl,
   urllib, requests, pip, npm) goes through the egress proxy in the jail.
   FOLIO_NET tells the program which network it has (none, allow, all). */
#define FO_EGRESS_URL "http://127.0.0.1:3128"
static const char *const egress_env[] = {
    "FOLIO_NET=allow",
    "HTTP_PROXY=" FO_EGRESS_URL, "HTTPS_PROXY=" FO_EGRESS_URL, "http_proxy=" FO_EGRESS_URL,
    "https_proxy=" FO_EGRESS_URL, "NO_PROXY=localhost,127.0.0.1", "no_proxy=localhost,127.0.0.1",
    "PIP_PROXY=" FO_EGRESS_URL, "npm_config_proxy=" FO_EGRESS_URL,
    "npm_config_https_proxy=" FO_EGRESS_URL, NULL
};

static void write_shims(void)
{
    make_dir("run/bin", 0755);
    write_new("run/bin/pip", shim_pip, 0755);
    write_new("run/bin/pip3", shim_pip, 0755);
    write_new("run/bin/python3", shim_python, 0755);
    write_new("run/bin/python", shim_python, 0755);
}

/* execvp with program_env's PATH (execvp would search the caller's PATH). */
__attribute__((noreturn))
static void exec_path(char *const *argv, int render, fo_sandbox_net net)
{
    static const char *const dirs[] = {
        "/work/.venv/bin", "/work/.npm-global/bin", "/run/bin", "/usr/local/bin", "/usr/bin", "/bin"
    };
    char path[4096];
    size_t k, e;
    int egress = net == FO_NET_ALLOW;
    const char *env[sizeof program_env / sizeof *program_env + sizeof egress_env / sizeof *egress_env + 1];
    char *const *envp = (char *const *)env;   /* execve only reads the strings */
    int err = ENOENT;

    for (k = 0; program_env[k]; k++) env[k] = program_env[k];
    if (render) env[k++] = "ASAN_OPTIONS=detect_leaks=0";
    for (e = 0; egress && egress_env[e]; e++) env[k++] = egress_env[e];
    if (!egress) env[k++] = net == FO_NET_ALL ? "FOLIO_NET=all" : "FOLIO_NET=none";
    env[k] = NULL;
    if (strchr(argv[0], '/')) {
        execve(argv[0], argv, envp);
        err = errno;
    } else {
        for (k = 0; k < sizeof dirs / sizeof *dirs; k++) {
            snprintf(path, sizeof path, "%s/%s", dirs[k], argv[0]);
            execve(path, argv, envp);
            if (errno != ENOENT && errno != ENOTDIR) err = errno;
        }
    }
    fprintf(stderr, "folio: run: can't execute %s: %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* Runs in a vfork child of init, which already dropped every privilege
   and installed the filter: only descriptors and signals are left to set.
   init is suspended until execve, so no copy of the address space is made. */
__attribute__((noreturn))
static void exec_program(const fo_sandbox_plan *p, char *const *argv, int in_r, int out_w, int err_w)
{
    sigset_t all;
    int sig, nul = in_r;

    if (nul < 0) nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (nul < 0) die("open /dev/null");
    if (dup2(nul, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        die("set up the program's stdin/stdout/stderr");
    fo_close_all_except(-1, -1);
    for (sig = 1; sig < NSIG; sig++) (void)signal(sig, SIG_DFL);
    sigfillset(&all);
    if (sigprocmask(SIG_UNBLOCK, &all, NULL) < 0) die("unblock signals");
    exec_path(argv, p->engine != NULL, p->net);
}

/* folio-engine for the render jail, opened by path in the jail's mount
   namespace (a bind source must be): a regular file, or the jail is not built. */
static int open_engine(const char *path)
{
    struct stat st;
    int fd = open(path, O_PATH | O_CLOEXEC);

    if (fd < 0 && errno == EACCES)
        die("open %s (the render jail runs as an unprivileged user: folio-engine and the "
            "folders above it must be readable by others, as under /usr/local)", path);
    if (fd < 0) die("open %s", path);
    if (fstat(fd, &st) < 0) die("inspect %s", path);
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        die("use %s as folio-engine", path);
    }
    return fd;
}

struct child_ctx {
    const fo_sandbox_plan *p;
    int ctl, out_w, err_w, parent_root;
    int mpl_fd;              /* the prebuilt matplotlib caches, opened by folio, or -1 */
    char *const *argv;       /* the program's command, copied before init hid its own */
};

/* Sessions (plan->disk_mb): /work, /out and /tmp are folders of one tmpfs
   of that size, bound in place, so together they are capped; the tmpfs
   itself is mounted on a scratch folder that is detached and removed. */
static void mount_shared_disk(uint64_t mb)
{
    static const char *const dirs[][2] = {
        { ".disk/tmp", "tmp" }, { ".disk/work", "work" }, { ".disk/out", "out" }
    };
    char opts[96];
    size_t k;

    snprintf(opts, sizeof opts, "mode=0755,size=%llum,nr_inodes=65536", (unsigned long long)mb);
    make_dir(".disk", 0700);
    mount_tmpfs(".disk", opts, 0);
    for (k = 0; k < 3; k++) {
        make_dir(dirs[k][0], 0755);
        make_dir(dirs[k][1], 0755);
        if (mount(dirs[k][0], dirs[k][1], NULL, MS_BIND, NULL) < 0) die("bind %s", dirs[k][1]);
    }
    if (chmod("tmp", 01777) < 0) die("set the mode of /tmp");
    if (umount2(".disk", MNT_DETACH) < 0 || rmdir(".disk") < 0) die("detach the session disk");
}

/* Sends /out, /work and /tmp (in that order) to the parent. */
static void send_dirs(int ctl)
{
    static const char *const names[] = { "out", "work", "tmp" };
    int fds[3];
    size_t k;

    for (k = 0; k < 3; k++) {
        fds[k] = open(names[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fds[k] < 0) die("open /%s", names[k]);
    }
    if (fo_fdpass_send(ctl, "O", 1, fds, 3) < 0) die("hand /out to folio");
    for (k = 0; k < 3; k++) close(fds[k]);
}

/* A session's program: new pipes (stdin for cells, stdout, stderr), vfork,
   and the parent's ends sent to folio as 'P'. Returns its pid. */
static pid_t start_session_program(const struct child_ctx *c)
{
    int in[2], out[2], err[2], up[3];
    pid_t prog;

    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
        die("create the program's pipes");
    prog = vfork();
    if (prog < 0) die("start the program");
    if (prog == 0) exec_program(c->p, c->argv, in[0], out[1], err[1]);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    up[0] = in[1];
    up[1] = out[0];
    up[2] = err[0];
    if (fo_fdpass_send(c->ctl, "P", 1, up, 3) < 0) _exit(SETUP_FAILED);
    close(in[1]);
    close(out[0]);
    close(err[0]);
    return prog;
}

/* A session's init: starts the program, reports each exit of it ('S' and
   the wait status), and on folio's request interrupts it ('I': SIGINT) or
   restarts it ('R': every process of the jail but init killed, then a new
   program). Exits when folio hangs up; the kernel then kills the rest. */
__attribute__((noreturn))
static void init_session(const struct child_ctx *c)
{
    sigset_t chld;
    int sfd, st;
    pid_t prog, r;

    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0 || (sfd = signalfd(-1, &chld, SFD_CLOEXEC)) < 0)
        die("watch the program");
    close(c->out_w);
    close(c->err_w);
    fo_close_all_except(c->ctl, sfd);
    prog = start_session_program(c);
    for (;;) {
        struct pollfd pf[2] = { { c->ctl, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        struct signalfd_siginfo si;
        char cmd, msg[1 + sizeof st];

        if (poll(pf, 2, -1) < 0) continue;
        if (pf[1].revents && read(sfd, &si, sizeof si) < 0 && errno != EAGAIN) _exit(SETUP_FAILED);
        while ((r = waitpid(-1, &st, WNOHANG)) > 0)
            if (r == prog) {
                msg[0] = 'S';
                memcpy(msg + 1, &st, sizeof st);
                (void)send(c->ctl, msg, sizeof msg, 0);
                prog = -1;
            }
        if (!pf[0].revents) continue;
        if (recv(c->ctl, &cmd, 1, 0) <= 0) _exit(0);
        if (cmd == 'I' && prog > 0) (void)kill(prog, SIGINT);
        if (cmd == 'R') {
            (void)kill(-1, SIGKILL);
            while (waitpid(-1, &st, 0) > 0 || errno == EINTR)
                ;
            prog = start_session_program(c);
        }
    }
}

__attribute__((noreturn))
static void jail_child(struct child_ctx *c)
{
    const fo_sandbox_plan *p = c->p;
    char go[2], opts[96], **argv;
    pid_t prog;
    int st, engine_fd;

    /* 0. our own mount, IPC, UTS and (unless --net all) network namespaces */
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
                (p->net == FO_NET_ALL ? 0 : CLONE_NEWNET)) < 0)
        die("create the mount/IPC/UTS/network namespaces");
    /* 1. wait until the parent has written our uid/gid maps and cgroup */
    if (read(c->ctl, go, 2) != 2 || go[0] != 'g') _exit(SETUP_FAILED);
    /* 2. cgroup namespace rooted at our own cgroup */
    if (unshare(CLONE_NEWCGROUP) < 0) die("create a cgroup namespace");
    /* 3. identity: uid/gid 1000, no supplementary groups. With the namespace's
          uid 0 unmapped the kernel leaves our namespace capabilities alone. */
    if (c->parent_root && setgroups(0, NULL) < 0) die("drop supplementary groups");
    if (setresgid(FO_SANDBOX_UID, FO_SANDBOX_UID, FO_SANDBOX_UID) < 0) die("set gid %u", FO_SANDBOX_UID);
    if (setresuid(FO_SANDBOX_UID, FO_SANDBOX_UID, FO_SANDBOX_UID) < 0) die("set uid %u", FO_SANDBOX_UID);
    /* 3b. die with folio. After the uid change, which clears this setting; if
          folio is already gone, its end of ctl has hung up. (PID 1 dying
          takes the whole namespace with it.) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) die("set the parent-death signal");
    {
        struct pollfd pf = { c->ctl, POLLIN, 0 };
        if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLERR))) _exit(SETUP_FAILED);
    }
    /* 4. nothing we mount travels back to the host */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) die("make the mount tree private");
    /* 5. the render jail binds folio-engine: open it now, in this mount
          namespace (a bind source must be), before /tmp is covered */
    engine_fd = p->engine ? open_engine(p->engine) : -1;
    /* 6. the new root: a small tmpfs over /tmp (only in our mount namespace) */
    mount_tmpfs("/tmp", "mode=0755,size=1m,nr_inodes=4096", 0);
    if (chdir("/tmp") < 0) die("enter the new root");
    /* 7. system folders, read-only; merged-/usr links copied as links */
    make_dir("usr", 0755);
    bind_ro("/usr", "usr");
    mirror("/bin", "bin");
    mirror("/sbin", "sbin");
    mirror("/lib", "lib");
    mirror("/lib32", "lib32");
    mirror("/lib64", "lib64");
    mirror("/libx32", "libx32");
    /* 8. synthesized /etc, fresh /proc (our PID namespace only), minimal /dev */
    build_etc(p);
    make_dir("proc", 0555);
    proc_setup(p);
    build_dev(p);
    /* 9. writable, size-capped: /tmp /work /out (memory is charged to the cgroup too) */
    if (p->disk_mb) {
        mount_shared_disk(p->disk_mb);
    } else {
        snprintf(opts, sizeof opts, "mode=1777,size=%llum,nr_inodes=16384",
                 (unsigned long long)p->memory_mb);
        make_dir("tmp", 0755);
        mount_tmpfs("tmp", opts, 0);
        snprintf(opts, sizeof opts, "mode=0755,size=%llum,nr_inodes=16384",
                 (unsigned long long)p->memory_mb);
        make_dir("work", 0755);
        mount_tmpfs("work", opts, 0);
        make_dir("out", 0755);
        mount_tmpfs("out", opts, 0);
    }
    make_dir("run", 0755);
    if (!p->engine) write_shims();
    copy_inputs(p);
    if (c->mpl_fd >= 0)
        seed_matplotlib(c->mpl_fd);     /* read through folio's descriptor, then closed */
    if (engine_fd >= 0) {
        char src[64];
        snprintf(src, sizeof src, "/proc/self/fd/%d", engine_fd);
        write_new("run/folio", "", 0755);
        bind_ro(src, "run/folio");
        close(engine_fd);
    }
    send_dirs(c->ctl);
    /* 10. hostname and network */
    if (sethostname("folio", 5) < 0) die("set the hostname");
    net_setup(p, c->ctl);
    /* 11. switch root; the old one is detached, then the new root made read-only */
    if (syscall(SYS_pivot_root, ".", ".") < 0) die("pivot_root");
    if (umount2(".", MNT_DETACH) < 0) die("detach the old root");
    if (chdir("/") < 0) die("enter /");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        die("make / read-only");
    if (chdir("/work") < 0) die("enter /work");
    /* 11b. the program's own clocks; init keeps nothing of folio a program
           could read */
    time_setup();
    argv = init_disguise(p->argv);
    c->argv = argv;
    /* 12. drop every capability, then the rlimits, then seccomp last: from
           here on init and the program it starts hold no privilege, and both
           run under the filter */
    drop_caps();
    fo_sandbox_rlimits_apply(p, go[1] & GO_NEED_AS, go[1] & GO_NEED_NPROC);
    if (fo_sandbox_seccomp_install() < 0) die("install the seccomp filter");
    /* 13. the program: descriptors, signals, execve (a session's init stays
           and restarts it on request) */
    if (p->session) init_session(c);
    prog = vfork();
    if (prog < 0) die("start the program");
    if (prog == 0) exec_program(p, argv, -1, c->out_w, c->err_w);
    /* 14. init: reap until the program ends */
    close(c->out_w);
    close(c->err_w);
    fo_close_all_except(c->ctl, -1);
    for (;;) {
        pid_t r = waitpid(-1, &st, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) _exit(SETUP_FAILED);
        if (r == prog) {
            char msg[1 + sizeof st];
            msg[0] = 'S';
            memcpy(msg + 1, &st, sizeof st);
            if (send(c->ctl, msg, sizeof msg, 0) < 0) _exit(SETUP_FAILED);
            _exit(0);        /* PID 1 exits: the kernel kills the rest */
        }
    }
}

/* --------------------------------------------------------- parent side */

static int write_proc(pid_t pid, const char *file, const char *text)
{
    char path[64];
    size_t len = strlen(text);
    int fd, ok;

    snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, file);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ok = write(fd, text, len) == (ssize_t)len;
    if (close(fd) < 0) ok = 0;
    return ok ? 0 : -1;
}

/* The host uid/gid of a jail when folio is root: FO_SANDBOX_HOST_ID_BASE plus
   24 random bits, distinct per run but for a 1 in 16M chance. It shows in
   the jail (uid_map, the uid= of every tmpfs in /proc/self/mountinfo), so it
   is not folio's PID, which it used to be. */
static unsigned host_id(void)
{
    unsigned r = 0;

    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = (unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u;
    }
    return FO_SANDBOX_HOST_ID_BASE + (r & 0xffffffu);
}

/* What to do when the kernel refuses new user/PID namespaces: the usual
   causes on a host or in a container, for whoever deploys folio. */
static const char *clone_hint(int err)
{
    switch (err) {
    case EPERM:
    case EACCES:
        return "unprivileged user namespaces are not allowed here. On the host: sysctl "
               "kernel.unprivileged_userns_clone=1 (Debian) or "
               "kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 23.10+); in a "
               "container, its seccomp profile must allow clone with CLONE_NEWUSER "
               "(Docker: --security-opt seccomp=unconfined)";
    case ENOSPC:
        return "the limit on user namespaces is reached or 0 (sysctl user.max_user_namespaces)";
    case EINVAL:
        return "this kernel lacks user or PID namespaces (CONFIG_USER_NS, CONFIG_PID_NS)";
    case EAGAIN:
    case ENOMEM:
        return "out of processes or memory (ulimit -u, the pids cgroup of the caller)";
    default:
        return "see docs/sandbox.md, \"Requirements\"";
    }
}

static int fail(const char *what)
{
    fprintf(stderr, "folio: run: can't %s: %s\n", what, strerror(errno));
    return FO_RUN_INTERNAL;
}

/* init's 'O' message: the jail's /out, /work and /tmp. */
static void recv_dirs(fo_sandbox_jail *j)
{
    int dirs[3];
    size_t n, k;
    char tag = 0;

    if (fo_fdpass_recv(j->ctl, &tag, 1, dirs, 3, &n) == 1 && tag == 'O' && n == 3) {
        j->out_dir = dirs[0];
        j->work_dir = dirs[1];
        j->tmp_dir = dirs[2];
        return;
    }
    for (k = 0; k < 3; k++)
        if (dirs[k] >= 0) close(dirs[k]);
}

/* init's 'N' message (--net packages / allow=): the egress listener. */
static int recv_egress(fo_sandbox_jail *j)
{
    size_t n;
    char tag = 0;
    int fd;

    if (fo_fdpass_recv(j->ctl, &tag, 1, &fd, 1, &n) == 1 && tag == 'N' && n == 1) {
        j->egress_listen = fd;
        return 0;
    }
    if (fd >= 0) close(fd);
    return -1;
}

int fo_sandbox_jail_ctl(fo_sandbox_jail *j, char cmd)
{
    return send(j->ctl, &cmd, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int fo_sandbox_jail_event(fo_sandbox_jail *j, int *wstatus)
{
    char msg[1 + sizeof(int)];
    int fds[3], *mine[3] = { &j->in_w, &j->out_r, &j->err_r };
    size_t k, n;
    ssize_t r = fo_fdpass_recv(j->ctl, msg, sizeof msg, fds, 3, &n);

    if (r <= 0) return r == 0 ? 0 : -1;
    if (msg[0] == 'S' && r == (ssize_t)sizeof msg && n == 0) {
        memcpy(wstatus, msg + 1, sizeof(int));
        return 'S';
    }
    if (msg[0] == 'P' && r == 1 && n == 3) {
        for (k = 0; k < 3; k++) {
            if (*mine[k] >= 0) close(*mine[k]);
            *mine[k] = fds[k];
        }
        return 'P';
    }
    for (k = 0; k < 3; k++)
        if (fds[k] >= 0) close(fds[k]);
    return -1;
}

int fo_sandbox_jail_start(const fo_sandbox_plan *p, fo_sandbox_jail *j, int serial)
{
    struct child_ctx c;
    int outp[2], errp[2], ctl[2], root = geteuid() == 0, st;
    /* user + PID namespaces at clone (the child must be PID 1 and hold
       capabilities); the others the child unshares itself, in parallel with
       our writing its maps: creating a network namespace is the costliest step */
    unsigned long flags = CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD;
    char map[64], go[2];
    unsigned host_uid, host_gid;
    pid_t pid;

    memset(j, 0, sizeof *j);
    j->pid = -1;
    j->ctl = j->out_r = j->err_r = j->out_dir = j->egress_listen = -1;
    j->in_w = j->work_dir = j->tmp_dir = -1;
    /* no_new_privs first: nothing started from here can gain privileges */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return fail("set no_new_privs");
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0)
        return fail("create pipes");
    memset(&c, 0, sizeof c);
    c.p = p;
    c.ctl = ctl[1];
    c.out_w = outp[1];
    c.err_w = errp[1];
    c.parent_root = root;
    /* opened here, with folio's own rights: the jail's identity may not be
       able to reach folio's folder (root's, say), and reading from an open
       descriptor needs only the files themselves to be readable */
    c.mpl_fd = p->mpl_cache ? open(p->mpl_cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

    fflush(stdout);
    fflush(stderr);
    pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
    if (pid < 0) {
        int err = errno;
        if (c.mpl_fd >= 0) close(c.mpl_fd);
        fail("create the namespaces (clone)");
        fprintf(stderr, "  hint: %s\n", clone_hint(err));
        return FO_RUN_INTERNAL;
    }
    if (pid == 0) jail_child(&c);

    close(outp[1]);
    close(errp[1]);
    close(ctl[1]);
    if (c.mpl_fd >= 0) close(c.mpl_fd);
    j->pid = pid;
    j->ctl = ctl[0];
    if (p->session) {               /* init makes the program's pipes */
        close(outp[0]);
        close(errp[0]);
    } else {
        j->out_r = outp[0];
        j->err_r = errp[0];
    }

    /* cgroup before the child runs any code of its own: created now, while
       the child creates its namespaces, and joined before "go" */
    fo_sandbox_cgroup_create(&j->cg, p, serial);
    if (j->cg.version && fo_sandbox_cgroup_attach(&j->cg, pid) < 0) {
        fail("move the jail into its cgroup");
        goto kill_child;
    }
    /* uid/gid maps: 1000 inside -> an unprivileged host identity. As root that
       is a dedicated random id (host_id), never root; otherwise our own. */
    host_uid = root ? host_id() : (unsigned)geteuid();
    host_gid = root ? host_uid : (unsigned)getegid();
    j->host_uid = host_uid;
    j->host_gid = host_gid;
    snprintf(map, sizeof map, "%u %u 1\n", FO_SANDBOX_UID, host_uid);
    if (write_proc(pid, "uid_map", map) < 0) {
        fail("set up uid map");
        goto kill_child;
    }
    if (write_proc(pid, "setgroups", root ? "allow" : "deny") < 0) {
        fail("set up setgroups policy");
        goto kill_child;
    }
    snprintf(map, sizeof map, "%u %u 1\n", FO_SANDBOX_UID, host_gid);
    if (write_proc(pid, "gid_map", map) < 0) {
        fail("set up gid map");
        goto kill_child;
    }
    go[0] = 'g';
    go[1] = (char)((j->cg.mem_ok ? 0 : GO_NEED_AS) | (j->cg.pids_ok ? 0 : GO_NEED_NPROC));
    if (write(j->ctl, go, 2) != 2) {
        fail("start the jail");
        goto kill_child;
    }
    recv_dirs(j);
    if (j->out_dir >= 0 && p->net == FO_NET_ALLOW && recv_egress(j) < 0) {
        close(j->out_dir);
        j->out_dir = -1;
    }
    /* a session's program is started by init, which sends its pipes */
    if (j->out_dir >= 0 && p->session && fo_sandbox_jail_event(j, &st) != 'P') {
        close(j->out_dir);
        j->out_dir = -1;
    }
    if (j->out_dir < 0) {
        /* the child printed why */
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        j->pid = -1;
        fo_sandbox_jail_close(j);
        return FO_RUN_INTERNAL;
    }
    return FO_RUN_OK;

kill_child:
    kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    j->pid = -1;
    fo_sandbox_jail_close(j);
    return FO_RUN_INTERNAL;
}

void fo_sandbox_jail_close(fo_sandbox_jail *j)
{
    int *fds[] = { &j->ctl, &j->out_r, &j->err_r, &j->out_dir, &j->egress_listen, &j->in_w,
                   &j->work_dir, &j->tmp_dir };
    size_t k;

    for (k = 0; k < sizeof fds / sizeof *fds; k++)
        if (*fds[k] >= 0) {
            close(*fds[k]);
            *fds[k] = -1;
        }
    fo_sandbox_cgroup_destroy(&j->cg);
}
