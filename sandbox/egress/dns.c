/* dns.c — a minimal stub resolver for the egress proxy: A and AAAA queries
 * over UDP to the nameservers of resolv.conf, answers checked (id, source,
 * question) and their addresses collected. folio's launcher is a static
 * binary, where getaddrinfo would need NSS modules at run time; and the
 * proxy must be able to promise that a refused name causes no DNS query,
 * which it can only with its own resolver, called after the policy said yes.
 * No cache, no search domains (names are taken as fully qualified), no TCP
 * fallback (a truncated answer keeps the addresses it has). */
#include "sandbox/egress/egress.h"
#include "base/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define T_A    1
#define T_AAAA 28
#define T_CNAME 5

int fo_egress_resolver_load(fo_egress_resolver *r, const char *path)
{
    char line[512];
    FILE *f = fopen(path, "re");

    memset(r, 0, sizeof *r);
    if (!f) return -1;
    while (r->n_servers < 3 && fgets(line, sizeof line, f)) {
        char addr[128];
        struct sockaddr_storage *s = &r->server[r->n_servers];
        if (sscanf(line, " nameserver %127s", addr) != 1) continue;
        memset(s, 0, sizeof *s);
        if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)s)->sin_addr) == 1) {
            ((struct sockaddr_in *)s)->sin_family = AF_INET;
            ((struct sockaddr_in *)s)->sin_port = htons(53);
        } else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)s)->sin6_addr) == 1) {
            ((struct sockaddr_in6 *)s)->sin6_family = AF_INET6;
            ((struct sockaddr_in6 *)s)->sin6_port = htons(53);
        } else {
            continue;
        }
        r->n_servers++;
    }
    fclose(f);
    return r->n_servers ? 0 : -1;
}

int fo_egress_dns_query(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t type)
{
    size_t n = 12, len = strlen(name);
    const char *s = name;

    if (cap < 12 + len + 2 + 4 || len == 0) return -1;
    memset(buf, 0, 12);
    buf[0] = (uint8_t)(id >> 8);
    buf[1] = (uint8_t)id;
    buf[2] = 0x01;                          /* RD */
    buf[5] = 1;                             /* QDCOUNT */
    while (*s) {
        size_t l = strcspn(s, ".");
        if (l == 0 || l > 63) return -1;
        buf[n++] = (uint8_t)l;
        memcpy(buf + n, s, l);
        n += l;
        s += l;
        if (*s) s++;
    }
    buf[n++] = 0;
    buf[n++] = (uint8_t)(type >> 8);
    buf[n++] = (uint8_t)type;
    buf[n++] = 0;
    buf[n++] = 1;                           /* IN */
    return (int)n;
}

/* Skips a (possibly compressed) name at *off. 0 or -1. */
static int skip_name(const uint8_t *m, size_t len, size_t *off)
{
    size_t o = *off;

    while (o < len) {
        uint8_t l = m[o];
        if (l == 0) {
            *off = o + 1;
            return 0;
        }
        if ((l & 0xc0) == 0xc0) {
            if (o + 2 > len) return -1;
            *off = o + 2;
            return 0;
        }
        if (l & 0xc0) return -1;
        o += 1u + l;
    }
    return -1;
}

/* 1 if the question at *off is exactly name/type/IN (case-insensitive). */
static int question_matches(const uint8_t *m, size_t len, size_t *off, const char *name,
                            uint16_t type)
{
    uint8_t q[FO_EGRESS_MAX_NAME + 32];
    int ql = fo_egress_dns_query(q, sizeof q, 0, name, type);
    size_t k, n;

    if (ql < 0) return 0;
    n = (size_t)ql - 12;
    if (*off + n > len) return 0;
    for (k = 0; k < n; k++) {
        uint8_t a = m[*off + k], b = q[12 + k];
        if (a >= 'A' && a <= 'Z') a = (uint8_t)(a + 32);
        if (a != b) return 0;
    }
    *off += n;
    return 1;
}

int fo_egress_dns_answer(const uint8_t *m, size_t len, uint16_t id, const char *name,
                         uint16_t type, struct sockaddr_storage *out, size_t *n, int *rcode)
{
    size_t off = 12, k, an;

    *rcode = -1;
    if (len < 12 || ((m[0] << 8) | m[1]) != id || !(m[2] & 0x80) || m[4] != 0 || m[5] != 1) return -1;
    *rcode = m[3] & 0x0f;
    an = (size_t)(m[6] << 8 | m[7]);
    if (!question_matches(m, len, &off, name, type)) return (*rcode = -1), -1;
    if (*rcode != 0) return -1;
    for (k = 0; k < an; k++) {
        uint16_t t, cls, rdlen;
        if (skip_name(m, len, &off) < 0 || off + 10 > len) return (*rcode = -1), -1;
        t = (uint16_t)(m[off] << 8 | m[off + 1]);
        cls = (uint16_t)(m[off + 2] << 8 | m[off + 3]);
        rdlen = (uint16_t)(m[off + 8] << 8 | m[off + 9]);
        off += 10;
        if (off + rdlen > len) return (*rcode = -1), -1;
        /* the records of the CNAME chain's end; CNAMEs themselves skipped */
        if (cls == 1 && t == type && *n < FO_EGRESS_MAX_ADDRS &&
            rdlen == (t == T_A ? 4 : 16)) {
            struct sockaddr_storage *a = &out[(*n)++];
            memset(a, 0, sizeof *a);
            if (t == T_A) {
                a->ss_family = AF_INET;
                memcpy(&((struct sockaddr_in *)a)->sin_addr, m + off, 4);
            } else {
                a->ss_family = AF_INET6;
                memcpy(&((struct sockaddr_in6 *)a)->sin6_addr, m + off, 16);
            }
        }
        off += rdlen;
    }
    return 0;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family) return 0;
    if (a->ss_family == AF_INET) return !memcmp(a, b, sizeof(struct sockaddr_in));
    return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                   &((const struct sockaddr_in6 *)b)->sin6_addr, 16) &&
           ((const struct sockaddr_in6 *)a)->sin6_port == ((const struct sockaddr_in6 *)b)->sin6_port;
}

/* One server: both queries sent, answers awaited until deadline. Returns
   the count, 0 for no addresses (with *err), -1 for no answer at all. */
static int ask(const struct sockaddr_storage *srv, const char *name, long deadline,
               struct sockaddr_storage *out, const char **err)
{
    static const uint16_t types[2] = { T_A, T_AAAA };
    uint8_t q[FO_EGRESS_MAX_NAME + 32], r[1500];
    uint16_t id[2];
    int done[2] = { 0, 0 }, answered = 0, fd, k;
    size_t n = 0;
    socklen_t sl = srv->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                             : sizeof(struct sockaddr_in6);

    fd = socket(srv->ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || getrandom(id, sizeof id, 0) != sizeof id) {
        if (fd >= 0) close(fd);
        *err = "can't open a socket for DNS";
        return -1;
    }
    for (k = 0; k < 2; k++) {
        int ql = fo_egress_dns_query(q, sizeof q, id[k], name, types[k]);
        if (ql < 0 || sendto(fd, q, (size_t)ql, 0, (const struct sockaddr *)srv, sl) != ql) done[k] = 1;
    }
    while (!(done[0] && done[1])) {
        struct pollfd pf = { fd, POLLIN, 0 };
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        long left = deadline - fo_now_ms();
        ssize_t got;
        int rc;

        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) break;
        got = recvfrom(fd, r, sizeof r, 0, (struct sockaddr *)&from, &fl);
        if (got < 0 || !same_addr(&from, srv))
            continue;                            /* not from our server: ignored */
        for (k = 0; k < 2; k++)
            if (!done[k] && fo_egress_dns_answer(r, (size_t)got, id[k], name, types[k],
                                                 out, &n, &rc) == 0) {
                done[k] = answered = 1;
            } else if (!done[k] && rc > 0) {
                done[k] = answered = 1;          /* NXDOMAIN, SERVFAIL...: no addresses */
            }
    }
    close(fd);
    if (!answered) return -1;
    if (n == 0) *err = "the name has no address";
    return (int)n;
}

int fo_egress_resolve(const fo_egress_resolver *r, const char *name, int timeout_ms,
                      struct sockaddr_storage *out, const char **err)
{
    long start = fo_now_ms();
    size_t k;

    *err = "no nameserver configured";
    for (k = 0; k < r->n_servers; k++) {
        long share = (timeout_ms - (fo_now_ms() - start)) / (long)(r->n_servers - k);
        int n;
        if (share <= 0) break;
        n = ask(&r->server[k], name, fo_now_ms() + share, out, err);
        if (n > 0) return n;
        if (n == 0)
            return -1;                   /* an answer without addresses is final */
        *err = "the DNS lookup timed out";
    }
    return -1;
}
