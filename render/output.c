/* output.c — staged, size-checked, atomic output files (see output.h).
 *
 * Invariant: every staged temporary either does not exist or is a file we
 * created; fo_outset_free removes those left (base/stage.c, which also does
 * so on SIGINT/SIGTERM/SIGHUP), so no error path leaks a temporary file.
 * Renames happen only after every file passed the ceiling, all or none.
 *
 * The ceiling while writing: a watchdog thread follows the writes in each
 * destination folder (inotify IN_MODIFY) and, the moment a staged file — or
 * the temporary a zip writer makes beside it, ".NAME.folio-XXXXXX.YYYYYY" —
 * passes the ceiling, lowers RLIMIT_FSIZE to the ceiling + 1 (SIGXFSZ is
 * ignored during a render), so the writer's next write fails with EFBIG and
 * the render ends as over the ceiling (fo_outset_tripped). It is not a
 * per-process limit from the start because writers keep working files that
 * are legitimately larger than their output: libxlsxwriter's worksheet XML is
 * ~8x the .xlsx (measured: a 10.9 MB workbook of 200k rows needs 84 MB of
 * XML), so RLIMIT_FSIZE = ceiling would refuse valid files. The overshoot is
 * what the writer writes before the thread runs: a few of its write buffers
 * (measured: a 100000-byte ceiling stopped at ~135 KB on the folder), more if
 * the machine is so loaded that the thread waits for a CPU. Without inotify
 * or threads the check at commit remains. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/output.h"
#include "base/sha256.h"
#include "base/stage.h"
#include "base/thread.h"

typedef struct {
    char *dest;
    char *tmp;          /* path of the staged temporary, as given to the writer */
    const char *format;
    int wd;             /* inotify watch of its folder, -1 if none */
} staged;

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    int ifd, stop[2], running;
    struct rlimit old_fsize;
    struct sigaction old_xfsz;
} watchdog;

struct fo_outset {
    uint64_t max_bytes;
    staged *files;
    size_t n, cap;
    fo_stage stage;
    fo_stage_item *items;
    watchdog w;
    bool scratch;               /* written in place, no watchdog: fo_outset_new_scratch */
    bool committed;             /* scratch outputs kept: commit succeeded */
    volatile int tripped;       /* index + 1 of the file that passed the ceiling */
};

/* ------------------------------------------------------------- watchdog */

/* Lowers RLIMIT_FSIZE to the ceiling + 1: the writer's next write fails. */
static void trip(fo_outset *o, size_t k)
{
    struct rlimit rl = o->w.old_fsize;

    if (!o->tripped) o->tripped = (int)k + 1;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > o->max_bytes + 1) rl.rlim_cur = o->max_bytes + 1;
    (void)setrlimit(RLIMIT_FSIZE, &rl);
}

/* An event for `name` in watch wd: is it one of ours, and over the ceiling? */
static void check_event(fo_outset *o, int wd, const char *name)
{
    for (size_t k = 0; k < o->n; k++) {
        const fo_stage_item *it = &o->items[k];
        size_t tl = strlen(it->tmp);
        struct stat st;
        if (o->files[k].wd != wd || strncmp(name, it->tmp, tl) || (name[tl] && name[tl] != '.')) continue;
        if (fstatat(it->dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (uint64_t)st.st_size > o->max_bytes)
            trip(o, k);
    }
}

static void *watch(void *arg)
{
    fo_outset *o = arg;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));

    for (;;) {
        struct pollfd pf[2] = { { o->w.ifd, POLLIN, 0 }, { o->w.stop[0], POLLIN, 0 } };
        if (poll(pf, 2, -1) < 0 && errno != EINTR) break;
        if (pf[1].revents) break;
        ssize_t len = read(o->w.ifd, buf, sizeof buf);
        if (len <= 0) continue;
        pthread_mutex_lock(&o->w.lock);
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            if (ev->len && !o->tripped) check_event(o, ev->wd, ev->name);
            p += sizeof *ev + ev->len;
        }
        pthread_mutex_unlock(&o->w.lock);
    }
    return NULL;
}

/* Starts the thread and ignores SIGXFSZ (the writer then sees EFBIG); both
   undone by stop_watch. Best effort: without it, commit still checks. */
static void start_watch(fo_outset *o)
{
    struct sigaction ign;

    o->w.ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (o->w.ifd < 0) return;
    if (pipe2(o->w.stop, O_CLOEXEC) < 0) { close(o->w.ifd); o->w.ifd = -1; return; }
    getrlimit(RLIMIT_FSIZE, &o->w.old_fsize);
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &ign, &o->w.old_xfsz);
    if (fo_thread_start(&o->w.thread, watch, o) != 0) {
        sigaction(SIGXFSZ, &o->w.old_xfsz, NULL);
        close(o->w.ifd); close(o->w.stop[0]); close(o->w.stop[1]);
        o->w.ifd = -1;
        return;
    }
    o->w.running = 1;
}

static void stop_watch(fo_outset *o)
{
    if (!o->w.running) return;
    (void)!write(o->w.stop[1], "", 1);
    pthread_join(o->w.thread, NULL);
    close(o->w.ifd); close(o->w.stop[0]); close(o->w.stop[1]);
    setrlimit(RLIMIT_FSIZE, &o->w.old_fsize);
    sigaction(SIGXFSZ, &o->w.old_xfsz, NULL);
    o->w.running = 0;
}

/* ------------------------------------------------------------ the set */

static fo_outset *outset_new(uint64_t max_bytes, bool scratch)
{
    fo_outset *o = fo_calloc(1, sizeof *o);
    if (!o) return NULL;
    o->max_bytes = max_bytes ? max_bytes : FO_DEFAULT_MAX_BYTES;
    o->scratch = scratch;
    o->w.ifd = -1;
    pthread_mutex_init(&o->w.lock, NULL);
    if (!scratch) {
        fo_stage_begin(&o->stage, NULL, 0);
        start_watch(o);
    }
    return o;
}

fo_outset *fo_outset_new(uint64_t max_bytes) { return outset_new(max_bytes, false); }

fo_outset *fo_outset_new_scratch(uint64_t max_bytes) { return outset_new(max_bytes, true); }

uint64_t fo_outset_max_bytes(const fo_outset *o) { return o->max_bytes; }

bool fo_outset_tripped(const fo_outset *o) { return o && o->tripped; }

void fo_outset_free(fo_outset *o)
{
    if (!o) return;
    stop_watch(o);
    fo_stage_end(&o->stage); /* removes every temporary not renamed into place */
    for (size_t i = 0; i < o->n; i++) {
        if (o->scratch && !o->committed) (void)unlink(o->files[i].dest);
        fo_free(o->files[i].tmp);
        fo_free(o->files[i].dest);
    }
    pthread_mutex_destroy(&o->w.lock);
    fo_free(o->files);
    fo_free(o->items);
    fo_free(o);
}

static bool grow(fo_outset *o)
{
    size_t cap = o->cap ? o->cap * 2 : 4;
    staged *f = fo_calloc(cap, sizeof *f);
    fo_stage_item *it = fo_calloc(cap, sizeof *it);
    if (!f || !it) { fo_free(f); fo_free(it); return false; }
    pthread_mutex_lock(&o->w.lock);
    if (o->n) memcpy(f, o->files, o->n * sizeof *f);
    if (!o->scratch) fo_stage_grow(&o->stage, it, cap);
    fo_free(o->files);
    fo_free(o->items);
    o->files = f;
    o->items = it;
    o->cap = cap;
    pthread_mutex_unlock(&o->w.lock);
    return true;
}

/* Opens the folder of dest ("." when it has none); *base is its last part. */
static int open_dest_dir(const char *dest, char **dir, const char **base)
{
    const char *slash = strrchr(dest, '/');
    *base = slash ? slash + 1 : dest;
    *dir = slash ? (slash == dest ? fo_strdup("/") : fo_strndup(dest, (size_t)(slash - dest)))
                 : fo_strdup(".");
    if (!*dir) { errno = ENOMEM; return -1; }
    return open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Stages dest in its folder (temporary created, stale ones swept, watched). */
static const char *stage_one(fo_outset *o, const char *dest, const char *format, fo_diags *d)
{
    const char *base;
    char *dir = NULL, *tmp = NULL, *dcopy = fo_strdup(dest);
    int dfd = dcopy ? open_dest_dir(dest, &dir, &base) : -1, fd = -1;
    size_t len = strlen(dest) + 40;
    if (dfd >= 0) {
        fo_stage_sweep(dfd, base);
        pthread_mutex_lock(&o->w.lock);
        fd = fo_stage_add(&o->stage, dfd, base);
        pthread_mutex_unlock(&o->w.lock);
    }
    int e = errno;
    if (dfd >= 0) close(dfd);
    if (fd < 0 || !(tmp = fo_malloc(len)) ||
        fo_stage_path(&o->stage, o->stage.n - 1, strcmp(dir, ".") ? dir : "", tmp, len) < 0) {
        if (fd < 0)
            fo_diags_add(d, NULL, 0, 0, NULL, "check that the folder exists and is writable",
                         "%s: cannot create a file there: %s", dest, strerror(e));
        fo_free(tmp); fo_free(dir); fo_free(dcopy);
        return NULL;
    }
    staged *f = &o->files[o->n];
    f->dest = dcopy;
    f->tmp = tmp;
    f->format = format;
    f->wd = o->w.ifd >= 0 ? inotify_add_watch(o->w.ifd, dir, IN_MODIFY) : -1;
    fo_free(dir);
    pthread_mutex_lock(&o->w.lock);
    o->n++;
    pthread_mutex_unlock(&o->w.lock);
    return tmp;
}

/* A scratch output: dest itself, created now (never over a file that is
   there), written in place by the writer. */
static const char *scratch_one(fo_outset *o, const char *dest, const char *format, fo_diags *d)
{
    int fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    int e = errno;
    char *dcopy = fd >= 0 ? fo_strdup(dest) : NULL, *tmp = dcopy ? fo_strdup(dest) : NULL;
    if (fd >= 0) close(fd);
    if (!tmp) {
        if (fd < 0)
            fo_diags_add(d, NULL, 0, 0, NULL, "check that the folder exists and is writable",
                         "%s: cannot create a file there: %s", dest, strerror(e));
        else (void)unlink(dest);
        fo_free(dcopy);
        return NULL;
    }
    staged *f = &o->files[o->n++];
    f->dest = dcopy;
    f->tmp = tmp;
    f->format = format;
    f->wd = -1;
    return tmp;
}

const char *fo_outset_add(fo_outset *o, const char *dest, const char *format, fo_diags *d)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->files[i].dest, dest) == 0) {
            fo_diags_add(d, NULL, 0, 0, NULL, "give each output a different name",
                         "%s: written twice in one render", dest);
            return NULL;
        }
    if (o->n == o->cap && !grow(o)) return NULL;
    return o->scratch ? scratch_one(o, dest, format, d) : stage_one(o, dest, format, d);
}

fo_status fo_outset_fail(fo_outset *o, fo_status st, fo_diags *d)
{
    if (st == FO_OK || !o->tripped) return st;
    const staged *f = &o->files[o->tripped - 1];
    fo_diags_add(d, NULL, 0, 0, NULL, "split the data, drop columns, or raise --max-bytes",
                 "%s: the %s output passed the ceiling of %llu bytes while being written; "
                 "stopped there, nothing written", f->dest, f->format,
                 (unsigned long long)o->max_bytes);
    return FO_ERR_CEILING;
}

static fo_status check_one(const fo_outset *o, const staged *f, struct stat *st, fo_diags *d)
{
    if (stat(f->tmp, st) != 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: staged output vanished: %s", f->dest, strerror(errno));
        return FO_ERR_IO;
    }
    uint64_t size = (uint64_t)st->st_size;
    if (size > o->max_bytes) {
        fo_diags_add(d, NULL, 0, 0, NULL, "split the data, drop columns, or raise --max-bytes",
                     "%s: output would be %llu bytes, over the ceiling of %llu bytes", f->dest,
                     (unsigned long long)size, (unsigned long long)o->max_bytes);
        return FO_ERR_CEILING;
    }
    return FO_OK;
}

int fo_outset_fd(const fo_outset *o, const char *tmp)
{
    if (o->scratch) return -1;
    for (size_t i = 0; i < o->n; i++)
        if (o->files[i].tmp == tmp) return o->items[i].fd;
    return -1;
}

/* Makes staged file i durable with the mode it was created with (0666 &
   ~umask); st: the file now at its temporary path. Most writers write the
   file they were given: then it is synced through the stage's own
   descriptor. A writer that replaced it (libzip renames its own 0600
   temporary over it) does not decide the mode of the output: the new file
   is given the staged one's mode, then opened and synced. */
static int settle(const fo_outset *o, size_t i, const struct stat *st)
{
    int fd = o->items[i].fd;
    struct stat own;
    if (fstat(fd, &own) != 0) return -1;
    if (own.st_dev != st->st_dev || own.st_ino != st->st_ino) {
        if (chmod(o->files[i].tmp, own.st_mode & 07777) != 0) return -1;
        int nfd = open(o->files[i].tmp, O_RDONLY | O_CLOEXEC);
        if (nfd < 0) return -1;
        int rc = fsync(nfd);
        close(nfd);
        return rc;
    }
    return fsync(fd);
}

static fo_status list_written(const fo_outset *o, const struct stat *sts, bool sha256,
                              fo_written_list *written)
{
    written->items = fo_calloc(o->n ? o->n : 1, sizeof *written->items);
    if (!written->items) return FO_ERR_NOMEM;
    written->n = o->n;
    for (size_t i = 0; i < o->n; i++) {
        fo_written *w = &written->items[i];
        w->path = fo_strdup(o->files[i].dest);
        w->format = o->files[i].format;
        w->bytes = (uint64_t)sts[i].st_size;
        if (!sha256 || !fo_sha256_file_hex(o->files[i].tmp, w->sha256)) w->sha256[0] = '\0';
    }
    return FO_OK;
}

fo_status fo_outset_commit(fo_outset *o, fo_written_list *written, bool sha256, fo_diags *d)
{
    fo_status st = FO_OK;
    struct stat *sts = fo_calloc(o->n ? o->n : 1, sizeof *sts);
    if (!sts) return FO_ERR_NOMEM;
    stop_watch(o);
    for (size_t i = 0; i < o->n; i++) {
        fo_status s = check_one(o, &o->files[i], &sts[i], d);
        if (s != FO_OK && st == FO_OK) st = s;
    }
    for (size_t i = 0; st == FO_OK && !o->scratch && i < o->n; i++)
        if (settle(o, i, &sts[i]) != 0) {
            fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot sync: %s", o->files[i].dest, strerror(errno));
            st = FO_ERR_IO;
        }
    if (st == FO_OK && written) st = list_written(o, sts, sha256, written);
    size_t failed = 0;
    if (st == FO_OK && o->scratch) o->committed = true;
    else if (st == FO_OK && fo_stage_commit(&o->stage, &failed) != 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot move into place: %s (no output "
                     "was changed)", o->files[failed].dest, strerror(errno));
        st = FO_ERR_IO;
        if (written) fo_written_free(written);
    }
    fo_free(sts);
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
