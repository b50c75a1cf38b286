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
 * numbering ids, page size). The pieces kept are copied as the template's
 * own bytes so that they stay exactly as Word wrote them: a tag scanner run
 * over the well-formed, UTF-8 text libxml2 accepted finds where they start
 * and end, skipping comments, CDATA and processing instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>

#include "render/core/buf.h"
#include "render/docx/docx_internal.h"
#include "render/ooxml/template.h"

#define ID_MAX 1000000u /* numbering ids beyond this are refused */

struct fo_docx_tpl {
    char *styles, *numbering, *theme; /* whole parts, NULL when absent */
    size_t styles_len, numbering_len, theme_len;
    char **style_ids;                 /* w:styleId of the template's styles */
    size_t nstyle_ids;
    char *sectpr;                     /* body sectPr with header/footer ids rewritten */
    size_t sectpr_open;               /* bytes of its start tag */
    bool sectpr_empty;                /* <w:sectPr .../> */
    long page_w, mar_l, mar_r;        /* twips, 0 when not given */
    unsigned abs_base, num_base;      /* first free abstractNumId / numId - 1 */
};

/* ---- a tag scanner for text libxml2 already accepted ----------------------------- */

enum { TAG_START, TAG_END, TAG_EMPTY };

typedef struct {
    const char *start, *end; /* the tag's bytes: '<' .. '>' inclusive */
    const char *name;        /* qualified name, nlen bytes */
    size_t nlen;
    int kind;
} tag;

/* Skips from s past the first occurrence of close; lim on failure. */
static const char *past(const char *s, const char *lim, const char *close)
{
    size_t n = strlen(close);
    for (; s + n <= lim; s++)
        if (memcmp(s, close, n) == 0) return s + n;
    return lim;
}

/* The next element tag in [*pos, lim), skipping text, comments, CDATA,
 * processing instructions and declarations; false at the end. Attribute
 * values are skipped whole (they may hold '>' or '/'). */
static bool next_tag(const char **pos, const char *lim, tag *t)
{
    for (const char *s = *pos; s < lim; s++) {
        if (*s != '<') continue;
        if (lim - s >= 4 && memcmp(s, "<!--", 4) == 0) { s = past(s + 4, lim, "-->") - 1; continue; }
        if (lim - s >= 9 && memcmp(s, "<![CDATA[", 9) == 0) { s = past(s + 9, lim, "]]>") - 1; continue; }
        if (lim - s >= 2 && (s[1] == '?' || s[1] == '!')) { s = past(s + 2, lim, ">") - 1; continue; }
        t->start = s;
        t->kind = s + 1 < lim && s[1] == '/' ? TAG_END : TAG_START;
        t->name = s + 1 + (t->kind == TAG_END);
        const char *q = t->name;
        while (q < lim && !strchr(" \t\r\n/>", *q)) q++;
        t->nlen = (size_t)(q - t->name);
        char quote = 0;
        for (; q < lim; q++) {
            if (quote) { if (*q == quote) quote = 0; }
            else if (*q == '"' || *q == '\'') quote = *q;
            else if (*q == '>') break;
        }
        if (q >= lim) return false;
        if (t->kind == TAG_START && q[-1] == '/') t->kind = TAG_EMPTY;
        t->end = q + 1;
        *pos = t->end;
        return true;
    }
    *pos = lim;
    return false;
}

static bool tag_is(const tag *t, const char *qname)
{
    return t->nlen == strlen(qname) && memcmp(t->name, qname, t->nlen) == 0;
}

/* Calls fn for every tag with its depth (0: the root's own tags). */
typedef void (*tag_fn)(void *ctx, const tag *t, int depth);
static void scan(const char *s, size_t len, tag_fn fn, void *ctx)
{
    const char *pos = s, *lim = s + len;
    int depth = 0;
    tag t;
    while (next_tag(&pos, lim, &t)) {
        if (t.kind == TAG_END) depth--;
        fn(ctx, &t, depth);
        if (t.kind == TAG_START) depth++;
    }
}

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
    fo_free(t->styles);
    fo_free(t->numbering);
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

/* Where the root's end tag starts in s (the text libxml2 accepted). */
typedef struct {
    const char *root_end, *num, *cleanup; /* numbering: first w:num, w:numIdMacAtCleanup */
} landmarks;

static void find_landmarks(void *ctx, const tag *t, int depth)
{
    landmarks *l = ctx;
    if (depth == 0 && t->kind == TAG_END) l->root_end = t->start;
    if (depth != 1 || t->kind == TAG_END) return;
    if (!l->num && tag_is(t, "w:num")) l->num = t->start;
    if (!l->cleanup && tag_is(t, "w:numIdMacAtCleanup")) l->cleanup = t->start;
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
    xmlDocPtr dom;
    fo_status st = fo_tpl_xml(z, "word/styles.xml", &dom, &t->styles, &t->styles_len);
    if (st != FO_OK) return st;
    if (!dom) return refuse(c, path, "word/styles.xml", "is missing: it is not a Word document");
    st = check_root(c, path, "word/styles.xml", dom, "styles");
    landmarks l = {0};
    if (st == FO_OK) scan(t->styles, t->styles_len, find_landmarks, &l);
    if (st == FO_OK && !l.root_end) st = refuse(c, path, "word/styles.xml", "has no styles (<w:styles/>)");
    if (st == FO_OK) st = take_style_ids(t, dom);
    xmlFreeDoc(dom);
    return st;
}

static fo_status load_numbering(fo_docx_ctx *c, fo_docx_tpl *t, fo_tpl *z, const char *path)
{
    xmlDocPtr dom;
    const char *part = "word/numbering.xml";
    fo_status st = fo_tpl_xml(z, part, &dom, &t->numbering, &t->numbering_len);
    if (st != FO_OK || !dom) return st;
    st = check_root(c, path, part, dom, "numbering");
    unsigned abs = 0;
    xmlNodePtr root = xmlDocGetRootElement(dom);
    if (st == FO_OK && (!max_id(root, "abstractNum", "abstractNumId", &abs) ||
                        !max_id(root, "num", "numId", &t->num_base)))
        st = refuse(c, path, part, "has a list id over 1000000");
    t->abs_base = abs + 1;
    xmlFreeDoc(dom);
    landmarks l = {0};
    if (st == FO_OK) scan(t->numbering, t->numbering_len, find_landmarks, &l);
    if (st == FO_OK && !l.root_end) { /* <w:numbering/>: folio's own lists */
        fo_free(t->numbering);
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

/* Appends to b each w:style of folio's styles part (dom) whose w:styleId
 * the template lacks, as libxml2 writes it. */
static void add_missing_styles(const fo_docx_tpl *t, xmlDocPtr dom, fo_buf *b)
{
    xmlNodePtr root = dom ? xmlDocGetRootElement(dom) : NULL;
    xmlBufferPtr xb = xmlBufferCreate();
    if (!root || !xb) b->failed = true;
    for (xmlNodePtr n = root ? root->children : NULL; n && !b->failed; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || !fo_tpl_is(n, "style")) continue;
        xmlChar *id = xmlGetNsProp(n, BAD_CAST "styleId", BAD_CAST FO_NS_W);
        bool missing = id && !has_style(t, (const char *)id);
        xmlFree(id);
        if (!missing) continue;
        xmlBufferEmpty(xb);
        if (xmlNodeDump(xb, dom, n, 0, 0) < 0) b->failed = true;
        else fo_buf_append(b, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    }
    xmlBufferFree(xb);
}

/* Template styles plus folio's styles whose id the template lacks (folio's
 * part is built in, trusted text, read with libxml2 all the same). */
void fo_docx_tpl_styles(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    const fo_docx_tpl *t = c->tpl;
    landmarks l = {0};
    scan(t->styles, t->styles_len, find_landmarks, &l);
    const char *ts = t->styles, *close = l.root_end ? l.root_end : ts + t->styles_len;
    fo_buf b = {0};
    fo_buf_append(&b, ts, (size_t)(close - ts));
    xmlDocPtr dom = xmlReadMemory(folio, (int)folio_len, NULL, NULL, XML_PARSE_NONET);
    add_missing_styles(t, dom, &b);
    xmlFreeDoc(dom);
    fo_buf_append(&b, close, (size_t)(ts + t->styles_len - close));
    size_t len;
    char *data = fo_buf_take(&b, &len);
    if (!data) { fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_pkg_add_part_take(c->pkg, "word/styles.xml", FO_CT_DOCX_STYLES, data, len);
}

/* Template numbering with folio's abstractNum and num elements (already
 * numbered past the template's ids) spliced in, in schema order: the
 * template's abstractNums, folio's, the template's nums, folio's, the rest. */
void fo_docx_tpl_numbering(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    const fo_docx_tpl *t = c->tpl;
    const char *fa = strstr(folio, "<w:abstractNum "), *fn = strstr(folio, "<w:num ");
    const char *fclose = strstr(folio, "</w:numbering>");
    if (!fa || !fn || !fclose || fn < fa || fclose < fn || fclose > folio + folio_len) {
        fo_docx_fail(c, NULL, FO_ERR_INTERNAL, "numbering");
        return;
    }
    landmarks l = {0};
    scan(t->numbering, t->numbering_len, find_landmarks, &l);
    const char *tn = t->numbering, *tlim = tn + t->numbering_len;
    const char *tend = l.cleanup ? l.cleanup : l.root_end ? l.root_end : tlim;
    const char *tnum = l.num && l.num < tend ? l.num : tend;
    fo_buf b = {0};
    bool ok = fo_buf_append(&b, tn, (size_t)(tnum - tn)) &&
              fo_buf_append(&b, fa, (size_t)(fn - fa)) &&
              fo_buf_append(&b, tnum, (size_t)(tend - tnum)) &&
              fo_buf_append(&b, fn, (size_t)(fclose - fn)) &&
              fo_buf_append(&b, tend, (size_t)(tlim - tend));
    size_t len;
    char *data = fo_buf_take(&b, &len);
    if (!ok || !data) { fo_free(data); fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_pkg_add_part_take(c->pkg, "word/numbering.xml", FO_CT_DOCX_NUMBERING, data, len);
}

bool fo_docx_tpl_has_numbering(const fo_docx_tpl *t) { return t && t->numbering; }
