/* utf8.c — the one UTF-8 decoder (base/utf8.h; decoding one
 * character is inline there). */
#include "base/utf8.h"

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
