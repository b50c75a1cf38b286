/* image.h — recognises PNG and JPEG files and reads their pixel size. */
#ifndef FO_IMAGE_H
#define FO_IMAGE_H

#include <stdbool.h>

/* True for a readable PNG or JPEG; sets *is_png and the size in pixels. */
bool fo_image_probe(const char *path, bool *is_png, int *width, int *height);

#endif
