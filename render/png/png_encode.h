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

#include "folio.h"
#include "base/buf.h"

/* Encodes a CAIRO_FORMAT_RGB24 (or ARGB32 when alpha) surface's pixels as an
 * 8-bit indexed PNG when opaque with at most 256 colors, else as 8-bit RGB
 * (RGBA), appending to out. dpi (0 = none) goes into pHYs.
 * Returns FO_ERR_NOMEM or FO_ERR_INTERNAL on failure. */
fo_status fo_png_encode(const unsigned char *pixels, int width, int height, int stride,
                        bool alpha, double dpi, fo_buf *out);

/* Inserts an uncompressed iTXt chunk (keyword: 1-79 Latin-1 characters;
 * text: UTF-8, no language tag) before the IEND that ends out, as written by
 * fo_png_encode. Anything else in out is left as it is. */
void fo_png_add_text(fo_buf *out, const char *keyword, const char *text);

/* Appends src[0..n) (1 <= n <= 4 GiB) as one zlib stream: run-length
 * deflate (rle.c). FO_ERR_NOMEM when out cannot grow. */
fo_status fo_png_zlib_rle(const unsigned char *src, size_t n, fo_buf *out);

#endif
