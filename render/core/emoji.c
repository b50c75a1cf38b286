/* emoji.c — colour emoji from Noto Color Emoji: sequences and pictures (see
 * emoji.h). */
#include <pthread.h>
#include <string.h>

#include <ft2build.h>
#include <unicode/uchar.h>
#include FT_FREETYPE_H

#include "folio.h"
#include "render/core/emoji.h"
#include "base/utf8.h"

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

bool fo_emoji_pictograph(uint32_t cp)
{
    return (cp >= 0x2300 && cp <= 0x2BFF) || (cp >= 0x1F000 && cp <= 0x1FAFF);
}

/* True when the colour font has a glyph for cp; caller holds the lock. */
static bool has(FT_Face f, uint32_t cp)
{
    return f && FT_Get_Char_Index(f, cp) != 0;
}

static bool font_has(uint32_t cp)
{
    pthread_mutex_lock(&lock);
    bool h = has(face_get(), cp);
    pthread_mutex_unlock(&lock);
    return h;
}

bool fo_emoji_is(uint32_t cp)
{
    return fo_emoji_pictograph(cp) && font_has(cp);
}

/* ---- sequences (UTS #51) ------------------------------------------------- */
bool fo_emoji_regional(uint32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }
static bool modifier(uint32_t c) { return c >= 0x1F3FB && c <= 0x1F3FF; }
static bool keycap_base(uint32_t c) { return (c >= '0' && c <= '9') || c == '#' || c == '*'; }

/* [0-9#*] U+FE0F? U+20E3: its length, or 0. */
static size_t keycap(const uint32_t *cp, size_t n)
{
    size_t k = 1;
    if (k < n && cp[k] == 0xFE0F) k++;
    return k < n && cp[k] == 0x20E3 ? k + 1 : 0;
}

/* One element of a ZWJ sequence at cp[0]: its length, or 0. A keycap base
 * is an element only as a keycap (a digit with VS16 stays a digit).
 * Caller holds the lock. */
static size_t element(FT_Face f, const uint32_t *cp, size_t n)
{
    if (keycap_base(cp[0])) return keycap(cp, n);
    bool vs16 = n > 1 && cp[1] == 0xFE0F;
    if (n > 1 && cp[1] == 0xFE0E) return 0;           /* text presentation */
    if (!(vs16 || fo_emoji_pictograph(cp[0])) || !has(f, cp[0])) return 0;
    size_t k = 1;
    if (k < n && (cp[k] == 0xFE0F || modifier(cp[k]))) k++;
    size_t t = k;
    while (t < n && cp[t] >= 0xE0020 && cp[t] <= 0xE007E) t++;
    if (t > k && t < n && cp[t] == 0xE007F) k = t + 1;   /* a subdivision flag */
    return k;
}

size_t fo_emoji_sequence(const uint32_t *cp, size_t n)
{
    /* most text is no candidate: decided without the lock */
    if (n == 0 || !(fo_emoji_pictograph(cp[0]) || (n > 1 && (cp[1] == 0xFE0F || cp[1] == 0x20E3)))) return 0;
    size_t k = 0;
    pthread_mutex_lock(&lock);
    FT_Face f = face_get();
    if (f && fo_emoji_regional(cp[0]) && n > 1 && fo_emoji_regional(cp[1]))
        k = 2;
    else if (f)
        for (size_t e = element(f, cp, n); e > 0; e = element(f, cp + k + 1, n - k - 1)) {
            k += (k ? 1 : 0) + e;
            if (k + 1 >= n || cp[k] != 0x200D) break;
        }
    pthread_mutex_unlock(&lock);
    /* a pictograph of text presentation by default (UTS #51: ❤ U+2764,
       ⚠ U+26A0, ☀, ✈...) alone, without U+FE0F, a skin tone or a ZWJ, is
       text: drawn in a text font as Word, LibreOffice and browsers do */
    if (k == 1 && !u_hasBinaryProperty((UChar32)cp[0], UCHAR_EMOJI_PRESENTATION)) k = 0;
    return k;
}

/* True when utf8[0..len) starts with U+FE0F or U+20E3 (EF B8 8F, E2 83 A3). */
static bool emoji_mark_at(const char *utf8, size_t len)
{
    return len >= 3 && (memcmp(utf8, "\xEF\xB8\x8F", 3) == 0 || memcmp(utf8, "\xE2\x83\xA3", 3) == 0);
}

size_t fo_emoji_sequence_utf8(const char *utf8, size_t len)
{
    /* most text is no candidate: decided from its first character and the
       bytes after it (keep_emoji in linebreak.c asks at every character) */
    size_t j = 0;
    uint32_t first = fo_utf8_next(utf8, len, &j);
    if (!fo_emoji_pictograph(first) && !emoji_mark_at(utf8 + j, len - j)) return 0;
    uint32_t cp[32];
    size_t end[32], n = 0;
    for (j = 0; n < 32 && j < len; n++) {
        cp[n] = fo_utf8_next(utf8, len, &j);
        end[n] = j;
    }
    size_t m = fo_emoji_sequence(cp, n);
    return m ? end[m - 1] : 0;
}

bool fo_emoji_any(const char *utf8, size_t len)
{
    uint32_t prev = 0;
    for (size_t i = 0; i < len;) {
        unsigned char b = (unsigned char)utf8[i];
        uint32_t c = b < 0x80 ? (i++, b) : fo_utf8_next(utf8, len, &i);
        if (c == 0xFE0F || c == 0x20E3 ? prev && font_has(prev) : fo_emoji_is(c)) return true;
        prev = c;
    }
    return false;
}

/* ---- pictures ----------------------------------------------------------- */
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

/* The box of the glyph loaded in f's slot for size and adv. */
static void box_of(FT_Face f, double size, double adv, fo_emoji_box *box)
{
    const FT_GlyphSlot g = f->glyph;
    double ppem = f->size->metrics.y_ppem ? f->size->metrics.y_ppem : 109;
    double px_adv = g->advance.x / 64.0 > 0 ? g->advance.x / 64.0 : g->bitmap.width;
    double s = size / ppem;                        /* units per pixel */
    if (adv > 0 && px_adv * s > adv) s = adv / px_adv;
    box->w = g->bitmap.width * s;
    box->h = g->bitmap.rows * s;
    box->dx = ((adv > 0 ? adv : px_adv * s) - box->w) / 2;
    box->top = g->bitmap_top * s;
}

bool fo_emoji_glyph(uint32_t gid, double size, double adv, fo_emoji_image *img, fo_emoji_box *box)
{
    bool ok = false;
    pthread_mutex_lock(&lock);
    FT_Face f = face_get();
    if (f && gid != 0 && gid < (uint32_t)f->num_glyphs &&
        FT_Load_Glyph(f, gid, FT_LOAD_COLOR | FT_LOAD_RENDER) == 0 &&
        f->glyph->bitmap.pixel_mode == FT_PIXEL_MODE_BGRA && f->glyph->bitmap.width > 0) {
        box_of(f, size, adv, box);
        ok = true;
        if (img) {
            img->w = (int)f->glyph->bitmap.width;
            img->h = (int)f->glyph->bitmap.rows;
            ok = (img->rgba = to_rgba(&f->glyph->bitmap)) != NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}
