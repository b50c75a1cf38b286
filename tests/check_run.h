/* check_run.h — runs a Check suite and turns the result into the program's
 * exit code: every t_*.c test program under tests/ ends its main with
 * `return fo_check_run(s);`. */
#ifndef FO_TEST_CHECK_RUN_H
#define FO_TEST_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int fo_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The usual main: the tests (a NULL-terminated list of START_TEST names) as
 * one suite with one case, both called name, timeout in seconds (0: Check's default), run by
 * fo_check_run:
 *   return fo_check_tests("csv", 60, (const TTest *[]){rfc4180, errors, NULL}); */
static inline int fo_check_tests(const char *name, double timeout, const TTest *const *tests)
{
    Suite *s = suite_create(name);
    TCase *tc = tcase_create(name);
    if (timeout > 0) tcase_set_timeout(tc, timeout);
    for (; *tests; tests++) tcase_add_test(tc, *tests);
    suite_add_tcase(s, tc);
    return fo_check_run(s);
}

#endif
