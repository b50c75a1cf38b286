/* encode.c — fast, deterministic PNG encoding of cairo image surfaces
 * (see png_encode.h for why folio does not use cairo's own PNG writer).
 *
 * Layout of the file: signature, IHDR, PLTE (indexed images), pHYs (when a
 * dpi is given), one IDAT holding the whole zlib stream, then any iTXt
 * (fo_png_add_text), IEND.
 *
 * An opaque image with at most 256 distinct colors is written as an indexed
 * (palette) PNG: one byte a pixel instead of three, exact, and the common case
 * for bar and column charts, whose rectangles are snapped to whole pixels so
 * only text antialiasing adds colors. Anything else is 8-bit RGB (RGBA).
 * Each row is filtered with "Up" (difference to the row above): chart
 * backgrounds and bars are vertical runs of one color, which Up turns into
 * zeros, and what remains is deflated by rle.c: runs of one byte and
 * literals, one dynamic-Huffman block (libdeflate's level 1 until issue 39,
 * which spent most of a chart's encoding time matching through zeros).
 *
 * Measured with zlib (800x500, encode CPU best of 40, one core):
 *   12x3 column chart, 219 colors: palette+Up+RLE 6.9 KB 0.5 ms; as RGB,
 *     Up level 3 18.3 KB, Up level 4 12.3 KB (1.6x the time of level 3).
 *   RGB charts (line 82 KB / pie 49 KB / scatter 32 KB with Up+RLE, 2.0-2.7 ms):
 *     levels 2-3 save 5% on lines but cost 7-13% on pie and scatter; level 4
 *     (lazy matching) saves 6-11% for +1.7-2.3 ms a chart; Z_FILTERED is no
 *     better than the default strategy at any level.
 *   Per-row adaptive filters (libpng's minimum sum of absolute differences
 *   over None/Sub/Up/Paeth) save 0-7% at 2-3x the time, so folio does not
 *   use them. Level 1-3 without RLE are deflate_fast, same size for both
 *   Z_DEFAULT_STRATEGY and Z_FILTERED. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "render/png/png_encode.h"

#define PNG_FILTER_UP 2

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends a chunk whose data is already at out->data[start + 8 ..]: fills in
 * length and type before it and the CRC after it. */
static void chunk_finish(fo_buf *out, size_t start, const char type[4])
{
    if (out->failed) return;
    size_t n = out->len - start - 8;
    put32((unsigned char *)out->data + start, (uint32_t)n);
    memcpy((unsigned char *)out->data + start + 4, type, 4);
    unsigned char crc[4];
    put32(crc, (uint32_t)crc32(crc32(0, Z_NULL, 0), (unsigned char *)out->data + start + 4, (uInt)(n + 4)));
    fo_buf_append(out, crc, 4);
}

static void chunk(fo_buf *out, const char type[4], const unsigned char *data, size_t n)
{
    size_t start = out->len;
    unsigned char hdr[8] = {0};
    fo_buf_append(out, hdr, 8);
    fo_buf_append(out, data, n);
    chunk_finish(out, start, type);
}

void fo_png_add_text(fo_buf *out, const char *keyword, const char *text)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    size_t klen = strlen(keyword), tlen = strlen(text);
    if (out->failed || out->len < 8 + 12 || memcmp(out->data + out->len - 12, iend, 12) ||
        klen == 0 || klen > 79)
        return;
    out->len -= 12;
    size_t start = out->len;
    unsigned char hdr[8] = {0};
    fo_buf_append(out, hdr, 8);
    fo_buf_append(out, keyword, klen);
    /* NUL, not compressed, method 0, no language tag (NUL), no translated keyword (NUL) */
    fo_buf_append(out, "\0\0\0\0\0", 5);
    fo_buf_append(out, text, tlen);
    chunk_finish(out, start, "iTXt");
    fo_buf_append(out, iend, 12);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The Up difference of pixel p over q as R G B at o, all three bytes at once
 * (SWAR: per byte p - q mod 256), plus a fourth byte that the next pixel
 * overwrites (the buffer has one byte past its last row for the last one). */
static inline void up_rgb(uint32_t p, uint32_t q, unsigned char *o)
{
    uint32_t d = ((p | 0x80808080u) - (q & 0x7F7F7F7Fu)) ^ ((p ^ ~q) & 0x80808080u);
    uint32_t rgb = __builtin_bswap32(d) >> 8;
    memcpy(o, &rgb, 4);
}
#endif

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
        if (memcmp(px, prev, (size_t)width * 4) == 0) { /* a row like the one above */
            memset(o, 0, (size_t)width * 3);
            return;
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        static const unsigned char zero[12];
        int x = 0;
        for (; x + 4 <= width; x += 4, o += 12) {
            uint64_t a[2], b[2];
            memcpy(a, px + x, 16);
            memcpy(b, prev + x, 16);
            if (a[0] == b[0] && a[1] == b[1]) { /* four pixels like those above: most */
                memcpy(o, zero, 12);
                continue;
            }
            for (int k = 0; k < 4; k++) up_rgb(px[x + k], prev[x + k], o + 3 * k);
        }
        for (; x < width; x++, o += 3) up_rgb(px[x], prev[x], o);
#else
        for (int x = 0; x < width; x++, o += 3) {
            uint32_t p = px[x], q = prev[x];
            o[0] = (unsigned char)((p >> 16) - (q >> 16));
            o[1] = (unsigned char)((p >> 8) - (q >> 8));
            o[2] = (unsigned char)(p - q);
        }
#endif
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

/* ---- palette ---------------------------------------------------------------- */

/* Colors of an indexed image in first-seen order (so the bytes depend only on
 * the pixels), found through a 512-slot open-addressing hash. */
typedef struct {
    uint32_t key[512];
    int16_t slot[512];  /* palette index, -1 = empty */
    uint32_t rgb[256];
    int n;
} palette;

/* Index of color c (0xRRGGBB), added when new; -1 when the palette is full. */
static int palette_index(palette *p, uint32_t c)
{
    uint32_t h = (c * 2654435761u) >> 23;
    while (p->slot[h] >= 0) {
        if (p->key[h] == c) return p->slot[h];
        h = (h + 1) & 511;
    }
    if (p->n == 256) return -1;
    p->key[h] = c;
    p->slot[h] = (int16_t)p->n;
    p->rgb[p->n] = c;
    return p->n++;
}

/* Writes the whole image as Up-filtered palette rows (filter byte + width
 * indices each) into filt; returns false as soon as a 257th color appears.
 * A pixel row equal to the one above becomes zeros without any lookup. */
static bool palette_rows(const unsigned char *pixels, int width, int height, int stride,
                         palette *p, unsigned char *rows, unsigned char *filt)
{
    unsigned char *prev = rows, *cur = rows + width;
    memset(prev, 0, (size_t)width); /* the row above the first is zeros */
    memset(p->slot, 0xFF, sizeof p->slot);
    p->n = 0;
    for (int y = 0; y < height; y++) {
        const uint32_t *px = (const uint32_t *)(const void *)(pixels + (size_t)y * (size_t)stride);
        unsigned char *o = filt + (size_t)y * ((size_t)width + 1);
        *o++ = PNG_FILTER_UP;
        if (y > 0 && memcmp(px, (const unsigned char *)px - stride, (size_t)width * 4) == 0) {
            memset(o, 0, (size_t)width);
            continue;
        }
        uint32_t last = (px[0] & 0xFFFFFF) ^ 1; /* differs from the first pixel */
        int idx = 0;
        for (int x = 0; x < width; x++) {
            uint32_t c = px[x] & 0xFFFFFF;
            if (c != last) {
                idx = palette_index(p, c);
                if (idx < 0) return false;
                last = c;
            }
            cur[x] = (unsigned char)idx;
            o[x] = (unsigned char)(idx - prev[x]);
        }
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    return true;
}

/* ---- the file -------------------------------------------------------------------- */

fo_status fo_png_encode(const unsigned char *pixels, int width, int height, int stride,
                        bool alpha, double dpi, fo_buf *out)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (width <= 0 || height <= 0) return FO_ERR_INTERNAL;
    size_t bpp = alpha ? 4 : 3, rowlen = (size_t)width * bpp;
    /* the filtered image: palette rows when they fit, else RGB(A) rows. Sized
     * for RGB(A) at once: the pages palette rows leave untouched are never
     * committed, so this costs address space only, and there is no resize. */
    unsigned char *filt = fo_malloc((rowlen + 1) * (size_t)height + 1); /* + filter_row's spill */
    unsigned char *rows = alpha ? NULL : fo_malloc(2 * (size_t)width);
    palette *pal = alpha ? NULL : fo_malloc(sizeof *pal);
    fo_status st = FO_OK;
    if (!filt || (!alpha && (!rows || !pal))) { st = FO_ERR_NOMEM; goto cleanup; }
    bool indexed = !alpha && palette_rows(pixels, width, height, stride, pal, rows, filt);
    if (!indexed)
        for (int y = 0; y < height; y++) {
            const uint32_t *row = (const uint32_t *)(const void *)(pixels + (size_t)y * (size_t)stride);
            filter_row(row, y ? (const uint32_t *)(const void *)((const unsigned char *)row - stride) : NULL,
                       width, alpha, filt + (size_t)y * (rowlen + 1));
        }

    fo_buf_append(out, sig, 8);
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;                                 /* bit depth */
    ihdr[9] = indexed ? 3 : alpha ? 6 : 2;       /* palette : RGBA : RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    chunk(out, "IHDR", ihdr, sizeof ihdr);
    if (indexed) {
        unsigned char plte[256 * 3];
        for (int i = 0; i < pal->n; i++) {
            plte[3 * i] = (unsigned char)(pal->rgb[i] >> 16);
            plte[3 * i + 1] = (unsigned char)(pal->rgb[i] >> 8);
            plte[3 * i + 2] = (unsigned char)pal->rgb[i];
        }
        chunk(out, "PLTE", plte, 3 * (size_t)pal->n);
    }
    if (dpi > 0) {
        unsigned char phys[9];
        uint32_t ppm = (uint32_t)lround(dpi / 0.0254);
        put32(phys, ppm);
        put32(phys + 4, ppm);
        phys[8] = 1; /* unit: metre */
        chunk(out, "pHYs", phys, sizeof phys);
    }
    size_t start = out->len;
    unsigned char hdr[8] = {0};
    fo_buf_append(out, hdr, 8);
    size_t n = ((indexed ? (size_t)width : rowlen) + 1) * (size_t)height;
    if (out->failed) { st = FO_ERR_NOMEM; goto cleanup; }
    st = fo_png_zlib_rle(filt, n, out);
    if (st != FO_OK) goto cleanup;
    chunk_finish(out, start, "IDAT");
    chunk(out, "IEND", NULL, 0);
    if (out->failed) st = FO_ERR_NOMEM;
cleanup:
    fo_free(filt);
    fo_free(rows);
    fo_free(pal);
    return st;
}
