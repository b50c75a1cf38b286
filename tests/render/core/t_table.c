/* t_table.c — the one table module: totals as Excel computes them, their
 * text, and how width is shared among columns. */
#include <check.h>
#include <string.h>

#include "render/core/numfmt.h"
#include "render/core/table.h"
#include "render/core/words.h"
#include "tests/check_run.h"

static fo_value num(double v) { return (fo_value){FO_VAL_NUMBER, false, v, NULL, NULL}; }

START_TEST(test_accumulate_like_excel)
{
    fo_table_acc a = {0};
    fo_value vs[] = {num(5), num(-2), {FO_VAL_TEXT, false, 0, "x", NULL}, {FO_VAL_NULL, false, 0, NULL, NULL},
                     {FO_VAL_BOOL, false, 1, NULL, NULL}, {FO_VAL_FORMULA, true, 10, "=A1", NULL},
                     {FO_VAL_FORMULA, false, 0, "=B1", "label"}, {FO_VAL_DATE, false, 3, NULL, NULL}};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) fo_table_acc_add(&a, &vs[i]);
    ck_assert_uint_eq(a.nnum, 4);  /* 5, -2, the formula's 10, the date */
    ck_assert_uint_eq(a.count, 7); /* all but the empty cell */
    double v;
    ck_assert(fo_table_total(&a, FO_TOTAL_SUM, &v));
    ck_assert_double_eq(v, 16);
    ck_assert(fo_table_total(&a, FO_TOTAL_AVG, &v));
    ck_assert_double_eq(v, 4);
    ck_assert(fo_table_total(&a, FO_TOTAL_MIN, &v));
    ck_assert_double_eq(v, -2);
    ck_assert(fo_table_total(&a, FO_TOTAL_MAX, &v));
    ck_assert_double_eq(v, 10);
    ck_assert(fo_table_total(&a, FO_TOTAL_COUNT, &v));
    ck_assert_double_eq(v, 7);
    ck_assert(!fo_table_total(&a, FO_TOTAL_NONE, &v));
}
END_TEST

/* A column without numbers: AVERAGE, MIN and MAX stay empty (xlsx cached
 * 0 for them while the other writers showed nothing); SUM is 0. */
START_TEST(test_no_numbers)
{
    fo_table_acc a = {0};
    fo_value t = {FO_VAL_TEXT, false, 0, "x", NULL};
    fo_table_acc_add(&a, &t);
    double v;
    ck_assert(!fo_table_total(&a, FO_TOTAL_AVG, &v));
    ck_assert(!fo_table_total(&a, FO_TOTAL_MIN, &v));
    ck_assert(!fo_table_total(&a, FO_TOTAL_MAX, &v));
    ck_assert(fo_table_total(&a, FO_TOTAL_SUM, &v));
    ck_assert_double_eq(v, 0);
    char buf[64];
    bool numeric = true;
    ck_assert_uint_eq(fo_table_total_text(NULL, &a, FO_TOTAL_AVG, 1, NULL, buf, sizeof buf, &numeric), 0);
    ck_assert_str_eq(buf, "");
    ck_assert(!numeric);
}
END_TEST

START_TEST(test_total_text)
{
    fo_table_acc a = {0};
    for (int i = 0; i < 1234; i++) {
        fo_value v = num(i * 0.5);
        fo_table_acc_add(&a, &v);
    }
    char buf[64];
    bool numeric = false;
    fo_table_total_text(NULL, &a, FO_TOTAL_COUNT, 2, NULL, buf, sizeof buf, &numeric);
    ck_assert_str_eq(buf, "1,234"); /* as xlsx shows its COUNTA total: "#,##0" */
    ck_assert(numeric);
    fo_numfmt *f = fo_numfmt_compile("#,##0.00", NULL, 0);
    fo_table_total_text(NULL, &a, FO_TOTAL_SUM, 2, f, buf, sizeof buf, NULL);
    ck_assert_str_eq(buf, "380,380.50");
    fo_table_total_text(NULL, &a, FO_TOTAL_NONE, 0, f, buf, sizeof buf, &numeric);
    ck_assert_str_eq(buf, "Total");
    ck_assert(!numeric);
    fo_table_total_text(NULL, &a, FO_TOTAL_NONE, 1, f, buf, sizeof buf, NULL);
    ck_assert_str_eq(buf, "");
    fo_numfmt_free(f);
}
END_TEST

START_TEST(test_fit)
{
    double out[3];
    /* fits: widened in proportion to natural width */
    double nat[] = {10, 20, 30}, min[] = {5, 5, 5};
    fo_table_fit(nat, min, 3, 120, out);
    ck_assert_double_eq_tol(out[0], 20, 1e-9);
    ck_assert_double_eq_tol(out[1], 40, 1e-9);
    ck_assert_double_eq_tol(out[2], 60, 1e-9);
    /* too wide: minimums first, the rest shared by what each still wants */
    fo_table_fit(nat, min, 3, 30, out);
    ck_assert_double_eq_tol(out[0], 5 + 15 * 5.0 / 45, 1e-9);
    ck_assert_double_eq_tol(out[2], 5 + 15 * 25.0 / 45, 1e-9);
    ck_assert_double_eq_tol(out[0] + out[1] + out[2], 30, 1e-9);
    /* even the minimums do not fit: scaled */
    double min2[] = {10, 10, 20};
    fo_table_fit(nat, min2, 3, 20, out);
    ck_assert_double_eq_tol(out[2], 10, 1e-9);
    ck_assert_double_eq_tol(out[0] + out[1] + out[2], 20, 1e-9);
    /* in place */
    double w[] = {10, 20, 30};
    fo_table_fit(w, min, 3, 120, w);
    ck_assert_double_eq_tol(w[2], 60, 1e-9);
}
END_TEST


/* A measure of one unit a byte, two for bold: enough to see the rule. */
static double bytes(void *ctx, bool bold, const char *s, size_t n)
{
    (void)ctx; (void)s;
    return (double)n * (bold ? 2 : 1);
}

START_TEST(test_width_rule)
{
    fo_table_width w = {0};
    fo_table_width_add(&w, bytes, NULL, true, false, "Net revenue", 11);  /* header: words */
    ck_assert_double_eq(w.natural, 22);
    ck_assert_double_eq(w.minimum, 14);                                    /* "revenue", bold */
    fo_table_width_add(&w, bytes, NULL, false, true, "1,234,567.89", 12); /* a number: whole */
    ck_assert_double_eq(w.natural, 22);
    ck_assert_double_eq(w.minimum, 14);
    fo_table_width x = {0};
    fo_table_width_add(&x, bytes, NULL, false, true, "-12,345,678.90", 14);
    ck_assert_double_eq(x.minimum, 14);                                    /* never split */
    fo_table_width_add(&x, bytes, NULL, false, false, "a very long\nsentence here", 25);
    ck_assert_double_eq(x.natural, 14);                                    /* widest line */
    ck_assert_double_eq(x.minimum, 14);
    fo_table_width_add(&x, bytes, NULL, false, false, "extraordinarily", 15);
    ck_assert_double_eq(x.minimum, 15);                                    /* longest word */
}
END_TEST

START_TEST(test_plan_shrink_landscape_groups)
{
    size_t ends[40];
    fo_table_plan p;
    double m[40];
    /* 10 columns of 40 + pad 8: 480 fits 500 as is */
    for (size_t j = 0; j < 10; j++) m[j] = 40;
    fo_table_plan_fit(m, 10, 8, 500, 700, 0.7, &p, ends);
    ck_assert_double_eq(p.scale, 1);
    ck_assert(!p.landscape);
    ck_assert_uint_eq(p.ngroups, 1);
    ck_assert_uint_eq(ends[0], 10);
    /* 400 wide: shrunk to (400 - 80) / 400 = 0.8, still portrait */
    fo_table_plan_fit(m, 10, 8, 400, 700, 0.7, &p, ends);
    ck_assert_double_eq_tol(p.scale, 0.8, 1e-12);
    ck_assert(!p.landscape);
    /* 300 wide: 0.55 is below 0.7, landscape 700 fits at 1 */
    fo_table_plan_fit(m, 10, 8, 300, 700, 0.7, &p, ends);
    ck_assert(p.landscape);
    ck_assert_double_eq(p.scale, 1);
    /* 34 columns: nothing fits; groups at 0.7 in 700: 36 pt a column, at
     * most 19 in a group, so two groups, shared evenly: 1 + 17, 1 + 16 */
    for (size_t j = 0; j < 34; j++) m[j] = 40;
    fo_table_plan_fit(m, 34, 8, 300, 700, 0.7, &p, ends);
    ck_assert(p.landscape);
    ck_assert_double_eq(p.scale, 0.7);
    ck_assert_uint_eq(p.ngroups, 2);
    ck_assert_uint_eq(ends[0], 18);
    ck_assert_uint_eq(ends[1], 34);
    size_t cols[40];
    ck_assert_uint_eq(fo_table_group_cols(ends, 1, cols), 17);
    ck_assert_uint_eq(cols[0], 0);   /* the key column repeated */
    ck_assert_uint_eq(cols[1], 18);
    ck_assert_uint_eq(cols[16], 33);
    char note[96];
    fo_table_group_note(NULL, ends, 0, 34, note, sizeof note);
    ck_assert_str_eq(note, "Columns 1\u201318 of 34");
    fo_table_group_note(NULL, ends, 1, 34, note, sizeof note);
    ck_assert_str_eq(note, "Columns 19\u201334 of 34 (key column repeated)");
    /* in the document's language (render/core/words.h), cut whole characters */
    fo_table_group_note("de-AT", ends, 1, 34, note, sizeof note);
    ck_assert_str_eq(note, "Spalten 19\u201334 von 34 (Schl\u00FCsselspalte wiederholt)");
    fo_table_group_note("xx", ends, 0, 34, note, sizeof note);
    ck_assert_str_eq(note, "Columns 1\u201318 of 34");
    char small[12];
    fo_table_group_note("ja", ends, 0, 34, small, sizeof small);   /* "列 1–18（全 34 列）" */
    ck_assert_str_eq(small, "\u5217 1\u201318");
    ck_assert_str_eq(fo_word("ZH-hant", FO_W_TOTAL), "\u5408\u8BA1");
    /* CLDR plural categories, and the form each picks */
    static const unsigned long long counts[] = {0, 1, 2, 3, 11, 21, 100, 101, 1000000};
    static const struct {
        const char *lang;
        const char *cats;
    } plurals[] = {
        {"ar", "Z12FMMOOO"}, {"he-IL", "O12OOOOOO"}, {"ru", "M1FFM1M1M"},    {"en", "O1OOOOOOO"},
        {"fr", "11OOOOOOM"}, {"pt", "11OOOOOOM"},    {"pt-PT", "O1OOOOOOM"}, {"hi", "11OOOOOOO"},
        {"ja", "OOOOOOOOO"}, {NULL, "O1OOOOOOO"},
    };
    for (size_t i = 0; i < sizeof plurals / sizeof *plurals; i++)
        for (size_t j = 0; j < sizeof counts / sizeof *counts; j++) {
            fo_plural c = fo_plural_of(plurals[i].lang, counts[j]);
            ck_assert_msg("Z12FMO"[c] == plurals[i].cats[j], "%s %llu", plurals[i].lang, counts[j]);
        }
    char cut[160];
    fo_table_cut_note("ru", 300, 1021, cut, sizeof cut);
    ck_assert_str_eq(
        cut, "\u041F\u0435\u0440\u0432\u044B\u0435 300 \u0438\u0437 1,021 "
             "\u0441\u0442\u0440\u043E\u043A\u0438; \u043F\u043E\u043B\u043D\u0430\u044F "
             "\u0442\u0430\u0431\u043B\u0438\u0446\u0430 \u2014 \u0432 \u043A\u043D\u0438\u0433\u0435.");
    fo_table_cut_note("en", 300, 1021, cut, sizeof cut);
    ck_assert_str_eq(cut, "First 300 of 1,021 rows; the full table is in the workbook.");
    fo_table_cut_note("uk", 300, 1021, cut, sizeof cut); /* no Ukrainian words: English's, English's rule */
    ck_assert_str_eq(cut, "First 300 of 1,021 rows; the full table is in the workbook.");
    ck_assert(fo_lang_rtl("ar-EG") && fo_lang_rtl("he") && fo_lang_rtl("az-Arab") && !fo_lang_rtl("en"));
    ck_assert(fo_lang_valid("pt-BR") && fo_lang_valid("zh-Hans-CN") && !fo_lang_valid("english_US") &&
              !fo_lang_valid("d") && !fo_lang_valid("de-") && !fo_lang_valid("de--AT"));
    /* no landscape (slides): groups in the width itself; a word wider than
     * a third of it is clamped so it cannot take a group alone */
    m[5] = 1000;
    fo_table_plan_fit(m, 34, 8, 300, 0, 0.7, &p, ends);
    ck_assert(!p.landscape);
    ck_assert_double_eq_tol(m[5] * 0.7 + 8, 100, 1e-9);
    for (size_t g = 0; g < p.ngroups; g++) {
        size_t k = fo_table_group_cols(ends, g, cols);
        double w = 0;
        for (size_t i = 0; i < k; i++) w += m[cols[i]] * 0.7 + 8;
        ck_assert(w <= 300 + 1e-9);
    }
    ck_assert_uint_eq(ends[p.ngroups - 1], 34);
}
END_TEST

/* The column plan: every writer's one rule for alignment, format and
 * header text (render/core/table.h). */
START_TEST(test_col_plan)
{
    fo_table_col cols[] = {
        {0, (char *)"Name", (char *)"General", FO_TYPE_TEXT, FO_TOTAL_NONE},
        {1, (char *)"Amount", (char *)"#,##0.00", FO_TYPE_NUMBER, FO_TOTAL_SUM},
        {2, (char *)"When", (char *)"yyyy-mm-dd", FO_TYPE_DATE, FO_TOTAL_NONE},
        {3, (char *)"Day", (char *)"d mmm", FO_TYPE_TEXT, FO_TOTAL_NONE},  /* a date format on text */
        {4, NULL, NULL, FO_TYPE_PERCENT, FO_TOTAL_NONE},
        {5, (char *)"Cur", (char *)"$#,##0", FO_TYPE_CURRENCY, FO_TOTAL_NONE},
        {6, (char *)"Int", (char *)"0", FO_TYPE_INTEGER, FO_TOTAL_NONE},
        {7, (char *)"At", (char *)"General", FO_TYPE_DATETIME, FO_TOTAL_NONE},
        {8, (char *)"Ok", (char *)"General", FO_TYPE_BOOLEAN, FO_TOTAL_NONE},
    };
    const bool right[] = {false, true, true, false, true, true, true, true, false};
    const bool date[] = {false, false, true, true, false, false, false, true, false};
    size_t n = sizeof cols / sizeof *cols;
    fo_col_plan *p = fo_col_plan_new(cols, n);
    ck_assert_ptr_nonnull(p);
    for (size_t j = 0; j < n; j++) {
        ck_assert_msg(p[j].right == right[j], "column %zu: right", j);
        ck_assert_msg(p[j].is_date == date[j], "column %zu: is_date", j);
        ck_assert_ptr_nonnull(p[j].fmt);
    }
    ck_assert_str_eq(p[0].title, "Name");
    ck_assert_str_eq(p[4].title, "");  /* no title: an empty header */
    char buf[64];
    ck_assert_uint_eq(fo_numfmt_format(p[1].fmt, 1234.5, buf, sizeof buf), 8);
    ck_assert_str_eq(buf, "1,234.50");
    fo_numfmt_format(p[4].fmt, 0.5, buf, sizeof buf);  /* no format: General */
    ck_assert_str_eq(buf, "0.5");
    /* widths: a header bold in words, a number whole, a text in words, and
     * any text of a right-aligned column whole */
    fo_table_width w = {0};
    fo_col_plan_widen_head(&p[1], &w, bytes, NULL);
    ck_assert_double_eq(w.natural, 12);
    fo_value v = num(1234567.5);
    fo_col_plan_widen(&p[1], &w, bytes, NULL, &v, buf, sizeof buf);
    ck_assert_double_eq(w.natural, 12);
    ck_assert_double_eq(w.minimum, 12);  /* "1,234,567.50": whole, 12 bytes */
    fo_table_width t = {0};
    fo_value words = {FO_VAL_TEXT, false, 0, "two words", NULL};
    fo_col_plan_widen(&p[0], &t, bytes, NULL, &words, buf, sizeof buf);
    ck_assert_double_eq(t.minimum, 5);   /* "words" */
    fo_table_width r = {0};
    fo_col_plan_widen(&p[1], &r, bytes, NULL, &words, buf, sizeof buf);
    ck_assert_double_eq(r.minimum, 9);   /* right-aligned column: whole */
    fo_table_acc a = {0};
    fo_table_acc_add(&a, &v);
    fo_table_width tw = {0};
    fo_col_plan_widen_total(&p[1], &tw, bytes, NULL, "en", &a, FO_TOTAL_SUM, 1, buf, 6);
    ck_assert_double_eq(tw.natural, 10);  /* bold, cut to the 5 bytes buf holds */
    /* a cell's alignment: a number right, a text left, an empty cell its column's way */
    ck_assert(fo_col_plan_cell_right(&p[0], true, 3));
    ck_assert(!fo_col_plan_cell_right(&p[1], false, 3));
    ck_assert(fo_col_plan_cell_right(&p[1], false, 0));
    ck_assert(!fo_col_plan_cell_right(&p[0], false, 0));
    /* laid out from the right: the first strong character decides */
    ck_assert(fo_table_text_rtl("12 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d abc", 15));
    ck_assert(!fo_table_text_rtl("abc \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", 12));
    ck_assert(!fo_table_text_rtl("123", 3));
    fo_col_plan_free(p, n);
    ck_assert_ptr_null(fo_col_plan_new(cols, 0));
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_accumulate_like_excel,
        test_no_numbers,
        test_total_text,
        test_fit,
        test_width_rule,
        test_plan_shrink_landscape_groups,
        test_col_plan,
        NULL,
    };
    return fo_check_tests("table", 0, tests);
}
