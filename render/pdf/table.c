/* table.c — PDF tables: content-based column widths, wrapped cells, numbers
 * right-aligned and shown through numfmt, the header repeated on every page,
 * banding, a totals row and a caption.
 *
 * Rows stream from fo_rows: the first SAMPLE rows are kept (as text) to
 * measure column widths, drawn, and then every further row is formatted,
 * drawn and forgotten, so a 100k-row CSV never sits in memory. Totals are
 * accumulated while streaming. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/core/table.h"
#include "render/pdf/pdf_int.h"

#define SAMPLE 60
#define PAD_X 4.0
#define PAD_Y 2.6
#define MAX_CELL_LINES 64

typedef struct {
    double w;            /* column width, pt */
    bool right;          /* numbers and dates */
    fo_numfmt *fmt;
    fo_total total;
    fo_table_acc acc;    /* totals (render/core/table.h) */
} tcol;

typedef struct {
    fo_pdf *c;
    const fo_block *b;
    tcol *cols;
    size_t ncols;
    fo_pdf_font *fr, *fb; /* body regular, bold */
    double size, lh;
    size_t row;           /* body rows drawn, for banding */
    /* scratch, ncols entries each (heap: a table may be very wide) */
    size_t *nlines, *lst, *lln; /* lst/lln: MAX_CELL_LINES per column */
    const char **texts, **htexts;
    size_t *lens, *hlens;
    char *tmp;            /* TMP bytes per column */
    long *colors;         /* the row's cell colours from their formats ([Red]); -1: none */
} table;

#define TMP 256

/* The text of a cell: borrowed from the value, or formatted into tmp. */
static const char *cell_text(const fo_value *v, const tcol *col, char *tmp, size_t cap,
                             size_t *len)
{
    return fo_value_text(v, col->fmt, tmp, cap, len, NULL);
}

/* Column widths. natural: the widest sampled cell (header wrapped at its
 * words); minimum: the longest word, so no word is ever broken when the page
 * has room for every column's longest word. Columns start at their minimum
 * and share the rest of the width in proportion to what they still want;
 * a table narrower than the page widens every column. */
static void fit_widths(table *T, double *natural, const double *minimum)
{
    fo_table_fit(natural, minimum, T->ncols, T->c->width, natural); /* in place */
    for (size_t i = 0; i < T->ncols; i++) T->cols[i].w = natural[i];
}

/* Width of the longest space-separated word of s. */
static double longest_word(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len)
{
    double best = 0;
    for (size_t i = 0; i < len;) {
        size_t k = i;
        while (k < len && s[k] != ' ' && s[k] != '\n') k++;
        double w = fo_pdf_text_width(c, f, size, s + i, k - i);
        if (w > best) best = w;
        i = k + 1;
    }
    return best;
}

enum { ROW_HEADER, ROW_BODY, ROW_TOTAL };

static void draw_row(table *T, const char *const *texts, const size_t *lens, int kind);
#define ST(i) (T->lst + (i) * MAX_CELL_LINES)
#define LN(i) (T->lln + (i) * MAX_CELL_LINES)

static void draw_header(table *T)
{
    for (size_t i = 0; i < T->ncols; i++) {
        T->htexts[i] = T->b->u.table.cols[i].title;
        T->hlens[i] = strlen(T->htexts[i]);
    }
    draw_row(T, T->htexts, T->hlens, ROW_HEADER);
}

/* Wraps every cell of a row into T's scratch lines; returns the most lines. */
static size_t measure_row(table *T, const char *const *texts, const size_t *lens,
                          fo_pdf_font *f)
{
    fo_pdf *c = T->c;
    size_t *nlines = T->nlines, most = 1;
    for (size_t i = 0; i < T->ncols; i++) {
        double avail = T->cols[i].w - 2 * PAD_X;
        if (fo_pdf_text_width(c, f, T->size, texts[i], lens[i]) <= avail &&
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
    fo_pdf_font *f = kind == ROW_BODY ? T->fr : T->fb;
    size_t *nlines = T->nlines;
    size_t most = measure_row(T, texts, lens, f);
    double h = most * T->lh + 2 * PAD_Y;
    if (kind != ROW_HEADER && !c->fresh && c->y - h < c->bottom) {
        fo_pdf_new_page(c);
        draw_header(T);
        most = measure_row(T, texts, lens, f);  /* the header used the scratch */
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
    double x = c->left;
    double base0 = c->y - PAD_Y - T->lh + (T->lh - T->size) * 0.5 + T->size * 0.22;
    HPDF_Page_BeginText(p);  /* one text object for the whole row */
    for (size_t i = 0; i < n; i++) {
        double base = base0;
        for (size_t k = 0; k < nlines[i]; k++, base -= T->lh) {
            const char *s = texts[i] + ST(i)[k];
            double tx = x + PAD_X;
            /* numbers, and text that reads right to left, hug the right edge */
            if (T->cols[i].right || fo_shape_direction(s, LN(i)[k]) == FO_DIR_RTL)
                tx = x + T->cols[i].w - PAD_X - fo_pdf_text_width(c, f, T->size, s, LN(i)[k]);
            fo_rgb ink = kind != ROW_HEADER && T->colors[i] >= 0 ? (fo_rgb)T->colors[i] : color;
            fo_pdf_text_draw(c, f, T->size, ink, tx, base, s, LN(i)[k]);
        }
        x += T->cols[i].w;
    }
    HPDF_Page_EndText(p);
    c->fresh = false;
    c->y -= h;
    if (kind == ROW_BODY) T->row++;
}

/* Appends the formatted cells of one row to a growing text buffer. */
static bool keep_row(table *T, const fo_value *row, char **buf, size_t *blen, size_t *bcap,
                     size_t *offs, size_t *lens, long *colors)
{
    char tmp[256];
    for (size_t i = 0; i < T->ncols; i++) {
        const fo_value *v = &row[T->b->u.table.cols[i].field];
        size_t len;
        colors[i] = fo_value_color(v, T->cols[i].fmt);
        const char *s = cell_text(v, &T->cols[i], tmp, sizeof tmp, &len);
        if (*blen + len + 1 > *bcap) {
            size_t cap = (*bcap + len + 1) * 2;
            char *nb = fo_realloc(*buf, cap);
            if (!nb) return false;
            *buf = nb;
            *bcap = cap;
        }
        memcpy(*buf + *blen, s, len);
        offs[i] = *blen;
        lens[i] = len;
        *blen += len;
        (*buf)[(*blen)++] = 0;
    }
    return true;
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
    char text[160], all[32];
    fo_numfmt_format_code("#,##0", (double)total, all, sizeof all);
    snprintf(text, sizeof text, "First %zu of %s rows; the full table is in the workbook.", shown, all);
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

void fo_pdf_table(fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    size_t n = b->u.table.ncols;
    if (n == 0) return;
    table T = {.c = c, .b = b, .ncols = n, .fr = fo_pdf_face(c, &t->body, FO_PDF_REGULAR),
               .fb = fo_pdf_face(c, &t->body, FO_PDF_BOLD), .size = t->body_size * 0.9};
    T.lh = T.size * 1.25;
    fo_rows *rows = NULL;
    char *sbuf = NULL;
    size_t slen = 0, scap = 0, nsample = 0;
    size_t *soff = NULL, *slens = NULL;
    long *scolors = NULL;
    double *natural = NULL, *minimum = NULL;
    T.cols = fo_calloc(n, sizeof *T.cols);
    soff = fo_malloc(SAMPLE * n * sizeof *soff);
    slens = fo_malloc(SAMPLE * n * sizeof *slens);
    scolors = fo_malloc(SAMPLE * n * sizeof *scolors);
    T.colors = fo_malloc(n * sizeof *T.colors);
    natural = fo_calloc(n, sizeof *natural);
    minimum = fo_calloc(n, sizeof *minimum);
    T.nlines = fo_malloc(n * sizeof *T.nlines);
    T.lst = fo_malloc(n * MAX_CELL_LINES * sizeof *T.lst);
    T.lln = fo_malloc(n * MAX_CELL_LINES * sizeof *T.lln);
    T.texts = fo_malloc(n * sizeof *T.texts);
    T.htexts = fo_malloc(n * sizeof *T.htexts);
    T.lens = fo_malloc(n * sizeof *T.lens);
    T.hlens = fo_malloc(n * sizeof *T.hlens);
    T.tmp = fo_malloc(n * TMP);
    if (!T.cols || !soff || !slens || !scolors || !T.colors || !natural || !minimum || !T.nlines || !T.lst || !T.lln ||
        !T.texts || !T.htexts || !T.lens || !T.hlens || !T.tmp)
        goto oom;
    const char **texts = T.texts;
    size_t *lens = T.lens;
    if (!T.fr || !T.fb) goto done;
    for (size_t i = 0; i < n; i++) {
        const fo_table_col *tc = &b->u.table.cols[i];
        fo_type ty = tc->type;
        T.cols[i].right = ty == FO_TYPE_INTEGER || ty == FO_TYPE_NUMBER || ty == FO_TYPE_PERCENT ||
                          ty == FO_TYPE_CURRENCY || ty == FO_TYPE_DATE || ty == FO_TYPE_DATETIME;
        T.cols[i].total = tc->total;
        T.cols[i].fmt = fo_numfmt_compile(tc->format ? tc->format : "General", NULL, 0);
    }
    if (fo_rows_open(b->u.table.data, &rows, c->d) != FO_OK) {
        if (c->st == FO_OK) c->st = FO_ERR_INPUT;
        goto done;
    }
    /* 1. sample rows for the widths */
    const fo_value *row;
    int r = 0;
    while (nsample < SAMPLE && (r = fo_rows_next(rows, &row, c->d)) == 1) {
        for (size_t i = 0; i < n; i++) fo_table_acc_add(&T.cols[i].acc, &row[b->u.table.cols[i].field]);
        if (!keep_row(&T, row, &sbuf, &slen, &scap, soff + nsample * n, slens + nsample * n,
                      scolors + nsample * n))
            goto oom;
        nsample++;
    }
    if (r < 0) goto readerr;
    /* natural and minimum widths at the body size; a table whose longest
     * words do not fit side by side is set smaller (down to 6 pt) rather
     * than breaking words mid-way */
    double pads = 0, words = 0;
    for (size_t i = 0; i < n; i++) {
        const char *h = b->u.table.cols[i].title;
        double hw = fo_pdf_text_width(c, T.fb, T.size, h, strlen(h));
        double lw = longest_word(c, T.fb, T.size, h, strlen(h));
        double cw = 0, cword = 0;
        for (size_t s = 0; s < nsample; s++) {
            const char *cell = sbuf + soff[s * n + i];
            size_t cl = slens[s * n + i];
            double ww = fo_pdf_text_width(c, T.fr, T.size, cell, cl);
            if (ww > cw) cw = ww;
            double wd = T.cols[i].right ? ww : longest_word(c, T.fr, T.size, cell, cl);
            if (wd > cword) cword = wd;
        }
        if (cword > lw) lw = cword;
        if (lw > c->width / 3) lw = c->width / 3; /* a very long word may break */
        natural[i] = (cw > hw ? cw : (hw + cw) / 2 > lw ? (hw + cw) / 2 : lw) + 1;
        minimum[i] = lw + 1;
        words += minimum[i];
        pads += 2 * PAD_X;
    }
    double scale = 1;
    if (words + pads > c->width && words > 0) {
        scale = (c->width - pads) / words;
        if (scale * T.size < 6) scale = 6 / T.size;
        T.size *= scale;
        T.lh = T.size * 1.25;
    }
    for (size_t i = 0; i < n; i++) {
        natural[i] = natural[i] * scale + 2 * PAD_X;
        minimum[i] = minimum[i] * scale + 2 * PAD_X;
    }
    fit_widths(&T, natural, minimum);

    /* 2. caption, header, the sampled rows, then the stream */
    if (b->u.table.caption) caption(c, b->u.table.caption, 4 * (T.lh + 2 * PAD_Y));
    fo_pdf_need(c, 3 * (T.lh + 2 * PAD_Y));
    draw_header(&T);
    size_t shown = 0;
    bool cut = false;
    for (size_t s = 0; s < nsample && c->st == FO_OK && !(cut = at_page_limit(&T)); s++, shown++) {
        for (size_t i = 0; i < n; i++) {
            texts[i] = sbuf + soff[s * n + i];
            lens[i] = slens[s * n + i];
            T.colors[i] = scolors[s * n + i];
        }
        draw_row(&T, texts, lens, ROW_BODY);
    }
    while (c->st == FO_OK && (r = fo_rows_next(rows, &row, c->d)) == 1) {
        if (cut || (cut = at_page_limit(&T))) { /* the rest only counts towards the totals */
            for (size_t i = 0; i < n; i++) fo_table_acc_add(&T.cols[i].acc, &row[b->u.table.cols[i].field]);
            continue;
        }
        shown++;
        for (size_t i = 0; i < n; i++) {
            const fo_value *v = &row[b->u.table.cols[i].field];
            fo_table_acc_add(&T.cols[i].acc, v);
            texts[i] = cell_text(v, &T.cols[i], T.tmp + i * TMP, TMP, &lens[i]);
            T.colors[i] = fo_value_color(v, T.cols[i].fmt);
        }
        draw_row(&T, texts, lens, ROW_BODY);
    }
    if (r < 0) goto readerr;

    /* 3. totals */
    if (b->u.table.has_totals && c->st == FO_OK) {
        for (size_t i = 0; i < n; i++) {
            tcol *col = &T.cols[i];
            char *tmp = T.tmp + i * TMP;
            size_t k = fo_table_total_text(&col->acc, col->total, i, col->fmt, tmp, TMP, NULL);
            double v;
            T.colors[i] = -1;
            if (col->total != FO_TOTAL_COUNT && fo_table_total(&col->acc, col->total, &v)) {
                fo_value val = {FO_VAL_NUMBER, false, v, NULL, NULL};
                T.colors[i] = fo_value_color(&val, col->fmt);
            }
            texts[i] = tmp;
            lens[i] = k < TMP ? k : TMP - 1;
        }
        draw_row(&T, texts, lens, ROW_TOTAL);
    }
    if (cut && c->st == FO_OK) cut_note(c, shown, b->u.table.data->nrows);
    c->y -= t->body_size * 1.0;
    goto done;
readerr:
    if (c->st == FO_OK) c->st = FO_ERR_INPUT;
    goto done;
oom:
    fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
done:
    fo_rows_close(rows);
    if (T.cols)
        for (size_t i = 0; i < n; i++) fo_numfmt_free(T.cols[i].fmt);
    fo_free(T.cols);
    fo_free(sbuf);
    fo_free(soff);
    fo_free(slens);
    fo_free(scolors);
    fo_free(T.colors);
    fo_free(natural);
    fo_free(minimum);
    fo_free(T.nlines);
    fo_free(T.lst);
    fo_free(T.lln);
    fo_free(T.texts);
    fo_free(T.htexts);
    fo_free(T.lens);
    fo_free(T.hlens);
    fo_free(T.tmp);
}
