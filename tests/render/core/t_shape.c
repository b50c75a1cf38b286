/* t_shape.c — render/shape.h against HarfBuzz's own hb-shape: for a string
 * of each script that needs shaping, the glyph ids and their order (visual)
 * and clusters (UTF-8 byte offsets) must be exactly those hb-shape gives
 * with the font folio picked; and no character of the world-text strings is
 * left without a glyph (.notdef) by fo_text_glyphs. */
#include <check.h>
#include <fribidi.h>
#include <hb.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "render/core/emoji.h"
#include "render/core/fonts.h"
#include "render/core/shape.h"
#include "render/core/text.h"
#include "base/utf8.h"
#include "tests/check_run.h"

#define PRIMARY "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"
#define NOTO "/usr/share/fonts/truetype/noto/"

/* Strings of one script each (no digits: hb-shape shapes one run, folio
 * gives numbers inside Arabic their own left-to-right run, as UAX #9 says). */
static const struct { const char *text, *font; } cases[] = {
    {"\xD8\xB4\xD8\xA7\xD9\x8A \xD8\xA3\xD8\xAE\xD8\xB6\xD8\xB1", NOTO "NotoSansArabic-Regular.ttf"},   /* شاي أخضر */
    {"\xDA\x86\xD8\xA7\xDB\x8C \xD8\xB3\xD8\xA8\xD8\xB2", NOTO "NotoSansArabic-Regular.ttf"},           /* چای سبز (fa) */
    {"\xD7\xAA\xD7\x94 \xD7\x99\xD7\xA8\xD7\x95\xD7\xA7", NOTO "NotoSansHebrew-Regular.ttf"},         /* תה ירוק */
    {"\xE0\xA4\xB9\xE0\xA4\xB0\xE0\xA5\x80 \xE0\xA4\x9A\xE0\xA4\xBE\xE0\xA4\xAF \xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7",
     NOTO "NotoSansDevanagari-Regular.ttf"},                                                        /* हरी चाय क्ष */
    {"\xE0\xA6\xB8\xE0\xA6\xAC\xE0\xA7\x81\xE0\xA6\x9C \xE0\xA6\x9A\xE0\xA6\xBE", NOTO "NotoSansBengali-Regular.ttf"}, /* সবুজ চা */
    {"\xE0\xAE\xAA\xE0\xAE\x9A\xE0\xAF\x8D\xE0\xAE\x9A\xE0\xAF\x88 \xE0\xAE\xA4\xE0\xAF\x87\xE0\xAE\xA8\xE0\xAF\x80\xE0\xAE\xB0\xE0\xAF\x8D",
     NOTO "NotoSansTamil-Regular.ttf"},                                                             /* பச்சை தேநீர் */
    {"\xE0\xB8\x8A\xE0\xB8\xB2\xE0\xB9\x80\xE0\xB8\x82\xE0\xB8\xB5\xE0\xB8\xA2\xE0\xB8\xA7", NOTO "NotoSansThai-Regular.ttf"}, /* ชาเขียว */
};

/* hb-shape's "[g=c|g=c|...]" for text in font (with positions:
 * "[g=c@x,y+a|...]"), into out; false if it cannot run. */
static bool run_hb_shape(const char *font, const char *text, bool positions, char *out, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "hb-shape --no-glyph-names %s--utf8-clusters '%s' '%s' 2>/dev/null",
             positions ? "" : "--no-positions ", font, text);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r')) out[--n] = 0;
    return pclose(p) == 0 && n > 0;
}

START_TEST(test_same_glyphs_as_hb_shape)
{
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *s = cases[k].text;
        ck_assert_msg(fo_shape_needed(s, strlen(s)), "%s needs shaping", s);
        fo_shaped g[64];
        size_t n = fo_shape(PRIMARY, 12, s, strlen(s), FO_DIR_AUTO, g, 64, NULL);
        ck_assert(n > 0 && n <= 64);
        char mine[2048] = "[", theirs[2048];
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(strcmp(g[i].font, cases[k].font) == 0, "%s: glyph %zu from %s", s, i, g[i].font);
            size_t l = strlen(mine);
            snprintf(mine + l, sizeof mine - l, "%s%u=%u", i ? "|" : "", g[i].gid, g[i].cluster);
        }
        strcat(mine, "]");
        if (!run_hb_shape(cases[k].font, s, false, theirs, sizeof theirs)) {
            fprintf(stderr, "t_shape: hb-shape (libharfbuzz-bin) not found; comparison skipped\n");
            return;
        }
        ck_assert_msg(strcmp(mine, theirs) == 0, "%s: folio %s, hb-shape %s", s, mine, theirs);
    }
}
END_TEST

/* "[g=c@x,y+a|...]" in font units (hb-shape's default size is the em) of
 * n glyphs g shaped at size upem: gid, cluster, offsets and advance. */
static void positions(const fo_shaped *g, size_t n, char *out, size_t cap)
{
    size_t l = 0;
    double pen = 0;
    l += (size_t)snprintf(out + l, cap - l, "[");
    for (size_t i = 0; i < n && l < cap; i++) {
        long x = lround(g[i].x - pen), y = lround(g[i].y), a = lround(g[i].advance);
        l += (size_t)snprintf(out + l, cap - l, "%s%u=%u", i ? "|" : "", g[i].gid, g[i].cluster);
        if (x || y) l += (size_t)snprintf(out + l, cap - l, "@%ld,%ld", x, y);
        l += (size_t)snprintf(out + l, cap - l, "+%ld", a);
        pen += g[i].advance;
    }
    if (l < cap) snprintf(out + l, cap - l, "]");
}

static unsigned upem_of(const char *font)
{
    hb_blob_t *b = hb_blob_create_from_file(font);
    hb_face_t *f = hb_face_create(b, 0);
    unsigned u = hb_face_get_upem(f);
    hb_face_destroy(f);
    hb_blob_destroy(b);
    return u;
}

/* fo_shape keeps what it shaped: shaped again (from its cache), at another
 * size, or after the cache was emptied, a text gives the glyphs and
 * positions hb-shape gives, scaled to the size. */
START_TEST(test_shaped_again_same_as_hb_shape)
{
    for (int round = 0; round < 3; round++) {
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            const char *s = cases[k].text;
            double upem = upem_of(cases[k].font), w1 = 0, w2 = 0;
            fo_shaped g[64], g2[64];
            size_t n = fo_shape(PRIMARY, upem, s, strlen(s), FO_DIR_AUTO, g, 64, &w1);
            ck_assert(n > 0 && n <= 64);
            ck_assert_uint_eq(fo_shape(PRIMARY, 2 * upem, s, strlen(s), FO_DIR_AUTO, g2, 64, &w2), n);
            ck_assert(fabs(w2 - 2 * w1) < 1e-9);
            for (size_t i = 0; i < n; i++) {
                ck_assert_uint_eq(g2[i].gid, g[i].gid);
                ck_assert(fabs(g2[i].x - 2 * g[i].x) < 1e-9 && fabs(g2[i].advance - 2 * g[i].advance) < 1e-9);
            }
            char mine[2048], theirs[2048];
            positions(g, n, mine, sizeof mine);
            if (!run_hb_shape(cases[k].font, s, true, theirs, sizeof theirs)) {
                fprintf(stderr, "t_shape: hb-shape (libharfbuzz-bin) not found; comparison skipped\n");
                return;
            }
            ck_assert_msg(strcmp(mine, theirs) == 0, "round %d %s: folio %s, hb-shape %s", round, s, mine, theirs);
        }
        /* fill the cache past its size: it is emptied and filled again */
        for (int i = 0; round == 1 && i < 10000; i++) {
            char w[32];
            int l = snprintf(w, sizeof w, "\xD8\xB4%d", i);
            ck_assert(fo_shape(PRIMARY, 10, w, (size_t)l, FO_DIR_AUTO, NULL, 0, NULL) > 0);
        }
    }
}
END_TEST

/* Lines drawn from words (shape.c shapes a line word by word when no
 * lookup of its font involves the space): long lines of each script, their
 * words repeated (the second time from the word cache), with a mark after a
 * space, two spaces in a row, and fonts whose rules see the space
 * (Devanagari: shaped with the spaces around each word; Bengali: shaped
 * whole), give hb-shape's glyphs and positions for the whole line, twice. */
START_TEST(test_lines_from_words_same_as_hb_shape)
{
    static const struct { const char *words, *font; } lines[] = {
        {"\xD8\xB4\xD8\xA7\xD9\x8A \xD8\xA3\xD8\xAE\xD8\xB6\xD8\xB1 \xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7", NOTO "NotoSansArabic-Regular.ttf"},
        {"\xD7\xAA\xD7\x94 \xD7\x99\xD7\xA8\xD7\x95\xD7\xA7 \xD7\xA9\xD6\xB8\xD7\x81\xD7\x9C\xD7\x95\xD6\xB9\xD7\x9D", NOTO "NotoSansHebrew-Regular.ttf"},
        {"\xE0\xA6\xB8\xE0\xA6\xAC\xE0\xA7\x81\xE0\xA6\x9C \xE0\xA6\x9A\xE0\xA6\xBE", NOTO "NotoSansBengali-Regular.ttf"},
        {"\xE0\xAE\xAA\xE0\xAE\x9A\xE0\xAF\x8D\xE0\xAE\x9A\xE0\xAF\x88 \xE0\xAE\xA4\xE0\xAF\x87\xE0\xAE\xA8\xE0\xAF\x80\xE0\xAE\xB0\xE0\xAF\x8D", NOTO "NotoSansTamil-Regular.ttf"},
        {"\xE0\xB8\x8A\xE0\xB8\xB2\xE0\xB9\x80\xE0\xB8\x82\xE0\xB8\xB5\xE0\xB8\xA2\xE0\xB8\xA7 \xE0\xB8\x81\xE0\xB8\xB3\xE0\xB9\x84\xE0\xB8\xA3", NOTO "NotoSansThai-Regular.ttf"},
        {"\xE0\xA4\xB9\xE0\xA4\xB0\xE0\xA5\x80 \xE0\xA4\x9A\xE0\xA4\xBE\xE0\xA4\xAF \xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7", NOTO "NotoSansDevanagari-Regular.ttf"},
        /* किताब हिंदी कि सिंह किं: a vowel sign i after a space (its GPOS
           lookup 33), anusvaras after one (lookup 12) */
        {"\xE0\xA4\x95\xE0\xA4\xBF\xE0\xA4\xA4\xE0\xA4\xBE\xE0\xA4\xAC \xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80 "
         "\xE0\xA4\x95\xE0\xA4\xBF \xE0\xA4\xB8\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xB9 \xE0\xA4\x95\xE0\xA4\xBF\xE0\xA4\x82",
         NOTO "NotoSansDevanagari-Regular.ttf"},
    };
    /* the first letter of each line's script: a mark after a space sits on it */
    static const char *marks[] = {"\xD9\x8B", "\xD6\xB8", "\xE0\xA7\x81", "\xE0\xAF\x8D", "\xE0\xB8\xB5", "\xE0\xA5\x80",
                                  "\xE0\xA4\x82"};
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        char line[2048];
        size_t l = 0;
        for (int r = 0; r < 8; r++)
            l += (size_t)snprintf(line + l, sizeof line - l, "%s%s ", r ? " " : "", lines[k].words);
        l += (size_t)snprintf(line + l, sizeof line - l, "%s %s", marks[k], lines[k].words);
        ck_assert(l > 128);   /* longer than fo_shape keeps: shaped each time */
        double upem = upem_of(lines[k].font);
        char theirs[16384];
        if (!run_hb_shape(lines[k].font, line, true, theirs, sizeof theirs)) {
            fprintf(stderr, "t_shape: hb-shape (libharfbuzz-bin) not found; comparison skipped\n");
            return;
        }
        for (int round = 0; round < 2; round++) {
            fo_shaped g[512];
            size_t n = fo_shape(PRIMARY, upem, line, l, FO_DIR_AUTO, g, 512, NULL);
            ck_assert(n > 0 && n <= 512);
            for (size_t i = 0; i < n; i++) ck_assert_str_eq(g[i].font, lines[k].font);
            char mine[16384];
            positions(g, n, mine, sizeof mine);
            ck_assert_msg(strcmp(mine, theirs) == 0, "round %d %s:\nfolio    %s\nhb-shape %s", round,
                          line, mine, theirs);
        }
    }
}
END_TEST

/* "[g=c|...]" of the glyphs of hb's output (the same form) whose cluster
 * lies in [off, off+n), clusters counted from off: the glyphs a piece of
 * the text gets when the whole text is shaped at once. */
static void piece_of(const char *hb, size_t off, size_t n, char *out, size_t cap)
{
    size_t l = (size_t)snprintf(out, cap, "[");
    bool first = true;
    for (const char *p = hb + 1; *p && *p != ']';) {
        unsigned g, c;
        if (sscanf(p, "%u=%u", &g, &c) != 2) break;
        if (c >= off && c < off + n) {
            l += (size_t)snprintf(out + l, cap - l, "%s%u=%zu", first ? "" : "|", g, c - off);
            first = false;
        }
        p = strchr(p, '|');
        if (!p) break;
        p++;
    }
    snprintf(out + l, cap - l, "]");
}

static void glyph_ids(const fo_shaped *g, size_t n, char *out, size_t cap)
{
    size_t l = (size_t)snprintf(out, cap, "[");
    for (size_t i = 0; i < n; i++)
        l += (size_t)snprintf(out + l, cap - l, "%s%u=%u", i ? "|" : "", g[i].gid, g[i].cluster);
    snprintf(out + l, cap - l, "]");
}

/* A style change inside an Arabic word (مر**حب**ا): each piece shaped with
 * its neighbours as context takes exactly the glyphs hb-shape gives the
 * whole text for its characters (joined forms), twice (the second from the
 * cache), and not the glyphs of the piece shaped alone. */
START_TEST(test_piece_shaped_in_context_joins)
{
    const char *s = "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 "
                    "\xD8\xA8\xD8\xA7\xD9\x84\xD8\xB9\xD8\xA7\xD9\x84\xD9\x85"; /* مرحبا بالعالم */
    static const size_t cuts[][2] = {{0, 4}, {4, 4}, {8, 17}, {2, 4}, {0, 25}};
    char whole[2048];
    if (!run_hb_shape(NOTO "NotoSansArabic-Regular.ttf", s, false, whole, sizeof whole)) {
        fprintf(stderr, "t_shape: hb-shape (libharfbuzz-bin) not found; comparison skipped\n");
        return;
    }
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
            size_t off = cuts[k][0], n = cuts[k][1];
            fo_shaped g[64];
            double w = 0;
            size_t m = fo_shape_in(PRIMARY, 12, s, strlen(s), off, n, FO_DIR_RTL, g, 64, &w);
            ck_assert(m > 0 && m <= 64 && w > 0);
            char mine[1024], theirs[1024];
            glyph_ids(g, m, mine, sizeof mine);
            piece_of(whole, off, n, theirs, sizeof theirs);
            ck_assert_msg(strcmp(mine, theirs) == 0, "piece [%zu,+%zu): folio %s, hb-shape %s", off,
                          n, mine, theirs);
        }
    /* the defect this guards against: "حب" alone is isolated/initial/final */
    fo_shaped alone[8], in[8];
    size_t na = fo_shape(PRIMARY, 12, s + 4, 4, FO_DIR_RTL, alone, 8, NULL);
    size_t ni = fo_shape_in(PRIMARY, 12, s, strlen(s), 4, 4, FO_DIR_RTL, in, 8, NULL);
    ck_assert_uint_eq(na, ni);
    ck_assert(alone[0].gid != in[0].gid || alone[1].gid != in[1].gid);
    /* no context: the same as fo_shape */
    ck_assert_uint_eq(fo_shape_in(PRIMARY, 12, s + 4, 4, 0, 4, FO_DIR_RTL, in, 8, NULL), na);
    ck_assert(in[0].gid == alone[0].gid && in[1].gid == alone[1].gid);
    ck_assert_uint_eq(fo_shape_in(PRIMARY, 12, s, 4, 2, 3, FO_DIR_RTL, NULL, 0, NULL), 0);
}
END_TEST

/* Where a style may cut a word without cutting a cluster. */
START_TEST(test_cluster_end)
{
    const char *namaste = "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87"; /* नमस्ते */
    ck_assert_uint_eq(fo_shape_cluster_end(namaste, 18, 12), 18);   /* नमस्|ते: after the virama */
    ck_assert_uint_eq(fo_shape_cluster_end(namaste, 18, 9), 18);    /* नमस|्ते: a mark */
    ck_assert_uint_eq(fo_shape_cluster_end(namaste, 18, 6), 6);     /* नम|स्ते: free */
    ck_assert_uint_eq(fo_shape_cluster_end(namaste, 18, 0), 0);
    ck_assert_uint_eq(fo_shape_cluster_end(namaste, 18, 18), 18);
    const char *haraka = "\xD8\xAD\xD9\x8E\xD8\xA8";    /* حَب */
    ck_assert_uint_eq(fo_shape_cluster_end(haraka, 6, 2), 4);
    ck_assert_uint_eq(fo_shape_cluster_end(haraka, 6, 4), 4);
    const char *ka = "\xE0\xA4\x95\xE0\xA5\x8D \xE0\xA4\x96";  /* क् ख: a space ends it */
    ck_assert_uint_eq(fo_shape_cluster_end(ka, 10, 6), 6);
}
END_TEST

START_TEST(test_rtl_visual_order)
{
    /* "abc" inside Hebrew: the Latin run keeps its order, the Hebrew words swap */
    const char *s = "\xD7\x90 abc \xD7\x91";   /* א abc ב */
    fo_shaped g[16];
    size_t n = fo_shape(PRIMARY, 10, s, strlen(s), FO_DIR_AUTO, g, 16, NULL);
    ck_assert_uint_eq(n, 7);
    ck_assert_uint_eq(g[0].cluster, strlen(s) - 2);   /* ב drawn first (leftmost) */
    ck_assert_uint_eq(g[n - 1].cluster, 0);           /* א last (rightmost) */
    for (size_t i = 1; i < n; i++) ck_assert(g[i].x > g[i - 1].x);
    ck_assert_int_eq(fo_shape_direction(s, strlen(s)), FO_DIR_RTL);
    ck_assert_int_eq(fo_shape_direction("abc", 3), FO_DIR_LTR);
}
END_TEST

/* The levels FriBidi resolves for s in base direction dir, as the
 * left-to-right order of its code points' byte offsets (UAX #9 L2), to
 * out; returns how many. */
static size_t fribidi_order(const char *s, FriBidiParType dir, uint32_t *out, size_t cap)
{
    FriBidiChar cp[64];
    uint32_t off[64];
    size_t n = 0;
    for (size_t i = 0; i < strlen(s) && n < 64;) {
        off[n] = (uint32_t)i;
        cp[n++] = fo_utf8_next(s, strlen(s), &i);
    }
    FriBidiCharType types[64];
    FriBidiBracketType br[64];
    FriBidiLevel lv[64];
    FriBidiStrIndex map[64];
    fribidi_get_bidi_types(cp, (FriBidiStrIndex)n, types);
    fribidi_get_bracket_types(cp, (FriBidiStrIndex)n, types, br);
    ck_assert(fribidi_get_par_embedding_levels_ex(types, br, (FriBidiStrIndex)n, &dir, lv));
    for (size_t i = 0; i < n; i++) map[i] = (FriBidiStrIndex)i;
    ck_assert(fribidi_reorder_line(0, types, (FriBidiStrIndex)n, 0, dir, lv, NULL, map));
    for (size_t i = 0; i < n && i < cap; i++) out[i] = off[map[i]];
    return n;
}

/* Texts with nothing right to left take a short way to their levels (all
 * 0) but must come out in the order FriBidi gives: brackets, digits,
 * neutrals at either end, in an automatic or a left-to-right paragraph;
 * and texts with a right-to-left character, an Arabic number or an
 * embedding control take FriBidi's way. Each glyph here is one character,
 * so the clusters in drawing order are FriBidi's visual order. */
START_TEST(test_levels_as_fribidi_gives_them)
{
    static const char *const texts[] = {
        "abc (def) 123, x.", " (12) ", "\xE0\xA4\x95 123 (\xE0\xA4\x96)",   /* क 123 (ख) */
        "a \xD7\x90 b",                         /* a א b */
        "12 \xD9\xA1\xD9\xA2 3",              /* Arabic-Indic digits: AN */
        "a\xE2\x80\xAE" "bc\xE2\x80\xAC d", /* RLO bc PDF */
        "x \xE2\x81\xA7" "yz\xE2\x81\xA9",  /* RLI yz PDI */
    };
    static const FriBidiParType bases[] = {FRIBIDI_PAR_ON, FRIBIDI_PAR_LTR, FRIBIDI_PAR_RTL};
    static const fo_dir dirs[] = {FO_DIR_AUTO, FO_DIR_LTR, FO_DIR_RTL};
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++)
        for (size_t d = 0; d < 3; d++) {
            const char *s = texts[k];
            uint32_t want[64];
            size_t n = fribidi_order(s, bases[d], want, 64);
            fo_shaped g[64];
            size_t m = fo_shape(PRIMARY, 10, s, strlen(s), dirs[d], g, 64, NULL);
            uint32_t got[64];
            size_t q = 0;
            for (size_t i = 0; i < m; i++)   /* controls draw nothing: FriBidi's order keeps them */
                got[q++] = g[i].cluster;
            size_t w = 0;
            for (size_t i = 0; i < n; i++) {
                size_t at = want[i], len = strlen(s), next = at;
                uint32_t c = fo_utf8_next(s, len, &next);
                if (!(c >= 0x202A && c <= 0x202E) && !(c >= 0x2066 && c <= 0x2069)) want[w++] = (uint32_t)at;
            }
            ck_assert_msg(q == w, "%s (dir %zu): %zu glyphs, %zu characters", s, d, q, w);
            for (size_t i = 0; i < q; i++)
                ck_assert_msg(got[i] == want[i], "%s (dir %zu): glyph %zu is byte %u, FriBidi says %u",
                              s, d, i, got[i], want[i]);
        }
}
END_TEST

/* Every character of the world-text page has ink: no glyph 0 anywhere. */
START_TEST(test_no_notdef)
{
    static const char *const strings[] = {
        "绿茶 橄榄油 椰枣 笔记本 语言 销量", "綠茶 橄欖油 語言 銷量", "緑茶 オリーブ油 ノート 言語",
        "녹차 올리브유 공책 언어", "شاي أخضر بسعر 12 دولارًا", "چای سبز و روغن زیتون",
        "תה ירוק ושמן זית", "हरी चाय और जैतून का तेल", "সবুজ চা ও জলপাই তেল",
        "பச்சை தேநீர் மற்றும் ஆலிவ் எண்ணெய்", "ชาเขียวและน้ำมันมะกอก", "Πράσινο τσάι και ελαιόλαδο",
        "Зелёный чай и оливковое масло", "Trà xanh và dầu ô liu, Tiếng Việt: ệ ử ẫ ỗ ậ",
        "emoji ✅ ❌ 📈 🚀 😀",
    };
    for (size_t k = 0; k < sizeof strings / sizeof *strings; k++) {
        fo_glyph g[256];
        size_t n = fo_text_glyphs(PRIMARY, 10, strings[k], strlen(strings[k]), g, 256, NULL);
        ck_assert(n > 0 && n <= 256);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(g[i].index != 0, "%s: glyph %zu is .notdef (font %s)", strings[k], i, g[i].font);
    }
}
END_TEST

/* Wrapping measures shaped text as it is drawn: one line holds exactly the
 * shaped width, and every wrapped line fits. */
START_TEST(test_wrap_uses_shaped_widths)
{
    const char *s = "\xD8\xB4\xD8\xA7\xD9\x8A \xD8\xA3\xD8\xAE\xD8\xB6\xD8\xB1 "
                    "\xD8\xB4\xD8\xA7\xD9\x8A \xD8\xA3\xD8\xAE\xD8\xB6\xD8\xB1 "
                    "\xD8\xB4\xD8\xA7\xD9\x8A \xD8\xA3\xD8\xAE\xD8\xB6\xD8\xB1";
    double shaped = 0;
    fo_shape(PRIMARY, 10, s, strlen(s), FO_DIR_AUTO, NULL, 0, &shaped);
    ck_assert(fabs(fo_text_width(PRIMARY, 10, s, strlen(s)) - shaped) < 1e-9);
    fo_text_line one;
    ck_assert_uint_eq(fo_text_wrap(PRIMARY, 10, s, strlen(s), 1e6, &one, 1), 1);
    ck_assert(fabs(one.width - shaped) < 1e-6);
    fo_text_line l[8];
    size_t n = fo_text_wrap(PRIMARY, 10, s, strlen(s), shaped / 2.5, l, 8);
    ck_assert(n >= 3 && n <= 8);
    for (size_t i = 0; i < n; i++) ck_assert(l[i].width <= shaped / 2.5 + 1e-9);
}
END_TEST

/* fonts.c takes a script's Noto file from where Debian puts it without
 * asking fontconfig: it must be the file fontconfig (fc-match) gives. */
START_TEST(test_script_fonts_are_those_fontconfig_finds)
{
    static const struct { uint32_t cp; const char *family; } s[] = {
        {0x0627, "Noto Sans Arabic"}, {0x05D0, "Noto Sans Hebrew"}, {0x0915, "Noto Sans Devanagari"},
        {0x0995, "Noto Sans Bengali"}, {0x0B95, "Noto Sans Tamil"}, {0x0E01, "Noto Sans Thai"},
        {0x0E81, "Noto Sans Lao"}, {0x1780, "Noto Sans Khmer"}, {0x1000, "Noto Sans Myanmar"},
        {0x10D0, "Noto Sans Georgian"}, {0x0531, "Noto Sans Armenian"}, {0xFB50, "Noto Sans Arabic"},
    };
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
        char cmd[256], file[512] = "";
        snprintf(cmd, sizeof cmd, "fc-match -f '%%{file}|%%{family[0]}' '%s' 2>/dev/null", s[i].family);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        size_t n = fread(file, 1, sizeof file - 1, p);
        file[n] = 0;
        pclose(p);
        char *bar = strchr(file, '|');
        const char *got = fo_fonts_for_char(s[i].cp);
        if (!bar || strcmp(bar + 1, s[i].family) != 0) {   /* not installed */
            ck_assert_ptr_null(got);
            continue;
        }
        *bar = 0;
        ck_assert_ptr_nonnull(got);
        ck_assert_str_eq(got, file);
    }
}
END_TEST

/* Emoji sequences (UTS #51), each one glyph of the colour font: the glyph
 * ids, clusters and advances hb-shape gives on NotoColorEmoji.ttf; a
 * sequence inside text is its own item, and the text after it goes back
 * to the text's font; U+FE0E keeps a character text. */
START_TEST(test_emoji_sequences_same_as_hb_shape)
{
    static const char *const seq[] = {
        "👨‍👩‍👧", "🏳️‍🌈", "👩‍💻",           /* ZWJ sequences */
        "🇯🇵", "🇩🇪", "🇺🇸", "🇯🇵🇩🇪",       /* flags: two glyphs for two flags */
        "👍🏽", "👋🏿",                      /* skin tones */
        "1️⃣", "#️⃣", "*️⃣",                 /* keycaps */
        "❤️", "⚠️", "©️",                   /* VS16 */
        "🏴󠁧󠁢󠁳󠁣󠁴󠁿",                            /* a tag sequence (Scotland) */
        "👍", "🚀",                         /* emoji presentation by default */
        "☝🏽", "🏳‍🌈",                      /* text by default, emoji with a skin tone, a ZWJ */
    };
    ck_assert_msg(access(FO_EMOJI_FONT, 0) == 0, "install fonts-noto-color-emoji");
    for (size_t k = 0; k < sizeof seq / sizeof *seq; k++) {
        const char *s = seq[k];
        ck_assert_msg(fo_shape_needed(s, strlen(s)), "%s needs shaping", s);
        fo_shaped g[8];
        size_t n = fo_shape(PRIMARY, 2048, s, strlen(s), FO_DIR_AUTO, g, 8, NULL);
        ck_assert_uint_eq(n, strstr(s, "🇩🇪") && strlen(s) > 8 ? 2 : 1);
        char mine[256] = "[", theirs[256];
        for (size_t i = 0; i < n; i++) {
            ck_assert_str_eq(g[i].font, FO_EMOJI_FONT);
            ck_assert_double_eq_tol(g[i].advance, 2550, 1e-9);
            size_t l = strlen(mine);
            snprintf(mine + l, sizeof mine - l, "%s%u=%u", i ? "|" : "", g[i].gid, g[i].cluster);
        }
        strcat(mine, "]");
        if (!run_hb_shape(FO_EMOJI_FONT, s, false, theirs, sizeof theirs)) {
            fprintf(stderr, "t_shape: hb-shape (libharfbuzz-bin) not found; comparison skipped\n");
            return;
        }
        ck_assert_msg(strcmp(mine, theirs) == 0, "%s: folio %s, hb-shape %s", s, mine, theirs);
    }
    /* inside text: one glyph, then the text's own font again ("2" included) */
    const char *t = "a👨‍👩‍👧 2";
    fo_shaped g[8];
    ck_assert_uint_eq(fo_shape(PRIMARY, 12, t, strlen(t), FO_DIR_AUTO, g, 8, NULL), 4);
    ck_assert_str_eq(g[0].font, PRIMARY);
    ck_assert_str_eq(g[1].font, FO_EMOJI_FONT);
    ck_assert_uint_eq(g[1].cluster, 1);
    ck_assert_str_eq(g[2].font, PRIMARY);
    ck_assert_str_eq(g[3].font, PRIMARY);
    /* in Arabic, the digits after an emoji are the Arabic font's */
    const char *ar = "مرحبا 🚀 2024";
    fo_shaped ga[32];
    size_t na = fo_shape(PRIMARY, 12, ar, strlen(ar), FO_DIR_AUTO, ga, 32, NULL);
    ck_assert_uint_eq(na, 12);
    for (size_t i = 0; i < na; i++)
        if (ga[i].cluster > strlen("مرحبا 🚀"))
            ck_assert_str_eq(ga[i].font, NOTO "NotoSansArabic-Regular.ttf");
    /* text presentation: U+FE0E keeps the heart out of the colour font */
    ck_assert_uint_eq(fo_shape(PRIMARY, 12, "❤︎", strlen("❤︎"), FO_DIR_AUTO, g, 8, NULL), 1);
    ck_assert_str_ne(g[0].font, FO_EMOJI_FONT);
    ck_assert_uint_ne(g[0].gid, 0);
    /* so does text presentation by default (UTS #51), alone: ❤ ⚠ ☀ ✈ */
    static const char *const text_default[] = {"❤", "⚠", "☀", "✈", "a ❤ b"};
    for (size_t k = 0; k < sizeof text_default / sizeof *text_default; k++) {
        const char *s = text_default[k];
        size_t n = fo_shape(PRIMARY, 12, s, strlen(s), FO_DIR_AUTO, g, 8, NULL);
        ck_assert_uint_eq(n, strlen(s) > 3 ? 5 : 1);
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(strcmp(g[i].font, FO_EMOJI_FONT) != 0, "%s: colour glyph", s);
            ck_assert_uint_ne(g[i].gid, 0);
        }
    }
}
END_TEST

/* The font chosen for a character is kept per process (font_for's slots):
 * a bold primary still gets the script's bold file after a regular one
 * asked for the same letters, a regular one the regular file after it, and
 * the same after the fonts are forgotten. */
START_TEST(test_script_font_follows_boldness)
{
    const char *bold = fo_fonts_bold(fo_fonts_for_char(0x0627));
    const char *regular = fo_fonts_for_char(0x0627);
    if (!regular || !bold || bold == regular) return;   /* Noto Arabic (bold) not installed */
    const char *s = "\xD8\xB4\xD8\xA7\xD9\x8A";   /* شاي */
    static const char *const primaries[] = {
        PRIMARY, "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf", PRIMARY};
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < 3; k++) {
            fo_shaped g[8];
            size_t n = fo_shape(primaries[k], 10, s, strlen(s), FO_DIR_AUTO, g, 8, NULL);
            ck_assert_uint_ge(n, 1);
            for (size_t i = 0; i < n; i++) ck_assert_str_eq(g[i].font, k == 1 ? bold : regular);
        }
        fo_shape_forget_fonts();
    }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_same_glyphs_as_hb_shape,
        test_shaped_again_same_as_hb_shape,
        test_lines_from_words_same_as_hb_shape,
        test_piece_shaped_in_context_joins,
        test_cluster_end,
        test_rtl_visual_order,
        test_levels_as_fribidi_gives_them,
        test_no_notdef,
        test_wrap_uses_shaped_widths,
        test_script_fonts_are_those_fontconfig_finds,
        test_emoji_sequences_same_as_hb_shape,
        test_script_font_follows_boldness,
        NULL,
    };
    return fo_check_tests("shape", 0, tests);
}
