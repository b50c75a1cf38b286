/* seccomp.c — the syscall policy of the jail (libseccomp). A deny list: the
 * calls an analysis program never needs and that widen the kernel's attack
 * surface or reach outside the jail. Denied calls fail with EPERM (ENOSYS for
 * clone3, so libc falls back to clone, whose flags we can inspect); syscalls of
 * any other architecture, and the x32 ABI, kill the process. docs/sandbox.md
 * explains each entry. Loaded last, just before execve. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

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

void *fo_sandbox_seccomp_build(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    size_t k;
    int rc = 0;

    if (!ctx) {
        errno = ENOMEM;
        return NULL;
    }
    /* Only the native architecture: a syscall made through another ABI
       (int 0x80 i386, x32) does not match and kills the process. libseccomp
       adds the x32 check to an x86_64-only filter. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    for (k = 0; !rc && k < sizeof denied / sizeof *denied; k++) {
        int nr = seccomp_syscall_resolve_name(denied[k]);

        if (nr == __NR_SCMP_ERROR || nr < 0)
            continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    for (k = 0; !rc && k < sizeof ns_flags / sizeof *ns_flags; k++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[k], ns_flags[k]));
    /* clone3 passes its flags in memory, out of a filter's reach. */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* TIOCSTI pushes input into a terminal; TIOCLINUX can too on a console. */
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
    if (rc) {
        seccomp_release(ctx);
        errno = -rc;
        return NULL;
    }
    return ctx;
}

int fo_sandbox_seccomp_load(void *ctx)
{
    int rc = seccomp_load((scmp_filter_ctx)ctx);

    if (rc) {
        errno = -rc;
        return -1;
    }
    return 0;
}

void fo_sandbox_seccomp_free(void *ctx)
{
    if (ctx)
        seccomp_release((scmp_filter_ctx)ctx);
}
