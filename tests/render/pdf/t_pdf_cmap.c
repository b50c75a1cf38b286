/* t_pdf_cmap.c — fo_pdf_flat_cmap (render/pdf/cmap.c): after flattening, a
 * font gives libharu the same glyph for every BMP code point as before, and
 * the glyph FreeType (an independent cmap reader) gives; the font then
 * really is one segment, so lookups are one read.
 *
 * Fonts: the ones the mixed-script benchmark embeds, NanumGothic (thousands
 * of segments, the slowest to set up) and Droid (49,382 glyphs) among them.
 * A font that is not installed is skipped. */
#include <check.h>
#include <stdio.h>
#include <unistd.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hpdf.h>
#include <hpdf_fontdef.h>

#include "render/pdf/pdf_int.h"
#include "tests/check_run.h"

static const char *const fonts[] = {
    "/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
};
#define NFONTS (sizeof fonts / sizeof *fonts)

static HPDF_FontDef load(HPDF_Doc pdf, const char *path)
{
    const char *name = HPDF_LoadTTFontFromFile(pdf, path, HPDF_TRUE);
    ck_assert_ptr_nonnull(name);
    HPDF_FontDef def = HPDF_GetFontDef(pdf, name);
    ck_assert_ptr_nonnull(def);
    return def;
}

START_TEST(same_glyphs_as_libharu_and_freetype)
{
    const char *path = fonts[_i];
    if (access(path, R_OK) != 0) { printf("skip: %s not installed\n", path); return; }
    /* two documents: libharu names a font once per document */
    HPDF_Doc a = HPDF_New(NULL, NULL), b = HPDF_New(NULL, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    HPDF_FontDef slow = load(a, path), flat = load(b, path);
    HPDF_TTFontDefAttr fa = (HPDF_TTFontDefAttr)flat->attr;
    ck_assert_uint_gt(fa->cmap.seg_count_x2, 2);
    fo_pdf_flat_cmap(flat);
    ck_assert_uint_eq(fa->cmap.seg_count_x2, 2);
    ck_assert_uint_eq(fa->cmap.glyph_id_array_count, 0x10000);

    FT_Library lib;
    FT_Face face;
    ck_assert_int_eq(FT_Init_FreeType(&lib), 0);
    ck_assert_int_eq(FT_New_Face(lib, path, 0, &face), 0);
    size_t mapped = 0;
    for (uint32_t u = 0; u <= 0xFFFF; u++) {
        HPDF_UINT16 g = HPDF_TTFontDef_GetGlyphid(flat, (HPDF_UINT16)u);
        ck_assert_msg(g == HPDF_TTFontDef_GetGlyphid(slow, (HPDF_UINT16)u),
                      "%s U+%04X: %u flat, %u before", path, u, g,
                      HPDF_TTFontDef_GetGlyphid(slow, (HPDF_UINT16)u));
        /* FreeType may pick another Unicode subtable; they agree on what
           both map (surrogates and private use left out) */
        if (u >= 0xD800 && u <= 0xF8FF) continue;
        FT_UInt ft = FT_Get_Char_Index(face, u);
        if (g && ft) ck_assert_msg(g == ft, "%s U+%04X: %u, FreeType %u", path, u, g, ft);
        mapped += g != 0;
    }
    ck_assert_uint_gt(mapped, 50);   /* Noto Sans Thai maps 101 */
    /* flattening twice changes nothing */
    fo_pdf_flat_cmap(flat);
    ck_assert_uint_eq(HPDF_TTFontDef_GetGlyphid(flat, 'A'), HPDF_TTFontDef_GetGlyphid(slow, 'A'));
    FT_Done_Face(face);
    FT_Done_FreeType(lib);
    HPDF_Free(a);
    HPDF_Free(b);
}
END_TEST

START_TEST(null_is_a_no_op)
{
    fo_pdf_flat_cmap(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pdf_cmap");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, same_glyphs_as_libharu_and_freetype, 0, NFONTS);
    tcase_add_test(tc, null_is_a_no_op);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
