/* session_store.h — files in and out of a session's jail (session_store.c).
 * Private to sandbox/session*.c; needs FO_SANDBOX_PRIVATE's types. */
#ifndef FO_SESSION_STORE_H
#define FO_SESSION_STORE_H

#include <stdint.h>

/* A tree copy's budget, identity and report. Holes of sparse files stay
   holes (SEEK_DATA/SEEK_HOLE): data is counted by allocated size, each
   extent rounded up to 4 KiB, against max_bytes. as_jail: files and folders
   are created with the file-system uid/gid uid:gid (the jail's host
   identity). cg (or NULL): before each file, the memory cgroup must keep
   `headroom` bytes free after it (a restore into the jail's tmpfs, which
   the cgroup is charged for). */
typedef struct {
    uint64_t bytes, max_bytes;    /* file data, by allocated size */
    unsigned files, max_files;    /* entries: files and folders */
    unsigned skipped;             /* links, FIFOs, devices, over budget, too deep */
    int as_jail;
    unsigned uid, gid;
    const fo_sandbox_cgroup *cg;
    uint64_t headroom;
    const char *budget_why;       /* the reason given for a file over max_bytes */
    fo_buf *lost;                 /* or NULL: JSON items {"name", "path", "reason"} */
    unsigned n_lost;              /* items in lost (at most 100, then one summary) */
    char path[4096];              /* the entry in hand, as the jail names it: "/work/a" */
    size_t plen;
} fo_session_copy;

/* Starts a copy of the jail's folder root ("/work") with the budget of c. */
void fo_session_copy_root(fo_session_copy *c, const char *root);
/* Copies the folders and regular files under src into dst (both open
   folders), never following a link; an existing file in dst is kept.
   Whatever is not copied (links, special files, too deep, over a budget)
   is counted in skipped and reported in lost. 0, or -1 (errno) when a copy
   failed. */
int fo_session_copy_tree(int src, int dst, fo_session_copy *c, int depth);
/* Closes c's report: a summary item for what passed the 100 listed. */
void fo_session_copy_end(fo_session_copy *c);
/* rm -r of dirfd/name without following links. 0 or -1. */
int fo_session_remove_tree(int dirfd, const char *name, int depth);
/* /out of a session now, as `folio run` collects it: entries past
   FO_SANDBOX_MAX_FILES and files over the ceiling refused, then files past
   --max-total by apparent size, before anything is read; then the rest
   hashed, except files unchanged since prev (name, inode, size, mtime,
   ctime; prev may be NULL), which keep prev's hash: a cell costs the host
   at most --max-total bytes hashed, and only for files it changed. On
   failure *now is empty. */
void fo_session_out_collect(int out_dir, const fo_sandbox_plan *p,
                            const fo_sandbox_collection *prev, fo_sandbox_collection *now);
/* JSON array of the entries refused in after and not (for the same reason)
   in before: {"path": "/out/...", "reason"}. */
void fo_session_out_refused(fo_buf *b, const fo_sandbox_collection *before,
                            const fo_sandbox_collection *after);
/* JSON array of the files of after that are new or changed since before
   ({"path": "/out/...", "bytes", "sha256"}). */
void fo_session_out_changes(fo_buf *b, const fo_sandbox_collection *before,
                            const fo_sandbox_collection *after);

/* ------------------------------------------ the shared state (session_state.c) */

/* FOLIO_STATE_DIR (folio serve --state-dir) opened, created if need be; -1
   when unset: sessions are then saved in the runtime folder only. */
int fo_session_state_dir(void);
/* FOLIO_INSTANCE, or "folio": the name a lease holds. */
const char *fo_session_instance(void);
/* A lease's life in seconds (FOLIO_LEASE_S, default 10); renewed at a third. */
double fo_session_lease_ttl(void);
/* Takes STATE/ID/lease (link(2) of a private file; an expired one, or one
   of this instance's name, is taken over), waiting up to wait_s for
   another's to expire. 0, or -1 (errno EBUSY: held by a live instance). */
int fo_session_lease_take(int state, const char *id, double wait_s);
/* Pushes the expiry of our lease on (written, then renamed over it). */
void fo_session_lease_renew(int state, const char *id);
/* Removes the lease when it is ours. */
void fo_session_lease_drop(int state, const char *id);
/* A new, empty snapshot folder STATE/ID/snap.R (named in name); its fd or -1. */
int fo_session_snap_begin(int state, const char *id, char name[40]);
/* When ok, STATE/ID/head names the snapshot (write then rename) and older
   ones are removed; when not (it could not be made in full) or on failure,
   the new one is removed and head is left as it was. 0 or -1. */
int fo_session_snap_commit(int state, const char *id, const char *name, int ok);
/* The current snapshot folder of ID, or -1 when it has none. */
int fo_session_snap_open(int state, const char *id);
/* Removes STATE/ID (a session closed). */
void fo_session_state_remove(const char *id);

#endif
