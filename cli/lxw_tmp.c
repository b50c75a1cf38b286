/* lxw_tmp.c — libxlsxwriter's working files, in memory.
 *
 * Why: libxlsxwriter writes every part of a workbook (worksheet, styles,
 * theme, rels, ...) to a temporary file of its own, then reads it back into
 * the zip: tmpfileplus's open, unlink, the writes, rewind, the reads and
 * close, some 360 of the ~400 system calls of a small workbook's render
 * (strace -c, issue 39). Version 1.1.4 (Debian 12) has no in-memory mode.
 *
 * How: the library calls lxw_tmpfile(tmpdir) through its PLT, so an
 * executable that defines it is the one called (ordinary ELF symbol
 * interposition; the linker exports the definition because the shared
 * library refers to it). This file is one of the executables' own objects
 * (cli/, linked into folio-engine and folio-serve), never libfolio.a: a
 * program that links libfolio.a with a static libxlsxwriter.a keeps the
 * library's own lxw_tmpfile and no symbol is defined twice.
 *
 * The FILE it returns is a glibc cookie stream over a growable buffer: it
 * writes, reads, seeks (SEEK_SET/CUR/END, ftell, rewind, fflush) as a real
 * file does -- what libxlsxwriter does with its temp files: fprintf/fwrite,
 * then fflush, rewind and fread into the zip; ftell + rewind + fread for a
 * rich string; the constant_memory row file is written the whole render
 * through and read back at the end. Memory is bounded: the buffers of all
 * the live in-memory files together stay under SPILL_BUDGET; a write that
 * would pass it moves that file to a real temporary file in tmpdir (as the
 * library would have made: created O_EXCL, mode 0600, unlinked at once) and
 * goes on there. If that file can't be made, the write stays in memory (the
 * library made its file at the start and would have failed outright then;
 * this can only get further), and a failed allocation is a failed write, as
 * a full disk's is.
 *
 * The bytes of the workbook are the library's: only where its scratch
 * bytes wait changes, so outputs are byte-identical. FOLIO_LXW_TMPFILE=disk
 * in the environment hands every call to the library's own lxw_tmpfile (a
 * real file per part), for comparison: tests/serve/test_lxw_tmp.py renders
 * both ways and compares the bytes; tests/serve/t_lxw_tmp.c checks the
 * stream's contract. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <xlsxwriter/utility.h>

#include "folio.h"

/* All in-memory temp files together hold at most this many bytes of buffer;
 * a small workbook's largest part is some tens of KiB, a 100,000-cell
 * worksheet's XML some MiB. */
#define SPILL_BUDGET ((size_t)16 << 20)
#define FIRST_CAP ((size_t)16 << 10)

static atomic_size_t in_memory; /* bytes of buffer held by live files */

typedef struct memfile memfile;
struct memfile {
    memfile *prev, *next; /* the live files (live), while open */
    char *buf;            /* the content while in memory */
    size_t len, cap;      /* bytes written (the file's size), bytes allocated */
    size_t pos;           /* the file offset while in memory */
    int fd;               /* the real file after a spill, else -1 */
    char *dir;            /* where a spill goes (a copy of the caller's tmpdir, or NULL) */
};

/* Every open file, reachable from here as glibc's own FILEs are from its
 * list: libxlsxwriter 1.1.4 never closes the constant_memory row file of a
 * worksheet that got no row (_write_optimized_sheet_data returns before its
 * fclose), and the library's own temp file stays open then too. */
static memfile *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(memfile *m)
{
    pthread_mutex_lock(&live_lock);
    m->prev = NULL;
    m->next = live;
    if (live) live->prev = m;
    live = m;
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(memfile *m)
{
    pthread_mutex_lock(&live_lock);
    if (m->prev) m->prev->next = m->next;
    else live = m->next;
    if (m->next) m->next->prev = m->prev;
    pthread_mutex_unlock(&live_lock);
}

/* A real temporary file in dir ($TMPDIR, then /tmp, when dir is NULL or
 * empty), already unlinked; -1 if none can be made. */
static int spill_fd(const char *dir)
{
    const char *env = getenv("TMPDIR");
    const char *places[] = {dir, env, "/tmp"};
    for (size_t k = 0; k < sizeof places / sizeof *places; k++) {
        if (!places[k] || !*places[k]) continue;
        size_t n = strlen(places[k]) + sizeof "/libxlsxwriter_XXXXXX";
        char *path = fo_malloc(n);
        if (!path) return -1;
        snprintf(path, n, "%s/libxlsxwriter_XXXXXX", places[k]);
        int fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0) unlink(path);
        fo_free(path);
        if (fd >= 0) return fd;
    }
    return -1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Moves m's content to a real file, its offset where m's was; 0, or -1
 * with m unchanged. */
static int spill(memfile *m)
{
    int fd = spill_fd(m->dir);
    if (fd < 0) return -1;
    if (write_all(fd, m->buf, m->len) != 0 || lseek(fd, (off_t)m->pos, SEEK_SET) < 0) {
        close(fd);
        return -1;
    }
    atomic_fetch_sub(&in_memory, m->cap);
    fo_free(m->buf);
    m->buf = NULL;
    m->len = m->cap = m->pos = 0;
    m->fd = fd;
    return 0;
}

/* Makes room for end bytes in memory; 0, or -1 (ENOMEM). */
static int grow(memfile *m, size_t end)
{
    size_t cap = m->cap ? m->cap : FIRST_CAP;
    while (cap < end) {
        if (cap > SIZE_MAX / 2) {
            errno = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    char *b = fo_realloc(m->buf, cap);
    if (!b) {
        errno = ENOMEM;
        return -1;
    }
    atomic_fetch_add(&in_memory, cap - m->cap);
    m->buf = b;
    m->cap = cap;
    return 0;
}

static ssize_t mf_write(void *c, const char *p, size_t n)
{
    memfile *m = c;
    if (m->fd >= 0) return write_all(m->fd, p, n) == 0 ? (ssize_t)n : -1;
    if (n > SIZE_MAX - m->pos) {
        errno = EFBIG;
        return -1;
    }
    size_t end = m->pos + n;
    if (end > m->cap) {
        size_t more = end - m->cap; /* at least this much more buffer */
        if (atomic_load(&in_memory) + more > SPILL_BUDGET && spill(m) == 0)
            return write_all(m->fd, p, n) == 0 ? (ssize_t)n : -1;
        if (grow(m, end) != 0) return -1;
    }
    if (m->pos > m->len) memset(m->buf + m->len, 0, m->pos - m->len); /* a hole reads as zeros */
    memcpy(m->buf + m->pos, p, n);
    m->pos = end;
    if (end > m->len) m->len = end;
    return (ssize_t)n;
}

static ssize_t mf_read(void *c, char *p, size_t n)
{
    memfile *m = c;
    if (m->fd >= 0) {
        ssize_t r;
        do r = read(m->fd, p, n);
        while (r < 0 && errno == EINTR);
        return r;
    }
    if (m->pos >= m->len) return 0;
    if (n > m->len - m->pos) n = m->len - m->pos;
    memcpy(p, m->buf + m->pos, n);
    m->pos += n;
    return (ssize_t)n;
}

static int mf_seek(void *c, off64_t *off, int whence)
{
    memfile *m = c;
    if (m->fd >= 0) {
        off64_t r = lseek64(m->fd, *off, whence);
        if (r < 0) return -1;
        *off = r;
        return 0;
    }
    off64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (off64_t)m->pos; break;
    case SEEK_END: base = (off64_t)m->len; break;
    default: errno = EINVAL; return -1;
    }
    if ((*off < 0 && -*off > base) || (*off > 0 && *off > INT64_MAX - base)) {
        errno = EINVAL;
        return -1;
    }
    m->pos = (size_t)(base + *off);
    *off = (off64_t)m->pos;
    return 0;
}

static int mf_close(void *c)
{
    memfile *m = c;
    int r = 0;
    live_remove(m);
    if (m->fd >= 0) r = close(m->fd);
    atomic_fetch_sub(&in_memory, m->cap);
    fo_free(m->buf);
    fo_free(m->dir);
    fo_free(m);
    return r;
}

/* libxlsxwriter's hook (xlsxwriter/utility.h): a new empty read-write
 * temporary file, NULL if none can be had. Keeps a copy of tmpdir for a
 * spill. */
FILE *lxw_tmpfile(char *tmpdir)
{
    const char *how = getenv("FOLIO_LXW_TMPFILE");
    if (how && strcmp(how, "disk") == 0) {
        FILE *(*own)(char *) = NULL;
        void *sym = dlsym(RTLD_NEXT, "lxw_tmpfile");
        memcpy(&own, &sym, sizeof own);
        if (own) return own(tmpdir);
    }
    memfile *m = fo_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->fd = -1;
    if (tmpdir && !(m->dir = fo_strdup(tmpdir))) {
        fo_free(m);
        return NULL;
    }
    cookie_io_functions_t io = {.read = mf_read, .write = mf_write, .seek = mf_seek, .close = mf_close};
    FILE *f = fopencookie(m, "w+", io);
    if (!f) {
        fo_free(m->dir);
        fo_free(m);
        return NULL;
    }
    live_add(m);
    return f;
}
