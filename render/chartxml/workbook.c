/* workbook.c — the workbook a native chart carries its data in (the part
 * behind c:externalData), so "Edit Data" in PowerPoint and Word opens it.
 *
 * Layout, as PowerPoint's own and python-pptx's: one sheet "Sheet1";
 * column A the categories (scatter: the x values) from row 2, columns B..
 * one series each, its name in row 1 and its values from row 2. A1 holds
 * the x column's name. The chart's c:f formulas point at these ranges
 * (fo_chartxml_range). Categories are the labels the chart shows (text);
 * values are the exact doubles (fo_chartxml_num, as the c:numCache), each
 * series in its column's number format (as its c:numCache formatCode says);
 * a missing value is an empty cell.
 *
 * The package is the smallest SpreadsheetML workbook Excel, LibreOffice and
 * openpyxl open: workbook, one sheet (text as inline strings, so no shared
 * strings part), styles (one cell format per distinct number format) and
 * core properties, written with render/ooxml's package writer in memory,
 * every entry stored: the docx or pptx around it deflates it whole. It was
 * libxlsxwriter's full workbook (theme, shared strings, app properties,
 * each part deflated, each through a scratch file), 3.7 M instructions and
 * ~20 file operations a chart: 60% of a 50-chart report's time.
 * Determinism: entries stamped 1980-01-01 (the package writer), the
 * created/modified dates are the given epoch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "render/chartxml/chartxml.h"
#include "base/buf.h"
#include "render/ooxml/package.h"

#define SHEET "Sheet1"
#define NS_MAIN "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#define REL_BASE "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
#define CT_BASE "application/vnd.openxmlformats-officedocument.spreadsheetml."
#define FIRST_CUSTOM_FMT 164 /* numFmtId of the first format a workbook defines */

void fo_chartxml_range(char *buf, size_t cap, size_t col, size_t first_row, size_t last_row)
{
    char r[64];
    if (first_row == last_row)
        lxw_rowcol_to_cell_abs(r, (lxw_row_t)first_row, (lxw_col_t)col, 1, 1);
    else
        lxw_rowcol_to_range_abs(r, (lxw_row_t)first_row, (lxw_col_t)col, (lxw_row_t)last_row,
                                (lxw_col_t)col);
    snprintf(buf, cap, SHEET "!%s", r);
}

/* The distinct number formats of the sheet's columns (General left out):
 * fmts[k] is the code of cell format k + 1. */
typedef struct {
    const char *fmts[64];
    size_t n;
} formats;

/* The cell format (styles.xml cellXfs index) of a column in format code:
 * 0 for General, else its place in f, added when new (past 64 distinct
 * codes: General). */
static size_t style_of(formats *f, const char *code)
{
    if (!code || !*code || !strcmp(code, "General")) return 0;
    for (size_t k = 0; k < f->n; k++)
        if (!strcmp(f->fmts[k], code)) return k + 1;
    if (f->n == sizeof f->fmts / sizeof *f->fmts) return 0;
    f->fmts[f->n++] = code;
    return f->n;
}

/* The A1 reference of the cell at zero-based row and col ("B7") into out
 * (room for 32); its length. What lxw_rowcol_to_cell writes, without its
 * snprintf (700 instructions a cell). */
static size_t cell_ref(char *out, size_t row, size_t col)
{
    char rev[24];
    size_t n = 0, k = 0;
    for (size_t c = col + 1; c > 0; c = (c - 1) / 26) rev[n++] = (char)('A' + (c - 1) % 26);
    while (n) out[k++] = rev[--n];
    for (size_t r = row + 1; r > 0; r /= 10) rev[n++] = (char)('0' + r % 10);
    while (n) out[k++] = rev[--n];
    out[k] = '\0';
    return k;
}

/* <c r="ref" t="inlineStr"><is><t>text</t></is></c>; empty text: no cell. */
static void text_cell(fo_xml *x, size_t row, size_t col, const char *text)
{
    char ref[32];
    size_t len = text ? strlen(text) : 0;
    if (!len) return;
    cell_ref(ref, row, col);
    fo_xml_open(x, "c", "r", ref, "t", "inlineStr", NULL);
    fo_xml_open(x, "is", NULL);
    bool edge_space = text[0] == ' ' || text[len - 1] == ' ' || text[0] == '\t' || text[len - 1] == '\t' ||
                      text[0] == '\n' || text[len - 1] == '\n';
    fo_xml_open(x, "t", "xml:space", edge_space ? "preserve" : NULL, NULL);
    fo_xml_text(x, text);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
}

/* <c r="ref" s="style"><v>v</v></c>; NaN: no cell. Written as markup:
 * the reference, style number and number have nothing to escape. */
static void number_cell(fo_xml *x, size_t row, size_t col, double v, size_t style)
{
    char num[40], m[128];
    if (v != v) return;
    fo_chartxml_num(v, num, sizeof num);
    size_t k = strlen(num), n = 6 + cell_ref(m + 6, row, col);
    memcpy(m, "<c r=\"", 6);
    if (style) { /* at most 64 formats: two digits */
        memcpy(m + n, "\" s=\"", 5);
        n += 5;
        if (style >= 10) m[n++] = (char)('0' + style / 10 % 10);
        m[n++] = (char)('0' + style % 10);
    }
    memcpy(m + n, "\"><v>", 5);
    memcpy(m + n + 5, num, k);
    memcpy(m + n + 5 + k, "</v></c>", 8);
    fo_xml_raw(x, m, n + 13 + k);
}

static fo_xml *sheet_xml(const fo_chartxml_data *dt, bool scatter, size_t nseries, formats *f)
{
    size_t xstyle = scatter ? style_of(f, dt->xfmt) : 0, ystyle[nseries ? nseries : 1];
    for (size_t s = 0; s < nseries; s++) ystyle[s] = style_of(f, dt->fmts[s]);
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "worksheet", "xmlns", NS_MAIN, "xmlns:r", FO_NS_R, NULL);
    fo_xml_open(x, "cols", NULL);
    fo_xml_leaf(x, "col", "min", "1", "max", "1", "width", "18.7109375", "customWidth", "1", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "sheetData", NULL);
    fo_xml_open(x, "row", "r", "1", NULL);
    text_cell(x, 0, 0, dt->xname);
    for (size_t s = 0; s < nseries; s++) text_cell(x, 0, s + 1, dt->names[s]);
    fo_xml_close(x);
    for (size_t i = 0; i < dt->n; i++) {
        fo_xml_open(x, "row", NULL);
        fo_xml_attr_int(x, "r", (long long)i + 2);
        if (scatter) number_cell(x, i + 1, 0, dt->x[i], xstyle);
        else text_cell(x, i + 1, 0, dt->cat[i]);
        for (size_t s = 0; s < nseries; s++) number_cell(x, i + 1, s + 1, dt->y[s * dt->n + i], ystyle[s]);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_xml_close(x);
    return x;
}

static const char BASE_STYLES[] =
    "<fonts count=\"1\"><font><sz val=\"11\"/><name val=\"Calibri\"/><family val=\"2\"/>"
    "</font></fonts><fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill>"
    "<fill><patternFill patternType=\"gray125\"/></fill></fills><borders count=\"1\"><border>"
    "<left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count=\"1\">"
    "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>";
static const char CELL_STYLES[] =
    "<cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>";

/* One font, the two fills Excel requires, one border, and a cell format
 * per number format of f after the default one. */
static fo_xml *styles_xml(const formats *f)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "styleSheet", "xmlns", NS_MAIN, NULL);
    if (f->n) {
        fo_xml_open(x, "numFmts", NULL);
        fo_xml_attr_int(x, "count", (long long)f->n);
        for (size_t k = 0; k < f->n; k++) {
            fo_xml_open(x, "numFmt", NULL);
            fo_xml_attr_int(x, "numFmtId", FIRST_CUSTOM_FMT + (long long)k);
            fo_xml_attr(x, "formatCode", f->fmts[k]);
            fo_xml_close(x);
        }
        fo_xml_close(x);
    }
    fo_xml_raw(x, BASE_STYLES, sizeof BASE_STYLES - 1);
    fo_xml_open(x, "cellXfs", NULL);
    fo_xml_attr_int(x, "count", (long long)f->n + 1);
    fo_xml_leaf(x, "xf", "numFmtId", "0", "fontId", "0", "fillId", "0", "borderId", "0", "xfId", "0",
                NULL);
    for (size_t k = 0; k < f->n; k++) {
        fo_xml_open(x, "xf", NULL);
        fo_xml_attr_int(x, "numFmtId", FIRST_CUSTOM_FMT + (long long)k);
        fo_xml_attr(x, "fontId", "0");
        fo_xml_attr(x, "fillId", "0");
        fo_xml_attr(x, "borderId", "0");
        fo_xml_attr(x, "xfId", "0");
        fo_xml_attr(x, "applyNumberFormat", "1");
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_xml_raw(x, CELL_STYLES, sizeof CELL_STYLES - 1);
    fo_xml_close(x);
    return x;
}

static fo_xml *workbook_xml(void)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "workbook", "xmlns", NS_MAIN, "xmlns:r", FO_NS_R, NULL);
    fo_xml_open(x, "sheets", NULL);
    fo_xml_leaf(x, "sheet", "name", SHEET, "sheetId", "1", "r:id", "rId1", NULL);
    fo_xml_close(x);
    fo_xml_close(x);
    return x;
}

fo_status fo_chartxml_workbook(const fo_chartxml_data *dt, bool scatter, size_t nseries,
                               long long epoch, void **out, size_t *len)
{
    formats f = {.n = 0};
    fo_diags d = {0};
    fo_doc props = {0};
    *out = NULL;
    *len = 0;
    fo_pkg *p = fo_pkg_new("the chart's workbook");
    if (!p) return FO_ERR_NOMEM;
    props.epoch = epoch;
    fo_pkg_add_core_props(p, &props);
    fo_pkg_add_rel(p, "", FO_REL_OFFICE_DOCUMENT, "xl/workbook.xml", false);
    fo_pkg_add_xml(p, "xl/workbook.xml", CT_BASE "sheet.main+xml", workbook_xml());
    fo_pkg_add_rel_id(p, "xl/workbook.xml", "rId1", REL_BASE "worksheet", "worksheets/sheet1.xml",
                      false);
    fo_pkg_add_xml(p, "xl/worksheets/sheet1.xml", CT_BASE "worksheet+xml",
                   sheet_xml(dt, scatter, nseries, &f));
    fo_pkg_add_rel(p, "xl/workbook.xml", REL_BASE "styles", "styles.xml", false);
    fo_pkg_add_xml(p, "xl/styles.xml", CT_BASE "styles+xml", styles_xml(&f));
    fo_status st = fo_pkg_close_memory(p, out, len, &d);
    fo_pkg_free(p);
    fo_diags_free(&d);
    return st;
}
