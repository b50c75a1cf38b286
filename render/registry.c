/* registry.c — which renderer writes which extension, and fo_render(), the
 * one call that renders a document to several outputs all-or-nothing. */
#include <string.h>
#include <strings.h>

#include "render/render.h"

static const fo_renderer renderers[] = {
    {"xlsx", "xlsx", fo_xlsx_render},
    {"docx", "docx", fo_docx_render},
    {"pptx", "pptx", fo_pptx_render},
    {"pdf", "pdf", fo_pdf_render},
    {"png", "png", fo_png_render},
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

fo_status fo_render(const fo_doc *doc, const char *const *outs, size_t nouts,
                    const fo_render_opts *opts, fo_written_list *written, fo_diags *d)
{
    fo_render_opts defaults = {0};
    if (!opts) opts = &defaults;
    fo_outset *set = fo_outset_new(opts->max_bytes);
    if (!set) return FO_ERR_NOMEM;
    fo_status st = FO_OK;
    for (size_t i = 0; i < nouts && st == FO_OK; i++) {
        const fo_renderer *r = fo_renderer_for(outs[i]);
        if (!r) {
            fo_diags_add(d, NULL, 0, 0, NULL, "use .xlsx, .docx, .pptx, .pdf or .png",
                         "%s: unknown output format", outs[i]);
            st = FO_ERR_USAGE;
            break;
        }
        st = r->render(doc, outs[i], set, opts, d);
    }
    st = fo_outset_fail(set, st, d); /* a writer stopped at the ceiling: exit 3, said so */
    if (st == FO_OK) st = fo_outset_commit(set, written, d);
    fo_outset_free(set); /* removes any temporary left */
    return st;
}
