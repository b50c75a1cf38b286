/* numfmt.h — Excel number-format engine: format code + value -> displayed text.
 *
 * xlsx stores codes natively; every other renderer shows values through this
 * engine so a number reads the same in PDF, DOCX, PPTX and PNG as in Excel.
 * Supports sections (pos;neg;zero;text), thousands separators and scaling
 * commas, decimals, '0' '#' '?' placeholders, percent, literal text and
 * quoted strings, currency prefixes ([$€-x] and plain symbols), colors and
 * conditions ([Red], [>=100]) parsed and ignored for display except for
 * section choice, scientific (0.00E+00), fractions (# ?/?), dates and times
 * (yyyy mm dd d mmm mmmm ddd dddd h hh m mm s ss AM/PM [h] .000), General,
 * and Excel's rounding (half away from zero on the decimal representation). */
#ifndef FO_NUMFMT_H
#define FO_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fo_numfmt fo_numfmt;

/* Compiles a format code. On an invalid code returns NULL and, when err is
 * not NULL, writes a one-line reason ("unbalanced quote", ...) into err. */
fo_numfmt *fo_numfmt_compile(const char *code, char *err, size_t errlen);
void fo_numfmt_free(fo_numfmt *f); /* NULL is a no-op */

/* Formats v as Excel would display it. Writes at most cap bytes including
 * the NUL; returns the full length (like snprintf). Never allocates.
 * f may be NULL (General). NaN and infinities show "#NUM!"; a date outside
 * Excel's range (negative, or after 9999-12-31) shows "########". */
size_t fo_numfmt_format(const fo_numfmt *f, double v, char *buf, size_t cap);
/* Formats text through the text section ("@"), or returns it unchanged. */
size_t fo_numfmt_format_text(const fo_numfmt *f, const char *s, char *buf, size_t cap);

/* The colour Excel shows v in ([Red], [Blue], [Color10] in the section
 * that v picks, conditions like [<0] included): 0xRRGGBB, or -1 for none.
 * fo_numfmt_text_color: the same for text (the "@" section). */
long fo_numfmt_color(const fo_numfmt *f, double v);
long fo_numfmt_text_color(const fo_numfmt *f);

/* True when the code shows a date and/or time (value is an Excel serial). */
bool fo_numfmt_is_date(const fo_numfmt *f);
/* True when the code is (or starts with) General. */
bool fo_numfmt_is_general(const fo_numfmt *f);

/* One-shot convenience (compiles each call): for tests and single values.
 * An invalid code formats v as General. */
size_t fo_numfmt_format_code(const char *code, double v, char *buf, size_t cap);

#endif
