/* otlayout.h — what HarfBuzz's API does not say of a font's GSUB and GPOS
 * tables, read from their bytes: where a context rule can match a glyph.
 *
 * hb_ot_layout_lookup_collect_glyphs lists the glyphs a lookup names, in
 * three sets (before, input, after), but not where in a rule: a glyph that
 * is the furthest a rule looks (nothing past it is looked at) and one in
 * the middle of its backtrack both land in "before". And a class-based
 * (format 2) rule can also name class 0, every glyph its class definition
 * does not list ("a letter followed by anything else"), which
 * collect_glyphs does not list at all. shape.c asks where the space can be
 * matched before it shapes a font word by word (shape.c's words_mode). */
#ifndef FO_OTLAYOUT_H
#define FO_OTLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a glyph can be matched by the context rules of a table. */
typedef enum {
    FO_OT_NOWHERE = 0,   /* by no rule */
    FO_OT_EDGE = 1,      /* only at a rule's ends, and never changed by it:
                          * the outermost glyph of its backtrack, or the last
                          * glyph it looks at ahead (of its lookahead, or of
                          * its input when it has none, no lookup applied
                          * there); so nothing past the glyph can decide
                          * whether a rule matches */
    FO_OT_BEYOND = 2,    /* also inside the backtrack of GPOS rules that skip
                          * no glyph: they look past it, at glyphs whose ids
                          * are final by then (GSUB is done); fo_ot_beyond
                          * says what those must be */
    FO_OT_ANYWHERE = 3,  /* elsewhere too: a rule applies at it or looks past
                          * it ahead, inside a GSUB backtrack or one that
                          * skips glyphs */
} fo_ot_reach;

/* What a GPOS rule that matches the glyph inside its backtrack asks of the
 * glyphs before it: its backtrack values [from, count), the first for the
 * glyph just before. Offsets are from the table's start. */
typedef struct {
    uint8_t kind;          /* its values are glyph ids (0), classes (1) or coverages (2) */
    uint32_t sub;          /* the subtable (coverage offsets count from it) */
    uint32_t classes;      /* kind 1: the backtrack class definition; 0 = none */
    uint32_t seq;          /* the backtrack values */
    uint16_t from, count;
} fo_ot_beyond;

/* Where glyph can be matched by the context subtables (GSUB types 5, 6 and
 * 8, GPOS types 7 and 8, formats 1 to 3, directly or through an extension)
 * of the GSUB or GPOS table data[0..len) (gpos: which of the two): by glyph
 * id, by coverage, or by class (class 0 included); FO_OT_ANYWHERE for any
 * context lookup that skips glyphs (lookup flags that ignore marks, bases
 * or ligatures, or a mark filter: it can look past the glyph without
 * matching it). Also GPOS pair positioning by classes (type 2, format 2),
 * where class 0 of the second class definition can be the glyph: at the
 * edge when only the first glyph of the pair moves. Other lookup types are
 * left to collect_glyphs.
 * FO_OT_BEYOND writes what each such rule asks to beyond[0..cap) (may be
 * NULL with cap 0), their number to *nbeyond (FO_OT_ANYWHERE when there are
 * more than cap). FO_OT_ANYWHERE too when the table cannot be read to the
 * end of what it claims (a malformed table is assumed to match).
 * FO_OT_NOWHERE for an empty table (len 0). */
fo_ot_reach fo_ot_context_reach(const uint8_t *data, size_t len, bool gpos, uint16_t glyph,
                                fo_ot_beyond *beyond, size_t cap, size_t *nbeyond);

/* True when the glyphs before[0..n) (before[0] just before the glyph, ids
 * as GPOS sees them) are what rule b asks of them; false when there are too
 * few (the rule runs out of glyphs: no match) or data cannot be read. */
bool fo_ot_beyond_matches(const uint8_t *data, size_t len, const fo_ot_beyond *b,
                          const uint16_t *before, size_t n);

#endif
