/* pptx_table.c — tables as DrawingML tables (a:tbl in a p:graphicFrame),
 * split over "(cont.)" slides with the header row repeated.
 *
 * Three passes over the rows (they stream from the dataset, never held whole):
 * the first measures each column's widest cell and computes the totals, the
 * second formats each shown row through the column's number format,
 * measures its wrapped height at the column widths and keeps both (at most
 * SHOWN_ROWS rows: bounded), then plans the slides (plan_slides: as few as
 * the rows need, their row counts as even as the heights allow: 25 rows
 * where 12 fit are 9, 8, 8, not 12, 12, 1); the third gathers the kept rows
 * into a chunk that is written as one table where the plan starts a slide. Numbers and dates are right-aligned; the header takes its
 * colors from theme.table; a totals row is bold under a heavier rule.
 *
 * Every slide that shows a table has a title: the section's (level-1
 * heading), else the table's own (own_title), "(cont.)" after the first.
 *
 * Widths follow render/core/table.h: a table whose columns' longest words
 * and numbers do not fit side by side is set smaller, down to MIN_SZ; then
 * its columns are split into groups on successive slides, each repeating
 * the first column under a note ("Columns 1–8 of 30"). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/core/words.h"
#include "base/buf.h"
#include "render/core/table.h"
#include "render/pptx/pptx_internal.h"
#include "render/core/numfmt.h"
#include "render/core/text.h"

#define CELL_MX 5.4   /* left/right cell margin, pt */
#define CELL_MY 3.6   /* top/bottom cell margin, pt */
#define MIN_ROWS 3    /* a table starts on a fresh slide unless this many rows fit */
/* Rows a deck shows of one table (about 20 slides); the rest are left to the
 * workbook, with a note: a 100,000-row export is no 5,884-slide deck. */
#define SHOWN_ROWS 300
#define MIN_SZ 9.0    /* pt: a wide table's text is set no smaller (docs/spec.md) */
#define PAD (2 * CELL_MX + 2) /* a column's margins and 2 pt to spare */

typedef struct {
    char **cells;     /* ncols strings (owned), with colours and alignment (new_cells) */
    double h;
    int style;        /* "row_styles": 1 bold, plus the first column's indent * 2 */
} trow;

typedef struct {
    fo_pptx *p;
    const fo_block *b;
    size_t ncols;       /* columns of the group being written */
    size_t *map;        /* its i-th column: index into the block's columns */
    double sz;          /* text size, pt: FO_PPTX_TABLE_SZ or smaller */
    fo_col_plan *col;   /* per block column, like acc and w: format, alignment
                           (render/core/table.h) */
    double *width;      /* the group's column widths, pt */
    fo_table_acc *acc;  /* totals per column (render/core/table.h) */
    fo_table_width *w;  /* natural and minimum width at FO_PPTX_TABLE_SZ */
    trow *chunk;
    size_t nchunk, capchunk;
    double chunk_h, header_h;
    size_t band;        /* data rows written, for banding */
    size_t shown;       /* data rows given to slides (at most SHOWN_ROWS) */
    bool cut;           /* rows were left out */
    fo_rows_keep *keep; /* rows kept for the next column group (NULL: one group) */
    double *rh;         /* the group's shown rows' heights, totals last (SHOWN_ROWS + 1) */
    char ***rc;         /* and their cells (new_cells), owned until fill hands them on */
    size_t nrh;
    size_t *starts;     /* planned: the row each slide starts with (SHOWN_ROWS + 1) */
    size_t nslides;     /* slides planned (0: none, rows go where they fit) */
    size_t next_slide;  /* the next planned start to reach */
    size_t placed;      /* rows (totals included) added so far */
    bool own_title;     /* the table titles its slides (own_title) */
    struct cell_markup *mk[3][2]; /* row_markup by kind and band, made once (cached_markup) */
    struct run_props *rp;         /* a run's properties by bold and colour (cached_rpr) */
    size_t nrp, caprp;
} tbl;

/* Displayed text of a value through its column's format (borrowed from v or
 * written into buf); *right when it is right-aligned (fo_col_plan_cell_right). */
static const char *cell_text(const tbl *tb, size_t j, const fo_value *v, char *buf, size_t cap,
                             bool *right)
{
    size_t n;
    bool numeric;
    const char *s = fo_value_text(v, tb->col[j].fmt, buf, cap, &n, &numeric);
    *right = fo_col_plan_cell_right(&tb->col[j], numeric, n);
    return s;
}

/* Widths measured with the engine's shaped text widths (fo_table_measure;
 * ctx: the theme) at FO_PPTX_TABLE_SZ, over FO_PPTX_FIT: what wrapping
 * (row_height) leaves of a box. */
static double measure(void *ctx, bool bold, const char *s, size_t n)
{
    const fo_theme *t = ctx;
    return fo_text_width(bold ? t->body.bold : t->body.regular, FO_PPTX_TABLE_SZ, s, n) / FO_PPTX_FIT;
}

/* Pass 1: every column's widths (totals included), totals. */
static bool scan(tbl *tb)
{
    const fo_block *b = tb->b;
    fo_rows *rows = NULL;
    if (fo_rows_open(b->u.table.data, &rows, tb->p->d) != FO_OK) return false;
    const fo_value *row;
    int rc;
    char buf[512];
    void *t = (void *)tb->p->t;
    size_t n = b->u.table.ncols;
    for (size_t j = 0; j < n; j++) fo_col_plan_widen_head(&tb->col[j], &tb->w[j], measure, t);
    while ((rc = fo_rows_next(rows, &row, tb->p->d)) == 1) {
        for (size_t j = 0; j < n; j++) {
            const fo_value *v = &row[b->u.table.cols[j].field];
            fo_col_plan_widen(&tb->col[j], &tb->w[j], measure, t, v, buf, sizeof buf);
            fo_table_acc_add(&tb->acc[j], v);
        }
    }
    fo_rows_close(rows);
    for (size_t j = 0; j < n && b->u.table.has_totals && rc == 0; j++)
        fo_col_plan_widen_total(&tb->col[j], &tb->w[j], measure, t, tb->p->doc->lang, &tb->acc[j],
                                b->u.table.cols[j].total, j, buf, sizeof buf);
    return rc == 0;
}

/* The group's column widths (render/core/table.h) at the planned size: a
 * table that fits widens towards the content width, at most 2.5 times its
 * natural width (a narrow table stays narrow-ish). */
static void fit_widths(tbl *tb, double total)
{
    size_t n = tb->ncols;
    double k = tb->sz / FO_PPTX_TABLE_SZ, sum = 0;
    double *mn = fo_calloc(n ? n : 1, sizeof *mn);
    if (!mn) return;
    for (size_t i = 0; i < n; i++) {
        tb->width[i] = tb->w[tb->map[i]].natural * k + PAD;
        mn[i] = tb->w[tb->map[i]].minimum * k + PAD;
        sum += tb->width[i];
    }
    fo_table_fit(tb->width, mn, n, sum * 2.5 < total ? sum * 2.5 : total, tb->width);
    fo_free(mn);
}

static double row_height(const tbl *tb, char *const *cells, bool bold)
{
    const fo_theme *t = tb->p->t;
    size_t lines = 1;
    for (size_t j = 0; j < tb->ncols; j++) {
        double w = (tb->width[j] - 2 * CELL_MX) * FO_PPTX_FIT;
        const char *s = cells[j] ? cells[j] : "";
        size_t k = fo_text_wrap(bold ? t->body.bold : t->body.regular, tb->sz, s,
                                strlen(s), w, NULL, 0);
        if (k > lines) lines = k;
    }
    return (double)lines * fo_pptx_line_h(tb->sz) + 2 * CELL_MY;
}

/* ---- writing ----------------------------------------------------------------- */

/* <a:lnX w=".."> with a solid color, or no line when w_pt is 0, as markup. */
static int border(char *buf, size_t cap, const char *side, double w_pt, fo_rgb c)
{
    char hex[7];
    fo_rgb_hex(c, hex);
    if (w_pt > 0)
        return snprintf(buf, cap, "<%s w=\"%lld\"><a:solidFill><a:srgbClr val=\"%s\"/></a:solidFill></%s>",
                        side, FO_PPTX_EMU(w_pt), hex, side);
    return snprintf(buf, cap, "<%s w=\"0\"><a:noFill/></%s>", side, side);
}

/* The fixed markup around a cell's text, for one row: what opens the text
 * body up to the first run (per alignment), and what follows the last run up
 * to the end of the cell properties. Written raw: these are the same for
 * every cell of a row, and a wide table has tens of thousands of cells. */
typedef struct cell_markup {
    char head[3][192];   /* [left, right-aligned, right to left] */
    size_t head_len[3];
    char tail[1024];
    size_t tail_len;
} cell_markup;

static void row_markup(cell_markup *m, const fo_theme *t, const char *lang, double sz, int kind,
                       bool band)
{
    long spc = lround(fo_pptx_line_h(sz) * 100);
    for (int r = 0; r < 3; r++) {
        int n = snprintf(m->head[r], sizeof m->head[r],
                         "<a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:pPr algn=\"%s\"%s><a:lnSpc>"
                         "<a:spcPts val=\"%ld\"/></a:lnSpc></a:pPr>", r ? "r" : "l",
                         r == 2 ? " rtl=\"1\"" : "", spc);
        m->head_len[r] = n > 0 && (size_t)n < sizeof m->head[r] ? (size_t)n : 0;
    }
    char lines[4][160], fill[96], hex[7];
    border(lines[0], sizeof lines[0], "a:lnL", 0, 0);
    border(lines[1], sizeof lines[1], "a:lnR", 0, 0);
    border(lines[2], sizeof lines[2], "a:lnT", kind == 2 ? 1.5 : 0, t->text);
    border(lines[3], sizeof lines[3], "a:lnB", 0.5, t->table.border);
    if (kind == 0 || band) {
        fo_rgb_hex(kind == 0 ? t->table.header_fill : t->table.band_fill, hex);
        snprintf(fill, sizeof fill, "<a:solidFill><a:srgbClr val=\"%s\"/></a:solidFill>", hex);
    } else {
        snprintf(fill, sizeof fill, "<a:noFill/>");
    }
    /* CT_TableCellProperties: lnL lnR lnT lnB, fill */
    int n = snprintf(m->tail, sizeof m->tail,
                     "<a:endParaRPr lang=\"%s\" sz=\"%ld\"/></a:p></a:txBody>"
                     "<a:tcPr marL=\"%lld\" marR=\"%lld\" marT=\"%lld\" marB=\"%lld\" anchor=\"ctr\">"
                     "%s%s%s%s%s</a:tcPr>",
                     fo_lang_tag(lang), lround(sz * 100), FO_PPTX_EMU(CELL_MX), FO_PPTX_EMU(CELL_MX),
                     FO_PPTX_EMU(CELL_MY), FO_PPTX_EMU(CELL_MY), lines[0], lines[1], lines[2],
                     lines[3], fill);
    m->tail_len = n > 0 && (size_t)n < sizeof m->tail ? (size_t)n : 0;
}

/* The row markup of kind and band for tb's size and theme: made at its
 * first row and kept for the table (rows of a kind differ in their text
 * only); NULL when out of memory (the table fails). */
static const cell_markup *cached_markup(tbl *tb, int kind, bool band)
{
    cell_markup **m = &tb->mk[kind][band];
    if (!*m && (*m = fo_malloc(sizeof **m))) row_markup(*m, tb->p->t, tb->p->doc->lang, tb->sz, kind, band);
    if (!*m) fo_pptx_fail(tb->p, FO_ERR_NOMEM, NULL, "out of memory");
    return *m;
}

/* A run's properties (fo_pptx_rpr at the table's size, no link) as markup,
 * by bold and colour: a table's cells share a handful, and writing them
 * through the XML writer cost ~2,500 instructions a cell. */
typedef struct run_props {
    bool bold;
    fo_rgb color;
    char *markup;
    size_t len;
} run_props;

/* Writes fo_pptx_rpr(p, tb->sz, bold, color, NULL) from the table's cache,
 * making the entry once: written into a scratch writer (<r>...</r>) and
 * kept without the declaration and the wrapper. */
static void cached_rpr(tbl *tb, bool bold, fo_rgb color)
{
    fo_pptx *p = tb->p;
    for (size_t i = 0; i < tb->nrp; i++)
        if (tb->rp[i].bold == bold && tb->rp[i].color == color) {
            fo_xml_raw(p->x, tb->rp[i].markup, tb->rp[i].len);
            return;
        }
    fo_xml *s = fo_xml_new_memory(), *main = p->x;
    size_t len = 0;
    const char *mem = NULL;
    if (s) {
        fo_xml_open(s, "r", NULL);
        p->x = s;
        fo_pptx_rpr(p, tb->sz, bold ? FO_RUN_BOLD : 0, color, NULL);
        p->x = main;
        fo_xml_close(s);
        mem = fo_xml_memory(s, &len);
    }
    const char *open = mem ? strstr(mem, "<r>") : NULL;
    const char *close = open ? strstr(open, "</r>") : NULL;
    char *copy = close ? fo_strndup(open + 3, (size_t)(close - open - 3)) : NULL;
    fo_xml_free(s);
    if (!copy || !fo_grow((void **)&tb->rp, &tb->caprp, tb->nrp + 1, 8, sizeof *tb->rp)) {
        fo_free(copy);
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    tb->rp[tb->nrp] = (run_props){bold, color, copy, strlen(copy)};
    fo_xml_raw(p->x, copy, tb->rp[tb->nrp].len);
    tb->nrp++;
}

static long *cell_colors(const tbl *tb, char *const *cells);
static bool *cell_right(const tbl *tb, char *const *cells);

/* kind: 0 header, 1 body, 2 totals (those two from new_cells: with colours);
 * style: a body row's (trow.style). */
static void write_row(tbl *tb, char *const *cells, double h, int kind, int style)
{
    fo_pptx *p = tb->p;
    fo_xml *x = p->x;
    const fo_theme *t = p->t;
    bool band = kind == 1 && t->table.banding && (tb->band++ % 2 == 1);
    const cell_markup *mk = cached_markup(tb, kind, band);
    if (!mk) return;
    fo_xml_open(x, "a:tr", NULL);
    fo_xml_attr_int(x, "h", FO_PPTX_EMU(h));
    for (size_t j = 0; j < tb->ncols; j++) {
        int r = kind == 0 ? tb->col[tb->map[j]].right : cell_right(tb, cells)[j];
        /* text that reads right to left: rtl="1", from the right edge */
        if (cells[j] && fo_table_text_rtl(cells[j], strlen(cells[j]))) r = 2;
        fo_xml_open(x, "a:tc", NULL);
        if (j == 0 && style >> 1 && r != 2 && tb->map[0] == 0) {  /* the first column indented */
            char head[256];
            int n = snprintf(head, sizeof head,
                             "<a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:pPr algn=\"%s\" marL=\"%lld\"><a:lnSpc>"
                             "<a:spcPts val=\"%ld\"/></a:lnSpc></a:pPr>", r ? "r" : "l",
                             FO_PPTX_EMU(tb->sz * (style >> 1)), lround(fo_pptx_line_h(tb->sz) * 100));
            fo_xml_raw(x, head, n > 0 && (size_t)n < sizeof head ? (size_t)n : 0);
        } else {
            fo_xml_raw(x, mk->head[r], mk->head_len[r]);
        }
        if (cells[j] && *cells[j]) {
            fo_xml_open(x, "a:r", NULL);
            long ink = kind == 0 ? -1 : cell_colors(tb, cells)[j];
            cached_rpr(tb, kind != 1 || (style & 1),
                       kind == 0  ? t->table.header_text
                       : ink >= 0 ? (fo_rgb)ink
                                  : t->text);
            fo_xml_text_elem(x, "a:t", cells[j]);
            fo_xml_close(x);
        }
        fo_xml_raw(x, mk->tail, mk->tail_len);
        fo_xml_close(x); /* a:tc */
    }
    fo_xml_close(x);
}

static void chunk_clear(tbl *tb)
{
    for (size_t i = 0; i < tb->nchunk; i++) {
        for (size_t j = 0; j < tb->ncols; j++) fo_free(tb->chunk[i].cells[j]);
        fo_free(tb->chunk[i].cells);
    }
    tb->nchunk = 0;
    tb->chunk_h = 0;
}

/* Writes the header plus the gathered rows as one table at the cursor. */
static void emit(tbl *tb, char **header, size_t total_row)
{
    fo_pptx *p = tb->p;
    fo_xml *x = p->x;
    if (!x || p->err) { chunk_clear(tb); return; }
    double h = tb->header_h + tb->chunk_h, w = 0;
    for (size_t j = 0; j < tb->ncols; j++) w += tb->width[j];
    bool rtl = fo_table_rtl(p->doc, tb->b);
    /* a mirrored table sits against the right edge, its first column rightmost */
    double left = rtl && w < p->g.cw ? p->g.x + p->g.cw - w : p->g.x;
    fo_pptx_frame_begin(p, "Table", NULL, left, p->y, w, h);
    fo_xml_open(x, "a:graphic", NULL);
    fo_xml_open(x, "a:graphicData", "uri", "http://schemas.openxmlformats.org/drawingml/2006/table",
                NULL);
    fo_xml_open(x, "a:tbl", NULL);
    fo_xml_leaf(x, "a:tblPr", "rtl", rtl ? "1" : NULL, "firstRow", "1", "bandRow",
                p->t->table.banding ? "1" : NULL, NULL);
    fo_xml_open(x, "a:tblGrid", NULL);
    for (size_t j = 0; j < tb->ncols; j++) fo_pptx_leaf_int(x, "a:gridCol", "w", FO_PPTX_EMU(tb->width[j]));
    fo_xml_close(x);
    write_row(tb, header, tb->header_h, 0, 0);
    tb->band = 0;
    for (size_t i = 0; i < tb->nchunk; i++)
        write_row(tb, tb->chunk[i].cells, tb->chunk[i].h,
                  i == total_row ? 2 : 1, tb->chunk[i].style);
    fo_xml_close(x); /* a:tbl */
    fo_xml_close(x); /* a:graphicData */
    fo_xml_close(x); /* a:graphic */
    fo_xml_close(x); /* p:graphicFrame */
    p->y += h + FO_PPTX_GAP;
    p->has_content = true;
    chunk_clear(tb);
}

/* Adds a row of height h (measure_rows's) to the chunk, first emitting the
 * chunk on this slide and opening a "(cont.)" slide where the plan starts
 * one (or when the row would not fit). Takes cells. */
static void add_row(tbl *tb, char **header, char **cells, double h, bool total, int style)
{
    fo_pptx *p = tb->p;
    bool planned = tb->next_slide < tb->nslides && tb->placed == tb->starts[tb->next_slide];
    if (planned) tb->next_slide++;
    tb->placed++;
    /* where the plan starts a slide; and, as a safeguard, never across the
     * slide's bottom */
    bool over = p->y + tb->header_h + tb->chunk_h + h > p->g.body_bottom;
    if (tb->nchunk && (planned || over)) {
        /* a totals row never goes alone to a "(cont.)" slide: the last
         * body row goes with it (the plan keeps this rule already) */
        trow carried = {0};
        if (total && !planned && tb->nchunk > 1) {
            carried = tb->chunk[--tb->nchunk];
            tb->chunk_h -= carried.h;
        }
        emit(tb, header, SIZE_MAX);
        fo_pptx_slide_end(p);
        fo_pptx_open_flow_slide(p);
        if (carried.cells) { /* capchunk > 0: it held this row */
            tb->chunk[tb->nchunk++] = carried;
            tb->chunk_h += carried.h;
        }
    }
    if (!fo_grow((void **)&tb->chunk, &tb->capchunk, tb->nchunk + 1, 32, sizeof *tb->chunk)) {
        for (size_t j = 0; j < tb->ncols; j++) fo_free(cells[j]);
        fo_free(cells);
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    tb->chunk[tb->nchunk++] = (trow){cells, h, style};
    tb->chunk_h += h;
}

/* A body or totals row's cells: ncols strings, followed in the same block
 * by ncols colours (cell_colors) a number format gives them ([Red]; -1:
 * the text's own), then ncols alignments (cell_right: right-aligned). */
static char **new_cells(tbl *tb)
{
    char **c = fo_calloc(tb->ncols, sizeof *c + sizeof(long) + sizeof(bool));
    if (!c) {
        fo_pptx_fail(tb->p, FO_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    for (size_t j = 0; j < tb->ncols; j++) ((long *)(c + tb->ncols))[j] = -1;
    return c;
}

static long *cell_colors(const tbl *tb, char *const *cells)
{
    return (long *)(cells + tb->ncols);
}

static bool *cell_right(const tbl *tb, char *const *cells)
{
    return (bool *)(cell_colors(tb, cells) + tb->ncols);
}

static void free_cells(const tbl *tb, char **cells)
{
    if (!cells) return;
    for (size_t j = 0; j < tb->ncols; j++) fo_free(cells[j]);
    fo_free(cells);
}

/* A body row's cells (new_cells) as displayed, with their colours and
 * alignment; NULL after running out of memory (failed). */
static char **body_cells(tbl *tb, const fo_value *row)
{
    const fo_block *b = tb->b;
    char buf[2048];
    char **cells = new_cells(tb);
    if (!cells) return NULL;
    for (size_t i = 0; i < tb->ncols; i++) {
        size_t j = tb->map[i];
        const fo_value *v = &row[b->u.table.cols[j].field];
        cells[i] = fo_strdup(cell_text(tb, j, v, buf, sizeof buf, &cell_right(tb, cells)[i]));
        cell_colors(tb, cells)[i] = fo_value_color(v, tb->col[j].fmt);
    }
    return cells;
}

/* The totals row's cells, like body_cells. */
static char **total_cells(tbl *tb)
{
    fo_pptx *p = tb->p;
    char buf[2048];
    char **cells = new_cells(tb);
    if (!cells) return NULL;
    for (size_t i = 0; i < tb->ncols; i++) {
        size_t j = tb->map[i];
        const fo_table_col *c = &tb->b->u.table.cols[j];
        bool has;
        double v;
        size_t n = fo_table_total_text(p->doc->lang, &tb->acc[j], c->total, j, tb->col[j].fmt, buf, sizeof buf, &has);
        if (c->total != FO_TOTAL_COUNT && fo_table_total(&tb->acc[j], c->total, &v))
            cell_colors(tb, cells)[i] = fo_numfmt_color(tb->col[j].fmt, v);
        cell_right(tb, cells)[i] = fo_col_plan_cell_right(&tb->col[j], has, n < sizeof buf ? n : sizeof buf - 1);
        cells[i] = fo_strdup(buf);
    }
    return cells;
}

/* A body row's "row_styles" as trow.style. */
static int body_style(const tbl *tb, size_t i)
{
    const fo_row_style *rs = fo_table_row_style(tb->b, i);
    return rs ? (rs->bold ? 1 : 0) | rs->indent << 1 : 0;
}

/* Frees the cells measure_rows kept that fill has not handed on. */
static void drop_kept(tbl *tb)
{
    for (size_t i = 0; i < tb->nrh; i++) {
        free_cells(tb, tb->rc[i]);
        tb->rc[i] = NULL;
    }
    tb->nrh = 0;
}

/* Pass 2: the cells and heights of the rows the group shows (at most
 * SHOWN_ROWS), the totals row last, into tb->rc and tb->rh; tb->cut when
 * rows are left out. */
static bool measure_rows(tbl *tb)
{
    fo_pptx *p = tb->p;
    fo_rows *rows = NULL;
    if (fo_rows_open_kept(tb->b->u.table.data, tb->keep, &rows, p->d) != FO_OK) return false;
    const fo_value *row;
    int rc;
    tb->nrh = 0;
    while (!p->err && (rc = fo_rows_next(rows, &row, p->d)) == 1) {
        if (tb->nrh == SHOWN_ROWS) { tb->cut = true; rc = 0; break; }
        char **cells = body_cells(tb, row);
        if (!cells) break;
        tb->rh[tb->nrh] = row_height(tb, cells, body_style(tb, tb->nrh) & 1);
        tb->rc[tb->nrh++] = cells;
    }
    fo_rows_close(rows);
    if (p->err || rc != 0) return false;
    if (tb->b->u.table.has_totals) {
        char **cells = total_cells(tb);
        if (!cells) return false;
        tb->rh[tb->nrh] = row_height(tb, cells, true);
        tb->rc[tb->nrh++] = cells;
    }
    return true;
}

/* ---- the plan ---------------------------------------------------------------- */

typedef struct {
    const double *sum;  /* sum[j]: height of rows 0..j-1 (n + 1 entries) */
    size_t n;
    double first, room; /* room for rows on the first slide, on the others */
    double tail;        /* less on the last slide: what goes under the table there */
    bool totals;        /* the last row is a totals row */
} plan_in;

/* Rows j..j+c-1 fit a slide with room cap; one row always does (a row
 * taller than a slide goes alone). Strict by a hair, so that add_row's
 * own bottom check never disagrees. */
static bool plan_fits(const plan_in *in, size_t j, size_t c, double cap)
{
    return c == 1 || in->sum[j + c] - in->sum[j] <= cap - 1e-6;
}

/* can[i * (n + 1) + j]: rows j.. fill slides i..k-1 exactly, each holding
 * lo..hi rows that fit, the totals row not alone on a "(cont.)" slide.
 * Returns can[0]: whether k slides can hold the rows so. */
static bool plan_can(const plan_in *in, size_t k, size_t lo, size_t hi, unsigned char *can)
{
    size_t n = in->n, w = n + 1;
    memset(can, 0, (k + 1) * w);
    can[k * w + n] = 1;
    for (size_t i = k; i-- > 0;) {
        double cap = (i ? in->room : in->first) - (i == k - 1 ? in->tail : 0);
        for (size_t j = 0; j < n; j++)
            for (size_t c = lo; c <= hi && j + c <= n && plan_fits(in, j, c, cap); c++) {
                if (i == k - 1 && i > 0 && c == 1 && in->totals) continue;
                if (can[(i + 1) * w + j + c]) { can[i * w + j] = 1; break; }
            }
    }
    return can[0];
}

/* The greedy split's slide count (tail aside): a lower bound of any split's. */
static size_t plan_greedy(const plan_in *in)
{
    size_t k = 0;
    for (size_t j = 0, c; j < in->n; j += c, k++)
        for (c = 1; j + c < in->n && plan_fits(in, j, c + 1, k ? in->room : in->first);) c++;
    return k;
}

/* Where each slide of the table starts (row indices, the totals row
 * last), for rows of heights h[0..n): as few slides as the rows need --
 * the first with room `first` (the table may start below other content),
 * the others `room`, the last `tail` less -- and of the splits into that
 * many, the one whose
 * row counts differ least: the largest count as small as it can be, then
 * the smallest as large; earlier slides take the spare rows (9, 8, 8). A
 * row taller than a slide goes alone; a totals row never alone on a
 * "(cont.)" slide. Returns the slide count k (start[0..k)), or 0 when it
 * finds none (out of memory: rows then go where they fit). */
static size_t plan_slides(const double *h, size_t n, double first, double room, double tail,
                          bool totals, size_t *start)
{
    if (n == 0) return 0;
    double *sum = fo_malloc((n + 1) * sizeof *sum);
    if (!sum) return 0;
    sum[0] = 0;
    for (size_t j = 0; j < n; j++) sum[j + 1] = sum[j] + h[j];
    plan_in in = {sum, n, first, room, tail, totals};
    size_t k = plan_greedy(&in);
    unsigned char *can = NULL;
    for (; k <= n; k++) { /* one more than greedy, at most, for the totals rule */
        fo_free(can);
        can = fo_malloc((k + 1) * (n + 1));
        if (!can || plan_can(&in, k, 1, n, can)) break;
    }
    if (!can || k > n) { fo_free(can); fo_free(sum); return 0; }
    size_t lo = (n + k - 1) / k, hi = n; /* smallest feasible largest count */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan_can(&in, k, 1, mid, can)) hi = mid;
        else lo = mid + 1;
    }
    size_t most = lo;
    lo = 1, hi = n / k < most ? n / k : most; /* then the largest feasible smallest */
    while (lo < hi) {
        size_t mid = hi - (hi - lo) / 2;
        if (plan_can(&in, k, mid, most, can)) lo = mid;
        else hi = mid - 1;
    }
    size_t least = lo, w = n + 1;
    plan_can(&in, k, least, most, can);
    for (size_t i = 0, j = 0; i < k; i++) {
        start[i] = j;
        size_t take = 0;
        double cap = (i ? room : first) - (i == k - 1 ? tail : 0);
        for (size_t c = least; c <= most && j + c <= n && plan_fits(&in, j, c, cap); c++) {
            if (i == k - 1 && i > 0 && c == 1 && totals) continue;
            if (can[(i + 1) * w + j + c]) take = c;
        }
        j += take;
    }
    fo_free(can);
    fo_free(sum);
    return k;
}

/* Pass 3: rows into chunks, a slide each where the plan starts one; then
 * the totals row. */
/* Pass 3: plans the slides for the kept rows and places them, the totals
 * row last. */
static void place_rows(tbl *tb, char **header)
{
    const fo_block *b = tb->b;
    fo_pptx *p = tb->p;
    double room = p->g.body_bottom - p->g.body_y - tb->header_h;
    double note = tb->cut ? FO_PPTX_GAP + fo_pptx_line_h(12) + 2 * FO_PPTX_INS_Y : 0; /* cut_note */
    tb->nslides = plan_slides(tb->rh, tb->nrh, p->g.body_bottom - p->y - tb->header_h, room, note,
                              b->u.table.has_totals, tb->starts);
    tb->next_slide = 1; /* the first starts here */
    tb->placed = 0;
    size_t body = tb->nrh - (b->u.table.has_totals ? 1 : 0);
    size_t total_row = SIZE_MAX;
    for (size_t i = 0; i < tb->nrh && !p->err; i++) {
        char **cells = tb->rc[i];
        tb->rc[i] = NULL;
        bool total = i == body;
        add_row(tb, header, cells, tb->rh[i], total, total ? 0 : body_style(tb, i));
        if (total) total_row = tb->nchunk - 1;
    }
    tb->shown = body;
    if (tb->nchunk && !p->err) emit(tb, header, total_row);
}

/* Passes 2 and 3 for the group; false when its rows could not be read. */
static bool fill(tbl *tb, char **header)
{
    bool ok = measure_rows(tb);
    if (ok) place_rows(tb, header);
    drop_kept(tb);
    return ok;
}
/* Below a table cut at SHOWN_ROWS: how much of it the deck shows. */
static void cut_note(fo_pptx *p, size_t shown, size_t total)
{
    char text[512];
    fo_table_cut_note(p->doc->lang, shown, total, text, sizeof text);
    fo_pptx_para note;
    if (!fo_pptx_para_init(&note, FO_PPTX_PARA_PLAIN, 0, 12, text, false)) {
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    note.color = p->t->muted;
    fo_pptx_need(p, fo_pptx_line_h(12) + 2 * FO_PPTX_INS_Y, false);
    fo_pptx_flow_para(p, &note);
}

/* Above a column group: which columns it shows. */
static void group_note(fo_pptx *p, const size_t *ends, size_t g, size_t n, double keep_h)
{
    char text[512];
    fo_table_group_note(p->doc->lang, ends, g, n, text, sizeof text);
    fo_pptx_para note;
    if (!fo_pptx_para_init(&note, FO_PPTX_PARA_PLAIN, 0, 12, text, false)) {
        fo_pptx_fail(p, FO_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    note.color = p->t->muted;
    fo_pptx_need(p, fo_pptx_line_h(12) + 2 * FO_PPTX_INS_Y + keep_h, false);
    fo_pptx_flow_para(p, &note);
}

/* The caption above the table, kept on the slide where the table starts. */
static void caption(fo_pptx *p, const fo_block *b, double first)
{
    fo_pptx_need(p, first + fo_pptx_line_h(14) + FO_PPTX_GAP + 3 * FO_PPTX_INS_Y, false);
    fo_pptx_para cap;
    if (fo_pptx_para_init(&cap, FO_PPTX_PARA_PLAIN, 0, 14, b->u.table.caption, true)) {
        cap.color = p->t->muted;
        fo_pptx_flow_para(p, &cap);
    }
}

/* One column group: header, rows over as many slides as they need, totals. */
static void write_group(tbl *tb, char **header, const size_t *ends, size_t g, size_t ngroups)
{
    fo_pptx *p = tb->p;
    const fo_block *b = tb->b;
    size_t n = b->u.table.ncols;
    tb->ncols = fo_table_group_cols(ends, g, tb->map);
    for (size_t i = 0; i < tb->ncols; i++) header[i] = b->u.table.cols[tb->map[i]].title;
    fit_widths(tb, p->g.cw);
    tb->header_h = row_height(tb, header, true);
    double line = fo_pptx_line_h(tb->sz) + 2 * CELL_MY;
    size_t rows = b->u.table.data->nrows + b->u.table.has_totals;
    double first = tb->header_h + (rows < MIN_ROWS ? (double)rows : MIN_ROWS) * line;
    if (g > 0) { /* each group on slides of its own */
        fo_pptx_slide_end(p);
        fo_pptx_open_flow_slide(p);
    } else if (tb->own_title) { /* what caption, note and first rows need */
        double cap = b->u.table.caption ? fo_pptx_line_h(14) + FO_PPTX_GAP + 3 * FO_PPTX_INS_Y : 0;
        double note = ngroups > 1 ? fo_pptx_line_h(12) + 2 * FO_PPTX_INS_Y + FO_PPTX_GAP : 0;
        fo_pptx_own_title(p, first + cap + note);
    }
    if (g == 0 && b->u.table.caption) caption(p, b, first);
    if (ngroups > 1) group_note(p, ends, g, n, first);
    fo_pptx_need(p, first, false);
    tb->cut = false;
    if (!fill(tb, header) && !p->err) fo_pptx_fail(p, FO_ERR_INPUT, b, "reading the table's data failed");
    if (tb->cut && !p->err) cut_note(p, tb->shown, b->u.table.data->nrows);
}

/* The title of the table's slides when no section heading gives one: the
 * heading right before it (pptx.c leaves it out of the flow for this), else
 * its caption, else its dataset's name. Set as the section, unused yet. */
static void own_title(fo_pptx *p, const fo_block *b)
{
    const fo_block *prev = b > p->doc->blocks ? b - 1 : NULL;
    const char *src = b->u.table.data->name;
    if (prev && prev->kind == FO_BLOCK_HEADING && prev->u.heading.level > 1 && prev->u.heading.text &&
        *prev->u.heading.text)
        src = prev->u.heading.text;
    else if (b->u.table.caption && *b->u.table.caption) src = b->u.table.caption;
    char *plain = src == b->u.table.data->name ? NULL : fo_markup_plain(src);
    snprintf(p->section_buf, sizeof p->section_buf, "%s", plain ? plain : src ? src : "");
    fo_free(plain);
    p->section = p->section_buf;
    p->section_used = false;
}

void fo_pptx_table(fo_pptx *p, const fo_block *b)
{
    if (p->err) return;
    size_t n = b->u.table.ncols;
    tbl tb = {.p = p, .b = b, .ncols = n, .sz = FO_PPTX_TABLE_SZ};
    char **header = NULL;
    size_t *ends = NULL;
    double *mn = NULL;
    if (n == 0 || !b->u.table.data) return;
    /* a table with no section heading over it brings its own title, for
     * its slides only: what follows it is not "(cont.)" of the table */
    const char *section = p->section;
    bool section_used = p->section_used, own = !section || !*section;
    if (own) own_title(p, b);
    tb.own_title = own;
    tb.col = fo_col_plan_new(b->u.table.cols, n);
    tb.width = fo_calloc(n, sizeof *tb.width);
    tb.acc = fo_calloc(n, sizeof *tb.acc);
    tb.w = fo_calloc(n, sizeof *tb.w);
    tb.map = fo_calloc(n, sizeof *tb.map);
    header = fo_calloc(n, sizeof *header);
    ends = fo_calloc(n, sizeof *ends);
    mn = fo_calloc(n, sizeof *mn);
    tb.rh = fo_calloc(SHOWN_ROWS + 1, sizeof *tb.rh);
    tb.rc = fo_calloc(SHOWN_ROWS + 1, sizeof *tb.rc);
    tb.starts = fo_calloc(SHOWN_ROWS + 1, sizeof *tb.starts);
    if (!tb.rh || !tb.rc || !tb.starts || !tb.col || !tb.width || !tb.acc || !tb.w || !tb.map || !header ||
        !ends || !mn) {
        fo_pptx_fail(p, FO_ERR_NOMEM, b, "out of memory");
        goto cleanup;
    }
    if (!scan(&tb)) {
        fo_pptx_fail(p, FO_ERR_INPUT, b, "reading the table's data failed");
        goto cleanup;
    }
    /* the one rule (render/core/table.h): smaller, then column groups */
    fo_table_plan plan;
    for (size_t j = 0; j < n; j++) mn[j] = tb.w[j].minimum;
    fo_table_plan_fit(mn, n, PAD, p->g.cw, 0, MIN_SZ / FO_PPTX_TABLE_SZ, &plan, ends);
    for (size_t j = 0; j < n; j++) tb.w[j].minimum = mn[j];
    tb.sz = FO_PPTX_TABLE_SZ * plan.scale;
    tb.keep = plan.ngroups > 1 ? fo_rows_keep_new(b->u.table.data) : NULL;
    for (size_t g = 0; g < plan.ngroups && !p->err; g++) write_group(&tb, header, ends, g, plan.ngroups);

cleanup:
    for (size_t k = 0; k < 3; k++) {
        fo_free(tb.mk[k][0]);
        fo_free(tb.mk[k][1]);
    }
    for (size_t i = 0; i < tb.nrp; i++) fo_free(tb.rp[i].markup);
    fo_free(tb.rp);
    fo_rows_keep_free(tb.keep);
    chunk_clear(&tb);
    fo_free(tb.chunk);
    fo_col_plan_free(tb.col, n);
    fo_free(tb.width);
    fo_free(tb.acc);
    fo_free(tb.w);
    fo_free(tb.map);
    fo_free(header);
    fo_free(ends);
    fo_free(mn);
    fo_free(tb.rh);
    fo_free(tb.rc);
    fo_free(tb.starts);
    if (own) {
        p->section = section;
        p->section_used = section_used;
    }
}
