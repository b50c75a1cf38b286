/* document.c — word/document.xml: the body, block by block in spec order,
 * then the section properties (page size, margins, footer).
 *
 * Flat writers in schema order, one per block kind. Headings carry Word's
 * built-in "heading N" styles (outline levels, so the navigation pane and the
 * TOC work) and a bookmark "_TocNNNNNNNN" named after the block index, which
 * the pre-filled TOC links to; Word rebuilds the TOC with page numbers on
 * open (settings.xml w:updateFields). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/docx/docx_internal.h"
#include "render/core/markup.h"
#include "render/core/shape.h"

/* ---- paragraphs ------------------------------------------------------------- */

/* <w:p><w:pPr><w:pStyle/></w:pPr> ... left open. */
static void para_open(fo_docx_ctx *c, const char *style, const char *text)
{
    fo_xml_open(c->x, "w:p", NULL);
    bool rtl = text && fo_shape_direction(text, strlen(text)) == FO_DIR_RTL;
    if (style || rtl) {
        fo_xml_open(c->x, "w:pPr", NULL);
        if (style) fo_xml_leaf(c->x, "w:pStyle", "w:val", style, NULL);
        fo_docx_bidi(c, text);
        fo_xml_close(c->x);
    }
}

void fo_docx_para_style(fo_docx_ctx *c, const char *style, bool keep_next)
{
    fo_xml_open(c->x, "w:p", NULL);
    fo_xml_open(c->x, "w:pPr", NULL);
    fo_xml_leaf(c->x, "w:pStyle", "w:val", style, NULL);
    if (keep_next) fo_xml_leaf(c->x, "w:keepNext", NULL);
    if (c->doc->rtl) fo_xml_leaf(c->x, "w:bidi", NULL); /* a caption of a right-to-left document */
    fo_xml_close(c->x);
}

static void para_plain(fo_docx_ctx *c, const char *style, const char *text)
{
    para_open(c, style, text);
    if (text) fo_docx_run(c, text, strlen(text), NULL, false, false);
    fo_xml_close(c->x);
}

static void para_markup(fo_docx_ctx *c, const char *style, const char *text)
{
    para_open(c, style, text);
    fo_docx_markup(c, text);
    fo_xml_close(c->x);
}

static void toc_bookmark_name(size_t block, char out[32])
{
    snprintf(out, 32, "_Toc%08zu", block + 1);
}

/* ---- title block ------------------------------------------------------------ */

static void title_block(fo_docx_ctx *c)
{
    const fo_doc *doc = c->doc;
    if (doc->title) para_plain(c, "Title", doc->title);
    if (doc->subtitle) para_plain(c, "Subtitle", doc->subtitle);
    char line[512];
    if (fo_doc_byline(doc, false, line, sizeof line)) para_plain(c, "Byline", line);
}

/* ---- blocks -------------------------------------------------------------------- */

static void heading(fo_docx_ctx *c, const fo_block *b, size_t index)
{
    int level = b->u.heading.level < 1 ? 1 : b->u.heading.level > 6 ? 6 : b->u.heading.level;
    char style[16], name[32];
    snprintf(style, sizeof style, "Heading%d", level);
    /* keep-with-next and keep-lines as direct formatting too: a template's
     * heading styles may lack them, and a heading must never end a page */
    fo_xml_open(c->x, "w:p", NULL);
    fo_xml_open(c->x, "w:pPr", NULL);
    fo_xml_leaf(c->x, "w:pStyle", "w:val", style, NULL);
    fo_xml_leaf(c->x, "w:keepNext", NULL);
    fo_xml_leaf(c->x, "w:keepLines", NULL);
    fo_docx_bidi(c, b->u.heading.text);
    fo_xml_close(c->x);
    char ids[16];
    snprintf(ids, sizeof ids, "%u", ++c->bookmark);
    toc_bookmark_name(index, name);
    fo_xml_leaf(c->x, "w:bookmarkStart", "w:id", ids, "w:name", name, NULL);
    const char *t = b->u.heading.text ? b->u.heading.text : "";
    fo_docx_run(c, t, strlen(t), NULL, false, false);
    fo_xml_leaf(c->x, "w:bookmarkEnd", "w:id", ids, NULL);
    fo_xml_close(c->x);
}

/* One list level; num is the w:num instance of this list's kind. */
static void list_items(fo_docx_ctx *c, const fo_list_item *items, size_t n, bool ordered,
                       int level, unsigned num)
{
    char lvl[16], nid[16];
    snprintf(lvl, sizeof lvl, "%d", level > 8 ? 8 : level);
    snprintf(nid, sizeof nid, "%u", num + fo_docx_tpl_num_base(c->tpl));
    for (size_t i = 0; i < n; i++) {
        fo_xml_open(c->x, "w:p", NULL);
        fo_xml_open(c->x, "w:pPr", NULL);
        fo_xml_leaf(c->x, "w:pStyle", "w:val", ordered ? "ListNumber" : "ListBullet", NULL);
        fo_xml_open(c->x, "w:numPr", NULL);
        fo_xml_leaf(c->x, "w:ilvl", "w:val", lvl, NULL);
        fo_xml_leaf(c->x, "w:numId", "w:val", nid, NULL);
        fo_xml_close(c->x);
        fo_docx_bidi(c, items[i].text);
        fo_xml_close(c->x);
        fo_docx_markup(c, items[i].text);
        fo_xml_close(c->x);
        if (items[i].nitems) {
            bool sub = items[i].ordered;
            /* nested numbers under numbers continue the same instance (Word
             * restarts a deeper level by itself); any other switch starts anew */
            unsigned subnum = !sub ? FO_DOCX_NUM_BULLET : ordered ? num : ++c->nnums;
            list_items(c, items[i].items, items[i].nitems, sub, level + 1, subnum);
        }
    }
}

static void list(fo_docx_ctx *c, const fo_block *b)
{
    bool ordered = b->u.list.ordered;
    unsigned num = ordered ? ++c->nnums : FO_DOCX_NUM_BULLET;
    list_items(c, b->u.list.items, b->u.list.nitems, ordered, 0, num);
}

static void code(fo_docx_ctx *c, const fo_block *b)
{
    const char *t = b->u.code.text ? b->u.code.text : "";
    para_open(c, "Code", NULL);
    size_t n = strlen(t);
    while (n && (t[n - 1] == '\n' || t[n - 1] == '\r')) n--; /* no empty last line */
    fo_docx_run(c, t, n, NULL, false, false);
    fo_xml_close(c->x);
}

static void page_break(fo_docx_ctx *c)
{
    fo_xml_open(c->x, "w:p", NULL);
    fo_xml_open(c->x, "w:r", NULL);
    fo_xml_leaf(c->x, "w:br", "w:type", "page", NULL);
    fo_xml_close(c->x);
    fo_xml_close(c->x);
}

/* A real TOC field, pre-filled with the level 1-3 headings (linked to their
 * bookmarks) so readers that do not update fields still show the contents. */
static void toc(fo_docx_ctx *c)
{
    fo_xml *x = c->x;
    para_plain(c, "TOCHeading", "Contents");
    const fo_doc *doc = c->doc;
    size_t nentries = 0;
    for (size_t i = 0; i < doc->nblocks; i++)
        if (doc->blocks[i].kind == FO_BLOCK_HEADING && doc->blocks[i].u.heading.level <= 3) nentries++;
    fo_docx_para_style(c, "TOC1", false);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "begin", "w:dirty", "true", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_open(x, "w:instrText", "xml:space", "preserve", NULL);
    fo_xml_text(x, " TOC \\o \"1-3\" \\h \\z \\u ");
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "separate", NULL);
    fo_xml_close(x);
    size_t k = 0;
    for (size_t i = 0; i < doc->nblocks; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind != FO_BLOCK_HEADING || b->u.heading.level > 3) continue;
        if (k++ > 0) { /* the first entry shares the field's opening paragraph */
            char style[16];
            snprintf(style, sizeof style, "TOC%d", b->u.heading.level < 1 ? 1 : b->u.heading.level);
            fo_docx_para_style(c, style, false);
        }
        char name[32];
        toc_bookmark_name(i, name);
        fo_xml_open(x, "w:hyperlink", "w:anchor", name, "w:history", "1", NULL);
        const char *t = b->u.heading.text ? b->u.heading.text : "";
        fo_docx_run(c, t, strlen(t), NULL, false, false);
        fo_xml_close(x);
        if (k < nentries) fo_xml_close(x); /* the last paragraph also holds the end */
    }
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "end", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
}

static void block(fo_docx_ctx *c, const fo_block *b, size_t index)
{
    switch (b->kind) {
    case FO_BLOCK_HEADING: heading(c, b, index); break;
    case FO_BLOCK_PARAGRAPH: para_markup(c, NULL, b->u.paragraph.text); break;
    case FO_BLOCK_LIST: list(c, b); break;
    case FO_BLOCK_METRICS: fo_docx_metrics_write(c, b); break;
    case FO_BLOCK_TABLE: fo_docx_table_write(c, b); break;
    case FO_BLOCK_CHART: fo_docx_chart_write(c, b); break;
    case FO_BLOCK_IMAGE: fo_docx_image_write(c, b); break;
    case FO_BLOCK_CODE: code(c, b); break;
    case FO_BLOCK_PAGE_BREAK: page_break(c); break;
    case FO_BLOCK_TOC: toc(c); break;
    }
}

/* ---- section ------------------------------------------------------------------- */

static long twips(double pt) { return lround(pt * 20.0); }

/* A w:sectPr: the template's, or the theme's page (turned on its side when
 * turned), with the header and footer. */
static void section(fo_docx_ctx *c, bool turned)
{
    const fo_theme *t = c->t;
    fo_xml *x = c->x;
    if (fo_docx_tpl_section(c)) return; /* the template's page setup and letterhead */
    fo_xml_open(x, "w:sectPr", NULL);
    if (c->header_rid[0])
        fo_xml_leaf(x, "w:headerReference", "w:type", "default", "r:id", c->header_rid, NULL);
    if (c->footer_rid[0])
        fo_xml_leaf(x, "w:footerReference", "w:type", "default", "r:id", c->footer_rid, NULL);
    fo_xml_open(x, "w:pgSz", NULL);
    fo_xml_attr_int(x, "w:w", twips(turned ? t->page.height : t->page.width));
    fo_xml_attr_int(x, "w:h", twips(turned ? t->page.width : t->page.height));
    if (t->page.landscape != turned) fo_xml_attr(x, "w:orient", "landscape");
    fo_xml_close(x);
    long top = twips(t->page.margin_top), bottom = twips(t->page.margin_bottom);
    fo_xml_open(x, "w:pgMar", NULL);
    fo_xml_attr_int(x, "w:top", top);
    fo_xml_attr_int(x, "w:right", twips(t->page.margin_right));
    fo_xml_attr_int(x, "w:bottom", bottom);
    fo_xml_attr_int(x, "w:left", twips(t->page.margin_left));
    fo_xml_attr_int(x, "w:header", top / 2);
    fo_xml_attr_int(x, "w:footer", bottom / 2);
    fo_xml_attr_int(x, "w:gutter", 0);
    fo_xml_close(x);
    fo_xml_leaf(x, "w:cols", "w:space", "708", NULL);
    fo_xml_leaf(x, "w:docGrid", "w:linePitch", "360", NULL);
    fo_xml_close(x);
}

long fo_docx_text_width(const fo_docx_ctx *c)
{
    long w = twips(c->t->page.width - c->t->page.margin_left - c->t->page.margin_right);
    if (fo_docx_tpl_text_width(c->tpl) > 0) w = fo_docx_tpl_text_width(c->tpl);
    return w < 1440 ? 1440 : w;
}

long fo_docx_landscape_width(const fo_docx_ctx *c)
{
    if (c->tpl) return 0;
    long w = twips(c->t->page.height - c->t->page.margin_left - c->t->page.margin_right);
    return w < 1440 ? 1440 : w;
}

void fo_docx_orient(fo_docx_ctx *c, bool landscape)
{
    if (c->landscape == landscape || c->tpl) return;
    fo_xml *x = c->x;
    if (!c->body_empty) {
        fo_xml_open(x, "w:p", NULL);
        fo_xml_open(x, "w:pPr", NULL);
        section(c, c->landscape); /* ends the section so far */
        fo_xml_close(x);
        fo_xml_close(x);
    }
    c->landscape = landscape;
    c->text_width = landscape ? fo_docx_landscape_width(c) : fo_docx_text_width(c);
}

/* Whether block i goes in a landscape section: a table that the rule turns
 * decides for itself; headings right before it go with it. */
static bool turned(fo_docx_ctx *c, size_t i)
{
    const fo_doc *doc = c->doc;
    size_t k = i;
    while (k < doc->nblocks && doc->blocks[k].kind == FO_BLOCK_HEADING) k++;
    return k > i && k < doc->nblocks && fo_docx_table_turns(c, &doc->blocks[k]);
}

/* ---- the part --------------------------------------------------------------------- */

void fo_docx_document_write(fo_docx_ctx *c)
{
    fo_xml *x = c->x;
    c->text_width = fo_docx_text_width(c);
    fo_xml_open(x, "w:document", "xmlns:w", FO_NS_W, "xmlns:r", FO_NS_R, "xmlns:wp", FO_NS_WP,
                "xmlns:a", FO_NS_A, "xmlns:pic", FO_NS_PIC, NULL);
    fo_xml_open(x, "w:body", NULL);
    title_block(c);
    const fo_doc *doc = c->doc;
    c->body_empty = !doc->title && !doc->subtitle && !doc->author && !doc->date;
    for (size_t i = 0; i < doc->nblocks && fo_docx_ok(c); i++) {
        if (doc->blocks[i].kind != FO_BLOCK_TABLE) fo_docx_orient(c, turned(c, i)); /* a table decides */
        block(c, &doc->blocks[i], i);
        c->body_empty = false;
    }
    section(c, c->landscape);
    fo_xml_close(x); /* w:body */
    fo_xml_close(x); /* w:document */
}
