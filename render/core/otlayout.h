/* otlayout.h — what HarfBuzz's API does not say of a font's GSUB and GPOS
 * tables, read from their bytes.
 *
 * hb_ot_layout_lookup_collect_glyphs lists the glyphs a lookup names: its
 * coverages and the glyphs its class definitions list. A class-based
 * (format 2) context rule can also name class 0, every glyph its class
 * definition does not list ("a letter followed by anything else"), and
 * collect_glyphs does not list those. shape.c asks whether the space can be
 * matched that way before it shapes a font word by word. */
#ifndef FO_OTLAYOUT_H
#define FO_OTLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when a class-based (format 2) context or chained-context subtable
 * (directly or through an extension) of the GSUB or GPOS table
 * data[0..len) (gpos: which of the two) has a rule whose backtrack, input
 * after its first glyph, or lookahead asks for the class glyph has in that
 * position's class definition. Also true when the table cannot be read to
 * the end of what it claims (a malformed table is assumed to). False for
 * an empty table (len 0). */
bool fo_ot_context_class_matches(const uint8_t *data, size_t len, bool gpos, uint16_t glyph);

#endif
