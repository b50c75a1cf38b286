/* json.c — jansson parsing plus on-demand source positions for JSON Pointers.
 *
 * The locator walks the original text along the pointer's tokens through a
 * lazy index (the children of each container it passes, found once). The text is valid JSON (jansson
 * accepted it), so the scanner only has to be correct, not defensive; it is
 * still bounded by the buffer length everywhere. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "base/sha256.h"
#include "base/buf.h"
#include "base/utf8.h"

/* The children of one container, found once: value (and key) offsets, and
 * a hash of each decoded key so a member is found without decoding all. */
typedef struct {
    size_t off;        /* of the '{' or '['; SIZE_MAX = empty slot */
    size_t n;
    size_t *vals, *keys;
    uint32_t *hashes;
} node;

/* Built on the first locate, then reused: a spec with 40,000 bad blocks
 * used to be rescanned from its start for each error (87 s). */
typedef struct {
    node *slots;       /* open addressing on off */
    size_t cap, count;
    int *cp_line, *cp_col; /* line:column at every CHECKPOINT-th byte */
    size_t ncp;
    bool failed;       /* out of memory once: scan as before */
} locate_index;

#define CHECKPOINT 4096

struct fo_json {
    char *text;
    size_t len;
    char *display;
    json_t *root;
    locate_index ix;
    size_t nonfinite;   /* NaN / Infinity / -Infinity tokens read as null */
    size_t nonfinite_at; /* byte offset of the first */
    char sha256[65];    /* of the bytes as read (a file's BOM included) */
};

json_t *fo_json_root(const fo_json *j) { return j->root; }
const char *fo_json_sha256(const fo_json *j) { return j->sha256; }
const char *fo_json_display(const fo_json *j) { return j->display; }

static void index_free(locate_index *ix)
{
    for (size_t i = 0; i < ix->cap; i++) {
        if (ix->slots[i].off == SIZE_MAX) continue;
        fo_free(ix->slots[i].vals);
        fo_free(ix->slots[i].keys);
        fo_free(ix->slots[i].hashes);
    }
    fo_free(ix->slots);
    fo_free(ix->cp_line);
    fo_free(ix->cp_col);
}

void fo_json_free(fo_json *j)
{
    if (!j) return;
    index_free(&j->ix);
    json_decref(j->root);
    fo_free(j->text);
    fo_free(j->display);
    fo_free(j);
}

/* Converts a byte offset to 1-based line and character column. */
static void offset_to_pos(const char *t, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') { l++; c = 1; }
        else if (((unsigned char)t[i] & 0xC0) != 0x80) c++;
    }
    *line = l;
    *col = c;
}

/* jansson's position is just past the offending token: step back to its start
 * so the caret lands on the token a person would look at. */
static size_t token_start(const char *t, size_t end)
{
    size_t i = end - 1;
    if (t[i] == '"') {
        while (i > 0) {
            i--;
            if (t[i] == '"') {
                size_t bs = 0;
                while (i > bs && t[i - bs - 1] == '\\') bs++;
                if (bs % 2 == 0) return i;
            }
        }
        return 0;
    }
    while (i > 0 && (isalnum((unsigned char)t[i - 1]) || strchr("+-.", t[i - 1])) &&
           (isalnum((unsigned char)t[i]) || strchr("+-.", t[i])))
        i--;
    return i;
}

/* True when t[i] can start a JSON value (a string, number, object, array,
 * true/false/null), false for anything the lexer rejects (a bare word, a
 * single quote, a comment). */
static bool value_start(const char *t, size_t len, size_t i)
{
    static const char *const words[] = {"true", "false", "null"};
    if (i >= len) return false;
    if (strchr("\"{[-", t[i]) || isdigit((unsigned char)t[i])) return true;
    for (size_t k = 0; k < 3; k++)
        if (len - i >= strlen(words[k]) && memcmp(t + i, words[k], strlen(words[k])) == 0) return true;
    return false;
}

/* A hint for a parse error, from jansson's error code (json_error_code: its
 * message text is for people, not a stable interface) and the bytes around
 * the offending token at t[at]. */
static const char *syntax_hint(const json_error_t *err, const char *t, size_t len, size_t at)
{
    switch (json_error_code(err)) {
    case json_error_duplicate_key: return "each key may appear once per object";
    case json_error_end_of_input_expected: return "the document must be one JSON object";
    case json_error_invalid_utf8: return "save the spec as UTF-8";
    case json_error_premature_end_of_input: return "look for a missing comma or an extra one before this point";
    case json_error_invalid_syntax: break;
    case json_error_unknown: case json_error_out_of_memory: case json_error_stack_overflow:
    case json_error_cannot_open_file: case json_error_invalid_argument: case json_error_invalid_format:
    case json_error_wrong_type: case json_error_null_character: case json_error_null_value:
    case json_error_null_byte_in_key: case json_error_numeric_overflow: case json_error_item_not_found:
    case json_error_index_out_of_range:
    default: return NULL;
    }
    bool closing = at < len && (t[at] == '}' || t[at] == ']');
    if (!closing && !value_start(t, len, at) && at < len && t[at] != ',' && t[at] != ':')
        return "strings need double quotes; JSON has no comments";
    size_t p = at;
    while (p > 0 && isspace((unsigned char)t[p - 1])) p--;
    char prev = p > 0 ? t[p - 1] : 0;
    bool after_value = prev == '"' || prev == '}' || prev == ']' || isalnum((unsigned char)prev);
    if (prev == '"') { /* a key waiting for its ':' is no missing comma */
        size_t q = token_start(t, p);
        while (q > 0 && isspace((unsigned char)t[q - 1])) q--;
        if (q > 0 && (t[q - 1] == '{' || t[q - 1] == ',') && !closing) return NULL;
    }
    if ((after_value && (value_start(t, len, at) || closing)) || (prev == ',' && closing))
        return "look for a missing comma or an extra one before this point";
    return NULL;
}

/* Length of a bare NaN, Infinity or -Infinity token at t[i] (outside a
 * string, between delimiters), or 0. */
static size_t nonfinite_at(const char *t, size_t len, size_t i)
{
    static const char *const toks[] = {"NaN", "Infinity", "-Infinity"};
    if (i > 0 && !strchr("[:, \t\r\n", t[i - 1])) return 0;
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(toks[k]);
        if (len - i >= n && memcmp(t + i, toks[k], n) == 0 &&
            (i + n == len || strchr(",]} \t\r\n", t[i + n])))
            return n;
    }
    return 0;
}

/* The bytes a scan of JSON text stops at: in a string, its end and its
 * escapes; outside, a string's start and what may start a bare NaN,
 * Infinity or -Infinity. Every other byte is passed over in one test: the
 * text of a spec is scanned whole before jansson parses it. */
enum { IN_STRING = 1, OUTSIDE = 2 };
static const unsigned char stops[256] = {
    ['"'] = IN_STRING | OUTSIDE, ['\\'] = IN_STRING, ['N'] = OUTSIDE, ['I'] = OUTSIDE, ['-'] = OUTSIDE,
};

/* Calls fn(t, from, to, k, ctx) for each bare NaN / Infinity / -Infinity
 * token outside strings (at t[to], k bytes), the bytes since the last one
 * t[from, to); and at the end with k = 0 for the rest. */
typedef void (*token_fn)(const char *t, size_t from, size_t to, size_t k, void *ctx);
static void walk_nonfinite(const char *t, size_t len, token_fn fn, void *ctx)
{
    bool in_str = false;
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)t[i];
        if (!(stops[c] & (in_str ? IN_STRING : OUTSIDE))) continue;
        if (in_str) {
            if (c == '\\') i++;          /* the escaped byte */
            else in_str = false;
            continue;
        }
        if (c == '"') { in_str = true; continue; }
        size_t k = nonfinite_at(t, len, i);
        if (!k) continue;
        fn(t, from, i, k, ctx);
        from = i + k;
        i += k - 1;
    }
    fn(t, from, len, 0, ctx);
}

typedef struct {
    fo_json *j;
    char *copy;     /* NULL: counting only */
    size_t n;
    size_t *shift, nshift;
} nulling;

static void count_or_copy(const char *t, size_t from, size_t to, size_t k, void *ctx)
{
    nulling *z = ctx;
    if (!z->copy) {
        if (k && !z->j->nonfinite++) z->j->nonfinite_at = to;
        return;
    }
    memcpy(z->copy + z->n, t + from, to - from);
    z->n += to - from;
    if (!k) return;
    memcpy(z->copy + z->n, "null", 4);
    if (k == 3) z->shift[z->nshift++] = z->n + 3; /* NaN: one byte more */
    for (size_t q = 4; q < k; q++) z->copy[z->n + q] = ' ';
    z->n += k > 4 ? k : 4;
}

/* What Python's json.dumps writes for missing floats is no JSON: a copy of
 * j's text with each NaN, Infinity and -Infinity outside strings replaced
 * by null, for jansson (the original stays for locating). *shift (allocated)
 * gets the offsets in the copy after which a NaN's one extra byte sits, so
 * positions map back. NULL (and *shift NULL) when there is none or on OOM
 * (then j->nonfinite is set). */
static char *null_nonfinite(fo_json *j, size_t **shift, size_t *nshift)
{
    nulling z = {.j = j};
    *shift = NULL;
    *nshift = 0;
    walk_nonfinite(j->text, j->len, count_or_copy, &z);
    if (!j->nonfinite) return NULL;
    z.copy = fo_malloc(j->len + j->nonfinite + 1);
    z.shift = fo_malloc(j->nonfinite * sizeof *z.shift);
    if (!z.copy || !z.shift) {
        fo_free(z.copy);
        fo_free(z.shift);
        return NULL;
    }
    walk_nonfinite(j->text, j->len, count_or_copy, &z);
    z.copy[z.n] = '\0';
    *shift = z.shift;
    *nshift = z.nshift;
    return z.copy;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The value of the four hex digits at p, or -1. */
static long hex4(const char *p)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p[k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A copy of JSON text t[0..len) with each \uXXXX escape of a string that
 * stands for a character past ASCII (a surrogate pair for one past the
 * BMP) written as that character in UTF-8, for jansson; its length in
 * *out_len. NULL when there is none (or out of memory: the text is parsed
 * as it is). Python's json.dump escapes every such character by default,
 * and jansson reads an escape several times slower than the bytes it
 * stands for: a mixed-script report's spec was 3.4 times the size of its
 * UTF-8, and its parse 8 % of its PDF's instructions. The values are the
 * same: escapes of ASCII (a quote, a backslash, a control) and lone
 * surrogates stay as they are, so valid and invalid JSON stay so. */
static char *utf8_escapes(const char *t, size_t len, size_t *out_len)
{
    char *out = NULL;
    size_t o = 0, done = 0;   /* t[0..done) is copied to out[0..o) */
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        if (!(stops[(unsigned char)t[i]] & IN_STRING)) continue;
        if (t[i] == '"') { in_str = !in_str; continue; }
        if (!in_str || i + 1 >= len) continue;
        long v = t[i + 1] == 'u' && len - i >= 6 ? hex4(t + i + 2) : -1;
        size_t end = i + 6;
        if (v >= 0xD800 && v < 0xDC00 && len - i >= 12 && t[i + 6] == '\\' && t[i + 7] == 'u') {
            long lo = hex4(t + i + 8);
            if (lo >= 0xDC00 && lo < 0xE000) { v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00); end = i + 12; }
        }
        if (v < 0x80 || (v >= 0xD800 && v < 0xE000)) { i++; continue; }   /* past the escaped character */
        if (!out && !(out = fo_malloc(len + 1))) return NULL;
        memcpy(out + o, t + done, i - done);
        o += i - done;
        o += fo_utf8_put(out + o, (uint32_t)v);
        done = end;
        i = end - 1;
    }
    if (!out) return NULL;
    memcpy(out + o, t + done, len - done);
    o += len - done;
    out[o] = '\0';
    *out_len = o;
    return out;
}

size_t fo_json_nonfinite(const fo_json *j, int *line, int *column)
{
    if (j->nonfinite) offset_to_pos(j->text, j->nonfinite_at, line, column);
    return j->nonfinite;
}

fo_status fo_json_parse(const char *text, size_t len, const char *display, fo_json **out, fo_diags *d)
{
    *out = NULL;
    fo_json *j = fo_calloc(1, sizeof *j);
    if (!j) return FO_ERR_NOMEM;
    j->text = fo_strndup(text, len);
    j->display = fo_strdup(display ? display : "<spec>");
    if (!j->text || !j->display) { fo_json_free(j); return FO_ERR_NOMEM; }
    j->len = len;
    fo_sha256_hex(text, len, j->sha256);
    json_error_t err;
    size_t *shift, nshift;
    char *nulled = null_nonfinite(j, &shift, &nshift);
    if (j->nonfinite && !nulled) { fo_json_free(j); return FO_ERR_NOMEM; }
    const char *src = nulled ? nulled : j->text;
    size_t plain_len = 0;
    char *plain = utf8_escapes(src, len + nshift, &plain_len);
    const size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL;
    j->root = json_loadb(plain ? plain : src, plain ? plain_len : len + nshift, flags, &err);
    if (!j->root && plain)   /* the error again, at its place in the text */
        j->root = json_loadb(src, len + nshift, flags, &err);
    fo_free(plain);
    fo_free(nulled);
    if (!j->root) {
        /* jansson counts columns in characters from 1 after the offending one;
         * recompute from the byte position for an exact caret (in the
         * original text: each NaN before it took one byte more as null). */
        int line = err.line, col = err.column;
        size_t at = len;
        size_t pos = err.position > 0 ? (size_t)err.position : 0;
        for (size_t k = 0; k < nshift && shift[k] < (size_t)err.position; k++) pos--;
        if (pos > 0 && pos <= len) {
            at = token_start(j->text, pos);
            offset_to_pos(j->text, at, &line, &col);
        }
        if (line < 1) line = 1;
        if (col < 1) col = 1;
        fo_diags_add(d, j->display, line, col, NULL, syntax_hint(&err, j->text, len, at),
                     "invalid JSON: %s", err.text);
        fo_free(shift);
        fo_json_free(j);
        return FO_ERR_INPUT;
    }
    fo_free(shift);
    *out = j;
    return FO_OK;
}

fo_status fo_json_load(const char *path, const char *display, fo_json **out, fo_diags *d)
{
    *out = NULL;
    const char *name = display ? display : path;
    size_t len;
    char *buf = fo_file_read(path, 0, &len);
    fo_status st = FO_OK;
    if (!buf && errno == ENOMEM) {
        st = FO_ERR_NOMEM;
    } else if (!buf) {
        /* a folder opens but does not read; anything else fails at open */
        fo_diags_add(d, name, 0, 0, NULL, NULL, "cannot %s: %s", errno == EISDIR || errno == EIO ? "read" : "open",
                     strerror(errno));
        st = FO_ERR_INPUT;
    }
    if (st == FO_OK) {
        /* A UTF-8 byte-order mark is harmless; jansson would reject it. */
        size_t skip = (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0;
        st = fo_json_parse(buf + skip, len - skip, name, out, d);
        if (st == FO_OK && skip) fo_sha256_hex(buf, len, (*out)->sha256);
    }
    fo_free(buf);
    return st;
}

/* ---- pointers --------------------------------------------------------------*/
/* ---- the locator ------------------------------------------------------------*/
typedef struct {
    const char *t;
    size_t len, i;
} scan;

static void skip_ws(scan *s)
{
    while (s->i < s->len && (s->t[s->i] == ' ' || s->t[s->i] == '\t' ||
                             s->t[s->i] == '\n' || s->t[s->i] == '\r'))
        s->i++;
}

/* Skips a string starting at '"'. */
static void skip_string(scan *s)
{
    s->i++;
    while (s->i < s->len && s->t[s->i] != '"') {
        if (s->t[s->i] == '\\') s->i++;
        s->i++;
    }
    s->i++;
}

static void skip_value(scan *s)
{
    skip_ws(s);
    if (s->i >= s->len) return;
    char c = s->t[s->i];
    if (c == '"') { skip_string(s); return; }
    if (c == '{' || c == '[') {
        int depth = 0;
        while (s->i < s->len) {
            char k = s->t[s->i];
            if (k == '"') { skip_string(s); continue; }
            if (k == '{' || k == '[') depth++;
            else if (k == '}' || k == ']') {
                if (--depth == 0) { s->i++; return; }
            }
            s->i++;
        }
        return;
    }
    while (s->i < s->len && !strchr(",}] \t\r\n", s->t[s->i])) s->i++;
}

/* Decodes the key string at s->i (at '"') into buf; advances past it. */
static void read_key(scan *s, char *buf, size_t cap)
{
    size_t n = 0;
    s->i++;
    while (s->i < s->len && s->t[s->i] != '"') {
        unsigned cp = (unsigned char)s->t[s->i++];
        if (cp == '\\' && s->i < s->len) {
            char e = s->t[s->i++];
            switch (e) {
            case 'n': cp = '\n'; break;
            case 't': cp = '\t'; break;
            case 'r': cp = '\r'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'u': {   /* the text is valid JSON: four hex digits follow */
                size_t hex = s->len - s->i < 4 ? s->len - s->i : 4;
                long v = hex == 4 ? hex4(s->t + s->i) : -1;
                s->i += hex;
                if (v >= 0xD800 && v < 0xDC00 && s->len - s->i >= 6 && s->t[s->i] == '\\') {
                    v = 0x10000 + ((v - 0xD800) << 10) + (hex4(s->t + s->i + 2) - 0xDC00);
                    s->i += 6;
                }
                char u[4];
                size_t un = fo_utf8_put(u, v < 0 ? FO_UTF8_REPLACEMENT : (uint32_t)v);
                for (size_t k = 0; k < un && n + 1 < cap; k++) buf[n++] = u[k];
                continue;
            }
            default: cp = (unsigned char)e; break;
            }
        }
        if (n + 1 < cap) buf[n++] = (char)cp;
    }
    s->i++;
    buf[n] = '\0';
}

/* Next token of pointer p (advances *p), unescaped into tok. */
static bool next_token(const char **p, char *tok, size_t cap)
{
    if (**p != '/') return false;
    (*p)++;
    size_t n = 0;
    while (**p && **p != '/') {
        char c = *(*p)++;
        if (c == '~' && (**p == '0' || **p == '1')) c = *(*p)++ == '0' ? '~' : '/';
        if (n + 1 < cap) tok[n++] = c;
    }
    tok[n] = '\0';
    return true;
}

/* Byte offset of the value at pointer (or the deepest ancestor found). */
static size_t locate_offset(const fo_json *j, const char *pointer, bool key)
{
    scan s = {j->text, j->len, 0};
    skip_ws(&s);
    size_t found = s.i;          /* start of the deepest value reached */
    const char *p = pointer ? pointer : "";
    char tok[1024], k[1024];
    while (*p) {
        if (!next_token(&p, tok, sizeof tok)) break;
        bool last = *p == '\0';
        skip_ws(&s);
        if (s.i >= s.len) break;
        bool ok = false;
        if (s.t[s.i] == '{') {
            s.i++;
            for (;;) {
                skip_ws(&s);
                if (s.i >= s.len || s.t[s.i] != '"') break;
                size_t key_at = s.i;
                read_key(&s, k, sizeof k);
                skip_ws(&s);
                s.i++; /* ':' */
                skip_ws(&s);
                if (strcmp(k, tok) == 0) {
                    found = (last && key) ? key_at : s.i;
                    ok = true;
                    break;
                }
                skip_value(&s);
                skip_ws(&s);
                if (s.i < s.len && s.t[s.i] == ',') s.i++;
                else break;
            }
        } else if (s.t[s.i] == '[') {
            char *end;
            errno = 0;
            unsigned long idx = strtoul(tok, &end, 10);
            if (*tok && !*end && errno == 0) {
                s.i++;
                unsigned long n = 0;
                for (;;) {
                    skip_ws(&s);
                    if (s.i >= s.len || s.t[s.i] == ']') break;
                    if (n == idx) { found = s.i; ok = true; break; }
                    skip_value(&s);
                    skip_ws(&s);
                    n++;
                    if (s.i < s.len && s.t[s.i] == ',') s.i++;
                    else break;
                }
            }
        }
        if (!ok) break;
    }
    return found;
}

/* ---- the index ---------------------------------------------------------------*/
static uint32_t key_hash(const char *k)
{
    uint32_t h = 2166136261u;
    for (; *k; k++) h = (h ^ (unsigned char)*k) * 16777619u;
    return h;
}

static bool push_child(node *nd, size_t *cap, size_t val, size_t key, uint32_t h)
{
    if (!fo_grow_all(cap, nd->n + 1, 8, 3,
                     (void **const[]){(void **)&nd->vals, (void **)&nd->keys, (void **)&nd->hashes},
                     (size_t[]){sizeof *nd->vals, sizeof *nd->keys, sizeof *nd->hashes}))
        return false;
    nd->vals[nd->n] = val;
    nd->keys[nd->n] = key;
    nd->hashes[nd->n++] = h;
    return true;
}

/* One pass over the container at off: its children's offsets. */
static bool build_node(const fo_json *j, size_t off, node *nd)
{
    scan s = {j->text, j->len, off + 1};
    bool obj = j->text[off] == '{';
    size_t cap = 0;
    char k[1024];
    memset(nd, 0, sizeof *nd);
    nd->off = off;
    for (;;) {
        skip_ws(&s);
        if (s.i >= s.len || s.t[s.i] == '}' || s.t[s.i] == ']') return true;
        size_t key_at = s.i;
        uint32_t h = 0;
        if (obj) {
            if (s.t[s.i] != '"') return true;
            read_key(&s, k, sizeof k);
            h = key_hash(k);
            skip_ws(&s);
            s.i++; /* ':' */
            skip_ws(&s);
        }
        if (!push_child(nd, &cap, s.i, key_at, h)) return false;
        skip_value(&s);
        skip_ws(&s);
        if (s.i < s.len && s.t[s.i] == ',') s.i++;
        else return true;
    }
}

static bool index_grow(locate_index *ix)
{
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    node *slots = fo_malloc(cap * sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < cap; i++) slots[i].off = SIZE_MAX;
    for (size_t i = 0; i < ix->cap; i++) {
        if (ix->slots[i].off == SIZE_MAX) continue;
        size_t h = ix->slots[i].off * 0x9E3779B97F4A7C15ull & (cap - 1);
        while (slots[h].off != SIZE_MAX) h = (h + 1) & (cap - 1);
        slots[h] = ix->slots[i];
    }
    fo_free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return true;
}

/* The children of the container at off, indexed on first use; NULL on OOM. */
static const node *children(fo_json *j, size_t off)
{
    locate_index *ix = &j->ix;
    if ((ix->count + 1) * 2 > ix->cap && !index_grow(ix)) return NULL;
    size_t h = off * 0x9E3779B97F4A7C15ull & (ix->cap - 1);
    while (ix->slots[h].off != SIZE_MAX) {
        if (ix->slots[h].off == off) return &ix->slots[h];
        h = (h + 1) & (ix->cap - 1);
    }
    node nd;
    if (!build_node(j, off, &nd)) {
        fo_free(nd.vals); fo_free(nd.keys); fo_free(nd.hashes);
        return NULL;
    }
    ix->slots[h] = nd;
    ix->count++;
    return &ix->slots[h];
}

/* The member tok of object nd, or SIZE_MAX. */
static size_t find_member(const fo_json *j, const node *nd, const char *tok)
{
    uint32_t h = key_hash(tok);
    char k[1024];
    for (size_t i = 0; i < nd->n; i++) {
        if (nd->hashes[i] != h) continue;
        scan s = {j->text, j->len, nd->keys[i]};
        read_key(&s, k, sizeof k);
        if (strcmp(k, tok) == 0) return i;
    }
    return SIZE_MAX;
}

/* locate_offset through the index; false when it cannot be built (OOM). */
static bool indexed_offset(fo_json *j, const char *pointer, bool key, size_t *out)
{
    scan s = {j->text, j->len, 0};
    skip_ws(&s);
    size_t cur = s.i;
    const char *p = pointer ? pointer : "";
    char tok[1024];
    *out = cur;
    while (*p && next_token(&p, tok, sizeof tok) && cur < j->len) {
        bool last = *p == '\0';
        char c = j->text[cur];
        if (c != '{' && c != '[') break;
        const node *nd = children(j, cur);
        if (!nd) return false;
        size_t i = SIZE_MAX;
        if (c == '{') i = find_member(j, nd, tok);
        else {
            char *end;
            errno = 0;
            unsigned long idx = strtoul(tok, &end, 10);
            if (*tok && !*end && errno == 0 && idx < nd->n) i = idx;
        }
        if (i == SIZE_MAX) break;
        cur = (c == '{' && last && key) ? nd->keys[i] : nd->vals[i];
        *out = cur;
    }
    return true;
}

/* line:column checkpoints every CHECKPOINT bytes, so a position costs at
 * most CHECKPOINT bytes of counting even on one long line. */
static bool build_checkpoints(fo_json *j)
{
    locate_index *ix = &j->ix;
    ix->ncp = j->len / CHECKPOINT + 1;
    ix->cp_line = fo_malloc(ix->ncp * sizeof *ix->cp_line);
    ix->cp_col = fo_malloc(ix->ncp * sizeof *ix->cp_col);
    if (!ix->cp_line || !ix->cp_col) return false;
    int l = 1, c = 1;
    for (size_t i = 0; i <= j->len; i++) {
        if (i % CHECKPOINT == 0) { ix->cp_line[i / CHECKPOINT] = l; ix->cp_col[i / CHECKPOINT] = c; }
        if (i == j->len) break;
        if (j->text[i] == '\n') { l++; c = 1; }
        else if (((unsigned char)j->text[i] & 0xC0) != 0x80) c++;
    }
    return true;
}

static void indexed_pos(const fo_json *j, size_t off, int *line, int *col)
{
    const locate_index *ix = &j->ix;
    size_t k = off / CHECKPOINT;
    int l = ix->cp_line[k], c = ix->cp_col[k];
    for (size_t i = k * CHECKPOINT; i < off; i++) {
        if (j->text[i] == '\n') { l++; c = 1; }
        else if (((unsigned char)j->text[i] & 0xC0) != 0x80) c++;
    }
    *line = l;
    *col = c;
}

bool fo_json_locate(const fo_json *cj, const char *pointer, bool key, int *line, int *column)
{
    fo_json *j = (fo_json *)cj; /* the index is a cache: locating does not change the document */
    size_t off;
    if (!j->ix.failed && !j->ix.cp_line && !build_checkpoints(j)) j->ix.failed = true;
    if (j->ix.failed || !indexed_offset(j, pointer, key, &off)) {
        j->ix.failed = true;
        offset_to_pos(j->text, locate_offset(j, pointer, key), line, column);
        return true;
    }
    indexed_pos(j, off, line, column);
    return true;
}

int fo_json_nonfinite_kind(const fo_json *cj, const char *pointer)
{
    fo_json *j = (fo_json *)cj; /* the index is a cache */
    if (!j->nonfinite) return 0;
    size_t off;
    if (j->ix.failed || !indexed_offset(j, pointer, false, &off)) {
        j->ix.failed = true;
        off = locate_offset(j, pointer, false);
    }
    if (off >= j->len) return 0;
    size_t k = nonfinite_at(j->text, j->len, off);
    return k == 3 ? FO_JSON_NAN : k == 8 ? FO_JSON_INF : k == 9 ? FO_JSON_NEG_INF : 0;
}

void fo_json_locate_items(const fo_json *j, const char *pointer, size_t n, int *lines, int *columns)
{
    for (size_t k = 0; k < n; k++) lines[k] = columns[k] = 0;
    scan s = {j->text, j->len, locate_offset(j, pointer, false)};
    if (s.i >= s.len || s.t[s.i] != '[') return;
    s.i++;
    size_t at = 0;       /* offset whose position is (line, col) */
    int line = 1, col = 1;
    for (size_t k = 0; k < n; k++) {
        skip_ws(&s);
        if (s.i >= s.len || s.t[s.i] == ']') return;
        for (; at < s.i; at++) { /* advance the position incrementally */
            if (s.t[at] == '\n') { line++; col = 1; }
            else if (((unsigned char)s.t[at] & 0xC0) != 0x80) col++;
        }
        lines[k] = line;
        columns[k] = col;
        skip_value(&s);
        skip_ws(&s);
        if (s.i < s.len && s.t[s.i] == ',') s.i++;
        else return;
    }
}
