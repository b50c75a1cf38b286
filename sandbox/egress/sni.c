/* sni.c — the server name a TLS ClientHello asks for (RFC 8446 4.1.2,
 * RFC 6066 3), so that the proxy can refuse a CONNECT whose TLS goes to
 * another name (domain fronting) or hides it (encrypted ClientHello).
 * Only the first record is read: a ClientHello split over several records
 * is refused as malformed (no client of ours sends one; 16 KiB is plenty). */
#include "sandbox/egress/egress.h"

#include <string.h>

#define EXT_SERVER_NAME 0x0000
#define EXT_ECH         0xfe0d     /* draft-ietf-tls-esni: encrypted_client_hello */
#define EXT_ESNI        0xffce     /* its predecessor, encrypted_server_name */

typedef struct { const uint8_t *p; size_t len, off; int bad; } reader;

static unsigned rd(reader *r, size_t n)
{
    unsigned v = 0;

    if (r->bad || r->off + n > r->len) {
        r->bad = 1;
        return 0;
    }
    while (n--) v = v << 8 | r->p[r->off++];
    return v;
}

static void skip(reader *r, size_t n)
{
    if (r->bad || r->off + n > r->len)
        r->bad = 1;
    else r->off += n;
}

/* server_name extension body -> name. FO_SNI_OK / NONE / BAD. */
static int server_name(reader *e, char *name)
{
    size_t list = rd(e, 2), end = e->off + list;   /* (rd first: it moves off) */

    while (!e->bad && e->off < end) {
        unsigned type = rd(e, 1), n = rd(e, 2);
        if (e->bad || e->off + n > end) return FO_SNI_BAD;
        if (type == 0) {                          /* host_name */
            if (n == 0 || n > FO_EGRESS_MAX_NAME) return FO_SNI_BAD;
            memcpy(name, e->p + e->off, n);
            name[n] = 0;
            return memchr(name, 0, n) ? FO_SNI_BAD : FO_SNI_OK;
        }
        skip(e, n);
    }
    return FO_SNI_NONE;
}

int fo_egress_sni(const uint8_t *buf, size_t len, char *name)
{
    reader r = { buf, len, 0, 0 };
    size_t rec_len, ext_end;
    int found = FO_SNI_NONE;

    if (len < 5) return FO_SNI_MORE;
    if (buf[0] != 22 || buf[1] != 3)              /* handshake, TLS 1.x */
        return FO_SNI_BAD;
    rec_len = (size_t)buf[3] << 8 | buf[4];
    if (rec_len < 4 || rec_len > 16384) return FO_SNI_BAD;
    if (len < 5 + rec_len) return FO_SNI_MORE;
    r.len = 5 + rec_len;
    r.off = 5;
    if (rd(&r, 1) != 1)                           /* client_hello */
        return FO_SNI_BAD;
    if (rd(&r, 3) + 4 != rec_len)                 /* the whole hello in this record */
        return FO_SNI_BAD;
    skip(&r, 2 + 32);                             /* legacy_version, random */
    skip(&r, rd(&r, 1));                          /* session id */
    skip(&r, rd(&r, 2));                          /* cipher suites */
    skip(&r, rd(&r, 1));                          /* compression methods */
    if (r.bad) return FO_SNI_BAD;
    if (r.off == r.len)
        return FO_SNI_NONE;                       /* no extensions at all */
    ext_end = rd(&r, 2);
    ext_end += r.off;
    if (r.bad || ext_end != r.len) return FO_SNI_BAD;
    while (r.off < ext_end) {
        unsigned type = rd(&r, 2), n = rd(&r, 2);
        reader e = { buf, r.off + n, r.off, 0 };
        if (r.bad || r.off + n > ext_end) return FO_SNI_BAD;
        if (type == EXT_ECH || type == EXT_ESNI) return FO_SNI_ECH;
        if (type == EXT_SERVER_NAME) {
            if (found != FO_SNI_NONE)
                return FO_SNI_BAD;                /* two server_name extensions */
            found = server_name(&e, name);
            if (found == FO_SNI_BAD) return FO_SNI_BAD;
        }
        skip(&r, n);
    }
    return found;
}
