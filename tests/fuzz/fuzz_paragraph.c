/* fuzz_paragraph.c — libFuzzer target for the PDF text layout of any text
 * with inline markup: paragraph bidi (render/core/bidi.c: levels over the
 * whole paragraph, each line's pieces reordered and shaped by level),
 * wrapping, links, colour emoji (render/pdf/emoji.c), right-to-left list
 * items and table cells. Input: the text's bytes, decoded as UTF-8 (an
 * invalid byte is U+FFFD) and written into a spec as JSON escapes, used as a
 * heading, a paragraph, a list item and a table cell; rendered to PDF. No
 * invariant beyond "no crash, no sanitizer report". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folio.h"
#include "base/utf8.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* data as the body of a JSON string: every code point escaped */
static char *escaped(const unsigned char *data, size_t size)
{
    char *out = malloc(size * 12 + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < size;) {
        uint32_t cp = fo_utf8_next((const char *)data, size, &i);
        if (cp == 0) cp = ' ';
        if (cp > 0xFFFF) {
            cp -= 0x10000;
            o += sprintf(o, "\\u%04X\\u%04X", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            o += sprintf(o, "\\u%04X", cp);
        }
    }
    *o = 0;
    return out;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static char dir[64];
    if (size > 4096) return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz_paragraph-%d", (int)getpid());
        if (mkdir(dir, 0700) != 0) abort();
    }
    char *t = escaped(data, size);
    size_t cap = strlen(t) * 4 + 512;
    char *spec = t ? malloc(cap) : NULL;
    if (!spec) { free(t); return 0; }
    int n = snprintf(spec, cap,
        "{\"folio\": 1, \"blocks\": [{\"type\": \"heading\", \"text\": \"%s\"},"
        " {\"type\": \"paragraph\", \"text\": \"%s\"},"
        " {\"type\": \"list\", \"items\": [\"%s\"]},"
        " {\"type\": \"table\", \"data\": {\"columns\": [\"k\", \"v\"], \"rows\": [[\"%s\", 1]]}}]}",
        t, t, t, t);
    char pdf[128];
    snprintf(pdf, sizeof pdf, "%s/o.pdf", dir);
    const char *outs[] = {pdf};
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    if (n > 0 && (size_t)n < cap && fo_spec_parse(spec, (size_t)n, "spec.json", dir, &doc, &d) == FO_OK)
        (void)fo_render(doc, outs, 1, NULL, NULL, &d);
    fo_doc_free(doc);
    fo_diags_free(&d);
    unlink(pdf);
    free(spec);
    free(t);
    return 0;
}
