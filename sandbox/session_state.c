/* session_state.c — the shared state folder of sessions (--state-dir,
 * FOLIO_STATE_DIR): saved sessions any instance may resume, on a folder
 * that may be shared by several machines (NFS, a ReadWriteMany volume).
 * Nothing here uses flock: NFS does not carry it reliably between machines.
 *
 *   STATE/ID/lease   "INSTANCE EXPIRY\n" (EXPIRY: Unix seconds). Taken with
 *                    link(2) of a private file (atomic on NFS), renewed by
 *                    rename over it while held; one whose expiry passed
 *                    (its holder died) is renamed away by one taker, who then
 *                    links its own.
 *   STATE/ID/head    the name of the current snapshot, written then renamed.
 *   STATE/ID/snap.R  a snapshot: meta, cells, kind ("checkpoint" or
 *                    "hibernation"), not_saved, files/{work,out,tmp}. Made in
 *                    full before head names it: a reader never sees half.
 *   STATE/ID/want    an instance waits to resume it: the holder hibernates
 *                    it (its lease keeper sends it SIGTERM), then lets go.
 *   STATE/ID/owner   written by folio serve (the token that made it).
 */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_store.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fo_session_state_dir(void)
{
    const char *path = getenv("FOLIO_STATE_DIR");

    if (!path || path[0] != '/') return -1;
    (void)mkdir(path, 0700);
    return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

const char *fo_session_instance(void)
{
    const char *me = getenv("FOLIO_INSTANCE");

    return me && *me && strlen(me) <= 32 && !strchr(me, ' ') ? me : "folio";
}

double fo_session_lease_ttl(void)
{
    const char *v = getenv("FOLIO_LEASE_S");
    double t = v ? strtod(v, NULL) : 0;

    return t >= 1 && t <= 3600 ? t : 10;
}

static int open_id(int state, const char *id, int create)
{
    if (create) (void)mkdirat(state, id, 0700);
    return openat(state, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* A private file "lease.INSTANCE.PID" holding our lease; 0 or -1. */
static int write_mine(int dir, char tmp[96])
{
    char text[96];

    snprintf(tmp, 96, "lease.%s.%ld", fo_session_instance(), (long)getpid());
    snprintf(text, sizeof text, "%s %lld\n", fo_session_instance(),
             (long long)time(NULL) + (long long)fo_session_lease_ttl());
    return fo_session_write_small(dir, tmp, text);
}

/* 1 when the lease is ours (our instance's name) or expired, 0 when
   another's holds, -1 when there is none. */
static int lease_free(int dir)
{
    char *text = fo_session_read_small(dir, "lease", 96), who[40] = "";
    long long until = 0;
    int rc;

    if (!text) return -1;
    rc = sscanf(text, "%39s %lld", who, &until) == 2 &&
         (!strcmp(who, fo_session_instance()) || until < (long long)time(NULL));
    fo_free(text);
    return rc;
}

int fo_session_lease_take(int state, const char *id, double wait_s)
{
    double end = fo_now() + wait_s;
    char tmp[96], away[128];
    int dir = open_id(state, id, 1), rc = -1;

    if (dir < 0) return -1;
    while (write_mine(dir, tmp) == 0) {
        int f;
        if (linkat(dir, tmp, dir, "lease", 0) == 0) {
            rc = 0;
            (void)unlinkat(dir, "want", 0);
            break;
        }
        f = errno == EEXIST ? lease_free(dir) : -2;
        if (f == -2) break;
        if (f == 1) {                     /* expired or ours: one taker moves it away */
            snprintf(away, sizeof away, "%s.old", tmp);
            if (renameat(dir, "lease", dir, away) == 0) (void)unlinkat(dir, away, 0);
            continue;
        }
        if (fo_now() >= end) {
            errno = EBUSY;
            break;
        }
        if (wait_s > 0)                   /* the holder is asked to save it and let go */
            (void)fo_session_write_small(dir, "want", fo_session_instance());
        usleep(200000);
    }
    (void)unlinkat(dir, tmp, 0);
    close(dir);
    return rc;
}

void fo_session_lease_renew(int state, const char *id)
{
    char tmp[96];
    int dir = open_id(state, id, 0);

    if (dir < 0) return;
    if (write_mine(dir, tmp) == 0 && renameat(dir, tmp, dir, "lease") < 0) (void)unlinkat(dir, tmp, 0);
    close(dir);
}

/* True when the supervisor of id serves requests (RT/ID/state "live"): it
   then takes SIGTERM as "hibernate" (before, SIGTERM would kill it). */
static int serving(const char *id)
{
    fo_session_error ignore;
    int rt = fo_session_runtime(&ignore), dir = rt >= 0 ? openat(rt, id, O_RDONLY | O_DIRECTORY |
                                                                  O_NOFOLLOW | O_CLOEXEC) : -1;
    char *text = dir >= 0 ? fo_session_read_small(dir, "state", 64) : NULL;
    int yes = text && !strcmp(text, "live\n");

    fo_free(text);
    if (dir >= 0) close(dir);
    if (rt >= 0) close(rt);
    return yes;
}

int fo_session_lease_keep(const char *id)
{
    int state = fo_session_state_dir(), asked = 0;
    pid_t parent = getppid();
    unsigned us = (unsigned)(fo_session_lease_ttl() * 1e6 / 3);

    if (state < 0 || !fo_session_valid_id(id)) return 2;
    while (getppid() == parent) {
        char want[300];
        usleep(us);
        if (getppid() != parent) break;
        fo_session_lease_renew(state, id);
        snprintf(want, sizeof want, "%s/want", id);
        if (!asked && faccessat(state, want, F_OK, AT_SYMLINK_NOFOLLOW) == 0 && serving(id)) {
            asked = 1;                    /* another instance waits for it: hibernate */
            kill(parent, SIGTERM);
        }
    }
    close(state);
    return 0;
}

void fo_session_lease_drop(int state, const char *id)
{
    int dir = open_id(state, id, 0);

    if (dir < 0) return;
    if (lease_free(dir) == 1) (void)unlinkat(dir, "lease", 0);
    close(dir);
}

int fo_session_snap_begin(int state, const char *id, char name[40])
{
    char hex[33];
    int dir = open_id(state, id, 1), fd = -1;

    if (dir < 0) return -1;
    fo_session_new_id(hex);
    snprintf(name, 40, "snap.%.16s", hex);
    if (mkdirat(dir, name, 0700) == 0)
        fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(dir);
    return fd;
}

/* Removes the snapshots of dir but keep. */
static void drop_snaps_but(int dir, const char *keep)
{
    int dup_fd = dup(dir);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *de;

    if (!d) {
        if (dup_fd >= 0) close(dup_fd);
        return;
    }
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "snap.", 5) && strcmp(de->d_name, keep))
            (void)fo_session_remove_tree(dir, de->d_name, 0);
    closedir(d);
}

int fo_session_snap_commit(int state, const char *id, const char *name, int ok)
{
    char line[48];
    int dir = open_id(state, id, 0), rc;

    if (dir < 0) return -1;
    snprintf(line, sizeof line, "%s\n", name);
    rc = ok ? fo_session_write_small(dir, "head", line) : -1;
    if (rc == 0)
        drop_snaps_but(dir, name);
    else (void)fo_session_remove_tree(dir, name, 0);
    close(dir);
    return rc;
}

int fo_session_snap_open(int state, const char *id)
{
    int dir = open_id(state, id, 0), fd = -1;
    char *head = dir >= 0 ? fo_session_read_small(dir, "head", 40) : NULL;

    if (head) {
        head[strcspn(head, "\n")] = 0;
        if (!strncmp(head, "snap.", 5) && !strchr(head, '/'))
            fd = openat(dir, head, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    fo_free(head);
    if (dir >= 0) close(dir);
    return fd;
}

int fo_session_state_has(const char *id)
{
    int state = fo_session_state_dir(), fd;

    if (state < 0 || !fo_session_valid_id(id)) {
        if (state >= 0) close(state);
        return 0;
    }
    fd = fo_session_snap_open(state, id);
    close(state);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

void fo_session_state_remove(const char *id)
{
    int state = fo_session_state_dir();

    if (state < 0) return;
    if (fo_session_valid_id(id)) (void)fo_session_remove_tree(state, id, 0);
    close(state);
}
