/* t_stage.c — base/stage.c's cleanup on a signal, at the moment it is
 * hardest: SIGTERM arriving while a temporary is being created (raised from
 * inside openat, which this program interposes), and base/thread.c's
 * threads, which must leave such signals to the thread that stages. */
#include "base/stage.h"
#include "base/thread.h"
#include "tests/check_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int raise_in_openat; /* openat sends SIGTERM to the process once it has created a file */

/* The openat stage.c calls (this program's definition comes first): the
   real one, then, when armed and a file was made, SIGTERM to the process. */
int openat(int dir, const char *path, int flags, ...)
{
    mode_t mode = 0;
    long fd;

    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    fd = syscall(SYS_openat, dir, path, flags, mode);
    if (fd >= 0 && raise_in_openat) kill(getpid(), SIGTERM);
    return (int)fd;
}

/* Entries of folder path other than . and .. */
static int entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    if (d) closedir(d);
    return n;
}

START_TEST(a_signal_while_the_temporary_is_made_removes_it)
{
    char dir[] = "/tmp/t_stage-XXXXXX";
    pid_t pid;
    int st;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pid = fork();
    if (pid == 0) {
        static fo_stage_item items[2];
        fo_stage s;
        int d = open(dir, O_RDONLY | O_DIRECTORY);

        signal(SIGTERM, SIG_DFL);
        fo_stage_begin(&s, items, 2);
        raise_in_openat = 1;
        (void)fo_stage_add(&s, d, "o.txt"); /* the signal ends the process here */
        _exit(0);
    }
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
    ck_assert_int_eq(entries(dir), 0); /* no temporary left */
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static void *report_mask(void *arg)
{
    sigset_t now;

    pthread_sigmask(SIG_BLOCK, NULL, &now);
    *(int *)arg = sigismember(&now, SIGINT) + sigismember(&now, SIGTERM) + sigismember(&now, SIGHUP);
    return NULL;
}

START_TEST(a_helper_thread_leaves_the_signals_to_the_stager)
{
    pthread_t t;
    sigset_t now;
    int blocked = -1;

    ck_assert_int_eq(fo_thread_start(&t, report_mask, &blocked), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(blocked, 3);
    pthread_sigmask(SIG_BLOCK, NULL, &now); /* the caller's mask is as it was */
    ck_assert(!sigismember(&now, SIGTERM));
}
END_TEST

int main(void)
{
    return fo_check_tests("stage", 0,
                          (const TTest *[]){a_signal_while_the_temporary_is_made_removes_it,
                                            a_helper_thread_leaves_the_signals_to_the_stager, NULL});
}
