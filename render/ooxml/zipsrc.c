/* zipsrc.c — see zipsrc.h. */
#include <errno.h>

#include "base/buf.h"
#include "render/ooxml/zipsrc.h"

zip_int64_t fo_zip_source_other(zip_error_t *err, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    if (cmd == ZIP_SOURCE_ERROR) return zip_error_to_data(err, data, n);
    if (cmd == ZIP_SOURCE_SUPPORTS)
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    zip_error_set(err, ZIP_ER_OPNOTSUPP, 0);
    return -1;
}

zip_int64_t fo_zip_stat_deflated(zip_error_t *err, void *data, zip_uint64_t n, uint64_t size,
                                 uint64_t comp_size, uint32_t crc)
{
    if (n < sizeof(zip_stat_t)) {
        zip_error_set(err, ZIP_ER_INVAL, 0);
        return -1;
    }
    zip_stat_t *st = data;
    zip_stat_init(st);
    st->size = size;
    st->comp_size = comp_size;
    st->crc = crc;
    st->comp_method = ZIP_CM_DEFLATE;
    st->encryption_method = ZIP_EM_NONE;
    st->valid =
        ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD;
    return sizeof *st;
}

int fo_zip_pread(int fd, void *buf, size_t n, uint64_t off)
{
    errno = 0;
    if (fo_read_upto(fd, buf, n, (off_t)off) == n) return 0;
    return errno ? errno : EIO;
}
