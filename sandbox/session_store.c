/* session_store.c — files in and out of a session's jail, never trusting
 * what the jail left there: trees are walked through descriptors opened with
 * O_NOFOLLOW from their parent's, only folders and regular files are copied
 * (links, FIFOs, sockets and devices are skipped and counted), within a depth,
 * a file count and a byte budget. Used to hibernate (jail -> store), to
 * resume (store -> jail, files created as the jail's own user), and to remove
 * a store. Also the list of files new or changed in /out after a cell. */
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

/* Creations in the jail's folders run with its identity as the file-system
   uid/gid (root only: otherwise the jail's identity is already ours). */
static void as_jail(const fo_session_copy *c, int on)
{
    if (!c->as_jail || geteuid() != 0)
        return;
    setfsgid(on ? c->gid : 0);
    setfsuid(on ? c->uid : 0);
}

static int copy_file(int src_dir, int dst_dir, const char *name, fo_session_copy *c)
{
    struct stat st;
    int in = fo_sandbox_open_regular(src_dir, name, &st), out;
    off_t off = 0;
    uint64_t left;

    if (in < 0)
        return 0;                                    /* vanished or not regular: skipped */
    if (c->files >= c->max_files || c->bytes + (uint64_t)st.st_size > c->max_bytes) {
        c->skipped++;
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
    for (left = (uint64_t)st.st_size; left > 0;) {
        ssize_t n = sendfile(out, in, &off, left > (1u << 30) ? (1u << 30) : left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;                                   /* shorter now: keep what was there */
        left -= (uint64_t)n;
    }
    c->files++;
    c->bytes += (uint64_t)st.st_size - left;
    close(in);
    return close(out);
}

int fo_session_copy_tree(int src, int dst, fo_session_copy *c, int depth)
{
    int dup_src = dup(src), rc = 0;
    DIR *d = dup_src >= 0 ? fdopendir(dup_src) : NULL;
    struct dirent *de;

    if (!d) {
        if (dup_src >= 0)
            close(dup_src);
        return -1;
    }
    while (rc == 0 && (de = readdir(d))) {
        struct stat st;
        int s2, d2;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            rc = copy_file(dirfd(d), dst, de->d_name, c);
            continue;
        }
        if (!S_ISDIR(st.st_mode) || depth >= TREE_MAX_DEPTH) {
            c->skipped++;                            /* links, FIFOs, devices, too deep */
            continue;
        }
        as_jail(c, 1);
        if (mkdirat(dst, de->d_name, st.st_mode & 01777) < 0 && errno != EEXIST)
            rc = -1;
        as_jail(c, 0);
        s2 = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        d2 = rc ? -1 : openat(dst, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (s2 >= 0 && d2 >= 0)
            rc = fo_session_copy_tree(s2, d2, c, depth + 1);
        else if (!rc && s2 >= 0)
            rc = -1;
        if (s2 >= 0)
            close(s2);
        if (d2 >= 0)
            close(d2);
    }
    closedir(d);
    return rc;
}

int fo_session_remove_tree(int parent, const char *name, int depth)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;
    struct dirent *de;

    if (fd < 0)
        return unlinkat(parent, name, 0) == 0 || errno == ENOENT ? 0 : -1;
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
        if (!strcmp(c->files[k].name, name))
            return &c->files[k];
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
        if (seen)
            continue;
        snprintf(path, sizeof path, "/out/%s", name);
        fo_buf_puts(b, n++ ? ", {\"path\": " : "{\"path\": ");
        fo_sandbox_json_str(b, path, strlen(path));
        fo_buf_puts(b, ", \"reason\": ");
        fo_sandbox_json_str(b, why, strlen(why));
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

        if (old && !strcmp(old->sha256, f->sha256))
            continue;
        snprintf(path, sizeof path, "/out/%s", f->name);
        fo_buf_puts(b, n++ ? ", {\"path\": " : "{\"path\": ");
        fo_sandbox_json_str(b, path, strlen(path));
        fo_buf_printf(b, ", \"bytes\": %llu, \"sha256\": \"%s\"}",
                              (unsigned long long)f->bytes, f->sha256);
    }
    fo_buf_puts(b, "]");
}

void fo_session_displays(fo_buf *b, const fo_sandbox_collection *out,
                         char (*paths)[256], size_t n)
{
    size_t k, shown = 0;

    fo_buf_puts(b, "[");
    for (k = 0; k < n; k++) {
        const fo_sandbox_file *f = find(out, paths[k]);
        char path[300];

        if (!f)
            continue;                    /* not a regular file of /out: not shown */
        snprintf(path, sizeof path, "/out/%s", f->name);
        fo_buf_puts(b, shown++ ? ", {\"mime\": \"image/png\", \"path\": "
                                       : "{\"mime\": \"image/png\", \"path\": ");
        fo_sandbox_json_str(b, path, strlen(path));
        fo_buf_printf(b, ", \"bytes\": %llu, \"sha256\": \"%s\"}",
                              (unsigned long long)f->bytes, f->sha256);
    }
    fo_buf_puts(b, "]");
}
