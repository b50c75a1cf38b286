/* runs.c — WordprocessingML text runs: inline markup to w:r with bold,
 * italic and code styles, real hyperlinks (w:hyperlink + external
 * relationship, one per distinct URL), fields, and line breaks and tabs.
 *
 * Hyperlink targets are percent-encoded into valid URIs: Word refuses a
 * package whose relationship target is not one. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render/docx/docx_internal.h"
#include "render/core/markup.h"
#include "render/core/policy.h"
#include "render/core/shape.h"

/* ---- failure ---------------------------------------------------------------- */

void fo_docx_fail(fo_docx_ctx *c, const fo_block *b, fo_status st, const char *fmt, ...)
{
    if (c->err != FO_OK) return; /* the first failure is the one to report */
    va_list ap;
    va_start(ap, fmt);
    fo_fail_atv(c->d, &c->err, c->doc, b, st, NULL, fmt, ap);
    va_end(ap);
}

/* ---- URL -> relationship id ---------------------------------------------------- */

typedef struct { char *url, *rid; } link;

struct fo_docx_links {
    link *slots;   /* open addressing, cap a power of two */
    size_t n, cap;
};

fo_docx_links *fo_docx_links_new(void) { return fo_calloc(1, sizeof(fo_docx_links)); }

void fo_docx_links_free(fo_docx_links *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->cap; i++) {
        fo_free(l->slots[i].url);
        fo_free(l->slots[i].rid);
    }
    fo_free(l->slots);
    fo_free(l);
}

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static bool links_grow(fo_docx_links *l)
{
    size_t cap = l->cap ? l->cap * 2 : 64;
    link *slots = fo_calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < l->cap; i++) {
        if (!l->slots[i].url) continue;
        size_t j = hash(l->slots[i].url) & (cap - 1);
        while (slots[j].url) j = (j + 1) & (cap - 1);
        slots[j] = l->slots[i];
    }
    fo_free(l->slots);
    l->slots = slots;
    l->cap = cap;
    return true;
}

/* url made a valid URI: bytes outside RFC 3986's allowed set become %XX. */
static char *uri_encode(const char *url)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(url);
    char *out = fo_malloc(3 * n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)url; *s; s++) {
        bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                  (*s >= '0' && *s <= '9') || strchr("-._~:/?#[]@!$&'()*+,;=", *s);
        bool pct = *s == '%' && isxdigit(s[1]) && isxdigit(s[2]);
        if (ok || pct) out[o++] = (char)*s;
        else { out[o++] = '%'; out[o++] = hex[*s >> 4]; out[o++] = hex[*s & 15]; }
    }
    out[o] = '\0';
    return out;
}

const char *fo_docx_link_rid(fo_docx_ctx *c, const char *url)
{
    fo_docx_links *l = c->links;
    if ((l->n + 1) * 2 > l->cap && !links_grow(l)) goto nomem;
    size_t j = hash(url) & (l->cap - 1);
    while (l->slots[j].url) {
        if (strcmp(l->slots[j].url, url) == 0) return l->slots[j].rid;
        j = (j + 1) & (l->cap - 1);
    }
    char *target = uri_encode(url);
    if (!target) goto nomem;
    const char *rid = fo_pkg_add_rel(c->pkg, FO_DOCX_DOCUMENT, FO_REL_HYPERLINK, target, true);
    fo_free(target);
    l->slots[j].url = fo_strdup(url);
    l->slots[j].rid = fo_strdup(rid);
    if (!l->slots[j].url || !l->slots[j].rid) {
        fo_free(l->slots[j].url); fo_free(l->slots[j].rid);
        l->slots[j].url = l->slots[j].rid = NULL;
        goto nomem;
    }
    l->n++;
    return l->slots[j].rid;
nomem:
    fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory");
    return "";
}

/* ---- runs ------------------------------------------------------------------------- */

/* w:t for s[0..n) (no \n or \t inside), preserving edge spaces. */
static void text_elem(fo_xml *x, const char *s, size_t n)
{
    if (n == 0) return;
    bool edge = s[0] == ' ' || s[n - 1] == ' ' || memmem(s, n, "  ", 2);
    fo_xml_open(x, "w:t", "xml:space", edge ? "preserve" : NULL, NULL);
    fo_xml_textn(x, s, n);
    fo_xml_close(x);
}

/* One w:r; rtl marks it right to left (w:rtl), so Word orders and shapes it. */
static void run_one(fo_docx_ctx *c, const char *text, size_t n, const char *rstyle,
                    bool bold, bool italic, bool rtl)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:r", NULL);
    if (rstyle || bold || italic || c->run_sz || c->run_color || rtl) {
        fo_xml_open(x, "w:rPr", NULL);
        if (rstyle) fo_xml_leaf(x, "w:rStyle", "w:val", rstyle, NULL);
        /* complex-script text, and digits or punctuation in a right-to-left
           paragraph, are drawn with the complex-script properties: without
           bCs and iCs Word and LibreOffice show them regular and upright.
           Word itself writes both whenever a run is bold or italic. */
        if (bold) fo_xml_leaf(x, "w:b", NULL);
        if (bold) fo_xml_leaf(x, "w:bCs", NULL);
        if (italic) fo_xml_leaf(x, "w:i", NULL);
        if (italic) fo_xml_leaf(x, "w:iCs", NULL);
        if (c->run_color) { /* schema order: color before sz */
            char hex[8];
            snprintf(hex, sizeof hex, "%06lX", (c->run_color - 1) & 0xFFFFFF);
            fo_xml_leaf(x, "w:color", "w:val", hex, NULL);
        }
        if (c->run_sz) { /* schema order: sz and szCs come after b and i */
            char sz[16];
            snprintf(sz, sizeof sz, "%d", c->run_sz);
            fo_xml_leaf(x, "w:sz", "w:val", sz, NULL);
            fo_xml_leaf(x, "w:szCs", "w:val", sz, NULL);
        }
        if (rtl) fo_xml_leaf(x, "w:rtl", NULL);   /* schema order: after sz, szCs */
        fo_xml_close(x);
    }
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && text[i] != '\n' && text[i] != '\t' && text[i] != '\r') continue;
        text_elem(x, text + start, i - start);
        if (i < n && text[i] == '\n') fo_xml_leaf(x, "w:br", NULL);
        if (i < n && text[i] == '\t') fo_xml_leaf(x, "w:tab", NULL);
        start = i + 1;
    }
    fo_xml_close(x);
}

/* Runs of mixed direction are cut where the strong direction changes (a
 * neutral character, such as a space or digit, stays with the text before
 * it): Arabic in an English sentence gets its own w:rtl run. */
void fo_docx_run(fo_docx_ctx *c, const char *text, size_t n, const char *rstyle,
                 bool bold, bool italic)
{
    if (!fo_shape_has_rtl(text, n)) { run_one(c, text, n, rstyle, bold, italic, false); return; }
    size_t start = 0, i = 0;
    fo_dir cur = FO_DIR_AUTO;
    while (i < n) {
        size_t at = i;
        fo_dir d = fo_shape_direction_of(text, n, &i);
        if (d == FO_DIR_AUTO || d == cur) continue;
        if (cur != FO_DIR_AUTO) {
            run_one(c, text + start, at - start, rstyle, bold, italic, cur == FO_DIR_RTL);
            start = at;
        }
        cur = d;
    }
    run_one(c, text + start, n - start, rstyle, bold, italic, cur == FO_DIR_RTL);
}

static void run_of(fo_docx_ctx *c, const fo_run *r)
{
    bool linked = r->url && fo_link_allowed(r->url);
    const char *style = (r->flags & FO_RUN_CODE) ? "CodeChar" : linked ? "Hyperlink" : NULL;
    fo_docx_run(c, r->text, r->len, style, r->flags & FO_RUN_BOLD, r->flags & FO_RUN_ITALIC);
}

void fo_docx_markup(fo_docx_ctx *c, const char *src)
{
    if (!src || !*src) return;
    fo_runs runs = {0};
    if (fo_markup_parse(src, &runs) != FO_OK) {
        fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < runs.n; i++) {
        const fo_run *r = &runs.runs[i];
        if (!r->url || !fo_link_allowed(r->url)) { run_of(c, r); continue; } /* refused: text only */
        /* consecutive runs with the same target share one w:hyperlink */
        fo_xml_open(c->x, "w:hyperlink", "r:id", fo_docx_link_rid(c, r->url),
                    "w:history", "1", NULL);
        size_t j = i;
        while (j < runs.n && runs.runs[j].url && strcmp(runs.runs[j].url, r->url) == 0)
            run_of(c, &runs.runs[j++]);
        fo_xml_close(c->x);
        i = j - 1;
    }
    fo_runs_free(&runs);
}

void fo_docx_field(fo_docx_ctx *c, const char *instr, const char *result)
{
    fo_xml *x = c->x;
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "begin", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_open(x, "w:instrText", "xml:space", "preserve", NULL);
    fo_xml_text(x, instr);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "separate", NULL);
    fo_xml_close(x);
    if (result && *result) fo_docx_run(c, result, strlen(result), NULL, false, false);
    fo_xml_open(x, "w:r", NULL);
    fo_xml_leaf(x, "w:fldChar", "w:fldCharType", "end", NULL);
    fo_xml_close(x);
}

void fo_docx_bidi(fo_docx_ctx *c, const char *text)
{
    if (text && fo_shape_direction(text, strlen(text)) == FO_DIR_RTL) fo_xml_leaf(c->x, "w:bidi", NULL);
}
