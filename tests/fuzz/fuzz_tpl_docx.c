/* fuzz_tpl_docx.c — libFuzzer target: arbitrary bytes as a --template .docx
 * (see fuzz_tpl.h for the input format). */
#include "tests/fuzz/fuzz_tpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_tpl_run(data, size, "docx");
    return 0;
}
