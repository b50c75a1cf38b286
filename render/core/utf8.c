/* utf8.c — the one UTF-8 decoder (render/core/utf8.h). */
#include "render/core/utf8.h"

size_t fo_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    uint32_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    /* Well-formed byte sequences (Unicode table 3-7): the lead byte fixes
     * the length and the range of the second byte, which rules out
     * overlongs (E0, F0), surrogates (ED) and values past U+10FFFF (F4). */
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; c &= 0x1F; }
    else if (c == 0xE0) { n = 3; c &= 0x0F; lo = 0xA0; }
    else if (c >= 0xE1 && c <= 0xEF) { n = 3; c &= 0x0F; if (c == 0x0D) hi = 0x9F; }
    else if (c == 0xF0) { n = 4; c &= 0x07; lo = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) { n = 4; c &= 0x07; }
    else if (c == 0xF4) { n = 4; c &= 0x07; hi = 0x8F; }
    else return 0;
    if (len < n || s[1] < lo || s[1] > hi) return 0;
    c = (c << 6) | (s[1] & 0x3F);
    for (size_t k = 2; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[k] & 0x3F);
    }
    *cp = c;
    return n;
}

uint32_t fo_utf8_at(const char *s, size_t len, size_t *n)
{
    uint32_t cp;
    *n = fo_utf8_decode(s, len, &cp);
    if (*n) return cp;
    *n = 1;
    return FO_UTF8_REPLACEMENT;
}

uint32_t fo_utf8_next(const char *s, size_t len, size_t *i)
{
    size_t n;
    uint32_t cp = fo_utf8_at(s + *i, len - *i, &n);
    *i += n;
    return cp;
}

size_t fo_utf8_invalid_at(const char *s, size_t n)
{
    size_t i = 0;
    uint32_t cp;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) { i++; continue; }
        size_t k = fo_utf8_decode(s + i, n - i, &cp);
        if (k == 0) return i;
        i += k;
    }
    return n;
}

size_t fo_utf8_count(const char *s, size_t n)
{
    size_t i = 0, count = 0;
    while (i < n) {
        fo_utf8_next(s, n, &i);
        count++;
    }
    return count;
}

size_t fo_utf8_put(char *o, uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = FO_UTF8_REPLACEMENT;
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
