/* touch_floor.c — what a fresh process pays per page it reads that its
 * parent already mapped (bench-serve.sh): the cost behind a render child's
 * CPU that is neither the fork nor the render.
 *
 * It writes N pages of private memory, once as 4 KiB pages and once on
 * 2 MiB pages (transparent huge pages, asked for with madvise), then forks
 * 200 children that read one byte of every page and exit, and as many that
 * exit at once. A fork copies the page tables of private memory, so the
 * kernel takes no page fault for these reads; on bare metal each costs a TLB
 * miss. On a virtual machine whose MMU is paravirtualised (shadow page
 * tables) each first read of a 4 KiB page in a new process costs a trip to
 * the hypervisor; a 2 MiB page costs one for all of it.
 * Prints: US_PER_4K_PAGE US_PER_PAGE_ON_2M (CPU per page read, the bare
 * fork+exit subtracted). Usage: touch_floor [N]   (default 2048) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 200
#define TWO_MB ((size_t)2 << 20)

static double children_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* CPU seconds per child that reads every page of [p, p + pages * 4096) (or none) */
static double per_child(const char *p, size_t pages, int read)
{
    double c0 = children_cpu_s();

    for (int i = 0; i < CHILDREN; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            volatile char sink = 0;
            for (size_t k = 0; read && k < pages; k++) sink ^= p[k * 4096];
            (void)sink;
            _exit(0);
        }
        if (pid < 0 || waitpid(pid, NULL, 0) != pid) return perror("fork"), exit(1), 0;
    }
    return (children_cpu_s() - c0) / CHILDREN;
}

static double us_per_page(size_t pages, int huge)
{
    size_t len = pages * 4096;
    char *raw = mmap(NULL, len + TWO_MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *p;
    double bare, reading;

    if (raw == MAP_FAILED) return perror("mmap"), exit(1), 0;
    p = (char *)(((unsigned long)raw + TWO_MB - 1) & ~(TWO_MB - 1));
    (void)madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 1, len);
    bare = per_child(p, pages, 0);
    reading = per_child(p, pages, 1);
    munmap(raw, len + TWO_MB);
    return (reading - bare) / (double)pages * 1e6;
}

int main(int argc, char **argv)
{
    size_t pages = argc > 1 ? (size_t)atol(argv[1]) : 2048;

    if (pages == 0 || pages > (1u << 20)) {
        fprintf(stderr, "usage: touch_floor [PAGES] (1..1048576)\n");
        return 1;
    }
    printf("%.2f %.3f\n", us_per_page(pages, 0), us_per_page(pages, 1));
    return 0;
}
