/* emoji.c — colour emoji pictures from Noto Color Emoji (see emoji.h). */
#include <pthread.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "folio.h"
#include "render/core/emoji.h"
#include "render/core/utf8.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FT_Library lib;
static FT_Face face;        /* NULL: not installed or not loadable */
static bool tried;

/* The face at its bitmap strike; caller holds the lock. */
static FT_Face face_get(void)
{
    if (tried) return face;
    tried = true;
    if (FT_Init_FreeType(&lib) != 0) return NULL;
    if (FT_New_Face(lib, FO_EMOJI_FONT, 0, &face) != 0) { face = NULL; return NULL; }
    if (!FT_HAS_COLOR(face) || face->num_fixed_sizes < 1 || FT_Select_Size(face, 0) != 0) {
        FT_Done_Face(face);
        face = NULL;
    }
    return face;
}

static bool pictograph(uint32_t cp)
{
    return (cp >= 0x2300 && cp <= 0x2BFF) || (cp >= 0x1F000 && cp <= 0x1FAFF);
}

bool fo_emoji_is(uint32_t cp)
{
    if (!pictograph(cp)) return false;
    pthread_mutex_lock(&lock);
    FT_Face f = face_get();
    bool has = f && FT_Get_Char_Index(f, cp) != 0;
    pthread_mutex_unlock(&lock);
    return has;
}

bool fo_emoji_any(const char *utf8, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char b = (unsigned char)utf8[i];
        if (b < 0xE2) { i++; continue; }   /* below U+2000: no pictograph */
        if (fo_emoji_is(fo_utf8_next(utf8, len, &i))) return true;
    }
    return false;
}

/* FreeType's BGRA (premultiplied) to straight RGBA. */
static unsigned char *to_rgba(const FT_Bitmap *bm)
{
    unsigned char *out = fo_malloc((size_t)bm->width * bm->rows * 4 + 1);
    if (!out) return NULL;
    for (unsigned y = 0; y < bm->rows; y++) {
        const unsigned char *row = bm->buffer + (ptrdiff_t)y * bm->pitch;
        for (unsigned x = 0; x < bm->width; x++) {
            const unsigned char *p = row + x * 4;
            unsigned char *q = out + ((size_t)y * bm->width + x) * 4;
            unsigned a = p[3];
            q[0] = a ? (unsigned char)((p[2] * 255 + a / 2) / a) : 0;
            q[1] = a ? (unsigned char)((p[1] * 255 + a / 2) / a) : 0;
            q[2] = a ? (unsigned char)((p[0] * 255 + a / 2) / a) : 0;
            q[3] = (unsigned char)a;
        }
    }
    return out;
}

bool fo_emoji_get(uint32_t cp, double size, double adv, fo_emoji_image *img, fo_emoji_box *box)
{
    bool ok = false;
    pthread_mutex_lock(&lock);
    FT_Face f = face_get();
    if (f && pictograph(cp) && FT_Load_Char(f, cp, FT_LOAD_COLOR | FT_LOAD_RENDER) == 0 &&
        f->glyph->bitmap.pixel_mode == FT_PIXEL_MODE_BGRA && f->glyph->bitmap.width > 0) {
        const FT_GlyphSlot g = f->glyph;
        double ppem = f->size->metrics.y_ppem ? f->size->metrics.y_ppem : 109;
        double px_adv = g->advance.x / 64.0 > 0 ? g->advance.x / 64.0 : g->bitmap.width;
        double s = size / ppem;                        /* units per pixel */
        if (adv > 0 && px_adv * s > adv) s = adv / px_adv;
        box->w = g->bitmap.width * s;
        box->h = g->bitmap.rows * s;
        box->dx = ((adv > 0 ? adv : px_adv * s) - box->w) / 2;
        box->top = g->bitmap_top * s;
        ok = true;
        if (img) {
            img->w = (int)g->bitmap.width;
            img->h = (int)g->bitmap.rows;
            ok = (img->rgba = to_rgba(&g->bitmap)) != NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}
