/* pptx_template.c — `--template FILE.pptx`: borrow an existing deck's slide
 * master, layouts and theme, and place folio's slides on its layouts.
 *
 * Reading (libzip + libxml2): [Content_Types].xml, the package rels to find
 * presentation.xml, its rels to find the first slide master, then every part
 * the master reaches through relationships (layouts, theme, pictures), each
 * copied byte for byte under its own name with its own .rels file, so all
 * relationship ids inside them stay valid. The template's slides, notes and
 * anything else are not copied. Layouts are picked by their type:
 * title -> "title" (or one with a ctrTitle), content -> "obj"/"tx" (or one
 * with title + body), section -> "secHead", blank -> "blank"; placeholder
 * boxes come from the layout, or from the master's placeholder of that kind,
 * and give the geometry that content is measured against. The template's
 * theme colors and fonts replace the folio theme's for text and charts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zip.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "render/pptx/pptx_internal.h"

#define EMU_PT(v) ((double)(v) / 12700.0)

typedef struct {
    zip_t *z;
    const char *path;         /* template path, for messages */
    xmlDocPtr ct;             /* [Content_Types].xml */
    char **queue;             /* parts to copy (owned) */
    size_t nq, capq;
} reader;

/* ---- small helpers ------------------------------------------------------------- */

static char *read_entry(reader *r, const char *name, size_t *len)
{
    zip_stat_t st;
    if (zip_stat(r->z, name, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) return NULL;
    zip_file_t *f = zip_fopen(r->z, name, 0);
    if (!f) return NULL;
    char *buf = fo_malloc(st.size + 1);
    if (buf && zip_fread(f, buf, st.size) != (zip_int64_t)st.size) { fo_free(buf); buf = NULL; }
    zip_fclose(f);
    if (buf) { buf[st.size] = '\0'; if (len) *len = st.size; }
    return buf;
}

static xmlDocPtr read_xml(reader *r, const char *name)
{
    size_t len = 0;
    char *buf = read_entry(r, name, &len);
    if (!buf) return NULL;
    xmlDocPtr doc = xmlReadMemory(buf, (int)len, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                  XML_PARSE_NOWARNING);
    fo_free(buf);
    return doc;
}

static bool is(xmlNodePtr n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, local) == 0;
}

static xmlNodePtr child(xmlNodePtr n, const char *local)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (is(c, local)) return c;
    return NULL;
}

/* Attribute by local name (any namespace) copied into buf; "" when absent. */
static const char *attr(xmlNodePtr n, const char *name, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (xmlAttrPtr a = n ? n->properties : NULL; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0 && a->children && a->children->content) {
            snprintf(buf, cap, "%s", (const char *)a->children->content);
            break;
        }
    return buf;
}

/* Folder of a part ("ppt/slideMasters/x.xml" -> "ppt/slideMasters"). */
static void dir_of(const char *part, char *out, size_t cap)
{
    const char *s = strrchr(part, '/');
    snprintf(out, cap, "%.*s", s ? (int)(s - part) : 0, part);
}

/* Resolves a relationship target against the source part's folder, folding
 * "." and ".." segments. */
static void resolve(const char *base_dir, const char *target, char *out, size_t cap)
{
    char tmp[512];
    if (target[0] == '/') snprintf(tmp, sizeof tmp, "%s", target + 1);
    else if (*base_dir) snprintf(tmp, sizeof tmp, "%s/%s", base_dir, target);
    else snprintf(tmp, sizeof tmp, "%s", target);
    const char *seg[64];
    size_t len[64], n = 0;
    for (char *s = tmp; *s;) {
        char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 2 && s[0] == '.' && s[1] == '.') { if (n) n--; }
        else if (!(l == 1 && s[0] == '.') && l > 0 && n < 64) { seg[n] = s; len[n++] = l; }
        s += l + (e ? 1 : 0);
    }
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + len[i] + 2 < cap; i++) {
        if (i) out[o++] = '/';
        memcpy(out + o, seg[i], len[i]);
        o += len[i];
        out[o] = '\0';
    }
}

static void rels_name(const char *part, char *out, size_t cap)
{
    char dir[256];
    dir_of(part, dir, sizeof dir);
    const char *base = strrchr(part, '/');
    base = base ? base + 1 : part;
    snprintf(out, cap, "%s%s_rels/%s.rels", dir, *dir ? "/" : "", base);
}

/* Target of the first relationship of type ending in type_tail from part. */
static bool find_rel(reader *r, const char *part, const char *type_tail, char *out, size_t cap)
{
    char rn[512], dir[256], buf[512], ty[256];
    rels_name(part, rn, sizeof rn);
    xmlDocPtr doc = read_xml(r, rn);
    if (!doc) return false;
    dir_of(part, dir, sizeof dir);
    bool found = false;
    for (xmlNodePtr c = xmlDocGetRootElement(doc)->children; c && !found; c = c->next) {
        if (!is(c, "Relationship")) continue;
        attr(c, "Type", ty, sizeof ty);
        size_t lt = strlen(ty), lk = strlen(type_tail);
        if (lt >= lk && strcmp(ty + lt - lk, type_tail) == 0) {
            resolve(dir, attr(c, "Target", buf, sizeof buf), out, cap);
            found = true;
        }
    }
    xmlFreeDoc(doc);
    return found;
}

/* Content type of a part from [Content_Types].xml: Override, else Default. */
static void content_type(reader *r, const char *part, char *out, size_t cap, bool *is_override)
{
    char buf[512];
    out[0] = '\0';
    *is_override = false;
    const char *dot = strrchr(part, '.');
    xmlNodePtr root = r->ct ? xmlDocGetRootElement(r->ct) : NULL;
    for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next) {
        if (is(c, "Override") && strcmp(attr(c, "PartName", buf, sizeof buf) + (buf[0] == '/'), part) == 0) {
            attr(c, "ContentType", out, cap);
            *is_override = true;
            return;
        }
        if (is(c, "Default") && dot && strcasecmp(attr(c, "Extension", buf, sizeof buf), dot + 1) == 0)
            attr(c, "ContentType", out, cap);
    }
}

static bool queued(const reader *r, const char *part)
{
    for (size_t i = 0; i < r->nq; i++)
        if (strcmp(r->queue[i], part) == 0) return true;
    return false;
}

static bool enqueue(reader *r, const char *part)
{
    if (queued(r, part)) return true;
    if (r->nq == r->capq) {
        size_t cap = r->capq ? r->capq * 2 : 16;
        char **q = fo_realloc(r->queue, cap * sizeof *q);
        if (!q) return false;
        r->queue = q;
        r->capq = cap;
    }
    r->queue[r->nq] = fo_strdup(part);
    return r->queue[r->nq++] != NULL;
}

/* Copies every part reachable from the master (breadth first), with its rels. */
static fo_status copy_parts(fo_pptx *p, reader *r)
{
    for (size_t i = 0; i < r->nq; i++) {
        const char *part = r->queue[i];
        size_t len = 0;
        char *data = read_entry(r, part, &len);
        if (!data) {
            fo_pptx_fail(p, FO_ERR_INPUT, NULL, "template %s: part %s is missing", r->path, part);
            return FO_ERR_INPUT;
        }
        char ct[256];
        bool ov;
        content_type(r, part, ct, sizeof ct, &ov);
        const char *dot = strrchr(part, '.');
        if (!ov && *ct && dot) fo_pkg_add_default(p->pkg, dot + 1, ct);
        fo_pkg_add_part_take(p->pkg, part, ov ? ct : NULL, data, len);
        char rn[512], dir[256], buf[512], tgt[512], mode[32], ty[256];
        rels_name(part, rn, sizeof rn);
        size_t rlen = 0;
        char *rels = read_entry(r, rn, &rlen);
        if (!rels) continue;
        xmlDocPtr doc = xmlReadMemory(rels, (int)rlen, rn, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                      XML_PARSE_NOWARNING);
        fo_pkg_add_part_take(p->pkg, rn, NULL, rels, rlen);
        if (!doc) continue;
        dir_of(part, dir, sizeof dir);
        for (xmlNodePtr c = xmlDocGetRootElement(doc)->children; c; c = c->next) {
            if (!is(c, "Relationship")) continue;
            if (strcasecmp(attr(c, "TargetMode", mode, sizeof mode), "External") == 0) continue;
            attr(c, "Type", ty, sizeof ty);
            if (strstr(ty, "/slide") && !strstr(ty, "/slideLayout") && !strstr(ty, "/slideMaster"))
                continue; /* a master never points at slides; be safe */
            resolve(dir, attr(c, "Target", buf, sizeof buf), tgt, sizeof tgt);
            if (!enqueue(r, tgt)) { xmlFreeDoc(doc); return FO_ERR_NOMEM; }
        }
        xmlFreeDoc(doc);
    }
    return fo_pkg_status(p->pkg);
}

/* ---- placeholders and layouts ------------------------------------------------------ */

typedef struct {
    fo_pptx_ph title, body, sub, num;
} ph_set;

/* Reads the placeholders of a master or layout part (top-level shapes). */
static void read_placeholders(xmlDocPtr doc, ph_set *out)
{
    memset(out, 0, sizeof *out);
    xmlNodePtr tree = child(child(xmlDocGetRootElement(doc), "cSld"), "spTree");
    char type[32], idx[16], v[32];
    for (xmlNodePtr sp = tree ? tree->children : NULL; sp; sp = sp->next) {
        if (!is(sp, "sp")) continue;
        xmlNodePtr ph = child(child(child(sp, "nvSpPr"), "nvPr"), "ph");
        if (!ph) continue;
        attr(ph, "type", type, sizeof type);
        attr(ph, "idx", idx, sizeof idx);
        fo_pptx_ph *slot = NULL;
        if (!strcmp(type, "title") || !strcmp(type, "ctrTitle")) slot = &out->title;
        else if (!strcmp(type, "subTitle")) slot = &out->sub;
        else if (!strcmp(type, "sldNum")) slot = &out->num;
        else if (!*type || !strcmp(type, "body") || !strcmp(type, "obj")) slot = &out->body;
        if (!slot || slot->present) continue;
        slot->present = true;
        snprintf(slot->type, sizeof slot->type, "%s", *type ? type : "obj");
        snprintf(slot->idx, sizeof slot->idx, "%s", idx);
        xmlNodePtr xf = child(child(sp, "spPr"), "xfrm");
        xmlNodePtr off = child(xf, "off"), ext = child(xf, "ext");
        if (off && ext) {
            slot->has_box = true;
            slot->x = EMU_PT(atof(attr(off, "x", v, sizeof v)));
            slot->y = EMU_PT(atof(attr(off, "y", v, sizeof v)));
            slot->w = EMU_PT(atof(attr(ext, "cx", v, sizeof v)));
            slot->h = EMU_PT(atof(attr(ext, "cy", v, sizeof v)));
        }
    }
}

/* A layout placeholder without its own box takes the master's of its kind. */
static void inherit_box(fo_pptx_ph *ph, const fo_pptx_ph *from)
{
    if (ph->present && !ph->has_box && from->has_box) {
        ph->has_box = true;
        ph->x = from->x; ph->y = from->y; ph->w = from->w; ph->h = from->h;
    }
}

typedef struct {
    char part[256];
    char type[32];
    ph_set ph;
} layout_info;

/* Index of the layout for a folio slide kind, or -1. */
static int pick_layout(const layout_info *ls, size_t n, int kind)
{
    static const char *const want[][2] = {
        [FO_PPTX_L_TITLE] = {"title", NULL}, [FO_PPTX_L_CONTENT] = {"obj", "tx"},
        [FO_PPTX_L_SECTION] = {"secHead", NULL}, [FO_PPTX_L_BLANK] = {"blank", NULL}};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; want[kind][k] && i < n; i++)
            if (!strcmp(ls[i].type, want[kind][k])) return (int)i;
    for (size_t i = 0; i < n; i++) { /* by their placeholders */
        const ph_set *s = &ls[i].ph;
        if (kind == FO_PPTX_L_TITLE && s->title.present && !strcmp(s->title.type, "ctrTitle")) return (int)i;
        if (kind == FO_PPTX_L_CONTENT && s->title.present && s->body.present) return (int)i;
        if (kind == FO_PPTX_L_BLANK && !s->title.present && !s->body.present) return (int)i;
    }
    if (kind == FO_PPTX_L_SECTION || kind == FO_PPTX_L_BLANK) return -1; /* falls back below */
    for (size_t i = 0; i < n; i++)
        if (ls[i].ph.title.present) return (int)i;
    return n ? 0 : -1;
}

/* ---- theme ---------------------------------------------------------------------------- */

static bool scheme_color(xmlNodePtr n, fo_rgb *out)
{
    char v[16];
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next) {
        if (is(c, "srgbClr")) attr(c, "val", v, sizeof v);
        else if (is(c, "sysClr")) attr(c, "lastClr", v, sizeof v);
        else continue;
        if (strlen(v) != 6) return false;
        *out = (fo_rgb)strtoul(v, NULL, 16);
        return true;
    }
    return false;
}

/* The template theme's colors and fonts over a copy of folio's theme. */
static void apply_theme(xmlDocPtr doc, fo_theme *t)
{
    xmlNodePtr el = child(xmlDocGetRootElement(doc), "themeElements");
    xmlNodePtr cs = child(el, "clrScheme"), fs = child(el, "fontScheme");
    fo_rgb c;
    if (scheme_color(child(cs, "dk1"), &c)) t->text = c;
    if (scheme_color(child(cs, "lt1"), &c)) t->background = c;
    if (scheme_color(child(cs, "dk2"), &c)) t->heading_color = c;
    static const char *const acc[] = {"accent1", "accent2", "accent3", "accent4", "accent5", "accent6"};
    size_t n = 0;
    for (size_t i = 0; i < 6; i++)
        if (scheme_color(child(cs, acc[i]), &c)) t->palette[n++] = c;
    if (n) { t->npalette = n; t->accent = t->palette[0]; }
    char face[64];
    attr(child(child(fs, "majorFont"), "latin"), "typeface", face, sizeof face);
    if (*face && *face != '+') snprintf(t->heading.family, sizeof t->heading.family, "%s", face);
    attr(child(child(fs, "minorFont"), "latin"), "typeface", face, sizeof face);
    if (*face && *face != '+') snprintf(t->body.family, sizeof t->body.family, "%s", face);
}

/* ---- loading --------------------------------------------------------------------------- */

/* "ppt/slideLayouts/x.xml" as a target from a part in folder from_dir. */
static void relative_to(const char *from_dir, const char *part, char *out, size_t cap)
{
    /* drop the folders both paths start with */
    while (*from_dir) {
        const char *a = strchr(from_dir, '/'), *b = strchr(part, '/');
        size_t la = a ? (size_t)(a - from_dir) : strlen(from_dir);
        if (!b || (size_t)(b - part) != la || strncmp(from_dir, part, la) != 0) break;
        from_dir += la + (a ? 1 : 0);
        part = b + 1;
    }
    /* then up one level per folder left in from_dir */
    size_t o = 0;
    out[0] = '\0';
    for (const char *s = from_dir; *from_dir && o + 4 < cap; ) {
        memcpy(out + o, "../", 4);
        o += 3;
        s = strchr(s, '/');
        if (!s) break;
        s++;
    }
    snprintf(out + o, cap - o, "%s", part);
}

static fo_status read_layouts(fo_pptx *p, reader *r, const char *master, const ph_set *mph,
                              layout_info **out, size_t *n)
{
    char rn[512], dir[256], buf[512], ty[256], type[32];
    rels_name(master, rn, sizeof rn);
    xmlDocPtr rels = read_xml(r, rn);
    *out = NULL;
    *n = 0;
    if (!rels) return FO_OK;
    dir_of(master, dir, sizeof dir);
    size_t cap = 0;
    fo_status st = FO_OK;
    for (xmlNodePtr c = xmlDocGetRootElement(rels)->children; c && st == FO_OK; c = c->next) {
        if (!is(c, "Relationship") || !strstr(attr(c, "Type", ty, sizeof ty), "/slideLayout")) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            layout_info *ls = fo_realloc(*out, cap * sizeof *ls);
            if (!ls) { st = FO_ERR_NOMEM; break; }
            *out = ls;
        }
        layout_info *L = &(*out)[*n];
        memset(L, 0, sizeof *L);
        resolve(dir, attr(c, "Target", buf, sizeof buf), L->part, sizeof L->part);
        xmlDocPtr doc = read_xml(r, L->part);
        if (!doc) continue; /* dangling: the copy step reports it */
        snprintf(L->type, sizeof L->type, "%s", attr(xmlDocGetRootElement(doc), "type", type, sizeof type));
        read_placeholders(doc, &L->ph);
        inherit_box(&L->ph.title, &mph->title);
        inherit_box(&L->ph.body, &mph->body);
        inherit_box(&L->ph.sub, &mph->body);
        inherit_box(&L->ph.num, &mph->num);
        xmlFreeDoc(doc);
        (*n)++;
    }
    xmlFreeDoc(rels);
    (void)p;
    return st;
}

/* Content geometry from the content layout's title and body boxes. */
static void template_geometry(fo_pptx *p, const fo_pptx_tlayout *L)
{
    fo_pptx_geom *g = &p->g;
    if (L->title.has_box && L->title.h > 0) {
        g->title_y = L->title.y;
        g->title_h = L->title.h;
    }
    if (L->body.has_box && L->body.w > 40 && L->body.h > 40) {
        g->x = L->body.x;
        g->cw = L->body.w;
        g->body_y = L->body.y;
        g->body_bottom = L->body.y + L->body.h;
    } else {
        g->x = g->w * 0.05;
        g->cw = g->w - 2 * g->x;
        g->body_y = g->title_y + g->title_h + 8;
        g->body_bottom = g->h - 44;
    }
}

fo_status fo_pptx_template_load(fo_pptx *p, const char *path)
{
    reader r = {0};
    r.path = path;
    int zerr = 0;
    r.z = zip_open(path, ZIP_RDONLY, &zerr);
    if (!r.z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        fo_pptx_fail(p, FO_ERR_INPUT, NULL, "template %s cannot be read as a .pptx: %s", path,
                     zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return FO_ERR_INPUT;
    }
    fo_status st = FO_OK;
    xmlDocPtr pres_doc = NULL, master_doc = NULL, theme_doc = NULL;
    layout_info *ls = NULL;
    size_t nls = 0;
    char pres[256], master[256], theme[256], pdir[256], v[32];
    fo_pptx_tpl *tpl = fo_calloc(1, sizeof *tpl);
    if (!tpl) { st = FO_ERR_NOMEM; goto cleanup; }
    p->tpl = tpl;
    r.ct = read_xml(&r, "[Content_Types].xml");
    if (!find_rel(&r, "", "/officeDocument", pres, sizeof pres))
        snprintf(pres, sizeof pres, "ppt/presentation.xml");
    pres_doc = read_xml(&r, pres);
    if (!pres_doc || !find_rel(&r, pres, "/slideMaster", master, sizeof master) ||
        !(master_doc = read_xml(&r, master))) {
        fo_pptx_fail(p, FO_ERR_INPUT, NULL, "template %s has no slide master (%s)", path,
                     pres_doc ? "presentation.xml relates none" : "no presentation.xml");
        st = FO_ERR_INPUT;
        goto cleanup;
    }
    /* slide size and the master's id in presentation.xml */
    xmlNodePtr proot = xmlDocGetRootElement(pres_doc);
    xmlNodePtr sz = child(proot, "sldSz");
    if (sz) {
        double w = EMU_PT(atof(attr(sz, "cx", v, sizeof v)));
        double h = EMU_PT(atof(attr(sz, "cy", v, sizeof v)));
        if (w > 100 && h > 100) { p->g.w = w; p->g.h = h; }
    }
    attr(child(child(proot, "sldMasterIdLst"), "sldMasterId"), "id", tpl->master_id,
         sizeof tpl->master_id);
    if (!*tpl->master_id) snprintf(tpl->master_id, sizeof tpl->master_id, "2147483648");
    dir_of(pres, pdir, sizeof pdir);
    relative_to(pdir, master, tpl->master_target, sizeof tpl->master_target);

    ph_set mph;
    read_placeholders(master_doc, &mph);
    st = read_layouts(p, &r, master, &mph, &ls, &nls);
    if (st != FO_OK) goto cleanup;
    if (nls == 0) {
        fo_pptx_fail(p, FO_ERR_INPUT, NULL, "template %s: its slide master has no layouts", path);
        st = FO_ERR_INPUT;
        goto cleanup;
    }
    tpl->theme = *p->t;
    if (find_rel(&r, master, "/theme", theme, sizeof theme)) {
        relative_to(pdir, theme, tpl->theme_target, sizeof tpl->theme_target);
        if ((theme_doc = read_xml(&r, theme)) != NULL) apply_theme(theme_doc, &tpl->theme);
    }
    p->t = &tpl->theme;
    for (int k = FO_PPTX_L_TITLE; k <= FO_PPTX_L_BLANK; k++) {
        int i = pick_layout(ls, nls, k);
        if (i < 0) i = pick_layout(ls, nls, FO_PPTX_L_CONTENT);
        fo_pptx_tlayout *L = &tpl->layout[k];
        relative_to("ppt/slides", ls[i].part, L->target, sizeof L->target);
        L->title = ls[i].ph.title;
        L->body = ls[i].ph.body;
        L->sub = ls[i].ph.sub;
        L->num = ls[i].ph.num;
    }
    template_geometry(p, &tpl->layout[FO_PPTX_L_CONTENT]);
    if (!enqueue(&r, master)) { st = FO_ERR_NOMEM; goto cleanup; }
    st = copy_parts(p, &r);
cleanup:
    if (st == FO_ERR_NOMEM) fo_pptx_fail(p, st, NULL, "out of memory");
    xmlFreeDoc(pres_doc);
    xmlFreeDoc(master_doc);
    xmlFreeDoc(theme_doc);
    xmlFreeDoc(r.ct);
    for (size_t i = 0; i < r.nq; i++) fo_free(r.queue[i]);
    fo_free(r.queue);
    fo_free(ls);
    zip_discard(r.z);
    return st;
}
