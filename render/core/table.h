/* table.h — the table rules every writer shares: what a totals row holds
 * and shows, and how a table's width is shared among its columns.
 *
 * Totals follow Excel, whose native formulas the xlsx writer writes (SUM,
 * AVERAGE, MIN, MAX, COUNTA over the column): numbers, dates and formula
 * results count as numbers; COUNT counts non-empty cells. A total with
 * nothing to compute (AVERAGE, MIN or MAX of a column without numbers) is
 * an empty cell in every format; SUM of no numbers is 0. COUNT shows
 * through "#,##0" everywhere, the format the xlsx writer gives it. */
#ifndef FO_TABLE_H
#define FO_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "render/core/model.h"

#define FO_TABLE_COUNT_FORMAT "#,##0"

/* One column's running totals. All zero is an empty column. */
typedef struct {
    double sum, min, max;
    size_t nnum;   /* numeric cells: what SUM, AVERAGE, MIN and MAX see */
    size_t count;  /* non-empty cells: what COUNT (COUNTA) counts */
    const char *err; /* the first Excel error value among the cells ("#NUM!": a
                        formula cell whose value is one), borrowed; NULL: none.
                        SUM, AVERAGE, MIN and MAX then show it, as Excel does */
} fo_table_acc;

/* True when text is one of Excel's error values (#NUM!, #N/A, #DIV/0!...). */
bool fo_table_is_error(const char *text);

/* The style of data row `row` (from 0) of table block b, or NULL when the
 * row has none ("row_styles"; binary search). */
const fo_row_style *fo_table_row_style(const fo_block *b, size_t row);

/* Feeds one cell. */
void fo_table_acc_add(fo_table_acc *a, const fo_value *v);

/* The value of total k over a: false when the cell stays empty (NONE, or
 * AVERAGE/MIN/MAX without numbers). */
bool fo_table_total(const fo_table_acc *a, fo_total k, double *v);

/* True when table block b reads right to left, its first column on the
 * right: its own "dir", else the document's "dir", else a right-to-left
 * document language, else its text (caption, column titles and, for inline
 * data, the first rows' text cells) where more cells start with a
 * right-to-left letter than with a left-to-right one. */
bool fo_table_rtl(const fo_doc *doc, const fo_block *b);

/* The text a totals cell shows in PDF, DOCX and PPTX (column j of a table,
 * f its compiled format, NULL = General): the total through f (COUNT
 * through FO_TABLE_COUNT_FORMAT), "Total" (in language lang, words.h) in
 * a first column without a total of its own, else "". Writes into buf (cap bytes), returns the
 * length; *numeric (may be NULL) is set when the cell holds a number. */
size_t fo_table_total_text(const char *lang, const fo_table_acc *a, fo_total k, size_t j, const fo_numfmt *f,
                           char *buf, size_t cap, bool *numeric);

/* Shares width among n columns (any unit). natural: each column's widest
 * text; minimum: its longest word, so that no word breaks while the width
 * holds every column's longest word. A table that fits widens every column
 * in proportion to its natural width; one that does not starts every column
 * at its minimum and shares the rest in proportion to what each still
 * wants; when even the minimums do not fit they are scaled down. Writes
 * out[0..n), which may be natural itself. */
void fo_table_fit(const double *natural, const double *minimum, size_t n, double width, double *out);

/* ---- column widths: one rule for every writer -------------------------------
 *
 * A column's natural width is its widest cell's whole text, header
 * included; its minimum is its widest unbreakable piece: a number or date
 * whole (1,234,567.89 never splits), a text its longest space-separated
 * word. Every writer measures with the shaped widths of the font it sets
 * the table in (PDF: the glyphs it embeds; docx, pptx: render/core/text.h),
 * in any unit, without cell margins. */
typedef double (*fo_table_measure)(void *ctx, bool bold, const char *s, size_t n);

typedef struct {
    double natural, minimum;
} fo_table_width;

/* Widens w for one cell's text s (bold: a header or totals cell; whole: a
 * number or date, which never breaks). */
void fo_table_width_add(fo_table_width *w, fo_table_measure m, void *ctx, bool bold, bool whole,
                        const char *s, size_t n);

/* ---- the column plan: one rule for every writer -----------------------------
 *
 * What every writer shows of a column, decided once here instead of in each
 * writer: its header text, its number format compiled once (General when
 * the spec gives none; a spec's codes were checked when it was read), and
 * its alignment. A column of numbers or dates (its type: integer, number,
 * percent, currency, date, datetime) is right-aligned, its header too, and
 * its texts are measured whole like numbers; a right-to-left table mirrors
 * the columns' order (fo_table_rtl), not their alignment. */
typedef struct {
    const char *title;   /* the header's text (borrowed), never NULL */
    fo_numfmt *fmt;      /* the column's format, compiled (owned) */
    bool right;          /* numbers and dates, by the column's type: right-aligned */
    bool is_date;        /* shows dates: a date type or a date format (xlsx) */
} fo_col_plan;

/* Whether a body or totals cell of column c is right-aligned, in every
 * writer as Excel shows it under General alignment: what holds a number or
 * date (numeric: fo_value_text's or fo_table_total_text's flag) right, a
 * text left ("n/a" in a number column, the totals row's "Total"), an empty
 * cell (len 0) its column's way. The header takes its column's way (right).
 * Text that reads right to left is laid out from the right besides
 * (fo_table_text_rtl). */
bool fo_col_plan_cell_right(const fo_col_plan *c, bool numeric, size_t len);

/* True when cell text s (n bytes) is laid out from the right: its first
 * strong character reads right to left (Arabic, Hebrew...). */
bool fo_table_text_rtl(const char *s, size_t n);

/* The plan of columns cols[0..n): n entries to free with fo_col_plan_free,
 * NULL when out of memory (or n is 0). */
fo_col_plan *fo_col_plan_new(const fo_table_col *cols, size_t n);
void fo_col_plan_free(fo_col_plan *p, size_t n);

/* Widens w for column c's header: its title, bold. */
void fo_col_plan_widen_head(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx);

/* Widens w for one body value v as column c shows it (through its format,
 * into buf of cap bytes: the writer's cell buffer, which bounds the text
 * the same way its cells are). A number, or any cell of a right-aligned
 * column, is measured whole. */
void fo_col_plan_widen(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                       const fo_value *v, char *buf, size_t cap);

/* The widths of the ASCII bytes in a table's regular body font, measured
 * each once when first needed (fo_table_advances_init), so that a pass
 * over every row can tell a number's width without measuring it. */
typedef struct {
    double w[128]; /* < 0: not measured yet */
} fo_table_advances;

void fo_table_advances_init(fo_table_advances *a);

/* Widens w for body value v past the rows a writer samples: a number or
 * date only (what fo_value_text flags numeric), measured whole, since it
 * never breaks and must fit its column wherever it stands in the table; a
 * text wraps and is left to the sample. Each number is formatted; it is
 * measured only when it may be the widest yet: a text of printable ASCII
 * is as wide as the sum of its bytes' widths (every writer's measure
 * adds unshaped advances, and ASCII is never shaped), to within rounding,
 * so one no wider than the column's minimum (give or take a billionth) is
 * skipped; any other text is measured in full. */
void fo_col_plan_widen_number(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                              fo_table_advances *a, const fo_value *v, char *buf, size_t cap);

/* Widens w for column j's totals cell (fo_table_total_text, bold, whole),
 * written into buf (cap bytes). */
void fo_col_plan_widen_total(const fo_col_plan *c, fo_table_width *w, fo_table_measure m, void *ctx,
                             const char *lang, const fo_table_acc *a, fo_total k, size_t j, char *buf,
                             size_t cap);

/* How a table too wide for its page is set, decided once (fo_table_plan_fit). */
typedef struct {
    double scale;      /* of the writer's table text size: 1, or less when shrunk */
    bool landscape;    /* on landscape pages (a section of its own) */
    size_t ngroups;    /* column groups: 1 = the whole table at once */
} fo_table_plan;

/* The rule for wide tables, in order, with minimum[0..n) measured at the
 * writer's size (scale 1) and pad the fixed margins of one column:
 *   1. the size stays when every minimum fits width side by side;
 *   2. else the text shrinks, down to min_scale of the size;
 *   3. else, when wide > width (the landscape text width; 0: none), 1-2
 *      again on landscape pages;
 *   4. else the columns split into groups set at min_scale in the widest
 *      width, filled left to right, each repeating the key column 0.
 * A word wider than a third of the widest width may break (so one long
 * text cannot push every other column out): minimum[] is clamped to it in
 * place. ends[0..n) receives one past each group's last column: group g
 * is columns [g ? ends[g-1] : 0, ends[g]), plus column 0 when g > 0. */
void fo_table_plan_fit(double *minimum, size_t n, double pad, double width, double wide,
                       double min_scale, fo_table_plan *p, size_t *ends);

/* The columns of group g (ends from fo_table_plan_fit) into cols, which
 * holds n entries; returns how many. */
size_t fo_table_group_cols(const size_t *ends, size_t g, size_t *cols);

/* The note over a column group: "Columns 1–12 of 34", and " (key column
 * repeated)" after the first group, in language lang (words.h). Writes
 * into buf, returns the length. */
size_t fo_table_group_note(const char *lang, const size_t *ends, size_t g, size_t n, char *buf,
                           size_t cap);

/* The note under a table that a page-bound format cut short (Word, slides,
 * a PDF past max_pages): "First 1,000 of 50,000 rows; the full table is in
 * the workbook.", in language lang (words.h). Writes into buf, returns
 * the length. */
size_t fo_table_cut_note(const char *lang, size_t shown, size_t total, char *buf, size_t cap);

#endif
