/* sfnt.c — the values of a font file that libharu trusts, checked before it
 * reads the file.
 *
 * A theme may name its own TrueType files, so their bytes are untrusted.
 * libharu divides by the head table's unitsPerEm and indexes the horizontal
 * metrics by hhea's numberOfHMetrics without checking either: a unitsPerEm of
 * 0 stops the process with SIGFPE in HPDF_TTFontDef_Load (found by
 * fuzz_font), and looks glyphs up through the character map without
 * checking that they exist. The ranges are the OpenType specification's. */
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

/* The problem with one format 4 subtable (t[0..len), fmt 4 checked by the
 * caller), or NULL: a segment must map every code to a glyph below glyphs,
 * through idDelta or through a glyphIdArray slot inside the subtable.
 * libharu looks glyphs up in it unchecked (the width and box of glyph
 * 54811 of a 17-glyph font, found by fuzz_font). */
static const char *check_format4(const unsigned char *t, uint32_t len, uint32_t glyphs)
{
    uint32_t segs = be16(t + 6) / 2, codes = 0;
    if (len < 16 + 8 * segs) return "cmap table is cut short";
    const unsigned char *end = t + 14, *start = end + 2 * segs + 2;
    const unsigned char *delta = start + 2 * segs, *range = delta + 2 * segs;
    for (uint32_t k = 0; k < segs; k++) {
        uint32_t a = be16(start + 2 * k), b = be16(end + 2 * k), d = be16(delta + 2 * k);
        uint32_t ro = be16(range + 2 * k);
        if (a > b) continue;                          /* empty: never matched */
        if ((codes += b - a + 1) > 0x20000) return "cmap table's segments overlap";
        if (ro == 0) {                                /* glyph = code + idDelta */
            uint32_t lo = (a + d) & 0xffff, hi = (b + d) & 0xffff;
            if (hi < lo || hi >= glyphs) return "cmap table maps characters to glyphs the font lacks";
            continue;
        }
        size_t at = (size_t)(range + 2 * k - t) + ro;  /* the slot of code a */
        if (at + 2 * (size_t)(b - a) + 2 > len) return "cmap table points outside itself";
        for (uint32_t c = 0; c <= b - a; c++) {
            uint32_t g = be16(t + at + 2 * c);
            if (g && ((g + d) & 0xffff) >= glyphs)
                return "cmap table maps characters to glyphs the font lacks";
        }
    }
    return NULL;
}

/* The problem with the character map at base (its format 4 subtables, the
 * ones libharu reads), or NULL. */
static const char *check_cmap(FILE *f, uint32_t base, uint32_t size, uint32_t glyphs)
{
    uint32_t off, len;
    unsigned char h[4], rec[8], sub[4];
    if (!find(f, base, size, "cmap", &off, &len) || len < 4 || !read_at(f, off, h, sizeof h))
        return "cmap table is missing or cut short";
    for (uint32_t i = 0, n = be16(h + 2); i < n && i < MAX_TABLES; i++) {
        if (8 * i + 12 > len || !read_at(f, off + 4 + 8 * i, rec, sizeof rec))
            return "cmap table is cut short";
        uint32_t at = be32(rec + 4);
        if (at > len - 4 || !read_at(f, off + at, sub, sizeof sub)) return "cmap table is cut short";
        uint32_t sublen = be16(sub + 2);
        if (be16(sub) != 4) continue;
        if (sublen < 16 || sublen > len - at) return "cmap table is cut short";
        unsigned char *t = fo_malloc(sublen);
        if (!t) return NULL;                           /* libharu will fail alike */
        const char *bad = read_at(f, off + at, t, sublen) ? check_format4(t, sublen, glyphs)
                                                          : "cmap table is cut short";
        fo_free(t);
        if (bad) return bad;
    }
    return NULL;
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
    return check_cmap(f, base, size, glyphs);
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
