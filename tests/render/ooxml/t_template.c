/* t_template.c — the template reader (render/ooxml/template.h): part-name
 * resolution and relative targets, entry names refused at open, the
 * decompression caps with a running count, DTDs refused, relationships
 * dropped (external non-web, leaving the package, a repeated Id). Packages are written
 * here with libzip. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "render/ooxml/template.h"
#include "tests/check_run.h"

/* Writes a zip of name/content pairs (NULL-terminated) to a temporary path. */
static const char *make_zip(const char *const *kv)
{
    static char path[64];
    strcpy(path, "/tmp/t_template_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    zip_t *za = zip_open(path, ZIP_TRUNCATE, NULL);
    ck_assert_ptr_nonnull(za);
    for (size_t i = 0; kv[i]; i += 2) {
        zip_source_t *s = zip_source_buffer(za, kv[i + 1], strlen(kv[i + 1]), 0);
        ck_assert_int_ge(zip_file_add(za, kv[i], s, ZIP_FL_ENC_UTF_8), 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
    return path;
}

/* Opens the package of kv (which must open); *path for unlinking. */
static fo_tpl *open_ok(const char *const *kv, fo_diags *d, const char **path)
{
    *path = make_zip(kv);
    fo_diags_init(d);
    fo_tpl *t = NULL;
    ck_assert_int_eq(fo_tpl_open(*path, &t, d), FO_OK);
    return t;
}

/* fo_tpl_open's status on that package, and its first message in msg. */
static fo_status open_status(const char *const *kv, char *msg, size_t cap)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_tpl *t = NULL;
    const char *path = make_zip(kv);
    fo_status st = fo_tpl_open(path, &t, &d);
    snprintf(msg, cap, "%s", d.n ? d.items[0].message : "");
    fo_tpl_free(t);
    fo_diags_free(&d);
    unlink(path);
    return st;
}

START_TEST(resolve_targets)
{
    char out[300];
    ck_assert(fo_tpl_resolve("word/document.xml", "header1.xml", out, sizeof out));
    ck_assert_str_eq(out, "word/header1.xml");
    ck_assert(fo_tpl_resolve("ppt/slideMasters/m.xml", "../slideLayouts/./l1.xml", out, sizeof out));
    ck_assert_str_eq(out, "ppt/slideLayouts/l1.xml");
    ck_assert(fo_tpl_resolve("word/document.xml", "/word/media/a.png", out, sizeof out));
    ck_assert_str_eq(out, "word/media/a.png");
    ck_assert(fo_tpl_resolve("", "ppt/presentation.xml", out, sizeof out));
    ck_assert_str_eq(out, "ppt/presentation.xml");
    ck_assert(!fo_tpl_resolve("word/document.xml", "../../etc/passwd", out, sizeof out));
    ck_assert(!fo_tpl_resolve("word/document.xml", "..", out, sizeof out));
    ck_assert(!fo_tpl_resolve("word/document.xml", "a\\b.xml", out, sizeof out));
    ck_assert(!fo_tpl_resolve("word/document.xml", "x.", out, sizeof out));
    ck_assert(!fo_tpl_resolve("word/document.xml", "media/", out, sizeof out));
    ck_assert(!fo_tpl_resolve("word/document.xml", "a.xml", out, 6)); /* too long for out */
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert(!fo_tpl_resolve("word/document.xml", big, out, sizeof out));
    fo_tpl_relative("ppt/slides/s.xml", "ppt/slideLayouts/l.xml", out, sizeof out);
    ck_assert_str_eq(out, "../slideLayouts/l.xml");
    fo_tpl_relative("ppt/presentation.xml", "ppt/slideMasters/m.xml", out, sizeof out);
    ck_assert_str_eq(out, "slideMasters/m.xml");
    fo_tpl_relative("ppt/slideLayouts/a.xml", "ppt/slideLayouts/b.xml", out, sizeof out);
    ck_assert_str_eq(out, "b.xml");
    ck_assert_str_eq(fo_tpl_picture_type("ppt/media/x.JPG"), "image/jpeg");
    ck_assert_ptr_null(fo_tpl_picture_type("ppt/media/x.bin"));
    ck_assert_ptr_null(fo_tpl_picture_type("ppt/media.png/x"));
    char ext[8];
    ck_assert_str_eq(fo_tpl_picture_ext("ppt/media/x.PNG", ext, sizeof ext), "png");
    ck_assert_str_eq(fo_tpl_picture_ext("ppt/media.d/x", ext, sizeof ext), "");
    ck_assert_str_eq(fo_tpl_picture_ext("x.abcdefghijk", ext, sizeof ext), "abcdefg");
}
END_TEST

START_TEST(entry_names)
{
    char msg[300];
    const char *ok[] = {"word/document.xml", "<a/>", "word/", "", "word/ü.xml", "<a/>", NULL};
    ck_assert_int_eq(open_status(ok, msg, sizeof msg), FO_OK);
    const char *bad[][3] = {{"word/../x.xml", "\".\" or \"..\"", NULL},
                            {"/abs.xml", "leading '/'", NULL},
                            {"a\\b.xml", "backslash", NULL},
                            {"a//b.xml", "empty segment", NULL},
                            {"a/./b.xml", "\".\" or \"..\"", NULL},
                            {"a/b..", "ending in '.'", NULL},
                            {"a\tb.xml", "control character", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *kv[] = {bad[i][0], "<a/>", NULL};
        ck_assert_int_eq(open_status(kv, msg, sizeof msg), FO_ERR_INPUT);
        ck_assert_msg(strstr(msg, "is not a valid part name") && strstr(msg, bad[i][1]), "%s", msg);
    }
    const char *twins[] = {"word/styles.xml", "<a/>", "WORD/Styles.xml", "<a/>", NULL};
    ck_assert_int_eq(open_status(twins, msg, sizeof msg), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(msg, "name the same part"));
}
END_TEST

START_TEST(caps_and_dtd)
{
    size_t n = FO_TPL_XML_MAX + 1;
    char *huge = malloc(n + 1);
    memset(huge, ' ', n);
    memcpy(huge, "<a>", 3);
    huge[n] = '\0';
    const char *dtd = "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>";
    const char *kv[] = {"big.xml", huge, "exact.bin", huge + 1, "dtd.xml", dtd,
                        "ok.xml", "<r><c x='1'/></r>", "bad.xml", "<r><c></r>", NULL};
    const char *path;
    fo_diags d;
    fo_tpl *t = open_ok(kv, &d, &path);
    free(huge);
    xmlDocPtr doc;
    char *data;
    size_t len;
    ck_assert_int_eq(fo_tpl_xml(t, "missing.xml", &doc, &data, &len), FO_OK);
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(fo_tpl_xml(t, "ok.xml", &doc, &data, &len), FO_OK);
    ck_assert_str_eq(data, "<r><c x='1'/></r>");
    char v[8];
    ck_assert_str_eq(fo_tpl_attr(fo_tpl_child(xmlDocGetRootElement(doc), "c"), "x", v, sizeof v), "1");
    xmlFreeDoc(doc);
    fo_free(data);
    ck_assert_int_eq(fo_tpl_xml(t, "big.xml", &doc, NULL, NULL), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(d.items[d.n - 1].message, "part big.xml decompresses to more than 8 MiB"));
    ck_assert_int_eq(fo_tpl_read(t, "exact.bin", FO_TPL_XML_MAX, &data, &len), FO_OK); /* at the cap */
    ck_assert_uint_eq(len, FO_TPL_XML_MAX);
    fo_free(data);
    ck_assert_int_eq(fo_tpl_xml(t, "dtd.xml", &doc, NULL, NULL), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(d.items[d.n - 1].message, "part dtd.xml has a DTD"));
    ck_assert_int_eq(fo_tpl_xml(t, "bad.xml", &doc, NULL, NULL), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(d.items[d.n - 1].message, "part bad.xml is not well-formed XML (line 1:"));
    fo_tpl_free(t);
    fo_diags_free(&d);
    unlink(path);
}
END_TEST

START_TEST(total_cap)
{
    size_t n = 7u << 20;
    char *pic = malloc(n + 1);
    memset(pic, 'x', n);
    pic[n] = '\0';
    const char *kv[] = {"a.png", pic, NULL};
    const char *path;
    fo_diags d;
    fo_tpl *t = open_ok(kv, &d, &path);
    free(pic);
    fo_status st = FO_OK;
    int reads = 0;
    while (st == FO_OK && reads < 20) {
        char *data;
        st = fo_tpl_read(t, "a.png", FO_TPL_PART_MAX, &data, NULL);
        fo_free(data);
        reads++;
    }
    ck_assert_int_eq(st, FO_ERR_INPUT);
    ck_assert_int_eq(reads, (int)(FO_TPL_TOTAL_MAX / n) + 1);
    ck_assert_ptr_nonnull(strstr(d.items[0].message, "goes over 64 MiB for the whole template"));
    fo_tpl_free(t);
    fo_diags_free(&d);
    unlink(path);
}
END_TEST

START_TEST(relationships)
{
    const char *rels =
        "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
        "<Relationship Id=\"rId1\" Type=\"t/header\" Target=\"header1.xml\"/>"
        "<Relationship Id=\"rId2\" Type=\"t/image\" Target=\"file:///etc/passwd\" TargetMode=\"External\"/>"
        "<Relationship Id=\"rId3\" Type=\"t/hyperlink\" Target=\"https://example.com/\" TargetMode=\"External\"/>"
        "<Relationship Id=\"rId4\" Type=\"t/hyperlink\" Target=\"file:///x\" TargetMode=\"External\"/>"
        "<Relationship Id=\"rId5\" Type=\"t/image\" Target=\"../../../tmp/x.png\"/>"
        "<Relationship Id=\"rId6\" Type=\"t/theme\" Target=\"/word/theme/theme1.xml\"/>"
        "<Relationship Id=\"rId1\" Type=\"t/footer\" Target=\"footer1.xml\"/>"
        "</Relationships>";
    const char *kv[] = {"word/_rels/document.xml.rels", rels, "bad/_rels/x.xml.rels", "<Relationships", NULL};
    const char *path;
    fo_diags d;
    fo_tpl *t = open_ok(kv, &d, &path);
    fo_tpl_rels r;
    ck_assert_int_eq(fo_tpl_rels_read(t, "word/document.xml", &r), FO_OK);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_str_eq(r.items[0].target, "word/header1.xml");
    ck_assert(!r.items[0].external);
    ck_assert_str_eq(r.items[1].id, "rId3");
    ck_assert(r.items[1].external);
    ck_assert_str_eq(fo_tpl_rel_typed(&r, "theme")->target, "word/theme/theme1.xml");
    ck_assert_ptr_null(fo_tpl_rel_typed(&r, "hyperlink")); /* internal ones only */
    ck_assert_ptr_null(fo_tpl_rel_find(&r, "rId2"));
    ck_assert_str_eq(fo_tpl_rel_find(&r, "rId1")->type, "t/header"); /* the repeated rId1 dropped */
    fo_tpl_rels_free(&r);
    ck_assert_int_eq(fo_tpl_rels_read(t, "none.xml", &r), FO_OK);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_int_eq(fo_tpl_rels_read(t, "bad/x.xml", &r), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(d.items[d.n - 1].message, "part bad/_rels/x.xml.rels is not well-formed XML"));
    fo_tpl_free(t);
    fo_diags_free(&d);
    unlink(path);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        resolve_targets,
        entry_names,
        caps_and_dtd,
        total_cap,
        relationships,
        NULL,
    };
    return fo_check_tests("ooxml template reader", 60, tests);
}
