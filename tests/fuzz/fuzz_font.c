/* fuzz_font.c — libFuzzer target for a theme's own TrueType file: a theme
 * may name font files of its folder (formats/theme.c), which then reach
 * FreeType and HarfBuzz (measuring, shaping, PNG drawing), libharu (PDF) and
 * folio's own readers of font tables (render/pdf/cmap.c, closure.c,
 * subset.c). Input: the font file's bytes. A fixed spec in a fixed theme
 * uses it for body and headings (regular and bold) in a heading, a
 * paragraph with Latin, digits, an accented and a composed letter, a table
 * and a chart, rendered to PDF and PNG. No invariant beyond "no crash, no
 * sanitizer report": a broken font gives an error or boxes, never a fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folio.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char theme[] =
    "{\"folio_theme\": 1, \"name\": \"fuzz\", \"fonts\": {"
    "\"body\": {\"family\": \"Fuzz\", \"files\": {\"regular\": \"f.ttf\", \"bold\": \"f.ttf\"}},"
    "\"heading\": {\"family\": \"Fuzz\", \"files\": {\"regular\": \"f.ttf\", \"bold\": \"f.ttf\"}}}}";

static const char spec[] =
    "{\"folio\": 1, \"theme\": \"t.json\", \"title\": \"Fuzz\","
    " \"data\": {\"d\": {\"columns\": [{\"name\": \"k\", \"type\": \"text\"}, {\"name\": \"v\", \"type\": \"number\"}],"
    " \"rows\": [[\"Hello\", 12345.67], [\"\\u00e9t\\u00e9 \\u01fa\", -3]]}},"
    " \"blocks\": [{\"type\": \"heading\", \"text\": \"Hello 12,345\"},"
    " {\"type\": \"paragraph\", \"text\": \"Hello **world** 12,345.67 \\u00e9 \\u01fa \\u0634\\u0627\\u064a\"},"
    " {\"type\": \"table\", \"data\": \"d\"},"
    " {\"type\": \"chart\", \"kind\": \"bar\", \"data\": \"d\", \"x\": \"k\", \"y\": [\"v\"], \"title\": \"Hello\"}]}";

static char dir[64];

static int write_file(const char *name, const void *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz_font-%d", (int)getpid());
        if (mkdir(dir, 0700) != 0 || write_file("t.json", theme, sizeof theme - 1) != 0) abort();
    }
    if (write_file("f.ttf", data, size) != 0) abort();
    char pdf[128], png[128];
    snprintf(pdf, sizeof pdf, "%s/o.pdf", dir);
    snprintf(png, sizeof png, "%s/o.png", dir);
    const char *outs[] = { pdf, png };
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    if (fo_spec_parse(spec, sizeof spec - 1, "spec.json", dir, &doc, &d) == FO_OK)
        (void)fo_render(doc, outs, 2, NULL, NULL, &d);
    fo_doc_free(doc);
    fo_diags_free(&d);
    unlink(pdf);
    unlink(png);
    fo_render_forget_fonts();   /* the next input rewrites f.ttf: read it afresh */
    return 0;
}
