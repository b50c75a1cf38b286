/* registry.c — which renderer writes which extension, and fo_render(), the
 * one call that renders a document to several outputs all-or-nothing. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "render/core/prov.h"
#include "render/core/shape.h"
#include "render/core/text.h"

static const fo_renderer renderers[] = {
    {"xlsx", "xlsx", fo_xlsx_render, true},
    {"docx", "docx", fo_docx_render, true},
    {"pptx", "pptx", fo_pptx_render, true},
    {"pdf", "pdf", fo_pdf_render, false},
    {"png", "png", fo_png_render, false},
};

const fo_renderer *fo_renderer_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return NULL;
    for (size_t i = 0; i < sizeof renderers / sizeof *renderers; i++)
        if (strcasecmp(dot + 1, renderers[i].ext) == 0) return &renderers[i];
    return NULL;
}

bool fo_format_known(const char *path) { return fo_renderer_for(path) != NULL; }

/* One warning for the characters no installed font draws (never silently
 * wrong: they show as empty boxes in PDF and as nothing in PNG). */
static void warn_missing(fo_diags *d)
{
    uint32_t cps[FO_TEXT_MISSING_MAX];
    size_t n = fo_text_missing_take(cps, FO_TEXT_MISSING_MAX);
    if (n == 0) return;
    char list[FO_TEXT_MISSING_MAX * 12 + 1] = "";
    size_t o = 0;
    for (size_t i = 0; i < n && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%sU+%04X", i ? ", " : "", (unsigned)cps[i]);
    fo_diags_add(d, NULL, 0, 0, NULL,
                 "install a font for that script, or name one in the theme",
                 "warning: no installed font has a glyph for %s%s; drawn as empty boxes (PDF) or "
                 "left out (PNG)", list, n == FO_TEXT_MISSING_MAX ? " and maybe more" : "");
}

/* A PNG asked for beside other outputs of a document without charts: it is
 * left out with a warning, and the others are written (alone, the PNG
 * writer's own error says what is missing). */
static bool skip_png(const fo_doc *doc, const fo_renderer *r, const char *out, size_t nouts, fo_diags *d)
{
    if (nouts < 2 || r->render != fo_png_render) return false;
    for (size_t i = 0; i < doc->nblocks; i++)
        if (doc->blocks[i].kind == FO_BLOCK_CHART) return false;
    fo_diags_add(d, doc->spec_path, 0, 0, "/blocks", "a PNG holds a chart: add a {\"type\": \"chart\", ...} block",
                 "warning: %s not written: the spec has no chart to render as PNG", out);
    return true;
}

fo_status fo_render(const fo_doc *doc, const char *const *outs, size_t nouts,
                    const fo_render_opts *opts, fo_written_list *written, fo_diags *d)
{
    fo_render_opts defaults = {0};
    if (!opts) opts = &defaults;
    fo_outset *set = opts->scratch ? fo_outset_new_scratch(opts->max_bytes)
                                   : fo_outset_new(opts->max_bytes);
    if (!set) return FO_ERR_NOMEM;
    fo_status st = FO_OK;
    fo_text_missing_take(NULL, 0);
    /* a template lends its look to the outputs of its own format only */
    const fo_renderer *tr = opts->template_path ? fo_renderer_for(opts->template_path) : NULL;
    if (tr && !tr->templated) tr = NULL;
    fo_render_opts own = *opts;
    bool template_used = false;
    fo_doc *appendix = NULL;     /* the spec asked for a "How this was computed" section */
    if (doc->prov_appendix) {
        if (!(appendix = fo_prov_appendix(doc, opts))) {
            fo_outset_free(set);
            return FO_ERR_NOMEM;
        }
        doc = appendix;
    }
    for (size_t i = 0; i < nouts && st == FO_OK; i++) {
        const fo_renderer *r = fo_renderer_for(outs[i]);
        if (!r) {
            fo_diags_add(d, NULL, 0, 0, NULL, "use .xlsx, .docx, .pptx, .pdf or .png",
                         "%s: unknown output format", outs[i]);
            st = FO_ERR_USAGE;
            break;
        }
        if (skip_png(doc, r, outs[i], nouts, d)) continue;
        own.template_path = r == tr ? opts->template_path : NULL;
        template_used |= r == tr;
        st = r->render(doc, outs[i], set, &own, d);
    }
    if (st == FO_OK && opts->template_path && !template_used)
        fo_diags_add(d, NULL, 0, 0, NULL, "a template is a .docx, .pptx or .xlsx of the output's format",
                     "warning: --template %s is not of any output's format; not used",
                     opts->template_path);
    if (st == FO_OK) warn_missing(d);
    st = fo_outset_fail(set, st, d); /* a writer stopped at the ceiling: exit 3, said so */
    if (st == FO_OK) st = fo_outset_commit(set, written, opts->sha256, d);
    fo_outset_free(set); /* removes any temporary left */
    fo_prov_appendix_free(appendix);
    return st;
}

void fo_render_forget_fonts(void)
{
    fo_png_forget_fonts();
    fo_shape_forget_fonts();
    fo_text_forget_fonts();
}
