/* package.h — OOXML package writer (Open Packaging Conventions) on libzip:
 * parts, relationships, [Content_Types].xml, core and app properties.
 *
 * The only module that knows the zip archive. Renderers (docx, pptx) add
 * parts and relationships in any order; fo_pkg_close writes the archive in a
 * fixed entry order — [Content_Types].xml, _rels/.rels, then the parts in the
 * order added, then each part's relationships in the order of their source
 * part — every entry deflated (PNGs at the fastest level; JPEGs, which
 * deflate cannot shrink, stored) and stamped 1980-01-01 00:00, so the same calls give the
 * same bytes.
 *
 * Part names are written without the leading slash: "word/document.xml".
 * The package's own relationships have source part "" (or NULL).
 * Relationship targets are stored as given: relative to the source part's
 * folder ("styles.xml", "media/image1.png"), or an absolute URL when external.
 *
 * Errors are sticky (cairo-style): the first failure is remembered, later
 * calls are no-ops, fo_pkg_close reports it once with a diagnostic. */
#ifndef FO_OOXML_PACKAGE_H
#define FO_OOXML_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "folio.h"
#include "render/core/model.h"
#include "render/ooxml/xml.h"

/* ---- relationship types shared by docx and pptx ------------------------- */
#define FO_REL_OFFICE_DOCUMENT \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
#define FO_REL_CORE_PROPS \
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
#define FO_REL_APP_PROPS \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties"
#define FO_REL_THEME "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme"
#define FO_REL_IMAGE "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
#define FO_REL_HYPERLINK \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink"

/* ---- content types shared by docx and pptx ------------------------------ */
#define FO_CT_RELS "application/vnd.openxmlformats-package.relationships+xml"
#define FO_CT_CORE_PROPS "application/vnd.openxmlformats-package.core-properties+xml"
#define FO_CT_APP_PROPS "application/vnd.openxmlformats-officedocument.extended-properties+xml"
#define FO_REL_CUSTOM_PROPS \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
#define FO_CT_CUSTOM_PROPS "application/vnd.openxmlformats-officedocument.custom-properties+xml"
#define FO_CT_THEME "application/vnd.openxmlformats-officedocument.theme+xml"
#define FO_CT_PNG "image/png"
#define FO_CT_JPEG "image/jpeg"

/* ---- namespaces ------------------------------------------------------------ */
#define FO_NS_R "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define FO_NS_A "http://schemas.openxmlformats.org/drawingml/2006/main"
#define FO_NS_PIC "http://schemas.openxmlformats.org/drawingml/2006/picture"

typedef struct fo_pkg fo_pkg;

/* Starts a package that fo_pkg_close writes to path (borrowed; usually the
 * temporary path from fo_outset_add). NULL only when out of memory. Nothing
 * touches path before fo_pkg_close; parts past 32 MiB held in memory go to
 * an anonymous temporary file (tmpfile(), gone when the package is freed or
 * the process dies), so a deck of thousands of slides stays small. */
fo_pkg *fo_pkg_new(const char *path);
void fo_pkg_free(fo_pkg *p);
/* From now on each XML part held in memory is deflated by a second thread
 * as soon as it is added, so that fo_pkg_close finds it packed: the same
 * archive, byte for byte, with the deflating moved off the critical path.
 * For a package written to a file (fo_pkg_close); best effort (without the
 * thread everything is packed at close, as before). */
void fo_pkg_deflate_ahead(fo_pkg *p);
/* FO_OK or the first error so far. */
fo_status fo_pkg_status(const fo_pkg *p);

/* A <Default Extension=ext ContentType=ct/> entry ("png" -> image/png).
 * "rels" and "xml" are always present; adding one twice is harmless. */
void fo_pkg_add_default(fo_pkg *p, const char *ext, const char *content_type);

/* Adds a part from bytes (copied). content_type != NULL adds an <Override>
 * for the part; NULL relies on a Default for its extension. Adding a name
 * twice is an error (FO_ERR_INTERNAL). */
void fo_pkg_add_part(fo_pkg *p, const char *name, const char *content_type,
                     const void *data, size_t len);
/* Same, taking ownership of data (allocated with fo_malloc; freed by the
 * package, also on error). Saves a copy of big pictures. */
void fo_pkg_add_part_take(fo_pkg *p, const char *name, const char *content_type,
                          void *data, size_t len);
/* Adds a part written with an fo_xml writer: finishes it and takes ownership
 * (x is freed by the package, also on error; x == NULL records FO_ERR_NOMEM).
 * A file-backed writer is streamed into the archive at close. */
void fo_pkg_add_xml(fo_pkg *p, const char *name, const char *content_type, fo_xml *x);
/* Adds a part from templates/ (fo_template_find), replacing each "{{KEY}}"
 * in it by its value: subst holds KEY, value pairs and ends with NULL (subst
 * itself may be NULL). Values are XML-escaped. A missing template is
 * FO_ERR_INTERNAL. */
void fo_pkg_add_template(fo_pkg *p, const char *name, const char *content_type,
                         const char *template_name, const char *const *subst);
/* The built-in template with {{KEY}} substituted as above, fo_malloc'd
 * (caller frees), *len its length; NULL when missing or out of memory. */
char *fo_template_expand(const char *template_name, const char *const *subst, size_t *len);
/* True when a part of that name was added. */
bool fo_pkg_has_part(const fo_pkg *p, const char *name);

/* Adds a relationship from source_part ("" or NULL: the package) and returns
 * its id, "rId1", "rId2", ... numbered per source part in call order
 * (borrowed; valid until fo_pkg_free). external: target is a URL written with
 * TargetMode="External". Returns "" after an error. */
const char *fo_pkg_add_rel(fo_pkg *p, const char *source_part, const char *type,
                           const char *target, bool external);

/* Same with the id given (e.g. "rId7", kept from a template's part whose
 * XML refers to it); the caller keeps ids unique per source part. */
const char *fo_pkg_add_rel_id(fo_pkg *p, const char *source_part, const char *id,
                              const char *type, const char *target, bool external);

/* docProps/core.xml from doc: dc:title, dc:subject (subtitle), dc:creator,
 * cp:lastModifiedBy, dcterms:created/modified from doc->epoch (W3CDTF),
 * plus its Override and package relationship. */
void fo_pkg_add_core_props(fo_pkg *p, const fo_doc *doc);
/* docProps/app.xml: Application "folio" plus its Override and relationship.
 * extra_xml: trusted elements inserted before </Properties> (e.g.
 * "<Slides>12</Slides>"), or NULL. */
void fo_pkg_add_app_props(fo_pkg *p, const char *extra_xml);
/* docProps/custom.xml: the provenance (render/core/prov.h: spec SHA-256,
 * folio version, opts->prov) as custom properties of type vt:lpwstr, plus its
 * Override and package relationship. */
void fo_pkg_add_custom_props(fo_pkg *p, const fo_doc *doc, const fo_render_opts *opts);
/* ppt/theme/theme1.xml-style theme part from templates/ooxml/theme1.xml with
 * the theme's fonts and colors; adds the Override (no relationship: the
 * caller relates it from its main part). lang: the document's language
 * (NULL: none); when it has an East Asian font (fo_lang_for_ooxml's
 * ea_font), both font collections list that font for its script
 * (<a:font script="Jpan" typeface=.../>), where runs saying +mn-ea or
 * +mj-ea find it while the collections' own a:ea stays empty. */
void fo_pkg_add_theme(fo_pkg *p, const char *name, const fo_theme *t, const char *lang);

/* Writes the archive to the path given to fo_pkg_new. Returns FO_OK or the
 * sticky error, with one diagnostic in d naming the problem. The package
 * still needs fo_pkg_free afterwards. */
fo_status fo_pkg_close(fo_pkg *p, fo_diags *d);
/* Same, into memory: *out (fo_malloc'd, the caller frees) and *len, with
 * every entry stored rather than deflated — for a package embedded in
 * another (a chart's workbook), which the outer archive deflates whole, so
 * its XML is compressed once. The path given to fo_pkg_new only names the
 * package in the diagnostic. On failure *out is NULL. */
fo_status fo_pkg_close_memory(fo_pkg *p, void **out, size_t *len, fo_diags *d);

/* ---- private --------------------------------------------------------------- */
/* Records err (first one wins) with a short reason; for writers built on the
 * package (e.g. a failed image read). */
void fo_pkg__fail(fo_pkg *p, fo_status err, const char *why);
/* How many bytes of parts are held in memory before the rest is written to
 * the temporary file (default 32 MiB); tests set 0 to spill every part. */
void fo_pkg__set_held_limit(fo_pkg *p, size_t bytes);
/* fo_pkg_close_memory writes through libzip even when it could write the
 * stored archive itself (tests compare the two). */
void fo_pkg__via_libzip(fo_pkg *p);
/* A new archive (libzip) written straight into path, with no temporary file
 * beside it (the output ceiling's watch sees every byte); NULL and *zerr
 * (a ZIP_ER_ code) on failure. */
struct zip;
struct zip *fo_pkg__open_dest(const char *path, int *zerr);

#endif
