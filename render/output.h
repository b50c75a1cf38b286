/* output.h — staged, size-checked, atomic output files.
 *
 * A renderer never writes a destination directly: it asks the output set for
 * a temporary path beside the destination, writes there, and returns. When all
 * renderers are done, fo_outset_commit checks every file against the ceiling
 * and renames them into place; any failure removes every temporary file, so a
 * failed render leaves nothing and never replaces an existing file. */
#ifndef FO_OUTPUT_H
#define FO_OUTPUT_H

#include "folio.h"

typedef struct fo_outset fo_outset;

fo_outset *fo_outset_new(uint64_t max_bytes);
/* The same for scratch outputs (fo_render_opts.scratch), files a caller
 * reads once and removes, in a folder of its own: each is written in place,
 * not staged (created with O_EXCL when added, so never over a file that is
 * there; no temporary, rename, mode fix or signal cleanup), and removed by
 * fo_outset_free unless committed. Commit neither fsyncs nor starts the
 * watchdog that stops a writer at the ceiling while it writes, so a runaway
 * writer is bounded only by the caller's own limits (the render child's
 * RLIMIT_CPU, its jail's tmpfs); commit still refuses a file over the
 * ceiling. Saves a thread, a disk flush and some 35 system calls a render
 * (the staging's folder sweep, flock, link, rename and signal handlers). */
fo_outset *fo_outset_new_scratch(uint64_t max_bytes);
/* Removes any temporary file still staged, then frees. NULL is a no-op. */
void fo_outset_free(fo_outset *o);

/* Stages dest: returns the temporary path to write (borrowed; valid until
 * commit or free), or NULL with a diagnostic (e.g. folder does not exist). */
const char *fo_outset_add(fo_outset *o, const char *dest, const char *format, fo_diags *d);

/* The open descriptor of the temporary tmp (fo_outset_add's path, the
 * same pointer), borrowed: a writer that has the whole file in memory writes
 * it there instead of opening the path again (two system calls fewer a
 * file, issue 39). -1 when tmp is not one of o's, or o is a scratch set
 * (its outputs are written in place and hold no descriptor): then open tmp. */
int fo_outset_fd(const fo_outset *o, const char *tmp);

/* Checks sizes, fsyncs and renames all staged files, all or none (a failed
 * rename undoes the ones done: base/stage.h). FO_ERR_CEILING if any file
 * exceeds the ceiling (nothing is renamed, all temporaries removed). Every
 * output gets mode 0666 & ~umask, like any file the user creates. *written
 * (may be NULL) lists them, with each file's SHA-256 when sha256. */
fo_status fo_outset_commit(fo_outset *o, fo_written_list *written, bool sha256, fo_diags *d);

/* The ceiling of this set. */
uint64_t fo_outset_max_bytes(const fo_outset *o);

/* True once a staged file passed the ceiling while being written (the
 * writer's writes were then stopped with EFBIG: see output.c). */
bool fo_outset_tripped(const fo_outset *o);

/* A writer failed with st: FO_ERR_CEILING with a message naming the file, its
 * format and the ceiling if that was because a staged file passed the
 * ceiling, else st unchanged. */
fo_status fo_outset_fail(fo_outset *o, fo_status st, fo_diags *d);

#endif
