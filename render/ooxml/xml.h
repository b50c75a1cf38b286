/* xml.h — XML writer for OOXML parts: a small, sticky-error API that never
 * writes a character XML forbids (its bytes are those libxml2's
 * xmlTextWriter wrote, the writer it replaced: see xml.c).
 *
 * An fo_xml writes one part, either into memory (small parts) or into an
 * anonymous temporary file (big parts, e.g. a document.xml with a 100k-row
 * table: memory stays constant). Hand the finished writer to the package with
 * fo_pkg_add_xml (package.h), which takes ownership.
 *
 * Errors are sticky (cairo-style): the first failure is remembered, every
 * later call is a no-op, and the caller checks once — fo_xml_status(), or
 * simply the status of fo_pkg_close(), which reports a failed writer.
 *
 * Text and attribute values are UTF-8. Characters XML 1.0 forbids (U+0000-
 * U+0008, U+000B, U+000C, U+000E-U+001F, U+FFFE, U+FFFF) are dropped and
 * invalid UTF-8 bytes become U+FFFD, so a part is always well-formed. */
#ifndef FO_OOXML_XML_H
#define FO_OOXML_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folio.h"
#include "render/core/theme.h"

typedef struct fo_xml fo_xml;

/* A writer whose output is kept in memory. Writes the XML declaration
 * (version 1.0, UTF-8, standalone="yes"). NULL only when out of memory. */
fo_xml *fo_xml_new_memory(void);
/* A writer whose output goes to an anonymous temporary file (tmpfile()),
 * for parts that may be large. NULL when out of memory; a file that cannot
 * be created makes the writer fail (sticky FO_ERR_IO). */
fo_xml *fo_xml_new_file(void);
/* Frees the writer and its output. NULL is a no-op. */
void fo_xml_free(fo_xml *x);

/* FO_OK, or the first error (FO_ERR_NOMEM, FO_ERR_IO, FO_ERR_INTERNAL). */
fo_status fo_xml_status(const fo_xml *x);

/* ---- elements ------------------------------------------------------------
 * The variadic forms take name/value pairs of attributes ending with NULL:
 *   fo_xml_open(x, "w:pStyle", "w:val", "Heading1", NULL);
 * A NULL value skips that attribute (handy for optional ones). */
void fo_xml_open(fo_xml *x, const char *name, ...) __attribute__((sentinel));
/* An element without content: <name a="v"/>. */
void fo_xml_leaf(fo_xml *x, const char *name, ...) __attribute__((sentinel));
/* Closes the innermost open element. */
void fo_xml_close(fo_xml *x);
/* Adds an attribute to the element just opened (before any content). */
void fo_xml_attr(fo_xml *x, const char *name, const char *value);
void fo_xml_attr_int(fo_xml *x, const char *name, long long v);
void fo_xml_attrf(fo_xml *x, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- content ------------------------------------------------------------- */
/* Escaped, sanitized text (NULL is a no-op). */
void fo_xml_text(fo_xml *x, const char *utf8);
void fo_xml_textn(fo_xml *x, const char *utf8, size_t n);
/* Element with text content: <name attrs...>text</name>. */
void fo_xml_text_elem(fo_xml *x, const char *name, const char *text);
/* Trusted markup copied verbatim (e.g. a fragment from templates/). */
void fo_xml_raw(fo_xml *x, const char *markup, size_t n);
/* DrawingML's <a:solidFill><a:srgbClr val="RRGGBB"/></a:solidFill> (slides,
 * shapes and chart parts alike). */
void fo_xml_solid_fill(fo_xml *x, fo_rgb c);

/* Ends every open element and flushes. Called by fo_pkg_add_xml; calling it
 * twice is harmless. */
void fo_xml_finish(fo_xml *x);

/* A memory writer's output after fo_xml_finish (borrowed; valid until
 * fo_xml_free), *len its length; NULL for a file writer or after an error. */
const char *fo_xml_memory(fo_xml *x, size_t *len);

/* ---- text sanitizing ----------------------------------------------------
 * Copies src (n bytes of UTF-8) into dst, dropping XML-forbidden characters
 * and replacing invalid UTF-8 with U+FFFD. dst needs room for 3*n+1 bytes
 * (each invalid byte may grow to 3); the result is NUL-terminated and its
 * length returned. */
size_t fo_xml_sanitize(const char *src, size_t n, char *dst);
/* True when src is valid UTF-8 with no XML-forbidden characters. */
bool fo_xml_is_clean(const char *src, size_t n);

/* ---- private: for package.c only ------------------------------------------
 * After fo_xml_finish: the memory output (*data, *len; NULL for a file
 * writer), or the temporary file (*fp, rewound; ownership moves to the
 * caller and the writer forgets it). */
void fo_xml__take_output(fo_xml *x, const unsigned char **data, size_t *len, void **fp);
/* After fo_xml_finish: a memory writer's output handed over (fo_malloc'd,
 * the caller frees it; *len its length), the writer left empty (free it
 * still). NULL for a file writer (untouched) or after an error. */
unsigned char *fo_xml__take_memory(fo_xml *x, size_t *len);

#endif
