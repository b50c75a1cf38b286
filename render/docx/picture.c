/* picture.c — inline drawings in word/document.xml: charts as native chart
 * parts (render/chartxml: word/charts/chartN.xml, c:chart in a:graphicData)
 * and images (PNG/JPEG files, pic:pic, stored once as
 * word/media/imageN.png|jpeg), each in a wp:inline with alt text
 * (wp:docPr descr), scaled to fit the text width.
 *
 * Sizes: a pixel is 1/96 inch = 9525 EMU. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render/chartxml/chartxml.h"
#include "base/buf.h"
#include "render/docx/docx_internal.h"
#include "render/core/markup.h"

#define EMU_PER_PX 9525LL
#define EMU_PER_TWIP 635LL

/* Adds the picture part, related from source part `from`, and returns the
 * relationship id (takes data). */
static const char *add_media(fo_docx_ctx *c, const char *from, unsigned char *data, size_t len,
                             bool png, char *name, size_t cap)
{
    const char *ext = png ? "png" : "jpeg";
    fo_pkg_add_default(c->pkg, ext, png ? FO_CT_PNG : FO_CT_JPEG);
    unsigned n = ++c->nmedia;
    char part[64], target[64];
    snprintf(part, sizeof part, "word/media/image%u.%s", n, ext);
    snprintf(target, sizeof target, "media/image%u.%s", n, ext);
    snprintf(name, cap, "image%u.%s", n, ext);
    fo_pkg_add_part_take(c->pkg, part, NULL, data, len);
    return fo_pkg_add_rel(c->pkg, from, FO_REL_IMAGE, target, false);
}

/* What a wp:inline shows: a picture (rid of its media part, file name) or
 * a native chart (rid of its chart part). */
typedef struct {
    const char *rid;
    const char *name;  /* picture: media file name; NULL for a chart */
} graphic;

static void pic_graphic(fo_xml *x, const graphic *g, const char *alt, long long cx, long long cy)
{
    fo_xml_open(x, "a:graphic", NULL);
    fo_xml_open(x, "a:graphicData", "uri", FO_NS_PIC, NULL);
    fo_xml_open(x, "pic:pic", NULL);
    fo_xml_open(x, "pic:nvPicPr", NULL);
    fo_xml_leaf(x, "pic:cNvPr", "id", "0", "name", g->name, "descr", alt, NULL);
    fo_xml_leaf(x, "pic:cNvPicPr", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "pic:blipFill", NULL);
    fo_xml_leaf(x, "a:blip", "r:embed", g->rid, NULL);
    fo_xml_open(x, "a:stretch", NULL);
    fo_xml_leaf(x, "a:fillRect", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "pic:spPr", NULL);
    fo_xml_open(x, "a:xfrm", NULL);
    fo_xml_leaf(x, "a:off", "x", "0", "y", "0", NULL);
    fo_xml_open(x, "a:ext", NULL);
    fo_xml_attr_int(x, "cx", cx);
    fo_xml_attr_int(x, "cy", cy);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "a:prstGeom", "prst", "rect", NULL);
    fo_xml_leaf(x, "a:avLst", NULL);
    fo_xml_close(x);
    fo_xml_close(x); /* pic:spPr */
    fo_xml_close(x); /* pic:pic */
    fo_xml_close(x); /* a:graphicData */
    fo_xml_close(x); /* a:graphic */
}

/* The run holding a wp:inline drawing of cx x cy EMU, written to x. */
static void drawing_run(fo_docx_ctx *c, fo_xml *x, const graphic *g, long long cx, long long cy,
                        const char *alt)
{
    unsigned id = ++c->pic_id; /* unique over the body and the header */
    char sid[16], pname[32];
    snprintf(sid, sizeof sid, "%u", id);
    snprintf(pname, sizeof pname, "%s %u", g->name ? "Picture" : "Chart", id);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_open(x, "w:drawing", NULL);
    fo_xml_open(x, "wp:inline", "distT", "0", "distB", "0", "distL", "0", "distR", "0", NULL);
    fo_xml_open(x, "wp:extent", NULL);
    fo_xml_attr_int(x, "cx", cx);
    fo_xml_attr_int(x, "cy", cy);
    fo_xml_close(x);
    fo_xml_leaf(x, "wp:effectExtent", "l", "0", "t", "0", "r", "0", "b", "0", NULL);
    fo_xml_leaf(x, "wp:docPr", "id", sid, "name", pname, "descr", alt, NULL);
    fo_xml_open(x, "wp:cNvGraphicFramePr", NULL);
    if (g->name) fo_xml_leaf(x, "a:graphicFrameLocks", "noChangeAspect", "1", NULL);
    fo_xml_close(x);
    if (g->name) pic_graphic(x, g, alt, cx, cy);
    else fo_chartxml_graphic(x, g->rid, false);
    fo_xml_close(x); /* wp:inline */
    fo_xml_close(x); /* w:drawing */
    fo_xml_close(x); /* w:r */
}

/* The drawing in a paragraph of its own (style Figure), scaled to the text
 * width. keep_next: a caption follows and stays with it. */
static void inline_drawing(fo_docx_ctx *c, const graphic *g, double wpx, double hpx,
                           const char *alt, bool keep_next)
{
    long long cx = (long long)(wpx * EMU_PER_PX), cy = (long long)(hpx * EMU_PER_PX);
    long long max = (long long)c->text_width * EMU_PER_TWIP;
    if (cx > max) { cy = cy * max / cx; cx = max; }
    if (cx < 1) cx = 1;
    if (cy < 1) cy = 1;
    fo_xml *x = c->x;
    fo_docx_para_style(c, "Figure", keep_next);
    drawing_run(c, x, g, cx, cy, alt ? alt : "");
    fo_xml_close(x); /* w:p */
}

/* Alt text of a chart without one: its title, or "<kind> chart". */
static void chart_alt(const fo_chart *ch, char *out, size_t cap)
{
    if (ch->alt && *ch->alt) snprintf(out, cap, "%s", ch->alt);
    else if (ch->title && *ch->title) snprintf(out, cap, "%s chart: %s",
                                               fo_chart_kind_name(ch->kind), ch->title);
    else snprintf(out, cap, "%s chart", fo_chart_kind_name(ch->kind));
}

/* A chart is a native chart part (theme palette; its data cached in the part
 * and kept in an embedded workbook, word/embeddings/, for Word's Edit Data):
 * Word and LibreOffice draw it themselves, no picture is rendered. */
void fo_docx_chart_write(fo_docx_ctx *c, const fo_block *b)
{
    const fo_chart *ch = &b->u.chart;
    unsigned n = ++c->ncharts;
    char part[64], target[64];
    snprintf(part, sizeof part, "word/charts/chart%u.xml", n);
    snprintf(target, sizeof target, "charts/chart%u.xml", n);
    fo_status st = FO_OK;
    const char *rid = fo_chartxml_add(c->pkg, FO_DOCX_DOCUMENT, part, target, ch, c->t,
                                      c->doc->epoch, c->d, &st);
    if (st != FO_OK) {
        fo_docx_fail(c, b, st, "the chart could not be written");
        return;
    }
    char alt[512];
    chart_alt(ch, alt, sizeof alt);
    graphic g = {rid, NULL};
    inline_drawing(c, &g, ch->width > 0 ? ch->width : 800, ch->height > 0 ? ch->height : 500, alt,
                   false);
}

void fo_docx_image_write(fo_docx_ctx *c, const fo_block *b)
{
    size_t len = 0;
    unsigned char *data = (unsigned char *)fo_file_read(b->u.image.path, 0, &len);
    if (!data) {
        fo_docx_fail(c, b, FO_ERR_INPUT, "%s: cannot read the image: %s", b->u.image.path,
                     strerror(errno));
        return;
    }
    /* size: requested width/height (px), keeping the aspect when one is 0 */
    double pw = b->u.image.px_width > 0 ? b->u.image.px_width : 100;
    double ph = b->u.image.px_height > 0 ? b->u.image.px_height : 100;
    double w = b->u.image.width, h = b->u.image.height;
    if (w > 0 && h <= 0) h = w * ph / pw;
    else if (h > 0 && w <= 0) w = h * pw / ph;
    else if (w <= 0 && h <= 0) { w = pw; h = ph; }
    char name[32];
    graphic g = {add_media(c, FO_DOCX_DOCUMENT, data, len, b->u.image.is_png, name, sizeof name),
                  name};
    const char *alt = b->u.image.alt ? b->u.image.alt : "";
    char *plain = NULL;
    if (!*alt && b->u.image.caption) alt = plain = fo_markup_plain(b->u.image.caption);
    inline_drawing(c, &g, w, h, alt ? alt : "", b->u.image.caption != NULL);
    fo_free(plain);
    if (b->u.image.caption) fo_docx_caption(c, "Figure", ++c->nfigures, b->u.image.caption);
}

/* The theme's logo: 1.5 cm high (aspect kept, at most a third of the text
 * width wide), its media part related from `part` (the header). */
#define LOGO_EMU 540000LL /* 1.5 cm */

void fo_docx_logo_run(fo_docx_ctx *c, fo_xml *x, const char *part)
{
    const fo_theme *t = c->t;
    bool png = t->logo_is_png;
    int pw = t->logo_width, ph = t->logo_height; /* probed by the theme reader */
    size_t len = 0;
    unsigned char *data = NULL;
    if (pw <= 0 || ph <= 0 || !(data = (unsigned char *)fo_file_read(t->logo, 0, &len))) {
        fo_docx_fail(c, NULL, FO_ERR_INPUT, "theme logo %s: not a readable PNG or JPEG image",
                     t->logo);
        return;
    }
    long long cy = LOGO_EMU, cx = cy * pw / ph;
    long long max = (long long)c->text_width * EMU_PER_TWIP / 3;
    if (cx > max) { cy = cy * max / cx; cx = max; }
    if (cx < 1) cx = 1;
    if (cy < 1) cy = 1;
    char name[32];
    graphic g = {add_media(c, part, data, len, png, name, sizeof name), name};
    drawing_run(c, x, &g, cx, cy, "logo");
}
