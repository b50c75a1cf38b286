/* template.c — `--template FILE.docx`: a company's Word template lends its
 * look to folio's output. Taken from it: styles (folio adds only the styles
 * the template lacks, so its Title, Heading 1-6, List Bullet, Caption ...
 * win), numbering (folio's list definitions appended after the template's,
 * ids shifted), theme, page setup (its body w:sectPr: size, margins,
 * orientation) and headers/footers with their pictures. Its body text is not
 * copied, nor any other part (macros, embeddings, custom XML, settings).
 *
 * Every part is read through render/ooxml/template.h (caps, names, no DTD)
 * and parsed by libxml2, which checks it and gives the values (style ids,
 * numbering ids, page size). The styles and numbering parts are kept as
 * libxml2 trees: folio's styles and lists are copied into them as nodes
 * (xmlDOMWrapCloneNode, namespaces bound to the template's own) and the part
 * is written back by libxml2, so nothing is found by scanning text. The
 * theme is copied as the template's own bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>

#include "base/buf.h"
#include "render/docx/docx_internal.h"
#include "render/ooxml/template.h"

#define ID_MAX 1000000u /* numbering ids beyond this are refused */

struct fo_docx_tpl {
    xmlDocPtr styles, numbering;      /* the parts, parsed; numbering NULL when absent */
    char *theme;                      /* the theme part's bytes, NULL when absent */
    size_t theme_len;
    char **style_ids;                 /* w:styleId of the template's styles */
    size_t nstyle_ids;
    char *sectpr;                     /* body sectPr with header/footer ids rewritten */
    size_t sectpr_open;               /* bytes of its start tag */
    bool sectpr_empty;                /* <w:sectPr .../> */
    long page_w, mar_l, mar_r;        /* twips, 0 when not given */
    unsigned abs_base, num_base;      /* first free abstractNumId / numId - 1 */
};

/* ---- small helpers ---------------------------------------------------------------- */

static fo_status refuse(fo_docx_ctx *c, const char *path, const char *part, const char *why)
{
    fo_diags_add(c->d, NULL, 0, 0, NULL, "give a .docx saved by Word or LibreOffice",
                 "template %s: %s %s", path, part, why);
    return FO_ERR_INPUT;
}

/* A part folio splices text into: UTF-8, root local name `root` in the
 * WordprocessingML namespace under the prefix w. */
static fo_status check_root(fo_docx_ctx *c, const char *path, const char *part, xmlDocPtr doc,
                            const char *root)
{
    xmlNodePtr r = xmlDocGetRootElement(doc);
    if (doc->encoding && strcasecmp((const char *)doc->encoding, "UTF-8") != 0)
        return refuse(c, path, part, "is not UTF-8");
    if (!fo_tpl_is(r, root) || !r->ns || strcmp((const char *)r->ns->href, FO_NS_W) != 0 ||
        !r->ns->prefix || strcmp((const char *)r->ns->prefix, "w") != 0) {
        char why[96];
        snprintf(why, sizeof why, "has no <w:%s> root in the WordprocessingML namespace", root);
        return refuse(c, path, part, why);
    }
    return FO_OK;
}

void fo_docx_tpl_free(fo_docx_tpl *t)
{
    if (!t) return;
    xmlFreeDoc(t->styles);
    xmlFreeDoc(t->numbering);
    fo_free(t->theme);
    for (size_t i = 0; i < t->nstyle_ids; i++) fo_free(t->style_ids[i]);
    fo_free(t->style_ids);
    fo_free(t->sectpr);
    fo_free(t);
}

/* ---- headers and footers ------------------------------------------------------------ */

/* Copies the pictures a header/footer shows (its image relationships; web
 * links are kept, every other relationship dropped). */
static fo_status copy_pictures(fo_docx_ctx *c, fo_tpl *z, const char *part)
{
    fo_tpl_rels rels;
    fo_status st = fo_tpl_rels_read(z, part, &rels);
    for (size_t i = 0; st == FO_OK && i < rels.n; i++) {
        const fo_tpl_rel *h = &rels.items[i];
        if (h->external) {
            fo_pkg_add_rel_id(c->pkg, part, h->id, h->type, h->target, true);
            continue;
        }
        const char *ct = fo_tpl_picture_type(h->target);
        if (!fo_tpl_type_is(h->type, "image") || !ct) continue;
        /* template pictures get their own names beside folio's imageN */
        const char *base = strrchr(h->target, '/');
        base = base ? base + 1 : h->target;
        char name[300], target[300];
        snprintf(name, sizeof name, "word/media/template-%s", base);
        snprintf(target, sizeof target, "media/template-%s", base);
        if (!fo_pkg_has_part(c->pkg, name)) {
            char *m;
            size_t mlen;
            st = fo_tpl_read(z, h->target, FO_TPL_PART_MAX, &m, &mlen);
            if (st != FO_OK || !m) continue; /* a dangling link in the template: left out */
            char ext[16];
            fo_pkg_add_default(c->pkg, fo_tpl_picture_ext(base, ext, sizeof ext), ct);
            fo_pkg_add_part_take(c->pkg, name, NULL, m, mlen);
        }
        fo_pkg_add_rel_id(c->pkg, part, h->id, h->type, target, false);
    }
    fo_tpl_rels_free(&rels);
    return st;
}

/* A header/footer part name folio may take from the template: directly in
 * word/, an .xml, and none of the parts folio writes itself. */
static bool hdrftr_name(const char *part)
{
    static const char *const own[] = {"document.xml", "styles.xml", "numbering.xml", "settings.xml"};
    if (strncmp(part, "word/", 5) != 0) return false;
    const char *base = part + 5;
    size_t n = strlen(base);
    if (strchr(base, '/') || n < 5 || strcasecmp(base + n - 4, ".xml") != 0) return false;
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strcasecmp(base, own[i]) == 0) return false;
    return true;
}

/* Copies a header/footer part (checked XML) and its pictures. */
static fo_status copy_hdrftr(fo_docx_ctx *c, fo_tpl *z, const fo_tpl_rel *r, bool footer)
{
    xmlDocPtr doc;
    char *data;
    size_t len;
    fo_status st = fo_tpl_xml(z, r->target, &doc, &data, &len);
    if (st != FO_OK || !doc) return st; /* missing: the reference is left out */
    xmlFreeDoc(doc);
    fo_pkg_add_part_take(c->pkg, r->target, footer ? FO_CT_DOCX_FOOTER : FO_CT_DOCX_HEADER, data, len);
    return copy_pictures(c, z, r->target);
}

/* The new relationship id for a sectPr reference r:id="rid" ("" when the
 * template's relationship is not a header/footer folio copies). */
static fo_status ref_id(fo_docx_ctx *c, fo_tpl *z, const fo_tpl_rels *rels, const char *rid,
                        const char **nid)
{
    const fo_tpl_rel *r = fo_tpl_rel_find(rels, rid);
    *nid = "";
    if (!r || r->external || !hdrftr_name(r->target)) return FO_OK;
    bool footer = fo_tpl_type_is(r->type, "footer");
    if (!footer && !fo_tpl_type_is(r->type, "header")) return FO_OK;
    if (!fo_pkg_has_part(c->pkg, r->target)) {
        fo_status st = copy_hdrftr(c, z, r, footer);
        if (st != FO_OK || !fo_pkg_has_part(c->pkg, r->target)) return st;
    }
    *nid = fo_pkg_add_rel(c->pkg, FO_DOCX_DOCUMENT, r->type, r->target + 5, false);
    c->template_hdrftr = true;
    return FO_OK;
}

/* ---- the section ---------------------------------------------------------------------- */

/* True when ns is prefix bound to href, as in folio's document.xml. */
static bool bound(const xmlNs *ns, const char *prefix, const char *href)
{
    return ns && ns->prefix && strcmp((const char *)ns->prefix, prefix) == 0 &&
           strcmp((const char *)ns->href, href) == 0;
}

/* The sectPr is copied into folio's document.xml, which declares w: and r:
 * only: every element must be w:, every attribute w:, r: or unprefixed. */
static bool carried_prefixes(xmlNodePtr n)
{
    if (!bound(n->ns, "w", FO_NS_W)) return false;
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (a->ns && !bound(a->ns, "w", FO_NS_W) && !bound(a->ns, "r", FO_NS_R)) return false;
    for (xmlNodePtr c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !carried_prefixes(c)) return false;
    return true;
}

/* Page width and side margins from the sectPr node. */
static void page_setup(fo_docx_tpl *t, xmlNodePtr sect)
{
    char v[32];
    xmlNodePtr pg = fo_tpl_child(sect, "pgSz"), mar = fo_tpl_child(sect, "pgMar");
    if (*fo_tpl_attr(pg, "w", v, sizeof v)) t->page_w = atol(v);
    if (*fo_tpl_attr(mar, "left", v, sizeof v)) t->mar_l = atol(v);
    if (*fo_tpl_attr(mar, "right", v, sizeof v)) t->mar_r = atol(v);
}

/* Points every r:id in the subtree n at folio's copy of the part it names
 * (ref_id); found and set through libxml2, never by matching text. */
static fo_status rewrite_ids(fo_docx_ctx *c, fo_tpl *z, const fo_tpl_rels *rels, xmlNodePtr n)
{
    fo_status st = FO_OK;
    for (xmlAttrPtr a = n->properties; a && st == FO_OK; a = a->next) {
        if (!bound(a->ns, "r", FO_NS_R) || strcmp((const char *)a->name, "id") != 0) continue;
        xmlChar *rid = xmlNodeGetContent((xmlNodePtr)a);
        const char *nid = "";
        st = rid ? ref_id(c, z, rels, (const char *)rid, &nid) : FO_ERR_NOMEM;
        xmlFree(rid);
        if (st == FO_OK && !xmlSetNsProp(n, a->ns, a->name, BAD_CAST nid)) st = FO_ERR_NOMEM;
    }
    for (xmlNodePtr k = n->children; k && st == FO_OK; k = k->next)
        if (k->type == XML_ELEMENT_NODE) st = rewrite_ids(c, z, rels, k);
    return st;
}

/* The sectPr as text for folio's document.xml, and where its start tag
 * ends (libxml2 writes '>' inside attribute values as "&gt;"). */
static fo_status section_text(fo_docx_tpl *t, xmlDocPtr dom, xmlNodePtr sect)
{
    xmlBufferPtr xb = xmlBufferCreate();
    if (!xb || xmlNodeDump(xb, dom, sect, 0, 0) < 0) {
        xmlBufferFree(xb);
        return FO_ERR_NOMEM;
    }
    t->sectpr = fo_strndup((const char *)xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    xmlBufferFree(xb);
    if (!t->sectpr) return FO_ERR_NOMEM;
    const char *gt = strchr(t->sectpr, '>');
    t->sectpr_open = gt ? (size_t)(gt - t->sectpr) + 1 : 0;
    t->sectpr_empty = gt && gt > t->sectpr && gt[-1] == '/';
    return FO_OK;
}

/* The body's sectPr: copied with each header/footer reference pointed at
 * the copied part through a new relationship of word/document.xml. */
static fo_status take_section(fo_docx_ctx *c, fo_docx_tpl *t, fo_tpl *z, xmlDocPtr dom)
{
    xmlNodePtr body = fo_tpl_child(xmlDocGetRootElement(dom), "body"), sect = NULL;
    for (xmlNodePtr n = body ? body->children : NULL; n; n = n->next)
        if (fo_tpl_is(n, "sectPr")) sect = n;
    if (!sect) return FO_OK; /* no page setup: folio's theme */
    if (!carried_prefixes(sect))
        return refuse(c, fo_tpl_path(z), FO_DOCX_DOCUMENT,
                      "has a page setup (w:sectPr) with elements or attributes outside the w: and r: "
                      "namespaces");
    page_setup(t, sect);
    fo_tpl_rels rels;
    fo_status st = fo_tpl_rels_read(z, FO_DOCX_DOCUMENT, &rels);
    if (st != FO_OK) return st;
    st = rewrite_ids(c, z, &rels, sect);
    fo_tpl_rels_free(&rels);
    return st == FO_OK ? section_text(t, dom, sect) : st;
}

/* The first element child of root, or NULL. */
static xmlNodePtr first_element(xmlNodePtr root)
{
    for (xmlNodePtr n = root ? root->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE) return n;
    return NULL;
}

/* ---- loading ---------------------------------------------------------------------- */

/* The largest numeric attr of root's children named el; false when one is
 * out of range. */
static bool max_id(xmlNodePtr root, const char *el, const char *attr, unsigned *out)
{
    char v[32];
    *out = 0;
    for (xmlNodePtr n = root->children; n; n = n->next) {
        if (!fo_tpl_is(n, el) || !*fo_tpl_attr(n, attr, v, sizeof v)) continue;
        unsigned long x = strtoul(v, NULL, 10);
        if (x > ID_MAX) return false;
        if (x > *out) *out = (unsigned)x;
    }
    return true;
}

/* The template's style ids (folio adds only the styles it lacks). */
static fo_status take_style_ids(fo_docx_tpl *t, xmlDocPtr dom)
{
    char v[256];
    size_t cap = 0;
    for (xmlNodePtr n = xmlDocGetRootElement(dom)->children; n; n = n->next) {
        if (!fo_tpl_is(n, "style") || !*fo_tpl_attr(n, "styleId", v, sizeof v)) continue;
        if (!fo_grow((void **)&t->style_ids, &cap, t->nstyle_ids + 1, 64, sizeof *t->style_ids))
            return FO_ERR_NOMEM;
        if (!(t->style_ids[t->nstyle_ids] = fo_strdup(v))) return FO_ERR_NOMEM;
        t->nstyle_ids++;
    }
    return FO_OK;
}

static fo_status load_styles(fo_docx_ctx *c, fo_docx_tpl *t, fo_tpl *z, const char *path)
{
    fo_status st = fo_tpl_xml(z, "word/styles.xml", &t->styles, NULL, NULL);
    if (st != FO_OK) return st;
    if (!t->styles) return refuse(c, path, "word/styles.xml", "is missing: it is not a Word document");
    st = check_root(c, path, "word/styles.xml", t->styles, "styles");
    if (st == FO_OK && !first_element(xmlDocGetRootElement(t->styles)))
        st = refuse(c, path, "word/styles.xml", "has no styles (<w:styles/>)");
    if (st == FO_OK) st = take_style_ids(t, t->styles);
    return st;
}

static fo_status load_numbering(fo_docx_ctx *c, fo_docx_tpl *t, fo_tpl *z, const char *path)
{
    const char *part = "word/numbering.xml";
    fo_status st = fo_tpl_xml(z, part, &t->numbering, NULL, NULL);
    if (st != FO_OK || !t->numbering) return st;
    st = check_root(c, path, part, t->numbering, "numbering");
    unsigned abs = 0;
    xmlNodePtr root = xmlDocGetRootElement(t->numbering);
    if (st == FO_OK && (!max_id(root, "abstractNum", "abstractNumId", &abs) ||
                        !max_id(root, "num", "numId", &t->num_base)))
        st = refuse(c, path, part, "has a list id over 1000000");
    t->abs_base = abs + 1;
    if (st == FO_OK && !first_element(root)) { /* <w:numbering/>: folio's own lists */
        xmlFreeDoc(t->numbering);
        t->numbering = NULL;
        t->abs_base = t->num_base = 0;
    }
    return st;
}

static fo_status load_theme(fo_docx_tpl *t, fo_tpl *z)
{
    xmlDocPtr dom;
    fo_status st = fo_tpl_xml(z, "word/theme/theme1.xml", &dom, &t->theme, &t->theme_len);
    xmlFreeDoc(dom);
    return st;
}

static fo_status load_parts(fo_docx_ctx *c, fo_docx_tpl *t, fo_tpl *z, const char *path)
{
    xmlDocPtr dom = NULL;
    fo_status st = fo_tpl_xml(z, FO_DOCX_DOCUMENT, &dom, NULL, NULL);
    if (st == FO_OK && !dom) st = refuse(c, path, FO_DOCX_DOCUMENT, "is missing: it is not a Word document");
    if (st == FO_OK) st = check_root(c, path, FO_DOCX_DOCUMENT, dom, "document");
    if (st == FO_OK) st = load_styles(c, t, z, path);
    if (st == FO_OK) st = load_numbering(c, t, z, path);
    if (st == FO_OK) st = load_theme(t, z);
    if (st == FO_OK) st = take_section(c, t, z, dom);
    xmlFreeDoc(dom);
    return st;
}

fo_status fo_docx_tpl_load(fo_docx_ctx *c, const char *path)
{
    fo_tpl *z = NULL;
    fo_status st = fo_tpl_open(path, &z, c->d);
    if (st != FO_OK) return st;
    fo_docx_tpl *t = fo_calloc(1, sizeof *t);
    if (!t) st = FO_ERR_NOMEM;
    else c->tpl = t;
    if (st == FO_OK) st = load_parts(c, t, z, path);
    fo_tpl_free(z);
    if (st == FO_ERR_NOMEM && c->d->n == 0) fo_diags_add(c->d, NULL, 0, 0, NULL, NULL, "out of memory");
    return st; /* c->tpl is freed with the context */
}

/* ---- using it -------------------------------------------------------------------- */

long fo_docx_tpl_text_width(const fo_docx_tpl *t)
{
    return t && t->page_w > 0 ? t->page_w - t->mar_l - t->mar_r : 0;
}

bool fo_docx_tpl_section(fo_docx_ctx *c)
{
    if (!c->tpl || !c->tpl->sectpr) return false;
    const fo_docx_tpl *t = c->tpl;
    const char *s = t->sectpr;
    if (c->template_hdrftr || t->sectpr_empty) {
        fo_xml_raw(c->x, s, strlen(s));
        return true;
    }
    /* no letterhead in the template: folio's theme header/footer, whose
     * references come first in a sectPr */
    fo_xml_raw(c->x, s, t->sectpr_open);
    char ref[128];
    int n;
    if (c->header_rid[0]) {
        n = snprintf(ref, sizeof ref, "<w:headerReference w:type=\"default\" r:id=\"%s\"/>", c->header_rid);
        fo_xml_raw(c->x, ref, (size_t)n);
    }
    if (c->footer_rid[0]) {
        n = snprintf(ref, sizeof ref, "<w:footerReference w:type=\"default\" r:id=\"%s\"/>", c->footer_rid);
        fo_xml_raw(c->x, ref, (size_t)n);
    }
    fo_xml_raw(c->x, s + t->sectpr_open, strlen(s + t->sectpr_open));
    return true;
}

unsigned fo_docx_tpl_num_base(const fo_docx_tpl *t) { return t ? t->num_base : 0; }
unsigned fo_docx_tpl_abs_base(const fo_docx_tpl *t) { return t ? t->abs_base : 0; }

bool fo_docx_tpl_theme(fo_docx_ctx *c)
{
    if (!c->tpl || !c->tpl->theme) return false;
    fo_pkg_add_part(c->pkg, "word/theme/theme1.xml", FO_CT_THEME, c->tpl->theme, c->tpl->theme_len);
    return true;
}

static bool has_style(const fo_docx_tpl *t, const char *id)
{
    for (size_t i = 0; i < t->nstyle_ids; i++)
        if (strcmp(t->style_ids[i], id) == 0) return true;
    return false;
}

/* A copy of n (from src) inside out, bound to out's namespaces, placed
 * before `before` (NULL: last child of parent). False when out of memory. */
static bool graft(xmlDocPtr src, xmlNodePtr n, xmlDocPtr out, xmlNodePtr parent, xmlNodePtr before)
{
    xmlNodePtr copy = NULL;
    if (xmlDOMWrapCloneNode(NULL, src, n, &copy, out, parent, 1, 0) != 0 || !copy) return false;
    if (before ? xmlAddPrevSibling(before, copy) : xmlAddChild(parent, copy)) return true;
    xmlFreeNode(copy);
    return false;
}

/* Adds to out's root each w:style of folio's styles part (dom) whose
 * w:styleId the template lacks. */
static bool add_missing_styles(const fo_docx_tpl *t, xmlDocPtr dom, xmlDocPtr out)
{
    xmlNodePtr root = dom ? xmlDocGetRootElement(dom) : NULL;
    bool ok = root != NULL;
    for (xmlNodePtr n = root ? root->children : NULL; n && ok; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || !fo_tpl_is(n, "style")) continue;
        xmlChar *id = xmlGetNsProp(n, BAD_CAST "styleId", BAD_CAST FO_NS_W);
        bool missing = id && !has_style(t, (const char *)id);
        xmlFree(id);
        if (missing) ok = graft(dom, n, out, xmlDocGetRootElement(out), NULL);
    }
    return ok;
}

/* Writes doc as part name, or fails the document. */
static void add_tree(fo_docx_ctx *c, xmlDocPtr doc, const char *name, const char *ct)
{
    xmlChar *mem = NULL;
    int len = 0;
    xmlDocDumpMemoryEnc(doc, &mem, &len, "UTF-8");
    if (!mem) { fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_pkg_add_part(c->pkg, name, ct, (const char *)mem, (size_t)len);
    xmlFree(mem);
}

/* Template styles plus folio's styles whose id the template lacks (folio's
 * part is built in, trusted text, read with libxml2 all the same). */
void fo_docx_tpl_styles(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    xmlDocPtr out = xmlCopyDoc(c->tpl->styles, 1);
    xmlDocPtr dom = xmlReadMemory(folio, (int)folio_len, NULL, NULL, XML_PARSE_NONET);
    if (out && add_missing_styles(c->tpl, dom, out)) add_tree(c, out, "word/styles.xml", FO_CT_DOCX_STYLES);
    else fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory");
    xmlFreeDoc(dom);
    xmlFreeDoc(out);
}

/* The first element named el among from and its following siblings; NULL
 * when none. */
static xmlNodePtr child_named(xmlNodePtr from, const char *el)
{
    for (xmlNodePtr n = from; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && fo_tpl_is(n, el)) return n;
    return NULL;
}

/* Copies folio's children named el (of froot in src) into out before
 * `before` (NULL: at the end of out's root); false when folio has none or
 * memory runs out. */
static bool graft_all(xmlDocPtr src, xmlNodePtr froot, const char *el, xmlDocPtr out, xmlNodePtr before)
{
    bool any = false;
    for (xmlNodePtr n = child_named(froot->children, el); n; n = child_named(n->next, el)) {
        if (!graft(src, n, out, xmlDocGetRootElement(out), before)) return false;
        any = true;
    }
    return any;
}

/* Template numbering with folio's abstractNum and num elements (already
 * numbered past the template's ids) added in schema order: the template's
 * abstractNums, folio's, the template's nums, folio's, then the template's
 * w:numIdMacAtCleanup. */
void fo_docx_tpl_numbering(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    xmlDocPtr out = xmlCopyDoc(c->tpl->numbering, 1);
    xmlDocPtr dom = xmlReadMemory(folio, (int)folio_len, NULL, NULL, XML_PARSE_NONET);
    xmlNodePtr froot = dom ? xmlDocGetRootElement(dom) : NULL, root = out ? xmlDocGetRootElement(out) : NULL;
    if (!froot || !root) {
        fo_docx_fail(c, NULL, out ? FO_ERR_INTERNAL : FO_ERR_NOMEM, out ? "numbering" : "out of memory");
    } else {
        xmlNodePtr cleanup = child_named(root->children, "numIdMacAtCleanup");
        xmlNodePtr num = child_named(root->children, "num");
        if (!graft_all(dom, froot, "abstractNum", out, num ? num : cleanup) ||
            !graft_all(dom, froot, "num", out, cleanup))
            fo_docx_fail(c, NULL, FO_ERR_INTERNAL, "numbering");
        else add_tree(c, out, "word/numbering.xml", FO_CT_DOCX_NUMBERING);
    }
    xmlFreeDoc(dom);
    xmlFreeDoc(out);
}

bool fo_docx_tpl_has_numbering(const fo_docx_tpl *t) { return t && t->numbering; }
