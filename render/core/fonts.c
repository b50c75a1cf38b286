/* fonts.c — the per-script fallback fonts, found with fontconfig (fonts.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fontconfig/fontconfig.h>

#include "folio.h"
#include "render/core/fonts.h"
#include "render/core/text.h"

typedef struct {
    uint32_t lo, hi;      /* code point range of the script (main block) */
    const char *family;   /* the Noto family that draws it */
} script_font;

static const script_font scripts[] = {
    {0x0530, 0x058F, "Noto Sans Armenian"},
    {0x0590, 0x05FF, "Noto Sans Hebrew"},
    {0x0600, 0x06FF, "Noto Sans Arabic"},
    {0x0750, 0x077F, "Noto Sans Arabic"},
    {0x08A0, 0x08FF, "Noto Sans Arabic"},
    {0x0900, 0x097F, "Noto Sans Devanagari"},
    {0x0980, 0x09FF, "Noto Sans Bengali"},
    {0x0A00, 0x0A7F, "Noto Sans Gurmukhi"},
    {0x0A80, 0x0AFF, "Noto Sans Gujarati"},
    {0x0B80, 0x0BFF, "Noto Sans Tamil"},
    {0x0C00, 0x0C7F, "Noto Sans Telugu"},
    {0x0C80, 0x0CFF, "Noto Sans Kannada"},
    {0x0D00, 0x0D7F, "Noto Sans Malayalam"},
    {0x0D80, 0x0DFF, "Noto Sans Sinhala"},
    {0x0E00, 0x0E7F, "Noto Sans Thai"},
    {0x0E80, 0x0EFF, "Noto Sans Lao"},
    {0x1000, 0x109F, "Noto Sans Myanmar"},
    {0x10A0, 0x10FF, "Noto Sans Georgian"},
    {0x1200, 0x139F, "Noto Sans Ethiopic"},
    {0x1780, 0x17FF, "Noto Sans Khmer"},
    {0xA8E0, 0xA8FF, "Noto Sans Devanagari"},
    {0xFB1D, 0xFB4F, "Noto Sans Hebrew"},
    {0xFB50, 0xFDFF, "Noto Sans Arabic"},
    {0xFE70, 0xFEFF, "Noto Sans Arabic"},
};
#define NSCRIPTS (sizeof scripts / sizeof *scripts)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *found[NSCRIPTS];
static bool looked[NSCRIPTS];

/* The file fontconfig gives for family, when that family really is it and
 * the file is TrueType outlines; NULL otherwise. Caller holds the lock. */
static char *lookup(const char *family)
{
    char *r = NULL;
    FcPattern *p = FcNameParse((const FcChar8 *)family);
    if (!p) return NULL;
    FcConfigSubstitute(NULL, p, FcMatchPattern);
    FcDefaultSubstitute(p);
    FcResult res;
    FcPattern *m = FcFontMatch(NULL, p, &res);
    FcChar8 *fam = NULL, *file = NULL, *fmt = NULL;
    if (m && FcPatternGetString(m, FC_FAMILY, 0, &fam) == FcResultMatch &&
        FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch &&
        FcPatternGetString(m, FC_FONTFORMAT, 0, &fmt) == FcResultMatch &&
        strcmp((const char *)fam, family) == 0 && strcmp((const char *)fmt, "TrueType") == 0) {
        size_t n = strlen((const char *)file);
        /* a collection would need a face index; the Noto script fonts are single files */
        if (n > 4 && strcmp((const char *)file + n - 4, ".ttf") == 0) r = fo_strdup((const char *)file);
    }
    if (m) FcPatternDestroy(m);
    FcPatternDestroy(p);
    return r;
}

/* The family's regular file where Debian's fonts-noto-core installs it
 * ("Noto Sans Arabic" -> .../noto/NotoSansArabic-Regular.ttf), when it is
 * there; NULL otherwise. */
static char *debian_file(const char *family)
{
    char path[128] = "/usr/share/fonts/truetype/noto/";
    size_t o = strlen(path);
    for (const char *p = family; *p && o + 16 < sizeof path; p++)
        if (*p != ' ') path[o++] = *p;
    snprintf(path + o, sizeof path - o, "-Regular.ttf");
    return access(path, R_OK) == 0 ? fo_strdup(path) : NULL;
}

/* Chinese, Japanese and Korean ranges and the fixed file that draws them
 * (text.h): taken before the symbol font, which has some of these too. */
static const struct {
    uint32_t lo, hi;
    const char *file;
} cjk[] = {
    {0x1100, 0x11FF, FO_TEXT_FALLBACK_KOREAN},   /* Hangul Jamo */
    {0x2E80, 0x2FDF, FO_TEXT_FALLBACK_CJK},      /* radicals */
    {0x3000, 0x303F, FO_TEXT_FALLBACK_CJK},      /* CJK symbols and punctuation */
    {0x3040, 0x312F, FO_TEXT_FALLBACK_CJK},      /* kana, bopomofo */
    {0x3130, 0x318F, FO_TEXT_FALLBACK_KOREAN},   /* Hangul compatibility Jamo */
    {0x3190, 0x4DBF, FO_TEXT_FALLBACK_CJK},      /* kanbun ... CJK extension A */
    {0x4E00, 0x9FFF, FO_TEXT_FALLBACK_CJK},      /* CJK unified ideographs */
    {0xA960, 0xA97F, FO_TEXT_FALLBACK_KOREAN},
    {0xAC00, 0xD7FF, FO_TEXT_FALLBACK_KOREAN},   /* Hangul syllables, Jamo extended B */
    {0xF900, 0xFAFF, FO_TEXT_FALLBACK_CJK},      /* compatibility ideographs */
    {0xFE30, 0xFE4F, FO_TEXT_FALLBACK_CJK},      /* CJK compatibility forms */
    {0xFF00, 0xFF9F, FO_TEXT_FALLBACK_CJK},      /* fullwidth forms, halfwidth kana */
    {0xFFA0, 0xFFDF, FO_TEXT_FALLBACK_KOREAN},   /* halfwidth Hangul */
    {0x20000, 0x3FFFF, FO_TEXT_FALLBACK_CJK},    /* supplementary ideographs */
};

const char *fo_fonts_for_char(uint32_t cp)
{
    for (size_t j = 0; j < sizeof cjk / sizeof *cjk; j++)
        if (cp >= cjk[j].lo && cp <= cjk[j].hi) return cjk[j].file;
    size_t k = 0;
    while (k < NSCRIPTS && !(cp >= scripts[k].lo && cp <= scripts[k].hi)) k++;
    if (k == NSCRIPTS) return NULL;
    pthread_mutex_lock(&lock);
    if (!looked[k]) {
        looked[k] = true;
        /* the same family for several ranges: look it up once */
        for (size_t j = 0; j < NSCRIPTS; j++)
            if (j != k && looked[j] && strcmp(scripts[j].family, scripts[k].family) == 0 && found[j])
                found[k] = found[j];
        if (!found[k]) found[k] = debian_file(scripts[k].family);
        if (!found[k]) found[k] = lookup(scripts[k].family);
    }
    const char *r = found[k];
    pthread_mutex_unlock(&lock);
    return r;
}

static const char *bold_of[NSCRIPTS][2];   /* regular file, its bold (or itself) */

/* The "-Bold.ttf" sibling of a "-Regular.ttf" file, when readable. */
static char *bold_file(const char *regular)
{
    size_t n = strlen(regular), suf = strlen("-Regular.ttf");
    if (n <= suf || strcmp(regular + n - suf, "-Regular.ttf") != 0) return NULL;
    char *b = fo_malloc(n + 1);
    if (!b) return NULL;
    memcpy(b, regular, n - suf);
    strcpy(b + n - suf, "-Bold.ttf");
    if (access(b, R_OK) == 0) return b;
    fo_free(b);
    return NULL;
}

const char *fo_fonts_bold(const char *regular)
{
    if (!regular) return NULL;
    const char *r = regular;
    pthread_mutex_lock(&lock);
    size_t k = 0;
    while (k < NSCRIPTS && bold_of[k][0] && bold_of[k][0] != regular) k++;
    if (k < NSCRIPTS && bold_of[k][0] == regular) r = bold_of[k][1];
    else if (k < NSCRIPTS) {
        char *b = bold_file(regular);
        bold_of[k][0] = regular;
        bold_of[k][1] = r = b ? b : regular;
    }
    pthread_mutex_unlock(&lock);
    return r;
}
