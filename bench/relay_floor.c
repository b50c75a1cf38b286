/* relay_floor.c — the floor for bench-egress.sh: the least a user-space HTTP
 * proxy can do for one download. It accepts on 127.0.0.1:PORT, reads the
 * request head, sends it to 127.0.0.1:UPSTREAM in origin form, and moves the
 * answer to the client with blocking splice() through a 1 MiB pipe. Not a
 * proxy: no policy, no name lookup, no poll, no limits, no log, one thread
 * per connection, nothing sent upstream after the head. It shows what the
 * second TCP connection and the hop through user space cost on this machine.
 *
 * Build: cc -O2 relay_floor.c -lpthread
 * Usage: relay_floor PORT UPSTREAM_PORT   (prints "ready" once listening) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)

static int upstream_port;

static int dial(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        close(s);
        return -1;
    }
    return s;
}

/* "GET http://host/path HTTP/1.1..." -> "GET /path HTTP/1.1..." */
static int send_head(int u, char *head, size_t len)
{
    char *uri = memmem(head, len, "http://", 7);
    char *path = uri ? memchr(uri + 7, '/', len - (size_t)(uri + 7 - head)) : NULL;

    if (uri && path) {
        if (send(u, head, (size_t)(uri - head), MSG_MORE) < 0) return -1;
        len -= (size_t)(path - head);
        head = path;
    }
    return send(u, head, len, 0) < 0 ? -1 : 0;
}

static void *one(void *arg)
{
    int c = (int)(long)arg, u = -1, pp[2] = { -1, -1 };
    char head[8192];
    ssize_t n = recv(c, head, sizeof head, 0);

    if (n > 0 && (u = dial(upstream_port)) >= 0 && send_head(u, head, (size_t)n) == 0 &&
        pipe2(pp, O_CLOEXEC) == 0) {
        (void)fcntl(pp[0], F_SETPIPE_SZ, PIPE_BYTES);
        for (;;) {
            ssize_t r = splice(u, NULL, pp[1], NULL, PIPE_BYTES, SPLICE_F_MOVE);
            if (r <= 0) break;
            while (r > 0) {
                ssize_t w = splice(pp[0], NULL, c, NULL, (size_t)r, SPLICE_F_MOVE | SPLICE_F_MORE);
                if (w <= 0) goto out;
                r -= w;
            }
        }
    }
out:
    if (pp[0] >= 0) {
        close(pp[0]);
        close(pp[1]);
    }
    if (u >= 0) close(u);
    close(c);
    return NULL;
}

int main(int argc, char **argv)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    int s, on = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: relay_floor PORT UPSTREAM_PORT\n");
        return 2;
    }
    upstream_port = atoi(argv[2]);
    a.sin_port = htons((uint16_t)atoi(argv[1]));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    (void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 64) < 0) {
        perror("relay_floor");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
        pthread_t t;
        if (c < 0) continue;
        if (pthread_create(&t, NULL, one, (void *)(long)c) != 0)
            close(c);
        else pthread_detach(t);
    }
}
