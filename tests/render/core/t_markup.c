/* t_markup.c — inline markup: runs, flags, links, escapes, nesting, literals. */
#include <check.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/core/markup.h"
#include "tests/check_run.h"

/* Runs as one comparable string: each run is "[flags@url:text]" where flags
 * are B I C and "@url" appears only on links; plain text runs are "[:text]". */
static char *show(const char *src)
{
    static char buf[4096];
    fo_runs r;
    ck_assert_int_eq(fo_markup_parse(src, &r), FO_OK);
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r.n; i++) {
        const fo_run *u = &r.runs[i];
        ck_assert_uint_eq(strlen(u->text), u->len);
        ck_assert_uint_gt(u->len, 0);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "[%s%s%s%s%s:%s]",
                              u->flags & FO_RUN_BOLD ? "B" : "", u->flags & FO_RUN_ITALIC ? "I" : "",
                              u->flags & FO_RUN_CODE ? "C" : "", u->url ? "@" : "", u->url ? u->url : "",
                              u->text);
        if (i > 0) { /* adjacent runs always differ in style */
            const fo_run *p = &r.runs[i - 1];
            ck_assert(!(p->flags == u->flags && !p->url && !u->url));
        }
    }
    fo_runs_free(&r);
    return buf;
}

#define RUNS(src, want) ck_assert_str_eq(show(src), want)

START_TEST(test_plain_text)
{
    RUNS("", "");
    RUNS("hello world", "[:hello world]");
    RUNS("Revenue grew 12% (y/y)", "[:Revenue grew 12% (y/y)]");
}
END_TEST

START_TEST(test_bold_italic)
{
    RUNS("**bold**", "[B:bold]");
    RUNS("*italic*", "[I:italic]");
    RUNS("a **b** c", "[:a ][B:b][: c]");
    RUNS("a *b* c", "[:a ][I:b][: c]");
    RUNS("Revenue grew **12%**; see", "[:Revenue grew ][B:12%][:; see]");
    RUNS("**a** **b**", "[B:a][: ][B:b]");
    RUNS("**a****b**", "[B:ab]"); /* merged: same style, adjacent */
    /* Unicode punctuation and spaces flank as ASCII's do (CommonMark) */
    RUNS("\u589E\u957F\u4E86 **12%**\u3002", "[:\u589E\u957F\u4E86 ][B:12%][:\u3002]");
    RUNS("\u3000**a**\u3001", "[:\u3000][B:a][:\u3001]");
    RUNS("\u0646\u0645\u062A **12%**\u061F", "[:\u0646\u0645\u062A ][B:12%][:\u061F]");
    RUNS("a**b**c", "[:a][B:b][:c]");
    RUNS("\u00E9**b**\u00E9", "[:\u00E9][B:b][:\u00E9]");
}
END_TEST

START_TEST(test_nesting)
{
    RUNS("**bold *both* bold**", "[B:bold ][BI:both][B: bold]");
    RUNS("*it **both** it*", "[I:it ][BI:both][I: it]");
    RUNS("***both***", "[BI:both]");
    RUNS("*italic **bold***", "[I:italic ][BI:bold]");
    RUNS("**bold *it***", "[B:bold ][BI:it]");
}
END_TEST

START_TEST(test_code)
{
    RUNS("`code`", "[C:code]");
    RUNS("run `df.sum()` now", "[:run ][C:df.sum()][: now]");
    RUNS("`**not bold**`", "[C:**not bold**]");
    RUNS("`[a](b)`", "[C:[a](b)]");
    RUNS("`a\\*b`", "[C:a\\*b]"); /* no escapes inside code */
    RUNS("``a ` b``", "[C:a ` b]");
    RUNS("` `` `", "[C:``]");
    RUNS("**`x`**", "[BC:x]");
}
END_TEST

START_TEST(test_links)
{
    RUNS("[the dashboard](https://example.com)", "[@https://example.com:the dashboard]");
    RUNS("see [x](http://a.b/c) now", "[:see ][@http://a.b/c:x][: now]");
    RUNS("[**bold** label](u)", "[B@u:bold][@u: label]");
    RUNS("[*it*](u)", "[I@u:it]");
    RUNS("**see [x](u)**", "[B:see ][B@u:x]");
    RUNS("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))",
         "[@https://en.wikipedia.org/wiki/Foo_(bar):wiki]");
    RUNS("[a](b)[c](d)", "[@b:a][@d:c]");
    RUNS("[a [b] c](u)", "[@u:a [b] c]");
    RUNS("[`code`](u)", "[C@u:code]");
}
END_TEST

START_TEST(test_links_invalid)
{
    RUNS("[label](has space)", "[:[label](has space)]");
    RUNS("[label] (u)", "[:[label] (u)]");
    RUNS("[label](u", "[:[label](u]");
    RUNS("[label]", "[:[label]]");
    RUNS("[](u)", "[:[](u)]");
    RUNS("[a](u))", "[@u:a][:)]");
    RUNS("[a](", "[:[a](]");
    RUNS("[x", "[:[x]");
}
END_TEST

START_TEST(test_escapes)
{
    RUNS("\\*not italic\\*", "[:*not italic*]");
    RUNS("\\*\\*x\\*\\*", "[:**x**]");
    RUNS("a\\`b", "[:a`b]");
    RUNS("\\[a](b)", "[:[a](b)]");
    RUNS("\\\\", "[:\\]");
    RUNS("c:\\path", "[:c:\\path]"); /* backslash before a letter stays */
    RUNS("end\\", "[:end\\]");
    RUNS("**a\\*b**", "[B:a*b]");
    RUNS("[a\\]b](u)", "[@u:a]b]");
    RUNS("[a](u\\))", "[@u):a]");
}
END_TEST

START_TEST(test_unbalanced)
{
    RUNS("**open", "[:**open]");
    RUNS("*open", "[:*open]");
    RUNS("close*", "[:close*]");
    RUNS("`open", "[:`open]");
    RUNS("2 * 3 * 4", "[:2 * 3 * 4]");
    RUNS("a ** b", "[:a ** b]");
    RUNS("**a*", "[:*][I:a]");
    RUNS("*a**", "[I:a][:*]");
    RUNS("* item", "[:* item]");
    RUNS("****", "[:****]");
    RUNS("*", "[:*]");
    RUNS("**", "[:**]");
}
END_TEST

START_TEST(test_utf8)
{
    RUNS("café **€ 12** 日本", "[:café ][B:€ 12][: 日本]");
    RUNS("*Ünïcödé*", "[I:Ünïcödé]");
    RUNS("[😀](https://x.y/é)", "[@https://x.y/é:😀]");
}
END_TEST

/* A style never changes inside a cluster: the cut moves to the cluster's
 * end, the cluster in the style of its start (a conjunct, a vowel sign, a
 * haraka); between letters that only join (Arabic), cuts stay. */
START_TEST(test_clusters)
{
    RUNS("**नमस्**ते दुनिया", "[B:नमस्ते][: दुनिया]");
    RUNS("नम**स्ते**", "[:नम][B:स्ते]");
    RUNS("क**ि**ताब", "[:किताब]");
    RUNS("ح**َ**ب", "[:حَب]");
    RUNS("مر**حب**ا", "[:مر][B:حب][:ا]");
    RUNS("[नमस्](https://x.y)ते", "[@https://x.y:नमस्ते]");
    RUNS("e**\u0301**", "[:e\u0301]");
    for (unsigned long k = 1; k < 100; k++) {   /* its allocations fail cleanly */
        fo_runs r;
        fo_alloc_fail_after(k);
        fo_status st = fo_markup_parse("**नमस्**ते", &r);
        fo_alloc_fail_after(0);
        if (st == FO_OK) { fo_runs_free(&r); break; }
        ck_assert_int_eq(st, FO_ERR_NOMEM);
        ck_assert_uint_eq(r.n, 0);
    }
}
END_TEST

START_TEST(test_plain)
{
    char *p = fo_markup_plain("Revenue grew **12%**; see [the dashboard](https://example.com).");
    ck_assert_str_eq(p, "Revenue grew 12%; see the dashboard.");
    fo_free(p);
    p = fo_markup_plain("`a*b*` \\*x\\* *y*");
    ck_assert_str_eq(p, "a*b* *x* y");
    fo_free(p);
    p = fo_markup_plain("");
    ck_assert_str_eq(p, "");
    fo_free(p);
    fo_runs r;
    ck_assert_int_eq(fo_markup_parse(NULL, &r), FO_OK);
    ck_assert_uint_eq(r.n, 0);
    fo_runs_free(&r);
    fo_runs_free(NULL);
}
END_TEST

/* Every allocation failure is reported as FO_ERR_NOMEM with empty output. */
START_TEST(test_alloc_failures)
{
    const char *src = "a **b** [c *d*](u) `e` f";
    for (unsigned long k = 1; k < 100; k++) {
        fo_runs r;
        fo_alloc_fail_after(k);
        fo_status st = fo_markup_parse(src, &r);
        fo_alloc_fail_after(0);
        if (st == FO_OK) {
            ck_assert_uint_gt(r.n, 0);
            fo_runs_free(&r);
            break;
        }
        ck_assert_int_eq(st, FO_ERR_NOMEM);
        ck_assert_uint_eq(r.n, 0);
        ck_assert_ptr_null(r.runs);
        fo_alloc_fail_after(k);
        char *p = fo_markup_plain(src);
        fo_alloc_fail_after(0);
        ck_assert_ptr_null(p);
    }
}
END_TEST

/* Adversarial inputs of n bytes: i selects the shape. */
static void adversarial(char *s, size_t n, int shape)
{
    for (size_t i = 0, k = 1; i < n;) {
        switch (shape) {
        case 0: s[i] = "*a_[`"[i % 5]; i++; break;
        case 1: s[i] = "*a_[\\`"[i % 6]; i++; break;        /* '[' never closed */
        case 2: s[i] = i < n / 2 ? '[' : ']'; i++; break;   /* balanced, no url */
        case 3: s[i] = "[a]("[i % 4]; i++; break;           /* urls never closed */
        case 4: s[i] = i < n / 2 ? "*a "[i % 3] : " a*"[i % 3]; i++; break; /* nested pairs */
        case 5: /* backtick runs of every length, none closed */
            for (size_t j = 0; j < k && i < n; j++) s[i++] = '`';
            if (i < n) s[i++] = 'x';
            k = k * k > n ? 1 : k + 1;
            break;
        default: s[i] = i % 3 == 2 ? 'x' : '*'; i++; break;
        }
    }
    s[n] = '\0';
}

/* Least CPU time of three parses of src, in seconds. */
static double parse_cost(const char *src)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        char *p = fo_markup_plain(src);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        ck_assert_ptr_nonnull(p);
        fo_free(p);
        double t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (t < best) best = t;
    }
    return best;
}

/* Long adversarial inputs stay fast: eight times the bytes costs well under
 * 24 times the time (a quadratic parser takes 64 times). Measured as a
 * ratio, so it holds under valgrind and sanitizers too. The parser's arrays
 * of the larger input pass glibc's mmap threshold: fresh pages each parse,
 * and where a page fault is dear (10 us on some VMs) their first touch
 * alone costs 60 times the small input's parse. So freed memory is kept
 * (glibc only; the sanitizers' allocators ignore this), and the least of
 * three parses measures the parser, not the faults. */
START_TEST(test_long_inputs)
{
    size_t n = 20000, big = 8 * n;
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    char *s = malloc(big + 1);
    ck_assert_ptr_nonnull(s);
    for (int shape = 0; shape <= 6; shape++) {
        adversarial(s, n, shape);
        double small = parse_cost(s);
        adversarial(s, big, shape);
        double large = parse_cost(s);
        if (large > 24 * small + 0.002)
            ck_abort_msg("shape %d: %zu bytes took %.4f s, %zu bytes %.4f s", shape, n, small, big, large);
    }
    adversarial(s, big, 2); /* nothing in it is markup */
    char *p = fo_markup_plain(s);
    ck_assert_uint_eq(strlen(p), big);
    fo_free(p);
    free(s);
}
END_TEST

/* A url holds no backticks: what looks like a code span in it is not
 * swallowed into the link target. */
START_TEST(test_url_backtick)
{
    RUNS("[a](x`y)", "[:[a](x`y)]");
    RUNS("[a](x`y) `z`", "[:[a](x][C:y) ][:z`]");
    RUNS("[a](x\\`y)", "[@x`y:a]");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_plain_text,
        test_bold_italic,
        test_nesting,
        test_code,
        test_links,
        test_links_invalid,
        test_escapes,
        test_unbalanced,
        test_utf8,
        test_clusters,
        test_plain,
        test_alloc_failures,
        test_long_inputs,
        test_url_backtick,
        NULL,
    };
    return fo_check_tests("markup", 30, tests);
}
