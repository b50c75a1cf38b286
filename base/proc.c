/* proc.c — descriptors (writing all of a buffer, closing all but some) and
 * /proc/self/stat (proc.h). */
#include "base/proc.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void fo_close_all_except(int keep1, int keep2)
{
    int fd, max = (int)sysconf(_SC_OPEN_MAX);

    if (max < 0 || max > 65536) max = 65536;
    /* close_range is cheaper; the loop is for kernels before 5.9 */
    for (fd = 3; fd < max; fd++) {
        if (fd == keep1 || fd == keep2) continue;
        if (syscall(SYS_close_range, fd, fd, 0) < 0) (void)close(fd);
        if (fd > keep1 && fd > keep2) {
            if (syscall(SYS_close_range, fd + 1, ~0u, 0) == 0) break;
        }
    }
}

int fo_self_stat(unsigned long long *field, int n)
{
    char stat[1024], *f, *end;
    int k, fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t len = fd < 0 ? -1 : read(fd, stat, sizeof stat - 1);

    if (fd >= 0) close(fd);
    if (len <= 0) return -1;
    stat[len] = 0;
    /* "pid (comm) S 4 5 ...": comm may hold anything, but not after its last ')' */
    f = strrchr(stat, ')');
    if (!f || strlen(f) < 4) return -1;
    f += 3;                                     /* past ") S" */
    for (k = 0; k < n && k < 4; k++) field[k] = 0;
    for (k = 4; k < n; k++) {
        if (*f != ' ') return -1;
        field[k] = strtoull(f + 1, &end, 10);
        if (end == f + 1) return -1;
        f = end;
    }
    return 0;
}

int fo_write_all(int fd, const void *p, size_t n, double until)
{
    const char *s = p;

    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN && fo_now() < until) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            (void)poll(&pf, 1, (int)((until - fo_now()) * 1000) + 1);
            continue;
        }
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}
