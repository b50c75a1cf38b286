/* closure.c — completes the glyph set libharu embeds for a TrueType subset,
 * so composite glyphs keep their components.
 *
 * Why: libharu subsets a TrueType font by flagging the glyphs it showed and
 * copying only those into the embedded glyf table. For a composite glyph it
 * also flags the components (CheckCompositGryph), but it reads the component
 * glyph index as a signed 16-bit number and drops indices above 32,767, and
 * it never looks inside a component that is itself composite. Droid Sans
 * Fallback, the CJK fallback, has 49,382 glyphs and builds many Chinese
 * characters from components numbered above 32,767: 绿 油 语 销 were drawn
 * without their left-hand radical (as 录 由 吾 肖) while the text layer
 * read right. Measured before the fix: 15 empty components in 10 composite
 * glyphs for the string "绿茶 橄榄油 椰枣 笔记本 语言 销量"
 * (tests/render/pdf/test_world_text.py checks every component is present).
 *
 * fo_pdf_close_glyphs walks every flagged glyph of a font just before the
 * file is saved and flags each component, unsigned, depth first, so the
 * closure is complete whatever the nesting. The subset folio embeds
 * (subset.c) is the flagged glyphs. */
#include <string.h>

#include <hpdf.h>
#include <hpdf_fontdef.h>

#include "folio.h"
#include "render/pdf/pdf_int.h"

/* glyf composite flags (OpenType spec, 'glyf' table) */
enum {
    ARG_1_AND_2_ARE_WORDS = 0x0001,
    WE_HAVE_A_SCALE = 0x0008,
    MORE_COMPONENTS = 0x0020,
    WE_HAVE_AN_X_AND_Y_SCALE = 0x0040,
    WE_HAVE_A_TWO_BY_TWO = 0x0080,
};

static bool read_u16(HPDF_Stream s, uint16_t *v)
{
    HPDF_BYTE b[2];
    HPDF_UINT n = 2;
    if (HPDF_Stream_Read(s, b, &n) != HPDF_OK || n != 2) return false;
    *v = (uint16_t)(b[0] << 8 | b[1]);
    return true;
}

/* Bytes of a component record after its flags and glyph index. */
static HPDF_INT component_tail(uint16_t flags)
{
    HPDF_INT n = flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2;
    if (flags & WE_HAVE_A_SCALE) n += 2;
    else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) n += 4;
    else if (flags & WE_HAVE_A_TWO_BY_TWO) n += 8;
    return n;
}

/* Pushes the components of glyph gid that are not flagged yet onto stack
 * (flagging them). Returns the new stack height. */
static size_t push_components(HPDF_TTFontDefAttr a, uint16_t gid, uint16_t *stack, size_t n)
{
    HPDF_UINT32 off = a->glyph_tbl.offsets[gid], end = a->glyph_tbl.offsets[gid + 1];
    if (end <= off) return n;                           /* empty glyph */
    if (a->header.index_to_loc_format == 0) off *= 2;
    HPDF_Stream s = a->stream;
    uint16_t contours, flags, index;
    if (HPDF_Stream_Seek(s, (HPDF_INT)(a->glyph_tbl.base_offset + off), HPDF_SEEK_SET) != HPDF_OK ||
        !read_u16(s, &contours) || contours != 0xFFFF ||   /* -1: composite */
        HPDF_Stream_Seek(s, 8, HPDF_SEEK_CUR) != HPDF_OK)  /* the bounding box */
        return n;
    do {
        if (!read_u16(s, &flags) || !read_u16(s, &index)) return n;
        if (index < a->num_glyphs && !a->glyph_tbl.flgs[index]) {
            a->glyph_tbl.flgs[index] = 1;
            stack[n++] = index;
        }
        if (HPDF_Stream_Seek(s, component_tail(flags), HPDF_SEEK_CUR) != HPDF_OK) return n;
    } while (flags & MORE_COMPONENTS);
    return n;
}

void fo_pdf_close_glyphs(fo_pdf *c, fo_pdf_font *f)
{
    if (c->st != FO_OK || !f || !f->font || !f->def || f->def->type != HPDF_FONTDEF_TYPE_TRUETYPE)
        return;                      /* !f->font: never drawn, not embedded */
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)f->def->attr;
    if (!a || !a->embedding || !a->stream || !a->glyph_tbl.flgs || !a->glyph_tbl.offsets) return;
    /* each glyph is pushed at most once (when first flagged) */
    uint16_t *stack = fo_malloc(((size_t)a->num_glyphs + 1) * sizeof *stack);
    if (!stack) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    size_t n = 0;
    for (uint32_t g = 0; g < a->num_glyphs; g++)
        if (a->glyph_tbl.flgs[g]) n = push_components(a, (uint16_t)g, stack, n);
    while (n > 0) {
        uint16_t g = stack[--n];
        n = push_components(a, g, stack, n);
    }
    fo_free(stack);
}
