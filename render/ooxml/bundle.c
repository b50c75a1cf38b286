/* bundle.c — a zip of finished files (folio serve's answer when several
 * formats are asked for at once): libzip stays in render/ooxml. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <zip.h>

#include "folio.h"

int fo_zip_fds(const char *path, const char *const *names, const int *fds, size_t n)
{
    int err = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_EXCL, &err);

    if (!z) return -1;
    for (size_t k = 0; k < n; k++) {
        FILE *f = fdopen(dup(fds[k]), "rb");
        zip_source_t *src = f ? zip_source_filep_create(f, 0, -1, NULL) : NULL;
        zip_int64_t i;

        if (!src) {
            if (f) fclose(f);
            zip_discard(z);
            return -1;
        }
        i = zip_file_add(z, names[k], src, ZIP_FL_ENC_UTF_8);
        if (i < 0) {
            zip_source_free(src);
            zip_discard(z);
            return -1;
        }
        zip_file_set_mtime(z, (zip_uint64_t)i, 315532800, 0);   /* 1980-01-01: same bytes */
        zip_set_file_compression(z, (zip_uint64_t)i, ZIP_CM_DEFLATE, 6);
    }
    if (zip_close(z) < 0) {
        zip_discard(z);
        unlink(path);
        return -1;
    }
    return 0;
}
