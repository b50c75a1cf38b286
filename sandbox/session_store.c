/* session_store.c — files in and out of a session's jail, never trusting
 * what the jail left there: trees are walked through descriptors opened with
 * O_NOFOLLOW from their parent's, only folders and regular files are copied
 * (links copied as links; FIFOs, sockets and devices skipped, counted and reported),
 * within a depth, an entry count and a budget of data by allocated size;
 * holes of sparse files stay holes. Used to hibernate (jail -> store), to
 * resume (store -> jail, files created as the jail's own user, by a process
 * in the jail's cgroup: session_super.c), and to remove a store. Also /out
 * after a cell: collected, hashed where changed, its changes and refusals. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_MAX_DEPTH 16
#define LOST_LISTED 100           /* items of a copy's report; then one summary */
#define BLOCK 4096u

/* Creations in the jail's folders run with its identity as the file-system
   uid/gid (root only: otherwise the jail's identity is already ours). */
static void as_jail(const fo_session_copy *c, int on)
{
    if (!c->as_jail || geteuid() != 0) return;
    setfsgid(on ? c->gid : 0);
    setfsuid(on ? c->uid : 0);
}

void fo_session_copy_root(fo_session_copy *c, const char *root)
{
    c->plen = (size_t)snprintf(c->path, sizeof c->path, "%s", root);
    if (c->plen >= sizeof c->path) c->plen = sizeof c->path - 1;
}

/* Appends "/name" to c->path; the old length, to give back to pop(). */
static size_t push(fo_session_copy *c, const char *name)
{
    size_t old = c->plen;
    int n = snprintf(c->path + old, sizeof c->path - old, "/%s", name);

    c->plen = n < 0 || (size_t)n >= sizeof c->path - old ? sizeof c->path - 1 : old + (size_t)n;
    return old;
}

static void pop(fo_session_copy *c, size_t old)
{
    c->plen = old;
    c->path[old] = 0;
}

/* The entry in hand (c->path) was not copied, for reason. */
static void lose(fo_session_copy *c, const char *reason)
{
    c->skipped++;
    if (!c->lost || c->n_lost >= LOST_LISTED) return;
    fo_buf_puts(c->lost, c->lost->len ? ", {\"name\": " : "{\"name\": ");
    fo_buf_json_str(c->lost, c->path, c->plen);
    fo_buf_puts(c->lost, ", \"path\": ");
    fo_buf_json_str(c->lost, c->path, c->plen);
    fo_buf_puts(c->lost, ", \"reason\": ");
    fo_buf_json_str(c->lost, reason, strlen(reason));
    fo_buf_puts(c->lost, "}");
    c->n_lost++;
}

void fo_session_copy_end(fo_session_copy *c)
{
    if (!c->lost || c->skipped <= c->n_lost) return;
    fo_buf_printf(c->lost, "%s{\"name\": \"...\", \"reason\": \"%u more entries not saved or "
                  "restored (only the first %u are listed)\"}", c->lost->len ? ", " : "",
                  c->skipped - c->n_lost, LOST_LISTED);
}

static uint64_t blocks(uint64_t n)
{
    return (n + BLOCK - 1) / BLOCK * BLOCK;
}

/* Writes in[from, to) at the same offset of out. 0 or -1. */
static int copy_range(int in, int out, off_t from, off_t to)
{
    off_t off = from;

    if (lseek(out, from, SEEK_SET) < 0) return -1;
    while (off < to) {
        size_t want = (uint64_t)(to - off) > (1u << 30) ? (1u << 30) : (size_t)(to - off);
        ssize_t n = sendfile(out, in, &off, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0)
            break;                                   /* shorter now: keep what was there */
    }
    return 0;
}

/* The first `size` bytes of in into out, holes kept as holes (SEEK_DATA /
   SEEK_HOLE; a file system that can't tell has all data). Each extent of
   data costs its length rounded up to 4 KiB from *room, lowered as it
   goes. 0; 1 when the data would pass *room (out is then incomplete); -1. */
static int copy_sparse(int in, int out, uint64_t size, uint64_t *room)
{
    off_t pos = 0, end = (off_t)size;

    while (pos < end) {
        off_t data = lseek(in, pos, SEEK_DATA), hole;

        if (data < 0 && errno == ENXIO)
            break;                                   /* a hole up to the end */
        if (data < 0 && errno != EINVAL) return -1;
        hole = data < 0 ? end : lseek(in, data, SEEK_HOLE);
        if (data < 0) data = pos;
        if (hole < 0 || hole > end) hole = end;
        if (data >= hole) break;
        if (blocks((uint64_t)(hole - data)) > *room) return 1;
        *room -= blocks((uint64_t)(hole - data));
        if (copy_range(in, out, data, hole) < 0) return -1;
        pos = hole;
    }
    return ftruncate(out, (off_t)size);
}

/* Memory the cgroup may still charge, beyond c->headroom (UINT64_MAX: no cgroup). */
static uint64_t memory_room(const fo_session_copy *c)
{
    uint64_t room;

    if (!c->cg || fo_sandbox_cgroup_memory_room(c->cg, &room) < 0) return UINT64_MAX;
    return room > c->headroom ? room - c->headroom : 0;
}

static int copy_file(int src_dir, int dst_dir, const char *name, fo_session_copy *c)
{
    struct stat st;
    static const char mem_why[] = "over --memory when restored (a session's files are "
                                  "held in its memory)";
    int in = fo_sandbox_open_regular(src_dir, name, &st), out, over;
    uint64_t alloc, room, mem, avail, left;

    if (in < 0)
        return 0;                                    /* vanished or not regular: skipped */
    alloc = blocks((uint64_t)st.st_blocks * 512);
    room = c->max_bytes - c->bytes;
    mem = alloc ? memory_room(c) : UINT64_MAX;       /* all holes: charges nothing */
    if (c->files >= c->max_files || alloc > room || alloc > mem) {
        lose(c, c->files >= c->max_files ? "over the count of entries a session saves" :
                alloc > room ? c->budget_why : mem_why);
        close(in);
        return 0;
    }
    as_jail(c, 1);
    out = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 st.st_mode & 0755);
    as_jail(c, 0);
    if (out < 0) {
        close(in);
        return errno == EEXIST ? 0 : -1;             /* e.g. a fresh jail's own cache */
    }
    avail = left = mem < room ? mem : room;
    over = copy_sparse(in, out, (uint64_t)st.st_size, &left);
    close(in);
    if (close(out) < 0 && !over) over = -1;
    if (over) {
        int e = errno;
        (void)unlinkat(dst_dir, name, 0);            /* no half file */
        if (over < 0) {
            errno = e;
            return -1;
        }
        lose(c, mem < room ? mem_why : c->budget_why);
        return 0;
    }
    c->files++;
    c->bytes += avail - left;
    return 0;
}
/* A symbolic link is copied as a link: its target is read and written as
   text (readlinkat, symlinkat), never followed here, and it resolves only
   inside the jail it is restored into (a session's venv is made of them). */
static int copy_link(int src_dir, int dst_dir, const char *name, fo_session_copy *c)
{
    char target[4096];
    ssize_t n = readlinkat(src_dir, name, target, sizeof target - 1);
    int rc;

    if (n < 0 || c->files >= c->max_files) {
        lose(c, n < 0 ? "a symbolic link that can't be read: not saved"
                      : "over the count of entries a session saves");
        return 0;
    }
    target[n] = 0;
    as_jail(c, 1);
    rc = symlinkat(target, dst_dir, name);
    as_jail(c, 0);
    if (rc < 0 && errno != EEXIST) {
        lose(c, "a symbolic link that can't be written: not saved");
        return 0;
    }
    c->files++;
    return 0;
}

/* Why an entry that is neither a folder, a regular file nor a link is not copied. */
static const char *kind_why(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO: not saved" : S_ISSOCK(m) ? "a socket: not saved" :
           "a device: not saved";
}

/* One folder entry (name, stat st) of src into dst. 0 or -1. */
static int copy_entry(DIR *d, int dst, const char *name, const struct stat *st,
                      fo_session_copy *c, int depth)
{
    int rc = 0, s2, d2;

    if (S_ISREG(st->st_mode)) return copy_file(dirfd(d), dst, name, c);
    if (S_ISLNK(st->st_mode)) return copy_link(dirfd(d), dst, name, c);
    if (!S_ISDIR(st->st_mode)) {
        lose(c, kind_why(st->st_mode));
        return 0;
    }
    if (depth >= TREE_MAX_DEPTH || c->files >= c->max_files) {
        lose(c, depth >= TREE_MAX_DEPTH ? "more than 16 folders deep: not saved" :
                "over the count of entries a session saves");
        return 0;
    }
    as_jail(c, 1);
    if (mkdirat(dst, name, st->st_mode & 01777) < 0 && errno != EEXIST) rc = -1;
    as_jail(c, 0);
    c->files++;
    s2 = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    d2 = rc ? -1 : openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s2 >= 0 && d2 >= 0)
        rc = fo_session_copy_tree(s2, d2, c, depth + 1);
    else if (!rc && s2 >= 0) rc = -1;
    if (s2 >= 0) close(s2);
    if (d2 >= 0) close(d2);
    return rc;
}

int fo_session_copy_tree(int src, int dst, fo_session_copy *c, int depth)
{
    int dup_src = dup(src), rc = 0;
    DIR *d = dup_src >= 0 ? fdopendir(dup_src) : NULL;
    struct dirent *de;

    if (!d) {
        if (dup_src >= 0) close(dup_src);
        return -1;
    }
    rewinddir(d);        /* the dup shares src's offset: a second copy (checkpoints) starts over */
    while (rc == 0 && (de = readdir(d))) {
        struct stat st;
        size_t at;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
        at = push(c, de->d_name);
        rc = copy_entry(d, dst, de->d_name, &st, c, depth);
        pop(c, at);
    }
    closedir(d);
    return rc;
}

int fo_session_remove_tree(int parent, const char *name, int depth)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;
    struct dirent *de;

    if (fd < 0) return unlinkat(parent, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && depth < 64)
            (void)fo_session_remove_tree(dirfd(d), de->d_name, depth + 1);
    closedir(d);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

/* ------------------------------------------------------ /out after a cell */

static const fo_sandbox_file *find(const fo_sandbox_collection *c, const char *name)
{
    size_t k;

    for (k = 0; c && k < c->n_files; k++)
        if (!strcmp(c->files[k].name, name)) return &c->files[k];
    return NULL;
}

void fo_session_out_collect(int out_dir, const fo_sandbox_plan *p,
                            const fo_sandbox_collection *prev, fo_sandbox_collection *now)
{
    uint64_t budget = p->max_total;

    if (fo_sandbox_collect(out_dir, p->max_bytes, now, NULL, 0) < 0 ||
        fo_sandbox_collect_total(now, &budget) < 0 || fo_sandbox_collect_hash(now, prev) < 0) {
        fo_sandbox_collection_free(now);
        memset(now, 0, sizeof *now);
    }
}

void fo_session_out_refused(fo_buf *b, const fo_sandbox_collection *before,
                            const fo_sandbox_collection *after)
{
    size_t k, m, n = 0;

    fo_buf_puts(b, "[");
    for (k = 0; k < after->n_refused; k++) {
        const char *name = after->refused[k].name, *why = after->refused[k].reason;
        char path[300];
        int seen = 0;

        for (m = 0; before && m < before->n_refused && !seen; m++)
            seen = !strcmp(before->refused[m].name, name) &&
                   !strcmp(before->refused[m].reason, why);
        if (seen) continue;
        snprintf(path, sizeof path, "/out/%s", name);
        fo_buf_puts(b, n++ ? ", {\"path\": " : "{\"path\": ");
        fo_buf_json_str(b, path, strlen(path));
        fo_buf_puts(b, ", \"reason\": ");
        fo_buf_json_str(b, why, strlen(why));
        fo_buf_puts(b, "}");
    }
    fo_buf_puts(b, "]");
}

void fo_session_out_changes(fo_buf *b, const fo_sandbox_collection *before,
                            const fo_sandbox_collection *after)
{
    size_t k, n = 0;

    fo_buf_puts(b, "[");
    for (k = 0; k < after->n_files; k++) {
        const fo_sandbox_file *f = &after->files[k], *old = find(before, f->name);
        char path[300];

        if (old && !strcmp(old->sha256, f->sha256)) continue;
        snprintf(path, sizeof path, "/out/%s", f->name);
        fo_buf_puts(b, n++ ? ", {\"path\": " : "{\"path\": ");
        fo_buf_json_str(b, path, strlen(path));
        fo_buf_printf(b, ", \"bytes\": %llu, \"sha256\": \"%s\"}",
                              (unsigned long long)f->bytes, f->sha256);
    }
    fo_buf_puts(b, "]");
}
