/* t_numfmt.c — the Excel number-format engine against what Excel displays. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/core/model.h"
#include "render/core/numfmt.h"
#include "folio.h"
#include "tests/check_run.h"

typedef struct {
    const char *code;
    double value;
    const char *want;
} fmt_case;

/* (code, value, what Excel shows). Excel's own rules where they surprise:
 * one section puts '-' before negatives even when they round to zero;
 * serials below 61 follow Excel's fictitious 1900-02-29; '*' fill is dropped
 * and '_x' becomes one space. */
static const fmt_case cases[] = {
    {"General", 0.1+0.2, "0.3"},
    {"General", 1e15, "1E+15"},
    {"General", 1e-10, "1E-10"},
    {"General", 123456789012, "1.23457E+11"},
    {"General", -1.5, "-1.5"},
    {"General", 0, "0"},
    {"General", 1.0/3, "0.333333333"},
    {"General", -1.0/3, "-0.333333333"},
    {"General", 12345678901, "12345678901"},
    {"General", 123456.789012, "123456.789"},
    {"General", 99999999999.6, "1E+11"},
    {"General", 0.000012345, "0.000012345"},
    {"General", 0.000012345678, "1.23457E-05"},
    {"General", 1234567.5, "1234567.5"},
    {"General", 100, "100"},
    {"General", 2.5e-5, "0.000025"},
    {"General", 1e-9, "0.000000001"},
    {"General", 5e-10, "5E-10"},
    {"General", 1e100, "1E+100"},
    {"General", -1e15, "-1E+15"},
    {"General", 0.1, "0.1"},
    {"", 42, "42"},
    {"general", 7, "7"},
    {"General\" units\"", 3, "3 units"},
    {"0", 0.5, "1"},
    {"0", 2.5, "3"},
    {"0", -2.5, "-3"},
    {"0", 1.5, "2"},
    {"0", 0.4999999, "0"},
    {"0", -0.4, "-0"},
    {"0.00", 1.005, "1.01"},
    {"0.00", 2.675, "2.68"},
    {"0.0", 0.05, "0.1"},
    {"0.00", -0.001, "-0.00"},
    {"0.00", 1234.5678, "1234.57"},
    {"0", 1e20, "100000000000000000000"},
    {"0%%%%%%%%", 1e300, "#NUM!"}, /* scaled past the largest double */
    {"#", 0, ""},
    {"00000", 123, "00123"},
    {"#.##", 1.5, "1.5"},
    {"#.##", 0, "."},
    {"0.##", 3, "3."},
    {"?.?\?", 1.5, "1.5 "},
    {"?\?0.0?", 1.25, "  1.25"},
    {"#.00", 0.5, ".50"},
    {".00", 1.5, "1.50"},
    {"000-00-0000", 123456789, "123-45-6789"},
    {"0.000", 1.0/3, "0.333"},
    {"#,##0", 0, "0"},
    {"#,##0", 999.5, "1,000"},
    {"#,##0.00", 1234567.891, "1,234,567.89"},
    {"#,##0", -1234567, "-1,234,567"},
    {"#,##0", 123, "123"},
    {"#,###", 1234, "1,234"},
    {"0,000", 5, "0,005"},
    {"#,##0", 1e9, "1,000,000,000"},
    {"#,##0,", 1234567, "1,235"},
    {"0.0,,\"M\"", 1234567, "1.2M"},
    {"#,##0,,\"M\"", 987654321, "988M"},
    {"0,", 500, "1"},
    {"0.0,\"K\"", 1500, "1.5K"},
    {"0.0%", 0.1234, "12.3%"},
    {"0%", 0.5, "50%"},
    {"0.00%", -0.0512, "-5.12%"},
    {"0%", 1, "100%"},
    {"#,##0%", 123.45, "12,345%"},
    {"$#,##0.00;($#,##0.00)", -1234.5, "($1,234.50)"},
    {"$#,##0.00;($#,##0.00)", 1234.5, "$1,234.50"},
    {"$#,##0", 1204.5, "$1,205"},
    {"$#,##0.00", -1234.5, "-$1,234.50"},
    {"[$€-407] #,##0.00", 1234.5, "€ 1,234.50"},
    {"#,##0.00 [$€-407]", 1234.5, "1,234.50 €"},
    {"[$USD] #,##0", 1000, "USD 1,000"},
    {"[$$-409]#,##0.00", 5, "$5.00"},
    {"[$-409]0.0", 3.14159, "3.1"},
    {"£#,##0", 1500, "£1,500"},
    {"¥#,##0", 1500, "¥1,500"},
    {"#,##0 €", 2, "2 €"},
    {"\"€\"0.00", 1, "€1.00"},
    {"0;-0;\"zero\"", 0, "zero"},
    {"0;-0;\"zero\"", -3, "-3"},
    {"0;-0;\"zero\"", 3, "3"},
    {"0;(0)", -3, "(3)"},
    {"0;(0)", 0, "0"},
    {"0.00;;", -1, ""},
    {"0.00;;", 0, ""},
    {"0.00;;", 2, "2.00"},
    {"@", 1.5, "1.5"},
    {"[Red]0.00", 1.5, "1.50"},
    {"[Color10]0", 3, "3"},
    {"[Blue]#,##0;[Red]-#,##0", -1234, "-1,234"},
    {"[Blue]#,##0;[Red]#,##0", -1234, "1,234"},
    {"[>=100]\"big\";[<0]\"neg\";\"small\"", 150, "big"},
    {"[>=100]\"big\";[<0]\"neg\";\"small\"", -5, "neg"},
    {"[>=100]\"big\";[<0]\"neg\";\"small\"", 50, "small"},
    {"[<=100]0;[>100]\"many\"", 500, "many"},
    {"[<=100]0;[>100]\"many\"", 5, "5"},
    {"[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", 1500000, "1.5M"},
    {"[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", 2500, "2.5K"},
    {"[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", 12, "12"},
    {"[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", -5000, "-5000"},
    {"[<0]\"minus \"0;0", -5, "minus 5"},
    {"[=1]\"one\";0", 1, "one"},
    {"[=1]\"one\";0", 2, "2"},
    {"0 \"units\"", 5, "5 units"},
    {"\\$0", 5, "$5"},
    {"0_)", 5, "5 "},
    {"0_);(0)", -5, "(5)"},
    {"* #,##0", 1234, "1,234"},
    {"_(\"$\"* #,##0.00_);_(\"$\"* (#,##0.00);_(\"$\"* \"-\"?\?_);_(@_)", 1234.5, " $1,234.50 "},
    {"_(\"$\"* #,##0.00_);_(\"$\"* (#,##0.00);_(\"$\"* \"-\"?\?_);_(@_)", -1234.5, " $(1,234.50)"},
    {"_(\"$\"* #,##0.00_);_(\"$\"* (#,##0.00);_(\"$\"* \"-\"?\?_);_(@_)", 0, " $-   "},
    {"(0)", 5, "(5)"},
    {"+0;-0;0", 5, "+5"},
    {"0:00", 123, "1:23"},
    {"\"x\"", -1, "-x"},
    {"0.00E+00", 12345, "1.23E+04"},
    {"0.00E+00", 0.000123, "1.23E-04"},
    {"0.00E+00", 0, "0.00E+00"},
    {"0.0E+0", 999.96, "1.0E+3"},
    {"##0.0E+0", 12345, "12.3E+3"},
    {"##0.0E+0", 0.5, "500.0E-3"},
    {"00.00E+00", 12345, "12.35E+03"},
    {"0.00E-00", 12345, "1.23E04"},
    {"0.00E-00", 0.0012345, "1.23E-03"},
    {"0.00E+00", -12345, "-1.23E+04"},
    {"0E+0", 5e100, "5E+100"},
    {"0.00e+00", 12345, "1.23e+04"},
    {"# ?/?", 1.25, "1 1/4"},
    {"# ?\?/?\?", 1.25, "1  1/4 "},
    {"?/?", 1.25, "5/4"},
    {"# ?/?", 0.5, " 1/2"},
    {"# ?/?", 2, "2    "},
    {"# ?/8", 0.5, " 4/8"},
    {"# ?\?/16", 1.5, "1  8/16"},
    {"# ?/?", -1.25, "-1 1/4"},
    {"# ?\?\?/?\?\?", 3.14159265, "3  16/113"},
    {"0 ?/?", 0.3333, "0 1/3"},
    {"# ?/?", 0.99, "1    "},
    {"?/?", 0.333, "1/3"},
    {"# ?/?", 0, "0    "},
    {"# ?/100", 0.25, " 25/100"},
    {"yyyy-mm-dd", 45000, "2023-03-15"},
    {"d mmm yyyy", 45000, "15 Mar 2023"},
    {"dddd", 45000, "Wednesday"},
    {"ddd", 45000, "Wed"},
    {"mmmm", 45000, "March"},
    {"mmmmm", 45000, "M"},
    {"mmm-yy", 45000, "Mar-23"},
    {"m/d/yyyy", 45000, "3/15/2023"},
    {"dd/mm/yy", 45000, "15/03/23"},
    {"dd.mm.yyyy", 45000, "15.03.2023"},
    {"YYYY-MM-DD", 45000, "2023-03-15"},
    {"yyyy", 1, "1900"},
    {"yyyy-mm-dd", 1, "1900-01-01"},
    {"yyyy-mm-dd", 60, "1900-02-29"},
    {"yyyy-mm-dd", 61, "1900-03-01"},
    {"yyyy-mm-dd", 0, "1900-01-00"},
    {"yyyy-mm-dd", 2958465, "9999-12-31"},
    {"yyyy-mm-dd", -1, "########"},
    {"yyyy-mm-dd", 3e6, "########"},
    {"d-mmm", 36526, "1-Jan"},
    {"dddd", 1, "Sunday"},
    {"dddd, mmmm d, yyyy", 45000, "Wednesday, March 15, 2023"},
    {"[$-F800]dddd, mmmm dd, yyyy", 45000, "Wednesday, March 15, 2023"},
    {"hh:mm:ss", 0.5, "12:00:00"},
    {"h:mm AM/PM", 0.75, "6:00 PM"},
    {"h:mm AM/PM", 0, "12:00 AM"},
    {"h:mm am/pm", 0.5, "12:00 PM"},
    {"hh:mm AM/PM", 0.25, "06:00 AM"},
    {"h:mm A/P", 0.25, "6:00 A"},
    {"h:mm a/p", 0.8, "7:12 p"},
    {"[h]:mm", 1.5, "36:00"},
    {"[h]:mm:ss", 2.25, "54:00:00"},
    {"[mm]:ss", 0.5/24, "30:00"},
    {"[ss]", 1.0/24, "3600"},
    {"mm:ss", 100.0/86400, "01:40"},
    {"h:mm:ss.000", 0.5+0.1234/86400, "12:00:00.123"},
    {"ss.00", 1.234/86400, "01.23"},
    {"h:mm", 0.99999, "23:59"},
    {"hh:mm:ss", 0.999999, "00:00:00"},
    {"yyyy-mm-dd hh:mm", 45000.75, "2023-03-15 18:00"},
    {"m/d/yy h:mm", 45000.5, "3/15/23 12:00"},
    {"yyyy-mm-dd\"T\"hh:mm:ss", 45000.5+5.0/86400, "2023-03-15T12:00:05"},
    {"mm/dd hh:mm", 45000.75, "03/15 18:00"},
    {"h\"h\"m\"m\"", 0.5+5.0/1440, "12h5m"},
    {"m:ss", 65.0/86400, "1:05"},
    {"[Red]yyyy-mm-dd;@", 45000, "2023-03-15"},
};

START_TEST(test_table)
{
    const fmt_case *c = &cases[_i];
    char buf[512], err[128];
    fo_numfmt *f = fo_numfmt_compile(c->code, err, sizeof err);
    ck_assert_msg(f != NULL, "code \"%s\" rejected: %s", c->code, err);
    size_t n = fo_numfmt_format(f, c->value, buf, sizeof buf);
    ck_assert_msg(strcmp(buf, c->want) == 0, "code \"%s\" value %.17g: got \"%s\", want \"%s\"",
                  c->code, c->value, buf, c->want);
    ck_assert_uint_eq(n, strlen(c->want));
    fo_numfmt_free(f);
}
END_TEST

static const char *const invalid[] = {
    "#,##0.0.0", "\"abc", "[Red", "abc", "0;0;0;0;0", "[Foo]0", "0]", "General0",
    "0E", "yyyy 0", "0@", "0\\", "0;@;0", "[<abc]0", "ss.0000", "[Color57]0",
    "0.0E+", "[]0", "x", "0*", "0_", "0.00 \"unterminated", "dd/mm/yyyy 0.0",
    "# ?/1234567890123",
};

START_TEST(test_invalid)
{
    char err[128];
    err[0] = 'X';
    fo_numfmt *f = fo_numfmt_compile(invalid[_i], err, sizeof err);
    ck_assert_msg(f == NULL, "code \"%s\" accepted", invalid[_i]);
    ck_assert_msg(err[0] && err[0] != 'X', "no reason for \"%s\"", invalid[_i]);
    ck_assert_ptr_null(fo_numfmt_compile(invalid[_i], NULL, 0)); /* err is optional */
}
END_TEST

START_TEST(test_reasons)
{
    char err[128];
    ck_assert_ptr_null(fo_numfmt_compile("#,##0.0.0", err, sizeof err));
    ck_assert_str_eq(err, "two decimal points in one section");
    ck_assert_ptr_null(fo_numfmt_compile("0\"x", err, sizeof err));
    ck_assert_str_eq(err, "unbalanced quote");
    ck_assert_ptr_null(fo_numfmt_compile("[Red0", err, sizeof err));
    ck_assert_str_eq(err, "unbalanced bracket");
    ck_assert_ptr_null(fo_numfmt_compile("0;0;0;0;0", err, sizeof err));
    ck_assert_str_eq(err, "more than 4 sections");
    ck_assert_ptr_null(fo_numfmt_compile("0 abc", err, sizeof err));
    ck_assert_str_eq(err, "unexpected character 'a' at position 3");
    ck_assert_ptr_null(fo_numfmt_compile("[Foo]0", err, sizeof err));
    ck_assert_str_eq(err, "unknown [Foo] tag at position 1");
    char small[8];
    ck_assert_ptr_null(fo_numfmt_compile("abc", small, sizeof small));
    ck_assert_uint_eq(strlen(small), 7); /* truncated, terminated */
}
END_TEST

START_TEST(test_text_section)
{
    char buf[64];
    fo_numfmt *f = fo_numfmt_compile("0;-0;0;\"t:\"@", NULL, 0);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fo_numfmt_format_text(f, "abc", buf, sizeof buf), 5);
    ck_assert_str_eq(buf, "t:abc");
    fo_numfmt_free(f);
    f = fo_numfmt_compile("\"<\"@\">\"", NULL, 0);
    fo_numfmt_format_text(f, "hi", buf, sizeof buf);
    ck_assert_str_eq(buf, "<hi>");
    fo_numfmt_format(f, -2.5, buf, sizeof buf); /* numbers through a text-only code: General */
    ck_assert_str_eq(buf, "-2.5");
    fo_numfmt_free(f);
    f = fo_numfmt_compile("0.00", NULL, 0);
    fo_numfmt_format_text(f, "unchanged", buf, sizeof buf);
    ck_assert_str_eq(buf, "unchanged");
    fo_numfmt_free(f);
    f = fo_numfmt_compile("0;0;0;\"n/a\"", NULL, 0);
    fo_numfmt_format_text(f, "whatever", buf, sizeof buf);
    ck_assert_str_eq(buf, "n/a");
    fo_numfmt_free(f);
    f = fo_numfmt_compile("_(\"$\"* #,##0.00_);_(\"$\"* (#,##0.00);_(\"$\"* \"-\"?\?_);_(@_)", NULL, 0);
    fo_numfmt_format_text(f, "abc", buf, sizeof buf);
    ck_assert_str_eq(buf, " abc ");
    fo_numfmt_free(f);
    fo_numfmt_format_text(NULL, "plain", buf, sizeof buf);
    ck_assert_str_eq(buf, "plain");
}
END_TEST

START_TEST(test_predicates)
{
    static const struct { const char *code; int date, general; } p[] = {
        {"yyyy-mm-dd", 1, 0}, {"h:mm", 1, 0}, {"[h]:mm:ss", 1, 0}, {"[Red]d-mmm", 1, 0},
        {"#,##0.00", 0, 0}, {"General", 0, 1}, {"general;-General", 0, 1}, {"", 0, 1},
        {"0%", 0, 0}, {"@", 0, 1}, {"\"m\"0", 0, 0},
    };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        fo_numfmt *f = fo_numfmt_compile(p[i].code, NULL, 0);
        ck_assert_msg(f != NULL, "%s", p[i].code);
        ck_assert_msg(fo_numfmt_is_date(f) == (bool)p[i].date, "is_date(%s)", p[i].code);
        ck_assert_msg(fo_numfmt_is_general(f) == (bool)p[i].general, "is_general(%s)", p[i].code);
        fo_numfmt_free(f);
    }
}
END_TEST

START_TEST(test_buffer)
{
    char buf[8];
    memset(buf, 'Z', sizeof buf);
    fo_numfmt *f = fo_numfmt_compile("#,##0.00", NULL, 0);
    ck_assert_uint_eq(fo_numfmt_format(f, 1234567.891, buf, 5), 12); /* like snprintf */
    ck_assert_str_eq(buf, "1,23");
    ck_assert_int_eq(buf[5], 'Z');
    ck_assert_uint_eq(fo_numfmt_format(f, 1, NULL, 0), 4);
    ck_assert_uint_eq(fo_numfmt_format(f, 1, buf, 1), 4);
    ck_assert_str_eq(buf, "");
    /* the largest double still fits in the reported length */
    char big[512];
    size_t n = fo_numfmt_format(f, 1.7976931348623157e308, big, sizeof big);
    ck_assert_uint_eq(n, strlen(big));
    ck_assert_uint_eq(n, 309 + 102 + 3);
    ck_assert(strncmp(big, "179,769,313,486,232,", 20) == 0);
    fo_numfmt_free(f);
    ck_assert_uint_eq(fo_numfmt_format_code("0.0", NAN, big, sizeof big), 5);
    ck_assert_str_eq(big, "#NUM!");
    fo_numfmt_format_code("0.0", INFINITY, big, sizeof big);
    ck_assert_str_eq(big, "#NUM!");
}
END_TEST

START_TEST(test_one_shot)
{
    char buf[64];
    fo_numfmt_format_code("0.0%", 0.1234, buf, sizeof buf);
    ck_assert_str_eq(buf, "12.3%");
    fo_numfmt_format_code("#,##0.0.0", 1.5, buf, sizeof buf); /* invalid: General */
    ck_assert_str_eq(buf, "1.5");
    fo_numfmt_format(NULL, 123456789012.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "1.23457E+11");
}
END_TEST

START_TEST(test_alloc_failures)
{
    for (unsigned long k = 1; k < 10; k++) {
        char err[64] = "";
        fo_alloc_fail_after(k);
        fo_numfmt *f = fo_numfmt_compile("#,##0.00;[Red](#,##0.00)", err, sizeof err);
        fo_alloc_fail_after(0);
        if (f) { fo_numfmt_free(f); break; }
        ck_assert_str_eq(err, "out of memory");
    }
    fo_numfmt_free(NULL);
}
END_TEST

/* Compiled once, a code formats a column of a million values without
 * allocating; the same value always gives the same text. */
START_TEST(test_many_values)
{
    fo_numfmt *f = fo_numfmt_compile("#,##0.00;(#,##0.00)", NULL, 0);
    fo_numfmt *d = fo_numfmt_compile("yyyy-mm-dd hh:mm", NULL, 0);
    char buf[64];
    size_t total = 0;
    fo_alloc_fail_after(1); /* any allocation would now fail the test's output */
    for (int i = 0; i < 1000000; i++) {
        total += fo_numfmt_format(f, (i - 500000) * 1.37, buf, sizeof buf);
        if (i % 10 == 0) total += fo_numfmt_format(d, 40000 + i / 1000.0, buf, sizeof buf);
    }
    fo_alloc_fail_after(0);
    ck_assert_uint_gt(total, 1000000);
    fo_numfmt_format(f, -1234.5, buf, sizeof buf);
    ck_assert_str_eq(buf, "(1,234.50)");
    fo_numfmt_free(f);
    fo_numfmt_free(d);
}
END_TEST

/* The 15 significant digits every format starts from are those of
 * printf's "%.14E" (correctly rounded), whether numfmt.c finds them
 * itself or asks printf: integers, cents, tiny and huge values, exact
 * ties (x.5 at the 16th digit) and random bit patterns. */
START_TEST(test_digits_as_printf)
{
    fo_numfmt *f = fo_numfmt_compile("0.00000000000000E+00", NULL, 0);
    static const double fixed[] = {
        1, 7, 10, 99, 1e14, 1e15 - 1, 1e15, 123456789012345.0, 100000000000000.5,
        999999999999999.5, 0.1, 0.2, 0.3, 1.005, 2.675, 1234.565, 0.000125, 1e-7, 9.99999999999995e-8,
        1.00000000000005, 5e-324, 1.7976931348623157e308, 4503599627370497.0, 0.30000000000000004,
    };
    char got[64], want[64];
    uint64_t st = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 400000; i++) {
        double x;
        st ^= st << 13; st ^= st >> 7; st ^= st << 17;
        if (i < (int)(sizeof fixed / sizeof *fixed)) x = fixed[i];
        else if (i % 4 == 0) x = (double)(st % 100000000) / 100.0;
        else if (i % 4 == 1) x = (double)(st % 1000000000000000ULL);
        else if (i % 4 == 2) x = ldexp((double)(st >> 11), (int)(st % 97) - 90);
        else { memcpy(&x, &st, sizeof x); x = fabs(x); }
        if (!(x > 0) || isinf(x)) continue;
        fo_numfmt_format(f, x, got, sizeof got);
        snprintf(want, sizeof want, "%.14E", x);
        if (strcmp(got, want) != 0) ck_abort_msg("%.17g: %s, printf %s", x, got, want);
    }
    fo_numfmt_free(f);
}
END_TEST

/* Colours as Excel shows them: per section, conditions included. */
START_TEST(test_colors)
{
    fo_numfmt *f = fo_numfmt_compile("#,##0.00;[Red](#,##0.00)", NULL, 0);
    ck_assert_int_eq(fo_numfmt_color(f, 5), -1);
    ck_assert_int_eq(fo_numfmt_color(f, -5), 0xFF0000);
    fo_numfmt_free(f);
    f = fo_numfmt_compile("[Blue][>=100]0;[Color10][<0]0;0", NULL, 0);
    ck_assert_int_eq(fo_numfmt_color(f, 150), 0x0000FF);
    ck_assert_int_eq(fo_numfmt_color(f, -1), 0x008000);
    ck_assert_int_eq(fo_numfmt_color(f, 50), -1);
    fo_numfmt_free(f);
    f = fo_numfmt_compile("0;0;0;[Magenta]@", NULL, 0);
    ck_assert_int_eq(fo_numfmt_text_color(f), 0xFF00FF);
    ck_assert_int_eq(fo_numfmt_color(f, 1), -1);
    fo_numfmt_free(f);
    ck_assert_int_eq(fo_numfmt_color(NULL, -1), -1);
    fo_value v = {.kind = FO_VAL_NUMBER, .num = -3};
    f = fo_numfmt_compile("[Green]0;[Red]-0", NULL, 0);
    ck_assert_int_eq(fo_value_color(&v, f), 0xFF0000);
    v.kind = FO_VAL_NULL;
    ck_assert_int_eq(fo_value_color(&v, f), -1);
    fo_numfmt_free(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numfmt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_table, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_loop_test(tc, test_invalid, 0, (int)(sizeof invalid / sizeof *invalid));
    tcase_add_test(tc, test_reasons);
    tcase_add_test(tc, test_text_section);
    tcase_add_test(tc, test_predicates);
    tcase_add_test(tc, test_buffer);
    tcase_add_test(tc, test_one_shot);
    tcase_add_test(tc, test_alloc_failures);
    tcase_add_test(tc, test_many_values);
    tcase_add_test(tc, test_digits_as_printf);
    tcase_add_test(tc, test_colors);
    suite_add_tcase(s, tc);
    return fo_check_run(s);
}
