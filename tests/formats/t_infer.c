/* t_infer.c — cell classification, text-to-value conversion and column type
 * inference (formats/infer.h; PRODUCT.md §2 "inference loses nothing"). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/infer.h"
#include "tests/check_run.h"

static fo_type cell(const char *s, fo_value *v, char *fmt)
{
    return fo_infer_cell(s, strlen(s), v, fmt, 64);
}

#define CHECK_NUM(s, type, expect, efmt)                                   \
    do {                                                                   \
        fo_value v_;                                                       \
        char f_[64];                                                       \
        ck_assert_int_eq(cell(s, &v_, f_), type);                          \
        ck_assert_int_eq(v_.kind, FO_VAL_NUMBER);                          \
        ck_assert_msg(v_.num == (expect), "%s -> %.17g", s, v_.num);       \
        ck_assert_str_eq(f_, efmt);                                        \
    } while (0)

#define CHECK_TEXT(s)                                                      \
    do {                                                                   \
        fo_value v_;                                                       \
        const char *s_ = (s);                                              \
        ck_assert_msg(cell(s_, &v_, NULL) == FO_TYPE_TEXT, "%s not text", s_); \
        ck_assert_int_eq(v_.kind, FO_VAL_TEXT);                            \
        ck_assert_ptr_eq(v_.str, s_);                                      \
    } while (0)

START_TEST(codes_make_whole_number_columns_text)
{
    fo_infer in;
    char fmt[32];
    const char *zips[] = {"45612", "10115", "03456", "80331", "20095", "50667", "60311", "70173", "01067", "04109"};
    fo_infer_init(&in);
    for (size_t i = 0; i < 10; i++) fo_infer_add(&in, zips[i], strlen(zips[i]));
    ck_assert_int_eq(fo_infer_result(&in, fmt, sizeof fmt), FO_TYPE_TEXT);
    ck_assert_str_eq(fmt, "@");
    fo_infer_init(&in); /* a 20-digit ID among short ones */
    fo_infer_add(&in, "12", 2);
    fo_infer_add(&in, "12345678901234567890", 20);
    ck_assert_int_eq(fo_infer_result(&in, fmt, sizeof fmt), FO_TYPE_TEXT);
    fo_infer_init(&in); /* "0" alone is a number, not a code */
    fo_infer_add(&in, "0", 1);
    fo_infer_add(&in, "15", 2);
    ck_assert_int_eq(fo_infer_result(&in, fmt, sizeof fmt), FO_TYPE_INTEGER);
}
END_TEST

START_TEST(integers)
{
    CHECK_NUM("0", FO_TYPE_INTEGER, 0, "0");
    CHECK_NUM("123", FO_TYPE_INTEGER, 123, "0");
    CHECK_NUM("-5", FO_TYPE_INTEGER, -5, "0");
    CHECK_NUM("+7", FO_TYPE_INTEGER, 7, "0");
    CHECK_NUM("123456789012345", FO_TYPE_INTEGER, 123456789012345.0, "0");
    CHECK_NUM("-999999999999999", FO_TYPE_INTEGER, -999999999999999.0, "0");
    CHECK_NUM("1,234", FO_TYPE_INTEGER, 1234, "#,##0");
    CHECK_NUM("1,234,567", FO_TYPE_INTEGER, 1234567, "#,##0");
    CHECK_TEXT("00123");
    CHECK_TEXT("0123");
    CHECK_TEXT("-0123");
    CHECK_TEXT("1234567890123456");      /* 16 significant digits */
    CHECK_TEXT("12345678901234567890");  /* a 20-digit ID */
    CHECK_TEXT("12,34");
    CHECK_TEXT("1234,567");
    CHECK_TEXT("1,2345");
    CHECK_TEXT("0,123");
    CHECK_TEXT("1,234,");
    CHECK_TEXT("-");
    CHECK_TEXT("+");
    CHECK_TEXT("+cmd");
    CHECK_TEXT("=1+1");
    CHECK_TEXT("12a");
    CHECK_TEXT("0x1F");
}
END_TEST

START_TEST(decimals)
{
    CHECK_NUM("-12.5", FO_TYPE_NUMBER, -12.5, "0.0");
    CHECK_NUM("0.1", FO_TYPE_NUMBER, 0.1, "0.0");
    CHECK_NUM(".5", FO_TYPE_NUMBER, 0.5, "0.0");
    CHECK_NUM("-.25", FO_TYPE_NUMBER, -0.25, "0.00");
    CHECK_NUM("1e3", FO_TYPE_NUMBER, 1000, "General");
    CHECK_NUM("1.5E-05", FO_TYPE_NUMBER, 1.5e-05, "General");
    CHECK_NUM("6.02214076e23", FO_TYPE_NUMBER, 6.02214076e23, "General");
    CHECK_NUM("1,234,567.89", FO_TYPE_NUMBER, 1234567.89, "#,##0.00");
    CHECK_NUM("0.000123", FO_TYPE_NUMBER, 0.000123, "0.000000");
    CHECK_NUM("12345678901234.5", FO_TYPE_NUMBER, 12345678901234.5, "0.0");
    CHECK_TEXT("123456789012345.6"); /* 16 significant digits */
    CHECK_TEXT("5.");
    CHECK_TEXT(".");
    CHECK_TEXT("1.2.3");
    CHECK_TEXT("1e");
    CHECK_TEXT("1e99999");
    CHECK_TEXT("1e400");   /* overflows */
    CHECK_TEXT("1e-400");  /* underflows: the digits would be lost */
    CHECK_TEXT("nan");
    CHECK_TEXT("inf");
    CHECK_TEXT("1 000");
}
END_TEST

/* The fast path (mantissa and a power of ten) must give what strtod gives. */
START_TEST(decimals_exact)
{
    srand(7);
    for (int i = 0; i < 20000; i++) {
        char s[64];
        long long m = ((long long)rand() << 20 ^ rand()) % 1000000000000LL;
        int dec = rand() % 12, e = rand() % 40 - 20;
        if (i % 2)
            snprintf(s, sizeof s, "%lld.%0*d", m, dec ? dec : 1, rand() % 1000);
        else snprintf(s, sizeof s, "%lld.%de%d", m, rand() % 100, e);
        fo_value v;
        if (fo_infer_cell(s, strlen(s), &v, NULL, 0) == FO_TYPE_TEXT) continue;
        ck_assert_msg(v.num == strtod(s, NULL), "%s: %.17g vs %.17g", s, v.num, strtod(s, NULL));
    }
}
END_TEST

START_TEST(percents)
{
    CHECK_NUM("12%", FO_TYPE_PERCENT, 0.12, "0%");
    CHECK_NUM("12.5%", FO_TYPE_PERCENT, 0.125, "0.0%");
    CHECK_NUM("-3.25%", FO_TYPE_PERCENT, -0.0325, "0.00%");
    CHECK_NUM("0%", FO_TYPE_PERCENT, 0, "0%");
    CHECK_NUM("7%", FO_TYPE_PERCENT, 0.07, "0%");
    CHECK_TEXT("%");
    CHECK_NUM("12 %", FO_TYPE_PERCENT, 0.12, "0%");
    CHECK_NUM("(12.5%)", FO_TYPE_PERCENT, -0.125, "0.0%");
    CHECK_TEXT("1e2%");
    CHECK_TEXT("12%%");
}
END_TEST

START_TEST(currencies)
{
    CHECK_NUM("$1,234.50", FO_TYPE_CURRENCY, 1234.5, "$#,##0.00");
    CHECK_NUM("$5", FO_TYPE_CURRENCY, 5, "$#,##0");
    CHECK_NUM("-$5.25", FO_TYPE_CURRENCY, -5.25, "$#,##0.00");
    CHECK_NUM("$-5.25", FO_TYPE_CURRENCY, -5.25, "$#,##0.00");
    CHECK_NUM("($12.00)", FO_TYPE_CURRENCY, -12, "$#,##0.00;($#,##0.00)");
    CHECK_NUM("\xE2\x82\xAC" "12", FO_TYPE_CURRENCY, 12, "[$\xE2\x82\xAC]#,##0");
    CHECK_NUM("-\xC2\xA3" "5.5", FO_TYPE_CURRENCY, -5.5, "[$\xC2\xA3]#,##0.0");
    CHECK_NUM("\xC2\xA5" "1,000", FO_TYPE_CURRENCY, 1000, "[$\xC2\xA5]#,##0");
    CHECK_TEXT("$");
    CHECK_TEXT("$abc");
    CHECK_TEXT("($12");
    CHECK_TEXT("$1e3");
    CHECK_TEXT("--$5");
    CHECK_NUM("(5)", FO_TYPE_INTEGER, -5, "0;(0)");
    CHECK_NUM("(1,234)", FO_TYPE_INTEGER, -1234, "#,##0;(#,##0)");
    CHECK_NUM("(1,234.50)", FO_TYPE_NUMBER, -1234.5, "#,##0.00;(#,##0.00)");
    CHECK_TEXT("1.200,00 \xE2\x82\xAC"); /* '.' decimals: no amount */
    CHECK_TEXT("12,50 \xE2\x82\xAC");
    CHECK_NUM("1,200.00 \xE2\x82\xAC", FO_TYPE_CURRENCY, 1200, "[$\xE2\x82\xAC]#,##0.00");
    CHECK_NUM("\xE2\x82\xAC 5", FO_TYPE_CURRENCY, 5, "[$\xE2\x82\xAC]#,##0");
    CHECK_TEXT("(-5)");
    CHECK_TEXT("()");
    CHECK_TEXT("12$");
}
END_TEST

START_TEST(dates_and_bools)
{
    fo_value v;
    char f[64];
    ck_assert_int_eq(cell("2024-03-01", &v, f), FO_TYPE_DATE);
    ck_assert_int_eq(v.kind, FO_VAL_DATE);
    ck_assert(v.num == 45352.0);
    ck_assert_str_eq(f, "yyyy-mm-dd");
    ck_assert_int_eq(cell("2024-03-01 12:30", &v, f), FO_TYPE_DATETIME);
    ck_assert(v.num == 45352.0 + 0.5 + 30.0 / 1440);
    ck_assert_str_eq(f, "yyyy-mm-dd hh:mm");
    ck_assert_int_eq(cell("2024-03-01T06:00:15", &v, f), FO_TYPE_DATETIME);
    ck_assert_str_eq(f, "yyyy-mm-dd hh:mm:ss");
    ck_assert_int_eq(cell("2024-03-01T06:00:15.250Z", &v, f), FO_TYPE_DATETIME);
    ck_assert_str_eq(f, "yyyy-mm-dd hh:mm:ss.000");
    CHECK_TEXT("2024-02-30");
    CHECK_TEXT("2024-3-1");
    CHECK_TEXT("2024-03-01x");
    ck_assert_int_eq(cell("01/03/2024", &v, f), FO_TYPE_DATE); /* both orders fit: m/d */
    ck_assert(v.num == 45294.0);
    ck_assert_str_eq(f, "mm/dd/yyyy");
    ck_assert_int_eq(cell("15/02/2024", &v, f), FO_TYPE_DATE);
    ck_assert(v.num == 45337.0);
    ck_assert_str_eq(f, "dd/mm/yyyy");
    ck_assert_int_eq(cell("2/15/2024 2:30 PM", &v, f), FO_TYPE_DATETIME);
    ck_assert(v.num == 45337.0 + 14.5 / 24);
    ck_assert_int_eq(cell("2024/02/15", &v, f), FO_TYPE_DATE);
    ck_assert(v.num == 45337.0);
    ck_assert_int_eq(cell("15.02.2024", &v, f), FO_TYPE_DATE);
    ck_assert_str_eq(f, "dd.mm.yyyy");
    CHECK_TEXT("31/02/2024");
    CHECK_TEXT("15/15/2024");
    CHECK_TEXT("15/02/24");
    CHECK_TEXT("15/02-2024");
    CHECK_TEXT("1/2");
    CHECK_TEXT("2024-03-01T25:00");

    ck_assert_int_eq(cell("TRUE", &v, f), FO_TYPE_BOOLEAN);
    ck_assert_int_eq(v.kind, FO_VAL_BOOL);
    ck_assert(v.num == 1);
    ck_assert_int_eq(cell("false", &v, f), FO_TYPE_BOOLEAN);
    ck_assert(v.num == 0);
    ck_assert_int_eq(cell("False", &v, f), FO_TYPE_BOOLEAN);
    CHECK_TEXT("yes");
    CHECK_TEXT("t");
    CHECK_TEXT("truex");
    CHECK_TEXT("hello");
    CHECK_TEXT("\xE2\x82\xAC"); /* a lone euro sign */

    ck_assert_int_eq(fo_infer_cell("", 0, &v, f, sizeof f), FO_TYPE_TEXT);
    ck_assert_int_eq(v.kind, FO_VAL_NULL);
    /* Surrounding blanks are allowed around a value. */
    CHECK_NUM(" 42 ", FO_TYPE_INTEGER, 42, "0");
}
END_TEST

static fo_type column(const char *const *cells, size_t n, char *fmt)
{
    fo_infer in;
    fo_infer_init(&in);
    for (size_t i = 0; i < n; i++) fo_infer_add(&in, cells[i], strlen(cells[i]));
    return fo_infer_result(&in, fmt, 64);
}

#define COL(type, efmt, ...)                                                      \
    do {                                                                          \
        const char *c_[] = {__VA_ARGS__};                                         \
        char f_[64];                                                              \
        fo_type t_ = column(c_, sizeof c_ / sizeof *c_, f_);                      \
        ck_assert_msg(t_ == (type), "line %d: %s", __LINE__, fo_type_name(t_));   \
        ck_assert_str_eq(f_, efmt);                                               \
    } while (0)

START_TEST(columns)
{
    COL(FO_TYPE_INTEGER, "0", "1", "2", "", "30");
    COL(FO_TYPE_NUMBER, "General", "1", "2.5", "3.25");   /* widening, decimals vary */
    COL(FO_TYPE_NUMBER, "0.00", "1.50", "2.25", "3.10");  /* same decimals */
    COL(FO_TYPE_NUMBER, "0.00", "1", "2.50");             /* trailing zero written */
    COL(FO_TYPE_NUMBER, "#,##0.0", "1,234.5", "12");
    COL(FO_TYPE_INTEGER, "#,##0", "1,234", "12");
    COL(FO_TYPE_PERCENT, "0.0%", "12%", "12.5%", "3%");
    COL(FO_TYPE_CURRENCY, "$#,##0.00", "$5", "$1,234.50", "$7.5");
    COL(FO_TYPE_CURRENCY, "$#,##0;($#,##0)", "$5", "($3)");
    COL(FO_TYPE_DATE, "yyyy-mm-dd", "2024-01-01", "2024-12-31");
    COL(FO_TYPE_DATETIME, "yyyy-mm-dd hh:mm", "2024-01-01", "2024-12-31 10:00");
    COL(FO_TYPE_BOOLEAN, "General", "true", "FALSE", "");
    COL(FO_TYPE_TEXT, "@", "", "", "");                    /* all empty */
    COL(FO_TYPE_TEXT, "@", "00123", "00124");              /* zip codes */
    COL(FO_TYPE_TEXT, "@", "1", "12%");                    /* no mixing */
    COL(FO_TYPE_TEXT, "@", "$5", "5%", "5");
    COL(FO_TYPE_TEXT, "@", "true", "1");
    /* The 90% rule: 9 of 10 fit -> the type; 8 of 10 -> text. */
    COL(FO_TYPE_INTEGER, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "n/a");
    COL(FO_TYPE_TEXT, "@", "1", "2", "3", "4", "5", "6", "7", "8", "x", "y");
    /* Missing markers do not count: a numeric column stays numeric. */
    COL(FO_TYPE_INTEGER, "0", "1", "2", "3", "4", "5", "6", "7", "8", "n/a", "-");
    COL(FO_TYPE_NUMBER, "0.0", "1.5", "N/A", "NaN", "\xE2\x80\x94", "null", "2.5");
    COL(FO_TYPE_TEXT, "@", "n/a", "-", "");
    /* Day/month order from the values that decide it. */
    COL(FO_TYPE_DATE, "dd/mm/yyyy", "01/02/2024", "15/02/2024", "03/04/2024");
    COL(FO_TYPE_DATE, "mm/dd/yyyy", "01/02/2024", "02/15/2024");
    COL(FO_TYPE_NUMBER, "General", "1", "2", "3", "4", "5", "6", "7", "8", "9.5", "n/a");
    COL(FO_TYPE_PERCENT, "0%", "1%", "2%", "3%", "4%", "5%", "6%", "7%", "8%", "9%", "10%", "11");
    COL(FO_TYPE_CURRENCY, "[$\xE2\x82\xAC]#,##0", "\xE2\x82\xAC" "1", "\xE2\x82\xAC" "2",
        "\xE2\x82\xAC" "3", "\xE2\x82\xAC" "4", "\xE2\x82\xAC" "5", "\xE2\x82\xAC" "6",
        "\xE2\x82\xAC" "7", "\xE2\x82\xAC" "8", "\xE2\x82\xAC" "9", "$10");
    COL(FO_TYPE_DATE, "yyyy-mm-dd", "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04",
        "2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08", "2024-01-09", "unknown");
}
END_TEST

START_TEST(value_from_text)
{
    fo_value v;
#define FT(s, t) fo_value_from_text(s, strlen(s), t, &v)
    ck_assert(FT("", FO_TYPE_INTEGER) && v.kind == FO_VAL_NULL);
    ck_assert(FT("12", FO_TYPE_INTEGER) && v.kind == FO_VAL_NUMBER && v.num == 12);
    ck_assert(!FT("12.5", FO_TYPE_INTEGER));      /* would show as 13 */
    ck_assert(!FT("00123", FO_TYPE_INTEGER));
    ck_assert(!FT("00123", FO_TYPE_NUMBER));
    ck_assert(FT("12.5", FO_TYPE_NUMBER) && v.num == 12.5);
    ck_assert(!FT("12%", FO_TYPE_NUMBER));
    ck_assert(FT("12%", FO_TYPE_PERCENT) && v.num == 0.12);
    ck_assert(FT("0.12", FO_TYPE_PERCENT) && v.num == 0.12); /* a hint over fractions */
    ck_assert(FT("$3.50", FO_TYPE_CURRENCY) && v.num == 3.5);
    ck_assert(FT("3.5", FO_TYPE_CURRENCY) && v.num == 3.5);
    ck_assert(!FT("3.5%", FO_TYPE_CURRENCY));
    ck_assert(FT("2024-03-01", FO_TYPE_DATE) && v.kind == FO_VAL_DATE && v.num == 45352);
    ck_assert(FT("2024-03-01T00:00:00", FO_TYPE_DATE) && v.num == 45352);
    ck_assert(!FT("2024-03-01T10:00:00", FO_TYPE_DATE));
    ck_assert(FT("2024-03-01", FO_TYPE_DATETIME) && v.num == 45352);
    ck_assert(FT("2024-03-01 12:00", FO_TYPE_DATETIME) && v.num == 45352.5);
    ck_assert(FT("True", FO_TYPE_BOOLEAN) && v.kind == FO_VAL_BOOL && v.num == 1);
    ck_assert(!FT("1", FO_TYPE_BOOLEAN));
    const char *s = "00123";
    ck_assert(fo_value_from_text(s, 5, FO_TYPE_TEXT, &v) && v.kind == FO_VAL_TEXT && v.str == s);
    ck_assert(FT("12%", FO_TYPE_AUTO) && v.kind == FO_VAL_NUMBER && v.num == 0.12);
    ck_assert(FT("abc", FO_TYPE_AUTO) && v.kind == FO_VAL_TEXT);
    ck_assert(FT("1,200.00", FO_TYPE_INTEGER) && v.num == 1200);
    ck_assert(FT("$1,200.00", FO_TYPE_NUMBER) && v.num == 1200);
    ck_assert(FT("(1,234)", FO_TYPE_NUMBER) && v.num == -1234);
    ck_assert(FT("12.5%", FO_TYPE_PERCENT) && v.num == 0.125);
#undef FT
    /* A column's notation: ',' decimals, and a given day/month order. */
    fo_notation eu = {',', FO_DATES_DMY}, us = {'.', FO_DATES_MDY};
#define FN(s, t, nt) fo_value_from_text_n(s, strlen(s), t, &nt, &v)
    ck_assert(FN("\xE2\x82\xAC" "1.200,00", FO_TYPE_CURRENCY, eu) && v.num == 1200);
    ck_assert(FN("1.234,56", FO_TYPE_NUMBER, eu) && v.num == 1234.56);
    ck_assert(FN("1 234,5", FO_TYPE_NUMBER, eu) && v.num == 1234.5);
    ck_assert(FN("1\xC2\xA0" "234,5", FO_TYPE_NUMBER, eu) && v.num == 1234.5);
    ck_assert(FN("12,5 %", FO_TYPE_PERCENT, eu) && v.num == 0.125);
    ck_assert(FN("(1.234)", FO_TYPE_NUMBER, eu) && v.num == -1234);
    ck_assert(!FN("1,234.56", FO_TYPE_NUMBER, eu));
    ck_assert(FN("03/04/2024", FO_TYPE_DATE, eu) && v.num == 45385); /* 3 April */
    ck_assert(FN("03/04/2024", FO_TYPE_DATE, us) && v.num == 45355); /* 4 March */
    ck_assert(!FN("02/15/2024", FO_TYPE_DATE, eu));
    ck_assert(!FN("15/02/2024", FO_TYPE_DATE, us));
    ck_assert(FN("2024-02-15", FO_TYPE_DATE, eu) && v.num == 45337); /* ISO always */
#undef FN
    ck_assert_int_eq(fo_date_order_parse("dd/mm/yyyy"), FO_DATES_DMY);
    ck_assert_int_eq(fo_date_order_parse("M/D/YYYY"), FO_DATES_MDY);
    ck_assert_int_eq(fo_date_order_parse("yyyy-mm-dd"), FO_DATES_YMD);
    ck_assert_int_eq(fo_date_order_parse("dd.mm.yy"), FO_DATES_DMY);
    ck_assert_int_eq(fo_date_order_parse("day first"), FO_DATES_ANY);
    ck_assert_int_eq(fo_date_order_parse("dd/dd/yyyy"), FO_DATES_ANY);
    ck_assert(fo_infer_is_missing(" N/A ", 5) && fo_infer_is_missing("-", 1) && !fo_infer_is_missing("0", 1));
    ck_assert_str_eq(fo_infer_currency_symbol("-\xE2\x82\xAC" "5", 5), "\xE2\x82\xAC");
    ck_assert_str_eq(fo_infer_currency_symbol("($5)", 4), "$");
    ck_assert_ptr_null(fo_infer_currency_symbol("5", 1));
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        integers,
        decimals,
        decimals_exact,
        percents,
        currencies,
        dates_and_bools,
        columns,
        value_from_text,
        codes_make_whole_number_columns_text,
        NULL,
    };
    return fo_check_tests("infer", 0, tests);
}
