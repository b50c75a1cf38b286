/* fork_floor.c — the floor of a render in a fresh process (bench-serve.sh):
 * a bare fork + _exit + wait of a process the size of a running one (the
 * render zygote), on this machine, now.
 *
 * It reads PID's /proc: resident anonymous and file memory (RssAnon,
 * RssFile), how much of the first is on 2 MiB pages (AnonHugePages), its
 * mappings and how many of them hold anonymous pages (from smaps). It then makes itself as large (less what it already has): private
 * memory written, a file's pages mapped and read, as many mappings (written
 * ones and file ones: a fork copies the page tables of the first, and each
 * mapping costs the fork and the exit), then forks N children that _exit at
 * once, reaping each. Prints one line:
 *   CPU_MS WALL_MS RSS_ANON_KB RSS_FILE_KB MAPS ANON_MAPS
 * CPU_MS: user + system of parent and children per fork+exit+wait.
 * Usage: fork_floor PID [N] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    long anon_kb, file_kb, huge_kb, maps, anon_maps;
} shape;

static double cpu_s(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* The shape of process pid ("self" or a number). */
static int shape_of(const char *pid, shape *s)
{
    char path[64], line[512];
    FILE *f;
    long v;

    memset(s, 0, sizeof *s);
    snprintf(path, sizeof path, "/proc/%s/status", pid);
    if (!(f = fopen(path, "r"))) return -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "RssAnon: %ld", &v) == 1) s->anon_kb = v;
        if (sscanf(line, "RssFile: %ld", &v) == 1) s->file_kb = v;
    }
    fclose(f);
    snprintf(path, sizeof path, "/proc/%s/smaps", pid);
    if (!(f = fopen(path, "r"))) return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) s->maps++;
        else if (sscanf(line, "Anonymous: %ld", &v) == 1 && v > 0) s->anon_maps++;
        else if (sscanf(line, "AnonHugePages: %ld", &v) == 1) s->huge_kb += v;
    }
    fclose(f);
    return 0;
}

/* n pages as n separate mappings: one region, every other page given
   another protection (neighbours with different protections never merge). */
static char *split_region(long n, int fd, long page)
{
    char *p;

    if (n <= 0) return NULL;
    p = mmap(NULL, (size_t)(n * page), fd < 0 ? PROT_READ | PROT_WRITE : PROT_READ,
             MAP_PRIVATE | (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
    if (p == MAP_FAILED) return perror("mmap"), exit(1), NULL;
    for (long k = 0; k < n; k++) {
        if (fd < 0) p[k * page] = 1;                 /* written: anonymous pages */
        else (void)*(volatile char *)(p + k * page); /* read: resident file pages */
    }
    for (long k = 1; k < n; k += 2)
        if (mprotect(p + k * page, (size_t)page, fd < 0 ? PROT_READ : PROT_READ | PROT_EXEC) < 0)
            return perror("mprotect"), exit(1), NULL;
    return p;
}

int main(int argc, char **argv)
{
    long page = sysconf(_SC_PAGESIZE);
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    shape want, have;
    char tmpl[] = "/tmp/fork-floor-XXXXXX";
    int fd;

    if (argc < 2 || n <= 0 || shape_of(argv[1], &want) < 0 || shape_of("self", &have) < 0) {
        fprintf(stderr, "usage: fork_floor PID [N] (PID's /proc must be readable)\n");
        return 1;
    }
    long anon_maps = want.anon_maps - have.anon_maps,
         file_maps = want.maps - want.anon_maps - (have.maps - have.anon_maps);
    long huge_kb = want.huge_kb - have.huge_kb;
    long anon_pages = (want.anon_kb - have.anon_kb - huge_kb) * 1024 / page,
         file_pages = (want.file_kb - have.file_kb) * 1024 / page;
    /* the file whose pages stand for the shared libraries' and fonts' */
    if ((fd = mkstemp(tmpl)) < 0) return perror("mkstemp"), 1;
    unlink(tmpl);
    if (file_pages < file_maps) file_pages = file_maps;
    for (long k = 0; k < file_pages; k++) {
        static char buf[65536];
        if (write(fd, buf, (size_t)page) != page) return perror("write"), 1;
    }
    split_region(anon_maps, -1, page);
    split_region(file_maps, fd, page);
    if (anon_pages > anon_maps) { /* the rest of each in one more mapping */
        size_t len = (size_t)((anon_pages - anon_maps) * page);
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return perror("mmap"), 1;
        memset(p, 1, len);
    }
    if (huge_kb > 0) { /* its 2 MiB pages (folio-serve's code: serve/hugetext.c) as such */
        size_t len = (size_t)huge_kb * 1024, two = (size_t)2 << 20;
        char *p = mmap(NULL, len + two, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return perror("mmap"), 1;
        p = (char *)(((unsigned long)p + two - 1) & ~(two - 1));
        (void)madvise(p, len, MADV_HUGEPAGE);
        memset(p, 1, len);
    }
    if (file_pages > file_maps) {
        char *p = mmap(NULL, (size_t)(file_pages * page), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) return perror("mmap"), 1;
        for (long k = file_maps; k < file_pages; k++) (void)*(volatile char *)(p + k * page);
    }
    shape_of("self", &have);
    double c0 = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN), t0 = now_s();
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) _exit(0);
        if (pid < 0 || waitpid(pid, NULL, 0) != pid) return perror("fork"), 1;
    }
    double c1 = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN), t1 = now_s();
    printf("%.3f %.3f %ld %ld %ld %ld\n", (c1 - c0) * 1e3 / n, (t1 - t0) * 1e3 / n, have.anon_kb,
           have.file_kb, have.maps, have.anon_maps);
    return 0;
}
