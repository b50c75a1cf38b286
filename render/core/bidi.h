/* bidi.h — UAX #9 over a whole paragraph, for writers that lay out styled
 * runs themselves: embedding levels of every byte (FriBidi, paired
 * brackets), then, line by line after wrapping, the visual order of the
 * line's pieces (rule L2). A style change inside right-to-left text (bold
 * inside Arabic, an italic number, a Latin name cut across two styles) is
 * placed where the paragraph's bidi puts it, not where its style starts.
 *
 * render/shape.h shapes one piece in one direction; these functions say
 * which direction each piece has and in which order the pieces go. */
#ifndef FO_BIDI_H
#define FO_BIDI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/core/shape.h"

/* Resolves the embedding levels of utf8[0..len) as one paragraph of base
 * direction dir (FO_DIR_AUTO: its first strong character, else left to
 * right): levels[i] is the level of the character byte i belongs to (even:
 * left to right, odd: right to left). Returns the paragraph's direction
 * (FO_DIR_LTR or FO_DIR_RTL); FO_DIR_AUTO when out of memory (levels are
 * then all the paragraph's level 0). levels has len bytes. */
fo_dir fo_bidi_levels(const char *utf8, size_t len, fo_dir dir, uint8_t *levels);

/* UAX #9 L2 over n pieces of one line given in logical order with their
 * levels: writes to order[0..n) the logical index of the piece drawn first
 * (leftmost), then the next, and so on. */
void fo_bidi_order(const uint8_t *levels, size_t n, size_t *order);

#endif
