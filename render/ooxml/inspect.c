/* inspect.c — folio's provenance read back from a rendered file (folio
 * inspect): OOXML custom properties (docProps/custom.xml), PDF XMP packets,
 * PNG tEXt/iTXt chunks; no renderer is involved. libzip and libxml2 stay in
 * render/ooxml. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#include "folio.h"


static void found_add(fo_prov_found *f, const char *name, size_t nlen, const char *value, size_t vlen)
{
    if (f->n == FO_PROV_MAX || nlen <= strlen(FO_PROV_PREFIX) ||
        strncmp(name, FO_PROV_PREFIX, strlen(FO_PROV_PREFIX)))
        return;
    f->name[f->n] = fo_strndup(name, nlen);
    f->value[f->n] = fo_strndup(value, vlen);
    if (f->name[f->n] && f->value[f->n]) f->n++;
}

void fo_prov_found_free(fo_prov_found *f)
{
    for (size_t k = 0; k < f->n; k++) {
        fo_free(f->name[k]);
        fo_free(f->value[k]);
    }
}

/* docProps/custom.xml: <property name="folio...."><vt:lpwstr>value</vt:lpwstr>. */
static void read_custom_xml(const char *xml, size_t len, fo_prov_found *f)
{
    xmlDocPtr doc = xmlReadMemory(xml, (int)len, "custom.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                  XML_PARSE_NOWARNING);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    for (xmlNodePtr p = root ? root->children : NULL; p; p = p->next) {
        if (p->type != XML_ELEMENT_NODE || strcmp((const char *)p->name, "property")) continue;
        xmlChar *name = xmlGetProp(p, (const xmlChar *)"name");
        xmlNodePtr v = p->children;
        while (v && v->type != XML_ELEMENT_NODE) v = v->next;
        xmlChar *text = v ? xmlNodeGetContent(v) : NULL;
        if (name && text)
            found_add(f, (const char *)name, strlen((const char *)name), (const char *)text,
                      strlen((const char *)text));
        xmlFree(name);
        xmlFree(text);
    }
    xmlFreeDoc(doc);
}

static int read_ooxml(const char *path, fo_prov_found *f)
{
    int e = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &e);
    if (!z) return -1;
    zip_stat_t st;
    zip_file_t *zf = NULL;
    if (zip_stat(z, "docProps/custom.xml", 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
        st.size < (16u << 20) && (zf = zip_fopen(z, "docProps/custom.xml", 0))) {
        char *buf = fo_malloc((size_t)st.size + 1);
        if (buf && zip_fread(zf, buf, st.size) == (zip_int64_t)st.size) read_custom_xml(buf, (size_t)st.size, f);
        fo_free(buf);
        zip_fclose(zf);
    }
    zip_discard(z);
    return 0;
}

/* Every XMP packet of the file (x:xmpmeta ... /x:xmpmeta, as written
 * unfiltered): the elements in folio's namespace. */
static void read_pdf(const char *data, size_t len, fo_prov_found *f)
{
    static const char open[] = "<x:xmpmeta", close[] = "</x:xmpmeta>";
    const char *p = data, *end = data + len;
    while ((p = memmem(p, (size_t)(end - p), open, sizeof open - 1))) {
        const char *q = memmem(p, (size_t)(end - p), close, sizeof close - 1);
        if (!q) break;
        q += sizeof close - 1;
        xmlDocPtr doc = xmlReadMemory(p, (int)(q - p), "xmp", NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        xmlNodePtr n = doc ? xmlDocGetRootElement(doc) : NULL;
        /* depth-first over the packet */
        while (n) {
            if (n->type == XML_ELEMENT_NODE && n->ns && !strcmp((const char *)n->ns->href, FO_PROV_XMP_NS)) {
                char name[96];
                xmlChar *text = xmlNodeGetContent(n);
                snprintf(name, sizeof name, FO_PROV_PREFIX "%s", (const char *)n->name);
                if (text) found_add(f, name, strlen(name), (const char *)text, strlen((const char *)text));
                xmlFree(text);
            }
            if (n->children && n->type == XML_ELEMENT_NODE) { n = n->children; continue; }
            while (n && !n->next) n = n->parent && n->parent->type == XML_ELEMENT_NODE ? n->parent : NULL;
            if (n) n = n->next;
        }
        xmlFreeDoc(doc);
        p = q;
    }
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The uncompressed iTXt and tEXt chunks whose keyword starts "folio.". */
static void read_png(const unsigned char *data, size_t len, fo_prov_found *f)
{
    size_t at = 8;
    while (at + 12 <= len) {
        uint32_t n = be32(data + at);
        const unsigned char *type = data + at + 4, *d = data + at + 8;
        if (n > len - at - 12) break;
        const unsigned char *kend = memchr(d, 0, n);
        if (kend && !memcmp(type, "tEXt", 4)) {
            found_add(f, (const char *)d, (size_t)(kend - d), (const char *)kend + 1, (size_t)(d + n - kend - 1));
        } else if (kend && !memcmp(type, "iTXt", 4) && (size_t)(d + n - kend) >= 3 && kend[1] == 0) {
            const unsigned char *lang = kend + 3, *lend = memchr(lang, 0, (size_t)(d + n - lang));
            const unsigned char *tend = lend ? memchr(lend + 1, 0, (size_t)(d + n - lend - 1)) : NULL;
            if (tend)
                found_add(f, (const char *)d, (size_t)(kend - d), (const char *)tend + 1,
                          (size_t)(d + n - tend - 1));
        }
        if (!memcmp(type, "IEND", 4)) break;
        at += 12 + n;
    }
}

const char *fo_prov_read(const char *path, const char *data, size_t len, fo_prov_found *f)
{
    const char *dot;

    if (len >= 8 && !memcmp(data, "\x89PNG\r\n\x1a\n", 8)) {
        read_png((const unsigned char *)data, len, f);
        return "png";
    }
    if (len >= 5 && !memcmp(data, "%PDF-", 5)) {
        read_pdf(data, len, f);
        return "pdf";
    }
    if (len >= 4 && !memcmp(data, "PK\3\4", 4)) {
        read_ooxml(path, f);
        dot = strrchr(path, '.');
        return dot && strlen(dot) == 5 ? dot + 1 : "ooxml";
    }
    return NULL;
}
