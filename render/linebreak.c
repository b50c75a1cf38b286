/* linebreak.c — UAX #14 break opportunities through libunibreak (linebreak.h). */
#include <pthread.h>

#include <linebreak.h>

#include "folio.h"
#include "render/linebreak.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void) { init_linebreak(); }

char *fo_linebreaks(const char *utf8, size_t len)
{
    size_t i = 0;
    while (i < len && (unsigned char)utf8[i] < 0x80) i++;
    if (i == len) return NULL;
    char *brks = fo_malloc(len);
    if (!brks) return NULL;
    pthread_once(&once, init);
    set_linebreaks_utf8((const utf8_t *)utf8, len, NULL, brks);
    return brks;
}

bool fo_linebreak_after(const char *brks, size_t i)
{
    return brks && brks[i] == LINEBREAK_ALLOWBREAK;
}
