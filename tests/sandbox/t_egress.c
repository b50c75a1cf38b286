/* t_egress.c — unit tests of the egress proxy's decisions (sandbox/egress/):
 * every refused address range in every spelling, IP literals, name syntax,
 * the allow list and pins, the TLS SNI reader and the DNS messages. */
#include "sandbox/egress/egress.h"
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "tests/check_run.h"

static struct sockaddr_storage addr(const char *s)
{
    struct sockaddr_storage a;

    memset(&a, 0, sizeof a);
    if (inet_pton(AF_INET, s, &((struct sockaddr_in *)&a)->sin_addr) == 1)
        a.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)&a)->sin6_addr) == 1) a.ss_family = AF_INET6;
    else ck_abort_msg("bad test address %s", s);
    return a;
}

static int public(const char *s)
{
    struct sockaddr_storage a = addr(s);
    return fo_egress_addr_public(&a, NULL);
}

/* Every address of list must be public (want 1) or refused (want 0). */
static void check_all(const char *const *list, size_t n, int want)
{
    size_t k;

    for (k = 0; k < n; k++)
        ck_assert_msg(public(list[k]) == want, "%s must be %s", list[k],
                      want ? "allowed" : "refused");
}
#define CHECK_ALL(list, want) check_all(list, sizeof list / sizeof *list, want)

/* ------------------------------------------------------------- addresses */

START_TEST(v4_refused_ranges)
{
    static const char *const refused[] = {
        "0.0.0.0", "0.255.255.255", "10.0.0.1", "10.255.255.255", "100.64.0.1",
        "100.127.255.255", "127.0.0.1", "127.255.255.254", "169.254.169.254", "169.254.0.1",
        "172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.2.1", "192.88.99.1",
        "192.168.1.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
        "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    };

    CHECK_ALL(refused, 0);
}
END_TEST

START_TEST(v4_public_edges)
{
    static const char *const ok[] = {
        "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
        "126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255",
        "172.32.0.0", "192.0.1.0", "192.167.255.255", "192.169.0.0", "198.17.255.255",
        "198.20.0.0", "223.255.255.255", "151.101.0.223",
    };

    CHECK_ALL(ok, 1);
}
END_TEST

START_TEST(v6_refused_ranges)
{
    static const char *const refused[] = {
        "::", "::1", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1", "ff0e::1",
        "2001:db8::1", "3fff::1", "2001::1", "2001:0:4136:e378::1",      /* Teredo */
        "2001:2::1", "2001:10::1", "2001:20::1", "64:ff9b:1::1", "100::1", "fec0::1",
        "4000::1", "1::1",
        /* IPv4 embedded: mapped, compatible, NAT64, 6to4 */
        "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
        "::ffff:100.64.0.1", "::127.0.0.1", "::169.254.169.254", "::10.1.2.3",
        "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::192.168.0.1",
        "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:0101::1", "2002:0a00:0001::",
    };

    CHECK_ALL(refused, 0);
}
END_TEST

START_TEST(v6_public)
{
    static const char *const ok[] = {
        "2606:4700::6810:84e5", "2a04:4e42::223", "2001:4860:4860::8888",
        "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1",
    };

    CHECK_ALL(ok, 1);
}
END_TEST

START_TEST(why_names_the_range)
{
    struct sockaddr_storage a = addr("169.254.169.254");
    const char *why = NULL;

    ck_assert(!fo_egress_addr_public(&a, &why));
    ck_assert_ptr_nonnull(strstr(why, "metadata"));
    a = addr("::ffff:100.64.0.1");
    ck_assert(!fo_egress_addr_public(&a, &why));
    ck_assert_ptr_nonnull(strstr(why, "CGNAT"));
}
END_TEST

/* ------------------------------------------------------------------ names */

START_TEST(ip_literals_in_every_spelling)
{
    static const char *const lit[] = {
        "127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1",
        "017700000001", "0x7f.0.0.1", "169.254.169.254", "0xa9fea9fe", "2852039166",
        "0251.0376.0251.0376", "100.64.0.1", "1681915905", "::1", "[::1]",
        "::ffff:127.0.0.1", "[::ffff:7f00:1]", "fe80::1%eth0", "1.2.3.4.5", "example.123",
        "a.0x10",
    };
    static const char *const names[] = {
        "pypi.org", "a.example.test", "1password.com", "x1.y2.z", "0x.example.com", "123.example.com",
    };
    size_t k;

    for (k = 0; k < sizeof lit / sizeof *lit; k++)
        ck_assert_msg(fo_egress_is_ip_literal(lit[k]), "%s is a literal", lit[k]);
    for (k = 0; k < sizeof names / sizeof *names; k++)
        ck_assert_msg(!fo_egress_is_ip_literal(names[k]), "%s is a name", names[k]);
}
END_TEST

START_TEST(name_normalize)
{
    char out[FO_EGRESS_MAX_NAME + 1], long_label[80], too_long[300];

    ck_assert_int_eq(fo_egress_name_normalize("PyPI.Org.", 9, out), 0);
    ck_assert_str_eq(out, "pypi.org");
    ck_assert_int_eq(fo_egress_name_normalize("a..b", 4, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize(".a", 2, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize("a b", 3, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize("a/b", 3, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize("a\0b", 3, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize("", 0, out), -1);
    memset(long_label, 'a', 64);
    ck_assert_int_eq(fo_egress_name_normalize(long_label, 64, out), -1);
    ck_assert_int_eq(fo_egress_name_normalize(long_label, 63, out), 0);
    memset(too_long, 'a', sizeof too_long);
    for (size_t k = 50; k < sizeof too_long; k += 51) too_long[k] = '.';
    ck_assert_int_eq(fo_egress_name_normalize(too_long, 254, out), -1);
}
END_TEST

/* ----------------------------------------------------------------- policy */

START_TEST(policy_exact_and_suffix)
{
    static fo_egress_policy pol;
    const char *err = NULL;

    memset(&pol, 0, sizeof pol);
    ck_assert_int_eq(fo_egress_policy_add(&pol, "*.example.test,Files.Host.test", &err), 0);
    ck_assert(fo_egress_policy_allows(&pol, "a.example.test"));
    ck_assert(fo_egress_policy_allows(&pol, "b.a.example.test"));
    ck_assert(!fo_egress_policy_allows(&pol, "example.test"));        /* subdomains only */
    ck_assert(!fo_egress_policy_allows(&pol, "example.test.evil"));
    ck_assert(!fo_egress_policy_allows(&pol, "evilexample.test"));
    ck_assert(!fo_egress_policy_allows(&pol, "a.example.testx"));
    ck_assert(fo_egress_policy_allows(&pol, "files.host.test"));
    ck_assert(!fo_egress_policy_allows(&pol, "x.files.host.test"));
    ck_assert(!fo_egress_policy_allows(&pol, "pypi.org"));
}
END_TEST

START_TEST(policy_packages_preset)
{
    static fo_egress_policy pol;
    const char *err = NULL;
    size_t k;

    memset(&pol, 0, sizeof pol);
    ck_assert_int_eq(fo_egress_policy_add(&pol, "packages,a.test", &err), 0);
    for (k = 0; fo_egress_packages[k]; k++) ck_assert(fo_egress_policy_allows(&pol, fo_egress_packages[k]));
    ck_assert(fo_egress_policy_allows(&pol, "pypi.org"));
    ck_assert(fo_egress_policy_allows(&pol, "files.pythonhosted.org"));
    ck_assert(fo_egress_policy_allows(&pol, "registry.npmjs.org"));
    ck_assert(fo_egress_policy_allows(&pol, "a.test"));
    ck_assert(!fo_egress_policy_allows(&pol, "upload.pypi.org"));
    ck_assert_uint_eq(pol.n_rules, k + 1);
}
END_TEST

START_TEST(policy_refuses_bad_lists)
{
    static const char *const bad[] = {
        "", ",", "a.test,", ",a.test", "a..test", "127.0.0.1", "0x7f.1", "[::1]", "*.com",
        "*", "a test", "a.test:443", "http://a.test",
    };
    static fo_egress_policy pol;
    const char *err;
    size_t k;

    for (k = 0; k < sizeof bad / sizeof *bad; k++) {
        memset(&pol, 0, sizeof pol);
        err = NULL;
        ck_assert_msg(fo_egress_policy_add(&pol, bad[k], &err) == -1, "\"%s\" accepted", bad[k]);
        ck_assert_ptr_nonnull(err);
    }
}
END_TEST

START_TEST(policy_pins)
{
    static fo_egress_policy pol;
    const fo_egress_pin *pin;
    const char *err = NULL;

    memset(&pol, 0, sizeof pol);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "A.test=127.0.0.1:8443", &err), 0);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "b.test=[::1]:80", &err), 0);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "c.test=10.0.0.2", &err), 0);
    pin = fo_egress_policy_pinned(&pol, "a.test");
    ck_assert_ptr_nonnull(pin);
    ck_assert_int_eq(pin->addr.ss_family, AF_INET);
    ck_assert_uint_eq(ntohs(((const struct sockaddr_in *)&pin->addr)->sin_port), 8443);
    pin = fo_egress_policy_pinned(&pol, "b.test");
    ck_assert_int_eq(pin->addr.ss_family, AF_INET6);
    pin = fo_egress_policy_pinned(&pol, "c.test");
    ck_assert_uint_eq(((const struct sockaddr_in *)&pin->addr)->sin_port, 0);
    ck_assert_ptr_null(fo_egress_policy_pinned(&pol, "d.test"));
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "a.test=127.0.0.2", &err), -1);   /* twice */
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "d.test", &err), -1);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "d.test=a.b", &err), -1);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "d.test=1.2.3.4:0", &err), -1);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "d.test=1.2.3.4:65536", &err), -1);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "1.2.3.4=1.2.3.4", &err), -1);
    ck_assert_int_eq(fo_egress_policy_pin(&pol, "d.test=[::1", &err), -1);
}
END_TEST

START_TEST(plan_net_options)
{
    const char *a1[] = { "run", "--net", "packages", "--net=allow=a.test,*.b.test", "--net-resolve",
                         "a.test=127.0.0.1:8080", "--", "x", NULL };
    const char *a2[] = { "run", "--net", "allow=a.test", "--net", "none", "--", "x", NULL };
    const char *a3[] = { "run", "--net-resolve", "a.test=127.0.0.1", "--net", "all", "--", "x", NULL };
    fo_sandbox_plan p;
    size_t n;
    int help;

    for (n = 0; fo_egress_packages[n]; n++)
        ;
    /* the parser only reads the arguments */
    ck_assert_int_eq(fo_sandbox_plan_parse(&p, 8, (char **)a1, &help), FO_RUN_OK);
    ck_assert_int_eq(p.net, FO_NET_ALLOW);
    ck_assert_uint_eq(p.egress->n_rules, n + 2);
    ck_assert_uint_eq(p.egress->n_pins, 1);
    ck_assert(fo_egress_policy_allows(p.egress, "c.b.test"));
    fo_sandbox_plan_free(&p);
    ck_assert_int_eq(fo_sandbox_plan_parse(&p, 7, (char **)a2, &help), FO_RUN_OK);
    ck_assert_int_eq(p.net, FO_NET_NONE);
    fo_sandbox_plan_free(&p);
    fflush(stderr);
    ck_assert_int_eq(fo_sandbox_plan_parse(&p, 7, (char **)a3, &help), FO_RUN_USAGE);
    fo_sandbox_plan_free(&p);
}
END_TEST

/* -------------------------------------------------------------------- SNI */

/* A ClientHello with the given extensions block (without its length). */
static size_t hello(uint8_t *b, const uint8_t *ext, size_t ext_len)
{
    size_t n = 0, body;

    b[n++] = 22; b[n++] = 3; b[n++] = 1; n += 2;         /* record, length later */
    b[n++] = 1; n += 3;                                   /* client_hello, length later */
    b[n++] = 3; b[n++] = 3;
    memset(b + n, 0xab, 32); n += 32;                     /* random */
    b[n++] = 0;                                           /* session id */
    b[n++] = 0; b[n++] = 2; b[n++] = 0x13; b[n++] = 0x01; /* one suite */
    b[n++] = 1; b[n++] = 0;                               /* null compression */
    b[n++] = (uint8_t)(ext_len >> 8); b[n++] = (uint8_t)ext_len;
    memcpy(b + n, ext, ext_len); n += ext_len;
    body = n - 9;
    b[3] = (uint8_t)((n - 5) >> 8); b[4] = (uint8_t)(n - 5);
    b[6] = 0; b[7] = (uint8_t)(body >> 8); b[8] = (uint8_t)body;
    return n;
}

static size_t sni_ext(uint8_t *e, const char *name)
{
    size_t l = strlen(name), n = 0;

    e[n++] = 0; e[n++] = 0;                               /* server_name */
    e[n++] = (uint8_t)((l + 5) >> 8); e[n++] = (uint8_t)(l + 5);
    e[n++] = (uint8_t)((l + 3) >> 8); e[n++] = (uint8_t)(l + 3);
    e[n++] = 0;                                           /* host_name */
    e[n++] = (uint8_t)(l >> 8); e[n++] = (uint8_t)l;
    memcpy(e + n, name, l);
    return n + l;
}

START_TEST(sni_reads_the_name)
{
    uint8_t e[300], b[600];
    char name[FO_EGRESS_MAX_NAME + 1];
    size_t el, n;

    el = sni_ext(e, "a.example.test");
    e[el++] = 0x00; e[el++] = 0x2b; e[el++] = 0; e[el++] = 3;   /* supported_versions */
    e[el++] = 2; e[el++] = 3; e[el++] = 4;
    n = hello(b, e, el);
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_OK);
    ck_assert_str_eq(name, "a.example.test");
    ck_assert_int_eq(fo_egress_sni(b, n - 1, name), FO_SNI_MORE);
    ck_assert_int_eq(fo_egress_sni(b, 3, name), FO_SNI_MORE);
}
END_TEST

START_TEST(sni_refusals)
{
    uint8_t e[300], b[600];
    char name[FO_EGRESS_MAX_NAME + 1];
    size_t el, n;

    n = hello(b, (const uint8_t *)"\x00\x2b\x00\x03\x02\x03\x04", 7);
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_NONE);
    el = sni_ext(e, "public.example");
    memcpy(e + el, "\xfe\x0d\x00\x02\xaa\xbb", 6);        /* encrypted_client_hello */
    n = hello(b, e, el + 6);
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_ECH);
    el = sni_ext(e, "a.test");
    el += sni_ext(e + el, "b.test");                      /* two server_name */
    n = hello(b, e, el);
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_BAD);
    ck_assert_int_eq(fo_egress_sni((const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18, name),
                     FO_SNI_BAD);
    el = sni_ext(e, "a.test");
    n = hello(b, e, el);
    b[n - 8] = 0x40;                                      /* name length past its end */
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_BAD);
    memcpy(e, "\x00\x00\x00\x09\x00\x07\x00\x00\x04a\0bc", 13);   /* NUL in the name */
    n = hello(b, e, 13);
    ck_assert_int_eq(fo_egress_sni(b, n, name), FO_SNI_BAD);
}
END_TEST

/* -------------------------------------------------------------------- DNS */

START_TEST(dns_query_and_answer)
{
    uint8_t q[300], r[600];
    struct sockaddr_storage out[FO_EGRESS_MAX_ADDRS];
    size_t n = 0, m;
    int ql, rc;
    char s[64];

    ql = fo_egress_dns_query(q, sizeof q, 0x1234, "a.example.test", 1);
    ck_assert_int_eq(ql, 12 + 16 + 4);
    ck_assert_int_eq(q[12], 1);
    ck_assert_int_eq(q[14], 7);
    /* answer: header + question + CNAME + A (compressed names) */
    memcpy(r, q, (size_t)ql);
    r[2] = 0x81; r[3] = 0x80; r[7] = 2;
    m = (size_t)ql;
    memcpy(r + m, "\xc0\x0c\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x04\x01x\xc0\x0e", 16);
    m += 16;
    memcpy(r + m, "\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x5d\xb8\xd8\x22", 16);
    m += 16;
    ck_assert_int_eq(fo_egress_dns_answer(r, m, 0x1234, "a.example.test", 1, out, &n, &rc), 0);
    ck_assert_uint_eq(n, 1);
    fo_egress_addr_str(&out[0], s, sizeof s);
    ck_assert_str_eq(s, "93.184.216.34");
    /* wrong id, wrong name, truncated: refused */
    n = 0;
    ck_assert_int_eq(fo_egress_dns_answer(r, m, 0x1235, "a.example.test", 1, out, &n, &rc), -1);
    ck_assert_int_eq(fo_egress_dns_answer(r, m, 0x1234, "b.example.test", 1, out, &n, &rc), -1);
    ck_assert_int_eq(fo_egress_dns_answer(r, m - 3, 0x1234, "a.example.test", 1, out, &n, &rc),
                     -1);
    /* NXDOMAIN */
    r[3] = 0x83;
    ck_assert_int_eq(fo_egress_dns_answer(r, m, 0x1234, "a.example.test", 1, out, &n, &rc), -1);
    ck_assert_int_eq(rc, 3);
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* ------------------------------------------------------------ head.c */

static int head(const char *h, fo_egress_request *rq, char *why)
{
    return fo_egress_parse_head(h, strlen(h), rq, why, 200);
}

START_TEST(head_smuggling_shapes_are_refused)
{
    static const char *const bad[] = {
        "Host : other.example\r\n",                  /* space before the colon */
        "Connection : keep-alive\r\n",
        "Host\t: other.example\r\n",                 /* tab before the colon */
        "Host\t:other.example\r\n",
        " Host: other.example\r\n",                  /* obs-fold */
        "X: 1\r\n\tHost: other.example\r\n",
        "X: 1\r\n continued\r\n",
        ": empty name\r\n",
        "no colon at all\r\n",
        "Ho st: other.example\r\n",
        "Host: a.example\r\nHost: other.example\r\n", /* two Hosts */
        "Host: a.example\r\nhost: a.example\r\n",
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: 5, 5\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "X: a\001b\r\n",                             /* control character in a value */
        "X: 1\nHost: other.example\r\n",             /* bare LF */
        "X: 1\rHost: other.example\r\n",             /* bare CR */
        "H\xc3\xb6st: x\r\n",                        /* not a token */
    };
    static const char *const line[] = {
        "GET http://a.example/ HTTP/1.1",
        "CONNECT a.example:443 HTTP/1.1",
    };
    fo_egress_request rq;
    char h[512], why[200];
    size_t k, m;

    for (m = 0; m < 2; m++)
        for (k = 0; k < sizeof bad / sizeof *bad; k++) {
            snprintf(h, sizeof h, "%s\r\n%s\r\n", line[m], bad[k]);
            why[0] = 0;
            ck_assert_msg(head(h, &rq, why) == 400, "accepted: %s", bad[k]);
            ck_assert_msg(why[0] && !strpbrk(why, "\r\n"), "no reason for %s", bad[k]);
        }
    ck_assert_int_eq(head("GET http://a.example/ HTTP/1.1\r\nHost : x\r\n\r\n", &rq, why), 400);
    ck_assert_str_eq(why, "header line 2: whitespace in or after the field name, "
                          "before the ':' (RFC 9112 5.1)");
    /* request lines */
    ck_assert_int_eq(head("GET  http://a.example/ HTTP/1.1\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("GET http://a.example/ HTTP/1.1 \r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("GET http://a.example/\t HTTP/1.1\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("G(T http://a.example/ HTTP/1.1\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("GET http://u@a.example/ HTTP/1.1\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("GET /x HTTP/1.1\r\nHost: a.example\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("CONNECT a.example HTTP/1.1\r\n\r\n", &rq, why), 400);
    ck_assert_int_eq(head("GET http://a.example/ HTTP/2\r\n\r\n", &rq, why), 400);
}
END_TEST

START_TEST(head_clean_ones_parse_and_forward)
{
    static const char h1[] = "GET http://A.example:8080/p?q=1 HTTP/1.1\r\n"
                             "Host: a.example:8080\r\nUser-Agent: curl\r\n"
                             "Proxy-Connection: Keep-Alive\r\nproxy-authorization: x\r\n"
                             "Connection: keep-alive\r\nKeep-Alive: 5\r\nContent-Length: 3\r\n"
                             "content-length: 3\r\nX-Empty:\r\nX-Tab:\tv \r\nProx: kept\r\n\r\n";
    fo_egress_request rq;
    fo_buf b = { 0 };
    char why[200];

    ck_assert_int_eq(fo_egress_parse_head(h1, sizeof h1 - 1, &rq, why, sizeof why), 0);
    ck_assert_str_eq(rq.method, "GET");
    ck_assert_str_eq(rq.host, "A.example");
    ck_assert_uint_eq(rq.port, 8080);
    ck_assert_str_eq(rq.target, "/p?q=1");
    ck_assert_int_eq(fo_egress_forward_head(h1, sizeof h1 - 1, &rq, &b), 0);
    ck_assert_str_eq(b.data, "GET /p?q=1 HTTP/1.1\r\nUser-Agent: curl\r\nContent-Length: 3\r\n"
                             "content-length: 3\r\nX-Empty:\r\nX-Tab:\tv \r\nProx: kept\r\n"
                             "Host: A.example:8080\r\nConnection: close\r\n\r\n");
    fo_buf_free(&b);
    ck_assert_int_eq(head("GET http://a.example HTTP/1.0\r\n\r\n", &rq, why), 0);
    ck_assert_str_eq(rq.target, "/");
    ck_assert_uint_eq(rq.port, 80);
    ck_assert_int_eq(head("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n",
                          &rq, why), 0);
    ck_assert_str_eq(rq.host, "a.example");
    ck_assert_uint_eq(rq.port, 443);
    /* a request line alone: what an abandoned connection said */
    ck_assert_int_eq(fo_egress_parse_request_line("CONNECT b.example:443 HTTP/1.1", 30, &rq,
                                                  why, sizeof why), 0);
    ck_assert_str_eq(rq.host, "b.example");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        v4_refused_ranges,
        v4_public_edges,
        v6_refused_ranges,
        v6_public,
        why_names_the_range,
        ip_literals_in_every_spelling,
        name_normalize,
        policy_exact_and_suffix,
        policy_packages_preset,
        policy_refuses_bad_lists,
        policy_pins,
        plan_net_options,
        sni_reads_the_name,
        sni_refusals,
        dns_query_and_answer,
        head_smuggling_shapes_are_refused,
        head_clean_ones_parse_and_forward,
        NULL,
    };
    return fo_check_tests("egress", 0, tests);
}
