/* fdpass.c - messages with descriptors over a Unix socket (see fdpass.h). */
#include "sandbox/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fo_fdpass_send(int sock, const void *data, size_t len, const int *fds, size_t n)
{
    char cbuf[CMSG_SPACE(FO_FDPASS_MAX * sizeof(int))];
    struct iovec iov = { (void *)(size_t)data, len };
    struct msghdr msg;
    ssize_t r;

    if (len == 0 || n > FO_FDPASS_MAX) {
        errno = EINVAL;
        return -1;
    }
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (n) {
        struct cmsghdr *cm;
        memset(cbuf, 0, sizeof cbuf);
        msg.msg_control = cbuf;
        msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
        cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(n * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
    }
    do
        r = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    return r == (ssize_t)len ? 0 : -1;
}

/* Takes the descriptors of one control message: the first max into fds,
   the rest closed. Returns how many arrived. */
static size_t take_fds(struct cmsghdr *cm, int *fds, size_t max, size_t have)
{
    size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int), k;

    for (k = 0; k < n; k++) {
        int fd;
        memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof fd);
        if (have + k < max)
            fds[have + k] = fd;
        else close(fd);
    }
    return n;
}

ssize_t fo_fdpass_recv(int sock, void *buf, size_t cap, int *fds, size_t max, size_t *nfds)
{
    char cbuf[CMSG_SPACE(FO_FDPASS_MAX * sizeof(int))];
    struct iovec iov = { buf, cap };
    struct msghdr msg;
    struct cmsghdr *cm;
    size_t k, got = 0;
    ssize_t r;

    for (k = 0; k < max; k++) fds[k] = -1;
    if (nfds) *nfds = 0;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof cbuf;
    do
        r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) got += take_fds(cm, fds, max, got);
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (k = 0; k < max; k++)
            if (fds[k] >= 0) {
                close(fds[k]);
                fds[k] = -1;
            }
        errno = EMSGSIZE;
        return -1;
    }
    if (nfds) *nfds = got < max ? got : max;
    return r;
}
