/* t_otlayout.c — where the context rules of GSUB/GPOS bytes match a glyph
 * (render/core/otlayout.h): the fonts folio ships, tables built by hand (a
 * rule that asks for class 0 after its input; backtracks by coverage and by
 * glyph, through an extension, and a lookup that skips base glyphs), and
 * malformed or pathological tables, which answer "anywhere" (at once). */
#include <check.h>
#include <hb.h>
#include <hb-ot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/core/otlayout.h"
#include "tests/check_run.h"

#define NOTO "/usr/share/fonts/truetype/noto/"

/* fo_ot_context_reach on the font's table, for its space glyph; *nrules
 * (may be NULL) gets how many GPOS rules look past it. */
static fo_ot_reach space_reach(const char *path, hb_tag_t tag, size_t *nrules)
{
    hb_blob_t *blob = hb_blob_create_from_file(path);
    hb_face_t *face = hb_face_create(blob, 0);
    hb_font_t *font = hb_font_create(face);
    hb_codepoint_t space = 0;
    ck_assert_msg(hb_font_get_nominal_glyph(font, ' ', &space), "%s: no space", path);
    hb_blob_t *t = hb_face_reference_table(face, tag);
    unsigned len;
    const char *data = hb_blob_get_data(t, &len);
    fo_ot_beyond rules[64];
    size_t n = 0;
    fo_ot_reach m = fo_ot_context_reach((const uint8_t *)data, len, tag == HB_OT_TAG_GPOS,
                                        (uint16_t)space, rules, 64, &n);
    if (nrules) *nrules = n;
    hb_blob_destroy(t);
    hb_font_destroy(font);
    hb_face_destroy(face);
    hb_blob_destroy(blob);
    return m;
}

/* Noto Sans Bengali's GSUB lookup 18 has rules with class 0 inside their
 * backtrack and lookahead: a space matches there. Noto Sans Devanagari
 * matches it at the edges of GSUB lookup 31 (a vowel sign i before anything
 * but a dotted circle) and GPOS lookup 33 (after a space), and inside the
 * backtracks of GPOS lookup 12 (12 places: an anusvara after a vowel sign i
 * and a consonant). Noto Sans Hebrew, Arabic, Tamil and Thai match it
 * nowhere. */
START_TEST(test_fonts)
{
    size_t n = 0;
    ck_assert_int_eq(space_reach(NOTO "NotoSansBengali-Regular.ttf", HB_OT_TAG_GSUB, NULL), FO_OT_ANYWHERE);
    ck_assert_int_eq(space_reach(NOTO "NotoSansDevanagari-Regular.ttf", HB_OT_TAG_GPOS, &n), FO_OT_BEYOND);
    ck_assert_uint_eq(n, 12);
    ck_assert_int_eq(space_reach(NOTO "NotoSansDevanagari-Regular.ttf", HB_OT_TAG_GSUB, NULL), FO_OT_EDGE);
    static const char *const none[] = {"NotoSansHebrew-Regular.ttf", "NotoSansArabic-Regular.ttf",
                                       "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        char path[256];
        snprintf(path, sizeof path, NOTO "%s", none[i]);
        ck_assert_msg(space_reach(path, HB_OT_TAG_GSUB, NULL) == FO_OT_NOWHERE, "%s GSUB", none[i]);
        ck_assert_msg(space_reach(path, HB_OT_TAG_GPOS, NULL) == FO_OT_NOWHERE, "%s GPOS", none[i]);
    }
}
END_TEST

/* Big-endian writes into a table being built. */
static size_t put16(uint8_t *t, size_t at, uint16_t v)
{
    t[at] = (uint8_t)(v >> 8);
    t[at + 1] = (uint8_t)v;
    return at + 2;
}

static size_t put_seq(uint8_t *t, size_t at, const uint16_t *v, size_t n)
{
    at = put16(t, at, (uint16_t)n);
    for (size_t i = 0; i < n; i++) at = put16(t, at, v[i]);
    return at;
}

/* One class-based rule (format 2) in a table of one lookup. */
typedef struct {
    uint16_t type, flags;            /* lookup type (6 in GSUB, 8 in GPOS), flags */
    uint16_t back[4], in[4], ahead[4], rec[4];   /* classes; records' input indices */
    size_t nb, ni, nl, nrec;         /* ni: input after the first glyph */
} rule_spec;

/* Builds it: the first input glyph is glyph 5 (coverage, class 1); every
 * class definition lists glyph 7 as class 1, so glyph 3 is class 0. */
static size_t class_chain(uint8_t *t, const rule_spec *r)
{
    static const uint8_t head[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 10,   /*  0: version 1.0, no scripts, no features, lookups at 10 */
        0, 1, 0, 4,                      /* 10: one lookup, at 14 */
        0, 0, 0, 0, 0, 1, 0, 8,          /* 14: type, flags, one subtable, at 22 */
        0, 2, 0, 16, 0, 22, 0, 22, 0, 22, /* 22: format 2, coverage 38, the class definition at 44 thrice */
        0, 2, 0, 0, 0, 34,               /*     two rule sets: none for class 0, 56 for class 1 */
        0, 1, 0, 1, 0, 5,                /* 38: coverage, format 1: glyph 5 */
        0, 1, 0, 5, 0, 3, 0, 1, 0, 0, 0, 1, /* 44: classes, format 1: glyphs 5..7: 1, 0, 1 */
        0, 1, 0, 4,                      /* 56: one rule, at 60 */
    };
    memcpy(t, head, sizeof head);
    put16(t, 14, r->type);
    put16(t, 16, r->flags);
    size_t at = put_seq(t, sizeof head, r->back, r->nb);
    at = put_seq(t, at, r->in, r->ni);
    put16(t, at - 2 * r->ni - 2, (uint16_t)(r->ni + 1));   /* the input count has the first glyph */
    at = put_seq(t, at, r->ahead, r->nl);
    at = put16(t, at, (uint16_t)r->nrec);
    for (size_t i = 0; i < r->nrec; i++) at = put16(t, put16(t, at, r->rec[i]), 0);
    return at;
}
static fo_ot_reach reach_of(const rule_spec *r, uint16_t glyph, fo_ot_beyond *rules, size_t *n)
{
    static uint8_t t[256];
    size_t len = class_chain(t, r);
    fo_ot_reach m = fo_ot_context_reach(t, len, r->type == 8, glyph, rules, rules ? 4 : 0, n);
    for (size_t k = 10; k < len; k++)   /* cut anywhere inside: never a read past the end */
        (void)fo_ot_context_reach(t, k, r->type == 8, glyph, NULL, 0, NULL);
    return m;
}

/* Where a class-based rule matches glyph 3 (class 0) and glyph 7 (class 1). */
START_TEST(test_class_rules)
{
    rule_spec r = {.type = 6, .ahead = {0}, .nl = 1};     /* glyph 5, then anything */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_EDGE);
    ck_assert_int_eq(reach_of(&r, 7, NULL, NULL), FO_OT_NOWHERE);
    ck_assert_int_eq(reach_of(&r, 5, NULL, NULL), FO_OT_ANYWHERE);   /* the glyph it applies at */
    r = (rule_spec){.type = 6, .ahead = {0, 1}, .nl = 2};             /* looks past it */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_ANYWHERE);
    r = (rule_spec){.type = 6, .ahead = {1, 0}, .nl = 2};
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_EDGE);
    ck_assert_int_eq(reach_of(&r, 7, NULL, NULL), FO_OT_ANYWHERE);
    r = (rule_spec){.type = 6, .in = {0}, .ni = 1};                   /* input, at its end */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_EDGE);
    r.rec[0] = 1, r.nrec = 1;                                         /* ...but changed there */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_ANYWHERE);
    r = (rule_spec){.type = 6, .in = {0}, .ni = 1, .ahead = {1}, .nl = 1};   /* not its end */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_ANYWHERE);
    r = (rule_spec){.type = 6, .back = {0}, .nb = 1};                 /* after anything */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_EDGE);
    r = (rule_spec){.type = 6, .back = {0, 1}, .nb = 2};              /* past it, in GSUB */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_ANYWHERE);
    ck_assert_int_eq(reach_of(&r, 7, NULL, NULL), FO_OT_EDGE);
    r.flags = 0x0002;                 /* skipping base glyphs, past any glyph */
    ck_assert_int_eq(reach_of(&r, 9, NULL, NULL), FO_OT_ANYWHERE);
    r = (rule_spec){.type = 7, .back = {0}, .nb = 1};                 /* GSUB 7 is no context */
    ck_assert_int_eq(reach_of(&r, 3, NULL, NULL), FO_OT_ANYWHERE);    /* (an extension: bad format) */
}
END_TEST

/* A GPOS rule that looks past glyph 3 (class 0 inside its backtrack, class
 * 1 beyond it) says so: what the glyphs before it must be. */
START_TEST(test_gpos_rules_beyond)
{
    fo_ot_beyond rules[4];
    size_t n = 0;
    rule_spec r = {.type = 8, .back = {0, 1}, .nb = 2};
    ck_assert_int_eq(reach_of(&r, 3, rules, &n), FO_OT_BEYOND);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(rules[0].from, 1);
    ck_assert_uint_eq(rules[0].count, 2);
    static uint8_t t[256];
    size_t len = class_chain(t, &r);
    const uint16_t seven[] = {7, 3}, three[] = {3, 7};
    ck_assert(fo_ot_beyond_matches(t, len, &rules[0], seven, 2));    /* glyph 7 just before it */
    ck_assert(fo_ot_beyond_matches(t, len, &rules[0], seven, 1));
    ck_assert(!fo_ot_beyond_matches(t, len, &rules[0], three, 2));
    ck_assert(!fo_ot_beyond_matches(t, len, &rules[0], seven, 0));  /* nothing before: no match */
    ck_assert(!fo_ot_beyond_matches(t, 20, &rules[0], seven, 2));   /* a table cut short */
    r = (rule_spec){.type = 8, .back = {0, 0, 1}, .nb = 3};   /* class 0 twice inside: two places */
    ck_assert_int_eq(reach_of(&r, 3, rules, &n), FO_OT_BEYOND);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(reach_of(&r, 3, rules, NULL), FO_OT_BEYOND);
    ck_assert_int_eq(reach_of(&r, 3, NULL, &n), FO_OT_ANYWHERE);     /* no room to say so */
    r.flags = 0x0008;                 /* ignoring marks, the glyphs before are not next to it */
    ck_assert_int_eq(reach_of(&r, 3, rules, &n), FO_OT_ANYWHERE);
}
END_TEST

/* A GPOS whose one lookup (type 2, flags as given) kerns by classes
 * (format 2): first glyph 5 (class 1 of the first class definition),
 * second any glyph but 7 (class 0 of the second, which lists glyph 7 as
 * class 1): value1 on the first glyph's advance, value2 on the second's
 * (its value format 0 when value2 is 0). */
static size_t pair_table(uint8_t *t, uint16_t flags, int16_t value1, int16_t value2)
{
    static const uint8_t head[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 10,   /*  0: version 1.0, no scripts, no features, lookups at 10 */
        0, 1, 0, 4,                      /* 10: one lookup, at 14 */
        0, 2, 0, 0, 0, 1, 0, 8,          /* 14: type 2, flags, one subtable, at 22 */
    };
    memcpy(t, head, sizeof head);
    put16(t, 16, flags);
    uint16_t f2 = value2 ? 4 : 0;        /* XAdvance */
    size_t rsize = 2 + (f2 ? 2 : 0), recs = 22 + 16, cov = recs + 4 * rsize;
    size_t at = put16(t, 22, 2);
    at = put16(t, at, (uint16_t)(cov - 22));
    at = put16(t, at, 4);                /* value format 1: XAdvance */
    at = put16(t, at, f2);
    at = put16(t, at, (uint16_t)(cov + 6 - 22));    /* first classes */
    at = put16(t, at, (uint16_t)(cov + 14 - 22));   /* second classes */
    at = put16(t, at, 2);
    at = put16(t, at, 2);
    for (int c1 = 0; c1 < 2; c1++)       /* [first class][second class] */
        for (int c2 = 0; c2 < 2; c2++) {
            bool kerned = c1 == 1 && c2 == 0;
            at = put16(t, at, (uint16_t)(kerned ? value1 : 0));
            if (f2) at = put16(t, at, (uint16_t)(kerned ? value2 : 0));
        }
    static const uint8_t tail[] = {
        0, 1, 0, 1, 0, 5,                /* coverage: glyph 5 */
        0, 1, 0, 5, 0, 1, 0, 1,          /* first classes: glyph 5 class 1 */
        0, 1, 0, 7, 0, 1, 0, 1,          /* second classes: glyph 7 class 1 */
    };
    memcpy(t + at, tail, sizeof tail);
    return at + sizeof tail;
}

/* Pair kerning against "any other glyph" reaches glyph 3 through class 0,
 * which HarfBuzz's glyph lists leave out: at the edge when only the
 * letter before it moves, anywhere when it moves itself or when the
 * lookup skips base glyphs (the pair could then be the glyphs either
 * side of it). */
START_TEST(test_pairs_by_class_zero)
{
    uint8_t t[256];
    size_t n = pair_table(t, 0, -50, 0);
    ck_assert_int_eq(fo_ot_context_reach(t, n, true, 3, NULL, 0, NULL), FO_OT_EDGE);
    ck_assert_int_eq(fo_ot_context_reach(t, n, true, 7, NULL, 0, NULL), FO_OT_NOWHERE);   /* listed */
    ck_assert_int_eq(fo_ot_context_reach(t, n, false, 3, NULL, 0, NULL), FO_OT_NOWHERE);  /* GSUB 2 */
    for (size_t c = 10; c < n; c++) (void)fo_ot_context_reach(t, c, true, 3, NULL, 0, NULL);
    n = pair_table(t, 0, 0, 0);          /* zero values: nothing moves */
    ck_assert_int_eq(fo_ot_context_reach(t, n, true, 3, NULL, 0, NULL), FO_OT_NOWHERE);
    n = pair_table(t, 0, 0, 30);         /* the second glyph moves */
    ck_assert_int_eq(fo_ot_context_reach(t, n, true, 3, NULL, 0, NULL), FO_OT_ANYWHERE);
    n = pair_table(t, 0x0002, 0, 0);     /* skipping base glyphs */
    ck_assert_int_eq(fo_ot_context_reach(t, n, true, 3, NULL, 0, NULL), FO_OT_ANYWHERE);
}
END_TEST

/* A GSUB whose one lookup (type 6, flags as given) has a format 3 subtable:
 * backtrack glyph 7 (nearest), then glyph 8 (outermost); input glyph 5. */
static size_t coverage_backtrack(uint8_t *t, uint16_t flags)
{
    static const uint8_t bytes[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 10,
        0, 1, 0, 4,
        0, 6, 0, 0, 0, 1, 0, 8,          /* 14: type 6, flags, one subtable, at 22 */
        0, 3, 0, 2, 0, 16, 0, 22,        /* 22: format 3, backtrack coverages at 38 and 44 */
        0, 1, 0, 28, 0, 0, 0, 0,         /*     one input coverage, at 50; no lookahead, no records */
        0, 1, 0, 1, 0, 7,                /* 38: glyph 7 */
        0, 1, 0, 1, 0, 8,                /* 44: glyph 8 */
        0, 1, 0, 1, 0, 5,                /* 50: glyph 5 */
    };
    memcpy(t, bytes, sizeof bytes);
    put16(t, 16, flags);
    return sizeof bytes;
}

/* The same rule by glyph ids (format 1), through an extension lookup. */
static size_t glyph_backtrack(uint8_t *t)
{
    static const uint8_t bytes[] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 10,
        0, 1, 0, 4,
        0, 7, 0, 0, 0, 1, 0, 8,          /* 14: type 7 (extension), one subtable, at 22 */
        0, 1, 0, 6, 0, 0, 0, 8,          /* 22: extension format 1 of type 6, at 30 */
        0, 1, 0, 24, 0, 1, 0, 8,         /* 30: format 1, coverage at 54, one rule set, at 38 */
        0, 1, 0, 4,                      /* 38: one rule, at 42 */
        0, 2, 0, 7, 0, 8, 0, 1, 0, 0, 0, 0, /* 42: backtrack [7, 8], one input, no lookahead, no records */
        0, 1, 0, 1, 0, 5,                /* 54: coverage, glyph 5 */
    };
    memcpy(t, bytes, sizeof bytes);
    return sizeof bytes;
}

START_TEST(test_backtrack_by_coverage_and_glyph)
{
    uint8_t t[256];
    for (int k = 0; k < 2; k++) {
        size_t n = k ? glyph_backtrack(t) : coverage_backtrack(t, 0);
        ck_assert_int_eq(fo_ot_context_reach(t, n, false, 8, NULL, 0, NULL), FO_OT_EDGE);
        ck_assert_int_eq(fo_ot_context_reach(t, n, false, 7, NULL, 0, NULL), FO_OT_ANYWHERE);
        ck_assert_int_eq(fo_ot_context_reach(t, n, false, 5, NULL, 0, NULL), FO_OT_ANYWHERE);
        ck_assert_int_eq(fo_ot_context_reach(t, n, false, 9, NULL, 0, NULL), FO_OT_NOWHERE);
        for (size_t c = 10; c < n; c++) (void)fo_ot_context_reach(t, c, false, 8, NULL, 0, NULL);
    }
    size_t n = coverage_backtrack(t, 0x0002);   /* skipping base glyphs */
    ck_assert_int_eq(fo_ot_context_reach(t, n, false, 9, NULL, 0, NULL), FO_OT_ANYWHERE);
    ck_assert_int_eq(fo_ot_context_reach(t, 0, false, 3, NULL, 0, NULL), FO_OT_NOWHERE);   /* no table */
    ck_assert_int_eq(fo_ot_context_reach(t, 9, false, 3, NULL, 0, NULL), FO_OT_ANYWHERE);  /* cut short */
}
END_TEST

/* CPU milliseconds between two CLOCK_PROCESS_CPUTIME_ID readings. */
static double cpu_ms(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* What 4,000,000 bounds-checked big-endian 16-bit reads at scattered offsets
 * of t cost here (CPU ms, the least of three): the unit the walk's budget
 * counts. */
static double reads_cost(const uint8_t *t, size_t n)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        struct timespec a, b;
        volatile unsigned sink = 0;
        size_t off = 0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        for (unsigned i = 0; i < 4000000u; i++) {
            off = (off * 1103515245u + 12345u) % n;
            if (off <= n - 2) sink = sink + (unsigned)(t[off] << 8 | t[off + 1]);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        if (cpu_ms(&a, &b) < best) best = cpu_ms(&a, &b);
    }
    return best;
}

/* The CPU ms of the pathological walk (which must answer "anywhere"), the least of three. */
static double reach_cost(const uint8_t *t, size_t n)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        fo_ot_reach m = fo_ot_context_reach(t, n, false, 3, NULL, 0, NULL);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        ck_assert_int_eq(m, FO_OT_ANYWHERE);
        if (cpu_ms(&a, &b) < best) best = cpu_ms(&a, &b);
    }
    return best;
}

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
    double ref = reads_cost(t, sizeof t), ms = reach_cost(t, sizeof t);
    /* the budget of reads (4,000,000) holds the walk to about what as many
       plain bounds-checked reads cost (0.9 times here), measured in the
       same run, so a busy machine, valgrind or a sanitizer change both; the
       walk without it takes billions of steps, thousands of times longer */
    ck_assert_msg(ms < 20 * ref + 5, "%.1f ms, %.2f ms for 4M plain reads", ms, ref);
}
END_TEST

int main(void)
{
    return fo_check_tests("otlayout", 0, (const TTest *[]){test_fonts, test_class_rules, test_gpos_rules_beyond,
                                                          test_backtrack_by_coverage_and_glyph, test_pairs_by_class_zero,
                                                          test_pathological_table_is_bounded, NULL});
}
