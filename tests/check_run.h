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

#endif
