/* fuzz_otlayout.c — libFuzzer target for render/core/otlayout.c, folio's
 * own reader of GSUB and GPOS bytes (a theme's font file reaches it when
 * text in that font is shaped word by word).
 *
 * Input: two bytes of a glyph id, then a GSUB or GPOS table. Asks where
 * the glyph can be matched, as either table, and checks each GPOS rule
 * that looks past it against glyphs taken from the input. Invariants:
 * every read stays inside the table (ASan), a rule is reported only with
 * FO_OT_BEYOND and fits the room given, and its positions are in order. */
#include <stdint.h>
#include <stdlib.h>

#include "render/core/otlayout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint16_t glyph = (uint16_t)(data[0] << 8 | data[1]);
    const uint8_t *t = data + 2;
    size_t len = size - 2;
    for (int gpos = 0; gpos < 2; gpos++) {
        fo_ot_beyond rules[8];
        size_t n = 99;
        fo_ot_reach r = fo_ot_context_reach(t, len, gpos, glyph, rules, 8, &n);
        if (r > FO_OT_ANYWHERE || n > 8 || (r != FO_OT_BEYOND && n != 0) || (r == FO_OT_BEYOND && !gpos))
            abort();
        uint16_t before[8] = {glyph, 0, 1, 2, 3, 0xFFFF, glyph, 5};
        for (size_t k = 0; k < n; k++) {
            if (rules[k].from > rules[k].count || rules[k].from == 0) abort();
            (void)fo_ot_beyond_matches(t, len, &rules[k], before, 8);
            (void)fo_ot_beyond_matches(t, len, &rules[k], before, 1);
        }
    }
    return 0;
}
