/* lxw_xml.c — libxlsxwriter's XML writer without fprintf.
 *
 * Why: libxlsxwriter 1.1.4 writes every element of every part through
 * xmlwriter.c: an fprintf per tag, per attribute and per closing bracket,
 * and each attribute is a 4 KiB struct whose key and value are strncpy'd
 * (zero-padded to 2,079 bytes each). For a small workbook that was about a
 * quarter of a `folio serve` child's render (callgrind, issue 39): glibc's
 * printf machinery, the padding and the mallocs, not the bytes written.
 *
 * How: the library calls lxw_xml_* and lxw_new_attribute_* through its PLT,
 * so an executable that defines them is the one called (ELF symbol
 * interposition, as cli/lxw_tmp.c and cli/lxw_zip.c do). This file is one of
 * the executables' own objects, never libfolio.a. Each element is gathered
 * in a small buffer and handed to the FILE in one fwrite_unlocked (the FILE
 * is the library's own, written by one thread); an attribute copies its key
 * and value up to their NUL (the rest of the struct is never read: the
 * library reads them as C strings), truncated as strncpy truncates them.
 *
 * Output: byte for byte the library's (xmlwriter.c of 1.1.4: the same
 * escapes, in attributes & < > " and newline, in data & < >; an integer
 * attribute as "%d" of its uint32_t, a double as "%.16G").
 * FOLIO_LXW_XML=lib in the environment hands every call to the library's
 * own functions, for comparison (tests/render/xlsx/test_lxw_xml.py). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter/xmlwriter.h>

typedef void (*tag_fn)(FILE *, const char *, struct xml_attribute_list *);
typedef void (*end_fn)(FILE *, const char *);
typedef void (*data_fn)(FILE *, const char *, const char *, struct xml_attribute_list *);
typedef void (*decl_fn)(FILE *);
typedef struct xml_attribute *(*attr_str_fn)(const char *, const char *);
typedef struct xml_attribute *(*attr_int_fn)(const char *, uint32_t);
typedef struct xml_attribute *(*attr_dbl_fn)(const char *, double);

static struct {
    tag_fn start, start_raw, empty, empty_raw;
    end_fn end;
    data_fn data;
    decl_fn decl;
    end_fn rich_si;
    attr_str_fn attr_str;
    attr_int_fn attr_int;
    attr_dbl_fn attr_dbl;
    bool lib; /* FOLIO_LXW_XML=lib: every call to the library's own */
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
    const char *mode = getenv("FOLIO_LXW_XML");
    real.lib = mode && strcmp(mode, "lib") == 0;
    if (!real.lib) return;
    real.start = (tag_fn)dlsym(RTLD_NEXT, "lxw_xml_start_tag");
    real.start_raw = (tag_fn)dlsym(RTLD_NEXT, "lxw_xml_start_tag_unencoded");
    real.empty = (tag_fn)dlsym(RTLD_NEXT, "lxw_xml_empty_tag");
    real.empty_raw = (tag_fn)dlsym(RTLD_NEXT, "lxw_xml_empty_tag_unencoded");
    real.end = (end_fn)dlsym(RTLD_NEXT, "lxw_xml_end_tag");
    real.data = (data_fn)dlsym(RTLD_NEXT, "lxw_xml_data_element");
    real.decl = (decl_fn)dlsym(RTLD_NEXT, "lxw_xml_declaration");
    real.rich_si = (end_fn)dlsym(RTLD_NEXT, "lxw_xml_rich_si_element");
    real.attr_str = (attr_str_fn)dlsym(RTLD_NEXT, "lxw_new_attribute_str");
    real.attr_int = (attr_int_fn)dlsym(RTLD_NEXT, "lxw_new_attribute_int");
    real.attr_dbl = (attr_dbl_fn)dlsym(RTLD_NEXT, "lxw_new_attribute_dbl");
    /* all or none: a library without one of them is written by us */
    real.lib = real.start && real.start_raw && real.empty && real.empty_raw && real.end && real.data &&
               real.decl && real.rich_si && real.attr_str && real.attr_int && real.attr_dbl;
}

static bool use_lib(void)
{
    pthread_once(&real_once, find_real);
    return real.lib;
}

/* ------------------------------------------------------ one element */

/* An element gathered before it goes to the FILE; longer runs go straight. */
typedef struct {
    FILE *f;
    size_t n;
    char b[1024];
} out;

static void flush(out *o)
{
    if (o->n) fwrite_unlocked(o->b, 1, o->n, o->f);
    o->n = 0;
}

static void put(out *o, const char *s, size_t len)
{
    if (len > sizeof o->b - o->n) {
        flush(o);
        if (len > sizeof o->b) {
            fwrite_unlocked(s, 1, len, o->f);
            return;
        }
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

/* s with & < > (and, in an attribute, " and newline) escaped as
   xmlwriter.c escapes them. */
static void put_escaped(out *o, const char *s, bool attr)
{
    const char *run = s;
    for (; *s; s++) {
        const char *e;
        switch (*s) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = attr ? "&quot;" : NULL; break;
        case '\n': e = attr ? "&#xA;" : NULL; break;
        default: e = NULL; break;
        }
        if (!e) continue;
        put(o, run, (size_t)(s - run));
        puts_(o, e);
        run = s + 1;
    }
    put(o, run, (size_t)(s - run));
}

static void put_attrs(out *o, struct xml_attribute_list *attrs, bool escape)
{
    struct xml_attribute *a;
    if (!attrs) return;
    STAILQ_FOREACH(a, attrs, list_entries)
    {
        put(o, " ", 1);
        puts_(o, a->key);
        put(o, "=\"", 2);
        if (escape) put_escaped(o, a->value, true);
        else puts_(o, a->value);
        put(o, "\"", 1);
    }
}

/* "<tag attrs" then close ("/>" or ">"). */
static void tag(FILE *f, const char *name, struct xml_attribute_list *attrs, bool escape, const char *close)
{
    out o = {.f = f};
    put(&o, "<", 1);
    puts_(&o, name);
    put_attrs(&o, attrs, escape);
    puts_(&o, close);
    flush(&o);
}

void lxw_xml_start_tag(FILE *f, const char *name, struct xml_attribute_list *attrs)
{
    if (use_lib()) real.start(f, name, attrs);
    else tag(f, name, attrs, true, ">");
}

void lxw_xml_start_tag_unencoded(FILE *f, const char *name, struct xml_attribute_list *attrs)
{
    if (use_lib()) real.start_raw(f, name, attrs);
    else tag(f, name, attrs, false, ">");
}

void lxw_xml_empty_tag(FILE *f, const char *name, struct xml_attribute_list *attrs)
{
    if (use_lib()) real.empty(f, name, attrs);
    else tag(f, name, attrs, true, "/>");
}

void lxw_xml_empty_tag_unencoded(FILE *f, const char *name, struct xml_attribute_list *attrs)
{
    if (use_lib()) real.empty_raw(f, name, attrs);
    else tag(f, name, attrs, false, "/>");
}

void lxw_xml_end_tag(FILE *f, const char *name)
{
    if (use_lib()) {
        real.end(f, name);
        return;
    }
    out o = {.f = f};
    put(&o, "</", 2);
    puts_(&o, name);
    put(&o, ">", 1);
    flush(&o);
}

void lxw_xml_data_element(FILE *f, const char *name, const char *data, struct xml_attribute_list *attrs)
{
    if (use_lib()) {
        real.data(f, name, data, attrs);
        return;
    }
    out o = {.f = f};
    put(&o, "<", 1);
    puts_(&o, name);
    put_attrs(&o, attrs, true);
    put(&o, ">", 1);
    put_escaped(&o, data, false);
    put(&o, "</", 2);
    puts_(&o, name);
    put(&o, ">", 1);
    flush(&o);
}

void lxw_xml_declaration(FILE *f)
{
    static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
    if (use_lib()) real.decl(f);
    else fwrite_unlocked(decl, 1, sizeof decl - 1, f);
}

void lxw_xml_rich_si_element(FILE *f, const char *string)
{
    if (use_lib()) {
        real.rich_si(f, string);
        return;
    }
    out o = {.f = f};
    put(&o, "<si>", 4);
    puts_(&o, string);
    put(&o, "</si>", 5);
    flush(&o);
}

/* ------------------------------------------------------- attributes */

/* LXW_ATTRIBUTE_COPY without the padding: the same string, cut where
   strncpy(dst, src, LXW_MAX_ATTRIBUTE_LENGTH - 1) cuts it. */
static void copy_field(char *dst, const char *src)
{
    size_t n = strnlen(src, LXW_MAX_ATTRIBUTE_LENGTH - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* An attribute with its key; NULL when malloc fails (the library's would
   have crashed: its callers do not check). */
static struct xml_attribute *attr_new(const char *key)
{
    struct xml_attribute *a = malloc(sizeof *a);
    if (a) copy_field(a->key, key);
    return a;
}

struct xml_attribute *lxw_new_attribute_str(const char *key, const char *value)
{
    if (use_lib()) return real.attr_str(key, value);
    struct xml_attribute *a = attr_new(key);
    if (a) copy_field(a->value, value);
    return a;
}

struct xml_attribute *lxw_new_attribute_int(const char *key, uint32_t value)
{
    if (use_lib()) return real.attr_int(key, value);
    struct xml_attribute *a = attr_new(key);
    if (!a) return NULL;
    /* "%d" of the library's uint32_t: as a signed int */
    int32_t v = (int32_t)value;
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    char digits[12], *p = digits + sizeof digits;
    *--p = '\0';
    do *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--p = '-';
    memcpy(a->value, p, (size_t)(digits + sizeof digits - p));
    return a;
}

struct xml_attribute *lxw_new_attribute_dbl(const char *key, double value)
{
    if (use_lib()) return real.attr_dbl(key, value);
    struct xml_attribute *a = attr_new(key);
    if (a) snprintf(a->value, LXW_ATTR_32, "%.16G", value);
    return a;
}
