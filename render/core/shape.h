/* shape.h — text shaping: bidi (FriBidi, UAX #9), itemizing by script and
 * font, and HarfBuzz shaping of each item, giving positioned glyph ids in
 * visual order. The one place text becomes glyphs for scripts that need it
 * (Arabic joining, Indic conjuncts and vowel signs, Thai and Hebrew marks,
 * combining diacritics, right-to-left order); text.c's measuring, wrapping
 * and glyph runs come here for such text, so layout and drawing agree.
 *
 * Fonts: an emoji sequence, the colour emoji font (emoji.h); for each other
 * character, the primary file (fo_text_resolve), then the script's font
 * (fonts.h), then DejaVu Sans, Symbola, Droid Sans Fallback;
 * spaces, digits and punctuation stay in the font of the text around them.
 * Faces are loaded once per path and kept for the life of the process
 * (guarded by a mutex). Sizes are in any unit; results in the same unit. */
#ifndef FO_SHAPE_H
#define FO_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One glyph, in visual (left-to-right drawing) order. */
typedef struct {
    uint32_t gid;       /* glyph id in font; 0 = .notdef (no font had it) */
    double x, y;        /* origin from the start of the text, y up */
    double advance;
    uint32_t cluster;   /* byte offset in the input of the character(s) it draws */
    bool rtl;           /* set right to left (its cluster's characters run leftwards) */
    const char *font;   /* TrueType file; borrowed, valid for the process */
} fo_shaped;

/* Direction of a paragraph: from its first strong character (UAX #9 P2-P3),
 * or forced. */
typedef enum { FO_DIR_AUTO = 0, FO_DIR_LTR = 1, FO_DIR_RTL = 2 } fo_dir;

/* True when utf8[0..len) needs shaping: right-to-left characters, scripts
 * with joining or reordering, combining marks, and emoji when the colour
 * emoji font is installed (each sequence is set in it as one glyph,
 * emoji.h). Plain Latin, Greek, Cyrillic and CJK text does not (text.c
 * measures it per character, faster). */
bool fo_shape_needed(const char *utf8, size_t len);

/* The direction of utf8's first strong character (UAX #9 P2-P3);
 * FO_DIR_AUTO when it has none. */
fo_dir fo_shape_direction(const char *utf8, size_t len);

/* The strong direction of the character at utf8[*i] (FO_DIR_AUTO for a
 * neutral or weak one: spaces, digits, punctuation), advancing *i past it. */
fo_dir fo_shape_direction_of(const char *utf8, size_t len, size_t *i);

/* True when utf8[0..len) has a right-to-left character (Hebrew, Arabic...):
 * Office writers mark such a run right-to-left (w:rtl) so Word orders it. */
bool fo_shape_has_rtl(const char *utf8, size_t len);

/* Shapes utf8[0..len) set in font_file at size: writes up to cap glyphs to
 * out (may be NULL with cap 0) and returns how many there are in all;
 * *width (may be NULL) gets the total advance. Newlines and controls give no
 * glyph. Invalid UTF-8 counts as U+FFFD. */
size_t fo_shape(const char *font_file, double size, const char *utf8, size_t len, fo_dir dir,
                fo_shaped *out, size_t cap, double *width);

/* Shapes the piece text[off, off+n) as fo_shape shapes it alone (its own
 * bidi levels, itemizing, fonts from font_file), except that the
 * characters around it in text[0..len) are HarfBuzz's context: letters
 * that join across the piece's ends take their joined forms. For a style
 * change inside a word (`مر**حب**ا`: each piece in its own font, still one
 * joined word). Clusters count from text + off. Only the five characters
 * either side matter (HarfBuzz keeps no more); they are part of the cache
 * key. Returns 0 for an empty or out-of-range piece. */
size_t fo_shape_in(const char *font_file, double size, const char *text, size_t len, size_t off,
                   size_t n, fo_dir dir, fo_shaped *out, size_t cap, double *width);

/* Shapes utf8[0..len) as fo_shape does, except that the bidi level of
 * each byte is given (levels[0..len), as bidi.h's fo_bidi_levels resolves
 * them over a whole paragraph) instead of resolved from the text alone: a
 * line of a paragraph shaped in one go, its level runs in the line's visual
 * order (UAX #9 L2). Not kept in the cache (lines seldom come back). */
size_t fo_shape_levels(const char *font_file, double size, const char *utf8, size_t len,
                       const uint8_t *levels, fo_shaped *out, size_t cap, double *width);

/* The first byte at or after `at` where utf8[0..len) may be cut between
 * two styles without breaking a cluster: skips the characters that belong
 * to the cluster before `at` (combining marks, ZWJ/ZWNJ, a consonant after
 * a virama: नमस्|ते goes on to नमस्ते). Shaping cannot join a cluster cut
 * in two (no font draws half a conjunct, a mark cut from its letter is set
 * on a dotted circle): a writer cuts there instead. */
size_t fo_shape_cluster_end(const char *utf8, size_t len, size_t at);

/* Forgets every font shaping loaded (see fo_text_forget_fonts). */
void fo_shape_forget_fonts(void);

#endif
