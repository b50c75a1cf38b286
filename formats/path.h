/* path.h — opening a file that an untrusted document names: a spec's CSV and
 * images, a theme's fonts and logo. One rule for all of them.
 *
 * The path must be relative and stay inside the folder of the file that
 * names it. It is checked without touching the file system first (absolute
 * paths and ".." that climb out are refused as written), then walked one
 * component at a time from the folder with O_NOFOLLOW: a symbolic link
 * anywhere is refused without being followed, so no message can tell
 * whether something outside the folder exists. The last component must be a
 * regular file (a FIFO, device or /dev/stdin never blocks: it is opened
 * O_NONBLOCK and refused) of at most max_bytes. */
#ifndef FO_FORMATS_PATH_H
#define FO_FORMATS_PATH_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FO_PATH_OK = 0,
    FO_PATH_EMPTY,       /* "" */
    FO_PATH_ABSOLUTE,    /* starts with '/' */
    FO_PATH_OUTSIDE,     /* ".." climbs out of the folder */
    FO_PATH_MISSING,     /* no such file (or folder on the way) */
    FO_PATH_LINK,        /* a symbolic link on the way or at the end */
    FO_PATH_NOT_REGULAR, /* a folder, FIFO, device or socket */
    FO_PATH_TOO_BIG,     /* over max_bytes */
    FO_PATH_TOO_LONG,    /* the result would not fit out */
    FO_PATH_UNREADABLE   /* any other error (permissions, ...) */
} fo_path_status;

/* Resolves rel inside the folder base (an absolute path without links, e.g.
 * a realpath) to base/rel normalised, written into out (cap bytes). */
fo_path_status fo_path_inside(const char *base, const char *rel, uint64_t max_bytes,
                              char *out, size_t cap);

/* A message for st about rel ("\"x.png\" is a symbolic link; ..."), with a
 * hint in *hint; the same text whatever lies outside the folder. */
const char *fo_path_message(fo_path_status st, const char *rel, uint64_t max_bytes, char *buf,
                            size_t cap, const char **hint);

#endif
