/* chartxml.h — native Office charts: writes a DrawingML chart part
 * (c:chartSpace, ECMA-376 Part 1 §21.2) for an fo_chart, shared by pptx and docx.
 *
 * The data is read once through fo_rows. Written by fo_chartxml_add, the
 * part carries it twice: as an embedded workbook (workbook.c: c:externalData
 * -> ../embeddings/Microsoft_Excel_WorksheetN.xlsx, so "Edit Data" works in
 * PowerPoint and Word) and as the caches of c:strRef / c:numRef whose c:f
 * formulas point into that workbook (Sheet1!$B$2:$B$9), which is what
 * Office and LibreOffice draw. fo_chartxml_write alone gives literal caches
 * (c:strLit / c:numLit), a part that needs no workbook. Kinds: bar/column
 * (c:barChart, clustered or stacked with c:overlap 100), line (markers),
 * area (standard or stacked), pie, doughnut (c:holeSize), scatter
 * (lineMarker style, markers only). Series colors are the theme palette in
 * order (pie/doughnut: one color per slice); fonts and text color come from
 * the theme; the value axis shows the first y column's number format.
 * Missing values (null or text cells) are left out of the cache: gaps.
 *
 * Every element is written in the order its schema sequence requires
 * (dml-chart.xsd); the writer is deterministic (same chart, same bytes).
 *
 * Wiring a chart into a package (what pptx does; docx does the same):
 *   1. const char *rid = fo_chartxml_add(pkg, "word/document.xml",
 *          "word/charts/chart1.xml", "charts/chart1.xml", chart, theme, epoch, d, &st);
 *      adds the part with its <Override> content type (FO_CHARTXML_CT), its
 *      workbook word/embeddings/Microsoft_Excel_Worksheet1.xlsx (Default
 *      "xlsx", related from the chart part as FO_CHARTXML_REL_PACKAGE), and a
 *      relationship of type FO_CHARTXML_REL from the source part; returns its id.
 *   2. in the host's graphic frame (p:graphicFrame, or wp:inline/wp:anchor),
 *      call fo_chartxml_graphic(x, rid): writes <a:graphic><a:graphicData
 *      uri=FO_CHARTXML_URI><c:chart r:id=.../></a:graphicData></a:graphic>.
 *      The a: prefix must be declared by the host part (or pass declare_a). */
#ifndef FO_CHARTXML_H
#define FO_CHARTXML_H

#include <stdbool.h>
#include <stddef.h>

#include "folio.h"
#include "render/chart/chart.h"
#include "render/core/model.h"
#include "render/core/theme.h"
#include "render/ooxml/package.h"

#define FO_CHARTXML_CT "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
#define FO_CHARTXML_REL "http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart"
#define FO_CHARTXML_URI "http://schemas.openxmlformats.org/drawingml/2006/chart"
#define FO_NS_C "http://schemas.openxmlformats.org/drawingml/2006/chart"
#define FO_CHARTXML_REL_PACKAGE \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package"
#define FO_CHARTXML_CT_XLSX "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

/* Writes the chart part of c into a new in-memory fo_xml (*out, owned by the
 * caller: hand it to fo_pkg_add_xml or free it with fo_xml_free). Reads the
 * chart's dataset through fo_rows. Errors: FO_ERR_NOMEM, a data read error
 * (FO_ERR_INPUT, reported in d), or the writer's sticky error. *out is NULL
 * on error. */
fo_status fo_chartxml_write(const fo_chart *c, const fo_theme *t, fo_xml **out, fo_diags *d);

/* Writes the chart part as part_name (e.g. "ppt/charts/chart3.xml") into p,
 * with its content type override, and relates it from source_part with
 * target (relative to the source part's folder, e.g. "../charts/chart3.xml").
 * Its data goes into an embedded workbook beside it: the folder above the
 * chart's, embeddings/Microsoft_Excel_Worksheet<N>.xlsx, N the digits of the
 * chart part's name ("chart3.xml": 3); the workbook's creation date is epoch
 * (Unix time; FO_NO_EPOCH: FO_FIXED_EPOCH, as the xlsx writer does).
 * Returns the relationship id (borrowed from p), or "" on error with *st set
 * (a data error is in d; a package error is sticky in p). */
const char *fo_chartxml_add(fo_pkg *p, const char *source_part, const char *part_name,
                            const char *target, const fo_chart *c, const fo_theme *t,
                            long long epoch, fo_diags *d, fo_status *st);

/* <a:graphic><a:graphicData uri=chart><c:chart xmlns:c xmlns:r r:id=rid/>
 * </a:graphicData></a:graphic>. declare_a adds xmlns:a on a:graphic, for
 * hosts that do not declare it on their root (Word's wp:inline does). */
void fo_chartxml_graphic(fo_xml *x, const char *rid, bool declare_a);

/* ---- private: shared by the files of render/chartxml ------------------------ */

/* The chart's data, read once by render/chart's reader (fo_chart_series:
 * y[s * n + i], NaN = missing; xfmt, yfmt never NULL); category labels as
 * the x column's format shows them. Free with fo_chart_series_free. */
typedef fo_chart_series fo_chartxml_data;

fo_status fo_chartxml_data_read(const fo_chart *c, fo_chartxml_data *dt, fo_diags *d);

/* The chart's data as an .xlsx workbook (layout in workbook.c): nseries
 * series of dt (the first ones); scatter puts dt->x in column A, others the
 * category labels. *out (fo_malloc'd, the caller frees) holds *len bytes.
 * Errors: FO_ERR_NOMEM. */
fo_status fo_chartxml_workbook(const fo_chartxml_data *dt, bool scatter, size_t nseries,
                               long long epoch, void **out, size_t *len);
/* "Sheet1!$B$2:$B$9": column col (0 = A), rows first..last (0-based), or one
 * cell "Sheet1!$B$1" when first == last. */
void fo_chartxml_range(char *buf, size_t cap, size_t col, size_t first_row, size_t last_row);
/* Series of dt that the chart's group shows (pie and doughnut: the first). */
size_t fo_chartxml_nseries(const fo_chart *c, const fo_chartxml_data *dt);

/* Writes the series of the chart group (inside c:barChart etc.). */
void fo_chartxml_series(fo_xml *x, const fo_chart *c, const fo_theme *t,
                        const fo_chartxml_data *dt);
/* Palette color i (falls back to Office's accents on an empty palette). */
fo_rgb fo_chartxml_color(const fo_theme *t, size_t i);
/* Shortest decimal that reads back as v ("%.15g", else "%.17g"). */
void fo_chartxml_num(double v, char *buf, size_t cap);
/* <name val="v"/>, the shape of most chart settings. */
void fo_chartxml_val(fo_xml *x, const char *name, long long v);
/* <a:ln w="w"> filled with color, or holding a:noFill when color is
 * negative (w 0: no w). round adds cap="rnd" and <a:round/>. */
void fo_chartxml_line(fo_xml *x, long long w, long long color, bool round);
/* <c:spPr> holding only that line (a grid, an axis, a series' stroke). */
void fo_chartxml_line_sppr(fo_xml *x, long long w, long long color, bool round);
/* <c:spPr> with no fill and no line: transparent. */
void fo_chartxml_clear_sppr(fo_xml *x);

#endif
