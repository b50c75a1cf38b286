/* prov.h — what every rendered file records about where it came from
 * (PRODUCT.md §9, docs/provenance.md): the spec's SHA-256, folio's version,
 * then what the caller adds (fo_render_opts.prov: a run's or session's id,
 * the cell, one folio.input.N per input file). Each writer puts the same list
 * in its format's own metadata: OOXML custom properties, PDF XMP, PNG iTXt.
 * Deterministic: the list depends on the spec's bytes and the options only. */
#ifndef FO_PROV_H
#define FO_PROV_H

#include <stddef.h>

#include "folio.h"
#include "render/core/model.h"

/* FO_PROV_MAX, FO_PROV_PREFIX and FO_PROV_XMP_NS are in folio.h (folio
 * inspect reads them back). */

/* Fills out (room for FO_PROV_MAX) with folio.spec_sha256 (when doc has one),
 * folio.version and opts->prov in order, skipping items whose name does not
 * start with "folio." or is not [a-z0-9._]; returns the count. Borrowed. */
size_t fo_prov_collect(const fo_doc *doc, const fo_render_opts *opts, fo_prov_item *out);

/* The spec's "provenance": {"appendix": true}: a copy of doc (shallow: it
 * shares everything but its block list, so free it with fo_prov_appendix_free
 * before doc) ending with a level-1 heading "How this was computed", a
 * sentence, and a code block listing the items above (one "name: value" a
 * line, "folio." left off). NULL when out of memory. */
fo_doc *fo_prov_appendix(const fo_doc *doc, const fo_render_opts *opts);
void fo_prov_appendix_free(fo_doc *copy);

#endif
