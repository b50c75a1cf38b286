/* sfnt.c — the values of a font file that libharu trusts, checked before it
 * reads the file (fontfile.c calls this on the mapped file).
 *
 * A theme may name its own TrueType files, so their bytes are untrusted, and
 * libharu 2.3 reads them without checking (each found by fuzz_font):
 * - it divides by head's unitsPerEm: 0 stops the process (SIGFPE);
 * - it allocates advance widths for maxp's numGlyphs and reads hhea's
 *   numberOfHMetrics of them: more metrics than glyphs overflow the heap;
 * - it looks up the glyph a character maps to (the box of 'H' and 'x' while
 *   loading, widths later) without a bound: a cmap naming glyph 54811 of a
 *   17-glyph font reads far outside its arrays.
 * The ranges are the OpenType specification's. Only the first font of a
 * collection is checked: it is the one libharu loads. */
#include "render/pdf/pdf_int.h"

#include <string.h>

#define MAX_TABLES 512

typedef struct {
    const unsigned char *data;
    size_t size;
    size_t dir;              /* the table directory of the font checked */
} sfnt;

/* Table tag's bytes and length (*len), checked to lie within the file and to
 * hold at least min bytes; NULL when absent, outside or shorter. */
static const unsigned char *table(const sfnt *f, const char *tag, size_t min, size_t *len)
{
    if (f->dir > f->size || f->size - f->dir < 12) return NULL;
    uint32_t n = fo_pdf_be16(f->data + f->dir + 4);
    for (uint32_t i = 0; i < n && i < MAX_TABLES; i++) {
        size_t rec = f->dir + 12 + 16 * (size_t)i;
        if (rec > f->size || f->size - rec < 16) return NULL;
        if (memcmp(f->data + rec, tag, 4) != 0) continue;
        size_t off = fo_pdf_be32(f->data + rec + 8);
        *len = fo_pdf_be32(f->data + rec + 12);
        if (off > f->size || *len > f->size - off || *len < min) return NULL;
        return f->data + off;
    }
    return NULL;
}

/* The problem with one format 4 subtable t[0..len), or NULL: a segment must
 * map every code to a glyph below glyphs, through idDelta or through a
 * glyphIdArray slot inside the subtable. */
static const char *check_format4(const unsigned char *t, size_t len, uint32_t glyphs)
{
    uint32_t segs = fo_pdf_be16(t + 6) / 2, codes = 0;
    if (len < 16 + 8 * (size_t)segs) return "cmap table is cut short";
    const unsigned char *end = t + 14, *start = end + 2 * segs + 2;
    const unsigned char *delta = start + 2 * segs, *range = delta + 2 * segs;
    for (uint32_t k = 0; k < segs; k++) {
        uint32_t a = fo_pdf_be16(start + 2 * k), b = fo_pdf_be16(end + 2 * k), d = fo_pdf_be16(delta + 2 * k);
        uint32_t ro = fo_pdf_be16(range + 2 * k);
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
            uint32_t g = fo_pdf_be16(t + at + 2 * c);
            if (g && ((g + d) & 0xffff) >= glyphs)
                return "cmap table maps characters to glyphs the font lacks";
        }
    }
    return NULL;
}

/* The problem with the character map (its format 4 subtables, the ones
 * libharu reads), or NULL. */
static const char *check_cmap(const sfnt *f, uint32_t glyphs)
{
    size_t len;
    const unsigned char *cmap = table(f, "cmap", 4, &len);
    if (!cmap) return "cmap table is missing or cut short";
    for (uint32_t i = 0, n = fo_pdf_be16(cmap + 2); i < n && i < MAX_TABLES; i++) {
        if (12 + 8 * (size_t)i > len) return "cmap table is cut short";
        size_t at = fo_pdf_be32(cmap + 8 + 8 * i);
        if (at > len - 4) return "cmap table is cut short";
        if (fo_pdf_be16(cmap + at) != 4) continue;
        size_t sub = fo_pdf_be16(cmap + at + 2);
        if (sub < 16 || sub > len - at) return "cmap table is cut short";
        const char *bad = check_format4(cmap + at, sub, glyphs);
        if (bad) return bad;
    }
    return NULL;
}

const char *fo_pdf_sfnt_problem(const unsigned char *data, size_t size)
{
    sfnt f = {data, size, 0};
    size_t len;
    if (size < 16) return "file is too short to be a font";
    if (memcmp(data, "ttcf", 4) == 0) f.dir = fo_pdf_be32(data + 12);
    const unsigned char *head = table(&f, "head", 54, &len);
    if (!head) return "head table is missing or cut short";
    uint32_t upem = fo_pdf_be16(head + 18);
    if (upem < 16 || upem > 16384) return "head table gives an impossible unitsPerEm";
    const unsigned char *hhea = table(&f, "hhea", 36, &len);
    if (!hhea) return "hhea table is missing or cut short";
    const unsigned char *maxp = table(&f, "maxp", 6, &len);
    if (!maxp) return "maxp table is missing or cut short";
    uint32_t metrics = fo_pdf_be16(hhea + 34), glyphs = fo_pdf_be16(maxp + 4);
    if (glyphs == 0 || metrics == 0 || metrics > glyphs) return "glyph and metrics counts disagree";
    return check_cmap(&f, glyphs);
}
