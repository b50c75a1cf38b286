/* template.c — reading a hostile --template package (template.h): entry
 * names checked once at open, parts decompressed under caps with a running
 * count, XML parsed by libxml2 with DTDs refused, relationships resolved
 * inside the package.
 *
 * Invariant: every byte handed out has passed the caps, and every part name
 * handed out (a resolved relationship target) is a valid OPC part name. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <zip.h>

#include "base/buf.h"
#include "render/ooxml/template.h"

struct fo_tpl {
    zip_t *za;
    char *path;
    fo_diags *d;
    size_t total; /* bytes decompressed so far */
};

/* ---- part names ------------------------------------------------------------------ */

/* Why name is not an OPC part name (as written in a zip), or NULL when it is.
 * Folder entries ("word/") are checked without their trailing slash. */
static const char *bad_name(const char *name)
{
    size_t n = strlen(name);
    if (n && name[n - 1] == '/') n--;
    if (n == 0) return "an empty name";
    if (n > FO_TPL_NAME_MAX) return "a name over 255 bytes";
    if (name[0] == '/') return "a leading '/'";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '\\') return "a backslash";
        if (c < 0x20 || c == 0x7f) return "a control character";
    }
    for (const char *s = name; s < name + n;) {
        const char *e = memchr(s, '/', (size_t)(name + n - s));
        size_t l = e ? (size_t)(e - s) : (size_t)(name + n - s);
        if (l == 0) return "an empty segment (\"//\")";
        if ((l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
            return "a \".\" or \"..\" segment";
        if (s[l - 1] == '.') return "a segment ending in '.'";
        s += l + 1;
    }
    return NULL;
}

static int cmp_ci(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* Checks every entry: count, names, uniqueness ignoring case. */
static fo_status check_entries(fo_tpl *t)
{
    zip_int64_t n = zip_get_num_entries(t->za, 0);
    if (n < 0 || (zip_uint64_t)n > FO_TPL_ENTRIES_MAX) {
        fo_diags_add(t->d, NULL, 0, 0, NULL, NULL, "template %s has %lld entries, more than %u",
                     t->path, (long long)n, FO_TPL_ENTRIES_MAX);
        return FO_ERR_INPUT;
    }
    const char **names = fo_calloc((size_t)n + 1, sizeof *names);
    if (!names) return FO_ERR_NOMEM;
    fo_status st = FO_OK;
    for (zip_int64_t i = 0; i < n && st == FO_OK; i++) {
        const char *name = zip_get_name(t->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        const char *why = name ? bad_name(name) : "no name";
        if (why) {
            fo_diags_add(t->d, NULL, 0, 0, NULL, "save the template again with Office or LibreOffice",
                         "template %s: entry \"%.100s\" is not a valid part name (%s)", t->path,
                         name ? name : "", why);
            st = FO_ERR_INPUT;
        }
        names[i] = name;
    }
    if (st == FO_OK) qsort(names, (size_t)n, sizeof *names, cmp_ci);
    for (zip_int64_t i = 1; i < n && st == FO_OK; i++)
        if (strcasecmp(names[i - 1], names[i]) == 0) {
            fo_diags_add(t->d, NULL, 0, 0, NULL, "save the template again with Office or LibreOffice",
                         "template %s: entries \"%.100s\" and \"%.100s\" name the same part", t->path,
                         names[i - 1], names[i]);
            st = FO_ERR_INPUT;
        }
    fo_free(names);
    return st;
}

/* ---- opening --------------------------------------------------------------------- */

fo_status fo_tpl_open(const char *path, fo_tpl **out, fo_diags *d)
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
    fo_tpl *t = fo_calloc(1, sizeof *t);
    if (t) t->path = fo_strdup(path);
    if (!t || !t->path) {
        zip_discard(za);
        fo_free(t);
        return FO_ERR_NOMEM;
    }
    t->za = za;
    t->d = d;
    fo_status st = check_entries(t);
    if (st != FO_OK) { fo_tpl_free(t); return st; }
    *out = t;
    return FO_OK;
}

void fo_tpl_free(fo_tpl *t)
{
    if (!t) return;
    zip_discard(t->za);
    fo_free(t->path);
    fo_free(t);
}

const char *fo_tpl_path(const fo_tpl *t) { return t->path; }

bool fo_tpl_has(const fo_tpl *t, const char *part)
{
    return t && zip_name_locate(t->za, part, ZIP_FL_ENC_RAW) >= 0;
}

/* ---- reading under the caps ---------------------------------------------------------- */

static fo_status too_big(fo_tpl *t, const char *part, size_t cap, bool total)
{
    if (total)
        fo_diags_add(t->d, NULL, 0, 0, NULL, "use a template without the big pictures",
                     "template %s: reading part %s goes over %u MiB for the whole template", t->path,
                     part, FO_TPL_TOTAL_MAX >> 20);
    else
        fo_diags_add(t->d, NULL, 0, 0, NULL, "use a template without huge parts",
                     "template %s: part %s decompresses to more than %zu MiB", t->path, part,
                     cap >> 20);
    return FO_ERR_INPUT;
}

static fo_status unreadable(fo_tpl *t, zip_file_t *f, const char *part)
{
    fo_diags_add(t->d, NULL, 0, 0, NULL, NULL, "template %s: part %s cannot be read: %s", t->path,
                 part, zip_file_strerror(f));
    return FO_ERR_INPUT;
}

/* Past cap bytes already read: one more byte means the part is too big. */
static fo_status past_cap(fo_tpl *t, zip_file_t *f, const char *part, size_t cap)
{
    char probe;
    zip_int64_t more = zip_fread(f, &probe, 1);
    if (more == 0) return FO_OK;
    return more < 0 ? unreadable(t, f, part) : too_big(t, part, cap, false);
}

/* Reads an open entry in chunks into a buffer first sized by the zip's
 * claimed size, which is only a hint: the buffer grows when it is short. */
static fo_status read_capped(fo_tpl *t, zip_file_t *f, const char *part, size_t cap,
                             size_t hint, char **data, size_t *len)
{
    char *b = NULL;
    size_t have = 0, room = 0, first = hint < 4096 ? 4096 : hint + 1;
    if (!fo_grow((void **)&b, &room, 1, first, 1)) return FO_ERR_NOMEM;
    fo_status st = FO_OK;
    while (st == FO_OK) {
        if (have == cap) { st = past_cap(t, f, part, cap); break; }
        if (have + 1 == room && !fo_grow((void **)&b, &room, have + 2, first, 1)) {
            st = FO_ERR_NOMEM;
            break;
        }
        size_t want = (room - 1 < cap ? room - 1 : cap) - have;
        zip_int64_t got = zip_fread(f, b + have, want);
        if (got <= 0) { st = got < 0 ? unreadable(t, f, part) : FO_OK; break; }
        have += (size_t)got;
        t->total += (size_t)got;
        if (t->total > FO_TPL_TOTAL_MAX) st = too_big(t, part, cap, true);
    }
    if (st != FO_OK) { fo_free(b); return st; }
    b[have] = '\0';
    *data = b;
    if (len) *len = have;
    return FO_OK;
}

fo_status fo_tpl_read(fo_tpl *t, const char *part, size_t cap, char **data, size_t *len)
{
    *data = NULL;
    if (len) *len = 0;
    zip_int64_t i = zip_name_locate(t->za, part, ZIP_FL_ENC_RAW);
    if (i < 0) return FO_OK;
    zip_stat_t st;
    size_t hint = 0;
    if (zip_stat_index(t->za, (zip_uint64_t)i, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE))
        hint = st.size < cap ? (size_t)st.size : cap;
    zip_file_t *f = zip_fopen_index(t->za, (zip_uint64_t)i, 0);
    if (!f) {
        fo_diags_add(t->d, NULL, 0, 0, NULL, NULL, "template %s: part %s cannot be read: %s",
                     t->path, part, zip_strerror(t->za));
        return FO_ERR_INPUT;
    }
    fo_status s = read_capped(t, f, part, cap, hint, data, len);
    zip_fclose(f);
    return s;
}

/* ---- XML --------------------------------------------------------------------------- */

/* SAX hook at "<!DOCTYPE": stop before the internal subset is read. */
static void refuse_dtd(void *ctx, const xmlChar *name, const xmlChar *ext_id, const xmlChar *sys_id)
{
    (void)name; (void)ext_id; (void)sys_id;
    xmlParserCtxtPtr c = ctx;
    *(bool *)c->_private = true;
    xmlStopParser(c);
}

/* Parses len bytes of part with the safe options; NULL with a diagnostic. */
static xmlDocPtr parse(fo_tpl *t, const char *part, const char *data, size_t len)
{
    xmlParserCtxtPtr c = xmlNewParserCtxt();
    if (!c) return NULL;
    bool dtd = false;
    c->_private = &dtd;
    c->sax->internalSubset = refuse_dtd;
    c->sax->externalSubset = refuse_dtd;
    xmlDocPtr doc = xmlCtxtReadMemory(c, data, (int)len, part, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc && (dtd || doc->intSubset || doc->extSubset)) { xmlFreeDoc(doc); doc = NULL; dtd = true; }
    if (!doc && dtd) {
        fo_diags_add(t->d, NULL, 0, 0, NULL, "template parts may not declare a DTD or entities",
                     "template %s: part %s has a DTD (<!DOCTYPE>)", t->path, part);
    } else if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(c);
        char msg[160] = "";
        if (e && e->message) snprintf(msg, sizeof msg, "%s", e->message);
        size_t ml = strlen(msg);
        while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' ')) msg[--ml] = '\0';
        fo_diags_add(t->d, NULL, 0, 0, NULL, "save the template again with Office or LibreOffice",
                     "template %s: part %s is not well-formed XML (line %d: %s)", t->path, part,
                     e ? e->line : 0, *msg ? msg : "unreadable");
    }
    xmlFreeParserCtxt(c);
    return doc;
}

fo_status fo_tpl_xml(fo_tpl *t, const char *part, xmlDocPtr *doc, char **data, size_t *len)
{
    *doc = NULL;
    if (data) *data = NULL;
    char *b;
    size_t n;
    fo_status st = fo_tpl_read(t, part, FO_TPL_XML_MAX, &b, &n);
    if (st != FO_OK || !b) return st;
    *doc = parse(t, part, b, n);
    if (!*doc) st = FO_ERR_INPUT;
    else if (!xmlDocGetRootElement(*doc)) {
        fo_diags_add(t->d, NULL, 0, 0, NULL, NULL, "template %s: part %s has no root element",
                     t->path, part);
        xmlFreeDoc(*doc);
        *doc = NULL;
        st = FO_ERR_INPUT;
    }
    if (st == FO_OK && data) {
        *data = b;
        if (len) *len = n;
    } else {
        fo_free(b);
    }
    return st;
}

/* ---- DOM helpers ------------------------------------------------------------------- */

bool fo_tpl_is(xmlNodePtr n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, local) == 0;
}

xmlNodePtr fo_tpl_child(xmlNodePtr n, const char *local)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (fo_tpl_is(c, local)) return c;
    return NULL;
}

const char *fo_tpl_attr(xmlNodePtr n, const char *local, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (xmlAttrPtr a = n && n->type == XML_ELEMENT_NODE ? n->properties : NULL; a; a = a->next)
        if (strcmp((const char *)a->name, local) == 0) {
            xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
            snprintf(buf, cap, "%s", v ? (const char *)v : "");
            xmlFree(v);
            break;
        }
    return buf;
}

/* ---- resolving targets ---------------------------------------------------------------- */

bool fo_tpl_resolve(const char *source, const char *target, char *out, size_t cap)
{
    char tmp[2 * FO_TPL_NAME_MAX + 4];
    const char *slash = strrchr(source, '/');
    int n = target[0] == '/' ? snprintf(tmp, sizeof tmp, "%s", target + 1)
            : slash ? snprintf(tmp, sizeof tmp, "%.*s/%s", (int)(slash - source), source, target)
                    : snprintf(tmp, sizeof tmp, "%s", target);
    if (n < 0 || (size_t)n >= sizeof tmp || cap == 0) return false;
    size_t o = 0;
    out[0] = '\0';
    for (char *s = tmp; *s;) { /* fold "." and "..", never above the root */
        char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 0) return false; /* "a//b", "media/" */
        if (l == 2 && s[0] == '.' && s[1] == '.') {
            if (o == 0) return false;
            char *up = strrchr(out, '/');
            o = up ? (size_t)(up - out) : 0;
            out[o] = '\0';
        } else if (l > 0 && !(l == 1 && s[0] == '.')) {
            if (o + l + 2 > cap) return false;
            if (o) out[o++] = '/';
            memcpy(out + o, s, l);
            o += l;
            out[o] = '\0';
        }
        s = e ? e + 1 : s + l;
        if (e && !*s) return false; /* a trailing '/' */
    }
    return o > 0 && !bad_name(out);
}

void fo_tpl_relative(const char *from, const char *to, char *out, size_t cap)
{
    /* drop the folders both paths start with */
    for (;;) {
        const char *a = strchr(from, '/'), *b = strchr(to, '/');
        if (!a || !b || a - from != b - to || strncmp(from, to, (size_t)(a - from)) != 0) break;
        from = a + 1;
        to = b + 1;
    }
    size_t o = 0;
    out[0] = '\0';
    for (const char *s = strchr(from, '/'); s && o + 4 < cap; s = strchr(s + 1, '/')) {
        memcpy(out + o, "../", 4); /* one level up per folder left in from */
        o += 3;
    }
    snprintf(out + o, cap - o, "%s", to);
}

const char *fo_tpl_picture_type(const char *part)
{
    static const char *const map[][2] = {
        {"png", "image/png"}, {"jpeg", "image/jpeg"}, {"jpg", "image/jpeg"},
        {"gif", "image/gif"}, {"emf", "image/x-emf"}, {"wmf", "image/x-wmf"},
        {"svg", "image/svg+xml"}, {"bmp", "image/bmp"}, {"tif", "image/tiff"},
        {"tiff", "image/tiff"}};
    const char *dot = strrchr(part, '.');
    if (!dot || strchr(dot, '/')) return NULL;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcasecmp(dot + 1, map[i][0]) == 0) return map[i][1];
    return NULL;
}

const char *fo_tpl_picture_ext(const char *part, char *buf, size_t cap)
{
    const char *dot = strrchr(part, '.');
    size_t n = 0;
    for (const char *e = dot && !strchr(dot, '/') ? dot + 1 : ""; *e && n + 1 < cap; e++)
        buf[n++] = (char)tolower((unsigned char)*e);
    buf[n] = '\0';
    return buf;
}

/* ---- relationships ---------------------------------------------------------------------- */

bool fo_tpl_type_is(const char *type, const char *tail)
{
    size_t lt = strlen(type), lk = strlen(tail);
    return lt > lk && type[lt - lk - 1] == '/' && strcmp(type + lt - lk, tail) == 0;
}

/* External targets folio keeps: web links of a hyperlink relationship. */
static bool web_link(const char *type, const char *target)
{
    return fo_tpl_type_is(type, "hyperlink") &&
           (strncasecmp(target, "http://", 7) == 0 || strncasecmp(target, "https://", 8) == 0 ||
            strncasecmp(target, "mailto:", 7) == 0);
}

/* Appends one relationship; false when out of memory. */
static bool rel_add(fo_tpl_rels *r, size_t *cap, const char *id, const char *type,
                    const char *target, bool external)
{
    if (!fo_grow((void **)&r->items, cap, r->n + 1, 16, sizeof *r->items)) return false;
    fo_tpl_rel *x = &r->items[r->n];
    x->id = fo_strdup(id);
    x->type = fo_strdup(type);
    x->target = fo_strdup(target);
    x->external = external;
    r->n++;
    return x->id && x->type && x->target;
}

/* "word/document.xml" -> "word/_rels/document.xml.rels"; "" -> "_rels/.rels". */
static void rels_name(const char *source, char *out, size_t cap)
{
    const char *slash = strrchr(source, '/');
    if (slash) snprintf(out, cap, "%.*s/_rels/%s.rels", (int)(slash - source), source, slash + 1);
    else snprintf(out, cap, "_rels/%s.rels", source);
}

static int cmp_rel_id(const void *a, const void *b)
{
    const fo_tpl_rel *x = *(const fo_tpl_rel *const *)a, *y = *(const fo_tpl_rel *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x < y ? -1 : x > y);
}

/* Drops every relationship whose id an earlier one has (ids are unique in a
 * package; a copy with two would not open): sorted by id, then compacted in
 * the original order. */
static fo_status drop_repeated_ids(fo_tpl_rels *r)
{
    if (r->n < 2) return FO_OK;
    const fo_tpl_rel **by_id = fo_malloc(r->n * sizeof *by_id);
    if (!by_id) return FO_ERR_NOMEM;
    for (size_t i = 0; i < r->n; i++) by_id[i] = &r->items[i];
    qsort(by_id, r->n, sizeof *by_id, cmp_rel_id);
    for (size_t i = 1; i < r->n; i++)
        if (strcmp(by_id[i - 1]->id, by_id[i]->id) == 0) ((fo_tpl_rel *)by_id[i])->id[0] = '\0';
    fo_free(by_id);
    size_t o = 0;
    for (size_t i = 0; i < r->n; i++) {
        fo_tpl_rel *x = &r->items[i];
        if (x->id[0]) { r->items[o++] = *x; continue; }
        fo_free(x->id);
        fo_free(x->type);
        fo_free(x->target);
    }
    r->n = o;
    return FO_OK;
}

fo_status fo_tpl_rels_read(fo_tpl *t, const char *source, fo_tpl_rels *out)
{
    out->items = NULL;
    out->n = 0;
    char name[2 * FO_TPL_NAME_MAX + 16];
    rels_name(source, name, sizeof name);
    xmlDocPtr doc;
    fo_status st = fo_tpl_xml(t, name, &doc, NULL, NULL);
    if (st != FO_OK || !doc) return st;
    size_t cap = 0;
    char id[64], type[256], target[2 * FO_TPL_NAME_MAX], mode[16], part[FO_TPL_NAME_MAX + 1];
    for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n && st == FO_OK; n = n->next) {
        if (!fo_tpl_is(n, "Relationship")) continue;
        fo_tpl_attr(n, "Id", id, sizeof id);
        fo_tpl_attr(n, "Type", type, sizeof type);
        fo_tpl_attr(n, "Target", target, sizeof target);
        if (!*id || !*type || !*target || strlen(id) + 1 == sizeof id ||
            strlen(type) + 1 == sizeof type || strlen(target) + 1 == sizeof target)
            continue; /* missing or too long: dropped */
        bool external = strcasecmp(fo_tpl_attr(n, "TargetMode", mode, sizeof mode), "External") == 0;
        if (external ? !web_link(type, target) : !fo_tpl_resolve(source, target, part, sizeof part))
            continue; /* dropped: see template.h */
        if (!rel_add(out, &cap, id, type, external ? target : part, external)) st = FO_ERR_NOMEM;
    }
    xmlFreeDoc(doc);
    if (st == FO_OK) st = drop_repeated_ids(out);
    if (st != FO_OK) fo_tpl_rels_free(out);
    return st;
}

void fo_tpl_rels_free(fo_tpl_rels *r)
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

const fo_tpl_rel *fo_tpl_rel_find(const fo_tpl_rels *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->items[i].id, id) == 0) return &r->items[i];
    return NULL;
}

const fo_tpl_rel *fo_tpl_rel_typed(const fo_tpl_rels *r, const char *tail)
{
    for (size_t i = 0; i < r->n; i++)
        if (!r->items[i].external && fo_tpl_type_is(r->items[i].type, tail)) return &r->items[i];
    return NULL;
}
