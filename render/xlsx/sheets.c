/* sheets.c — one table onto its own sheet(s): bold frozen header, autofilter,
 * native number formats, typed cells, live totals, fitted column widths.
 *
 * Rows stream from fo_rows straight into libxlsxwriter in row order (what
 * constant_memory mode requires). Per column we keep only formats, a width
 * and the totals accumulators, so memory does not grow with the table.
 * A table longer than a sheet continues on "Name (2)", "Name (3)"..., each
 * with its own header; the totals row goes under the last part and sums
 * every part. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/core/words.h"
#include "base/buf.h"
#include "render/core/numfmt.h"
#include "render/core/table.h"
#include "render/xlsx/xlsx_internal.h"

#define DATA_ROWS_PER_SHEET (FO_XLSX_MAX_ROWS - 1) /* row 0 is the header */
#define MAX_FORMULA_CHARS 8192u
#define MAX_CELL_ERRORS 10

typedef struct {
    lxw_format *cell, *url, *total;
    lxw_format *wrap;         /* cell, wrapped: long or multi-line text */
    lxw_format *boolean;      /* booleans: the cell format, or TRUE/FALSE for General */
    const fo_col_plan *plan;  /* the column's format (for widths: its displayed
                                 text) and whether it shows dates (render/core/table.h) */
    fo_table_width w;         /* widest displayed value seen (sampled rows), in
                                 Excel's character units (render/core/table.h) */
    fo_table_acc acc;         /* the totals row's cached values (render/core/table.h) */
} colstate;

typedef struct {
    fo_xlsx *x;
    const fo_dataset *ds;
    const fo_table_col *cols;
    size_t ncols;
    colstate *cs;
    fo_col_plan *plan;        /* ncols entries: what cs[j].plan points to */
    lxw_format *head, *date_fb, *datetime_fb, *total_label;
    lxw_worksheet **ws;       /* one per part */
    size_t *part_rows;        /* data rows per part */
    size_t nparts;
    size_t parts_cap;         /* ws and part_rows allocated */
    size_t urls;              /* hyperlinks on the current part */
    size_t row;               /* 1-based data row, for messages */
    size_t line;              /* CSV: its line in the file */
    double lines;             /* most text lines of a wrapped cell in the current row */
    int nerrors;
    int style;                /* the current row's (styled_format), 0: plain */
    fo_status st;
    /* folio writes the rows itself (body.c) when x->bodies is set: */
    fo_xlsx_body *body;       /* the current part's rows */
    char (*colname)[8];       /* ncols: "A", "B", ... */
    char rn[FO_XLSX_NUM_CAP]; /* the current row's number, as text */
    unsigned char *rtl;       /* ncols: the row's text in that column reads right to left
                                 (row_lines, so that it is looked at once) */
    size_t rnl;
    bool row_open;      /* its <row> is written */
    lxw_row_t last_row; /* the last row with a cell, on the current part */
} table;

size_t fo_xlsx_parts_for(size_t nrows, bool totals)
{
    size_t parts = nrows ? (nrows + DATA_ROWS_PER_SHEET - 1) / DATA_ROWS_PER_SHEET : 1;
    if (totals && nrows && nrows % DATA_ROWS_PER_SHEET == 0) parts++;
    return parts;
}

const char *fo_xlsx__ds_file(const fo_xlsx *x, const fo_dataset *ds)
{
    if (x->doc->spec_path) return x->doc->spec_path;
    return ds->csv_display ? ds->csv_display : ds->csv_path;
}

/* ---- formats ----------------------------------------------------------------*/

/* A text that reads right to left (fo_table_text_rtl) gets readingOrder 2. */
static bool reads_rtl(const char *s)
{
    return fo_table_text_rtl(s, strlen(s));
}

static lxw_format *base_format(fo_xlsx *x)
{
    lxw_format *f = workbook_add_format(x->wb);
    if (!f) return NULL;
    format_set_font_name(f, x->th->body.family);
    format_set_font_size(f, x->th->body_size);
    format_set_font_color(f, fo_xlsx_color(x->th->text));
    return f;
}

/* The shared format for role and number format code (NULL/"General" =
 * none); NULL when out of memory. */
/* The shared format of role with number format code; style (a styled row:
 * 1 bold, plus indent levels * 2) adds bold and an indent. */
static lxw_format *styled_format(fo_xlsx *x, int role, const char *code, int style)
{
    if (code && strcmp(code, "General") == 0) code = NULL;
    for (size_t i = 0; i < x->nfmts; i++)
        if (x->fmts[i].role == role && x->fmts[i].style == style &&
            (code ? x->fmts[i].code && strcmp(x->fmts[i].code, code) == 0 : !x->fmts[i].code))
            return x->fmts[i].f;
    if (!fo_grow((void **)&x->fmts, &x->fmtcap, x->nfmts + 1, 16, sizeof *x->fmts)) return NULL;
    char *copy = code ? fo_strdup(code) : NULL;
    lxw_format *f = (code && !copy) ? NULL : base_format(x);
    if (!f) { fo_free(copy); return NULL; }
    const fo_theme *th = x->th;
    switch (role) {
    case FO_XLSX_FMT_URL:
        format_set_font_color(f, fo_xlsx_color(th->link));
        format_set_underline(f, LXW_UNDERLINE_SINGLE);
        break;
    case FO_XLSX_FMT_HEAD_RTL:
        format_set_reading_order(f, 2);
        /* fall through */
    case FO_XLSX_FMT_HEAD:
        format_set_bold(f);
        format_set_font_color(f, fo_xlsx_color(th->table.header_text));
        format_set_bg_color(f, fo_xlsx_color(th->table.header_fill));
        format_set_bottom(f, LXW_BORDER_THIN);
        format_set_bottom_color(f, fo_xlsx_color(th->table.border));
        break;
    case FO_XLSX_FMT_TOTAL:
    case FO_XLSX_FMT_TOTAL_LABEL:
        format_set_bold(f);
        format_set_top(f, LXW_BORDER_THIN);
        break;
    case FO_XLSX_FMT_WRAP:
        format_set_text_wrap(f);
        format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
        break;
    case FO_XLSX_FMT_CELL_RTL:
        format_set_reading_order(f, 2);
        break;
    default:
        break;
    }
    if (code) format_set_num_format(f, code);
    if (style & 1) format_set_bold(f);
    if (style >> 1) format_set_indent(f, (uint8_t)(style >> 1));
    x->fmts[x->nfmts++] = (fo_xlsx_fmt){.role = role, .style = style, .code = copy, .f = f};
    return f;
}

static lxw_format *table_format(fo_xlsx *x, int role, const char *code)
{
    return styled_format(x, role, code, 0);
}

static fo_status make_formats(table *t)
{
    fo_xlsx *x = t->x;
    if (!(t->head = table_format(x, FO_XLSX_FMT_HEAD, NULL)) ||
        !(t->date_fb = table_format(x, FO_XLSX_FMT_CELL, "yyyy-mm-dd")) ||
        !(t->datetime_fb = table_format(x, FO_XLSX_FMT_CELL, "yyyy-mm-dd hh:mm:ss")) ||
        !(t->total_label = table_format(x, FO_XLSX_FMT_TOTAL_LABEL, NULL)))
        return FO_ERR_NOMEM;
    for (size_t j = 0; j < t->ncols; j++) {
        colstate *c = &t->cs[j];
        const fo_table_col *tc = &t->cols[j];
        const char *total_code = tc->total == FO_TOTAL_COUNT ? FO_TABLE_COUNT_FORMAT : tc->format;
        if (!(c->cell = table_format(x, FO_XLSX_FMT_CELL, tc->format)) ||
            !(c->wrap = table_format(x, FO_XLSX_FMT_WRAP, tc->format)) ||
            !(c->url = table_format(x, FO_XLSX_FMT_URL, NULL)) ||
            !(c->total = table_format(x, FO_XLSX_FMT_TOTAL, total_code)))
            return FO_ERR_NOMEM;
        /* Excel shows a boolean as TRUE/FALSE whatever the format; LibreOffice
         * shows 1/0 under General unless the format spells the words out. */
        c->boolean = c->cell;
        if ((!tc->format || strcmp(tc->format, "General") == 0) &&
            !(c->boolean = table_format(x, FO_XLSX_FMT_CELL, "\"TRUE\";\"TRUE\";\"FALSE\"")))
            return FO_ERR_NOMEM;
        c->plan = &t->plan[j];
    }
    return FO_OK;
}

/* ---- parts ------------------------------------------------------------------*/

static void body_failed(table *t);

/* The rows of the current part are all written: its dimension is the
 * last row with a cell (libxlsxwriter's own count stops at the header),
 * and its stream is finished. */
static void end_part(table *t)
{
    if (!t->body) return;
    lxw_worksheet *w = t->ws[t->nparts - 1];
    if (t->last_row > w->dim_rowmax) w->dim_rowmax = t->last_row;
    fo_xlsx_body *b = t->body;
    if (fo_xlsx__body_done(t->x, b) != 0) body_failed(t);
    t->body = NULL;
}

static lxw_worksheet *open_part(table *t, fo_xlsx_table *ft)
{
    fo_xlsx *x = t->x;
    end_part(t);
    if (t->st != FO_OK) return NULL;
    size_t k = t->nparts;
    if (k >= ft->nparts) { /* more rows than planned: name one more part now */
        char want[FO_XLSX_NAME_CAP + 16];
        snprintf(want, sizeof want, "%s (%zu)", ft->parts[0], k + 1);
        if (!fo_grow((void **)&ft->parts, &ft->parts_cap, k + 1, 1, sizeof *ft->parts)) {
            t->st = FO_ERR_NOMEM;
            return NULL;
        }
        ft->nparts = k + 1;
        if ((t->st = fo_xlsx_sheet_name(&x->names, want, ft->parts[k])) != FO_OK) return NULL;
    }
    if (!fo_grow_all(&t->parts_cap, k + 1, 4, 2, (void **const[]){(void **)&t->ws, (void **)&t->part_rows},
                     (const size_t[]){sizeof *t->ws, sizeof *t->part_rows})) {
        t->st = FO_ERR_NOMEM;
        return NULL;
    }
    lxw_worksheet *w = workbook_add_worksheet(x->wb, ft->parts[k]);
    if (!w) {
        fo_diags_add(x->d, NULL, 0, 0, t->ds->pointer, NULL,
                     "cannot add sheet \"%s\" to the workbook", ft->parts[k]);
        t->st = FO_ERR_INTERNAL;
        return NULL;
    }
    if (t->colname && !(t->body = fo_xlsx__body_for(x, w))) {
        t->st = FO_ERR_NOMEM;
        return NULL;
    }
    t->last_row = 0;
    t->ws[k] = w;
    t->part_rows[k] = 0;
    t->nparts = k + 1;
    t->urls = 0;
    /* header row: a title that reads right to left is laid out from the right */
    for (size_t j = 0; j < t->ncols; j++) {
        const char *title = t->plan[j].title;
        lxw_format *f = reads_rtl(title) ? table_format(x, FO_XLSX_FMT_HEAD_RTL, NULL) : t->head;
        const char *s = fo_xlsx_clean(&x->buf, title, strlen(title), FO_XLSX_CELL);
        if (!s || !f) { t->st = FO_ERR_NOMEM; return NULL; }
        worksheet_write_string(w, 0, (lxw_col_t)j, s, f);
        /* libxlsxwriter numbers a format's style when it writes the first
           cell with it: the header's first, as when it writes every row */
        if (t->body) (void)lxw_format_get_xf_index(f);
    }
    if (t->ncols) worksheet_freeze_panes(w, 1, 0);
    /* a right-to-left table's sheet reads from the right, column A rightmost */
    const fo_block *b = ft->block;
    if (b && b->kind == FO_BLOCK_TABLE ? fo_table_rtl(x->doc, b) : x->doc->rtl) worksheet_right_to_left(w);
    return w;
}

/* ---- cells ------------------------------------------------------------------*/

static void cell_error(table *t, size_t j, const char *what, size_t n, const char *limit,
                       const char *hint)
{
    fo_xlsx *x = t->x;
    const char *file;
    int line, col;
    char ptr[512];
    fo_cell_locate(x->doc, t->ds, t->row - 1, t->cols[j].field, t->line, &file, &line, &col, ptr, sizeof ptr);
    if (t->nerrors++ < MAX_CELL_ERRORS)
        fo_diags_add(x->d, file, line, col, ptr[0] ? ptr : NULL, hint,
                     "row %zu, column \"%s\": %s of %zu characters exceeds Excel's %s limit",
                     t->row, t->ds->cols[t->cols[j].field].name, what, n, limit);
    t->st = FO_ERR_INPUT;
}

/* Checks a text against the cell limit; false (reported) when over. */
static bool fits_cell(table *t, size_t j, const char *s, size_t len)
{
    if (len <= FO_XLSX_MAX_CELL_CHARS) return true;
    size_t n = fo_xlsx_char_count(s, len);
    if (n <= FO_XLSX_MAX_CELL_CHARS) return true;
    cell_error(t, j, "text", n, "32,767-character cell",
               "shorten the text or split it over several columns");
    return false;
}

/* Widths in Excel's own unit, a character (fo_table_measure): a sheet's
 * column widths are counted in characters of its font, so this is the
 * measure that matches what Excel shows. */
static double excel_units(void *ctx, bool bold, const char *s, size_t n)
{
    (void)ctx;
    (void)bold; /* the header's bold is allowed for by fo_xlsx_fit_width */
    return fo_xlsx_text_width(s, n);
}

/* Widens column c for a text (whole: a number, never wrapped). */
static void widen(colstate *c, const char *s, size_t n, bool whole)
{
    fo_table_width_add(&c->w, excel_units, NULL, false, whole, s, n);
}

/* Widens column c for number v as f shows it. */
static void widen_num(colstate *c, double v, lxw_format *f, const table *t)
{
    char buf[128];
    size_t n;
    if (f == t->date_fb) n = (size_t)snprintf(buf, sizeof buf, "yyyy-mm-dd");
    else if (f == t->datetime_fb) n = (size_t)snprintf(buf, sizeof buf, "yyyy-mm-dd hh:mm:ss");
    else n = fo_numfmt_format(c->plan->fmt, v, buf, sizeof buf);
    widen(c, buf, n < sizeof buf ? n : sizeof buf - 1, true);
}

/* Widens number column c for its smallest and largest number of every row,
 * not only the sampled ones: a number wider than its column shows as
 * "########" in Excel. Under a format with fixed decimals (#,##0.00, 0%)
 * these are its widest texts, as a count of characters, the unit Excel's
 * widths are in; it costs nothing per row (the totals' accumulator keeps
 * them). A date column's dates are about as wide as each other. */
static void widen_extremes(const table *t, colstate *c)
{
    if (c->acc.nnum == 0 || !c->plan->right || c->plan->is_date) return;
    widen_num(c, c->acc.min, c->cell, t);
    widen_num(c, c->acc.max, c->cell, t);
}

/* Lines a text takes in a column at the width cap: each of its own lines
 * wrapped at FO_XLSX_WIDTH_MAX characters' width. 1 means it needs no wrap. */
static double text_lines(const char *s, size_t len)
{
    /* a text is never wider than its bytes (wide characters take 3 or 4) */
    if (len <= FO_XLSX_WIDTH_MAX && !memchr(s, '\n', len)) return 1;
    double lines = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '\n') continue;
        double wd = fo_xlsx_text_width(s + start, i - start);
        lines += wd > FO_XLSX_WIDTH_MAX ? ceil(wd / FO_XLSX_WIDTH_MAX) : 1;
        start = i + 1;
    }
    return lines;
}

/* The most lines a text of the row takes (see write_text), for folio's
 * own <row>, which comes before its cells. */
static double row_lines(table *t, const fo_value *row)
{
    double most = 0;
    for (size_t j = 0; j < t->ncols; j++) {
        const fo_value *v = &row[t->cols[j].field];
        t->rtl[j] = v->kind == FO_VAL_TEXT && reads_rtl(v->str ? v->str : "");
        if (v->kind != FO_VAL_TEXT || !v->str || t->rtl[j]) continue;
        double l = text_lines(v->str, strlen(v->str));
        if (l > most) most = l;
    }
    return most;
}

/* The row's height for its tallest wrapped cell (Excel does not grow a row
 * when a file is opened): 15 pt a line at 11 pt, at most Excel's 409 pt. */
static void fit_row(table *t, lxw_worksheet *w, lxw_row_t r)
{
    if (t->lines <= 1) return;
    double h = t->lines * 15.0 * t->x->th->body_size / 11.0;
    worksheet_set_row(w, r, h > 409 ? 409 : h, NULL);
    t->lines = 0;
}

/* The column's cell format, or for text whose first strong character reads
 * right to left the shared readingOrder 2 format (Excel then lays it out
 * from the right); NULL when out of memory (recorded). */
static lxw_format *text_format(table *t, const colstate *c, const char *s)
{
    if (t->body ? !t->rtl[c - t->cs] : !reads_rtl(s)) return c->cell;
    lxw_format *f = styled_format(t->x, FO_XLSX_FMT_CELL_RTL, NULL, c == t->cs ? t->style : t->style & 1);
    if (!f) t->st = FO_ERR_NOMEM;
    return f;
}

/* ---- folio's own rows (body.c) ----------------------------------------------*/

/* Records why the rows' stream stopped: past the output ceiling, or a
 * write that failed. */
static void body_failed(table *t)
{
    fo_xlsx *x = t->x;
    if (t->st != FO_OK) return;
    int e = fo_xlsx_body_error(t->body);
    if (e == EFBIG) {
        fo_diags_add(x->d, NULL, 0, 0, NULL, "split the data, drop columns, or raise --max-bytes",
                     "%s: the xlsx output passed the ceiling of %llu bytes while being written "
                     "(its rows alone, by row %zu); stopped there, nothing written",
                     x->dest, (unsigned long long)x->max_bytes, t->row);
        t->st = FO_ERR_CEILING;
        return;
    }
    fo_diags_add(x->d, NULL, 0, 0, NULL, "check the free space of $TMPDIR (else /tmp)",
                 "%s: cannot write the sheet's rows to a temporary file: %s", x->dest, strerror(e ? e : EIO));
    t->st = FO_ERR_IO;
}

static int xf_of(lxw_format *f) { return f ? (int)lxw_format_get_xf_index(f) : 0; }

/* Starts the current row's <row> before its first cell (a row without
 * cells is not written, as libxlsxwriter does): with the height of its
 * tallest wrapped cell (t->lines, from row_lines), as fit_row sets it. */
static bool open_row(table *t, lxw_row_t r)
{
    t->last_row = r;
    if (t->row_open) return true;
    double h = 0;
    if (t->lines > 1) {
        h = t->lines * 15.0 * t->x->th->body_size / 11.0;
        if (h > 409) h = 409;
    }
    if (!fo_xlsx_body_row(t->body, t->rn, t->rnl, h)) {
        body_failed(t);
        return false;
    }
    t->row_open = true;
    return true;
}

static void body_text(table *t, lxw_row_t r, size_t j, const char *s, size_t len, lxw_format *f)
{
    if (open_row(t, r) && !fo_xlsx_body_text(t->body, t->colname[j], t->rn, t->rnl, xf_of(f), s, len))
        body_failed(t);
}

static void body_number(table *t, lxw_row_t r, size_t j, double v, lxw_format *f)
{
    if (open_row(t, r) && !fo_xlsx_body_number(t->body, t->colname[j], t->rn, t->rnl, xf_of(f), v))
        body_failed(t);
}

static void body_bool(table *t, lxw_row_t r, size_t j, bool v, lxw_format *f)
{
    if (open_row(t, r) && !fo_xlsx_body_bool(t->body, t->colname[j], t->rn, t->rnl, xf_of(f), v))
        body_failed(t);
}

static void write_text(table *t, lxw_worksheet *w, lxw_row_t r, size_t j, const char *s,
                       lxw_format *f, bool sample)
{
    size_t len = strlen(s);
    if (!fits_cell(t, j, s, len) || t->nerrors) return;
    const char *clean = fo_xlsx_clean(&t->x->buf, s, len, FO_XLSX_CELL);
    if (!clean) { t->st = FO_ERR_NOMEM; return; }
    double lines = f == t->cs[j].cell ? text_lines(s, len) : 1;
    if (lines > 1) {
        f = t->cs[j].wrap;
        if (lines > t->lines) t->lines = lines;
    }
    if (t->body) body_text(t, r, j, clean, clean == s ? len : strlen(clean), f);
    else worksheet_write_string(w, r, (lxw_col_t)j, clean, f);
    if (sample) widen(&t->cs[j], s, len, false);
}

static void write_num(table *t, lxw_worksheet *w, lxw_row_t r, size_t j, double v,
                      lxw_format *f, bool sample)
{
    colstate *c = &t->cs[j];
    if (!isfinite(v)) { /* Excel has no NaN/Inf: show what Excel shows for them */
        write_text(t, w, r, j, "#NUM!", f, sample);
        return;
    }
    if (t->body) body_number(t, r, j, v, f);
    else worksheet_write_number(w, r, (lxw_col_t)j, v, f);
    if (sample) widen_num(c, v, f, t);
}

static void write_cell(table *t, lxw_worksheet *w, lxw_row_t r, size_t j, const fo_value *v,
                       bool sample)
{
    colstate *c = &t->cs[j];
    if (v->kind == FO_VAL_NULL) return;
    if (t->body && (v->kind == FO_VAL_FORMULA || v->kind == FO_VAL_URL)) { /* fo_xlsx_rows_eligible */
        fo_diags_add(t->x->d, NULL, 0, 0, t->ds->pointer, NULL,
                     "a link or formula in a table written without libxlsxwriter");
        t->st = FO_ERR_INTERNAL;
        return;
    }
    fo_table_acc_add(&c->acc, v);
    switch (v->kind) {
    case FO_VAL_NULL:
        break;
    case FO_VAL_TEXT: {
        const char *str = v->str ? v->str : "";
        lxw_format *tf = text_format(t, c, str);
        if (tf) write_text(t, w, r, j, str, tf, sample);
        return;
    }
    case FO_VAL_NUMBER:
        write_num(t, w, r, j, v->num, c->cell, sample);
        break;
    case FO_VAL_DATE: {
        lxw_format *f = c->plan->is_date ? c->cell : v->num != floor(v->num) ? t->datetime_fb : t->date_fb;
        write_num(t, w, r, j, v->num, f, sample);
        break;
    }
    case FO_VAL_BOOL:
        if (t->body) body_bool(t, r, j, v->num != 0, c->boolean);
        else worksheet_write_boolean(w, r, (lxw_col_t)j, v->num != 0, c->boolean);
        if (sample) widen(c, "FALSE", 5, true);
        return;
    case FO_VAL_FORMULA: {
        const char *src = v->str ? v->str : "";
        size_t len = strlen(src);
        if (len > MAX_FORMULA_CHARS) {
            cell_error(t, j, "formula", fo_xlsx_char_count(src, len), "8,192-character formula",
                       "compute the value in the analysis and write the number");
            return;
        }
        const char *f = fo_xlsx_clean(&t->x->buf, src, len, FO_XLSX_PLAIN);
        if (!f) { t->st = FO_ERR_NOMEM; return; }
        if (v->has_num && isfinite(v->num)) {
            worksheet_write_formula_num(w, r, (lxw_col_t)j, f, c->cell, v->num);
            if (sample) widen_num(c, v->num, c->cell, t);
            break;
        }
        const char *label = v->label ? v->label : "";
        const char *l = fo_xlsx_clean(&t->x->buf2, label, strlen(label), FO_XLSX_CELL);
        if (!l) { t->st = FO_ERR_NOMEM; return; }
        worksheet_write_formula_str(w, r, (lxw_col_t)j, f, c->cell, l);
        if (sample) widen(c, label, strlen(label), false);
        return;
    }
    case FO_VAL_URL: {
        const char *url = v->str ? v->str : "";
        const char *label = v->label ? v->label : url;
        size_t ll = strlen(label);
        if (!fits_cell(t, j, label, ll) || t->nerrors) return;
        const char *l = fo_xlsx_clean(&t->x->buf2, label, ll, FO_XLSX_CELL);
        if (!l) { t->st = FO_ERR_NOMEM; return; }
        /* Excel allows 65,530 links a sheet and 2,079-character URLs: past
         * either, or for a scheme Excel would treat as a local file, the
         * label stays as plain text. */
        bool linked = false;
        if (t->urls < FO_XLSX_MAX_URLS && fo_xlsx_url_allowed(url) &&
            strlen(url) <= FO_XLSX_MAX_URL_CHARS && !memchr(url, '\n', strlen(url))) {
            const char *u = fo_xlsx_clean(&t->x->buf, url, strlen(url), FO_XLSX_PLAIN);
            if (!u) { t->st = FO_ERR_NOMEM; return; }
            linked = worksheet_write_url_opt(w, r, (lxw_col_t)j, u, c->url, l, NULL) == LXW_NO_ERROR;
            if (linked) t->urls++;
        }
        if (!linked) worksheet_write_string(w, r, (lxw_col_t)j, l, c->cell);
        if (sample) widen(c, label, ll, false);
        return;
    }
    }
}

/* ---- totals -----------------------------------------------------------------*/

static const char *total_function(fo_total k)
{
    switch (k) {
    case FO_TOTAL_SUM: return "SUM";
    case FO_TOTAL_AVG: return "AVERAGE";
    case FO_TOTAL_MIN: return "MIN";
    case FO_TOTAL_MAX: return "MAX";
    case FO_TOTAL_COUNT: return "COUNTA";
    case FO_TOTAL_NONE:
    default: return NULL;
    }
}

/* Writes the totals row at row r of the last part: =SUM(C2:C101) on one
 * sheet, =SUM('Sales'!C2:C1048576,'Sales (2)'!C2:C20) across parts. */
static void write_totals(table *t, fo_xlsx_table *ft, lxw_row_t r)
{
    lxw_worksheet *w = t->ws[t->nparts - 1];
    if (t->ncols && t->cols[0].total == FO_TOTAL_NONE)
        worksheet_write_string(w, r, 0, fo_word(t->x->doc->lang, FO_W_TOTAL), t->total_label);
    for (size_t j = 0; j < t->ncols; j++) {
        const char *fn = total_function(t->cols[j].total);
        colstate *c = &t->cs[j];
        if (!fn) {
            if (j > 0) worksheet_write_blank(w, r, (lxw_col_t)j, t->total_label);
            continue;
        }
        char col[12], formula[MAX_FORMULA_CHARS + 64];
        lxw_col_to_name(col, (lxw_col_t)j, 0);
        size_t n = (size_t)snprintf(formula, sizeof formula, "=%s(", fn);
        bool any = false;
        for (size_t p = 0; p < t->nparts && n < MAX_FORMULA_CHARS; p++) {
            if (!t->part_rows[p]) continue;
            char ref[FO_XLSX_NAME_CAP * 2 + 4] = "";
            if (p != t->nparts - 1) fo_xlsx_sheet_ref(ft->parts[p], ref, sizeof ref);
            n += (size_t)snprintf(formula + n, sizeof formula - n, "%s%s%s2:%s%zu",
                                  any ? "," : "", ref, col, col, t->part_rows[p] + 1);
            any = true;
        }
        if (!any || n >= MAX_FORMULA_CHARS) { /* no data rows: nothing to total */
            worksheet_write_blank(w, r, (lxw_col_t)j, c->total);
            continue;
        }
        snprintf(formula + n, sizeof formula - n, ")");
        double v;
        if (c->acc.err && t->cols[j].total != FO_TOTAL_COUNT) { /* Excel's total of an error is it */
            worksheet_write_formula_str(w, r, (lxw_col_t)j, formula, c->total, c->acc.err);
            continue;
        }
        if (!fo_table_total(&c->acc, t->cols[j].total, &v)) { /* AVERAGE/MIN/MAX of no numbers */
            worksheet_write_blank(w, r, (lxw_col_t)j, c->total);
            continue;
        }
        worksheet_write_formula_num(w, r, (lxw_col_t)j, formula, c->total, v);
        widen_num(c, v, c->total, t);
    }
}

/* ---- the table ----------------------------------------------------------------*/

double fo_xlsx_columns_pt(const double *w, size_t n)
{
    double px = 0;
    for (size_t j = 0; j < n; j++) px += floor(w[j] * 7 + 5);
    return px * 0.75;
}

double fo_xlsx_page_setup(const fo_theme *th, lxw_worksheet *w, double width_pt, bool may_turn)
{
    double pw = th->page.width, ph = th->page.height;
    if (pw > ph) { double tmp = pw; pw = ph; ph = tmp; }   /* portrait first */
    if (pw <= 0) { pw = 595.28; ph = 841.89; }
    double ml = th->page.margin_left, mr = th->page.margin_right;
    double mt = th->page.margin_top, mb = th->page.margin_bottom;
    bool landscape = th->page.landscape || (may_turn && width_pt > pw - ml - mr);
    if (landscape) { double tmp = pw; pw = ph; ph = tmp; }
    worksheet_set_paper(w, strcmp(th->page.size, "Letter") == 0 ? 1 : 9);
    if (landscape) worksheet_set_landscape(w);
    else worksheet_set_portrait(w);
    worksheet_set_margins(w, ml / 72, mr / 72, mt / 72, mb / 72);
    worksheet_fit_to_pages(w, 1, 0);
    double avail = pw - ml - mr, high = ph - mt - mb;
    /* Excel's fit: a whole percent, never above 100 */
    double scale = width_pt > avail && width_pt > 0 ? floor(avail / width_pt * 100) / 100 : 1;
    if (scale < 0.1) scale = 0.1;
    return high / scale;
}

/* Widths, autofilter and print setup of every part: one page wide, the
 * header row repeated on every page, the print area the table (with its
 * totals row on the last part). */
static void finish(table *t, bool totals)
{
    double *wd = fo_calloc(t->ncols ? t->ncols : 1, sizeof *wd);
    if (!wd) { t->st = FO_ERR_NOMEM; return; }
    for (size_t j = 0; j < t->ncols; j++) {
        const char *title = t->plan[j].title;
        widen_extremes(t, &t->cs[j]);
        wd[j] = fo_xlsx_fit_width(fo_xlsx_text_width(title, strlen(title)), t->cs[j].w.natural);
    }
    for (size_t p = 0; p < t->nparts; p++) {
        lxw_worksheet *w = t->ws[p];
        if (!t->ncols) continue;
        lxw_row_t last = (lxw_row_t)(t->part_rows[p] ? t->part_rows[p] : 1);
        worksheet_autofilter(w, 0, 0, last, (lxw_col_t)(t->ncols - 1));
        for (size_t j = 0; j < t->ncols; j++) worksheet_set_column(w, (lxw_col_t)j, (lxw_col_t)j, wd[j], NULL);
        lxw_row_t end = (lxw_row_t)t->part_rows[p] + (totals && p + 1 == t->nparts ? 1 : 0);
        worksheet_print_area(w, 0, 0, end, (lxw_col_t)(t->ncols - 1));
        worksheet_repeat_rows(w, 0, 0);
        fo_xlsx_page_setup(t->x->th, w, fo_xlsx_columns_pt(wd, t->ncols), true);
    }
    fo_free(wd);
}

/* The formats a row of style rs is written with (bold everywhere, the
 * indent in the first column), swapped with the columns' own in t and
 * keep (ncols * 4 + 2 entries); calling it again with the same keep swaps
 * them back. */
static void swap_row_formats(table *t, lxw_format **keep)
{
    for (size_t j = 0; j < t->ncols; j++) {
        lxw_format **f[4] = {&t->cs[j].cell, &t->cs[j].wrap, &t->cs[j].url, &t->cs[j].boolean};
        for (int k = 0; k < 4; k++) {
            lxw_format *tmp = *f[k];
            *f[k] = keep[j * 4 + k];
            keep[j * 4 + k] = tmp;
        }
    }
    lxw_format *tmp = t->date_fb;
    t->date_fb = keep[t->ncols * 4];
    keep[t->ncols * 4] = tmp;
    tmp = t->datetime_fb;
    t->datetime_fb = keep[t->ncols * 4 + 1];
    keep[t->ncols * 4 + 1] = tmp;
}

/* Fills keep with the formats of style (see styled_format) for every
 * column; false when out of memory. */
static bool row_formats(table *t, int style, lxw_format **keep)
{
    fo_xlsx *x = t->x;
    for (size_t j = 0; j < t->ncols; j++) {
        const char *code = t->cols[j].format;
        int s = j == 0 ? style : style & 1;
        bool general = !code || strcmp(code, "General") == 0;
        if (!(keep[j * 4] = styled_format(x, FO_XLSX_FMT_CELL, code, s)) ||
            !(keep[j * 4 + 1] = styled_format(x, FO_XLSX_FMT_WRAP, code, s)) ||
            !(keep[j * 4 + 2] = styled_format(x, FO_XLSX_FMT_URL, NULL, s)) ||
            !(keep[j * 4 + 3] = general ? styled_format(x, FO_XLSX_FMT_CELL, "\"TRUE\";\"TRUE\";\"FALSE\"", s)
                                        : keep[j * 4]))
            return false;
    }
    return (keep[t->ncols * 4] = styled_format(x, FO_XLSX_FMT_CELL, "yyyy-mm-dd", style & 1)) &&
           (keep[t->ncols * 4 + 1] = styled_format(x, FO_XLSX_FMT_CELL, "yyyy-mm-dd hh:mm:ss", style & 1));
}

fo_status fo_xlsx_write_table(fo_xlsx *x, const fo_dataset *ds, const fo_table_col *cols,
                              size_t ncols, bool totals, fo_xlsx_table *ft)
{
    table t = {.x = x, .ds = ds, .cols = cols, .ncols = ncols, .st = FO_OK};
    fo_rows *rows = NULL;
    lxw_format **keep = NULL;   /* a styled row's formats (swap_row_formats) */
    if (ncols > FO_XLSX_MAX_COLS) {
        fo_diags_add(x->d, fo_xlsx__ds_file(x, ds), 0, 0, ds->pointer,
                     "pick fewer columns in the table block, or split the data",
                     "%zu columns exceed Excel's limit of 16,384 columns a sheet", ncols);
        return FO_ERR_INPUT;
    }
    if (!(t.cs = fo_calloc(ncols ? ncols : 1, sizeof *t.cs)) || (ncols && !(t.plan = fo_col_plan_new(cols, ncols)))) {
        t.st = FO_ERR_NOMEM;
        goto cleanup;
    }
    if ((t.st = make_formats(&t)) != FO_OK) goto cleanup;
    if (x->fast && fo_xlsx_rows_eligible(x, ds, cols, ncols)) {
        if (!(t.colname = fo_calloc(ncols, sizeof *t.colname)) || !(t.rtl = fo_calloc(ncols, 1))) {
            t.st = FO_ERR_NOMEM;
            goto cleanup;
        }
        for (size_t j = 0; j < ncols; j++) lxw_col_to_name(t.colname[j], (lxw_col_t)j, 0);
    }
    if (!(keep = fo_calloc(ncols * 4 + 2, sizeof *keep))) { t.st = FO_ERR_NOMEM; goto cleanup; }
    if ((t.st = fo_rows_open(ds, &rows, x->d)) != FO_OK) goto cleanup;
    lxw_worksheet *w = open_part(&t, ft);
    if (!w) goto cleanup;

    const fo_value *row;
    size_t total_rows = 0;
    lxw_row_t r = 1;
    int rc;
    while ((rc = fo_rows_next(rows, &row, x->d)) == 1) {
        if (r == FO_XLSX_MAX_ROWS) {
            if (!(w = open_part(&t, ft))) goto cleanup;
            r = 1;
        }
        t.row = total_rows + 1;
        t.line = fo_rows_line(rows);
        bool sample = total_rows < FO_XLSX_WIDTH_SAMPLE;
        const fo_row_style *rs = fo_table_row_style(ft->block, total_rows);
        t.style = rs ? (rs->bold ? 1 : 0) | rs->indent << 1 : 0;
        if (t.style) {
            if (!row_formats(&t, t.style, keep)) { t.st = FO_ERR_NOMEM; goto cleanup; }
            swap_row_formats(&t, keep);
        }
        if (t.body) {
            t.rnl = fo_xlsx_num(t.rn, (double)r + 1);
            t.row_open = false;
            t.lines = row_lines(&t, row);
        }
        for (size_t j = 0; j < ncols; j++) write_cell(&t, w, r, j, &row[cols[j].field], sample);
        if (t.style) swap_row_formats(&t, keep);
        if (!t.body) fit_row(&t, w, r);
        else {
            if (t.row_open && !fo_xlsx_body_row_end(t.body)) body_failed(&t);
            t.lines = 0;
            if (t.st != FO_OK && t.st != FO_ERR_INPUT) goto cleanup; /* a cell error goes on to the next */
        }
        if (t.st == FO_ERR_NOMEM) goto cleanup;
        if (t.nerrors >= MAX_CELL_ERRORS) break;
        t.part_rows[t.nparts - 1]++;
        total_rows++;
        r++;
    }
    if (rc < 0 && t.st == FO_OK) t.st = FO_ERR_INPUT;
    if (t.st == FO_OK) end_part(&t);
    if (t.st != FO_OK) goto cleanup;
    if (totals) {
        if (r == FO_XLSX_MAX_ROWS) {
            if (!(w = open_part(&t, ft))) goto cleanup;
            r = 1;
        }
        write_totals(&t, ft, r);
        end_part(&t); /* a part of the totals row alone */
    }
    finish(&t, totals);
    if (t.st != FO_OK) goto cleanup;
    ft->rows_written = total_rows;
cleanup:
    fo_rows_close(rows);
    fo_col_plan_free(t.plan, ncols);
    fo_free(t.cs);
    fo_free(keep);
    fo_free(t.ws);
    fo_free(t.part_rows);
    fo_free(t.colname);
    fo_free(t.rtl);
    return t.st;
}
