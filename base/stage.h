/* stage.h — a set of files written all or nothing, shared by `folio render`
 * (render/output.c) and `folio run --out` (sandbox/run.c); libc only, no
 * allocation (the caller lends the items), so the static launcher links it.
 *
 * Each file is first written to a temporary ".NAME.folio-XXXXXX" beside it
 * (created with O_EXCL, mode 0666 & ~umask, and flock'ed by its writer while
 * it lives). fo_stage_commit then hard-links every file about to be replaced
 * to ".NAME.folio~XXXXXX", renames every temporary into place, and removes
 * the links; if a rename fails, the ones done are undone (the old file put
 * back, or the new one removed where there was none), so the folder holds
 * the old set or the new one, never a mix. SIGINT, SIGTERM and SIGHUP during
 * a stage's life remove its temporaries (and undo a commit in progress) and
 * then end the process as the signal would have. Temporaries a killed
 * process left behind are removed by the next fo_stage_sweep of that name:
 * only those whose flock nobody holds (so never a live writer's, whatever
 * PID namespace it is in). Limits: a file system without hard links cannot
 * keep the old file for a rollback (the new one is then removed and the old
 * one is lost: see fo_stage_commit); SIGKILL in the middle of the renames
 * can leave a mix. */
#ifndef FO_STAGE_H
#define FO_STAGE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define FO_STAGE_NAME 256          /* a final name (one component) and its NUL */

typedef struct {
    int dir;                       /* the folder (a dup, owned) */
    int fd;                        /* the temporary, open and flock'ed; -1 once closed */
    char name[FO_STAGE_NAME];
    char tmp[FO_STAGE_NAME + 24];  /* ".NAME.folio-XXXXXX" */
    char bak[FO_STAGE_NAME + 24];  /* ".NAME.folio~XXXXXX" or "" */
    volatile sig_atomic_t state;   /* see stage.c */
} fo_stage_item;

typedef struct fo_stage {
    fo_stage_item *items;          /* borrowed, cap of them */
    size_t cap;
    volatile sig_atomic_t n;
} fo_stage;

/* Starts an empty set over items[0..cap) and registers it for the signal
   cleanup (at most 4 live sets at once; more are not cleaned on a signal).
   0, or -1 (errno). */
int fo_stage_begin(fo_stage *s, fo_stage_item *items, size_t cap);
/* Moves the set to a larger items[0..cap) (the old array is the caller's
   to free afterwards); the signal cleanup never sees a half copy. */
void fo_stage_grow(fo_stage *s, fo_stage_item *items, size_t cap);
/* Creates the temporary for name (one component, < FO_STAGE_NAME chars) in
   folder dir. Returns the open descriptor (owned by the set; write through it
   or reopen the path from fo_stage_path), or -1 (errno). */
int fo_stage_add(fo_stage *s, int dir, const char *name);
/* "DIR/TMP" for item k's temporary when dir_path names its folder ("" = cwd). */
int fo_stage_path(const fo_stage *s, size_t k, const char *dir_path, char *buf, size_t len);
/* Renames every temporary into place, all or none (see above). 0, or -1 with
   errno and *failed = the index of the file that could not be put in place. */
int fo_stage_commit(fo_stage *s, size_t *failed);
/* Removes the temporaries left, closes everything, unregisters. */
void fo_stage_end(fo_stage *s);
/* Removes stale temporaries of name in dir (left by a killed writer). */
void fo_stage_sweep(int dir, const char *name);
/* Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (the old mask in
   *old), and puts the old mask back. A thread started in between keeps them
   blocked for its life: the signals then reach only the thread that stages
   files, whose cleanup cannot run while that thread is half way through a
   change (base/thread.h). */
void fo_stage_signals_block(sigset_t *old);
void fo_stage_signals_restore(const sigset_t *old);

#endif
