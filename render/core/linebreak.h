/* linebreak.h — where a line may break, by the Unicode line breaking
 * algorithm (UAX #14, through libunibreak): between Chinese and Japanese
 * characters, after hyphens and dashes, before an opening bracket, never
 * before a closing punctuation mark or inside a number like "12,5%".
 *
 * Why libunibreak: it is the UAX #14 implementation Debian packages as a
 * small C library (libunibreak-dev), with its own property tables and no
 * locale set-up. It has no dictionary, so it finds no word boundaries in
 * Thai, Lao, Khmer and Myanmar, written without spaces between words
 * (UAX #14 class SA). Runs of those scripts get ICU's line breaks instead
 * (ubrk_*, libicu-dev: its dictionaries for the four scripts): a Thai
 * paragraph wraps between words. ICU costs no extra load time: libxml2
 * already brings libicuuc and its data into every folio-engine process;
 * its line iterator is opened once per process, only when such text comes
 * (~2 ms), and libunibreak keeps every other script. */
#ifndef FO_LINEBREAK_H
#define FO_LINEBREAK_H

#include <stdbool.h>
#include <stddef.h>

/* Break opportunities of utf8[0..len): one byte per input byte, the value
 * at the last byte of each character saying whether a line may break after
 * it. NULL when utf8 is plain ASCII (the callers' space and hyphen rules are
 * UAX #14's there) or when out of memory. The caller frees with fo_free. */
char *fo_linebreaks(const char *utf8, size_t len);

/* True when brks (from fo_linebreaks) allows a break after the character
 * whose last byte is at index i. False when brks is NULL. */
bool fo_linebreak_after(const char *brks, size_t i);

#endif
