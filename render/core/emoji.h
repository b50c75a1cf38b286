/* emoji.h — colour emoji from Noto Color Emoji (Debian fonts-noto-color-emoji,
 * CBDT colour bitmaps through FreeType), for the PDF and PNG writers to draw
 * as pictures where the text layout put the outline glyph (Symbola).
 *
 * Layout does not change: the emoji is measured as before (Symbola's
 * advance) and its colour picture is scaled into that box. When the font is
 * not installed, fo_emoji_is is false and the writers keep drawing Symbola's
 * outline in the text colour. Loaded once per process (guarded by a mutex). */
#ifndef FO_EMOJI_H
#define FO_EMOJI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FO_EMOJI_FONT "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"

/* True when cp is a pictograph (U+2300..U+2BFF symbols and dingbats, U+1F000
 * and above) that the colour font draws. Digits, '#', '©' and the like, which
 * the font also has for keycaps, are not. */
bool fo_emoji_is(uint32_t cp);

/* True when utf8[0..len) has a character fo_emoji_is takes. */
bool fo_emoji_any(const char *utf8, size_t len);

/* One emoji's colour picture: RGBA rows (not premultiplied), top row first,
 * fo_malloc'd (the caller frees rgba). */
typedef struct {
    unsigned char *rgba;
    int w, h;                 /* pixels */
} fo_emoji_image;

/* Where to draw it for a glyph of advance adv set at size (any unit): a box
 * from the pen position (dx right, top above the baseline, w wide, h high),
 * scaled as the font's own glyph but no wider than adv, centred in it. */
typedef struct {
    double dx, top, w, h;
} fo_emoji_box;

/* The picture of cp (fo_emoji_is) and its box; false when it cannot be
 * loaded or out of memory (then draw the outline). img may be NULL (only
 * the box). */
bool fo_emoji_get(uint32_t cp, double size, double adv, fo_emoji_image *img, fo_emoji_box *box);

#endif
