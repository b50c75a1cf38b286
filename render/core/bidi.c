/* bidi.c — paragraph levels and line reordering (see bidi.h). */
#include <string.h>

#include <fribidi.h>

#include "folio.h"
#include "render/core/bidi.h"
#include "base/utf8.h"

fo_dir fo_bidi_levels(const char *utf8, size_t len, fo_dir dir, uint8_t *levels)
{
    FriBidiParType base = dir == FO_DIR_RTL ? FRIBIDI_PAR_RTL
                        : dir == FO_DIR_LTR ? FRIBIDI_PAR_LTR : FRIBIDI_PAR_ON;
    memset(levels, dir == FO_DIR_RTL ? 1 : 0, len);
    size_t cap = len ? len : 1;
    size_t per = sizeof(FriBidiChar) + sizeof(FriBidiCharType) + sizeof(FriBidiBracketType) +
                 sizeof(FriBidiLevel) + sizeof(uint32_t);
    unsigned char *mem = fo_malloc(cap * per);
    if (!mem) return FO_DIR_AUTO;
    FriBidiChar *cp = (FriBidiChar *)mem;
    uint32_t *off = (uint32_t *)(cp + cap);
    FriBidiCharType *types = (FriBidiCharType *)(off + cap);
    FriBidiBracketType *br = (FriBidiBracketType *)(types + cap);
    FriBidiLevel *lv = (FriBidiLevel *)(br + cap);
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        off[n] = (uint32_t)i;
        uint32_t c = fo_utf8_next(utf8, len, &i);
        cp[n++] = c;
    }
    fribidi_get_bidi_types(cp, (FriBidiStrIndex)n, types);
    fribidi_get_bracket_types(cp, (FriBidiStrIndex)n, types, br);
    fo_dir got = FO_DIR_AUTO;
    if (fribidi_get_par_embedding_levels_ex(types, br, (FriBidiStrIndex)n, &base, lv) != 0) {
        for (size_t k = 0; k < n; k++) {
            size_t end = k + 1 < n ? off[k + 1] : len;
            memset(levels + off[k], (int)lv[k], end - off[k]);
        }
        got = FRIBIDI_IS_RTL(base) ? FO_DIR_RTL : FO_DIR_LTR;
    }
    fo_free(mem);
    return got;
}

/* Reverses order[a..b). */
static void reverse(size_t *order, size_t a, size_t b)
{
    for (; a + 1 < b; a++, b--) {
        size_t t = order[a];
        order[a] = order[b - 1];
        order[b - 1] = t;
    }
}

void fo_bidi_order(const uint8_t *levels, size_t n, size_t *order)
{
    int hi = 0, lo_odd = 127;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        if (levels[i] > hi) hi = levels[i];
        if ((levels[i] & 1) && levels[i] < lo_odd) lo_odd = levels[i];
    }
    /* from the highest level down to the lowest odd one, reverse every
       sequence of pieces at that level or above */
    for (int l = hi; l >= lo_odd && l > 0; l--)
        for (size_t i = 0; i < n;) {
            if (levels[order[i]] < l) { i++; continue; }
            size_t j = i;
            while (j < n && levels[order[j]] >= l) j++;
            reverse(order, i, j);
            i = j;
        }
}
