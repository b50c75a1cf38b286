/* infer.c — classifies CSV text cells and infers column types; the rules are
 * in infer.h. Hot path: every CSV cell goes through classify() once per pass,
 * so numbers are converted without strtod when the decimal fast path is exact
 * (at most 15 significant digits and a power of ten up to 1e22). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/core/table.h"
#include "formats/infer.h"

/* What one cell is, before it is mapped onto a column type. */
enum { CK_TEXT, CK_INT, CK_DEC, CK_PCT, CK_CUR, CK_DATE, CK_DT, CK_BOOL };

/* Which day/month orders a d/m/yyyy-style date fits (bits). */
enum { SD_DMY = 1, SD_MDY = 2, SD_YMD = 4 };

typedef struct {
    int kind;
    double value;
    int dec;          /* fraction digits as written */
    int cur;          /* CK_CUR: 0 $, 1 €, 2 £, 3 ¥ */
    bool thousands, exp, trailing0, paren, secs, frac;
    int sd;           /* a d/m/y-style date: the SD_ orders it fits; 0 for ISO */
    char sep;         /* its separator */
} cell;

static const char *const cur_sym[4] = {"$", "\xE2\x82\xAC", "\xC2\xA3", "\xC2\xA5"};
static const size_t cur_len[4] = {1, 3, 2, 2};

static const double p10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* mant * 10^e, correctly rounded; false when it over- or underflows. */
static bool scale10(unsigned long long mant, int e, double *out)
{
    double v;
    if (mant == 0) {
        v = 0.0;
    } else if (e >= 0 && e <= 22) {
        v = (double)mant * p10[e];
    } else if (e < 0 && e >= -22) {
        v = (double)mant / p10[-e];
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "%llue%d", mant, e);
        v = strtod(buf, NULL);
        if (v == 0.0) return false; /* underflow: the digits would be lost */
    }
    if (!isfinite(v)) return false;
    *out = v;
    return true;
}

enum { NUM_SIGN = 1, NUM_EXP = 2 };

/* Parses [sign] int-part [. fraction] [e exponent] over exactly s[0..len).
 * int-part: "0" | [1-9][0-9]* | [1-9][0-9]{0,2}(,[0-9]{3})+ ; may be absent
 * before a fraction (".5"). At most 15 significant digits. extra_e is added
 * to the power of ten (-2 for percent). Text in another notation is first
 * rewritten to this one (normalize()). */
static bool parse_number(const char *s, size_t len, unsigned flags, int extra_e, cell *c)
{
    size_t i = 0;
    bool neg = false;
    unsigned long long mant = 0;
    int sig = 0, int_digits = 0, frac_digits = 0;
    if ((flags & NUM_SIGN) && i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i < len && s[i] == '0') {
        i++;
        int_digits = 1;
        if (i < len && (is_digit(s[i]) || s[i] == ',')) return false;
    } else if (i < len && is_digit(s[i])) {
        size_t group = 0;
        while (i < len && is_digit(s[i])) {
            if (++sig > 15) return false;
            mant = mant * 10 + (unsigned)(s[i++] - '0');
            group++;
            int_digits++;
        }
        if (i < len && s[i] == ',') {
            if (group > 3) return false;
            while (i < len && s[i] == ',') {
                i++;
                for (int k = 0; k < 3; k++, i++) {
                    if (i >= len || !is_digit(s[i])) return false;
                    if (++sig > 15) return false;
                    mant = mant * 10 + (unsigned)(s[i] - '0');
                }
                if (i < len && is_digit(s[i])) return false;
            }
            c->thousands = true;
        }
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && is_digit(s[i])) {
            int dgt = s[i++] - '0';
            frac_digits++;
            if (mant == 0 && dgt == 0) continue; /* leading zero: not significant */
            if (++sig > 15) return false;
            mant = mant * 10 + (unsigned)dgt;
        }
        if (frac_digits == 0) return false; /* "5." */
        c->trailing0 = s[i - 1] == '0';
    }
    if (int_digits == 0 && frac_digits == 0) return false;
    int e = 0;
    if ((flags & NUM_EXP) && i < len && (s[i] == 'e' || s[i] == 'E')) {
        bool eneg = false;
        int edigits = 0;
        i++;
        if (i < len && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        while (i < len && is_digit(s[i])) {
            if (++edigits > 4) return false;
            e = e * 10 + (s[i++] - '0');
        }
        if (edigits == 0) return false;
        if (eneg) e = -e;
        c->exp = true;
    }
    if (i != len) return false;
    double v;
    if (!scale10(mant, e - frac_digits + extra_e, &v)) return false;
    c->value = neg && v != 0.0 ? -v : v;
    c->dec = frac_digits;
    return true;
}

/* The currency symbol at s, as an index into cur_sym, or -1. */
static int match_symbol(const char *s, size_t len)
{
    for (int k = 0; k < 4; k++)
        if (len >= cur_len[k] && memcmp(s, cur_sym[k], cur_len[k]) == 0) return k;
    return -1;
}

/* The currency symbol ending s ("5 €"; not "$": "12$" is no amount), or -1. */
static int match_suffix(const char *s, size_t len)
{
    for (int k = 1; k < 4; k++)
        if (len > cur_len[k] && memcmp(s + len - cur_len[k], cur_sym[k], cur_len[k]) == 0) return k;
    return -1;
}

static void trim(const char **s, size_t *len)
{
    while (*len && ((*s)[0] == ' ' || (*s)[0] == '\t')) (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t')) (*len)--;
}

/* "$1,234.50", "-$5", "$-5", "€ 5", "5 €", "-5 €" and the same with € £ ¥. */
static bool parse_currency(const char *s, size_t len, cell *c)
{
    bool neg = false;
    if (len && s[0] == '-') {
        neg = true;
        s++;
        len--;
    }
    int k = match_symbol(s, len);
    if (k >= 0) {
        s += cur_len[k];
        len -= cur_len[k];
        trim(&s, &len);
        if (!neg && len && s[0] == '-') {
            neg = true;
            s++;
            len--;
        }
    } else {
        if ((k = match_suffix(s, len)) < 0) return false;
        len -= cur_len[k];
        trim(&s, &len);
    }
    if (!parse_number(s, len, 0, 0, c)) return false;
    if (neg && c->value != 0.0) c->value = -c->value;
    c->kind = CK_CUR;
    c->cur = k;
    return true;
}

static bool ieq(const char *s, const char *lit, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        if (ch != lit[i]) return false;
    }
    return true;
}

/* ---- dates ----------------------------------------------------------------*/
static int days_in(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return dm[m - 1];
}

static bool valid_ymd(int y, int m, int d)
{
    return y >= 1900 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= days_in(y, m);
}

/* Reads 1..max digits at s[*i]; false when there are none or more. */
static bool read_int(const char *s, size_t len, size_t *i, int min, int max, int *out)
{
    int n = 0, v = 0;
    while (*i < len && is_digit(s[*i])) {
        if (++n > max) return false;
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return n >= min;
}

/* " H:MM[:SS] [AM|PM]" after a d/m/y date, from s[i]; the day's fraction. */
static bool parse_clock(const char *s, size_t len, size_t i, double *frac, bool *secs)
{
    int hh, mm, ss = 0;
    if (i >= len || (s[i] != ' ' && s[i] != 'T')) return false;
    i++;
    if (!read_int(s, len, &i, 1, 2, &hh) || i >= len || s[i++] != ':' ||
        !read_int(s, len, &i, 2, 2, &mm) || mm > 59)
        return false;
    *secs = i < len && s[i] == ':';
    if (*secs && (i++, !read_int(s, len, &i, 2, 2, &ss) || ss > 59)) return false;
    while (i < len && s[i] == ' ') i++;
    if (len - i == 2 && (ieq(s + i, "am", 2) || ieq(s + i, "pm", 2))) {
        if (hh < 1 || hh > 12) return false;
        hh = hh % 12 + (ieq(s + i, "pm", 2) ? 12 : 0);
        i = len;
    }
    if (i != len || hh > 23) return false;
    *frac = (hh * 3600 + mm * 60 + ss) / 86400.0;
    return true;
}

/* d/m/yyyy, m/d/yyyy (separator / . or -) or yyyy/m/d (/ or .), with an
 * optional clock; read in order nt (ANY: m/d when both fit). */
static bool parse_dmy(const char *s, size_t len, fo_date_order order, cell *c)
{
    size_t i = 0;
    int a, b, y;
    bool ymd = len > 4 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
               (s[4] == '/' || s[4] == '.');
    if (!read_int(s, len, &i, ymd ? 4 : 1, ymd ? 4 : 2, ymd ? &y : &a) || i >= len) return false;
    char sep = s[i++];
    if (sep != '/' && sep != '.' && sep != '-') return false;
    if (!read_int(s, len, &i, 1, 2, ymd ? &a : &b) || i >= len || s[i++] != sep) return false;
    if (!read_int(s, len, &i, ymd ? 1 : 4, ymd ? 2 : 4, ymd ? &b : &y)) return false;
    double frac = 0;
    bool secs = false;
    if (i < len && !parse_clock(s, len, i, &frac, &secs)) return false;
    int fits = ymd ? (valid_ymd(y, a, b) ? SD_YMD : 0)
                   : (valid_ymd(y, b, a) ? SD_DMY : 0) | (valid_ymd(y, a, b) ? SD_MDY : 0);
    int want = order == FO_DATES_DMY ? SD_DMY : order == FO_DATES_MDY ? SD_MDY
             : order == FO_DATES_YMD ? SD_YMD : SD_DMY | SD_MDY | SD_YMD;
    if (!(fits & want)) return false;
    bool dmy = (fits & want) == SD_DMY;
    int m = ymd ? a : dmy ? b : a, d = ymd ? b : dmy ? a : b;
    c->value = fo_excel_serial(y, m, d, 0, 0, 0) + frac;
    c->kind = i < len ? CK_DT : CK_DATE;
    c->secs = secs;
    c->sd = fits;
    c->sep = sep;
    return true;
}

/* An ISO or d/m/y-style date or datetime; false when s is not one. */
static bool classify_date(const char *s, size_t len, const fo_notation *nt, cell *c)
{
    if (len >= 10 && s[4] == '-' && is_digit(s[0])) {
        bool has_time;
        if (fo_parse_iso_date(s, len, &c->value, &has_time)) {
            c->kind = has_time ? CK_DT : CK_DATE;
            c->secs = has_time && len >= 19 && s[16] == ':';
            c->frac = c->secs && len > 19 && s[19] == '.';
        }
        return true; /* an ISO-looking text that is no date stays text */
    }
    if (len < 6 || !is_digit(s[0])) return false;
    if (!parse_dmy(s, len, nt->dates, c)) {
        c->sd = 0;
        return false;
    }
    return true;
}

/* ---- numbers ----------------------------------------------------------------*/
/* Rewrites a number written with ',' decimals ("1.234,56", "1 234,56") into
 * '.' decimals with ',' thousands; false when it does not fit out. */
static bool normalize(const char *s, size_t len, char *out, size_t cap, size_t *olen)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        size_t skip = 0;
        if (ch == ' ') skip = 0;
        else if (len - i >= 2 && memcmp(s + i, "\xC2\xA0", 2) == 0) skip = 1;
        else if (len - i >= 3 && memcmp(s + i, "\xE2\x80\xAF", 3) == 0) skip = 2;
        else skip = SIZE_MAX;
        bool group = skip != SIZE_MAX && i > 0 && is_digit(s[i - 1]) && i + skip + 1 < len &&
                     is_digit(s[i + skip + 1]); /* a space between digits: thousands */
        if (skip == SIZE_MAX) skip = 0;
        if (ch == '.') ch = ',';
        else if (ch == ',') ch = '.';
        else if (group) ch = ',';
        else skip = 0;
        if (n + 1 >= cap) return false;
        out[n++] = ch;
        i += skip;
    }
    *olen = n;
    return true;
}

/* A number, percent or amount, maybe negative in parentheses. */
static void classify_numeric(const char *s, size_t len, cell *c)
{
    bool paren = len >= 3 && s[0] == '(' && s[len - 1] == ')';
    if (paren) {
        s++;
        len -= 2;
        trim(&s, &len);
        if (!len || s[0] == '-' || s[0] == '+') return;
    }
    if (len > 1 && s[len - 1] == '%') {
        size_t l = len - 1;
        while (l && s[l - 1] == ' ') l--;
        if (parse_number(s, l, NUM_SIGN, -2, c)) c->kind = CK_PCT;
    } else if (!parse_currency(s, len, c)) {
        memset(c, 0, sizeof *c);
        if (parse_number(s, len, NUM_SIGN | NUM_EXP, 0, c)) c->kind = (c->dec || c->exp) ? CK_DEC : CK_INT;
    }
    if (paren && c->kind != CK_TEXT) {
        c->value = -c->value;
        c->paren = true;
    }
}

/* Classifies s[0..len) (non-empty) in notation nt. Surrounding spaces and
 * tabs are allowed around a non-text value. */
static void classify(const char *s, size_t len, const fo_notation *nt, cell *c)
{
    memset(c, 0, sizeof *c);
    c->kind = CK_TEXT;
    trim(&s, &len);
    if (len == 0) return;
    if (classify_date(s, len, nt, c)) return;
    if (len == 4 && ieq(s, "true", 4)) {
        c->kind = CK_BOOL;
        c->value = 1;
        return;
    }
    if (len == 5 && ieq(s, "false", 5)) {
        c->kind = CK_BOOL;
        return;
    }
    char buf[128];
    if (nt->decimal == ',') {
        if (!normalize(s, len, buf, sizeof buf, &len)) return;
        s = buf;
    }
    classify_numeric(s, len, c);
    if (c->kind == CK_TEXT) memset(c, 0, sizeof *c);
}

static void set_num(fo_value *v, fo_val_kind k, double num)
{
    memset(v, 0, sizeof *v);
    v->kind = k;
    v->num = num;
}

static void set_text(fo_value *v, const char *s)
{
    memset(v, 0, sizeof *v);
    v->kind = FO_VAL_TEXT;
    v->str = s;
}

/* ---- missing markers -------------------------------------------------------*/
bool fo_infer_is_missing(const char *s, size_t len)
{
    static const char *const marks[] = {"n/a", "na", "-", "--", "\xE2\x80\x94", "\xE2\x80\x93",
                                        "null", "none", "nan", "?", "#n/a", "missing", ".",
                                        "\xE2\x88\x9E", "-\xE2\x88\x9E", NULL}; /* ∞, -∞: "nan": "text" */
    trim(&s, &len);
    for (size_t i = 0; marks[i]; i++)
        if (strlen(marks[i]) == len && ieq(s, marks[i], len)) return true;
    return false;
}

/* ---- column accumulator ---------------------------------------------------*/
void fo_infer_init(fo_infer *in)
{
    memset(in, 0, sizeof *in);
    in->nt = FO_NOTATION_DEFAULT;
    in->num_min_dec = -1;
}

static void add_number(fo_infer *in, const cell *c)
{
    if (c->kind == CK_INT) in->n_int++;
    else in->n_dec++;
    if (in->num_min_dec < 0 || c->dec < in->num_min_dec) in->num_min_dec = c->dec;
    if (c->dec > in->num_max_dec) in->num_max_dec = c->dec;
    in->num_thousands |= c->thousands;
    in->num_exp |= c->exp;
    in->num_trailing0 |= c->trailing0;
    in->num_paren |= c->paren;
}

static void add_date(fo_infer *in, const cell *c)
{
    if (c->kind == CK_DATE) in->n_date++;
    else {
        in->n_dt++;
        in->dt_secs |= c->secs;
        in->dt_frac |= c->frac;
    }
    if (!c->sd) return;
    if (!in->n_slash++) in->date_sep = c->sep;
    if (c->sd == SD_DMY) in->n_dmy_only++;
    else if (c->sd == SD_MDY) in->n_mdy_only++;
    else if (c->sd == (SD_DMY | SD_MDY)) in->n_dm_both++;
}

static void add_cell(fo_infer *in, const cell *c)
{
    in->n++;
    switch (c->kind) {
    case CK_INT:
    case CK_DEC: add_number(in, c); break;
    case CK_PCT:
        in->n_pct++;
        if (c->dec > in->pct_dec) in->pct_dec = c->dec;
        in->pct_thousands |= c->thousands;
        break;
    case CK_CUR:
        in->n_cur[c->cur]++;
        if (c->dec > in->cur_dec[c->cur]) in->cur_dec[c->cur] = c->dec;
        in->cur_paren[c->cur] |= c->paren;
        break;
    case CK_DATE: case CK_DT: add_date(in, c); break;
    case CK_BOOL: in->n_bool++; break;
    default: break;
    }
}

/* All digits, and either a leading zero or more digits than Excel keeps. */
static bool is_code(const char *s, size_t len)
{
    if (len < 2 || (s[0] != '0' && len <= 15)) return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static bool fits(const cell *c, fo_type t);

void fo_infer_add(fo_infer *in, const char *s, size_t len)
{
    if (len == 0 || fo_infer_is_missing(s, len)) return;
    if (is_code(s, len)) in->n_code++;
    cell c;
    classify(s, len, &in->nt, &c);
    add_cell(in, &c);
    if (in->declared != FO_TYPE_AUTO && in->declared != FO_TYPE_TEXT && !fits(&c, in->declared))
        in->n_misfit++;
}

void fo_infer_add_value(fo_infer *in, const fo_value *v)
{
    cell c;
    memset(&c, 0, sizeof c);
    switch (v->kind) {
    case FO_VAL_NULL: return;
    case FO_VAL_TEXT: fo_infer_add(in, v->str, strlen(v->str)); return;
    case FO_VAL_FORMULA:
        if (!v->has_num && fo_table_is_error(v->label)) return; /* #NUM!: a missing value */
        if (!v->has_num) break;
        /* fall through */
    case FO_VAL_NUMBER:
        c.kind = v->num == floor(v->num) && fabs(v->num) < 1e15 ? CK_INT : CK_DEC;
        c.value = v->num;
        break;
    case FO_VAL_DATE: c.kind = v->num == floor(v->num) ? CK_DATE : CK_DT; break;
    case FO_VAL_BOOL: c.kind = CK_BOOL; break;
    case FO_VAL_URL:
    default: break;
    }
    add_cell(in, &c);
}

/* "#,##0.00" / "0.0": integer part then dec zeros; "(…)" negatives when paren. */
static void body_format(char *out, size_t cap, bool thousands, int dec)
{
    char zeros[32];
    if (dec > 30) dec = 30;
    memset(zeros, '0', (size_t)dec);
    zeros[dec] = '\0';
    snprintf(out, cap, "%s%s%s", thousands ? "#,##0" : "0", dec ? "." : "", zeros);
}

static void put(char *fmt, size_t cap, const char *s)
{
    if (fmt && cap) snprintf(fmt, cap, "%s", s);
}

fo_date_order fo_infer_date_order(const fo_infer *in, bool *ambiguous)
{
    if (ambiguous) *ambiguous = false;
    if (in->nt.dates != FO_DATES_ANY) return in->nt.dates;
    if (in->n_dmy_only && in->n_dmy_only >= in->n_mdy_only) return FO_DATES_DMY;
    if (in->n_mdy_only) return FO_DATES_MDY;
    if (!in->n_dm_both) return FO_DATES_ANY;
    if (ambiguous) *ambiguous = true;
    return FO_DATES_MDY;
}

static int best_currency(const fo_infer *in)
{
    int best = 0;
    for (int k = 1; k < 4; k++)
        if (in->n_cur[k] > in->n_cur[best]) best = k;
    return best;
}

static void number_format(const fo_infer *in, char *fmt, size_t cap, bool integer)
{
    char body[48], buf[128];
    bool fixed = in->num_min_dec == in->num_max_dec || in->num_trailing0 || in->num_thousands;
    if (!integer && (in->num_exp || !fixed)) {
        put(fmt, cap, "General");
        return;
    }
    body_format(body, sizeof body, in->num_thousands, integer ? 0 : in->num_max_dec);
    if (in->num_paren) snprintf(buf, sizeof buf, "%s;(%s)", body, body);
    else snprintf(buf, sizeof buf, "%s", body);
    put(fmt, cap, buf);
}

static void currency_format(const fo_infer *in, char *fmt, size_t cap)
{
    char sym[16], body[48], buf[128];
    int k = best_currency(in);
    if (k == 0) snprintf(sym, sizeof sym, "$");
    else snprintf(sym, sizeof sym, "[$%s]", cur_sym[k]);
    body_format(body, sizeof body, true, in->n_cur[k] ? in->cur_dec[k] : 2);
    if (in->cur_paren[k] || (!in->n_cur[k] && in->num_paren))
        snprintf(buf, sizeof buf, "%s%s;(%s%s)", sym, body, sym, body);
    else snprintf(buf, sizeof buf, "%s%s", sym, body);
    put(fmt, cap, buf);
}

/* The d/m/y notation of a column whose dates are mostly written that way. */
static bool slash_format(const fo_infer *in, fo_type t, char *fmt, size_t cap)
{
    if (in->n_slash * 2 <= in->n_date + in->n_dt) return false;
    fo_date_order o = fo_infer_date_order(in, NULL);
    char sp = in->date_sep ? in->date_sep : '/', buf[64];
    const char *time = t == FO_TYPE_DATETIME ? (in->dt_secs ? " hh:mm:ss" : " hh:mm") : "";
    if (o == FO_DATES_DMY) snprintf(buf, sizeof buf, "dd%cmm%cyyyy%s", sp, sp, time);
    else if (o == FO_DATES_MDY) snprintf(buf, sizeof buf, "mm%cdd%cyyyy%s", sp, sp, time);
    else if (o == FO_DATES_YMD || in->n_slash) snprintf(buf, sizeof buf, "yyyy%cmm%cdd%s", sp, sp, time);
    else return false;
    put(fmt, cap, buf);
    return true;
}

void fo_infer_format(const fo_infer *in, fo_type t, char *fmt, size_t cap)
{
    char body[48], buf[128];
    switch (t) {
    case FO_TYPE_INTEGER: number_format(in, fmt, cap, true); break;
    case FO_TYPE_NUMBER: number_format(in, fmt, cap, false); break;
    case FO_TYPE_PERCENT:
        body_format(body, sizeof body, in->pct_thousands, in->pct_dec);
        snprintf(buf, sizeof buf, "%s%%", body);
        put(fmt, cap, buf);
        break;
    case FO_TYPE_CURRENCY: currency_format(in, fmt, cap); break;
    case FO_TYPE_DATE:
        if (!slash_format(in, t, fmt, cap)) put(fmt, cap, "yyyy-mm-dd");
        break;
    case FO_TYPE_DATETIME:
        if (!slash_format(in, t, fmt, cap))
            put(fmt, cap, in->dt_frac ? "yyyy-mm-dd hh:mm:ss.000"
                          : in->dt_secs ? "yyyy-mm-dd hh:mm:ss" : "yyyy-mm-dd hh:mm");
        break;
    case FO_TYPE_AUTO: case FO_TYPE_TEXT: case FO_TYPE_BOOLEAN:
    default: put(fmt, cap, fo_type_default_format(t)); break;
    }
}

fo_type fo_infer_result(const fo_infer *in, char *fmt, size_t fmtcap)
{
    if (in->n_code && in->n_dec == 0) {
        put(fmt, fmtcap, "@");
        return FO_TYPE_TEXT;
    }
    /* Candidates, narrowest first: a later one wins only with more cells. */
    const struct { fo_type t; size_t n; } cand[] = {
        {FO_TYPE_BOOLEAN, in->n_bool},
        {FO_TYPE_INTEGER, in->n_int},
        {FO_TYPE_NUMBER, in->n_int + in->n_dec},
        {FO_TYPE_DATE, in->n_date},
        {FO_TYPE_DATETIME, in->n_date + in->n_dt},
        {FO_TYPE_PERCENT, in->n_pct},
        {FO_TYPE_CURRENCY, in->n_cur[best_currency(in)]},
    };
    fo_type t = FO_TYPE_TEXT;
    size_t best = 0;
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++)
        if (cand[i].n > best) {
            best = cand[i].n;
            t = cand[i].t;
        }
    if (best == 0 || best * 10 < in->n * 9) t = FO_TYPE_TEXT;
    fo_infer_format(in, t, fmt, fmtcap);
    return t;
}

/* ---- single cells ---------------------------------------------------------*/
static fo_type cell_type(int kind)
{
    switch (kind) {
    case CK_INT: return FO_TYPE_INTEGER;
    case CK_DEC: return FO_TYPE_NUMBER;
    case CK_PCT: return FO_TYPE_PERCENT;
    case CK_CUR: return FO_TYPE_CURRENCY;
    case CK_DATE: return FO_TYPE_DATE;
    case CK_DT: return FO_TYPE_DATETIME;
    case CK_BOOL: return FO_TYPE_BOOLEAN;
    default: return FO_TYPE_TEXT;
    }
}

static void cell_value(const cell *c, const char *s, fo_value *v)
{
    switch (c->kind) {
    case CK_INT: case CK_DEC: case CK_PCT: case CK_CUR:
        set_num(v, FO_VAL_NUMBER, c->value);
        break;
    case CK_DATE: case CK_DT: set_num(v, FO_VAL_DATE, c->value); break;
    case CK_BOOL: set_num(v, FO_VAL_BOOL, c->value); break;
    default: set_text(v, s); break;
    }
}

fo_type fo_infer_cell(const char *s, size_t len, fo_value *v, char *fmt, size_t fmtcap)
{
    cell c;
    if (len == 0) {
        if (v) {
            memset(v, 0, sizeof *v);
            v->kind = FO_VAL_NULL;
        }
        put(fmt, fmtcap, fo_type_default_format(FO_TYPE_TEXT));
        return FO_TYPE_TEXT;
    }
    fo_notation nt = FO_NOTATION_DEFAULT;
    classify(s, len, &nt, &c);
    if (v) cell_value(&c, s, v);
    if (fmt && fmtcap) {
        fo_infer in;
        fo_infer_init(&in);
        add_cell(&in, &c);
        fo_infer_result(&in, fmt, fmtcap);
    }
    return cell_type(c.kind);
}

const char *fo_infer_currency_symbol(const char *s, size_t len)
{
    while (len && (s[0] == ' ' || s[0] == '\t' || s[0] == '-' || s[0] == '(')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == ')')) len--;
    int k = match_symbol(s, len);
    if (k < 0) k = match_suffix(s, len);
    return k < 0 ? NULL : cur_sym[k];
}

const char *fo_infer_format_symbol(const char *fmt)
{
    static const char *const syms[] = {"\xE2\x82\xAC", "\xC2\xA3", "\xC2\xA5", "$"};
    if (!fmt) return NULL;
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        if (strstr(fmt, syms[i])) return syms[i];
    return NULL;
}

fo_notation fo_column_notation(const fo_column *col)
{
    fo_notation nt = FO_NOTATION_DEFAULT;
    if (col->decimal == ',') nt.decimal = ',';
    nt.dates = col->dates;
    return nt;
}

static bool fits(const cell *c, fo_type t)
{
    switch (t) {
    case FO_TYPE_AUTO: return true;
    case FO_TYPE_INTEGER:
        return c->kind == CK_INT || (c->kind == CK_DEC && c->value == floor(c->value) && fabs(c->value) < 1e15);
    case FO_TYPE_NUMBER: return c->kind == CK_INT || c->kind == CK_DEC || c->kind == CK_CUR;
    case FO_TYPE_PERCENT: return c->kind == CK_PCT || c->kind == CK_INT || c->kind == CK_DEC;
    case FO_TYPE_CURRENCY: return c->kind == CK_CUR || c->kind == CK_INT || c->kind == CK_DEC;
    case FO_TYPE_DATE: return c->kind == CK_DATE || (c->kind == CK_DT && c->value == floor(c->value));
    case FO_TYPE_DATETIME: return c->kind == CK_DATE || c->kind == CK_DT;
    case FO_TYPE_BOOLEAN: return c->kind == CK_BOOL;
    case FO_TYPE_TEXT:
    default: return false;
    }
}

bool fo_value_from_text_n(const char *s, size_t len, fo_type t, const fo_notation *nt,
                          fo_value *v)
{
    cell c;
    if (len == 0) {
        memset(v, 0, sizeof *v);
        v->kind = FO_VAL_NULL;
        return true;
    }
    if (t == FO_TYPE_TEXT) {
        set_text(v, s);
        return true;
    }
    classify(s, len, nt, &c);
    if (!fits(&c, t)) return false;
    cell_value(&c, s, v);
    return true;
}

bool fo_value_from_text(const char *s, size_t len, fo_type t, fo_value *v)
{
    fo_notation nt = FO_NOTATION_DEFAULT;
    return fo_value_from_text_n(s, len, t, &nt, v);
}

bool fo_infer_convert(const fo_column *col, const char *fmt_sym, const char *s, size_t len,
                      fo_value *v)
{
    fo_type t = col->type;
    if (len == 0 || t == FO_TYPE_TEXT) {
        fo_value_from_text(s, len, FO_TYPE_TEXT, v); /* NULL, or the text */
        return true;
    }
    bool plain_misfit = col->inferred &&
                        ((t == FO_TYPE_PERCENT && !memchr(s, '%', len)) ||
                         (t == FO_TYPE_CURRENCY && !fo_infer_currency_symbol(s, len)));
    fo_notation nt = fo_column_notation(col);
    if (!plain_misfit && fo_value_from_text_n(s, len, t, &nt, v)) {
        if (t != FO_TYPE_CURRENCY || !fmt_sym) return true;
        const char *sym = fo_infer_currency_symbol(s, len);
        if (!sym || strcmp(sym, fmt_sym) == 0) return true; /* bare number or same symbol */
    }
    set_text(v, s);
    return false;
}

fo_date_order fo_date_order_parse(const char *s)
{
    char order[4];
    size_t n = 0;
    for (char prev = 0; *s; prev = *s++) {
        char ch = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
        if (ch != 'd' && ch != 'm' && ch != 'y') {
            if (strchr("/.- ", *s)) continue;
            return FO_DATES_ANY;
        }
        if (prev && (prev | 0x20) == ch) continue;
        if (n == 3 || memchr(order, ch, n)) return FO_DATES_ANY;
        order[n++] = ch;
    }
    if (n != 3) return FO_DATES_ANY;
    if (memcmp(order, "dmy", 3) == 0) return FO_DATES_DMY;
    if (memcmp(order, "mdy", 3) == 0) return FO_DATES_MDY;
    if (memcmp(order, "ymd", 3) == 0) return FO_DATES_YMD;
    return FO_DATES_ANY;
}
