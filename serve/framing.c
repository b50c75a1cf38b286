/* framing.c — is a request's body framed one way only? (RFC 9112 §6.3)
 *
 * libmicrohttpd parses the request; this looks at its headers before any
 * body is taken. A request whose framing two parsers could read two ways is
 * the shape of request smuggling (a proxy in front takes one length, this
 * server another, and the leftover bytes become a second request), so it is
 * refused and its connection closed: two Content-Length headers that
 * differ, one that is not a plain decimal, Content-Length beside
 * Transfer-Encoding, a Transfer-Encoding other than exactly "chunked" (the
 * only coding accepted), or a header name that only looks like one of them
 * ("Content-Length " with space before the colon, which a lenient parser
 * trims). Pure: no I/O, no allocation; tests/fuzz/fuzz_http.c calls it. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"

#include <string.h>
#include <strings.h>

/* value without the optional whitespace (SP, HTAB) around it: [*b, *e) */
static void trim_ows(const char *v, const char **b, const char **e)
{
    *b = v;
    *e = v + strlen(v);
    while (*b < *e && (**b == ' ' || **b == '\t')) (*b)++;
    while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t')) (*e)--;
}

/* 2 when name is want (ignoring case); 1 when it is want followed only by
   white space or colons, which a lenient parser drops; else 0. */
static int name_is(const char *name, const char *want)
{
    size_t n = strlen(want);

    if (strncasecmp(name, want, n)) return 0;
    if (!name[n]) return 2;
    return strspn(name + n, " \t:") == strlen(name + n) ? 1 : 0;
}

static void refuse(fo_http_framing *f, const char *why)
{
    if (!f->why) f->why = why;
}

void fo_http_framing_add(fo_http_framing *f, const char *name, const char *value)
{
    const char *b, *e, *p;
    uint64_t len = 0;
    int cl, te;

    if (!name || !value) return;
    cl = name_is(name, "Content-Length");
    te = name_is(name, "Transfer-Encoding");
    if (cl == 1 || te == 1) {
        refuse(f, "a framing header's name has white space before its colon");
        return;
    }
    trim_ows(value, &b, &e);
    if (cl) {
        if (b == e || e - b > 19) {
            refuse(f, "Content-Length is not a decimal number of bytes");
            return;
        }
        for (p = b; p < e; p++) {
            if (*p < '0' || *p > '9') {
                refuse(f, "Content-Length is not a decimal number of bytes");
                return;
            }
            len = len * 10 + (uint64_t)(*p - '0');
        }
        if (f->n_length && f->length != len) refuse(f, "two Content-Length headers with different values");
        f->length = len;
        f->n_length++;
    } else if (te) {
        f->n_coding++;
        if ((size_t)(e - b) != 7 || strncasecmp(b, "chunked", 7))
            refuse(f, "Transfer-Encoding other than exactly \"chunked\"");
    }
}

const char *fo_http_framing_check(const fo_http_framing *f)
{
    if (f->why) return f->why;
    if (f->n_coding > 1) return "Transfer-Encoding sent more than once";
    if (f->n_coding && f->n_length) return "both Content-Length and Transfer-Encoding";
    return NULL;
}
