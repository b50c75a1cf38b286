/* xml.c — sticky-error XML writer for OOXML parts, with UTF-8 sanitizing so
 * no part ever holds a character XML forbids.
 *
 * It writes the bytes libxml2's xmlTextWriter wrote for the same calls (the
 * writer it replaced; no indentation, UTF-8): the same declaration, "<a/>"
 * for an element without content, "&lt; &gt; &amp; &quot;" and "&#13;" in
 * text, those and "&#9; &#10; &#13;" in attribute values, other characters
 * as they are. Why its own: on the 50-section report deck xmlTextWriter's
 * per-call bookkeeping (a list node and a strdup per element, an encoder
 * pass, a flush check per write) cost more than a third of the render's
 * instructions.
 *
 * Invariant: after an error (x->err != FO_OK) or fo_xml_finish every call
 * returns at once. Output lives in x->out: all of it (memory writer), or
 * what is not yet written to x->fp (file writer, flushed past FLUSH_AT). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/ooxml/xml.h"
#include "base/buf.h"
#include "base/utf8.h"

struct fo_xml {
    fo_buf out;   /* the part's bytes (memory writer), or those not yet in fp */
    FILE *fp;     /* file writer */
    fo_buf names; /* open elements' names, each NUL-terminated, innermost last */
    size_t *ends; /* ends[k]: names.len once element k was opened */
    size_t depth, cap_ends;
    bool in_tag; /* the innermost start tag is not closed yet: "<a x=\"1\"" */
    fo_status err;
    bool finished;
};

/* A file writer's output is written out once this many bytes are held. */
#define FLUSH_AT ((size_t)64 << 10)

/* ---- UTF-8 sanitizing ---------------------------------------------------- */

/* Length of the valid, XML-allowed character at s (n bytes left), 0 when the
 * bytes are invalid UTF-8, or -1 when the character is valid but forbidden. */
static int char_len(const unsigned char *s, size_t n)
{
    uint32_t c;
    size_t k = fo_utf8_decode((const char *)s, n, &c);
    if (k == 0) return 0;
    if (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) return -1;
    if (c == 0xFFFE || c == 0xFFFF) return -1;
    return (int)k;
}

bool fo_xml_is_clean(const char *src, size_t n)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    while (i < n) {
        if (s[i] >= 0x20 && s[i] < 0x80) {
            i++;
            continue;
        }
        int k = char_len(s + i, n - i);
        if (k <= 0) return false;
        i += (size_t)k;
    }
    return true;
}

/* Sanitizes the character at s[*i] (n bytes in all) into o: a valid one
 * copied, a forbidden one dropped, an invalid byte made U+FFFD. Advances
 * *i; the bytes written (at most 4). */
static inline size_t sanitize_one(const unsigned char *s, size_t n, size_t *i, char *o)
{
    int k = char_len(s + *i, n - *i);
    if (k > 0) {
        memcpy(o, s + *i, (size_t)k);
        *i += (size_t)k;
        return (size_t)k;
    }
    if (k < 0) {
        *i += s[*i] < 0x80 ? 1 : 3; /* forbidden: dropped */
        return 0;
    }
    memcpy(o, "\xEF\xBF\xBD", 3); /* invalid byte -> U+FFFD */
    (*i)++;
    return 3;
}

size_t fo_xml_sanitize(const char *src, size_t n, char *dst)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0, o = 0;
    while (i < n) o += sanitize_one(s, n, &i, dst + o);
    dst[o] = '\0';
    return o;
}

/* ---- output -------------------------------------------------------------- */

/* Fails the writer with err unless it failed already. */
static void fail(fo_xml *x, fo_status err)
{
    if (x->err == FO_OK) x->err = err;
}

/* Room for n more bytes at x->out.data + x->out.len (false: failed). */
static inline bool room(fo_xml *x, size_t n)
{
    if (n < x->out.cap - x->out.len) return true; /* len + n + 1 <= cap: no call */
    if (fo_buf_reserve(&x->out, n)) return true;
    fail(x, FO_ERR_NOMEM);
    return false;
}

static void put(fo_xml *x, const char *s, size_t n)
{
    if (!room(x, n)) return;
    memcpy(x->out.data + x->out.len, s, n);
    x->out.len += n;
    x->out.data[x->out.len] = '\0';
}

#define PUT_LIT(x, lit) put((x), (lit), sizeof(lit) - 1)

/* Writes a file writer's held bytes to its file. */
static void flush(fo_xml *x)
{
    if (!x->fp || x->out.len == 0 || x->err != FO_OK) return;
    if (fwrite(x->out.data, 1, x->out.len, x->fp) != x->out.len) fail(x, FO_ERR_IO);
    x->out.len = 0;
    x->out.data[0] = '\0';
}

static void maybe_flush(fo_xml *x)
{
    if (x->fp && x->out.len >= FLUSH_AT) flush(x);
}

/* Ends the innermost start tag with ">" before content. */
static void end_tag(fo_xml *x)
{
    if (x->in_tag) {
        PUT_LIT(x, ">");
        x->in_tag = false;
    }
}

/* True when none of the 8 bytes in w needs escaping or sanitizing: all
 * printable ASCII (0x20-0x7F) and none of '<' '>' '&' '"' (word-at-a-time
 * tests, exact: "any byte below n", "any byte equal to n"). */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define ANY_BELOW(w, n) (((w)-ONES * (n)) & ~(w)&HIGHS)
#define ANY_EQUAL(w, n) ANY_BELOW((w) ^ (ONES * (n)), 1)
static inline bool plain8(uint64_t w)
{
    return !((w & HIGHS) | ANY_BELOW(w, 0x20) | ANY_EQUAL(w, '<') | ANY_EQUAL(w, '>') | ANY_EQUAL(w, '&') |
             ANY_EQUAL(w, '"'));
}

/* Appends s[0..n) sanitized (fo_xml_sanitize) and escaped: in an attribute
 * value (attr) '<' '>' '&' '"' and tab, newline, carriage return become
 * references, in text '<' '>' '&' '"' and carriage return. Eight bytes that
 * need nothing (most of a part's text) are copied at once, the rest one by
 * one. */
static void put_escaped(fo_xml *x, const char *src, size_t n, bool attr)
{
    if (n > (SIZE_MAX - 1) / 6) {
        fail(x, FO_ERR_NOMEM);
        return;
    }
    if (!room(x, 6 * n)) return; /* the most one byte grows to: "&quot;" */
    const unsigned char *s = (const unsigned char *)src;
    char *o = x->out.data + x->out.len, *o0 = o;
    size_t i = 0;
    while (i < n) {
        uint64_t w;
        if (n - i >= 8 && (memcpy(&w, s + i, 8), plain8(w))) { /* 8 bytes as they are */
            memcpy(o, &w, 8);
            o += 8;
            i += 8;
            continue;
        }
        unsigned char c = s[i];
        if (c >= 0x80) {
            o += sanitize_one(s, n, &i, o);
            continue;
        }
        i++;
        switch (c) {
        case '<':
            memcpy(o, "&lt;", 4);
            o += 4;
            break;
        case '>':
            memcpy(o, "&gt;", 4);
            o += 4;
            break;
        case '&':
            memcpy(o, "&amp;", 5);
            o += 5;
            break;
        case '"':
            memcpy(o, "&quot;", 6);
            o += 6;
            break;
        case '\r':
            memcpy(o, "&#13;", 5);
            o += 5;
            break;
        case '\n':
            if (attr) {
                memcpy(o, "&#10;", 5);
                o += 5;
            } else *o++ = '\n';
            break;
        case '\t':
            if (attr) {
                memcpy(o, "&#9;", 4);
                o += 4;
            } else *o++ = '\t';
            break;
        default:
            if (c >= 0x20) *o++ = (char)c; /* other controls: forbidden, dropped */
            break;
        }
    }
    x->out.len += (size_t)(o - o0);
    x->out.data[x->out.len] = '\0';
}

/* ---- life cycle ------------------------------------------------------------ */

static fo_xml *new_writer(FILE *fp)
{
    fo_xml *x = fo_calloc(1, sizeof *x);
    if (!x) return NULL;
    x->fp = fp;
    if (!fo_buf_reserve(&x->out, 4096)) {
        fo_free(x);
        return NULL;
    }
    PUT_LIT(x, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
    return x;
}

fo_xml *fo_xml_new_memory(void) { return new_writer(NULL); }

fo_xml *fo_xml_new_file(void)
{
    FILE *fp = tmpfile();
    fo_xml *x = new_writer(fp);
    if (!x) {
        if (fp) fclose(fp);
        return NULL;
    }
    if (!fp) x->err = FO_ERR_IO;
    return x;
}

void fo_xml_free(fo_xml *x)
{
    if (!x) return;
    fo_buf_free(&x->out);
    fo_buf_free(&x->names);
    fo_free(x->ends);
    if (x->fp) fclose(x->fp);
    fo_free(x);
}

fo_status fo_xml_status(const fo_xml *x) { return x ? x->err : FO_ERR_NOMEM; }

void fo_xml_finish(fo_xml *x)
{
    if (!x || x->finished) return;
    if (x->err == FO_OK) {
        while (x->depth) fo_xml_close(x);
        PUT_LIT(x, "\n");
        flush(x);
    }
    x->finished = true;
    if (x->fp && x->err == FO_OK) {
        if (ferror(x->fp) || fflush(x->fp) != 0) x->err = FO_ERR_IO;
        else rewind(x->fp);
    }
}

void fo_xml__take_output(fo_xml *x, const unsigned char **data, size_t *len, void **fp)
{
    *data = NULL;
    *len = 0;
    *fp = NULL;
    if (!x->fp) {
        *data = (const unsigned char *)(x->out.data ? x->out.data : "");
        *len = x->out.len;
    } else {
        *fp = x->fp;
        x->fp = NULL;
    }
}

unsigned char *fo_xml__take_memory(fo_xml *x, size_t *len)
{
    *len = 0;
    if (!x || x->fp || x->err != FO_OK) return NULL;
    return (unsigned char *)fo_buf_take(&x->out, len);
}

const char *fo_xml_memory(fo_xml *x, size_t *len)
{
    *len = 0;
    if (!x || x->fp || x->err != FO_OK) return NULL;
    fo_xml_finish(x);
    if (x->err != FO_OK) return NULL;
    *len = x->out.len;
    return x->out.data;
}

/* ---- elements ---------------------------------------------------------------- */

#define LIVE(x) ((x) && (x)->err == FO_OK && !(x)->finished)

static void attrs_va(fo_xml *x, va_list ap)
{
    const char *name;
    while ((name = va_arg(ap, const char *)) != NULL) {
        const char *value = va_arg(ap, const char *);
        if (value) fo_xml_attr(x, name, value);
    }
}

/* Starts element name: "<name", its name kept for the end tag. */
static void start(fo_xml *x, const char *name)
{
    if (!LIVE(x)) return;
    size_t n = strlen(name);
    if ((x->depth >= x->cap_ends &&
         !fo_grow((void **)&x->ends, &x->cap_ends, x->depth + 1, 16, sizeof *x->ends)) ||
        (n + 1 >= x->names.cap - x->names.len && !fo_buf_reserve(&x->names, n + 1))) {
        fail(x, FO_ERR_NOMEM);
        return;
    }
    memcpy(x->names.data + x->names.len, name, n + 1);
    x->names.len += n + 1;
    x->names.data[x->names.len] = '\0';
    x->ends[x->depth++] = x->names.len;
    end_tag(x);
    if (!room(x, n + 1)) return;
    char *o = x->out.data + x->out.len;
    o[0] = '<';
    memcpy(o + 1, name, n);
    x->out.len += n + 1;
    x->out.data[x->out.len] = '\0';
    x->in_tag = true;
}

/* Starts element name with the (name, value) pairs of ap. */
static void start_va(fo_xml *x, const char *name, va_list ap)
{
    if (!LIVE(x)) return;
    start(x, name);
    attrs_va(x, ap);
}

void fo_xml_open(fo_xml *x, const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    start_va(x, name, ap);
    va_end(ap);
}

void fo_xml_leaf(fo_xml *x, const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    start_va(x, name, ap);
    va_end(ap);
    fo_xml_close(x); /* no content: <name .../> */
}

void fo_xml_close(fo_xml *x)
{
    if (!LIVE(x)) return;
    if (x->depth == 0) {
        fail(x, x->fp ? FO_ERR_IO : FO_ERR_INTERNAL);
        return;
    }
    size_t end = x->ends[--x->depth];
    size_t begin = x->depth ? x->ends[x->depth - 1] : 0;
    const char *name = x->names.data + begin;
    size_t n = end - begin - 1;
    if (x->in_tag) {
        PUT_LIT(x, "/>"); /* an element that got no content ends as <a/> */
        x->in_tag = false;
    } else if (room(x, n + 3)) {
        char *o = x->out.data + x->out.len;
        o[0] = '<';
        o[1] = '/';
        memcpy(o + 2, name, n);
        o[n + 2] = '>';
        x->out.len += n + 3;
        x->out.data[x->out.len] = '\0';
    }
    x->names.len = begin;
    maybe_flush(x);
}

/* Adds name="value" (value[0..n)) to the start tag still open; an attribute
 * anywhere else fails the writer, as xmlTextWriter did. */
static void attr_n(fo_xml *x, const char *name, const char *value, size_t n)
{
    if (!x->in_tag) {
        fail(x, x->fp ? FO_ERR_IO : FO_ERR_INTERNAL);
        return;
    }
    size_t k = strlen(name);
    if (!room(x, k + 3)) return;
    char *o = x->out.data + x->out.len;
    o[0] = ' ';
    memcpy(o + 1, name, k);
    o[k + 1] = '=';
    o[k + 2] = '"';
    x->out.len += k + 3;
    put_escaped(x, value, n, true);
    PUT_LIT(x, "\"");
}

void fo_xml_attr(fo_xml *x, const char *name, const char *value)
{
    if (!LIVE(x) || !value) return;
    attr_n(x, name, value, strlen(value));
}

void fo_xml_attr_int(fo_xml *x, const char *name, long long v)
{
    if (!LIVE(x)) return;
    char buf[24], *e = buf + sizeof buf, *p = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--p = '-';
    attr_n(x, name, p, (size_t)(e - p));
}

void fo_xml_attrf(fo_xml *x, const char *name, const char *fmt, ...)
{
    if (!LIVE(x)) return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        x->err = FO_ERR_INTERNAL;
        return;
    }
    attr_n(x, name, buf, (size_t)n);
}

/* ---- content ---------------------------------------------------------------- */

void fo_xml_textn(fo_xml *x, const char *s, size_t n)
{
    if (!LIVE(x) || !s || n == 0) return;
    end_tag(x); /* even when nothing is left of s: <a></a>, as before */
    put_escaped(x, s, n, false);
    maybe_flush(x);
}

void fo_xml_text(fo_xml *x, const char *s)
{
    if (s) fo_xml_textn(x, s, strlen(s));
}

void fo_xml_text_elem(fo_xml *x, const char *name, const char *text)
{
    fo_xml_open(x, name, NULL);
    fo_xml_text(x, text);
    fo_xml_close(x);
}

void fo_xml_raw(fo_xml *x, const char *markup, size_t n)
{
    if (!LIVE(x) || n == 0) return;
    end_tag(x);
    put(x, markup, n);
    maybe_flush(x);
}

void fo_xml_solid_fill(fo_xml *x, fo_rgb c)
{
    char hex[7];
    fo_rgb_hex(c, hex);
    fo_xml_open(x, "a:solidFill", NULL);
    fo_xml_leaf(x, "a:srgbClr", "val", hex, NULL);
    fo_xml_close(x);
}
