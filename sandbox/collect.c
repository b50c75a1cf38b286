/* collect.c — takes the files out of a finished jail's /out without trusting
 * anything in it: names are checked, entries are looked at without following
 * links (fstatat AT_SYMLINK_NOFOLLOW, then open O_NOFOLLOW|O_NONBLOCK and fstat
 * again), only regular files within the ceiling are kept; the rest is refused
 * with a reason. Subfolders are walked through descriptors opened O_NOFOLLOW
 * from their parent's, every component checked like a file name. Also: atomic
 * writes into --out DIR (and its subfolders), and the JSON buffer used for
 * manifest.json. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"
#include "base/sha256.h"
#include "base/stage.h"
#include "base/utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A name we are willing to create in the caller's directory: 1-200 chars of
   [A-Za-z0-9._-+], not starting with '.' or '-'. */
static int safe_name(const char *n)
{
    size_t k, len = strlen(n);

    if (len == 0 || len > 200 || n[0] == '.' || n[0] == '-') return 0;
    for (k = 0; k < len; k++) {
        char ch = n[k];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-' || ch == '+'))
            return 0;
    }
    return 1;
}

/* Display form of an unsafe name: printable ASCII kept, the rest as '?'. */
static void printable(char *dst, size_t len, const char *src)
{
    size_t k;

    for (k = 0; k + 1 < len && src[k]; k++) dst[k] = (src[k] >= 0x20 && src[k] < 0x7f) ? src[k] : '?';
    dst[k] = 0;
}

static int refuse(fo_sandbox_collection *c, const char *name, const char *reason)
{
    if (!fo_grow((void **)&c->refused, &c->cap_refused, c->n_refused + 1, 8, sizeof *c->refused)) return -1;
    printable(c->refused[c->n_refused].name, sizeof c->refused[0].name, name);
    snprintf(c->refused[c->n_refused].reason, sizeof c->refused[0].reason, "%s", reason);
    c->n_refused++;
    return 0;
}

/* SHA-256 of the first `bytes` bytes of fd: the bytes that will be delivered
   (a file that grew after its fstat is copied and hashed up to that size;
   one that shrank is an error). */
int fo_sandbox_hash_fd(int fd, uint64_t bytes, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char buf[65536], dig[32];
    fo_sha256 s;
    uint64_t off = 0;
    ssize_t n;
    int k;

    fo_sha256_init(&s);
    while (off < bytes) {
        size_t want = bytes - off < sizeof buf ? (size_t)(bytes - off) : sizeof buf;
        n = pread(fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            errno = n == 0 ? EIO : errno;      /* shorter than its fstat said */
            return -1;
        }
        fo_sha256_update(&s, buf, (size_t)n);
        off += (uint64_t)n;
    }
    fo_sha256_final(&s, dig);
    for (k = 0; k < 32; k++) {
        out[2 * k] = hex[dig[k] >> 4];
        out[2 * k + 1] = hex[dig[k] & 15];
    }
    out[64] = 0;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const fo_sandbox_file *)a)->name, ((const fo_sandbox_file *)b)->name);
}

/* Subfolders of /out are followed this many levels down, no deeper: the walk
   holds one descriptor per level, and a report has no use for deep trees. */
#define MAX_DEPTH 8

typedef struct {
    fo_sandbox_collection *c;
    uint64_t ceiling;
    const fo_sandbox_file *skip;
    size_t n_skip;
    int full;                     /* FO_SANDBOX_MAX_FILES reached: stop the walk */
} walk_ctx;

int fo_sandbox_open_regular(int dirfd, const char *name, struct stat *st)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0) return -1;
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* Keeps the regular file name (relative path rel) of directory d. 0, or -1
   (errno) when collection itself failed. */
static int keep_file(walk_ctx *w, int d, const char *name, const char *rel)
{
    fo_sandbox_collection *c = w->c;
    fo_sandbox_file *f;
    struct stat st;
    int fd;

    /* It was a regular file; open without following, and check again */
    fd = fo_sandbox_open_regular(d, name, &st);
    if (fd < 0) return refuse(c, rel, "not a regular file when opened");
    if ((uint64_t)st.st_size > w->ceiling) {
        close(fd);
        c->over_ceiling = 1;
        return refuse(c, rel, "over the ceiling (--max-bytes)");
    }
    if (!fo_grow((void **)&c->files, &c->cap_files, c->n_files + 1, 16, sizeof *c->files)) {
        close(fd);
        return -1;
    }
    f = &c->files[c->n_files++];
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->bytes = (uint64_t)st.st_size;
    f->id.dev = (uint64_t)st.st_dev;
    f->id.ino = (uint64_t)st.st_ino;
    f->id.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    f->id.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    snprintf(f->name, sizeof f->name, "%s", rel);
    return 0;                      /* hashed later, if kept: fo_sandbox_collect_hash */
}

/* Collects directory dfd (taken over, closed here), whose path relative to
   /out is prefix ("" for /out itself), depth levels below /out. Entries are
   examined without following links; a subdirectory is opened O_NOFOLLOW from
   its parent's descriptor, so a symlink (to a directory or anything else) is
   never entered. 0, or -1 (errno) when collection itself failed. */
static int walk(walk_ctx *w, int dfd, const char *prefix, int depth)
{
    fo_sandbox_collection *c = w->c;
    struct dirent *de;
    DIR *d = fdopendir(dfd);
    int rc = 0;

    if (!d) {
        close(dfd);
        return -1;
    }
    while (!rc && !w->full) {
        /* fits a prefix of 255 chars, '/', a d_name of 255 and the NUL */
        char rel[2 * sizeof c->files[0].name];
        const char *name;
        struct stat st;
        size_t k;
        int skipped = 0;

        errno = 0;
        if (!(de = readdir(d))) {
            if (errno) rc = -1;
            break;
        }
        name = de->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        snprintf(rel, sizeof rel, "%s%s%s", prefix, *prefix ? "/" : "", name);
        for (k = 0; k < w->n_skip; k++)
            if (!strcmp(w->skip[k].name, rel)) skipped = 1;
        if (skipped) continue;
        if (c->n_files + c->n_refused >= FO_SANDBOX_MAX_FILES) {
            w->full = 1;
            rc = refuse(c, "...", "too many entries in /out; the rest ignored");
            break;
        }
        /* manifest.json is ours only beside the files, at the top of --out DIR */
        if (!safe_name(name) || (depth == 0 && !strcmp(name, "manifest.json"))) {
            rc = refuse(c, rel, safe_name(name) ? "reserved name" : "unsafe name");
            continue;
        }
        if (strlen(rel) >= sizeof c->files[0].name) {
            rc = refuse(c, rel, "path too long");
            continue;
        }
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = -1;
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            int sub;

            if (depth + 1 > MAX_DEPTH) {
                rc = refuse(c, rel, "too deep");
                continue;
            }
            sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                rc = refuse(c, rel, "not a directory when opened");
                continue;
            }
            rc = walk(w, sub, rel, depth + 1);
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            rc = refuse(c, rel, S_ISLNK(st.st_mode) ? "symlink" : S_ISFIFO(st.st_mode) ?
                        "fifo" : S_ISSOCK(st.st_mode) ? "socket" : "device");
            continue;
        }
        rc = keep_file(w, dirfd(d), name, rel);
    }
    closedir(d);
    return rc;
}

int fo_sandbox_collect(int out_dir, uint64_t ceiling, fo_sandbox_collection *c,
                       const fo_sandbox_file *skip, size_t n_skip)
{
    walk_ctx w = { c, ceiling, skip, n_skip, 0 };
    int dfd = openat(out_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    memset(c, 0, sizeof *c);
    if (dfd < 0) return -1;
    rc = walk(&w, dfd, "", 0);
    /* sorted by the whole relative path: the manifest does not depend on
       the order in which the directories happened to be read */
    if (c->n_files > 1) qsort(c->files, c->n_files, sizeof *c->files, by_name);
    return rc;
}

/* Drops file k of c (closed), refused with reason. */
static int drop_file(fo_sandbox_collection *c, size_t k, const char *reason)
{
    int rc = refuse(c, c->files[k].name, reason);

    close(c->files[k].fd);
    memmove(&c->files[k], &c->files[k + 1], (c->n_files - k - 1) * sizeof *c->files);
    c->n_files--;
    return rc;
}

/* The file of prev that f still is (same name and identity), or NULL. */
static const fo_sandbox_file *unchanged(const fo_sandbox_file *f, const fo_sandbox_collection *prev)
{
    const fo_sandbox_file *o = prev && prev->n_files ?
        bsearch(f, prev->files, prev->n_files, sizeof *f, by_name) : NULL;  /* sorted */

    return o && o->sha256[0] && o->bytes == f->bytes && o->id.dev == f->id.dev &&
           o->id.ino == f->id.ino && o->id.mtime_ns == f->id.mtime_ns &&
           o->id.ctime_ns == f->id.ctime_ns ? o : NULL;
}

int fo_sandbox_collect_hash(fo_sandbox_collection *c, const fo_sandbox_collection *prev)
{
    size_t k = 0;

    while (k < c->n_files) {
        fo_sandbox_file *f = &c->files[k];
        const fo_sandbox_file *o = f->sha256[0] ? NULL : unchanged(f, prev);

        if (o) memcpy(f->sha256, o->sha256, sizeof f->sha256);
        if (f->sha256[0]) {
            k++;
            continue;
        }
        if (fo_sandbox_hash_fd(f->fd, f->bytes, f->sha256) == 0) {
            c->hashed += f->bytes;
            k++;
            continue;
        }
        if (errno != EIO || drop_file(c, k, "shorter when read than when listed") < 0)
            return -1;         /* a session's background process may cut a file */
    }
    return 0;
}

char *fo_sandbox_inputs_json(const fo_sandbox_plan *p)
{
    fo_buf b = { 0 };
    char sha[65];
    size_t k;

    fo_buf_puts(&b, "[");
    for (k = 0; k < p->n_in; k++) {
        if (fo_sandbox_hash_fd(p->in[k].fd, p->in[k].bytes, sha) < 0) {
            fo_buf_free(&b);
            return NULL;
        }
        fo_buf_puts(&b, k ? ", {\"path\": " : "{\"path\": ");
        fo_buf_json_str(&b, p->in[k].name, strlen(p->in[k].name));
        fo_buf_printf(&b, ", \"sha256\": \"%s\"}", sha);
    }
    fo_buf_puts(&b, "]");
    if (b.failed) {
        fo_buf_free(&b);
        return NULL;
    }
    return fo_buf_take(&b, NULL);
}

int fo_sandbox_collect_total(fo_sandbox_collection *c, uint64_t *budget)
{
    size_t k = 0;

    while (k < c->n_files) {
        if (c->files[k].bytes <= *budget) {
            *budget -= c->files[k].bytes;
            k++;
            continue;
        }
        c->over_total = 1;
        if (drop_file(c, k, "over the total of all files (--max-total)") < 0) return -1;
    }
    return 0;
}

int fo_sandbox_collect_reserve(fo_sandbox_collection *c, const char *name, const char *reason)
{
    size_t k = 0, len = strlen(name);

    while (k < c->n_files) {
        const char *f = c->files[k].name;
        if (strncmp(f, name, len) || (f[len] && f[len] != '/')) {
            k++;
            continue;
        }
        if (drop_file(c, k, reason) < 0) return -1;
    }
    return 0;
}

void fo_sandbox_files_free(fo_sandbox_file *f, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (f[k].fd >= 0) close(f[k].fd);
    fo_free(f);
}

void fo_sandbox_collection_free(fo_sandbox_collection *c)
{
    if (!c) return;
    fo_sandbox_files_free(c->files, c->n_files);
    fo_free(c->refused);
    memset(c, 0, sizeof *c);
}

/* Opens the folder path[0..len) below dirfd, creating what is missing (0755).
   Each component is opened from its parent's descriptor with O_NOFOLLOW: a
   symlink planted in --out DIR fails (ELOOP or ENOTDIR) instead of sending
   the file elsewhere. Returns a new descriptor, or -1 (errno). */
static int open_folder(int dirfd, const char *path, size_t len)
{
    char comp[256];
    size_t at = 0;
    int cur = -1;

    while (at < len) {
        const char *slash = memchr(path + at, '/', len - at);
        size_t n = slash ? (size_t)(slash - (path + at)) : len - at;
        int base = cur >= 0 ? cur : dirfd, next, e;

        if (n == 0 || n >= sizeof comp) {
            errno = EINVAL;               /* collect.c never makes such a name */
            next = -1;
        } else {
            memcpy(comp, path + at, n);
            comp[n] = 0;
            if (mkdirat(base, comp, 0777) < 0 && errno != EEXIST)
                next = -1;
            else next = openat(base, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        e = errno;
        if (cur >= 0) close(cur);
        errno = e;
        if (next < 0) return -1;
        cur = next;
        at += n + 1;
    }
    return cur;
}

/* Stages name (a relative path of safe components) below dirfd: folders
   created as needed, never through a link; stale temporaries of that name
   swept. The open temporary, or -1 (errno). */
static int stage_at(fo_stage *s, int dirfd, const char *name)
{
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    int dir = slash ? open_folder(dirfd, name, (size_t)(slash - name)) : dirfd, fd, e;

    if (dir < 0) return -1;
    fo_stage_sweep(dir, base);
    fd = fo_stage_add(s, dir, base);
    e = errno;
    if (dir != dirfd) close(dir);
    errno = e;
    return fd;
}

int fo_sandbox_stage_copy(fo_stage *s, int dirfd, const char *name, int src, uint64_t bytes)
{
    off_t off = 0;
    int fd = stage_at(s, dirfd, name);

    if (fd < 0) return -1;
    while ((uint64_t)off < bytes) {
        ssize_t n = sendfile(fd, src, &off, (size_t)(bytes - (uint64_t)off));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;                /* shorter than when collected */
            return -1;
        }
    }
    return fsync(fd);
}

int fo_sandbox_stage_buf(fo_stage *s, int dirfd, const char *name, const char *buf, size_t len)
{
    int fd = stage_at(s, dirfd, name);

    if (fd < 0) return -1;
    if (fo_write_all(fd, buf, len, 0) < 0) return -1;
    return fsync(fd);
}

/* One file staged and committed alone: from fd (its whole current size)
   when fd >= 0, else from buf. */
static int write_one(int dirfd, const char *name, int fd, const char *buf, size_t len)
{
    fo_stage s;
    fo_stage_item item;
    struct stat st;
    size_t failed;
    int rc, e;

    if (fd >= 0 && fstat(fd, &st) < 0) return -1;
    if (fo_stage_begin(&s, &item, 1) < 0) return -1;
    rc = fd >= 0 ? fo_sandbox_stage_copy(&s, dirfd, name, fd, (uint64_t)st.st_size)
                 : fo_sandbox_stage_buf(&s, dirfd, name, buf, len);
    if (rc == 0) rc = fo_stage_commit(&s, &failed);
    e = errno;
    fo_stage_end(&s);
    errno = e;
    return rc;
}

int fo_sandbox_write_copy(int dirfd, const char *name, int fd)
{
    return write_one(dirfd, name, fd, NULL, 0);
}

int fo_sandbox_write_buf(int dirfd, const char *name, const char *buf, size_t len)
{
    return write_one(dirfd, name, -1, buf, len);
}

