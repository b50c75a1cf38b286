/* egress.h — the egress proxy of `folio run --net packages|allow=` (PRODUCT.md §5.1).
 *
 * The only way out of a jail with a policy network. Its pieces, one job each:
 *   addr.c    is an address globally routable? is a name an IP literal?
 *   policy.c  the allow list (exact names, *.suffix, the `packages` preset),
 *             --net-resolve pins
 *   dns.c     a minimal stub resolver (A + AAAA over UDP, /etc/resolv.conf):
 *             the launcher is static, so no NSS; and a refused name must cause
 *             no query, which only our own resolver can promise
 *   sni.c     the server name of a TLS ClientHello
 *   head.c    the request head: strict checks, the request line, the head
 *             as forwarded (plain HTTP)
 *   proxy.c   the HTTP/1.1 forward proxy (CONNECT for 443, absolute URIs for
 *             80), one thread per connection, an audit log; start/stop
 *
 * The order of decisions for one request (proxy.c, handle()):
 *   name syntax -> not an IP literal -> port 80/443 -> allow list  (no DNS yet)
 *   -> pin or resolve once -> every address public (or pinned) -> TLS SNI
 *   equals the CONNECT host -> dial exactly the checked address -> relay.
 *
 * Private to sandbox/. Nothing here prints: errors come back as strings. */
#ifndef FO_EGRESS_H
#define FO_EGRESS_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "base/buf.h"

#define FO_EGRESS_PORT      3128      /* the proxy inside the jail: 127.0.0.1:3128 */
#define FO_EGRESS_MAX_NAME  253
#define FO_EGRESS_MAX_RULES 256
#define FO_EGRESS_MAX_PINS  32
#define FO_EGRESS_HEAD_MAX  8192      /* request line + headers */

/* ------------------------------------------------------------------ addr.c */

/* 1 if a is a globally routable unicast address; 0 for loopback, private
   (RFC 1918, ULA), CGNAT, link-local (169.254.169.254, fe80::), multicast,
   unspecified, broadcast, documentation, benchmarking, reserved, and for
   IPv6 forms that embed one of those in IPv4 (mapped, compatible, NAT64
   64:ff9b::/96, 6to4 2002::/16); Teredo and local NAT64 are refused whole.
   *why (may be NULL) names the range refused. */
int fo_egress_addr_public(const struct sockaddr_storage *a, const char **why);
/* 1 if name would be taken as an address by some parser: dotted quads in any
   spelling (127.1, 0x7f.1, 017700000001, 2130706433), IPv6 with or without
   brackets, or a name whose last label is all digits. */
int fo_egress_is_ip_literal(const char *name);
/* Lower-cases src into dst (FO_EGRESS_MAX_NAME + 1 bytes), drops one trailing
   dot, and checks DNS syntax (letters, digits, '-', '_'; labels 1..63). 0 or -1. */
int fo_egress_name_normalize(const char *src, size_t len, char *dst);
/* "a.b.c.d" / "x:y::z" for logs. */
void fo_egress_addr_str(const struct sockaddr_storage *a, char *buf, size_t len);

/* ---------------------------------------------------------------- policy.c */

typedef struct {
    char host[FO_EGRESS_MAX_NAME + 1];
    struct sockaddr_storage addr;      /* port 0: keep the request's port */
} fo_egress_pin;

typedef struct fo_egress_policy {
    char rule[FO_EGRESS_MAX_RULES][FO_EGRESS_MAX_NAME + 3];  /* "a.b" or "*.b" */
    size_t n_rules;
    fo_egress_pin pin[FO_EGRESS_MAX_PINS];
    size_t n_pins;
    int packages;                      /* the preset is part of the list */
} fo_egress_policy;

/* The `packages` preset, NULL-terminated: the Python, npm, CRAN and Conda
   indexes and their file hosts. */
extern const char *const fo_egress_packages[];
/* Adds a comma-separated list ("packages" adds the preset). 0, or -1 with
   *err naming the problem. */
int fo_egress_policy_add(fo_egress_policy *pol, const char *list, const char **err);
/* Adds one --net-resolve HOST=ADDR[:PORT] (ADDR IPv4 or [IPv6]). 0 or -1. */
int fo_egress_policy_pin(fo_egress_policy *pol, const char *spec, const char **err);
/* 1 if the normalized name is allowed. */
int fo_egress_policy_allows(const fo_egress_policy *pol, const char *name);
/* The pin for the normalized name, or NULL. */
const fo_egress_pin *fo_egress_policy_pinned(const fo_egress_policy *pol, const char *name);

/* ------------------------------------------------------------------- dns.c */

#define FO_EGRESS_MAX_ADDRS 16
typedef struct {
    struct sockaddr_storage server[3]; /* port 53 */
    size_t n_servers;
} fo_egress_resolver;

/* Reads the nameservers from path (resolv.conf syntax). 0, or -1 if none. */
int fo_egress_resolver_load(fo_egress_resolver *r, const char *path);
/* Resolves name (normalized) to at most FO_EGRESS_MAX_ADDRS addresses (port
   0) with one A and one AAAA query per server tried, timeout_ms overall.
   Returns the count (>= 1), or -1 with *err ("no such name", "timed out"...). */
int fo_egress_resolve(const fo_egress_resolver *r, const char *name, int timeout_ms,
                      struct sockaddr_storage *out, const char **err);
/* Builds a query (exposed for the unit tests). Length or -1. */
int fo_egress_dns_query(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t type);
/* Parses an answer to that query; appends addresses to out[*n]. 0 or -1
   (*rcode the DNS rcode, or -1 for a malformed message). */
int fo_egress_dns_answer(const uint8_t *msg, size_t len, uint16_t id, const char *name,
                         uint16_t type, struct sockaddr_storage *out, size_t *n, int *rcode);

/* ------------------------------------------------------------------- sni.c */

enum { FO_SNI_OK = 0, FO_SNI_MORE = 1, FO_SNI_NONE = 2, FO_SNI_ECH = 3, FO_SNI_BAD = 4 };
/* Reads the server name of the ClientHello at the start of buf (the first
   TLS record). FO_SNI_OK with name (FO_EGRESS_MAX_NAME + 1 bytes, as sent);
   FO_SNI_MORE if the record is not complete yet; FO_SNI_NONE without a
   server_name; FO_SNI_ECH for an encrypted ClientHello; FO_SNI_BAD else. */
int fo_egress_sni(const uint8_t *buf, size_t len, char *name);

/* ------------------------------------------------------------------ head.c */

/* What the request line says. */
typedef struct {
    char method[16];
    char host[FO_EGRESS_MAX_NAME + 1];   /* as written (normalized by the policy later) */
    unsigned port;                       /* CONNECT: as written; http://: given or 80 */
    char target[FO_EGRESS_HEAD_MAX];     /* plain HTTP: the origin-form path */
} fo_egress_request;

/* Parses a request line l[0..n) (no CRLF): METHOD SP target SP HTTP/1.x,
   the method a token; CONNECT host:port, or an absolute http:// URI without
   userinfo. 0, or 400 with the reason in why (cap bytes, one line). *rq is
   filled as far as it got: host empty unless the target parsed. */
int fo_egress_parse_request_line(const char *l, size_t n, fo_egress_request *rq, char *why,
                                 size_t cap);
/* Checks a whole request head h[0..n), which ends in its blank line, and
   parses its request line. Refused (400, why set): a NUL, CR or LF alone;
   a folded line (obs-fold); a line without ':'; an empty field name; a name
   that is not a token, which includes whitespace before the colon
   (`Host : x`, `Host\t: x`); a control character other than tab in a value;
   more than one Host; Content-Length not a number, or twice with different
   values, or with Transfer-Encoding. 0 when the head is clean. */
int fo_egress_parse_head(const char *h, size_t n, fo_egress_request *rq, char *why, size_t cap);
/* Appends the head to send the server for a clean plain-HTTP head h[0..n)
   (fo_egress_parse_head said 0): the request in origin form, the client's
   Host, Connection, Keep-Alive and Proxy-* lines dropped, then
   "Host: <rq host>[:port]" and "Connection: close". 0, or -1 (b->failed). */
int fo_egress_forward_head(const char *h, size_t n, const fo_egress_request *rq, fo_buf *b);

/* ----------------------------------------------------------------- proxy.c */

typedef struct fo_egress_proxy {
    pid_t pid;           /* the proxy process, or -1 */
    int log_fd;          /* its audit log: JSON objects, one per line (memfd) */
    int died;            /* fo_egress_stop found it dead already: its wait status + 1 */
} fo_egress_proxy;

/* Starts the proxy as a child process serving listen_fd (a listening TCP
   socket, typically created in the jail's network namespace: the jail
   reaches it on its own loopback and nothing else). The child drops to an
   unprivileged identity when folio is root (uid/gid `as_id`) and is not
   dumpable. resolv: resolv.conf path (NULL: /etc/resolv.conf; the caller
   may set FOLIO_EGRESS_RESOLV). listen_fd stays the caller's to close.
   0, or -1 with *err. */
int fo_egress_start(fo_egress_proxy *px, const fo_egress_policy *pol, int listen_fd,
                    const char *resolv, unsigned as_id, const char **err);
/* Stops the proxy (SIGTERM, then SIGKILL after 1.5 s), reaps it; the log
   stays readable. px->died tells whether it had ended before. Idempotent. */
void fo_egress_stop(fo_egress_proxy *px);
/* The log as a JSON array (malloc'd, NUL-terminated; "[]" when empty), or
   NULL on allocation failure. Closes the log. */
char *fo_egress_log_json(fo_egress_proxy *px);
/* Serves listen_fd in this process until SIGTERM (the child's body; exposed
   for tests). log_fd: where records go. Returns 0. */
int fo_egress_serve(const fo_egress_policy *pol, const fo_egress_resolver *res,
                    int listen_fd, int log_fd);

#endif
