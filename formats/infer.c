/* infer.c — classifies CSV text cells and infers column types; the rules are
 * in infer.h. Hot path: every CSV cell goes through classify() once per pass,
 * so numbers are converted without strtod when the decimal fast path is exact
 * (at most 15 significant digits and a power of ten up to 1e22). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/infer.h"

/* What one cell is, before it is mapped onto a column type. */
enum { CK_TEXT, CK_INT, CK_DEC, CK_PCT, CK_CUR, CK_DATE, CK_DT, CK_BOOL };

typedef struct {
    int kind;
    double value;
    int dec;          /* fraction digits as written */
    int cur;          /* CK_CUR: 0 $, 1 €, 2 £, 3 ¥ */
    bool thousands, exp, trailing0, paren, secs, frac;
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
 * to the power of ten (-2 for percent). */
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

/* "$1,234.50", "-$5", "$-5", "($12)" and the same with € £ ¥. */
static bool parse_currency(const char *s, size_t len, cell *c)
{
    bool paren = false, neg = false;
    if (len && s[0] == '(') {
        if (len < 2 || s[len - 1] != ')') return false;
        paren = true;
        s++;
        len -= 2;
    } else if (len && s[0] == '-') {
        neg = true;
        s++;
        len--;
    }
    int k = match_symbol(s, len);
    if (k < 0) return false;
    s += cur_len[k];
    len -= cur_len[k];
    if (!paren && !neg && len && s[0] == '-') {
        neg = true;
        s++;
        len--;
    }
    if (!parse_number(s, len, 0, 0, c)) return false;
    if ((paren || neg) && c->value != 0.0) c->value = -c->value;
    c->kind = CK_CUR;
    c->cur = k;
    c->paren = paren;
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

/* Classifies s[0..len) (non-empty). Surrounding spaces and tabs are allowed
 * around a non-text value. */
static void classify(const char *s, size_t len, cell *c)
{
    memset(c, 0, sizeof *c);
    c->kind = CK_TEXT;
    while (len && (s[0] == ' ' || s[0] == '\t')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    if (len == 0) return;
    unsigned char ch = (unsigned char)s[0];
    if (is_digit((char)ch) || ch == '-' || ch == '+' || ch == '.') {
        if (len >= 10 && s[4] == '-' && is_digit((char)ch)) {
            bool has_time;
            if (fo_parse_iso_date(s, len, &c->value, &has_time)) {
                c->kind = has_time ? CK_DT : CK_DATE;
                c->secs = has_time && len >= 19 && s[16] == ':';
                c->frac = c->secs && len > 19 && s[19] == '.';
            }
            return;
        }
        if (s[len - 1] == '%') {
            if (parse_number(s, len - 1, NUM_SIGN, -2, c)) c->kind = CK_PCT;
            return;
        }
        if (ch == '-' && len > 1 && !is_digit(s[1]) && s[1] != '.') {
            parse_currency(s, len, c);
            return;
        }
        if (parse_number(s, len, NUM_SIGN | NUM_EXP, 0, c))
            c->kind = (c->dec || c->exp) ? CK_DEC : CK_INT;
        return;
    }
    if (ch == '$' || ch == '(' || ch == 0xE2 || ch == 0xC2) {
        parse_currency(s, len, c);
        return;
    }
    if (len == 4 && ieq(s, "true", 4)) {
        c->kind = CK_BOOL;
        c->value = 1;
    } else if (len == 5 && ieq(s, "false", 5)) {
        c->kind = CK_BOOL;
        c->value = 0;
    }
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

/* ---- column accumulator ---------------------------------------------------*/
void fo_infer_init(fo_infer *in)
{
    memset(in, 0, sizeof *in);
    in->num_min_dec = -1;
}

static void add_cell(fo_infer *in, const cell *c)
{
    in->n++;
    switch (c->kind) {
    case CK_INT:
    case CK_DEC:
        if (c->kind == CK_INT) in->n_int++; else in->n_dec++;
        if (in->num_min_dec < 0 || c->dec < in->num_min_dec) in->num_min_dec = c->dec;
        if (c->dec > in->num_max_dec) in->num_max_dec = c->dec;
        in->num_thousands |= c->thousands;
        in->num_exp |= c->exp;
        in->num_trailing0 |= c->trailing0;
        break;
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
    case CK_DATE: in->n_date++; break;
    case CK_DT:
        in->n_dt++;
        in->dt_secs |= c->secs;
        in->dt_frac |= c->frac;
        break;
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

void fo_infer_add(fo_infer *in, const char *s, size_t len)
{
    if (len == 0) return;
    if (is_code(s, len)) in->n_code++;
    cell c;
    classify(s, len, &c);
    add_cell(in, &c);
}

/* "#,##0.00" / "0.0": integer part then dec zeros. */
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

fo_type fo_infer_result(const fo_infer *in, char *fmt, size_t fmtcap)
{
    if (in->n_code && in->n_dec == 0) {
        put(fmt, fmtcap, "@");
        return FO_TYPE_TEXT;
    }
    int best_cur = 0;
    for (int k = 1; k < 4; k++)
        if (in->n_cur[k] > in->n_cur[best_cur]) best_cur = k;
    /* Candidates, narrowest first: a later one wins only with more cells. */
    const struct { fo_type t; size_t n; } cand[] = {
        {FO_TYPE_BOOLEAN, in->n_bool},
        {FO_TYPE_INTEGER, in->n_int},
        {FO_TYPE_NUMBER, in->n_int + in->n_dec},
        {FO_TYPE_DATE, in->n_date},
        {FO_TYPE_DATETIME, in->n_date + in->n_dt},
        {FO_TYPE_PERCENT, in->n_pct},
        {FO_TYPE_CURRENCY, in->n_cur[best_cur]},
    };
    fo_type t = FO_TYPE_TEXT;
    size_t best = 0;
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++)
        if (cand[i].n > best) {
            best = cand[i].n;
            t = cand[i].t;
        }
    if (best == 0 || best * 10 < in->n * 9) t = FO_TYPE_TEXT;

    char body[48], buf[128];
    switch (t) {
    case FO_TYPE_INTEGER:
        put(fmt, fmtcap, in->num_thousands ? "#,##0" : "0");
        break;
    case FO_TYPE_NUMBER: {
        int dec = in->num_max_dec;
        bool fixed = in->num_min_dec == in->num_max_dec || in->num_trailing0 || in->num_thousands;
        if (in->num_exp || !fixed) {
            put(fmt, fmtcap, "General");
        } else {
            body_format(body, sizeof body, in->num_thousands, dec);
            put(fmt, fmtcap, body);
        }
        break;
    }
    case FO_TYPE_PERCENT:
        body_format(body, sizeof body, in->pct_thousands, in->pct_dec);
        snprintf(buf, sizeof buf, "%s%%", body);
        put(fmt, fmtcap, buf);
        break;
    case FO_TYPE_CURRENCY: {
        char sym[16];
        if (best_cur == 0) snprintf(sym, sizeof sym, "$");
        else snprintf(sym, sizeof sym, "[$%s]", cur_sym[best_cur]);
        body_format(body, sizeof body, true, in->cur_dec[best_cur]);
        if (in->cur_paren[best_cur])
            snprintf(buf, sizeof buf, "%s%s;(%s%s)", sym, body, sym, body);
        else
            snprintf(buf, sizeof buf, "%s%s", sym, body);
        put(fmt, fmtcap, buf);
        break;
    }
    case FO_TYPE_DATETIME:
        put(fmt, fmtcap, in->dt_frac ? "yyyy-mm-dd hh:mm:ss.000"
                         : in->dt_secs ? "yyyy-mm-dd hh:mm:ss" : "yyyy-mm-dd hh:mm");
        break;
    default:
        put(fmt, fmtcap, fo_type_default_format(t));
        break;
    }
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
    classify(s, len, &c);
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
    int k = match_symbol(s, len);
    return k < 0 ? NULL : cur_sym[k];
}

bool fo_value_from_text(const char *s, size_t len, fo_type t, fo_value *v)
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
    classify(s, len, &c);
    bool ok;
    switch (t) {
    case FO_TYPE_AUTO: ok = true; break;
    case FO_TYPE_INTEGER: ok = c.kind == CK_INT; break;
    case FO_TYPE_NUMBER: ok = c.kind == CK_INT || c.kind == CK_DEC; break;
    case FO_TYPE_PERCENT: ok = c.kind == CK_PCT || c.kind == CK_INT || c.kind == CK_DEC; break;
    case FO_TYPE_CURRENCY: ok = c.kind == CK_CUR || c.kind == CK_INT || c.kind == CK_DEC; break;
    case FO_TYPE_DATE: ok = c.kind == CK_DATE || (c.kind == CK_DT && c.value == floor(c.value)); break;
    case FO_TYPE_DATETIME: ok = c.kind == CK_DATE || c.kind == CK_DT; break;
    case FO_TYPE_BOOLEAN: ok = c.kind == CK_BOOL; break;
    default: ok = false; break;
    }
    if (!ok) return false;
    cell_value(&c, s, v);
    return true;
}
