/* t_fail.c — writers report failures one way (fo_fail_at): every writer's
 * diagnostic names the spec's file, the block's line and column and its
 * JSON Pointer. Each case loads a spec with an image, removes the image
 * after loading (as if it vanished) and renders one format. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/core/model.h"
#include "tests/check_run.h"

START_TEST(test_fail_at_records_the_block)
{
    fo_diags d;
    fo_diags_init(&d);
    char path[] = "report.json", ptr[] = "/blocks/2";
    fo_doc doc = {.spec_path = path};
    fo_block b = {.kind = FO_BLOCK_IMAGE, .pointer = ptr, .line = 7, .column = 5};
    fo_status st = FO_OK;
    fo_fail_at(&d, &st, &doc, &b, FO_ERR_INPUT, "a hint", "cannot read %s", "x.png");
    fo_fail_at(&d, &st, &doc, NULL, FO_ERR_IO, NULL, "later");
    ck_assert_int_eq(st, FO_ERR_INPUT); /* the first failure stays */
    ck_assert_uint_eq(d.n, 2);
    ck_assert_str_eq(d.items[0].file, "report.json");
    ck_assert_int_eq(d.items[0].line, 7);
    ck_assert_int_eq(d.items[0].column, 5);
    ck_assert_str_eq(d.items[0].pointer, "/blocks/2");
    ck_assert_str_eq(d.items[0].message, "cannot read x.png");
    ck_assert_str_eq(d.items[0].hint, "a hint");
    ck_assert_str_eq(d.items[1].file, "report.json");
    ck_assert_ptr_null(d.items[1].pointer);
    fo_diags_free(&d);
}
END_TEST

static void vanished_image(const char *ext)
{
    char dir[] = "/tmp/folio-t_fail-XXXXXX", spec[256], img[256], out[256], cmd[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(spec, sizeof spec, "%s/s.json", dir);
    snprintf(img, sizeof img, "%s/pic.png", dir);
    snprintf(out, sizeof out, "%s/out.%s", dir, ext);
    snprintf(cmd, sizeof cmd, "cp samples/sales/logo.png %s", img);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(spec, "w");
    fputs("{\"folio\": 1, \"title\": \"T\",\n \"blocks\": [\n  {\"type\": \"paragraph\", \"text\": \"a\"},\n"
          "  {\"type\": \"image\", \"path\": \"pic.png\"}\n ]}\n", f);
    fclose(f);
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    ck_assert_int_eq(fo_spec_load(spec, &doc, &d), FO_OK);
    unlink(img);
    const char *outs[] = {out};
    fo_status st = fo_render(doc, outs, 1, NULL, NULL, &d);
    ck_assert_int_ne(st, FO_OK);
    ck_assert_uint_ge(d.n, 1);
    const fo_diag *g = &d.items[0];
    ck_assert_msg(g->file && strstr(g->file, "s.json"), "%s: no file in \"%s\"", ext, g->message);
    ck_assert_msg(g->line == 4 && g->column == 3, "%s: at %d:%d", ext, g->line, g->column);
    ck_assert_msg(g->pointer && strcmp(g->pointer, "/blocks/1") == 0, "%s: pointer %s", ext,
                  g->pointer ? g->pointer : "(none)");
    ck_assert_ptr_nonnull(strstr(g->message, "pic.png"));
    fo_doc_free(doc);
    fo_diags_free(&d);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_pdf_locates) { vanished_image("pdf"); }
END_TEST
START_TEST(test_pptx_locates) { vanished_image("pptx"); }
END_TEST
START_TEST(test_docx_locates) { vanished_image("docx"); }
END_TEST
START_TEST(test_xlsx_locates) { vanished_image("xlsx"); }
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_fail_at_records_the_block,
        test_pdf_locates,
        test_pptx_locates,
        test_docx_locates,
        test_xlsx_locates,
        NULL,
    };
    return fo_check_tests("fail", 60, tests);
}
