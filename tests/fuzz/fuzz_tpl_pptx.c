/* fuzz_tpl_pptx.c — libFuzzer target: arbitrary bytes as a --template .pptx
 * (see fuzz_tpl.h for the input format). */
#include "tests/fuzz/fuzz_tpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_tpl_run(data, size, "pptx");
    return 0;
}
