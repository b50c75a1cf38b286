/* png_encode.h — private to render/png: a fast PNG encoder for cairo image
 * surfaces, and the growable byte buffer it writes into.
 *
 * Why not cairo_surface_write_to_png_stream: it compresses with zlib's default
 * level (6) and adaptive filtering, which costs 3-4x the time of drawing a
 * chart. Charts are flat colors with antialiased edges, so a palette when the
 * image has at most 256 colors, "Up"-filtered rows and run-length deflate
 * (rle.c) make files smaller than matplotlib's in a fraction of the time
 * (encode.c has the measurements). Output is deterministic: no time chunk;
 * text only as the caller adds it (the provenance). */
#ifndef FO_PNG_ENCODE_H
#define FO_PNG_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folio.h"
#include "base/buf.h"
#include "render/chart/chart.h"

/* Encodes a CAIRO_FORMAT_RGB24 (or ARGB32 when alpha) surface's pixels as an
 * 8-bit indexed PNG when opaque with at most 256 colors, else as 8-bit RGB
 * (RGBA), appending to out. dpi (0 = none) goes into pHYs.
 * Returns FO_ERR_NOMEM or FO_ERR_INTERNAL on failure. */
fo_status fo_png_encode(const unsigned char *pixels, int width, int height, int stride, bool alpha,
                        double dpi, fo_buf *out);

/* Inserts an uncompressed iTXt chunk (keyword: 1-79 Latin-1 characters;
 * text: UTF-8, no language tag) before the IEND that ends out, as written by
 * fo_png_encode. Anything else in out is left as it is. */
void fo_png_add_text(fo_buf *out, const char *keyword, const char *text);

/* A zlib stream built piece by piece (rle.c): run-length deflate, one
 * dynamic-Huffman block. Literal bytes are kept, runs of one byte counted;
 * the Adler-32 is summed as the bytes come, so a run of zeros the caller
 * knows of (pixels like those above them) is never written out at all. */
typedef struct {
    uint32_t lit, nlit, nrun; /* literals lit[lit..lit+nlit), then nrun bytes */
    uint32_t dist;            /* copied from 1 or 3 bytes back */
} fo_rle_seq;

typedef struct {
    unsigned char *lit;        /* every literal byte, in order */
    size_t nlit, litcap, lit0; /* lit0: the first literal of the open sequence */
    fo_rle_seq *seqs;
    size_t ns, scap;
    uint64_t run, total;    /* pending copies of last; bytes put so far */
    uint64_t s1, s2, since; /* Adler-32 sums, bytes since they were reduced */
    uint32_t freq[286];     /* literal/length symbol counts */
    unsigned last;          /* the last byte put (256: none yet) */
    bool failed;            /* sticky: out of memory or over 4 GiB */
} fo_rle;

void fo_rle_init(fo_rle *r);
/* Makes room for lits literal bytes and seqs sequences in all (the caller
 * knows a bound: no growing and copying on the way); false when out of
 * memory (r failed). */
bool fo_rle_reserve(fo_rle *r, size_t lits, size_t seqs);
/* Appends zeros zero bytes, then p[0..n). */
void fo_rle_put(fo_rle *r, size_t zeros, const unsigned char *p, size_t n);
/* The same, p[0..n) as literals without looking for runs in them (the
 * caller passes the runs it knows of to fo_rle_repeat). */
void fo_rle_lits(fo_rle *r, size_t zeros, const unsigned char *p, size_t n);
/* Appends times copies of pat[0..bpp), bpp 1 or 3, which must be the last
 * bpp bytes put (one pixel's difference, repeated to its right). */
void fo_rle_repeat(fo_rle *r, const unsigned char *pat, size_t bpp, size_t times);
/* Appends the zlib stream of everything put (at least one byte) to out.
 * FO_ERR_NOMEM when r failed or out cannot grow. */
fo_status fo_rle_finish(fo_rle *r, fo_buf *out);
void fo_rle_free(fo_rle *r);

/* What png.c draws itself rather than through cairo alone (issue 39): */
#define FO_PNG_OWN_LINES 1u /* series' lines and markers: its own rasterizer */
#define FO_PNG_OWN_AREAS 2u /* translucent fills: cairo's coverage, its own blending */
#define FO_PNG_OWN_FILLS 4u /* solid fills (sectors, areas): its own coverage and blending */
#define FO_PNG_OWN_ALL 7u   /* what the renderer does */

/* Chart c drawn with the parts own names (FO_PNG_OWN_*) drawn by png.c and
 * the rest by cairo: *px gets *w x *h pixels 0xRRGGBB, row by row
 * (fo_malloc'd, the caller frees). For tests that compare the two. */
fo_status fo_png_chart_pixels(const fo_chart *c, const fo_theme *t, double scale, unsigned own, uint32_t **px,
                              int *w, int *h, fo_diags *d);

/* Appends src[0..n) (1 <= n < 4 GiB) as one zlib stream (fo_rle). */
fo_status fo_png_zlib_rle(const unsigned char *src, size_t n, fo_buf *out);

#endif
