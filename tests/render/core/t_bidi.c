/* t_bidi.c — paragraph levels (FriBidi) per byte and the per-line visual
 * order of pieces (UAX #9 L2) that PDF paragraphs with styles use. */
#include <check.h>
#include <string.h>

#include "render/core/bidi.h"
#include "tests/check_run.h"

/* Arabic with a number and a Latin name inside it */
START_TEST(test_levels_per_byte)
{
    const char *s = "\xD9\x85\xD8\xB1 2024 Acme \xD8\xB4";   /* مر 2024 Acme ش */
    size_t len = strlen(s);
    uint8_t lv[64];
    ck_assert_int_eq(fo_bidi_levels(s, len, FO_DIR_AUTO, lv), FO_DIR_RTL);
    ck_assert_uint_eq(lv[0], 1);
    ck_assert_uint_eq(lv[1], 1);               /* both bytes of م */
    ck_assert_uint_eq(lv[5], 2);               /* 2 of 2024: a number in RTL text */
    ck_assert_uint_eq(lv[10], 2);              /* A of Acme */
    ck_assert_uint_eq(lv[9], 1);               /* the space between number and name */
    ck_assert_uint_eq(lv[len - 1], 1);
    /* forced left to right: Latin at 0, Arabic at 1 */
    ck_assert_int_eq(fo_bidi_levels(s, len, FO_DIR_LTR, lv), FO_DIR_LTR);
    ck_assert_uint_eq(lv[0], 1);
    ck_assert_uint_eq(lv[5], 2);               /* digits after Arabic (W2: AN): 2 */
    ck_assert_uint_eq(lv[10], 0);              /* Latin: the paragraph's level */
    ck_assert_int_eq(fo_bidi_levels("abc", 3, FO_DIR_AUTO, lv), FO_DIR_LTR);
    ck_assert_uint_eq(lv[2], 0);
}
END_TEST

static void order_of(const uint8_t *lv, size_t n, const size_t *want)
{
    size_t got[16];
    fo_bidi_order(lv, n, got);
    for (size_t i = 0; i < n; i++) ck_assert_uint_eq(got[i], want[i]);
}

START_TEST(test_order_l2)
{
    /* all left to right: logical order */
    order_of((const uint8_t[]){0, 0, 0}, 3, (const size_t[]){0, 1, 2});
    /* a right-to-left paragraph: reversed */
    order_of((const uint8_t[]){1, 1, 1}, 3, (const size_t[]){2, 1, 0});
    /* Arabic, a number and a name inside it, Arabic: the LTR pair keeps its order */
    order_of((const uint8_t[]){1, 2, 1, 2, 2, 1}, 6, (const size_t[]){5, 3, 4, 2, 1, 0});
    /* English with an Arabic phrase in two pieces: the phrase reversed in place */
    order_of((const uint8_t[]){0, 1, 1, 1, 0}, 5, (const size_t[]){0, 3, 2, 1, 4});
    order_of(NULL, 0, NULL);
}
END_TEST

int main(void)
{
    return fo_check_tests("bidi", 0, (const TTest *[]){test_levels_per_byte, test_order_l2, NULL});
}
