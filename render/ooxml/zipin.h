/* zipin.h — reading parts out of an existing OOXML package (a --template
 * .docx/.xlsx): open the zip, read one part whole, look up relationships.
 *
 * The reading side of render/ooxml: only this module and package.c touch
 * libzip. Part names are written without the leading slash. */
#ifndef FO_OOXML_ZIPIN_H
#define FO_OOXML_ZIPIN_H

#include <stdbool.h>
#include <stddef.h>

#include "folio.h"

typedef struct fo_zipin fo_zipin;

/* Opens path for reading. A missing file or one that is not a zip is
 * FO_ERR_INPUT with a diagnostic naming the file; *out is NULL then. */
fo_status fo_zipin_open(const char *path, fo_zipin **out, fo_diags *d);
/* Closes the archive; NULL is a no-op. */
void fo_zipin_free(fo_zipin *z);
/* The whole part, NUL-terminated (fo_malloc'd, caller frees; *len without
 * the NUL), or NULL when the part is missing or unreadable. */
char *fo_zipin_read(fo_zipin *z, const char *name, size_t *len);
bool fo_zipin_has(fo_zipin *z, const char *name);

/* The relationships part of source ("word/document.xml" ->
 * "word/_rels/document.xml.rels") parsed into id/type/target triples.
 * Targets are resolved against the source's folder ("header1.xml" ->
 * "word/header1.xml"); external ones are kept as given. */
typedef struct {
    char *id, *type, *target;
    bool external;
} fo_zipin_rel;

typedef struct {
    fo_zipin_rel *items;
    size_t n;
} fo_zipin_rels;

/* Empty (n == 0) when source has no relationships part. FO_ERR_NOMEM or
 * FO_ERR_INPUT (malformed part) otherwise. */
fo_status fo_zipin_rels_read(fo_zipin *z, const char *source, fo_zipin_rels *out);
void fo_zipin_rels_free(fo_zipin_rels *r);
/* The relationship with that id, or NULL. */
const fo_zipin_rel *fo_zipin_rel_find(const fo_zipin_rels *r, const char *id);

#endif
