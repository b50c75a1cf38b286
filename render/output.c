/* output.c — staged, size-checked, atomic output files (see output.h).
 *
 * Invariant: every path in o->files[i].tmp either does not exist or is a file
 * we created; fo_outset_free removes those left, so no error path leaks a
 * temporary file. Renames happen only after every file passed the ceiling. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/output.h"
#include "render/sha256.h"

typedef struct {
    char *dest;
    char *tmp;
    const char *format;
} staged;

struct fo_outset {
    uint64_t max_bytes;
    staged *files;
    size_t n, cap;
};

fo_outset *fo_outset_new(uint64_t max_bytes)
{
    fo_outset *o = fo_calloc(1, sizeof *o);
    if (o) o->max_bytes = max_bytes ? max_bytes : FO_DEFAULT_MAX_BYTES;
    return o;
}

uint64_t fo_outset_max_bytes(const fo_outset *o) { return o->max_bytes; }

void fo_outset_free(fo_outset *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->n; i++) {
        if (o->files[i].tmp) unlink(o->files[i].tmp);
        fo_free(o->files[i].tmp);
        fo_free(o->files[i].dest);
    }
    fo_free(o->files);
    fo_free(o);
}

const char *fo_outset_add(fo_outset *o, const char *dest, const char *format, fo_diags *d)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->files[i].dest, dest) == 0) {
            fo_diags_add(d, NULL, 0, 0, NULL, "give each output a different name",
                         "%s: written twice in one render", dest);
            return NULL;
        }
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4;
        staged *f = fo_realloc(o->files, cap * sizeof *f);
        if (!f) return NULL;
        o->files = f;
        o->cap = cap;
    }
    /* ".NAME.XXXXXX.tmp" beside the destination: same file system, so rename is atomic. */
    const char *slash = strrchr(dest, '/');
    size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0;
    const char *base = dest + dirlen;
    size_t len = strlen(dest) + 16;
    char *tmp = fo_malloc(len);
    char *dcopy = fo_strdup(dest);
    if (!tmp || !dcopy) { fo_free(tmp); fo_free(dcopy); return NULL; }
    snprintf(tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, dest, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, "check that the folder exists and is writable",
                     "%s: cannot create a file there: %s", dest, strerror(errno));
        fo_free(tmp); fo_free(dcopy);
        return NULL;
    }
    fchmod(fd, 0644 & ~(mode_t)0); /* mkstemp makes 0600; outputs are ordinary files */
    close(fd);
    o->files[o->n].dest = dcopy;
    o->files[o->n].tmp = tmp;
    o->files[o->n].format = format;
    o->n++;
    return tmp;
}

static fo_status check_one(const fo_outset *o, const staged *f, uint64_t *size, fo_diags *d)
{
    struct stat st;
    if (stat(f->tmp, &st) != 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: staged output vanished: %s", f->dest, strerror(errno));
        return FO_ERR_IO;
    }
    *size = (uint64_t)st.st_size;
    if (*size > o->max_bytes) {
        fo_diags_add(d, NULL, 0, 0, NULL,
                     "split the data, drop columns, or raise --max-bytes",
                     "%s: output would be %llu bytes, over the ceiling of %llu bytes",
                     f->dest, (unsigned long long)*size, (unsigned long long)o->max_bytes);
        return FO_ERR_CEILING;
    }
    return FO_OK;
}

static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

fo_status fo_outset_commit(fo_outset *o, fo_written_list *written, fo_diags *d)
{
    fo_status st = FO_OK;
    uint64_t *sizes = fo_calloc(o->n ? o->n : 1, sizeof *sizes);
    if (!sizes) return FO_ERR_NOMEM;
    for (size_t i = 0; i < o->n; i++) {
        fo_status s = check_one(o, &o->files[i], &sizes[i], d);
        if (s != FO_OK && st == FO_OK) st = s;
    }
    for (size_t i = 0; st == FO_OK && i < o->n; i++)
        if (sync_file(o->files[i].tmp) != 0) {
            fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot sync: %s", o->files[i].dest, strerror(errno));
            st = FO_ERR_IO;
        }
    if (st != FO_OK) goto cleanup;
    if (written) {
        written->items = fo_calloc(o->n ? o->n : 1, sizeof *written->items);
        if (!written->items) { st = FO_ERR_NOMEM; goto cleanup; }
        written->n = o->n;
        for (size_t i = 0; i < o->n; i++) {
            fo_written *w = &written->items[i];
            w->path = fo_strdup(o->files[i].dest);
            w->format = o->files[i].format;
            w->bytes = sizes[i];
            if (!fo_sha256_file_hex(o->files[i].tmp, w->sha256)) w->sha256[0] = '\0';
        }
    }
    for (size_t i = 0; i < o->n; i++) {
        if (rename(o->files[i].tmp, o->files[i].dest) != 0) {
            fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot move into place: %s",
                         o->files[i].dest, strerror(errno));
            st = FO_ERR_IO;
            break;
        }
        fo_free(o->files[i].tmp);
        o->files[i].tmp = NULL;
    }
cleanup:
    fo_free(sizes);
    return st;
}

void fo_written_free(fo_written_list *w)
{
    if (!w) return;
    for (size_t i = 0; i < w->n; i++) fo_free(w->items[i].path);
    fo_free(w->items);
    w->items = NULL;
    w->n = 0;
}
