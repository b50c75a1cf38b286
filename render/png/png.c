/* png.c — .png renderer: one PNG per chart block (stub until issue 3 lands). */
#include "render/chart/chart.h"
#include "render/render.h"

fo_status fo_chart_render_png(const fo_chart *c, const fo_theme *t, double scale,
                              unsigned char **png, size_t *len, fo_diags *d)
{
    (void)c; (void)t; (void)scale; (void)d;
    *png = NULL;
    *len = 0;
    return FO_ERR_UNSUPPORTED;
}

fo_status fo_png_render(const fo_doc *doc, const char *dest, fo_outset *out,
                        const fo_render_opts *opts, fo_diags *d)
{
    (void)doc; (void)out; (void)opts;
    fo_diags_add(d, NULL, 0, 0, NULL, "available formats: xlsx",
                 "%s: the .png format is not supported yet", dest);
    return FO_ERR_UNSUPPORTED;
}
