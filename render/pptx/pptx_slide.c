/* pptx_slide.c — slide lifecycle and the vertical flow of a content slide:
 * opening and closing slide parts, the title shape, the pending text frame,
 * and continuation onto "(cont.)" slides when content does not fit.
 *
 * A content slide is a stack of frames from g.body_y down: text frames
 * (paragraphs measured in pptx_text.c), tables, pictures, cards. p->y is the
 * top of the free area. Paragraphs gather in the pending frame (its height
 * is only known once it is complete, and <a:xfrm> precedes the text), which
 * is written when something else is placed or the slide ends. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render/core/words.h"
#include "base/buf.h"
#include "render/pptx/pptx_internal.h"
#include "render/core/text.h"
#include "render/core/shape.h"

void fo_pptx_fail(fo_pptx *p, fo_status err, const fo_block *b, const char *fmt, ...)
{
    if (p->err) return; /* the first failure is the one to report */
    va_list ap;
    va_start(ap, fmt);
    fo_fail_atv(p->d, &p->err, p->doc, b, err, NULL, fmt, ap);
    va_end(ap);
}

int fo_pptx_shape_id(fo_pptx *p) { return p->next_id++; }

void fo_pptx_shape_begin(fo_pptx *p, const char *outer, const char *nv, const char *name,
                        const char *descr)
{
    fo_xml *x = p->x;
    int id = fo_pptx_shape_id(p);
    fo_xml_open(x, outer, NULL);
    fo_xml_open(x, nv, NULL);
    fo_xml_open(x, "p:cNvPr", NULL);
    fo_xml_attr_int(x, "id", id);
    fo_xml_attrf(x, "name", "%s %d", name, id - 1);
    if (descr && *descr) fo_xml_attr(x, "descr", descr);
    fo_xml_close(x);
}

void fo_pptx_leaf_int(fo_xml *x, const char *name, const char *attr, long long v)
{
    fo_xml_open(x, name, NULL);
    fo_xml_attr_int(x, attr, v);
    fo_xml_close(x);
}

/* <el><a:off/><a:ext/></el>: a shape's (a:xfrm) or a frame's (p:xfrm) box. */
static void box(fo_xml *x, const char *el, double left, double top, double w, double h)
{
    fo_xml_open(x, el, NULL);
    fo_xml_open(x, "a:off", NULL);
    fo_xml_attr_int(x, "x", FO_PPTX_EMU(left));
    fo_xml_attr_int(x, "y", FO_PPTX_EMU(top));
    fo_xml_close(x);
    fo_xml_open(x, "a:ext", NULL);
    fo_xml_attr_int(x, "cx", FO_PPTX_EMU(w));
    fo_xml_attr_int(x, "cy", FO_PPTX_EMU(h));
    fo_xml_close(x);
    fo_xml_close(x);
}

void fo_pptx_xfrm(fo_xml *x, double left, double top, double w, double h)
{
    box(x, "a:xfrm", left, top, w, h);
}

void fo_pptx_rect(fo_xml *x, double left, double top, double w, double h)
{
    fo_pptx_xfrm(x, left, top, w, h);
    fo_xml_open(x, "a:prstGeom", "prst", "rect", NULL);
    fo_xml_leaf(x, "a:avLst", NULL);
    fo_xml_close(x);
}

/* A shape's non-visual part up to its grouping lock (noGrp), which
 * placeholders and graphic frames carry. */
static void locked_begin(fo_pptx *p, const char *outer, const char *nv, const char *cnv,
                         const char *locks, const char *name, const char *alt)
{
    fo_pptx_shape_begin(p, outer, nv, name, alt);
    fo_xml_open(p->x, cnv, NULL);
    fo_xml_leaf(p->x, locks, "noGrp", "1", NULL);
    fo_xml_close(p->x);
}

void fo_pptx_ph_begin(fo_pptx *p, const char *name, const char *type, const char *sz, const char *idx)
{
    fo_xml *x = p->x;
    locked_begin(p, "p:sp", "p:nvSpPr", "p:cNvSpPr", "a:spLocks", name, NULL);
    fo_xml_open(x, "p:nvPr", NULL);
    fo_xml_open(x, "p:ph", NULL); /* attributes given (not NULL) only */
    fo_xml_attr(x, "type", type);
    fo_xml_attr(x, "sz", sz);
    fo_xml_attr(x, "idx", idx);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_leaf(x, "p:spPr", NULL);
    fo_xml_open(x, "p:txBody", NULL);
    fo_xml_leaf(x, "a:bodyPr", NULL);
    fo_xml_leaf(x, "a:lstStyle", NULL);
}

void fo_pptx_frame_begin(fo_pptx *p, const char *name, const char *alt, double left, double top,
                         double w, double h)
{
    fo_xml *x = p->x;
    locked_begin(p, "p:graphicFrame", "p:nvGraphicFramePr", "p:cNvGraphicFramePr", "a:graphicFrameLocks",
                 name, alt);
    fo_xml_leaf(x, "p:nvPr", NULL);
    fo_xml_close(x);
    box(x, "p:xfrm", left, top, w, h);
}

const char *fo_pptx_cont_title(const fo_pptx *p, const char *base, char *buf, size_t cap)
{
    if (!base || !*base) { buf[0] = '\0'; return buf; }
    snprintf(buf, cap, "%s %s", base, fo_word(p->doc->lang, FO_W_CONT));
    return buf;
}

/* Title size that keeps the title within two lines of the title box. */
static double title_size(const fo_pptx *p, const char *title)
{
    const char *font = p->t->heading.bold;
    double w = (p->g.cw - p->g.title_cut - 2 * FO_PPTX_INS_X) * FO_PPTX_FIT;
    size_t len = strlen(title);
    for (double sz = FO_PPTX_TITLE_SZ; sz > 20.0; sz -= 4.0)
        if (fo_text_wrap(font, sz, title, len, w, NULL, 0) <= 2) return sz;
    return 20.0;
}

static void write_title(fo_pptx *p, const char *title)
{
    fo_xml *x = p->x;
    char buf[1024];
    double sz = title_size(p, title);
    if (sz <= 20.0) { /* still too long: shorten to about two lines */
        double w = (p->g.cw - p->g.title_cut - 2 * FO_PPTX_INS_X) * FO_PPTX_FIT * 1.8;
        fo_text_ellipsize(p->t->heading.bold, sz, title, strlen(title), w, buf, sizeof buf);
        title = buf;
    }
    fo_pptx_ph_begin(p, "Title", "title", NULL, NULL);
    fo_xml_open(x, "a:p", NULL);
    if (title && fo_shape_direction(title, strlen(title)) == FO_DIR_RTL)
        fo_xml_leaf(x, "a:pPr", "algn", "r", "rtl", "1", NULL);
    fo_xml_open(x, "a:r", NULL);
    fo_lang_ooxml lang = fo_lang_for_ooxml(p->doc->lang);
    fo_xml_open(x, "a:rPr", "lang", lang.latin, NULL);
    if (sz != FO_PPTX_TITLE_SZ) fo_xml_attr_int(x, "sz", lround(sz * 100));
    fo_xml_attr(x, "dirty", "0");
    if (lang.ea_font) fo_xml_leaf(x, "a:ea", "typeface", lang.ea_font, NULL);
    if (lang.cs_font) fo_xml_leaf(x, "a:cs", "typeface", lang.cs_font, NULL);
    fo_xml_close(x);
    fo_xml_text_elem(x, "a:t", title);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
}

static void write_slide_number(fo_pptx *p)
{
    fo_xml *x = p->x;
    const char *idx = "4";
    if (p->tpl) { /* only where the template's layout has a slide number */
        const fo_pptx_ph *num = &p->tpl->layout[p->layout].num;
        if (!num->present) return;
        idx = num->idx[0] ? num->idx : NULL;
    }
    fo_pptx_ph_begin(p, "Slide Number", "sldNum", "quarter", idx);
    fo_xml_open(x, "a:p", NULL);
    fo_xml_open(x, "a:fld", "id", "{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}", "type", "slidenum",
                NULL);
    fo_xml_leaf(x, "a:rPr", "lang", fo_lang_tag(p->doc->lang), NULL);
    char num[24];
    snprintf(num, sizeof num, "%zu", p->nslides);
    fo_xml_text_elem(x, "a:t", num);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
}

void fo_pptx_slide_begin(fo_pptx *p, int layout, const char *title)
{
    if (p->x) fo_pptx_slide_end(p);
    if (p->err) return;
    if (!fo_grow((void **)&p->slide_rids, &p->cap_slides, p->nslides + 1, 32, sizeof *p->slide_rids)) {
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    size_t n = ++p->nslides;
    char target[64], layout_target[300];
    snprintf(p->part, sizeof p->part, "ppt/slides/slide%zu.xml", n);
    snprintf(target, sizeof target, "slides/slide%zu.xml", n);
    if (p->tpl) snprintf(layout_target, sizeof layout_target, "%s", p->tpl->layout[layout].target);
    else snprintf(layout_target, sizeof layout_target, "../slideLayouts/slideLayout%d.xml", layout);
    p->slide_rids[n - 1] = fo_pkg_add_rel(p->pkg, "ppt/presentation.xml",
                                          FO_PPTX_REL_BASE "slide", target, false);
    fo_pkg_add_rel(p->pkg, p->part, FO_PPTX_REL_BASE "slideLayout", layout_target, false);
    p->x = fo_xml_new_memory();
    if (!p->x) { fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory"); return; }
    fo_xml *x = p->x;
    fo_xml_open(x, "p:sld", "xmlns:a", FO_NS_A, "xmlns:r", FO_NS_R, "xmlns:p", FO_PPTX_NS_P, NULL);
    fo_xml_open(x, "p:cSld", NULL);
    fo_xml_open(x, "p:spTree", NULL);
    fo_xml_open(x, "p:nvGrpSpPr", NULL);
    fo_xml_leaf(x, "p:cNvPr", "id", "1", "name", "", NULL);
    fo_xml_leaf(x, "p:cNvGrpSpPr", NULL);
    fo_xml_leaf(x, "p:nvPr", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "p:grpSpPr", NULL);
    fo_xml_open(x, "a:xfrm", NULL);
    fo_xml_leaf(x, "a:off", "x", "0", "y", "0", NULL);
    fo_xml_leaf(x, "a:ext", "cx", "0", "cy", "0", NULL);
    fo_xml_leaf(x, "a:chOff", "x", "0", "y", "0", NULL);
    fo_xml_leaf(x, "a:chExt", "cx", "0", "cy", "0", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
    p->next_id = 2;
    p->layout = layout;
    p->body_ph_used = false;
    p->y = p->g.body_y;
    p->has_content = false;
    p->titled = title && *title && layout != FO_PPTX_L_TITLE;
    if (p->titled) write_title(p, title);
}

void fo_pptx_slide_end(fo_pptx *p)
{
    if (!p->x) return;
    fo_pptx_frame_flush(p);
    if (p->layout != FO_PPTX_L_TITLE) write_slide_number(p);
    fo_xml *x = p->x;
    fo_xml_close(x); /* p:spTree */
    fo_xml_close(x); /* p:cSld */
    fo_xml_open(x, "p:clrMapOvr", NULL);
    fo_xml_leaf(x, "a:masterClrMapping", NULL);
    fo_xml_close(x);
    fo_xml_close(x); /* p:sld */
    p->x = NULL;
    fo_pkg_add_xml(p->pkg, p->part, FO_PPTX_CT_BASE "slide+xml", x);
}

double fo_pptx_room(const fo_pptx *p)
{
    double top = p->npara ? p->frame_y + p->frame_h : p->y;
    return p->g.body_bottom - top;
}

/* Opens the next slide of the current section: its first one titled with
 * the heading, later ones "(cont.)". */
void fo_pptx_open_flow_slide(fo_pptx *p)
{
    char buf[1024];
    const char *title = p->section;
    if (p->section_used) title = fo_pptx_cont_title(p, p->section, buf, sizeof buf);
    p->section_used = true;
    fo_pptx_slide_begin(p, FO_PPTX_L_CONTENT, title);
}

void fo_pptx_own_title(fo_pptx *p, double need)
{
    if (p->err || !p->x) return;
    /* text waiting in the pending frame is written after the title */
    double room = fo_pptx_room(p) - (p->npara ? FO_PPTX_GAP : 0);
    if (p->titled || p->has_content || p->layout != FO_PPTX_L_CONTENT || !p->section || !*p->section ||
        room < need) {
        fo_pptx_slide_end(p);
        return;
    }
    write_title(p, p->section); /* no shape written yet: the title is the first */
    p->titled = true;
    p->section_used = true;
}

bool fo_pptx_need(fo_pptx *p, double need, bool keep_frame)
{
    if (p->err) return false;
    if (!keep_frame) fo_pptx_frame_flush(p);
    if (!p->x) { fo_pptx_open_flow_slide(p); return true; }
    if (fo_pptx_room(p) < need && (p->has_content || p->npara)) {
        fo_pptx_open_flow_slide(p);
        return true;
    }
    return false;
}

void fo_pptx_frame_flush(fo_pptx *p)
{
    if (!p->npara || !p->x) return;
    fo_xml *x = p->x;
    const fo_pptx_ph *body = p->tpl ? &p->tpl->layout[FO_PPTX_L_CONTENT].body : NULL;
    bool ph = p->layout == FO_PPTX_L_CONTENT && !p->body_ph_used && (!body || body->present);
    fo_pptx_shape_begin(p, "p:sp", "p:nvSpPr", ph ? "Content" : "Text", NULL);
    if (ph) {
        fo_xml_open(x, "p:cNvSpPr", NULL);
        fo_xml_leaf(x, "a:spLocks", "noGrp", "1", NULL);
        fo_xml_close(x);
        fo_xml_open(x, "p:nvPr", NULL);
        fo_xml_leaf(x, "p:ph", "type", body && strcmp(body->type, "obj") ? body->type : NULL,
                    "idx", !body ? "1" : body->idx[0] ? body->idx : NULL, NULL);
        fo_xml_close(x);
    } else {
        fo_xml_leaf(x, "p:cNvSpPr", "txBox", "1", NULL);
        fo_xml_leaf(x, "p:nvPr", NULL);
    }
    fo_xml_close(x);
    fo_xml_open(x, "p:spPr", NULL);
    fo_pptx_xfrm(x, p->g.x, p->frame_y, p->g.cw, p->frame_h);
    if (!ph) {
        fo_xml_open(x, "a:prstGeom", "prst", "rect", NULL);
        fo_xml_leaf(x, "a:avLst", NULL);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_xml_open(x, "p:txBody", NULL);
    fo_xml_open(x, "a:bodyPr", "wrap", "square", "lIns", "91440", "tIns", "45720",
                "rIns", "91440", "bIns", "45720", "anchor", "t", NULL);
    fo_xml_leaf(x, "a:noAutofit", NULL);
    fo_xml_close(x);
    fo_xml_leaf(x, "a:lstStyle", NULL);
    for (size_t i = 0; i < p->npara; i++) {
        fo_pptx_para_write(p, &p->paras[i], i == 0);
        fo_pptx_para_clear(&p->paras[i]);
    }
    fo_xml_close(x);
    fo_xml_close(x);
    if (ph) p->body_ph_used = true;
    p->y = p->frame_y + p->frame_h + FO_PPTX_GAP;
    p->npara = 0;
    p->frame_h = 0;
    p->has_content = true;
}

static void frame_append(fo_pptx *p, fo_pptx_para *para, double h)
{
    if (!fo_grow((void **)&p->paras, &p->cap_para, p->npara + 1, 16, sizeof *p->paras)) {
        fo_pptx_para_clear(para);
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    if (!p->npara) { p->frame_y = p->y; p->frame_h = 2 * FO_PPTX_INS_Y; }
    p->paras[p->npara++] = *para;
    p->frame_h += h;
}

void fo_pptx_flow_para(fo_pptx *p, fo_pptx_para *para)
{
    uint64_t *starts = NULL;
    size_t cap = 0;
    while (!p->err) {
        if (!p->x) fo_pptx_open_flow_slide(p);
        if (p->err) break;
        bool first = p->npara == 0;
        double w = fo_pptx_para_width(para, p->g.cw);
        double frame_extra = first ? 2 * FO_PPTX_INS_Y : 0;
        double room = fo_pptx_room(p) - frame_extra;
        double lh = fo_pptx_line_h(para->size);
        long fit = (long)floor((room - (first ? 0 : FO_PPTX_SPC_BEF)) / lh + 1e-9);
        size_t limit = fit > 0 ? (size_t)fit + 2 : 2;   /* as far as this slide needs */
        size_t lines = fo_pptx_para_lines(p->t, para, w, NULL, 0, limit);
        double h = fo_pptx_para_height(para, lines, first);
        if (h <= room) {
            frame_append(p, para, h);
            fo_free(starts);
            return;
        }
        /* split where the room ends, keeping two lines on each side */
        if (fit >= 2 && (long)lines - fit >= 2) {
            if (cap < lines) {
                fo_free(starts);
                starts = fo_malloc(lines * sizeof *starts);
                cap = starts ? lines : 0;
                if (!starts) { fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory"); break; }
            }
            fo_pptx_para_lines(p->t, para, w, starts, cap, limit);
            if (starts[fit] != UINT64_MAX && starts[fit] != 0) {
                fo_pptx_para tail;
                if (!fo_pptx_para_split(para, starts[fit], &tail)) {
                    fo_pptx_para_clear(&tail);
                    fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
                    break;
                }
                double head_h = fo_pptx_para_height(para, (size_t)fit, first);
                frame_append(p, para, head_h);
                *para = tail;
                fo_pptx_open_flow_slide(p);
                continue;
            }
        }
        if (p->npara || p->has_content) { fo_pptx_open_flow_slide(p); continue; }
        /* an empty slide cannot hold it and it cannot be split: place it */
        frame_append(p, para, fo_pptx_para_height(para, fo_pptx_para_lines(p->t, para, w, NULL, 0, 0),
                                                  first));
        fo_free(starts);
        return;
    }
    fo_free(starts);
    fo_pptx_para_clear(para);
}

void fo_pptx_add_media_part(fo_pptx *p, const void *data, size_t len, bool png,
                            char *target, size_t cap)
{
    char name[64];
    const char *ext = png ? "png" : "jpeg";
    size_t n;
    do { /* a template's pictures may hold the first names */
        n = ++p->nmedia;
        snprintf(name, sizeof name, "ppt/media/image%zu.%s", n, ext);
    } while (fo_pkg_has_part(p->pkg, name));
    snprintf(target, cap, "../media/image%zu.%s", n, ext);
    fo_pkg_add_default(p->pkg, ext, png ? FO_CT_PNG : FO_CT_JPEG);
    fo_pkg_add_part(p->pkg, name, NULL, data, len);
}

const char *fo_pptx_add_media(fo_pptx *p, const void *data, size_t len, bool png)
{
    char target[64];
    fo_pptx_add_media_part(p, data, len, png, target, sizeof target);
    return fo_pkg_add_rel(p->pkg, p->part, FO_REL_IMAGE, target, false);
}
