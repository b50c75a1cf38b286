/* session_proto.c — what every side of a session shares: the frame format
 * (bounded, length-prefixed), the per-user runtime folder, session ids, typed
 * errors and the store's small files. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/fdpass.h"
#include "sandbox/session.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void fo_session_fail(fo_session_error *err, const char *code, int exit, const char *hint,
                     const char *fmt, ...)
{
    va_list ap;

    snprintf(err->code, sizeof err->code, "%s", code);
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
    err->exit = exit;
}

/* ----------------------------------------------------------------- frames */

int fo_session_send(int sock, char type, const void *payload, size_t len, int pass_fd)
{
    unsigned char hdr[FO_SESSION_HDR];
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov[2] = { { hdr, sizeof hdr }, { (void *)payload, len } };
    struct msghdr m = { 0 };
    size_t done = 0, total = sizeof hdr + len;

    if (len > FO_SESSION_MAX_FRAME) {
        errno = EMSGSIZE;
        return -1;
    }
    hdr[0] = (unsigned char)type;
    for (int k = 0; k < 4; k++) hdr[1 + k] = (unsigned char)(len >> (8 * k));
    m.msg_iov = iov;
    m.msg_iovlen = len ? 2 : 1;
    if (pass_fd >= 0) {
        struct cmsghdr *cm;
        memset(cbuf, 0, sizeof cbuf);
        m.msg_control = cbuf;
        m.msg_controllen = sizeof cbuf;
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
    }
    while (done < total) {
        ssize_t n = sendmsg(sock, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
        m.msg_control = NULL;            /* the descriptor went with the first byte */
        m.msg_controllen = 0;
        while (m.msg_iovlen && (size_t)n >= m.msg_iov[0].iov_len) {
            n -= (ssize_t)m.msg_iov[0].iov_len;
            m.msg_iov++;
            m.msg_iovlen--;
        }
        if (m.msg_iovlen) {
            m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + n;
            m.msg_iov[0].iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Reads exactly n bytes before the deadline (-1: none); a passed descriptor
   is stored in *fd (the first one only; any other, in the same message or a
   later one, is closed by fo_fdpass_recv or here). */
static int read_exact(int sock, void *buf, size_t n, int timeout_ms, int *fd)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd pf = { sock, POLLIN, 0 };
        int pr = poll(&pf, 1, timeout_ms), passed;
        ssize_t r;

        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) {
            errno = pr == 0 ? ETIMEDOUT : errno;
            return -1;
        }
        r = fo_fdpass_recv(sock, (char *)buf + got, n - got, &passed, 1, NULL);
        if (r <= 0) {
            errno = r == 0 ? ECONNRESET : errno;
            return -1;
        }
        if (passed >= 0 && fd && *fd < 0)
            *fd = passed;
        else if (passed >= 0) close(passed);
        got += (size_t)r;
    }
    return 0;
}

int fo_session_recv(int sock, char *type, char **payload, size_t *len, size_t max,
                    int timeout_ms, int *fd)
{
    unsigned char hdr[FO_SESSION_HDR];
    size_t n = 0;
    char *p;

    *payload = NULL;
    *len = 0;
    if (fd) *fd = -1;
    if (read_exact(sock, hdr, sizeof hdr, timeout_ms, fd) < 0) goto fail;
    for (int k = 0; k < 4; k++) n |= (size_t)hdr[1 + k] << (8 * k);
    if (n > max) {
        errno = EPROTO;
        goto fail;
    }
    p = fo_malloc(n + 1);
    if (!p) goto fail;
    if (n && read_exact(sock, p, n, timeout_ms, fd) < 0) {
        fo_free(p);
        goto fail;
    }
    p[n] = 0;
    *type = (char)hdr[0];
    *payload = p;
    *len = n;
    return 0;
fail:
    if (fd && *fd >= 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        errno = e;
    }
    return -1;
}

/* ---------------------------------------------------------------- errors */

int fo_session_error_send(int sock, const fo_session_error *err)
{
    char buf[sizeof err->code + sizeof err->message + sizeof err->hint + 16];
    int n = snprintf(buf, sizeof buf, "%d%c%s%c%s%c%s", err->exit, 0, err->code, 0,
                     err->message, 0, err->hint);

    return fo_session_send(sock, 'X', buf, n > 0 ? (size_t)n : 0, -1);
}

void fo_session_error_parse(fo_session_error *err, const char *p, size_t n)
{
    const char *f[4] = { "", "", "", "" };
    size_t k, at = 0;

    for (k = 0; k < 4 && at <= n; k++) {
        f[k] = p + at;
        at += strnlen(p + at, n - at) + 1;
    }
    fo_session_fail(err, *f[1] ? f[1] : "internal", atoi(f[0]) > 0 ? atoi(f[0]) : 5, f[3],
                    "%s", f[2]);
}

/* ------------------------------------------------------ runtime, ids */

int fo_session_runtime(fo_session_error *err)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR"), *own = getenv("FOLIO_SESSION_DIR");
    char path[4096];
    struct stat st;
    int fd;

    if (own && own[0] == '/' && strlen(own) < 3000)
        snprintf(path, sizeof path, "%s", own);         /* folio serve's own folder */
    else if (xdg && xdg[0] == '/' && strlen(xdg) < 3000) snprintf(path, sizeof path, "%s/folio", xdg);
    else snprintf(path, sizeof path, "/tmp/folio-%u", (unsigned)geteuid());
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        fo_session_fail(err, "internal", 5, "set XDG_RUNTIME_DIR to a folder of yours",
                        "can't create the runtime folder %s: %s", path, strerror(errno));
        return -1;
    }
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 0077)) {
        fo_session_fail(err, "internal", 5, "remove it, or set XDG_RUNTIME_DIR to a folder of yours",
                        "the runtime folder %s is not a private folder of this user "
                        "(it must be yours, mode 0700, not a link)", path);
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

int fo_session_valid_id(const char *id)
{
    size_t k;

    for (k = 0; id[k]; k++)
        if (!((id[k] >= '0' && id[k] <= '9') || (id[k] >= 'a' && id[k] <= 'f'))) return 0;
    return k == 32;
}

void fo_session_new_id(char id[33])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char r[16];
    size_t got = 0;

    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (errno != EINTR)
            abort();                     /* no randomness: never a guessable id */
    }
    for (int k = 0; k < 16; k++) {
        id[2 * k] = hex[r[k] >> 4];
        id[2 * k + 1] = hex[r[k] & 15];
    }
    id[32] = 0;
}

void fo_session_addr(struct sockaddr_un *a, int dirfd, const char *name)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "/proc/self/fd/%d/%s", dirfd, name);
}

int fo_session_connect(int rt, const char *id)
{
    return fo_session_connect_to(rt, id, "sock");
}

int fo_session_connect_to(int rt, const char *id, const char *name)
{
    struct sockaddr_un a;
    int d = openat(rt, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), s;

    if (d < 0) return -1;
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    fo_session_addr(&a, d, name);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(s);
        s = -1;
        errno = e;
    }
    close(d);
    return s;
}

/* ----------------------------------------------------------- small files */

char *fo_session_read_small(int dirfd, const char *name, size_t max)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    char *buf;
    size_t got = 0;

    if (fd < 0) return NULL;
    buf = fo_malloc(max + 1);
    if (buf) got = fo_read_upto(fd, buf, max, -1);
    close(fd);
    if (buf) buf[got] = 0;
    return buf;
}

int fo_session_write_small(int dirfd, const char *name, const char *text)
{
    /* the same atomic write as --out DIR; then owner-only, like the folder */
    if (fo_sandbox_write_buf(dirfd, name, text, strlen(text)) < 0) return -1;
    return fchmodat(dirfd, name, 0600, 0);
}
