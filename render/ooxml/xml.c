/* xml.c — sticky-error XML writer for OOXML parts on libxml2's xmlTextWriter,
 * with UTF-8 sanitizing so no part ever holds a character XML forbids.
 *
 * Invariant: x->w is non-NULL from creation until fo_xml_finish; after an
 * error (x->err != FO_OK) every call returns at once. Output lives either in
 * x->mem (memory writer) or in x->fp (file writer, written through an
 * xmlOutputBuffer whose callbacks never close the FILE). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "render/ooxml/xml.h"
#include "base/utf8.h"

struct fo_xml {
    xmlTextWriterPtr w;
    xmlBufferPtr mem; /* memory writer */
    FILE *fp;         /* file writer */
    fo_status err;
    bool finished;
};

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
        if (s[i] >= 0x20 && s[i] < 0x80) { i++; continue; }
        int k = char_len(s + i, n - i);
        if (k <= 0) return false;
        i += (size_t)k;
    }
    return true;
}

size_t fo_xml_sanitize(const char *src, size_t n, char *dst)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0, o = 0;
    while (i < n) {
        int k = char_len(s + i, n - i);
        if (k > 0) {
            memcpy(dst + o, s + i, (size_t)k);
            o += (size_t)k;
            i += (size_t)k;
        } else if (k < 0) {
            i += s[i] < 0x80 ? 1 : 3; /* forbidden: dropped */
        } else {
            memcpy(dst + o, "\xEF\xBF\xBD", 3); /* invalid byte -> U+FFFD */
            o += 3;
            i++;
        }
    }
    dst[o] = '\0';
    return o;
}

/* Calls fn with a clean, NUL-terminated copy of s[0..n). */
static int with_clean(fo_xml *x, const char *s, size_t n,
                      int (*fn)(xmlTextWriterPtr, const char *, const char *), const char *name)
{
    char stack[512];
    char *buf = stack;
    if (fo_xml_is_clean(s, n) && s[n] == '\0') return fn(x->w, name, s);
    if (3 * n + 1 > sizeof stack) {
        buf = fo_malloc(3 * n + 1);
        if (!buf) { x->err = FO_ERR_NOMEM; return 0; }
    }
    fo_xml_sanitize(s, n, buf);
    int rc = fn(x->w, name, buf);
    if (buf != stack) fo_free(buf);
    return rc;
}

static int write_string(xmlTextWriterPtr w, const char *name, const char *s)
{
    (void)name;
    return xmlTextWriterWriteString(w, BAD_CAST s);
}

static int write_attr(xmlTextWriterPtr w, const char *name, const char *s)
{
    return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST s);
}

/* ---- life cycle ------------------------------------------------------------ */

static void check(fo_xml *x, int rc)
{
    if (rc < 0 && x->err == FO_OK) x->err = x->fp ? FO_ERR_IO : FO_ERR_INTERNAL;
}

static void start(fo_xml *x)
{
    if (!x->w) { x->err = FO_ERR_NOMEM; return; }
    check(x, xmlTextWriterStartDocument(x->w, NULL, "UTF-8", "yes"));
}

fo_xml *fo_xml_new_memory(void)
{
    fo_xml *x = fo_calloc(1, sizeof *x);
    if (!x) return NULL;
    x->mem = xmlBufferCreateSize(4096);
    if (!x->mem) { fo_free(x); return NULL; }
    /* libxml2's default scheme (EXACT) grows the buffer to the exact size
     * on every flush of the writer: one realloc and copy per ~4 KB written */
    xmlBufferSetAllocationScheme(x->mem, XML_BUFFER_ALLOC_DOUBLEIT);
    x->w = xmlNewTextWriterMemory(x->mem, 0);
    start(x);
    return x;
}

static int file_write(void *ctx, const char *buf, int len)
{
    return fwrite(buf, 1, (size_t)len, ctx) == (size_t)len ? len : -1;
}

static int file_close(void *ctx)
{
    return fflush(ctx) == 0 ? 0 : -1; /* the FILE stays open: package.c takes it */
}

fo_xml *fo_xml_new_file(void)
{
    fo_xml *x = fo_calloc(1, sizeof *x);
    if (!x) return NULL;
    x->fp = tmpfile();
    if (!x->fp) { x->err = FO_ERR_IO; return x; }
    xmlOutputBufferPtr out = xmlOutputBufferCreateIO(file_write, file_close, x->fp, NULL);
    if (!out) { x->err = FO_ERR_NOMEM; return x; }
    x->w = xmlNewTextWriter(out); /* owns out from here on */
    if (!x->w) xmlOutputBufferClose(out);
    start(x);
    return x;
}

void fo_xml_free(fo_xml *x)
{
    if (!x) return;
    if (x->w) xmlFreeTextWriter(x->w);
    if (x->mem) xmlBufferFree(x->mem);
    if (x->fp) fclose(x->fp);
    fo_free(x);
}

fo_status fo_xml_status(const fo_xml *x) { return x ? x->err : FO_ERR_NOMEM; }

void fo_xml_finish(fo_xml *x)
{
    if (!x || x->finished) return;
    x->finished = true;
    if (x->err == FO_OK) {
        check(x, xmlTextWriterEndDocument(x->w));
        check(x, xmlTextWriterFlush(x->w));
    }
    if (x->w) xmlFreeTextWriter(x->w); /* flushes and closes the output buffer */
    x->w = NULL;
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
    if (x->mem) {
        *data = xmlBufferContent(x->mem);
        *len = (size_t)xmlBufferLength(x->mem);
    } else {
        *fp = x->fp;
        x->fp = NULL;
    }
}

const char *fo_xml_memory(fo_xml *x, size_t *len)
{
    *len = 0;
    if (!x || !x->mem || x->err != FO_OK) return NULL;
    fo_xml_finish(x);
    if (x->err != FO_OK) return NULL;
    *len = (size_t)xmlBufferLength(x->mem);
    return (const char *)xmlBufferContent(x->mem);
}

/* ---- elements ---------------------------------------------------------------- */

#define LIVE(x) ((x) && (x)->err == FO_OK && (x)->w)

static void attrs_va(fo_xml *x, va_list ap)
{
    const char *name;
    while ((name = va_arg(ap, const char *)) != NULL) {
        const char *value = va_arg(ap, const char *);
        if (value) fo_xml_attr(x, name, value);
    }
}

/* Starts element name with the (name, value) pairs of ap. */
static void start_va(fo_xml *x, const char *name, va_list ap)
{
    if (!LIVE(x)) return;
    check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
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
    /* An element that got no content ends as <a/>. */
    check(x, xmlTextWriterEndElement(x->w));
}

void fo_xml_attr(fo_xml *x, const char *name, const char *value)
{
    if (!LIVE(x) || !value) return;
    check(x, with_clean(x, value, strlen(value), write_attr, name));
}

void fo_xml_attr_int(fo_xml *x, const char *name, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    fo_xml_attr(x, name, buf);
}

void fo_xml_attrf(fo_xml *x, const char *name, const char *fmt, ...)
{
    if (!LIVE(x)) return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) { x->err = FO_ERR_INTERNAL; return; }
    fo_xml_attr(x, name, buf);
}

/* ---- content ---------------------------------------------------------------- */

void fo_xml_textn(fo_xml *x, const char *s, size_t n)
{
    if (!LIVE(x) || !s || n == 0) return;
    if (s[n] == '\0' || fo_xml_is_clean(s, n) == false) {
        check(x, with_clean(x, s, n, write_string, NULL));
        return;
    }
    /* clean but not NUL-terminated at n: copy */
    char stack[512];
    char *buf = n + 1 <= sizeof stack ? stack : fo_malloc(n + 1);
    if (!buf) { x->err = FO_ERR_NOMEM; return; }
    memcpy(buf, s, n);
    buf[n] = '\0';
    check(x, xmlTextWriterWriteString(x->w, BAD_CAST buf));
    if (buf != stack) fo_free(buf);
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
    check(x, xmlTextWriterWriteRawLen(x->w, BAD_CAST markup, (int)n));
}

void fo_xml_solid_fill(fo_xml *x, fo_rgb c)
{
    char hex[7];
    fo_rgb_hex(c, hex);
    fo_xml_open(x, "a:solidFill", NULL);
    fo_xml_leaf(x, "a:srgbClr", "val", hex, NULL);
    fo_xml_close(x);
}
