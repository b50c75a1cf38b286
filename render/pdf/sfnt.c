/* sfnt.c — the values of a font file that libharu trusts, checked before it
 * reads the file.
 *
 * A theme may name its own TrueType files, so their bytes are untrusted.
 * libharu divides by the head table's unitsPerEm and indexes the horizontal
 * metrics by hhea's numberOfHMetrics without checking either: a unitsPerEm of
 * 0 stops the process with SIGFPE in HPDF_TTFontDef_Load (found by
 * fuzz_font). The ranges are the OpenType specification's. */
#include "render/pdf/pdf_int.h"

#include <stdio.h>
#include <string.h>

#define MAX_TABLES 512

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p) { return be16(p) << 16 | be16(p + 2); }

/* n bytes at off of f into buf; false when the file is shorter. */
static bool read_at(FILE *f, uint32_t off, void *buf, size_t n)
{
    return fseek(f, (long)off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n;
}

/* The record of table tag in the directory at base: its offset and length,
 * checked to lie within a file of size bytes. False when absent or outside. */
static bool find(FILE *f, uint32_t base, uint32_t size, const char *tag, uint32_t *off, uint32_t *len)
{
    unsigned char h[6], r[16];
    if (!read_at(f, base, h, sizeof h)) return false;
    uint32_t n = be16(h + 4);
    for (uint32_t i = 0; i < n && i < MAX_TABLES; i++) {
        if (!read_at(f, base + 12 + 16 * i, r, sizeof r)) return false;
        if (memcmp(r, tag, 4) != 0) continue;
        *off = be32(r + 8);
        *len = be32(r + 12);
        return *off <= size && *len <= size - *off;
    }
    return false;
}

/* The problem with the tables at base, or NULL. */
static const char *check(FILE *f, uint32_t base, uint32_t size)
{
    unsigned char head[54], hhea[36], maxp[6];
    uint32_t off, len;
    if (!find(f, base, size, "head", &off, &len) || len < sizeof head ||
        !read_at(f, off, head, sizeof head))
        return "head table is missing or cut short";
    uint32_t upem = be16(head + 18);
    if (upem < 16 || upem > 16384) return "head table gives an impossible unitsPerEm";
    if (!find(f, base, size, "hhea", &off, &len) || len < sizeof hhea ||
        !read_at(f, off, hhea, sizeof hhea))
        return "hhea table is missing or cut short";
    if (!find(f, base, size, "maxp", &off, &len) || len < sizeof maxp ||
        !read_at(f, off, maxp, sizeof maxp))
        return "maxp table is missing or cut short";
    uint32_t metrics = be16(hhea + 34), glyphs = be16(maxp + 4);
    if (glyphs == 0 || metrics == 0 || metrics > glyphs)
        return "glyph and metrics counts disagree";
    return NULL;
}

const char *fo_pdf_sfnt_problem(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;                         /* libharu reports what it cannot open */
    unsigned char tag[16];
    const char *bad = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size < 12 || size > 0xffffffffL || !read_at(f, 0, tag, sizeof tag))
        bad = "file is too short to be a font";
    else if (memcmp(tag, "ttcf", 4) == 0)        /* a collection: its first font */
        bad = check(f, be32(tag + 12), (uint32_t)size);
    else
        bad = check(f, 0, (uint32_t)size);
    fclose(f);
    return bad;
}
