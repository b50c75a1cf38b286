/* markup.c — inline markup (**bold**, *italic*, `code`, [label](url), \ escapes) -> runs.
 *
 * Three passes over the source bytes, linear in its length:
 *   0. resolve: one walk, stepping over escapes and code spans as a unit,
 *      finds where each code span and each link ends (stacks for brackets
 *      and parentheses, the closers of code spans grouped by length).
 *   1. scan: the same walk again, now knowing those ends; every byte is
 *      marked kept (shown) or dropped (a marker), code bytes get
 *      FO_RUN_CODE, label bytes get their link's number; each maximal run of
 *      unescaped '*' outside code becomes a delimiter.
 *   2. emphasis: delimiters are paired as CommonMark does (a closer takes the
 *      nearest opener; two stars make bold, one italic), separately inside each
 *      link label and outside them, so emphasis never crosses a link edge.
 * Unpaired stars, brackets and backticks stay literal: markup never fails.
 * A style change inside a cluster moves to the cluster's end (keep_clusters).
 * Then kept bytes with the same style are gathered into runs. */
#include <string.h>

#include <hb.h>

#include "base/buf.h"
#include "render/core/markup.h"
#include "render/core/shape.h"
#include "base/utf8.h"

typedef struct {
    size_t pos, len;     /* the star run in the source */
    size_t left, count;  /* stars not yet used: source[left .. left + count) */
    int link;            /* link number, -1 outside labels */
    int can_open, can_close;
} delim;

typedef struct {
    size_t url, urllen;  /* the target in the source */
} link;

typedef struct {
    const char *s;
    size_t n;
    unsigned char *keep;  /* 1 = byte is shown */
    unsigned char *code;  /* 1 = byte is inside a code span */
    int *link;            /* link number per byte, -1 outside */
    int *bold, *ital;     /* difference arrays: +1 where a style starts, -1 after it ends */
    size_t *end, *mid;    /* from resolve(): code span and link ends, link label ends */
    delim *d;
    size_t nd, capd;
    link *links;
    size_t nlinks, caplinks;
} scanner;

static int is_punct(unsigned char c)
{
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the run of c starting at i. */
static size_t run_len(const char *s, size_t n, size_t i, char c)
{
    size_t j = i;
    while (j < n && s[j] == c) j++;
    return j - i;
}

/* The closers of code spans: every maximal run of backticks in the source,
 * grouped by length, with one cursor per length. Code spans are asked for
 * left to right, so the cursors only move forward. */
typedef struct {
    size_t *at;     /* run starts, grouped by length, each group in order */
    size_t *first;  /* group of length k is at[first[k] .. first[k + 1]) */
    size_t *next;   /* per length, the next candidate in its group */
    size_t maxlen;
} ticks;

static void ticks_free(ticks *t)
{
    fo_free(t->at);
    fo_free(t->first);
    fo_free(t->next);
}

static int ticks_init(ticks *t, const char *s, size_t n)
{
    memset(t, 0, sizeof *t);
    size_t runs = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '`') { i++; continue; }
        size_t k = run_len(s, n, i, '`');
        if (k > t->maxlen) t->maxlen = k;
        runs++;
        i += k;
    }
    t->at = fo_malloc((runs + 1) * sizeof *t->at);
    t->first = fo_calloc(t->maxlen + 2, sizeof *t->first);
    t->next = fo_malloc((t->maxlen + 1) * sizeof *t->next);
    if (!t->at || !t->first || !t->next) { ticks_free(t); return 0; }
    for (size_t i = 0; i < n;) { /* count, then place: a counting sort by length */
        if (s[i] != '`') { i++; continue; }
        size_t k = run_len(s, n, i, '`');
        t->first[k + 1]++;
        i += k;
    }
    for (size_t k = 1; k <= t->maxlen + 1; k++) t->first[k] += t->first[k - 1];
    memcpy(t->next, t->first, (t->maxlen + 1) * sizeof *t->next);
    for (size_t i = 0; i < n;) {
        if (s[i] != '`') { i++; continue; }
        size_t k = run_len(s, n, i, '`');
        t->at[t->next[k]++] = i;
        i += k;
    }
    memcpy(t->next, t->first, (t->maxlen + 1) * sizeof *t->next);
    return 1;
}

/* If a code span opens at i, returns the index just past its closing
 * backticks; 0 otherwise. The closer is the next run of exactly as many.
 * Calls must come with i increasing. */
static size_t code_span_end(ticks *t, const char *s, size_t n, size_t i)
{
    size_t k = run_len(s, n, i, '`');
    size_t *c = &t->next[k];
    while (*c < t->first[k + 1] && t->at[*c] < i + k) (*c)++;
    return *c < t->first[k + 1] ? t->at[*c] + k : 0;
}

/* A link waiting for the ')' that ends its target. */
typedef struct {
    size_t open;   /* its '[' */
    size_t depth;  /* parentheses open after its '(' */
} url_wait;

/* Pass 0: walks the source once as the scan will (escapes and code spans
 * are single steps) and stores, for every code span opener, the index past
 * its closer in end[], and for every '[' that opens a link [label](url),
 * the index past ')' in end[] and the index of ']' in mid[]. A '['
 * matches the ']' that balances it; the url follows at once, has no spaces
 * and no backticks, and ends at the ')' that balances its '('. Each byte is
 * looked at a bounded number of times. Returns 0 on allocation failure. */
static int resolve(const char *s, size_t n, size_t *end, size_t *mid)
{
    ticks t;
    size_t *open = fo_malloc((n + 1) * sizeof *open);
    url_wait *wait = fo_malloc((n + 1) * sizeof *wait);
    if (!open || !wait || !ticks_init(&t, s, n)) {
        fo_free(open);
        fo_free(wait);
        return 0;
    }
    size_t nopen = 0, nwait = 0, depth = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' && i + 1 < n && is_punct((unsigned char)s[i + 1])) {
            i += 2;
        } else if (c == '`' || is_space(c)) { /* no url holds either */
            nwait = 0;
            if (c != '`') { i++; continue; }
            size_t e = code_span_end(&t, s, n, i);
            end[i] = e;
            i = e ? e : i + run_len(s, n, i, '`');
        } else if (c == '[') {
            open[nopen++] = i++;
        } else if (c == ']') {
            if (nopen == 0) { i++; continue; }
            size_t o = open[--nopen];
            if (i + 1 >= n || s[i + 1] != '(' || i == o + 1) { i++; continue; }
            mid[o] = i;
            wait[nwait++] = (url_wait){o, ++depth};
            i += 2;
        } else if (c == '(') {
            depth++;
            i++;
        } else if (c == ')') {
            if (depth > 0) {
                if (nwait > 0 && wait[nwait - 1].depth == depth) {
                    size_t o = wait[--nwait].open;
                    if (i > mid[o] + 2) end[o] = i + 1; /* else the url is empty */
                }
                depth--;
            }
            i++;
        } else {
            i++;
        }
    }
    ticks_free(&t);
    fo_free(open);
    fo_free(wait);
    return 1;
}

/* The character's class for flanking: 1 space, 2 punctuation, 0 other.
 * Beyond ASCII as CommonMark says: Unicode white space (Zs: the ideographic
 * space) and punctuation (P*, S*: 。 、 ， ؟ ।), so **12%**。 is bold. */
static int char_class(uint32_t c)
{
    if (c < 0x80) return is_space((unsigned char)c) ? 1 : is_punct((unsigned char)c) ? 2 : 0;
    switch (hb_unicode_general_category(hb_unicode_funcs_get_default(), c)) {
    case HB_UNICODE_GENERAL_CATEGORY_SPACE_SEPARATOR: return 1;
    case HB_UNICODE_GENERAL_CATEGORY_CONNECT_PUNCTUATION: case HB_UNICODE_GENERAL_CATEGORY_DASH_PUNCTUATION:
    case HB_UNICODE_GENERAL_CATEGORY_CLOSE_PUNCTUATION: case HB_UNICODE_GENERAL_CATEGORY_FINAL_PUNCTUATION:
    case HB_UNICODE_GENERAL_CATEGORY_INITIAL_PUNCTUATION: case HB_UNICODE_GENERAL_CATEGORY_OTHER_PUNCTUATION:
    case HB_UNICODE_GENERAL_CATEGORY_OPEN_PUNCTUATION: case HB_UNICODE_GENERAL_CATEGORY_CURRENCY_SYMBOL:
    case HB_UNICODE_GENERAL_CATEGORY_MODIFIER_SYMBOL: case HB_UNICODE_GENERAL_CATEGORY_MATH_SYMBOL:
    case HB_UNICODE_GENERAL_CATEGORY_OTHER_SYMBOL: return 2;
    case HB_UNICODE_GENERAL_CATEGORY_CONTROL: case HB_UNICODE_GENERAL_CATEGORY_FORMAT:
    case HB_UNICODE_GENERAL_CATEGORY_UNASSIGNED: case HB_UNICODE_GENERAL_CATEGORY_PRIVATE_USE:
    case HB_UNICODE_GENERAL_CATEGORY_SURROGATE: case HB_UNICODE_GENERAL_CATEGORY_LOWERCASE_LETTER:
    case HB_UNICODE_GENERAL_CATEGORY_MODIFIER_LETTER: case HB_UNICODE_GENERAL_CATEGORY_OTHER_LETTER:
    case HB_UNICODE_GENERAL_CATEGORY_TITLECASE_LETTER: case HB_UNICODE_GENERAL_CATEGORY_UPPERCASE_LETTER:
    case HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK: case HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK:
    case HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK: case HB_UNICODE_GENERAL_CATEGORY_DECIMAL_NUMBER:
    case HB_UNICODE_GENERAL_CATEGORY_LETTER_NUMBER: case HB_UNICODE_GENERAL_CATEGORY_OTHER_NUMBER:
    case HB_UNICODE_GENERAL_CATEGORY_LINE_SEPARATOR: case HB_UNICODE_GENERAL_CATEGORY_PARAGRAPH_SEPARATOR:
    default: return 0;
    }
}

static int push_delim(scanner *sc, size_t pos, size_t len, int lnk)
{
    if (!fo_grow((void **)&sc->d, &sc->capd, sc->nd + 1, 16, sizeof *sc->d)) return 0;
    const char *s = sc->s;
    size_t b = pos ? pos - 1 : 0, k = pos + len;
    while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80) b--;   /* the character before */
    int before = pos > 0 ? char_class(fo_utf8_next(s, pos, &b)) : 1;
    int after = k < sc->n ? char_class(fo_utf8_next(s, sc->n, &k)) : 1;
    /* CommonMark flanking: an opener is not followed by a space, nor by
     * punctuation unless preceded by space or punctuation; mirrored for closers. */
    int left = after != 1 && (after != 2 || before != 0);
    int right = before != 1 && (before != 2 || after != 0);
    sc->d[sc->nd++] = (delim){pos, len, pos, len, lnk, left, right};
    return 1;
}

/* Pass 1. Returns 0 on allocation failure. */
static int scan(scanner *sc)
{
    const char *s = sc->s;
    size_t n = sc->n;
    int cur_link = -1;
    size_t label_end = 0, link_stop = 0;
    for (size_t i = 0; i < n;) {
        if (cur_link >= 0 && i >= label_end) { /* "](url)" is dropped */
            i = link_stop;
            cur_link = -1;
            continue;
        }
        sc->link[i] = cur_link;
        char c = s[i];
        if (c == '\\' && i + 1 < n && is_punct((unsigned char)s[i + 1])) {
            sc->keep[i] = 0;
            sc->keep[i + 1] = 1;
            sc->link[i + 1] = cur_link;
            i += 2;
        } else if (c == '`') {
            size_t k = run_len(s, n, i, '`'), e = sc->end[i];
            if (!e) {
                for (size_t j = i; j < i + k; j++) { sc->keep[j] = 1; sc->link[j] = cur_link; }
                i += k;
                continue;
            }
            size_t a = i + k, b = e - k;
            /* one space is stripped from each side when both are present */
            if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ' && run_len(s, b, a, ' ') < b - a) { a++; b--; }
            for (size_t j = i; j < e; j++) {
                sc->keep[j] = j >= a && j < b;
                sc->code[j] = 1;
                sc->link[j] = cur_link;
            }
            i = e;
        } else if (c == '[' && cur_link < 0) {
            if (!sc->end[i]) { sc->keep[i++] = 1; continue; }
            if (!fo_grow((void **)&sc->links, &sc->caplinks, sc->nlinks + 1, 4, sizeof *sc->links)) return 0;
            label_end = sc->mid[i];
            link_stop = sc->end[i];
            sc->links[sc->nlinks] = (link){label_end + 2, link_stop - 1 - (label_end + 2)};
            cur_link = (int)sc->nlinks++;
            sc->keep[i++] = 0;
        } else if (c == '*') {
            size_t k = run_len(s, n, i, '*');
            if (cur_link >= 0 && i + k > label_end) k = label_end - i;
            for (size_t j = i; j < i + k; j++) { sc->keep[j] = 1; sc->link[j] = cur_link; }
            if (!push_delim(sc, i, k, cur_link)) return 0;
            i += k;
        } else {
            sc->keep[i++] = 1;
        }
    }
    return 1;
}

/* Pass 2 over the delimiters idx[0..m): pairs each closer with the nearest
 * opener below it that has stars left. Those openers are kept on a stack
 * (room for m), so nothing between a matched pair is looked at again. */
static void pair_emphasis(scanner *sc, const size_t *idx, size_t m, delim **stack)
{
    size_t top = 0;
    for (size_t k = 0; k < m; k++) {
        delim *c = &sc->d[idx[k]];
        while (c->can_close && c->count > 0 && top > 0) {
            delim *o = stack[top - 1];
            size_t use = o->count >= 2 && c->count >= 2 ? 2 : 1;
            int *arr = use == 2 ? sc->bold : sc->ital;
            size_t from = o->left + o->count;  /* content starts after the opener */
            size_t to = c->left;               /* and ends before the closer */
            arr[from] += 1;
            arr[to] -= 1;
            for (size_t q = o->left + o->count - use; q < o->left + o->count; q++) sc->keep[q] = 0;
            for (size_t q = c->left; q < c->left + use; q++) sc->keep[q] = 0;
            o->count -= use;
            c->left += use;
            c->count -= use;
            if (o->count == 0) top--;
        }
        if (c->can_open && c->count > 0) stack[top++] = c;
    }
}

static void runs_clear(fo_runs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        fo_free(r->runs[i].text);
        fo_free(r->runs[i].url);
    }
    fo_free(r->runs);
    r->runs = NULL;
    r->n = 0;
}

void fo_runs_free(fo_runs *r)
{
    if (r) runs_clear(r);
}

/* Copies a link target, dropping the backslash of each escape. */
static char *url_dup(const char *s, size_t n)
{
    char *u = fo_malloc(n + 1);
    if (!u) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && is_punct((unsigned char)s[i + 1])) i++;
        u[k++] = s[i];
    }
    u[k] = '\0';
    return u;
}

/* Gathers kept bytes into runs of equal style. style[i] is -1 for a dropped
 * byte, else the flags plus the link number (shifted) of byte i. */
static int build_runs(scanner *sc, const long *style, fo_runs *out)
{
    size_t n = sc->n, cap = 0;
    for (size_t i = 0; i < n;) {
        if (style[i] < 0) { i++; continue; }
        long st = style[i];
        size_t len = 0, j = i;
        for (; j < n && (style[j] < 0 || style[j] == st); j++) len += style[j] >= 0;
        if (!fo_grow((void **)&out->runs, &cap, out->n + 1, 4, sizeof *out->runs)) return 0;
        fo_run *r = &out->runs[out->n++];
        memset(r, 0, sizeof *r);
        r->flags = (unsigned)(st & 7);
        r->text = fo_malloc(len + 1);
        if (!r->text) return 0;
        for (size_t k = i; k < j; k++)
            if (style[k] >= 0) r->text[r->len++] = sc->s[k];
        r->text[r->len] = '\0';
        long lnk = (st >> 3) - 1;
        if (lnk >= 0) {
            r->url = url_dup(sc->s + sc->links[lnk].url, sc->links[lnk].urllen);
            if (!r->url) return 0;
        }
        i = j;
    }
    return 1;
}

/* True when a style changes between two shown bytes before a non-ASCII
 * one: only there can a cut fall inside a cluster. */
static int cut_before_non_ascii(const scanner *sc, const long *style)
{
    long prev = -1;
    for (size_t i = 0; i < sc->n; i++) {
        if (style[i] < 0) continue;
        if (prev >= 0 && style[i] != prev && (unsigned char)sc->s[i] >= 0x80) return 1;
        prev = style[i];
    }
    return 0;
}

/* Moves every style change that falls inside a cluster of the shown text
 * to the cluster's end (fo_shape_cluster_end), the cluster taking the style
 * of its start: **नमस्**ते is bold नमस्ते, क**ि**ताब plain किताब. No
 * writer can draw half a conjunct, or a vowel sign or haraka apart from
 * its letter, in another style (HarfBuzz sets it on a dotted circle, and
 * so do Word processors). Returns 0 when out of memory. */
static int keep_clusters(const scanner *sc, long *style)
{
    if (!cut_before_non_ascii(sc, style)) return 1;
    char *shown = fo_malloc(sc->n + 1);
    size_t *at = fo_malloc((sc->n + 1) * sizeof *at), m = 0;
    if (!shown || !at) { fo_free(shown); fo_free(at); return 0; }
    for (size_t i = 0; i < sc->n; i++)
        if (style[i] >= 0) { at[m] = i; shown[m++] = sc->s[i]; }
    for (size_t p = 1; p < m; p++) {
        if (style[at[p]] == style[at[p - 1]] || ((unsigned char)shown[p] & 0xC0) == 0x80) continue;
        for (size_t q = p, e = fo_shape_cluster_end(shown, m, p); q < e; q++) style[at[q]] = style[at[p - 1]];
    }
    fo_free(shown);
    fo_free(at);
    return 1;
}

fo_status fo_markup_parse(const char *src, fo_runs *out)
{
    out->runs = NULL;
    out->n = 0;
    if (!src) return FO_OK;
    fo_status st = FO_ERR_NOMEM;
    scanner sc;
    memset(&sc, 0, sizeof sc);
    sc.s = src;
    sc.n = strlen(src);
    size_t *idx = NULL;
    delim **stack = NULL;
    long *style = NULL;
    sc.keep = fo_calloc(sc.n + 1, 1);
    sc.code = fo_calloc(sc.n + 1, 1);
    sc.link = fo_calloc(sc.n + 1, sizeof *sc.link);
    sc.bold = fo_calloc(sc.n + 1, sizeof *sc.bold);
    sc.ital = fo_calloc(sc.n + 1, sizeof *sc.ital);
    sc.end = fo_calloc(sc.n + 1, sizeof *sc.end);
    sc.mid = fo_calloc(sc.n + 1, sizeof *sc.mid);
    if (!sc.keep || !sc.code || !sc.link || !sc.bold || !sc.ital || !sc.end || !sc.mid) goto cleanup;
    if (!resolve(sc.s, sc.n, sc.end, sc.mid) || !scan(&sc)) goto cleanup;

    /* emphasis inside each label (their delimiters are consecutive), then
     * outside all labels */
    idx = fo_malloc((sc.nd + 1) * sizeof *idx);
    stack = fo_malloc((sc.nd + 1) * sizeof *stack);
    style = fo_malloc((sc.n + 1) * sizeof *style);
    if (!idx || !stack || !style) goto cleanup;
    for (size_t i = 0; i < sc.nd;) {
        size_t m = 0, j = i;
        if (sc.d[i].link < 0) { i++; continue; }
        for (; j < sc.nd && sc.d[j].link == sc.d[i].link; j++) idx[m++] = j;
        pair_emphasis(&sc, idx, m, stack);
        i = j;
    }
    size_t m = 0;
    for (size_t i = 0; i < sc.nd; i++)
        if (sc.d[i].link < 0) idx[m++] = i;
    pair_emphasis(&sc, idx, m, stack);

    int bold = 0, ital = 0;
    for (size_t i = 0; i < sc.n; i++) {
        bold += sc.bold[i];
        ital += sc.ital[i];
        style[i] = !sc.keep[i] ? -1
                 : ((long)(sc.link[i] + 1) << 3) | (bold > 0 ? FO_RUN_BOLD : 0) |
                   (ital > 0 ? FO_RUN_ITALIC : 0) | (sc.code[i] ? FO_RUN_CODE : 0);
    }
    if (!keep_clusters(&sc, style) || !build_runs(&sc, style, out)) {
        runs_clear(out);
        goto cleanup;
    }
    st = FO_OK;
cleanup:
    fo_free(idx);
    fo_free(stack);
    fo_free(style);
    fo_free(sc.end);
    fo_free(sc.mid);
    fo_free(sc.keep);
    fo_free(sc.code);
    fo_free(sc.link);
    fo_free(sc.bold);
    fo_free(sc.ital);
    fo_free(sc.d);
    fo_free(sc.links);
    return st;
}

char *fo_markup_plain(const char *src)
{
    fo_runs r;
    if (fo_markup_parse(src, &r) != FO_OK) return NULL;
    size_t total = 0;
    for (size_t i = 0; i < r.n; i++) total += r.runs[i].len;
    char *out = fo_malloc(total + 1);
    if (out) {
        size_t at = 0;
        for (size_t i = 0; i < r.n; i++) {
            memcpy(out + at, r.runs[i].text, r.runs[i].len);
            at += r.runs[i].len;
        }
        out[at] = '\0';
    }
    fo_runs_free(&r);
    return out;
}
