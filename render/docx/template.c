/* template.c — `--template FILE.docx`: a company's Word template lends its
 * look to folio's output. Taken from it: styles (folio adds only the styles
 * the template lacks, so its Title, Heading 1-6, List Bullet, Caption ...
 * win), numbering (folio's list definitions appended after the template's,
 * ids shifted), theme, page setup (its body w:sectPr: size, margins,
 * orientation) and headers/footers with their pictures. Its body text is not
 * copied.
 *
 * Works on the template's XML as text: parts written by Word and
 * LibreOffice use the w: and r: prefixes throughout, and the pieces copied
 * (style elements, the sectPr) are moved whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/docx/docx_internal.h"
#include "render/ooxml/zipin.h"

struct fo_docx_tpl {
    char *path;
    char *styles, *numbering, *theme; /* whole parts, NULL when absent */
    size_t styles_len, numbering_len, theme_len;
    char *sectpr;                     /* body sectPr with header/footer ids rewritten */
    long page_w, mar_l, mar_r;        /* twips, 0 when not given */
    unsigned abs_base, num_base;      /* first free abstractNumId / numId - 1 */
};

/* ---- small text helpers ------------------------------------------------------- */

/* Value of attr="..." in [s, end), copied into out; false when absent. */
static bool attr_in(const char *s, const char *end, const char *attr, char *out, size_t cap)
{
    size_t n = strlen(attr);
    for (const char *p = s; p && p < end; p++) {
        p = strstr(p, attr);
        if (!p || p >= end) return false;
        if (p[n] == '=' && p[n + 1] == '"' && (p == s || p[-1] == ' ')) {
            const char *v = p + n + 2, *q = strchr(v, '"');
            if (!q || q > end) return false;
            snprintf(out, cap, "%.*s", (int)(q - v), v);
            return true;
        }
    }
    return false;
}

/* Largest numeric value of attr="N" anywhere in s. */
static unsigned max_attr(const char *s, const char *attr)
{
    unsigned m = 0;
    size_t n = strlen(attr);
    for (const char *p = s ? strstr(s, attr) : NULL; p; p = strstr(p + n, attr)) {
        if (p[n] != '=' || p[n + 1] != '"') continue;
        unsigned v = (unsigned)strtoul(p + n + 2, NULL, 10);
        if (v > m) m = v;
    }
    return m;
}

/* Appends n bytes to a growing buffer. */
static bool put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (*len + n + 1 > nc) nc *= 2;
        char *nb = fo_realloc(*b, nc);
        if (!nb) return false;
        *b = nb;
        *cap = nc;
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = '\0';
    return true;
}

/* ---- loading ------------------------------------------------------------------- */

void fo_docx_tpl_free(fo_docx_tpl *t)
{
    if (!t) return;
    fo_free(t->path);
    fo_free(t->styles);
    fo_free(t->numbering);
    fo_free(t->theme);
    fo_free(t->sectpr);
    fo_free(t);
}

static const char *media_ct(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return "application/octet-stream";
    static const char *const map[][2] = {
        {".png", "image/png"}, {".jpeg", "image/jpeg"}, {".jpg", "image/jpeg"},
        {".gif", "image/gif"}, {".emf", "image/x-emf"}, {".wmf", "image/x-wmf"},
        {".svg", "image/svg+xml"}, {".bmp", "image/bmp"}, {".tif", "image/tiff"},
        {".tiff", "image/tiff"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcasecmp(dot, map[i][0]) == 0) return map[i][1];
    return "application/octet-stream";
}

/* Copies a header/footer part of the template (and the pictures it shows)
 * into the package; returns false on a read failure. */
static bool copy_hdrftr(fo_docx_ctx *c, fo_zipin *z, const fo_zipin_rel *r, bool footer)
{
    size_t len;
    char *data = fo_zipin_read(z, r->target, &len);
    if (!data) return false;
    fo_pkg_add_part_take(c->pkg, r->target, footer ? FO_CT_DOCX_FOOTER : FO_CT_DOCX_HEADER, data, len);
    fo_zipin_rels rels;
    if (fo_zipin_rels_read(z, r->target, &rels) != FO_OK) return false;
    for (size_t i = 0; i < rels.n; i++) {
        const fo_zipin_rel *h = &rels.items[i];
        if (h->external) {
            fo_pkg_add_rel_id(c->pkg, r->target, h->id, h->type, h->target, true);
            continue;
        }
        /* template pictures get their own names beside folio's imageN */
        const char *base = strrchr(h->target, '/');
        base = base ? base + 1 : h->target;
        char part[300], target[300];
        snprintf(part, sizeof part, "word/media/template-%s", base);
        snprintf(target, sizeof target, "media/template-%s", base);
        if (!fo_pkg_has_part(c->pkg, part)) {
            size_t mlen;
            char *m = fo_zipin_read(z, h->target, &mlen);
            if (!m) continue; /* a dangling link in the template: leave it out */
            const char *dot = strrchr(base, '.');
            if (dot) fo_pkg_add_default(c->pkg, dot + 1, media_ct(base));
            fo_pkg_add_part_take(c->pkg, part, NULL, m, mlen);
        }
        fo_pkg_add_rel_id(c->pkg, r->target, h->id, h->type, target, false);
    }
    fo_zipin_rels_free(&rels);
    return true;
}

/* The body's sectPr: copied with each header/footer reference pointed at
 * the copied part through a new relationship of word/document.xml. */
static fo_status take_section(fo_docx_ctx *c, fo_docx_tpl *t, fo_zipin *z, const char *doc)
{
    const char *s = NULL;
    for (const char *p = strstr(doc, "<w:sectPr"); p; p = strstr(p + 1, "<w:sectPr")) s = p;
    const char *e = s ? strstr(s, "</w:sectPr>") : NULL;
    if (!s || !e) return FO_OK; /* no page setup: folio's theme */
    e += strlen("</w:sectPr>");
    const char *pg = strstr(s, "<w:pgSz"), *mar = strstr(s, "<w:pgMar");
    char v[32];
    if (pg && pg < e && attr_in(pg, e, "w:w", v, sizeof v)) t->page_w = atol(v);
    if (mar && mar < e && attr_in(mar, e, "w:left", v, sizeof v)) t->mar_l = atol(v);
    if (mar && mar < e && attr_in(mar, e, "w:right", v, sizeof v)) t->mar_r = atol(v);

    fo_zipin_rels rels;
    fo_status st = fo_zipin_rels_read(z, "word/document.xml", &rels);
    if (st != FO_OK) return st;
    char *b = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    const char *p = s;
    while (ok && p < e) {
        const char *id = strstr(p, "r:id=\"");
        if (!id || id >= e) { ok = put(&b, &len, &cap, p, (size_t)(e - p)); break; }
        id += 6;
        const char *q = strchr(id, '"');
        ok = put(&b, &len, &cap, p, (size_t)(id - p));
        char rid[64];
        snprintf(rid, sizeof rid, "%.*s", (int)(q - id), id);
        const fo_zipin_rel *r = fo_zipin_rel_find(&rels, rid);
        const char *nid = "";
        if (r && !r->external) {
            size_t tl = strlen(r->type);
            bool footer = tl >= 7 && strcmp(r->type + tl - 7, "/footer") == 0;
            bool header = tl >= 7 && strcmp(r->type + tl - 7, "/header") == 0;
            if ((footer || header) && strncmp(r->target, "word/", 5) == 0 &&
                (fo_pkg_has_part(c->pkg, r->target) || copy_hdrftr(c, z, r, footer))) {
                nid = fo_pkg_add_rel(c->pkg, FO_DOCX_DOCUMENT, r->type, r->target + 5, false);
                c->template_hdrftr = true;
            }
        }
        if (ok) ok = put(&b, &len, &cap, nid, strlen(nid));
        p = q;
    }
    fo_zipin_rels_free(&rels);
    if (!ok) { fo_free(b); return FO_ERR_NOMEM; }
    t->sectpr = b;
    return FO_OK;
}

fo_status fo_docx_tpl_load(fo_docx_ctx *c, const char *path)
{
    fo_zipin *z = NULL;
    fo_status st = fo_zipin_open(path, &z, c->d);
    if (st != FO_OK) return st;
    fo_docx_tpl *t = fo_calloc(1, sizeof *t);
    char *doc = NULL;
    if (!t) { st = FO_ERR_NOMEM; goto cleanup; }
    size_t dlen;
    doc = fo_zipin_read(z, "word/document.xml", &dlen);
    t->styles = fo_zipin_read(z, "word/styles.xml", &t->styles_len);
    if (!doc || !t->styles || !strstr(t->styles, "</w:styles>")) {
        fo_diags_add(c->d, path, 0, 0, NULL, "give a .docx saved by Word or LibreOffice",
                     "template %s is not a Word document: %s is missing or unreadable", path,
                     doc ? "word/styles.xml" : "word/document.xml");
        st = FO_ERR_INPUT;
        goto cleanup;
    }
    t->numbering = fo_zipin_read(z, "word/numbering.xml", &t->numbering_len);
    if (t->numbering && !strstr(t->numbering, "</w:numbering>")) {
        fo_free(t->numbering);
        t->numbering = NULL;
    }
    t->theme = fo_zipin_read(z, "word/theme/theme1.xml", &t->theme_len);
    t->abs_base = t->numbering ? max_attr(t->numbering, "w:abstractNumId") + 1 : 0;
    t->num_base = t->numbering ? max_attr(t->numbering, "w:numId") : 0;
    c->tpl = t;
    st = take_section(c, t, z, doc);
cleanup:
    fo_free(doc);
    fo_zipin_free(z);
    if (st != FO_OK && c->tpl != t) fo_docx_tpl_free(t);
    return st;
}

/* ---- using it -------------------------------------------------------------------- */

long fo_docx_tpl_text_width(const fo_docx_tpl *t)
{
    return t && t->page_w > 0 ? t->page_w - t->mar_l - t->mar_r : 0;
}

bool fo_docx_tpl_section(fo_docx_ctx *c)
{
    if (!c->tpl || !c->tpl->sectpr) return false;
    const char *s = c->tpl->sectpr;
    const char *gt = strchr(s, '>');
    if (c->template_hdrftr || !gt || gt[-1] == '/') {
        fo_xml_raw(c->x, s, strlen(s));
        return true;
    }
    /* no letterhead in the template: folio's theme header/footer, whose
     * references come first in a sectPr */
    fo_xml_raw(c->x, s, (size_t)(gt + 1 - s));
    char ref[128];
    int n;
    if (c->header_rid[0]) {
        n = snprintf(ref, sizeof ref, "<w:headerReference w:type=\"default\" r:id=\"%s\"/>", c->header_rid);
        fo_xml_raw(c->x, ref, (size_t)n);
    }
    if (c->footer_rid[0]) {
        n = snprintf(ref, sizeof ref, "<w:footerReference w:type=\"default\" r:id=\"%s\"/>", c->footer_rid);
        fo_xml_raw(c->x, ref, (size_t)n);
    }
    fo_xml_raw(c->x, gt + 1, strlen(gt + 1));
    return true;
}

unsigned fo_docx_tpl_num_base(const fo_docx_tpl *t) { return t ? t->num_base : 0; }
unsigned fo_docx_tpl_abs_base(const fo_docx_tpl *t) { return t ? t->abs_base : 0; }

bool fo_docx_tpl_theme(fo_docx_ctx *c)
{
    if (!c->tpl || !c->tpl->theme) return false;
    fo_pkg_add_part(c->pkg, "word/theme/theme1.xml", FO_CT_THEME, c->tpl->theme, c->tpl->theme_len);
    return true;
}

/* Template styles plus folio's styles whose id the template lacks. */
void fo_docx_tpl_styles(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    const fo_docx_tpl *t = c->tpl;
    const char *ts = t->styles;
    const char *close = strstr(ts, "</w:styles>");
    char *b = NULL;
    size_t len = 0, cap = 0;
    bool ok = put(&b, &len, &cap, ts, (size_t)(close - ts));
    const char *fend = folio + folio_len;
    for (const char *p = strstr(folio, "<w:style "); ok && p && p < fend;
         p = strstr(p + 1, "<w:style ")) {
        const char *e = strstr(p, "</w:style>");
        if (!e) break;
        e += strlen("</w:style>");
        const char *gt = strchr(p, '>');
        char id[128], needle[160];
        if (!attr_in(p, gt, "w:styleId", id, sizeof id)) continue;
        snprintf(needle, sizeof needle, "w:styleId=\"%s\"", id);
        if (!strstr(ts, needle)) ok = put(&b, &len, &cap, p, (size_t)(e - p));
    }
    if (ok) ok = put(&b, &len, &cap, close, strlen(close));
    if (!ok) { fo_free(b); fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_pkg_add_part_take(c->pkg, "word/styles.xml", FO_CT_DOCX_STYLES, b, len);
}

/* Template numbering with folio's abstractNum and num elements (already
 * numbered past the template's ids) spliced in, in schema order. */
void fo_docx_tpl_numbering(fo_docx_ctx *c, const char *folio, size_t folio_len)
{
    const char *tn = c->tpl->numbering;
    const char *fend = folio + folio_len;
    const char *fa = strstr(folio, "<w:abstractNum "), *fn = strstr(folio, "<w:num ");
    const char *fclose = strstr(folio, "</w:numbering>");
    if (!fa || !fn || !fclose || fclose > fend) { fo_docx_fail(c, NULL, FO_ERR_INTERNAL, "numbering"); return; }
    /* where the template's num elements start (after its abstractNums) */
    const char *tnum = NULL;
    for (const char *p = strstr(tn, "<w:num"); p; p = strstr(p + 1, "<w:num"))
        if (p[6] == ' ' || p[6] == '>') { tnum = p; break; }
    const char *tend = strstr(tn, "<w:numIdMacAtCleanup");
    if (!tend) tend = strstr(tn, "</w:numbering>");
    if (!tnum) tnum = tend;
    char *b = NULL;
    size_t len = 0, cap = 0;
    bool ok = put(&b, &len, &cap, tn, (size_t)(tnum - tn)) &&
              put(&b, &len, &cap, fa, (size_t)(fn - fa)) &&
              put(&b, &len, &cap, tnum, (size_t)(tend - tnum)) &&
              put(&b, &len, &cap, fn, (size_t)(fclose - fn)) &&
              put(&b, &len, &cap, tend, strlen(tend));
    if (!ok) { fo_free(b); fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_pkg_add_part_take(c->pkg, "word/numbering.xml", FO_CT_DOCX_NUMBERING, b, len);
}

bool fo_docx_tpl_has_numbering(const fo_docx_tpl *t) { return t && t->numbering; }
