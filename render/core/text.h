/* text.h — text measuring from TrueType files (FreeType), line wrapping,
 * and glyph runs with fallbacks for characters a font lacks: DejaVu Sans,
 * Symbola, Droid Sans Fallback for Chinese and Japanese, Nanum Gothic for
 * Korean. Text that needs shaping (Arabic, Hebrew, Indic, Thai, combining
 * marks) goes through render/shape.h instead: HarfBuzz, FriBidi and the
 * script fonts of render/fonts.h; line breaks follow UAX #14
 * (render/linebreak.h) for text that is not plain ASCII.
 *
 * Metrics come from the font files named by the theme (never a fontconfig
 * lookup), so layout is the same on every machine. Sizes are in any unit
 * (pt or px): widths come back in the same unit. Advances are unhinted
 * (linear); kerning is applied only to shaped text (by HarfBuzz); PDF and
 * PNG draw glyphs at exactly these advances, so measured and drawn text
 * agree.
 *
 * Faces are loaded once per file path and cached for the life of the process
 * (guarded by a mutex). A file that cannot be loaded falls back to DejaVu
 * Sans; if that fails too, widths are estimated (0.55 em per character). */
#ifndef FO_TEXT_H
#define FO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FO_TEXT_FALLBACK_REGULAR "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#define FO_TEXT_FALLBACK_BOLD "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
/* Then symbols and emoji, in outline (Debian package fonts-symbola): the
 * check marks, crosses and pictographs AI-written text is full of. When
 * fonts-noto-color-emoji is installed, text with an emoji is shaped
 * instead (fo_shape_needed), each emoji sequence one glyph of the colour
 * font (render/core/emoji.h) that PDF and PNG paint as a picture. */
#define FO_TEXT_FALLBACK_SYMBOLS "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"
/* The last fallback, for CJK (Debian package fonts-droid-fallback); regular
 * only, so bold CJK text is drawn regular. Missing: those glyphs are skipped. */
#define FO_TEXT_FALLBACK_CJK "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
/* Hangul, which Droid Sans Fallback lacks (Debian package fonts-nanum):
 * TrueType outlines, so the PDF writer embeds it like the others. */
#define FO_TEXT_FALLBACK_KOREAN "/usr/share/fonts/truetype/nanum/NanumGothic.ttf"

/* Advance width of utf8[0..len) set in font_file at size. Invalid UTF-8 bytes
 * count as U+FFFD. Newlines count as zero width. */
double fo_text_width(const char *font_file, double size, const char *utf8, size_t len);

/* Vertical metrics at size: ascent (> 0), descent (> 0, below the baseline)
 * and the default line height (ascent + descent + gap). Any pointer may be NULL. */
void fo_text_metrics(const char *font_file, double size, double *ascent,
                     double *descent, double *line_height);

/* One wrapped line: bytes [start, start+len) of the input, without the space
 * it broke at; width measured. */
typedef struct {
    size_t start, len;
    double width;
} fo_text_line;

/* Breaks utf8[0..len) into lines no wider than max_width: at spaces, after
 * hyphens, at '\n' (always), and inside a word that alone is too wide
 * (between UTF-8 characters, never inside one). Writes up to cap lines and
 * returns how many there are in all (like snprintf: call with cap 0 to count).
 * Empty input gives 1 empty line. */
size_t fo_text_wrap(const char *font_file, double size, const char *utf8, size_t len,
                    double max_width, fo_text_line *lines, size_t cap);

/* Shortens utf8 to fit max_width with a trailing "…" if needed; writes the
 * result (NUL-terminated, at most cap bytes) into out and returns its length. */
size_t fo_text_ellipsize(const char *font_file, double size, const char *utf8, size_t len,
                         double max_width, char *out, size_t cap);

/* ---- glyph runs (for backends that draw glyphs themselves) -------------- */
typedef struct {
    uint32_t index;   /* glyph index in its face; 0 = no font has it (draw nothing) */
    double x;         /* pen position of the glyph origin from the text start */
    double y;         /* offset of the origin above the baseline (marks, shaped text) */
    bool fallback;    /* not from the primary font (fo_text_resolve(font_file)) */
    const char *font; /* the TrueType file index belongs to: the primary,
                       * fo_text_fallback(font_file), FO_TEXT_FALLBACK_SYMBOLS
                       * or FO_TEXT_FALLBACK_CJK;
                       * borrowed, valid for the life of the process */
} fo_glyph;

/* Glyphs of utf8[0..len), in visual order: writes up to cap and returns how
 * many in all. *width (may be NULL) receives the advance width, as
 * fo_text_width. Text that needs shaping (fo_shape_needed: right-to-left,
 * Indic, Thai, combining marks) is shaped by HarfBuzz (render/shape.h);
 * widths, wrapping and glyphs then all come from the shaped advances. */
size_t fo_text_glyphs(const char *font_file, double size, const char *utf8, size_t len,
                      fo_glyph *out, size_t cap, double *width);

/* ---- outlines (for backends whose fonts cannot reach a character) ------- */
/* Path commands in em units, y up, origin at the pen position. */
typedef struct {
    void (*move)(void *ctx, double x, double y);
    void (*line)(void *ctx, double x, double y);
    void (*cubic)(void *ctx, double x1, double y1, double x2, double y2, double x, double y);
} fo_text_path;

/* The outline of character cp as fo_text_glyphs would draw it from font_file
 * (primary, then the fallbacks), sent to path (may be NULL: only asks), and
 * its advance in em in *advance (may be NULL). False when no font has cp or
 * its glyph is not an outline. libharu, for one, cannot show characters
 * outside the BMP; the PDF writer draws them (emoji) with this. */
bool fo_text_outline(const char *font_file, uint32_t cp, const fo_text_path *path, void *ctx,
                     double *advance);

/* The outline of glyph gid of the TrueType file font_path itself (no
 * fallback), as fo_text_outline; for glyphs shaping chose (fo_shape gives
 * the file and id). False when the file or glyph cannot be loaded. */
bool fo_text_glyph_outline(const char *font_path, uint32_t gid, const fo_text_path *path,
                           void *ctx);

/* True when the TrueType file font_file itself (no fallback) maps cp to a
 * glyph: a cmap lookup in the face this module keeps. */
bool fo_text_has_char(const char *font_file, uint32_t cp);
/* Format characters that draw nothing and take no width, in every writer and
 * both text paths (shaped and not): zero-width space, joiners and direction
 * marks (U+200B-200F), bidi embeddings and overrides (U+202A-202E), word
 * joiner and invisible operators (U+2060-2064), isolates (U+2066-2069), the
 * byte order mark (U+FEFF). They keep the font of the text around them. */
bool fo_text_invisible(uint32_t c);

/* The first file tried for glyphs font_file lacks (DejaVu Sans, bold for a
 * bold file; FO_TEXT_FALLBACK_CJK comes after it), and the one used for the
 * whole text when font_file cannot be loaded. */
const char *fo_text_fallback(const char *font_file);
/* The file actually used as primary: font_file, or the fallback when it
 * cannot be loaded. Never NULL. */
const char *fo_text_resolve(const char *font_file);

/* Font files are read once per process and kept, by path (FreeType maps
 * them): a file must not change while a process renders with it. This
 * forgets every loaded face, for a process that renders again after its
 * font files changed (the fuzz targets); no text call may run meanwhile. */
void fo_text_forget_fonts(void);

/* ---- characters no font has ------------------------------------------------ */
/* Measuring, glyph runs and shaping note every character that no font of the
 * chain draws (per thread, at most FO_TEXT_MISSING_MAX distinct ones);
 * fo_render takes them after each render and warns once, naming them. */
#define FO_TEXT_MISSING_MAX 16
void fo_text_missing_note(uint32_t cp);
/* Copies up to cap noted characters to out (may be NULL) and forgets them
 * all; returns how many were noted (at most FO_TEXT_MISSING_MAX). */
size_t fo_text_missing_take(uint32_t *out, size_t cap);

#endif
