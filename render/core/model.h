/* model.h — the format-neutral document model every renderer reads.
 *
 * formats/ builds an fo_doc from a spec (or a CSV); render/ turns it into
 * files. The doc owns everything through one arena: fo_doc_free releases all.
 * Table rows are not stored for CSV datasets: they stream through fo_rows,
 * so a million-row CSV is never held whole in memory. */
#ifndef FO_MODEL_H
#define FO_MODEL_H

#include <stdarg.h>

#include "folio.h"
#include "render/core/numfmt.h"
#include "render/core/theme.h"

/* ---- arena: many small allocations, freed together ---------------------- */
typedef struct fo_arena fo_arena;
fo_arena *fo_arena_new(void);
void fo_arena_free(fo_arena *a);
void *fo_arena_alloc(fo_arena *a, size_t n);      /* zeroed; NULL on OOM */
char *fo_arena_strdup(fo_arena *a, const char *s); /* NULL s -> NULL */
char *fo_arena_strndup(fo_arena *a, const char *s, size_t n);

/* ---- values ------------------------------------------------------------- */
typedef enum {
    FO_VAL_NULL = 0, /* empty cell */
    FO_VAL_TEXT,     /* str */
    FO_VAL_NUMBER,   /* num */
    FO_VAL_BOOL,     /* num: 0 or 1 */
    FO_VAL_DATE,     /* num: Excel serial (days since 1899-12-30; fraction = time) */
    FO_VAL_FORMULA,  /* str: "=SUM(B2:B9)"; num: cached value when has_num, else label */
    FO_VAL_URL       /* str: target; label: shown text (NULL -> str) */
} fo_val_kind;

typedef struct {
    fo_val_kind kind;
    bool has_num;      /* FORMULA: cached numeric value present */
    double num;
    const char *str;   /* borrowed: doc arena or the current CSV row */
    const char *label;
} fo_value;

/* The number a value holds (NUMBER, DATE, BOOL, a FORMULA's cached number),
 * or NaN for anything else and for non-finite numbers. */
double fo_value_number(const fo_value *v);

/* The text a value shows through format f, as every writer but xlsx (which
 * stores values and codes natively) displays it: text through f's text
 * section ("@"), TRUE/FALSE, a link's label, a formula's cached number or
 * else its label, numbers and dates through f (NULL f: %.15g). Returns the
 * text -- borrowed from v, or written into buf (cap bytes, cut at cap - 1) --
 * with its length in *len. *numeric (may be NULL) is set for what a table
 * right-aligns: numbers, dates, formula results. */
const char *fo_value_text(const fo_value *v, const fo_numfmt *f, char *buf, size_t cap,
                          size_t *len, bool *numeric);

/* The colour format f gives v ([Red], [Blue], [<0] conditions: as Excel
 * shows it): 0xRRGGBB, or -1 for the text's own colour. */
long fo_value_color(const fo_value *v, const fo_numfmt *f);

/* ---- columns and datasets ----------------------------------------------- */
typedef enum {
    FO_TYPE_AUTO = 0, /* not given: inferred */
    FO_TYPE_TEXT,
    FO_TYPE_INTEGER,
    FO_TYPE_NUMBER,
    FO_TYPE_PERCENT,
    FO_TYPE_CURRENCY,
    FO_TYPE_DATE,
    FO_TYPE_DATETIME,
    FO_TYPE_BOOLEAN
} fo_type;

/* The spec's words for the enums below, in enum order, NULL-terminated:
 * defined once (model.c), matched by the spec reader, named by writers. */
extern const char *const fo_type_names[];       /* fo_type: "auto", "text", ... */
extern const char *const fo_block_kind_names[]; /* fo_block_kind: "heading", ... */
extern const char *const fo_total_names[];      /* fo_total: "none", "sum", ... */
extern const char *const fo_legend_names[];     /* fo_legend: "right", ... */

const char *fo_type_name(fo_type t);          /* "integer", ... */
fo_type fo_type_from_name(const char *name);  /* FO_TYPE_AUTO if unknown */
/* Excel format code shown for a column of type t when none is given. */
const char *fo_type_default_format(fo_type t);

/* How a column writes day and month in d/m/yyyy-style dates: decided from
 * its values, or given by a spec's "date_format" (ISO dates always read). */
typedef enum { FO_DATES_ANY = 0, FO_DATES_DMY, FO_DATES_MDY, FO_DATES_YMD } fo_date_order;

typedef struct {
    char *name;
    fo_type type;    /* never AUTO once the dataset is loaded */
    char *format;    /* Excel code; never NULL once loaded */
    bool inferred;   /* type read from the data, not given: an inferred percent or
                        currency column converts only cells written with % or a symbol */
    fo_date_order dates; /* how its text dates read (formats/infer.h) */
    char decimal;    /* decimal separator of its text numbers: '.' (or 0) or ',' */
} fo_column;

typedef enum { FO_SRC_INLINE, FO_SRC_CSV } fo_source;

struct fo_dataset;
/* Where a streamed dataset's rows come from: the reader that loaded the
 * dataset sets ds->stream (formats/csv.h: fo_csv_stream), so that writers
 * iterate rows through fo_rows without knowing any reader. */
typedef struct fo_row_stream {
    /* Starts a pass over ds; *state goes to next and close. Errors go to d. */
    fo_status (*open)(const struct fo_dataset *ds, void **state, fo_diags *d);
    /* 1: *row set (ncols values, valid until the next call); 0: end; -1: error in d. */
    int (*next)(void *state, const fo_value **row, fo_diags *d);
    void (*close)(void *state); /* NULL state: no-op */
    /* The source line of the row next last handed out (CSV: the file's), or 0. */
    size_t (*line)(const void *state);
} fo_row_stream;

typedef struct fo_dataset {
    char *name;          /* key in "data", or "table 3" for an inline one */
    char *pointer;       /* JSON Pointer of its definition, for errors */
    fo_column *cols;
    size_t ncols;
    size_t nrows;        /* data rows (CSV: counted while inferring) */
    fo_source src;
    fo_value *cells;     /* INLINE: nrows * ncols, row-major */
    char *csv_path;      /* CSV: resolved path */
    char *csv_display;   /* CSV: path as written in the spec, for messages */
    char delimiter;      /* CSV: ',' ';' '\t' '|' (detected when 0) */
    bool header;         /* CSV: first record names the columns */
    const fo_row_stream *stream; /* CSV: set by the reader (borrowed, static) */
    /* INLINE: where in the spec the few cells a writer may refuse are (text
     * over Excel's 32,767-character cell), for errors located at the cell */
    struct fo_cell_spot { size_t row, field; int line, column; } *spots;
    size_t nspots;
} fo_dataset;

/* Where data cell (row: 0-based data row, field) of ds is, for an error
 * about it: CSV -> the file, line (csv_line, from fo_rows_line) and column
 * (the field's number), ptr ""; inline -> the spec, the cell's line and
 * column when known (ds->spots, else 0) and its JSON Pointer in ptr (cap
 * bytes): "/data/NAME/rows/R/C". */
void fo_cell_locate(const fo_doc *doc, const fo_dataset *ds, size_t row, size_t field,
                    size_t csv_line, const char **file, int *line, int *column,
                    char *ptr, size_t cap);

/* Row iteration, the same for inline and CSV data (render/core/rows.c): a
 * row is ncols values, converted to the column types (a cell that does not
 * fit stays TEXT); valid until the next call. A CSV dataset without a
 * stream is an internal error. */
typedef struct fo_rows fo_rows;
fo_status fo_rows_open(const fo_dataset *ds, fo_rows **out, fo_diags *d);
/* 1: *row set; 0: end; -1: error (reported in d). */
int fo_rows_next(fo_rows *r, const fo_value **row, fo_diags *d);
/* CSV: the 1-based line where the row last handed out starts; inline: 0. */
size_t fo_rows_line(const fo_rows *r);
void fo_rows_close(fo_rows *r);

/* Rows kept for several passes over one dataset, as a table drawn in column
 * groups makes (one pass a group): the first pass streams and keeps each
 * row, up to FO_ROWS_KEEP_BYTES; later passes hand out the kept rows and
 * stream only what lies beyond them. Without it a CSV table of c columns
 * would be read and converted c / (columns a group) times, which grows as
 * the square of its width. Inline data needs no keeping. */
#define FO_ROWS_KEEP_BYTES ((size_t)64 << 20)
typedef struct fo_rows_keep fo_rows_keep;
/* NULL for inline data or when out of memory: fo_rows_open_kept then
 * opens a plain pass. */
fo_rows_keep *fo_rows_keep_new(const fo_dataset *ds);
void fo_rows_keep_free(fo_rows_keep *k);
/* fo_rows_open over ds (k's dataset), through k when k is not NULL. */
fo_status fo_rows_open_kept(const fo_dataset *ds, fo_rows_keep *k, fo_rows **out, fo_diags *d);

/* ---- blocks ------------------------------------------------------------- */
typedef enum {
    FO_BLOCK_HEADING, FO_BLOCK_PARAGRAPH, FO_BLOCK_LIST, FO_BLOCK_METRICS,
    FO_BLOCK_TABLE, FO_BLOCK_CHART, FO_BLOCK_IMAGE, FO_BLOCK_CODE,
    FO_BLOCK_PAGE_BREAK, FO_BLOCK_TOC
} fo_block_kind;

typedef struct fo_list_item {
    char *text;                 /* inline markup */
    struct fo_list_item *items; /* nested list, may be empty */
    size_t nitems;
    bool ordered;               /* of the nested list */
} fo_list_item;

typedef struct {
    char *label;
    fo_value value;
    char *format;      /* Excel code, never NULL ("General" default) */
    bool has_delta;
    double delta;
    char *delta_format; /* never NULL when has_delta */
    bool lower_is_better; /* a fall is good news (a cost): see delta.h */
} fo_metric;

typedef enum { FO_TOTAL_NONE = 0, FO_TOTAL_SUM, FO_TOTAL_AVG, FO_TOTAL_MIN,
               FO_TOTAL_MAX, FO_TOTAL_COUNT } fo_total;
const char *fo_total_name(fo_total t);

/* A spec's "dir": not given (the language or the text decides), or said. */
typedef enum { FO_DIR_CHOICE_AUTO = 0, FO_DIR_CHOICE_LTR, FO_DIR_CHOICE_RTL } fo_dir_choice;

typedef struct {
    size_t field;      /* index into data->cols */
    char *title;       /* header text, never NULL */
    char *format;      /* Excel code, never NULL */
    fo_type type;      /* the field's type */
    fo_total total;
} fo_table_col;

/* A table row set apart (a subtotal, a total): bold, and/or its first
 * column indented (levels of about two characters). */
typedef struct {
    size_t row;        /* data row, from 0 (as in /data/NAME/rows/ROW) */
    bool bold;
    int indent;        /* 0..6 */
} fo_row_style;

typedef enum { FO_CHART_BAR, FO_CHART_COLUMN, FO_CHART_LINE, FO_CHART_AREA,
               FO_CHART_PIE, FO_CHART_DOUGHNUT, FO_CHART_SCATTER,
               FO_CHART_NKINDS /* the count, not a kind */ } fo_chart_kind;
typedef enum { FO_LEGEND_RIGHT, FO_LEGEND_BOTTOM, FO_LEGEND_NONE } fo_legend;

/* How a kind places its values. */
typedef enum {
    FO_CHART_CATEGORY, /* a category axis and a value axis (bar, column, line, area) */
    FO_CHART_XY,       /* two value axes: the x column holds numbers (scatter) */
    FO_CHART_ROUND     /* no axes: the first series' rows as slices (pie, doughnut) */
} fo_chart_family;

/* What a series is drawn as: picks the PDF/PNG drawing (render/chart), the
 * c:ser writer (render/chartxml) and the series style (render/xlsx). */
typedef enum { FO_MARK_BAR, FO_MARK_LINE, FO_MARK_AREA, FO_MARK_POINT, FO_MARK_SLICE } fo_chart_mark;

/* A chart kind's traits, one row per kind (model.c): the spec reader, the
 * chart engine and the Office writers ask the row, not the kind, so a new
 * kind is a row (a new mark adds its drawing and series writer) plus its
 * libxlsxwriter types (render/xlsx/charts.c, a table checked to have a row
 * per kind at compile time). */
typedef struct {
    const char *name;        /* the spec's "kind": "bar", ... */
    fo_chart_family family;
    fo_chart_mark mark;
    bool stacks;             /* "stacked": true piles the series up (else ignored) */
    bool log_axis;           /* "y_scale": "log" is allowed (there is a value axis) */
    bool sideways;           /* bars run from the left: the category axis down the
                                side, first category on top, the value axis below */
    bool zero_based;         /* the value axis always takes in zero (bars, areas) */
    bool rtl_mirror;         /* in a right-to-left document the categories run
                                from the right */
    bool all_series;         /* a round chart shows every series (xlsx: doughnut
                                rings); else its first only */
    int hole;                /* the hole of a round chart, % of its diameter (0: none) */
    const char *ooxml;       /* the DrawingML chart group: "c:barChart", ... */
    const char *bar_dir;     /* its c:barDir ("bar", "col"), NULL: none */
    const char *grouping;    /* its c:grouping when not stacked, NULL: none */
} fo_chart_traits;

extern const fo_chart_traits fo_chart_kinds[FO_CHART_NKINDS];

/* The row of kind k (the spec reader makes only valid kinds; one out of
 * range gets the column's row rather than a read past the table). */
const fo_chart_traits *fo_chart_traits_of(fo_chart_kind k);
const char *fo_chart_kind_name(fo_chart_kind k); /* "?" when k is out of range */
/* Fills names with the kinds' names in enum order, NULL-terminated (the
 * list the spec reader matches and suggests from). */
void fo_chart_kind_names(const char *names[FO_CHART_NKINDS + 1]);

/* The largest magnitude a chart value may have: beyond it the axis
 * arithmetic (ranges, 1-2-5 steps, tick labels) stops being exact and, near
 * DBL_MAX, overflows to infinity. The spec reader refuses larger values in a
 * chart's series (inline data) and fo_chart_layout (render/chart) refuses them in CSV data,
 * so every writer draws the same charts or none. */
#define FO_CHART_VALUE_MAX 1e15

typedef struct {
    fo_chart_kind kind;
    fo_dataset *data;
    size_t x;          /* field index of categories / x values */
    size_t *y;         /* field indexes of the series */
    size_t ny;
    char **y_titles;   /* NULL, or ny display names (an entry NULL: the column's name) */
    long *y_colors;    /* NULL, or ny colours 0xRRGGBB (an entry -1: the palette's) */
    bool y_log;        /* "y_scale": "log": a base-10 logarithmic value axis
                          (every value positive: the spec reader and the chart
                          readers refuse others) */
    bool stacked;
    char *title, *x_title, *y_title, *alt; /* may be NULL */
    fo_legend legend;
    int width, height; /* px; default 800 x 500 */
    bool rtl;          /* the document reads right to left: categories run
                          from the right (column, line, area) */
    const char *lang;  /* the document's lang (borrowed), for native charts */
} fo_chart;

typedef struct {
    fo_block_kind kind;
    char *pointer;      /* "/blocks/3", for render-time errors */
    int line, column;   /* of the block in the spec */
    union {
        struct { char *text; int level; } heading; /* level 1..6 */
        struct { char *text; } paragraph;          /* inline markup */
        struct { fo_list_item *items; size_t nitems; bool ordered; } list;
        struct { fo_metric *items; size_t nitems; } metrics;
        struct {
            fo_dataset *data;
            fo_table_col *cols;
            size_t ncols;
            char *caption;   /* inline markup, may be NULL */
            char *sheet;     /* the xlsx sheet's name, legal; NULL: from the caption */
            bool has_totals;
            fo_dir_choice dir; /* "dir": rtl mirrors it (first column on the right) */
            fo_row_style *row_styles; /* "row_styles", sorted by row, one per row */
            size_t nrow_styles;
        } table;
        fo_chart chart;
        struct {
            char *path;        /* resolved; checked to exist and be PNG/JPEG */
            bool is_png;
            int px_width, px_height;  /* the picture's own size */
            double width, height;     /* requested px (0 = natural/aspect) */
            char *alt, *caption;
        } image;
        struct { char *text; char *language; } code;
    } u;
} fo_block;

struct fo_doc {
    fo_arena *arena;
    char *spec_path;    /* as given; NULL for a CSV conversion */
    char spec_sha256[65]; /* hex SHA-256 of the spec's bytes as read; "" for a CSV */
    char *base_dir;     /* folder that relative paths resolve in */
    char *title, *subtitle, *author, *date; /* may be NULL */
    char *lang;         /* spec's "lang", BCP 47 ("de", "ar-EG"); NULL: English,
                           written as en-US (render/core/words.h) */
    fo_dir_choice dir;  /* spec's "dir" */
    bool rtl;           /* default direction right to left: spec's "dir", else
                           from lang (fo_lang_rtl) */
    int max_pages;      /* spec's "max_pages": a PDF table is cut at that page; 0 = none */
    bool xlsx_summary_first; /* spec's "xlsx": {"first_sheet": "summary"}: else a
                                workbook with tables opens on the first one */
    bool prov_appendix; /* spec's "provenance": {"appendix": true}: a closing
                           "How this was computed" section (fo_prov_appendix) */
    int64_t epoch;      /* Unix time for document timestamps: from date, else
                           SOURCE_DATE_EPOCH, else FO_NO_EPOCH (none written) */
    fo_theme theme;
    fo_dataset **datasets;
    size_t ndatasets;
    fo_block *blocks;
    size_t nblocks;
};

/* ---- writers' failures -------------------------------------------------- */
/* The one way a writer reports a failure: located at block b of doc (the
 * spec's file, the block's line, column and JSON Pointer; b NULL: the spec
 * as a whole, no line), with an optional hint. *st keeps the first failure
 * (sticky); every call adds its diagnostic. Each writer family wraps it
 * (fo_docx_fail, fo_pptx_fail, fo_pdf_fail, the xlsx summary's). */
void fo_fail_at(fo_diags *d, fo_status *st, const fo_doc *doc, const fo_block *b, fo_status err,
                const char *hint, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void fo_fail_atv(fo_diags *d, fo_status *st, const fo_doc *doc, const fo_block *b, fo_status err,
                 const char *hint, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* The title block's byline, "author · date" (either alone when the other
 * is missing; wide: two spaces each side of the dot, as slides and PDF set
 * it) into buf; its length, 0 when the document has neither. In a
 * right-to-left document the date follows a left-to-right mark, so that
 * "2026-10-01" after Arabic letters reads as written (without it the
 * bidi algorithm makes its digits Arabic numbers and shows "01-10-2026"). */
size_t fo_doc_byline(const fo_doc *doc, bool wide, char *buf, size_t cap);

/* Unix time used when the spec has no date: 2000-01-01T00:00:00Z. */
#define FO_FIXED_EPOCH 946684800LL
/* No date to put in a document: writers leave creation dates out (xlsx,
 * whose library always writes one, gets FO_FIXED_EPOCH). */
#define FO_NO_EPOCH INT64_MIN
/* SOURCE_DATE_EPOCH (reproducible-builds.org) when set to a valid Unix time,
 * else FO_NO_EPOCH: the epoch of a document without a date. */
int64_t fo_default_epoch(void);

/* Days since 1899-12-30 (Excel serial) for a civil date; and back. */
double fo_excel_serial(int year, int month, int day, int hh, int mm, double ss);
void fo_excel_civil(double serial, int *year, int *month, int *day,
                    int *hh, int *mm, double *ss);
/* Parses "YYYY-MM-DD" or "YYYY-MM-DD[T ]HH:MM[:SS[.fff]]"; *has_time tells which. */
bool fo_parse_iso_date(const char *s, size_t len, double *serial, bool *has_time);

#endif
