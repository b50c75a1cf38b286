/* emoji.h — colour emoji from Noto Color Emoji (Debian fonts-noto-color-emoji,
 * CBDT colour bitmaps through FreeType): which text is an emoji sequence, and
 * the picture of each of the font's glyphs, for the PDF and PNG writers.
 *
 * An emoji sequence (UTS #51: a ZWJ sequence such as 👨‍👩‍👧, a flag of two
 * regional indicators, a skin-tone modifier sequence, a keycap, a character
 * with VS16, a tag sequence) is shaped by HarfBuzz on the colour font itself
 * (render/core/shape.c), whose GSUB makes it one glyph: layout reserves that
 * glyph's advance, and the writers draw the glyph's picture, fetched by
 * glyph id. When the font is not installed (or cannot be read), nothing is
 * an emoji: text keeps Symbola's outlines, one per character. Loaded once
 * per process (guarded by a mutex). */
#ifndef FO_EMOJI_H
#define FO_EMOJI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FO_EMOJI_FONT "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"

/* True when cp is a pictograph (U+2300..U+2BFF symbols and dingbats, U+1F000
 * and above) that the colour font draws. Digits, '#', '©' and the like, which
 * the font also has, are emoji only in a sequence (keycap, VS16). */
bool fo_emoji_is(uint32_t cp);

/* True when cp is in the pictograph ranges above, whether the font has it or
 * not: the cheap test that comes first (no font, no lock). */
bool fo_emoji_pictograph(uint32_t cp);

/* How many code points of cp[0..n) form the emoji sequence starting at
 * cp[0] (UTS #51, ED-17, as the colour font draws it):
 *   flag      two regional indicators;
 *   keycap    [0-9#*] U+FE0F? U+20E3;
 *   ZWJ       element (U+200D element)*, an element being a character the
 *             font has followed by U+FE0F, or a pictograph (fo_emoji_is),
 *             then a skin-tone modifier (U+1F3FB..U+1F3FF) or U+FE0F, then
 *             tags (U+E0020..U+E007E, ended by U+E007F);
 * 0 when cp[0] starts none: text, including a pictograph followed by
 * U+FE0E (text presentation), a pictograph of text presentation by default
 * standing alone (Emoji_Presentation=No, as ❤ U+2764 and ⚠ U+26A0: with
 * U+FE0F, a skin tone or in a ZWJ sequence it is emoji), and every
 * character without the font. */
size_t fo_emoji_sequence(const uint32_t *cp, size_t n);

/* fo_emoji_sequence on UTF-8: the bytes of the sequence starting at
 * utf8[0] (at most 32 code points), or 0. */
size_t fo_emoji_sequence_utf8(const char *utf8, size_t len);

/* True when c is a regional indicator (U+1F1E6..U+1F1FF): two make a flag. */
bool fo_emoji_regional(uint32_t c);

/* True when utf8[0..len) has an emoji sequence (a pictograph, or U+FE0F
 * or U+20E3 after a character the font has). */
bool fo_emoji_any(const char *utf8, size_t len);

/* One emoji's colour picture: RGBA rows (not premultiplied), top row first,
 * fo_malloc'd (the caller frees rgba). */
typedef struct {
    unsigned char *rgba;
    int w, h;                 /* pixels */
} fo_emoji_image;

/* Where to draw it for a glyph of advance adv set at size (any unit): a box
 * from the pen position (dx right, top above the baseline, w wide, h high),
 * scaled as the font's own glyph but no wider than adv (adv 0: the glyph's
 * own advance), centred in it. */
typedef struct {
    double dx, top, w, h;
} fo_emoji_box;

/* The picture of glyph gid of FO_EMOJI_FONT (as shaping chose it) and its
 * box; false when it cannot be loaded or out of memory (then the writer
 * draws nothing there). img may be NULL (only the box). */
bool fo_emoji_glyph(uint32_t gid, double size, double adv, fo_emoji_image *img, fo_emoji_box *box);

#endif
