/* fuzz_http.c — libFuzzer target for folio serve's request framing check
 * (serve/framing.c, RFC 9112 §6.3), compiled in here: the fuzz build links
 * libfolio.a and libfolio-sandbox.a only, not serve/.
 *
 * Input: header lines "Name: value", separated by '\n' (a line without ':'
 * is a name with an empty value; NUL ends a line's text, as it would a C
 * string from libmicrohttpd). Checked invariant: a request the check lets
 * through is framed one way only, as a second, naive reading of the same
 * headers sees it — Content-Length headers all the same plain decimal, at
 * most one Transfer-Encoding and it exactly "chunked", never both. */
#include "serve/framing.c"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define MAX_LINES 64

static size_t ows_trimmed(const char *v, const char **b)
{
    size_t n;

    while (*v == ' ' || *v == '\t') v++;
    n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
    *b = v;
    return n;
}

/* The naive second reading: aborts when a request let through would be
   read two ways. */
static void recheck(char names[][256], char values[][256], size_t n)
{
    const char *len = NULL, *b;
    size_t len_n = 0, codings = 0, k, m;

    for (k = 0; k < n; k++) {
        if (!strcasecmp(names[k], "transfer-encoding")) {
            m = ows_trimmed(values[k], &b);
            if (m != 7 || strncasecmp(b, "chunked", 7)) abort();
            codings++;
        } else if (!strcasecmp(names[k], "content-length")) {
            m = ows_trimmed(values[k], &b);
            if (!m || strspn(b, "0123456789") < m) abort();
            while (m > 1 && *b == '0')        /* 007 and 7 are the same length */
                b++, m--;
            if (len && (len_n != m || strncmp(len, b, m))) abort();
            len = b;
            len_n = m;
        } else if (!strncasecmp(names[k], "content-length", 14) ||
                   !strncasecmp(names[k], "transfer-encoding", 17)) {
            if (strspn(names[k] + (names[k][0] == 'c' || names[k][0] == 'C' ? 14 : 17), " \t:") ==
                strlen(names[k] + (names[k][0] == 'c' || names[k][0] == 'C' ? 14 : 17)))
                abort();                       /* "Content-Length " passed as another header */
        }
    }
    if (codings > 1 || (codings && len)) abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static char names[MAX_LINES][256], values[MAX_LINES][256];
    fo_http_framing f = { 0, 0, 0, NULL };
    size_t n = 0, at = 0;

    while (at < size && n < MAX_LINES) {
        const unsigned char *nl = memchr(data + at, '\n', size - at);
        size_t end = nl ? (size_t)(nl - data) : size, colon = at;
        while (colon < end && data[colon] != ':') colon++;
        snprintf(names[n], sizeof names[n], "%.*s", (int)(colon - at), (const char *)data + at);
        snprintf(values[n], sizeof values[n], "%.*s", (int)(colon < end ? end - colon - 1 : 0),
                 colon < end ? (const char *)data + colon + 1 : "");
        fo_http_framing_add(&f, names[n], values[n]);
        n++;
        at = end + 1;
    }
    if (!fo_http_framing_check(&f)) recheck(names, values, n);
    return 0;
}
