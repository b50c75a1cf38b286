/* emoji.c — colour emoji in the PDF: libharu cannot draw a font's colour
 * bitmaps (CBDT), so each distinct glyph of the colour font becomes one
 * image XObject (RGB, its alpha as a soft mask), placed in the box of the
 * glyph shaping gave it. The text layer is written by the caller
 * (shaped.c) as invisible text. */
#include <string.h>

#include "base/buf.h"
#include "render/core/emoji.h"
#include "render/pdf/pdf_int.h"

struct fo_pdf_emoji {
    uint32_t gid;
    HPDF_Image img;
};

/* The image of a picture: RGB samples and an alpha soft mask. */
static HPDF_Image image_of(fo_pdf *c, const fo_emoji_image *e)
{
    size_t n = (size_t)e->w * (size_t)e->h;
    unsigned char *rgb = fo_malloc(n * 3 + 1), *alpha = fo_malloc(n + 1);
    HPDF_Image img = NULL;
    if (rgb && alpha) {
        for (size_t i = 0; i < n; i++) {
            memcpy(rgb + i * 3, e->rgba + i * 4, 3);
            alpha[i] = e->rgba[i * 4 + 3];
        }
        img = HPDF_LoadRawImageFromMem(c->pdf, rgb, (HPDF_UINT)e->w, (HPDF_UINT)e->h,
                                       HPDF_CS_DEVICE_RGB, 8);
        HPDF_Image mask = img ? HPDF_LoadRawImageFromMem(c->pdf, alpha, (HPDF_UINT)e->w,
                                                         (HPDF_UINT)e->h, HPDF_CS_DEVICE_GRAY, 8)
                              : NULL;
        if (!mask || HPDF_Image_AddSMask(img, mask) != HPDF_OK) img = NULL;
    }
    fo_free(rgb);
    fo_free(alpha);
    return img;
}

/* The document's image for glyph gid, made on first use; NULL when it
 * cannot be. */
static HPDF_Image image_for(fo_pdf *c, uint32_t gid, const fo_emoji_image *e)
{
    for (size_t i = 0; i < c->nemoji; i++)
        if (c->emoji[i].gid == gid) return c->emoji[i].img;
    if (!fo_grow((void **)&c->emoji, &c->emoji_cap, c->nemoji + 1, 8, sizeof *c->emoji)) return NULL;
    HPDF_Image img = image_of(c, e);
    if (img) c->emoji[c->nemoji++] = (struct fo_pdf_emoji){gid, img};
    return img;
}

bool fo_pdf_emoji_draw(fo_pdf *c, uint32_t gid, double size, double x, double y, double adv)
{
    fo_emoji_image e = {0};
    fo_emoji_box box;
    bool known = false;
    for (size_t i = 0; i < c->nemoji && !known; i++) known = c->emoji[i].gid == gid;
    if (!fo_emoji_glyph(gid, size, adv, known ? NULL : &e, &box)) return false;
    HPDF_Image img = image_for(c, gid, &e);
    fo_free(e.rgba);
    if (!img) return false;
    HPDF_Page_DrawImage(c->page, img, (HPDF_REAL)(x + box.dx), (HPDF_REAL)(y + box.top - box.h),
                        (HPDF_REAL)box.w, (HPDF_REAL)box.h);
    return true;
}

void fo_pdf_emoji_free(fo_pdf *c)
{
    fo_free(c->emoji);   /* the images belong to the document */
    c->emoji = NULL;
    c->nemoji = c->emoji_cap = 0;
}
