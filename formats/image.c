/* image.c — PNG/JPEG sniffing: the signature and the size, nothing decoded.
 *
 * PNG: the IHDR chunk follows the 8-byte signature. JPEG: walk the markers to
 * the first start-of-frame (SOF0..SOF15 except DHT/JPG/DAC). */
#include <stdio.h>
#include <string.h>

#include "formats/image.h"

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static bool probe_jpeg(FILE *f, int *w, int *h)
{
    unsigned char m[9];
    if (fseek(f, 2, SEEK_SET) != 0) return false;
    for (int guard = 0; guard < 10000; guard++) {
        int c = fgetc(f);
        if (c != 0xFF) return false;
        while ((c = fgetc(f)) == 0xFF) {}
        if (c == EOF || c == 0xD9 || c == 0xDA) return false;
        if (c == 0x01 || (c >= 0xD0 && c <= 0xD7)) continue; /* no length */
        unsigned char lb[2];
        if (fread(lb, 1, 2, f) != 2) return false;
        unsigned len = be16(lb);
        if (len < 2) return false;
        if (c >= 0xC0 && c <= 0xCF && c != 0xC4 && c != 0xC8 && c != 0xCC) {
            if (len < 7 || fread(m, 1, 5, f) != 5) return false;
            *h = (int)be16(m + 1);
            *w = (int)be16(m + 3);
            return *w > 0 && *h > 0;
        }
        if (fseek(f, (long)len - 2, SEEK_CUR) != 0) return false;
    }
    return false;
}

bool fo_image_probe(const char *path, bool *is_png, int *width, int *height)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char head[24];
    bool ok = false;
    size_t n = fread(head, 1, sizeof head, f);
    if (n >= 24 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(head + 12, "IHDR", 4) == 0) {
        *is_png = true;
        unsigned long w = be32(head + 16), h = be32(head + 20);
        ok = w > 0 && h > 0 && w < 100000 && h < 100000;
        *width = (int)w;
        *height = (int)h;
    } else if (n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) {
        *is_png = false;
        ok = probe_jpeg(f, width, height);
    }
    fclose(f);
    return ok;
}
