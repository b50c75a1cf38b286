/* launcher.c — the `folio` command as the user calls it. Small on purpose:
 * linked against libc alone, it serves `folio run` itself, so a sandbox
 * launch does not pay for loading the renderers' 41 shared libraries (about
 * 12 ms a start on the reference machine, more than the whole jail costs).
 * `folio session` (sessions: clients and the supervisor) and `folio env`
 * (which lists the jail's packages from inside a jail) run here too.
 * Every other command goes, argv unchanged, to folio-engine (cli/main.c),
 * `folio serve` to folio-serve (the same engine with serve/ and its HTTP
 * library linked in, which no render then loads): found beside this binary
 * (a build tree) or in ../libexec/folio/ (an installed tree), never through
 * $PATH or the environment.
 *
 * The render step of `folio run` uses the same engine: the sandbox binds it
 * read-only into the second jail. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folio.h"
#include "sandbox/env.h"
#include "sandbox/sandbox.h"
#include "sandbox/session.h"

/* Where an engine may live, relative to this binary's folder. */
static const char *const engine_places[] = { "", "../libexec/folio/" };

/* Fills path with the absolute path of the engine called name (folio-engine,
 * or folio-serve: the same engine with the service linked in); 0, or -1 if
 * there is none. */
static int find_engine(const char *name, char *path, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    struct stat st;
    char *slash;

    if (n <= 0) return -1;
    self[n] = 0;
    slash = strrchr(self, '/');
    if (!slash) return -1;
    *slash = 0;
    for (size_t k = 0; k < sizeof engine_places / sizeof *engine_places; k++) {
        int w = snprintf(path, len, "%s/%s%s", self, engine_places[k], name);
        if (w > 0 && (size_t)w < len && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            access(path, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* Asks glibc's malloc in the engine to back its heap with transparent huge
 * pages (the glibc.malloc.hugetlb tunable, read once when a process
 * starts), keeping any tunables the caller set. Why: a render writes some
 * 10-30 MiB of fresh heap, and on a paravirtualised machine each 4 KiB page
 * fault is dear: the mixed-script report's PDF took 3,340 faults and 211 ms
 * of CPU, with the tunable 1,715 and 176 ms. Only for the one-shot commands
 * render and convert: `folio serve` forks children from one heap, where a
 * write to a shared huge page would copy 2 MiB. */
static void heap_in_huge_pages(void)
{
    static const char tunable[] = "glibc.malloc.hugetlb=1";
    const char *old = getenv("GLIBC_TUNABLES");
    char both[1024];

    if (!old || !*old) {
        setenv("GLIBC_TUNABLES", tunable, 1);
    } else if (!strstr(old, "glibc.malloc.hugetlb=")) {
        int w = snprintf(both, sizeof both, "%s:%s", old, tunable);
        if (w > 0 && (size_t)w < sizeof both) setenv("GLIBC_TUNABLES", both, 1);
    }
}

int main(int argc, char **argv)
{
    char engine[PATH_MAX + 64];
    int serve = argc >= 2 && (!strcmp(argv[1], "serve") || !strcmp(argv[1], "mcp"));
    const char *name = serve ? "folio-serve" : "folio-engine";
    int have_engine = find_engine(name, engine, sizeof engine) == 0;

    if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
        printf("folio %s\n", FOLIO_VERSION);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "run"))
        return fo_sandbox_main(argc - 1, argv + 1, have_engine ? engine : NULL);
    if (argc >= 2 && !strcmp(argv[1], "env")) return fo_env_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "session"))
        return fo_session_main(argc - 1, argv + 1, NULL, have_engine ? engine : NULL);
    if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "session")) {
        char opt[] = "--help", *help[] = {argv[2], opt, NULL};   /* the session client prints its own */
        return fo_session_main(2, help, NULL, NULL);
    }
    if (!have_engine) {
        fprintf(stderr, "folio: can't find %s, which does %s\n"
                        "  (looked beside this binary and in ../libexec/folio/; reinstall folio)\n",
                name, serve ? "`folio serve` and `folio mcp`" : "everything but `folio run` and `folio serve`");
        return 5;
    }
    if (argc >= 2 && (!strcmp(argv[1], "render") || !strcmp(argv[1], "convert"))) heap_in_huge_pages();
    fflush(stdout);
    execv(engine, argv);
    fprintf(stderr, "folio: can't start %s: %s\n", engine, strerror(errno));
    return 5;
}
