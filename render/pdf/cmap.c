/* cmap.c — a TrueType font's character map made a table, so libharu's
 * glyph lookups cost one array read instead of a scan.
 *
 * Why: libharu finds a character's glyph (HPDF_TTFontDef_GetGlyphid) by
 * walking the cmap's format-4 segments one by one, and calls it for all
 * 65,536 BMP code points when a font is set up for the UTF-8 encoder
 * (HPDF_GetFont builds /W and /CIDToGIDMap from it), then again for every
 * character measured or shown. NanumGothic has thousands of segments:
 * setting it up took 62 ms, and the 11 fonts of the mixed-script benchmark
 * report about 0.12 s — a third of that render's time.
 *
 * fo_pdf_flat_cmap resolves every code point once, with libharu's own rule,
 * and leaves the font a single segment 0..0xFFFF whose glyph array is
 * indexed by the code point itself, which GetGlyphid reads at its first
 * step. Lookups give the same glyph ids as before, so the PDF is the same
 * byte for byte. The font's cmap table embedded in the PDF is copied from
 * the file, not from this structure, and is not affected. */
#include <string.h>

#include <hpdf.h>
#include <hpdf_fontdef.h>

#include "render/pdf/pdf_int.h"

/* The glyph of u in segment i of m, as HPDF_TTFontDef_GetGlyphid gives it
 * (i: the first segment whose end is >= u), 0 when the segment lacks u. */
static HPDF_UINT16 segment_glyph(const HPDF_TTF_CmapRange *m, HPDF_UINT seg, HPDF_UINT i,
                                 HPDF_UINT u)
{
    if (i == seg || m->start_count[i] > u) return 0;
    if (m->id_range_offset[i] == 0) return (HPDF_UINT16)(u + (HPDF_UINT16)m->id_delta[i]);
    HPDF_UINT idx = m->id_range_offset[i] / 2u + (u - m->start_count[i]) - (seg - i);
    if (idx >= m->glyph_id_array_count) return 0;   /* libharu reads one past: never a glyph */
    return (HPDF_UINT16)(m->glyph_id_array[idx] + (HPDF_UINT16)m->id_delta[i]);
}

void fo_pdf_flat_cmap(HPDF_FontDef def)
{
    if (!def || def->type != HPDF_FONTDEF_TYPE_TRUETYPE || !def->attr) return;
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)def->attr;
    HPDF_TTF_CmapRange *m = &a->cmap;
    HPDF_UINT seg = m->seg_count_x2 / 2u;
    if (m->format != 4 || seg < 2 || !m->end_count || !m->start_count ||
        !m->id_delta || !m->id_range_offset)
        return;                      /* format 0, or already one segment */
    /* libharu frees the cmap's arrays with the font: they come from its pool */
    HPDF_UINT16 *gids = HPDF_GetMem(def->mmgr, 0x10000 * sizeof *gids);
    if (!gids) return;               /* the slow lookups still work */
    /* segment by segment: code u belongs to the first segment ending at or
       after it, so segment i covers (end of segment i-1, end of i] */
    memset(gids, 0, 0x10000 * sizeof *gids);
    HPDF_UINT from = 0;
    for (HPDF_UINT i = 0; i < seg && from <= 0xFFFF; i++) {
        HPDF_UINT end = m->end_count[i];
        if (end < from) continue;
        HPDF_UINT u = m->start_count[i] > from ? m->start_count[i] : from;
        for (; u <= end; u++) gids[u] = segment_glyph(m, seg, i, u);
        from = end + 1;
    }
    if (m->glyph_id_array) HPDF_FreeMem(def->mmgr, m->glyph_id_array);
    m->glyph_id_array = gids;
    m->glyph_id_array_count = 0x10000;
    /* one segment: idx = id_range_offset / 2 + (u - 0) - (1 - 0) = u */
    m->seg_count_x2 = 2;
    m->end_count[0] = 0xFFFF;
    m->start_count[0] = 0;
    m->id_delta[0] = 0;
    m->id_range_offset[0] = 2;
}
