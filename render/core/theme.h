/* theme.h — the look of a document: fonts, colors, chart palette, page.
 *
 * Every renderer reads styles from an fo_theme instead of hard-coding them.
 * Fixed-size fields keep a theme a plain value: copy it, no ownership. */
#ifndef FO_THEME_H
#define FO_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FO_PALETTE_MAX 12

typedef uint32_t fo_rgb; /* 0xRRGGBB */

typedef struct {
    char family[64];      /* name Office apps look up, e.g. "Liberation Sans" */
    char regular[256];    /* TrueType files for PDF/PNG, absolute paths */
    char bold[256];
    char italic[256];
    char bold_italic[256];
} fo_font;

typedef struct {
    char name[64];
    fo_font heading, body, mono;
    double body_size;          /* pt */
    double heading_size[6];    /* pt, levels 1..6 */
    double title_size;         /* pt */
    double mono_size;          /* pt */
    fo_rgb text, background, accent, heading_color, muted, link;
    fo_rgb code_fill;          /* shaded band behind code blocks */
    fo_rgb palette[FO_PALETTE_MAX];
    size_t npalette;
    struct {
        char size[16];         /* "A4" or "Letter" */
        bool landscape;
        double width, height;  /* pt, after orientation */
        double margin_top, margin_right, margin_bottom, margin_left; /* pt */
    } page;
    char header[256];          /* may hold {page} {pages} {title} {date} */
    char footer[256];
    char logo[512];            /* image path, "" = none */
    bool logo_is_png;          /* else JPEG; set with logo by the theme reader */
    int logo_width, logo_height; /* pixels, probed by the reader; 0 = not probed */
    struct {
        fo_rgb header_fill, header_text, band_fill, border;
        bool banding;
    } table;
    double slide_width, slide_height; /* pt; 16:9 = 960 x 540 */
} fo_theme;

/* Sets page width/height from page.size and page.landscape; false if unknown size. */
bool fo_theme_page_apply(fo_theme *t);
/* Writes "RRGGBB" (7 bytes with NUL). */
void fo_rgb_hex(fo_rgb c, char out[7]);

/* WCAG 2.x contrast ratio of two colours, from 1 (the same) to 21 (black
 * on white). Body text needs 4.5 (WCAG AA). */
#define FO_CONTRAST_TEXT 4.5
double fo_rgb_contrast(fo_rgb a, fo_rgb b);
/* fg if it reaches `ratio` against bg; else fg moved toward black (on a
 * light bg) or white (on a dark one) just far enough to reach it. The hue
 * is kept, so a brand's blue stays a blue. */
fo_rgb fo_rgb_readable(fo_rgb fg, fo_rgb bg, double ratio);
/* a * (1 - k) + b * k, per channel. */
fo_rgb fo_rgb_mix(fo_rgb a, fo_rgb b, double k);

/* A dark theme's light variant, for the formats whose page has no colour
 * of its own: Word prints no page background by default ("Print background
 * colors and images" is off) and Excel has none at all, only fills on the
 * cells a writer happened to touch, so white text there is white on white
 * paper. The variant keeps fonts, sizes, page, palette and the table
 * header; it puts the background at white, the theme's own dark background
 * colour as the text, and every other text colour (heading, accent, muted,
 * link, table header text) made readable on white (fo_rgb_readable); fills
 * meant to sit under text (code, table bands) are lightened toward white.
 * A light theme (text darker than its background) is copied unchanged. */
bool fo_theme_is_dark(const fo_theme *t);
void fo_theme_on_paper(const fo_theme *t, fo_theme *out);

#endif
