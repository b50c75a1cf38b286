/* linebreak.c — UAX #14 break opportunities through libunibreak (linebreak.h). */
#include <pthread.h>

#include <linebreak.h>

#include <string.h>

#include "folio.h"
#include "render/core/utf8.h"
#include "render/core/linebreak.h"
#include "render/core/text.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void) { init_linebreak(); }

char *fo_linebreaks(const char *utf8, size_t len)
{
    size_t i = 0;
    while (i < len && (unsigned char)utf8[i] < 0x80) i++;
    if (i == len) return NULL;
    char *brks = fo_malloc(len), *clean = fo_malloc(len);
    if (!brks || !clean) { fo_free(brks); fo_free(clean); return NULL; }
    /* libunibreak asserts on malformed UTF-8 (found by fuzz_text): each
       invalid byte becomes '?', which keeps every offset where it was */
    memcpy(clean, utf8, len);
    for (size_t k = 0; k < len;) {
        size_t at = k;
        fo_utf8_next(clean, len, &k);
        if (k == at + 1 && (unsigned char)clean[at] >= 0x80) clean[at] = '?';
    }
    pthread_once(&once, init);
    set_linebreaks_utf8((const utf8_t *)clean, len, NULL, brks);
    fo_free(clean);
    return brks;
}

bool fo_linebreak_after(const char *brks, size_t i)
{
    return brks && brks[i] == LINEBREAK_ALLOWBREAK;
}
