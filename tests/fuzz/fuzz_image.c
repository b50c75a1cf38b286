/* fuzz_image.c — libFuzzer target for the image checks (formats/image.c).
 *
 * Input: the bytes of a would-be PNG or JPEG. A PNG's chunk CRCs are
 * recomputed first (unless the input's length is a multiple of 7, which
 * keeps the CRC check itself fuzzed): a mutation would almost never get
 * past it otherwise, and the structure behind it would go untested.
 * fo_image_check_mem must never crash, read out of bounds or allocate by
 * what a header claims. Checked invariants: an accepted image has a size
 * within the documented limits, and an accepted PNG small enough to decode
 * quickly decodes with cairo (what the PDF writer does) at exactly that
 * size. */
#include <cairo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/image.h"

int LLVMFuzzerTestOneInput(const unsigned char *in, size_t size);

typedef struct {
    const unsigned char *p;
    size_t left;
} reader;

static cairo_status_t read_mem(void *closure, unsigned char *out, unsigned int n)
{
    reader *r = closure;
    if (n > r->left) return CAIRO_STATUS_READ_ERROR;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return CAIRO_STATUS_SUCCESS;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void fix_crcs(unsigned char *d, size_t len)
{
    if (len < 8 || memcmp(d, "\x89PNG\r\n\x1a\n", 8) != 0 || len % 7 == 0) return;
    for (size_t at = 8; len - at >= 12;) {
        uint32_t n = be32(d + at);
        if (n > len - at - 12) return;
        uint32_t crc = (uint32_t)crc32(0, d + at + 4, n + 4);
        unsigned char *c = d + at + 8 + n;
        c[0] = (unsigned char)(crc >> 24);
        c[1] = (unsigned char)(crc >> 16);
        c[2] = (unsigned char)(crc >> 8);
        c[3] = (unsigned char)crc;
        at += 12 + (size_t)n;
    }
}

static void check(const unsigned char *data, size_t size)
{
    fo_image_info info;
    if (fo_image_check_mem(data, size, &info) != NULL) return;
    if (info.width <= 0 || info.height <= 0 || info.width > FO_IMAGE_MAX_SIDE ||
        info.height > FO_IMAGE_MAX_SIDE ||
        (unsigned long long)info.width * (unsigned long long)info.height > FO_IMAGE_MAX_PIXELS)
        abort();
    if (!info.is_png || (long long)info.width * info.height > 1 << 20) return;
    reader r = {data, size};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &r);
    if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
        (cairo_image_surface_get_width(s) != info.width || cairo_image_surface_get_height(s) != info.height))
        abort();
    cairo_surface_destroy(s);
}

int LLVMFuzzerTestOneInput(const unsigned char *in, size_t size)
{
    unsigned char *data = malloc(size ? size : 1);
    if (!data) return 0;
    memcpy(data, in, size);
    fix_crcs(data, size);
    check(data, size);
    free(data);
    return 0;
}
