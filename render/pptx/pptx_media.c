/* pptx_media.c — charts, images, metrics cards and code boxes on slides.
 *
 * Charts are native chart parts (render/chartxml: c:chartSpace with its
 * data in an embedded workbook, ppt/embeddings/) in a p:graphicFrame, on a slide of their own (the slide that only
 * holds its section title, or a new one), with alt text in p:cNvPr/@descr. Images scale to fit the free area (or a
 * new slide) keeping their aspect. Metrics become rows of rounded cards
 * (label, value through its number format, delta with an arrow). Code is a
 * mono text box on a shaded fill, continued on "(cont.)" slides by lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "render/core/delta.h"
#include "render/pptx/pptx_internal.h"
#include "render/chartxml/chartxml.h"
#include "render/core/numfmt.h"
#include "render/core/text.h"

#define PX_PT 0.75          /* 96 px per inch */
#define CARD_H 96.0
#define CARD_GAP 16.0
#define CARDS_PER_ROW 4
#define CODE_PAD FO_PPTX_CODE_PAD

/* <p:pic> at a box, descr = alt text. */
static void picture(fo_pptx *p, const char *rid, const char *name, const char *alt,
                    double left, double top, double w, double h)
{
    fo_xml *x = p->x;
    fo_pptx_shape_begin(p, "p:pic", "p:nvPicPr", name, alt);
    fo_xml_open(x, "p:cNvPicPr", NULL);
    fo_xml_leaf(x, "a:picLocks", "noChangeAspect", "1", NULL);
    fo_xml_close(x);
    fo_xml_leaf(x, "p:nvPr", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "p:blipFill", NULL);
    fo_xml_leaf(x, "a:blip", "r:embed", rid, NULL);
    fo_xml_open(x, "a:stretch", NULL);
    fo_xml_leaf(x, "a:fillRect", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "p:spPr", NULL);
    fo_pptx_rect(x, left, top, w, h);
    fo_xml_close(x);
    fo_xml_close(x);
}

/* Scales (w, h) down to fit (bw, bh), keeping the aspect. */
static void fit_box(double *w, double *h, double bw, double bh)
{
    double k = 1.0;
    if (*w > bw) k = bw / *w;
    if (*h * k > bh) k = bh / *h;
    *w *= k;
    *h *= k;
}

/* A slide for a chart or picture: the open one if it holds nothing yet (or
 * only the chart's own heading), else a new one, titled with own_title when
 * the block has one -- a chart with no heading before it is not "(cont.)" of
 * the section before it -- else as the section goes on. True when the slide
 * is the one titled with own_title. */
static bool fresh_area(fo_pptx *p, const char *own_title)
{
    fo_pptx_frame_flush(p);
    bool keep = p->chart_next; /* the chart's own heading is all the slide has */
    p->chart_next = false;
    if (p->x && (!p->has_content || keep)) return false;
    fo_pptx_slide_end(p);
    if (own_title && *own_title) {
        p->section_used = true;
        fo_pptx_slide_begin(p, FO_PPTX_L_CONTENT, own_title);
        return true;
    }
    fo_pptx_open_flow_slide(p);
    return false;
}

/* <p:graphicFrame> holding a native chart part (render/chartxml), alt text in
 * p:cNvPr/@descr. */
static void chart_frame(fo_pptx *p, const char *rid, const char *alt, double left, double top,
                        double w, double h)
{
    fo_xml *x = p->x;
    fo_pptx_frame_begin(p, "Chart", alt, left, top, w, h);
    fo_chartxml_graphic(x, rid, false);
    fo_xml_close(x);
}

/* A chart is a native chart part on a slide of its own: it fills the free
 * content area (native charts reflow, so no aspect is kept). */
void fo_pptx_chart(fo_pptx *p, const fo_block *b)
{
    if (p->err) return;
    fo_chart own = b->u.chart;
    const fo_chart *c = &own;
    /* a slide titled by the chart: the chart part drops its own title
       (c:autoTitleDeleted), or the slide would show it twice */
    if (fresh_area(p, c->title)) own.title = NULL;
    if (p->err) return;
    char name[64], target[64];
    size_t n = ++p->ncharts;
    snprintf(name, sizeof name, "ppt/charts/chart%zu.xml", n);
    snprintf(target, sizeof target, "../charts/chart%zu.xml", n);
    fo_status st = FO_OK;
    const char *rid = fo_chartxml_add(p->pkg, p->part, name, target, c, p->t, p->doc->epoch,
                                      p->d, &st);
    if (st != FO_OK) {
        fo_pptx_fail(p, st, b, "the chart could not be written");
        return;
    }
    double bw = p->g.cw, bh = p->g.body_bottom - p->y;
    char alt[600];
    if (c->alt) snprintf(alt, sizeof alt, "%s", c->alt);
    else snprintf(alt, sizeof alt, "%s chart%s%.500s", fo_chart_kind_name(c->kind),
                  b->u.chart.title ? ": " : "", b->u.chart.title ? b->u.chart.title : "");
    chart_frame(p, rid, alt, p->g.x, p->y, bw, bh);
    p->y += bh + FO_PPTX_GAP;
    p->has_content = true;
    fo_pptx_slide_end(p); /* what follows starts a new slide */
}

/* Reads an image block's file and its requested size in pt (aspect kept
 * where only one side is given). NULL (reported) if unreadable. */
static unsigned char *load_image(fo_pptx *p, const fo_block *b, size_t *len, double *w, double *h)
{
    unsigned char *data = (unsigned char *)fo_file_read(b->u.image.path, 0, len);
    if (!data) {
        fo_pptx_fail(p, FO_ERR_IO, b, "cannot read image %s", b->u.image.path);
        return NULL;
    }
    double pw = b->u.image.px_width > 0 ? b->u.image.px_width : 400;
    double ph = b->u.image.px_height > 0 ? b->u.image.px_height : 300;
    *w = b->u.image.width > 0 ? b->u.image.width : pw;
    *h = b->u.image.height > 0 ? b->u.image.height : *w * ph / pw;
    if (b->u.image.width <= 0 && b->u.image.height > 0) *w = *h * pw / ph;
    *w *= PX_PT;
    *h *= PX_PT;
    return data;
}

void fo_pptx_image(fo_pptx *p, const fo_block *b)
{
    if (p->err) return;
    size_t len = 0;
    double w, h;
    unsigned char *data = load_image(p, b, &len, &w, &h);
    if (!data) return;
    double cap_h = b->u.image.caption ? fo_pptx_line_h(14) + 2 * FO_PPTX_INS_Y : 0;
    fit_box(&w, &h, p->g.cw, p->g.body_bottom - p->g.body_y - cap_h);
    fo_pptx_need(p, h + cap_h, false);
    if (p->err) { fo_free(data); return; }
    const char *rid = fo_pptx_add_media(p, data, len, b->u.image.is_png);
    fo_free(data);
    picture(p, rid, "Picture", b->u.image.alt, p->g.x + (p->g.cw - w) / 2, p->y, w, h);
    p->y += h;
    if (b->u.image.caption) {
        fo_pptx_para cap;
        if (fo_pptx_para_init(&cap, FO_PPTX_PARA_PLAIN, 0, 14, b->u.image.caption, true)) {
            cap.color = p->t->muted;
            cap.align = 1;
            fo_pptx_textbox(p, "Caption", p->g.x, p->y, p->g.cw, cap_h, &cap, 1, 0);
            fo_pptx_para_clear(&cap);
        }
        p->y += cap_h;
    }
    p->y += FO_PPTX_GAP;
    p->has_content = true;
}

void fo_pptx_image_box(fo_pptx *p, const fo_block *b, double left, double top, double bw, double bh)
{
    if (p->err) return;
    size_t len = 0;
    double w, h;
    unsigned char *data = load_image(p, b, &len, &w, &h);
    if (!data) return;
    fit_box(&w, &h, bw, bh);
    const char *rid = fo_pptx_add_media(p, data, len, b->u.image.is_png);
    fo_free(data);
    picture(p, rid, "Picture", b->u.image.alt, left + (bw - w) / 2, top + (bh - h) / 2, w, h);
}

void fo_pptx_logo_box(fo_pptx *p, double left, double top, double bw, double bh)
{
    const fo_block *b = &p->logo;
    if (p->err || !b->u.image.path || !p->logo_media[0]) return;
    double w = b->u.image.px_width * PX_PT, h = b->u.image.px_height * PX_PT;
    fit_box(&w, &h, bw, bh);
    const char *rid = fo_pkg_add_rel(p->pkg, p->part, FO_REL_IMAGE, p->logo_media, false);
    picture(p, rid, "Picture", b->u.image.alt, left + (bw - w) / 2, top + (bh - h) / 2, w, h);
}

/* A shape with a fill (and optional outline) holding paragraphs. */
static void filled_box(fo_pptx *p, const char *name, const char *geom, double left, double top,
                       double w, double h, fo_rgb fill, long line, double inset,
                       fo_pptx_para *paras, size_t n, const char *anchor)
{
    fo_xml *x = p->x;
    fo_pptx_shape_begin(p, "p:sp", "p:nvSpPr", name, NULL);
    fo_xml_leaf(x, "p:cNvSpPr", NULL);
    fo_xml_leaf(x, "p:nvPr", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "p:spPr", NULL);
    fo_pptx_xfrm(x, left, top, w, h);
    fo_xml_open(x, "a:prstGeom", "prst", geom, NULL);
    fo_xml_open(x, "a:avLst", NULL);
    if (strcmp(geom, "roundRect") == 0) fo_xml_leaf(x, "a:gd", "name", "adj", "fmla", "val 8000", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_solid_fill(x, fill);
    fo_xml_open(x, "a:ln", NULL);
    if (line >= 0) {
        fo_xml_attr_int(x, "w", 9525);
        fo_xml_solid_fill(x, (fo_rgb)line);
    } else {
        fo_xml_leaf(x, "a:noFill", NULL);
    }
    fo_xml_close(x);
    fo_xml_close(x); /* p:spPr */
    fo_xml_open(x, "p:txBody", NULL);
    fo_xml_open(x, "a:bodyPr", "wrap", "square", "rtlCol", "0", "anchor", anchor, NULL);
    long long ins = FO_PPTX_EMU(inset);
    fo_xml_attr_int(x, "lIns", ins);
    fo_xml_attr_int(x, "tIns", ins);
    fo_xml_attr_int(x, "rIns", ins);
    fo_xml_attr_int(x, "bIns", ins);
    fo_pptx_text_end(p, paras, n);
}

static void format_value(const fo_value *v, const char *code, char *buf, size_t cap)
{
    buf[0] = '\0';
    switch (v->kind) {
    case FO_VAL_NUMBER:
    case FO_VAL_DATE:
        fo_numfmt_format_code(code ? code : "General", v->num, buf, cap);
        break;
    case FO_VAL_FORMULA:
        if (v->has_num) fo_numfmt_format_code(code ? code : "General", v->num, buf, cap);
        else snprintf(buf, cap, "%s", v->label ? v->label : "");
        break;
    case FO_VAL_BOOL: snprintf(buf, cap, "%s", v->num != 0 ? "TRUE" : "FALSE"); break;
    case FO_VAL_URL: snprintf(buf, cap, "%s", v->label ? v->label : v->str ? v->str : ""); break;
    case FO_VAL_TEXT: snprintf(buf, cap, "%s", v->str ? v->str : ""); break;
    case FO_VAL_NULL: snprintf(buf, cap, "\xE2\x80\x94"); break;
    }
}

static void card(fo_pptx *p, const fo_metric *m, double left, double top, double w)
{
    const fo_theme *t = p->t;
    char value[256], delta[300];
    format_value(&m->value, m->format, value, sizeof value);
    fo_pptx_para paras[3];
    size_t n = 0;
    double inner = (w - 2 * CODE_PAD) * FO_PPTX_FIT;
    /* the value is shrunk to fit its card on one line, never broken ("$31,234,567" / ".89") */
    double vsz = 32, vw = fo_text_width(t->heading.bold, vsz, value, strlen(value));
    if (vw > inner && vw > 0) vsz = floor(vsz * inner / vw * 2) / 2;
    if (vsz < 6) vsz = 6;
    fo_pptx_para_init(&paras[n], FO_PPTX_PARA_PLAIN, 0, 14, m->label, true);
    paras[n++].color = t->muted;
    fo_pptx_para_init(&paras[n], FO_PPTX_PARA_PLAIN, 0, vsz, value, false);
    paras[n].bold = true;
    fo_numfmt *f = fo_numfmt_compile(m->format ? m->format : "General", NULL, 0);
    long ink = fo_value_color(&m->value, f);
    fo_numfmt_free(f);
    paras[n++].color = ink >= 0 ? (fo_rgb)ink : t->heading_color;
    if (m->has_delta) {
        fo_delta_text(m, delta, sizeof delta);
        fo_pptx_para_init(&paras[n], FO_PPTX_PARA_PLAIN, 0, 14, delta, false);
        paras[n++].color = fo_delta_rgb(m, t->muted, t->table.band_fill);
    }
    filled_box(p, "Metric", "roundRect", left, top, w, CARD_H, t->table.band_fill,
               (long)t->accent, CODE_PAD, paras, n, "ctr");
    for (size_t i = 0; i < n; i++) fo_pptx_para_clear(&paras[i]);
}

void fo_pptx_metrics(fo_pptx *p, const fo_block *b)
{
    size_t n = b->u.metrics.nitems;
    for (size_t i = 0; i < n && !p->err; i += CARDS_PER_ROW) {
        size_t k = n - i < CARDS_PER_ROW ? n - i : CARDS_PER_ROW;
        size_t per = n < CARDS_PER_ROW ? n : CARDS_PER_ROW;
        double w = (p->g.cw - (double)(per - 1) * CARD_GAP) / (double)per;
        fo_pptx_need(p, CARD_H, false);
        if (p->err) return;
        for (size_t j = 0; j < k; j++)
            card(p, &b->u.metrics.items[i + j], p->g.x + (double)j * (w + CARD_GAP), p->y, w);
        p->y += CARD_H + FO_PPTX_GAP;
        p->has_content = true;
    }
}

/* ---- code ------------------------------------------------------------------- */

static void code_flush(fo_pptx *p, fo_pptx_para *lines, size_t *n, double h)
{
    if (!*n) return;
    filled_box(p, "Code", "rect", p->g.x, p->y, p->g.cw, h + 2 * CODE_PAD, p->t->code_fill, -1,
               CODE_PAD, lines, *n, "t");
    for (size_t i = 0; i < *n; i++) fo_pptx_para_clear(&lines[i]);
    p->y += h + 2 * CODE_PAD + FO_PPTX_GAP;
    p->has_content = true;
    *n = 0;
}

void fo_pptx_code(fo_pptx *p, const fo_block *b)
{
    const char *src = b->u.code.text ? b->u.code.text : "";
    double lh = fo_pptx_line_h(FO_PPTX_CODE_SZ);
    double w = (p->g.cw - 2 * CODE_PAD) * FO_PPTX_FIT;
    fo_pptx_para *lines = NULL;
    size_t n = 0, cap = 0;
    double h = 0;
    fo_pptx_need(p, 2 * CODE_PAD + 3 * lh, false);
    for (const char *s = src; !p->err;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len && s[len - 1] == '\r') len--;
        /* one paragraph per source line; tabs become four spaces */
        char *line = fo_malloc(len * 4 + 1);
        if (!line) { fo_pptx_fail(p, FO_ERR_NOMEM, b, "out of memory"); break; }
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
            if (s[i] == '\t') { memcpy(line + k, "    ", 4); k += 4; }
            else line[k++] = s[i];
        }
        line[k] = '\0';
        if (!fo_grow((void **)&lines, &cap, n + 1, 32, sizeof *lines)) {
            fo_free(line);
            fo_pptx_fail(p, FO_ERR_NOMEM, b, "out of memory");
            break;
        }
        fo_pptx_para *para = &lines[n];
        bool ok = fo_pptx_para_init(para, FO_PPTX_PARA_CODE, 0, FO_PPTX_CODE_SZ, line, false);
        fo_free(line);
        if (!ok) { fo_pptx_fail(p, FO_ERR_NOMEM, b, "out of memory"); break; }
        para->color = p->t->text;
        double ph = fo_pptx_para_height(para, fo_pptx_para_lines(p->t, para, w, NULL, 0, 0), true);
        if (p->y + h + ph + 2 * CODE_PAD > p->g.body_bottom && n) {
            code_flush(p, lines, &n, h);
            *lines = *para; /* the line moves to the front */
            h = 0;
            fo_pptx_slide_end(p);
            fo_pptx_open_flow_slide(p);
        }
        n++;
        h += ph;
        if (!e || !e[1]) break; /* a final newline ends the code */
        s = e + 1;
    }
    if (!p->err) code_flush(p, lines, &n, h);
    for (size_t i = 0; i < n; i++) fo_pptx_para_clear(&lines[i]);
    fo_free(lines);
}
