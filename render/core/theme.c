/* theme.c — small theme helpers. The default theme's values live in one
 * place, templates/themes/default.json, read by fo_theme_default
 * (formats/theme.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/core/theme.h"

bool fo_theme_page_apply(fo_theme *t)
{
    double w, h;
    if (strcmp(t->page.size, "A4") == 0) { w = 595.276; h = 841.890; }
    else if (strcmp(t->page.size, "Letter") == 0) { w = 612; h = 792; }
    else return false;
    t->page.width = t->page.landscape ? h : w;
    t->page.height = t->page.landscape ? w : h;
    return true;
}

void fo_rgb_hex(fo_rgb c, char out[7])
{
    static const char digits[] = "0123456789ABCDEF"; /* "%06X", without printf */
    for (int k = 0; k < 6; k++) out[k] = digits[(c >> (20 - 4 * k)) & 0xF];
    out[6] = '\0';
}

/* sRGB channel to linear light (WCAG 2.x relative luminance). */
static double lin(unsigned c8)
{
    double c = c8 / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double luminance(fo_rgb c)
{
    return 0.2126 * lin((c >> 16) & 0xFF) + 0.7152 * lin((c >> 8) & 0xFF) + 0.0722 * lin(c & 0xFF);
}

double fo_rgb_contrast(fo_rgb a, fo_rgb b)
{
    double la = luminance(a), lb = luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

fo_rgb fo_rgb_mix(fo_rgb a, fo_rgb b, double k)
{
    fo_rgb out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double x = ((a >> sh) & 0xFF) * (1 - k) + ((b >> sh) & 0xFF) * k;
        out |= (fo_rgb)lround(x < 0 ? 0 : x > 255 ? 255 : x) << sh;
    }
    return out;
}

fo_rgb fo_rgb_readable(fo_rgb fg, fo_rgb bg, double ratio)
{
    fg &= 0xFFFFFF;
    if (fo_rgb_contrast(fg, bg) >= ratio) return fg;
    /* toward the pole with the more room; then the least step that reaches the
     * ratio (contrast grows monotonically along the way); the pole itself when
     * even that falls short, the best there is */
    fo_rgb pole = fo_rgb_contrast(0x000000, bg) >= fo_rgb_contrast(0xFFFFFF, bg) ? 0x000000 : 0xFFFFFF;
    for (int step = 1; step <= 20; step++) {
        fo_rgb c = fo_rgb_mix(fg, pole, step / 20.0);
        if (fo_rgb_contrast(c, bg) >= ratio) return c;
    }
    return pole;
}

bool fo_theme_is_dark(const fo_theme *t)
{
    return luminance(t->text) > luminance(t->background);
}

void fo_theme_on_paper(const fo_theme *t, fo_theme *out)
{
    *out = *t;
    if (!fo_theme_is_dark(t)) return;
    const fo_rgb white = 0xFFFFFF;
    out->background = white;
    out->text = fo_rgb_readable(t->background, white, 7);
    out->heading_color = fo_rgb_readable(t->accent, white, FO_CONTRAST_TEXT);
    out->accent = fo_rgb_readable(t->accent, white, FO_CONTRAST_TEXT);
    out->muted = fo_rgb_readable(t->muted, white, FO_CONTRAST_TEXT);
    out->link = fo_rgb_readable(t->link, white, FO_CONTRAST_TEXT);
    out->code_fill = fo_rgb_mix(t->code_fill, white, 0.9);
    out->table.band_fill = fo_rgb_mix(t->table.band_fill, white, 0.9);
    out->table.border = fo_rgb_mix(t->table.border, white, 0.4);
    out->table.header_text = fo_rgb_readable(t->table.header_text, t->table.header_fill, FO_CONTRAST_TEXT);
}
