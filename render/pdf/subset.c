/* subset.c — the TrueType program a PDF embeds for a font: only the glyphs
 * it shows, numbered from 0, written by folio in place of libharu's.
 *
 * Why: libharu's subset keeps the font's own glyph numbers, so its loca and
 * hmtx tables hold an entry for every glyph of the font however few are
 * drawn: for a handful of Chinese characters Droid Sans Fallback's subset
 * was 367 KB before compression (loca 198 KB, hmtx 156 KB), NanumGothic's
 * 225 KB, and libharu copies each table four bytes per read. Writing and
 * deflating the mixed-script benchmark report's fonts took ~30 ms of its
 * ~0.26 s. Renumbered, a subset is its glyphs plus a few hundred bytes.
 *
 * The glyphs kept: .notdef, those of the codes the font shows
 * (fo_pdf_mark_codes), its shaped glyphs, and every component of a
 * composite glyph among them, nested (fo_pdf_close_glyphs). They keep their
 * order; a composite glyph's component indices are rewritten to the new
 * numbers, and /CIDToGIDMap (glyphs.c) sends each code to its glyph's new
 * number (fo_pdf_subset_gid).
 *
 * Tables: head (long loca offsets, checksum adjustment recomputed), hhea
 * and maxp (counts), loca, glyf, hmtx; cvt, fpgm, prep, OS/2 and name
 * copied (hinting and names do not name glyph numbers); post as version
 * 3.0 (no glyph names, which are by number). No cmap: a CIDFontType2 font
 * is addressed by glyph id through /CIDToGIDMap (PDF 32000-1, 9.9, lists
 * the tables it needs: head, hhea, loca, maxp, cvt, prep, glyf, hmtx,
 * fpgm). The descriptor is libharu's, built here with the program as its
 * /FontFile2, so libharu writes neither again. */
#include <string.h>

#include <hpdf.h>
#include <hpdf_font.h>
#include <hpdf_fontdef.h>

#include "base/buf.h"
#include "render/pdf/pdf_int.h"

#define NOT_KEPT 0xFFFFu

/* glyf composite flags (OpenType 'glyf') */
enum { ARG_WORDS = 0x0001, HAS_SCALE = 0x0008, MORE = 0x0020, XY_SCALE = 0x0040, TWO_BY_TWO = 0x0080 };

static void put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)(v >> 8); p[1] = (unsigned char)v; }
static void put32(unsigned char *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }

static bool read_at(HPDF_Stream s, uint32_t off, void *buf, uint32_t n)
{
    HPDF_UINT got = n;
    return n == 0 || (HPDF_Stream_Seek(s, (HPDF_INT)off, HPDF_SEEK_SET) == HPDF_OK &&
                      HPDF_Stream_Read(s, buf, &got) == HPDF_OK && got == n);
}

static const HPDF_TTFTable *find_table(HPDF_TTFontDefAttr a, const char *tag)
{
    for (HPDF_UINT i = 0; i < a->offset_tbl.num_tables; i++)
        if (memcmp(a->offset_tbl.table[i].tag, tag, 4) == 0) return &a->offset_tbl.table[i];
    return NULL;
}

/* Byte range of glyph g in the source glyf table. */
static void glyph_range(HPDF_TTFontDefAttr a, uint32_t g, uint32_t *off, uint32_t *len)
{
    uint32_t o = a->glyph_tbl.offsets[g], e = a->glyph_tbl.offsets[g + 1];
    if (a->header.index_to_loc_format == 0) { o *= 2; e *= 2; }
    *off = o;
    *len = e > o ? e - o : 0;
}

/* Rewrites the component indices of composite glyph data p[0..n) through
 * remap; false when the data is malformed. */
static bool renumber_components(unsigned char *p, uint32_t n, const uint16_t *remap, uint32_t nglyphs)
{
    if (n < 10 || fo_pdf_be16(p) != 0xFFFF) return true;            /* simple glyph */
    uint32_t at = 10, flags;
    do {
        if (at + 4 > n) return false;
        flags = fo_pdf_be16(p + at);
        uint32_t g = fo_pdf_be16(p + at + 2);
        if (g >= nglyphs || remap[g] == NOT_KEPT) return false;
        put16(p + at + 2, remap[g]);
        at += 4 + (flags & ARG_WORDS ? 4 : 2) +
              (flags & HAS_SCALE ? 2 : flags & XY_SCALE ? 4 : flags & TWO_BY_TWO ? 8 : 0);
    } while (flags & MORE);
    return true;
}

typedef struct {
    char tag[5];
    fo_buf data;
} table;

/* glyf and loca of the kept glyphs, in their new order. */
static bool build_glyf(HPDF_TTFontDefAttr a, const uint16_t *remap, uint32_t kept,
                       table *glyf, table *loca)
{
    const HPDF_TTFTable *src = find_table(a, "glyf");
    if (!src || !fo_buf_append(&loca->data, NULL, 4 * ((size_t)kept + 1))) return false;
    unsigned char *lp = (unsigned char *)loca->data.data;
    uint32_t k = 0;
    for (uint32_t g = 0; g < a->num_glyphs; g++) {
        if (remap[g] == NOT_KEPT) continue;
        uint32_t off, len;
        glyph_range(a, g, &off, &len);
        if (off + len > src->length) return false;
        put32(lp + 4 * k++, (uint32_t)glyf->data.len);
        size_t at = glyf->data.len;
        size_t padded = (len + 3u) & ~(size_t)3;
        if (!fo_buf_append(&glyf->data, NULL, padded)) return false;
        unsigned char *gp = (unsigned char *)glyf->data.data + at;
        memset(gp + len, 0, padded - len);
        if (!read_at(a->stream, src->offset + off, gp, len) ||
            !renumber_components(gp, len, remap, a->num_glyphs))
            return false;
    }
    put32(lp + 4 * k, (uint32_t)glyf->data.len);
    return true;
}

static bool build_hmtx(HPDF_TTFontDefAttr a, const uint16_t *remap, table *t)
{
    for (uint32_t g = 0; g < a->num_glyphs; g++) {
        if (remap[g] == NOT_KEPT) continue;
        unsigned char m[4];
        put16(m, a->h_metric[g].advance_width);
        put16(m + 2, (uint16_t)a->h_metric[g].lsb);
        if (!fo_buf_append(&t->data, m, 4)) return false;
    }
    return true;
}

/* A table copied from the font (absent: false, t left empty); head, hhea,
 * maxp and post get their counts and version for the subset. */
static bool copy_table(HPDF_TTFontDefAttr a, const char *tag, uint32_t kept, table *t)
{
    const HPDF_TTFTable *src = find_table(a, tag);
    if (!src || src->length > (1u << 24)) return false;
    uint32_t len = strcmp(tag, "post") == 0 ? (src->length < 32 ? 0 : 32) : src->length;
    if (len == 0 || !fo_buf_append(&t->data, NULL, len) ||
        !read_at(a->stream, src->offset, t->data.data, len))
        return false;
    unsigned char *p = (unsigned char *)t->data.data;
    if (strcmp(tag, "head") == 0 && len >= 54) { put32(p + 8, 0); put16(p + 50, 1); }
    if (strcmp(tag, "hhea") == 0 && len >= 36) put16(p + 34, kept);
    if (strcmp(tag, "maxp") == 0 && len >= 6) put16(p + 4, kept);
    if (strcmp(tag, "post") == 0) put32(p, 0x00030000);
    return true;
}

static uint32_t checksum(const unsigned char *p, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) v = v << 8 | (i + k < n ? p[i + k] : 0);
        sum += v;
    }
    return sum;
}

/* The font file: offset table, directory (tags in order), tables padded to
 * four bytes, head's checkSumAdjustment last. */
static bool assemble(table *t, size_t n, fo_buf *out)
{
    unsigned es = 0;
    while ((2u << es) <= n) es++;
    unsigned char head[12];
    put32(head, 0x00010000);
    put16(head + 4, (uint32_t)n);
    put16(head + 6, 16u << es);
    put16(head + 8, es);
    put16(head + 10, (uint32_t)(n * 16 - (16u << es)));
    if (!fo_buf_append(out, head, 12) || !fo_buf_append(out, NULL, 16 * n)) return false;
    size_t head_at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = out->len, len = t[i].data.len;
        if (strcmp(t[i].tag, "head") == 0) head_at = at;
        if (!fo_buf_append(out, t[i].data.data, len) || !fo_buf_append(out, "\0\0\0", (4 - len % 4) % 4))
            return false;
        unsigned char *d = (unsigned char *)out->data + 12 + 16 * i;
        memcpy(d, t[i].tag, 4);
        put32(d + 4, checksum((unsigned char *)t[i].data.data, len));
        put32(d + 8, (uint32_t)at);
        put32(d + 12, (uint32_t)len);
    }
    if (head_at && out->len >= head_at + 12)
        put32((unsigned char *)out->data + head_at + 8,
              0xB1B0AFBAu - checksum((unsigned char *)out->data, out->len));
    return !out->failed;
}

/* The subset's font file into out; false when the font cannot be read. */
static bool build_font(HPDF_TTFontDefAttr a, const uint16_t *remap, uint32_t kept, fo_buf *out)
{
    /* directory order: tags sorted */
    static const char *const tags[] = {"OS/2", "cvt ", "fpgm", "glyf", "head", "hhea",
                                       "hmtx", "loca", "maxp", "name", "post", "prep"};
    table t[sizeof tags / sizeof *tags];
    size_t n = 0;
    bool ok = true;
    table *glyf = NULL, *loca = NULL;
    for (size_t i = 0; i < sizeof tags / sizeof *tags && ok; i++) {
        table *x = &t[n];
        memset(x, 0, sizeof *x);
        memcpy(x->tag, tags[i], 5);
        if (strcmp(tags[i], "glyf") == 0) glyf = x;
        else if (strcmp(tags[i], "loca") == 0) loca = x;
        else if (strcmp(tags[i], "hmtx") == 0) ok = build_hmtx(a, remap, x);
        else if (!copy_table(a, tags[i], kept, x)) {
            bool required = strcmp(tags[i], "head") == 0 || strcmp(tags[i], "hhea") == 0 ||
                            strcmp(tags[i], "maxp") == 0;
            ok = !required;
            fo_buf_free(&x->data);
            continue;                                      /* optional and absent */
        }
        n++;
    }
    ok = ok && glyf && loca && build_glyf(a, remap, kept, glyf, loca) && assemble(t, n, out);
    for (size_t i = 0; i < n; i++) fo_buf_free(&t[i].data);
    return ok;
}

/* libharu's descriptor (CIDFontType2_BeforeWrite_Func), with the subset as
 * /FontFile2; libharu then uses it as it is. */
static bool add_descriptor(fo_pdf_font *f, const fo_buf *prog)
{
    HPDF_FontAttr fa = (HPDF_FontAttr)f->font->attr;
    HPDF_FontDef def = f->def;
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)def->attr;
    HPDF_Dict data = HPDF_DictStream_New(f->font->mmgr, fa->xref);
    HPDF_Dict d = HPDF_Dict_New(f->font->mmgr);
    if (!data || !d) return false;
    HPDF_STATUS r = HPDF_Stream_Write(data->stream, (const HPDF_BYTE *)prog->data, (HPDF_UINT)prog->len);
    r += HPDF_Dict_Add(d, "FontFile2", data);
    r += HPDF_Dict_AddNumber(data, "Length1", (HPDF_INT32)prog->len);
    r += HPDF_Dict_AddNumber(data, "Length2", 0);
    r += HPDF_Dict_AddNumber(data, "Length3", 0);
    data->filter = f->font->filter;
    r += HPDF_Xref_Add(fa->xref, d);
    r += HPDF_Dict_AddName(d, "Type", "FontDescriptor");
    r += HPDF_Dict_AddNumber(d, "Ascent", def->ascent);
    r += HPDF_Dict_AddNumber(d, "Descent", def->descent);
    r += HPDF_Dict_AddNumber(d, "Flags", (HPDF_INT32)def->flags);
    r += HPDF_Dict_Add(d, "FontBBox", HPDF_Box_Array_New(f->font->mmgr, def->font_bbox));
    r += HPDF_Dict_AddName(d, "FontName", a->base_font);
    r += HPDF_Dict_AddNumber(d, "ItalicAngle", def->italic_angle);
    r += HPDF_Dict_AddNumber(d, "StemV", (HPDF_INT32)def->stemv);
    r += HPDF_Dict_AddNumber(d, "XHeight", (HPDF_INT32)def->x_height);
    if (r != HPDF_OK) return false;
    def->descriptor = d;
    return true;
}

void fo_pdf_subset(fo_pdf *c, fo_pdf_font *f)
{
    if (c->st != FO_OK || !f || !f->font || !f->def || f->def->type != HPDF_FONTDEF_TYPE_TRUETYPE ||
        f->def->descriptor)
        return;
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)f->def->attr;
    if (!a || !a->embedding || !a->stream || !a->glyph_tbl.flgs || !a->glyph_tbl.offsets ||
        !a->h_metric || a->num_glyphs == 0)
        return;
    fo_pdf_glyphs_flag(f);                 /* exactly the glyphs shown, then */
    fo_pdf_close_glyphs(c, f);             /* their components */
    uint16_t *remap = fo_malloc((size_t)a->num_glyphs * sizeof *remap);
    fo_buf prog = {0};
    if (!remap) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    uint32_t kept = 0;
    for (uint32_t g = 0; g < a->num_glyphs; g++) remap[g] = a->glyph_tbl.flgs[g] ? (uint16_t)kept++ : NOT_KEPT;
    /* a font whose tables folio cannot subset is refused: libharu's own
       embedding of it loses memory (a descriptor built and dropped; found by
       fuzz_font) and would embed the same broken glyph data */
    bool built = build_font(a, remap, kept, &prog);
    if (built && add_descriptor(f, &prog)) {
        f->remap = remap;
        remap = NULL;
    } else if (prog.failed || built) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
    } else {
        fo_pdf_fail(c, FO_ERR_INPUT, "%s: the font's glyph tables are malformed (they cannot be "
                    "embedded); use another font file", f->path);
    }
    fo_buf_free(&prog);
    fo_free(remap);
}

uint16_t fo_pdf_subset_gid(const fo_pdf_font *f, uint16_t gid)
{
    if (!f->remap) return gid;
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)f->def->attr;
    return gid < a->num_glyphs && f->remap[gid] != NOT_KEPT ? f->remap[gid] : 0;
}
