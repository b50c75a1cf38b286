/* stage.c — a set of files written all or nothing (see stage.h).
 *
 * An item's state says what exists on disk, so that the rollback — which
 * also runs in a signal handler and therefore uses only async-signal-safe
 * calls (renameat, unlinkat, faccessat) — knows what to undo:
 *   STAGED    the temporary exists (and the backup link, if bak[0])
 *   RENAMING  a rename is under way: done if the temporary is gone
 *   PLACED    the new file is in place; the old one, if any, is at bak
 *   DONE      nothing left to undo */
#include "base/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_FREE, ST_STAGED, ST_RENAMING, ST_PLACED, ST_DONE };

#define MAX_LIVE 4
static fo_stage *volatile live[MAX_LIVE];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction saved[3];
static int installed;

/* Undoes what item k did (async-signal-safe). */
static void undo(fo_stage_item *it)
{
    int st = it->state;

    if (st == ST_RENAMING)
        st = faccessat(it->dir, it->tmp, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ? ST_STAGED : ST_PLACED;
    if (st == ST_PLACED) {
        if (it->bak[0])
            (void)renameat(it->dir, it->bak, it->dir, it->name);
        else (void)unlinkat(it->dir, it->name, 0);
    } else if (st == ST_STAGED) {
        (void)unlinkat(it->dir, it->tmp, 0);
        if (it->bak[0]) (void)unlinkat(it->dir, it->bak, 0);
    }
    it->state = ST_DONE;
}

static void rollback(fo_stage *s)
{
    size_t k = (size_t)s->n;

    while (k-- > 0) undo(&s->items[k]);
}

static void on_signal(int sig)
{
    int k;

    for (k = 0; k < MAX_LIVE; k++)
        if (live[k]) rollback(live[k]);
    (void)signal(sig, SIG_DFL);
    (void)raise(sig);
}

/* Installs the cleanup on the signals whose disposition is the default. */
static void install(void)
{
    struct sigaction sa;
    size_t k;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (k = 0; k < 3; k++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            sigaction(cleanup_signals[k], &sa, &saved[k]) == 0)
            installed |= 1 << k;
    }
}

static void uninstall(void)
{
    size_t k;

    for (k = 0; k < 3; k++)
        if (installed & (1 << k)) (void)sigaction(cleanup_signals[k], &saved[k], NULL);
    installed = 0;
}

/* Blocks (how = SIG_BLOCK) or restores the cleanup signals around changes
   the handler must not see half done. */
static void mask(int how, sigset_t *old)
{
    sigset_t set;
    size_t k;

    if (how == SIG_SETMASK) {
        (void)sigprocmask(SIG_SETMASK, old, NULL);
        return;
    }
    sigemptyset(&set);
    for (k = 0; k < 3; k++) sigaddset(&set, cleanup_signals[k]);
    (void)sigprocmask(SIG_BLOCK, &set, old);
}

int fo_stage_begin(fo_stage *s, fo_stage_item *items, size_t cap)
{
    sigset_t old;
    int k, any = 0;

    s->items = items;
    s->cap = cap;
    s->n = 0;
    mask(SIG_BLOCK, &old);
    for (k = 0; k < MAX_LIVE; k++) any |= live[k] != NULL;
    for (k = 0; k < MAX_LIVE && live[k]; k++)
        ;
    if (k < MAX_LIVE) live[k] = s;
    if (!any && k < MAX_LIVE) install();
    mask(SIG_SETMASK, &old);
    return 0;
}

void fo_stage_grow(fo_stage *s, fo_stage_item *items, size_t cap)
{
    sigset_t old;

    mask(SIG_BLOCK, &old);
    if (s->n) memcpy(items, s->items, (size_t)s->n * sizeof *items);
    s->items = items;
    s->cap = cap;
    mask(SIG_SETMASK, &old);
}

/* ".NAME.folio" + kind + 6 random characters. */
static void temp_name(char *buf, size_t len, const char *name, char kind)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    struct timespec ts;
    unsigned seed;
    int k;
    char sfx[7];

    clock_gettime(CLOCK_REALTIME, &ts);
    seed = (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^ (++counter * 40503u);
    for (k = 0; k < 6; k++) {
        seed = seed * 1103515245u + 12345u;
        sfx[k] = chars[(seed >> 16) % 36];
    }
    sfx[6] = 0;
    snprintf(buf, len, ".%s.folio%c%s", name, kind, sfx);
}

void fo_stage_signals_block(sigset_t *old) { mask(SIG_BLOCK, old); }

void fo_stage_signals_restore(const sigset_t *old)
{
    sigset_t m = *old;

    mask(SIG_SETMASK, &m);
}

int fo_stage_add(fo_stage *s, int dir, const char *name)
{
    fo_stage_item *it;
    sigset_t old;
    int tries, fd = -1;

    if ((size_t)s->n >= s->cap || strlen(name) >= FO_STAGE_NAME || !*name || strchr(name, '/')) {
        errno = (size_t)s->n >= s->cap ? ENOSPC : EINVAL;
        return -1;
    }
    it = &s->items[s->n];
    memset(it, 0, sizeof *it);
    it->fd = -1;
    snprintf(it->name, sizeof it->name, "%s", name);
    if ((it->dir = fcntl(dir, F_DUPFD_CLOEXEC, 3)) < 0) return -1;
    /* created and registered at once: a signal in between would leave the
       temporary behind, unknown to the handler */
    mask(SIG_BLOCK, &old);
    for (tries = 0; fd < 0 && tries < 100; tries++) {
        temp_name(it->tmp, sizeof it->tmp, name, '-');
        /* 0666: the umask decides, as for any file the user creates */
        fd = openat(it->dir, it->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        mask(SIG_SETMASK, &old);
        close(it->dir);
        errno = e;
        return -1;
    }
    it->fd = fd;
    it->state = ST_STAGED;
    s->n = s->n + 1;                       /* only now does the handler see it */
    mask(SIG_SETMASK, &old);
    (void)flock(fd, LOCK_EX | LOCK_NB); /* "a live writer": see fo_stage_sweep */
    return fd;
}

int fo_stage_path(const fo_stage *s, size_t k, const char *dir_path, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s%s%s", dir_path, *dir_path ? "/" : "", s->items[k].tmp);

    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Links the file item k replaces to a backup name; none if there is no such
   file or the file system has no hard links. */
static void backup(fo_stage_item *it)
{
    int tries;

    for (tries = 0; tries < 100; tries++) {
        temp_name(it->bak, sizeof it->bak, it->name, '~');
        if (linkat(it->dir, it->name, it->dir, it->bak, 0) == 0) return;
        if (errno != EEXIST) break;
    }
    it->bak[0] = 0;
}

int fo_stage_commit(fo_stage *s, size_t *failed)
{
    size_t k, n = (size_t)s->n;

    for (k = 0; k < n; k++) backup(&s->items[k]);
    for (k = 0; k < n; k++) {
        fo_stage_item *it = &s->items[k];
        it->state = ST_RENAMING;
        if (renameat(it->dir, it->tmp, it->dir, it->name) < 0) {
            int e = errno;
            it->state = ST_STAGED;
            rollback(s);
            if (failed) *failed = k;
            errno = e;
            return -1;
        }
        it->state = ST_PLACED;
    }
    for (k = 0; k < n; k++) {
        fo_stage_item *it = &s->items[k];
        if (it->bak[0]) (void)unlinkat(it->dir, it->bak, 0);
        it->state = ST_DONE;
    }
    return 0;
}

void fo_stage_end(fo_stage *s)
{
    sigset_t old;
    size_t k;
    int any = 0;

    if (!s || !s->items) return;
    mask(SIG_BLOCK, &old);
    rollback(s);                           /* nothing once committed */
    for (k = 0; k < (size_t)s->n; k++) {
        if (s->items[k].fd >= 0) close(s->items[k].fd);
        close(s->items[k].dir);
    }
    s->n = 0;
    for (k = 0; k < MAX_LIVE; k++) {
        if (live[k] == s) live[k] = NULL;
        any |= live[k] != NULL;
    }
    if (!any) uninstall();
    mask(SIG_SETMASK, &old);
}

/* A temporary whose writer is gone: nobody holds its flock. */
static int unowned(int dir, const char *entry)
{
    int fd = openat(dir, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), free_;
    struct stat st;

    if (fd < 0) return 0;
    free_ = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_;
}

void fo_stage_sweep(int dir, const char *name)
{
    char prefix[FO_STAGE_NAME + 16];
    size_t plen;
    struct dirent *de;
    DIR *d;
    /* its own descriptor: a dup would share (and end at) the caller's offset */
    int dup = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (dup < 0 || !(d = fdopendir(dup))) {
        if (dup >= 0) close(dup);
        return;
    }
    plen = (size_t)snprintf(prefix, sizeof prefix, ".%s.folio", name);
    while ((de = readdir(d))) {
        const char *e = de->d_name;
        size_t len = strlen(e);
        char base[FO_STAGE_NAME + 24];

        /* ".NAME.folio-XXXXXX", ".NAME.folio~XXXXXX", or a zip writer's
           ".NAME.folio-XXXXXX.YYYYYY", whose owner is the first one's */
        if (strncmp(e, prefix, plen) || (e[plen] != '-' && e[plen] != '~') ||
            (len != plen + 7 && !(len == plen + 14 && e[plen + 7] == '.')))
            continue;
        snprintf(base, sizeof base, "%.*s", (int)(plen + 7), e);
        if (len > plen + 7 && faccessat(dirfd(d), base, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
            !unowned(dirfd(d), base))
            continue;
        if (unowned(dirfd(d), e)) (void)unlinkat(dirfd(d), e, 0);
    }
    closedir(d);
}
