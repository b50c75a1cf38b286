/* theme.c — the built-in default theme and small theme helpers.
 *
 * Fonts: Liberation Sans/Mono (metric-compatible with Arial/Courier New, so
 * Office documents lay out the same where only Arial exists), installed by
 * `make deps` from Debian's fonts-liberation; DejaVu as the wide-coverage
 * fallback for PDF/PNG text outside Latin-1. */
#include <stdio.h>
#include <string.h>

#include "render/core/theme.h"

#define LIB "/usr/share/fonts/truetype/liberation/"

static void set_font(fo_font *f, const char *family, const char *stem)
{
    snprintf(f->family, sizeof f->family, "%s", family);
    snprintf(f->regular, sizeof f->regular, LIB "%s-Regular.ttf", stem);
    snprintf(f->bold, sizeof f->bold, LIB "%s-Bold.ttf", stem);
    snprintf(f->italic, sizeof f->italic, LIB "%s-Italic.ttf", stem);
    snprintf(f->bold_italic, sizeof f->bold_italic, LIB "%s-BoldItalic.ttf", stem);
}

void fo_theme_default(fo_theme *t)
{
    static const fo_rgb palette[] = {
        0x2F5597, 0xED7D31, 0x70AD47, 0xFFC000, 0x5B9BD5, 0xA5A5A5,
        0x7030A0, 0x264478, 0x9E480E, 0x43682B
    };
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "default");
    set_font(&t->heading, "Liberation Sans", "LiberationSans");
    set_font(&t->body, "Liberation Sans", "LiberationSans");
    set_font(&t->mono, "Liberation Mono", "LiberationMono");
    t->body_size = 10.5;
    const double hs[6] = {20, 16, 13, 12, 11, 10.5};
    memcpy(t->heading_size, hs, sizeof hs);
    t->title_size = 28;
    t->mono_size = 9;
    t->text = 0x222222;
    t->background = 0xFFFFFF;
    t->accent = 0x2F5597;
    t->heading_color = 0x1F3864;
    t->muted = 0x666666;
    t->link = 0x0563C1;
    t->code_fill = 0xF2F2F2;
    memcpy(t->palette, palette, sizeof palette);
    t->npalette = sizeof palette / sizeof *palette;
    snprintf(t->page.size, sizeof t->page.size, "A4");
    t->page.landscape = false;
    t->page.margin_top = t->page.margin_bottom = 56.7;  /* 2 cm */
    t->page.margin_left = t->page.margin_right = 56.7;
    fo_theme_page_apply(t);
    snprintf(t->footer, sizeof t->footer, "Page {page} of {pages}");
    t->table.header_fill = 0x2F5597;
    t->table.header_text = 0xFFFFFF;
    t->table.band_fill = 0xEEF3FA;
    t->table.border = 0xBFBFBF;
    t->table.banding = true;
    t->slide_width = 960;
    t->slide_height = 540;
}

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
    snprintf(out, 7, "%06X", (unsigned)(c & 0xFFFFFF));
}
