/* xlsx_internal.h — private interface of the .xlsx renderer (render/xlsx/).
 *
 * xlsx.c drives one render: plans sheet names, opens the libxlsxwriter
 * workbook, writes the table sheets (sheets.c), the chart data sheets and the
 * charts (charts.c), then the Summary sheet (summary.c). text.c holds the pure
 * helpers the unit tests reach directly: text sanitising, sheet-name
 * legalisation, display widths. Nothing here is public API. */
#ifndef FO_XLSX_INTERNAL_H
#define FO_XLSX_INTERNAL_H

#include <xlsxwriter.h>

#include "base/buf.h"
#include "render/render.h"

/* Excel's limits (Excel specifications and limits, 2016+). */
#define FO_XLSX_MAX_ROWS 1048576u     /* rows per sheet, header included */
#define FO_XLSX_MAX_COLS 16384u
#define FO_XLSX_MAX_CELL_CHARS 32767u /* characters of one cell */
#define FO_XLSX_MAX_URLS 65530u       /* hyperlinks per sheet */
#define FO_XLSX_MAX_URL_CHARS 2079u   /* longest URL Excel accepts */
#define FO_XLSX_NAME_MAX 31u          /* characters of a sheet name */
#define FO_XLSX_NAME_CAP 128u         /* bytes: 31 chars of up to 4 bytes + NUL */

/* Width fitting: rows sampled per table, widest column, in Excel's
 * character units (width of '0' in the default font). */
#define FO_XLSX_WIDTH_SAMPLE 2000u
#define FO_XLSX_WIDTH_MAX 60.0
#define FO_XLSX_WIDTH_MIN 6.0

/* ---- text.c: pure helpers ------------------------------------------------ */


typedef enum {
    /* Cell text: XML-forbidden controls (and CR, which XML would fold into LF)
     * become Excel's _xHHHH_ escape; a literal "_xHHHH_" in the text is
     * protected as "_x005F_xHHHH_" so Excel shows it unchanged. */
    FO_XLSX_CELL,
    /* Names, titles, properties: forbidden controls become a space. */
    FO_XLSX_PLAIN
} fo_xlsx_clean_mode;

/* Returns s (len bytes, NUL-terminated) unchanged when nothing needs fixing,
 * else a fixed NUL-terminated copy in b (valid until the next call on b).
 * In both modes invalid UTF-8, encoded surrogates, U+FFFE and U+FFFF become
 * U+FFFD. Returns NULL only when the buffer cannot grow (out of memory). */
const char *fo_xlsx_clean(fo_buf *b, const char *s, size_t len, fo_xlsx_clean_mode mode);

/* Characters of valid UTF-8 text as Excel counts them (UTF-16 code units:
 * characters beyond the BMP count 2). */
size_t fo_xlsx_char_count(const char *s, size_t len);

/* Display width in character cells: East Asian wide and fullwidth
 * characters count 2, combining marks 0; with line breaks, the widest line. */
double fo_xlsx_text_width(const char *s, size_t len);

/* Column width (Excel units) for a header of header_w and data of data_w
 * cells: room for the autofilter button, clamped to [MIN, MAX]. */
double fo_xlsx_fit_width(double header_w, double data_w);

/* The width in pt that columns of Excel widths w[0..n-1] (characters) take
 * on paper: Excel's w * 7 + 5 px each at 96 dpi. */
double fo_xlsx_columns_pt(const double *w, size_t n);

/* Print setup of sheet w whose columns are width_pt wide: the theme's paper
 * size and margins, landscape when the theme says so or (may_turn: a table's
 * sheet) the columns are wider than a portrait page, and fitted to one page wide (any number of
 * pages tall). Returns the height a page holds, in the sheet's points (the
 * printable height divided by the fit's scale). */
double fo_xlsx_page_setup(const fo_theme *th, lxw_worksheet *w, double width_pt, bool may_turn);

/* True for the links render/core/policy.h allows (http, https, mailto and the
 * caller's --allow-link-scheme); anything else stays text. */
bool fo_xlsx_url_allowed(const char *url);

/* A set of sheet names, compared case-insensitively as Excel does. */
typedef struct {
    char **names;
    size_t n, cap;
} fo_xlsx_names;
void fo_xlsx_names_free(fo_xlsx_names *s);
bool fo_xlsx_names_has(const fo_xlsx_names *s, const char *name);

/* Makes want (UTF-8, may be NULL or empty) a legal sheet name, unique in s,
 * writes it to out and adds it to s: []:*?/\ and control characters are
 * replaced, surrounding spaces and apostrophes trimmed, the name cut to 31
 * characters at a word boundary (dropping brackets the cut left unmatched
 * and trailing punctuation; one long word is cut where it must), "History" and names already in s get " (2)", " (3)"... (the
 * base cut so the whole stays within 31). Empty -> "Sheet".
 * Returns FO_OK or FO_ERR_NOMEM. */
fo_status fo_xlsx_sheet_name(fo_xlsx_names *s, const char *want, char out[FO_XLSX_NAME_CAP]);

/* Writes "'Sheet ''x'''!A1"-style reference prefix for a sheet: the name
 * quoted with apostrophes doubled, followed by '!'. */
void fo_xlsx_sheet_ref(const char *sheet, char *out, size_t cap);

/* libxlsxwriter reads colour 0 as "unset": black is LXW_COLOR_BLACK. */
static inline lxw_color_t fo_xlsx_color(fo_rgb c)
{
    return (c & 0xFFFFFF) ? (lxw_color_t)(c & 0xFFFFFF) : LXW_COLOR_BLACK;
}

/* ---- body.c: a big sheet's rows, written and deflated by folio ------------ */

/* zlib level of the rows' deflate stream (measured on the 200,000-row sales
 * table: see body.c). */
#define FO_XLSX_BODY_LEVEL 4
#define FO_XLSX_NUM_CAP 32

/* v as libxlsxwriter writes a number: printf's "%.16G" (1E+300, -0,
 * 9.199999999999999), most of them without printf. Returns the length
 * (no NUL written). */
size_t fo_xlsx_num(char out[FO_XLSX_NUM_CAP], double v);

/* The <row> elements of one sheet as a raw deflate stream in an unlinked
 * spill file under tmpdir, deflated by a second thread as chunks fill
 * (inline when no thread can start). Each writer below returns false once
 * the stream failed: fo_xlsx_body_error says why (an errno; EFBIG when the
 * deflated bytes passed max_packed, the output ceiling; 0: none). */
typedef struct fo_xlsx_body fo_xlsx_body;
fo_xlsx_body *fo_xlsx_body_new(const char *tmpdir, uint64_t max_packed);
void fo_xlsx_body_free(fo_xlsx_body *b);
int fo_xlsx_body_error(const fo_xlsx_body *b);
/* rn: the row's number as text (rnl bytes); height > 0: a custom height.
 * col: the column's letters; xf: the format's xf index (0: none). Text is
 * clean (fo_xlsx_clean) and written as an inline string. */
bool fo_xlsx_body_row(fo_xlsx_body *b, const char *rn, size_t rnl, double height);
bool fo_xlsx_body_row_end(fo_xlsx_body *b);
bool fo_xlsx_body_number(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, double v);
bool fo_xlsx_body_bool(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, bool v);
bool fo_xlsx_body_text(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, const char *s,
                       size_t len);
/* What the finished stream is: ends with a sync flush (no final block), so
 * that it can be put between other deflated pieces. */
typedef struct {
    int fd; /* the spill (still owned by the body) */
    uint64_t raw, packed;
    uint32_t crc; /* CRC-32 of the raw bytes */
} fo_xlsx_body_info;
/* Flushes and stops the thread; returns fo_xlsx_body_error. */
int fo_xlsx_body_finish(fo_xlsx_body *b, fo_xlsx_body_info *info);

/* ---- the render context -------------------------------------------------- */

/* Where a dataset's cells live, for charts: the first sheet of a table that
 * shows it (or its own data sheet). */
typedef struct {
    const fo_dataset *ds;
    char sheet[FO_XLSX_NAME_CAP];
    size_t *col_of_field;   /* ds->ncols entries: sheet column, or SIZE_MAX */
    size_t rows;            /* data rows on that sheet (from row 1) */
} fo_xlsx_dataref;

/* One planned table: its sheet names (one per part) for the Summary links. */
typedef struct {
    const fo_block *block;
    char (*parts)[FO_XLSX_NAME_CAP];
    size_t nparts;
    size_t parts_cap;       /* parts allocated: more are named while writing */
    size_t rows_written;
} fo_xlsx_table;

/* A cell format made once per workbook. libxlsxwriter caches the style
 * index only in the first of several equal formats: every cell written with
 * a duplicate hashes the whole format again (~15% of the run time), so
 * equal formats are shared instead. */
typedef struct {
    int role;       /* FO_XLSX_FMT_* */
    int style;      /* a styled row's: 1 bold, plus indent levels * 2 */
    char *code;     /* number format, may be NULL */
    lxw_format *f;
} fo_xlsx_fmt;

enum { FO_XLSX_FMT_CELL, FO_XLSX_FMT_URL, FO_XLSX_FMT_TOTAL, FO_XLSX_FMT_HEAD,
       FO_XLSX_FMT_TOTAL_LABEL, FO_XLSX_FMT_WRAP, /* a cell's format, wrapped, top-aligned */
       FO_XLSX_FMT_CELL_RTL,    /* text that reads right to left: readingOrder 2 */
       FO_XLSX_FMT_HEAD_RTL };  /* a header that reads right to left: readingOrder 2 */

typedef struct {
    const fo_doc *doc;
    const fo_theme *th;
    lxw_workbook *wb;
    fo_diags *d;
    bool constant_memory;
    fo_xlsx_names names;
    fo_buf buf, buf2;
    fo_xlsx_table *tables;      /* one per table block, in block order */
    size_t ntables;
    fo_xlsx_dataref *refs;
    size_t nrefs, refcap;
    lxw_worksheet *summary;     /* NULL for a bare CSV conversion */
    fo_xlsx_fmt *fmts;
    size_t nfmts, fmtcap;
    /* folio's own rows (body.c, repack.c): on for a constant_memory
     * workbook; each eligible table part's rows are spliced in at close */
    bool fast;
    const char *tmpdir;
    const char *dest;   /* for messages */
    uint64_t max_bytes; /* the output ceiling */
    struct fo_xlsx_spliced *bodies;
    size_t nbodies, bodycap;
} fo_xlsx;

/* ---- repack.c: the rows spliced into libxlsxwriter's archive --------------- */

/* One sheet whose rows folio wrote. */
typedef struct fo_xlsx_spliced {
    char entry[48]; /* "xl/worksheets/sheet3.xml" */
    fo_xlsx_body *body;
    fo_xlsx_body_info info; /* once done */
    bool done;
} fo_xlsx_spliced;

/* Whether folio writes the rows of a table of ds itself: a table with
 * columns and no links or formulas (a CSV never has them; inline data is
 * looked at), since those need libxlsxwriter's relationships. */
bool fo_xlsx_rows_eligible(const fo_xlsx *x, const fo_dataset *ds, const fo_table_col *cols, size_t ncols);
/* A stream for the rows of sheet w, registered in x; NULL when out of
 * memory. */
fo_xlsx_body *fo_xlsx__body_for(fo_xlsx *x, lxw_worksheet *w);
/* Finishes b's stream; returns its fo_xlsx_body_error. */
int fo_xlsx__body_done(fo_xlsx *x, fo_xlsx_body *b);
/* Frees every stream of x. */
void fo_xlsx__bodies_free(fo_xlsx *x);
/* Writes the archive libxlsxwriter wrote at from into to, every entry
 * copied as it is (still deflated) but the sheets of x->bodies, whose rows
 * go after their header row. FO_OK, or an error reported in d. */
fo_status fo_xlsx_repack(fo_xlsx *x, const char *from, const char *to, fo_diags *d);

/* Diagnostic location of a dataset: the spec file (or the CSV for a
 * conversion) and the dataset's pointer. */
const char *fo_xlsx__ds_file(const fo_xlsx *x, const fo_dataset *ds);

/* sheets.c: writes one table (cols of ds) on its planned sheets; fills t.
 * totals: write the totals row. Returns FO_ERR_INPUT on a cell Excel cannot
 * hold (reported in x->d). */
fo_status fo_xlsx_write_table(fo_xlsx *x, const fo_dataset *ds, const fo_table_col *cols,
                              size_t ncols, bool totals, fo_xlsx_table *t);
/* Planned parts of a table of nrows data rows (with a totals row or not). */
size_t fo_xlsx_parts_for(size_t nrows, bool totals);

/* charts.c: the sheet and columns holding ds, writing a data sheet on first
 * use when no table shows every field the chart needs. */
fo_status fo_xlsx_dataref_for(fo_xlsx *x, const fo_chart *c, const fo_xlsx_dataref **out);
/* Builds the native chart of block b (data refs resolved beforehand). */
fo_status fo_xlsx_chart_build(fo_xlsx *x, const fo_block *b, const fo_xlsx_dataref *ref,
                              lxw_chart **out);

/* summary.c: writes the Summary sheet (x->summary) in block order. */
fo_status fo_xlsx_write_summary(fo_xlsx *x, lxw_chart *const *charts);

/* --template FILE.xlsx: the template's theme fonts and accent colours
 * replace those in *t (template.c). FO_ERR_INPUT names a bad file. */
fo_status fo_xlsx_template_theme(const char *path, fo_theme *t, fo_diags *d);

#endif
