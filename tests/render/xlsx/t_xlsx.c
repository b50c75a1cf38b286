/* t_xlsx.c — unit tests of the xlsx renderer: sheet-name legalisation, text
 * sanitising, width fitting, and whole renders of hand-built documents read
 * back with libzip (sheet XML, totals formulas, limits, determinism,
 * allocation failures). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "formats/theme.h"
#include "render/render.h"
#include "render/xlsx/xlsx_internal.h"
#include "tests/check_run.h"

/* ---- sheet names ------------------------------------------------------------ */

static const char *name_of(fo_xlsx_names *s, const char *want)
{
    static char out[FO_XLSX_NAME_CAP];
    ck_assert_int_eq(fo_xlsx_sheet_name(s, want, out), FO_OK);
    return out;
}

START_TEST(names_illegal_chars)
{
    fo_xlsx_names s = {0};
    ck_assert_str_eq(name_of(&s, "Sales 2024/25: [EU]*?"), "Sales 2024-25 (EU)");
    ck_assert_str_eq(name_of(&s, "a\\b"), "a-b");
    ck_assert_str_eq(name_of(&s, "'quoted'"), "quoted");
    ck_assert_str_eq(name_of(&s, "  "), "Sheet");
    ck_assert_str_eq(name_of(&s, NULL), "Sheet (2)");
    ck_assert_str_eq(name_of(&s, "tab\there\nnl"), "tab here nl");
    fo_xlsx_names_free(&s);
}
END_TEST

START_TEST(names_length_and_unique)
{
    fo_xlsx_names s = {0};
    const char *n = name_of(&s, "A very long caption that goes on and on");
    ck_assert_str_eq(n, "A very long caption that goes");   /* cut at a word, not mid-word */
    n = name_of(&s, "A very long caption that goes on and on");
    ck_assert_str_eq(n, "A very long caption that (2)");
    ck_assert_str_eq(name_of(&s, "Sales"), "Sales");
    ck_assert_str_eq(name_of(&s, "SALES"), "SALES (2)");
    ck_assert_str_eq(name_of(&s, "sales"), "sales (3)");
    ck_assert_str_eq(name_of(&s, "history"), "history (2)");
    ck_assert_str_eq(name_of(&s, "Été"), "Été");
    ck_assert_str_eq(name_of(&s, "ÉTÉ"), "ÉTÉ (2)");
    /* 31 characters of 3-byte CJK: cut by characters, not bytes */
    char cjk[200] = "";
    for (int i = 0; i < 40; i++) strcat(cjk, "東");
    n = name_of(&s, cjk);
    ck_assert_uint_eq(fo_xlsx_char_count(n, strlen(n)), 31);
    ck_assert_uint_eq(strlen(n), 93);
    ck_assert(fo_xlsx_names_has(&s, "sales (2)"));
    fo_xlsx_names_free(&s);
}
END_TEST

START_TEST(sheet_ref_quotes)
{
    char out[64];
    fo_xlsx_sheet_ref("O'Brien data", out, sizeof out);
    ck_assert_str_eq(out, "'O''Brien data'!");
}
END_TEST

/* ---- text cleaning ------------------------------------------------------------ */

START_TEST(clean_text)
{
    fo_buf b = {0};
    const char *ok = "plain text, ümlaut, 東京, tab\tand\nnewline";
    ck_assert_ptr_eq(fo_xlsx_clean(&b, ok, strlen(ok), FO_XLSX_CELL), ok);
    ck_assert_str_eq(fo_xlsx_clean(&b, "a\x01" "b", 3, FO_XLSX_CELL), "a_x0001_b");
    ck_assert_str_eq(fo_xlsx_clean(&b, "a\rb", 3, FO_XLSX_CELL), "a_x000D_b");
    ck_assert_str_eq(fo_xlsx_clean(&b, "x_x0041_y", 9, FO_XLSX_CELL), "x_x005F_x0041_y");
    ck_assert_str_eq(fo_xlsx_clean(&b, "snake_case_x", 12, FO_XLSX_CELL), "snake_case_x");
    ck_assert_str_eq(fo_xlsx_clean(&b, "bad\xC3(", 5, FO_XLSX_CELL), "bad\xEF\xBF\xBD(");
    ck_assert_str_eq(fo_xlsx_clean(&b, "\xEF\xBF\xBF", 3, FO_XLSX_CELL), "\xEF\xBF\xBD");
    ck_assert_str_eq(fo_xlsx_clean(&b, "\xED\xA0\x80z", 4, FO_XLSX_CELL),
                     "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDz"); /* CESU surrogate: 3 bad bytes */
    ck_assert_str_eq(fo_xlsx_clean(&b, "t\x02t", 3, FO_XLSX_PLAIN), "t t");
    ck_assert_str_eq(fo_xlsx_clean(&b, "x_x0041_", 8, FO_XLSX_PLAIN), "x_x0041_");
    fo_buf_free(&b);
}
END_TEST

START_TEST(widths)
{
    ck_assert(fo_xlsx_text_width("abc", 3) == 3);
    ck_assert(fo_xlsx_text_width("東京", 6) == 4);
    ck_assert(fo_xlsx_text_width("e\xCC\x81", 3) == 1); /* e + combining acute */
    ck_assert(fo_xlsx_text_width("ab\nabcd\nx", 9) == 4);
    ck_assert(fo_xlsx_fit_width(2, 1) == FO_XLSX_WIDTH_MIN);
    ck_assert(fo_xlsx_fit_width(5, 200) == FO_XLSX_WIDTH_MAX);
    ck_assert(fo_xlsx_fit_width(5, 20) == 21.5);
    ck_assert(fo_xlsx_fit_width(20, 5) > 24);
    ck_assert_uint_eq(fo_xlsx_char_count("a\xF0\x9F\x98\x80", 5), 3); /* emoji = 2 UTF-16 units */
}
END_TEST

/* ---- whole renders ------------------------------------------------------------ */

static char tmpdir[64];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/t_xlsx.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) { /* best effort */ }
}

/* A document with one inline dataset (3 rows: text, number, date, url) shown
 * as a table with a sum total, a paragraph, and a column chart on it. */
static fo_doc *make_doc(const char *long_text)
{
    fo_doc *doc = fo_calloc(1, sizeof *doc);
    doc->arena = fo_arena_new();
    fo_arena *a = doc->arena;
    fo_theme_default(&doc->theme);
    doc->title = fo_arena_strdup(a, "Test report");
    doc->epoch = FO_FIXED_EPOCH;
    fo_dataset *ds = fo_arena_alloc(a, sizeof *ds);
    ds->name = fo_arena_strdup(a, "sales");
    ds->pointer = fo_arena_strdup(a, "/data/sales");
    ds->ncols = 4;
    ds->cols = fo_arena_alloc(a, 4 * sizeof *ds->cols);
    const char *names[] = {"region", "revenue", "day", "link"};
    const fo_type types[] = {FO_TYPE_TEXT, FO_TYPE_NUMBER, FO_TYPE_DATE, FO_TYPE_TEXT};
    const char *fmts[] = {"@", "#,##0.00", "yyyy-mm-dd", "General"};
    for (int i = 0; i < 4; i++)
        ds->cols[i] = (fo_column){.name = (char *)names[i], .type = types[i], .format = (char *)fmts[i]};
    ds->nrows = 3;
    ds->src = FO_SRC_INLINE;
    ds->cells = fo_arena_alloc(a, 12 * sizeof *ds->cells);
    const char *regions[] = {"North", "=1+1", "00123"};
    for (int r = 0; r < 3; r++) {
        fo_value *row = ds->cells + r * 4;
        row[0] = (fo_value){.kind = FO_VAL_TEXT, .str = r == 2 && long_text ? long_text : regions[r]};
        row[1] = (fo_value){.kind = FO_VAL_NUMBER, .num = 1000.5 * (r + 1)};
        row[2] = (fo_value){.kind = FO_VAL_DATE, .num = 45352 + r};
        row[3] = (fo_value){.kind = FO_VAL_URL, .str = "https://example.com/x", .label = "site"};
    }
    doc->datasets = fo_arena_alloc(a, sizeof *doc->datasets);
    doc->datasets[0] = ds;
    doc->ndatasets = 1;
    doc->nblocks = 3;
    doc->blocks = fo_arena_alloc(a, 3 * sizeof *doc->blocks);
    fo_block *p = &doc->blocks[0];
    p->kind = FO_BLOCK_PARAGRAPH;
    p->pointer = fo_arena_strdup(a, "/blocks/0");
    p->u.paragraph.text = fo_arena_strdup(a, "Revenue grew **12%**.");
    fo_block *t = &doc->blocks[1];
    t->kind = FO_BLOCK_TABLE;
    t->pointer = fo_arena_strdup(a, "/blocks/1");
    t->u.table.data = ds;
    t->u.table.ncols = 4;
    t->u.table.cols = fo_arena_alloc(a, 4 * sizeof *t->u.table.cols);
    for (int i = 0; i < 4; i++)
        t->u.table.cols[i] = (fo_table_col){.field = (size_t)i, .title = (char *)names[i],
                                            .format = (char *)fmts[i], .type = types[i]};
    t->u.table.cols[1].total = FO_TOTAL_SUM;
    t->u.table.has_totals = true;
    t->u.table.caption = fo_arena_strdup(a, "Sales: by region");
    fo_block *c = &doc->blocks[2];
    c->kind = FO_BLOCK_CHART;
    c->pointer = fo_arena_strdup(a, "/blocks/2");
    c->u.chart.kind = FO_CHART_COLUMN;
    c->u.chart.data = ds;
    c->u.chart.x = 0;
    c->u.chart.y = fo_arena_alloc(a, sizeof(size_t));
    c->u.chart.y[0] = 1;
    c->u.chart.ny = 1;
    c->u.chart.title = fo_arena_strdup(a, "Revenue");
    c->u.chart.width = 800;
    c->u.chart.height = 500;
    return doc;
}

static char *zip_entry(const char *path, const char *name)
{
    int err = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &err);
    ck_assert_ptr_nonnull(z);
    zip_stat_t st;
    ck_assert_int_eq(zip_stat(z, name, 0, &st), 0);
    char *buf = calloc(1, st.size + 1);
    zip_file_t *f = zip_fopen(z, name, 0);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(zip_fread(f, buf, st.size), (zip_int64_t)st.size);
    zip_fclose(f);
    zip_close(z);
    return buf;
}

static fo_status render_to(const fo_doc *doc, const char *path, fo_diags *d)
{
    const char *outs[] = {path};
    return fo_render(doc, outs, 1, NULL, NULL, d);
}

/* A logo that vanished after the theme loaded: an input error naming it,
 * no workbook left behind. */
START_TEST(render_missing_logo)
{
    fo_doc *doc = make_doc(NULL);
    snprintf(doc->theme.logo, sizeof doc->theme.logo, "%s/gone-logo.png", tmpdir);
    fo_diags d;
    fo_diags_init(&d);
    char path[128];
    snprintf(path, sizeof path, "%s/logo.xlsx", tmpdir);
    ck_assert_int_eq(render_to(doc, path, &d), FO_ERR_INPUT);
    ck_assert_uint_ge(d.n, 1);
    ck_assert_ptr_nonnull(strstr(d.items[0].message, "gone-logo.png"));
    ck_assert_int_ne(access(path, F_OK), 0);
    fo_diags_free(&d);
    fo_doc_free(doc);
}
END_TEST

START_TEST(render_table_sheet)
{
    fo_doc *doc = make_doc(NULL);
    fo_diags d;
    fo_diags_init(&d);
    char path[128];
    snprintf(path, sizeof path, "%s/out.xlsx", tmpdir);
    ck_assert_int_eq(render_to(doc, path, &d), FO_OK);
    char *wb = zip_entry(path, "xl/workbook.xml");
    ck_assert_ptr_nonnull(strstr(wb, "<sheet name=\"Summary\""));
    ck_assert_ptr_nonnull(strstr(wb, "<sheet name=\"Sales by region\""));
    ck_assert_ptr_nonnull(strstr(wb, "_xlnm._FilterDatabase")); /* autofilter */
    /* the table's sheet comes first, the Summary after it */
    ck_assert(strstr(wb, "<sheet name=\"Sales by region\"") < strstr(wb, "<sheet name=\"Summary\""));
    char *sh = zip_entry(path, "xl/worksheets/sheet1.xml");
    ck_assert_ptr_nonnull(strstr(sh, "<pane ySplit=\"1\" topLeftCell=\"A2\""));
    ck_assert_ptr_nonnull(strstr(sh, "<autoFilter ref=\"A1:D4\"/>"));
    ck_assert_ptr_nonnull(strstr(sh, "<f>SUM(B2:B4)</f><v>6003</v>"));
    ck_assert_ptr_nonnull(strstr(sh, "<c r=\"C2\" s=")); /* the date is a number */
    ck_assert_ptr_nonnull(strstr(sh, "<v>45352</v>"));
    ck_assert_ptr_null(strstr(sh, "<f>1+1</f>"));        /* "=1+1" stays a string */
    ck_assert_ptr_nonnull(strstr(sh, "<hyperlink ref=\"D2\""));
    char *ch = zip_entry(path, "xl/charts/chart1.xml");
    ck_assert_ptr_nonnull(strstr(ch, "<c:barChart>"));
    ck_assert_ptr_nonnull(strstr(ch, "<c:f>'Sales by region'!$B$2:$B$4</c:f>"));
    char *core = zip_entry(path, "docProps/core.xml");
    ck_assert_ptr_nonnull(strstr(core, "<dc:title>Test report</dc:title>"));
    ck_assert_ptr_nonnull(strstr(core, "2000-01-01T00:00:00Z"));
    free(wb); free(sh); free(ch); free(core);
    fo_diags_free(&d);
    fo_doc_free(doc);
}
END_TEST

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *p = malloc(*n);
    ck_assert_uint_eq(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

START_TEST(render_deterministic)
{
    fo_doc *doc = make_doc(NULL);
    fo_diags d;
    fo_diags_init(&d);
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/a.xlsx", tmpdir);
    snprintf(p2, sizeof p2, "%s/b.xlsx", tmpdir);
    ck_assert_int_eq(render_to(doc, p1, &d), FO_OK);
    sleep(1); /* a clock in the output would show now */
    ck_assert_int_eq(render_to(doc, p2, &d), FO_OK);
    size_t n1, n2;
    unsigned char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(memcmp(a, b, n1), 0);
    free(a); free(b);
    fo_diags_free(&d);
    fo_doc_free(doc);
}
END_TEST

START_TEST(render_cell_too_long)
{
    char *big = malloc(40001);
    memset(big, 'x', 40000);
    big[40000] = '\0';
    fo_doc *doc = make_doc(big);
    fo_diags d;
    fo_diags_init(&d);
    char path[128];
    snprintf(path, sizeof path, "%s/long.xlsx", tmpdir);
    ck_assert_int_eq(render_to(doc, path, &d), FO_ERR_INPUT);
    ck_assert_uint_ge(d.n, 1);
    ck_assert_str_eq(d.items[0].pointer, "/data/sales/rows/2/0"); /* the cell itself */
    ck_assert_str_eq(d.items[0].message, "row 3, column \"region\": text of 40000 characters "
                                         "exceeds Excel's 32,767-character cell limit");
    ck_assert_ptr_nonnull(d.items[0].hint);
    struct stat st;
    ck_assert_int_ne(stat(path, &st), 0); /* nothing written */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", tmpdir);
    ck_assert_int_eq(system(cmd), 0); /* no temporary left either */
    fo_diags_free(&d);
    fo_doc_free(doc);
    free(big);
}
END_TEST

START_TEST(render_alloc_failures)
{
    /* Every allocation in turn fails: never a crash, never a leftover file. */
    char path[128];
    snprintf(path, sizeof path, "%s/oom.xlsx", tmpdir);
    int ok = 0;
    for (unsigned long n = 1; n < 400 && !ok; n++) {
        fo_doc *doc = make_doc(NULL);
        fo_diags d;
        fo_diags_init(&d);
        fo_alloc_fail_after(n);
        fo_status st = render_to(doc, path, &d);
        fo_alloc_fail_after(0);
        if (st == FO_OK) ok = 1;
        else {
            struct stat sb;
            ck_assert_int_ne(stat(path, &sb), 0);
        }
        fo_diags_free(&d);
        fo_doc_free(doc);
    }
    ck_assert(ok);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("xlsx");
    TCase *tc = tcase_create("helpers");
    tcase_add_test(tc, names_illegal_chars);
    tcase_add_test(tc, names_length_and_unique);
    tcase_add_test(tc, sheet_ref_quotes);
    tcase_add_test(tc, clean_text);
    tcase_add_test(tc, widths);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("render");
    tcase_add_checked_fixture(tr, setup, teardown);
    tcase_set_timeout(tr, 60);
    tcase_add_test(tr, render_table_sheet);
    tcase_add_test(tr, render_missing_logo);
    tcase_add_test(tr, render_deterministic);
    tcase_add_test(tr, render_cell_too_long);
    tcase_add_test(tr, render_alloc_failures);
    suite_add_tcase(s, tr);
    return fo_check_run(s);
}
