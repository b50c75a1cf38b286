/* policy.c — the egress allow list: exact names, `*.suffix` (subdomains
 * only, never the suffix itself), the `packages` preset; and the caller's
 * --net-resolve pins. Built from folio's own argv before the jail exists:
 * nothing inside the jail can change it. */
#include "sandbox/egress/egress.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

/* Printed by `folio run --net-list packages` and documented in docs/egress.md. */
const char *const fo_egress_packages[] = {
    /* Python: the index and its file host */
    "pypi.org", "files.pythonhosted.org",
    /* npm and yarn's mirror of it */
    "registry.npmjs.org", "registry.yarnpkg.com",
    /* CRAN: the cloud mirror, the main site, Posit's binary builds */
    "cloud.r-project.org", "cran.r-project.org", "packagemanager.posit.co",
    /* Conda: anaconda.org channels (conda-forge...) and the defaults channel */
    "conda.anaconda.org", "repo.anaconda.com",
    NULL
};

static int add_rule(fo_egress_policy *pol, const char *s, size_t n, const char **err)
{
    char name[FO_EGRESS_MAX_NAME + 1];
    int wild = n > 2 && s[0] == '*' && s[1] == '.';
    size_t k;

    if (n == 8 && !memcmp(s, "packages", 8)) {
        pol->packages = 1;
        for (k = 0; fo_egress_packages[k]; k++)
            if (add_rule(pol, fo_egress_packages[k], strlen(fo_egress_packages[k]), err) < 0) return -1;
        return 0;
    }
    if (wild) {
        s += 2;
        n -= 2;
    }
    if (fo_egress_name_normalize(s, n, name) < 0) {
        *err = "not a host name (letters, digits, '-', dots; or *.suffix)";
        return -1;
    }
    if (fo_egress_is_ip_literal(name)) {
        *err = "an IP address: name hosts, the proxy never dials an address it was given";
        return -1;
    }
    if (wild && !strchr(name, '.')) {
        *err = "*.suffix needs a suffix with a dot (*.example.com, not *.com)";
        return -1;
    }
    for (k = 0; k < pol->n_rules; k++)
        if (!strcmp(pol->rule[k] + (pol->rule[k][0] == '*' ? 2 : 0), name) &&
            (pol->rule[k][0] == '*') == wild)
            return 0;                          /* duplicate */
    if (pol->n_rules >= FO_EGRESS_MAX_RULES) {
        *err = "too many names (at most 256)";
        return -1;
    }
    strcpy(pol->rule[pol->n_rules], wild ? "*." : "");
    strcat(pol->rule[pol->n_rules++], name);
    return 0;
}

int fo_egress_policy_add(fo_egress_policy *pol, const char *list, const char **err)
{
    const char *s = list;

    if (!*s) {
        *err = "empty list";
        return -1;
    }
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 0) {
            *err = "empty name in the list";
            return -1;
        }
        if (add_rule(pol, s, n, err) < 0) return -1;
        s += n;
        if (*s == ',' && !*++s) {
            *err = "empty name in the list";
            return -1;
        }
    }
    return 0;
}

/* "1.2.3.4", "1.2.3.4:8080", "[::1]", "[::1]:8443" -> addr. 0 or -1. */
static int parse_addr(const char *s, struct sockaddr_storage *a)
{
    char host[64];
    const char *port = NULL, *end;
    unsigned long p = 0;
    size_t n;

    memset(a, 0, sizeof *a);
    if (*s == '[') {
        end = strchr(s, ']');
        if (!end || (end[1] && end[1] != ':')) return -1;
        n = (size_t)(end - s - 1);
        s++;
        port = end[1] ? end + 2 : NULL;
    } else {
        end = strchr(s, ':');
        n = end ? (size_t)(end - s) : strlen(s);
        port = end ? end + 1 : NULL;
    }
    if (n == 0 || n >= sizeof host) return -1;
    memcpy(host, s, n);
    host[n] = 0;
    if (port) {
        char *e;
        if (*port < '0' || *port > '9') return -1;
        p = strtoul(port, &e, 10);
        if (*e || p == 0 || p > 65535) return -1;
    }
    if (inet_pton(AF_INET, host, &((struct sockaddr_in *)a)->sin_addr) == 1) {
        ((struct sockaddr_in *)a)->sin_family = AF_INET;
        ((struct sockaddr_in *)a)->sin_port = htons((uint16_t)p);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)a)->sin6_addr) == 1) {
        ((struct sockaddr_in6 *)a)->sin6_family = AF_INET6;
        ((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)p);
        return 0;
    }
    return -1;
}

int fo_egress_policy_pin(fo_egress_policy *pol, const char *spec, const char **err)
{
    const char *eq = strchr(spec, '=');
    fo_egress_pin *pin;
    size_t k;

    if (!eq) {
        *err = "expected HOST=ADDR[:PORT]";
        return -1;
    }
    if (pol->n_pins >= FO_EGRESS_MAX_PINS) {
        *err = "too many --net-resolve (at most 32)";
        return -1;
    }
    pin = &pol->pin[pol->n_pins];
    if (fo_egress_name_normalize(spec, (size_t)(eq - spec), pin->host) < 0 ||
        fo_egress_is_ip_literal(pin->host)) {
        *err = "HOST must be a host name";
        return -1;
    }
    if (parse_addr(eq + 1, &pin->addr) < 0) {
        *err = "ADDR must be an IPv4 address or [IPv6], with an optional :PORT";
        return -1;
    }
    for (k = 0; k < pol->n_pins; k++)
        if (!strcmp(pol->pin[k].host, pin->host)) {
            *err = "HOST is pinned twice";
            return -1;
        }
    pol->n_pins++;
    return 0;
}

int fo_egress_policy_allows(const fo_egress_policy *pol, const char *name)
{
    size_t k, n = strlen(name);

    for (k = 0; k < pol->n_rules; k++) {
        const char *r = pol->rule[k];
        if (r[0] == '*') {
            size_t m = strlen(r + 1);         /* ".suffix" */
            if (n > m && !strcmp(name + n - m, r + 1)) return 1;
        } else if (!strcmp(name, r)) {
            return 1;
        }
    }
    return 0;
}

const fo_egress_pin *fo_egress_policy_pinned(const fo_egress_policy *pol, const char *name)
{
    size_t k;

    for (k = 0; k < pol->n_pins; k++)
        if (!strcmp(pol->pin[k].host, name)) return &pol->pin[k];
    return NULL;
}
