/* text.c — pure text helpers of the xlsx renderer: XML-safe cell text,
 * Excel-legal unique sheet names, display widths for column fitting.
 *
 * What libxlsxwriter 1.1.4 does by itself (checked against its output):
 * write_string escapes C0 controls as _xHHHH_ in both string modes, but
 * write_rich_string in shared-string mode writes them raw (a file Excel
 * "repairs"), nothing escapes a literal "_x0041_" (Excel would show "A"),
 * and invalid UTF-8 is copied through. So every string is cleaned here,
 * once, before it reaches the library. */
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "render/core/policy.h"
#include "render/xlsx/xlsx_internal.h"
#include "base/utf8.h"

static bool is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "_xHHHH_" starts at s[i]. */
static bool escape_lookalike(const char *s, size_t len, size_t i)
{
    return i + 7 <= len && s[i + 1] == 'x' && is_hex((unsigned char)s[i + 2]) &&
           is_hex((unsigned char)s[i + 3]) && is_hex((unsigned char)s[i + 4]) &&
           is_hex((unsigned char)s[i + 5]) && s[i + 6] == '_';
}

/* True when byte c at position i needs a look: non-ASCII, a control, '_'. */
static inline bool needs_look(unsigned char c)
{
    return c >= 0x80 || c < 0x20 || c == '_';
}

const char *fo_xlsx_clean(fo_buf *b, const char *s, size_t len, fo_xlsx_clean_mode mode)
{
    /* Fast path: scan for the first byte that could need fixing. */
    size_t i = 0;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!needs_look(c)) continue;
        if (c == '\t' || c == '\n') continue;
        if (c == '_') {
            if (mode == FO_XLSX_CELL && escape_lookalike(s, len, i)) break;
            continue;
        }
        if (c < 0x20) break;
        uint32_t cp;
        size_t n = fo_utf8_decode(s + i, len - i, &cp);
        if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) break;
        i += n - 1;
    }
    if (i == len) return s;

    /* Slow path: copy with fixes. Worst case 7 bytes out per byte in. */
    b->len = 0; /* a scratch copy: the buffer's earlier text is done with */
    if (len > SIZE_MAX / 8 || !fo_buf_reserve(b, len * 7)) return NULL;
    char *o = b->data;
    memcpy(o, s, i);
    o += i;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c == '_' && mode == FO_XLSX_CELL && escape_lookalike(s, len, i)) {
            memcpy(o, "_x005F_", 7);
            o += 7;
            i++;
            continue;
        }
        if (c < 0x20 && c != '\t' && c != '\n') {
            if (mode == FO_XLSX_CELL) {
                static const char hex[] = "0123456789ABCDEF";
                memcpy(o, "_x00", 4);
                o[4] = hex[c >> 4];
                o[5] = hex[c & 15];
                o[6] = '_';
                o += 7;
            } else {
                *o++ = ' ';
            }
            i++;
            continue;
        }
        if (c < 0x80) { *o++ = (char)c; i++; continue; }
        uint32_t cp;
        size_t n = fo_utf8_decode(s + i, len - i, &cp);
        if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) {
            memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
            o += 3;
            i += n ? n : 1;
            continue;
        }
        memcpy(o, s + i, n);
        o += n;
        i += n;
    }
    *o = '\0';
    return b->data;
}

size_t fo_xlsx_char_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
    }
    return n;
}

/* East Asian Wide (W) and Fullwidth (F) blocks, plus emoji; a compact
 * superset of the ranges in Unicode's EastAsianWidth.txt that matter. */
static bool is_wide(unsigned cp)
{
    return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
           (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
           (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
           (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
           (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

static bool is_zero_width(unsigned cp)
{
    return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF;
}

double fo_xlsx_text_width(const char *s, size_t len)
{
    double best = 0, w = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = fo_utf8_decode(s + i, len - i, &cp);
        if (n == 0) { cp = 0xFFFD; n = 1; }
        i += n;
        if (cp == '\n') {
            if (w > best) best = w;
            w = 0;
            continue;
        }
        if (cp < 0x20 || is_zero_width(cp)) continue;
        w += is_wide(cp) ? 2 : 1;
    }
    return w > best ? w : best;
}

double fo_xlsx_fit_width(double header_w, double data_w)
{
    /* Bold header text is ~10% wider; the autofilter button needs ~2 chars. */
    double w = header_w * 1.1 + 3;
    if (data_w + 1.5 > w) w = data_w + 1.5;
    if (w < FO_XLSX_WIDTH_MIN) w = FO_XLSX_WIDTH_MIN;
    if (w > FO_XLSX_WIDTH_MAX) w = FO_XLSX_WIDTH_MAX;
    return w;
}

/* ---- sheet names ---------------------------------------------------------- */

void fo_xlsx_names_free(fo_xlsx_names *s)
{
    for (size_t i = 0; i < s->n; i++) fo_free(s->names[i]);
    fo_free(s->names);
    memset(s, 0, sizeof *s);
}

/* Simple case folding for the scripts sheet names mostly use: ASCII,
 * Latin-1, Latin Extended-A pairs, Greek and Cyrillic capitals. */
static unsigned fold(unsigned cp)
{
    if (cp >= 'A' && cp <= 'Z') return cp + 32;
    if ((cp >= 0xC0 && cp <= 0xDE && cp != 0xD7)) return cp + 32;
    if (cp >= 0x100 && cp <= 0x17F && cp != 0x130 && cp != 0x131 && cp != 0x138 && cp != 0x149)
        return (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)
                   ? (cp % 2 ? cp + 1 : cp) : (cp | 1);
    if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 32;
    if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    return cp;
}

static bool name_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i = 0, j = 0;
    while (i < la && j < lb) {
        uint32_t ca, cb;
        size_t na = fo_utf8_decode(a + i, la - i, &ca);
        size_t nb = fo_utf8_decode(b + j, lb - j, &cb);
        if (!na) { ca = (unsigned char)a[i]; na = 1; }
        if (!nb) { cb = (unsigned char)b[j]; nb = 1; }
        if (fold(ca) != fold(cb)) return false;
        i += na;
        j += nb;
    }
    return i == la && j == lb;
}

bool fo_xlsx_names_has(const fo_xlsx_names *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (name_equal(s->names[i], name)) return true;
    return false;
}

/* Copies at most max characters (UTF-16 units) of s into out; returns bytes. */
static size_t cut_chars(const char *s, size_t max, char *out)
{
    size_t i = 0, units = 0, len = strlen(s);
    while (i < len) {
        uint32_t cp;
        size_t n = fo_utf8_decode(s + i, len - i, &cp);
        if (!n) break; /* cannot happen: s is cleaned */
        unsigned u = cp > 0xFFFF ? 2 : 1;
        if (units + u > max) break;
        units += u;
        i += n;
    }
    memcpy(out, s, i);
    out[i] = '\0';
    return i;
}

/* Trims spaces and apostrophes at both ends, in place. */
static void trim(char *s)
{
    size_t len = strlen(s), a = 0;
    while (a < len && (s[a] == ' ' || s[a] == '\'')) a++;
    while (len > a && (s[len - 1] == ' ' || s[len - 1] == '\'')) len--;
    memmove(s, s + a, len - a);
    s[len - a] = '\0';
}

/* Removes the brackets left without their partner, in place: a cut name
 * keeps "(EU)" whole or loses its "(" ("Income statement (" -> no "("). */
static void drop_unmatched_brackets(char *s)
{
    size_t len = strlen(s);
    bool drop[FO_XLSX_NAME_CAP] = {0};
    size_t open[FO_XLSX_NAME_CAP], depth = 0;
    for (size_t i = 0; i < len && i < FO_XLSX_NAME_CAP; i++) {
        if (s[i] == '(') open[depth++] = i;
        else if (s[i] == ')') { if (depth) depth--; else drop[i] = true; }
    }
    while (depth) drop[open[--depth]] = true;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (i < FO_XLSX_NAME_CAP && drop[i]) continue;
        if (s[i] == ' ' && n > 0 && s[n - 1] == ' ') continue; /* "a ( b" -> "a b" */
        s[n++] = s[i];
    }
    s[n] = '\0';
}

/* Cuts s to at most max characters into out, at a word boundary when s is
 * longer ("Consolidated income statement (FY2024)" -> "Consolidated income
 * statement", not "... statement ("): back to the last space, unless that
 * would keep less than half of max (one long word is cut where it must);
 * then trailing punctuation and unmatched brackets go. Returns bytes. */
static size_t cut_words(const char *s, size_t max, char *out)
{
    size_t n = cut_chars(s, max, out);
    if (s[n] == '\0') return n;          /* it fits: nothing cut */
    if (s[n] != ' ') {                   /* cut inside a word: back to its start */
        size_t k = n;
        while (k > 0 && out[k - 1] != ' ') k--;
        if (k > 0 && k >= max / 2) n = k;
    }
    out[n] = '\0';
    drop_unmatched_brackets(out);
    n = strlen(out);
    while (n > 0 && strchr(" ,;.-(&+'", out[n - 1])) out[--n] = '\0';
    return n;
}

fo_status fo_xlsx_sheet_name(fo_xlsx_names *s, const char *want, char out[FO_XLSX_NAME_CAP])
{
    fo_buf b = {0};
    fo_status st = FO_OK;
    char base[FO_XLSX_NAME_CAP];
    const char *clean = fo_xlsx_clean(&b, want ? want : "", want ? strlen(want) : 0, FO_XLSX_PLAIN);
    if (!clean) { st = FO_ERR_NOMEM; goto cleanup; }
    /* Replace what Excel forbids; collapse runs of spaces (incl. from \t \n). */
    char tmp[FO_XLSX_NAME_CAP * 4];
    size_t n = 0;
    for (const char *p = clean; *p && n + 1 < sizeof tmp; p++) {
        char c = *p;
        if (c == '/' || c == '\\') c = '-';
        else if (c == '[') c = '(';
        else if (c == ']') c = ')';
        else if (c == ':' || c == '*' || c == '?' || c == '\t' || c == '\n' || c == '\r') c = ' ';
        if (c == ' ' && n > 0 && tmp[n - 1] == ' ') continue;
        tmp[n++] = c;
    }
    /* a byte cut at the end of tmp may split a character: back off to a lead byte */
    while (n > 0 && ((unsigned char)tmp[n - 1] & 0xC0) == 0x80 && n + 1 >= sizeof tmp) n--;
    tmp[n] = '\0';
    trim(tmp);
    cut_words(tmp, FO_XLSX_NAME_MAX, base);
    trim(base);
    if (!base[0]) strcpy(base, "Sheet");

    strcpy(out, base);
    for (unsigned k = 2; fo_xlsx_names_has(s, out) || name_equal(out, "History"); k++) {
        char suffix[16];
        int sl = snprintf(suffix, sizeof suffix, " (%u)", k);
        size_t bl = cut_words(base, FO_XLSX_NAME_MAX - (size_t)sl, out);
        while (bl > 0 && (out[bl - 1] == ' ' || out[bl - 1] == '\'')) out[--bl] = '\0';
        memcpy(out + bl, suffix, (size_t)sl + 1);
    }
    if (!fo_grow((void **)&s->names, &s->cap, s->n + 1, 8, sizeof *s->names)) { st = FO_ERR_NOMEM; goto cleanup; }
    if (!(s->names[s->n] = fo_strdup(out))) { st = FO_ERR_NOMEM; goto cleanup; }
    s->n++;
cleanup:
    fo_buf_free(&b);
    return st;
}

void fo_xlsx_sheet_ref(const char *sheet, char *out, size_t cap)
{
    size_t n = 0;
    if (cap < 4) { if (cap) out[0] = '\0'; return; }
    out[n++] = '\'';
    for (const char *p = sheet; *p && n + 4 < cap; p++) {
        if (*p == '\'') out[n++] = '\'';
        out[n++] = *p;
    }
    out[n++] = '\'';
    out[n++] = '!';
    out[n] = '\0';
}

bool fo_xlsx_url_allowed(const char *u) { return fo_link_allowed(u); }
