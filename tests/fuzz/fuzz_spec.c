/* fuzz_spec.c — libFuzzer target: arbitrary bytes through the spec reader
 * (JSON parsing, validation, located errors, inline datasets). Paths resolve
 * in an empty folder, so no file is read. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "folio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    if (!made) { mkdir("/tmp/folio-fuzz-empty", 0700); made = 1; }
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    fo_spec_parse((const char *)data, size, "fuzz.json", "/tmp/folio-fuzz-empty", &doc, &d);
    for (size_t i = 0; i < d.n; i++) free(fo_diag_format(&d.items[i]));
    fo_doc_free(doc);
    fo_diags_free(&d);
    return 0;
}
