/* theme.c — small theme helpers. The default theme's values live in one
 * place, templates/themes/default.json, read by fo_theme_default
 * (formats/theme.h). */
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
    snprintf(out, 7, "%06X", (unsigned)(c & 0xFFFFFF));
}
