/* t_otlayout.c — class-based context rules read from GSUB/GPOS bytes
 * (render/core/otlayout.h): the fonts folio ships, a table built by hand
 * whose rule asks for class 0 after its input, and malformed or
 * pathological tables, which answer "it may match" (at once). */
#include <check.h>
#include <hb.h>
#include <hb-ot.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "render/core/otlayout.h"
#include "tests/check_run.h"

#define NOTO "/usr/share/fonts/truetype/noto/"

/* fo_ot_context_class_matches on the font's table, for its space glyph. */
static bool space_matches(const char *path, hb_tag_t tag)
{
    hb_blob_t *blob = hb_blob_create_from_file(path);
    hb_face_t *face = hb_face_create(blob, 0);
    hb_font_t *font = hb_font_create(face);
    hb_codepoint_t space = 0;
    ck_assert_msg(hb_font_get_nominal_glyph(font, ' ', &space), "%s: no space", path);
    hb_blob_t *t = hb_face_reference_table(face, tag);
    unsigned len;
    const char *data = hb_blob_get_data(t, &len);
    bool m = fo_ot_context_class_matches((const uint8_t *)data, len, tag == HB_OT_TAG_GPOS,
                                         (uint16_t)space);
    hb_blob_destroy(t);
    hb_font_destroy(font);
    hb_face_destroy(face);
    hb_blob_destroy(blob);
    return m;
}

/* Noto Sans Bengali's GSUB lookup 18 has rules with class 0 in their
 * backtrack and lookahead (a space matches); Noto Sans Hebrew, Arabic,
 * Tamil and Thai have none. */
START_TEST(test_fonts)
{
    ck_assert(space_matches(NOTO "NotoSansBengali-Regular.ttf", HB_OT_TAG_GSUB));
    ck_assert(space_matches(NOTO "NotoSansDevanagari-Regular.ttf", HB_OT_TAG_GPOS));
    static const char *const none[] = {"NotoSansHebrew-Regular.ttf", "NotoSansArabic-Regular.ttf",
                                       "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        char path[256];
        snprintf(path, sizeof path, NOTO "%s", none[i]);
        ck_assert_msg(!space_matches(path, HB_OT_TAG_GSUB), "%s GSUB", none[i]);
        ck_assert_msg(!space_matches(path, HB_OT_TAG_GPOS), "%s GPOS", none[i]);
    }
}
END_TEST

/* A GSUB with one lookup of type 6 and one format 2 subtable: glyph 5
 * (class 1 of the input class definition), then class `look` of the
 * lookahead class definition, which lists glyph 7 as class 1. */
static size_t chain_table(uint8_t *t, uint16_t look)
{
    static const uint8_t bytes[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 10,   /*  0: version 1.0, no scripts, no features, lookups at 10 */
        0, 1, 0, 4,                      /* 10: one lookup, at 14 */
        0, 6, 0, 0, 0, 1, 0, 8,          /* 14: type 6, flags 0, one subtable, at 22 */
        0, 2, 0, 16, 0, 0, 0, 22, 0, 30, /* 22: format 2, coverage 38, no backtrack classes, input 44, lookahead 52 */
        0, 2, 0, 0, 0, 40,               /*     two rule sets: none for class 0, 62 for class 1 */
        0, 1, 0, 1, 0, 5,                /* 38: coverage, format 1: glyph 5 */
        0, 1, 0, 5, 0, 1, 0, 1,          /* 44: classes, format 1: from glyph 5, one glyph, class 1 */
        0, 2, 0, 1, 0, 7, 0, 7, 0, 1,    /* 52: classes, format 2: glyphs 7..7, class 1 */
        0, 1, 0, 4,                      /* 62: one rule, at 66 */
        0, 0, 0, 1, 0, 1, 0, 0, 0, 0,    /* 66: no backtrack, one input, lookahead [look], no records */
    };
    memcpy(t, bytes, sizeof bytes);
    t[72] = (uint8_t)(look >> 8);
    t[73] = (uint8_t)look;
    return sizeof bytes;
}

START_TEST(test_built_table)
{
    uint8_t t[256];
    size_t n = chain_table(t, 0);   /* lookahead: anything not listed */
    ck_assert(fo_ot_context_class_matches(t, n, false, 3));    /* glyph 3: class 0 */
    ck_assert(!fo_ot_context_class_matches(t, n, false, 7));   /* glyph 7: class 1 */
    ck_assert(!fo_ot_context_class_matches(t, n, true, 3));    /* as GPOS, type 6 is not a context */
    n = chain_table(t, 1);           /* lookahead: glyph 7 */
    ck_assert(!fo_ot_context_class_matches(t, n, false, 3));
    ck_assert(fo_ot_context_class_matches(t, n, false, 7));
    /* cut anywhere inside, it may match: never a read past the end */
    for (size_t k = 10; k < n; k++) (void)fo_ot_context_class_matches(t, k, false, 3);
    ck_assert(!fo_ot_context_class_matches(t, 0, false, 3));   /* no table */
    ck_assert(fo_ot_context_class_matches(t, 9, false, 3));    /* a header cut short */
}
END_TEST

/* 65,535 lookups, each of 65,535 subtables, all the same format 2 chained
 * subtable with 65,535 sets of the same rules: answered within the work
 * budget, not after billions of steps. */
START_TEST(test_pathological_table_is_bounded)
{
    static uint8_t t[1 << 19];
    memset(t, 0, sizeof t);
    uint8_t head[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 10, 0xFF, 0xFF};
    memcpy(t, head, sizeof head);
    for (size_t i = 0; i < 0xFFFF; i++) { t[12 + 2 * i] = 0xFF; t[13 + 2 * i] = 0xF0; }   /* 10 + 0xFFF0 */
    size_t l = 10 + 0xFFF0;
    uint8_t lk[] = {0, 6, 0, 0, 0xFF, 0xFF};
    memcpy(t + l, lk, sizeof lk);
    for (size_t i = 0; i < 0xFFFF; i++) { t[l + 6 + 2 * i] = 0xFF; t[l + 7 + 2 * i] = 0xF0; }
    size_t s = l + 0xFFF0;           /* the subtable: format 2, no class defs, 65,535 sets */
    uint8_t st[] = {0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    memcpy(t + s, st, sizeof st);
    ck_assert(s + 12 + 2 * 0xFFFF + 64 < sizeof t);
    for (size_t i = 0; i < 0xFFFF; i++) { t[s + 12 + 2 * i] = 0x00; t[s + 13 + 2 * i] = 0x0C; }
    /* every set at s + 12: its count is the first offset, 12, and its
       rules' offsets are those of the sets again: garbage, but readable */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    bool m = fo_ot_context_class_matches(t, sizeof t, false, 3);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    ck_assert(m);
    ck_assert_msg(ms < 500, "%.0f ms", ms);
}
END_TEST

int main(void)
{
    return fo_check_tests("otlayout", 0, (const TTest *[]){test_fonts, test_built_table,
                                                          test_pathological_table_is_bounded, NULL});
}
