/* t_pptx.c — pptx renderer unit tests: specs in, the archive read back with
 * libzip: parts present, slide count, slide texts in order, continuation
 * slides, table split with header, determinism.
 *
 * PPTX_TEST_OUT=DIR keeps the decks (for looking at them in LibreOffice). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "render/render.h"
#include "tests/check_run.h"

static char dir[256];

static void setup(void)
{
    const char *keep = getenv("PPTX_TEST_OUT");
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
    } else {
        snprintf(dir, sizeof dir, "/tmp/t_pptx.XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(dir));
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Renders spec JSON text to DIR/name.pptx; returns the path (static). */
static const char *render(const char *name, const char *json)
{
    static char out[512];
    char spec[512];
    snprintf(spec, sizeof spec, "%s/%s.json", dir, name);
    snprintf(out, sizeof out, "%s/%s.pptx", dir, name);
    write_file(spec, json);
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    fo_status st = fo_spec_load(spec, &doc, &d);
    for (size_t i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.items[i].message);
    ck_assert_int_eq(st, FO_OK);
    fo_outset *o = fo_outset_new(0);
    st = fo_pptx_render(doc, out, o, NULL, &d);
    for (size_t i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.items[i].message);
    ck_assert_int_eq(st, FO_OK);
    ck_assert_int_eq(fo_outset_commit(o, NULL, false, &d), FO_OK);
    fo_outset_free(o);
    fo_doc_free(doc);
    fo_diags_free(&d);
    return out;
}

/* Contents of one part (NUL-terminated, caller frees) or NULL. */
static char *part(const char *pptx, const char *name)
{
    int err = 0;
    zip_t *z = zip_open(pptx, ZIP_RDONLY, &err);
    ck_assert_ptr_nonnull(z);
    zip_stat_t st;
    char *buf = NULL;
    if (zip_stat(z, name, 0, &st) == 0) {
        zip_file_t *f = zip_fopen(z, name, 0);
        buf = malloc(st.size + 1);
        ck_assert_int_eq(zip_fread(f, buf, st.size), (zip_int64_t)st.size);
        buf[st.size] = '\0';
        zip_fclose(f);
    }
    zip_close(z);
    return buf;
}

static int count_slides(const char *pptx)
{
    int n = 0;
    for (;;) {
        char name[64];
        snprintf(name, sizeof name, "ppt/slides/slide%d.xml", n + 1);
        char *s = part(pptx, name);
        if (!s) return n;
        free(s);
        n++;
    }
}

/* All <a:t> texts of slide k joined with '|'. Caller frees. */
static char *slide_text(const char *pptx, int k)
{
    char name[64];
    snprintf(name, sizeof name, "ppt/slides/slide%d.xml", k);
    char *s = part(pptx, name);
    ck_assert_ptr_nonnull(s);
    size_t cap = strlen(s) + 1, n = 0;
    char *out = calloc(1, cap);
    for (char *q = s; (q = strstr(q, "<a:t>")) != NULL;) {
        q += 5;
        char *e = strstr(q, "</a:t>");
        if (n) out[n++] = '|';
        memcpy(out + n, q, (size_t)(e - q));
        n += (size_t)(e - q);
        q = e;
    }
    out[n] = '\0';
    free(s);
    return out;
}

START_TEST(test_title_slide)
{
    const char *f = render("title", "{\"folio\": 1, \"title\": \"Q3 sales review\", "
                                    "\"subtitle\": \"EMEA\", \"author\": \"Finance\", "
                                    "\"date\": \"2026-09-30\", \"blocks\": []}");
    ck_assert_int_eq(count_slides(f), 1);
    char *t = slide_text(f, 1);
    ck_assert_str_eq(t, "Q3 sales review|EMEA|Finance  \xC2\xB7  2026-09-30");
    free(t);
    char *pres = part(f, "ppt/presentation.xml");
    ck_assert_ptr_nonnull(strstr(pres, "<p:sldSz cx=\"12192000\" cy=\"6858000\"/>"));
    free(pres);
    char *core = part(f, "docProps/core.xml");
    ck_assert_ptr_nonnull(strstr(core, "Q3 sales review"));
    ck_assert_ptr_nonnull(strstr(core, "2026-09-30"));
    free(core);
    const char *need[] = {"[Content_Types].xml", "ppt/slideMasters/slideMaster1.xml",
                          "ppt/slideLayouts/slideLayout4.xml", "ppt/theme/theme1.xml",
                          "ppt/slides/_rels/slide1.xml.rels"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        char *s = part(f, need[i]);
        ck_assert_msg(s != NULL, "missing %s", need[i]);
        free(s);
    }
}
END_TEST

START_TEST(test_headings_bullets)
{
    const char *f = render("bullets",
        "{\"folio\": 1, \"blocks\": ["
        "{\"type\": \"heading\", \"text\": \"Summary\", \"level\": 1},"
        "{\"type\": \"paragraph\", \"text\": \"Revenue grew **12%**; see [the dashboard](https://example.com).\"},"
        "{\"type\": \"heading\", \"text\": \"Details\", \"level\": 2},"
        "{\"type\": \"list\", \"ordered\": true, \"items\": [\"first\", {\"text\": \"second\", \"items\": [\"nested `x`\"]}]},"
        "{\"type\": \"heading\", \"text\": \"Next\", \"level\": 1},"
        "{\"type\": \"paragraph\", \"text\": \"Plan\"}]}");
    ck_assert_int_eq(count_slides(f), 2);
    char *t = slide_text(f, 1);
    ck_assert_str_eq(t, "Summary|Revenue grew |12%|; see |the dashboard|.|Details|first|second|nested |x|1");
    free(t);
    char *s = part(f, "ppt/slides/slide1.xml");
    ck_assert_ptr_nonnull(strstr(s, "<a:buAutoNum type=\"arabicPeriod\"/>"));
    ck_assert_ptr_nonnull(strstr(s, "<a:hlinkClick r:id=\"rId2\"/>"));
    free(s);
    char *rels = part(f, "ppt/slides/_rels/slide1.xml.rels");
    ck_assert_ptr_nonnull(strstr(rels, "Target=\"https://example.com\" TargetMode=\"External\""));
    free(rels);
}
END_TEST

START_TEST(test_long_list_continues)
{
    char json[20000];
    size_t n = (size_t)snprintf(json, sizeof json,
                                "{\"folio\": 1, \"blocks\": [{\"type\": \"heading\", \"text\": "
                                "\"Findings\", \"level\": 1}, {\"type\": \"list\", \"items\": [");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(json + n, sizeof json - n, "%s\"Finding number %d is stated here "
                              "with enough words to take a line\"", i ? "," : "", i + 1);
    snprintf(json + n, sizeof json - n, "]}]}");
    const char *f = render("longlist", json);
    int slides = count_slides(f);
    ck_assert_int_ge(slides, 2);
    char *t = slide_text(f, 2);
    ck_assert_msg(strncmp(t, "Findings (cont.)|", 17) == 0, "%s", t);
    free(t);
    /* every item appears exactly once, in order */
    int next = 1;
    for (int k = 1; k <= slides; k++) {
        t = slide_text(f, k);
        for (char *q = t; (q = strstr(q, "Finding number ")) != NULL; q++)
            ck_assert_int_eq(atoi(q + 15), next++);
        free(t);
    }
    ck_assert_int_eq(next, 41);
}
END_TEST


START_TEST(test_table_split)
{
    char json[30000];
    size_t n = (size_t)snprintf(json, sizeof json,
        "{\"folio\": 1, \"data\": {\"t\": {\"columns\": [\"month\", \"revenue\"], \"rows\": [");
    for (int i = 0; i < 60; i++)
        n += (size_t)snprintf(json + n, sizeof json - n, "%s[\"M%02d\", %d.5]", i ? "," : "", i + 1,
                              1000 + i);
    snprintf(json + n, sizeof json - n,
             "]}}, \"blocks\": [{\"type\": \"heading\", \"text\": \"Sales\", \"level\": 1},"
             "{\"type\": \"table\", \"data\": \"t\", \"caption\": \"Monthly sales\", \"columns\": "
             "[\"month\", {\"field\": \"revenue\", \"title\": \"Revenue\", \"format\": \"#,##0.00\"}],"
             " \"totals\": {\"revenue\": \"sum\"}}]}");
    const char *f = render("table", json);
    int slides = count_slides(f);
    ck_assert_int_ge(slides, 3);
    int rows = 0;
    for (int k = 1; k <= slides; k++) {
        char *t = slide_text(f, k);
        ck_assert_msg(strncmp(t, k == 1 ? "Sales|Monthly sales|month|Revenue|" :
                                          "Sales (cont.)|month|Revenue|", k == 1 ? 34 : 28) == 0,
                      "slide %d: %s", k, t);
        for (char *q = t; (q = strstr(q, "|M")) != NULL; q++) {
            if (q[2] < '0' || q[2] > '9') continue;
            rows++;
            ck_assert_int_eq(atoi(q + 2), rows);
        }
        free(t);
    }
    ck_assert_int_eq(rows, 60);
    char *t = slide_text(f, 1);
    ck_assert_ptr_nonnull(strstr(t, "|M01|1,000.50|"));
    free(t);
    char name[64];
    snprintf(name, sizeof name, "ppt/slides/slide%d.xml", slides);
    char *s = part(f, name);
    /* sum of 1000.5 .. 1059.5 = 61800 */
    ck_assert_ptr_nonnull(strstr(s, "<a:t>Total</a:t>"));
    ck_assert_ptr_nonnull(strstr(s, "b=\"1\" dirty=\"0\"><a:solidFill><a:srgbClr val=\"222222\"/></a:solidFill></a:rPr><a:t>61,800.00</a:t>"));
    ck_assert_ptr_nonnull(strstr(s, "<a:pPr algn=\"r\">"));
    free(s);
}
END_TEST

static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*len);
    ck_assert_int_eq(fread(b, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    return b;
}

START_TEST(test_deterministic)
{
    const char *spec = "{\"folio\": 1, \"title\": \"Same\", \"date\": \"2024-01-02\", \"blocks\": ["
                       "{\"type\": \"heading\", \"text\": \"A\", \"level\": 1},"
                       "{\"type\": \"paragraph\", \"text\": \"b *c* `d`\"}]}";
    char a[512];
    snprintf(a, sizeof a, "%s", render("det1", spec));
    const char *b = render("det2", spec);
    long la, lb;
    unsigned char *da = slurp(a, &la), *db = slurp(b, &lb);
    ck_assert_int_eq(la, lb);
    ck_assert(memcmp(da, db, (size_t)la) == 0);
    free(da);
    free(db);
}
END_TEST

/* A theme logo that cannot be read at render time (it vanished after the
 * theme loaded): FO_ERR_INPUT naming the path. */
START_TEST(test_missing_logo)
{
    char spec[512], out[512];
    snprintf(spec, sizeof spec, "%s/logo.json", dir);
    snprintf(out, sizeof out, "%s/logo.pptx", dir);
    write_file(spec, "{\"folio\": 1, \"title\": \"T\", \"blocks\": []}");
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    ck_assert_int_eq(fo_spec_load(spec, &doc, &d), FO_OK);
    snprintf(doc->theme.logo, sizeof doc->theme.logo, "%s/gone-logo.png", dir);
    fo_outset *o = fo_outset_new(0);
    ck_assert_int_eq(fo_pptx_render(doc, out, o, NULL, &d), FO_ERR_INPUT);
    ck_assert_uint_ge(d.n, 1);
    ck_assert_ptr_nonnull(strstr(d.items[d.n - 1].message, "gone-logo.png"));
    fo_outset_free(o);
    fo_doc_free(doc);
    fo_diags_free(&d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pptx");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_title_slide);
    tcase_add_test(tc, test_headings_bullets);
    tcase_add_test(tc, test_long_list_continues);
    tcase_add_test(tc, test_table_split);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_missing_logo);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
