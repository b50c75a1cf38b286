/* template.c — `--template FILE.xlsx`: an existing workbook lends its theme
 * (heading/body fonts and the accent colours) to the workbook folio writes.
 *
 * libxlsxwriter writes its own theme part and cannot import one, so the look
 * is carried through folio's theme instead: fonts by name, accents as the
 * chart palette and table header fill. The template's sheets and cells are
 * never copied. Read through render/ooxml/template.h: caps, checked names,
 * no DTD. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/ooxml/template.h"
#include "render/xlsx/xlsx_internal.h"

static const char *const accent_names[] = {"accent1", "accent2", "accent3", "accent4", "accent5", "accent6"};

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
    xmlNode *slot = fo_tpl_child(scheme, name);
    xmlNode *c = fo_tpl_child(slot, "srgbClr");
    const char *attr = "val";
    if (!c) { c = fo_tpl_child(slot, "sysClr"); attr = "lastClr"; }
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
    xmlNode *latin = fo_tpl_child(fo_tpl_child(scheme, which), "latin");
    xmlChar *face = latin ? xmlGetProp(latin, (const xmlChar *)"typeface") : NULL;
    if (face && face[0]) snprintf(out, cap, "%s", (const char *)face);
    xmlFree(face);
}

/* The workbook's theme, parsed: the part the workbook relates, else the
 * usual name; *doc NULL when there is none. */
static fo_status theme_doc(fo_tpl *z, xmlDocPtr *doc)
{
    fo_tpl_rels rels = {0};
    fo_status st = fo_tpl_rels_read(z, "xl/workbook.xml", &rels);
    const fo_tpl_rel *r = st == FO_OK ? fo_tpl_rel_typed(&rels, "theme") : NULL;
    if (st == FO_OK) st = fo_tpl_xml(z, r ? r->target : "xl/theme/theme1.xml", doc, NULL, NULL);
    fo_tpl_rels_free(&rels);
    return st;
}

fo_status fo_xlsx_template_theme(const char *path, fo_theme *t, fo_diags *d)
{
    fo_tpl *z = NULL;
    xmlDoc *doc = NULL;
    fo_status st = fo_tpl_open(path, &z, d);
    if (st != FO_OK) return st;
    if (!fo_tpl_has(z, "xl/workbook.xml")) {
        fo_diags_add(d, path, 0, 0, NULL, "give an .xlsx workbook saved by Excel or LibreOffice",
                     "template is not a workbook (no xl/workbook.xml)");
        st = FO_ERR_INPUT;
        goto cleanup;
    }
    st = theme_doc(z, &doc);
    if (st != FO_OK || !doc) goto cleanup; /* a workbook without a theme keeps folio's */
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
cleanup:
    xmlFreeDoc(doc);
    fo_tpl_free(z);
    return st;
}
