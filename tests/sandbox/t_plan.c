/* t_plan.c — unit tests of `folio run` option parsing (sandbox/plan.c):
 * defaults, every option, and usage errors, without starting any jail. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check_run.h"

static int parse(fo_sandbox_plan *p, const char **argv)
{
    int argc = 0, help = 0, rc;

    while (argv[argc]) argc++;
    /* the parser reports usage errors on stderr; keep test output clean */
    fflush(stderr);
    rc = fo_sandbox_plan_parse(p, argc, (char **)argv, &help);   /* it only reads them */
    return rc;
}

START_TEST(defaults)
{
    const char *argv[] = { "run", "--", "/bin/true", NULL };
    fo_sandbox_plan p;

    ck_assert_int_eq(parse(&p, argv), FO_RUN_OK);
    ck_assert_str_eq(p.argv[0], "/bin/true");
    ck_assert_ptr_null(p.argv[1]);
    ck_assert(p.timeout_s == 60);
    ck_assert_uint_eq(p.memory_mb, 1024);
    ck_assert_uint_eq(p.max_bytes, 31457280);
    ck_assert_uint_eq(p.max_total, 4 * 31457280ull);  /* --max-total: 4 ceilings */
    ck_assert_uint_eq(p.pids, 256);
    ck_assert_int_eq(p.net, FO_NET_NONE);
    ck_assert_uint_eq(p.n_in_paths, 0);
    ck_assert_uint_eq(p.n_render, 0);
    ck_assert_ptr_null(p.out_dir);
    ck_assert_str_eq(p.in_dir, "work");
    fo_sandbox_plan_free(&p);
}
END_TEST

START_TEST(all_options)
{
    const char *argv[] = { "run", "--in", "a.csv", "--in=b.csv", "--out", "o", "--render",
                           "xlsx,pdf,xlsx", "--timeout", "2.5", "--memory=256", "--max-bytes",
                           "1000", "--pids", "32", "--net", "all", "--json", "--quiet", "--",
                           "python3", "-c", "pass", NULL };
    fo_sandbox_plan p;

    ck_assert_int_eq(parse(&p, argv), FO_RUN_OK);
    ck_assert_uint_eq(p.n_in_paths, 2);
    ck_assert_str_eq(p.in_paths[0], "a.csv");
    ck_assert_str_eq(p.in_paths[1], "b.csv");
    ck_assert_str_eq(p.out_dir, "o");
    ck_assert_uint_eq(p.n_render, 2);              /* duplicate kept once */
    ck_assert_str_eq(p.render[0], "xlsx");
    ck_assert_str_eq(p.render[1], "pdf");
    ck_assert(p.timeout_s == 2.5);
    ck_assert_uint_eq(p.memory_mb, 256);
    ck_assert_uint_eq(p.max_bytes, 1000);
    ck_assert_uint_eq(p.max_total, 4000);              /* follows --max-bytes */
    ck_assert_uint_eq(p.pids, 32);
    ck_assert_int_eq(p.net, FO_NET_ALL);
    ck_assert_int_eq(p.json, 1);
    ck_assert_int_eq(p.quiet, 1);
    ck_assert_str_eq(p.argv[0], "python3");
    ck_assert_str_eq(p.argv[2], "pass");
    fo_sandbox_plan_free(&p);
}
END_TEST

START_TEST(command_options_are_not_ours)
{
    const char *argv[] = { "run", "--", "sh", "--timeout", "x", NULL };
    const char *argv2[] = { "run", "--quiet", "sh", "--json", NULL };
    fo_sandbox_plan p;

    ck_assert_int_eq(parse(&p, argv), FO_RUN_OK);
    ck_assert_str_eq(p.argv[1], "--timeout");
    ck_assert(p.timeout_s == 60);
    fo_sandbox_plan_free(&p);
    ck_assert_int_eq(parse(&p, argv2), FO_RUN_OK);   /* CMD without "--" */
    ck_assert_str_eq(p.argv[0], "sh");
    ck_assert_int_eq(p.json, 0);
    fo_sandbox_plan_free(&p);
}
END_TEST

START_TEST(usage_errors)
{
    static const char *bad[][6] = {
        { "run", NULL },
        { "run", "--", NULL },
        { "run", "--bogus", "--", "x", NULL },
        { "run", "--timeout", NULL },
        { "run", "--timeout", "0", "--", "x", NULL },
        { "run", "--timeout", "abc", "--", "x", NULL },
        { "run", "--memory", "8", "--", "x", NULL },
        { "run", "--max-bytes", "-5", "--", "x", NULL },
        { "run", "--max-total", "0", "--", "x", NULL },
        { "run", "--pids", "1", "--", "x", NULL },
        { "run", "--net", "some", "--", "x", NULL },
        { "run", "--net", "allow=127.0.0.1", "--", "x", NULL },
        { "run", "--render", "gif", "--", "x", NULL },
        { "run", "--render", ",", "--", "x", NULL },
        { "run", "--json=1", "--", "x", NULL },
    };
    size_t k;

    for (k = 0; k < sizeof bad / sizeof *bad; k++) {
        fo_sandbox_plan p;
        ck_assert_msg(parse(&p, bad[k]) == FO_RUN_USAGE, "case %zu accepted", k);
        fo_sandbox_plan_free(&p);
    }
}
END_TEST

START_TEST(help_flag)
{
    char run[] = "run", opt[] = "--help", *argv[] = { run, opt, NULL };
    fo_sandbox_plan p;
    int help = 0;

    ck_assert_int_eq(fo_sandbox_plan_parse(&p, 2, argv, &help), FO_RUN_OK);
    ck_assert_int_eq(help, 1);
    fo_sandbox_plan_free(&p);
}
END_TEST

START_TEST(json_strings)
{
    fo_buf b = { 0 };

    fo_buf_json_str(&b, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
    ck_assert_str_eq(b.data, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\"");
    fo_buf_free(&b);
}
END_TEST

START_TEST(printf_never_cuts)
{
    fo_buf b = { 0 };
    char *long_path = malloc(5001);

    memset(long_path, 'p', 5000);
    long_path[5000] = 0;
    fo_buf_printf(&b, "[%s]", long_path);   /* once cut at 1023 bytes */
    ck_assert_uint_eq(b.len, 5002);
    ck_assert_int_eq(b.data[5001], ']');
    free(long_path);
    fo_buf_free(&b);
}
END_TEST

/* The plan's two allocations (the --in list, the egress policy) fail in turn:
   each failure is the documented error (FO_RUN_INTERNAL from the defaults,
   "out of memory" for the option), then the plan frees cleanly. */
START_TEST(allocation_failures)
{
    unsigned failures = 0;
    int ok = 0;

    for (unsigned long n = 1; n < 20 && !ok; n++) {
        fo_sandbox_plan p;
        char why[256] = "";
        int rc;

        fo_alloc_fail_after(n);
        rc = fo_sandbox_plan_defaults(&p);
        if (rc == FO_RUN_OK) {
            p.why = why;
            p.why_len = sizeof why;
            rc = fo_sandbox_plan_option(&p, "--net", "allow=example.com");
        }
        if (rc == FO_RUN_OK) rc = fo_sandbox_plan_option(&p, "--net-resolve", "example.com=192.0.2.1");
        fo_alloc_fail_after(0);
        if (rc == FO_RUN_OK) {
            ok = 1;
            ck_assert_ptr_nonnull(p.in_paths);
            ck_assert_ptr_nonnull(p.egress);
        } else if (rc == FO_RUN_INTERNAL) {
            ck_assert_ptr_null(p.in_paths);
            failures++;
        } else {
            ck_assert_int_eq(rc, FO_RUN_USAGE);
            ck_assert_str_eq(why, "out of memory");
            ck_assert_ptr_null(p.egress);
            failures++;
        }
        fo_sandbox_plan_free(&p);
    }
    ck_assert(ok);
    ck_assert_uint_eq(failures, 2);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        defaults,
        all_options,
        command_options_are_not_ours,
        usage_errors,
        help_flag,
        json_strings,
        printf_never_cuts,
        allocation_failures,
        NULL,
    };
    return fo_check_tests("sandbox plan", 0, tests);
}
