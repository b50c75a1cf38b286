/* seccomp.c — installs the jail's syscall filter. The policy itself is in
 * policy/seccomp_policy.c; it is compiled to BPF at build time by
 * tools/seccomp-gen.c into seccomp_bpf.h (the build folder), so a launch pays
 * neither libseccomp's loading nor its compiler. Installed in the jail last,
 * just before execve, with no_new_privs already set. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#include "seccomp_bpf.h"     /* fo_seccomp_bpf[], from the policy at build time */

/* The filter checks the architecture it was generated for; built here, run here. */
_Static_assert(sizeof fo_seccomp_bpf % sizeof(struct sock_filter) == 0,
               "seccomp_bpf.h holds whole BPF instructions");

int fo_sandbox_seccomp_install(void)
{
    struct sock_fprog prog = {
        (unsigned short)(sizeof fo_seccomp_bpf / sizeof(struct sock_filter)),
        (struct sock_filter *)(void *)fo_seccomp_bpf,
    };

    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
