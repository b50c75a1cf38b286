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
} fo_table_acc;

/* Feeds one cell. */
void fo_table_acc_add(fo_table_acc *a, const fo_value *v);

/* The value of total k over a: false when the cell stays empty (NONE, or
 * AVERAGE/MIN/MAX without numbers). */
bool fo_table_total(const fo_table_acc *a, fo_total k, double *v);

/* The text a totals cell shows in PDF, DOCX and PPTX (column j of a table,
 * f its compiled format, NULL = General): the total through f (COUNT
 * through FO_TABLE_COUNT_FORMAT), "Total" in a first column without a
 * total of its own, else "". Writes into buf (cap bytes), returns the
 * length; *numeric (may be NULL) is set when the cell holds a number. */
size_t fo_table_total_text(const fo_table_acc *a, fo_total k, size_t j, const fo_numfmt *f,
                           char *buf, size_t cap, bool *numeric);

/* Shares width among n columns (any unit). natural: each column's widest
 * text; minimum: its longest word, so that no word breaks while the width
 * holds every column's longest word. A table that fits widens every column
 * in proportion to its natural width; one that does not starts every column
 * at its minimum and shares the rest in proportion to what each still
 * wants; when even the minimums do not fit they are scaled down. Writes
 * out[0..n), which may be natural itself. */
void fo_table_fit(const double *natural, const double *minimum, size_t n, double width, double *out);

#endif
