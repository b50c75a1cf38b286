/* t_pdf_fontfile.c — fo_pdf_load_ttf (render/pdf/fontfile.c) against
 * libharu's own HPDF_LoadTTFontFromFile: the same font definition (name,
 * embedding tag, header, metrics of every glyph, glyph offsets, character
 * map, table directory), the same bytes read back through the stream, and
 * for a file cut short at any of several lengths the same outcome (both
 * refuse it, or both load the same thing); a system font stays mapped for
 * the process, a font from elsewhere does not. A font that is not installed
 * is skipped. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpdf.h>
#include <hpdf_fontdef.h>

#include "render/pdf/pdf_int.h"
#include "tests/check_run.h"

static const char *const fonts[] = {
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
};
#define NFONTS (sizeof fonts / sizeof *fonts)

/* The definition path loads in a new document, through libharu's file
 * reader (theirs) or the mapping (ours); NULL when refused. */
static HPDF_FontDef load(HPDF_Doc pdf, const char *path, bool ours)
{
    const char *bad;
    const char *name = ours ? fo_pdf_load_ttf(pdf, path, false, &bad) : HPDF_LoadTTFontFromFile(pdf, path, HPDF_TRUE);
    HPDF_ResetError(pdf);
    return name ? HPDF_GetFontDef(pdf, name) : NULL;
}

static void same_def(HPDF_FontDef t, HPDF_FontDef o, const char *what)
{
    HPDF_TTFontDefAttr a = t->attr, b = o->attr;
    ck_assert_msg(strcmp(t->base_font, o->base_font) == 0, "%s: name", what);
    ck_assert_msg(strcmp(a->tag_name, b->tag_name) == 0, "%s: tag %s, %s", what, a->tag_name, b->tag_name);
    ck_assert_msg(memcmp(&a->header, &b->header, sizeof a->header) == 0, "%s: head", what);
    ck_assert_msg(t->ascent == o->ascent && t->descent == o->descent && t->cap_height == o->cap_height &&
                  t->x_height == o->x_height && t->missing_width == o->missing_width &&
                  memcmp(&t->font_bbox, &o->font_bbox, sizeof t->font_bbox) == 0, "%s: metrics", what);
    ck_assert_uint_eq(a->num_glyphs, b->num_glyphs);
    ck_assert_uint_eq(a->num_h_metric, b->num_h_metric);
    ck_assert_msg(memcmp(a->h_metric, b->h_metric, a->num_glyphs * sizeof *a->h_metric) == 0, "%s: hmtx", what);
    ck_assert_msg(memcmp(a->glyph_tbl.offsets, b->glyph_tbl.offsets,
                         (a->num_glyphs + 1u) * sizeof *a->glyph_tbl.offsets) == 0, "%s: loca", what);
    ck_assert_uint_eq(a->offset_tbl.num_tables, b->offset_tbl.num_tables);
    ck_assert_msg(memcmp(a->offset_tbl.table, b->offset_tbl.table,
                         a->offset_tbl.num_tables * sizeof *a->offset_tbl.table) == 0, "%s: tables", what);
    ck_assert_uint_eq(a->cmap.seg_count_x2, b->cmap.seg_count_x2);
    for (uint32_t u = 0; u <= 0xFFFF; u++)
        ck_assert_uint_eq(HPDF_TTFontDef_GetGlyphid(t, (HPDF_UINT16)u), HPDF_TTFontDef_GetGlyphid(o, (HPDF_UINT16)u));
    /* the glyph data as subset.c reads it: seek, then read */
    unsigned char x[512], y[512];
    HPDF_UINT nx = sizeof x, ny = sizeof y;
    HPDF_UINT at = a->glyph_tbl.base_offset;
    ck_assert_int_eq(HPDF_Stream_Seek(a->stream, (HPDF_INT)at, HPDF_SEEK_SET), HPDF_OK);
    ck_assert_int_eq(HPDF_Stream_Seek(b->stream, (HPDF_INT)at, HPDF_SEEK_SET), HPDF_OK);
    ck_assert_int_eq(HPDF_Stream_Read(a->stream, x, &nx), HPDF_Stream_Read(b->stream, y, &ny));
    ck_assert_uint_eq(nx, ny);
    ck_assert(memcmp(x, y, nx) == 0);
}

START_TEST(same_definition_as_libharu)
{
    const char *path = fonts[_i];
    if (access(path, R_OK) != 0) { printf("skip: %s not installed\n", path); return; }
    HPDF_Doc a = HPDF_New(NULL, NULL), b = HPDF_New(NULL, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    /* twice: the second font of a document gets the next tag */
    for (int k = 0; k < 2; k++) {
        const char *second = fonts[(_i + 1 + (size_t)k) % NFONTS];
        const char *p = k == 0 ? path : second;
        if (access(p, R_OK) != 0) continue;
        HPDF_FontDef t = load(a, p, false), o = load(b, p, true);
        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_nonnull(o);
        same_def(t, o, p);
    }
    HPDF_Free(a);
    HPDF_Free(b);
}
END_TEST

/* A copy of path cut to n bytes, in dir; its path in out. */
static void cut_copy(const char *path, long n, const char *dir, char *out, size_t cap)
{
    FILE *in = fopen(path, "rb");
    ck_assert_ptr_nonnull(in);
    snprintf(out, cap, "%s/cut-%ld.ttf", dir, n);
    FILE *o = fopen(out, "wb");
    ck_assert_ptr_nonnull(o);
    char buf[8192];
    for (long left = n; left > 0;) {
        size_t r = fread(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, in);
        if (r == 0) break;
        fwrite(buf, 1, r, o);
        left -= (long)r;
    }
    fclose(in);
    fclose(o);
}

START_TEST(cut_short_same_outcome)
{
    const char *path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (access(path, R_OK) != 0) { printf("skip: %s not installed\n", path); return; }
    char dir[] = "/tmp/t_pdf_fontfile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    const long cuts[] = {1, 12, 100, 400, 4096, 20000, size / 2, size - 100, size - 1};
    int loaded = 0;
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        char p[256];
        cut_copy(path, cuts[i], dir, p, sizeof p);
        HPDF_Doc a = HPDF_New(NULL, NULL), b = HPDF_New(NULL, NULL);
        HPDF_FontDef t = load(a, p, false), o = load(b, p, true);
        /* folio refuses what libharu refuses, and may refuse more: a table
           cut off by the end of the file (libharu reads it as zeros) */
        ck_assert_msg(t || !o, "cut at %ld: libharu refuses, folio loads", cuts[i]);
        if (o) { same_def(t, o, p); loaded++; }
        HPDF_Free(a);
        HPDF_Free(b);
        unlink(p);
    }
    rmdir(dir);
    printf("cut_short_same_outcome: %d of 9 cut files loaded by folio\n", loaded);
}
END_TEST

/* Fonts libharu's loader faults on are refused before libharu sees them:
 * head's unitsPerEm 0 (or head cut off), which it divides by (SIGFPE), and
 * more horizontal metrics than glyphs, which overflow its array. The fuzz
 * cases that found them are kept as seeds of fuzz_font. */
START_TEST(fonts_libharu_faults_on_are_refused)
{
    const char *path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (access(path, R_OK) != 0) { printf("skip: %s not installed\n", path); return; }
    char dir[] = "/tmp/t_pdf_fontfile-XXXXXX", p[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)size);
    ck_assert_uint_eq(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    unsigned n = b[4] << 8 | b[5];
    long head = -1;
    for (unsigned i = 0; i < n; i++)
        if (memcmp(b + 12 + 16 * i, "head", 4) == 0)
            head = (long)((unsigned long)b[12 + 16 * i + 8] << 24 | b[12 + 16 * i + 9] << 16 |
                          b[12 + 16 * i + 10] << 8 | b[12 + 16 * i + 11]);
    ck_assert(head > 0);
    HPDF_Doc d = HPDF_New(NULL, NULL);
    snprintf(p, sizeof p, "%s/upem.ttf", dir);
    for (int zero = 0; zero < 2; zero++) {
        if (zero) b[head + 18] = b[head + 19] = 0;
        FILE *o = fopen(p, "wb");
        fwrite(b, 1, (size_t)size, o);
        fclose(o);
        const char *bad;
        const char *name = fo_pdf_load_ttf(d, p, false, &bad);
        HPDF_ResetError(d);
        ck_assert((bad != NULL) == (zero == 1));
        if (zero) ck_assert_ptr_null(name);
        else ck_assert_ptr_nonnull(name);   /* the unpatched copy loads */
    }
    static const char *const seeds[] = {"tests/fuzz/seeds/fuzz_font/upem-zero.ttf",
        /* the format-0 cmap's header is past the end of the file: libharu
           took zeros for it and read glyphs through a null array */
        "tests/fuzz/seeds/fuzz_font/cmap-past-end.ttf",
        /* hhea's numberOfHMetrics (17) over maxp's numGlyphs (16): libharu
           writes past its array of advance widths */
        "tests/fuzz/seeds/fuzz_font/hmetrics-over-glyphs.ttf"};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        ck_assert_msg(access(seeds[i], R_OK) == 0, "%s missing (run from the repository)", seeds[i]);
        const char *bad;
        ck_assert_ptr_null(fo_pdf_load_ttf(d, seeds[i], false, &bad));
        HPDF_ResetError(d);
        /* each is refused before libharu sees it (sfnt.c), saying why */
        ck_assert_ptr_nonnull(bad);
    }
    HPDF_Free(d);
    free(b);
    unlink(p);
    rmdir(dir);
}
END_TEST

START_TEST(missing_or_empty_is_refused)
{
    HPDF_Doc b = HPDF_New(NULL, NULL);
    const char *bad;
    ck_assert_ptr_null(fo_pdf_load_ttf(b, "/nonexistent/font.ttf", false, &bad));
    ck_assert_ptr_null(fo_pdf_load_ttf(b, "/dev/null", false, &bad));
    ck_assert_ptr_null(fo_pdf_load_ttf(b, "/tmp", false, &bad));
    HPDF_Free(b);
}
END_TEST

/* Whether the process has a mapping of path (/proc/self/maps). */
static bool mapped_now(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, path) != NULL;
    fclose(f);
    return found;
}

/* A system font stays mapped once its document is freed, once (the next
 * document uses the same mapping); a copy of it elsewhere, as a request's
 * own font would be, is unmapped with its document. */
START_TEST(system_fonts_stay_mapped_others_do_not)
{
    const char *sys = fonts[3];
    if (access(sys, R_OK) != 0) return;
    char dir[] = "/tmp/t_pdf_fontfile.XXXXXX", copy[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    cut_copy(sys, 1L << 30, dir, copy, sizeof copy);
    for (int round = 0; round < 2; round++) {
        HPDF_Doc d = HPDF_New(NULL, NULL);
        ck_assert_ptr_nonnull(load(d, sys, true));
        ck_assert_ptr_nonnull(load(d, copy, true));
        HPDF_Free(d);
        ck_assert(mapped_now(sys));
        ck_assert(!mapped_now(copy));
    }
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) n += strstr(line, sys) != NULL;
    fclose(f);
    ck_assert_int_eq(n, 1);
    unlink(copy);
    rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pdf_fontfile");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, same_definition_as_libharu, 0, NFONTS);
    tcase_add_test(tc, cut_short_same_outcome);
    tcase_add_test(tc, fonts_libharu_faults_on_are_refused);
    tcase_add_test(tc, missing_or_empty_is_refused);
    tcase_add_test(tc, system_fonts_stay_mapped_others_do_not);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return fo_check_run(suite());
}
