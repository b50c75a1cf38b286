/* fuzz_egress.c — libFuzzer target for the egress proxy's readers of bytes
 * that come from the jail or the network: the TLS ClientHello SNI reader, the
 * DNS answer parser, the name checks (normalize, IP literal, policy), and the
 * request head (head.c: the strict header check, the request line, the head
 * as forwarded).
 *
 * The sandbox/egress files these live in are compiled in here. Input: one
 * control byte (which reader, DNS query type; % 5), then the bytes. Checked
 * invariants: an SNI read as OK is a NUL-free string of 1..253 bytes; DNS
 * yields at most FO_EGRESS_MAX_ADDRS addresses, each of the queried family; a
 * normalized name is lower case and passes normalization again unchanged; a
 * head is either refused with a one-line reason or has a method, a host and a
 * port, and its forwarded form holds exactly one Host and one Connection
 * line, no whitespace before any colon, and one blank line, at its end.
 * Seeds (tests/fuzz/seeds/fuzz_egress/head-*): the smuggling shapes. */
#include "sandbox/egress/addr.c"
#include "sandbox/egress/dns.c"
#include "sandbox/egress/policy.c"
#include "sandbox/egress/sni.c"
#include "sandbox/egress/head.c"

#include <stdlib.h>

/* The forwarded head b[0..n): one blank line, at the end; every line a
   token name directly followed by ':'; one Host, one Connection. */
static void check_forwarded(const char *b, size_t n)
{
    const char *l = memmem(b, n, "\r\n", 2), *end = b + n - 2;
    int host = 0, conn = 0;

    if (!l || n < 4 || memcmp(b + n - 4, "\r\n\r\n", 4) ||
        (const char *)memmem(b, n, "\r\n\r\n", 4) != b + n - 4)
        abort();
    for (l += 2; l < end;) {
        const char *eol = memmem(l, (size_t)(end + 2 - l), "\r\n", 2), *c;
        if (!eol || !(c = memchr(l, ':', (size_t)(eol - l))) || c == l) abort();
        for (const char *p = l; p < c; p++)
            if (!is_tchar((unsigned char)*p)) abort();
        host += name_is(l, (size_t)(c - l), "host");
        conn += name_is(l, (size_t)(c - l), "connection");
        l = eol + 2;
    }
    if (host != 1 || conn != 1) abort();
}

static void fuzz_head(const uint8_t *d, size_t n)
{
    const char *h = (const char *)d, *end = memmem(h, n, "\r\n\r\n", 4);
    fo_egress_request rq;
    char why[200];
    int st;

    if (!end) {                                  /* abandoned: its request line */
        const char *eol = memmem(h, n, "\r\n", 2);
        if (fo_egress_parse_request_line(h, eol ? (size_t)(eol - h) : n, &rq, why,
                                         sizeof why) == 0 &&
            (!rq.method[0] || !rq.host[0] || rq.port > 65535))
            abort();
        return;
    }
    why[0] = 0;
    st = fo_egress_parse_head(h, (size_t)(end - h) + 4, &rq, why, sizeof why);
    if (st) {
        if (st != 400 || !why[0] || strpbrk(why, "\r\n")) abort();
        return;
    }
    if (!rq.method[0] || !rq.host[0] || strlen(rq.host) > FO_EGRESS_MAX_NAME ||
        (strcmp(rq.method, "CONNECT") && (rq.port == 0 || rq.port > 65535 || rq.target[0] != '/')))
        abort();
    if (strcmp(rq.method, "CONNECT")) {
        fo_buf b = { 0 };
        if (fo_egress_forward_head(h, (size_t)(end - h) + 4, &rq, &b) == 0) check_forwarded(b.data, b.len);
        fo_buf_free(&b);
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void fuzz_sni(const uint8_t *d, size_t n)
{
    char name[FO_EGRESS_MAX_NAME + 1];

    if (fo_egress_sni(d, n, name) == FO_SNI_OK) {
        size_t l = strlen(name);
        if (l == 0 || l > FO_EGRESS_MAX_NAME) abort();
    }
}

static void fuzz_dns(const uint8_t *d, size_t n, uint16_t type)
{
    struct sockaddr_storage out[FO_EGRESS_MAX_ADDRS];
    size_t got = 0, k;
    int rc;

    if (n < 2) return;
    (void)fo_egress_dns_answer(d, n, (uint16_t)(d[0] << 8 | d[1]), "a.example.test", type, out,
                               &got, &rc);
    if (got > FO_EGRESS_MAX_ADDRS) abort();
    for (k = 0; k < got; k++) {
        if (out[k].ss_family != (type == 1 ? AF_INET : AF_INET6)) abort();
        (void)fo_egress_addr_public(&out[k], NULL);
    }
}

static void fuzz_name(const uint8_t *d, size_t n)
{
    static fo_egress_policy pol;
    char name[FO_EGRESS_MAX_NAME + 1], again[FO_EGRESS_MAX_NAME + 1], *s;
    const char *err;

    if (fo_egress_name_normalize((const char *)d, n, name) == 0) {
        if (fo_egress_name_normalize(name, strlen(name), again) != 0 || strcmp(name, again)) abort();
        (void)fo_egress_is_ip_literal(name);
        (void)fo_egress_policy_allows(&pol, name);
    }
    s = malloc(n + 1);
    if (!s) return;
    memcpy(s, d, n);
    s[n] = 0;
    memset(&pol, 0, sizeof pol);
    (void)fo_egress_policy_add(&pol, s, &err);
    (void)fo_egress_policy_pin(&pol, s, &err);
    (void)fo_egress_is_ip_literal(s);
    free(s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1) return 0;
    switch (data[0] % 5) {
    case 0: fuzz_sni(data + 1, size - 1); break;
    case 1: fuzz_dns(data + 1, size - 1, 1); break;
    case 2: fuzz_dns(data + 1, size - 1, 28); break;
    case 3: fuzz_name(data + 1, size - 1); break;
    default: fuzz_head(data + 1, size - 1); break;
    }
    return 0;
}
