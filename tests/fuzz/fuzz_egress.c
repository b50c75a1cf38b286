/* fuzz_egress.c — libFuzzer target for the egress proxy's readers of bytes
 * that come from the jail or the network: the TLS ClientHello SNI reader, the
 * DNS answer parser, and the name checks (normalize, IP literal, policy).
 *
 * The fuzz build links libfolio.a only, so the three sandbox/egress files
 * these live in are compiled in here (and policy.c). Input: one control byte (which reader,
 * DNS query type), then the bytes. Checked invariants: an SNI read as OK is a
 * NUL-free string of 1..253 bytes; DNS yields at most FO_EGRESS_MAX_ADDRS
 * addresses, each of the queried family; a normalized name is lower case and
 * passes normalization again unchanged. */
#include "sandbox/egress/addr.c"
#include "sandbox/egress/dns.c"
#include "sandbox/egress/policy.c"
#include "sandbox/egress/sni.c"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void fuzz_sni(const uint8_t *d, size_t n)
{
    char name[FO_EGRESS_MAX_NAME + 1];

    if (fo_egress_sni(d, n, name) == FO_SNI_OK) {
        size_t l = strlen(name);
        if (l == 0 || l > FO_EGRESS_MAX_NAME)
            abort();
    }
}

static void fuzz_dns(const uint8_t *d, size_t n, uint16_t type)
{
    struct sockaddr_storage out[FO_EGRESS_MAX_ADDRS];
    size_t got = 0, k;
    int rc;

    if (n < 2)
        return;
    (void)fo_egress_dns_answer(d, n, (uint16_t)(d[0] << 8 | d[1]), "a.example.test", type, out,
                               &got, &rc);
    if (got > FO_EGRESS_MAX_ADDRS)
        abort();
    for (k = 0; k < got; k++) {
        if (out[k].ss_family != (type == 1 ? AF_INET : AF_INET6))
            abort();
        (void)fo_egress_addr_public(&out[k], NULL);
    }
}

static void fuzz_name(const uint8_t *d, size_t n)
{
    static fo_egress_policy pol;
    char name[FO_EGRESS_MAX_NAME + 1], again[FO_EGRESS_MAX_NAME + 1], *s;
    const char *err;

    if (fo_egress_name_normalize((const char *)d, n, name) == 0) {
        if (fo_egress_name_normalize(name, strlen(name), again) != 0 || strcmp(name, again))
            abort();
        (void)fo_egress_is_ip_literal(name);
        (void)fo_egress_policy_allows(&pol, name);
    }
    s = malloc(n + 1);
    if (!s)
        return;
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
    if (size < 1)
        return 0;
    switch (data[0] % 4) {
    case 0: fuzz_sni(data + 1, size - 1); break;
    case 1: fuzz_dns(data + 1, size - 1, 1); break;
    case 2: fuzz_dns(data + 1, size - 1, 28); break;
    default: fuzz_name(data + 1, size - 1); break;
    }
    return 0;
}
