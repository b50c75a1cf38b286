/* fuzz_markup.c — libFuzzer target: any bytes parse into well-formed runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/core/markup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    if (!src) return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    size_t n = strlen(src);

    fo_runs r;
    if (fo_markup_parse(src, &r) == FO_OK) {
        size_t total = 0;
        for (size_t i = 0; i < r.n; i++) {
            const fo_run *u = &r.runs[i];
            if (u->len == 0 || strlen(u->text) != u->len) abort();
            if (u->flags & ~(unsigned)(FO_RUN_BOLD | FO_RUN_ITALIC | FO_RUN_CODE)) abort();
            total += u->len;
        }
        if (total > n) abort(); /* markup only ever removes bytes */
        fo_runs_free(&r);
    }
    char *p = fo_markup_plain(src);
    if (p && strlen(p) > n) abort();
    fo_free(p);
    free(src);
    return 0;
}
