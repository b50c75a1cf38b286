/* seccomp_policy.c — the syscall policy of the jail, written with libseccomp.
 * A deny list: the calls an analysis program never needs and that widen the
 * kernel's attack surface or reach outside the jail. Denied calls fail with
 * EPERM (ENOSYS for clone3, so libc falls back to clone, whose flags we can
 * inspect); socket families are an allow-list (deny_families: any other
 * family fails with EAFNOSUPPORT); syscalls of any other architecture, and the x32 ABI, kill the
 * process. docs/sandbox.md explains each entry.
 *
 * Compiled to BPF at build time (tools/seccomp-gen.c writes
 * build/seccomp_bpf.h), not at each launch: libseccomp took about 1 ms of CPU
 * per jail, and `folio` itself needs no libseccomp at run time. sandbox/
 * seccomp.c installs the result. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

/* Names, not numbers: resolved for the native architecture; a name the
   architecture lacks (e.g. stime on x86_64) is skipped. */
static const char *const denied[] = {
    /* other processes' memory and state */
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    /* the mount table: a jail is only a jail while it cannot be rearranged */
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    /* entering or creating namespaces */
    "unshare", "setns",
    /* the kernel itself */
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "userfaultfd", "iopl", "ioperm", "syslog",
    "lookup_dcookie", "quotactl", "quotactl_fd", "nfsservctl", "uselib",
    /* the kernel keyring */
    "add_key", "request_key", "keyctl",
    /* file handles bypass path-based confinement (the "shocker" escape) */
    "open_by_handle_at", "name_to_handle_at",
    /* host-wide state */
    "clock_settime", "clock_adjtime", "settimeofday", "adjtimex", "stime",
    "reboot", "swapon", "swapoff", "acct", "vhangup",
    /* io_uring runs operations outside this filter's view */
    "io_uring_setup", "io_uring_enter", "io_uring_register",
};

/* clone() flags that would create namespaces (unshare by another name). */
static const unsigned long ns_flags[] = {
    CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
    CLONE_NEWUTS, CLONE_NEWCGROUP,
};

/* Socket families: an allow-list. AF_UNIX, AF_INET, AF_INET6 are what an
   analysis uses (pipes between processes, a local database on loopback, and
   --net all); AF_NETLINK only as NETLINK_ROUTE, read-only without
   capabilities and showing only the jail's own lo: glibc's getifaddrs
   (psutil.net_if_addrs, `ip addr`), if_nameindex and getaddrinfo's
   AI_ADDRCONFIG ask it. Every other family — AF_VSOCK (the host's vsock
   port space, outside any network namespace), AF_PACKET, AF_BLUETOOTH,
   AF_ALG, AF_KEY, AF_XDP, AF_TIPC, AF_RDS, AF_CAN... and families a newer
   kernel adds — fails with EAFNOSUPPORT, as on a kernel built without them. */
static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
#define FAMILY_LIMIT 64        /* above AF_MAX (46 in 6.x): the denied range starts here */

static int family_allowed(int fam)
{
    size_t k;

    for (k = 0; k < sizeof allowed_families / sizeof *allowed_families; k++)
        if (allowed_families[k] == fam) return 1;
    return 0;
}

/* socket(2) and socketpair(2): every family below FAMILY_LIMIT not allowed,
   one rule each; the 64-bit comparisons also catch a family with high bits
   set (the kernel reads an int): any such value is >= FAMILY_LIMIT. (The
   third value of each comparison, datum_b, is unused but for MASKED_EQ.) */
static int deny_families(scmp_filter_ctx ctx)
{
    int fam, rc = 0;

    for (fam = 0; !rc && fam < FAMILY_LIMIT; fam++)
        if (!family_allowed(fam))
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam, 0));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_GE, FAMILY_LIMIT, 0));
    /* netlink: NETLINK_ROUTE (0) only; audit, uevents, sock_diag... refused */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), SCMP_SYS(socket), 2,
                              SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0),
                              SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE, 0));
    /* socketpair: AF_UNIX only (a pair of anything else is no analysis need) */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1,
                              SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
    return rc;
}

/* Builds the policy with libseccomp and exports it as BPF. */
int fo_sandbox_seccomp_compile(fo_sandbox_filter *f)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    char *bpf = NULL;
    size_t k, len = 0;
    int rc = 0, pfd[2];

    memset(f, 0, sizeof *f);
    if (!ctx) {
        errno = ENOMEM;
        return -1;
    }
    /* Only the native architecture: a syscall made through another ABI
       (int 0x80 i386, x32) does not match and kills the process. libseccomp
       adds the x32 check to an x86_64-only filter. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    for (k = 0; !rc && k < sizeof denied / sizeof *denied; k++) {
        int nr = seccomp_syscall_resolve_name(denied[k]);

        if (nr == __NR_SCMP_ERROR || nr < 0) continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    for (k = 0; !rc && k < sizeof ns_flags / sizeof *ns_flags; k++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[k], ns_flags[k]));
    if (!rc) rc = deny_families(ctx);
    /* clone3 passes its flags in memory, out of a filter's reach. */
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* TIOCSTI pushes input into a terminal; TIOCLINUX can too on a console. */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
    /* The BPF (a few hundred instructions) fits a pipe's buffer. */
    if (!rc && pipe2(pfd, O_CLOEXEC) < 0) rc = -errno;
    if (!rc) {
        rc = seccomp_export_bpf(ctx, pfd[1]);
        close(pfd[1]);
        bpf = malloc(65536);      /* plain: only in tools/seccomp-gen, without base/alloc.c */
        if (!rc && !bpf) rc = -ENOMEM;
        while (!rc) {
            ssize_t n = read(pfd[0], bpf + len, 65536 - len);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) rc = -errno;
            if (n <= 0 || (len += (size_t)n) == 65536) break;
        }
        close(pfd[0]);
    }
    seccomp_release(ctx);
    if (!rc && (len == 0 || len % 8 || len / 8 > 4096)) rc = -EINVAL;
    if (rc) {
        free(bpf);
        errno = -rc;
        return -1;
    }
    f->insns = bpf;
    f->len = len / 8;                 /* struct sock_filter is 8 bytes */
    return 0;
}

void fo_sandbox_seccomp_free(fo_sandbox_filter *f)
{
    if (!f) return;
    free(f->insns);
    f->insns = NULL;
    f->len = 0;
}
