/* infer.h — what a text cell is: column type inference and text-to-value
 * conversion for CSV data and text cells of inline rows (PRODUCT.md §2,
 * "inference loses nothing").
 *
 * Cell syntax recognised (anything else is text):
 *   integer   [+-]digits, no leading zero (but "0"), thousands "1,234,567"
 *             (groups of exactly 3); at most 15 significant digits
 *   number    integer syntax with a fraction (".5", "-12.50") and/or an
 *             exponent ("1e3", "1.5E-05"); at most 15 significant digits
 *   percent   a number without exponent followed by "%" (a space may come
 *             between): "12.5%" -> 0.125
 *   currency  a $ € £ or ¥ before the number (after an optional minus, or
 *             with the minus after it) or after it ("1.200,00 €"):
 *             "$1,234.50", "-€5", "$-5"
 *   negative  any number, percent or amount in parentheses: "(1,234)" -1234,
 *             "($12)" -12
 *   date      YYYY-MM-DD; d/m/yyyy or m/d/yyyy (one or two digits, the
 *             separator / . or -, the same twice) and yyyy/mm/dd; datetime:
 *             the same plus [T ]HH:MM[:SS[.fff]][Z] (ISO) or " H:MM[:SS]"
 *             with an optional AM/PM
 *   boolean   true / false, any case
 * A column's notation changes two things: its decimal separator (',' makes
 * "1.234,56" and "1 234,56" read as 1234.56) and its day/month order.
 * Spaces and tabs around a non-text value are allowed (" 42 " is 42); a text
 * value is always the exact original.
 * Significant digits exclude leading zeros ("0.000123" has 3); "00123" and
 * 16-digit IDs stay text because Excel keeps 15 significant digits.
 * Missing-value markers ("n/a", "NA", "-", "—", "null", "none", "nan", "?",
 * "#N/A", "missing"; any case) do not count against a column's type: they
 * stay as the text they are, like any other misfit. */
#ifndef FO_INFER_H
#define FO_INFER_H

#include "render/core/model.h"

/* How a column writes numbers and dates. FO_NOTATION_DEFAULT: '.' decimals,
 * day/month order read from each cell (a cell that fits both reads m/d). */
typedef struct {
    char decimal;          /* '.' or ',' */
    fo_date_order dates;
} fo_notation;
#define FO_NOTATION_DEFAULT ((fo_notation){'.', FO_DATES_ANY})
/* The notation col's cells are written in. */
fo_notation fo_column_notation(const fo_column *col);

/* Classifies one cell: returns the narrowest fo_type that fits (FO_TYPE_TEXT
 * for empty or anything else) and, via *v (may be NULL), the value converted
 * to it (NUMBER for integer/number/percent/currency, DATE, BOOL; TEXT with
 * str = s otherwise). fmt (may be NULL) receives the suggested Excel format
 * for this one cell, truncated to fmtcap. s need not be NUL-terminated, but
 * a TEXT value's str points at s. Default notation. */
fo_type fo_infer_cell(const char *s, size_t len, fo_value *v, char *fmt, size_t fmtcap);

/* Converts text to a value of type t (AUTO = infer). Returns false when it
 * does not fit (the caller keeps the original text). An empty s gives
 * FO_VAL_NULL. TEXT always fits (str = s, borrowed). Hint-friendly: PERCENT
 * and CURRENCY also accept a bare number (0.12 stays 0.12), NUMBER accepts
 * an amount ("$1,200" is 1200), INTEGER a whole decimal ("1,200.00"); DATE
 * accepts a datetime at exactly midnight; DATETIME accepts a date.
 * fo_value_from_text reads with FO_NOTATION_DEFAULT; nt may not be NULL. */
bool fo_value_from_text(const char *s, size_t len, fo_type t, fo_value *v);
bool fo_value_from_text_n(const char *s, size_t len, fo_type t, const fo_notation *nt,
                          fo_value *v);

/* One cell of column col as its value: empty -> NULL, a cell that fits the
 * column's type -> that value, anything else -> TEXT with str = s (borrowed);
 * returns false for that last case (a misfit). In a column whose type was
 * inferred, a plain number among percentages ("5" beside "12%") or amounts
 * is a misfit, not silently scaled or re-labelled; an amount whose symbol is
 * not fmt_sym (the symbol of the column's format, NULL = any) is a misfit. */
bool fo_infer_convert(const fo_column *col, const char *fmt_sym, const char *s, size_t len,
                      fo_value *v);
/* The currency symbol a format code shows ("[$€]#,##0" -> "€", "$0" -> "$"),
 * or NULL. */
const char *fo_infer_format_symbol(const char *fmt);

/* Currency symbol of a cell ("$", "€", "£", "¥"), or NULL when it has none. */
const char *fo_infer_currency_symbol(const char *s, size_t len);
/* True when s is a missing-value marker such as "n/a" or "-" (see top). */
bool fo_infer_is_missing(const char *s, size_t len);

/* Column inference accumulator: fo_infer_init, optionally set .nt, then
 * fo_infer_add every cell (empty ones and missing markers are ignored), then
 * fo_infer_result. The column gets the non-text type that the most counted
 * cells fit (integer counts as number, date as datetime; ties go to the
 * narrower type) when at least 90% of them fit it; otherwise text.
 * All-empty -> text. A column of whole numbers holding any code that a
 * number would alter ("00123" zip codes, 20-digit IDs) is text: its other
 * cells are codes too, and "45612" beside "03456" must not become a number.
 * (Among decimals such a cell is a misfit, kept as text.)
 * Plain value type, no allocation. */
typedef struct {
    fo_notation nt;       /* how cells are read; FO_NOTATION_DEFAULT after init */
    fo_type declared;     /* a type the spec gives (AUTO = none; set after init) */
    size_t n_misfit;      /* counted cells that do not fit declared */
    size_t n;             /* counted cells: non-empty, not a missing marker */
    size_t n_int, n_dec;  /* integer cells; decimal/exponent cells */
    size_t n_pct, n_bool, n_date, n_dt;
    size_t n_cur[4];      /* by symbol: $ € £ ¥ */
    int num_min_dec, num_max_dec; /* fraction digits over integer+decimal cells */
    bool num_thousands, num_exp, num_trailing0, num_paren;
    int pct_dec;          /* max fraction digits of percent cells */
    bool pct_thousands;
    int cur_dec[4];       /* max fraction digits per currency symbol */
    bool cur_paren[4];    /* a (negative) in parentheses was seen */
    bool dt_secs, dt_frac; /* a datetime with seconds / with a fraction */
    size_t n_code;        /* digit strings a number would alter: "00123", 16+ digits */
    size_t n_slash;       /* dates written d/m/y, m/d/y or y/m/d */
    size_t n_dmy_only, n_mdy_only, n_dm_both; /* d/m/y-style cells by the orders they fit */
    char date_sep;        /* separator of the first d/m/y-style date */
} fo_infer;

void fo_infer_init(fo_infer *in);
void fo_infer_add(fo_infer *in, const char *s, size_t len);
/* Counts a value that is already typed (an inline JSON number, date or
 * boolean) as a cell of its kind. */
void fo_infer_add_value(fo_infer *in, const fo_value *v);
/* Type of the column and its format (fmt may be NULL; truncated to fmtcap). */
fo_type fo_infer_result(const fo_infer *in, char *fmt, size_t fmtcap);
/* The format a column of type t shows its cells with (a declared type: the
 * currency symbol, decimals and date notation its cells use). */
void fo_infer_format(const fo_infer *in, fo_type t, char *fmt, size_t fmtcap);
/* The day/month order of the column's d/m/y-style dates: in->nt.dates when
 * given; else the order all (or most) of them fit. *ambiguous is set when
 * every one fits both (read m/d then). */
fo_date_order fo_infer_date_order(const fo_infer *in, bool *ambiguous);

/* Parses a spec's "date_format" ("dd/mm/yyyy", "m/d/yyyy", "yyyy-mm-dd",
 * "DD.MM.YYYY"): the order of d, m and y. FO_DATES_ANY when it is not one. */
fo_date_order fo_date_order_parse(const char *s);

#endif
