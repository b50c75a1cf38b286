/* t_png.c — unit tests of the PNG renderer: pngcheck passes, same bytes twice,
 * --scale 2 doubles the size, reference images (ImageMagick compare with a
 * tolerance), CJK labels drawn from the fallback font, one file per chart
 * named OUT-1.png ..., no chart -> input error, the encoder's bytes pinned.
 *
 * Run from the repository root (make unit does). FOLIO_UPDATE_REFS=1 rewrites
 * the reference images under tests/render/png/ref/ — look at them before
 * committing. */
#include <cairo.h>
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/sha256.h"
#include "render/render.h"
#include "render/core/text.h"
#include "render/png/png_encode.h"
#include "tests/render/chart/fixture.h"
#include "tests/check_run.h"

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
    if (system(cmd) != 0) { /* best effort */
    }
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
    f->chart.title = fo_arena_strdup(f->arena, "Revenue by month");
    f->chart.y_title = fo_arena_strdup(f->arena, "EUR");
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

/* Every allocation failing in turn: FO_ERR_NOMEM and nothing returned, for a
 * palette image (column) and an RGB one (line: the buffer grows). */
START_TEST(out_of_memory)
{
    for (int kind = FO_CHART_COLUMN; kind <= FO_CHART_LINE; kind++) {
        fx_chart f;
        month_chart(&f, (fo_chart_kind)kind);
        bool ok = false;
        for (unsigned long k = 1; k < 2000 && !ok; k++) {
            unsigned char *png = (unsigned char *)1;
            size_t len = 1;
            fo_alloc_fail_after(k);
            fo_status st = fo_chart_render_png(&f.chart, &f.theme, 1, &png, &len, NULL);
            fo_alloc_fail_after(0);
            if (st == FO_OK) {
                ok = true;
                fo_free(png);
                continue;
            }
            ck_assert_int_eq(st, FO_ERR_NOMEM);
            ck_assert_ptr_null(png);
            ck_assert_uint_eq(len, 0);
        }
        ck_assert(ok);
        fx_free(&f);
    }
}
END_TEST

/* ---- CJK labels: drawn from the Droid Sans Fallback face ------------------------------ */
typedef struct {
    const unsigned char *p;
    size_t n, off;
} mem_reader;

static cairo_status_t read_png_mem(void *closure, unsigned char *data, unsigned int length)
{
    mem_reader *r = closure;
    if (r->off + length > r->n) return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p + r->off, length);
    r->off += length;
    return CAIRO_STATUS_SUCCESS;
}

/* Pixels inside the bounding box of category label 0 that are not the
 * background, in a 4-category column chart whose labels are all label. */
static int label_ink(const char *label)
{
    const char *cats[] = {label, label, label, label};
    const double v[] = {10, 20, 30, 40};
    fx_chart f;
    fx_init(&f, FO_CHART_COLUMN, 4, 1, cats, v, NULL);
    fo_dl *dl = NULL;
    ck_assert_int_eq(fo_chart_layout(&f.chart, &f.theme, 0, 0, &dl, NULL), FO_OK);
    const fo_dl_op *lab = NULL;
    for (size_t i = 0; i < fo_dl_count(dl) && !lab; i++) {
        const fo_dl_op *op = fo_dl_op_at(dl, i);
        if (op->role == FO_ROLE_CATEGORY_LABEL && op->point == 0) lab = op;
    }
    ck_assert_ptr_nonnull(lab);
    ck_assert_str_eq(lab->text.utf8, label);
    size_t n;
    unsigned char *png = render(&f.chart, &f.theme, 1, &n);
    mem_reader r = {png, n, 0};
    cairo_surface_t *img = cairo_image_surface_create_from_png_stream(read_png_mem, &r);
    ck_assert_int_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    const unsigned char *px = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img), ink = 0;
    uint32_t bg = fo_dl_background(dl) & 0xFFFFFF;
    for (int y = (int)floor(lab->y0); y < (int)ceil(lab->y1); y++)
        for (int x = (int)floor(lab->x0); x < (int)ceil(lab->x1); x++) {
            uint32_t c;
            memcpy(&c, px + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
            ink += (c & 0xFFFFFF) != bg;
        }
    cairo_surface_destroy(img);
    fo_free(png);
    fo_dl_free(dl);
    fx_free(&f);
    return ink;
}

START_TEST(cjk_labels_use_fallback_font)
{
    /* the glyphs of 日本語 come from Droid Sans Fallback, not the theme font */
    const char *jp = "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E";
    fx_chart f;
    month_chart(&f, FO_CHART_COLUMN);
    fo_glyph g[3];
    ck_assert_uint_eq(fo_text_glyphs(f.theme.body.regular, 12, jp, strlen(jp), g, 3, NULL), 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(g[i].font, FO_TEXT_FALLBACK_CJK);
        ck_assert_uint_ne(g[i].index, 0);
    }
    fx_free(&f);
    /* and they are drawn: ink where the label is; a character no font has
     * (U+10FFFD) leaves the same box blank */
    int ink = label_ink(jp);
    ck_assert_msg(ink > 40, "only %d pixels of 日本語 drawn", ink);
    ck_assert_int_eq(label_ink("\xF4\x8F\xBF\xBD\xF4\x8F\xBF\xBD\xF4\x8F\xBF\xBD"), 0);
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
    blocks[1].u.paragraph.text = fo_arena_strdup(f.arena, "between");
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

/* The run-length deflate stream (rle.c) inflates, with zlib, to exactly its
 * input: one byte; runs around the 3-byte minimum and the 258-byte longest
 * match (259 and 260 must split without a short tail); runs of every byte
 * value; pseudo-random bytes (every literal, long codes); all of it
 * together; repeats of one pixel's 1 or 3 bytes (fo_rle_repeat) after
 * bytes put with and without a search for runs (fo_rle_put, fo_rle_lits). */
static void rle_roundtrip(const unsigned char *src, size_t n)
{
    fo_buf b = {0};
    fo_buf_append(&b, "xy", 2); /* appends after what is there */
    ck_assert_int_eq(fo_png_zlib_rle(src, n, &b), FO_OK);
    ck_assert(!b.failed);
    ck_assert_mem_eq(b.data, "xy", 2);
    uLongf got = (uLongf)n;
    unsigned char *back = fo_malloc(n + 1);
    ck_assert_int_eq(uncompress(back, &got, (const unsigned char *)b.data + 2, (uLong)(b.len - 2)), Z_OK);
    ck_assert_uint_eq(got, n);
    ck_assert_mem_eq(back, src, n);
    fo_free(back);
    fo_buf_free(&b);
}

/* Finishes r (and frees it); its zlib stream must inflate to want[0..n). */
static void finishes_inflating_to(fo_rle *r, const unsigned char *want, size_t n)
{
    fo_buf b = {0};
    ck_assert_int_eq(fo_rle_finish(r, &b), FO_OK);
    fo_rle_free(r);
    uLongf got = (uLongf)n;
    unsigned char *back = fo_malloc(n);
    ck_assert_int_eq(uncompress(back, &got, (const unsigned char *)b.data, (uLong)b.len), Z_OK);
    ck_assert_uint_eq(got, n);
    ck_assert_mem_eq(back, want, n);
    fo_free(back);
    fo_buf_free(&b);
}

START_TEST(rle_stream_inflates_to_its_input)
{
    enum { N = 300000 };
    unsigned char *src = fo_malloc(N), *p = src;
    ck_assert_ptr_nonnull(src);
    rle_roundtrip((const unsigned char *)"\x02", 1);
    rle_roundtrip((const unsigned char *)"\0\0\0\0", 4);
    for (int len = 1; len <= 600; len++) { /* byte, run of len, other byte */
        p[0] = 7;
        memset(p + 1, len % 3 ? 0 : 0xFF, (size_t)len);
        p[len + 1] = 9;
        rle_roundtrip(p, (size_t)len + 2);
        p += len + 2;
    }
    for (int v = 0; v < 256; v++) {
        memset(p, v, 40 + v);
        p += 40 + v;
    }
    uint32_t x = 12345;
    while (p < src + N) {
        x = x * 1103515245u + 12345u;
        *p++ = (unsigned char)(x >> 16);
    }
    rle_roundtrip(p - 50000, 50000);
    rle_roundtrip(src, N);

    /* repeats of a 3-byte pixel (fo_rle_repeat), long enough to be split */
    static const size_t times[] = {1, 2, 86, 87, 20000};
    for (size_t t = 0; t < sizeof times / sizeof *times; t++) {
        fo_rle r;
        fo_rle_init(&r);
        unsigned char pat[3] = {0x10, 0xF0, (unsigned char)t}, *q = src;
        *q++ = 2;
        memcpy(q, pat, 3);
        q += 3;
        fo_rle_put(&r, 0, src, 4);
        fo_rle_repeat(&r, pat, 3, times[t]);
        for (size_t k = 0; k < times[t]; k++, q += 3) memcpy(q, pat, 3);
        fo_rle_put(&r, 5, (const unsigned char *)"\x07", 1); /* five zeros, then a byte */
        memset(q, 0, 5);
        q[5] = 7;
        q += 6;
        /* literals taken as they are, then runs of their last byte */
        fo_rle_lits(&r, 2, (const unsigned char *)"\x09\x09\x00", 3);
        memcpy(q, "\0\0\x09\x09\x00", 5);
        q += 5;
        fo_rle_repeat(&r, (const unsigned char *)"\x00", 1, times[t]);
        memset(q, 0, times[t]);
        q += times[t];
        fo_rle_lits(&r, 0, (const unsigned char *)"\x05", 1);
        fo_rle_repeat(&r, (const unsigned char *)"\x05", 1, times[t]);
        memset(q, 5, times[t] + 1);
        q += times[t] + 1;
        finishes_inflating_to(&r, src, (size_t)(q - src));
    }
    fo_free(src);
}
END_TEST

/* Gaps of zeros and literals through fo_rle_lits, as encode.c feeds a
 * chart's changed pixels: gaps of 0..9 and up to past 2^16 (fo_rle_lits
 * takes the common case, four or more zeros after a byte that is not zero,
 * in one go, the rest piece by piece), literals ending or not in a zero, up
 * to past PUT_MAX, repeats in between; the stream inflates to the same
 * bytes (its Adler-32 checked by zlib). */
START_TEST(rle_gaps_and_literals_inflate)
{
    enum { N = 2000000 };
    unsigned char *want = fo_malloc(N), lit[6000];
    ck_assert_ptr_nonnull(want);
    fo_rle r;
    fo_rle_init(&r);
    size_t n = 0;
    uint32_t x = 777;
    for (int i = 0; i < 3000 && n < N - 80000 - 6000; i++) {
        x = x * 1103515245u + 12345u;
        size_t gap = (x >> 8) % 10;
        if (i % 97 == 0) gap = 60000 + (x >> 12) % 10000; /* past 2^16 now and then */
        else if (i % 7 == 0) gap = 100 + (x >> 12) % 3000;
        size_t nl = 1 + (x >> 20) % 12;
        if (i % 131 == 0) nl = 4000 + (x >> 12) % 1500; /* past PUT_MAX */
        for (size_t k = 0; k < nl; k++) {
            x = x * 1103515245u + 12345u;
            lit[k] = (unsigned char)((x >> 16) % 5 ? x >> 16 : 0);
        }
        if (i % 5 == 0) lit[nl - 1] = 0; /* the next gap after a zero */
        fo_rle_lits(&r, gap, lit, nl);
        memset(want + n, 0, gap);
        memcpy(want + n + gap, lit, nl);
        n += gap + nl;
        if (i % 11 == 0 && lit[nl - 1]) { /* a repeat of the last byte */
            fo_rle_repeat(&r, lit + nl - 1, 1, 5);
            memset(want + n, lit[nl - 1], 5);
            n += 5;
        }
    }
    finishes_inflating_to(&r, want, n);
    fo_free(want);
}
END_TEST

/* The charts of one render share one pixel buffer (png.c, pixel_store): a
 * small line chart drawn after a larger pie of other colors is the same
 * file as the same line chart drawn first, into a fresh buffer. */
START_TEST(charts_of_one_render_leave_nothing_behind)
{
    fx_chart f;
    month_chart(&f, FO_CHART_LINE);
    f.chart.width = 300;
    f.chart.height = 200;
    fo_block blocks[3];
    memset(blocks, 0, sizeof blocks);
    for (int i = 0; i < 3; i++) {
        blocks[i].kind = FO_BLOCK_CHART;
        blocks[i].u.chart = f.chart;
    }
    blocks[1].u.chart.kind = FO_CHART_PIE;
    blocks[1].u.chart.width = 900;
    blocks[1].u.chart.height = 700;
    fo_doc doc;
    doc_with(&doc, blocks, 3, &f);
    char dest[128], p1[160], p3[160];
    snprintf(dest, sizeof dest, "%s/out.png", tmpdir);
    const char *outs[] = {dest};
    fo_render_opts opts = {0};
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_render(&doc, outs, 1, &opts, NULL, &d), FO_OK);
    snprintf(p1, sizeof p1, "%s/out-1.png", tmpdir);
    snprintf(p3, sizeof p3, "%s/out-3.png", tmpdir);
    size_t n1, n3;
    char *a = fo_file_read(p1, 0, &n1), *b = fo_file_read(p3, 0, &n3);
    ck_assert(a && b);
    ck_assert_uint_gt(n1, 1000);
    ck_assert_uint_eq(n1, n3);
    ck_assert_mem_eq(a, b, n1);
    fo_free(a);
    fo_free(b);
    fo_diags_free(&d);
    fx_free(&f);
}
END_TEST

/* fo_png_encode read back by an independent decoder (cairo's PNG reader,
 * libpng): 300 pseudo-random images that exercise every path of the encoder
 * (the palette and the RGB form, rows like the one above, runs of one
 * byte, runs of one repeated pixel difference as in a gradient, noise, and
 * widths from 1 px) decode to exactly the pixels encoded. mem_reader and
 * read_png_mem are the CJK test's. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

START_TEST(encoded_pixels_decode_exactly)
{
    for (int img = 0; img < 300; img++) {
        int w = 1 + (int)(rnd() % (img % 3 ? 300 : 9)), h = 1 + (int)(rnd() % 40);
        int colors = img % 2 ? 1 + (int)(rnd() % 200) : 0; /* 0: a gradient and noise (RGB) */
        int stride = w * 4;
        uint32_t *px = fo_calloc((size_t)w * (size_t)h, 4), pal[256];
        for (int k = 0; k < 256; k++) pal[k] = rnd() & 0xFFFFFF;
        for (int y = 0; y < h; y++) {
            int mode = (int)(rnd() % 4); /* 0: as the row above, 1: runs, 2: gradient, 3: noise */
            uint32_t c = pal[rnd() % 256], step = rnd() & 0x030303;
            for (int x = 0; x < w; x++) {
                uint32_t v;
                if (mode == 0 && y > 0) v = px[(y - 1) * w + x];
                else if (mode == 1) v = (rnd() % 8 == 0) ? (c = pal[rnd() % 256]) : c;
                else if (mode == 2) v = (c += step) & 0xFFFFFF;
                else v = rnd() & 0xFFFFFF;
                if (colors) v = pal[v % (uint32_t)colors];
                px[y * w + x] = 0xFF000000u | (v & 0xFFFFFF);
            }
        }
        fo_buf out = {0};
        ck_assert_int_eq(fo_png_encode((const unsigned char *)px, w, h, stride, false, 0, &out), FO_OK);
        mem_reader m = {(const unsigned char *)out.data, out.len, 0};
        cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png_mem, &m);
        ck_assert_msg(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, "image %d (%dx%d) unreadable", img, w,
                      h);
        ck_assert_int_eq(cairo_image_surface_get_width(s), w);
        ck_assert_int_eq(cairo_image_surface_get_height(s), h);
        cairo_surface_flush(s);
        const unsigned char *got = cairo_image_surface_get_data(s);
        int gs = cairo_image_surface_get_stride(s);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint32_t a = px[y * w + x] & 0xFFFFFF,
                         b = ((const uint32_t *)(const void *)(got + y * gs))[x] & 0xFFFFFF;
                ck_assert_msg(a == b, "image %d (%dx%d, %d colours) pixel %d,%d: %06x decoded as %06x", img,
                              w, h, colors, x, y, (unsigned)a, (unsigned)b);
            }
        cairo_surface_destroy(s);
        fo_buf_free(&out);
        fo_free(px);
    }
}
END_TEST

/* fo_png_encode's bytes pinned (issue 39): the speed work on the encoder
 * must leave every file as it was, so these images' files hash to what the
 * encoder of ca061d8 wrote (and what its AVX2 and plain paths write alike,
 * checked when the digest was taken). A change of the files on purpose
 * changes the digest here, with the reason in its commit. */
/* The SHA-256 of fo_png_encode's files for 400 pseudo-random opaque
 * images (rows like the one above, runs, gradients, noise, sparse changes,
 * repeats of one difference; palette and RGB; widths 1..1200, padded
 * strides, the unused top byte varying) into hex. */
static void pinned_images_digest(char hex[65])
{
    uint32_t st = 4242;
#define PIN_RND() (st = st * 1103515245u + 12345u, st >> 8)
    fo_sha256 sum;
    fo_sha256_init(&sum);
    for (int img = 0; img < 400; img++) {
        int w = 1 + (int)(PIN_RND() % (img % 4 == 0 ? 9 : img % 4 == 1 ? 80 : img % 4 == 2 ? 300 : 1200));
        int h = 1 + (int)(PIN_RND() % 40), colors = img % 3 == 0 ? 1 + (int)(PIN_RND() % 200) : 0;
        int sw = w + (int)(PIN_RND() % 3); /* the stride, in pixels */
        uint32_t *px = fo_calloc((size_t)sw * (size_t)h, 4), pal[256];
        for (int k = 0; k < 256; k++) pal[k] = PIN_RND() & 0xFFFFFF;
        for (int y = 0; y < h; y++) {
            int mode = (int)(PIN_RND() % 6);
            uint32_t c = pal[PIN_RND() % 256], step = PIN_RND() & 0x030303;
            for (int x = 0; x < w; x++) {
                uint32_t v, above = y ? px[(y - 1) * sw + x] : 0;
                if (mode == 0 && y > 0) v = above;
                else if (mode == 1) v = PIN_RND() % 8 == 0 ? (c = pal[PIN_RND() % 256]) : c;
                else if (mode == 2) v = (c += step) & 0xFFFFFF;
                else if (mode == 3) v = PIN_RND() & 0xFFFFFF;
                else if (mode == 4) v = y > 0 && PIN_RND() % 5 ? above : pal[PIN_RND() % 4];
                else v = y > 0 && PIN_RND() % 3 ? above + (PIN_RND() % 2 ? 0x010101 : 0) : 0;
                if (colors) v = pal[v % (uint32_t)colors];
                uint32_t top = img % 5 == 0 && PIN_RND() % 7 == 0 ? 0 : 0xFF000000u;
                px[y * sw + x] = top | (v & 0xFFFFFF);
            }
        }
        fo_buf out = {0};
        ck_assert_int_eq(fo_png_encode((const unsigned char *)px, w, h, sw * 4, false, 0, &out), FO_OK);
        fo_sha256_update(&sum, out.data, out.len);
        fo_buf_free(&out);
        fo_free(px);
    }
#undef PIN_RND
    unsigned char d[32];
    fo_sha256_final(&sum, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

START_TEST(encoded_bytes_are_pinned)
{
    char hex[65];
    pinned_images_digest(hex);
    ck_assert_str_eq(hex, "8e6ad587815d706c384648e589083680f95d5091f9d6f6451bb0f26a7c28c1e7");
}
END_TEST

/* Darkness of the pixels px[0..n): how much ink a picture has. */
/* The month chart of kind in one of three variants: plain (0), stacked
 * (1), or with values below zero too and a fractional width (2). */
static void variant_chart(fx_chart *f, fo_chart_kind kind, int variant)
{
    month_chart(f, kind);
    f->chart.stacked = variant == 1;
    if (variant == 2)
        for (size_t i = 0; i < 12; i++) f->ds.cells[i * 4 + 2].num = -20.0 + 7.3 * (double)i;
    f->chart.width = variant == 2 ? 613 : 0;
}

/* How two renders of n pixels (0xRRGGBB) differ: the pixels that differ in
 * any channel into *differ, those off by more than 32 into *far; returns
 * the largest difference in a channel. */
static int pixel_diff(const uint32_t *a, const uint32_t *b, size_t n, size_t *differ, size_t *far)
{
    int most = 0;
    *differ = *far = 0;
    for (size_t i = 0; i < n; i++) {
        int d = 0;
        for (int sh = 0; sh <= 16; sh += 8) {
            int c = abs((int)((a[i] >> sh) & 0xFF) - (int)((b[i] >> sh) & 0xFF));
            if (c > d) d = c;
        }
        *differ += d > 0;
        *far += d > 32;
        if (d > most) most = d;
    }
    return most;
}

static double ink(const uint32_t *px, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += 765 - ((px[i] >> 16) & 0xFF) - ((px[i] >> 8) & 0xFF) - (px[i] & 0xFF);
    return sum;
}

/* Series' lines and markers drawn by png.c's own rasterizer against cairo
 * drawing them (issue 39): the same picture but for antialiased edges. Every
 * kind, at scale 1 and 2 (a 2-pixel scale keeps it at its double size), of
 * whole data and of data with gaps (a lone point among them) and a flat
 * series:
 * no pixel off by more than 100 of 255 in a channel (the corners of butt
 * ends), few by more than 32, the same ink within 3%; line, area, scatter
 * and the pies' gaps do use it (some pixel differs), bar and column draw
 * nothing by it (every pixel the same). */
START_TEST(own_lines_and_markers_match_cairo)
{
    for (int kind = FO_CHART_BAR; kind <= FO_CHART_SCATTER; kind++)
        for (int odd = 0; odd < 4; odd++) {
            double scale = odd % 2 ? 2 : 1;
            fx_chart f;
            month_chart(&f, (fo_chart_kind)kind);
            if (odd >= 2) /* gaps (a lone point among them), a flat series */
                for (size_t i = 0; i < 12; i++) {
                    if (i == 2 || i == 4 || i == 5 || i == 11) f.ds.cells[i * 4 + 1].kind = FO_VAL_NULL;
                    f.ds.cells[i * 4 + 3].num = 50;
                }
            uint32_t *a, *b;
            int wa, ha, wb, hb;
            ck_assert_int_eq(fo_png_chart_pixels(&f.chart, &f.theme, scale,
                                                 FO_PNG_OWN_LINES | FO_PNG_OWN_AREAS, &a, &wa, &ha, NULL),
                             FO_OK);
            ck_assert_int_eq(
                fo_png_chart_pixels(&f.chart, &f.theme, scale, FO_PNG_OWN_AREAS, &b, &wb, &hb, NULL), FO_OK);
            ck_assert_int_eq(wa, wb);
            ck_assert_int_eq(ha, hb);
            ck_assert_int_eq(wa, (int)(800 * scale));
            size_t n = (size_t)wa * (size_t)ha, differ, far;
            int most = pixel_diff(a, b, n, &differ, &far);
            bool own = kind != FO_CHART_BAR && kind != FO_CHART_COLUMN; /* pies: the gaps */
            ck_assert_msg(own ? differ > 0 : differ == 0, "kind %d odd %d: %zu pixels differ", kind, odd,
                          differ);
            ck_assert_msg(most <= 100, "kind %d odd %d: a pixel off by %d", kind, odd, most);
            ck_assert_msg(far <= differ / 100 + 16, "kind %d odd %d: %zu of %zu pixels off by > 32", kind,
                          odd, far, differ);
            double ia = ink(a, n), ib = ink(b, n);
            ck_assert_msg(fabs(ia / ib - 1) < 0.03, "kind %d odd %d: ink %.0f vs %.0f", kind, odd, ia, ib);
            fo_free(a);
            fo_free(b);
            fx_free(&f);
        }
}
END_TEST

/* cb_begin sets every pixel to 0xFF and the background instead of
 * cairo_paint (issue 39): that is the value cairo_paint writes on an RGB24
 * surface (its own compositing keeps that top byte, which the encoder's
 * compares see), and a chart's corner has the theme's background at every
 * scale, a fractional size included. */
START_TEST(background_is_what_cairo_paint_writes)
{
    static const fo_rgb colors[] = {0xFFFFFF, 0x123456, 0x000000, 0xFE0180};
    for (size_t i = 0; i < sizeof colors / sizeof *colors; i++) {
        fo_rgb c = colors[i];
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 3, 2);
        cairo_t *cr = cairo_create(s);
        cairo_set_source_rgba(cr, ((c >> 16) & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0, (c & 0xFF) / 255.0,
                              1);
        cairo_paint(cr);
        cairo_surface_flush(s);
        uint32_t v;
        memcpy(&v, cairo_image_surface_get_data(s), 4);
        ck_assert_uint_eq(v, 0xFF000000u | c);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        for (double scale = 1; scale <= 2; scale += 0.75) {
            fx_chart f;
            variant_chart(&f, FO_CHART_AREA, 2);
            f.theme.background = c;
            uint32_t *px;
            int w, h;
            ck_assert_int_eq(
                fo_png_chart_pixels(&f.chart, &f.theme, scale, FO_PNG_OWN_ALL, &px, &w, &h, NULL), FO_OK);
            ck_assert_uint_eq(px[0], c);
            ck_assert_uint_eq(px[(size_t)w * (size_t)h - 1], c);
            fo_free(px);
            fx_free(&f);
        }
    }
}
END_TEST

/* Translucent fills (areas) blended by png.c through cairo's coverage mask
 * give the very pixels cairo_fill gives (issue 39): area charts plain and
 * stacked, with negative values, at scale 1 and 2, and every other kind
 * (nothing translucent: trivially the same). One mask buffer serves every
 * fill of a render: the second and third series find it clear or differ. */
START_TEST(translucent_fill_is_cairo_fill)
{
    for (int kind = FO_CHART_BAR; kind <= FO_CHART_SCATTER; kind++)
        for (int variant = 0; variant < 3; variant++)
            for (double scale = 1; scale <= 2; scale++) {
                fx_chart f;
                variant_chart(&f, (fo_chart_kind)kind, variant);
                uint32_t *a, *b;
                int wa, ha, wb, hb;
                ck_assert_int_eq(fo_png_chart_pixels(&f.chart, &f.theme, scale,
                                                     FO_PNG_OWN_LINES | FO_PNG_OWN_AREAS, &a, &wa, &ha, NULL),
                                 FO_OK);
                ck_assert_int_eq(
                    fo_png_chart_pixels(&f.chart, &f.theme, scale, FO_PNG_OWN_LINES, &b, &wb, &hb, NULL),
                    FO_OK);
                ck_assert_int_eq(wa, wb);
                ck_assert_int_eq(ha, hb);
                /* the first pixel that differs, then one assertion: check's
                   ck_assert marks each call through a pipe, a write(2) a pixel */
                size_t i = 0, n = (size_t)wa * (size_t)ha;
                while (i < n && a[i] == b[i]) i++;
                ck_assert_msg(i == n, "kind %d variant %d scale %g: pixel %zu,%zu is %06x, cairo's %06x",
                              kind, variant, scale, i % (size_t)wa, i / (size_t)wa,
                              i < n ? (unsigned)a[i] : 0u, i < n ? (unsigned)b[i] : 0u);
                fo_free(a);
                fo_free(b);
                fx_free(&f);
            }
}
END_TEST

/* Solid fills (pie sectors, areas) rasterized by png.c with exact-area
 * coverage against cairo's coverage (issue 39): the same picture but for
 * antialiased edges. Every kind, plain, stacked, below zero with a
 * fractional size at scale 1.5, at scale 1, 1.5 and 2: no pixel off by more than 48 of
 * 255 in a channel, at most 1% of the differing ones (and 16) by more than
 * 32, the same ink within 0.5%. Pie, doughnut and area do use it (some
 * pixel of theirs differs: cairo's coverage of straight edges is close to
 * exact, of flattened arcs less so); every other kind draws nothing by it
 * (every pixel the same). T_PNG_FILL_STATS=1 prints the figures. */
START_TEST(own_fills_match_cairo)
{
    for (int kind = FO_CHART_BAR; kind <= FO_CHART_SCATTER; kind++) {
        bool own = kind == FO_CHART_PIE || kind == FO_CHART_DOUGHNUT || kind == FO_CHART_AREA;
        size_t differ_kind = 0;
        for (int variant = 0; variant < 3; variant++)
            for (int sc = 0; sc < 3; sc++) {
                double scale = 1 + sc * 0.5;
                fx_chart f;
                variant_chart(&f, (fo_chart_kind)kind, variant);
                uint32_t *a, *b;
                int wa, ha, wb, hb;
                ck_assert_int_eq(
                    fo_png_chart_pixels(&f.chart, &f.theme, scale, FO_PNG_OWN_ALL, &a, &wa, &ha, NULL),
                    FO_OK);
                ck_assert_int_eq(fo_png_chart_pixels(&f.chart, &f.theme, scale,
                                                     FO_PNG_OWN_LINES | FO_PNG_OWN_AREAS, &b, &wb, &hb, NULL),
                                 FO_OK);
                ck_assert_int_eq(wa, wb);
                ck_assert_int_eq(ha, hb);
                size_t n = (size_t)wa * (size_t)ha, differ, far;
                int most = pixel_diff(a, b, n, &differ, &far);
                double ia = ink(a, n), ib = ink(b, n);
                if (getenv("T_PNG_FILL_STATS"))
                    fprintf(stderr, "kind %d variant %d scale %g: %zu differ, %zu > 32, most %d, ink %.5f\n",
                            kind, variant, scale, differ, far, most, ia / ib);
                ck_assert_msg(own || differ == 0, "kind %d variant %d scale %g: %zu pixels differ", kind,
                              variant, scale, differ);
                ck_assert_msg(most <= 48, "kind %d variant %d scale %g: a pixel off by %d", kind, variant,
                              scale, most);
                ck_assert_msg(far <= differ / 100 + 16,
                              "kind %d variant %d scale %g: %zu of %zu pixels off by > 32", kind, variant,
                              scale, far, differ);
                ck_assert_msg(fabs(ia / ib - 1) < 0.005, "kind %d variant %d scale %g: ink %.0f vs %.0f",
                              kind, variant, scale, ia, ib);
                differ_kind += differ;
                fo_free(a);
                fo_free(b);
                fx_free(&f);
            }
        ck_assert_msg(!own || differ_kind > 0, "kind %d: no pixel differs", kind);
    }
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
    tcase_add_test(tc, cjk_labels_use_fallback_font);
    tcase_add_test(tc, out_of_memory);
    tcase_add_test(tc, rle_stream_inflates_to_its_input);
    tcase_add_test(tc, rle_gaps_and_literals_inflate);
    tcase_add_test(tc, one_file_per_chart);
    tcase_add_test(tc, charts_of_one_render_leave_nothing_behind);
    tcase_add_test(tc, encoded_pixels_decode_exactly);
    tcase_add_test(tc, encoded_bytes_are_pinned);
    tcase_add_test(tc, own_lines_and_markers_match_cairo);
    tcase_add_test(tc, background_is_what_cairo_paint_writes);
    tcase_add_test(tc, translucent_fill_is_cairo_fill);
    tcase_add_test(tc, own_fills_match_cairo);
    suite_add_tcase(s, tc);
    return fo_check_run(s);
}
