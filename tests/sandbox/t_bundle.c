/* t_bundle.c — unit tests of sandbox/session_bundle.c: the strict JSON check
 * that guards a kernel's `+json` forms, and a bundle assembled from frames
 * (pieces joined, bad forms dropped with their reason, the cap kept). */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_super.h"

#include <check.h>
#include <string.h>
#include "tests/check_run.h"

static int valid(const char *s)
{
    return fo_session_json_valid(s, strlen(s));
}

START_TEST(json_check_is_strict)
{
    const char *good[] = { "0", "-0.5e+3", "\"\\u00e9\\n\"", "[]", "{}", " [1, {\"a\": [true, "
                           "false, null]}] ", "\"é\"", "9223372036854775807", "1e-999", NULL };
    const char *bad[] = { "", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "[1 2]", "{a:1}",
                          "\"\x01\"", "\"\\x\"", "\"\\u12\"", "tru", "[1] x", "1e999",
                          "9223372036854775808", "\"\xc3\"", "{\"a\"}", "[", NULL };
    char deep[200];

    for (int k = 0; good[k]; k++) ck_assert_msg(valid(good[k]), "refused: %s", good[k]);
    for (int k = 0; bad[k]; k++) ck_assert_msg(!valid(bad[k]), "accepted: %s", bad[k]);
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = 0;
    ck_assert(valid(deep));                       /* 64 deep */
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = 0;
    ck_assert(!valid(deep));                      /* 65: refused, never recursed past */
}
END_TEST

static void add(fo_bundle *b, const char *mime, const char *data)
{
    char frame[256];
    size_t ml = strlen(mime), dl = strlen(data);

    memcpy(frame, mime, ml);
    frame[ml] = 0;
    memcpy(frame + ml + 1, data, dl);
    fo_session_bundle_add(b, frame, ml + 1 + dl);
}

START_TEST(bundle_from_frames)
{
    fo_bundle b;

    memset(&b, 0, sizeof b);
    fo_session_bundle_begin(&b, "d\0displays/x.png", 16, 1 << 20);
    ck_assert_str_eq(b.path, "displays/x.png");
    add(&b, "text/plain", "a \"quoted\"");
    add(&b, "text/plain", " line\n");
    add(&b, "image/png", "iVBO");
    add(&b, "image/png", "Rw==");
    add(&b, "application/json", "{\"k\": [1, ");
    add(&b, "application/json", "2]}");
    add(&b, "image/jpeg", "not*base64");
    add(&b, "TEXT/x", "ignored");
    ck_assert_int_eq(fo_session_bundle_end(&b), 0);
    ck_assert_str_eq(b.json.data,
                     "{\"data\": {\"text/plain\": \"a \\\"quoted\\\" line\\n\", \"image/png\": "
                     "\"iVBORw==\", \"application/json\": {\"k\": [1, 2]}}, \"metadata\": "
                     "{\"truncated\": {\"cap_bytes\": 1048576, \"dropped\": [{\"mime\": "
                     "\"image/jpeg\", \"reason\": \"not base64\"}]}}}");
    ck_assert_int_eq((int)b.plain.len, (int)strlen("a \"quoted\" line\n"));
    ck_assert_int_eq(fo_session_bundle_end(&b), -1);   /* none open */

    fo_session_bundle_begin(&b, "x", 1, 40);            /* a cap of 40 bytes of JSON */
    add(&b, "text/plain", "short");
    add(&b, "text/html", "<p>far too long for what is left</p>");
    ck_assert_int_eq(fo_session_bundle_end(&b), 0);
    ck_assert_ptr_nonnull(strstr(b.json.data, "\"data\": {\"text/plain\": \"short\"}"));
    ck_assert_ptr_nonnull(strstr(b.json.data, "\"reason\": \"over the bundle's size cap\""));
    fo_session_bundle_free(&b);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        json_check_is_strict,
        bundle_from_frames,
        NULL,
    };
    return fo_check_tests("bundle", 0, tests);
}
