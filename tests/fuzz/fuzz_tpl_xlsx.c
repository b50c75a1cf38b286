/* fuzz_tpl_xlsx.c — libFuzzer target: arbitrary bytes as a --template .xlsx
 * (see fuzz_tpl.h for the input format). An .xlsx template only lends its
 * theme, so the target calls the theme reader itself: a whole render would
 * spend its time in libxlsxwriter's deflate (40 runs/s instead of hundreds). */
#include "formats/theme.h"
#include "render/xlsx/xlsx_internal.h"
#include "tests/fuzz/fuzz_tpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *tpl = fuzz_tpl_path("xlsx");
    fo_diags d;
    fo_diags_init(&d);
    fo_theme t;
    fo_theme_default(&t);
    if (fuzz_tpl_zip(data, size, tpl)) fo_xlsx_template_theme(tpl, &t, &d);
    for (size_t i = 0; i < d.n; i++) free(fo_diag_format(&d.items[i]));
    fo_diags_free(&d);
    return 0;
}
