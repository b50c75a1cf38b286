/* t_output_scratch.c — scratch outputs (render/output.h, fo_render_opts.scratch,
 * folio serve's render children): a file is written in place at its
 * destination, never over a file that is there, kept once committed,
 * removed when the set is freed uncommitted or over the ceiling; and the
 * staging's signal handlers are never installed. */
#include "render/output.h"
#include "tests/check_run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/t_output_scratch-XXXXXX";

static void write_file(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (size_t k = 0; k < n; k++) fputc('x', f);
    fclose(f);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

START_TEST(written_in_place_and_kept_once_committed)
{
    fo_diags d;
    fo_written_list w = {0};
    struct sigaction before, during;
    fo_diags_init(&d);
    sigaction(SIGINT, NULL, &before);
    fo_outset *o = fo_outset_new_scratch(0);
    const char *path = fo_outset_add(o, "kept.xlsx", "xlsx", &d);
    ck_assert_str_eq(path, "kept.xlsx");
    ck_assert(exists("kept.xlsx")); /* created when added */
    sigaction(SIGINT, NULL, &during);
    ck_assert_ptr_eq((void *)during.sa_handler, (void *)before.sa_handler);
    write_file(path, 100);
    ck_assert_int_eq(fo_outset_commit(o, &w, false, &d), FO_OK);
    ck_assert_uint_eq(w.n, 1);
    ck_assert_uint_eq(w.items[0].bytes, 100);
    fo_outset_free(o);
    ck_assert(exists("kept.xlsx"));
    fo_written_free(&w);
    fo_diags_free(&d);
    unlink("kept.xlsx");
}
END_TEST

START_TEST(never_over_a_file_that_is_there)
{
    fo_diags d;
    fo_diags_init(&d);
    write_file("there.pdf", 3);
    fo_outset *o = fo_outset_new_scratch(0);
    ck_assert_ptr_null(fo_outset_add(o, "there.pdf", "pdf", &d));
    ck_assert_uint_eq(d.n, 1);
    fo_outset_free(o);
    struct stat st;
    ck_assert_int_eq(stat("there.pdf", &st), 0);
    ck_assert_int_eq(st.st_size, 3); /* untouched */
    fo_diags_free(&d);
    unlink("there.pdf");
}
END_TEST

START_TEST(removed_when_not_committed_or_over_the_ceiling)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_outset *o = fo_outset_new_scratch(0);
    write_file(fo_outset_add(o, "failed.png", "png", &d), 10);
    fo_outset_free(o); /* the render failed: never committed */
    ck_assert(!exists("failed.png"));

    o = fo_outset_new_scratch(50);
    write_file(fo_outset_add(o, "big.docx", "docx", &d), 51);
    write_file(fo_outset_add(o, "small.pptx", "pptx", &d), 10);
    ck_assert_int_eq(fo_outset_commit(o, NULL, false, &d), FO_ERR_CEILING);
    fo_outset_free(o);
    ck_assert(!exists("big.docx") && !exists("small.pptx"));
    fo_diags_free(&d);
}
END_TEST

int main(void)
{
    if (!mkdtemp(dir) || chdir(dir) != 0) return EXIT_FAILURE;
    int rc = fo_check_tests("output_scratch", 0,
                            (const TTest *[]){written_in_place_and_kept_once_committed,
                                              never_over_a_file_that_is_there,
                                              removed_when_not_committed_or_over_the_ceiling, NULL});
    if (chdir("/") == 0) rmdir(dir);
    return rc;
}
