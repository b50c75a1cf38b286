/* numfmt.c — Excel number-format codes: compile once per column, format many values.
 *
 * A code is compiled into up to four sections of tokens (literal text, digit
 * placeholders, date parts, ...) with the arithmetic each section needs
 * worked out in advance (placeholder counts, scaling, exponent, fraction).
 * Formatting walks one section's tokens and writes into the caller's buffer;
 * it never allocates.
 *
 * Numbers are rounded the way Excel shows them: the value is first taken to
 * 15 significant decimal digits (Excel's precision), then rounded half away
 * from zero on that decimal string, so 2.675 with "0.00" reads 2.68. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "folio.h"
#include "render/core/model.h"
#include "render/core/numfmt.h"

/* ---- compiled form ---------------------------------------------------------*/
enum {
    T_LIT,      /* literal bytes pool[off .. off+len) */
    T_DIGIT,    /* placeholder ch = '0' '#' '?' in region reg at position pos */
    T_POINT,    /* decimal point */
    T_COMMA,    /* comma: thousands, scaling or literal; resolved per section */
    T_PERCENT,
    T_EXP,      /* 'E' or 'e' with sign flag: plus = always show the sign */
    T_SLASH,    /* fraction bar, or a literal '/' */
    T_GENERAL,
    T_TEXT,     /* '@' */
    /* dates and times */
    T_YY, T_YYYY, T_M, T_MM, T_MMM, T_MMMM, T_MMMMM,
    T_D, T_DD, T_DDD, T_DDDD, T_H, T_HH, T_MIN, T_MIN2, T_S, T_SS,
    T_SUBSEC,   /* .0 .00 .000: pos = digits */
    T_AMPM, T_AP, /* AM/PM; A/P keeps the case of its letters in ch / plus */
    T_EL_H, T_EL_M, T_EL_S /* [h] [mm] [ss]: pos = minimum width */
};

enum { R_NONE, R_INT, R_DEC, R_EXP, R_NUM, R_DEN };

typedef struct {
    unsigned char kind, ch, reg, plus;
    unsigned pos;      /* digit position, see the regions in compile_number() */
    size_t off, len;   /* T_LIT */
} tok;

enum { S_NUMBER, S_DATE, S_TEXT };
enum { C_NONE, C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE };

typedef struct {
    tok *t;
    size_t nt;
    int kind;
    int cond;            /* C_* with cond_val */
    double cond_val;
    int general;         /* has a General token */
    /* numbers */
    int nint, ndec, thousands, scale, pct;
    int sci, nexp, eng;
    int frac, nnum, nden, fixden, fint;
    /* dates */
    int subsec, ampm;
    long color;          /* [Red], [Color10]: 0xRRGGBB, or -1 for none */
} section;

struct fo_numfmt {
    section s[4];
    int ns;              /* sections for numbers (text section excluded) */
    int text;            /* index of the text section, -1 if none */
    char *pool;          /* these two in the same block, after the struct */
    tok *toks;
};

/* ---- output ----------------------------------------------------------------*/
typedef struct {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->len + 1 < o->cap) {
        size_t room = o->cap - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void putc_(out *o, char c) { put(o, &c, 1); }

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static void putint(out *o, long long v, int width)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%0*lld", width, v);
    put(o, b, (size_t)n);
}

static size_t finish(out *o)
{
    if (o->cap > 0) o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

/* ---- decimal digits ----------------------------------------------------------
 * value = 0.m[0]m[1]...m[k-1] x 10^e with m[0] != '0' and no trailing zeros;
 * k == 0 is zero. At most 16 digits: 15 significant plus a carry. */
typedef struct {
    char m[20];
    int k, e;
} dec;

static void dec_strip(dec *d)
{
    while (d->k > 0 && d->m[d->k - 1] == '0') d->k--;
}

/* Puts the 15 digits of r (10^14 <= r < 10^15) in d, value r x 10^(e-15). */
static void dec_put15(dec *d, uint64_t r, int e)
{
    for (int i = 14; i >= 0; i--) {
        d->m[i] = (char)('0' + r % 10);
        r /= 10;
    }
    d->k = 15;
    d->e = e;
    dec_strip(d);
}

/* dec_from's digits without printf, when they can be had exactly: x an
 * integer below 10^15 (its digits), or x in [10^-7, 10^15) whose product
 * with the power of ten that makes it a 15-digit integer (exact, as the
 * two doubles hi + lo by fma) is not a tie to round: then r rounded half
 * up is what "%.14e" prints. False: use printf. Why: printf's float
 * conversion was 54 M of the 577 M instructions of the 50-section report
 * deck, for the numbers of its tables and charts. */
static bool dec_fast(double x, dec *d)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (x >= 1e15 || x < 1e-7) return false;
    if (x == floor(x)) {          /* an integer: its digits, exactly */
        uint64_t u = (uint64_t)x;
        int n = 1;
        while (n < 15 && u >= (uint64_t)p10[n]) n++;
        dec_put15(d, u * (uint64_t)p10[15 - n], n);
        return true;
    }
    int b;
    frexp(x, &b);                 /* 2^(b-1) <= x < 2^b */
    int s = 14 - (int)floor((b - 1) * 0.30102999566398119521);
    for (int tries = 0; tries < 2; tries++) {
        if (s < 0 || s > 22) return false;
        double hi = x * p10[s];
        if (hi < 1e14) { s++; continue; }
        if (hi >= 1e15) { s--; continue; }
        double lo = fma(x, p10[s], -hi); /* x * 10^s == hi + lo exactly */
        double r = floor(hi);
        double f = (hi - r) + lo;  /* hi - r is exact; f within 2^-52 of the true fraction */
        if (f < 0) { r -= 1; f += 1; }
        else if (f >= 1) { r += 1; f -= 1; }
        if (fabs(f - 0.5) < 1e-9) return false; /* a tie or nearly: printf decides */
        if (f > 0.5) r += 1;
        if (r < 1e14 || r >= 1e15) return false;
        dec_put15(d, (uint64_t)r, 15 - s);
        return true;
    }
    return false;
}

static void dec_from(double x, dec *d)
{
    d->k = 0;
    d->e = 0;
    if (!(x > 0) || isinf(x)) return; /* callers pass finite values */
    if (dec_fast(x, d)) return;
    char b[40];
    snprintf(b, sizeof b, "%.14e", x); /* d.dddddddddddddde+XX, correctly rounded */
    d->m[0] = b[0];
    memcpy(d->m + 1, b + 2, 14);
    d->k = 15;
    d->e = atoi(b + 17) + 1;
    dec_strip(d);
}

/* Rounds half away from zero to ndec digits after the decimal point. */
static void dec_round(dec *d, int ndec)
{
    int keep = d->e + ndec;
    if (keep >= d->k) return;
    if (keep < 0) { d->k = 0; return; }
    int up = d->m[keep] >= '5';
    d->k = keep;
    if (up) {
        int i = keep - 1;
        while (i >= 0 && d->m[i] == '9') i--;
        if (i < 0) {
            d->m[0] = '1';
            d->k = 1;
            d->e++;
        } else {
            d->m[i]++;
            d->k = i + 1;
        }
    }
    dec_strip(d);
}

/* The digit at power of ten p (0 = units, -1 = tenths). */
static int dec_digit(const dec *d, int p)
{
    int i = d->e - 1 - p;
    return i >= 0 && i < d->k ? d->m[i] - '0' : 0;
}

/* ---- General ---------------------------------------------------------------
 * Excel's General in a standard column: at most 11 characters (sign not
 * counted), no trailing zeros; 12+ integer digits, or small numbers that
 * scientific shows more precisely, go to scientific with 6 significant
 * digits (1.23457E+11, 1E-10). */
static void put_sci_general(out *o, const dec *d0)
{
    dec d = *d0;
    dec_round(&d, 6 - d.e);
    int ex = d.e - 1;
    if (ex >= 100 || ex <= -100) { d = *d0; dec_round(&d, 5 - d.e); ex = d.e - 1; }
    putc_(o, d.m[0]);
    if (d.k > 1) {
        putc_(o, '.');
        put(o, d.m + 1, (size_t)d.k - 1);
    }
    putc_(o, 'E');
    putc_(o, ex < 0 ? '-' : '+');
    putint(o, ex < 0 ? -ex : ex, 2);
}

static void put_fixed(out *o, const dec *r)
{
    if (r->e <= 0) putc_(o, '0');
    for (int p = r->e - 1; p >= 0; p--) putc_(o, (char)('0' + dec_digit(r, p)));
    int nd = r->k - r->e;
    if (nd > 0) {
        putc_(o, '.');
        for (int p = -1; p >= -nd; p--) putc_(o, (char)('0' + dec_digit(r, p)));
    }
}

static void put_general(out *o, double x)
{
    dec d;
    dec_from(x, &d);
    if (d.k == 0) { putc_(o, '0'); return; }
    if (d.e <= 11) {
        int idig = d.e > 0 ? d.e : 1;
        int avail = 11 - idig - 1;
        if (avail < 0) avail = 0;
        dec r = d;
        dec_round(&r, avail);
        int fits = r.k > 0 && r.e <= 11;
        if (fits && d.e <= 0) {
            /* small: decimal unless scientific keeps more significant digits */
            int shown = avail + d.e, sci = d.k < 6 ? d.k : 6;
            fits = shown > 0 && (shown < d.k ? shown : d.k) >= sci;
        }
        if (fits) { put_fixed(o, &r); return; }
    }
    put_sci_general(o, &d);
}

/* ---- compiling ---------------------------------------------------------------*/
typedef struct {
    const char *code;
    char *err;
    size_t errlen;
    char *pool;
    size_t npool;
} compiler;

static int fail(compiler *c, const char *msg)
{
    if (c->err && c->errlen > 0) snprintf(c->err, c->errlen, "%s", msg);
    return 0;
}

static int fail_at(compiler *c, const char *what, size_t at)
{
    char b[160];
    unsigned char ch = (unsigned char)c->code[at];
    if (ch >= 32 && ch < 127)
        snprintf(b, sizeof b, "%s '%c' at position %zu", what, ch, at + 1);
    else snprintf(b, sizeof b, "%s at position %zu", what, at + 1);
    return fail(c, b);
}

/* Length of the UTF-8 sequence starting at s (1 for a stray byte). */
static size_t u8len(const char *s)
{
    unsigned char c = (unsigned char)*s;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return i;
    return n;
}

static void add_lit(compiler *c, section *s, const char *p, size_t n, int digits)
{
    tok *last = s->nt ? &s->t[s->nt - 1] : NULL;
    /* literal digits stay their own token: a fraction may use them as denominator */
    if (last && last->kind == T_LIT && last->off + last->len == c->npool && last->ch == digits) {
        last->len += n;
    } else {
        tok *t = &s->t[s->nt++];
        memset(t, 0, sizeof *t);
        t->kind = T_LIT;
        t->ch = (unsigned char)digits;
        t->off = c->npool;
        t->len = n;
    }
    memcpy(c->pool + c->npool, p, n);
    c->npool += n;
}

static tok *add_tok(section *s, int kind)
{
    tok *t = &s->t[s->nt++];
    memset(t, 0, sizeof *t);
    t->kind = (unsigned char)kind;
    return t;
}

static size_t run_of(const char *p, char lower)
{
    size_t n = 0;
    while (p[n] && (p[n] | 0x20) == lower) n++;
    return n;
}

/* Excel's default palette: [Color1] .. [Color56]. */
static const long palette[56] = {
    0x000000, 0xFFFFFF, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0xFF00FF, 0x00FFFF,
    0x800000, 0x008000, 0x000080, 0x808000, 0x800080, 0x008080, 0xC0C0C0, 0x808080,
    0x9999FF, 0x993366, 0xFFFFCC, 0xCCFFFF, 0x660066, 0xFF8080, 0x0066CC, 0xCCCCFF,
    0x000080, 0xFF00FF, 0xFFFF00, 0x00FFFF, 0x800080, 0x800000, 0x008080, 0x0000FF,
    0x00CCFF, 0xCCFFFF, 0xCCFFCC, 0xFFFF99, 0x99CCFF, 0xFF99CC, 0xCC99FF, 0xFFCC99,
    0x3366FF, 0x33CCCC, 0x99CC00, 0xFFCC00, 0xFF9900, 0xFF6600, 0x666699, 0x969696,
    0x003366, 0x339966, 0x003300, 0x333300, 0x993300, 0x993366, 0x333399, 0x333333,
};

/* A [..] tag: currency, elapsed time, color or condition. */
static int compile_bracket(compiler *c, section *s, const char *p, size_t n, size_t at)
{
    char tag[64];
    if (n == 0) return fail(c, "empty [] tag");
    if (p[0] == '$') { /* [$€-407]: the symbol before '-' is shown */
        size_t k = 1;
        while (k < n && p[k] != '-') k++;
        if (k > 1) add_lit(c, s, p + 1, k - 1, 0);
        return 1;
    }
    char l = (char)(p[0] | 0x20);
    if ((l == 'h' || l == 'm' || l == 's') && run_of(p, l) == n) {
        tok *t = add_tok(s, l == 'h' ? T_EL_H : l == 'm' ? T_EL_M : T_EL_S);
        t->pos = (unsigned)(n > 2 ? 2 : n);
        return 1;
    }
    if (n < sizeof tag) {
        memcpy(tag, p, n);
        tag[n] = '\0';
        static const char *const colors[] = {"black", "blue", "cyan", "green", "magenta",
                                             "red", "white", "yellow"};
        static const long rgb[] = {0x000000, 0x0000FF, 0x00FFFF, 0x00FF00, 0xFF00FF,
                                   0xFF0000, 0xFFFFFF, 0xFFFF00};
        for (size_t i = 0; i < sizeof colors / sizeof *colors; i++)
            if (strcasecmp(tag, colors[i]) == 0) {
                s->color = rgb[i];
                return 1;
            }
        if (strncasecmp(tag, "color", 5) == 0 && tag[5]) {
            char *end;
            long v = strtol(tag + 5, &end, 10);
            if (!*end && v >= 1 && v <= 56) {
                s->color = palette[v - 1];
                return 1;
            }
        }
        if (strchr("<>=", tag[0])) {
            int op;
            size_t k = 1;
            if (tag[0] == '<' && tag[1] == '=') op = C_LE, k = 2;
            else if (tag[0] == '<' && tag[1] == '>') op = C_NE, k = 2;
            else if (tag[0] == '>' && tag[1] == '=') op = C_GE, k = 2;
            else op = tag[0] == '<' ? C_LT : tag[0] == '>' ? C_GT : C_EQ;
            char *end;
            double v = strtod(tag + k, &end);
            if (end != tag + k && !*end && isfinite(v)) {
                if (s->cond) return fail(c, "two conditions in one section");
                s->cond = op;
                s->cond_val = v;
                return 1;
            }
        }
    }
    char msg[96];
    snprintf(msg, sizeof msg, "unknown [%.*s] tag at position", (int)(n < 40 ? n : 40), p);
    char b[128];
    snprintf(b, sizeof b, "%s %zu", msg, at + 1);
    return fail(c, b);
}

/* Tokenizes one section code[*i ..] up to ';' or the end. */
static int tokenize(compiler *c, section *s, size_t *i)
{
    const char *code = c->code;
    size_t k = *i;
    while (code[k] && code[k] != ';') {
        const char *p = code + k;
        char ch = *p, l = (char)(ch | 0x20);
        size_t n;
        if (ch == '"') {
            const char *q = strchr(p + 1, '"');
            if (!q) return fail(c, "unbalanced quote");
            add_lit(c, s, p + 1, (size_t)(q - p - 1), 0);
            k = (size_t)(q - code) + 1;
        } else if (ch == '\\' || ch == '_' || ch == '*') {
            if (!p[1]) return fail_at(c, "nothing after", k);
            n = u8len(p + 1);
            if (ch == '\\') add_lit(c, s, p + 1, n, p[1] >= '0' && p[1] <= '9');
            else if (ch == '_') add_lit(c, s, " ", 1, 0);
            k += 1 + n; /* '*' fills the cell: nothing to show */
        } else if (ch == '[') {
            const char *q = strchr(p + 1, ']');
            if (!q) return fail(c, "unbalanced bracket");
            if (!compile_bracket(c, s, p + 1, (size_t)(q - p - 1), k)) return 0;
            k = (size_t)(q - code) + 1;
        } else if (ch == ']') {
            return fail(c, "unbalanced bracket");
        } else if (ch == '0' || ch == '#' || ch == '?') {
            add_tok(s, T_DIGIT)->ch = (unsigned char)ch;
            k++;
        } else if (ch >= '1' && ch <= '9') {
            add_lit(c, s, p, 1, 1);
            k++;
        } else if (ch == '.' || ch == ',' || ch == '%' || ch == '/' || ch == '@') {
            add_tok(s, ch == '.' ? T_POINT : ch == ',' ? T_COMMA : ch == '%' ? T_PERCENT
                     : ch == '/' ? T_SLASH : T_TEXT);
            k++;
        } else if (l == 'e' && (p[1] == '+' || p[1] == '-')) {
            tok *t = add_tok(s, T_EXP);
            t->ch = (unsigned char)ch;
            t->plus = p[1] == '+';
            k += 2;
        } else if (strncasecmp(p, "general", 7) == 0) {
            add_tok(s, T_GENERAL);
            k += 7;
        } else if (strncasecmp(p, "am/pm", 5) == 0) {
            add_tok(s, T_AMPM);
            k += 5;
        } else if (l == 'a' && p[1] == '/' && (p[2] | 0x20) == 'p') {
            tok *t = add_tok(s, T_AP);
            t->ch = (unsigned char)p[0];
            t->plus = (unsigned char)p[2];
            k += 3;
        } else if (l == 'y' || l == 'm' || l == 'd' || l == 'h' || l == 's') {
            n = run_of(p, l);
            int kind;
            if (l == 'y') kind = n <= 2 ? T_YY : T_YYYY;
            else if (l == 'm') kind = n == 1 ? T_M : n == 2 ? T_MM : n == 3 ? T_MMM : n == 4 ? T_MMMM : T_MMMMM;
            else if (l == 'd') kind = n == 1 ? T_D : n == 2 ? T_DD : n == 3 ? T_DDD : T_DDDD;
            else if (l == 'h') kind = n == 1 ? T_H : T_HH;
            else kind = n == 1 ? T_S : T_SS;
            add_tok(s, kind);
            k += n;
        } else if ((unsigned char)ch >= 0x80) {
            n = u8len(p);
            add_lit(c, s, p, n, 0);
            k += n;
        } else if (strchr("$-+():!^&'~{}<>= ", ch)) {
            add_lit(c, s, p, 1, 0);
            k++;
        } else {
            return fail_at(c, "unexpected character", k);
        }
    }
    *i = k;
    return 1;
}

static int is_date_tok(int kind) { return kind >= T_YY && kind <= T_EL_S; }

static void make_lit(compiler *c, tok *t, const char *text)
{
    size_t n = strlen(text);
    t->kind = T_LIT;
    t->ch = 0;
    t->off = c->npool;
    t->len = n;
    memcpy(c->pool + c->npool, text, n);
    c->npool += n;
}

/* Date section: sub-seconds, minutes-vs-months, and '.' ',' '/' as literals. */
static int compile_date(compiler *c, section *s)
{
    for (size_t i = 0; i < s->nt; i++) {
        tok *t = &s->t[i];
        if (t->kind == T_POINT && i + 1 < s->nt && s->t[i + 1].kind == T_DIGIT && s->t[i + 1].ch == '0') {
            size_t j = i + 1;
            while (j < s->nt && s->t[j].kind == T_DIGIT && s->t[j].ch == '0') j++;
            if (j - i - 1 > 3) return fail(c, "more than 3 decimals of seconds");
            if (s->subsec) return fail(c, "two fractions of seconds");
            t->kind = T_SUBSEC;
            t->pos = (unsigned)(j - i - 1);
            s->subsec = (int)t->pos;
            memmove(t + 1, s->t + j, (s->nt - j) * sizeof *t);
            s->nt -= j - i - 1;
        } else if (t->kind == T_POINT) {
            make_lit(c, t, ".");
        } else if (t->kind == T_COMMA) {
            make_lit(c, t, ",");
        } else if (t->kind == T_SLASH) {
            make_lit(c, t, "/");
        } else if (t->kind == T_PERCENT) {
            make_lit(c, t, "%");
        } else if (t->kind == T_DIGIT || t->kind == T_EXP || t->kind == T_GENERAL) {
            return fail(c, "date codes mixed with number codes");
        } else if (t->kind == T_TEXT) {
            return fail(c, "'@' mixed with date codes");
        } else if (t->kind == T_AMPM || t->kind == T_AP) {
            s->ampm = 1;
        }
    }
    /* m/mm is a minute right after an hour or right before a second */
    for (size_t i = 0; i < s->nt; i++) {
        tok *t = &s->t[i];
        if (t->kind != T_M && t->kind != T_MM) continue;
        int minute = 0;
        for (size_t j = i; j-- > 0;)
            if (is_date_tok(s->t[j].kind)) {
                int k = s->t[j].kind;
                minute = k == T_H || k == T_HH || k == T_EL_H;
                break;
            }
        for (size_t j = i + 1; !minute && j < s->nt; j++)
            if (is_date_tok(s->t[j].kind)) {
                int k = s->t[j].kind;
                minute = k == T_S || k == T_SS || k == T_EL_S;
                break;
            }
        if (minute) t->kind = t->kind == T_M ? T_MIN : T_MIN2;
    }
    return 1;
}

/* Number section. Regions and positions of the digit placeholders:
 *   R_INT  integer part, pos counted from the right (0 = units)
 *   R_DEC  decimals, pos counted from the point (1 = tenths)
 *   R_EXP  exponent digits, pos from the right
 *   R_NUM  fraction numerator, pos from the right
 *   R_DEN  fraction denominator, pos from the left (0 = first) */
static int compile_number(compiler *c, section *s)
{
    size_t npoint = 0, nexp = 0, ndigit = 0, slash = 0;
    int has_slash = 0;
    for (size_t i = 0; i < s->nt; i++) {
        int k = s->t[i].kind;
        if (k == T_POINT) npoint++;
        else if (k == T_EXP) nexp++;
        else if (k == T_DIGIT) ndigit++;
        else if (k == T_PERCENT) s->pct++;
        else if (k == T_GENERAL) s->general = 1;
        else if (k == T_SLASH && !has_slash && i > 0 && s->t[i - 1].kind == T_DIGIT) has_slash = 1, slash = i;
    }
    if (npoint > 1) return fail(c, "two decimal points in one section");
    if (nexp > 1) return fail(c, "two exponents in one section");
    if (s->general && (ndigit || npoint || nexp)) return fail(c, "General mixed with digit placeholders");
    if (s->kind == S_TEXT && (ndigit || npoint || nexp || s->general))
        return fail(c, "'@' mixed with number codes");
    if (nexp && !ndigit) return fail(c, "exponent without digits");

    if (has_slash && !npoint && !nexp) {
        /* fraction: [int part] numerator / denominator */
        s->frac = 1;
        s->t[slash].reg = R_DEN; /* the bar is blanked with the denominator */
        size_t a = slash;
        while (a > 0 && s->t[a - 1].kind == T_DIGIT) a--;
        size_t j = slash + 1;
        if (j < s->nt && s->t[j].kind == T_LIT && s->t[j].ch) { /* fixed denominator: ?/16, ?/100 */
            long den = 0;
            size_t q = j;
            for (; q < s->nt && ((s->t[q].kind == T_LIT && s->t[q].ch) ||
                                 (s->t[q].kind == T_DIGIT && s->t[q].ch == '0')); q++) {
                tok *t = &s->t[q];
                size_t nd = t->kind == T_DIGIT ? 1 : t->len;
                for (size_t z = 0; z < nd; z++) {
                    if (den > 10000000) return fail(c, "fraction denominator too large");
                    den = den * 10 + (t->kind == T_DIGIT ? 0 : c->pool[t->off + z] - '0');
                }
                if (t->kind == T_DIGIT) { make_lit(c, t, "0"); t->ch = 1; }
                t->reg = R_DEN;
            }
            s->fixden = (int)den;
            j = q;
        } else {
            for (; j < s->nt && s->t[j].kind == T_DIGIT; j++) {
                s->t[j].reg = R_DEN;
                s->t[j].pos = (unsigned)s->nden++;
            }
            if (s->nden == 0) return fail(c, "fraction without denominator");
            if (s->nden > 7) return fail(c, "fraction denominator too long");
        }
        for (size_t q = j; q < s->nt; q++)
            if (s->t[q].kind == T_DIGIT) return fail(c, "digit placeholder after a fraction");
        s->nnum = (int)(slash - a);
        for (size_t q = a; q < slash; q++) {
            s->t[q].reg = R_NUM;
            s->t[q].pos = (unsigned)(slash - 1 - q);
        }
        for (size_t q = 0; q < a; q++)
            if (s->t[q].kind == T_DIGIT) { s->t[q].reg = R_INT; s->nint++; }
        s->fint = s->nint > 0;
    } else {
        int reg = R_INT;
        for (size_t i = 0; i < s->nt; i++) {
            tok *t = &s->t[i];
            if (t->kind == T_POINT) reg = R_DEC;
            else if (t->kind == T_EXP) reg = R_EXP;
            else if (t->kind == T_DIGIT) {
                t->reg = (unsigned char)reg;
                if (reg == R_INT) s->nint++;
                else if (reg == R_DEC) t->pos = (unsigned)++s->ndec;
                else s->nexp++;
            }
        }
        s->sci = nexp > 0;
        if (s->sci && s->nexp == 0) return fail(c, "exponent without digits");
    }
    /* positions counted from the right */
    int ni = s->nint, ne = s->nexp, eng_hash = 0;
    for (size_t i = 0; i < s->nt; i++) {
        tok *t = &s->t[i];
        if (t->kind != T_DIGIT) continue;
        if (t->reg == R_INT) { t->pos = (unsigned)--ni; eng_hash |= t->ch == '#'; }
        else if (t->reg == R_EXP) t->pos = (unsigned)--ne;
    }
    s->eng = s->sci && eng_hash && s->nint > 1;
    /* commas: between integer digits = thousands; after the last digit = /1000 */
    for (size_t i = 0; i < s->nt; i++) {
        tok *t = &s->t[i];
        if (t->kind == T_SLASH) { make_lit(c, t, "/"); continue; }
        if (t->kind != T_COMMA) continue;
        size_t j = i;
        while (j < s->nt && s->t[j].kind == T_COMMA) j++;
        int after_digit = i > 0 && s->t[i - 1].kind == T_DIGIT;
        int before_int = j < s->nt && s->t[j].kind == T_DIGIT && s->t[j].reg == R_INT;
        if (after_digit && before_int && s->t[i - 1].reg == R_INT) {
            s->thousands = 1;
            t->kind = T_LIT, t->len = 0; /* shown by the digits instead */
            t->ch = 0;
            t->off = 0;
        } else if (after_digit && !before_int) {
            for (size_t q = i; q < j; q++) {
                s->scale++;
                s->t[q].kind = T_LIT, s->t[q].len = 0, s->t[q].ch = 0, s->t[q].off = 0;
            }
            i = j - 1;
        } else {
            make_lit(c, t, ",");
        }
    }
    return 1;
}

static int compile_section(compiler *c, section *s)
{
    for (size_t i = 0; i < s->nt; i++) {
        if (is_date_tok(s->t[i].kind)) s->kind = S_DATE;
        else if (s->t[i].kind == T_TEXT && s->kind != S_DATE) s->kind = S_TEXT;
    }
    return s->kind == S_DATE ? compile_date(c, s) : compile_number(c, s);
}

fo_numfmt *fo_numfmt_compile(const char *code, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!code) code = "";
    size_t n = strlen(code);
    /* one block: the format, then its tokens (at most one per code byte, +4
     * for the sections), then its literals' pool. Literals never outgrow the
     * code; each sub-part adds at most a short replacement text ("," "." "/"
     * "0"): 2 bytes per source byte is ample. */
    fo_numfmt *f = n < SIZE_MAX / 64 ? fo_calloc(1, sizeof *f + (n + 4) * sizeof(tok) + 2 * n + 16)
                                     : NULL;
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return NULL;
    }
    tok *toks = f->toks = (tok *)(void *)(f + 1);
    char *pool = f->pool = (char *)(toks + n + 4);
    f->text = -1;
    compiler c = {code, err, errlen, pool, 0};
    int nsec = 0;
    size_t i = 0, used = 0;
    if (n == 0) {
        code = "General";
        c.code = code;
    }
    for (;;) {
        if (nsec == 4) { fail(&c, "more than 4 sections"); goto bad; }
        section *s = &f->s[nsec++];
        s->t = toks + used;
        s->color = -1;
        if (!tokenize(&c, s, &i)) goto bad;
        used += s->nt;
        if (!code[i]) break;
        i++; /* ';' */
    }
    for (int k = 0; k < nsec; k++)
        if (!compile_section(&c, &f->s[k])) goto bad;
    /* the text section: the 4th, or a last section holding '@' */
    f->ns = nsec;
    if (nsec == 4 || f->s[nsec - 1].kind == S_TEXT) {
        f->text = nsec - 1;
        f->ns = nsec - 1;
    }
    for (int k = 0; k < f->ns; k++)
        if (f->s[k].kind == S_TEXT) { fail(&c, "'@' outside the text section"); goto bad; }
    if (f->text >= 0 && f->s[f->text].kind != S_TEXT) {
        /* a 4th section without '@' still shows literals for text */
        section *t = &f->s[f->text];
        for (size_t q = 0; q < t->nt; q++)
            if (t->t[q].kind != T_LIT) { fail(&c, "number codes in the text section"); goto bad; }
    }
    return f;
bad:
    if (err && errlen && !err[0]) snprintf(err, errlen, "invalid number format");
    fo_numfmt_free(f);
    return NULL;
}

void fo_numfmt_free(fo_numfmt *f) { fo_free(f); }

bool fo_numfmt_is_date(const fo_numfmt *f) { return f && f->ns > 0 && f->s[0].kind == S_DATE; }

bool fo_numfmt_is_general(const fo_numfmt *f)
{
    return !f || f->ns == 0 || (f->s[0].nt > 0 && f->s[0].t[0].kind == T_GENERAL);
}

/* ---- formatting numbers ------------------------------------------------------*/
/* Digits of an integer-like quantity for the placeholders of one region. */
typedef struct {
    const dec *d;            /* digits from d (integer part) ... */
    unsigned long long u;    /* ... or from u when d is NULL */
    int nd;                  /* digit count; 0 for zero */
} digits;

static int digit_at(const digits *g, int p)
{
    if (g->d) return dec_digit(g->d, p);
    if (p >= 20) return 0;
    unsigned long long u = g->u;
    while (p-- > 0) u /= 10;
    return (int)(u % 10);
}

static void set_u(digits *g, unsigned long long u)
{
    g->d = NULL;
    g->u = u;
    g->nd = 0;
    while (u) { g->nd++; u /= 10; }
}

static void put_digit(out *o, const digits *g, int p, int thousands)
{
    putc_(o, (char)('0' + digit_at(g, p)));
    if (thousands && p > 0 && p % 3 == 0) putc_(o, ',');
}

/* A placeholder counted from the right; the leftmost one of its region
 * (pos == nplace - 1) also shows every digit that has no placeholder. */
static void put_right(out *o, const tok *t, const digits *g, int nplace, int thousands)
{
    int p = (int)t->pos;
    if (p == nplace - 1)
        for (int q = g->nd - 1; q > p; q--) put_digit(o, g, q, thousands);
    if (p < g->nd) put_digit(o, g, p, thousands);
    else if (t->ch == '0') put_digit(o, g, p, thousands);
    else if (t->ch == '?') putc_(o, ' ');
}

/* Best approximation num/den of x in [0,1) with den <= maxden
 * (continued fractions, with the last semiconvergent considered). */
static void best_fraction(double x, long maxden, long *num, long *den)
{
    long p0 = 0, q0 = 1, p1 = 1, q1 = 0;
    double r = x;
    for (int it = 0; it < 64; it++) {
        double a = floor(r);
        if (a > (double)maxden + 1) break;
        long ai = (long)a;
        long p2 = ai * p1 + p0, q2 = ai * q1 + q0;
        if (q2 > maxden) {
            long k = (maxden - q0) / q1;
            long ps = p0 + k * p1, qs = q0 + k * q1;
            if (fabs(x - (double)ps / (double)qs) < fabs(x - (double)p1 / (double)q1)) p1 = ps, q1 = qs;
            break;
        }
        p0 = p1, q0 = q1, p1 = p2, q1 = q2;
        double fr = r - a;
        if (fr < 1e-12) break;
        r = 1.0 / fr;
    }
    *num = p1;
    *den = q1;
}


static void put_lit(out *o, const fo_numfmt *f, const tok *t) { put(o, f->pool + t->off, t->len); }

static void put_spaces(out *o, size_t n)
{
    while (n--) putc_(o, ' ');
}

/* Fractions: "# ?/?" 1.25 -> "1 1/4"; "?/?" 1.25 -> "5/4"; "# ?/8" fixed
 * denominator. A whole number blanks the fraction part ("2    "). */
static void format_fraction(out *o, const fo_numfmt *f, const section *s, double x)
{
    if (x >= 1e15) { put_general(o, x); return; }
    double whole = floor(x), fp = x - whole;
    long n, den;
    if (s->fixden) {
        den = s->fixden;
        n = (long)floor(fp * (double)den + 0.5);
    } else {
        long maxden = 1;
        for (int i = 0; i < s->nden; i++) maxden *= 10;
        best_fraction(fp, maxden - 1, &n, &den);
    }
    if (n >= den) { whole += 1; n = 0; }
    if (!s->fint && whole * (double)den >= 1e18) { put_general(o, x); return; }
    unsigned long long ip = 0, num = (unsigned long long)n;
    if (s->fint) ip = (unsigned long long)whole;
    else num += (unsigned long long)whole * (unsigned long long)den;
    int hide = s->fint && num == 0;
    digits gi, gn;
    set_u(&gi, ip);
    set_u(&gn, num);
    if (!s->fint && gn.nd == 0) gn.nd = 1; /* "0/1" rather than "/1" */
    if (hide && gi.nd == 0) gi.nd = 1;     /* zero shows "0" */
    char dd[24];
    int ndd = snprintf(dd, sizeof dd, "%ld", den);
    for (size_t i = 0; i < s->nt; i++) {
        const tok *t = &s->t[i];
        if (t->kind == T_LIT) {
            if (t->reg == R_DEN && hide) put_spaces(o, t->len);
            else put_lit(o, f, t);
        } else if (t->kind == T_PERCENT) {
            putc_(o, '%');
        } else if (t->kind == T_DIGIT && t->reg == R_INT) {
            put_right(o, t, &gi, s->nint, s->thousands);
        } else if (t->kind == T_DIGIT && t->reg == R_NUM) {
            if (hide) putc_(o, ' ');
            else put_right(o, t, &gn, s->nnum, 0);
        } else if (t->kind == T_DIGIT && t->reg == R_DEN) {
            int p = (int)t->pos;
            if (hide) putc_(o, ' ');
            else if (p < ndd) {
                /* the last placeholder shows any digits left over */
                put(o, dd + p, p == s->nden - 1 ? (size_t)(ndd - p) : 1);
            } else if (t->ch != '#') putc_(o, ' ');
        }
    }
}

static int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Exponent for scientific: the mantissa gets nint integer digits, or with
 * '#' in the integer part ("##0.0E+0") the exponent is a multiple of nint. */
static int sci_exponent(const section *s, int lead)
{
    if (s->eng) return floor_div(lead, s->nint) * s->nint;
    return lead - (s->nint > 0 ? s->nint - 1 : -1);
}

static void format_number(out *o, const fo_numfmt *f, const section *s, double x)
{
    for (int i = 0; i < s->pct; i++) x *= 100;
    for (int i = 0; i < s->scale; i++) x /= 1000;
    if (isinf(x)) { puts_(o, "#NUM!"); return; } /* "%%%%" can overflow a huge value */
    if (s->frac) { format_fraction(o, f, s, x); return; }
    dec d;
    dec_from(x, &d);
    int ex = 0;
    if (s->sci && d.k > 0) {
        int lead = d.e - 1;
        dec r = d;
        ex = sci_exponent(s, lead);
        r.e -= ex;
        dec_round(&r, s->ndec);
        if (r.k > 0 && r.e - 1 + ex != lead) { /* 9.99 -> 10.0: one more digit */
            ex = sci_exponent(s, r.e - 1 + ex);
            r = d;
            r.e -= ex;
            dec_round(&r, s->ndec);
        }
        d = r;
    } else {
        dec_round(&d, s->ndec);
    }
    digits gi = {&d, 0, d.k > 0 && d.e > 0 ? d.e : 0}, ge;
    set_u(&ge, (unsigned long long)(ex < 0 ? -ex : ex));
    int lastnz = d.k > 0 && d.k > d.e ? d.k - d.e : 0; /* decimals up to the last non-zero */
    for (size_t i = 0; i < s->nt; i++) {
        const tok *t = &s->t[i];
        switch (t->kind) {
        case T_LIT: put_lit(o, f, t); break;
        case T_PERCENT: putc_(o, '%'); break;
        case T_GENERAL: put_general(o, x); break;
        case T_POINT:
            if (s->nint == 0) /* ".00" still shows the integer digits */
                for (int q = gi.nd - 1; q >= 0; q--) put_digit(o, &gi, q, s->thousands);
            putc_(o, '.');
            break;
        case T_EXP:
            putc_(o, t->ch == 'e' ? 'e' : 'E');
            if (ex < 0) putc_(o, '-');
            else if (t->plus) putc_(o, '+');
            break;
        case T_DIGIT:
            if (t->reg == R_INT) put_right(o, t, &gi, s->nint, s->thousands);
            else if (t->reg == R_EXP) put_right(o, t, &ge, s->nexp, 0);
            else if ((int)t->pos <= lastnz) putc_(o, (char)('0' + dec_digit(&d, -(int)t->pos)));
            else if (t->ch == '0') putc_(o, '0');
            else if (t->ch == '?') putc_(o, ' ');
            break;
        default: break;
        }
    }
}

static const char *const month_names[12] = {
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December"};
static const char *const day_names[7] = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

#define MAX_SERIAL 2958466.0 /* 10000-01-01: Excel's dates end the day before */

/* Dates and times on Excel serials. Time is rounded to the shown precision
 * (seconds, or the .0/.00/.000 given); larger units are then truncated. */
static void format_date(out *o, const fo_numfmt *f, const section *s, double x)
{
    if (!(x >= 0 && x < MAX_SERIAL)) { puts_(o, "########"); return; }
    long long scale = 1;
    for (int i = 0; i < s->subsec; i++) scale *= 10;
    long long units = llround(x * 86400.0 * (double)scale);
    long long per_day = 86400LL * scale;
    long long days = units / per_day, rem = units % per_day;
    if ((double)days >= MAX_SERIAL) { puts_(o, "########"); return; }
    long long secs = rem / scale, sub = rem % scale;
    int h = (int)(secs / 3600), mi = (int)(secs / 60 % 60), sec = (int)(secs % 60);
    int y = 1900, mo = 1, dd = 0;
    if (days == 60) { /* Excel keeps Lotus' 1900-02-29 */
        mo = 2;
        dd = 29;
    } else if (days > 0) { /* before it, serials are one day off the real calendar */
        fo_excel_civil((double)(days < 60 ? days + 1 : days), &y, &mo, &dd, NULL, NULL, NULL);
    }
    int wd = (int)((days + 6) % 7);
    int h12 = h % 12 == 0 ? 12 : h % 12;
    for (size_t i = 0; i < s->nt; i++) {
        const tok *t = &s->t[i];
        switch (t->kind) {
        case T_LIT: put_lit(o, f, t); break;
        case T_YY: putint(o, y % 100, 2); break;
        case T_YYYY: putint(o, y, 4); break;
        case T_M: putint(o, mo, 1); break;
        case T_MM: putint(o, mo, 2); break;
        case T_MMM: put(o, month_names[mo - 1], 3); break;
        case T_MMMM: puts_(o, month_names[mo - 1]); break;
        case T_MMMMM: put(o, month_names[mo - 1], 1); break;
        case T_D: putint(o, dd, 1); break;
        case T_DD: putint(o, dd, 2); break;
        case T_DDD: put(o, day_names[wd], 3); break;
        case T_DDDD: puts_(o, day_names[wd]); break;
        case T_H: putint(o, s->ampm ? h12 : h, 1); break;
        case T_HH: putint(o, s->ampm ? h12 : h, 2); break;
        case T_MIN: putint(o, mi, 1); break;
        case T_MIN2: putint(o, mi, 2); break;
        case T_S: putint(o, sec, 1); break;
        case T_SS: putint(o, sec, 2); break;
        case T_SUBSEC: putc_(o, '.'); putint(o, sub, (int)t->pos); break;
        case T_AMPM: puts_(o, h < 12 ? "AM" : "PM"); break;
        case T_AP: putc_(o, (char)(h < 12 ? t->ch : t->plus)); break;
        case T_EL_H: putint(o, units / (3600 * scale), (int)t->pos); break;
        case T_EL_M: putint(o, units / (60 * scale), (int)t->pos); break;
        case T_EL_S: putint(o, units / scale, (int)t->pos); break;
        default: break;
        }
    }
}

static int cond_true(const section *s, double v)
{
    switch (s->cond) {
    case C_LT: return v < s->cond_val;
    case C_LE: return v <= s->cond_val;
    case C_GT: return v > s->cond_val;
    case C_GE: return v >= s->cond_val;
    case C_EQ: return v == s->cond_val;
    case C_NE: return v != s->cond_val;
    default: return 0;
    }
}

/* Picks the section for v; *sign says whether '-' is written before it.
 * Without conditions: one section takes all (negatives get '-'), two are
 * pos/zero;neg, three pos;neg;zero. With conditions ([>=100]) the first
 * section whose test holds wins, else the next unconditional one; a section
 * meant for negatives ([<0], or the second after [>=0]) shows the absolute
 * value, any other shows a negative value with '-'. Returns -1 for none. */
static int pick_section(const fo_numfmt *f, double v, int *sign)
{
    const section *s0 = &f->s[0], *s1 = f->ns > 1 ? &f->s[1] : NULL;
    *sign = 0;
    if (!s0->cond && !(s1 && s1->cond)) {
        if (f->ns == 1) { *sign = v < 0; return 0; }
        if (v < 0) return 1;
        return f->ns >= 3 && v == 0 ? 2 : 0;
    }
    int idx;
    if (s0->cond && cond_true(s0, v)) idx = 0;
    else if (!s0->cond) idx = 0;
    else if (s1 && s1->cond && cond_true(s1, v)) idx = 1;
    else if (s1 && s1->cond) idx = 2;
    else idx = 1;
    if (idx >= f->ns) { *sign = v < 0; return -1; }
    const section *s = &f->s[idx];
    int for_negatives = (s->cond == C_LT || s->cond == C_LE) && s->cond_val == 0;
    if (!s->cond && idx == 1 && (s0->cond == C_GE || s0->cond == C_GT) && s0->cond_val == 0)
        for_negatives = 1;
    *sign = v < 0 && !for_negatives;
    return idx;
}

size_t fo_numfmt_format(const fo_numfmt *f, double v, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (isnan(v) || isinf(v)) {
        puts_(&o, "#NUM!");
        return finish(&o);
    }
    int sign = v < 0, idx = -1;
    if (f && f->ns > 0) idx = pick_section(f, v, &sign);
    const section *s = idx >= 0 ? &f->s[idx] : NULL;
    double x = fabs(v);
    if (s && s->kind == S_DATE) {
        if (sign) puts_(&o, "########");
        else format_date(&o, f, s, x);
        return finish(&o);
    }
    if (sign) putc_(&o, '-');
    if (s) format_number(&o, f, s, x);
    else put_general(&o, x);
    return finish(&o);
}

long fo_numfmt_color(const fo_numfmt *f, double v)
{
    int sign;
    if (!f || f->ns <= 0 || isnan(v) || isinf(v)) return -1;
    int idx = pick_section(f, v, &sign);
    return idx >= 0 ? f->s[idx].color : -1;
}

long fo_numfmt_text_color(const fo_numfmt *f)
{
    return f && f->text >= 0 ? f->s[f->text].color : -1;
}

size_t fo_numfmt_format_text(const fo_numfmt *f, const char *s, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (!s) s = "";
    if (!f || f->text < 0) {
        puts_(&o, s);
        return finish(&o);
    }
    const section *t = &f->s[f->text];
    for (size_t i = 0; i < t->nt; i++) {
        if (t->t[i].kind == T_LIT) put_lit(&o, f, &t->t[i]);
        else if (t->t[i].kind == T_TEXT) puts_(&o, s);
    }
    return finish(&o);
}

size_t fo_numfmt_format_code(const char *code, double v, char *buf, size_t cap)
{
    fo_numfmt *f = fo_numfmt_compile(code, NULL, 0);
    size_t n = fo_numfmt_format(f, v, buf, cap); /* NULL (invalid code) formats as General */
    fo_numfmt_free(f);
    return n;
}
