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

/* At most this many items are recorded (spec, version and 62 of the caller's). */
#define FO_PROV_MAX 64
/* The prefix every name has; in XMP the rest is the element's local name. */
#define FO_PROV_PREFIX "folio."
/* The XMP namespace of folio's properties. */
#define FO_PROV_XMP_NS "https://folio.invalid/ns/provenance/1/"

/* Fills out (room for FO_PROV_MAX) with folio.spec_sha256 (when doc has one),
 * folio.version and opts->prov in order, skipping items whose name does not
 * start with "folio." or is not [a-z0-9._]; returns the count. Borrowed. */
size_t fo_prov_collect(const fo_doc *doc, const fo_render_opts *opts, fo_prov_item *out);

#endif
