/* zipin.c — reading parts and relationships out of an existing OOXML
 * package with libzip and libxml2 (zipin.h).
 *
 * Invariant: a part is read whole into memory; templates are small (styles,
 * headers, a logo), and the caller bounds what it asks for. */
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#include "render/ooxml/zipin.h"

#define PART_MAX (64u << 20) /* refuse parts over 64 MiB */

struct fo_zipin {
    zip_t *za;
};

fo_status fo_zipin_open(const char *path, fo_zipin **out, fo_diags *d)
{
    *out = NULL;
    int zerr = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        fo_diags_add(d, path, 0, 0, NULL, "give a .docx/.xlsx/.pptx saved by Office or LibreOffice",
                     "template %s cannot be read as an Office file: %s", path,
                     zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return FO_ERR_INPUT;
    }
    fo_zipin *z = fo_calloc(1, sizeof *z);
    if (!z) { zip_discard(za); return FO_ERR_NOMEM; }
    z->za = za;
    *out = z;
    return FO_OK;
}

void fo_zipin_free(fo_zipin *z)
{
    if (!z) return;
    zip_discard(z->za);
    fo_free(z);
}

bool fo_zipin_has(fo_zipin *z, const char *name)
{
    return z && zip_name_locate(z->za, name, 0) >= 0;
}

char *fo_zipin_read(fo_zipin *z, const char *name, size_t *len)
{
    zip_stat_t st;
    if (!z || zip_stat(z->za, name, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE) ||
        st.size > PART_MAX)
        return NULL;
    zip_file_t *f = zip_fopen(z->za, name, 0);
    if (!f) return NULL;
    char *buf = fo_malloc((size_t)st.size + 1);
    zip_int64_t got = buf ? zip_fread(f, buf, st.size) : -1;
    zip_fclose(f);
    if (got < 0 || (zip_uint64_t)got != st.size) { fo_free(buf); return NULL; }
    buf[st.size] = '\0';
    if (len) *len = (size_t)st.size;
    return buf;
}

/* "word/document.xml" + "../media/a.png" -> "word/../media/a.png" folded. */
static char *resolve(const char *source, const char *target)
{
    if (target[0] == '/') return fo_strdup(target + 1);
    const char *slash = strrchr(source, '/');
    size_t base = slash ? (size_t)(slash - source) : 0;
    char *out = fo_malloc(base + strlen(target) + 2);
    if (!out) return NULL;
    memcpy(out, source, base);
    out[base] = '\0';
    const char *t = target;
    while (strncmp(t, "../", 3) == 0) { /* climb one folder per ../ */
        char *up = strrchr(out, '/');
        if (up) *up = '\0';
        else out[0] = '\0';
        t += 3;
    }
    if (out[0]) strcat(out, "/");
    strcat(out, t);
    return out;
}

fo_status fo_zipin_rels_read(fo_zipin *z, const char *source, fo_zipin_rels *out)
{
    out->items = NULL;
    out->n = 0;
    char name[1100];
    const char *slash = strrchr(source, '/');
    if (slash) snprintf(name, sizeof name, "%.*s/_rels/%s.rels", (int)(slash - source), source, slash + 1);
    else snprintf(name, sizeof name, "_rels/%s.rels", source);
    size_t len;
    char *data = fo_zipin_read(z, name, &len);
    if (!data) return FO_OK;
    fo_status st = FO_OK;
    xmlDocPtr doc = xmlReadMemory(data, (int)len, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                              XML_PARSE_NOWARNING);
    fo_free(data);
    if (!doc) return FO_ERR_INPUT;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    size_t cap = 0;
    for (xmlNodePtr n = root ? root->children : NULL; n && st == FO_OK; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "Relationship") != 0)
            continue;
        xmlChar *id = xmlGetProp(n, BAD_CAST "Id"), *type = xmlGetProp(n, BAD_CAST "Type");
        xmlChar *target = xmlGetProp(n, BAD_CAST "Target"), *mode = xmlGetProp(n, BAD_CAST "TargetMode");
        if (id && type && target) {
            if (out->n == cap) {
                cap = cap ? cap * 2 : 16;
                fo_zipin_rel *ni = fo_realloc(out->items, cap * sizeof *ni);
                if (!ni) st = FO_ERR_NOMEM;
                else out->items = ni;
            }
            if (st == FO_OK) {
                fo_zipin_rel *r = &out->items[out->n];
                r->external = mode && strcmp((const char *)mode, "External") == 0;
                r->id = fo_strdup((const char *)id);
                r->type = fo_strdup((const char *)type);
                r->target = r->external ? fo_strdup((const char *)target)
                                        : resolve(source, (const char *)target);
                out->n++;
                if (!r->id || !r->type || !r->target) st = FO_ERR_NOMEM;
            }
        }
        xmlFree(id); xmlFree(type); xmlFree(target); xmlFree(mode);
    }
    xmlFreeDoc(doc);
    if (st != FO_OK) fo_zipin_rels_free(out);
    return st;
}

void fo_zipin_rels_free(fo_zipin_rels *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        fo_free(r->items[i].id);
        fo_free(r->items[i].type);
        fo_free(r->items[i].target);
    }
    fo_free(r->items);
    r->items = NULL;
    r->n = 0;
}

const fo_zipin_rel *fo_zipin_rel_find(const fo_zipin_rels *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->items[i].id, id) == 0) return &r->items[i];
    return NULL;
}
