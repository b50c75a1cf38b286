/* t_chartxml.c — unit tests of the native chart-part writer (render/chartxml):
 * exact XML fragments per kind, literal caches with gaps, element order,
 * palette colors, number formats, determinism and allocation failures.
 *
 * Specs are parsed from strings; the part is taken from the fo_xml writer. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chartxml/chartxml.h"
#include "tests/check_run.h"

#define DATA                                                                                   \
    "\"data\": {\"s\": {\"columns\": [\"month\", {\"name\": \"revenue\", \"type\": \"number\", " \
    "\"format\": \"#,##0.0\"}, {\"name\": \"cost\", \"type\": \"number\"}], \"rows\": "         \
    "[[\"Jan\", 1.5, 2], [\"Feb\", null, 3], [\"Mar\", 0.1, null]]}, "                           \
    "\"d\": {\"columns\": [{\"name\": \"day\", \"type\": \"date\"}, {\"name\": \"v\", \"type\": " \
    "\"number\"}], \"rows\": [[{\"date\": \"2024-01-01\"}, 3], [{\"date\": \"2024-01-03\"}, 4]]}}"

static fo_doc *load(const char *blocks)
{
    char json[4096];
    snprintf(json, sizeof json, "{\"folio\": 1, " DATA ", \"blocks\": [%s]}", blocks);
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    fo_status st = fo_spec_parse(json, strlen(json), "t.json", NULL, &doc, &d);
    for (size_t i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.items[i].message);
    ck_assert_int_eq(st, FO_OK);
    fo_diags_free(&d);
    return doc;
}

/* The chart part of the doc's first block, NUL-terminated (caller frees). */
static char *write_part(const fo_doc *doc)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_xml *x = NULL;
    ck_assert_int_eq(fo_chartxml_write(&doc->blocks[0].u.chart, &doc->theme, &x, &d), FO_OK);
    const unsigned char *data = NULL;
    size_t len = 0;
    void *fp = NULL;
    fo_xml__take_output(x, &data, &len, &fp);
    ck_assert_ptr_nonnull(data);
    char *s = malloc(len + 1);
    memcpy(s, data, len);
    s[len] = '\0';
    fo_xml_free(x);
    fo_diags_free(&d);
    return s;
}

static char *chart_xml(const char *block)
{
    fo_doc *doc = load(block);
    char *s = write_part(doc);
    fo_doc_free(doc);
    return s;
}

/* a appears before b in s (both present). */
static void before(const char *s, const char *a, const char *b)
{
    const char *pa = strstr(s, a), *pb = strstr(s, b);
    ck_assert_msg(pa != NULL, "missing %s", a);
    ck_assert_msg(pb != NULL, "missing %s", b);
    ck_assert_msg(pa < pb, "%s must come before %s", a, b);
}

START_TEST(test_column_caches_and_gaps)
{
    char *s = chart_xml("{\"type\": \"chart\", \"kind\": \"column\", \"data\": \"s\", \"x\": \"month\", "
                        "\"y\": [\"revenue\", \"cost\"], \"title\": \"T & <x>\"}");
    ck_assert_ptr_nonnull(strstr(s, "<c:barDir val=\"col\"/><c:grouping val=\"clustered\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<a:t>T &amp; &lt;x&gt;</a:t>"));
    /* revenue: Feb missing -> no pt idx=1; ptCount stays 3 */
    ck_assert_ptr_nonnull(strstr(s, "<c:numLit><c:formatCode>#,##0.0</c:formatCode><c:ptCount val=\"3\"/>"
                                    "<c:pt idx=\"0\"><c:v>1.5</c:v></c:pt>"
                                    "<c:pt idx=\"2\"><c:v>0.1</c:v></c:pt></c:numLit>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:strLit><c:ptCount val=\"3\"/><c:pt idx=\"0\"><c:v>Jan</c:v></c:pt>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:tx><c:v>cost</c:v></c:tx>"));
    /* the value axis as the chart engine scales it, fixed for Office: 0..3
       step 0.5, labelled with the one decimal the step needs */
    ck_assert_ptr_nonnull(strstr(s, "<c:valAx><c:axId val=\"507002\"/><c:scaling>"
                                    "<c:orientation val=\"minMax\"/><c:max val=\"3\"/>"
                                    "<c:min val=\"0\"/></c:scaling>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:numFmt formatCode=\"#,##0.0\" sourceLinked=\"0\"/>"
                                    "<c:majorTickMark val=\"none\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:crossBetween val=\"between\"/><c:majorUnit val=\"0.5\"/>"
                                    "</c:valAx>"));
    ck_assert_ptr_null(strstr(s, "<c:overlap"));
    /* default palette, in order */
    before(s, "<a:srgbClr val=\"2F5597\"/>", "<a:srgbClr val=\"ED7D31\"/>");
    /* schema order */
    before(s, "<c:title>", "<c:autoTitleDeleted val=\"0\"/>");
    before(s, "<c:autoTitleDeleted", "<c:plotArea>");
    before(s, "</c:plotArea>", "<c:legend>");
    before(s, "<c:legend>", "<c:plotVisOnly");
    before(s, "<c:plotVisOnly", "<c:dispBlanksAs val=\"gap\"/>");
    ck_assert_ptr_nonnull(strstr(s, "</c:chart><c:spPr>"));
    before(s, "</c:ser><c:gapWidth", "<c:axId val=\"507001\"/><c:axId val=\"507002\"/></c:barChart>");
    before(s, "<c:catAx>", "<c:valAx>");
    before(s, "<c:majorGridlines>", "<c:numFmt formatCode=\"#,##0.0\"");
    free(s);
}
END_TEST

START_TEST(test_stacked_bar_and_legend)
{
    char *s = chart_xml("{\"type\": \"chart\", \"kind\": \"bar\", \"data\": \"s\", \"x\": \"month\", "
                        "\"y\": [\"revenue\", \"cost\"], \"stacked\": true, \"legend\": \"bottom\"}");
    ck_assert_ptr_nonnull(strstr(s, "<c:barDir val=\"bar\"/><c:grouping val=\"stacked\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:overlap val=\"100\"/><c:axId"));
    ck_assert_ptr_nonnull(strstr(s, "<c:legendPos val=\"b\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:autoTitleDeleted val=\"1\"/>"));
    ck_assert_ptr_null(strstr(s, "<c:title>"));
    free(s);
    /* one series on the right: no legend, as the PNG chart */
    s = chart_xml("{\"type\": \"chart\", \"kind\": \"line\", \"data\": \"s\", \"x\": \"month\", "
                  "\"y\": \"cost\"}");
    ck_assert_ptr_null(strstr(s, "<c:legend>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:marker><c:symbol val=\"circle\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:marker val=\"1\"/>"));
    free(s);
}
END_TEST

START_TEST(test_pie_percent_labels_and_slice_colors)
{
    char *s = chart_xml("{\"type\": \"chart\", \"kind\": \"doughnut\", \"data\": \"s\", \"x\": \"month\", "
                        "\"y\": \"cost\"}");
    ck_assert_ptr_nonnull(strstr(s, "<c:doughnutChart><c:varyColors val=\"1\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:holeSize val=\"55\"/></c:doughnutChart>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:showPercent val=\"1\"/>"));
    ck_assert_ptr_null(strstr(s, "<c:dLblPos")); /* not valid for doughnuts in Office */
    before(s, "<c:dPt><c:idx val=\"0\"/>", "<c:dPt><c:idx val=\"2\"/>");
    before(s, "<c:dPt>", "<c:dLbls>");
    before(s, "</c:dLbls>", "<c:cat>");
    ck_assert_ptr_null(strstr(s, "<c:catAx>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:legendPos val=\"r\"/>")); /* categories */
    free(s);
}
END_TEST

START_TEST(test_scatter_dates)
{
    char *s = chart_xml("{\"type\": \"chart\", \"kind\": \"scatter\", \"data\": \"d\", \"x\": \"day\", "
                        "\"y\": \"v\"}");
    ck_assert_ptr_nonnull(strstr(s, "<c:scatterStyle val=\"lineMarker\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:xVal><c:numLit><c:formatCode>yyyy-mm-dd</c:formatCode>"
                                    "<c:ptCount val=\"2\"/><c:pt idx=\"0\"><c:v>45292</c:v></c:pt>"
                                    "<c:pt idx=\"1\"><c:v>45294</c:v></c:pt></c:numLit></c:xVal>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:spPr><a:ln><a:noFill/></a:ln></c:spPr><c:marker>"));
    ck_assert_ptr_nonnull(strstr(s, "<c:crossBetween val=\"midCat\"/>"));
    ck_assert_ptr_null(strstr(s, "<c:catAx>"));
    free(s);
}
END_TEST

START_TEST(test_numbers_round_trip)
{
    char buf[40];
    fo_chartxml_num(0.1, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.1");
    fo_chartxml_num(-0.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0");
    fo_chartxml_num(1.0 / 3, buf, sizeof buf);
    ck_assert(strtod(buf, NULL) == 1.0 / 3);
    fo_chartxml_num(1e300, buf, sizeof buf);
    ck_assert_str_eq(buf, "1e+300");
    /* integers (printed without printf) read as "%.15g" prints them */
    static const double ints[] = {1, -1, 42, -199120, 999999999999999.0, -999999999999999.0,
                                  1e15, 1e16, 123456789012345.0, 4503599627370496.0};
    char want[40];
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        fo_chartxml_num(ints[i], buf, sizeof buf);
        snprintf(want, sizeof want, "%.15g", ints[i]);
        if (strtod(want, NULL) != ints[i]) snprintf(want, sizeof want, "%.17g", ints[i]);
        ck_assert_str_eq(buf, want);
    }
    fo_chartxml_num(-123456, buf, 4); /* cut to the buffer, as snprintf cuts */
    ck_assert_str_eq(buf, "-12");
    /* colours: "%06X" */
    char hex[7];
    fo_rgb_hex(0x0A0B0C, hex);
    ck_assert_str_eq(hex, "0A0B0C");
    fo_rgb_hex(0xFFFFFFFF, hex);
    ck_assert_str_eq(hex, "FFFFFF");
    fo_rgb_hex(0xFEDCBA, hex);
    ck_assert_str_eq(hex, "FEDCBA");
}
END_TEST

START_TEST(test_deterministic_and_allocation_failures)
{
    fo_doc *doc = load("{\"type\": \"chart\", \"kind\": \"area\", \"data\": \"s\", \"x\": \"month\", "
                       "\"y\": [\"revenue\", \"cost\"], \"title\": \"A\"}");
    char *a = write_part(doc), *b = write_part(doc);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    for (unsigned long n = 1; n < 200; n++) {
        fo_diags d;
        fo_diags_init(&d);
        fo_xml *x = NULL;
        fo_alloc_fail_after(n);
        fo_status st = fo_chartxml_write(&doc->blocks[0].u.chart, &doc->theme, &x, &d);
        fo_alloc_fail_after(0);
        if (st == FO_OK) ck_assert_ptr_nonnull(x);
        else ck_assert_ptr_null(x);
        fo_xml_free(x);
        fo_diags_free(&d);
    }
    fo_doc_free(doc);
}
END_TEST

START_TEST(test_workbook_ranges)
{
    char buf[64];
    fo_chartxml_range(buf, sizeof buf, 0, 1, 4);
    ck_assert_str_eq(buf, "Sheet1!$A$2:$A$5");
    fo_chartxml_range(buf, sizeof buf, 1, 0, 0);
    ck_assert_str_eq(buf, "Sheet1!$B$1");
    fo_chartxml_range(buf, sizeof buf, 26, 1, 1000);
    ck_assert_str_eq(buf, "Sheet1!$AA$2:$AA$1001");
}
END_TEST

/* fo_chartxml_add: the chart part, its workbook and both relationships, or
 * a clean error when the N-th allocation fails (nothing leaks). */
START_TEST(test_add_with_workbook_and_allocation_failures)
{
    fo_doc *doc = load("{\"type\": \"chart\", \"kind\": \"column\", \"data\": \"s\", \"x\": \"month\", "
                       "\"y\": [\"revenue\", \"cost\"], \"title\": \"A\"}");
    for (unsigned long n = 0; n < 400; n++) {
        fo_diags d;
        fo_diags_init(&d);
        fo_pkg *p = fo_pkg_new("/nonexistent/never-written.pptx");
        ck_assert_ptr_nonnull(p);
        fo_status st = FO_OK;
        fo_alloc_fail_after(n);
        const char *rid = fo_chartxml_add(p, "ppt/slides/slide1.xml", "ppt/charts/chart7.xml",
                                          "../charts/chart7.xml", &doc->blocks[0].u.chart,
                                          &doc->theme, FO_NO_EPOCH, &d, &st);
        fo_alloc_fail_after(0);
        if (st == FO_OK) {
            ck_assert_str_eq(rid, "rId1");
            ck_assert(fo_pkg_has_part(p, "ppt/charts/chart7.xml"));
            ck_assert(fo_pkg_has_part(p, "ppt/embeddings/Microsoft_Excel_Worksheet7.xlsx"));
        } else {
            ck_assert_str_eq(rid, "");
        }
        fo_pkg_free(p);
        fo_diags_free(&d);
    }
    fo_doc_free(doc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("chartxml");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_column_caches_and_gaps);
    tcase_add_test(tc, test_stacked_bar_and_legend);
    tcase_add_test(tc, test_pie_percent_labels_and_slice_colors);
    tcase_add_test(tc, test_scatter_dates);
    tcase_add_test(tc, test_numbers_round_trip);
    tcase_add_test(tc, test_deterministic_and_allocation_failures);
    tcase_add_test(tc, test_workbook_ranges);
    tcase_add_test(tc, test_add_with_workbook_and_allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
