/* infer.h — what a text cell is: column type inference and text-to-value
 * conversion for CSV data (PRODUCT.md §2, "inference loses nothing").
 *
 * Cell syntax recognised (anything else is text):
 *   integer   [+-]digits, no leading zero (but "0"), thousands "1,234,567"
 *             (groups of exactly 3); at most 15 significant digits
 *   number    integer syntax with a fraction (".5", "-12.50") and/or an
 *             exponent ("1e3", "1.5E-05"); at most 15 significant digits
 *   percent   a number without exponent followed by "%": "12.5%" -> 0.125
 *   currency  a leading $ € £ or ¥, after an optional minus, or wrapped in
 *             parentheses for a negative: "$1,234.50", "-€5", "($12)"
 *   date      YYYY-MM-DD; datetime YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z]
 *   boolean   true / false, any case
 * Spaces and tabs around a non-text value are allowed (" 42 " is 42); a text
 * value is always the exact original.
 * Significant digits exclude leading zeros ("0.000123" has 3); "00123" and
 * 16-digit IDs stay text because Excel keeps 15 significant digits. */
#ifndef FO_INFER_H
#define FO_INFER_H

#include "render/core/model.h"

/* Classifies one cell: returns the narrowest fo_type that fits (FO_TYPE_TEXT
 * for empty or anything else) and, via *v (may be NULL), the value converted
 * to it (NUMBER for integer/number/percent/currency, DATE, BOOL; TEXT with
 * str = s otherwise). fmt (may be NULL) receives the suggested Excel format
 * for this one cell, truncated to fmtcap. s need not be NUL-terminated, but
 * a TEXT value's str points at s. */
fo_type fo_infer_cell(const char *s, size_t len, fo_value *v, char *fmt, size_t fmtcap);

/* Converts text to a value of type t (AUTO = infer). Returns false when it
 * does not fit (the caller keeps the original text). An empty s gives
 * FO_VAL_NULL. TEXT always fits (str = s, borrowed). Hint-friendly: PERCENT
 * and CURRENCY also accept a bare number (0.12 stays 0.12); DATE accepts a
 * datetime at exactly midnight; DATETIME accepts a date. */
bool fo_value_from_text(const char *s, size_t len, fo_type t, fo_value *v);

/* Currency symbol of a cell ("$", "€", "£", "¥"), or NULL when it has none. */
const char *fo_infer_currency_symbol(const char *s, size_t len);

/* Column inference accumulator: fo_infer_init, fo_infer_add every cell (empty
 * ones are ignored), then fo_infer_result. The column gets the non-text type
 * that the most non-empty cells fit (integer counts as number, date as
 * datetime; ties go to the narrower type) when at least 90% of them fit it;
 * otherwise text. All-empty -> text. A column of whole numbers holding any
 * code that a number would alter ("00123" zip codes, 20-digit IDs) is text:
 * its other cells are codes too, and "45612" beside "03456" must not become
 * a number. (Among decimals such a cell is a misfit, kept as text.)
 * Plain value type, no allocation. */
typedef struct {
    size_t n;             /* non-empty cells */
    size_t n_int, n_dec;  /* integer cells; decimal/exponent cells */
    size_t n_pct, n_bool, n_date, n_dt;
    size_t n_cur[4];      /* by symbol: $ € £ ¥ */
    int num_min_dec, num_max_dec; /* fraction digits over integer+decimal cells */
    bool num_thousands, num_exp, num_trailing0;
    int pct_dec;          /* max fraction digits of percent cells */
    bool pct_thousands;
    int cur_dec[4];       /* max fraction digits per currency symbol */
    bool cur_paren[4];    /* a (negative) in parentheses was seen */
    bool dt_secs, dt_frac; /* a datetime with seconds / with a fraction */
    size_t n_code;        /* digit strings a number would alter: "00123", 16+ digits */
} fo_infer;

void fo_infer_init(fo_infer *in);
void fo_infer_add(fo_infer *in, const char *s, size_t len);
/* Type of the column and its format (fmt may be NULL; truncated to fmtcap). */
fo_type fo_infer_result(const fo_infer *in, char *fmt, size_t fmtcap);

#endif
