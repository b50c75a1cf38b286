/* addr.c — which addresses the egress proxy may dial, and which names are
 * really addresses. One table per family (IANA special-purpose registries,
 * RFC 6890 and successors); IPv6 forms that embed an IPv4 address are
 * judged by the address they embed. */
#include "sandbox/egress/egress.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct { uint32_t net; unsigned bits; const char *why; } v4_range;
typedef struct { uint8_t net[16]; unsigned bits; const char *why; } v6_range;

/* Every IPv4 range that is not globally routable unicast. */
static const v4_range v4_refused[] = {
    { 0x00000000, 8,  "unspecified (0.0.0.0/8)" },
    { 0x0a000000, 8,  "private (10/8)" },
    { 0x64400000, 10, "shared CGNAT (100.64/10)" },
    { 0x7f000000, 8,  "loopback (127/8)" },
    { 0xa9fe0000, 16, "link-local / cloud metadata (169.254/16)" },
    { 0xac100000, 12, "private (172.16/12)" },
    { 0xc0000000, 24, "IETF protocol assignments (192.0.0/24)" },
    { 0xc0000200, 24, "documentation (192.0.2/24)" },
    { 0xc0586300, 24, "6to4 relay anycast (192.88.99/24)" },
    { 0xc0a80000, 16, "private (192.168/16)" },
    { 0xc6120000, 15, "benchmarking (198.18/15)" },
    { 0xc6336400, 24, "documentation (198.51.100/24)" },
    { 0xcb007100, 24, "documentation (203.0.113/24)" },
    { 0xe0000000, 4,  "multicast (224/4)" },
    { 0xf0000000, 4,  "reserved / broadcast (240/4)" },
};

/* IPv6: only 2000::/3 is global unicast; inside it, these are not. The
   embedded-IPv4 forms (::/96, ::ffff:0:0/96, 64:ff9b::/96, 2002::/16) are
   handled before this table. */
static const v6_range v6_refused[] = {
    { { 0x20, 0x01, 0x00, 0x00 }, 32, "Teredo (2001::/32)" },
    { { 0x20, 0x01, 0x00, 0x02 }, 48, "benchmarking (2001:2::/48)" },
    { { 0x20, 0x01, 0x00, 0x10 }, 28, "ORCHID (2001:10::/28)" },
    { { 0x20, 0x01, 0x00, 0x20 }, 28, "ORCHIDv2 (2001:20::/28)" },
    { { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation (2001:db8::/32)" },
    { { 0x20, 0x01, 0x00, 0x00 }, 23, "IETF protocol assignments (2001::/23)" },
    { { 0x3f, 0xff }, 20, "documentation (3fff::/20)" },
};

static int v4_why(uint32_t a, const char **why)
{
    size_t k;

    for (k = 0; k < sizeof v4_refused / sizeof *v4_refused; k++) {
        uint32_t mask = v4_refused[k].bits ? ~0u << (32 - v4_refused[k].bits) : 0;
        if ((a & mask) == v4_refused[k].net) {
            if (why) *why = v4_refused[k].why;
            return 0;
        }
    }
    return 1;
}

static int prefix_eq(const uint8_t *a, const uint8_t *net, unsigned bits)
{
    unsigned full = bits / 8, rest = bits % 8;

    if (memcmp(a, net, full)) return 0;
    return rest == 0 || ((a[full] ^ net[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int v6_why(const uint8_t *a, const char **why)
{
    static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff },
                         nat64[12] = { 0x00, 0x64, 0xff, 0x9b },
                         nat64_local[6] = { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 };
    size_t k;

    /* embedded IPv4: mapped ::ffff:a.b.c.d, compatible ::a.b.c.d (:: and
       ::1 fall in 0/8 there), NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD:: */
    if (!memcmp(a, zero, 15) && a[15] <= 1) {
        if (why) *why = a[15] ? "loopback (::1)" : "unspecified (::)";
        return 0;
    }
    if (!memcmp(a, mapped, 12) || !memcmp(a, zero, 12) || !memcmp(a, nat64, 12))
        return v4_why(be32(a + 12), why);
    if (a[0] == 0x20 && a[1] == 0x02) return v4_why(be32(a + 2), why);
    if (!memcmp(a, nat64_local, 6)) {
        if (why) *why = "local-use NAT64 (64:ff9b:1::/48)";
        return 0;
    }
    if ((a[0] & 0xe0) != 0x20) {
        if (why)
            *why = a[0] == 0xff ? "multicast (ff00::/8)" : (a[0] & 0xfe) == 0xfc ? "unique local (fc00::/7)"
                 : a[0] == 0xfe && (a[1] & 0xc0) == 0x80 ? "link-local (fe80::/10)"
                 : "not global unicast (outside 2000::/3)";
        return 0;
    }
    for (k = 0; k < sizeof v6_refused / sizeof *v6_refused; k++)
        if (prefix_eq(a, v6_refused[k].net, v6_refused[k].bits)) {
            if (why) *why = v6_refused[k].why;
            return 0;
        }
    return 1;
}

int fo_egress_addr_public(const struct sockaddr_storage *a, const char **why)
{
    if (why) *why = "not an IP address";
    if (a->ss_family == AF_INET) return v4_why(ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr), why);
    if (a->ss_family == AF_INET6) return v6_why(((const struct sockaddr_in6 *)a)->sin6_addr.s6_addr, why);
    return 0;
}

int fo_egress_is_ip_literal(const char *name)
{
    struct in_addr a4;
    struct in6_addr a6;
    const char *last = strrchr(name, '.');
    size_t k;

    if (strchr(name, ':') || strchr(name, '[') || strchr(name, ']')) return 1;
    if (inet_aton(name, &a4))              /* 127.1, 0x7f.1, 0177.0.0.1, 2130706433 */
        return 1;
    if (inet_pton(AF_INET6, name, &a6) == 1) return 1;
    last = last ? last + 1 : name;
    if (!*last) return 0;
    for (k = 0; last[k]; k++)              /* no top-level domain is numeric */
        if (!isdigit((unsigned char)last[k])) break;
    if (!last[k]) return 1;
    /* a hex label like 0x7f as the last one: inet_aton forms not caught above */
    return last[0] == '0' && (last[1] == 'x' || last[1] == 'X');
}

int fo_egress_name_normalize(const char *src, size_t len, char *dst)
{
    size_t k, label = 0;

    if (len > 0 && src[len - 1] == '.') len--;
    if (len == 0 || len > FO_EGRESS_MAX_NAME) return -1;
    for (k = 0; k < len; k++) {
        char c = (char)tolower((unsigned char)src[k]);
        if (c == '.') {
            if (label == 0) return -1;
            label = 0;
        } else if (isalnum((unsigned char)c) || c == '-' || c == '_') {
            if (++label > 63) return -1;
        } else {
            return -1;
        }
        dst[k] = c;
    }
    if (label == 0) return -1;
    dst[len] = 0;
    return 0;
}

void fo_egress_addr_str(const struct sockaddr_storage *a, char *buf, size_t len)
{
    const void *p = a->ss_family == AF_INET
        ? (const void *)&((const struct sockaddr_in *)a)->sin_addr
        : (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr;

    if ((a->ss_family != AF_INET && a->ss_family != AF_INET6) ||
        !inet_ntop(a->ss_family, p, buf, (socklen_t)len))
        snprintf(buf, len, "?");
}
