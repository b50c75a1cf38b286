/* template.c — `--template FILE.xlsx`: an existing workbook lends its theme
 * (heading/body fonts and the accent colours) to the workbook folio writes.
 *
 * libxlsxwriter writes its own theme part and cannot import one, so the look
 * is carried through folio's theme instead: fonts by name, accents as the
 * chart palette and table header fill. The template's sheets and cells are
 * never copied. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/ooxml/zipin.h"
#include "render/xlsx/xlsx_internal.h"

static const char *const accent_names[] = {"accent1", "accent2", "accent3", "accent4", "accent5", "accent6"};

static xmlNode *child(xmlNode *n, const char *local)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, local)) return c;
    return NULL;
}

/* Depth-first search by local name. */
static xmlNode *find(xmlNode *n, const char *local)
{
    for (xmlNode *c = n; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!strcmp((const char *)c->name, local)) return c;
        xmlNode *r = find(c->children, local);
        if (r) return r;
    }
    return NULL;
}

/* A scheme colour: <a:accent1><a:srgbClr val="4472C4"/></a:accent1>, or a
 * system colour with its lastClr. */
static bool scheme_color(xmlNode *scheme, const char *name, fo_rgb *out)
{
    xmlNode *slot = child(scheme, name);
    xmlNode *c = child(slot, "srgbClr");
    const char *attr = "val";
    if (!c) { c = child(slot, "sysClr"); attr = "lastClr"; }
    if (!c) return false;
    xmlChar *v = xmlGetProp(c, (const xmlChar *)attr);
    bool ok = false;
    if (v && strlen((const char *)v) == 6) {
        char *end;
        unsigned long rgb = strtoul((const char *)v, &end, 16);
        if (!*end) { *out = (fo_rgb)rgb; ok = true; }
    }
    xmlFree(v);
    return ok;
}

static void font_name(xmlNode *scheme, const char *which, char *out, size_t cap)
{
    xmlNode *latin = child(child(scheme, which), "latin");
    xmlChar *face = latin ? xmlGetProp(latin, (const xmlChar *)"typeface") : NULL;
    if (face && face[0]) snprintf(out, cap, "%s", (const char *)face);
    xmlFree(face);
}

/* The workbook's theme part: the relationship from workbook.xml, else the
 * usual name. */
static char *theme_part(fo_zipin *z, size_t *len)
{
    fo_zipin_rels rels = {0};
    char *xml = NULL;
    if (fo_zipin_rels_read(z, "xl/workbook.xml", &rels) == FO_OK)
        for (size_t i = 0; i < rels.n && !xml; i++)
            if (strstr(rels.items[i].type, "/relationships/theme"))
                xml = fo_zipin_read(z, rels.items[i].target, len);
    fo_zipin_rels_free(&rels);
    return xml ? xml : fo_zipin_read(z, "xl/theme/theme1.xml", len);
}

fo_status fo_xlsx_template_theme(const char *path, fo_theme *t, fo_diags *d)
{
    fo_zipin *z = NULL;
    char *xml = NULL;
    xmlDoc *doc = NULL;
    fo_status st = fo_zipin_open(path, &z, d);
    if (st != FO_OK) return st;
    st = FO_ERR_INPUT;
    if (!fo_zipin_has(z, "xl/workbook.xml")) {
        fo_diags_add(d, path, 0, 0, NULL, "give an .xlsx workbook saved by Excel or LibreOffice",
                     "template is not a workbook (no xl/workbook.xml)");
        goto cleanup;
    }
    size_t len = 0;
    xml = theme_part(z, &len);
    if (!xml) { st = FO_OK; goto cleanup; } /* a workbook without a theme keeps folio's */
    doc = xmlReadMemory(xml, (int)len, "theme1.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        fo_diags_add(d, path, 0, 0, NULL, NULL, "template's theme part is not well-formed XML");
        goto cleanup;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    xmlNode *clr = find(root, "clrScheme"), *fonts = find(root, "fontScheme");
    fo_rgb accents[6];
    size_t n = 0;
    for (size_t i = 0; i < 6; i++)
        if (scheme_color(clr, accent_names[i], &accents[n])) n++;
    if (n) {
        memcpy(t->palette, accents, n * sizeof *accents);
        t->npalette = n;
        t->accent = accents[0];
        t->table.header_fill = accents[0];
    }
    fo_rgb c;
    if (scheme_color(clr, "dk1", &c)) t->text = c;
    if (scheme_color(clr, "dk2", &c)) t->heading_color = c;
    if (scheme_color(clr, "lt1", &c)) t->table.header_text = c;
    if (scheme_color(clr, "hlink", &c)) t->link = c;
    font_name(fonts, "majorFont", t->heading.family, sizeof t->heading.family);
    font_name(fonts, "minorFont", t->body.family, sizeof t->body.family);
    st = FO_OK;
cleanup:
    xmlFreeDoc(doc);
    fo_free(xml);
    fo_zipin_free(z);
    return st;
}
