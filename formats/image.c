/* image.c — PNG/JPEG checks before decoding (see image.h).
 *
 * PNG: the signature, IHDR first (13 bytes, sane depth and colour type),
 * then every chunk walked: its length within the file, its CRC right, no
 * unknown critical chunk (libpng would refuse it), one well-formed PLTE
 * before the data, IDAT runs contiguous, IEND last. The IDAT stream is inflated into a 64 KiB
 * scratch buffer and must produce exactly the bytes the header implies
 * (filter byte + packed row, per row of each Adam7 pass when interlaced):
 * zlib errors, truncated and oversized streams are all caught here.
 * JPEG: the markers are walked to the first start-of-frame (SOF0..SOF15
 * except DHT/JPG/DAC), each segment length within the file; the frame gives
 * the size and must have 1, 3 or 4 components. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "folio.h"
#include "formats/image.h"

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const char *check_size(uint32_t w, uint32_t h)
{
    if (w == 0 || h == 0) return "the image has no pixels";
    if (w > FO_IMAGE_MAX_SIDE || h > FO_IMAGE_MAX_SIDE || (uint64_t)w * h > FO_IMAGE_MAX_PIXELS)
        return "the image is over the 50-megapixel limit";
    return NULL;
}

/* ---- PNG ------------------------------------------------------------------------ */

typedef struct {
    uint32_t w, h;
    unsigned depth, color, interlace;
} png_hdr;

static unsigned png_channels(unsigned color)
{
    switch (color) {
    case 0: return 1;  /* grey */
    case 2: return 3;  /* RGB */
    case 3: return 1;  /* palette */
    case 4: return 2;  /* grey + alpha */
    case 6: return 4;  /* RGBA */
    default: return 0;
    }
}

static bool png_depth_ok(unsigned color, unsigned depth)
{
    switch (color) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: case 4: case 6: return depth == 8 || depth == 16;
    default: return false;
    }
}

/* Bytes of filtered data for a w x h (sub)image: each row a filter byte and
 * its packed pixels. */
static uint64_t png_pass_bytes(const png_hdr *hd, uint64_t w, uint64_t h)
{
    if (w == 0 || h == 0) return 0;
    uint64_t bits = w * png_channels(hd->color) * hd->depth;
    return h * (1 + (bits + 7) / 8);
}

static uint64_t png_expected(const png_hdr *hd)
{
    if (!hd->interlace) return png_pass_bytes(hd, hd->w, hd->h);
    static const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, dx[7] = {8, 8, 4, 4, 2, 2, 1};
    static const int y0[7] = {0, 0, 4, 0, 2, 0, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
    uint64_t total = 0;
    for (int p = 0; p < 7; p++) {
        uint64_t pw = hd->w > (uint32_t)x0[p] ? (hd->w - x0[p] + dx[p] - 1) / dx[p] : 0;
        uint64_t ph = hd->h > (uint32_t)y0[p] ? (hd->h - y0[p] + dy[p] - 1) / dy[p] : 0;
        total += png_pass_bytes(hd, pw, ph);
    }
    return total;
}

/* Feeds one IDAT chunk to the inflater; counts the output in *out. */
static const char *png_inflate(z_stream *z, const unsigned char *p, uint32_t n, uint64_t *out,
                               uint64_t expected, bool *ended)
{
    unsigned char scratch[65536];
    z->next_in = (unsigned char *)p;
    z->avail_in = n;
    while (z->avail_in > 0 && !*ended) {
        z->next_out = scratch;
        z->avail_out = sizeof scratch;
        int rc = inflate(z, Z_NO_FLUSH);
        *out += sizeof scratch - z->avail_out;
        if (*out > expected) return "the PNG pixel data is larger than its header says";
        if (rc == Z_STREAM_END) *ended = true;
        else if (rc == Z_BUF_ERROR && z->avail_out == sizeof scratch) break;
        else if (rc != Z_OK) return "the PNG pixel data is corrupt (zlib)";
    }
    return NULL;
}

static const char *png_check(const unsigned char *d, size_t len, fo_image_info *info)
{
    if (len < 8 + 25 || be32(d + 8) != 13 || memcmp(d + 12, "IHDR", 4) != 0)
        return "the PNG does not start with its header (IHDR)";
    png_hdr hd = {be32(d + 16), be32(d + 20), d[24], d[25], d[28]};
    const char *why = check_size(hd.w, hd.h);
    if (why) return why;
    if (!png_depth_ok(hd.color, hd.depth) || d[26] != 0 || d[27] != 0 || hd.interlace > 1)
        return "the PNG header names an unknown format";
    uint64_t expected = png_expected(&hd), got = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return "out of memory";
    bool ended = false, seen_idat = false, idat_done = false, seen_plte = false;
    size_t at = 8;
    why = NULL;
    for (;;) {
        if (len - at < 12) { why = "the PNG ends before its IEND chunk"; break; }
        uint32_t n = be32(d + at);
        const unsigned char *type = d + at + 4, *body = d + at + 8;
        if (n > len - at - 12) { why = "a PNG chunk runs past the end of the file"; break; }
        if ((uint32_t)crc32(0, type, n + 4) != be32(body + n)) { why = "a PNG chunk fails its CRC check"; break; }
        bool idat = memcmp(type, "IDAT", 4) == 0;
        if (idat && idat_done) { why = "the PNG pixel data is split by other chunks"; break; }
        if (seen_idat && !idat) idat_done = true;
        if (memcmp(type, "PLTE", 4) == 0) {
            if (seen_plte || seen_idat || n == 0 || n % 3 || n / 3 > 256) { why = "the PNG palette is malformed"; break; }
            seen_plte = true;
        }
        if (!(type[0] & 0x20) && memcmp(type, "IHDR", 4) && memcmp(type, "PLTE", 4) && !idat &&
            memcmp(type, "IEND", 4)) { why = "the PNG has an unknown critical chunk"; break; }
        if (idat) {
            seen_idat = true;
            if ((why = png_inflate(&z, body, n, &got, expected, &ended)) != NULL) break;
        }
        at += 12 + (size_t)n;
        if (memcmp(type, "IEND", 4) == 0) break;
        if (at > 8 && memcmp(type, "IHDR", 4) == 0 && at != 33) { why = "the PNG has two headers"; break; }
    }
    inflateEnd(&z);
    if (why) return why;
    if (!seen_idat) return "the PNG has no pixel data (IDAT)";
    if (hd.color == 3 && !seen_plte) return "the palette PNG has no palette (PLTE)";
    if (!ended || got != expected) return "the PNG pixel data is shorter than its header says";
    info->is_png = true;
    info->width = (int)hd.w;
    info->height = (int)hd.h;
    return NULL;
}

/* ---- JPEG ------------------------------------------------------------------------ */

static const char *jpeg_check(const unsigned char *d, size_t len, fo_image_info *info)
{
    size_t at = 2;
    while (at < len) {
        if (d[at] != 0xFF) return "the JPEG's markers are corrupt";
        while (at < len && d[at] == 0xFF) at++;
        if (at >= len) break;
        unsigned m = d[at++];
        if (m == 0xD9 || m == 0xDA) return "the JPEG has no frame header before its data";
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue; /* no length */
        if (len - at < 2) break;
        unsigned seg = be16(d + at);
        if (seg < 2 || seg > len - at) return "a JPEG segment runs past the end of the file";
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (seg < 8) return "the JPEG's frame header is too short";
            unsigned h = be16(d + at + 3), w = be16(d + at + 5), nc = d[at + 7];
            const char *why = check_size(w, h);
            if (why) return why;
            if (nc != 1 && nc != 3 && nc != 4) return "the JPEG has an unsupported number of colour components";
            if (seg < 8 + 3 * nc) return "the JPEG's frame header is too short";
            info->is_png = false;
            info->width = (int)w;
            info->height = (int)h;
            return NULL;
        }
        at += seg;
    }
    return "the JPEG ends before its frame header";
}

const char *fo_image_check_mem(const unsigned char *data, size_t len, fo_image_info *info)
{
    if (len >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) return png_check(data, len, info);
    if (len >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return jpeg_check(data, len, info);
    return "not a PNG or JPEG image";
}

const char *fo_image_check(const char *path, fo_image_info *info)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return "cannot be opened";
    struct stat st;
    const char *why = NULL;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "not a regular file";
    else if (st.st_size > (off_t)FO_IMAGE_MAX_BYTES) why = "the image file is over 30 MiB";
    else if (!(buf = fo_malloc(st.st_size ? (size_t)st.st_size : 1))) why = "out of memory";
    size_t n = 0;
    while (!why && n < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
        if (r <= 0) why = "cannot be read";
        else n += (size_t)r;
    }
    if (!why) why = fo_image_check_mem(buf, n, info);
    fo_free(buf);
    close(fd);
    return why;
}

bool fo_image_probe(const char *path, bool *is_png, int *width, int *height)
{
    fo_image_info info;
    if (fo_image_check(path, &info) != NULL) return false;
    *is_png = info.is_png;
    *width = info.width;
    *height = info.height;
    return true;
}
