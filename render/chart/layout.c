/* layout.c — lays a chart out into a display list (stub until issue 3 lands). */
#include <math.h>

#include "render/chart/dl_build.h"

fo_axis_scale fo_chart_nice_scale(double lo, double hi, int target, bool zero_based)
{
    fo_axis_scale s = {0, 1, 0.2, 6};
    (void)lo; (void)hi; (void)target; (void)zero_based;
    return s;
}

fo_status fo_chart_layout(const fo_chart *c, const fo_theme *t, double width, double height,
                          fo_dl **out, fo_diags *d)
{
    (void)d;
    if (width <= 0) width = c->width > 0 ? c->width : FO_CHART_DEFAULT_WIDTH;
    if (height <= 0) height = c->height > 0 ? c->height : FO_CHART_DEFAULT_HEIGHT;
    fo_dl *dl = fo_dl_new(width, height, t->background);
    if (!dl) return FO_ERR_NOMEM;
    *out = dl;
    return FO_OK;
}
