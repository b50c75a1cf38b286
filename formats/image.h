/* image.h — checks PNG and JPEG files before anything decodes them, and
 * reads their pixel size.
 *
 * An image comes from untrusted analysis code, and every decoder downstream
 * (cairo for PDF, Office readers for docx/pptx/xlsx) allocates what the
 * header says: a 1 MB PNG claiming 20000 x 20000 pixels decodes to 1.6 GB.
 * So an image is accepted only when its header is sane and small enough,
 * and, for PNG, when its chunk structure, CRCs and compressed pixel data
 * are intact (inflated here into a small scratch buffer, never kept). What
 * is accepted here decodes in every writer; what is not is a located input
 * error, never a silently missing picture. */
#ifndef FO_IMAGE_H
#define FO_IMAGE_H

#include "folio.h"                     /* FO_DEFAULT_MAX_BYTES */

#include <stdbool.h>
#include <stddef.h>

#define FO_IMAGE_MAX_PIXELS 50000000ull  /* 50 megapixels: ~200 MB decoded as RGBA */
#define FO_IMAGE_MAX_BYTES FO_DEFAULT_MAX_BYTES   /* the default output ceiling: 30 MiB */
#define FO_IMAGE_MAX_SIDE 65535          /* JPEG's own limit; PNG is held to it too */

typedef struct {
    bool is_png;       /* else JPEG */
    int width, height; /* pixels */
} fo_image_info;

/* Checks the image bytes data[0..len); NULL when acceptable (*info set),
 * else a short reason for a message ("a PNG chunk runs past the end of the
 * file", "60000 x 60000 pixels is over the 50-megapixel limit"). */
const char *fo_image_check_mem(const unsigned char *data, size_t len, fo_image_info *info);

/* The same for a file: opened without blocking (a FIFO or device is
 * refused, never read), regular files of at most FO_IMAGE_MAX_BYTES. */
const char *fo_image_check(const char *path, fo_image_info *info);

/* True for an acceptable PNG or JPEG; sets *is_png and the size in pixels. */
bool fo_image_probe(const char *path, bool *is_png, int *width, int *height);

#endif
