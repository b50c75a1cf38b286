/* template.h — reading a --template package (.docx, .pptx, .xlsx) that
 * nobody vetted: the one header the three template readers use
 * (render/docx/template.c, render/pptx/pptx_template.c,
 * render/xlsx/template.c). Only this module opens the template's zip.
 *
 * A template is hostile until read through here:
 *  - entry names are checked when it is opened: OPC part names only (no
 *    "..", "." or empty segment, no leading '/', no backslash or control
 *    character, unique ignoring case); any other name refuses the template;
 *  - a part is decompressed through a running count, never trusting the
 *    sizes the zip claims: over its cap (FO_TPL_XML_MAX for XML,
 *    FO_TPL_PART_MAX for a picture) or over FO_TPL_TOTAL_MAX for the whole
 *    template, the template is refused — a zip bomb costs at most the cap;
 *  - XML is parsed by libxml2 with no network, no DTD loading and no entity
 *    substitution, and a part with a DTD (<!DOCTYPE ...>) is refused
 *    outright, so no entity is ever declared (billion laughs, XXE);
 *  - relationships are resolved to part names inside the package; external
 *    ones are kept only as plain web links (http, https, mailto hyperlinks),
 *    every other external target (file:, UNC paths, ...) and every target that
 *    leaves the package or names an invalid part is dropped.
 * Every refusal is FO_ERR_INPUT with one diagnostic naming the template, the
 * part and what is wrong.
 *
 * Part names are written without the leading slash ("word/styles.xml"). */
#ifndef FO_OOXML_TEMPLATE_H
#define FO_OOXML_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "folio.h"

#define FO_TPL_XML_MAX (8u << 20)    /* one XML part, decompressed */
#define FO_TPL_PART_MAX (32u << 20)  /* one picture (any non-XML part) */
#define FO_TPL_TOTAL_MAX (64u << 20) /* everything read from one template */
#define FO_TPL_ENTRIES_MAX 4096u     /* zip entries */
#define FO_TPL_NAME_MAX 255u         /* bytes in a part name */

typedef struct fo_tpl fo_tpl;

/* Opens path and checks every entry name (above). A missing file, one that
 * is not a zip or a refused name: FO_ERR_INPUT with a diagnostic naming the
 * file; *out is NULL then. */
fo_status fo_tpl_open(const char *path, fo_tpl **out, fo_diags *d);
/* Closes the archive; NULL is a no-op. */
void fo_tpl_free(fo_tpl *t);
/* The path given to fo_tpl_open (borrowed). */
const char *fo_tpl_path(const fo_tpl *t);
bool fo_tpl_has(const fo_tpl *t, const char *part);

/* The whole part, NUL-terminated (fo_malloc'd, caller frees; *len without
 * the NUL) in *data; at most cap bytes (FO_TPL_XML_MAX or FO_TPL_PART_MAX).
 * A missing part is FO_OK with *data NULL; an unreadable or oversized one,
 * or the template's total exceeded, FO_ERR_INPUT with a diagnostic. */
fo_status fo_tpl_read(fo_tpl *t, const char *part, size_t cap, char **data, size_t *len);
/* The part parsed as XML (caller frees with xmlFreeDoc). data/len, when not
 * NULL, also receive its bytes (caller frees), for parts copied verbatim.
 * Missing: FO_OK with *doc NULL. Not well-formed, a DTD, or over
 * FO_TPL_XML_MAX: FO_ERR_INPUT with a diagnostic naming template and part. */
fo_status fo_tpl_xml(fo_tpl *t, const char *part, xmlDocPtr *doc, char **data, size_t *len);

/* ---- relationships ---------------------------------------------------------
 * The relationships of source ("word/document.xml" reads
 * "word/_rels/document.xml.rels"; "" the package's). Internal targets are
 * resolved to part names ("header1.xml" -> "word/header1.xml"); external ones
 * are kept as given. */
typedef struct {
    char *id, *type, *target;
    bool external;
} fo_tpl_rel;

typedef struct {
    fo_tpl_rel *items;
    size_t n;
} fo_tpl_rels;

/* Empty (n == 0) when source has no relationships part. A malformed rels
 * part is FO_ERR_INPUT with a diagnostic; FO_ERR_NOMEM. Dropped (above):
 * external non-web targets, targets outside the package, and a
 * relationship whose Id an earlier one already has. */
fo_status fo_tpl_rels_read(fo_tpl *t, const char *source, fo_tpl_rels *out);
void fo_tpl_rels_free(fo_tpl_rels *r);
/* The relationship with that id, or NULL. */
const fo_tpl_rel *fo_tpl_rel_find(const fo_tpl_rels *r, const char *id);
/* The first internal relationship whose type ends in "/" tail ("theme",
 * "slideMaster"), or NULL. */
const fo_tpl_rel *fo_tpl_rel_typed(const fo_tpl_rels *r, const char *tail);
/* True when type ends in "/" tail. */
bool fo_tpl_type_is(const char *type, const char *tail);

/* ---- part names ------------------------------------------------------------- */
/* target (a relationship target, relative to the folder of part source, or
 * absolute from the package root with a leading '/') as a part name in
 * out; false when it leaves the package, is too long or is not a valid part
 * name. */
bool fo_tpl_resolve(const char *source, const char *target, char *out, size_t cap);
/* The relative target from part from to part to ("ppt/slideLayouts/a.xml"
 * from "ppt/slides/s.xml" -> "../slideLayouts/a.xml"). */
void fo_tpl_relative(const char *from, const char *to, char *out, size_t cap);
/* The content type of a picture from its extension (png, jpeg, gif, emf,
 * wmf, svg, bmp, tiff), or NULL: only these are copied. */
const char *fo_tpl_picture_type(const char *part);
/* The extension of a picture part in lower case ("x.PNG" -> "png") in buf
 * (for its <Default>: extensions match ignoring case); "" when it has none. */
const char *fo_tpl_picture_ext(const char *part, char *buf, size_t cap);

/* ---- reading the DOM --------------------------------------------------------- */
/* The first element child of n with that local name, or NULL (n may be NULL). */
xmlNodePtr fo_tpl_child(xmlNodePtr n, const char *local);
/* True when n is an element with that local name. */
bool fo_tpl_is(xmlNodePtr n, const char *local);
/* Attribute of n by local name (any namespace) copied into buf (truncated
 * to cap); "" when absent or n is NULL. Returns buf. */
const char *fo_tpl_attr(xmlNodePtr n, const char *local, char *buf, size_t cap);

#endif
