/* t_png.c — unit tests of the PNG renderer: pngcheck passes, same bytes twice,
 * --scale 2 doubles the size, reference images (ImageMagick compare with a
 * tolerance), one file per chart named OUT-1.png ..., no chart -> input error.
 *
 * Run from the repository root (make unit does). FOLIO_UPDATE_REFS=1 rewrites
 * the reference images under tests/render/png/ref/ — look at them before
 * committing. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/render.h"
#include "tests/render/chart/fixture.h"

#define REF_DIR "tests/render/png/ref/"

static char tmpdir[64];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/t_png.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) { /* best effort */ }
}

static void write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A 3-series column chart of 12 months, like the benchmark's. */
static void month_chart(fx_chart *f, fo_chart_kind kind)
{
    static const char *const cats[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    double v[36];
    for (int i = 0; i < 12; i++)
        for (int s = 0; s < 3; s++) v[i * 3 + s] = 40 + 10 * s + 30 * sin(i * 0.6 + s);
    fx_init(f, kind, 12, 3, cats, v, "#,##0");
    f->chart.title = "Revenue by month";
    f->chart.y_title = "EUR";
}

static unsigned char *render(const fo_chart *c, const fo_theme *t, double scale, size_t *len)
{
    unsigned char *png = NULL;
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_chart_render_png(c, t, scale, &png, len, &d), FO_OK);
    fo_diags_free(&d);
    ck_assert_ptr_nonnull(png);
    return png;
}

START_TEST(valid_deterministic_scaled)
{
    fx_chart f;
    month_chart(&f, FO_CHART_COLUMN);
    size_t n1, n2, n3;
    unsigned char *a = render(&f.chart, &f.theme, 1, &n1);
    unsigned char *b = render(&f.chart, &f.theme, 1, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_mem_eq(a, b, n1);
    ck_assert_mem_eq(a + 1, "PNG", 3);
    ck_assert_uint_eq(be32(a + 16), 800);
    ck_assert_uint_eq(be32(a + 20), 500);
    unsigned char *c = render(&f.chart, &f.theme, 2, &n3);
    ck_assert_uint_eq(be32(c + 16), 1600);
    ck_assert_uint_eq(be32(c + 20), 1000);
    char path[128], cmd[256];
    snprintf(path, sizeof path, "%s/a.png", tmpdir);
    write_file(path, a, n1);
    snprintf(cmd, sizeof cmd, "pngcheck -q %s", path);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/c.png", tmpdir);
    write_file(path, c, n3);
    snprintf(cmd, sizeof cmd, "pngcheck -q %s", path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert(n1 < 40000); /* a flat-color chart compresses well */
    fo_free(a);
    fo_free(b);
    fo_free(c);
    fx_free(&f);
}
END_TEST

START_TEST(chart_size_from_block)
{
    fx_chart f;
    month_chart(&f, FO_CHART_LINE);
    f.chart.width = 300;
    f.chart.height = 200;
    size_t n;
    unsigned char *a = render(&f.chart, &f.theme, 1, &n);
    ck_assert_uint_eq(be32(a + 16), 300);
    ck_assert_uint_eq(be32(a + 20), 200);
    fo_free(a);
    fx_free(&f);
}
END_TEST

/* Each kind against its reference image: at most 0.5% of pixels may differ
 * by more than 5% (font rasterizer versions differ slightly). */
START_TEST(reference_images)
{
    static const char *const names[] = {"bar", "column", "line", "area", "pie", "doughnut", "scatter"};
    bool update = getenv("FOLIO_UPDATE_REFS") != NULL;
    for (int kind = FO_CHART_BAR; kind <= FO_CHART_SCATTER; kind++) {
        fx_chart f;
        month_chart(&f, (fo_chart_kind)kind);
        f.chart.width = 400;
        f.chart.height = 250;
        size_t n;
        unsigned char *png = render(&f.chart, &f.theme, 1, &n);
        char got[128], ref[128], cmd[512];
        snprintf(got, sizeof got, "%s/%s.png", tmpdir, names[kind]);
        snprintf(ref, sizeof ref, REF_DIR "%s.png", names[kind]);
        write_file(update ? ref : got, png, n);
        if (!update) {
            snprintf(cmd, sizeof cmd,
                     "d=$(compare -metric AE -fuzz 5%% %s %s null: 2>&1); "
                     "[ \"${d%%%%.*}\" -le 500 ] || { echo \"%s: $d pixels differ\"; exit 1; }",
                     got, ref, names[kind]);
            ck_assert_msg(system(cmd) == 0, "%s differs from %s", got, ref);
        }
        fo_free(png);
        fx_free(&f);
    }
}
END_TEST

/* ---- the renderer: naming and staging ---------------------------------------------- */
static void doc_with(fo_doc *doc, fo_block *blocks, size_t n, fx_chart *f)
{
    memset(doc, 0, sizeof *doc);
    doc->theme = f->theme;
    doc->blocks = blocks;
    doc->nblocks = n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(one_file_per_chart)
{
    fx_chart f;
    month_chart(&f, FO_CHART_COLUMN);
    fo_block blocks[4];
    memset(blocks, 0, sizeof blocks);
    blocks[0].kind = FO_BLOCK_CHART;
    blocks[0].u.chart = f.chart;
    blocks[1].kind = FO_BLOCK_PARAGRAPH;
    blocks[1].u.paragraph.text = "between";
    blocks[2].kind = FO_BLOCK_CHART;
    blocks[2].u.chart = f.chart;
    blocks[2].u.chart.kind = FO_CHART_PIE;
    fo_doc doc;
    char dest[128], p[160];
    fo_render_opts opts = {0};
    fo_diags d;
    fo_diags_init(&d);

    /* two charts -> OUT-1.png, OUT-2.png, in block order */
    doc_with(&doc, blocks, 3, &f);
    snprintf(dest, sizeof dest, "%s/out.png", tmpdir);
    const char *outs[] = {dest};
    ck_assert_int_eq(fo_render(&doc, outs, 1, &opts, NULL, &d), FO_OK);
    snprintf(p, sizeof p, "%s/out-1.png", tmpdir);
    ck_assert(exists(p));
    snprintf(p, sizeof p, "%s/out-2.png", tmpdir);
    ck_assert(exists(p));
    ck_assert(!exists(dest));

    /* one chart -> OUT.png at scale 2 */
    doc_with(&doc, blocks, 2, &f);
    snprintf(dest, sizeof dest, "%s/one.png", tmpdir);
    opts.scale = 2;
    ck_assert_int_eq(fo_render(&doc, outs, 1, &opts, NULL, &d), FO_OK);
    ck_assert(exists(dest));
    FILE *fp = fopen(dest, "rb");
    unsigned char hdr[24];
    ck_assert_uint_eq(fread(hdr, 1, 24, fp), 24);
    fclose(fp);
    ck_assert_uint_eq(be32(hdr + 16), 1600);

    /* no chart -> input error, nothing written */
    doc_with(&doc, blocks + 1, 1, &f);
    snprintf(dest, sizeof dest, "%s/none.png", tmpdir);
    ck_assert_int_eq(fo_render(&doc, outs, 1, &opts, NULL, &d), FO_ERR_INPUT);
    ck_assert(!exists(dest));
    ck_assert_uint_ge(d.n, 1);
    ck_assert(strstr(d.items[d.n - 1].message, "no chart block to render as PNG") != NULL);
    fo_diags_free(&d);
    fx_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("png");
    TCase *tc = tcase_create("png");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, valid_deterministic_scaled);
    tcase_add_test(tc, chart_size_from_block);
    tcase_add_test(tc, reference_images);
    tcase_add_test(tc, one_file_per_chart);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
