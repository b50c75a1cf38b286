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
 * and sets *cp, or returns 0 when the bytes are not a well-formed character. */
size_t fo_utf8_decode(const char *s, size_t len, uint32_t *cp);

/* The character at s[0..len) (len >= 1), its length in *n; an invalid byte
 * gives U+FFFD with *n = 1. */
uint32_t fo_utf8_at(const char *s, size_t len, size_t *n);

/* The same at s[*i] (*i < len), advancing *i past it. */
uint32_t fo_utf8_next(const char *s, size_t len, size_t *i);

/* Offset of the first byte of s[0..n) that does not start a well-formed
 * character, or n when all of it is valid. */
size_t fo_utf8_invalid_at(const char *s, size_t n);

/* Characters in s[0..n): each invalid byte counts as one. */
size_t fo_utf8_count(const char *s, size_t n);

/* Writes cp as UTF-8 into o (room for 4 bytes); a surrogate or a value past
 * U+10FFFF is written as U+FFFD. Returns the bytes written. */
size_t fo_utf8_put(char *o, uint32_t cp);

#endif
