/* t_pdf_mem.c — hpdf_mem.c: libharu's HPDF_MemCpy and HPDF_MemSet, done by
 * the C library, keep libharu's contract (the bytes, the returned end, a
 * forward copy into an overlapping destination), and libharu's own calls
 * reach them (the program's definitions come first). */
#include <check.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_utils.h>

#include "render/pdf/pdf_int.h"
#include "tests/check_run.h"

/* libharu's loops (hpdf_utils.c), as the reference. */
static HPDF_BYTE *ref_cpy(HPDF_BYTE *out, const HPDF_BYTE *in, HPDF_UINT n)
{
    while (n > 0) { *out++ = *in++; n--; }
    return out;
}

START_TEST(libharu_calls_reach_folio)
{
    ck_assert(fo_pdf_mem_interposed());
    /* and libharu works through them: a page of text saved to memory */
    HPDF_Doc pdf = HPDF_New(NULL, NULL);
    ck_assert_ptr_nonnull(pdf);
    HPDF_Page page = HPDF_AddPage(pdf);
    HPDF_Page_BeginText(page);
    HPDF_Page_SetFontAndSize(page, HPDF_GetFont(pdf, "Helvetica", NULL), 12);
    HPDF_Page_TextOut(page, 50, 700, "copied by memmove");
    HPDF_Page_EndText(page);
    ck_assert_uint_eq(HPDF_SaveToStream(pdf), HPDF_OK);
    HPDF_BYTE head[8];
    HPDF_UINT32 n = sizeof head;
    HPDF_ResetStream(pdf);
    ck_assert_uint_eq(HPDF_ReadFromStream(pdf, head, &n), HPDF_OK);
    ck_assert_mem_eq(head, "%PDF-1.", 7);
    HPDF_Free(pdf);
}
END_TEST

START_TEST(copy_and_fill_keep_the_contract)
{
    HPDF_BYTE a[300], b[300], src[300];
    for (int i = 0; i < 300; i++) src[i] = (HPDF_BYTE)(i * 7 + 3);
    for (HPDF_UINT n = 0; n < 260; n += 37) {
        memset(a, 0xEE, sizeof a);
        memset(b, 0xEE, sizeof b);
        ck_assert_ptr_eq(HPDF_MemCpy(a + 5, src, n), a + 5 + n);
        ref_cpy(b + 5, src, n);
        ck_assert_mem_eq(a, b, sizeof a);
        ck_assert_ptr_eq(HPDF_MemSet(a + 9, 0x41, n), a + 9 + n);
        memset(b + 9, 0x41, n);
        ck_assert_mem_eq(a, b, sizeof a);
    }
}
END_TEST

START_TEST(overlapping_copies_as_libharu_does)
{
    HPDF_BYTE a[64], b[64];
    for (int i = 0; i < 64; i++) a[i] = b[i] = (HPDF_BYTE)i;
    /* destination after the source: the forward loop repeats the head */
    ck_assert_ptr_eq(HPDF_MemCpy(a + 3, a, 40), a + 43);
    ref_cpy(b + 3, b, 40);
    ck_assert_mem_eq(a, b, sizeof a);
    /* destination before the source: a plain move */
    ck_assert_ptr_eq(HPDF_MemCpy(a, a + 5, 50), a + 50);
    ref_cpy(b, b + 5, 50);
    ck_assert_mem_eq(a, b, sizeof a);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pdf_mem");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, libharu_calls_reach_folio);
    tcase_add_test(tc, copy_and_fill_keep_the_contract);
    tcase_add_test(tc, overlapping_copies_as_libharu_does);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
