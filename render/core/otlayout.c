/* otlayout.c — where the context rules of GSUB and GPOS can match a glyph
 * (see otlayout.h).
 *
 * Layouts from the OpenType spec (Common Table Formats; GSUB lookup types 5,
 * 6, 7 and 8; GPOS types 2, 7, 8 and 9). A backtrack sequence is stored
 * nearest glyph first, so its last entry is the outermost. Every read is
 * bounds-checked, and a walk is bounded by a work budget: offsets may point
 * many lookups, sets or rules at the same bytes, so a small file could
 * otherwise ask for billions of steps. Both a read past the end and an
 * exhausted budget answer "anywhere". */
#include "render/core/otlayout.h"

#define BUDGET 4000000u   /* values read, at most: a few ms */

typedef struct {
    const uint8_t *p;
    size_t n;
    uint32_t work;
    bool bad;             /* read past the end, or out of budget */
    uint16_t glyph;       /* the glyph asked about */
    bool gpos;
    uint16_t flags;       /* of the lookup being read */
    fo_ot_beyond *beyond; /* rules that look past the glyph (FO_OT_BEYOND) */
    size_t cap, nbeyond;
} table;

static uint16_t u16(table *t, size_t off)
{
    if (t->bad || off > t->n || t->n - off < 2 || ++t->work > BUDGET) {
        t->bad = true;
        return 0;
    }
    return (uint16_t)(t->p[off] << 8 | t->p[off + 1]);
}

static uint32_t u32(table *t, size_t off)
{
    return (uint32_t)u16(t, off) << 16 | u16(t, off + 2);
}

static fo_ot_reach max_reach(fo_ot_reach a, fo_ot_reach b) { return a > b ? a : b; }

/* The class of the glyph in the class definition at cd (0 when not listed). */
static uint16_t class_of(table *t, size_t cd)
{
    uint16_t g = t->glyph, format = u16(t, cd);
    if (format == 1) {
        uint16_t start = u16(t, cd + 2), count = u16(t, cd + 4);
        return g >= start && g - start < count ? u16(t, cd + 6 + 2 * (size_t)(g - start)) : 0;
    }
    if (format == 2) {             /* ranges sorted by glyph (HarfBuzz searches them so too) */
        size_t lo = 0, hi = u16(t, cd + 2);
        while (lo < hi && !t->bad) {
            size_t mid = lo + (hi - lo) / 2, r = cd + 4 + 6 * mid;
            if (g < u16(t, r)) hi = mid;
            else if (g > u16(t, r + 2)) lo = mid + 1;
            else return u16(t, r + 4);
        }
        return 0;
    }
    t->bad = true;        /* no other format exists */
    return 0;
}

/* The class of the glyph in the class definition whose offset (from s) is
 * at s + at: 0 when that offset is NULL, as for any glyph it does not list. */
static uint16_t class_at(table *t, size_t s, size_t at)
{
    uint16_t off = u16(t, s + at);
    return off ? class_of(t, s + off) : 0;
}

/* Whether the coverage table at cov lists the glyph. Its glyphs and ranges
 * are sorted (HarfBuzz searches them the same way). */
static bool covered(table *t, size_t cov)
{
    uint16_t format = u16(t, cov), count = u16(t, cov + 2);
    size_t lo = 0, hi = count, width = format == 1 ? 2 : 6;
    if (format != 1 && format != 2) { t->bad = true; return true; }
    while (lo < hi && !t->bad) {
        size_t mid = lo + (hi - lo) / 2, r = cov + 4 + width * mid;
        uint16_t first = u16(t, r), last = format == 1 ? first : u16(t, r + 2);
        if (t->glyph < first) hi = mid;
        else if (t->glyph > last) lo = mid + 1;
        else return true;
    }
    return t->bad;
}

/* A sequence of count values at off: glyph ids, classes (one is asked
 * for: cls) or coverage offsets from the subtable at base. */
typedef enum { BY_GLYPH, BY_CLASS, BY_COVERAGE } seq_kind;   /* fo_ot_beyond's kinds */
typedef struct {
    seq_kind kind;
    uint16_t cls;         /* BY_CLASS: the glyph's class */
    size_t base;          /* the subtable */
    size_t classes;       /* BY_CLASS: the class definition (0: none) */
} seq_of;

static bool seq_hit(table *t, const seq_of *k, uint16_t v)
{
    switch (k->kind) {
    case BY_GLYPH: return v == t->glyph;
    case BY_CLASS: return v == k->cls;
    case BY_COVERAGE:
    default: return v && covered(t, k->base + v);   /* a NULL offset: no glyph */
    }
}

/* Whether the coverage whose offset (from s) is at s + at lists the glyph. */
static bool covered_at(table *t, size_t s, size_t at)
{
    uint16_t off = u16(t, s + at);
    return off && covered(t, s + off);
}

/* Lookup flags under which a rule skips glyphs (ignores marks, bases or
 * ligatures, or filters marks): the glyphs it matches are not the glyphs
 * that stand next to each other. */
#define SKIPS 0xFF1Eu
#define IGNORE_BASE_GLYPHS 0x0002u

/* A match inside a backtrack, at position i of count: a GPOS rule that
 * skips nothing looks at final glyph ids there, kept in t->beyond; else,
 * or past t->cap of them, anywhere. */
static fo_ot_reach inner(table *t, size_t off, size_t i, size_t count, const seq_of *k)
{
    if (!t->gpos || (t->flags & SKIPS) || t->nbeyond >= t->cap) return FO_OT_ANYWHERE;
    t->beyond[t->nbeyond++] = (fo_ot_beyond){(uint8_t)k->kind, (uint32_t)k->base,
                                             (uint32_t)k->classes, (uint32_t)off,
                                             (uint16_t)(i + 1), (uint16_t)count};
    return FO_OT_BEYOND;
}

/* How a sequence of a rule is placed: its backtrack (the last entry the
 * outermost), its input after the first glyph, or its lookahead. */
typedef enum { BACKTRACK, INPUT, LOOKAHEAD } seq_role;

/* Where the glyph is matched in the sequence of count values at off, of
 * the given role. At its last position, an input with no lookahead after
 * it (last) whose records (nrec at rec, 4 bytes each: sequence index, then
 * lookup) apply no lookup there, and a lookahead, match at the rule's
 * edge; input positions count from 1 (the first glyph is the coverage). */
typedef struct {
    seq_role role;
    bool last;            /* INPUT: no lookahead follows */
    size_t rec, nrec;     /* INPUT: the rule's lookup records */
} seq_place;

static bool record_at(table *t, const seq_place *p, size_t index)
{
    for (size_t k = 0; k < p->nrec && !t->bad; k++)
        if (u16(t, p->rec + 4 * k) == index) return true;
    return false;
}

static fo_ot_reach seq_reach(table *t, size_t off, size_t count, const seq_of *k, const seq_place *p)
{
    fo_ot_reach r = FO_OT_NOWHERE;
    for (size_t i = 0; i < count && !t->bad && r != FO_OT_ANYWHERE; i++) {
        if (!seq_hit(t, k, u16(t, off + 2 * i))) continue;
        bool end = i + 1 == count;
        if (p->role == BACKTRACK) r = max_reach(r, end ? FO_OT_EDGE : inner(t, off, i, count, k));
        else if (p->role == LOOKAHEAD) r = max_reach(r, end ? FO_OT_EDGE : FO_OT_ANYWHERE);
        else r = max_reach(r, end && p->last && !record_at(t, p, i + 1) ? FO_OT_EDGE : FO_OT_ANYWHERE);
    }
    return r;
}

/* What a rule of a format 1 or 2 subtable matches with: kinds[0..3) for
 * its backtrack, input and lookahead. */
typedef fo_ot_reach (*rule_fn)(table *t, size_t r, const seq_of *kinds);

/* Context rule (formats 1, 2): glyphCount, seqLookupCount, input after
 * the first, records. */
static fo_ot_reach context_rule(table *t, size_t r, const seq_of *kinds)
{
    uint16_t glyphs = u16(t, r);
    if (glyphs < 2) return FO_OT_NOWHERE;
    size_t rec = r + 4 + 2 * (size_t)(glyphs - 1u);
    seq_place in = {INPUT, true, rec, u16(t, r + 2)};
    return seq_reach(t, r + 4, glyphs - 1u, &kinds[1], &in);
}

/* Chained context rule (formats 1, 2): backtrack count and sequence, input
 * count and sequence after the first, lookahead count and sequence,
 * records count and records. */
static fo_ot_reach chain_rule(table *t, size_t r, const seq_of *kinds)
{
    static const seq_place back = {BACKTRACK, false, 0, 0}, ahead = {LOOKAHEAD, false, 0, 0};
    uint16_t nb = u16(t, r);
    fo_ot_reach reach = seq_reach(t, r + 2, nb, &kinds[0], &back);
    size_t i = r + 2 + 2 * (size_t)nb;
    uint16_t ni = u16(t, i);
    size_t l = i + 2 + 2 * (size_t)(ni ? ni - 1 : 0);
    uint16_t nl = u16(t, l);
    size_t rec = l + 2 + 2 * (size_t)nl;
    seq_place in = {INPUT, nl == 0, rec + 2, u16(t, rec)};
    if (ni > 1) reach = max_reach(reach, seq_reach(t, i + 2, ni - 1u, &kinds[1], &in));
    return max_reach(reach, seq_reach(t, l + 2, nl, &kinds[2], &ahead));
}

/* Each rule of each rule set of the subtable at s, whose sets' offsets
 * start at sets (their count at sets - 2). */
static fo_ot_reach sets_reach(table *t, size_t s, size_t sets, rule_fn rule, const seq_of *kinds)
{
    fo_ot_reach reach = FO_OT_NOWHERE;
    uint16_t nsets = u16(t, sets - 2);
    for (size_t i = 0; i < nsets && !t->bad && reach != FO_OT_ANYWHERE; i++) {
        uint16_t so = u16(t, sets + 2 * i);
        if (!so) continue;                      /* no rule starts with this glyph or class */
        size_t set = s + so;
        uint16_t nrules = u16(t, set);
        for (size_t k = 0; k < nrules && !t->bad && reach != FO_OT_ANYWHERE; k++)
            reach = max_reach(reach, rule(t, set + u16(t, set + 2 + 2 * k), kinds));
    }
    return reach;
}

/* Context subtable (GSUB 5, GPOS 7): no backtrack, so any match is anywhere. */
static fo_ot_reach context_reach(table *t, size_t s)
{
    uint16_t format = u16(t, s);
    if (format == 3) {             /* glyphCount, seqLookupCount, a coverage per glyph, records */
        uint16_t glyphs = u16(t, s + 2);
        if (glyphs == 0) return FO_OT_NOWHERE;
        if (covered_at(t, s, 6)) return FO_OT_ANYWHERE;   /* the first input glyph */
        seq_of cov = {BY_COVERAGE, 0, s, 0};
        seq_place in = {INPUT, true, s + 6 + 2 * (size_t)glyphs, u16(t, s + 4)};
        return seq_reach(t, s + 8, glyphs - 1u, &cov, &in);
    }
    if (format != 1 && format != 2) return FO_OT_NOWHERE;   /* unknown: HarfBuzz skips it */
    if (covered_at(t, s, 2)) return FO_OT_ANYWHERE;   /* the first input glyph */
    if (format == 1) {
        seq_of kinds[3] = {{BY_GLYPH, 0, s, 0}, {BY_GLYPH, 0, s, 0}, {BY_GLYPH, 0, s, 0}};
        return sets_reach(t, s, s + 6, context_rule, kinds);
    }
    seq_of kinds[3] = {{BY_CLASS, 0, s, 0}, {BY_CLASS, class_at(t, s, 4), s, 0}, {BY_CLASS, 0, s, 0}};
    return sets_reach(t, s, s + 8, context_rule, kinds);
}

/* Chained context subtable (GSUB 6, GPOS 8). */
static fo_ot_reach chain_reach(table *t, size_t s)
{
    uint16_t format = u16(t, s);
    if (format == 3) {             /* the three sequences of coverages, then records */
        static const seq_place back = {BACKTRACK, false, 0, 0}, ahead = {LOOKAHEAD, false, 0, 0};
        seq_of cov = {BY_COVERAGE, 0, s, 0};
        uint16_t nb = u16(t, s + 2);
        fo_ot_reach reach = seq_reach(t, s + 4, nb, &cov, &back);
        size_t i = s + 4 + 2 * (size_t)nb;
        uint16_t ni = u16(t, i);
        if (ni == 0) return reach;
        if (covered_at(t, s, i + 2 - s)) return FO_OT_ANYWHERE;   /* the first input glyph */
        size_t l = i + 2 + 2 * (size_t)ni;
        uint16_t nl = u16(t, l);
        size_t rec = l + 2 + 2 * (size_t)nl;
        seq_place in = {INPUT, nl == 0, rec + 2, u16(t, rec)};
        reach = max_reach(reach, seq_reach(t, i + 4, ni - 1u, &cov, &in));
        return max_reach(reach, seq_reach(t, l + 2, nl, &cov, &ahead));
    }
    if (format != 1 && format != 2) return FO_OT_NOWHERE;
    if (covered_at(t, s, 2)) return FO_OT_ANYWHERE;
    if (format == 1) {
        seq_of kinds[3] = {{BY_GLYPH, 0, s, 0}, {BY_GLYPH, 0, s, 0}, {BY_GLYPH, 0, s, 0}};
        return sets_reach(t, s, s + 6, chain_rule, kinds);
    }
    uint16_t back = u16(t, s + 4);
    seq_of kinds[3] = {{BY_CLASS, class_at(t, s, 4), s, back ? s + back : 0},
                       {BY_CLASS, class_at(t, s, 6), s, 0}, {BY_CLASS, class_at(t, s, 8), s, 0}};
    return sets_reach(t, s, s + 12, chain_rule, kinds);
}

/* Reverse chaining single substitution (GSUB 8): coverage, backtrack
 * coverages, lookahead coverages, substitutes. */
static fo_ot_reach reverse_reach(table *t, size_t s)
{
    if (u16(t, s) != 1) return FO_OT_NOWHERE;
    if (covered_at(t, s, 2)) return FO_OT_ANYWHERE;
    static const seq_place back = {BACKTRACK, false, 0, 0}, ahead = {LOOKAHEAD, false, 0, 0};
    seq_of cov = {BY_COVERAGE, 0, s, 0};
    uint16_t nb = u16(t, s + 4);
    fo_ot_reach reach = seq_reach(t, s + 6, nb, &cov, &back);
    size_t l = s + 6 + 2 * (size_t)nb;
    return max_reach(reach, seq_reach(t, l + 2, u16(t, l), &cov, &ahead));
}

/* Whether any of the count values at off is not zero. */
static bool any_value(table *t, size_t off, size_t count)
{
    for (size_t i = 0; i < count && !t->bad; i++)
        if (u16(t, off + 2 * i)) return true;
    return false;
}

/* Pair positioning by classes (GPOS 2, format 2): the glyph as the second
 * of a pair through class 0 of its second class definition ("any glyph
 * not listed"), which collect_glyphs does not list (format 1 lists its
 * second glyphs, and the first glyph is the coverage, both listed). A
 * value on the first glyph only (a letter kerned before the glyph) is at
 * the rule's edge; one on the glyph itself changes it. */
static fo_ot_reach pair_reach(table *t, size_t s)
{
    if (u16(t, s) != 2 || class_at(t, s, 10) != 0) return FO_OT_NOWHERE;
    uint16_t f1 = u16(t, s + 4), f2 = u16(t, s + 6);
    size_t n1 = u16(t, s + 12), n2 = u16(t, s + 14);
    size_t v1 = (size_t)__builtin_popcount(f1 & 0xFF), v2 = (size_t)__builtin_popcount(f2 & 0xFF);
    fo_ot_reach reach = FO_OT_NOWHERE;
    for (size_t k = 0; k < n1 && !t->bad && reach != FO_OT_ANYWHERE; k++) {
        size_t rec = s + 16 + 2 * k * n2 * (v1 + v2);   /* class 0 of the k-th first class */
        if (any_value(t, rec + 2 * v1, v2)) reach = FO_OT_ANYWHERE;
        else if (any_value(t, rec, v1)) reach = FO_OT_EDGE;
    }
    return reach;
}

/* The subtable at s of a lookup of type type (flags in t->flags). A
 * context rule or a pair that skips base glyphs can look past the glyph to
 * what is before or after it without matching it: anywhere. */
static fo_ot_reach subtable_reach(table *t, size_t s, uint16_t type)
{
    bool gpos = t->gpos;
    uint16_t ext = gpos ? 9 : 7, context = gpos ? 7 : 5, chain = gpos ? 8 : 6;
    if (type == ext) {
        if (u16(t, s) != 1) { t->bad = true; return FO_OT_ANYWHERE; }
        type = u16(t, s + 2);
        s += u32(t, s + 4);
        if (type == ext) { t->bad = true; return FO_OT_ANYWHERE; }   /* an extension of an extension */
    }
    bool any = type == context || type == chain || (!gpos && type == 8) || (gpos && type == 2);
    if (any && (t->flags & IGNORE_BASE_GLYPHS)) return FO_OT_ANYWHERE;
    if (type == context) return context_reach(t, s);
    if (type == chain) return chain_reach(t, s);
    if (!gpos && type == 8) return reverse_reach(t, s);
    if (gpos && type == 2) return pair_reach(t, s);
    return FO_OT_NOWHERE;
}

fo_ot_reach fo_ot_context_reach(const uint8_t *data, size_t len, bool gpos, uint16_t glyph,
                                fo_ot_beyond *beyond, size_t cap, size_t *nbeyond)
{
    table t = {data, len, 0, false, glyph, gpos, 0, beyond, beyond ? cap : 0, 0};
    fo_ot_reach reach = FO_OT_NOWHERE;
    if (nbeyond) *nbeyond = 0;
    if (!data || len == 0) return FO_OT_NOWHERE;
    size_t list = u16(&t, 8);                   /* header: version (4 bytes), three offsets */
    if (!list) return t.bad ? FO_OT_ANYWHERE : FO_OT_NOWHERE;   /* no lookup list: no lookup */
    uint16_t lookups = u16(&t, list);
    for (size_t i = 0; i < lookups && !t.bad && reach != FO_OT_ANYWHERE; i++) {
        size_t l = list + u16(&t, list + 2 + 2 * i);
        uint16_t type = u16(&t, l), subs = u16(&t, l + 4);
        t.flags = u16(&t, l + 2);
        for (size_t k = 0; k < subs && !t.bad && reach != FO_OT_ANYWHERE; k++)
            reach = max_reach(reach, subtable_reach(&t, l + u16(&t, l + 6 + 2 * k), type));
    }
    if (t.bad) reach = FO_OT_ANYWHERE;
    if (nbeyond && reach == FO_OT_BEYOND) *nbeyond = t.nbeyond;
    return reach;
}

bool fo_ot_beyond_matches(const uint8_t *data, size_t len, const fo_ot_beyond *b,
                          const uint16_t *before, size_t n)
{
    table t = {data, len, 0, false, 0, true, 0, NULL, 0, 0};
    if (!data || b->count < b->from || n < (size_t)(b->count - b->from)) return false;
    seq_of k = {(seq_kind)b->kind, 0, b->sub, b->classes};
    for (size_t i = b->from; i < b->count && !t.bad; i++) {
        t.glyph = before[i - b->from];
        if (k.kind == BY_CLASS) k.cls = k.classes ? class_of(&t, k.classes) : 0;
        if (!seq_hit(&t, &k, u16(&t, b->seq + 2 * i))) return false;
    }
    return !t.bad;
}
