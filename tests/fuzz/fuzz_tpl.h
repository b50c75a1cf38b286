/* fuzz_tpl.h — shared by the template fuzz targets (fuzz_tpl_docx.c,
 * fuzz_tpl_pptx.c, fuzz_tpl_xlsx.c): the input becomes a template package
 * and a small document is rendered with it (--template), through the whole
 * reader: names, caps, XML, relationships, merging, packaging.
 *
 * Input: a zip as is when it starts with "PK\3\4"; otherwise part names and
 * contents separated by NUL bytes (name\0content\0name\0content...), zipped
 * here so that mutations reach the XML and the names rather than die on a
 * CRC. The seeds (tests/fuzz/seeds/fuzz_tpl_*) are real templates in that form.
 * Files go to /dev/shm when it exists (a render writes its output each run),
 * and are removed at exit. */
#ifndef FO_FUZZ_TPL_H
#define FO_FUZZ_TPL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "folio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_spec[] =
    "{\"folio\": 1, \"title\": \"T\", \"data\": {\"s\": {\"columns\": [\"k\", {\"name\": \"v\", \"type\": \"number\"}],"
    " \"rows\": [[\"a\", 1], [\"b\", 2]]}}, \"blocks\": ["
    "{\"type\": \"heading\", \"text\": \"H\", \"level\": 1},"
    "{\"type\": \"paragraph\", \"text\": \"p **b**\"},"
    "{\"type\": \"list\", \"ordered\": true, \"items\": [\"one\", \"two\"]},"
    "{\"type\": \"table\", \"data\": \"s\"}]}";

/* Writes the input as a zip at path; false when it cannot. */
static int fuzz_tpl_zip(const uint8_t *data, size_t size, const char *path)
{
    if (size >= 4 && memcmp(data, "PK\3\4", 4) == 0) {
        FILE *f = fopen(path, "wb");
        if (!f) return 0;
        fwrite(data, 1, size, f);
        return fclose(f) == 0;
    }
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, NULL);
    if (!za) return 0;
    const char *p = (const char *)data, *end = p + size;
    char name[512];
    while (p < end) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) break;
        snprintf(name, sizeof name, "%.*s", (int)(nul - p), p);
        const char *c = nul + 1, *cend = memchr(c, 0, (size_t)(end - c));
        if (!cend) cend = end;
        zip_source_t *src = zip_source_buffer(za, c, (zip_uint64_t)(cend - c), 0);
        zip_int64_t i = src ? zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8) : -1;
        if (src && i < 0) zip_source_free(src);
        else if (i >= 0) zip_set_file_compression(za, (zip_uint64_t)i, ZIP_CM_STORE, 0); /* deflating costs 10x the run */
        p = cend + 1;
    }
    return zip_close(za) == 0 || (zip_discard(za), 0);
}

static char fuzz_dir[64], fuzz_tpl[96], fuzz_out[96];

static void fuzz_tpl_cleanup(void)
{
    unlink(fuzz_tpl);
    unlink(fuzz_out);
    rmdir(fuzz_dir);
}

/* The template's path (made once per process, removed at exit). */
static const char *fuzz_tpl_path(const char *ext)
{
    if (!fuzz_dir[0]) {
        struct stat st;
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/folio-fuzz-tpl-%d",
                 stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
        mkdir(fuzz_dir, 0700);
        snprintf(fuzz_tpl, sizeof fuzz_tpl, "%s/template.%s", fuzz_dir, ext);
        snprintf(fuzz_out, sizeof fuzz_out, "%s/out.%s", fuzz_dir, ext);
        atexit(fuzz_tpl_cleanup);
    }
    return fuzz_tpl;
}

/* Renders the small document to out.ext with the input as its template. */
__attribute__((unused)) static void fuzz_tpl_run(const uint8_t *data, size_t size, const char *ext)
{
    static fo_doc *doc;
    const char *tpl = fuzz_tpl_path(ext), *out = fuzz_out, *dir = fuzz_dir;
    fo_diags d;
    fo_diags_init(&d);
    if (!doc) {
        if (fo_spec_parse(fuzz_spec, sizeof fuzz_spec - 1, "fuzz.json", dir, &doc, &d) != FO_OK) abort();
    }
    if (fuzz_tpl_zip(data, size, tpl)) {
        const char *outs[] = {out};
        fo_render_opts opts = {.template_path = tpl};
        fo_render(doc, outs, 1, &opts, NULL, &d);
    }
    for (size_t i = 0; i < d.n; i++) free(fo_diag_format(&d.items[i]));
    fo_diags_free(&d);
}

#endif
