/* pptx.c — the .pptx renderer: package skeleton (master, layouts, theme,
 * properties), the title slide, block dispatch, and ppt/presentation.xml.
 *
 * Order of work (libxlsxwriter's packager in miniature): fixed parts from
 * templates/pptx with geometry and sizes substituted, then one slide part per
 * slide as the blocks flow (pptx_slide.c), then presentation.xml listing the
 * slides, then document properties. fo_pkg_close writes the archive with
 * fixed entry order and timestamps, so equal input gives equal bytes.
 *
 * A theme logo (folio's own master only; a --template deck keeps its own
 * branding) is one media part shown by the content, section and blank
 * layouts in the top-right corner, and placed above the title on the title
 * slide when the document does not open with a picture of its own. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "render/pptx/pptx_internal.h"
#include "render/core/text.h"

/* ---- template substitution ------------------------------------------------ */

#define SUBST_MAX 64
typedef struct {
    const char *kv[2 * SUBST_MAX + 1];
    char vals[SUBST_MAX][32];
    size_t n;
} subst;

static void put_str(subst *s, const char *key, const char *v)
{
    if (s->n >= SUBST_MAX) return;
    snprintf(s->vals[s->n], sizeof s->vals[s->n], "%s", v);
    s->kv[2 * s->n] = key;
    s->kv[2 * s->n + 1] = s->vals[s->n];
    s->kv[2 * ++s->n] = NULL;
}

static void put_int(subst *s, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    put_str(s, key, buf);
}

static void put_rgb(subst *s, const char *key, fo_rgb c)
{
    char hex[7];
    fo_rgb_hex(c, hex);
    put_str(s, key, hex);
}

/* X, Y, CX, CY of a box in pt, as EMU, under PREFIX_X ... (keys are static). */
static void put_box(subst *s, const char *const keys[4], double x, double y, double w, double h)
{
    put_int(s, keys[0], FO_PPTX_EMU(x));
    put_int(s, keys[1], FO_PPTX_EMU(y));
    put_int(s, keys[2], FO_PPTX_EMU(w));
    put_int(s, keys[3], FO_PPTX_EMU(h));
}

static const char *const K_TITLE[4] = {"TITLE_X", "TITLE_Y", "TITLE_CX", "TITLE_CY"};
static const char *const K_BODY[4] = {"BODY_X", "BODY_Y", "BODY_CX", "BODY_CY"};
static const char *const K_NUM[4] = {"NUM_X", "NUM_Y", "NUM_CX", "NUM_CY"};
static const char *const K_CTITLE[4] = {"CTITLE_X", "CTITLE_Y", "CTITLE_CX", "CTITLE_CY"};
static const char *const K_SUB[4] = {"SUBTITLE_X", "SUBTITLE_Y", "SUBTITLE_CX", "SUBTITLE_CY"};
static const char *const K_SEC[4] = {"SECTION_X", "SECTION_Y", "SECTION_CX", "SECTION_CY"};
static const char *const K_SECB[4] = {"SECBODY_X", "SECBODY_Y", "SECBODY_CX", "SECBODY_CY"};

static void geometry(fo_pptx *p)
{
    fo_pptx_geom *g = &p->g;
    g->w = p->t->slide_width > 0 ? p->t->slide_width : 960;
    g->h = p->t->slide_height > 0 ? p->t->slide_height : 540;
    g->x = g->w * 0.05;
    g->cw = g->w - 2 * g->x;
    g->title_y = 24;
    g->title_h = 70;
    g->body_y = g->title_y + g->title_h + 8;
    g->body_bottom = g->h - 44;
}

/* The theme's logo: LOGO_H pt high in the top-right corner of content,
 * section and blank slides, at most a quarter of the content width wide;
 * the title box gives up its width plus a gap. */
#define LOGO_H 32.4 /* 0.45 in */

static void logo_setup(fo_pptx *p)
{
    const char *path = p->t->logo;
    fo_block *b = &p->logo;
    bool png = p->t->logo_is_png;
    int pw = p->t->logo_width, ph = p->t->logo_height; /* probed by the theme reader */
    if (!path[0] || p->tpl) return;
    if (pw <= 0 || ph <= 0 || access(path, R_OK) != 0) {
        fo_pptx_fail(p, FO_ERR_INPUT, NULL, "theme logo %s: not a readable PNG or JPEG image", path);
        return;
    }
    b->kind = FO_BLOCK_IMAGE;
    b->u.image.path = (char *)path; /* borrowed from the theme */
    b->u.image.is_png = png;
    b->u.image.px_width = pw;
    b->u.image.px_height = ph;
    b->u.image.alt = (char *)"logo";   /* never freed: p->logo is not the doc's */
    p->logo_h = LOGO_H;
    p->logo_w = LOGO_H * pw / ph;
    if (p->logo_w > p->g.cw / 4) {
        p->logo_h *= p->g.cw / 4 / p->logo_w;
        p->logo_w = p->g.cw / 4;
    }
    p->g.title_cut = p->logo_w + FO_PPTX_GAP;
}

/* The logo picture inserted into a layout's shape tree (expanded template
 * text, fo_malloc'd, *len its length); NULL when out of memory. */
static char *layout_with_logo(fo_pptx *p, const char *tpl, const char *const *kv,
                              const char *rid, size_t *len)
{
    size_t n;
    char *xml = fo_template_expand(tpl, kv, &n);
    char *end = xml ? strstr(xml, "</p:spTree>") : NULL;
    if (!end) { fo_free(xml); return NULL; }
    const fo_pptx_geom *g = &p->g;
    char pic[1024];
    int k = snprintf(pic, sizeof pic,
        "<p:pic><p:nvPicPr><p:cNvPr id=\"100\" name=\"Logo\" descr=\"logo\"/>"
        "<p:cNvPicPr><a:picLocks noChangeAspect=\"1\"/></p:cNvPicPr><p:nvPr userDrawn=\"1\"/>"
        "</p:nvPicPr><p:blipFill><a:blip r:embed=\"%s\"/><a:stretch><a:fillRect/></a:stretch>"
        "</p:blipFill><p:spPr><a:xfrm><a:off x=\"%lld\" y=\"%lld\"/><a:ext cx=\"%lld\" cy=\"%lld\"/>"
        "</a:xfrm><a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom></p:spPr></p:pic>",
        rid, FO_PPTX_EMU(g->x + g->cw - p->logo_w), FO_PPTX_EMU(g->title_y),
        FO_PPTX_EMU(p->logo_w), FO_PPTX_EMU(p->logo_h));
    size_t at = (size_t)(end - xml);
    char *out = fo_malloc(n + (size_t)k + 1);
    if (out) {
        memcpy(out, xml, at);
        memcpy(out + at, pic, (size_t)k);
        memcpy(out + at + k, xml + at, n - at + 1);
        *len = n + (size_t)k;
    }
    fo_free(xml);
    return out;
}

/* Title slide and section header boxes. */
#define CTITLE_Y(g) ((g)->h * 0.24)
#define CTITLE_H(g) ((g)->h * 0.30)
#define SUB_Y(g) ((g)->h * 0.56)
#define SUB_H(g) ((g)->h * 0.24)

static void add_props_parts(fo_pptx *p);

/* Slide master, layouts, theme, presentation properties. */
static void add_fixed_parts(fo_pptx *p)
{
    const fo_pptx_geom *g = &p->g;
    subst s = {0};
    put_box(&s, K_TITLE, g->x, g->title_y, g->cw - g->title_cut, g->title_h);
    put_box(&s, K_BODY, g->x, g->body_y, g->cw, g->body_bottom - g->body_y);
    put_box(&s, K_NUM, g->w - g->x - 160, g->h - 36, 160, 24);
    put_int(&s, "TITLE_SZ", lround(FO_PPTX_TITLE_SZ * 100));
    put_rgb(&s, "TITLE_COLOR", p->t->heading_color);
    put_rgb(&s, "MUTED", p->t->muted);
    put_int(&s, "INDENT", -FO_PPTX_EMU(FO_PPTX_HANG));
    put_int(&s, "SPCBEF", lround(FO_PPTX_SPC_BEF * 100));
    static const char *const marl[] = {"MARL1", "MARL2", "MARL3", "MARL4", "MARL5"};
    for (int i = 0; i < 5; i++) put_int(&s, marl[i], FO_PPTX_EMU(fo_pptx_mar_left(i)));
    static const char *const bsz[] = {"BODY_SZ1", "BODY_SZ2", "BODY_SZ3"};
    static const char *const lns[] = {"LNSPC1", "LNSPC2", "LNSPC3"};
    for (int i = 0; i < 3; i++) {
        put_int(&s, bsz[i], lround(fo_pptx_body_size(i) * 100));
        put_int(&s, lns[i], lround(fo_pptx_line_h(fo_pptx_body_size(i)) * 100));
    }
    fo_pkg_add_template(p->pkg, "ppt/slideMasters/slideMaster1.xml",
                        FO_PPTX_CT_BASE "slideMaster+xml", "pptx/slideMaster1.xml", s.kv);
    for (int i = 1; i <= 4; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "../slideLayouts/slideLayout%d.xml", i);
        fo_pkg_add_rel(p->pkg, "ppt/slideMasters/slideMaster1.xml",
                       FO_PPTX_REL_BASE "slideLayout", rel, false);
    }
    fo_pkg_add_rel(p->pkg, "ppt/slideMasters/slideMaster1.xml", FO_REL_THEME,
                   "../theme/theme1.xml", false);

    subst l = {0};
    put_box(&l, K_CTITLE, g->x, CTITLE_Y(g), g->cw, CTITLE_H(g));
    put_box(&l, K_SUB, g->x, SUB_Y(g), g->cw, SUB_H(g));
    put_box(&l, K_SEC, g->x, g->h * 0.30, g->cw, g->h * 0.26);
    put_box(&l, K_SECB, g->x, g->h * 0.60, g->cw, g->h * 0.20);
    put_int(&l, "RULE_X", FO_PPTX_EMU(g->x + FO_PPTX_INS_X));
    put_int(&l, "RULE_Y", FO_PPTX_EMU(g->h * 0.575));
    put_int(&l, "RULE_CX", FO_PPTX_EMU(g->w * 0.18));
    put_int(&l, "CTITLE_SZ", lround(FO_PPTX_CTITLE_SZ * 100));
    put_int(&l, "SUBTITLE_SZ", lround(FO_PPTX_SUBTITLE_SZ * 100));
    put_rgb(&l, "MUTED", p->t->muted);
    /* the logo: one media part, shown by every layout but the title slide's */
    char *logo_target = p->logo_media;
    if (p->logo.u.image.path) {
        size_t len = 0;
        unsigned char *data = (unsigned char *)fo_file_read(p->logo.u.image.path, 0, &len);
        if (!data) {
            fo_pptx_fail(p, FO_ERR_INPUT, NULL, "theme logo %s: cannot be read",
                         p->logo.u.image.path);
            return;
        }
        fo_pptx_add_media_part(p, data, len, p->logo.u.image.is_png, logo_target,
                               sizeof p->logo_media);
        fo_free(data);
    }
    for (int i = 1; i <= 4; i++) {
        char name[64], tpl[64];
        snprintf(name, sizeof name, "ppt/slideLayouts/slideLayout%d.xml", i);
        snprintf(tpl, sizeof tpl, "pptx/slideLayout%d.xml", i);
        fo_pkg_add_rel(p->pkg, name, FO_PPTX_REL_BASE "slideMaster",
                       "../slideMasters/slideMaster1.xml", false);
        if (!logo_target[0] || i == FO_PPTX_L_TITLE) {
            fo_pkg_add_template(p->pkg, name, FO_PPTX_CT_BASE "slideLayout+xml", tpl, l.kv);
            continue;
        }
        const char *rid = fo_pkg_add_rel(p->pkg, name, FO_REL_IMAGE, logo_target, false);
        size_t len = 0;
        char *xml = layout_with_logo(p, tpl, l.kv, rid, &len);
        if (!xml) { fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory"); return; }
        fo_pkg_add_part_take(p->pkg, name, FO_PPTX_CT_BASE "slideLayout+xml", xml, len);
    }
    fo_pkg_add_theme(p->pkg, "ppt/theme/theme1.xml", p->t, p->doc->lang);
    add_props_parts(p);
}

/* Presentation, view and table-style properties (also under a template). */
static void add_props_parts(fo_pptx *p)
{
    fo_pkg_add_template(p->pkg, "ppt/presProps.xml", FO_PPTX_CT_BASE "presProps+xml",
                        "pptx/presProps.xml", NULL);
    fo_pkg_add_template(p->pkg, "ppt/viewProps.xml", FO_PPTX_CT_BASE "viewProps+xml",
                        "pptx/viewProps.xml", NULL);
    fo_pkg_add_template(p->pkg, "ppt/tableStyles.xml", FO_PPTX_CT_BASE "tableStyles+xml",
                        "pptx/tableStyles.xml", NULL);
}

/* ppt/presentation.xml: master, slide list, sizes. */
static void add_presentation(fo_pptx *p)
{
    const char *pres = "ppt/presentation.xml";
    const fo_pptx_tpl *tpl = p->tpl;
    const char *rid_master = fo_pkg_add_rel(p->pkg, pres, FO_PPTX_REL_BASE "slideMaster",
                                            tpl ? tpl->master_target
                                                : "slideMasters/slideMaster1.xml", false);
    fo_pkg_add_rel(p->pkg, pres, FO_PPTX_REL_BASE "presProps", "presProps.xml", false);
    fo_pkg_add_rel(p->pkg, pres, FO_PPTX_REL_BASE "viewProps", "viewProps.xml", false);
    if (!tpl || tpl->theme_target[0])
        fo_pkg_add_rel(p->pkg, pres, FO_REL_THEME, tpl ? tpl->theme_target : "theme/theme1.xml",
                       false);
    fo_pkg_add_rel(p->pkg, pres, FO_PPTX_REL_BASE "tableStyles", "tableStyles.xml", false);
    fo_xml *x = fo_xml_new_memory();
    if (!x) { fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory"); return; }
    fo_xml_open(x, "p:presentation", "xmlns:a", FO_NS_A, "xmlns:r", FO_NS_R,
                "xmlns:p", FO_PPTX_NS_P, "saveSubsetFonts", "1", NULL);
    fo_xml_open(x, "p:sldMasterIdLst", NULL);
    fo_xml_leaf(x, "p:sldMasterId", "id", tpl ? tpl->master_id : "2147483648", "r:id",
                rid_master, NULL);
    fo_xml_close(x);
    if (p->nslides) {
        fo_xml_open(x, "p:sldIdLst", NULL);
        for (size_t i = 0; i < p->nslides; i++) {
            fo_xml_open(x, "p:sldId", NULL);
            fo_xml_attr_int(x, "id", 256 + (long long)i);
            fo_xml_attr(x, "r:id", p->slide_rids[i]);
            fo_xml_close(x);
        }
        fo_xml_close(x);
    }
    fo_xml_open(x, "p:sldSz", NULL);
    fo_xml_attr_int(x, "cx", FO_PPTX_EMU(p->g.w));
    fo_xml_attr_int(x, "cy", FO_PPTX_EMU(p->g.h));
    fo_xml_close(x);
    fo_xml_leaf(x, "p:notesSz", "cx", "6858000", "cy", "9144000", NULL);
    fo_xml_close(x);
    fo_pkg_add_xml(p->pkg, pres, FO_PPTX_CT_BASE "presentation.main+xml", x);
}

/* ---- title slide ------------------------------------------------------------- */

/* A placeholder shape holding paragraphs (title slide, section slides). */
static void placeholder(fo_pptx *p, const char *type, const char *idx, const char *name,
                        fo_pptx_para *paras, size_t n)
{
    fo_xml *x = p->x;
    fo_pptx_ph_begin(p, name, type, NULL, idx);
    for (size_t i = 0; i < n; i++) fo_pptx_para_write(p, &paras[i], i == 0);
    fo_xml_close(x);
    fo_xml_close(x);
}

/* Largest size <= start at which text fits in lines lines of width w. */
static double fit_size(const char *font, const char *text, double start, double w, size_t lines)
{
    double sz = start;
    while (sz > 16 && fo_text_wrap(font, sz, text, strlen(text), w, NULL, 0) > lines) sz -= 2;
    return sz;
}

static void title_slide(fo_pptx *p)
{
    const fo_doc *doc = p->doc;
    fo_pptx_slide_begin(p, FO_PPTX_L_TITLE, NULL);
    if (p->err) return;
    /* a template's title layout names its own placeholders */
    const fo_pptx_tlayout *tl = p->tpl ? &p->tpl->layout[FO_PPTX_L_TITLE] : NULL;
    const fo_pptx_ph *tpl_title = tl && tl->title.present ? &tl->title : NULL;
    const fo_pptx_ph *tpl_sub = !tl ? NULL : tl->sub.present ? &tl->sub
                                           : tl->body.present ? &tl->body : NULL;
    fo_pptx_para para[3];
    size_t n = 0;
    double w = (p->g.cw - 2 * FO_PPTX_INS_X) * FO_PPTX_FIT;
    if (tpl_title && tpl_title->has_box) w = (tpl_title->w - 2 * FO_PPTX_INS_X) * FO_PPTX_FIT;
    if (doc->title) {
        double sz = fit_size(p->t->heading.bold, doc->title, FO_PPTX_CTITLE_SZ, w, 2);
        fo_pptx_para_init(&para[0], FO_PPTX_PARA_PLAIN, 0, sz, doc->title, false);
        para[0].bold = true;
        para[0].color = p->t->heading_color;
        para[0].align = 1;
        placeholder(p, tpl_title ? tpl_title->type : "ctrTitle",
                    tpl_title && tpl_title->idx[0] ? tpl_title->idx : NULL, "Title", para, 1);
        fo_pptx_para_clear(&para[0]);
    }
    if (doc->subtitle) {
        fo_pptx_para_init(&para[n], FO_PPTX_PARA_PLAIN, 0, FO_PPTX_SUBTITLE_SZ, doc->subtitle, false);
        para[n].color = p->t->text;
        para[n++].align = 1;
    }
    char line[512];
    if (fo_doc_byline(doc, true, line, sizeof line)) {
        fo_pptx_para_init(&para[n], FO_PPTX_PARA_PLAIN, 0, 16, line, false);
        para[n].color = p->t->muted;
        para[n++].align = 1;
    }
    if (n && tpl_sub)
        placeholder(p, tpl_sub->type, tpl_sub->idx[0] ? tpl_sub->idx : NULL, "Subtitle", para, n);
    else if (n && !p->tpl) placeholder(p, "subTitle", "1", "Subtitle", para, n);
    for (size_t i = 0; i < n; i++) fo_pptx_para_clear(&para[i]);
    /* A picture that opens the document (a logo) belongs on the title slide,
     * above the title, not on a slide of its own. */
    double box_h = p->g.h * 0.16;
    if (p->doc->nblocks && p->doc->blocks[0].kind == FO_BLOCK_IMAGE && p->doc->blocks[0].u.image.path) {
        fo_pptx_image_box(p, &p->doc->blocks[0], p->g.x, p->g.h * 0.06, p->g.cw, box_h);
        p->logo_on_title = true;
    } else if (p->logo.u.image.path) { /* no picture of its own: the theme's logo */
        fo_pptx_logo_box(p, p->g.x, p->g.h * 0.06, p->g.cw, box_h);
    }
    fo_pptx_slide_end(p);
}

/* ---- text blocks -------------------------------------------------------------- */

static void flow_text(fo_pptx *p, fo_pptx_para_kind kind, int level, int number,
                      const char *src, bool markup)
{
    fo_pptx_para para;
    if (!fo_pptx_para_init(&para, kind, level, fo_pptx_body_size(level), src, markup)) {
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    para.number = number;
    para.color = p->t->text;
    fo_pptx_flow_para(p, &para);
}

static void flow_list(fo_pptx *p, const fo_list_item *items, size_t n, bool ordered, int level)
{
    for (size_t i = 0; i < n && !p->err; i++) {
        flow_text(p, ordered ? FO_PPTX_PARA_NUMBER : FO_PPTX_PARA_BULLET, level, (int)i + 1,
                  items[i].text, true);
        if (items[i].nitems) flow_list(p, items[i].items, items[i].nitems, items[i].ordered, level + 1);
    }
}

/* Height the start of block b needs on the slide of the heading before it. */
static double keep_with(const fo_pptx *p, const fo_block *b)
{
    double body = fo_pptx_line_h(fo_pptx_body_size(0));
    if (!b) return 2 * body;
    switch (b->kind) {
    case FO_BLOCK_TABLE: /* caption, header and three rows */
        return (b->u.table.caption ? fo_pptx_line_h(14) + FO_PPTX_GAP : 0) +
               4 * (fo_pptx_line_h(FO_PPTX_TABLE_SZ) + 7.2) + FO_PPTX_GAP;
    case FO_BLOCK_METRICS: return 96 + FO_PPTX_GAP; /* one row of cards */
    case FO_BLOCK_IMAGE: {
        double h = b->u.image.height > 0 ? b->u.image.height * 0.75 : (double)b->u.image.px_height * 0.75;
        double most = (p->g.body_bottom - p->g.body_y) * 0.6;
        return (h > 0 && h < most ? h : most) + FO_PPTX_GAP;
    }
    case FO_BLOCK_CODE: /* what fo_pptx_code asks, under the heading's frame */
        return 3 * fo_pptx_line_h(FO_PPTX_CODE_SZ) + 2 * FO_PPTX_CODE_PAD + FO_PPTX_GAP;
    case FO_BLOCK_HEADING: case FO_BLOCK_PARAGRAPH: case FO_BLOCK_LIST: case FO_BLOCK_CHART:
    case FO_BLOCK_PAGE_BREAK: case FO_BLOCK_TOC:
    default: return 2 * body;
    }
}

static void heading(fo_pptx *p, const fo_block *b)
{
    const char *text = b->u.heading.text ? b->u.heading.text : "";
    if (b->u.heading.level <= 1) {
        fo_pptx_slide_end(p);
        p->section = text;
        p->section_used = false;
        fo_pptx_need(p, 0, false); /* the heading's slide, even if nothing follows */
        return;
    }
    const fo_block *next = b + 1 < p->doc->blocks + p->doc->nblocks ? b + 1 : NULL;
    if (next && next->kind == FO_BLOCK_CHART) {
        /* a chart takes a slide of its own: the heading goes with it, as
         * the slide's title when the open slide holds something already */
        fo_pptx_frame_flush(p);
        p->chart_next = true;
        if (p->x && p->has_content) {
            fo_pptx_slide_end(p);
            fo_pptx_slide_begin(p, FO_PPTX_L_CONTENT, text);
            return;
        }
    }
    /* no section heading to title a table's slides: this one does
     * (fo_pptx_table) */
    if (next && next->kind == FO_BLOCK_TABLE && next->u.table.data && next->u.table.ncols &&
        (!p->section || !*p->section))
        return;
    double sz = b->u.heading.level == 2 ? 22 : b->u.heading.level == 3 ? 20 : 18;
    /* keep with next: the heading and the start of what follows (two body
     * lines, a table's header and first rows, a picture, a row of cards) on
     * the same slide — never a heading alone at the bottom */
    fo_pptx_need(p, FO_PPTX_SPC_BEF + fo_pptx_line_h(sz) + keep_with(p, next) + 2 * FO_PPTX_INS_Y,
                 true);
    fo_pptx_para para;
    if (!fo_pptx_para_init(&para, FO_PPTX_PARA_HEADING, 0, sz, text, true)) {
        fo_pptx_fail(p, FO_ERR_NOMEM, b, "out of memory");
        return;
    }
    para.bold = true;
    para.color = p->t->heading_color;
    fo_pptx_flow_para(p, &para);
}

/* Agenda slide: the level-1 headings as bullets. */
static void agenda(fo_pptx *p)
{
    fo_pptx_slide_end(p);
    p->section = "Agenda";
    p->section_used = false;
    for (size_t i = 0; i < p->doc->nblocks && !p->err; i++) {
        const fo_block *b = &p->doc->blocks[i];
        if (b->kind == FO_BLOCK_HEADING && b->u.heading.level <= 1)
            flow_text(p, FO_PPTX_PARA_BULLET, 0, 1, b->u.heading.text, true);
    }
    fo_pptx_need(p, 0, false);
    fo_pptx_slide_end(p);
    p->section = NULL;
    p->section_used = false;
}

static void render_block(fo_pptx *p, const fo_block *b)
{
    switch (b->kind) {
    case FO_BLOCK_HEADING: heading(p, b); break;
    case FO_BLOCK_PARAGRAPH: flow_text(p, FO_PPTX_PARA_BULLET, 0, 1, b->u.paragraph.text, true); break;
    case FO_BLOCK_LIST:
        flow_list(p, b->u.list.items, b->u.list.nitems, b->u.list.ordered, 0);
        break;
    case FO_BLOCK_METRICS: fo_pptx_metrics(p, b); break;
    case FO_BLOCK_TABLE: fo_pptx_table(p, b); break;
    case FO_BLOCK_CHART: fo_pptx_chart(p, b); break;
    case FO_BLOCK_IMAGE: fo_pptx_image(p, b); break;
    case FO_BLOCK_CODE: fo_pptx_code(p, b); break;
    case FO_BLOCK_PAGE_BREAK:
        fo_pptx_slide_end(p);
        break;
    case FO_BLOCK_TOC: agenda(p); break;
    }
}

fo_status fo_pptx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d)
{
    const char *tmp = fo_outset_add(out, dest, "pptx", d);
    if (!tmp) return FO_ERR_IO;
    fo_pptx p;
    memset(&p, 0, sizeof p);
    p.doc = doc;
    p.t = &doc->theme;
    p.opts = opts;
    p.d = d;
    p.pkg = fo_pkg_new(tmp);
    if (!p.pkg) return FO_ERR_NOMEM;
    fo_pkg_deflate_ahead(p.pkg);
    geometry(&p);

    fo_pkg_add_rel(p.pkg, "", FO_REL_OFFICE_DOCUMENT, "ppt/presentation.xml", false);
    if (opts && opts->template_path) {
        fo_status ts = fo_pptx_template_load(&p, opts->template_path);
        if (ts != FO_OK && !p.err)
            fo_pptx_fail(&p, ts, NULL, "template %s could not be used", opts->template_path);
        if (!p.err) add_props_parts(&p);
    } else {
        logo_setup(&p);
        if (!p.err) add_fixed_parts(&p);
    }
    if (doc->title || doc->subtitle || doc->author || doc->date) title_slide(&p);
    for (size_t i = p.logo_on_title ? 1 : 0; i < doc->nblocks && !p.err; i++) render_block(&p, &doc->blocks[i]);
    fo_pptx_slide_end(&p);
    if (!p.nslides && !p.err) { /* an empty deck still opens: one blank slide */
        fo_pptx_slide_begin(&p, FO_PPTX_L_BLANK, NULL);
        fo_pptx_slide_end(&p);
    }
    add_presentation(&p);
    fo_pkg_add_core_props(p.pkg, doc);
    fo_pkg_add_app_props(p.pkg, NULL);
    fo_pkg_add_custom_props(p.pkg, doc, opts);

    fo_status st = p.err;
    if (st == FO_OK) st = fo_pkg_close(p.pkg, d);
    if (p.x) fo_xml_free(p.x);
    for (size_t i = 0; i < p.npara; i++) fo_pptx_para_clear(&p.paras[i]);
    fo_free(p.paras);
    fo_free(p.slide_rids);
    fo_free(p.tpl);
    fo_pkg_free(p.pkg);
    return st;
}
