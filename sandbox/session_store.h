/* session_store.h — files in and out of a session's jail (session_store.c).
 * Private to sandbox/session*.c; needs FO_SANDBOX_PRIVATE's types. */
#ifndef FO_SESSION_STORE_H
#define FO_SESSION_STORE_H

#include <stdint.h>

/* A tree copy's budget and identity. as_jail: files and folders are created
   with the file-system uid/gid uid:gid (the jail's host identity). */
typedef struct {
    uint64_t bytes, max_bytes;
    unsigned files, max_files;
    unsigned skipped;             /* links, FIFOs, devices, over budget, too deep */
    int as_jail;
    unsigned uid, gid;
} fo_session_copy;

/* Copies the folders and regular files under src into dst (both open
   folders), never following a link; an existing file in dst is kept. 0, or
   -1 (errno) when a copy failed. */
int fo_session_copy_tree(int src, int dst, fo_session_copy *c, int depth);
/* rm -r of dirfd/name without following links. 0 or -1. */
int fo_session_remove_tree(int dirfd, const char *name, int depth);
/* JSON array of the files of after that are new or changed since before
   ({"path": "/out/...", "bytes", "sha256"}). */
void fo_session_out_changes(fo_buf *b, const fo_sandbox_collection *before,
                            const fo_sandbox_collection *after);

#endif
