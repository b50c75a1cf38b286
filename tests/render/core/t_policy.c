/* t_policy.c — the link and formula rules of render/core/policy.h, exactly. */
#include <check.h>
#include <string.h>

#include "render/core/policy.h"
#include "tests/check_run.h"

START_TEST(test_default_schemes)
{
    fo_link_schemes_reset();
    const char *ok[] = {"http://a.example", "HTTPS://a.example/x?y=1#z", "mailto:a@b.example", NULL};
    const char *bad[] = {"javascript:alert(1)", "JaVaScRiPt:x", "file:///etc/passwd", "\\\\host\\share",
                         "smb://host/share", "ftp://a.example", "http:\\\\evil", "https:evil",
                         " http://a.example", "http://a.example/\n", "data:text/html,x", "#top",
                         "page.html", "", "vbscript:x", NULL};
    for (int i = 0; ok[i]; i++) ck_assert_msg(fo_link_allowed(ok[i]), "%s", ok[i]);
    for (int i = 0; bad[i]; i++) ck_assert_msg(!fo_link_allowed(bad[i]), "%s", bad[i]);
    char longer[FO_LINK_MAX + 2];
    memset(longer, 'a', sizeof longer);
    memcpy(longer, "https://", 8);
    longer[FO_LINK_MAX] = '\0';
    ck_assert(fo_link_allowed(longer));
    longer[FO_LINK_MAX] = 'a';
    longer[FO_LINK_MAX + 1] = '\0';
    ck_assert(!fo_link_allowed(longer));
    ck_assert_str_eq(fo_link_refusal(longer), "longer than 2,048 bytes");
}
END_TEST

START_TEST(test_added_schemes)
{
    fo_link_schemes_reset();
    ck_assert(fo_link_schemes_allow("ftp,tel"));
    ck_assert(fo_link_allowed("ftp://a.example") && fo_link_allowed("TEL:+1555"));
    ck_assert(!fo_link_allowed("file:///x"));
    ck_assert(!fo_link_schemes_allow("java script"));
    ck_assert(!fo_link_schemes_allow(""));
    ck_assert(!fo_link_schemes_allow("ok,,x"));
    ck_assert(!fo_link_schemes_allow("1http"));
    fo_link_schemes_reset();
    ck_assert(!fo_link_allowed("ftp://a.example"));
}
END_TEST

START_TEST(test_formulas)
{
    fo_link_schemes_reset();
    fo_formulas_external_allow(false);
    const char *refused[] = {"=cmd|' /C calc'!A0", "=DDE(\"a\",\"b\",\"c\")", "=ddeauto(1)",
                             "=WEBSERVICE(\"http://x\")", "=_xlfn.WEBSERVICE(\"x\")", "=FILTERXML(A1,\"//a\")",
                             "=CALL(\"k\",\"f\",\"J\")", "=REGISTER.ID(\"k\",\"f\")", "=IMAGE(\"https://x\")",
                             "=RTD(\"a\",,\"b\")", "=_xll.MyAddin(1)", "=SUM([1]Sheet1!A1:A3)",
                             "=[book.xlsx]Data!B2", "='C:\\dir\\[b.xlsx]S'!A1", "='\\\\host\\s\\[b.xlsx]S'!A1",
                             "=HYPERLINK(\"file:///etc/passwd\")", "=HYPERLINK(A1,\"x\")",
                             "=HYPERLINK (\"javascript:x\")", "=1+WEBSERVICE (\"x\")", NULL};
    const char *fine[] = {"=SUM(B2:B9)", "=Sales[Revenue]*2", "=SUM(Table1[[#Data],[x]])", "=[@Col]+1",
                          "=IF(A1=\"a|b\",1,0)", "=HYPERLINK(\"https://example.com\",\"x\")",
                          "='My Sheet'!A1+1", "=CONCAT(\"DDE(\",\"x\")", "=MYDDE(1)", "=A1*2", NULL};
    for (int i = 0; refused[i]; i++) ck_assert_msg(fo_formula_refusal(refused[i]) != NULL, "%s", refused[i]);
    for (int i = 0; fine[i]; i++) ck_assert_msg(fo_formula_refusal(fine[i]) == NULL, "%s: %s", fine[i],
                                                fo_formula_refusal(fine[i]));
    ck_assert_str_eq(fo_formula_refusal("=cmd|' /C calc'!A0"), "is a DDE link");
    ck_assert_str_eq(fo_formula_refusal("=SUM([1]S!A1)"), "refers to another workbook");
    fo_formulas_external_allow(true);
    ck_assert(fo_formula_refusal("=WEBSERVICE(\"x\")") == NULL);
    fo_formulas_external_allow(false);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_default_schemes,
        test_added_schemes,
        test_formulas,
        NULL,
    };
    return fo_check_tests("policy", 0, tests);
}
