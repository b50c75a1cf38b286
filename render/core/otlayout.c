/* otlayout.c — class-based context rules of GSUB and GPOS (see otlayout.h).
 *
 * Layouts from the OpenType spec (Common Table Formats; GSUB lookup types 5,
 * 6 and 7; GPOS types 7, 8 and 9). Every read is bounds-checked, and a
 * walk is bounded by a work budget: offsets may point many lookups, sets or
 * rules at the same bytes, so a small file could otherwise ask for billions
 * of steps. Both a read past the end and an exhausted budget answer "it
 * may match". */
#include "render/core/otlayout.h"

#define BUDGET 4000000u   /* values read, at most: a few ms */

typedef struct {
    const uint8_t *p;
    size_t n;
    uint32_t work;
    bool bad;             /* read past the end, or out of budget */
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

/* The class of glyph g in the class definition at cd (0 when not listed). */
static uint16_t class_of(table *t, size_t cd, uint16_t g)
{
    uint16_t format = u16(t, cd);
    if (format == 1) {
        uint16_t start = u16(t, cd + 2), count = u16(t, cd + 4);
        return g >= start && g - start < count ? u16(t, cd + 6 + 2 * (size_t)(g - start)) : 0;
    }
    if (format == 2) {
        uint16_t ranges = u16(t, cd + 2);
        for (size_t i = 0; i < ranges && !t->bad; i++) {
            size_t r = cd + 4 + 6 * i;
            if (g >= u16(t, r) && g <= u16(t, r + 2)) return u16(t, r + 4);
        }
        return 0;
    }
    t->bad = true;        /* no other format exists */
    return 0;
}

/* The class of g in the class definition whose offset (from s) is at
 * s + at: 0 when that offset is NULL, as for any glyph it does not list. */
static uint16_t class_at(table *t, size_t s, size_t at, uint16_t g)
{
    uint16_t off = u16(t, s + at);
    return off ? class_of(t, s + off, g) : 0;
}

/* True when one of the count class values at off is cls. */
static bool seq_has(table *t, size_t off, size_t count, uint16_t cls)
{
    for (size_t i = 0; i < count && !t->bad; i++)
        if (u16(t, off + 2 * i) == cls) return true;
    return false;
}

/* Each rule of each rule set of the format 2 subtable at s, whose sets'
 * offsets start at sets (count at sets - 2); rule(t, r, classes) says
 * whether the rule at r asks for one of the glyph's classes. */
typedef bool (*rule_fn)(table *t, size_t r, const uint16_t *cls);

static bool sets_match(table *t, size_t s, size_t sets, rule_fn rule, const uint16_t *cls)
{
    uint16_t nsets = u16(t, sets - 2);
    for (size_t i = 0; i < nsets && !t->bad; i++) {
        uint16_t so = u16(t, sets + 2 * i);
        if (!so) continue;                      /* no rule starts with class i */
        size_t set = s + so;
        uint16_t nrules = u16(t, set);
        for (size_t k = 0; k < nrules && !t->bad; k++)
            if (rule(t, set + u16(t, set + 2 + 2 * k), cls)) return true;
    }
    return false;
}

/* Context format 2 rule: glyphCount, seqLookupCount, inputSequence[glyphCount - 1]. */
static bool context_rule(table *t, size_t r, const uint16_t *cls)
{
    uint16_t glyphs = u16(t, r);
    return glyphs > 1 && seq_has(t, r + 4, glyphs - 1u, cls[0]);
}

/* Chained context format 2 rule: backtrack count and classes, input count
 * and classes after the first, lookahead count and classes. */
static bool chain_rule(table *t, size_t r, const uint16_t *cls)
{
    uint16_t nb = u16(t, r);
    if (seq_has(t, r + 2, nb, cls[0])) return true;
    size_t i = r + 2 + 2 * (size_t)nb;
    uint16_t ni = u16(t, i);
    if (ni > 1 && seq_has(t, i + 2, ni - 1u, cls[1])) return true;
    size_t l = i + 2 + 2 * (size_t)(ni ? ni - 1 : 0);
    return seq_has(t, l + 2, u16(t, l), cls[2]);
}

/* The subtable at s of lookup type type. */
static bool subtable_matches(table *t, size_t s, uint16_t type, bool gpos, uint16_t glyph)
{
    uint16_t ext = gpos ? 9 : 7, context = gpos ? 7 : 5, chain = gpos ? 8 : 6;
    if (type == ext) {
        if (u16(t, s) != 1) { t->bad = true; return true; }
        type = u16(t, s + 2);
        s += u32(t, s + 4);
        if (type == ext) { t->bad = true; return true; }   /* an extension of an extension */
    }
    if (u16(t, s) != 2) return false;           /* formats 1 and 3 list their glyphs */
    if (type == context) {
        uint16_t cls[1] = {class_at(t, s, 4, glyph)};
        return sets_match(t, s, s + 8, context_rule, cls);
    }
    if (type == chain) {
        uint16_t cls[3] = {class_at(t, s, 4, glyph), class_at(t, s, 6, glyph), class_at(t, s, 8, glyph)};
        return sets_match(t, s, s + 12, chain_rule, cls);
    }
    return false;
}

bool fo_ot_context_class_matches(const uint8_t *data, size_t len, bool gpos, uint16_t glyph)
{
    if (!data || len == 0) return false;
    table t = {data, len, 0, false};
    size_t list = u16(&t, 8);                   /* header: version (4 bytes), three offsets */
    if (!list) return t.bad;                    /* no lookup list: no lookup */
    uint16_t lookups = u16(&t, list);
    for (size_t i = 0; i < lookups && !t.bad; i++) {
        size_t l = list + u16(&t, list + 2 + 2 * i);
        uint16_t type = u16(&t, l), subs = u16(&t, l + 4);
        for (size_t k = 0; k < subs && !t.bad; k++)
            if (subtable_matches(&t, l + u16(&t, l + 6 + 2 * k), type, gpos, glyph)) return true;
    }
    return t.bad;
}
