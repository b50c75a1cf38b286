/* path.c — files named by untrusted documents (see path.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/path.h"

#define MAX_DEPTH 64

/* Splits rel into normalised components (no "", ".", ".."), in place in
 * buf; FO_PATH_OUTSIDE when ".." climbs above the folder. */
static fo_path_status split(char *buf, char **comp, size_t *n)
{
    *n = 0;
    for (char *s = buf, *save = NULL, *tok; (tok = strtok_r(s, "/", &save)); s = NULL) {
        if (!strcmp(tok, ".")) continue;
        if (!strcmp(tok, "..")) {
            if (*n == 0) return FO_PATH_OUTSIDE;
            (*n)--;
            continue;
        }
        if (*n == MAX_DEPTH) return FO_PATH_TOO_LONG;
        comp[(*n)++] = tok;
    }
    return *n ? FO_PATH_OK : FO_PATH_NOT_REGULAR; /* "." or "a/..": the folder itself */
}

/* What the entry name in dirfd is, without following it. */
static fo_path_status classify(int dirfd, const char *name, bool last)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT || errno == ENOTDIR ? FO_PATH_MISSING : FO_PATH_UNREADABLE;
    if (S_ISLNK(st.st_mode)) return FO_PATH_LINK;
    if (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)) return last ? FO_PATH_NOT_REGULAR : FO_PATH_MISSING;
    return FO_PATH_OK;
}

/* Opens the last component and checks it once open (a swap after classify
 * is caught here: O_NOFOLLOW, O_NONBLOCK, fstat). */
static fo_path_status check_file(int dirfd, const char *name, uint64_t max_bytes)
{
    fo_path_status st = classify(dirfd, name, true);
    if (st != FO_PATH_OK) return st;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return errno == ELOOP ? FO_PATH_LINK : errno == ENOENT ? FO_PATH_MISSING : FO_PATH_UNREADABLE;
    struct stat sb;
    if (fstat(fd, &sb) != 0) st = FO_PATH_UNREADABLE;
    else if (!S_ISREG(sb.st_mode)) st = FO_PATH_NOT_REGULAR;
    else if ((uint64_t)sb.st_size > max_bytes) st = FO_PATH_TOO_BIG;
    close(fd);
    return st;
}

fo_path_status fo_path_inside(const char *base, const char *rel, uint64_t max_bytes, char *out, size_t cap)
{
    if (!rel[0]) return FO_PATH_EMPTY;
    if (rel[0] == '/') return FO_PATH_ABSOLUTE;
    char buf[4096], *comp[MAX_DEPTH];
    size_t n;
    if (strlen(rel) >= sizeof buf) return FO_PATH_TOO_LONG;
    memcpy(buf, rel, strlen(rel) + 1);
    fo_path_status st = split(buf, comp, &n);
    if (st != FO_PATH_OK) return st;
    int dir = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return FO_PATH_UNREADABLE;
    for (size_t i = 0; i + 1 < n && st == FO_PATH_OK; i++) {
        if ((st = classify(dir, comp[i], false)) != FO_PATH_OK) break;
        int next = openat(dir, comp[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) st = errno == ELOOP || errno == ENOTDIR ? FO_PATH_LINK : FO_PATH_UNREADABLE;
        close(dir);
        dir = next;
    }
    if (st == FO_PATH_OK) st = check_file(dir, comp[n - 1], max_bytes);
    if (dir >= 0) close(dir);
    if (st != FO_PATH_OK) return st;
    size_t k = (size_t)snprintf(out, cap, "%s", strcmp(base, "/") ? base : "");
    for (size_t i = 0; i < n && k < cap; i++) k += (size_t)snprintf(out + k, cap - k, "/%s", comp[i]);
    return k < cap ? FO_PATH_OK : FO_PATH_TOO_LONG;
}

const char *fo_path_message(fo_path_status st, const char *rel, uint64_t max_bytes, char *buf, size_t cap,
                            const char **hint)
{
    *hint = "paths are relative to the folder of the file that names them, and stay inside it";
    switch (st) {
    case FO_PATH_OK: snprintf(buf, cap, "\"%.200s\" is fine", rel); break;
    case FO_PATH_EMPTY: snprintf(buf, cap, "empty path"); break;
    case FO_PATH_ABSOLUTE: snprintf(buf, cap, "absolute path \"%.200s\" is not allowed", rel); break;
    case FO_PATH_OUTSIDE: snprintf(buf, cap, "path \"%.200s\" leads outside the folder", rel); break;
    case FO_PATH_MISSING: snprintf(buf, cap, "file \"%.200s\" not found", rel); break;
    case FO_PATH_LINK:
        snprintf(buf, cap, "\"%.200s\" goes through a symbolic link; links are refused (they can lead outside the folder)", rel);
        *hint = "copy the file into the folder instead of linking to it";
        break;
    case FO_PATH_NOT_REGULAR: snprintf(buf, cap, "\"%.200s\" is not a regular file", rel); break;
    case FO_PATH_TOO_BIG:
        snprintf(buf, cap, "\"%.200s\" is larger than %llu bytes", rel, (unsigned long long)max_bytes);
        *hint = NULL;
        break;
    case FO_PATH_TOO_LONG: snprintf(buf, cap, "path \"%.200s\" is too long", rel); break;
    case FO_PATH_UNREADABLE: snprintf(buf, cap, "\"%.200s\" cannot be read", rel); break;
    }
    return buf;
}
