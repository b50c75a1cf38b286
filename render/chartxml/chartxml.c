/* chartxml.c — the frame of a native chart part: c:chartSpace, c:chart,
 * title, plot area with its chart group and axes, legend, text properties.
 *
 * Each writer below emits one schema sequence in order (dml-chart.xsd):
 *   chartSpace: date1904 lang roundedCorners chart spPr txPr externalData
 *   chart:      title autoTitleDeleted plotArea legend plotVisOnly dispBlanksAs
 *   plotArea:   layout <group> <axes...> spPr
 *   barChart:   barDir grouping varyColors ser* gapWidth overlap axId axId
 *   lineChart:  grouping varyColors ser* marker axId axId
 *   areaChart:  grouping varyColors ser* axId axId
 *   pieChart:   varyColors ser* firstSliceAng
 *   doughnutChart: varyColors ser* firstSliceAng holeSize
 *   scatterChart:  scatterStyle varyColors ser* axId axId
 *   catAx: axId scaling delete axPos title numFmt majorTickMark minorTickMark
 *          tickLblPos spPr txPr crossAx crosses auto lblAlgn lblOffset noMultiLvlLbl
 *   valAx: axId scaling delete axPos majorGridlines title numFmt majorTickMark
 *          minorTickMark tickLblPos spPr txPr crossAx crosses crossBetween
 *   legend: legendPos overlay txPr
 *   title:  tx overlay */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/core/words.h"
#include "render/chart/chart.h"
#include "render/chartxml/chartxml.h"

/* Axis ids: any unsigned values unique within the part; fixed for determinism. */
#define AX_CAT 507001
#define AX_VAL 507002

/* The chart part's only relationship: its embedded workbook. */
#define DATA_RID "rId1"

#define SZ_TITLE 1800   /* hundredths of a point */
#define SZ_AXIS_TITLE 1200
#define SZ_TEXT 1100

/* <a:defRPr sz b><solidFill/><a:latin typeface/></a:defRPr> */
static void def_rpr(fo_xml *x, const fo_theme *t, int sz, bool bold, fo_rgb color)
{
    fo_xml_open(x, "a:defRPr", NULL);
    fo_xml_attr_int(x, "sz", sz);
    fo_xml_attr(x, "b", bold ? "1" : "0");
    fo_xml_solid_fill(x, color);
    if (t && t->body.family[0]) fo_xml_leaf(x, "a:latin", "typeface", t->body.family, NULL);
    fo_xml_close(x);
}

/* c:txPr: default text of the element it sits in. */
static void tx_pr(fo_xml *x, const fo_theme *t, const char *lang, int sz, bool bold, fo_rgb color)
{
    fo_xml_open(x, "c:txPr", NULL);
    fo_xml_leaf(x, "a:bodyPr", NULL);
    fo_xml_leaf(x, "a:lstStyle", NULL);
    fo_xml_open(x, "a:p", NULL);
    fo_xml_open(x, "a:pPr", NULL);
    def_rpr(x, t, sz, bold, color);
    fo_xml_close(x);
    fo_xml_leaf(x, "a:endParaRPr", "lang", fo_lang_tag(lang), NULL);
    fo_xml_close(x);
    fo_xml_close(x);
}

/* CT_Title with rich text; rotated for a vertical axis title. */
static void title(fo_xml *x, const fo_theme *t, const char *lang, const char *text, int sz,
                  bool bold, bool vertical)
{
    fo_rgb color = t ? (bold ? t->heading_color : t->text) : 0;
    fo_xml_open(x, "c:title", NULL);
    fo_xml_open(x, "c:tx", NULL);
    fo_xml_open(x, "c:rich", NULL);
    fo_xml_leaf(x, "a:bodyPr", "rot", vertical ? "-5400000" : NULL, "vert",
                vertical ? "horz" : NULL, NULL);
    fo_xml_leaf(x, "a:lstStyle", NULL);
    fo_xml_open(x, "a:p", NULL);
    fo_xml_open(x, "a:pPr", NULL);
    def_rpr(x, t, sz, bold, color);
    fo_xml_close(x);
    fo_xml_open(x, "a:r", NULL);
    fo_xml_open(x, "a:rPr", "lang", fo_lang_tag(lang), NULL);
    fo_xml_attr_int(x, "sz", sz);
    fo_xml_attr(x, "b", bold ? "1" : "0");
    fo_xml_close(x);
    fo_xml_text_elem(x, "a:t", text);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_chartxml_val(x, "c:overlay", 0);
    fo_xml_close(x);
}

static fo_rgb grid_color(const fo_theme *t)
{
    /* the muted color at a quarter strength over the background */
    fo_rgb m = t ? t->muted : 0x808080, b = t ? t->background : 0xFFFFFF;
    fo_rgb out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        unsigned cm = (m >> sh) & 0xFF, cb = (b >> sh) & 0xFF;
        out |= (fo_rgb)((cm + 3 * cb) / 4) << sh;
    }
    return out;
}

/* ---- axes ----------------------------------------------------------------------- */

typedef struct {
    long long id, cross;
    const char *pos;        /* "b" "l" */
    const char *title;      /* may be NULL */
    const char *lang;       /* the document's (words.h), NULL: English */
    const char *fmt;        /* number format of the labels */
    bool reverse;           /* scaling orientation maxMin */
    bool grid;              /* major gridlines */
    const char *crosses;    /* "autoZero", "max" */
    bool mid_cat;           /* valAx crossBetween midCat (scatter), else between */
    bool fixed;             /* valAx: min, max and major unit from sc */
    fo_axis_scale sc;
} axis;

/* A value axis scaled as the PNG and PDF charts scale it: the engine's nice
 * range and step (fo_chart_nice_scale), fixed in the part so Office draws the
 * same ticks, labelled with the engine's tick format (fo_chart_tick_format:
 * the column's code with the decimals the step needs and thousands separators
 * from 10,000 on), so "0.00" data reads "250,000" and not "250000.00", and a
 * step of 0.5 never prints as "1, 1, 2". About 8 ticks, near what Office picks
 * for a chart of a page's or slide's width. Left to Office when there is no data.
 * v: n points of ns series (v[s * n + i]), summed per point when stacked. */
static void value_scale(axis *a, const fo_chart *c, const char *fmt, const double *v, size_t n,
                        size_t ns, bool stacked, bool log, char *buf, size_t cap)
{
    double lo, hi;
    a->fmt = fmt && *fmt ? fmt : "General";
    if (!fo_chart_value_range(v, NULL, n, ns, stacked, &lo, &hi)) return;
    if (log) a->sc = fo_chart_log_scale(lo, hi);   /* a decade a tick, c:logBase 10 */
    else if (fmt && strncmp(fmt, "hh:mm", 5) == 0) a->sc = fo_chart_time_scale(lo, hi, 8); /* one day's times */
    else a->sc = fo_chart_whole_days(fo_chart_nice_scale(lo, hi, 8, fo_chart_zero_based(c->kind, lo, hi)),
                                     fmt);
    a->fixed = a->sc.step > 0 && isfinite(a->sc.min) && isfinite(a->sc.max);
    if (fo_chart_tick_format(fmt, &a->sc, buf, cap) < cap) a->fmt = buf;
}

static void num_leaf(fo_xml *x, const char *name, double v)
{
    char buf[32];
    fo_chartxml_num(v, buf, sizeof buf);
    fo_xml_leaf(x, name, "val", buf, NULL);
}

static void axis_head(fo_xml *x, const fo_theme *t, const axis *a, bool is_val)
{
    fo_chartxml_val(x, "c:axId", a->id);
    fo_xml_open(x, "c:scaling", NULL);
    if (a->sc.log) fo_chartxml_val(x, "c:logBase", 10);
    fo_xml_leaf(x, "c:orientation", "val", a->reverse ? "maxMin" : "minMax", NULL);
    if (a->fixed) {
        num_leaf(x, "c:max", a->sc.max);
        num_leaf(x, "c:min", a->sc.min);
    }
    fo_xml_close(x);
    fo_chartxml_val(x, "c:delete", 0);
    fo_xml_leaf(x, "c:axPos", "val", a->pos, NULL);
    if (a->grid) {
        fo_xml_open(x, "c:majorGridlines", NULL);
        fo_chartxml_line_sppr(x, 9525, (long long)grid_color(t), false);
        fo_xml_close(x);
    }
    if (a->title && *a->title) title(x, t, a->lang, a->title, SZ_AXIS_TITLE, false, a->pos[0] == 'l' || a->pos[0] == 'r');
    fo_xml_leaf(x, "c:numFmt", "formatCode", a->fmt && *a->fmt ? a->fmt : "General",
                "sourceLinked", "0", NULL);
    fo_xml_leaf(x, "c:majorTickMark", "val", is_val ? "none" : "out", NULL);
    fo_xml_leaf(x, "c:minorTickMark", "val", "none", NULL);
    fo_xml_leaf(x, "c:tickLblPos", "val", is_val ? "nextTo" : "low", NULL);
    if (is_val && !a->mid_cat) fo_chartxml_line_sppr(x, 0, -1, false);
    else fo_chartxml_line_sppr(x, 9525, (long long)(t ? t->muted : 0x808080), false);
    tx_pr(x, t, a->lang, SZ_TEXT, false, t ? t->muted : 0x595959);
    fo_chartxml_val(x, "c:crossAx", a->cross);
    fo_xml_leaf(x, "c:crosses", "val", a->crosses ? a->crosses : "autoZero", NULL);
}

static void cat_axis(fo_xml *x, const fo_theme *t, const axis *a)
{
    fo_xml_open(x, "c:catAx", NULL);
    axis_head(x, t, a, false);
    fo_chartxml_val(x, "c:auto", 1);
    fo_xml_leaf(x, "c:lblAlgn", "val", "ctr", NULL);
    fo_chartxml_val(x, "c:lblOffset", 100);
    fo_chartxml_val(x, "c:noMultiLvlLbl", 0);
    fo_xml_close(x);
}

static void val_axis(fo_xml *x, const fo_theme *t, const axis *a)
{
    fo_xml_open(x, "c:valAx", NULL);
    axis_head(x, t, a, true);
    fo_xml_leaf(x, "c:crossBetween", "val", a->mid_cat ? "midCat" : "between", NULL);
    if (a->fixed && !a->sc.log) num_leaf(x, "c:majorUnit", a->sc.step); /* log: a decade */
    fo_xml_close(x);
}

/* Category + value axes of bar/column/line/area; bars run sideways with the
 * first category on top (reversed category axis, value axis at its max;
 * rows already written bottom up need neither: dt->flipped, series.c);
 * a right-to-left chart's categories run from the right (c->rtl). */
static void cat_val_axes(fo_xml *x, const fo_chart *c, const fo_theme *t,
                         const fo_chartxml_data *dt)
{
    const fo_chart_traits *kt = fo_chart_traits_of(c->kind);
    bool bar = kt->sideways, down = bar && !dt->flipped, rtl = c->rtl && kt->rtl_mirror;
    char code[256];
    /* right to left: the first category on the right, the value axis there too */
    axis ca = {.lang = c->lang, .id = AX_CAT, .cross = AX_VAL, .pos = bar ? "l" : "b", .title = c->x_title,
               .fmt = "General", .reverse = down || rtl};
    axis va = {.lang = c->lang, .id = AX_VAL, .cross = AX_CAT, .pos = bar ? "b" : rtl ? "r" : "l", .title = c->y_title,
               .grid = true, .crosses = down ? "max" : NULL};
    value_scale(&va, c, dt->yfmt, dt->y, dt->n, dt->ns, c->stacked && dt->ns > 1, c->y_log, code, sizeof code);
    cat_axis(x, t, &ca);
    val_axis(x, t, &va);
}

static void scatter_axes(fo_xml *x, const fo_chart *c, const fo_theme *t,
                         const fo_chartxml_data *dt)
{
    char xcode[256], ycode[256];
    axis xa = {.lang = c->lang, .id = AX_CAT, .cross = AX_VAL, .pos = "b", .title = c->x_title,
               .mid_cat = true};
    axis ya = {.lang = c->lang, .id = AX_VAL, .cross = AX_CAT, .pos = "l", .title = c->y_title,
               .grid = true, .mid_cat = true};
    value_scale(&xa, c, dt->xfmt, dt->x, dt->n, 1, false, false, xcode, sizeof xcode);
    value_scale(&ya, c, dt->yfmt, dt->y, dt->n, dt->ns, false, c->y_log, ycode, sizeof ycode);
    val_axis(x, t, &xa);
    val_axis(x, t, &ya);
}

/* ---- chart group, plot area, legend ------------------------------------------------ */

static void ax_ids(fo_xml *x)
{
    fo_chartxml_val(x, "c:axId", AX_CAT);
    fo_chartxml_val(x, "c:axId", AX_VAL);
}

/* The kind's chart group (fo_chart_traits: its element, c:barDir and
 * c:grouping), its series, and what the schema puts after them: CT_BarChart's
 * gap and overlap, CT_LineChart's marker, the round charts' first slice angle
 * and hole, and every group's axis ids but the round ones'. */
static void chart_group(fo_xml *x, const fo_chart *c, const fo_theme *t,
                        const fo_chartxml_data *dt)
{
    const fo_chart_traits *kt = fo_chart_traits_of(c->kind);
    bool round = kt->family == FO_CHART_ROUND;
    fo_xml_open(x, kt->ooxml, NULL);
    if (kt->bar_dir) fo_xml_leaf(x, "c:barDir", "val", kt->bar_dir, NULL);
    if (kt->grouping) fo_xml_leaf(x, "c:grouping", "val", c->stacked ? "stacked" : kt->grouping, NULL);
    if (kt->family == FO_CHART_XY) fo_xml_leaf(x, "c:scatterStyle", "val", "lineMarker", NULL);
    fo_chartxml_val(x, "c:varyColors", round);
    fo_chartxml_series(x, c, t, dt);
    if (kt->mark == FO_MARK_BAR) {
        fo_chartxml_val(x, "c:gapWidth", c->stacked ? 60 : 80);
        if (c->stacked) fo_chartxml_val(x, "c:overlap", 100);
    }
    if (kt->mark == FO_MARK_LINE) fo_chartxml_val(x, "c:marker", 1);
    if (round) fo_chartxml_val(x, "c:firstSliceAng", 0);
    if (kt->hole) fo_chartxml_val(x, "c:holeSize", kt->hole);
    if (!round) ax_ids(x);
    fo_xml_close(x);
}

static bool is_round(const fo_chart *c)
{
    return fo_chart_traits_of(c->kind)->family == FO_CHART_ROUND;
}

static void plot_area(fo_xml *x, const fo_chart *c, const fo_theme *t,
                      const fo_chartxml_data *dt)
{
    fo_xml_open(x, "c:plotArea", NULL);
    fo_xml_leaf(x, "c:layout", NULL);
    chart_group(x, c, t, dt);
    if (fo_chart_traits_of(c->kind)->family == FO_CHART_XY) scatter_axes(x, c, t, dt);
    else if (!is_round(c)) cat_val_axes(x, c, t, dt);
    fo_chartxml_clear_sppr(x);
    fo_xml_close(x);
}

/* The legend the PNG engine shows: none when asked, none for a lone series
 * on the right (its title says it all); pie legends list the categories. */
static void legend(fo_xml *x, const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt)
{
    fo_legend where = c->legend;
    if (!is_round(c) && dt->ns == 1 && where == FO_LEGEND_RIGHT) where = FO_LEGEND_NONE;
    if (where == FO_LEGEND_NONE) return;
    fo_xml_open(x, "c:legend", NULL);
    fo_xml_leaf(x, "c:legendPos", "val", where == FO_LEGEND_BOTTOM ? "b" : "r", NULL);
    fo_chartxml_val(x, "c:overlay", 0);
    tx_pr(x, t, c->lang, SZ_TEXT, false, t ? t->text : 0);
    fo_xml_close(x);
}

/* ---- the part ------------------------------------------------------------------------ */

/* data_rid: the relationship to the embedded workbook, or NULL (literal data). */
static void chart_space(fo_xml *x, const fo_chart *c, const fo_theme *t,
                        const fo_chartxml_data *dt, const char *data_rid)
{
    fo_xml_open(x, "c:chartSpace", "xmlns:c", FO_NS_C, "xmlns:a", FO_NS_A, "xmlns:r", FO_NS_R,
                NULL);
    fo_chartxml_val(x, "c:date1904", 0);
    fo_xml_leaf(x, "c:lang", "val", fo_lang_tag(c->lang), NULL);
    fo_chartxml_val(x, "c:roundedCorners", 0);
    fo_xml_open(x, "c:chart", NULL);
    if (c->title && *c->title) title(x, t, c->lang, c->title, SZ_TITLE, true, false);
    fo_chartxml_val(x, "c:autoTitleDeleted", c->title && *c->title ? 0 : 1);
    plot_area(x, c, t, dt);
    legend(x, c, t, dt);
    fo_chartxml_val(x, "c:plotVisOnly", 1);
    fo_xml_leaf(x, "c:dispBlanksAs", "val", "gap", NULL);
    fo_xml_close(x); /* c:chart */
    fo_chartxml_clear_sppr(x); /* transparent: the slide or page shows through */
    tx_pr(x, t, c->lang, SZ_TEXT, false, t ? t->text : 0);
    if (data_rid) {
        fo_xml_open(x, "c:externalData", "r:id", data_rid, NULL);
        fo_chartxml_val(x, "c:autoUpdate", 0);
        fo_xml_close(x);
    }
    fo_xml_close(x); /* c:chartSpace */
}

/* The part for data already read; data_rid as chart_space. */
static fo_status write_part(const fo_chart *c, const fo_theme *t, const fo_chartxml_data *dt,
                            const char *data_rid, fo_xml **out)
{
    *out = NULL;
    fo_xml *x = fo_xml_new_memory();
    if (!x) return FO_ERR_NOMEM;
    chart_space(x, c, t, dt, data_rid);
    fo_xml_finish(x);
    fo_status st = fo_xml_status(x);
    if (st != FO_OK) { fo_xml_free(x); return st; }
    *out = x;
    return FO_OK;
}

fo_status fo_chartxml_write(const fo_chart *c, const fo_theme *t, fo_xml **out, fo_diags *d)
{
    *out = NULL;
    fo_chartxml_data dt;
    fo_status st = fo_chartxml_data_read(c, &dt, d);
    if (st == FO_OK) st = write_part(c, t, &dt, NULL, out);
    fo_chart_series_free(&dt);
    return st;
}

/* "ppt/charts/chart3.xml" -> "ppt/embeddings/Microsoft_Excel_Worksheet3.xlsx"
 * (name) and "../embeddings/Microsoft_Excel_Worksheet3.xlsx" (target). */
static void embedding_names(const char *part, char *name, char *target, size_t cap)
{
    const char *base = strrchr(part, '/');
    base = base ? base + 1 : part;
    size_t dir = base > part ? (size_t)(base - part - 1) : 0; /* "ppt/charts" */
    while (dir > 0 && part[dir - 1] != '/') dir--;            /* "ppt/" */
    const char *digits = base + strcspn(base, "0123456789");
    int nd = (int)strspn(digits, "0123456789");
    snprintf(target, cap, "../embeddings/Microsoft_Excel_Worksheet%.*s.xlsx", nd, digits);
    snprintf(name, cap, "%.*s%s", (int)dir, part, target + 3);
}

/* Adds the workbook of dt for the chart part part_name; FO_OK or an error. */
static fo_status add_workbook(fo_pkg *p, const char *part_name, const fo_chart *c,
                              const fo_chartxml_data *dt, long long epoch)
{
    char name[512], target[512];
    void *data = NULL;
    size_t len = 0;
    if (epoch == FO_NO_EPOCH) epoch = FO_FIXED_EPOCH;
    fo_status st = fo_chartxml_workbook(dt, fo_chart_traits_of(c->kind)->family == FO_CHART_XY,
                                        fo_chartxml_nseries(c, dt), epoch, &data, &len);
    if (st != FO_OK) return st;
    embedding_names(part_name, name, target, sizeof name);
    fo_pkg_add_default(p, "xlsx", FO_CHARTXML_CT_XLSX);
    fo_pkg_add_part_take(p, name, NULL, data, len);
    fo_pkg_add_rel_id(p, part_name, DATA_RID, FO_CHARTXML_REL_PACKAGE, target, false);
    return fo_pkg_status(p);
}

const char *fo_chartxml_add(fo_pkg *p, const char *source_part, const char *part_name,
                            const char *target, const fo_chart *c, const fo_theme *t,
                            long long epoch, fo_diags *d, fo_status *st)
{
    fo_xml *x = NULL;
    fo_chartxml_data dt;
    *st = fo_pkg_status(p);
    if (*st != FO_OK) return "";
    *st = fo_chartxml_data_read(c, &dt, d);
    dt.linked = true;
    if (*st == FO_OK) *st = write_part(c, t, &dt, DATA_RID, &x);
    if (*st == FO_OK) {
        fo_pkg_add_xml(p, part_name, FO_CHARTXML_CT, x);
        *st = add_workbook(p, part_name, c, &dt, epoch);
    }
    fo_chart_series_free(&dt);
    if (*st != FO_OK) return "";
    const char *rid = fo_pkg_add_rel(p, source_part, FO_CHARTXML_REL, target, false);
    *st = fo_pkg_status(p);
    return *st == FO_OK ? rid : "";
}

void fo_chartxml_graphic(fo_xml *x, const char *rid, bool declare_a)
{
    fo_xml_open(x, "a:graphic", "xmlns:a", declare_a ? FO_NS_A : NULL, NULL);
    fo_xml_open(x, "a:graphicData", "uri", FO_CHARTXML_URI, NULL);
    fo_xml_leaf(x, "c:chart", "xmlns:c", FO_NS_C, "xmlns:r", FO_NS_R, "r:id", rid, NULL);
    fo_xml_close(x);
    fo_xml_close(x);
}
