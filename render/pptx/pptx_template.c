/* pptx_template.c — `--template FILE.pptx`: borrow an existing deck's slide
 * master, layouts and theme, and place folio's slides on its layouts.
 *
 * Reading goes through render/ooxml/template.h (checked names, capped
 * parts, XML without DTDs): the package rels to find presentation.xml, its
 * rels to find the first slide master, then the parts the master reaches
 * through relationships folio understands — slide layouts, slide masters,
 * themes and pictures (png, jpeg, gif, emf, wmf, svg, bmp, tiff), each in its
 * usual folder (ppt/slideLayouts/, ppt/slideMasters/, ppt/theme/,
 * ppt/media/). Each is copied byte for byte under its own name; its
 * relationships are written anew with their ids, so references inside the
 * parts stay valid, keeping only the relationships to copied parts and web
 * links. The template's slides, notes, tags, embeddings and anything else
 * are not copied. Layouts are picked by their type:
 * title -> "title" (or one with a ctrTitle), content -> "obj"/"tx" (or one
 * with title + body), section -> "secHead", blank -> "blank"; placeholder
 * boxes come from the layout, or from the master's placeholder of that kind,
 * and give the geometry that content is measured against. The template's
 * theme colors and fonts replace the folio theme's for text and charts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "render/ooxml/template.h"
#include "render/pptx/pptx_internal.h"

#define EMU_PT(v) ((double)(v) / 12700.0)
#define LAYOUTS_MAX 256 /* layouts of the master considered for folio's slides */

/* The kinds of part copied from a template, with their folder and type. */
typedef enum { K_MASTER, K_LAYOUT, K_THEME, K_IMAGE, K_NONE } part_kind;
static const struct {
    const char *rel, *folder, *ct;
} kinds[] = {
    [K_MASTER] = {"slideMaster", "ppt/slideMasters/", FO_PPTX_CT_BASE "slideMaster+xml"},
    [K_LAYOUT] = {"slideLayout", "ppt/slideLayouts/", FO_PPTX_CT_BASE "slideLayout+xml"},
    [K_THEME] = {"theme", "ppt/theme/", FO_CT_THEME},
    [K_IMAGE] = {"image", "ppt/media/", NULL},
};

typedef struct {
    fo_tpl *z;
    char **queue;             /* parts to copy (owned) */
    part_kind *kinds;         /* the kind of each */
    size_t nq, capq;
} reader;

/* ---- small helpers ------------------------------------------------------------- */

/* The kind of part a relationship of that type to target is, or K_NONE
 * when folio does not copy it. */
static part_kind kind_of(const fo_tpl_rel *r)
{
    if (r->external) return K_NONE;
    for (part_kind k = K_MASTER; k < K_NONE; k++)
        if (fo_tpl_type_is(r->type, kinds[k].rel) &&
            strncmp(r->target, kinds[k].folder, strlen(kinds[k].folder)) == 0 &&
            !strchr(r->target + strlen(kinds[k].folder), '/'))
            return k == K_IMAGE && !fo_tpl_picture_type(r->target) ? K_NONE : k;
    return K_NONE;
}

/* The first relationship of part to a copied part of kind k, or NULL. */
static const fo_tpl_rel *rel_of_kind(const fo_tpl_rels *rels, part_kind k)
{
    for (size_t i = 0; i < rels->n; i++)
        if (kind_of(&rels->items[i]) == k) return &rels->items[i];
    return NULL;
}

static bool queued(const reader *r, const char *part)
{
    for (size_t i = 0; i < r->nq; i++)
        if (strcmp(r->queue[i], part) == 0) return true;
    return false;
}

static bool enqueue(reader *r, const char *part, part_kind k)
{
    if (queued(r, part)) return true;
    if (!fo_grow_all(&r->capq, r->nq + 1, 16, 2, (void **const[]){(void **)&r->queue, (void **)&r->kinds},
                     (size_t[]){sizeof *r->queue, sizeof *r->kinds}))
        return false;
    r->kinds[r->nq] = k;
    r->queue[r->nq] = fo_strdup(part);
    return r->queue[r->nq++] != NULL;
}

/* Reads a queued part: XML checked by libxml2, pictures under their cap. */
static fo_status read_part(reader *r, const char *part, part_kind k, char **data, size_t *len)
{
    if (k == K_IMAGE) return fo_tpl_read(r->z, part, FO_TPL_PART_MAX, data, len);
    xmlDocPtr doc;
    fo_status st = fo_tpl_xml(r->z, part, &doc, data, len);
    xmlFreeDoc(doc);
    return st;
}

/* Copies one part and its relationships to copied parts and web links;
 * the targets it reaches are queued. */
static fo_status copy_part(fo_pptx *p, reader *r, const char *part, part_kind k)
{
    char *data;
    size_t len = 0;
    fo_status st = read_part(r, part, k, &data, &len);
    if (st == FO_OK && !data) {
        fo_diags_add(p->d, NULL, 0, 0, NULL, NULL, "template %s: part %s is missing",
                     fo_tpl_path(r->z), part);
        st = FO_ERR_INPUT;
    }
    if (st != FO_OK) return st;
    char ext[16];
    if (k == K_IMAGE)
        fo_pkg_add_default(p->pkg, fo_tpl_picture_ext(part, ext, sizeof ext), fo_tpl_picture_type(part));
    fo_pkg_add_part_take(p->pkg, part, kinds[k].ct, data, len);
    fo_tpl_rels rels;
    st = fo_tpl_rels_read(r->z, part, &rels);
    char target[2 * FO_TPL_NAME_MAX];
    for (size_t i = 0; st == FO_OK && i < rels.n; i++) {
        const fo_tpl_rel *x = &rels.items[i];
        part_kind xk = kind_of(x);
        if (x->external) {
            fo_pkg_add_rel_id(p->pkg, part, x->id, x->type, x->target, true);
            continue;
        }
        if (xk == K_NONE) continue; /* slides, notes, tags, embeddings: not copied */
        if (!fo_tpl_has(r->z, x->target)) {
            fo_diags_add(p->d, NULL, 0, 0, NULL, NULL, "template %s: part %s is missing (related from %s)",
                         fo_tpl_path(r->z), x->target, part);
            st = FO_ERR_INPUT;
            break;
        }
        if (!enqueue(r, x->target, xk)) { st = FO_ERR_NOMEM; break; }
        fo_tpl_relative(part, x->target, target, sizeof target);
        fo_pkg_add_rel_id(p->pkg, part, x->id, x->type, target, false);
    }
    fo_tpl_rels_free(&rels);
    return st;
}

/* Copies every part reachable from the master (breadth first). */
static fo_status copy_parts(fo_pptx *p, reader *r)
{
    fo_status st = FO_OK;
    for (size_t i = 0; i < r->nq && st == FO_OK; i++) st = copy_part(p, r, r->queue[i], r->kinds[i]);
    return st == FO_OK ? fo_pkg_status(p->pkg) : st;
}

/* ---- placeholders and layouts ------------------------------------------------------ */

typedef struct {
    fo_pptx_ph title, body, sub, num;
} ph_set;

/* A coordinate a slide can hold (pt): finite, within 100,000 pt (35 m). */
static bool sane(double v) { return fabs(v) < 1e5; }

/* Reads the placeholders of a master or layout part (top-level shapes). */
static void read_placeholders(xmlDocPtr doc, ph_set *out)
{
    memset(out, 0, sizeof *out);
    xmlNodePtr tree = fo_tpl_child(fo_tpl_child(xmlDocGetRootElement(doc), "cSld"), "spTree");
    char type[32], idx[16], v[32];
    for (xmlNodePtr sp = tree ? tree->children : NULL; sp; sp = sp->next) {
        if (!fo_tpl_is(sp, "sp")) continue;
        xmlNodePtr ph = fo_tpl_child(fo_tpl_child(fo_tpl_child(sp, "nvSpPr"), "nvPr"), "ph");
        if (!ph) continue;
        fo_tpl_attr(ph, "type", type, sizeof type);
        fo_tpl_attr(ph, "idx", idx, sizeof idx);
        fo_pptx_ph *slot = NULL;
        if (!strcmp(type, "title") || !strcmp(type, "ctrTitle")) slot = &out->title;
        else if (!strcmp(type, "subTitle")) slot = &out->sub;
        else if (!strcmp(type, "sldNum")) slot = &out->num;
        else if (!*type || !strcmp(type, "body") || !strcmp(type, "obj")) slot = &out->body;
        if (!slot || slot->present) continue;
        slot->present = true;
        snprintf(slot->type, sizeof slot->type, "%s", *type ? type : "obj");
        snprintf(slot->idx, sizeof slot->idx, "%s", idx);
        xmlNodePtr xf = fo_tpl_child(fo_tpl_child(sp, "spPr"), "xfrm");
        xmlNodePtr off = fo_tpl_child(xf, "off"), ext = fo_tpl_child(xf, "ext");
        if (off && ext) {
            slot->has_box = true;
            slot->x = EMU_PT(atof(fo_tpl_attr(off, "x", v, sizeof v)));
            slot->y = EMU_PT(atof(fo_tpl_attr(off, "y", v, sizeof v)));
            slot->w = EMU_PT(atof(fo_tpl_attr(ext, "cx", v, sizeof v)));
            slot->h = EMU_PT(atof(fo_tpl_attr(ext, "cy", v, sizeof v)));
            slot->has_box = sane(slot->x) && sane(slot->y) && sane(slot->w) && sane(slot->h) &&
                            slot->w >= 0 && slot->h >= 0;
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
        if (fo_tpl_is(c, "srgbClr")) fo_tpl_attr(c, "val", v, sizeof v);
        else if (fo_tpl_is(c, "sysClr")) fo_tpl_attr(c, "lastClr", v, sizeof v);
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
    xmlNodePtr el = fo_tpl_child(xmlDocGetRootElement(doc), "themeElements");
    xmlNodePtr cs = fo_tpl_child(el, "clrScheme"), fs = fo_tpl_child(el, "fontScheme");
    fo_rgb c;
    if (scheme_color(fo_tpl_child(cs, "dk1"), &c)) t->text = c;
    if (scheme_color(fo_tpl_child(cs, "lt1"), &c)) t->background = c;
    if (scheme_color(fo_tpl_child(cs, "dk2"), &c)) t->heading_color = c;
    static const char *const acc[] = {"accent1", "accent2", "accent3", "accent4", "accent5", "accent6"};
    size_t n = 0;
    for (size_t i = 0; i < 6; i++)
        if (scheme_color(fo_tpl_child(cs, acc[i]), &c)) t->palette[n++] = c;
    if (n) { t->npalette = n; t->accent = t->palette[0]; }
    char face[64];
    fo_tpl_attr(fo_tpl_child(fo_tpl_child(fs, "majorFont"), "latin"), "typeface", face, sizeof face);
    if (*face && *face != '+') snprintf(t->heading.family, sizeof t->heading.family, "%s", face);
    fo_tpl_attr(fo_tpl_child(fo_tpl_child(fs, "minorFont"), "latin"), "typeface", face, sizeof face);
    if (*face && *face != '+') snprintf(t->body.family, sizeof t->body.family, "%s", face);
}

/* ---- loading --------------------------------------------------------------------------- */

static fo_status read_layouts(reader *r, const fo_tpl_rels *mrels, const ph_set *mph,
                              layout_info **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    fo_status st = FO_OK;
    char type[32];
    for (size_t i = 0; i < mrels->n && st == FO_OK && *n < LAYOUTS_MAX; i++) {
        if (kind_of(&mrels->items[i]) != K_LAYOUT) continue;
        xmlDocPtr doc;
        st = fo_tpl_xml(r->z, mrels->items[i].target, &doc, NULL, NULL);
        if (st != FO_OK || !doc) continue; /* dangling: the copy step reports it */
        if (!fo_grow((void **)out, &cap, *n + 1, 16, sizeof **out)) {
            xmlFreeDoc(doc);
            st = FO_ERR_NOMEM;
            break;
        }
        layout_info *L = &(*out)[*n];
        memset(L, 0, sizeof *L);
        snprintf(L->part, sizeof L->part, "%s", mrels->items[i].target);
        snprintf(L->type, sizeof L->type, "%s", fo_tpl_attr(xmlDocGetRootElement(doc), "type", type, sizeof type));
        read_placeholders(doc, &L->ph);
        inherit_box(&L->ph.title, &mph->title);
        inherit_box(&L->ph.body, &mph->body);
        inherit_box(&L->ph.sub, &mph->body);
        inherit_box(&L->ph.num, &mph->num);
        xmlFreeDoc(doc);
        (*n)++;
    }
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

/* presentation.xml (its part name in pres) and its first slide master. */
static fo_status find_master(fo_pptx *p, reader *r, char *pres, size_t cap, xmlDocPtr *pres_doc,
                             char *master, size_t mcap)
{
    fo_tpl_rels rels;
    fo_status st = fo_tpl_rels_read(r->z, "", &rels);
    const fo_tpl_rel *o = st == FO_OK ? fo_tpl_rel_typed(&rels, "officeDocument") : NULL;
    snprintf(pres, cap, "%s", o ? o->target : "ppt/presentation.xml");
    fo_tpl_rels_free(&rels);
    if (st == FO_OK) st = fo_tpl_xml(r->z, pres, pres_doc, NULL, NULL);
    if (st != FO_OK) return st;
    const fo_tpl_rel *m = NULL;
    if (*pres_doc && (st = fo_tpl_rels_read(r->z, pres, &rels)) == FO_OK) {
        if ((m = rel_of_kind(&rels, K_MASTER)) != NULL) snprintf(master, mcap, "%s", m->target);
        fo_tpl_rels_free(&rels);
    }
    if (st == FO_OK && (!*pres_doc || !m)) {
        fo_diags_add(p->d, NULL, 0, 0, NULL, "give a .pptx saved by PowerPoint or LibreOffice",
                     "template %s has no slide master (%s%s)", fo_tpl_path(r->z),
                     *pres_doc ? pres : "no presentation.xml", *pres_doc ? " relates none" : "");
        st = FO_ERR_INPUT;
    }
    return st;
}

/* Slide size and the master's id from presentation.xml. */
static void take_presentation(fo_pptx *p, fo_pptx_tpl *tpl, xmlDocPtr pres_doc)
{
    char v[32];
    xmlNodePtr proot = xmlDocGetRootElement(pres_doc);
    xmlNodePtr sz = fo_tpl_child(proot, "sldSz");
    if (sz) {
        double w = EMU_PT(atof(fo_tpl_attr(sz, "cx", v, sizeof v)));
        double h = EMU_PT(atof(fo_tpl_attr(sz, "cy", v, sizeof v)));
        if (w > 100 && h > 100 && w < 1e5 && h < 1e5) { p->g.w = w; p->g.h = h; }
    }
    fo_tpl_attr(fo_tpl_child(fo_tpl_child(proot, "sldMasterIdLst"), "sldMasterId"), "id", tpl->master_id,
         sizeof tpl->master_id);
    if (!*tpl->master_id || strspn(tpl->master_id, "0123456789") != strlen(tpl->master_id))
        snprintf(tpl->master_id, sizeof tpl->master_id, "2147483648");
}

/* The layouts folio's slide kinds use. */
static void pick_layouts(fo_pptx_tpl *tpl, const layout_info *ls, size_t nls)
{
    for (int k = FO_PPTX_L_TITLE; k <= FO_PPTX_L_BLANK; k++) {
        int i = pick_layout(ls, nls, k);
        if (i < 0) i = pick_layout(ls, nls, FO_PPTX_L_CONTENT);
        fo_pptx_tlayout *L = &tpl->layout[k];
        fo_tpl_relative("ppt/slides/x.xml", ls[i].part, L->target, sizeof L->target);
        L->title = ls[i].ph.title;
        L->body = ls[i].ph.body;
        L->sub = ls[i].ph.sub;
        L->num = ls[i].ph.num;
    }
}

/* Master, layouts and theme: placeholders, geometry, colors and fonts. */
static fo_status read_master(fo_pptx *p, reader *r, fo_pptx_tpl *tpl, const char *pres,
                             const char *master)
{
    xmlDocPtr master_doc = NULL, theme_doc = NULL;
    layout_info *ls = NULL;
    size_t nls = 0;
    fo_tpl_rels mrels = {0};
    fo_status st = fo_tpl_xml(r->z, master, &master_doc, NULL, NULL);
    if (st == FO_OK && !master_doc) {
        fo_diags_add(p->d, NULL, 0, 0, NULL, NULL, "template %s: its slide master %s is missing",
                     fo_tpl_path(r->z), master);
        st = FO_ERR_INPUT;
    }
    if (st == FO_OK) st = fo_tpl_rels_read(r->z, master, &mrels);
    ph_set mph;
    if (st == FO_OK) {
        read_placeholders(master_doc, &mph);
        st = read_layouts(r, &mrels, &mph, &ls, &nls);
    }
    if (st == FO_OK && nls == 0) {
        fo_diags_add(p->d, NULL, 0, 0, NULL, NULL, "template %s: its slide master has no layouts",
                     fo_tpl_path(r->z));
        st = FO_ERR_INPUT;
    }
    tpl->theme = *p->t;
    const fo_tpl_rel *th = st == FO_OK ? rel_of_kind(&mrels, K_THEME) : NULL;
    if (th) {
        fo_tpl_relative(pres, th->target, tpl->theme_target, sizeof tpl->theme_target);
        st = fo_tpl_xml(r->z, th->target, &theme_doc, NULL, NULL);
        if (theme_doc) apply_theme(theme_doc, &tpl->theme);
    }
    p->t = &tpl->theme;
    if (st == FO_OK) {
        fo_tpl_relative(pres, master, tpl->master_target, sizeof tpl->master_target);
        pick_layouts(tpl, ls, nls);
        template_geometry(p, &tpl->layout[FO_PPTX_L_CONTENT]);
    }
    fo_tpl_rels_free(&mrels);
    xmlFreeDoc(master_doc);
    xmlFreeDoc(theme_doc);
    fo_free(ls);
    return st;
}

fo_status fo_pptx_template_load(fo_pptx *p, const char *path)
{
    reader r = {0};
    fo_status st = fo_tpl_open(path, &r.z, p->d);
    if (st != FO_OK) { p->err = st; return st; }
    xmlDocPtr pres_doc = NULL;
    char pres[FO_TPL_NAME_MAX + 1], master[FO_TPL_NAME_MAX + 1];
    fo_pptx_tpl *tpl = fo_calloc(1, sizeof *tpl);
    if (!tpl) st = FO_ERR_NOMEM;
    p->tpl = tpl;
    if (st == FO_OK) st = find_master(p, &r, pres, sizeof pres, &pres_doc, master, sizeof master);
    if (st == FO_OK) {
        take_presentation(p, tpl, pres_doc);
        st = read_master(p, &r, tpl, pres, master);
    }
    if (st == FO_OK && !enqueue(&r, master, K_MASTER)) st = FO_ERR_NOMEM;
    if (st == FO_OK) st = copy_parts(p, &r);
    if (st == FO_ERR_NOMEM) fo_pptx_fail(p, st, NULL, "out of memory");
    if (st != FO_OK && !p->err) p->err = st; /* the reader named the problem */
    xmlFreeDoc(pres_doc);
    for (size_t i = 0; i < r.nq; i++) fo_free(r.queue[i]);
    fo_free(r.queue);
    fo_free(r.kinds);
    fo_tpl_free(r.z);
    return st;
}
