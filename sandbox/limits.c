/* limits.c — resource limits of a jail: a memory + pids + cpu cgroup (v2, or
 * v1 where only v1 controllers are mounted) created per jail, and the rlimits
 * and nice value set just before exec. The cgroup is best effort: where none
 * is usable (folio not root, controllers not delegated) memory falls back to
 * RLIMIT_AS and processes to RLIMIT_NPROC, and the manifest says so
 * ("memory_via"); CPU then has only the nice value.
 *
 * Socket buffers are kernel memory from a host-wide pool: v2 charges them to
 * memory.max by itself; v1 charges them only once memory.kmem.tcp.limit_in_bytes
 * is written (a separate counter, capped here at --memory too, so a jail holds
 * at most twice --memory in all). */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CG_ROOT "/sys/fs/cgroup"
#define CPU_PERIOD_US 100000      /* cfs period; the quota is --cpus times it */

/* Writes a short string to a file; 0 or -1. */
static int write_file(const char *dir, const char *name, const char *val)
{
    char path[640];
    ssize_t len = (ssize_t)strlen(val), w;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    w = write(fd, val, (size_t)len);
    close(fd);
    return w == len ? 0 : -1;
}

/* Reads "key N" from a flat-keyed cgroup file; -1 when absent. */
static long read_key(const char *dir, const char *name, const char *key)
{
    char path[640], line[256];
    size_t klen = strlen(key);
    long v = -1;
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "re");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ' ') v = strtol(line + klen + 1, NULL, 10);
    fclose(f);
    return v;
}

static int exists(const char *dir, const char *name)
{
    char path[640];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Our own cgroup for a controller ("" = the v2 unified line) from /proc/self/cgroup. */
static int own_cgroup(const char *controller, char *out, size_t outlen)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen("/proc/self/cgroup", "re");

    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *tok, *save;

        if (!c2) continue;
        *c2 = 0;
        line[strcspn(line, "\n")] = 0;
        c2[1 + strcspn(c2 + 1, "\n")] = 0;
        if (*controller == 0) {
            found = c1[1] == 0;
        } else {
            for (tok = strtok_r(c1 + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                if (!strcmp(tok, controller)) found = 1;
        }
        if (found) snprintf(out, outlen, "%s", c2 + 1);
    }
    fclose(f);
    return found;
}

/* Removes folio-run-PID-* cgroups left by a folio that was killed (its PID
   gone); rmdir fails harmlessly on one still in use. */
static void sweep_stale(const char *parent)
{
    struct dirent *de;
    DIR *d = opendir(parent);
    char path[1024];

    if (!d) return;
    while ((de = readdir(d))) {
        long pid;
        if (strncmp(de->d_name, "folio-run-", 10)) continue;
        pid = strtol(de->d_name + 10, NULL, 10);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        snprintf(path, sizeof path, "%s/%s", parent, de->d_name);
        (void)rmdir(path);
    }
    closedir(d);
}

/* mkdir base/own/folio-run-PID-SERIAL; fills dir. */
static int make_child(const char *base, const char *own, int serial, char *dir, size_t len)
{
    int n = snprintf(dir, len, "%s%s%sfolio-run-%ld-%d", base, own,
                     own[strlen(own) - 1] == '/' ? "" : "/", (long)getpid(), serial);

    if (n < 0 || (size_t)n >= len) {
        dir[0] = 0;                 /* never leave a cut path for destroy to rmdir */
        return -1;
    }
    if (serial == 0) {
        char parent[640];
        snprintf(parent, sizeof parent, "%s%s", base, own);
        sweep_stale(parent);
    }
    if (mkdir(dir, 0755) < 0) {
        dir[0] = 0;
        return -1;
    }
    return 0;
}

/* --cpus as a cfs quota per CPU_PERIOD_US; at least the kernel's 1 ms. A plan
   built by hand that never set cpus gets --cpus's default of 1, not the floor:
   1 % of a CPU made every serve render 100 times slower. */
static long long cpu_quota_us(const fo_sandbox_plan *p)
{
    double cpus = p->cpus > 0 ? p->cpus : 1;
    long long q = (long long)(cpus * CPU_PERIOD_US + 0.5);

    return q < 1000 ? 1000 : q;
}

static void setup_v1(fo_sandbox_cgroup *cg, const fo_sandbox_plan *p, int serial)
{
    char own[512], val[32];

    snprintf(val, sizeof val, "%llu", (unsigned long long)p->memory_mb << 20);
    if (own_cgroup("memory", own, sizeof own) &&
        make_child(CG_ROOT "/memory", own, serial, cg->mem, sizeof cg->mem) == 0) {
        cg->mem_ok = write_file(cg->mem, "memory.limit_in_bytes", val) == 0;
        /* no swap either: memsw must be >= the memory limit, so after it */
        if (exists(cg->mem, "memory.memsw.limit_in_bytes"))
            (void)write_file(cg->mem, "memory.memsw.limit_in_bytes", val);
        /* socket buffers: charged (and capped) only once this is set */
        cg->tcp_ok = cg->mem_ok && write_file(cg->mem, "memory.kmem.tcp.limit_in_bytes", val) == 0;
    }
    snprintf(val, sizeof val, "%u", p->pids);
    if (own_cgroup("pids", own, sizeof own) &&
        make_child(CG_ROOT "/pids", own, serial, cg->pids, sizeof cg->pids) == 0)
        cg->pids_ok = write_file(cg->pids, "pids.max", val) == 0;
    if (own_cgroup("cpu", own, sizeof own) &&
        make_child(CG_ROOT "/cpu", own, serial, cg->cpu, sizeof cg->cpu) == 0) {
        snprintf(val, sizeof val, "%d", CPU_PERIOD_US);
        cg->cpu_ok = write_file(cg->cpu, "cpu.cfs_period_us", val) == 0;
        snprintf(val, sizeof val, "%lld", cpu_quota_us(p));
        cg->cpu_ok = cg->cpu_ok && write_file(cg->cpu, "cpu.cfs_quota_us", val) == 0;
    }
    if (cg->mem[0] || cg->pids[0] || cg->cpu[0]) cg->version = 1;
}

static void setup_v2(fo_sandbox_cgroup *cg, const fo_sandbox_plan *p, int serial,
                     const char *base)
{
    char own[512], val[32], parent[640];

    if (!own_cgroup("", own, sizeof own)) return;
    snprintf(parent, sizeof parent, "%s%s", base, own);
    /* Needs the controllers delegated to our cgroup; fails harmlessly if not.
       cpu apart: a write naming one controller that is not there fails whole. */
    (void)write_file(parent, "cgroup.subtree_control", "+memory +pids");
    (void)write_file(parent, "cgroup.subtree_control", "+cpu");
    if (make_child(base, own, serial, cg->mem, sizeof cg->mem) < 0) return;
    cg->version = 2;
    snprintf(cg->pids, sizeof cg->pids, "%s", cg->mem);
    snprintf(cg->cpu, sizeof cg->cpu, "%s", cg->mem);
    snprintf(val, sizeof val, "%llu", (unsigned long long)p->memory_mb << 20);
    cg->mem_ok = write_file(cg->mem, "memory.max", val) == 0;
    if (cg->mem_ok) (void)write_file(cg->mem, "memory.swap.max", "0");
    cg->tcp_ok = cg->mem_ok;          /* v2 charges socket memory to memory.max */
    snprintf(val, sizeof val, "%u", p->pids);
    cg->pids_ok = write_file(cg->pids, "pids.max", val) == 0;
    snprintf(val, sizeof val, "%lld %d", cpu_quota_us(p), CPU_PERIOD_US);
    cg->cpu_ok = write_file(cg->cpu, "cpu.max", val) == 0;
}

void fo_sandbox_cgroup_create(fo_sandbox_cgroup *cg, const fo_sandbox_plan *p, int serial)
{
    memset(cg, 0, sizeof *cg);
    if (access(CG_ROOT "/cgroup.controllers", F_OK) == 0) {
        setup_v2(cg, p, serial, CG_ROOT);           /* pure v2 */
    } else {
        setup_v1(cg, p, serial);                    /* v1 (maybe beside an empty unified) */
        if (!cg->mem_ok && !cg->pids_ok && !cg->cpu_ok) {
            fo_sandbox_cgroup_destroy(cg);
            if (access(CG_ROOT "/unified/cgroup.controllers", F_OK) == 0)
                setup_v2(cg, p, serial, CG_ROOT "/unified");
        }
    }
    if (cg->version && !cg->mem_ok && !cg->pids_ok && !cg->cpu_ok) fo_sandbox_cgroup_destroy(cg);
}

int fo_sandbox_cgroup_weight(const fo_sandbox_cgroup *cg, unsigned weight)
{
    char val[32];
    int rc;

    if (!cg->cpu[0]) return -1;
    /* Below the default the group is also an idle one where the kernel has
       cpu.idle (5.15+, v1 and v2): a task of another group that wakes takes
       the CPU from it at once instead of after its share of a slice. An idle
       group refuses a new weight, so the weight is set while it is not. */
    if (weight >= 100) (void)write_file(cg->cpu, "cpu.idle", "0");
    if (cg->version == 2) {
        snprintf(val, sizeof val, "%u", weight);
        rc = write_file(cg->cpu, "cpu.weight", val);
    } else {
        snprintf(val, sizeof val, "%u", weight * 1024 / 100);   /* v1: 1024 is the default */
        rc = write_file(cg->cpu, "cpu.shares", val);
    }
    if (rc == 0 && weight < 100) (void)write_file(cg->cpu, "cpu.idle", "1");
    return rc;
}

int fo_sandbox_cgroup_attach(const fo_sandbox_cgroup *cg, pid_t pid)
{
    char val[32];

    snprintf(val, sizeof val, "%ld", (long)pid);
    if (cg->mem[0] && write_file(cg->mem, "cgroup.procs", val) < 0) return -1;
    if (cg->pids[0] && strcmp(cg->pids, cg->mem) && write_file(cg->pids, "cgroup.procs", val) < 0) return -1;
    if (cg->cpu[0] && strcmp(cg->cpu, cg->mem) && write_file(cg->cpu, "cgroup.procs", val) < 0) return -1;
    return 0;
}

void fo_sandbox_cgroup_events(const fo_sandbox_cgroup *cg, long *oom_kills, long *pids_max)
{
    *oom_kills = *pids_max = 0;
    if (cg->mem_ok) {
        long v = read_key(cg->mem, cg->version == 2 ? "memory.events" : "memory.oom_control",
                          "oom_kill");
        *oom_kills = v > 0 ? v : 0;
    }
    if (cg->pids_ok) {
        long v = read_key(cg->pids, "pids.events", "max");
        *pids_max = v > 0 ? v : 0;
    }
}

/* A cgroup file holding one number ("max" in v2: none); 0, or -1. */
static int read_u64(const char *dir, const char *name, uint64_t *v)
{
    char path[640], text[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    *v = !strncmp(text, "max", 3) ? UINT64_MAX : strtoull(text, NULL, 10);
    return 0;
}

int fo_sandbox_cgroup_memory_room(const fo_sandbox_cgroup *cg, uint64_t *room)
{
    uint64_t max, used;
    int v2 = cg->version == 2;

    if (!cg->mem_ok || read_u64(cg->mem, v2 ? "memory.max" : "memory.limit_in_bytes", &max) < 0 ||
        read_u64(cg->mem, v2 ? "memory.current" : "memory.usage_in_bytes", &used) < 0)
        return -1;
    *room = used < max ? max - used : 0;
    return 0;
}

const char *fo_sandbox_cgroup_memory_via(const fo_sandbox_cgroup *cg)
{
    if (!cg->mem_ok) return "rlimit-as";
    return cg->version == 2 ? "cgroup-v2" : "cgroup-v1";
}

/* rmdir, retrying while the last tasks are being released. */
static void remove_dir(char *dir)
{
    struct timespec ms = { 0, 1000000 };
    int tries;

    if (!dir[0]) return;
    for (tries = 0; tries < 200; tries++) {
        if (rmdir(dir) == 0 || errno == ENOENT) break;
        if (errno != EBUSY) {
            fprintf(stderr, "folio: run: can't remove cgroup %s: %s\n", dir, strerror(errno));
            break;
        }
        nanosleep(&ms, NULL);
    }
    dir[0] = 0;
}

void fo_sandbox_cgroup_destroy(fo_sandbox_cgroup *cg)
{
    if (strcmp(cg->pids, cg->mem)) remove_dir(cg->pids);
    if (strcmp(cg->cpu, cg->mem)) remove_dir(cg->cpu);
    remove_dir(cg->mem);
    cg->pids[0] = cg->cpu[0] = 0;
    cg->mem_ok = cg->pids_ok = cg->cpu_ok = cg->tcp_ok = 0;
    cg->version = 0;
}

static void set_limit(int resource, rlim_t v, const char *what)
{
    struct rlimit rl = { v, v };

    if (setrlimit(resource, &rl) < 0) {
        fprintf(stderr, "folio: run: can't set the %s limit: %s\n", what, strerror(errno));
        _exit(125);
    }
}

/* The jail yields to the host: nice at least FO_SANDBOX_NICE (never raised
   back: that would need a privilege the jail lacks). */
static void lower_priority(void)
{
    int now;

    errno = 0;
    now = getpriority(PRIO_PROCESS, 0);
    if (errno == 0 && now >= FO_SANDBOX_NICE) return;
    if (setpriority(PRIO_PROCESS, 0, FO_SANDBOX_NICE) < 0) {
        fprintf(stderr, "folio: run: can't lower the jail's priority: %s\n", strerror(errno));
        _exit(125);
    }
}

void fo_sandbox_rlimits_apply(const fo_sandbox_plan *p, int need_as, int need_nproc)
{
    set_limit(RLIMIT_CORE, 0, "core dump");
    /* One byte over the ceiling: a file cut short by the limit is then over the
       ceiling and refused by collect.c, never delivered truncated. */
    set_limit(RLIMIT_FSIZE, (rlim_t)p->max_bytes + 1, "file size");
    set_limit(RLIMIT_NOFILE, p->nofile, "open files");
    /* With a pids cgroup, RLIMIT_NPROC stays out of its way (so the cgroup's
       counter shows the hit) but still bounds a runaway at twice the limit. */
    set_limit(RLIMIT_NPROC, need_nproc ? p->pids : 2 * (rlim_t)p->pids, "process count");
    if (need_as) set_limit(RLIMIT_AS, (rlim_t)p->memory_mb << 20, "address space");
    lower_priority();
}
