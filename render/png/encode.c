/* encode.c — fast, deterministic PNG encoding of cairo image surfaces
 * (see png_encode.h for why folio does not use cairo's own PNG writer).
 *
 * Layout of the file: signature, IHDR, pHYs (when a dpi is given), one IDAT
 * holding the whole zlib stream, IEND. Each row is filtered with "Up"
 * (difference to the row above): chart backgrounds and bars are vertical
 * runs of one color, which Up turns into zeros that deflate at level 3
 * squeezes to almost nothing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "render/png/png_encode.h"

#ifndef PNG_LEVEL
#define PNG_LEVEL 3
#endif
#define PNG_FILTER_UP 2
#ifndef PNG_STRATEGY
#define PNG_STRATEGY Z_DEFAULT_STRATEGY
#endif

void fo_bytes_append(fo_bytes *b, const void *p, size_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        unsigned char *d = fo_realloc(b->data, cap);
        if (!d) { b->failed = true; return; }
        b->data = d;
        b->cap = cap;
    }
    if (n && p) memcpy(b->data + b->len, p, n); /* p NULL: reserve only */
    b->len += n;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends a chunk whose data is already at out->data[start + 8 ..]: fills in
 * length and type before it and the CRC after it. */
static void chunk_finish(fo_bytes *out, size_t start, const char type[4])
{
    if (out->failed) return;
    size_t n = out->len - start - 8;
    put32(out->data + start, (uint32_t)n);
    memcpy(out->data + start + 4, type, 4);
    unsigned char crc[4];
    put32(crc, (uint32_t)crc32(crc32(0, Z_NULL, 0), out->data + start + 4, (uInt)(n + 4)));
    fo_bytes_append(out, crc, 4);
}

static void chunk(fo_bytes *out, const char type[4], const unsigned char *data, size_t n)
{
    size_t start = out->len;
    unsigned char hdr[8] = {0};
    fo_bytes_append(out, hdr, 8);
    fo_bytes_append(out, data, n);
    chunk_finish(out, start, type);
}

/* Adler-32 as zlib computes it, but 8 zero bytes at a time: after the Up
 * filter most of a chart is zeros, for which a stays and b grows by 8a. The
 * block size is zlib's NMAX, so the sums cannot overflow before the modulo. */
static uint32_t adler32_sparse(uint32_t adler, const unsigned char *p, size_t n)
{
    uint32_t a = adler & 0xFFFF, b = adler >> 16;
    while (n > 0) {
        size_t blk = n < 5552 ? n : 5552;
        n -= blk;
        for (; blk >= 8; blk -= 8, p += 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w == 0) { b += 8 * a; continue; }
            for (int k = 0; k < 8; k++) { a += p[k]; b += a; }
        }
        for (; blk > 0; blk--) { a += *p++; b += a; }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

/* One row of native-endian cairo pixels as filter byte + "Up"-filtered
 * RGB(A) bytes: each byte minus the same byte of the row above (prev NULL
 * for the first row). Alpha surfaces are un-premultiplied first. */
static void filter_row(const uint32_t *px, const uint32_t *prev, int width, bool alpha,
                       unsigned char *o)
{
    *o++ = PNG_FILTER_UP;
    if (!alpha) {
        if (!prev) {
            for (int x = 0; x < width; x++, o += 3) {
                uint32_t p = px[x];
                o[0] = (unsigned char)(p >> 16);
                o[1] = (unsigned char)(p >> 8);
                o[2] = (unsigned char)p;
            }
            return;
        }
        for (int x = 0; x < width; x++, o += 3) {
            uint32_t p = px[x], q = prev[x];
            o[0] = (unsigned char)((p >> 16) - (q >> 16));
            o[1] = (unsigned char)((p >> 8) - (q >> 8));
            o[2] = (unsigned char)(p - q);
        }
        return;
    }
    for (int x = 0; x < width; x++, o += 4) {
        unsigned char c[2][4];
        for (int k = 0; k < 2; k++) {
            uint32_t p = k == 0 ? px[x] : prev ? prev[x] : 0, a = p >> 24;
            unsigned r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;
            if (a && a != 255) { /* un-premultiply */
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            c[k][0] = (unsigned char)r; c[k][1] = (unsigned char)g;
            c[k][2] = (unsigned char)b; c[k][3] = (unsigned char)a;
        }
        for (int j = 0; j < 4; j++) o[j] = (unsigned char)(c[0][j] - c[1][j]);
    }
}

fo_status fo_png_encode(const unsigned char *pixels, int width, int height, int stride,
                        bool alpha, double dpi, fo_bytes *out)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (width <= 0 || height <= 0) return FO_ERR_INTERNAL;
    fo_bytes_append(out, sig, 8);
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;                 /* bit depth */
    ihdr[9] = alpha ? 6 : 2;     /* RGBA : RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    chunk(out, "IHDR", ihdr, sizeof ihdr);
    if (dpi > 0) {
        unsigned char phys[9];
        uint32_t ppm = (uint32_t)lround(dpi / 0.0254);
        put32(phys, ppm);
        put32(phys + 4, ppm);
        phys[8] = 1; /* unit: metre */
        chunk(out, "pHYs", phys, sizeof phys);
    }

    size_t bpp = alpha ? 4 : 3, rowlen = (size_t)width * bpp;
    unsigned char *filt = fo_malloc(rowlen + 1);
    fo_status st = FO_OK;
    z_stream z;
    memset(&z, 0, sizeof z);
    bool zinit = false;
    uint32_t adler = 1;
    if (!filt) { st = FO_ERR_NOMEM; goto cleanup; }
    /* raw deflate: the zlib header and Adler-32 trailer are written here, so
     * the checksum can skip the zero runs (adler32_sparse) */
    if (deflateInit2(&z, PNG_LEVEL, Z_DEFLATED, -15, 8, PNG_STRATEGY) != Z_OK) {
        st = FO_ERR_INTERNAL;
        goto cleanup;
    }
    zinit = true;
    size_t start = out->len;
    unsigned char hdr[8] = {0};
    fo_bytes_append(out, hdr, 8);
    /* reserve the worst case once, then deflate straight into the buffer */
    static const unsigned char zlib_header[2] = {0x78, 0x5E}; /* 32K window, "fast" level */
    fo_bytes_append(out, zlib_header, 2);
    size_t bound = deflateBound(&z, (uLong)((rowlen + 1) * (size_t)height));
    fo_bytes_append(out, NULL, bound);
    if (out->failed) { st = FO_ERR_NOMEM; goto cleanup; }
    out->len -= bound;
    z.next_out = out->data + out->len;
    z.avail_out = (uInt)bound;
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(pixels + (size_t)y * (size_t)stride);
        filter_row(row, y ? (const uint32_t *)(const void *)((const unsigned char *)row - stride) : NULL,
                   width, alpha, filt);
        adler = adler32_sparse(adler, filt, rowlen + 1);
        z.next_in = filt;
        z.avail_in = (uInt)(rowlen + 1);
        if (deflate(&z, y == height - 1 ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
            st = FO_ERR_INTERNAL;
            goto cleanup;
        }
    }
    if (z.avail_in != 0) { st = FO_ERR_INTERNAL; goto cleanup; }
    out->len += bound - z.avail_out;
    unsigned char trailer[4];
    put32(trailer, adler);
    fo_bytes_append(out, trailer, 4);
    chunk_finish(out, start, "IDAT");
    chunk(out, "IEND", NULL, 0);
    if (out->failed) st = FO_ERR_NOMEM;
cleanup:
    if (zinit) deflateEnd(&z);
    fo_free(filt);
    return st;
}
