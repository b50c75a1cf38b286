/* t_value.c — fo_value_text: the one place a value becomes the text PDF,
 * DOCX and PPTX show (xlsx stores values natively). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/core/model.h"
#include "tests/check_run.h"

/* Text of v through code (NULL: no format); checks length and alignment. */
static void check(fo_value v, const char *code, const char *want, bool want_numeric)
{
    fo_numfmt *f = code ? fo_numfmt_compile(code, NULL, 0) : NULL;
    char buf[64];
    size_t n = 99;
    bool numeric = !want_numeric;
    const char *s = fo_value_text(&v, f, buf, sizeof buf, &n, &numeric);
    ck_assert_str_eq(s, want);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert(numeric == want_numeric);
    fo_numfmt_free(f);
}

START_TEST(test_kinds)
{
    check((fo_value){FO_VAL_NULL, false, 0, NULL, NULL}, "#,##0", "", false);
    check((fo_value){FO_VAL_TEXT, false, 0, "North", NULL}, NULL, "North", false);
    check((fo_value){FO_VAL_BOOL, false, 1, NULL, NULL}, NULL, "TRUE", false);
    check((fo_value){FO_VAL_BOOL, false, 0, NULL, NULL}, "0.00", "FALSE", false);
    check((fo_value){FO_VAL_URL, false, 0, "https://a.example", "site"}, NULL, "site", false);
    check((fo_value){FO_VAL_URL, false, 0, "https://a.example", NULL}, NULL, "https://a.example", false);
    check((fo_value){FO_VAL_NUMBER, false, 1385.28, NULL, NULL}, NULL, "1385.28", true);
    check((fo_value){FO_VAL_NUMBER, false, 1385.28, NULL, NULL}, "#,##0.00", "1,385.28", true);
    check((fo_value){FO_VAL_NUMBER, false, -0.125, NULL, NULL}, "0.0%", "-12.5%", true);
    check((fo_value){FO_VAL_DATE, false, 45292, NULL, NULL}, "yyyy-mm-dd", "2024-01-01", true);
    check((fo_value){FO_VAL_FORMULA, true, 42, "=B2*2", NULL}, "0.0", "42.0", true);
    check((fo_value){FO_VAL_FORMULA, false, 0, "=B2*2", "n/a"}, "0.0", "n/a", false);
    check((fo_value){FO_VAL_FORMULA, false, 0, "=B2*2", NULL}, NULL, "", false);
}
END_TEST

START_TEST(test_text_section)
{
    /* a format's text section decorates text, as Excel shows it */
    check((fo_value){FO_VAL_TEXT, false, 0, "12", NULL}, "0;-0;0;@\" kg\"", "12 kg", false);
    check((fo_value){FO_VAL_NUMBER, false, 12, NULL, NULL}, "0;-0;0;@\" kg\"", "12", true);
}
END_TEST

START_TEST(test_long_text_is_borrowed_and_numbers_cut)
{
    char longtext[200];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = 0;
    fo_value v = {FO_VAL_TEXT, false, 0, longtext, NULL};
    fo_numfmt *f = fo_numfmt_compile("@", NULL, 0);
    char buf[16];
    size_t n;
    /* too long for buf: the whole text, borrowed, not cut */
    ck_assert_ptr_eq(fo_value_text(&v, f, buf, sizeof buf, &n, NULL), longtext);
    ck_assert_uint_eq(n, sizeof longtext - 1);
    fo_numfmt_free(f);
    /* a number always lands in buf, cut to fit */
    fo_value big = {FO_VAL_NUMBER, false, 1.0 / 3, NULL, NULL};
    const char *s = fo_value_text(&big, NULL, buf, 8, &n, NULL);
    ck_assert_ptr_eq(s, buf);
    ck_assert_uint_eq(n, 7);
    ck_assert_str_eq(s, "0.33333");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_kinds,
        test_text_section,
        test_long_text_is_borrowed_and_numbers_cut,
        NULL,
    };
    return fo_check_tests("value", 0, tests);
}
