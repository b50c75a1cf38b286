/* t_package.c — the OOXML package writer and XML writer (render/ooxml):
 * sanitizing, exact generated XML, entry order, 1980 stamps, determinism,
 * sticky errors and allocation failures; archives read back with libzip. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "formats/theme.h"
#include "render/ooxml/package.h"
#include "tests/check_run.h"

/* ---- helpers --------------------------------------------------------------- */

static char *tmp_path(void)
{
    static char p[8][40];
    static int n;
    char *s = p[n++ % 8];
    strcpy(s, "/tmp/t_package_XXXXXX");
    int fd = mkstemp(s);
    ck_assert_int_ge(fd, 0);
    close(fd);
    return s;
}

/* Entry i of the archive at path: name and content (caller frees). */
static char *entry(const char *path, zip_uint64_t i, const char **name, time_t *mtime)
{
    zip_t *za = zip_open(path, ZIP_RDONLY, NULL);
    ck_assert_ptr_nonnull(za);
    zip_stat_t st;
    ck_assert_int_eq(zip_stat_index(za, i, 0, &st), 0);
    static char namebuf[256];
    snprintf(namebuf, sizeof namebuf, "%s", st.name);
    if (name) *name = namebuf;
    if (mtime) *mtime = st.mtime;
    ck_assert_int_eq(st.comp_method, ZIP_CM_DEFLATE);
    char *buf = calloc(1, st.size + 1);
    zip_file_t *f = zip_fopen_index(za, i, 0);
    ck_assert_int_eq(zip_fread(f, buf, st.size), (zip_int64_t)st.size);
    zip_fclose(f);
    zip_close(za);
    return buf;
}

static long entries(const char *path)
{
    zip_t *za = zip_open(path, ZIP_RDONLY, NULL);
    ck_assert_ptr_nonnull(za);
    long n = (long)zip_get_num_entries(za, 0);
    zip_close(za);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *b = malloc(*len + 1);
    ck_assert_uint_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* The files at a and b hold the same bytes. */
static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *da = slurp(a, &la), *db = slurp(b, &lb);
    ck_assert_uint_eq(la, lb);
    ck_assert(memcmp(da, db, la) == 0);
    free(da);
    free(db);
}

/* When set, finish closes into memory (fo_pkg_close_memory) here, through
 * libzip when via_libzip. */
static struct {
    bool on, via_libzip;
    void *data;
    size_t len;
} mem;

/* Adds the default theme as part theme, closes and frees the package. */
static fo_status finish(fo_pkg *p, const char *theme)
{
    fo_theme t;
    fo_theme_default(&t);
    fo_pkg_add_theme(p, theme, &t, NULL);
    fo_diags d;
    fo_diags_init(&d);
    if (mem.via_libzip) fo_pkg__via_libzip(p);
    fo_status st = mem.on ? fo_pkg_close_memory(p, &mem.data, &mem.len, &d) : fo_pkg_close(p, &d);
    fo_pkg_free(p);
    fo_diags_free(&d);
    return st;
}

/* A small package: a big file-backed part, a template, rels, properties. */
static fo_status build(const char *path, bool check_ids)
{
    fo_doc doc = {0};
    char title[] = "Q3 <review> & \"more\"", author[] = "Finance\x01 analytics";
    doc.title = title;
    doc.author = author;
    doc.epoch = 1790726400; /* 2026-09-30T00:00:00Z */
    fo_pkg *p = fo_pkg_new(path);
    fo_pkg_add_rel(p, "", FO_REL_OFFICE_DOCUMENT, "word/document.xml", false);
    fo_pkg_add_core_props(p, &doc);
    fo_xml *x = fo_xml_new_file();
    fo_xml_open(x, "w:document", "xmlns:w", "urn:w", NULL);
    for (int i = 0; i < 20000; i++) fo_xml_text_elem(x, "w:t", "row text \xff bad");
    fo_xml_close(x);
    fo_pkg_add_xml(p, "word/document.xml", "application/test+xml", x);
    const char *rid = fo_pkg_add_rel(p, "word/document.xml", FO_REL_HYPERLINK,
                                     "https://example.com/?a=1&b=2", true);
    const char *rid2 = fo_pkg_add_rel(p, "word/document.xml", FO_REL_IMAGE, "media/i.png", false);
    if (check_ids) {
        ck_assert_str_eq(rid, "rId1");
        ck_assert_str_eq(rid2, "rId2");
    }
    fo_pkg_add_default(p, "png", FO_CT_PNG);
    fo_pkg_add_part(p, "word/media/i.png", NULL, "\x89PNG", 4);
    return finish(p, "word/theme/theme1.xml");
}

/* When set, build_deck's package deflates its parts ahead (a second thread). */
static bool ahead_on;

/* A deck-like package: 60 slides written in memory, a copied and a taken
 * picture, a file-backed part and a template; limit: bytes held in memory
 * before parts go to the spill file ((size_t)-1: the default). */
static fo_status build_deck(const char *path, size_t limit)
{
    fo_pkg *p = fo_pkg_new(path);
    if (ahead_on) fo_pkg_deflate_ahead(p);
    if (limit != (size_t)-1) fo_pkg__set_held_limit(p, limit);
    char name[64], text[64];
    for (int i = 1; i <= 60; i++) {
        fo_xml *x = fo_xml_new_memory();
        fo_xml_open(x, "p:sld", "xmlns:p", "urn:p", NULL);
        for (int k = 0; k < 40 * i; k++) {
            snprintf(text, sizeof text, "slide %d cell %d", i, k);
            fo_xml_text_elem(x, "a:t", text);
        }
        fo_xml_close(x);
        snprintf(name, sizeof name, "ppt/slides/slide%d.xml", i);
        fo_pkg_add_xml(p, name, "application/slide+xml", x);
        fo_pkg_add_rel(p, "ppt/presentation.xml", "slide", name + 4, false);
    }
    fo_pkg_add_default(p, "png", FO_CT_PNG);
    fo_pkg_add_part(p, "ppt/media/a.png", NULL, "\x89PNG copied", 12);
    char *taken = fo_malloc(5000);
    if (taken) memset(taken, 'z', 5000);
    if (taken) fo_pkg_add_part_take(p, "ppt/media/b.png", NULL, taken, 5000);
    fo_xml *f = fo_xml_new_file();
    fo_xml_open(f, "p:presentation", "xmlns:p", "urn:p", NULL);
    fo_xml_text_elem(f, "p:x", "file-backed");
    fo_xml_close(f);
    fo_pkg_add_xml(p, "ppt/presentation.xml", "application/pres+xml", f);
    return finish(p, "ppt/theme/theme1.xml");
}

/* ---- tests ------------------------------------------------------------------------ */

START_TEST(sanitize)
{
    char out[64];
    ck_assert_uint_eq(fo_xml_sanitize("a\x01" "b\x0b" "c\td\n", 8, out), 6);
    ck_assert_str_eq(out, "abc\td\n");
    fo_xml_sanitize("x\xff" "y", 3, out); /* invalid byte -> U+FFFD */
    ck_assert_str_eq(out, "x\xEF\xBF\xBDy");
    fo_xml_sanitize("\xEF\xBF\xBE" "z\xEF\xBF\xBF", 7, out); /* U+FFFE/FFFF dropped */
    ck_assert_str_eq(out, "z");
    fo_xml_sanitize("\xED\xA0\x80", 3, out); /* a surrogate is invalid UTF-8 */
    ck_assert_str_eq(out, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    fo_xml_sanitize("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80", 9, out); /* é 日 😀 kept */
    ck_assert_str_eq(out, "\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80");
    fo_xml_sanitize("\xC3", 1, out); /* truncated sequence */
    ck_assert_str_eq(out, "\xEF\xBF\xBD");
    ck_assert(fo_xml_is_clean("plain \xC3\xA9", 8));
    ck_assert(!fo_xml_is_clean("a\x1f", 2));
}
END_TEST

START_TEST(xml_writer)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "a", "k", "v<\"&", "skip", NULL, "n", "1", NULL);
    fo_xml_leaf(x, "b", NULL);
    fo_xml_text(x, "t\x02<&>");
    fo_xml_textn(x, "xyz", 2);
    fo_xml_attr_int(x, "late", 1); /* after content: an error, sticky */
    fo_xml_close(x);
    ck_assert_int_ne(fo_xml_status(x), FO_OK);
    fo_xml_free(x);

    x = fo_xml_new_memory();
    fo_xml_open(x, "a", "k", "v<\"&\x01", NULL);
    fo_xml_attrf(x, "f", "%d-%s", 7, "x");
    fo_xml_leaf(x, "b", NULL);
    fo_xml_text(x, "t\x02<&>");
    fo_xml_textn(x, "xyz", 2);
    fo_xml_close(x);
    fo_xml_finish(x);
    ck_assert_int_eq(fo_xml_status(x), FO_OK);
    const unsigned char *data;
    size_t len;
    void *fp;
    fo_xml__take_output(x, &data, &len, &fp);
    ck_assert_ptr_null(fp);
    ck_assert_str_eq((const char *)data,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                     "<a k=\"v&lt;&quot;&amp;\" f=\"7-x\"><b/>t&lt;&amp;&gt;xy</a>\n");
    fo_xml_free(x);
}
END_TEST

/* The bytes xmlTextWriter wrote (the writer xml.c replaced), pinned:
 * character references for tab, newline and CR in attribute values, only
 * CR in text; non-ASCII kept; invalid bytes U+FFFD; forbidden characters
 * dropped (a text left empty still ends its start tag); a file writer
 * past its flush size; negative and extreme integers; closing with
 * nothing open fails. */
START_TEST(xml_writer_bytes)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "p:sp", "name", "a\tb\nc\rd \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 >'", NULL);
    fo_xml_attr_int(x, "min", -9223372036854775807LL - 1);
    fo_xml_attr_int(x, "zero", 0);
    fo_xml_text_elem(x, "a:t", "a\tb\nc\rd\"'\xff\xc3 \xef\xbf\xbe!");
    fo_xml_text_elem(x, "a:t", "\x01\x02");
    fo_xml_text_elem(x, "a:t", "");
    fo_xml_solid_fill(x, 0x0A0B0C);
    fo_xml_raw(x, "<r/>", 4);
    fo_xml_open(x, "unclosed", NULL);
    fo_xml_finish(x);
    size_t len;
    const char *got = fo_xml_memory(x, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got,
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
        "<p:sp name=\"a&#9;b&#10;c&#13;d \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 &gt;'\""
        " min=\"-9223372036854775808\" zero=\"0\">"
        "<a:t>a\tb\nc&#13;d&quot;'\xef\xbf\xbd\xef\xbf\xbd !</a:t><a:t></a:t><a:t/>"
        "<a:solidFill><a:srgbClr val=\"0A0B0C\"/></a:solidFill><r/><unclosed/></p:sp>\n");
    ck_assert_uint_eq(len, strlen(got));
    fo_xml_free(x);

    x = fo_xml_new_memory();
    fo_xml_close(x); /* nothing open */
    ck_assert_int_ne(fo_xml_status(x), FO_OK);
    fo_xml_free(x);

    x = fo_xml_new_file(); /* 300,000 elements: flushed many times */
    fo_xml_open(x, "w:body", NULL);
    for (int i = 0; i < 300000; i++) fo_xml_leaf(x, "w:p", "i", "&", NULL);
    fo_xml_close(x);
    fo_xml_finish(x);
    ck_assert_int_eq(fo_xml_status(x), FO_OK);
    const unsigned char *data;
    void *fp;
    fo_xml__take_output(x, &data, &len, &fp);
    ck_assert_ptr_nonnull(fp);
    size_t head = strlen("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<w:body>");
    size_t each = strlen("<w:p i=\"&amp;\"/>"), total = 0, n;
    char chunk[8192];
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) total += n;
    ck_assert_uint_eq(total, head + 300000 * each + strlen("</w:body>\n"));
    fseek(fp, -(long)strlen("\"&amp;\"/></w:body>\n"), SEEK_END);
    ck_assert_uint_eq(fread(chunk, 1, 20, fp), 19);
    chunk[19] = 0;
    ck_assert_str_eq(chunk, "\"&amp;\"/></w:body>\n");
    fclose(fp);
    fo_xml_free(x);
}
END_TEST

START_TEST(package_layout)
{
    const char *path = tmp_path();
    ck_assert_int_eq(build(path, true), FO_OK);
    ck_assert_int_eq(entries(path), 7);
    const char *order[] = {"[Content_Types].xml", "_rels/.rels", "docProps/core.xml",
                           "word/document.xml", "word/media/i.png", "word/theme/theme1.xml",
                           "word/_rels/document.xml.rels"};
    struct tm tm = {.tm_year = 80, .tm_mon = 0, .tm_mday = 1, .tm_isdst = -1};
    time_t stamp = mktime(&tm);
    for (zip_uint64_t i = 0; i < 7; i++) {
        const char *name;
        time_t mt;
        free(entry(path, i, &name, &mt));
        ck_assert_str_eq(name, order[i]);
        ck_assert_int_eq((long)mt, (long)stamp);
    }
    char *ct = entry(path, 0, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(ct, "<Default Extension=\"png\" ContentType=\"image/png\"/>"));
    ck_assert_ptr_nonnull(strstr(ct, "<Override PartName=\"/word/document.xml\" "
                                     "ContentType=\"application/test+xml\"/>"));
    ck_assert_ptr_null(strstr(ct, "/word/media/i.png"));
    free(ct);
    char *rels = entry(path, 6, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(rels, "Id=\"rId1\" Type=\"" FO_REL_HYPERLINK "\" "
                                       "Target=\"https://example.com/?a=1&amp;b=2\" "
                                       "TargetMode=\"External\""));
    free(rels);
    char *core = entry(path, 2, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(core, "<dc:title>Q3 &lt;review&gt; &amp; &quot;more&quot;</dc:title>"));
    ck_assert_ptr_nonnull(strstr(core, "<dc:creator>Finance analytics</dc:creator>"));
    ck_assert_ptr_nonnull(strstr(core, ">2026-09-30T00:00:00Z</dcterms:created>"));
    free(core);
    char *doc = entry(path, 3, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(doc, "<w:t>row text \xEF\xBF\xBD bad</w:t>"));
    free(doc);
    char *theme = entry(path, 5, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(theme, "<a:latin typeface=\"Liberation Sans\"/>"));
    ck_assert_ptr_null(strstr(theme, "{{"));
    free(theme);
    unlink(path);
}
END_TEST

START_TEST(deterministic)
{
    const char *a = tmp_path(), *b = tmp_path();
    ck_assert_int_eq(build(a, true), FO_OK);
    sleep(2); /* a different clock second must not change a byte */
    ck_assert_int_eq(build(b, true), FO_OK);
    assert_same_file(a, b);
    unlink(a);
    unlink(b);
}
END_TEST

/* Relationships of interleaved sources keep per-source numbering and call
 * order; 5,000 parts and 10,000 relationships index in well under a second
 * (the linear scans took seconds here). */
START_TEST(many_parts_indexed)
{
    const char *path = tmp_path();
    fo_pkg *p = fo_pkg_new(path);
    char name[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "ppt/slides/slide%d.xml", i);
        fo_pkg_add_part(p, name, NULL, "<x/>", 4);
        ck_assert_str_eq(fo_pkg_add_rel(p, "ppt/presentation.xml", "t", name + 4, false),
                         (snprintf(name, sizeof name, "rId%d", i + 1), name));
        snprintf(name, sizeof name, "ppt/slides/slide%d.xml", i);
        ck_assert_str_eq(fo_pkg_add_rel(p, name, "layout", "../l.xml", false), "rId1");
    }
    ck_assert(fo_pkg_has_part(p, "ppt/slides/slide4999.xml"));
    ck_assert(!fo_pkg_has_part(p, "ppt/slides/slide5000.xml"));
    fo_pkg_add_part(p, "ppt/presentation.xml", NULL, "<p/>", 4);
    fo_pkg_add_part(p, "ppt/slides/slide7.xml", NULL, "<x/>", 4); /* twice: refused */
    ck_assert_int_eq(fo_pkg_status(p), FO_ERR_INTERNAL);
    fo_pkg_free(p);
    p = fo_pkg_new(path);
    fo_pkg_add_part(p, "a.xml", NULL, "<a/>", 4);
    fo_pkg_add_part(p, "b.xml", NULL, "<b/>", 4);
    fo_pkg_add_rel(p, "b.xml", "t", "b1", false);
    fo_pkg_add_rel(p, "a.xml", "t", "a1", false);
    fo_pkg_add_rel_id(p, "b.xml", "rId9", "t", "b2", false);
    fo_pkg_add_rel(p, "b.xml", "t", "b3", false);
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_pkg_close(p, &d), FO_OK);
    fo_pkg_free(p);
    fo_diags_free(&d);
    const char *name_a, *name_b;
    char *ra = entry(path, 3, &name_a, NULL);
    ck_assert_str_eq(name_a, "_rels/a.xml.rels");
    ck_assert_ptr_nonnull(strstr(ra, "Id=\"rId1\" Type=\"t\" Target=\"a1\""));
    free(ra);
    char *rb = entry(path, 4, &name_b, NULL);
    ck_assert_str_eq(name_b, "_rels/b.xml.rels");
    const char *b1 = strstr(rb, "Id=\"rId1\" Type=\"t\" Target=\"b1\"");
    const char *b2 = strstr(rb, "Id=\"rId9\" Type=\"t\" Target=\"b2\"");
    const char *b3 = strstr(rb, "Id=\"rId3\" Type=\"t\" Target=\"b3\"");
    ck_assert(b1 && b2 && b3 && b1 < b2 && b2 < b3);
    free(rb);
    unlink(path);
}
END_TEST

/* Parts past the held limit go to the spill file and come back from it:
 * the same bytes whether none, some or all of them were spilled. */
START_TEST(spilled_parts_read_back_alike)
{
    const char *a = tmp_path(), *b = tmp_path(), *c = tmp_path();
    ck_assert_int_eq(build_deck(a, (size_t)-1), FO_OK);
    ck_assert_int_eq(build_deck(b, 0), FO_OK);
    ck_assert_int_eq(build_deck(c, 300000), FO_OK);   /* about half the slides */
    assert_same_file(a, b);
    assert_same_file(a, c);
    const char *name;
    char *last = entry(b, 1 + 59, &name, NULL);   /* after the content types (no package rels) */
    ck_assert_str_eq(name, "ppt/slides/slide60.xml");
    ck_assert_ptr_nonnull(strstr(last, "<a:t>slide 60 cell 2399</a:t></p:sld>"));
    free(last);
    for (unsigned long n = 1; n < 300; n += 7) {   /* failing allocations while spilling */
        fo_alloc_fail_after(n);
        fo_status st = build_deck(b, 0);
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM || st == FO_ERR_INTERNAL);
    }
    unlink(a); unlink(b); unlink(c);
}
END_TEST

/* Deflating ahead in a second thread writes the same archive, byte for
 * byte, whatever was spilled; a package freed unclosed with parts still
 * queued, and failing allocations, end cleanly. */
START_TEST(deflate_ahead_alike)
{
    const char *a = tmp_path(), *b = tmp_path(), *c = tmp_path();
    ck_assert_int_eq(build_deck(a, (size_t)-1), FO_OK);
    ahead_on = true;
    ck_assert_int_eq(build_deck(b, (size_t)-1), FO_OK);
    ck_assert_int_eq(build_deck(c, 300000), FO_OK); /* about half the slides spilled */
    assert_same_file(a, b);
    assert_same_file(a, c);
    fo_pkg *p = fo_pkg_new(a); /* freed with jobs queued */
    fo_pkg_deflate_ahead(p);
    char text[64];
    for (int i = 0; i < 200; i++) {
        snprintf(text, sizeof text, "ppt/slides/slide%d.xml", i);
        fo_pkg_add_part(p, text, NULL, "<x>some text to deflate</x>", 27);
    }
    fo_pkg_free(p);
    for (unsigned long n = 1; n < 300; n += 7) {
        fo_alloc_fail_after(n);
        fo_status st = build_deck(b, (size_t)-1);
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM || st == FO_ERR_INTERNAL);
    }
    ahead_on = false;
    unlink(a);
    unlink(b);
    unlink(c);
}
END_TEST

/* The archive is written into the path itself (the staged temporary the
 * renderers get), not into a randomly named file of libzip's renamed over
 * it: the same inode and mode afterwards, no other file in its folder. An
 * unwritable path fails with nothing left. */
START_TEST(written_in_place)
{
    char dir[] = "/tmp/t_package_dir_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/out.pptx", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0640);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct stat before, after;
    ck_assert_int_eq(stat(path, &before), 0);
    ck_assert_int_eq(build_deck(path, (size_t)-1), FO_OK);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_uint_eq(after.st_ino, before.st_ino);
    ck_assert_uint_eq(after.st_mode & 07777, 0640);
    ck_assert_int_gt(after.st_size, 1000);
    ck_assert_int_eq(entries(path), 1 + 60 + 3 + 1 + 1); /* types, slides, 2 media + pres, theme, rels */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    ck_assert_int_eq(system(cmd), 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/missing/out.pptx", dir);
    ck_assert_int_eq(build_deck(path, (size_t)-1), FO_ERR_IO);
    ck_assert_int_eq(rmdir(dir), 0); /* empty: nothing left behind */
}
END_TEST

START_TEST(sticky_errors)
{
    const char *path = tmp_path();
    fo_pkg *p = fo_pkg_new(path);
    fo_pkg_add_part(p, "a.xml", NULL, "<a/>", 4);
    fo_pkg_add_part(p, "a.xml", NULL, "<a/>", 4); /* twice: error */
    ck_assert_int_eq(fo_pkg_status(p), FO_ERR_INTERNAL);
    fo_pkg_add_part(p, "b.xml", NULL, "<b/>", 4); /* no-op now */
    ck_assert(!fo_pkg_has_part(p, "b.xml"));
    ck_assert_str_eq(fo_pkg_add_rel(p, "", FO_REL_IMAGE, "x", false), "");
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_pkg_close(p, &d), FO_ERR_INTERNAL);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_ptr_nonnull(strstr(d.items[0].message, "a.xml added twice"));
    fo_diags_free(&d);
    fo_pkg_free(p);

    p = fo_pkg_new(path);
    fo_pkg_add_template(p, "x.xml", NULL, "no/such.xml", NULL);
    ck_assert_int_eq(fo_pkg_status(p), FO_ERR_INTERNAL);
    fo_pkg_free(p);
    fo_pkg_free(NULL);
    fo_xml_free(NULL);

    fo_diags_init(&d);
    p = fo_pkg_new("/nonexistent-dir/x.docx");
    fo_pkg_add_part(p, "a.xml", NULL, "<a/>", 4);
    ck_assert_int_eq(fo_pkg_close(p, &d), FO_ERR_IO);
    ck_assert_uint_eq(d.n, 1);
    fo_diags_free(&d);
    fo_pkg_free(p);
    unlink(path);
}
END_TEST

/* fo_pkg_close_memory: the same entries, in the same order, with the same
 * content and stamp as fo_pkg_close writes, each stored (the archive around
 * it deflates it whole); failing allocations give an error, never a crash
 * or a half archive. */
START_TEST(memory_package_stored)
{
    const char *path = tmp_path(), *copy = tmp_path();
    ck_assert_int_eq(build(path, true), FO_OK);
    mem.on = true;
    ck_assert_int_eq(build("in memory", true), FO_OK);
    ck_assert_ptr_nonnull(mem.data);
    FILE *f = fopen(copy, "wb");
    ck_assert_uint_eq(fwrite(mem.data, 1, mem.len, f), mem.len);
    fclose(f);
    fo_free(mem.data);
    ck_assert_int_eq(entries(copy), entries(path));
    zip_t *za = zip_open(copy, ZIP_RDONLY | ZIP_CHECKCONS, NULL);
    ck_assert_ptr_nonnull(za);
    for (zip_uint64_t i = 0; i < (zip_uint64_t)entries(path); i++) {
        const char *name;
        time_t mt, mt2;
        char *want = entry(path, i, &name, &mt);
        zip_stat_t st;
        ck_assert_int_eq(zip_stat_index(za, i, 0, &st), 0);
        ck_assert_str_eq(st.name, name);
        ck_assert_int_eq(st.comp_method, ZIP_CM_STORE);
        mt2 = st.mtime;
        ck_assert_int_eq((long)mt2, (long)mt);
        char *got = calloc(1, st.size + 1);
        zip_file_t *zf = zip_fopen_index(za, i, 0);
        ck_assert_int_eq(zip_fread(zf, got, st.size), (zip_int64_t)st.size);
        zip_fclose(zf);
        ck_assert_uint_eq(strlen(got), strlen(want));
        ck_assert(memcmp(got, want, st.size) == 0);
        free(got);
        free(want);
    }
    zip_close(za);
    for (unsigned long n = 1; n < 400; n++) {
        mem.data = NULL;
        fo_alloc_fail_after(n);
        fo_status st = build("in memory", false);
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM || st == FO_ERR_INTERNAL);
        ck_assert(st == FO_OK || mem.data == NULL);
        fo_free(mem.data);
    }
    mem.on = false;
    unlink(path);
    unlink(copy);
}
END_TEST

/* A workbook-like package, every part in memory: parts written, copied,
 * taken, empty, a template, rels and properties. */
static fo_status build_small(const char *path)
{
    fo_doc doc = {0};
    doc.epoch = 1790726400;
    fo_pkg *p = fo_pkg_new(path);
    fo_pkg_add_core_props(p, &doc);
    fo_pkg_add_rel(p, "", FO_REL_OFFICE_DOCUMENT, "xl/workbook.xml", false);
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "workbook", "xmlns", "urn:w", NULL);
    for (int i = 0; i < 300; i++) fo_xml_text_elem(x, "c", "cell \xc3\xa9 & more");
    fo_xml_close(x);
    fo_pkg_add_xml(p, "xl/workbook.xml", "application/wb+xml", x);
    fo_pkg_add_rel(p, "xl/workbook.xml", FO_REL_IMAGE, "media/i.png", false);
    fo_pkg_add_default(p, "png", FO_CT_PNG);
    fo_pkg_add_part(p, "xl/media/i.png", NULL, "\x89PNG", 4);
    fo_pkg_add_part(p, "xl/empty.xml", "application/empty+xml", "", 0);
    char *taken = fo_malloc(3000);
    if (taken) memset(taken, 'q', 3000);
    if (taken) fo_pkg_add_part_take(p, "xl/media/t.png", NULL, taken, 3000);
    return finish(p, "xl/theme/theme1.xml");
}

/* fo_pkg_close_memory writes an archive of parts all held in memory itself
 * (package.c, "a stored archive"): byte for byte what libzip writes for the
 * same package, which libzip reads back consistent; failing allocations
 * give an error, never a crash or a half archive. */
START_TEST(memory_package_without_libzip)
{
    mem.on = true;
    ck_assert_int_eq(build_small("in memory"), FO_OK);
    void *own = mem.data;
    size_t own_len = mem.len;
    mem.via_libzip = true;
    ck_assert_int_eq(build_small("in memory"), FO_OK);
    mem.via_libzip = false;
    ck_assert_ptr_nonnull(own);
    ck_assert_uint_eq(own_len, mem.len);
    ck_assert(memcmp(own, mem.data, own_len) == 0);
    fo_free(mem.data);
    const char *copy = tmp_path();
    FILE *f = fopen(copy, "wb");
    ck_assert_uint_eq(fwrite(own, 1, own_len, f), own_len);
    fclose(f);
    fo_free(own);
    zip_t *za = zip_open(copy, ZIP_RDONLY | ZIP_CHECKCONS, NULL);
    ck_assert_ptr_nonnull(za);
    ck_assert_int_eq(zip_get_num_entries(za, 0), 1 + 1 + 5 + 1 + 1); /* types, rels, parts, theme, wb rels */
    zip_close(za);
    unlink(copy);
    for (unsigned long n = 1; n < 200; n++) {
        mem.data = NULL;
        fo_alloc_fail_after(n);
        fo_status st = build_small("in memory");
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM || st == FO_ERR_INTERNAL);
        ck_assert(st == FO_OK || mem.data == NULL);
        fo_free(mem.data);
    }
    mem.on = false;
}
END_TEST

START_TEST(alloc_failures)
{
    /* every allocation failing in turn: an error or success, never a crash */
    const char *path = tmp_path();
    for (unsigned long n = 1; n < 400; n++) {
        fo_alloc_fail_after(n);
        fo_status st = build(path, false);
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM || st == FO_ERR_INTERNAL);
    }
    unlink(path);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        sanitize,
        xml_writer,
        xml_writer_bytes,
        package_layout,
        deterministic,
        many_parts_indexed,
        spilled_parts_read_back_alike,
        deflate_ahead_alike,
        written_in_place,
        sticky_errors,
        memory_package_stored,
        memory_package_without_libzip,
        alloc_failures,
        NULL,
    };
    return fo_check_tests("ooxml package", 120, tests);
}
