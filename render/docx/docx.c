/* docx.c — .docx renderer (placeholder until its issue lands). */
#include "render/render.h"

fo_status fo_docx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d)
{
    (void)doc; (void)out; (void)opts;
    fo_diags_add(d, NULL, 0, 0, NULL, "available formats: xlsx",
                 "%s: the .docx format is not supported yet", dest);
    return FO_ERR_UNSUPPORTED;
}
