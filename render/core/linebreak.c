/* linebreak.c — UAX #14 break opportunities through libunibreak, and
 * dictionary word breaks through ICU for Thai, Lao, Khmer and Myanmar
 * (linebreak.h). */
#include <pthread.h>

#include <linebreak.h>
#include <unicode/ubrk.h>

#include <string.h>

#include "folio.h"
#include "render/core/emoji.h"
#include "base/utf8.h"
#include "render/core/linebreak.h"
#include "render/core/text.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void) { init_linebreak(); }

/* ---- South East Asian scripts: ICU's dictionaries ------------------------ */

/* Scripts written without spaces between words (UAX #14 class SA), whose
 * words ICU finds with its dictionaries. All lie in U+0800..U+FFFF, so each
 * is three bytes of UTF-8. */
static bool is_sa(uint32_t c)
{
    return (c >= 0x0E00 && c <= 0x0EFF) ||   /* Thai, Lao */
           (c >= 0x1000 && c <= 0x109F) ||   /* Myanmar */
           (c >= 0x1780 && c <= 0x17FF);     /* Khmer */
}

/* One line iterator for the process: opening one reads ICU's rules and
 * dictionaries (a few ms), setting its text is cheap. NULL when ICU cannot
 * open it (the text then keeps libunibreak's breaks only). */
static pthread_mutex_t icu_lock = PTHREAD_MUTEX_INITIALIZER;
static UBreakIterator *icu_iter;
static bool icu_tried;

/* Marks in brks the breaks ICU finds inside the run utf8[from, to) of SA
 * characters (u16: room for its code units). Caller holds icu_lock. */
static void sa_run_breaks(const char *utf8, size_t from, size_t to, UChar *u16, char *brks)
{
    int32_t n = 0;
    for (size_t i = from; i < to;) u16[n++] = (UChar)fo_utf8_next(utf8, to, &i);
    UErrorCode err = U_ZERO_ERROR;
    ubrk_setText(icu_iter, u16, n, &err);
    if (U_FAILURE(err)) return;
    /* inside the run libunibreak allows no break (SA resolves to AL):
       ICU's boundaries, one per word, are the only ones */
    for (int32_t b = ubrk_following(icu_iter, 0); b != UBRK_DONE && b < n; b = ubrk_next(icu_iter))
        brks[from + 3 * (size_t)b - 1] = LINEBREAK_ALLOWBREAK;
}

static void sa_breaks(const char *utf8, size_t len, char *brks)
{
    UChar *u16 = NULL;
    pthread_mutex_lock(&icu_lock);
    if (!icu_tried) {
        icu_tried = true;
        UErrorCode err = U_ZERO_ERROR;
        icu_iter = ubrk_open(UBRK_LINE, "th", NULL, 0, &err);
        if (U_FAILURE(err)) icu_iter = NULL;
    }
    for (size_t i = 0; icu_iter && i < len;) {
        size_t from = i, next = i;
        if (!is_sa(fo_utf8_next(utf8, len, &next))) { i = next; continue; }
        while (next < len) {                 /* the run of SA characters */
            size_t k = next;
            if (!is_sa(fo_utf8_next(utf8, len, &k))) break;
            next = k;
        }
        if (!u16 && !(u16 = fo_malloc(len * sizeof *u16))) break;
        sa_run_breaks(utf8, from, next, u16, brks);
        i = next;
    }
    pthread_mutex_unlock(&icu_lock);
    fo_free(u16);
}

/* True when utf8 has a character of an SA script (its lead byte is 0xE0
 * or 0xE1, the only ones of U+0800..U+1FFF). */
static bool has_sa(const char *utf8, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char b = (unsigned char)utf8[i];
        if (b != 0xE0 && b != 0xE1) { i++; continue; }
        if (is_sa(fo_utf8_next(utf8, len, &i))) return true;
    }
    return false;
}

/* ---- emoji sequences -------------------------------------------------------- */

/* libunibreak 1.1 (Debian 12) asserts on three kinds of input, so its copy
 * of the text has them replaced, each offset kept where it was:
 * - malformed UTF-8 (found by fuzz_text): each invalid byte becomes '?';
 * - regional indicators (it predates their pairing rule: lbcNew <= LBP_JT)
 *   become U+1F300 (class ID, four bytes); keep_emoji pairs them;
 * - U+FFFF, which it takes for its end-of-text mark (found by fuzz_text:
 *   "a\uFFFF" aborted the render), becomes U+FFFD (three bytes). */
static void hide_asserting(char *clean, size_t len)
{
    for (size_t k = 0; k < len;) {
        size_t at = k;
        uint32_t c = fo_utf8_next(clean, len, &k);
        if (k == at + 1 && (unsigned char)clean[at] >= 0x80) clean[at] = '?';
        else if (fo_emoji_regional(c)) memcpy(clean + at, "\xF0\x9F\x8C\x80", 4);
        else if (c == 0xFFFF) memcpy(clean + at, "\xEF\xBF\xBD", 3);
    }
}

/* No break inside an emoji sequence (emoji.h: a ZWJ sequence, a flag, a
 * skin tone, a keycap; libunibreak 1.1 knows none of them), nor inside a
 * pair of regional indicators when the colour font is missing. */
static void keep_emoji(const char *utf8, size_t len, char *brks)
{
    for (size_t i = 0; i < len;) {
        size_t next = i, m;
        uint32_t c = fo_utf8_next(utf8, len, &next);
        if (c < 0x80) { i = next; continue; }
        if (!(m = fo_emoji_sequence_utf8(utf8 + i, len - i)) && fo_emoji_regional(c) && next < len) {
            size_t after = next;
            if (fo_emoji_regional(fo_utf8_next(utf8, len, &after))) m = after - i;
        }
        for (size_t k = i, q; m && k < i + m; k = q) {
            q = k;
            fo_utf8_next(utf8, len, &q);
            if (q < i + m && brks[q - 1] == LINEBREAK_ALLOWBREAK) brks[q - 1] = LINEBREAK_NOBREAK;
        }
        i = m ? i + m : next;
    }
}

/* ---- every script ---------------------------------------------------------- */

char *fo_linebreaks(const char *utf8, size_t len)
{
    size_t i = 0;
    while (i < len && (unsigned char)utf8[i] < 0x80) i++;
    if (i == len) return NULL;
    char *brks = fo_malloc(len), *clean = fo_malloc(len);
    if (!brks || !clean) { fo_free(brks); fo_free(clean); return NULL; }
    memcpy(clean, utf8, len);
    hide_asserting(clean, len);
    pthread_once(&once, init);
    set_linebreaks_utf8((const utf8_t *)clean, len, NULL, brks);
    if (has_sa(clean, len)) sa_breaks(clean, len, brks);
    keep_emoji(utf8, len, brks);
    fo_free(clean);
    return brks;
}

bool fo_linebreak_after(const char *brks, size_t i)
{
    return brks && brks[i] == LINEBREAK_ALLOWBREAK;
}
