/* xmp.c — the PDF's XMP metadata stream (the catalog's /Metadata): the
 * provenance of render/core/prov.h as properties in folio's namespace, plus
 * pdf:Producer as the Info dictionary has it. libharu has no XMP API, so the
 * stream is made with its object layer; it is left unfiltered, as XMP
 * readers that scan a file for packets (and `pdfinfo -meta`) expect. */
#include <stdio.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_objects.h>
#include <hpdf_streams.h>

#include "render/core/prov.h"
#include "render/ooxml/xml.h"
#include "render/pdf/pdf_int.h"

/* The packet's body (x:xmpmeta) for items, without an XML declaration. */
static fo_status xmp_body(const fo_prov_item *items, size_t n, fo_xml *x)
{
    char local[80];
    fo_xml_open(x, "x:xmpmeta", "xmlns:x", "adobe:ns:meta/", NULL);
    fo_xml_open(x, "rdf:RDF", "xmlns:rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#", NULL);
    fo_xml_open(x, "rdf:Description", "rdf:about", "", "xmlns:pdf", "http://ns.adobe.com/pdf/1.3/",
                "xmlns:folio", FO_PROV_XMP_NS, NULL);
    fo_xml_text_elem(x, "pdf:Producer", "folio " FOLIO_VERSION);
    for (size_t k = 0; k < n; k++) {
        /* "folio.input.1" -> folio:input.1 (prov.c checked the name) */
        snprintf(local, sizeof local, "folio:%s", items[k].name + strlen(FO_PROV_PREFIX));
        fo_xml_text_elem(x, local, items[k].value);
    }
    fo_xml_finish(x);
    return fo_xml_status(x);
}

void fo_pdf_xmp(fo_pdf *c, const fo_render_opts *opts)
{
    static const char head[] = "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n";
    static const char tail[] = "\n<?xpacket end=\"r\"?>\n";
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(c->doc, opts, items), len = 0;
    fo_xml *x = fo_xml_new_memory();
    if (!x || xmp_body(items, n, x) != FO_OK) {
        fo_xml_free(x);
        fo_pdf_fail(c, FO_ERR_NOMEM, "the XMP metadata could not be written");
        return;
    }
    const char *xml = fo_xml_memory(x, &len);
    const char *body = xml ? strstr(xml, "?>") : NULL; /* past the XML declaration */
    if (body) {
        body += 2;
        while (*body == '\n') body++;
        len -= (size_t)(body - xml);
        while (len && body[len - 1] == '\n') len--;
    }
    HPDF_Doc pdf = c->pdf;
    HPDF_Dict meta = body ? HPDF_DictStream_New(pdf->mmgr, pdf->xref) : NULL;
    if (!meta || HPDF_Dict_AddName(meta, "Type", "Metadata") != HPDF_OK ||
        HPDF_Dict_AddName(meta, "Subtype", "XML") != HPDF_OK ||
        HPDF_Stream_Write(meta->stream, (const HPDF_BYTE *)head, sizeof head - 1) != HPDF_OK ||
        HPDF_Stream_Write(meta->stream, (const HPDF_BYTE *)body, (HPDF_UINT)len) != HPDF_OK ||
        HPDF_Stream_Write(meta->stream, (const HPDF_BYTE *)tail, sizeof tail - 1) != HPDF_OK ||
        HPDF_Dict_Add(pdf->catalog, "Metadata", meta) != HPDF_OK)
        fo_pdf_fail(c, FO_ERR_NOMEM, "the XMP metadata could not be written");
    else meta->filter = HPDF_STREAM_FILTER_NONE;
    fo_xml_free(x);
}
