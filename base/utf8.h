/* utf8.h — the one UTF-8 decoder (and encoder) every layer uses.
 *
 * Strict, as RFC 3629 and Unicode's "well-formed" table say: an overlong
 * form, a surrogate (U+D800..U+DFFF), a code point past U+10FFFF, a stray
 * continuation byte or a sequence cut short is invalid. Readers refuse
 * invalid input (fo_utf8_invalid_at); writers that must show something use
 * fo_utf8_next / fo_utf8_at, which give U+FFFD for each invalid byte. */
#ifndef FO_UTF8_H
#define FO_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define FO_UTF8_REPLACEMENT 0xFFFDu

/* The character at s[0..len) (len >= 1): returns its length in bytes (1..4)
 * and sets *cp, or returns 0 when the bytes are not a well-formed character.
 * Inline: text layout decodes every character several times (line breaks,
 * bidi, shaping, widths), a million calls for a 50-page report in Hindi,
 * Chinese and Arabic, 5 % of its PDF when each was a call.
 * Well-formed (Unicode table 3-7) is decided on the value: a lead byte
 * C2..DF, E0..EF or F0..F4 then continuation bytes, and a value that is not
 * overlong (>= 0x80, 0x800, 0x10000 for 2, 3, 4 bytes), not a surrogate and
 * not past U+10FFFF — the same sequences as the table's second-byte ranges
 * (E0 A0.., ED ..9F, F0 90.., F4 ..8F). */
static inline size_t fo_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    uint32_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2 || c > 0xF4) return 0;      /* continuation, overlong lead, past F4 */
    if (c < 0xE0) {
        if (len < 2 || (s[1] & 0xC0) != 0x80) return 0;
        *cp = (c & 0x1F) << 6 | (s[1] & 0x3Fu);
        return 2;
    }
    if (c < 0xF0) {
        if (len < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        uint32_t v = (c & 0x0F) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
        if (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF)) return 0;
        *cp = v;
        return 3;
    }
    if (len < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
    uint32_t v = (c & 0x07) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
    if (v < 0x10000 || v > 0x10FFFF) return 0;
    *cp = v;
    return 4;
}

/* The character at s[0..len) (len >= 1), its length in *n; an invalid byte
 * gives U+FFFD with *n = 1. */
static inline uint32_t fo_utf8_at(const char *s, size_t len, size_t *n)
{
    uint32_t cp;
    *n = fo_utf8_decode(s, len, &cp);
    if (*n) return cp;
    *n = 1;
    return FO_UTF8_REPLACEMENT;
}

/* The same at s[*i] (*i < len), advancing *i past it. */
static inline uint32_t fo_utf8_next(const char *s, size_t len, size_t *i)
{
    size_t n;
    uint32_t cp = fo_utf8_at(s + *i, len - *i, &n);
    *i += n;
    return cp;
}

/* Offset of the first byte of s[0..n) that does not start a well-formed
 * character, or n when all of it is valid. */
size_t fo_utf8_invalid_at(const char *s, size_t n);

/* Characters in s[0..n): each invalid byte counts as one. */
size_t fo_utf8_count(const char *s, size_t n);

/* Writes cp as UTF-8 into o (room for 4 bytes); a surrogate or a value past
 * U+10FFFF is written as U+FFFD. Returns the bytes written. */
size_t fo_utf8_put(char *o, uint32_t cp);

#endif
