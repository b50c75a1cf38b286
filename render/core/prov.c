/* prov.c — the provenance list (prov.h). */
#include <string.h>

#include "render/core/prov.h"

/* A name a writer can use as is: "folio." then [a-z0-9._], at most 64 bytes
 * (an XML local name in XMP, a PNG iTXt keyword, an OOXML property name). */
static int name_ok(const char *name)
{
    size_t n = strlen(name), k;
    if (n <= strlen(FO_PROV_PREFIX) || n > 64 || strncmp(name, FO_PROV_PREFIX, strlen(FO_PROV_PREFIX)))
        return 0;
    for (k = strlen(FO_PROV_PREFIX); k < n; k++)
        if (!((name[k] >= 'a' && name[k] <= 'z') || (name[k] >= '0' && name[k] <= '9') ||
              name[k] == '.' || name[k] == '_'))
            return 0;
    return name[strlen(FO_PROV_PREFIX)] >= 'a' && name[strlen(FO_PROV_PREFIX)] <= 'z';
}

size_t fo_prov_collect(const fo_doc *doc, const fo_render_opts *opts, fo_prov_item *out)
{
    size_t n = 0;
    if (doc && doc->spec_sha256[0])
        out[n++] = (fo_prov_item){"folio.spec_sha256", doc->spec_sha256};
    out[n++] = (fo_prov_item){"folio.version", FOLIO_VERSION};
    for (size_t k = 0; opts && k < opts->nprov && n < FO_PROV_MAX; k++)
        if (opts->prov[k].name && opts->prov[k].value && name_ok(opts->prov[k].name))
            out[n++] = opts->prov[k];
    return n;
}
