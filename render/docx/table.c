/* table.c — Word tables: data tables streamed row by row from fo_rows (header
 * row repeated on each page, numbers formatted with the column's Excel code
 * and right-aligned, bold totals row, caption), and metrics (KPI figures).
 *
 * Memory stays constant in the number of rows: column widths come from the
 * header and a sample of the first rows (a separate pass over fo_rows), then
 * rows are written to the document as they are read. Totals are accumulated
 * during the writing pass. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/core/table.h"
#include "render/core/text.h"
#include "render/docx/docx_internal.h"
#include "render/core/numfmt.h"
#include "render/core/text.h"
#include "render/core/utf8.h"

#define WIDTH_SAMPLE 200   /* rows measured for column widths */
/* A table of at most this many rows (header and totals included) is kept on
 * one page: rows never split and every row but the last keeps with the next
 * (Word's and LibreOffice's way to say "do not break this table"). Longer
 * tables break between rows, the header row repeated on each page. */
#define KEEP_ROWS 16
#define CELL_BUF 128

typedef struct {
    fo_numfmt *fmt;        /* column format, or NULL (General fallback below) */
    fo_table_acc acc;      /* totals (render/core/table.h) */
    double chars;          /* widest text seen, in character units (0.55 em) */
    double word;           /* longest word seen (numbers: whole cell), likewise */
    long width;            /* twips */
    bool right;            /* numbers: right-aligned */
} tcol;

/* ---- values to text ------------------------------------------------------- */

/* A number through f (NULL: general), written into buf. */
static size_t fmt_num(const fo_numfmt *f, double v, char *buf, size_t cap)
{
    fo_value val = {FO_VAL_NUMBER, false, v, NULL, NULL};
    size_t n;
    fo_value_text(&val, f, buf, cap, &n, NULL);
    return n;
}

/* Text shown for v (borrowed from v or written into buf); *numeric when the
 * value is a number Excel would right-align; *url set for links. */
static const char *cell_text(const fo_value *v, const fo_numfmt *f, char *buf, size_t *n,
                             bool *numeric, const char **url)
{
    *url = v->kind == FO_VAL_URL ? v->str : NULL;
    return fo_value_text(v, f, buf, CELL_BUF, n, numeric);
}

/* ---- cells and rows ------------------------------------------------------------ */

static void cell(fo_docx_ctx *c, long width, const char *text, size_t n, const char *style,
                 bool right, const char *url, bool bold, const char *fill, bool top_rule)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:tc", NULL);
    fo_xml_open(x, "w:tcPr", NULL);
    fo_xml_open(x, "w:tcW", "w:type", "dxa", NULL);
    fo_xml_attr_int(x, "w:w", width);
    fo_xml_close(x);
    if (top_rule) {
        fo_xml_open(x, "w:tcBorders", NULL);
        fo_xml_leaf(x, "w:top", "w:val", "single", "w:sz", "8", "w:space", "0", "w:color", "auto",
                    NULL);
        fo_xml_close(x);
    }
    if (fill) fo_xml_leaf(x, "w:shd", "w:val", "clear", "w:color", "auto", "w:fill", fill, NULL);
    fo_xml_close(x);
    fo_xml_open(x, "w:p", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_leaf(x, "w:pStyle", "w:val", style, NULL);
    if (c->keep_cells) fo_xml_leaf(x, "w:keepNext", NULL);
    if (n) {
        char stackbuf[256];   /* fo_docx_bidi takes a C string */
        size_t k = n < sizeof stackbuf - 1 ? n : sizeof stackbuf - 1;
        memcpy(stackbuf, text, k);
        stackbuf[k] = 0;
        fo_docx_bidi(c, stackbuf);
    }
    if (right) fo_xml_leaf(x, "w:jc", "w:val", "right", NULL);
    fo_xml_close(x);
    if (n) {
        if (url) fo_xml_open(x, "w:hyperlink", "r:id", fo_docx_link_rid(c, url), "w:history", "1",
                             NULL);
        fo_docx_run(c, text, n, url ? "Hyperlink" : NULL, bold, false);
        if (url) fo_xml_close(x);
    }
    fo_xml_close(x); /* w:p */
    fo_xml_close(x); /* w:tc */
}

static void row_open(fo_docx_ctx *c, bool header)
{
    fo_xml_open(c->x, "w:tr", NULL);
    fo_xml_open(c->x, "w:trPr", NULL);
    fo_xml_leaf(c->x, "w:cantSplit", NULL);
    if (header) fo_xml_leaf(c->x, "w:tblHeader", NULL);
    fo_xml_close(c->x);
}

/* ---- the table -------------------------------------------------------------------- */

/* Width of s in character units: measured in the table font (as the PDF
 * writer measures its tables), 1 unit = 0.55 em, the width the layout below
 * was tuned with. */
#define CHAR_EM 0.55
static double text_units(const fo_font *f, bool bold, const char *s, size_t n)
{
    return fo_text_width(bold ? f->bold : f->regular, 1.0, s, n) / CHAR_EM;
}

/* Longest space-separated word of s, in character units. */
static double longest_word(const fo_font *f, bool bold, const char *s, size_t n)
{
    double best = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && s[k] != ' ' && s[k] != '\n') k++;
        double w = text_units(f, bold, s + i, k - i);
        if (w > best) best = w;
        i = k + 1;
    }
    return best;
}

/* Column widths from the header and the first rows, in characters:
 * natural = the widest text (4..40), minimum = the longest word, so words
 * are not broken mid-way while the page has room for every column's
 * longest word. Columns start at their minimum and share the rest in
 * proportion to what they still want; then scale to the text width. */
static void measure(fo_docx_ctx *c, const fo_block *b, tcol *tc)
{
    size_t nc = b->u.table.ncols;
    for (size_t j = 0; j < nc; j++) {
        const char *title = b->u.table.cols[j].title;
        tc[j].chars = text_units(&c->t->body, true, title, strlen(title));
        tc[j].word = longest_word(&c->t->body, true, title, strlen(title));
    }
    fo_rows *rows = NULL;
    if (fo_rows_open(b->u.table.data, &rows, c->d) == FO_OK) {
        const fo_value *row;
        char buf[CELL_BUF];
        for (size_t r = 0; r < WIDTH_SAMPLE && fo_rows_next(rows, &row, c->d) == 1; r++)
            for (size_t j = 0; j < nc; j++) {
                size_t n;
                bool numeric;
                const char *url;
                const char *s = cell_text(&row[b->u.table.cols[j].field], tc[j].fmt, buf, &n,
                                          &numeric, &url);
                double k = text_units(&c->t->body, false, s, n);
                if (k > tc[j].chars) tc[j].chars = k;
                double w = tc[j].right ? k : longest_word(&c->t->body, false, s, n);
                if (w > tc[j].word) tc[j].word = w;
            }
        fo_rows_close(rows);
    }
    /* Widths in character units of the table text plus the FolioTable
     * style's cell margins, which are fixed in twips and do not shrink with
     * the text. */
    const double margin_tw = 2 * 85 + 30;
    double size = c->t->body_size * 0.9;
    double min_sum = 0;
    double *nat = fo_calloc(nc ? nc : 1, sizeof *nat), *mn = fo_calloc(nc ? nc : 1, sizeof *mn);
    if (!nat || !mn) { fo_free(nat); fo_free(mn); return; }
    for (size_t j = 0; j < nc; j++) {
        double k = tc[j].chars < 4 ? 4 : tc[j].chars > 40 ? 40 : tc[j].chars;
        double w = tc[j].word > 24 ? 24 : tc[j].word;
        nat[j] = k + 2;
        mn[j] = (w < k ? w : k) + 2;
        min_sum += mn[j];
    }
    double text_tw = (double)c->text_width - margin_tw * (double)nc;
    /* longest words that cannot sit side by side: set the table smaller
     * (down to 6 pt) rather than break words */
    c->run_sz = 0;
    if (min_sum * size * CHAR_EM * 20 > text_tw && text_tw > 0) {
        size = text_tw / (min_sum * CHAR_EM * 20);
        if (size < 6) size = 6;
        c->run_sz = (int)(size * 2);
    }
    double avail = text_tw / (size * CHAR_EM * 20), total = 0;
    fo_table_fit(nat, mn, nc, avail, nat); /* in characters, in place */
    for (size_t j = 0; j < nc; j++) {
        nat[j] = nat[j] * size * CHAR_EM * 20 + margin_tw; /* to twips */
        total += nat[j];
    }
    long used = 0;
    for (size_t j = 0; j < nc; j++) {
        tc[j].width = j + 1 < nc ? lround((double)c->text_width * nat[j] / total) : c->text_width - used;
        used += tc[j].width;
    }
    fo_free(nat);
    fo_free(mn);
}

static void table_props(fo_docx_ctx *c, const fo_block *b, const tcol *tc, size_t nc)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:tblPr", NULL);
    fo_xml_leaf(x, "w:tblStyle", "w:val", "FolioTable", NULL);
    fo_xml_open(x, "w:tblW", "w:type", "dxa", NULL);
    fo_xml_attr_int(x, "w:w", c->text_width);
    fo_xml_close(x);
    fo_xml_leaf(x, "w:tblLayout", "w:type", "fixed", NULL);
    const bool totals = b->u.table.has_totals;
    fo_xml_leaf(x, "w:tblLook", "w:val", totals ? "0460" : "0420", "w:firstRow", "1",
                "w:lastRow", totals ? "1" : "0", "w:firstColumn", "0", "w:lastColumn", "0",
                "w:noHBand", c->t->table.banding ? "0" : "1", "w:noVBand", "1", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "w:tblGrid", NULL);
    for (size_t j = 0; j < nc; j++) {
        fo_xml_open(x, "w:gridCol", NULL);
        fo_xml_attr_int(x, "w:w", tc[j].width);
        fo_xml_close(x);
    }
    fo_xml_close(x);
}

static bool numeric_type(fo_type t)
{
    return t == FO_TYPE_INTEGER || t == FO_TYPE_NUMBER || t == FO_TYPE_PERCENT ||
           t == FO_TYPE_CURRENCY || t == FO_TYPE_DATE || t == FO_TYPE_DATETIME;
}

static void totals_row(fo_docx_ctx *c, const fo_block *b, tcol *tc)
{
    size_t nc = b->u.table.ncols;
    row_open(c, false);
    for (size_t j = 0; j < nc; j++) {
        const fo_table_col *col = &b->u.table.cols[j];
        char buf[CELL_BUF];
        size_t n = fo_table_total_text(&tc[j].acc, col->total, j, tc[j].fmt, buf, sizeof buf, NULL);
        const char *s = buf;
        double v;
        c->run_color = col->total != FO_TOTAL_COUNT && fo_table_total(&tc[j].acc, col->total, &v)
                           ? fo_numfmt_color(tc[j].fmt, v) + 1 : 0;
        cell(c, tc[j].width, s, n, tc[j].right ? "TableNumber" : "TableText", false, NULL,
             true, NULL, true);
        c->run_color = 0;
    }
    fo_xml_close(c->x);
}

void fo_docx_table_write(fo_docx_ctx *c, const fo_block *b)
{
    size_t nc = b->u.table.ncols;
    if (nc == 0) return;
    tcol *tc = fo_calloc(nc, sizeof *tc);
    if (!tc) { fo_docx_fail(c, b, FO_ERR_NOMEM, "out of memory"); return; }
    for (size_t j = 0; j < nc; j++) {
        const fo_table_col *col = &b->u.table.cols[j];
        tc[j].fmt = fo_numfmt_compile(col->format, NULL, 0);
        if (!tc[j].fmt) tc[j].fmt = fo_numfmt_compile("General", NULL, 0);
        tc[j].right = numeric_type(col->type);
    }
    if (b->u.table.caption) fo_docx_caption(c, "Table", ++c->ntables, b->u.table.caption);
    measure(c, b, tc);

    fo_xml *x = c->x;
    const size_t nrows = b->u.table.data->nrows;
    const bool small = nrows + 1 + (b->u.table.has_totals ? 1 : 0) <= KEEP_ROWS;
    c->keep_cells = small;
    fo_xml_open(x, "w:tbl", NULL);
    table_props(c, b, tc, nc);
    char hfill[7], bfill[7];
    fo_rgb_hex(c->t->table.header_fill, hfill);
    fo_rgb_hex(c->t->table.band_fill, bfill);
    row_open(c, true);
    for (size_t j = 0; j < nc; j++) {
        const char *t = b->u.table.cols[j].title;
        cell(c, tc[j].width, t, strlen(t), "TableHeader", tc[j].right, NULL, false, hfill, false);
    }
    fo_xml_close(x);

    fo_rows *rows = NULL;
    if (fo_rows_open(b->u.table.data, &rows, c->d) != FO_OK) {
        fo_docx_fail(c, b, FO_ERR_INPUT, "cannot read the table's data");
    } else {
        const fo_value *row;
        char buf[CELL_BUF];
        int rc;
        size_t r = 0;
        while (fo_docx_ok(c) && (rc = fo_rows_next(rows, &row, c->d)) == 1) {
            const char *fill = c->t->table.banding && r % 2 == 1 ? bfill : NULL;
            c->keep_cells = small && (r + 1 < nrows || b->u.table.has_totals);
            row_open(c, false);
            for (size_t j = 0; j < nc; j++) {
                const fo_value *v = &row[b->u.table.cols[j].field];
                size_t n;
                bool numeric;
                const char *url;
                const char *s = cell_text(v, tc[j].fmt, buf, &n, &numeric, &url);
                fo_table_acc_add(&tc[j].acc, v);
                c->run_color = fo_value_color(v, tc[j].fmt) + 1;
                cell(c, tc[j].width, s, n, numeric || (tc[j].right && !n) ? "TableNumber"
                                                                          : "TableText",
                     false, url, false, fill, false);
                c->run_color = 0;
            }
            fo_xml_close(x);
            r++;
        }
        if (rc < 0) fo_docx_fail(c, b, FO_ERR_INPUT, "cannot read the table's data");
        fo_rows_close(rows);
    }
    c->keep_cells = false;
    if (b->u.table.has_totals) totals_row(c, b, tc);
    c->run_sz = 0;
    fo_xml_close(x); /* w:tbl */
    /* a paragraph after the table keeps two tables apart and gives space */
    fo_xml_leaf(x, "w:p", NULL);
    for (size_t j = 0; j < nc; j++) fo_numfmt_free(tc[j].fmt);
    fo_free(tc);
}

/* ---- captions -------------------------------------------------------------------- */

/* True when markup already starts with label and a number ("Table 1.",
 * "table 2:", "Figure 3 -"): the writer of the spec numbered it. */
static bool numbered(const char *label, const char *markup)
{
    size_t n = strlen(label);
    while (*markup == '*' || *markup == '_') markup++; /* **Table 1.** */
    if (strncasecmp(markup, label, n) != 0 || markup[n] != ' ') return false;
    const char *p = markup + n + 1;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') p++;
    return *p == '\0' || strchr(".:-) *_", *p) || (unsigned char)*p == 0xE2; /* an en or em dash */
}

void fo_docx_caption(fo_docx_ctx *c, const char *label, unsigned n, const char *markup)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:p", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_leaf(x, "w:pStyle", "w:val", "Caption", NULL);
    if (strcmp(label, "Table") == 0) fo_xml_leaf(x, "w:keepNext", NULL);
    fo_xml_close(x);
    if (numbered(label, markup)) { /* not "Table 1: Table 1. Sales" */
        fo_docx_markup(c, markup);
        fo_xml_close(x);
        return;
    }
    char s[64];
    snprintf(s, sizeof s, "%s ", label);
    fo_docx_run(c, s, strlen(s), NULL, false, false);
    char instr[64], num[16];
    snprintf(instr, sizeof instr, " SEQ %s \\* ARABIC ", label);
    snprintf(num, sizeof num, "%u", n);
    fo_docx_field(c, instr, num);
    fo_docx_run(c, ": ", 2, NULL, false, false);
    fo_docx_markup(c, markup);
    fo_xml_close(x);
}

/* ---- metrics ----------------------------------------------------------------------- */

#define METRICS_PER_ROW 4

static void metric_cell(fo_docx_ctx *c, const fo_metric *m, long width)
{
    fo_xml *x = c->x;
    char buf[CELL_BUF];
    fo_xml_open(x, "w:tc", NULL);
    fo_xml_open(x, "w:tcPr", NULL);
    fo_xml_open(x, "w:tcW", "w:type", "dxa", NULL);
    fo_xml_attr_int(x, "w:w", width);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "w:p", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_leaf(x, "w:pStyle", "w:val", "MetricLabel", NULL);
    fo_xml_close(x);
    if (m->label) fo_docx_run(c, m->label, strlen(m->label), NULL, false, false);
    fo_xml_close(x);
    fo_xml_open(x, "w:p", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_leaf(x, "w:pStyle", "w:val", "MetricValue", NULL);
    fo_xml_close(x);
    fo_numfmt *f = fo_numfmt_compile(m->format, NULL, 0);
    size_t n;
    bool numeric;
    const char *url;
    const char *s = cell_text(&m->value, f, buf, &n, &numeric, &url);
    c->run_color = fo_value_color(&m->value, f) + 1;
    /* shrunk to fit the card on one line, never broken ("$31,234,567" / ".89"):
     * the cell's width less its margins (0.08" a side) and a 10% reserve */
    double size = c->t->heading_size[0], avail = (width / 20.0 - 11.5) * 0.9;
    double tw = fo_text_width(c->t->heading.bold, size, s, n);
    if (tw > avail && tw > 0 && avail > 0) c->run_sz = (int)fmax(12, floor(2 * size * avail / tw));
    fo_docx_run(c, s, n, NULL, false, false);
    c->run_sz = 0;
    c->run_color = 0;
    fo_xml_close(x);
    if (m->has_delta) {
        fo_numfmt *df = fo_numfmt_compile(m->delta_format, NULL, 0);
        char d[CELL_BUF + 8];
        size_t k = fmt_num(df, m->delta, buf, CELL_BUF);
        /* the arrow only: delta_format carries the sign ("+0.0%;-0.0%;0.0%") */
        const char *arrow = m->delta > 0 ? "\xE2\x96\xB2 " : m->delta < 0 ? "\xE2\x96\xBC " : "";
        snprintf(d, sizeof d, "%s%.*s", arrow, (int)k, buf);
        fo_xml_open(x, "w:p", NULL);
        fo_xml_open(x, "w:pPr", NULL);
        fo_xml_leaf(x, "w:pStyle", "w:val", "MetricDelta", NULL);
        fo_xml_close(x);
        fo_docx_run(c, d, strlen(d), m->delta > 0 ? "DeltaUp" : m->delta < 0 ? "DeltaDown" : NULL,
                    false, false);
        fo_xml_close(x);
        fo_numfmt_free(df);
    }
    fo_numfmt_free(f);
    fo_xml_close(x); /* w:tc */
}

void fo_docx_metrics_write(fo_docx_ctx *c, const fo_block *b)
{
    size_t n = b->u.metrics.nitems;
    if (n == 0) return;
    size_t per = n < METRICS_PER_ROW ? n : METRICS_PER_ROW;
    long width = c->text_width / (long)per;
    fo_xml *x = c->x;
    fo_xml_open(x, "w:tbl", NULL);
    fo_xml_open(x, "w:tblPr", NULL);
    fo_xml_leaf(x, "w:tblStyle", "w:val", "MetricsTable", NULL);
    fo_xml_open(x, "w:tblW", "w:type", "dxa", NULL);
    fo_xml_attr_int(x, "w:w", width * (long)per);
    fo_xml_close(x);
    fo_xml_leaf(x, "w:tblLayout", "w:type", "fixed", NULL);
    fo_xml_leaf(x, "w:tblLook", "w:val", "0600", "w:firstRow", "0", "w:lastRow", "0",
                "w:firstColumn", "0", "w:lastColumn", "0", "w:noHBand", "1", "w:noVBand", "1",
                NULL);
    fo_xml_close(x);
    fo_xml_open(x, "w:tblGrid", NULL);
    for (size_t j = 0; j < per; j++) {
        fo_xml_open(x, "w:gridCol", NULL);
        fo_xml_attr_int(x, "w:w", width);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    for (size_t i = 0; i < n; i += per) {
        row_open(c, false);
        for (size_t j = 0; j < per; j++) {
            if (i + j < n) {
                metric_cell(c, &b->u.metrics.items[i + j], width);
                continue;
            }
            cell(c, width, "", 0, "MetricLabel", false, NULL, false, NULL, false); /* pad */
        }
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_xml_leaf(x, "w:p", NULL);
}
