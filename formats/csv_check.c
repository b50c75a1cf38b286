/* csv_check.c — the second pass of a CSV dataset scan: where the cells are
 * that a column does not read (csv.h, fo_csv_scan_n). One warning per
 * column, located at the first such cell, with the count and the first
 * places: one mistake repeated a thousand times is one message. */
#include <stdio.h>
#include <string.h>

#include "formats/csv.h"

#define PLACES 3

typedef struct {
    size_t n;                      /* cells the column does not read */
    size_t line[PLACES], field;    /* where the first ones are */
    char text[PLACES][40];
    bool want_amb;                 /* no date decides the order: show one */
    size_t amb_line;               /* first date that fits both orders (0: none) */
    char amb[40];
} note;

/* Why column j needs a look: a declared type some cells miss, dates that
 * do not all fit one day/month order, or an order no date decides. */
static bool flagged(const fo_column *col, const fo_infer *in)
{
    bool dates = col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME;
    bool amb = false;
    fo_infer_date_order(in, &amb);
    return (in->declared != FO_TYPE_AUTO && in->n_misfit) ||
           (dates && ((in->n_dmy_only && in->n_mdy_only) || amb));
}

/* Copies at most cap - 4 bytes of s, cut on a UTF-8 boundary, with "...". */
static void excerpt(char *dst, size_t cap, const char *s, size_t len)
{
    if (len < cap) {
        memcpy(dst, s, len);
        dst[len] = '\0';
        return;
    }
    size_t n = cap - 4;
    while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    memcpy(dst, s, n);
    memcpy(dst + n, "...", 4);
}

static void look(note *nt, const fo_column *col, const char *fmt_sym, const char *s,
                 size_t len, size_t line)
{
    fo_value v;
    if (len == 0 || fo_infer_is_missing(s, len)) return;
    if (nt->want_amb && !nt->amb_line) {
        fo_infer one;
        fo_infer_init(&one);
        fo_infer_add(&one, s, len);
        if (one.n_dm_both) {
            nt->amb_line = line;
            excerpt(nt->amb, sizeof nt->amb, s, len);
        }
    }
    if (fo_infer_convert(col, fmt_sym, s, len, &v)) return;
    if (nt->n < PLACES) {
        nt->line[nt->n] = line;
        excerpt(nt->text[nt->n], sizeof nt->text[0], s, len);
    }
    nt->n++;
}

static const char *type_hint(fo_type t)
{
    switch (t) {
    case FO_TYPE_DATE: case FO_TYPE_DATETIME:
        return "write dates as 2024-01-15, 15/01/2024 or 01/15/2024; a column's \"date_format\" "
               "(e.g. \"dd/mm/yyyy\") sets the day/month order";
    case FO_TYPE_BOOLEAN: return "write true or false";
    case FO_TYPE_TEXT: return NULL;
    case FO_TYPE_AUTO: case FO_TYPE_INTEGER: case FO_TYPE_NUMBER: case FO_TYPE_PERCENT: case FO_TYPE_CURRENCY:
    default:
        return "write numbers as 1234.5, 1,234.50, (1,234), 12.5% or $1,200.00; "
               "\"decimal\": \",\" reads 1.234,50; n/a, - and empty cells are kept without a warning";
    }
}

static const char *order_name(fo_date_order o)
{
    return o == FO_DATES_DMY ? "day/month" : o == FO_DATES_MDY ? "month/day" : "year/month/day";
}

static void report(const fo_dataset *ds, const fo_column *col, const note *nt, size_t j,
                   fo_diags *d, int *warnings)
{
    const char *file = fo_csv__display(ds);
    bool dates = col->type == FO_TYPE_DATE || col->type == FO_TYPE_DATETIME;
    if (nt->n) {
        char places[400], how[64] = "";
        size_t k = 0;
        for (size_t i = 0; i < nt->n && i < PLACES; i++)
            k += (size_t)snprintf(places + k, sizeof places - k, "%s\"%s\" (line %zu)", i ? ", " : "",
                                  nt->text[i], nt->line[i]);
        if (nt->n > PLACES) snprintf(places + k, sizeof places - k, ", and %zu more", nt->n - PLACES);
        if (dates && col->dates != FO_DATES_ANY)
            snprintf(how, sizeof how, ", read %s", order_name(col->dates));
        fo_diags_add(d, file, (int)nt->line[0], (int)j + 1, NULL, type_hint(col->type),
                     "warning: column \"%s\" is %s%s; %zu cell%s %s not and stay%s text: %s", col->name,
                     fo_type_name(col->type), how, nt->n, nt->n == 1 ? "" : "s",
                     nt->n == 1 ? "is" : "are", nt->n == 1 ? "s" : "", places);
        if (warnings) (*warnings)++;
    }
    if (nt->amb_line) {
        fo_diags_add(d, file, (int)nt->amb_line, (int)j + 1, NULL,
                     "if the day comes first, give the column \"date_format\": \"dd/mm/yyyy\"",
                     "warning: column \"%s\": every date fits both day/month and month/day "
                     "(\"%s\"); read as month/day", col->name, nt->amb);
        if (warnings) (*warnings)++;
    }
}

/* Reads the file again, noting the flagged columns' cells. */
static fo_status second_pass(const fo_dataset *ds, note *notes, const bool *flag,
                             const char **syms, fo_diags *d)
{
    fo_csv *c;
    fo_status st = fo_csv__open_dataset(ds, &c, d);
    if (st != FO_OK) return st;
    const char *const *f;
    const size_t *l;
    size_t nf;
    int r;
    while ((r = fo_csv_next(c, &f, &l, &nf, d)) > 0)
        for (size_t j = 0; j < nf && j < ds->ncols; j++)
            if (flag[j]) look(&notes[j], &ds->cols[j], syms[j], f[j], l[j], fo_csv_line(c));
    fo_csv_close(c);
    return r < 0 ? FO_ERR_INPUT : FO_OK;
}

fo_status fo_csv__check_cells(const fo_dataset *ds, const fo_infer *inf, fo_diags *d,
                              int *warnings)
{
    bool any = false;
    for (size_t j = 0; j < ds->ncols && !any; j++) any = flagged(&ds->cols[j], &inf[j]);
    if (!any) return FO_OK;
    bool *flag = fo_calloc(ds->ncols, sizeof *flag);
    note *notes = fo_calloc(ds->ncols, sizeof *notes);
    const char **syms = fo_calloc(ds->ncols, sizeof *syms);
    fo_status st = FO_ERR_NOMEM;
    if (!flag || !notes || !syms) goto done;
    for (size_t j = 0; j < ds->ncols; j++) {
        flag[j] = flagged(&ds->cols[j], &inf[j]);
        if (ds->cols[j].type == FO_TYPE_CURRENCY) syms[j] = fo_infer_format_symbol(ds->cols[j].format);
        fo_type t = ds->cols[j].type;
        if (t == FO_TYPE_DATE || t == FO_TYPE_DATETIME) fo_infer_date_order(&inf[j], &notes[j].want_amb);
    }
    st = second_pass(ds, notes, flag, syms, d);
    for (size_t j = 0; j < ds->ncols && st == FO_OK; j++)
        if (flag[j]) report(ds, &ds->cols[j], &notes[j], j, d, warnings);
done:
    fo_free(flag);
    fo_free(notes);
    fo_free(syms);
    return st;
}
