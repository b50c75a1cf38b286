/* head.c — the request head a jail sends to the egress proxy: checked,
 * parsed, and (plain HTTP) rewritten for the server.
 *
 * Pure functions over bytes, no I/O: the unit tests and the fuzzer reach
 * them as proxy.c does. Strict, because the proxy and the server must read
 * one head the same way: a line the proxy does not take for a Host or
 * Connection header and a lenient server does (`Host : other`, `Host\t:`, a
 * folded line, a second Host) would carry a request for another virtual
 * host past the filter. What RFC 9112 says a server must refuse, the proxy
 * refuses with 400, and a little more (see fo_egress_parse_head). */
#include "sandbox/egress/egress.h"
#define FO_SANDBOX_PRIVATE
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Writes the reason into why (one line) and returns status. */
__attribute__((format(printf, 4, 5)))
static int refuse(int status, char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return status;
}

/* RFC 9110 §5.6.2: the characters of a token (field names, methods). */
static int is_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* "host:port" or "host" (port dflt) -> rq->host, rq->port. 0 or -1. */
static int split_authority(fo_egress_request *rq, const char *s, size_t n, unsigned dflt)
{
    const char *colon = memchr(s, ':', n), *rb = memchr(s, ']', n);
    size_t hl = n;

    rq->port = dflt;
    if (n > 0 && s[0] == '[') {                 /* IPv6 literal: kept for the log */
        hl = rb ? (size_t)(rb - s) + 1 : n;
        colon = rb && (size_t)(rb - s) + 1 < n && rb[1] == ':' ? rb + 1 : NULL;
    } else if (colon) {
        hl = (size_t)(colon - s);
    }
    if (colon) {
        unsigned long p = 0;
        const char *d;
        for (d = colon + 1; d < s + n; d++) {
            if (*d < '0' || *d > '9' || p > 65535) return -1;
            p = p * 10 + (unsigned)(*d - '0');
        }
        if (d == colon + 1 || p == 0 || p > 65535) return -1;
        rq->port = (unsigned)p;
    }
    if (hl == 0 || hl > FO_EGRESS_MAX_NAME) return -1;
    memcpy(rq->host, s, hl);
    rq->host[hl] = 0;
    return 0;
}

int fo_egress_parse_request_line(const char *l, size_t n, fo_egress_request *rq, char *why,
                                 size_t cap)
{
    const char *sp1 = memchr(l, ' ', n), *t, *sp2;
    size_t tl, i, auth;

    memset(rq, 0, sizeof *rq);
    if (!sp1 || sp1 == l || (size_t)(sp1 - l) >= sizeof rq->method)
        return refuse(400, why, cap, "malformed request line (no method)");
    for (i = 0; l + i < sp1; i++)
        if (!is_tchar((unsigned char)l[i])) return refuse(400, why, cap, "malformed request line (method)");
    t = sp1 + 1;
    sp2 = memchr(t, ' ', n - (size_t)(t - l));
    if (!sp2 || sp2 == t) return refuse(400, why, cap, "malformed request line (no target)");
    tl = (size_t)(sp2 - t);
    for (i = 0; i < tl; i++)
        if (is_ctl((unsigned char)t[i]))
            return refuse(400, why, cap, "malformed request line (control character)");
    if (l + n - (sp2 + 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) || sp2[8] < '0' || sp2[8] > '9')
        return refuse(400, why, cap, "malformed request line (not HTTP/1.x)");
    memcpy(rq->method, l, (size_t)(sp1 - l));
    if (!strcmp(rq->method, "CONNECT"))
        return split_authority(rq, t, tl, 0) < 0 || rq->port == 0
                   ? refuse(400, why, cap, "malformed CONNECT target (host:port)") : 0;
    if (tl < 8 || strncasecmp(t, "http://", 7))
        return refuse(400, why, cap, "only CONNECT (https) or an absolute http:// URI "
                                     "can go through this proxy");
    t += 7;
    tl -= 7;
    for (auth = 0; auth < tl && !strchr("/?#", t[auth]); auth++)
        ;
    if (split_authority(rq, t, auth, 80) < 0 || memchr(t, '@', auth)) {
        rq->host[0] = 0;
        return refuse(400, why, cap, "malformed host in the URI");
    }
    snprintf(rq->target, sizeof rq->target, "%s%.*s", t[auth] == '/' ? "" : "/",
             (int)(tl - auth), t + auth);
    return 0;
}

/* 1 if the field name l[0..n) is name (ASCII, any case). */
static int name_is(const char *l, size_t n, const char *name)
{
    return n == strlen(name) && !strncasecmp(l, name, n);
}

/* Checks one header line l[0..n) (no CRLF), number no (from 2, the request
   line being 1). Host, Content-Length and Transfer-Encoding seen are noted
   in *host, *cl (the value; NULL: none yet) and *te. 0 or 400. */
static int check_field(const char *l, size_t n, int no, int *host, const char **cl,
                       size_t *cl_len, int *te, char *why, size_t cap)
{
    const char *colon = memchr(l, ':', n), *v, *ve;
    size_t nl, i;

    if (n > 0 && (l[0] == ' ' || l[0] == '\t'))
        return refuse(400, why, cap, "header line %d is folded (starts with whitespace; "
                                     "RFC 9112 5.2)", no);
    if (!colon) return refuse(400, why, cap, "header line %d has no ':'", no);
    nl = (size_t)(colon - l);
    if (nl == 0) return refuse(400, why, cap, "header line %d has an empty field name", no);
    for (i = 0; i < nl; i++) {
        if (l[i] == ' ' || l[i] == '\t')
            return refuse(400, why, cap, "header line %d: whitespace in or after the field "
                                         "name, before the ':' (RFC 9112 5.1)", no);
        if (!is_tchar((unsigned char)l[i]))
            return refuse(400, why, cap, "header line %d: a character not allowed in a "
                                         "field name", no);
    }
    for (v = colon + 1, ve = l + n; v < ve; v++)
        if (is_ctl((unsigned char)*v) && *v != '\t')
            return refuse(400, why, cap, "header line %d: a control character in the value", no);
    for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++)
        ;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
    if (name_is(l, nl, "host")) {
        if ((*host)++) return refuse(400, why, cap, "more than one Host header (RFC 9112 3.2)");
    } else if (name_is(l, nl, "content-length")) {
        const char *d = v;
        while (d < ve && *d >= '0' && *d <= '9') d++;
        if (v == ve || d != ve)
            return refuse(400, why, cap, "header line %d: Content-Length is not a number", no);
        if (*cl && (*cl_len != (size_t)(ve - v) || memcmp(*cl, v, *cl_len)))
            return refuse(400, why, cap, "Content-Length headers that differ");
        *cl = v;
        *cl_len = (size_t)(ve - v);
    } else if (name_is(l, nl, "transfer-encoding")) {
        *te = 1;
    }
    return 0;
}

int fo_egress_parse_head(const char *h, size_t n, fo_egress_request *rq, char *why, size_t cap)
{
    const char *l, *end, *eol, *cl = NULL;
    size_t i, cl_len = 0;
    int st, no = 1, host = 0, te = 0;

    memset(rq, 0, sizeof *rq);
    if (n < 4 || memcmp(h + n - 4, "\r\n\r\n", 4)) return refuse(400, why, cap, "malformed request head");
    for (i = 0; i < n; i++)
        if (h[i] == 0 || (h[i] == '\r' && (i + 1 >= n || h[i + 1] != '\n')) ||
            (h[i] == '\n' && (i == 0 || h[i - 1] != '\r')))
            return refuse(400, why, cap, "a NUL, or a CR or LF alone, in the request head");
    eol = memmem(h, n, "\r\n", 2);
    st = fo_egress_parse_request_line(h, (size_t)(eol - h), rq, why, cap);
    if (st) return st;
    end = h + n - 2;                              /* the blank line's CRLF */
    for (l = eol + 2; l < end; l = eol + 2) {
        eol = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
        st = check_field(l, (size_t)(eol - l), ++no, &host, &cl, &cl_len, &te, why, cap);
        if (st) return st;
    }
    if (te && cl) return refuse(400, why, cap, "both Transfer-Encoding and Content-Length");
    return 0;
}

int fo_egress_forward_head(const char *h, size_t n, const fo_egress_request *rq, fo_buf *b)
{
    const char *l = (const char *)memmem(h, n, "\r\n", 2) + 2, *end = h + n - 2;

    fo_buf_printf(b, "%s ", rq->method);
    fo_buf_append(b, rq->target, strlen(rq->target));
    fo_buf_puts(b, " HTTP/1.1\r\n");
    while (l < end) {
        const char *eol = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
        size_t nl = (size_t)((const char *)memchr(l, ':', (size_t)(eol - l)) - l);
        if (!name_is(l, nl, "host") && !name_is(l, nl, "connection") &&
            !name_is(l, nl, "keep-alive") && !(nl >= 6 && !strncasecmp(l, "proxy-", 6)))
            fo_buf_append(b, l, (size_t)(eol - l) + 2);
        l = eol + 2;
    }
    if (rq->port == 80)
        fo_buf_printf(b, "Host: %s\r\nConnection: close\r\n\r\n", rq->host);
    else fo_buf_printf(b, "Host: %s:%u\r\nConnection: close\r\n\r\n", rq->host, rq->port);
    return b->failed ? -1 : 0;
}
