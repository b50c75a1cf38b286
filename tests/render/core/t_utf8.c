/* t_utf8.c — the one UTF-8 decoder: well-formed sequences per Unicode's
 * table 3-7, and what each kind of ill-formed input gives. */
#include <check.h>
#include <string.h>

#include "base/utf8.h"
#include "tests/check_run.h"

static size_t dec(const char *s, uint32_t *cp) { return fo_utf8_decode(s, strlen(s), cp); }

START_TEST(test_well_formed)
{
    uint32_t cp = 0;
    ck_assert_uint_eq(dec("A", &cp), 1);
    ck_assert_uint_eq(cp, 'A');
    ck_assert_uint_eq(dec("\xC2\x80", &cp), 2);          /* U+0080, the first 2-byte */
    ck_assert_uint_eq(cp, 0x80);
    ck_assert_uint_eq(dec("\xE2\x82\xAC", &cp), 3);      /* € */
    ck_assert_uint_eq(cp, 0x20AC);
    ck_assert_uint_eq(dec("\xED\x9F\xBF", &cp), 3);      /* U+D7FF, just below the surrogates */
    ck_assert_uint_eq(cp, 0xD7FF);
    ck_assert_uint_eq(dec("\xEE\x80\x80", &cp), 3);      /* U+E000, just above them */
    ck_assert_uint_eq(cp, 0xE000);
    ck_assert_uint_eq(dec("\xF0\x9F\x98\x80", &cp), 4);  /* 😀 */
    ck_assert_uint_eq(cp, 0x1F600);
    ck_assert_uint_eq(dec("\xF4\x8F\xBF\xBF", &cp), 4);  /* U+10FFFF, the last */
    ck_assert_uint_eq(cp, 0x10FFFF);
}
END_TEST

START_TEST(test_ill_formed)
{
    uint32_t cp;
    const char *bad[] = {
        "\xC0\x80", "\xC1\xBF",                  /* overlong 2-byte */
        "\xE0\x80\x80", "\xE0\x9F\xBF",          /* overlong 3-byte */
        "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",  /* overlong 4-byte */
        "\xED\xA0\x80", "\xED\xBF\xBF",          /* surrogates D800, DFFF */
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",  /* past U+10FFFF */
        "\x80", "\xBF",                          /* stray continuation */
        "\xE2\x82", "\xF0\x9F\x98",              /* cut short */
        "\xE2\x41\xAC", "\xFF",                  /* not a continuation; never a lead */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(dec(bad[i], &cp) == 0, "case %zu accepted", i);
}
END_TEST

/* Writers show U+FFFD for each invalid byte and go on. */
START_TEST(test_replacement)
{
    const char *s = "a\xED\xA0\x80" "b\xE2\x82";
    size_t len = strlen(s), i = 0;
    uint32_t want[] = {'a', 0xFFFD, 0xFFFD, 0xFFFD, 'b', 0xFFFD, 0xFFFD};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        ck_assert_uint_eq(fo_utf8_next(s, len, &i), want[k]);
    ck_assert_uint_eq(i, len);
    size_t n;
    ck_assert_uint_eq(fo_utf8_at("\xE2\x82\xAC", 3, &n), 0x20AC);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(fo_utf8_count(s, len), 7);
    ck_assert_uint_eq(fo_utf8_count("h\xC3\xA9llo \xF0\x9F\x98\x80", 11), 7);
}
END_TEST

START_TEST(test_invalid_at)
{
    ck_assert_uint_eq(fo_utf8_invalid_at("plain", 5), 5);
    ck_assert_uint_eq(fo_utf8_invalid_at("caf\xC3\xA9", 5), 5);
    ck_assert_uint_eq(fo_utf8_invalid_at("ab\xED\xA0\x80", 5), 2);
    ck_assert_uint_eq(fo_utf8_invalid_at("abc\xC3", 4), 3);
    ck_assert_uint_eq(fo_utf8_invalid_at("\xC3\xA9\xC0\xAF", 4), 2);
}
END_TEST

/* put and decode are inverse on every scalar value; surrogates become U+FFFD. */
START_TEST(test_round_trip)
{
    char o[4];
    uint32_t cp;
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        size_t n = fo_utf8_put(o, c);
        ck_assert_uint_eq(fo_utf8_decode(o, n, &cp), n);
        ck_assert_uint_eq(cp, c);
    }
    ck_assert_uint_eq(fo_utf8_put(o, 0xD800), 3);
    ck_assert_int_eq(memcmp(o, "\xEF\xBF\xBD", 3), 0);
    ck_assert_uint_eq(fo_utf8_put(o, 0x110000), 3);
    ck_assert_int_eq(memcmp(o, "\xEF\xBF\xBD", 3), 0);
}
END_TEST

/* Unicode's table 3-7 as it is printed: the lead byte fixes the length and
 * the range of the second byte; the decoder checks the value instead. */
static size_t table_3_7(const unsigned char *s, size_t len, uint32_t *cp)
{
    static const struct { unsigned char lead_lo, lead_hi, n, lo, hi; } row[] = {
        {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF}, {0xE1, 0xEC, 3, 0x80, 0xBF},
        {0xED, 0xED, 3, 0x80, 0x9F}, {0xEE, 0xEF, 3, 0x80, 0xBF}, {0xF0, 0xF0, 4, 0x90, 0xBF},
        {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F},
    };
    if (s[0] < 0x80) { *cp = s[0]; return 1; }
    for (size_t r = 0; r < sizeof row / sizeof *row; r++) {
        if (s[0] < row[r].lead_lo || s[0] > row[r].lead_hi) continue;
        size_t n = row[r].n;
        if (len < n || s[1] < row[r].lo || s[1] > row[r].hi) return 0;
        uint32_t v = s[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < n; k++) {
            if (k > 1 && (s[k] & 0xC0) != 0x80) return 0;
            v = v << 6 | (s[k] & 0x3F);
        }
        *cp = v;
        return n;
    }
    return 0;
}

/* The decoder and the table agree on every lead and second byte, with the
 * bytes after them at each edge of the continuation range, at every length. */
START_TEST(test_same_as_table_3_7)
{
    static const unsigned char edge[] = {0x7F, 0x80, 0xBF, 0xC0};
    unsigned char b[4];
    for (unsigned b0 = 0; b0 < 256; b0++)
        for (unsigned b1 = 0; b1 < 256; b1++)
            /* the third byte matters from lead E0 on, the fourth from F0 on */
            for (size_t e2 = 0; e2 < (b0 < 0xE0 ? 1 : sizeof edge); e2++)
                for (size_t e3 = 0; e3 < (b0 < 0xF0 ? 1 : sizeof edge); e3++) {
                    b[0] = (unsigned char)b0, b[1] = (unsigned char)b1, b[2] = edge[e2], b[3] = edge[e3];
                    for (size_t len = 1; len <= 4; len++) {
                        uint32_t got = 0, want = 0;
                        size_t n = fo_utf8_decode((const char *)b, len, &got);
                        size_t m = table_3_7(b, len, &want);
                        if (n != m || (n && got != want))
                            ck_abort_msg("%02X %02X %02X %02X len %zu: %zu/%zu",
                                         b[0], b[1], b[2], b[3], len, n, m);
                    }
                }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_well_formed,
        test_ill_formed,
        test_replacement,
        test_invalid_at,
        test_round_trip,
        test_same_as_table_3_7,
        NULL,
    };
    return fo_check_tests("utf8", 0, tests);
}
