/* t_pdf_font_setup.c — fo_pdf_get_font (render/pdf/glyphs.c): a UTF-8 font
 * set up without libharu's pass over every code point is the font
 * HPDF_GetFont makes (same widths for text, a /W array and a /CIDToGIDMap
 * stream for fo_pdf_glyphs_finish to fill), and the document's UTF-8
 * encoder comes back exactly as it was. A font that is not installed is
 * skipped. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpdf.h>
#include <hpdf_encoder.h>
#include <hpdf_font.h>
#include <hpdf_streams.h>

#include "render/pdf/pdf_int.h"
#include "tests/check_run.h"

static const char *const fonts[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
};
#define NFONTS (sizeof fonts / sizeof *fonts)

static HPDF_Doc utf8_doc(void)
{
    HPDF_Doc pdf = HPDF_New(NULL, NULL);
    ck_assert_ptr_nonnull(pdf);
    HPDF_UseUTFEncodings(pdf);
    HPDF_SetCurrentEncoder(pdf, "UTF-8");
    return pdf;
}

START_TEST(same_font_as_libharu_and_encoder_restored)
{
    const char *path = fonts[_i];
    if (access(path, R_OK) != 0) return;
    HPDF_Doc theirs = utf8_doc(), ours = utf8_doc();
    const char *n1 = HPDF_LoadTTFontFromFile(theirs, path, HPDF_TRUE);
    const char *n2 = HPDF_LoadTTFontFromFile(ours, path, HPDF_TRUE);
    ck_assert_ptr_nonnull(n1);
    ck_assert_ptr_nonnull(n2);

    HPDF_Encoder e = HPDF_GetEncoder(ours, "UTF-8");
    HPDF_CMapEncoderAttr a = e->attr;
    HPDF_CMapEncoderAttr before = malloc(sizeof *before);
    memcpy(before, a, sizeof *before);
    HPDF_Encoder_ToUnicode_Func fn = e->to_unicode_fn;

    HPDF_Font f1 = HPDF_GetFont(theirs, n1, "UTF-8");
    HPDF_Font f2 = fo_pdf_get_font(ours, n2);
    ck_assert_ptr_nonnull(f1);
    ck_assert_ptr_nonnull(f2);
    ck_assert_ptr_eq((void *)e->to_unicode_fn, (void *)fn);
    ck_assert_mem_eq(a, before, sizeof *before);
    ck_assert_ptr_eq(HPDF_GetFont(ours, n2, "UTF-8"), f2);   /* the document's own */

    const char *text = "Hello, \xce\xa9\xce\xbc\xce\xad\xce\xb3\xce\xb1 \xd8\xb4\xd8\xa7\xd9\x8a \xe7\xbb\xbf\xe8\x8c\xb6 1234";
    HPDF_TextWidth w1 = HPDF_Font_TextWidth(f1, (const HPDF_BYTE *)text, (HPDF_UINT)strlen(text));
    HPDF_TextWidth w2 = HPDF_Font_TextWidth(f2, (const HPDF_BYTE *)text, (HPDF_UINT)strlen(text));
    ck_assert_uint_eq(w1.width, w2.width);
    ck_assert_uint_eq(w1.numchars, w2.numchars);

    HPDF_FontAttr fa = f2->attr;
    ck_assert_ptr_nonnull(fa->map_stream);
    /* libharu's own map covers every code point (128 KiB); this one, one code */
    ck_assert_uint_lt(fa->map_stream->stream->size, 1024);
    ck_assert_uint_ge(((HPDF_FontAttr)f1->attr)->map_stream->stream->size, 0xD800 * 2);
    ck_assert_ptr_nonnull(HPDF_Dict_GetItem(fa->descendant_font, "W", HPDF_OCLASS_ARRAY));
    /* measuring leaves the encoder's parser state in its cid_map: a second
       font still takes the short way, and the state comes back */
    const char *n3 = HPDF_LoadTTFontFromFile(ours, "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", HPDF_TRUE);
    if (n3) {
        memcpy(before, a, sizeof *before);
        HPDF_Font f3 = fo_pdf_get_font(ours, n3);
        ck_assert_ptr_nonnull(f3);
        ck_assert_uint_lt(((HPDF_FontAttr)f3->attr)->map_stream->stream->size, 1024);
        ck_assert_mem_eq(a, before, sizeof *before);
    }
    free(before);
    HPDF_Free(theirs);
    HPDF_Free(ours);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pdf_font_setup");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, same_font_as_libharu_and_encoder_restored, 0, NFONTS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
