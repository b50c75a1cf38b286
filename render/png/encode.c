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
 * zeros. The filtered image is never written out: find_changes lists the
 * pixels unlike the one above (a few percent of a chart), the palette is
 * built from those alone, and rle.c gets their differences, the zero runs
 * between them and the repeats of one difference (libdeflate's level 1 on
 * the whole filtered image until issue 39, which spent most of a chart's
 * encoding time matching through zeros). RGBA images (no chart makes one)
 * are filtered whole and searched for runs by fo_png_zlib_rle.
 *
 * Issue 39 (callgrind, marginal instructions of one 800x500 chart, 20
 * charts minus 1; before -> after the encoder's rework, rendering included):
 * bar 9.4 -> 4.2 M, line 24.9 -> 8.8 M; the encoder's share of a line chart
 * is now ~4 M of them, cairo's drawing ~4 M (then ~1.5 M of the 6.2 M once
 * png.c drew the lines and markers itself: the encoder is now the most).
 * Then (2026-12-07) the changed pixels listed from AVX2 compare masks, the
 * rle's arrays sized once, the Huffman leaves sorted without qsort: the
 * encoder of a line chart ~3.75 -> ~3.3 M; whole charts bar / line / area /
 * pie / scatter 4.2 / 6.2 / 9.0 / 6.0 / 4.0 -> 3.9 / 5.6 / 7.9 / 5.6 / 3.7 M
 * (area also by png.c's mask buffer). Tried and dropped: filtering whole
 * stretches with AVX2 and letting fo_rle_put find their runs (no repeats
 * of a pixel's difference: +0.6 M a line chart and area files +11%).
 * Then (later that day) 32-pixel row compares, fo_rle_lits' common case in
 * one go, literals' codes two at a time: bar / line / area / pie / scatter
 * 3.9 / 5.6 / 7.0 / 4.7 / 3.7 -> 3.7 / 5.1 / 6.1 / 4.3 / 3.4 M (area also
 * by png.c's run-by-run blending of its fills; bench-png, same run). Tried
 * and dropped: each changed pixel's difference taken in changed_avx2 while
 * the rows are loaded (stored and reloaded, +0.04 M an area chart).
 * Then (the same day, h-area2) the spec's cell pointers without snprintf,
 * the background set without pixman_fill (png.c), the Huffman codes
 * reversed by swaps: bar / line / area / pie / scatter 3.71 / 5.06 / 6.10
 * / 4.29 / 3.39 -> 3.49 / 4.85 / 5.88 / 4.12 / 3.09 M (callgrind, 20
 * minus 1, same run; same bytes out). Tried and dropped: row 0's "above"
 * as a masked row rather than a test a pixel (+0.1 M: the compiler laid
 * put_rgb_rows out worse), fo_rle_lits' slow path out of line (-0.005 M).
 *
 * Older measurements, with zlib (800x500, encode CPU best of 40, one core):
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

#include <libdeflate.h>

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
    /* libdeflate's CRC-32 (carry-less multiply where the CPU has it): a tenth
     * of zlib's instructions on a line chart's 47 KB IDAT */
    put32(crc, libdeflate_crc32(0, out->data + start + 4, n + 4));
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

/* One row of native-endian premultiplied ARGB32 pixels as filter byte +
 * "Up"-filtered RGBA bytes: each byte minus the same byte of the row above
 * (prev NULL for the first row), un-premultiplied first. */
static void filter_row_rgba(const uint32_t *px, const uint32_t *prev, int width, unsigned char *o)
{
    *o++ = PNG_FILTER_UP;
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

/* ---- the pixels unlike the one above -------------------------------------- */

/* Their x, row by row: row y's are x[row[y] .. row[y + 1]). In row 0 every
 * pixel counts (the Up filter's row above it is zeros). Only these pixels
 * give "Up" bytes that are not zero: charts have a few percent of them. */
typedef struct {
    uint32_t *x, *row;
    size_t n, cap;
} changes;

static const uint32_t *pixel_row(const unsigned char *pixels, int stride, int y)
{
    return (const uint32_t *)(const void *)(pixels + (size_t)y * (size_t)stride);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* Whether changed_avx2 may be used (asked once an image: the question
 * costs as much as a compare). */
static bool have_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The x of each pixel of px[0..width) unlike the one above it into o, in
 * order; returns how many. Thirty-two pixels a test, and within a block
 * that differs the set bits of its mask, a few instructions a changed
 * pixel (issue 39: the block's eight pixels compared one by one were
 * ~0.35 M instructions of a line chart; 32 rather than 16 a test, and no
 * memcmp of the row first, ~0.1-0.2 M less a chart). */
static __attribute__((target("avx2"))) size_t changed_avx2(const uint32_t *px, const uint32_t *up, int width,
                                                           uint32_t *o)
{
    size_t n = 0;
    int x = 0;
    for (; x + 32 <= width; x += 32) { /* most blocks of a changed row are like those above */
        const __m256i *p = (const __m256i *)(const void *)(px + x),
                      *q = (const __m256i *)(const void *)(up + x);
        __m256i e0 = _mm256_cmpeq_epi32(_mm256_loadu_si256(p), _mm256_loadu_si256(q));
        __m256i e1 = _mm256_cmpeq_epi32(_mm256_loadu_si256(p + 1), _mm256_loadu_si256(q + 1));
        __m256i e2 = _mm256_cmpeq_epi32(_mm256_loadu_si256(p + 2), _mm256_loadu_si256(q + 2));
        __m256i e3 = _mm256_cmpeq_epi32(_mm256_loadu_si256(p + 3), _mm256_loadu_si256(q + 3));
        __m256i all = _mm256_and_si256(_mm256_and_si256(e0, e1), _mm256_and_si256(e2, e3));
        if (_mm256_movemask_epi8(all) == -1) continue;
        uint32_t same = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e0)) |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e1)) << 8 |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e2)) << 16 |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e3)) << 24;
        for (uint32_t bits = ~same; bits; bits &= bits - 1) o[n++] = (uint32_t)(x + __builtin_ctz(bits));
    }
    for (; x + 16 <= width; x += 16) {
        __m256i e0 = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(px + x)),
                                        _mm256_loadu_si256((const __m256i *)(const void *)(up + x)));
        __m256i e1 = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(px + x + 8)),
                                        _mm256_loadu_si256((const __m256i *)(const void *)(up + x + 8)));
        unsigned same = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(e0)) |
                        (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(e1)) << 8;
        for (unsigned bits = ~same & 0xFFFFu; bits; bits &= bits - 1)
            o[n++] = (uint32_t)(x + __builtin_ctz(bits));
    }
    for (; x < width; x++)
        if (px[x] != up[x]) o[n++] = (uint32_t)x;
    return n;
}
#endif

/* Fills c (fo_malloc'd arrays, the caller frees); false when out of memory. */
static bool find_changes(const unsigned char *pixels, int width, int height, int stride, changes *c)
{
    c->row = fo_malloc(((size_t)height + 1) * sizeof *c->row);
    if (!c->row) return false;
    bool avx2 = have_avx2();
    for (int y = 0; y < height; y++) {
        c->row[y] = (uint32_t)c->n;
        const uint32_t *px = pixel_row(pixels, stride, y), *up = y ? pixel_row(pixels, stride, y - 1) : NULL;
        /* a row like the one above (most rows of a chart): changed_avx2
           finds it as fast as memcmp, which would scan a changed row twice */
        if (up && !avx2 && memcmp(px, up, (size_t)width * 4) == 0) continue;
        if (c->n + (size_t)width > c->cap) {
            size_t cap = c->cap ? c->cap : 4 * (size_t)width;
            while (cap < c->n + (size_t)width) cap *= 2;
            uint32_t *x = fo_realloc(c->x, cap * sizeof *x);
            if (!x) return false;
            c->x = x;
            c->cap = cap;
        }
        int x = 0;
#if defined(__x86_64__) && defined(__GNUC__)
        if (up && avx2) {
            c->n += changed_avx2(px, up, width, c->x + c->n);
            continue;
        }
#endif
        if (up)
            for (; x + 8 <= width; x += 8) { /* eight pixels like those above: most */
                uint64_t a[4], b[4];
                memcpy(a, px + x, 32);
                memcpy(b, up + x, 32);
                if (((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0) continue;
                for (int k = x; k < x + 8; k++)
                    if (px[k] != up[k]) c->x[c->n++] = (uint32_t)k;
            }
        for (; x < width; x++)
            if (!up || px[x] != up[x]) c->x[c->n++] = (uint32_t)x;
    }
    c->row[height] = (uint32_t)c->n;
    return true;
}

/* Feeds the Up-filtered palette rows to r: per row the filter byte, and for
 * each stretch of changed pixels the zeros before it and its index
 * differences (idx[] of each change; cur[] the index row above, updated). */
/* Ends a stretch of *rep copies of the last of buf[0..*nb): fewer than
 * three stay literals in buf, longer ones go to r after buf's bytes. */
static void palette_repeat(fo_rle *r, unsigned char *buf, size_t *nb, size_t *gap, size_t *rep, size_t cap)
{
    if (*rep < 3 && *nb + *rep <= cap) {
        memset(buf + *nb, buf[*nb - 1], *rep);
        *nb += *rep;
    } else {
        fo_rle_lits(r, *gap, buf, *nb);
        fo_rle_repeat(r, buf + *nb - 1, 1, *rep);
        *gap = *nb = 0;
    }
    *rep = 0;
}

static void put_palette_rows(fo_rle *r, int width, int height, const changes *c, const unsigned char *idx,
                             unsigned char *cur)
{
    static const unsigned char up = PNG_FILTER_UP;
    size_t gap = 0;
    unsigned char buf[256];
    for (int y = 0; y < height; y++) {
        fo_rle_lits(r, gap, &up, 1);
        gap = 0;
        size_t nb = 0, rep = 0;
        uint32_t next = 0;
        for (size_t k = c->row[y]; k < c->row[y + 1]; k++) {
            uint32_t x = c->x[k];
            unsigned char d = (unsigned char)(idx[k] - cur[x]);
            cur[x] = idx[k];
            if (x == next && nb && d == buf[nb - 1]) { /* like the pixel before it */
                rep++;
                next = x + 1;
                continue;
            }
            if (rep) palette_repeat(r, buf, &nb, &gap, &rep, sizeof buf);
            if (x != next || nb == sizeof buf) {
                if (nb) fo_rle_lits(r, gap, buf, nb), gap = 0;
                gap += x - next;
                nb = 0;
            }
            buf[nb++] = d;
            next = x + 1;
        }
        if (rep) palette_repeat(r, buf, &nb, &gap, &rep, sizeof buf);
        if (nb) fo_rle_lits(r, gap, buf, nb), gap = 0;
        gap += (size_t)width - next;
    }
    if (gap) fo_rle_lits(r, gap, NULL, 0);
}

/* The same for RGB rows: a changed pixel's three differences; a stretch of
 * pixels with the same differences as the one before them (a grid line, a
 * flat edge) goes to r as one repeat. */
static void put_rgb_rows(fo_rle *r, const unsigned char *pixels, int width, int height, int stride,
                         const changes *c)
{
    static const unsigned char up = PNG_FILTER_UP;
    size_t gap = 0;
    unsigned char buf[3 * 128 + 1]; /* + 1: a pixel's three bytes stored as four */
    for (int y = 0; y < height; y++) {
        const uint32_t *px = pixel_row(pixels, stride, y),
                       *above = y ? pixel_row(pixels, stride, y - 1) : NULL;
        fo_rle_lits(r, gap, &up, 1);
        gap = 0;
        size_t nb = 0, rep = 0;
        uint32_t next = 0, last = 0; /* last: the differences of pixel next - 1 */
        for (size_t k = c->row[y]; k < c->row[y + 1]; k++) {
            uint32_t x = c->x[k], p = px[x], q = above ? above[x] : 0;
            /* R G B of p - q, byte by byte mod 256 (SWAR) */
            uint32_t d = (((p | 0x80808080u) - (q & 0x7F7F7F7Fu)) ^ ((p ^ ~q) & 0x80808080u)) & 0xFFFFFFu;
            if (x == next && nb && d == last) { /* like the pixel before it */
                rep++;
                next = x + 1;
                continue;
            }
            if (x == next + 1 && nb && !rep && buf[nb - 1] && nb + 6 <= 3 * 128) {
                /* one pixel like the one above between changed ones: its
                   three zeros after a byte that is not are literals either
                   way (a run starts from a zero), without a call of their
                   own (issue 39: ~0.05 M instructions of an area chart);
                   never the start of a repeat */
                buf[nb++] = 0;
                buf[nb++] = 0;
                buf[nb++] = 0;
                next = x;
                last = UINT32_MAX;
            }
            if (rep || x != next || nb + 3 > 3 * 128) {
                if (nb) fo_rle_lits(r, gap, buf, nb);
                if (rep) fo_rle_repeat(r, buf + nb - 3, 3, rep);
                gap = 3 * (size_t)(x - next);
                nb = rep = 0;
            }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            uint32_t rgb = __builtin_bswap32(d) >> 8; /* R, G, B, 0 in memory: one store */
            memcpy(buf + nb, &rgb, 4);
            nb += 3;
#else
            buf[nb++] = (unsigned char)(d >> 16);
            buf[nb++] = (unsigned char)(d >> 8);
            buf[nb++] = (unsigned char)d;
#endif
            last = d;
            next = x + 1;
        }
        if (nb) fo_rle_lits(r, gap, buf, nb), gap = 0;
        if (rep) fo_rle_repeat(r, buf + nb - 3, 3, rep);
        gap += 3 * ((size_t)width - next);
    }
    if (gap) fo_rle_lits(r, gap, NULL, 0);
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

/* The palette index of every changed pixel into idx[0..c->n), the colors
 * into p; false as soon as a 257th color appears. Pixels like the one above
 * have its index: they add no color. */
static bool palette_of(const unsigned char *pixels, int height, int stride, const changes *c, palette *p,
                       unsigned char *idx)
{
    memset(p->slot, 0xFF, sizeof p->slot);
    p->n = 0;
    for (int y = 0; y < height; y++) {
        const uint32_t *px = pixel_row(pixels, stride, y);
        uint32_t last = 0x1000000; /* no color */
        int i = 0;
        for (size_t k = c->row[y]; k < c->row[y + 1]; k++) {
            uint32_t col = px[c->x[k]] & 0xFFFFFF;
            if (col != last) {
                i = palette_index(p, col);
                if (i < 0) return false;
                last = col;
            }
            idx[k] = (unsigned char)i;
        }
    }
    return true;
}

/* ---- the file -------------------------------------------------------------------- */

fo_status fo_png_encode(const unsigned char *pixels, int width, int height, int stride,
                        bool alpha, double dpi, fo_buf *out)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (width <= 0 || height <= 0) return FO_ERR_INTERNAL;
    size_t rowlen = (size_t)width * 4;
    /* RGBA: the filtered image, deflated whole. Opaque: only the changed
     * pixels are looked at, as palette indices when they fit. */
    unsigned char *filt = NULL, *idx = NULL, *cur = NULL;
    palette *pal = NULL;
    changes c = {0};
    fo_rle r;
    fo_rle_init(&r);
    bool indexed = false;
    fo_status st = FO_OK;
    if (alpha) {
        filt = fo_malloc((rowlen + 1) * (size_t)height);
        if (!filt) {
            st = FO_ERR_NOMEM;
            goto cleanup;
        }
        for (int y = 0; y < height; y++)
            filter_row_rgba(pixel_row(pixels, stride, y), y ? pixel_row(pixels, stride, y - 1) : NULL, width,
                            filt + (size_t)y * (rowlen + 1));
    } else {
        pal = fo_malloc(sizeof *pal);
        if (!pal || !find_changes(pixels, width, height, stride, &c) || !(idx = fo_malloc(c.n + 1)) ||
            !(cur = fo_calloc((size_t)width, 1))) {
            st = FO_ERR_NOMEM;
            goto cleanup;
        }
        indexed = palette_of(pixels, height, stride, &c, pal, idx);
        /* an upper bound in practice (the rle grows past it if not): each
           changed pixel's bytes and a zero before its stretch, each row's
           filter byte and a short run's literals */
        size_t per = indexed ? 2 : 4;
        if (!fo_rle_reserve(&r, per * c.n + 2 * (size_t)height + 64, c.n + (size_t)height + 64)) {
            st = FO_ERR_NOMEM;
            goto cleanup;
        }
        if (indexed) put_palette_rows(&r, width, height, &c, idx, cur);
        else put_rgb_rows(&r, pixels, width, height, stride, &c);
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
    if (out->failed) { st = FO_ERR_NOMEM; goto cleanup; }
    st = alpha ? fo_png_zlib_rle(filt, (rowlen + 1) * (size_t)height, out) : fo_rle_finish(&r, out);
    if (st != FO_OK) goto cleanup;
    chunk_finish(out, start, "IDAT");
    chunk(out, "IEND", NULL, 0);
    if (out->failed) st = FO_ERR_NOMEM;
cleanup:
    fo_rle_free(&r);
    fo_free(filt);
    fo_free(idx);
    fo_free(cur);
    fo_free(c.x);
    fo_free(c.row);
    fo_free(pal);
    return st;
}
