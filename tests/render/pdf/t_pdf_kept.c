/* t_pdf_kept.c — the identity ToUnicode map's compressed bytes, kept for the
 * process (render/pdf/deflate.c, fo_pdf_deflate_constant): a PDF rendered
 * after them is the PDF rendered before them, byte for byte, also after a
 * render whose maps were not the identity (shaped Arabic: codes taken), and
 * the maps inflate (zlib, an independent reader) to the identity text. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "folio.h"
#include "base/buf.h"
#include "tests/check_run.h"

static const char plain[] =
    "{\"folio\": 1, \"title\": \"Kept\", \"blocks\": [{\"type\": \"heading\", \"text\": \"Monthly revenue\"},"
    " {\"type\": \"paragraph\", \"text\": \"Revenue grew in every region.\"}]}";
static const char arabic[] = "{\"folio\": 1, \"title\": \"Kept\", \"blocks\": [{\"type\": \"heading\", "
                             "\"text\": \"\xd8\xa7\xd9\x84\xd8\xa5"
                             "\xd9\x8a\xd8\xb1\xd8\xa7\xd8\xaf\xd8\xa7\xd8\xaa\"}, {\"type\": \"paragraph\", "
                             "\"text\": \"\xd9\x86\xd9\x85"
                             "\xd9\x88 \xd8\xa7\xd9\x84\xd8\xb7\xd9\x84\xd8\xa8\"}]}";

/* The spec rendered to a PDF in a fresh folder: the file's bytes. */
static fo_buf render(const char *spec)
{
    char dir[] = "/tmp/t_pdf_kept.XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.pdf", dir);
    fo_doc *doc = NULL;
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_spec_parse(spec, strlen(spec), "spec.json", ".", &doc, &d), FO_OK);
    const char *outs[] = {path};
    fo_render_opts opts = {0};
    ck_assert_int_eq(fo_render(doc, outs, 1, &opts, NULL, &d), FO_OK);
    fo_doc_free(doc);
    fo_diags_free(&d);
    fo_buf b = {0};
    b.data = fo_file_read(path, 0, &b.len);
    b.cap = b.len + 1;
    ck_assert_ptr_nonnull(b.data);
    unlink(path);
    rmdir(dir);
    return b;
}

/* How many of the PDF's streams inflate to a ToUnicode map, and how many
 * of those are the identity (no bfchar entries, the last range of the BMP). */
static void count_maps(const fo_buf *pdf, int *maps, int *identity)
{
    *maps = *identity = 0;
    static unsigned char text[1 << 16];
    const char *p = pdf->data, *end = pdf->data + pdf->len;
    while ((p = memmem(p, (size_t)(end - p), "stream\r\n", 8))) {
        p += 8;
        z_stream z = {0};
        ck_assert_int_eq(inflateInit(&z), Z_OK);
        z.next_in = (unsigned char *)p;
        z.avail_in = (uInt)(end - p);
        z.next_out = text;
        z.avail_out = sizeof text - 1;
        int rc = inflate(&z, Z_FINISH);
        size_t n = sizeof text - 1 - z.avail_out;
        inflateEnd(&z);
        if (rc != Z_STREAM_END) continue; /* not deflated (the XMP) */
        text[n] = '\0';
        if (strncmp((char *)text, "/CIDInit", 8)) continue;
        (*maps)++;
        if (!strstr((char *)text, "beginbfchar") && strstr((char *)text, "<FF00> <FFFF> <FF00>\n"))
            (*identity)++;
    }
}

START_TEST(kept_map_gives_the_same_bytes)
{
    fo_buf first = render(plain), again = render(plain);
    int maps, identity;
    count_maps(&first, &maps, &identity);
    ck_assert_int_ge(maps, 2); /* the heading's bold font and the text's */
    ck_assert_int_eq(identity, maps);
    ck_assert_uint_eq(again.len, first.len);
    ck_assert_mem_eq(again.data, first.data, first.len);

    fo_buf shaped = render(arabic);
    count_maps(&shaped, &maps, &identity);
    ck_assert_int_ge(maps, 1);
    ck_assert_int_lt(identity, maps); /* a font with shaped glyphs: not the kept map */
    fo_buf after = render(plain);
    ck_assert_uint_eq(after.len, first.len);
    ck_assert_mem_eq(after.data, first.data, first.len);

    fo_buf_free(&first);
    fo_buf_free(&again);
    fo_buf_free(&shaped);
    fo_buf_free(&after);
}
END_TEST

int main(void)
{
    return fo_check_tests("pdf_kept", 60, (const TTest *[]){kept_map_gives_the_same_bytes, NULL});
}
