/* prov.c — the provenance list (prov.h). */
#include <string.h>

#include "base/buf.h"

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
    if (doc && doc->spec_sha256[0]) out[n++] = (fo_prov_item){"folio.spec_sha256", doc->spec_sha256};
    out[n++] = (fo_prov_item){"folio.version", FOLIO_VERSION};
    for (size_t k = 0; opts && k < opts->nprov && n < FO_PROV_MAX; k++)
        if (opts->prov[k].name && opts->prov[k].value && name_ok(opts->prov[k].name))
            out[n++] = opts->prov[k];
    return n;
}

/* How many blocks the appendix adds. */
#define APPENDIX_BLOCKS 3

fo_doc *fo_prov_appendix(const fo_doc *doc, const fo_render_opts *opts)
{
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(doc, opts, items);
    fo_doc *copy = fo_malloc(sizeof *copy);
    fo_block *blocks = fo_calloc(doc->nblocks + APPENDIX_BLOCKS, sizeof *blocks);
    fo_buf code = {0};
    for (size_t k = 0; k < n; k++)
        fo_buf_printf(&code, "%s%s: %s", k ? "\n" : "", items[k].name + strlen(FO_PROV_PREFIX),
                      items[k].value);
    char *text = fo_buf_take(&code, NULL);
    if (!copy || !blocks || !text) {
        fo_free(copy);
        fo_free(blocks);
        fo_free(text);
        return NULL;
    }
    *copy = *doc;
    if (doc->nblocks) memcpy(blocks, doc->blocks, doc->nblocks * sizeof *blocks);
    fo_block *b = blocks + doc->nblocks;
    static char pointer[] = "/provenance/appendix";
    static char heading[] = "How this was computed";
    static char sentence[] = "folio rendered this document from the spec and the inputs listed here, "
                             "each identified by the SHA-256 of its bytes; the file's own metadata "
                             "holds the same record (`folio inspect`).";
    b[0] = (fo_block){.kind = FO_BLOCK_HEADING, .pointer = pointer};
    b[0].u.heading.text = heading;
    b[0].u.heading.level = 1;
    b[1] = (fo_block){.kind = FO_BLOCK_PARAGRAPH, .pointer = pointer};
    b[1].u.paragraph.text = sentence;
    b[2] = (fo_block){.kind = FO_BLOCK_CODE, .pointer = pointer};
    b[2].u.code.text = text;
    copy->blocks = blocks;
    copy->nblocks = doc->nblocks + APPENDIX_BLOCKS;
    return copy;
}

void fo_prov_appendix_free(fo_doc *copy)
{
    if (!copy) return;
    fo_free(copy->blocks[copy->nblocks - 1].u.code.text);
    fo_free(copy->blocks);
    fo_free(copy);
}
