/* proxy.c — the egress proxy: an HTTP/1.1 forward proxy (CONNECT to port 443,
 * absolute-URI requests to port 80) that lets a jail reach the names of its
 * policy and nothing else, and logs every attempt.
 *
 * A separate process forked from folio (fo_egress_start), unprivileged, not
 * dumpable, dying with folio. It serves a listening socket that the jail
 * created on its own loopback (127.0.0.1:3128) and handed out: the jail
 * reaches the proxy and nothing else, without any route or Unix socket; if
 * the proxy dies, the socket closes and the jail's connections are refused
 * (it fails closed).
 *
 * One thread per connection (at most MAX_CONN), each with its own deadlines:
 * a slow or silent client only ever holds its own thread. Per connection, in
 * this order (see egress.h): header read (bounded, deadline) -> name checks
 * and allow list, before any DNS -> pin or one lookup -> every address
 * checked -> dial exactly that address -> CONNECT: the ClientHello's SNI
 * must equal the CONNECT host -> relay with an idle timeout. */
#include "sandbox/egress/egress.h"
#define FO_SANDBOX_PRIVATE
#include "base/buf.h"
#include "base/clock.h"
#include "base/proc.h"
#include "folio.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN      512            /* concurrent connections */
#define HEAD_MAX      FO_EGRESS_HEAD_MAX
#define HELLO_MAX     (16384 + 5)    /* one TLS record */
#define RELAY_BUF     (256 << 10)    /* per direction, in flight: copy buffer, first pipe */
#define BULK_PIPE     (1 << 20)      /* the pipe of a direction that carries a download */
#define BULK_AFTER    (4u << 20)     /* bytes one way that make it a download */
#define PIPE_LEAST    (64 << 10)     /* a pipe below the default size: copy instead */
#define HEAD_MS       10000          /* whole header (slowloris), ClientHello */
#define DNS_MS        5000
#define DIAL_MS       10000
#define IDLE_MS       120000         /* relay: no byte either way */
#define LOG_MAX       (4u << 20)     /* audit log cap; further records counted only */

typedef struct {
    int c, u;                        /* client (jail side), upstream */
    fo_egress_request rq;            /* method, host, port, target */
    char addr[64];
    const char *decision;            /* "allowed" / "refused" / "failed" */
    char reason[200];
    uint64_t up, down;
    long t0;
    unsigned n;                      /* accept order, from 1 */
    char head[HEAD_MAX + 1];
    size_t len;                      /* bytes in head */
    size_t head_len;                 /* request head length (through CRLFCRLF) */
    int named;                       /* rq.host is final (set under g_mu): drain() may read it */
    int logged;                      /* its record is written (under g_mu) */
} conn;

/* The proxy process's state: set once before the first thread starts. */
static const fo_egress_policy *g_pol;
static const fo_egress_resolver *g_res;
static int g_log = -1, g_stop_pipe[2] = { -1, -1 };
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static conn *g_active[MAX_CONN];
static unsigned g_n_active, g_log_dropped, g_seq, g_over_capacity;
static int g_stopping;               /* drain() has begun: connections end because of us */
static size_t g_log_bytes;

/* Waits for ev on fd until deadline (ms, monotonic). 1 ready, 0 timed out. */
static int wait_fd(int fd, short ev, long deadline)
{
    for (;;) {
        struct pollfd pf = { fd, ev, 0 };
        long left = deadline - fo_now_ms();
        int n;
        if (left <= 0) return 0;
        n = poll(&pf, 1, (int)(left > 1000000 ? 1000000 : left));
        if (n > 0) return 1;
        if (n < 0 && errno != EINTR)
            return 1;                 /* let the read or write report it */
    }
}

/* Writes all of buf to a non-blocking fd before deadline. 0 or -1. */
static int send_all(int fd, const char *buf, size_t len, long deadline)
{
    while (len > 0) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            len -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_fd(fd, POLLOUT, deadline)) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* ----------------------------------------------------------------- audit */

/* Appends n bytes (no NUL among them) to b: fo_buf_printf formats
   at most 1023 bytes at a time. */
static void putn(fo_buf *b, const char *s, size_t n)
{
    while (n > 0) {
        size_t k = n > 1000 ? 1000 : n;
        fo_buf_printf(b, "%.*s", (int)k, s);
        s += k;
        n -= k;
    }
}

/* Writes k's record, once: a connection drain() gave up on has one already. */
static void log_record(conn *k)
{
    fo_buf b = { 0 };

    fo_buf_printf(&b, "{\"n\": %u, \"host\": ", k->n);
    fo_buf_json_str(&b, k->rq.host, strlen(k->rq.host));
    fo_buf_printf(&b, ", \"port\": %u, \"method\": ", k->rq.port);
    fo_buf_json_str(&b, k->rq.method, strlen(k->rq.method));
    fo_buf_printf(&b, ", \"decision\": \"%s\", \"reason\": ", k->decision);
    fo_buf_json_str(&b, k->reason, strlen(k->reason));
    fo_buf_puts(&b, ", \"address\": ");
    if (k->addr[0])
        fo_buf_json_str(&b, k->addr, strlen(k->addr));
    else fo_buf_puts(&b, "null");
    fo_buf_printf(&b, ", \"bytes_up\": %llu, \"bytes_down\": %llu, \"ms\": %ld}\n",
                          (unsigned long long)k->up, (unsigned long long)k->down,
                          fo_now_ms() - k->t0);
    pthread_mutex_lock(&g_mu);
    if (k->logged)
        ;
    else if (!b.failed && g_log_bytes + b.len <= LOG_MAX &&
             write(g_log, b.data, b.len) == (ssize_t)b.len)
        g_log_bytes += b.len;
    else g_log_dropped++;
    k->logged = 1;
    pthread_mutex_unlock(&g_mu);
    fo_buf_free(&b);
}

/* Answers an error status with a one-line reason (also the reason phrase,
   which is what pip and curl print for a failed CONNECT). */
static void answer(conn *k, int status, const char *decision)
{
    char msg[512];
    int n;

    k->decision = decision;
    n = snprintf(msg, sizeof msg,
                 "HTTP/1.1 %d folio egress: %s\r\nContent-Type: text/plain\r\n"
                 "Content-Length: %zu\r\nConnection: close\r\n\r\nfolio egress: %s\n",
                 status, k->reason, strlen(k->reason) + 15, k->reason);
    if (n > 0 && (size_t)n < sizeof msg) (void)send_all(k->c, msg, (size_t)n, fo_now_ms() + 2000);
}

__attribute__((format(printf, 2, 3)))
static void why(conn *k, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(k->reason, sizeof k->reason, fmt, ap);
    va_end(ap);
    for (char *p = k->reason; *p; p++)       /* one line, always */
        if (*p == '\r' || *p == '\n') *p = ' ';
}

/* ------------------------------------------------------------- the request */

/* Reads until the end of the header. 0, an HTTP status to answer, or -1
   when the client went away first (reason set; nothing to answer). */
static int read_head(conn *k)
{
    long deadline = k->t0 + HEAD_MS;

    for (;;) {
        char *end;
        ssize_t r;

        k->head[k->len] = 0;
        end = memmem(k->head, k->len, "\r\n\r\n", 4);   /* a NUL before it: 400 */
        if (end) {
            k->head_len = (size_t)(end - k->head) + 4;
            return 0;
        }
        if (k->len >= HEAD_MAX) return 431;
        if (!wait_fd(k->c, POLLIN, deadline)) return 408;
        r = recv(k->c, k->head + k->len, HEAD_MAX - k->len, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            int stopping;
            pthread_mutex_lock(&g_mu);
            stopping = g_stopping;
            pthread_mutex_unlock(&g_mu);
            if (stopping)
                why(k, "incomplete request: the run ended after %zu bytes, before the end "
                       "of the header", k->len);
            else if (k->len == 0)
                why(k, "incomplete request: the client %s without sending anything",
                    r == 0 ? "closed" : "reset the connection");
            else
                why(k, "incomplete request: the client %s after %zu bytes, before the end "
                       "of the header", r == 0 ? "closed" : "reset the connection", k->len);
            return -1;
        }
        if (r > 0) k->len += (size_t)r;
    }
}

/* The request head: checked and parsed (head.c). 0 or status (reason set,
   one line). */
static int parse_request(conn *k)
{
    return fo_egress_parse_head(k->head, k->head_len, &k->rq, k->reason, sizeof k->reason);
}

/* The policy on the name alone: no DNS has happened, none will if refused.
   On success k->rq.host is normalized and final (k->named). 0 or -1 (reason
   set). */
static int decide_name(conn *k)
{
    char name[FO_EGRESS_MAX_NAME + 1];
    unsigned want = strcmp(k->rq.method, "CONNECT") ? 80 : 443;

    if (fo_egress_is_ip_literal(k->rq.host)) {
        why(k, "%s is an IP address: only allowed names can be reached", k->rq.host);
        return -1;
    }
    if (fo_egress_name_normalize(k->rq.host, strlen(k->rq.host), name) < 0) {
        why(k, "\"%s\" is not a host name", k->rq.host);
        return -1;
    }
    strcpy(k->rq.host, name);
    if (k->rq.port != want) {
        why(k, "port %u refused (CONNECT to 443 for https, port 80 for http)", k->rq.port);
        return -1;
    }
    if (!fo_egress_policy_allows(g_pol, k->rq.host)) {
        why(k, "%s is not in the allow list", k->rq.host);
        return -1;
    }
    pthread_mutex_lock(&g_mu);
    k->named = 1;                            /* drain() may now read rq */
    pthread_mutex_unlock(&g_mu);
    return 0;
}

/* Pin or one lookup; every address must be public. Fills *to. 0, or an
   HTTP status (reason set). */
static int decide_addr(conn *k, struct sockaddr_storage *to)
{
    struct sockaddr_storage a[FO_EGRESS_MAX_ADDRS];
    const fo_egress_pin *pin = fo_egress_policy_pinned(g_pol, k->rq.host);
    const char *err = NULL, *bad;
    int n, i;
    in_port_t port = htons((uint16_t)k->rq.port);

    if (pin) {
        *to = pin->addr;                     /* the caller's word: even a private one */
        if (((struct sockaddr_in *)to)->sin_port == 0)
            ((struct sockaddr_in *)to)->sin_port = port;   /* same offset for in6 */
        fo_egress_addr_str(to, k->addr, sizeof k->addr);
        return 0;
    }
    n = g_res ? fo_egress_resolve(g_res, k->rq.host, DNS_MS, a, &err) : -1;
    if (n <= 0) {
        why(k, "can't resolve %s: %s", k->rq.host, err ? err : "no nameserver configured");
        return 502;
    }
    for (i = 0; i < n; i++)
        if (!fo_egress_addr_public(&a[i], &bad)) {
            fo_egress_addr_str(&a[i], k->addr, sizeof k->addr);
            why(k, "%s resolves to %s, %s", k->rq.host, k->addr, bad);
            return 403;
        }
    for (i = 0; i < n - 1 && a[i].ss_family != AF_INET; i++)
        ;                                    /* IPv4 first: v6 may have no route here */
    *to = a[i];
    ((struct sockaddr_in *)to)->sin_port = port;
    fo_egress_addr_str(to, k->addr, sizeof k->addr);
    return 0;
}

/* Connects to exactly *to before a deadline. 0 or a status (reason set). */
static int dial(conn *k, const struct sockaddr_storage *to)
{
    socklen_t sl = to->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                            : sizeof(struct sockaddr_in6);
    int err = 0, one = 1, u;
    socklen_t el = sizeof err;

    u = socket(to->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    pthread_mutex_lock(&g_mu);                /* drain() may shut it down */
    k->u = u;
    pthread_mutex_unlock(&g_mu);
    if (k->u < 0) {
        why(k, "can't open a socket: %s", strerror(errno));
        return 502;
    }
    (void)setsockopt(k->u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(k->u, (const struct sockaddr *)to, sl) < 0 && errno != EINPROGRESS) {
        why(k, "can't connect to %s: %s", k->addr, strerror(errno));
        return 502;
    }
    if (!wait_fd(k->u, POLLOUT, fo_now_ms() + DIAL_MS)) {
        why(k, "connecting to %s timed out", k->addr);
        return 504;
    }
    if (getsockopt(k->u, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
        why(k, "can't connect to %s: %s", k->addr, strerror(err ? err : errno));
        return 502;
    }
    return 0;
}

/* CONNECT: after "200", the ClientHello must name the CONNECT host. The
   bytes read stay in k->head (from 0, k->len) to be forwarded. 0 or -1. */
static int check_hello(conn *k)
{
    static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    char *buf = k->head, sni[FO_EGRESS_MAX_NAME + 1], norm[FO_EGRESS_MAX_NAME + 1];
    long deadline = fo_now_ms() + HEAD_MS;
    size_t have = k->len - k->head_len;
    int rc;

    if (send_all(k->c, ok, sizeof ok - 1, deadline) < 0) {
        why(k, "the client went away");
        return -1;
    }
    memmove(buf, buf + k->head_len, have);
    k->len = have;
    k->head_len = 0;
    /* k->head is HEAD_MAX bytes; a hello up to one full record needs more */
    while ((rc = fo_egress_sni((const uint8_t *)buf, k->len, sni)) == FO_SNI_MORE) {
        ssize_t r;
        if (k->len >= HEAD_MAX || !wait_fd(k->c, POLLIN, deadline)) {
            why(k, "no TLS ClientHello within %d bytes / %d s", HEAD_MAX, HEAD_MS / 1000);
            return -1;
        }
        r = recv(k->c, buf + k->len, HEAD_MAX - k->len, 0);
        if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR))) {
            why(k, "the client closed before its TLS ClientHello");
            return -1;
        }
        if (r > 0) k->len += (size_t)r;
    }
    if (rc == FO_SNI_ECH)
        why(k, "encrypted ClientHello (ECH) refused: the proxy must see the server name");
    else if (rc == FO_SNI_NONE) why(k, "TLS ClientHello without a server name (SNI)");
    else if (rc != FO_SNI_OK) why(k, "not a TLS ClientHello");
    else if (fo_egress_name_normalize(sni, strlen(sni), norm) < 0 || strcmp(norm, k->rq.host))
        why(k, "TLS server name \"%.100s\" differs from the CONNECT host %s", sni, k->rq.host);
    else return 0;
    return -1;
}

/* Plain HTTP: the head as forward_head() makes it (origin form, the URI's
   Host, Connection: close), then what followed it. 0 or -1. */
static int forward_head(conn *k)
{
    fo_buf b = { 0 };
    int rc = fo_egress_forward_head(k->head, k->head_len, &k->rq, &b) < 0 ? -1
             : send_all(k->u, b.data, b.len, fo_now_ms() + DIAL_MS);

    if (rc == 0) k->up += b.len;
    fo_buf_free(&b);
    /* what followed the head (a body) goes as is */
    memmove(k->head, k->head + k->head_len, k->len - k->head_len);
    k->len -= k->head_len;
    k->head_len = 0;
    return rc;
}

/* ----------------------------------------------------------------- relay */

/* One direction of the tunnel. In flight: len bytes, in a pipe (splice: the
   kernel moves pages from socket to socket, no copy through the proxy) or,
   where no pipe of the default size could be made, in buf[off..]. At most
   what the pipe holds, or RELAY_BUF, at a time. */
typedef struct {
    int from, to;
    int pipe[2];
    char *buf;
    size_t off, len;
    int eof, shut;
    uint64_t *count;
} pipe_dir;

/* A direction that has carried BULK_AFTER bytes is a download (or an upload):
   its pipe grows to BULK_PIPE, which takes a third off the proxy's CPU per
   byte against 256 KiB (bench-egress.sh: 2.8 s -> 1.8 s for 20 GiB, the same
   as the bare splice relay). Only then: pipe capacity counts against the
   user's pipe quota (fs.pipe-user-pages-soft, 64 MiB by default), which
   every connection shares, and the many short requests a package install
   makes never need it. Refused past the quota; the pipe then stays as is.
   Asked once, as the count crosses BULK_AFTER (the request head counted
   before the relay is far below it). */
static void grow(pipe_dir *d, uint64_t before)
{
    if (d->pipe[0] >= 0 && before < BULK_AFTER && *d->count >= BULK_AFTER)
        (void)fcntl(d->pipe[0], F_SETPIPE_SZ, BULK_PIPE);
}

static ssize_t take(pipe_dir *d)
{
    if (d->pipe[0] >= 0)
        return splice(d->from, NULL, d->pipe[1], NULL, BULK_PIPE,   /* what fits */
                      SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
    d->off = 0;
    return recv(d->from, d->buf, RELAY_BUF, 0);
}

static ssize_t give(pipe_dir *d)
{
    if (d->pipe[0] >= 0)
        return splice(d->pipe[0], NULL, d->to, NULL, d->len, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
    return send(d->to, d->buf + d->off, d->len, MSG_NOSIGNAL);
}

/* One step of one direction after poll: take when empty, give when not;
   the peer's write side is shut once the source ended and all is given.
   0, or -1 on an error that ends the tunnel. */
static int relay_step(pipe_dir *d, short rev_from)
{
    if (d->len == 0 && !d->eof && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t r = take(d);
        if (r > 0)
            d->len = (size_t)r;
        else if (r == 0) d->eof = 1;
        else if (errno != EAGAIN && errno != EINTR) return -1;
    }
    if (d->len > 0) {
        ssize_t w = give(d);
        if (w > 0) {
            d->off += (size_t)w;
            d->len -= (size_t)w;
            uint64_t before = *d->count;
            *d->count += (uint64_t)w;
            grow(d, before);
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
            return -1;
        }
    }
    if (d->eof && d->len == 0 && !d->shut) {
        shutdown(d->to, SHUT_WR);
        d->shut = 1;
    }
    return 0;
}

static int relay_open(pipe_dir *d, int from, int to, uint64_t *count)
{
    memset(d, 0, sizeof *d);
    d->pipe[0] = d->pipe[1] = -1;
    d->from = from;
    d->to = to;
    d->count = count;
    if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
        /* 4x the default: a quarter of the splice calls */
        if (fcntl(d->pipe[0], F_SETPIPE_SZ, RELAY_BUF) > 0 ||
            fcntl(d->pipe[0], F_GETPIPE_SZ) >= PIPE_LEAST)
            return 0;
        /* Past the user's pipe quota (fs.pipe-user-pages-soft), which every
           proxy of this uid shares, the kernel makes pipes of two pages and
           refuses to grow them. 8 KiB a splice is slower than copying
           through RELAY_BUF (variants of bench/relay_floor.c on loopback:
           790 MB/s at 1.3 s of CPU per GiB, against 1230 MB/s at 0.7 s),
           and the pipe's pages are better left to connections that have
           them. */
        close(d->pipe[0]);
        close(d->pipe[1]);
    }
    d->pipe[0] = d->pipe[1] = -1;
    d->buf = fo_malloc(RELAY_BUF);
    return d->buf ? 0 : -1;
}

static void relay_close(pipe_dir *d)
{
    if (d->pipe[0] >= 0) {
        close(d->pipe[0]);
        close(d->pipe[1]);
    }
    fo_free(d->buf);
}

/* Relays both ways until both ended, an error, or IDLE_MS without a byte.
   What the client sent after its request head (a body, the ClientHello) is
   in k->head[0..len) and goes first. */
static void relay(conn *k)
{
    pipe_dir d[2];
    long last = fo_now_ms();
    int ok = relay_open(&d[0], k->c, k->u, &k->up) == 0;

    ok = relay_open(&d[1], k->u, k->c, &k->down) == 0 && ok;
    if (!ok) {
        why(k, "out of memory");
        relay_close(&d[0]);
        relay_close(&d[1]);
        return;
    }
    if (k->len > 0 && send_all(k->u, k->head, k->len, fo_now_ms() + DIAL_MS) < 0)
        d[0].eof = d[1].eof = d[0].shut = d[1].shut = 1;   /* the server went away */
    else k->up += k->len;
    while (!(d[0].shut && d[1].shut)) {
        struct pollfd pf[2] = { { k->c, 0, 0 }, { k->u, 0, 0 } };
        int i, n;
        for (i = 0; i < 2; i++) {
            if (d[i].len == 0 && !d[i].eof) pf[i].events |= POLLIN;
            if (d[i].len > 0) pf[1 - i].events |= POLLOUT;
        }
        n = poll(pf, 2, 1000);
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) {
            if (fo_now_ms() - last > IDLE_MS) {
                why(k, "idle for %d s", IDLE_MS / 1000);
                break;
            }
            continue;
        }
        last = fo_now_ms();
        if (relay_step(&d[0], pf[0].revents) < 0 || relay_step(&d[1], pf[1].revents) < 0) break;
        if ((pf[0].revents | pf[1].revents) & POLLNVAL) break;
    }
    relay_close(&d[0]);
    relay_close(&d[1]);
}

/* ------------------------------------------------------------ per thread */

/* A head that never ended (the client left, 408, 431): if its request line
   came whole, the record gets its host, and why the policy would have
   refused it, after what k->reason says already. */
static void note_request_line(conn *k)
{
    const char *eol = memmem(k->head, k->len, "\r\n", 2);
    char said[sizeof k->reason], policy[sizeof k->reason];

    if (!eol || fo_egress_parse_request_line(k->head, (size_t)(eol - k->head), &k->rq, policy,
                                             sizeof policy)) {
        memset(&k->rq, 0, sizeof k->rq);
        return;
    }
    memcpy(said, k->reason, sizeof said);
    if (decide_name(k) < 0) {
        memcpy(policy, k->reason, sizeof policy);
        why(k, "%s; %s", said, policy);
    }
}

static void handle(conn *k)
{
    struct sockaddr_storage to;
    int st = read_head(k);

    if (st == 0) {
        st = parse_request(k);
    } else {
        if (st > 0)
            why(k, st == 431 ? "request header over %d bytes"
                             : "no complete request header within %d ms",
                st == 431 ? HEAD_MAX : HEAD_MS);
        note_request_line(k);
    }
    if (!k->rq.method[0]) strcpy(k->rq.method, "?");
    if (st < 0) {
        k->decision = "refused";                   /* nothing to answer: recorded */
    } else if (st) {
        answer(k, st, "refused");
    } else if (decide_name(k) < 0) {
        answer(k, 403, "refused");
    } else if ((st = decide_addr(k, &to)) != 0) {
        answer(k, st, st == 403 ? "refused" : "failed");
    } else if ((st = dial(k, &to)) != 0) {
        answer(k, st, "failed");
    } else if (!strcmp(k->rq.method, "CONNECT") ? check_hello(k) < 0 : forward_head(k) < 0) {
        k->decision = "refused";                   /* SNI; or the upstream failed */
        if (strcmp(k->rq.method, "CONNECT")) {
            k->decision = "failed";
            why(k, "can't send the request to %s", k->addr);
        }
    } else {
        k->decision = "allowed";
        relay(k);
    }
    log_record(k);
}

static void *conn_thread(void *arg)
{
    conn *k = arg;
    unsigned i;

    handle(k);
    pthread_mutex_lock(&g_mu);
    for (i = 0; i < MAX_CONN; i++)
        if (g_active[i] == k) g_active[i] = NULL;
    g_n_active--;
    close(k->c);
    if (k->u >= 0) close(k->u);
    pthread_mutex_unlock(&g_mu);
    fo_free(k);
    return NULL;
}

static void on_term(int sig)
{
    char c = 't';

    (void)sig;
    (void)!write(g_stop_pipe[1], &c, 1);
}

/* Starts a thread for an accepted client, or answers 503 when full. */
static void admit(int c)
{
    static const char full[] = "HTTP/1.1 503 folio egress: too many connections\r\n"
                               "Content-Length: 0\r\nConnection: close\r\n\r\n";
    pthread_attr_t at;
    pthread_t t;
    conn *k = NULL;
    unsigned i;
    int one = 1;

    pthread_mutex_lock(&g_mu);
    if (g_n_active < MAX_CONN && (k = fo_calloc(1, sizeof *k))) {
        for (i = 0; g_active[i]; i++)
            ;
        g_active[i] = k;
        g_n_active++;
        k->n = ++g_seq;
    }
    if (!k) g_over_capacity++;
    pthread_mutex_unlock(&g_mu);
    if (!k) {
        (void)!send(c, full, sizeof full - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(c);
        return;
    }
    k->c = c;
    k->u = -1;
    (void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);   /* we relay, not batch */
    k->t0 = fo_now_ms();
    k->decision = "refused";
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 128 << 10);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, conn_thread, k) != 0) {
        pthread_mutex_lock(&g_mu);
        g_over_capacity++;                         /* turned away: counted */
        for (i = 0; i < MAX_CONN; i++)
            if (g_active[i] == k) g_active[i] = NULL;
        g_n_active--;
        pthread_mutex_unlock(&g_mu);
        close(c);
        fo_free(k);
    }
    pthread_attr_destroy(&at);
}

/* The record of a connection drain() gives up on (its thread is still
   resolving or dialling): what is known of it, taken under g_mu. NULL when
   out of memory (then counted as dropped). */
static conn *unfinished(conn *k)
{
    conn *s = fo_calloc(1, sizeof *s);

    k->logged = 1;                           /* its thread writes nothing more */
    if (!s) {
        g_log_dropped++;
        return NULL;
    }
    s->n = k->n;
    s->t0 = k->t0;
    if (k->named) s->rq = k->rq;
    strcpy(s->rq.method, k->named ? k->rq.method : "?");
    s->decision = "failed";
    strcpy(s->reason, "unfinished when the run ended (the proxy stopped)");
    return s;
}

/* Ends every connection (each thread then logs it) and waits up to 1 s;
   a connection still going then gets its record from here. */
static void drain(void)
{
    static conn *late[MAX_CONN];
    unsigned i, left, n_late = 0;
    long until = fo_now_ms() + 1000;

    pthread_mutex_lock(&g_mu);
    g_stopping = 1;
    for (i = 0; i < MAX_CONN; i++)
        if (g_active[i]) {
            shutdown(g_active[i]->c, SHUT_RDWR);
            if (g_active[i]->u >= 0) shutdown(g_active[i]->u, SHUT_RDWR);
        }
    pthread_mutex_unlock(&g_mu);
    do {
        pthread_mutex_lock(&g_mu);
        left = g_n_active;
        pthread_mutex_unlock(&g_mu);
        if (left) usleep(10000);
    } while (left && fo_now_ms() < until);
    pthread_mutex_lock(&g_mu);
    for (i = 0; i < MAX_CONN; i++)
        if (g_active[i] && !g_active[i]->logged && (late[n_late] = unfinished(g_active[i]))) n_late++;
    pthread_mutex_unlock(&g_mu);
    for (i = 0; i < n_late; i++) {
        log_record(late[i]);
        fo_free(late[i]);
    }
    pthread_mutex_lock(&g_mu);
    if (g_log_dropped || g_over_capacity) {
        char line[128];
        int n = snprintf(line, sizeof line,
                         "{\"n\": %u, \"dropped\": %u, \"over_capacity\": %u}\n",
                         g_seq + 1, g_log_dropped, g_over_capacity);
        (void)!write(g_log, line, (size_t)n);
    }
    pthread_mutex_unlock(&g_mu);
}

int fo_egress_serve(const fo_egress_policy *pol, const fo_egress_resolver *res,
                    int listen_fd, int log_fd)
{
    struct sigaction sa;

    g_pol = pol;
    g_res = res;
    g_log = log_fd;
    if (pipe2(g_stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    for (;;) {
        struct pollfd pf[2] = { { listen_fd, POLLIN, 0 }, { g_stop_pipe[0], POLLIN, 0 } };
        int c;

        if (poll(pf, 2, -1) < 0 && errno != EINTR) break;
        if (pf[1].revents) break;
        if (!(pf[0].revents & POLLIN)) continue;
        c = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c >= 0)
            admit(c);
        else if (errno == EMFILE || errno == ENFILE)
            usleep(10000);                       /* let connections end */
    }
    close(listen_fd);
    drain();
    return 0;
}

/* ------------------------------------------------------- start and stop */

/* Leaves the child nothing of folio's but what it serves with. Descriptors:
   the listener at 3 and the log at 4 (*listen_fd, *log_fd updated), and
   /dev/null as stdin, stdout and stderr; every other one is closed -- folio
   holds the jail's control socket, its /work, /out and /tmp, the --in files,
   the runtime folder of all sessions (a supervisor), its own stdout and
   stderr. Environment: emptied; its block (the strings folio was started
   with, which /proc/PID/environ shows) zeroed, then cut to nothing with
   PR_SET_MM_MAP (which any process may do to itself, with every other field
   as it is), so that /proc/PID/environ reads empty. 0, or -1 when /dev/null
   or /proc/self/stat can't be read. */
static int isolate(int *listen_fd, int *log_fd)
{
    unsigned long long f[52];
    struct prctl_mm_map map;
    int l = fcntl(*listen_fd, F_DUPFD, 5), g = fcntl(*log_fd, F_DUPFD, 5);
    int null = open("/dev/null", O_RDWR);

    if (l < 0 || g < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
        dup2(null, 2) < 0 || dup2(l, 3) < 0 || dup2(g, 4) < 0)
        return -1;
    fo_close_all_except(3, 4);          /* l, g and null among them */
    *listen_fd = 3;
    *log_fd = 4;
    (void)clearenv();
    if (fo_self_stat(f, 52) < 0 || f[51] < f[50]) return -1;
    memset((char *)(uintptr_t)f[50], 0, (size_t)(f[51] - f[50]));
    memset(&map, 0, sizeof map);
    map.start_code = f[26];
    map.end_code = f[27];
    map.start_stack = f[28];
    map.start_data = f[45];
    map.end_data = f[46];
    map.start_brk = f[47];
    map.brk = (uintptr_t)sbrk(0);                /* one thread: nothing moves it meanwhile */
    map.arg_start = f[48];
    map.arg_end = f[49];
    map.env_start = map.env_end = f[50];
    map.exe_fd = (uint32_t)-1;                  /* keep: changing it needs a capability */
    /* a kernel without CONFIG_CHECKPOINT_RESTORE refuses: the block stays, zeroed */
    (void)prctl(PR_SET_MM, PR_SET_MM_MAP, (unsigned long)&map, sizeof map, 0);
    return 0;
}

/* The child: holds nothing of folio's (isolate), unprivileged, not dumpable,
   dies with folio; then serves. */
__attribute__((noreturn))
static void proxy_child(const fo_egress_policy *pol, int listen_fd, int log_fd,
                        const char *resolv, unsigned as_id)
{
    static fo_egress_resolver res;
    int have_res = fo_egress_resolver_load(&res, resolv ? resolv : "/etc/resolv.conf") == 0;

    struct rlimit nofile;

    if (isolate(&listen_fd, &log_fd) < 0) _exit(125);
    (void)prctl(PR_SET_NAME, "folio-egress", 0, 0, 0);
    /* two sockets and two pipes per connection */
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < 8 * MAX_CONN) {
        nofile.rlim_cur = nofile.rlim_max < 8 * MAX_CONN ? nofile.rlim_max : 8 * MAX_CONN;
        (void)setrlimit(RLIMIT_NOFILE, &nofile);
    }
    if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(as_id, as_id, as_id) < 0 ||
                           setresuid(as_id, as_id, as_id) < 0))
        _exit(125);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        _exit(125);
    if (getppid() == 1)
        _exit(0);                                  /* folio already gone */
    fo_egress_serve(pol, have_res ? &res : NULL, listen_fd, log_fd);
    _exit(0);
}

int fo_egress_start(fo_egress_proxy *px, const fo_egress_policy *pol, int listen_fd,
                    const char *resolv, unsigned as_id, const char **err)
{
    px->pid = -1;
    px->died = 0;
    px->log_fd = memfd_create("folio-egress-log", MFD_CLOEXEC);
    if (px->log_fd < 0) {
        *err = "can't create the egress log";
        return -1;
    }
    px->pid = fork();
    if (px->pid < 0) {
        *err = "can't start the egress proxy";
        close(px->log_fd);
        px->log_fd = -1;
        return -1;
    }
    if (px->pid == 0) proxy_child(pol, listen_fd, px->log_fd, resolv, as_id);
    return 0;
}

void fo_egress_stop(fo_egress_proxy *px)
{
    int st, k;

    if (px->pid <= 0) return;
    if (waitpid(px->pid, &st, WNOHANG) == px->pid) {
        px->died = st + 1;
        px->pid = -1;
        return;
    }
    kill(px->pid, SIGTERM);
    for (k = 0; k < 150; k++) {
        pid_t r = waitpid(px->pid, &st, WNOHANG);
        if (r == px->pid || (r < 0 && errno != EINTR)) break;
        usleep(10000);
    }
    if (k == 150) {
        kill(px->pid, SIGKILL);
        while (waitpid(px->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    px->pid = -1;
}

/* Records are written as connections end; the manifest lists them as they
   began (each starts with {"n": <accept order>}), so that a program's
   sequential requests appear in its order whatever the threads did. */
static int by_n(const void *a, const void *b)
{
    unsigned long x = strtoul(*(char *const *)a + 6, NULL, 10);
    unsigned long y = strtoul(*(char *const *)b + 6, NULL, 10);

    return x < y ? -1 : x > y;
}

char *fo_egress_log_json(fo_egress_proxy *px)
{
    fo_buf b = { 0 }, out = { 0 };
    char chunk[16384], **line = NULL;
    size_t i, n = 0, cap = 0;
    ssize_t r;
    off_t off = 0;

    while (px->log_fd >= 0 && b.len < LOG_MAX + 4096 &&
           (r = pread(px->log_fd, chunk, sizeof chunk, off)) > 0) {
        off += r;
        putn(&b, chunk, (size_t)r);
    }
    for (i = 0; i < b.len && !b.failed; i++) {      /* split: one object per line */
        char *start = b.data + i, *nl = memchr(start, '\n', b.len - i);
        if (!nl) break;
        if (!fo_grow((void **)&line, &cap, n + 1, 64, sizeof *line)) {
            b.failed = true;
            break;
        }
        *nl = 0;
        line[n++] = start;
        i = (size_t)(nl - b.data);
    }
    if (n) qsort(line, n, sizeof *line, by_n);
    fo_buf_puts(&out, "[");
    for (i = 0; i < n; i++) {
        fo_buf_puts(&out, i ? ",\n    " : "\n    ");
        putn(&out, line[i], strlen(line[i]));
    }
    fo_buf_puts(&out, n ? "\n  ]" : "]");
    fo_free(line);
    if (px->log_fd >= 0) close(px->log_fd);
    px->log_fd = -1;
    if (b.failed) fo_buf_free(&out);
    fo_buf_free(&b);
    return fo_buf_take(&out, NULL); /* NULL when out failed */
}
