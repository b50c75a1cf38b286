/* table.c — PDF tables: content-based column widths, wrapped cells, numbers
 * right-aligned and shown through numfmt, the header repeated on every page,
 * banding, a totals row and a caption.
 *
 * Column widths follow render/core/table.h: the header and the first SAMPLE
 * rows are measured, and the numbers of every row, which never break (a
 * pass over the rows that formats each number and measures the few that
 * may be the widest; with totals it computes them too, so a wide sum is
 * measured as well), then the table is planned once: set
 * smaller down to MIN_SIZE, then on landscape pages, then in column groups
 * that repeat the first column, each under a note. Each group streams the
 * rows again from fo_rows, formatted, drawn and forgotten, so a 100k-row
 * CSV never sits in memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "render/core/table.h"
#include "render/pdf/pdf_int.h"

#define SAMPLE 60
#define MIN_SIZE 7.0   /* pt: a wide table is set no smaller (docs/spec.md) */
#define PAD_X 4.0
#define PAD_Y 2.6
#define MAX_CELL_LINES 64

typedef struct {
    double w;            /* column width, pt */
    const fo_col_plan *plan; /* format and alignment (render/core/table.h) */
    fo_total total;
    fo_table_acc acc;    /* totals (render/core/table.h) */
} tcol;

typedef struct {
    fo_pdf *c;
    const fo_block *b;
    tcol *cols;           /* every column of the block */
    fo_col_plan *plan;    /* ... and their plan (render/core/table.h) */
    size_t ncols;         /* columns drawn now (the current group) */
    size_t *map;          /* the group's i-th column: index into cols */
    fo_pdf_font *fr, *fb; /* body regular, bold */
    double size, lh;
    size_t row;           /* body rows drawn, for banding */
    bool rtl;             /* mirrored: the first column on the right (fo_table_rtl) */
    fo_rows_keep *keep;   /* rows kept for the next column group (NULL: one group) */
    /* scratch, ncols entries each (heap: a table may be very wide) */
    size_t *nlines, *lst, *lln; /* lst/lln: MAX_CELL_LINES per column */
    const char **texts, **htexts;
    size_t *lens, *hlens;
    char *tmp;            /* TMP bytes per column */
    long *colors;         /* the row's cell colours from their formats ([Red]); -1: none */
    bool *right;          /* the body or totals row's cells right-aligned (fo_col_plan_cell_right) */
    const fo_row_style *style; /* the body row being drawn: "row_styles" (NULL: plain) */
} table;

#define TMP 256

/* The text of a cell: borrowed from the value, or formatted into tmp;
 * *right when it is right-aligned (fo_col_plan_cell_right). */
static const char *cell_text(const fo_value *v, const tcol *col, char *tmp, size_t cap,
                             size_t *len, bool *right)
{
    bool numeric;
    const char *s = fo_value_text(v, col->plan->fmt, tmp, cap, len, &numeric);
    *right = fo_col_plan_cell_right(col->plan, numeric, *len);
    return s;
}

enum { ROW_HEADER, ROW_BODY, ROW_TOTAL };

static void draw_row(table *T, const char *const *texts, const size_t *lens, int kind);
#define ST(i) (T->lst + (i) * MAX_CELL_LINES)
#define LN(i) (T->lln + (i) * MAX_CELL_LINES)
#define COL(i) (&T->cols[T->map[i]])

static void draw_header(table *T)
{
    for (size_t i = 0; i < T->ncols; i++) {
        T->htexts[i] = COL(i)->plan->title;
        T->hlens[i] = strlen(T->htexts[i]);
    }
    draw_row(T, T->htexts, T->hlens, ROW_HEADER);
}

/* Wraps every cell of a row into T's scratch lines; returns the most lines. */
/* How far cell i of the row being drawn is indented: a styled row's first
 * column, a font size a level. */
static double indent_of(const table *T, size_t i, int kind)
{
    return kind == ROW_BODY && T->style && T->map[i] == 0 ? T->style->indent * T->size : 0;
}

/* Cell i of a body or totals row holds a number (right-aligned, not empty). */
static bool whole_number(const table *T, size_t i, int kind, const char *text, size_t len)
{
    return kind != ROW_HEADER && T->right[i] && text && len > 0;
}

static size_t measure_row(table *T, const char *const *texts, const size_t *lens,
                          fo_pdf_font *f, int kind)
{
    fo_pdf *c = T->c;
    size_t *nlines = T->nlines, most = 1;
    for (size_t i = 0; i < T->ncols; i++) {
        double avail = COL(i)->w - 2 * PAD_X - indent_of(T, i, kind);
        /* a number is never broken across lines: one wider than its column
           (widths come from the first SAMPLE rows) is set smaller instead */
        if ((whole_number(T, i, kind, texts[i], lens[i]) ||
             fo_pdf_text_width(c, f, T->size, texts[i], lens[i]) <= avail) &&
            !memchr(texts[i], '\n', lens[i])) {
            nlines[i] = 1; ST(i)[0] = 0; LN(i)[0] = lens[i];
        } else {
            nlines[i] = fo_pdf_wrap_plain(c, f, T->size, texts[i], lens[i], avail,
                                          ST(i), LN(i), MAX_CELL_LINES);
            if (nlines[i] > MAX_CELL_LINES) nlines[i] = MAX_CELL_LINES;
        }
        if (nlines[i] > most) most = nlines[i];
    }
    return most;
}

static void draw_row(table *T, const char *const *texts, const size_t *lens, int kind)
{
    fo_pdf *c = T->c;
    const fo_theme *t = c->t;
    size_t n = T->ncols;
    fo_pdf_font *f = kind == ROW_BODY && !(T->style && T->style->bold) ? T->fr : T->fb;
    size_t *nlines = T->nlines;
    size_t most = measure_row(T, texts, lens, f, kind);
    double h = most * T->lh + 2 * PAD_Y;
    if (kind != ROW_HEADER && !c->fresh && c->y - h < c->bottom) {
        fo_pdf_new_page(c);
        draw_header(T);
        most = measure_row(T, texts, lens, f, kind);  /* the header used the scratch */
        h = most * T->lh + 2 * PAD_Y;
    }
    if (c->st != FO_OK) return;
    HPDF_Page p = c->page;
    bool fill = kind == ROW_HEADER || (kind == ROW_BODY && t->table.banding && T->row % 2 == 1);
    if (fill) {
        fo_pdf_fill_rgb(p, kind == ROW_HEADER ? t->table.header_fill : t->table.band_fill);
        HPDF_Page_Rectangle(p, fo_pdf_q(c->left), fo_pdf_q(c->y - h), fo_pdf_q(c->width),
                            fo_pdf_q(h));
        HPDF_Page_Fill(p);
    }
    if (kind == ROW_TOTAL || (kind == ROW_BODY && !t->table.banding)) {
        fo_pdf_stroke_rgb(p, t->table.border);
        HPDF_Page_SetLineWidth(p, kind == ROW_TOTAL ? 0.9 : 0.4);
        double ly = kind == ROW_TOTAL ? c->y : c->y - h;
        HPDF_Page_MoveTo(p, fo_pdf_q(c->left), fo_pdf_q(ly));
        HPDF_Page_LineTo(p, fo_pdf_q(c->right), fo_pdf_q(ly));
        HPDF_Page_Stroke(p);
    }
    fo_rgb color = kind == ROW_HEADER ? t->table.header_text : t->text;
    double x = T->rtl ? c->right : c->left;  /* a mirrored table runs from the right margin */
    double base0 = c->y - PAD_Y - T->lh + (T->lh - T->size) * 0.5 + T->size * 0.22;
    HPDF_Page_BeginText(p);  /* one text object for the whole row */
    for (size_t i = 0; i < n; i++) {
        double base = base0;
        if (T->rtl) x -= COL(i)->w;
        /* the cell's direction, from its first strong character, for every
           line it wraps into */
        fo_dir dir = texts[i] ? fo_shape_direction(texts[i], lens[i]) : FO_DIR_AUTO;
        for (size_t k = 0; k < nlines[i]; k++, base -= T->lh) {
            const char *s = texts[i] + ST(i)[k];
            double ind = indent_of(T, i, kind), tx = x + PAD_X + ind, sz = T->size;
            /* numbers, and text that reads right to left, hug the right edge;
               a number wider than its column (kept whole by measure_row) is
               set smaller to fit it */
            if ((kind == ROW_HEADER ? COL(i)->plan->right : T->right[i]) || dir == FO_DIR_RTL) {
                double w = fo_pdf_text_width(c, f, T->size, s, LN(i)[k]);
                double avail = COL(i)->w - 2 * PAD_X - ind;
                if (whole_number(T, i, kind, s, LN(i)[k]) && w > avail && avail > 0) {
                    sz = T->size * avail / w;
                    w = avail;
                }
                tx = x + COL(i)->w - PAD_X - ind - w;
            }
            fo_rgb ink = kind != ROW_HEADER && T->colors[i] >= 0 ? (fo_rgb)T->colors[i] : color;
            fo_pdf_text_draw_dir(c, f, sz, ink, tx, base, s, LN(i)[k], dir);
        }
        if (!T->rtl) x += COL(i)->w;
    }
    HPDF_Page_EndText(p);
    c->fresh = false;
    c->y -= h;
    if (kind == ROW_BODY) T->row++;
}

/* True when the spec's max_pages is reached and the page has no room for
 * one more row besides a totals row and the note: the table stops here. */
static bool at_page_limit(const table *T)
{
    const fo_pdf *c = T->c;
    int limit = c->doc->max_pages;
    if (!limit || c->npages < (size_t)limit) return false;
    return c->y - 3 * (T->lh + 2 * PAD_Y) < c->bottom;
}

/* Below a table cut at the page limit: how much of it the PDF shows. */
static void cut_note(fo_pdf *c, size_t shown, size_t total)
{
    char text[512];
    fo_table_cut_note(c->doc->lang, shown, total, text, sizeof text);
    const fo_theme *t = c->t;
    fo_pdf_style st = {&t->body, t->body_size * 0.9, t->muted, FO_PDF_ITALIC};
    c->y -= 2;
    fo_pdf_markup(c, text, false, &st, c->left, c->width, t->body_size * 1.3);
}

/* The caption stays with the header and the first rows (keep_h). */
static void caption(fo_pdf *c, const char *text, double keep_h)
{
    const fo_theme *t = c->t;
    fo_pdf_style st = {&t->body, t->body_size * 0.95, t->muted, FO_PDF_ITALIC};
    fo_pdf_need(c, t->body_size * 1.4 + keep_h);
    fo_pdf_markup(c, text, true, &st, c->left, c->width, t->body_size * 1.35);
    c->y -= 2;
}

/* Widths measured with the glyphs the PDF embeds (fo_table_measure). */
static double measure_text(void *ctx, bool bold, const char *s, size_t n)
{
    const table *T = ctx;
    return fo_pdf_text_width(T->c, bold ? T->fb : T->fr, T->size, s, n);
}

/* The header and the first SAMPLE rows widen w (at T->size); every later
 * row widens it for its numbers only (fo_col_plan_widen_number): a number
 * is never broken, so its column must hold the widest one wherever it
 * stands, while a long text wraps. With totals they are accumulated on the
 * way and measured too. */
static bool measure(table *T, fo_table_width *w)
{
    const fo_block *b = T->b;
    const fo_table_col *cols = b->u.table.cols;
    size_t n = b->u.table.ncols;
    for (size_t i = 0; i < n; i++) fo_col_plan_widen_head(&T->plan[i], &w[i], measure_text, T);
    fo_rows *rows = NULL;
    if (fo_rows_open(b->u.table.data, &rows, T->c->d) != FO_OK) return false;
    const fo_value *row;
    int r; /* 0: at the end; -1: error */
    bool totals = b->u.table.has_totals;
    fo_table_advances adv;
    fo_table_advances_init(&adv);
    for (size_t nrow = 0; (r = fo_rows_next(rows, &row, T->c->d)) == 1; nrow++)
        for (size_t i = 0; i < n; i++) {
            const fo_value *v = &row[cols[i].field];
            if (totals) fo_table_acc_add(&T->cols[i].acc, v);
            if (nrow < SAMPLE) fo_col_plan_widen(&T->plan[i], &w[i], measure_text, T, v, T->tmp, TMP);
            else fo_col_plan_widen_number(&T->plan[i], &w[i], measure_text, T, &adv, v, T->tmp, TMP);
        }
    fo_rows_close(rows);
    for (size_t i = 0; i < n && totals && r == 0; i++)
        fo_col_plan_widen_total(&T->plan[i], &w[i], measure_text, T, T->c->doc->lang, &T->cols[i].acc,
                                T->cols[i].total, i, T->tmp, TMP);
    return r >= 0;
}

/* The widths and totals of the last table measured: the headings before a
 * table ask whether it turns the page (fo_pdf_table_turns), which measures
 * it, and measuring reads every row, so the table itself takes them from
 * here instead of reading its rows once more. */
struct fo_pdf_measured {
    const fo_block *b;
    fo_table_width *w;
    fo_table_acc *acc;
};

void fo_pdf_table_forget(fo_pdf *c)
{
    struct fo_pdf_measured *m = c->measured;
    if (!m) return;
    fo_free(m->w);
    fo_free(m->acc);
    fo_free(m);
    c->measured = NULL;
}

/* Keeps T's widths w and totals for the next layout of the same block;
 * out of memory, keeps nothing (that layout measures again). */
static void remember(table *T, const fo_table_width *w)
{
    fo_pdf *c = T->c;
    size_t n = T->b->u.table.ncols;
    fo_pdf_table_forget(c);
    struct fo_pdf_measured *m = fo_calloc(1, sizeof *m);
    if (!m || !(m->w = fo_calloc(n, sizeof *m->w)) || !(m->acc = fo_calloc(n, sizeof *m->acc))) {
        c->measured = m;
        fo_pdf_table_forget(c);
        return;
    }
    m->b = T->b;
    memcpy(m->w, w, n * sizeof *w);
    for (size_t i = 0; i < n; i++) m->acc[i] = T->cols[i].acc;
    c->measured = m;
}

/* measure, or what the last layout of the same block measured. */
static bool measure_once(table *T, fo_table_width *w)
{
    const struct fo_pdf_measured *m = T->c->measured;
    size_t n = T->b->u.table.ncols;
    if (m && m->b == T->b) {
        memcpy(w, m->w, n * sizeof *w);
        for (size_t i = 0; i < n; i++) T->cols[i].acc = m->acc[i];
        return true;
    }
    if (!measure(T, w)) return false;
    remember(T, w);
    return true;
}

/* The widths of the current group's columns at scale s, in the page width. */
static void group_widths(table *T, const fo_table_width *w, double s, double *nat, double *mn)
{
    const double pad = 2 * PAD_X + 1;
    for (size_t i = 0; i < T->ncols; i++) {
        nat[i] = w[T->map[i]].natural * s + pad;
        mn[i] = w[T->map[i]].minimum * s + pad;
    }
    fo_table_fit(nat, mn, T->ncols, T->c->width, nat);
    for (size_t i = 0; i < T->ncols; i++) COL(i)->w = nat[i];
}

/* A muted line over a column group: which columns it shows. */
static void group_note(fo_pdf *c, const char *text, double keep_h)
{
    const fo_theme *t = c->t;
    fo_pdf_style st = {&t->body, t->body_size * 0.85, t->muted, FO_PDF_ITALIC};
    fo_pdf_need(c, t->body_size * 1.3 + keep_h);
    fo_pdf_markup(c, text, false, &st, c->left, c->width, t->body_size * 1.25);
}

/* Draws the body rows of the current group, then its totals row. */
static bool draw_rows(table *T)
{
    fo_pdf *c = T->c;
    const fo_block *b = T->b;
    size_t n = T->ncols, shown = 0;
    fo_rows *rows = NULL;
    if (fo_rows_open_kept(b->u.table.data, T->keep, &rows, c->d) != FO_OK) return false;
    const fo_value *row;
    int r = 0;
    bool cut = false;
    size_t first_page = c->npages, pages = c->npages;
    T->row = 0;
    while (c->st == FO_OK && !cut && (r = fo_rows_next(rows, &row, c->d)) == 1) {
        if ((cut = at_page_limit(T))) break;
        shown++;
        for (size_t i = 0; i < n; i++) {
            const fo_value *v = &row[b->u.table.cols[T->map[i]].field];
            T->texts[i] = cell_text(v, COL(i), T->tmp + i * TMP, TMP, &T->lens[i], &T->right[i]);
            T->colors[i] = fo_value_color(v, COL(i)->plan->fmt);
        }
        T->style = fo_table_row_style(b, shown - 1);
        draw_row(T, T->texts, T->lens, ROW_BODY);
        T->style = NULL;
        if (c->npages != pages) { /* a page turned: the pages the rest needs, at this rate */
            pages = c->npages;
            size_t left = b->u.table.data->nrows > shown ? b->u.table.data->nrows - shown : 0;
            double more = (double)left * (double)(pages - first_page) / (double)shown;
            c->expect_pages = (size_t)fmin((double)pages + more, FO_PDF_MAX_PAGES);
        }
    }
    c->expect_pages = 0;
    fo_rows_close(rows);
    if (r < 0) return false;
    if (b->u.table.has_totals && c->st == FO_OK) {
        for (size_t i = 0; i < n; i++) {
            tcol *col = COL(i);
            char *tmp = T->tmp + i * TMP;
            bool numeric;
            size_t k = fo_table_total_text(c->doc->lang, &col->acc, col->total, T->map[i], col->plan->fmt, tmp, TMP,
                                           &numeric);
            double v;
            T->colors[i] = -1;
            if (col->total != FO_TOTAL_COUNT && fo_table_total(&col->acc, col->total, &v)) {
                fo_value val = {FO_VAL_NUMBER, false, v, NULL, NULL};
                T->colors[i] = fo_value_color(&val, col->plan->fmt);
            }
            T->texts[i] = tmp;
            T->lens[i] = k < TMP ? k : TMP - 1;
            T->right[i] = fo_col_plan_cell_right(col->plan, numeric, T->lens[i]);
        }
        draw_row(T, T->texts, T->lens, ROW_TOTAL);
    }
    if (cut && c->st == FO_OK) cut_note(c, shown, b->u.table.data->nrows);
    return true;
}

/* Sets up every column from its plan (render/core/table.h) and total;
 * false when out of memory. */
static bool columns(table *T)
{
    size_t n = T->b->u.table.ncols;
    if (!(T->plan = fo_col_plan_new(T->b->u.table.cols, n))) return false;
    for (size_t i = 0; i < n; i++) {
        T->cols[i].plan = &T->plan[i];
        T->cols[i].total = T->b->u.table.cols[i].total;
    }
    return true;
}

/* Draws the table as planned: each column group under its note. */
static bool draw_groups(table *T, const fo_table_width *w, const fo_table_plan *plan,
                        const size_t *ends, double *nat, double *mn)
{
    fo_pdf *c = T->c;
    const fo_block *b = T->b;
    size_t n = b->u.table.ncols;
    fo_pdf_orient(c, plan->landscape); /* either way: a heading may have turned the page */
    double row_h = T->lh + 2 * PAD_Y;
    T->keep = plan->ngroups > 1 ? fo_rows_keep_new(b->u.table.data) : NULL;
    bool ok = true;
    for (size_t g = 0; g < plan->ngroups && c->st == FO_OK; g++) {
        T->ncols = fo_table_group_cols(ends, g, T->map);
        group_widths(T, w, plan->scale, nat, mn);
        if (g == 0 && b->u.table.caption) caption(c, b->u.table.caption, 4 * row_h);
        if (plan->ngroups > 1) {
            char note[512];
            fo_table_group_note(c->doc->lang, ends, g, n, note, sizeof note);
            group_note(c, note, 3 * row_h);
        }
        fo_pdf_need(c, 3 * row_h);
        draw_header(T);
        if (!(ok = draw_rows(T))) break;
        c->y -= c->t->body_size * 1.0;
    }
    fo_rows_keep_free(T->keep);
    T->keep = NULL;
    return ok;
}

/* A table measured and planned (render/core/table.h), ready to draw. */
typedef struct {
    table T;
    fo_table_width *w;
    double *nat, *mn;     /* scratch for each group's widths */
    size_t *ends;
    fo_table_plan plan;
} layout;

/* The layout's scratch arrays, listed once for allocating and freeing: *v[i]
 * holds elem[i] bytes per column of the block. */
enum { NSCRATCH = 16 };
static void scratch_arrays(layout *L, void **v[NSCRATCH], size_t elem[NSCRATCH])
{
    table *T = &L->T;
    void **const p[NSCRATCH] = {
        (void **)&T->cols,   (void **)&T->map,    (void **)&L->w,      (void **)&L->nat,
        (void **)&L->mn,     (void **)&L->ends,   (void **)&T->colors, (void **)&T->nlines,
        (void **)&T->lst,    (void **)&T->lln,    (void **)&T->texts,  (void **)&T->htexts,
        (void **)&T->lens,   (void **)&T->hlens,  (void **)&T->tmp,    (void **)&T->right};
    const size_t e[NSCRATCH] = {
        sizeof *T->cols,   sizeof *T->map,    sizeof *L->w,      sizeof *L->nat,
        sizeof *L->mn,     sizeof *L->ends,   sizeof *T->colors, sizeof *T->nlines,
        MAX_CELL_LINES * sizeof *T->lst,      MAX_CELL_LINES * sizeof *T->lln,
        sizeof *T->texts,  sizeof *T->htexts, sizeof *T->lens,   sizeof *T->hlens, TMP,
        sizeof *T->right};
    memcpy(v, p, sizeof p);
    memcpy(elem, e, sizeof e);
}

static void layout_close(layout *L)
{
    table *T = &L->T;
    fo_col_plan_free(T->plan, T->b->u.table.ncols);
    void **v[NSCRATCH];
    size_t elem[NSCRATCH];
    scratch_arrays(L, v, elem);
    for (size_t i = 0; i < NSCRATCH; i++) fo_free(*v[i]);
}

/* Measures and plans table b: false (c->st set) when it cannot be drawn. */
static bool layout_open(layout *L, fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    size_t n = b->u.table.ncols;
    memset(L, 0, sizeof *L);
    table *T = &L->T;
    *T = (table){.c = c, .b = b, .ncols = n, .fr = fo_pdf_face(c, &t->body, FO_PDF_REGULAR),
                 .fb = fo_pdf_face(c, &t->body, FO_PDF_BOLD), .size = t->body_size * 0.9,
                 .rtl = fo_table_rtl(c->doc, b)};
    void **v[NSCRATCH];
    size_t elem[NSCRATCH], cap = 0;
    scratch_arrays(L, v, elem);
    if (!fo_grow_all(&cap, n ? n : 1, n, NSCRATCH, (void **const *)v, elem)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return false;
    }
    if (!T->fr || !T->fb) return false;
    if (!columns(T)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return false;
    }
    if (!measure_once(T, L->w)) {
        if (c->st == FO_OK) c->st = FO_ERR_INPUT;
        return false;
    }
    /* the one rule (render/core/table.h): smaller, landscape, column groups */
    for (size_t i = 0; i < n; i++) L->mn[i] = L->w[i].minimum;
    fo_table_plan_fit(L->mn, n, 2 * PAD_X + 1, fo_pdf_content_width(c, false),
                      fo_pdf_content_width(c, true), T->size > MIN_SIZE ? MIN_SIZE / T->size : 1,
                      &L->plan, L->ends);
    for (size_t i = 0; i < n; i++) L->w[i].minimum = L->mn[i];
    T->size *= L->plan.scale;
    T->lh = T->size * 1.25;
    return true;
}

bool fo_pdf_table_turns(fo_pdf *c, const fo_block *b)
{
    if (b->kind != FO_BLOCK_TABLE || b->u.table.ncols == 0 || c->st != FO_OK) return false;
    fo_diags scratch, *d = c->d; /* the table itself reports what goes wrong */
    fo_diags_init(&scratch);
    c->d = &scratch;
    layout L;
    bool turns = layout_open(&L, c, b) && L.plan.landscape;
    layout_close(&L);
    c->d = d;
    c->st = FO_OK;
    fo_diags_free(&scratch);
    return turns;
}

void fo_pdf_table(fo_pdf *c, const fo_block *b)
{
    if (b->u.table.ncols == 0) return;
    layout L;
    if (layout_open(&L, c, b) && !draw_groups(&L.T, L.w, &L.plan, L.ends, L.nat, L.mn) &&
        c->st == FO_OK)
        c->st = FO_ERR_INPUT;
    layout_close(&L);
}
