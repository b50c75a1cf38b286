/* zipsrc.h — what folio's own read-only libzip sources answer alike: the
 * parts render/ooxml/package.c deflates or spills, and the rows
 * render/xlsx/repack.c splices into a worksheet. Each source handles OPEN,
 * READ, CLOSE, STAT and FREE itself and hands every other command here. */
#ifndef FO_OOXML_ZIPSRC_H
#define FO_OOXML_ZIPSRC_H

#include <stdint.h>
#include <zip.h>

/* The commands a read-only source leaves to fo_zip_source_other, as case
 * labels (listed so -Wswitch-enum still sees every command handled). */
#define FO_ZIP_SOURCE_OTHER_CASES                                                                            \
    case ZIP_SOURCE_ERROR:                                                                                   \
    case ZIP_SOURCE_SUPPORTS:                                                                                \
    case ZIP_SOURCE_SEEK:                                                                                    \
    case ZIP_SOURCE_TELL:                                                                                    \
    case ZIP_SOURCE_BEGIN_WRITE:                                                                             \
    case ZIP_SOURCE_COMMIT_WRITE:                                                                            \
    case ZIP_SOURCE_ROLLBACK_WRITE:                                                                          \
    case ZIP_SOURCE_WRITE:                                                                                   \
    case ZIP_SOURCE_SEEK_WRITE:                                                                              \
    case ZIP_SOURCE_TELL_WRITE:                                                                              \
    case ZIP_SOURCE_REMOVE:                                                                                  \
    case ZIP_SOURCE_RESERVED_1:                                                                              \
    case ZIP_SOURCE_BEGIN_WRITE_CLONING:                                                                     \
    case ZIP_SOURCE_ACCEPT_EMPTY:                                                                            \
    case ZIP_SOURCE_GET_FILE_ATTRIBUTES

/* A read-only source's answer to cmd: its error (err), the commands it
 * supports, and a refusal (ZIP_ER_OPNOTSUPP) of every other. */
zip_int64_t fo_zip_source_other(zip_error_t *err, void *data, zip_uint64_t n, zip_source_cmd_t cmd);

/* STAT of an entry whose bytes the source hands over already deflated (raw
 * deflate), so libzip copies them without compressing again: size
 * uncompressed, comp_size as handed over, crc of the uncompressed bytes.
 * Writes the stat into data (n bytes); -1 and err set when n is too small. */
zip_int64_t fo_zip_stat_deflated(zip_error_t *err, void *data, zip_uint64_t n, uint64_t size,
                                 uint64_t comp_size, uint32_t crc);

/* n bytes of fd at off into buf (EINTR retried): 0, or an errno value
 * (EIO when the file ends first). */
int fo_zip_pread(int fd, void *buf, size_t n, uint64_t off);

#endif
