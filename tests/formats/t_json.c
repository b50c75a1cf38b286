/* t_json.c — unit tests of formats/json.c: pointer location on demand,
 * syntax-error positions, pointer escaping. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "tests/check_run.h"

static const char doc_text[] =
    "{\n"
    "  \"a\": 1,\n"
    "  \"b~/c\": {\"x\": [10, {\"y\": \"z\"}, 30]},\n"
    "  \"é\": \"ü\", \"k\\\"q\": true\n"
    "}\n";

static fo_json *parse(const char *text)
{
    fo_json *j = NULL;
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_json_parse(text, strlen(text), "t.json", &j, &d), FO_OK);
    fo_diags_free(&d);
    return j;
}

static void at(fo_json *j, const char *ptr, bool key, int line, int col)
{
    int l = 0, c = 0;
    ck_assert(fo_json_locate(j, ptr, key, &l, &c));
    ck_assert_msg(l == line && c == col, "%s: got %d:%d, want %d:%d", ptr, l, c, line, col);
}

START_TEST(locate_values_and_keys)
{
    fo_json *j = parse(doc_text);
    at(j, "", false, 1, 1);
    at(j, "/a", false, 2, 8);
    at(j, "/a", true, 2, 3);
    at(j, "/b~0~1c/x/0", false, 3, 18);
    at(j, "/b~0~1c/x/1/y", false, 3, 28);
    at(j, "/b~0~1c/x/2", false, 3, 34);
    at(j, "/é", false, 4, 8);      /* columns count characters, not bytes */
    at(j, "/k\"q", true, 4, 13);
    at(j, "/b~0~1c/x/7", false, 3, 17); /* missing: nearest ancestor */
    at(j, "/nope", false, 1, 1);
    fo_json_free(j);
}
END_TEST

START_TEST(syntax_errors_are_located)
{
    fo_json *j = NULL;
    fo_diags d;
    fo_diags_init(&d);
    const char *bad = "{\n  \"a\": [1, 2,,]\n}";
    ck_assert_int_eq(fo_json_parse(bad, strlen(bad), "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert_ptr_null(j);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_int_eq(d.items[0].line, 2);
    ck_assert_int_eq(d.items[0].column, 14); /* the second comma */
    ck_assert_str_eq(d.items[0].file, "t.json");
    fo_diags_free(&d);
    /* \u0000 and duplicate keys are rejected */
    fo_diags_init(&d);
    ck_assert_int_eq(fo_json_parse("{\"a\":1,\"a\":2}", 13, "t", &j, &d), FO_ERR_INPUT);
    ck_assert(strstr(d.items[0].message, "duplicate") != NULL);
    fo_diags_free(&d);
}
END_TEST

/* Hints come from jansson's error code and the bytes at the error, never
 * from its message text. */
static void hint_is(const char *text, const char *want)
{
    fo_json *j = NULL;
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_json_parse(text, strlen(text), "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert_uint_eq(d.n, 1);
    if (!want) ck_assert_msg(d.items[0].hint == NULL, "%s: unexpected hint %s", text, d.items[0].hint);
    else ck_assert_msg(d.items[0].hint && strstr(d.items[0].hint, want), "%s: hint %s", text,
                       d.items[0].hint ? d.items[0].hint : "(none)");
    fo_diags_free(&d);
}

START_TEST(syntax_hints_from_error_codes)
{
    hint_is("{\"a\":1 \"b\":2}", "missing comma");
    hint_is("{\"a\":\"x\" \"b\":2}", "missing comma");
    hint_is("{\"a\":1,}", "extra one");
    hint_is("[1,]", "extra one");
    hint_is("{\"a\":1", "missing comma");            /* premature end */
    hint_is("{a:1}", "double quotes");
    hint_is("{\"a\": 'x'}", "double quotes");
    hint_is("{\"a\": // c\n1}", "no comments");
    hint_is("{\"a\":tru}", "double quotes");
    hint_is("{\"a\":1} x", "one JSON object");
    hint_is("{\"a\":1,\"a\":2}", "once per object");
    hint_is("{\"a\":\"\xff\"}", "UTF-8");
    hint_is("{\"a\" 1}", NULL);                       /* a key without ':' is no comma problem */
}
END_TEST

START_TEST(locate_items_in_one_pass)
{
    fo_json *j = parse("{\"b\": [\n  {\"x\": 1},\n  \"é\", [2,\n 3], 4\n]}");
    int lines[5], cols[5];
    fo_json_locate_items(j, "/b", 5, lines, cols);
    ck_assert_int_eq(lines[0], 2); ck_assert_int_eq(cols[0], 3);
    ck_assert_int_eq(lines[1], 3); ck_assert_int_eq(cols[1], 3);
    ck_assert_int_eq(lines[2], 3); ck_assert_int_eq(cols[2], 8);
    ck_assert_int_eq(lines[3], 4); ck_assert_int_eq(cols[3], 6);
    ck_assert_int_eq(lines[4], 0); /* only four items */
    for (int k = 0; k < 4; k++) { /* agrees with locating one by one */
        char p[16];
        snprintf(p, sizeof p, "/b/%d", k);
        at(j, p, false, lines[k], cols[k]);
    }
    fo_json_free(j);
}
END_TEST

START_TEST(pointer_escaping)
{
    char p[64] = "";
    fo_json_ptr_push(p, sizeof p, "data");
    fo_json_ptr_push(p, sizeof p, "a/b~c");
    fo_json_ptr_push_index(p, sizeof p, 12);
    ck_assert_str_eq(p, "/data/a~1b~0c/12");
}
END_TEST

/* fo_json_ptr_item writes what snprintf("%s") of the base and "/%zu" gave
 * before it did without them, truncated the same way at every size. */
START_TEST(pointer_items_as_snprintf_wrote_them)
{
    static const char *bases[] = {"", "/blocks/3/data/rows", "/a~1b"};
    static const size_t indices[] = {0, 7, 10, 12345, SIZE_MAX};
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++)
        for (size_t i = 0; i < sizeof indices / sizeof *indices; i++)
            for (size_t cap = 1; cap <= 48; cap++) {
                char want[64], tok[32], got[64];
                snprintf(want, cap, "%s", bases[b]);
                snprintf(tok, sizeof tok, "%zu", indices[i]);
                fo_json_ptr_push(want, cap, tok);
                memset(got, 'x', sizeof got);
                fo_json_ptr_item(got, cap, bases[b], indices[i]);
                ck_assert_str_eq(got, want);
            }
}
END_TEST

/* NaN / Infinity / -Infinity outside strings read as null; positions of
 * everything else stay those of the original text. */
START_TEST(nonfinite_numbers_read_as_null)
{
    const char *text = "{\"a\": [NaN, 1, -Infinity],\n \"s\": \"NaN \\\" Infinity\", \"b\": Infinity}";
    fo_json *j = parse(text);
    json_t *a = json_object_get(fo_json_root(j), "a");
    ck_assert(json_is_null(json_array_get(a, 0)) && json_is_null(json_array_get(a, 2)));
    ck_assert(json_is_null(json_object_get(fo_json_root(j), "b")));
    ck_assert_str_eq(json_string_value(json_object_get(fo_json_root(j), "s")), "NaN \" Infinity");
    int line = 0, col = 0;
    ck_assert_uint_eq(fo_json_nonfinite(j, &line, &col), 3);
    ck_assert_int_eq(line, 1);
    ck_assert_int_eq(col, 8);
    at(j, "/a/1", false, 1, 13); /* after a NaN: still the original column */
    at(j, "/b", false, 2, 31);
    fo_json_free(j);
    j = parse("{\"NaNa\": 1}");
    ck_assert_uint_eq(fo_json_nonfinite(j, &line, &col), 0);
    fo_json_free(j);
    fo_diags d;
    fo_diags_init(&d);
    ck_assert_int_eq(fo_json_parse("[NaNx]", 6, "t.json", &j, &d), FO_ERR_INPUT); /* not a token */
    ck_assert_int_eq(fo_json_parse("[NaN, }", 7, "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert_int_eq(d.items[1].column, 7); /* the caret in the original text */
    fo_diags_free(&d);
}
END_TEST

/* \uXXXX escapes past ASCII (what Python's json.dump writes for every
 * such character) are handed to jansson as UTF-8: the same values, escapes
 * of ASCII and a literal backslash kept, positions still those of the
 * text as written, and what was invalid is still invalid, located there. */
START_TEST(escapes_read_as_their_characters)
{
    const char *text = "{\"a\": \"\\u00e9t\\u00E9 \\u0928\\u092e\",\n"
                       " \"b\": \"\\ud83d\\ude80 \\u0022q\\u0022 \\\\u00e9 \\u0041\\u007f\\u0080\", \"c\\u00e9\": 1}";
    fo_json *j = parse(text);
    json_t *root = fo_json_root(j);
    ck_assert_str_eq(json_string_value(json_object_get(root, "a")),
                     "\xC3\xA9t\xC3\xA9 \xE0\xA4\xA8\xE0\xA4\xAE");
    ck_assert_str_eq(json_string_value(json_object_get(root, "b")),
                     "\xF0\x9F\x9A\x80 \"q\" \\u00e9 A\x7F\xC2\x80");
    ck_assert(json_is_number(json_object_get(root, "c\xC3\xA9")));
    at(j, "/b", false, 2, 7);
    at(j, "/c\xC3\xA9", true, 2, 64);
    fo_json_free(j);
    j = parse("{\"\\ud83d\\ude80\": 1, \"x\": 2}");   /* a key escaped as a surrogate pair */
    at(j, "/\xF0\x9F\x9A\x80", true, 1, 2);
    at(j, "/x", false, 1, 26);
    fo_json_free(j);
    fo_diags d;
    fo_diags_init(&d);
    const char *bad = "{\"a\": \"\\u00e9\\u00e9\", \"b\": [1,,2]}";
    ck_assert_int_eq(fo_json_parse(bad, strlen(bad), "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert_int_eq(d.items[0].line, 1);
    ck_assert_int_eq(d.items[0].column, 31);            /* the second comma, as written */
    const char *lone = "{\"a\": \"\\u00e9\\ud800x\"}";  /* half a surrogate pair */
    ck_assert_int_eq(fo_json_parse(lone, strlen(lone), "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert(strstr(d.items[1].message, "\\ud800") || strstr(d.items[1].message, "surrogate") ||
              strstr(d.items[1].message, "Unicode"));
    const char *outside = "{\"a\": 1, \\u00e9: 2}";    /* an escape outside a string */
    ck_assert_int_eq(fo_json_parse(outside, strlen(outside), "t.json", &j, &d), FO_ERR_INPUT);
    ck_assert_int_eq(d.items[2].column, 10);
    ck_assert_ptr_null(j);
    fo_diags_free(&d);
}
END_TEST

START_TEST(allocation_failures_are_clean)
{
    for (unsigned long n = 1; n < 12; n++) {
        fo_diags d;
        fo_diags_init(&d);
        fo_json *j = NULL;
        fo_alloc_fail_after(n);
        fo_status st = fo_json_parse(doc_text, strlen(doc_text), "t.json", &j, &d);
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM);
        fo_json_free(j);
        fo_diags_free(&d);
    }
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        locate_values_and_keys,
        syntax_errors_are_located,
        syntax_hints_from_error_codes,
        locate_items_in_one_pass,
        pointer_escaping,
        pointer_items_as_snprintf_wrote_them,
        allocation_failures_are_clean,
        nonfinite_numbers_read_as_null,
        escapes_read_as_their_characters,
        NULL,
    };
    return fo_check_tests("json", 0, tests);
}
