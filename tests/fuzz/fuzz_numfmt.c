/* fuzz_numfmt.c — libFuzzer target: compile any code, format any double.
 *
 * Input: 8 bytes of a double, then the format code. Checks that formatting
 * reports the same length for every buffer size and always terminates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/core/numfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8) return 0;
    double v;
    memcpy(&v, data, sizeof v);
    char *code = malloc(size - 8 + 1);
    if (!code) return 0;
    memcpy(code, data + 8, size - 8);
    code[size - 8] = '\0';

    char err[128];
    fo_numfmt *f = fo_numfmt_compile(code, err, sizeof err);
    if (!f && strlen(err) == 0) abort(); /* every refusal has a reason */
    static char big[1 << 16], small[7];
    size_t n = fo_numfmt_format(f, v, big, sizeof big);
    if (n < sizeof big && strlen(big) != n) abort();
    if (fo_numfmt_format(f, v, small, sizeof small) != n) abort();
    if (strlen(small) != (n < sizeof small ? n : sizeof small - 1)) abort();
    if (fo_numfmt_format(f, v, NULL, 0) != n) abort();
    n = fo_numfmt_format_text(f, "text", big, sizeof big);
    if (n < sizeof big && strlen(big) != n) abort();
    fo_numfmt_is_date(f);
    fo_numfmt_is_general(f);
    fo_numfmt_free(f);
    free(code);
    return 0;
}
