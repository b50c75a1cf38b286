/* delta.c — a metric's change: its text and its tone (see delta.h). */
#include <math.h>
#include <stdio.h>

#include "render/core/delta.h"
#include "render/core/numfmt.h"

size_t fo_delta_text(const fo_metric *m, char *buf, size_t cap)
{
    if (cap == 0) return 0;
    const char *arrow = m->delta > 0 ? "\xE2\x96\xB2 " : m->delta < 0 ? "\xE2\x96\xBC " : "";
    char num[256];
    /* the signed value: the format's sections choose the sign, as in Excel */
    fo_numfmt_format_code(m->delta_format ? m->delta_format : "General", m->delta, num, sizeof num);
    int n = snprintf(buf, cap, "%s%s", arrow, num);
    if (n < 0) { buf[0] = '\0'; return 0; }
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

fo_delta_tone fo_delta_tone_of(const fo_metric *m)
{
    if (!isfinite(m->delta) || m->delta == 0) return FO_DELTA_FLAT;
    bool up = m->delta > 0;
    return up != m->lower_is_better ? FO_DELTA_GOOD : FO_DELTA_BAD;
}

fo_rgb fo_delta_rgb(const fo_metric *m, fo_rgb flat, fo_rgb bg)
{
    switch (fo_delta_tone_of(m)) {
    case FO_DELTA_GOOD: return fo_rgb_readable(FO_DELTA_GOOD_RGB, bg, FO_CONTRAST_TEXT);
    case FO_DELTA_BAD: return fo_rgb_readable(FO_DELTA_BAD_RGB, bg, FO_CONTRAST_TEXT);
    case FO_DELTA_FLAT:
    default: return flat;
    }
}
