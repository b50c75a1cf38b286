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
 * zeros. The filtered image is never written out: find_indexed lists the
 * pixels unlike the one above (a few percent of a chart) and builds the
 * palette from those alone, until a 257th color; rle.c gets the changed
 * pixels' differences, the zero runs between them and the repeats of one
 * difference, an RGB image's as put_rgb_rows finds them again row by row
 * (libdeflate's level 1 on the whole filtered image until issue 39, which
 * spent most of a chart's encoding time matching through zeros). RGBA images (no chart makes one)
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
 * Then (h-png) an RGB image's changes no longer listed (the palette gives
 * up at its first row with a 257th color, about the 100th of a line
 * chart) but found, subtracted 32 pixels at a time and written in one pass,
 * stretch by stretch: bar / line / area / pie / scatter 3.50 / 4.86 / 5.89
 * / 4.12 / 3.12 -> 3.50 / 4.43 / 5.47 / 3.98 / 2.93 M (same bytes out).
 * Tried and dropped: a stretch's literal pixels found first and copied at
 * once (+0.12 M an area chart: most runs of literals are one or two
 * pixels), a block tested by its XORs or'd (no change: the compiler keeps
 * the loads for the subtraction either way), append_lits two or four bytes
 * a step (+0.005 to +0.06 M: the loads merged, then taken apart).
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

static const uint32_t *pixel_row(const unsigned char *pixels, int stride, int y)
{
    return (const uint32_t *)(const void *)(pixels + (size_t)y * (size_t)stride);
}

/* R G B of pixel p minus pixel q, byte by byte mod 256 (SWAR): what the Up
 * filter writes for p. */
static inline uint32_t up_rgb(uint32_t p, uint32_t q)
{
    return (((p | 0x80808080u) - (q & 0x7F7F7F7Fu)) ^ ((p ^ ~q) & 0x80808080u)) & 0xFFFFFFu;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* Whether the AVX2 row functions may be used (asked once an image: the
 * question costs as much as a compare). */
static bool have_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/* Only the pixels unlike the one above give "Up" bytes that are not zero
 * (in row 0 every pixel counts: the row above it is zeros); charts have a
 * few percent of them. An indexed image's are listed first, with their
 * palette indices (the palette must be complete before any row is
 * written); an RGB image's are found again row by row as they are
 * written (put_rgb_rows), never listed. */

/* An indexed image's changed pixels: row y's x are x[row[y] .. row[y + 1]),
 * idx[] their palette indices. */
typedef struct {
    uint32_t *x, *row;
    unsigned char *idx;
    size_t n, cap;
} changes;

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

/* Whether the eight pixels at a and b are the same (without AVX2). */
static inline bool same8(const uint32_t *a, const uint32_t *b)
{
    uint64_t x[4], y[4];
    memcpy(x, a, 32);
    memcpy(y, b, 32);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
}

/* The same without AVX2 (up NULL: row 0, every pixel). */
static size_t changed_row(const uint32_t *px, const uint32_t *up, int width, uint32_t *o)
{
    size_t n = 0;
    int x = 0;
    if (up)
        for (; x + 8 <= width; x += 8) { /* eight pixels like those above: most */
            if (same8(px + x, up + x)) continue;
            for (int k = x; k < x + 8; k++)
                if (px[k] != up[k]) o[n++] = (uint32_t)k;
        }
    for (; x < width; x++)
        if (!up || px[x] != up[x]) o[n++] = (uint32_t)x;
    return n;
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

/* Room in c for one more row of width changes; false when out of memory. */
static bool changes_grow(changes *c, int width)
{
    size_t cap = c->cap ? c->cap : 4 * (size_t)width;
    while (cap < c->n + (size_t)width) cap *= 2;
    uint32_t *x = fo_realloc(c->x, cap * sizeof *x);
    if (x) c->x = x;
    unsigned char *idx = fo_realloc(c->idx, cap);
    if (idx) c->idx = idx;
    if (!x || !idx) return false;
    c->cap = cap;
    return true;
}

/* Lists the changed pixels into c (fo_malloc'd arrays, the caller frees)
 * and their colors into p, row by row while they fit a palette. Returns 1
 * when the whole image does (indexed), 0 at the first row bringing a 257th
 * color (RGB: the rows below are not listed, issue 39; a line or area
 * chart's is about its 100th of 500), -1 when out of memory. Pixels like
 * the one above have its index: they add no color. */
static int find_indexed(const unsigned char *pixels, int width, int height, int stride, changes *c,
                        palette *p)
{
    memset(p->slot, 0xFF, sizeof p->slot);
    p->n = 0;
    c->row = fo_malloc(((size_t)height + 1) * sizeof *c->row);
    if (!c->row) return -1;
    bool avx2 = have_avx2();
    for (int y = 0; y < height; y++) {
        c->row[y] = (uint32_t)c->n;
        const uint32_t *px = pixel_row(pixels, stride, y), *up = y ? pixel_row(pixels, stride, y - 1) : NULL;
        /* a row like the one above (most rows of a chart): changed_avx2
           finds it as fast as memcmp, which would scan a changed row twice */
        if (up && !avx2 && memcmp(px, up, (size_t)width * 4) == 0) continue;
        if (c->n + (size_t)width > c->cap && !changes_grow(c, width)) return -1;
        size_t k = c->n;
#if defined(__x86_64__) && defined(__GNUC__)
        if (up && avx2) c->n += changed_avx2(px, up, width, c->x + c->n);
        else
#endif
            c->n += changed_row(px, up, width, c->x + c->n);
        uint32_t last = 0x1000000; /* no color */
        int i = 0;
        for (; k < c->n; k++) {
            uint32_t col = px[c->x[k]] & 0xFFFFFF;
            if (col != last) {
                i = palette_index(p, col);
                if (i < 0) return 0;
                last = col;
            }
            c->idx[k] = (unsigned char)i;
        }
    }
    c->row[height] = (uint32_t)c->n;
    return 1;
}

/* ---- rows ------------------------------------------------------------------- */

static const unsigned char filter_up = PNG_FILTER_UP;

/* Feeds the Up-filtered palette rows to r: per row the filter byte, and for
 * each stretch of changed pixels the zeros before it and its index
 * differences (c->idx[] of each change; cur[] the index row above, updated). */
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

static void put_palette_rows(fo_rle *r, int width, int height, const changes *c, unsigned char *cur)
{
    size_t gap = 0;
    unsigned char buf[256];
    for (int y = 0; y < height; y++) {
        fo_rle_lits(r, gap, &filter_up, 1);
        gap = 0;
        size_t nb = 0, rep = 0;
        uint32_t next = 0;
        for (size_t k = c->row[y]; k < c->row[y + 1]; k++) {
            uint32_t x = c->x[k];
            unsigned char d = (unsigned char)(c->idx[k] - cur[x]);
            cur[x] = c->idx[k];
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
 * flat edge) goes to r as one repeat. Where a row is between two changed
 * pixels: nb bytes in buf (literals not yet given to r, after gap zeros),
 * then rep copies of their last pixel; next is the x after the last pixel
 * taken, last its differences (UINT32_MAX: none that a repeat may copy).
 * The row functions work on a copy of it in their own variables: the
 * compiler keeps those in registers across the calls into r. */
#define RGB_BUF (3 * 128)

typedef struct {
    fo_rle *r;
    unsigned char *buf; /* RGB_BUF + 1 bytes: a pixel's three bytes stored as four */
    size_t gap, nb, rep;
    uint32_t next, last;
} rgb_run;

static inline void rgb_row_start(rgb_run *s)
{
    fo_rle_lits(s->r, s->gap, &filter_up, 1);
    s->gap = s->nb = s->rep = 0;
    s->next = s->last = 0;
}

/* Takes pixel x of the row, unlike the one above it by d (up_rgb). */
/* always_inline: GCC does not inline it into the AVX2 row function of its
   own accord, and a call a changed pixel costs more than the work */
static inline __attribute__((always_inline)) void rgb_change(rgb_run *s, uint32_t x, uint32_t d)
{
    if (x == s->next && s->nb && d == s->last) { /* like the pixel before it */
        s->rep++;
        s->next = x + 1;
        return;
    }
    if (x == s->next + 1 && s->nb && !s->rep && s->buf[s->nb - 1] && s->nb + 6 <= RGB_BUF) {
        /* one pixel like the one above between changed ones: its three
           zeros after a byte that is not are literals either way (a run
           starts from a zero), without a call of their own (issue 39:
           ~0.05 M instructions of an area chart); never the start of a
           repeat */
        memset(s->buf + s->nb, 0, 3);
        s->nb += 3;
        s->next = x;
        s->last = UINT32_MAX;
    }
    if (s->rep || x != s->next || s->nb + 3 > RGB_BUF) {
        if (s->nb) fo_rle_lits(s->r, s->gap, s->buf, s->nb);
        if (s->rep) fo_rle_repeat(s->r, s->buf + s->nb - 3, 3, s->rep);
        s->gap = 3 * (size_t)(x - s->next);
        s->nb = s->rep = 0;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t rgb = __builtin_bswap32(d) >> 8; /* R, G, B, 0 in memory: one store */
    memcpy(s->buf + s->nb, &rgb, 4);
    s->nb += 3;
#else
    s->buf[s->nb++] = (unsigned char)(d >> 16);
    s->buf[s->nb++] = (unsigned char)(d >> 8);
    s->buf[s->nb++] = (unsigned char)d;
#endif
    s->last = d;
    s->next = x + 1;
}

/* Takes pixels x .. x + n - 1 (n >= 1), each unlike the one above by
 * d[0..n) (up_rgb, in the low three bytes): the first through
 * rgb_change, the others knowing that they follow the pixel just taken
 * (x == next, nb > 0), which leaves about half of rgb_change's tests
 * (issue 39: ~0.15 M instructions of an area chart, whose changed pixels
 * come a few abreast). */
static inline __attribute__((always_inline)) void rgb_stretch(rgb_run *s, uint32_t x, const uint32_t *d,
                                                              unsigned n)
{
    rgb_change(s, x, d[0] & 0xFFFFFFu);
    for (unsigned k = 1; k < n; k++) {
        uint32_t v = d[k] & 0xFFFFFFu;
        if (v == s->last) {
            s->rep++;
            continue;
        }
        if (s->rep || s->nb + 3 > RGB_BUF) {
            fo_rle_lits(s->r, s->gap, s->buf, s->nb);
            if (s->rep) fo_rle_repeat(s->r, s->buf + s->nb - 3, 3, s->rep);
            s->gap = s->nb = s->rep = 0;
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint32_t rgb = __builtin_bswap32(v) >> 8;
        memcpy(s->buf + s->nb, &rgb, 4);
        s->nb += 3;
#else
        s->buf[s->nb++] = (unsigned char)(v >> 16);
        s->buf[s->nb++] = (unsigned char)(v >> 8);
        s->buf[s->nb++] = (unsigned char)v;
#endif
        s->last = v;
    }
    s->next = x + n;
}

static inline void rgb_row_end(rgb_run *s, int width)
{
    if (s->nb) fo_rle_lits(s->r, s->gap, s->buf, s->nb), s->gap = 0;
    if (s->rep) fo_rle_repeat(s->r, s->buf + s->nb - 3, 3, s->rep);
    s->gap += 3 * ((size_t)width - s->next);
}

/* One row px[0..width) below up (NULL: row 0, every pixel changed). */
static void put_rgb_row(rgb_run *run, const uint32_t *px, const uint32_t *up, int width)
{
    rgb_run s = *run;
    rgb_row_start(&s);
    int x = 0;
    if (up)
        for (; x + 8 <= width; x += 8) { /* eight pixels like those above: most */
            if (same8(px + x, up + x)) continue;
            for (int k = x; k < x + 8; k++)
                if (px[k] != up[k]) rgb_change(&s, (uint32_t)k, up_rgb(px[k], up[k]));
        }
    for (; x < width; x++)
        if (!up || px[x] != up[x]) rgb_change(&s, (uint32_t)x, up_rgb(px[x], up ? up[x] : 0));
    rgb_row_end(&s, width);
    *run = s;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with AVX2, below a row (not row 0): 32 pixels compared a test
 * as in changed_avx2, and a block that differs subtracted whole, four
 * instructions for its 32 differences; its changed pixels are taken from
 * its mask. Issue 39: listing an RGB image's changes first, then reading
 * each one's pixels back and subtracting them one by one, was ~0.5 M
 * instructions of an area chart more. */
static __attribute__((target("avx2"))) void put_rgb_row_avx2(rgb_run *run, const uint32_t *px,
                                                             const uint32_t *up, int width)
{
    rgb_run s = *run;
    rgb_row_start(&s);
    uint32_t dif[32];
    int x = 0;
    for (; x + 32 <= width; x += 32) { /* most blocks of a changed row are like those above */
        const __m256i *pp = (const __m256i *)(const void *)(px + x),
                      *qq = (const __m256i *)(const void *)(up + x);
        __m256i p0 = _mm256_loadu_si256(pp), p1 = _mm256_loadu_si256(pp + 1), p2 = _mm256_loadu_si256(pp + 2),
                p3 = _mm256_loadu_si256(pp + 3);
        __m256i q0 = _mm256_loadu_si256(qq), q1 = _mm256_loadu_si256(qq + 1), q2 = _mm256_loadu_si256(qq + 2),
                q3 = _mm256_loadu_si256(qq + 3);
        __m256i e0 = _mm256_cmpeq_epi32(p0, q0), e1 = _mm256_cmpeq_epi32(p1, q1),
                e2 = _mm256_cmpeq_epi32(p2, q2), e3 = _mm256_cmpeq_epi32(p3, q3);
        __m256i all = _mm256_and_si256(_mm256_and_si256(e0, e1), _mm256_and_si256(e2, e3));
        if (_mm256_movemask_epi8(all) == -1) continue;
        uint32_t same = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e0)) |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e1)) << 8 |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e2)) << 16 |
                        (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(e3)) << 24;
        _mm256_storeu_si256((__m256i *)(void *)dif, _mm256_sub_epi8(p0, q0));
        _mm256_storeu_si256((__m256i *)(void *)(dif + 8), _mm256_sub_epi8(p1, q1));
        _mm256_storeu_si256((__m256i *)(void *)(dif + 16), _mm256_sub_epi8(p2, q2));
        _mm256_storeu_si256((__m256i *)(void *)(dif + 24), _mm256_sub_epi8(p3, q3));
        for (uint32_t bits = ~same; bits; bits &= bits + (bits & -bits)) { /* a stretch of set bits */
            unsigned i = (unsigned)__builtin_ctz(bits), n = (unsigned)__builtin_ctzll(~((uint64_t)bits >> i));
            rgb_stretch(&s, (uint32_t)x + i, dif + i, n);
        }
    }
    for (; x < width; x++)
        if (px[x] != up[x]) rgb_change(&s, (uint32_t)x, up_rgb(px[x], up[x]));
    rgb_row_end(&s, width);
    *run = s;
}
#endif

static void put_rgb_rows(fo_rle *r, const unsigned char *pixels, int width, int height, int stride)
{
    unsigned char buf[RGB_BUF + 1];
    rgb_run s = {r, buf, 0, 0, 0, 0, 0};
    bool avx2 = have_avx2();
    for (int y = 0; y < height; y++) {
        const uint32_t *px = pixel_row(pixels, stride, y), *up = y ? pixel_row(pixels, stride, y - 1) : NULL;
#if defined(__x86_64__) && defined(__GNUC__)
        if (up && avx2) {
            put_rgb_row_avx2(&s, px, up, width);
            continue;
        }
#endif
        (void)avx2;
        put_rgb_row(&s, px, up, width);
    }
    if (s.gap) fo_rle_lits(r, s.gap, NULL, 0);
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
    unsigned char *filt = NULL, *cur = NULL;
    palette *pal = NULL;
    changes c = {0};
    fo_rle r;
    fo_rle_init(&r);
    int indexed = 0;
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
        if (!pal || (indexed = find_indexed(pixels, width, height, stride, &c, pal)) < 0 ||
            !(cur = fo_calloc((size_t)width, 1))) {
            st = FO_ERR_NOMEM;
            goto cleanup;
        }
        /* an upper bound in practice (the rle grows past it if not): an
           indexed image's changed pixels' bytes and a zero before each
           stretch, each row's filter byte and a short run's literals; an
           RGB image's changes are not counted before they are written, an
           eighth of its pixels' bytes is more than a chart has */
        size_t lits = indexed ? 2 * c.n : (size_t)width * (size_t)height / 8,
               seqs = indexed ? c.n : (size_t)width * (size_t)height / 32;
        if (!fo_rle_reserve(&r, lits + 2 * (size_t)height + 64, seqs + (size_t)height + 64)) {
            st = FO_ERR_NOMEM;
            goto cleanup;
        }
        if (indexed) put_palette_rows(&r, width, height, &c, cur);
        else put_rgb_rows(&r, pixels, width, height, stride);
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
    fo_free(cur);
    fo_free(c.x);
    fo_free(c.idx);
    fo_free(c.row);
    fo_free(pal);
    return st;
}
