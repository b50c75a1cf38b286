/* t_hugetext.c — serve/hugetext.c: this program is linked as folio-serve
 * is (2 MiB segment alignment); fo_serve_huge_text moves its read-only
 * segments onto anonymous memory of the same protection, on huge pages where
 * the kernel gives them, and the code and data read the same afterwards. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "tests/check_run.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char motto[] = "same bytes at the same addresses";

/* Not inlined: it runs from the moved text. */
__attribute__((noinline)) static unsigned sum_to(unsigned n)
{
    unsigned s = 0;
    for (unsigned k = 1; k <= n; k++) s += k;
    return s;
}

typedef struct {
    char perms[8];
    char path[256];
    long huge_kb;
} mapping;

/* The /proc/self/smaps entry that holds addr. */
static int mapping_of(const void *addr, mapping *m)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0, found = 0;

    memset(m, 0, sizeof *m);
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perms[8], path[256] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &a, &b, perms, path) >= 3 &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (in) break;
            in = (uintptr_t)addr >= a && (uintptr_t)addr < b;
            if (in) {
                found = 1;
                snprintf(m->perms, sizeof m->perms, "%s", perms);
                snprintf(m->path, sizeof m->path, "%s", path);
            }
        } else if (in) {
            sscanf(line, "AnonHugePages: %ld", &m->huge_kb);
        }
    }
    if (f) fclose(f);
    return found ? 0 : -1;
}

/* Whether the kernel gives transparent huge pages when asked (madvise). */
static int thp_on(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char s[128] = "";

    if (f) {
        if (!fgets(s, sizeof s, f)) s[0] = '\0';
        fclose(f);
    }
    return f && !strstr(s, "[never]");
}

/* One test, in order: Check runs the tests of `make unit` in one process
   (CK_FORK=no), and the move can happen once in a process. */
START_TEST(read_only_segments_move_once_and_read_the_same)
{
    mapping code, data;
    unsigned before = sum_to(100), n;
    char before_path[256];
    pid_t pid;
    int st;

    ck_assert_int_eq(mapping_of((const void *)sum_to, &code), 0);
    ck_assert_str_eq(code.perms, "r-xp");
    ck_assert_msg(code.path[0] == '/', "the text starts as the file's: %s", code.path);
    snprintf(before_path, sizeof before_path, "%s", code.path);

    n = fo_serve_huge_text();
    if (n == 0 && (getenv("FOLIO_VALGRIND") || FO_SERVE_ASAN)) { /* not done there: all as it was */
        ck_assert_int_eq(mapping_of((const void *)sum_to, &code), 0);
        ck_assert_str_eq(code.path, before_path);
        ck_assert_uint_eq(sum_to(100), 5050);
        return;
    }
    ck_assert_uint_ge(n, 2); /* code and rodata at least */

    ck_assert_int_eq(mapping_of((const void *)sum_to, &code), 0);
    ck_assert_int_eq(mapping_of(motto, &data), 0);
    ck_assert_str_eq(code.perms, "r-xp"); /* never writable */
    ck_assert_str_eq(data.perms, "r--p");
    ck_assert_str_eq(code.path, ""); /* anonymous now */
    ck_assert_str_eq(data.path, "");
    if (thp_on()) {
        ck_assert_int_eq(code.huge_kb, 2048);
        ck_assert_int_eq(data.huge_kb, 2048);
    }
    ck_assert_uint_eq(sum_to(100), before);
    ck_assert_uint_eq(sum_to(100), 5050);
    ck_assert_str_eq(motto, "same bytes at the same addresses");

    ck_assert_uint_eq(fo_serve_huge_text(), 0); /* its gaps are taken now */

    pid = fork(); /* a write to the code faults */
    if (pid == 0) {
        *(volatile unsigned char *)(uintptr_t)sum_to = 0xc3;
        _exit(0);
    }
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %#x", st);
}
END_TEST

int main(void)
{
    return fo_check_tests("hugetext", 0,
                          (const TTest *[]){read_only_segments_move_once_and_read_the_same, NULL});
}
