/* table.c — Word tables: data tables streamed row by row from fo_rows (header
 * row repeated on each page, numbers formatted with the column's Excel code
 * and right-aligned, bold totals row, caption), and metrics (KPI figures).
 *
 * Memory stays constant in the number of rows: column widths come from the
 * header and a sample of the first rows, numbers from every row shown (a
 * separate pass over fo_rows, which with totals reads every row to compute
 * and measure them), then rows are
 * written to the document as they are read. A table too wide for the page
 * follows render/core/table.h: smaller text down to MIN_SIZE, then a
 * landscape section of its own, then column groups repeating the first
 * column, each a Word table under a note. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/core/words.h"
#include "render/core/delta.h"
#include "render/core/table.h"
#include "render/core/text.h"
#include "render/docx/docx_internal.h"
#include "render/core/numfmt.h"
#include "render/core/text.h"
#include "base/utf8.h"

#define WIDTH_SAMPLE 200   /* rows measured for column widths */
/* A table of at most this many rows (header and totals included) is kept on
 * one page: rows never split and every row but the last keeps with the next
 * (Word's and LibreOffice's way to say "do not break this table"). Longer
 * tables break between rows, the header row repeated on each page. */
#define KEEP_ROWS 16
#define CELL_BUF 128
/* Rows a Word table shows (about 25 pages); the rest are left to the
 * workbook, with the note slides and a cut PDF carry: LibreOffice could not
 * lay out a 50,000-row table in 10 minutes, and no reader pages through it. */
#define SHOWN_ROWS 1000
#define MIN_SIZE 7.0       /* pt: a wide table's text is set no smaller (docs/spec.md) */
#define CELL_PAD 11.0      /* pt: FolioTable's cell margins (2 x 85 + 30 twips) and 1 pt to spare */

typedef struct {
    fo_col_plan *col;      /* format and alignment (render/core/table.h); tc[0].col
                              is the plan's array (tcols_free) */
    fo_table_acc acc;      /* totals (render/core/table.h) */
    fo_table_width w;      /* natural and minimum width at the table size, pt */
    long width;            /* twips, in the group being written */
} tcol;

/* ---- values to text ------------------------------------------------------- */

/* Text shown for v (borrowed from v or written into buf); *numeric when the
 * value is a number Excel would right-align; *url set for links. */
static const char *cell_text(const fo_value *v, const fo_numfmt *f, char *buf, size_t *n,
                             bool *numeric, const char **url)
{
    *url = v->kind == FO_VAL_URL ? v->str : NULL;
    return fo_value_text(v, f, buf, CELL_BUF, n, numeric);
}

/* ---- cells and rows ------------------------------------------------------------ */

/* indent: levels of 240 twips (a styled row's first column, "row_styles") */
static void cell(fo_docx_ctx *c, long width, const char *text, size_t n, const char *style,
                 bool right, const char *url, bool bold, const char *fill, bool top_rule, int indent)
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
    if (indent > 0) {
        fo_xml_open(x, "w:ind", NULL);
        fo_xml_attr_int(x, "w:left", 240L * indent);
        fo_xml_close(x);
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

/* Widths measured with the engine's shaped text widths in the table font
 * (fo_table_measure; ctx: the theme), in pt at the table size. */
static double measure_text(void *ctx, bool bold, const char *s, size_t n)
{
    const fo_theme *t = ctx;
    return fo_text_width(bold ? t->body.bold : t->body.regular, t->body_size * 0.9, s, n);
}

/* Natural and minimum widths from the header and the first WIDTH_SAMPLE
 * rows, and from the numbers of every row the document shows (to
 * SHOWN_ROWS: fo_col_plan_widen_number), since a number never breaks and
 * must fit its column wherever it stands. With totals every row is read,
 * the totals computed and measured too. */
static bool measure(fo_docx_ctx *c, const fo_block *b, tcol *tc)
{
    size_t nc = b->u.table.ncols;
    void *t = (void *)c->t;
    for (size_t j = 0; j < nc; j++) fo_col_plan_widen_head(tc[j].col, &tc[j].w, measure_text, t);
    fo_rows *rows = NULL;
    if (fo_rows_open(b->u.table.data, &rows, c->d) != FO_OK) return false;
    const fo_value *row;
    char buf[CELL_BUF];
    bool totals = b->u.table.has_totals;
    fo_table_advances adv;
    fo_table_advances_init(&adv);
    int rc = 0;
    for (size_t r = 0; (r < SHOWN_ROWS || totals) && (rc = fo_rows_next(rows, &row, c->d)) == 1; r++)
        for (size_t j = 0; j < nc; j++) {
            const fo_value *v = &row[b->u.table.cols[j].field];
            if (totals) fo_table_acc_add(&tc[j].acc, v);
            if (r < WIDTH_SAMPLE) fo_col_plan_widen(tc[j].col, &tc[j].w, measure_text, t, v, buf, sizeof buf);
            else if (r < SHOWN_ROWS)
                fo_col_plan_widen_number(tc[j].col, &tc[j].w, measure_text, t, &adv, v, buf, sizeof buf);
        }
    fo_rows_close(rows);
    for (size_t j = 0; j < nc && totals && rc == 0; j++)
        fo_col_plan_widen_total(tc[j].col, &tc[j].w, measure_text, t, c->doc->lang, &tc[j].acc,
                                b->u.table.cols[j].total, j, buf, sizeof buf);
    return rc >= 0;
}

/* Plans the table (render/core/table.h) at the page's and a turned page's
 * text width. */
static void plan(fo_docx_ctx *c, const fo_block *b, tcol *tc, fo_table_plan *p, size_t *ends)
{
    size_t nc = b->u.table.ncols;
    double size = c->t->body_size * 0.9;
    double *mn = fo_calloc(nc, sizeof *mn);
    if (!mn) { *p = (fo_table_plan){1, false, 1}; ends[0] = nc; return; }
    for (size_t j = 0; j < nc; j++) mn[j] = tc[j].w.minimum;
    fo_table_plan_fit(mn, nc, CELL_PAD, fo_docx_text_width(c) / 20.0,
                      fo_docx_landscape_width(c) / 20.0, size > MIN_SIZE ? MIN_SIZE / size : 1,
                      p, ends);
    for (size_t j = 0; j < nc; j++) tc[j].w.minimum = mn[j];
    fo_free(mn);
}

/* The widths of one group's columns (cols[0..k)), in twips summing to the
 * text width: natural and minimum at the planned scale plus the margins. */
static void group_widths(fo_docx_ctx *c, tcol *tc, const size_t *cols, size_t k, double scale)
{
    double *nat = fo_calloc(k, sizeof *nat), *mn = fo_calloc(k, sizeof *mn);
    if (!nat || !mn) { fo_free(nat); fo_free(mn); return; }
    for (size_t i = 0; i < k; i++) {
        nat[i] = tc[cols[i]].w.natural * scale + CELL_PAD;
        mn[i] = tc[cols[i]].w.minimum * scale + CELL_PAD;
    }
    fo_table_fit(nat, mn, k, c->text_width / 20.0, nat);
    long used = 0;
    for (size_t i = 0; i < k; i++) {
        long w = i + 1 < k ? lround(nat[i] * 20) : c->text_width - used;
        tc[cols[i]].width = w;
        used += w;
    }
    fo_free(nat);
    fo_free(mn);
}

static void table_props(fo_docx_ctx *c, const fo_block *b, const tcol *tc, const size_t *cols,
                        size_t k)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:tblPr", NULL);
    fo_xml_leaf(x, "w:tblStyle", "w:val", "FolioTable", NULL);
    /* mirrored: the first column on the right */
    if (fo_table_rtl(c->doc, b)) fo_xml_leaf(x, "w:bidiVisual", NULL);
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
    for (size_t i = 0; i < k; i++) {
        fo_xml_open(x, "w:gridCol", NULL);
        fo_xml_attr_int(x, "w:w", tc[cols[i]].width);
        fo_xml_close(x);
    }
    fo_xml_close(x);
}

static void totals_row(fo_docx_ctx *c, const fo_block *b, tcol *tc, const size_t *cols, size_t k)
{
    row_open(c, false);
    for (size_t i = 0; i < k; i++) {
        size_t j = cols[i];
        const fo_table_col *col = &b->u.table.cols[j];
        char buf[CELL_BUF];
        bool numeric;
        size_t n = fo_table_total_text(c->doc->lang, &tc[j].acc, col->total, j, tc[j].col->fmt, buf, sizeof buf,
                                       &numeric);
        double v;
        c->run_color = col->total != FO_TOTAL_COUNT && fo_table_total(&tc[j].acc, col->total, &v)
                           ? fo_numfmt_color(tc[j].col->fmt, v) + 1 : 0;
        cell(c, tc[j].width, buf, n, fo_col_plan_cell_right(tc[j].col, numeric, n) ? "TableNumber" : "TableText",
             false, NULL, true, NULL, true, 0);
        c->run_color = 0;
    }
    fo_xml_close(c->x);
}

/* The body rows of one group, streamed from fo_rows (through keep: the
 * rows kept by the group before, or NULL). */
static void body_rows(fo_docx_ctx *c, const fo_block *b, tcol *tc, const size_t *cols, size_t k,
                      bool small, fo_rows_keep *keep)
{
    fo_rows *rows = NULL;
    if (fo_rows_open_kept(b->u.table.data, keep, &rows, c->d) != FO_OK) {
        fo_docx_fail(c, b, FO_ERR_INPUT, "cannot read the table's data");
        return;
    }
    const size_t nrows = b->u.table.data->nrows;
    char bfill[7];
    fo_rgb_hex(c->t->table.band_fill, bfill);
    const fo_value *row;
    char buf[CELL_BUF];
    int rc = 0;
    size_t r = 0;
    while (fo_docx_ok(c) && (rc = fo_rows_next(rows, &row, c->d)) == 1) {
        if (r == SHOWN_ROWS) { /* the rest is the workbook's: cut_note says so */
            rc = 0;
            break;
        }
        const char *fill = c->t->table.banding && r % 2 == 1 ? bfill : NULL;
        c->keep_cells = small && (r + 1 < nrows || b->u.table.has_totals);
        row_open(c, false);
        const fo_row_style *rs = fo_table_row_style(b, r);
        for (size_t i = 0; i < k; i++) {
            size_t j = cols[i];
            const fo_value *v = &row[b->u.table.cols[j].field];
            size_t n;
            bool numeric;
            const char *url;
            const char *s = cell_text(v, tc[j].col->fmt, buf, &n, &numeric, &url);
            c->run_color = fo_value_color(v, tc[j].col->fmt) + 1;
            cell(c, tc[j].width, s, n, fo_col_plan_cell_right(tc[j].col, numeric, n) ? "TableNumber" : "TableText",
                 false, url, rs && rs->bold, fill, false, rs && j == 0 ? rs->indent : 0);
            c->run_color = 0;
        }
        fo_xml_close(c->x);
        r++;
    }
    if (rc < 0) fo_docx_fail(c, b, FO_ERR_INPUT, "cannot read the table's data");
    fo_rows_close(rows);
}

/* One Word table of the columns cols[0..k): header, rows, totals. */
static void write_group(fo_docx_ctx *c, const fo_block *b, tcol *tc, const size_t *cols, size_t k,
                        fo_rows_keep *keep)
{
    fo_xml *x = c->x;
    const bool small = b->u.table.data->nrows + 1 + (b->u.table.has_totals ? 1 : 0) <= KEEP_ROWS;
    c->keep_cells = small;
    fo_xml_open(x, "w:tbl", NULL);
    table_props(c, b, tc, cols, k);
    char hfill[7];
    fo_rgb_hex(c->t->table.header_fill, hfill);
    row_open(c, true);
    for (size_t i = 0; i < k; i++) {
        const char *t = tc[cols[i]].col->title;
        cell(c, tc[cols[i]].width, t, strlen(t), "TableHeader", tc[cols[i]].col->right, NULL, false,
             hfill, false, 0);
    }
    fo_xml_close(x);
    body_rows(c, b, tc, cols, k, small, keep);
    c->keep_cells = false;
    if (b->u.table.has_totals) totals_row(c, b, tc, cols, k);
    fo_xml_close(x); /* w:tbl */
    size_t nrows = b->u.table.data->nrows;
    if (nrows > SHOWN_ROWS) {
        char note[512];
        fo_docx_para_style(c, "Caption", false);
        fo_docx_run(c, note, fo_table_cut_note(c->doc->lang, SHOWN_ROWS, nrows, note, sizeof note), NULL, false, true);
        fo_xml_close(x);
    }
    /* a paragraph after the table keeps two tables apart and gives space */
    fo_xml_leaf(x, "w:p", NULL);
}

/* The note over a column group, kept with its table. */
static void group_note(fo_docx_ctx *c, const char *text)
{
    fo_xml *x = c->x;
    fo_docx_para_style(c, "Caption", true);
    fo_docx_run(c, text, strlen(text), NULL, false, true);
    fo_xml_close(x);
}

static void tcols_free(tcol *tc, size_t nc)
{
    if (tc) fo_col_plan_free(tc[0].col, nc);
    fo_free(tc);
}

/* The columns of table b, measured and planned; NULL (failure recorded in
 * c) when it cannot be written. */
static tcol *prepare(fo_docx_ctx *c, const fo_block *b, fo_table_plan *p, size_t *ends)
{
    size_t nc = b->u.table.ncols;
    tcol *tc = fo_calloc(nc, sizeof *tc);
    fo_col_plan *cp = tc ? fo_col_plan_new(b->u.table.cols, nc) : NULL;
    if (!cp) {
        fo_free(tc);
        fo_docx_fail(c, b, FO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t j = 0; j < nc; j++) tc[j].col = &cp[j];
    if (!measure(c, b, tc)) {
        fo_docx_fail(c, b, FO_ERR_INPUT, "cannot read the table's data");
        tcols_free(tc, nc);
        return NULL;
    }
    plan(c, b, tc, p, ends);
    return tc;
}

bool fo_docx_table_turns(fo_docx_ctx *c, const fo_block *b)
{
    size_t nc = b->kind == FO_BLOCK_TABLE ? b->u.table.ncols : 0;
    size_t *ends = nc && !c->tpl ? fo_calloc(nc, sizeof *ends) : NULL;
    if (!ends) return false;
    fo_diags scratch, *d = c->d; /* the table itself reports what goes wrong */
    fo_diags_init(&scratch);
    c->d = &scratch;
    fo_status err = c->err;
    fo_table_plan p = {1, false, 1};
    tcols_free(prepare(c, b, &p, ends), nc);
    fo_free(ends);
    c->d = d;
    c->err = err;
    fo_diags_free(&scratch);
    return p.landscape;
}

void fo_docx_table_write(fo_docx_ctx *c, const fo_block *b)
{
    size_t nc = b->u.table.ncols;
    if (nc == 0) return;
    fo_table_plan p;
    fo_rows_keep *keep = NULL;
    size_t *ends = fo_calloc(nc, sizeof *ends), *cols = fo_calloc(nc, sizeof *cols);
    tcol *tc = ends && cols ? prepare(c, b, &p, ends) : NULL;
    if (!ends || !cols) fo_docx_fail(c, b, FO_ERR_NOMEM, "out of memory");
    if (!tc) goto done;
    fo_docx_orient(c, p.landscape); /* either way: a heading may have turned the section */
    if (b->u.table.caption) fo_docx_caption(c, "Table", ++c->ntables, b->u.table.caption);
    keep = p.ngroups > 1 ? fo_rows_keep_new(b->u.table.data) : NULL;
    for (size_t g = 0; g < p.ngroups && fo_docx_ok(c); g++) {
        size_t k = fo_table_group_cols(ends, g, cols);
        if (p.ngroups > 1) {
            char note[512];
            fo_table_group_note(c->doc->lang, ends, g, nc, note, sizeof note);
            group_note(c, note);
        }
        group_widths(c, tc, cols, k, p.scale);
        /* runs of a table set smaller, in half-points (rounded down) */
        c->run_sz = p.scale < 1 ? (int)floor(c->t->body_size * 0.9 * p.scale * 2) : 0;
        write_group(c, b, tc, cols, k, keep);
        c->run_sz = 0;
    }
done:
    fo_rows_keep_free(keep);
    tcols_free(tc, nc);
    fo_free(ends);
    fo_free(cols);
}

/* ---- captions -------------------------------------------------------------------- */

/* Bytes of the decimal digit at p (ASCII, Arabic-Indic, Extended
 * Arabic-Indic, Devanagari, fullwidth), 0 when there is none. */
static size_t digit_at(const char *p)
{
    uint32_t cp;
    size_t n = *p ? fo_utf8_decode(p, strlen(p), &cp) : 0;
    if (!n) return 0;
    bool digit = (cp >= '0' && cp <= '9') || (cp >= 0x660 && cp <= 0x669) ||
                 (cp >= 0x6F0 && cp <= 0x6F9) || (cp >= 0x966 && cp <= 0x96F) ||
                 (cp >= 0xFF10 && cp <= 0xFF19);
    return digit ? n : 0;
}

/* True when markup already starts with label and a number ("Table 1.",
 * "table 2:", "Figure 3 -", "表1 ...", "جدول ١:", "तालिका १:"): the writer
 * of the spec numbered it, in the document's language or in English. */
static bool numbered(const char *label, const char *markup)
{
    size_t n = strlen(label), d;
    while (*markup == '*' || *markup == '_') markup++; /* **Table 1.** */
    if (strncasecmp(markup, label, n) != 0) return false;
    const char *p = markup + n + (markup[n] == ' ');
    if (!digit_at(p)) return false;
    while ((d = digit_at(p))) p += d;
    /* then the end, punctuation or a space, or any other script's character
       (an en or em dash, a fullwidth colon, "表1各地区") */
    return *p == '\0' || strchr(".:-) *_", *p) || (unsigned char)*p >= 0x80;
}

void fo_docx_caption(fo_docx_ctx *c, const char *label, unsigned n, const char *markup)
{
    fo_xml *x = c->x;
    fo_docx_para_style(c, "Caption", strcmp(label, "Table") == 0);
    /* the label shown is the document language's ("Tabelle 1: ..."); the
       SEQ field keeps folio's English name, one sequence whatever the language */
    const char *shown = fo_word(c->doc->lang, strcmp(label, "Table") == 0 ? FO_W_TABLE : FO_W_FIGURE);
    if (numbered(label, markup) || numbered(shown, markup)) { /* not "Table 1: Table 1. Sales" */
        fo_docx_markup(c, markup);
        fo_xml_close(x);
        return;
    }
    char s[64];
    snprintf(s, sizeof s, "%s ", shown);
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
    fo_docx_para_style(c, "MetricLabel", false);
    if (m->label) fo_docx_run(c, m->label, strlen(m->label), NULL, false, false);
    fo_xml_close(x);
    fo_docx_para_style(c, "MetricValue", false);
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
        char d[CELL_BUF];
        /* coloured directly: a template's styles may lack folio's Delta styles */
        fo_delta_tone tone = fo_delta_tone_of(m);
        fo_docx_para_style(c, "MetricDelta", false);
        c->run_color = tone == FO_DELTA_FLAT ? 0 : (long)fo_delta_rgb(m, 0, c->t->background) + 1;
        fo_docx_run(c, d, fo_delta_text(m, d, sizeof d), NULL, false, false);
        c->run_color = 0;
        fo_xml_close(x);
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
            cell(c, width, "", 0, "MetricLabel", false, NULL, false, NULL, false, 0); /* pad */
        }
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_xml_leaf(x, "w:p", NULL);
}
