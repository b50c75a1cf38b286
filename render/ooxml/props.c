/* props.c — package-level parts every OOXML document carries: core
 * properties (docProps/core.xml), app properties (docProps/app.xml) and the
 * DrawingML theme filled from an fo_theme.
 *
 * Timestamps come from doc->epoch only, never the clock, so a document
 * rendered twice is byte-identical. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "render/ooxml/package.h"

/* W3CDTF in UTC: "2026-09-30T00:00:00Z". */
static void w3cdtf(int64_t epoch, char out[32])
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(out, 32, "2000-01-01T00:00:00Z");
        return;
    }
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void fo_pkg_add_core_props(fo_pkg *p, const fo_doc *doc)
{
    if (fo_pkg_status(p) != FO_OK) return;
    char when[32];
    w3cdtf(doc->epoch, when);
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "cp:coreProperties",
                "xmlns:cp", "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
                "xmlns:dc", "http://purl.org/dc/elements/1.1/",
                "xmlns:dcterms", "http://purl.org/dc/terms/",
                "xmlns:dcmitype", "http://purl.org/dc/dcmitype/",
                "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance", NULL);
    if (doc->title) fo_xml_text_elem(x, "dc:title", doc->title);
    if (doc->subtitle) fo_xml_text_elem(x, "dc:subject", doc->subtitle);
    if (doc->author) {
        fo_xml_text_elem(x, "dc:creator", doc->author);
        fo_xml_text_elem(x, "cp:lastModifiedBy", doc->author);
    }
    fo_xml_open(x, "dcterms:created", "xsi:type", "dcterms:W3CDTF", NULL);
    fo_xml_text(x, when);
    fo_xml_close(x);
    fo_xml_open(x, "dcterms:modified", "xsi:type", "dcterms:W3CDTF", NULL);
    fo_xml_text(x, when);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_pkg_add_xml(p, "docProps/core.xml", FO_CT_CORE_PROPS, x);
    fo_pkg_add_rel(p, "", FO_REL_CORE_PROPS, "docProps/core.xml", false);
}

void fo_pkg_add_app_props(fo_pkg *p, const char *extra_xml)
{
    if (fo_pkg_status(p) != FO_OK) return;
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "Properties",
                "xmlns", "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
                "xmlns:vt", "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes",
                NULL);
    fo_xml_text_elem(x, "Application", "folio");
    fo_xml_text_elem(x, "DocSecurity", "0");
    if (extra_xml) fo_xml_raw(x, extra_xml, strlen(extra_xml));
    fo_xml_close(x);
    fo_pkg_add_xml(p, "docProps/app.xml", FO_CT_APP_PROPS, x);
    fo_pkg_add_rel(p, "", FO_REL_APP_PROPS, "docProps/app.xml", false);
}

void fo_pkg_add_theme(fo_pkg *p, const char *name, const fo_theme *t)
{
    char dk1[7], dk2[7], lt1[7], acc[6][7], hl[7];
    fo_rgb_hex(t->text, dk1);
    fo_rgb_hex(t->heading_color, dk2);
    fo_rgb_hex(t->background, lt1);
    fo_rgb_hex(t->link, hl);
    for (size_t i = 0; i < 6; i++) {
        fo_rgb c = i < t->npalette ? t->palette[i] : t->accent;
        fo_rgb_hex(c, acc[i]);
    }
    const char *subst[] = {
        "NAME", t->name[0] ? t->name : "folio",
        "DK1", dk1, "LT1", lt1, "DK2", dk2,
        "ACCENT1", acc[0], "ACCENT2", acc[1], "ACCENT3", acc[2],
        "ACCENT4", acc[3], "ACCENT5", acc[4], "ACCENT6", acc[5],
        "HLINK", hl,
        "MAJOR_FONT", t->heading.family, "MINOR_FONT", t->body.family,
        NULL
    };
    fo_pkg_add_template(p, name, FO_CT_THEME, "ooxml/theme1.xml", subst);
}
