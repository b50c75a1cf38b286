/* t_fdpass.c — unit tests of sandbox/fdpass.c: descriptors cross a socket
 * pair with their payload; extra or truncated ones are closed, never leaked. */
#include "sandbox/fdpass.h"
#define FO_SESSION_PRIVATE             /* fo_session_recv, the frames' reader */
#include "sandbox/session.h"
#include "folio.h"

#include <check.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/check_run.h"

/* How many descriptors this process has open. */
static int open_fds(void)
{
    int n = 0, fd;

    for (fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0) n++;
    return n;
}

START_TEST(payload_and_descriptors)
{
    int sp[2], p[2], fds[3];
    char buf[8];
    size_t n;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(fo_fdpass_send(sp[0], "Pxy", 3, p, 2), 0);
    ck_assert_int_eq(fo_fdpass_recv(sp[1], buf, sizeof buf, fds, 3, &n), 3);
    ck_assert_int_eq(memcmp(buf, "Pxy", 3), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(fds[2], -1);
    ck_assert_int_eq(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    ck_assert_int_eq(write(p[1], "z", 1), 1);       /* the received read end sees it */
    ck_assert_int_eq(read(fds[0], buf, 1), 1);
    ck_assert_int_eq(buf[0], 'z');
    close(fds[0]);
    close(fds[1]);
    close(p[0]);
    close(p[1]);
    close(sp[0]);
    close(sp[1]);
}
END_TEST

START_TEST(extra_and_truncated_are_closed)
{
    int sp[2], p[2], three[3], fd, before;
    char big[64], buf[4];
    size_t n;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
    ck_assert_int_eq(pipe(p), 0);
    before = open_fds();
    three[0] = three[1] = three[2] = p[0];
    ck_assert_int_eq(fo_fdpass_send(sp[0], "O", 1, three, 3), 0);
    ck_assert_int_eq(fo_fdpass_recv(sp[1], buf, sizeof buf, &fd, 1, &n), 1);
    ck_assert_uint_eq(n, 1);
    close(fd);
    ck_assert_int_eq(open_fds(), before);            /* the two extra ones closed */
    memset(big, 'x', sizeof big);
    ck_assert_int_eq(fo_fdpass_send(sp[0], big, sizeof big, p, 1), 0);
    ck_assert_int_eq(fo_fdpass_recv(sp[1], buf, sizeof buf, &fd, 1, &n), -1);
    ck_assert_int_eq(fd, -1);
    ck_assert_int_eq(open_fds(), before);            /* truncated: its fd closed */
    ck_assert_int_eq(fo_fdpass_send(sp[0], "x", 1, three, 5), -1);  /* over FO_FDPASS_MAX */
    close(sp[0]);
    ck_assert_int_eq(fo_fdpass_recv(sp[1], buf, sizeof buf, &fd, 1, &n), 0);  /* end */
    close(sp[1]);
    close(p[0]);
    close(p[1]);
}
END_TEST

/* A session frame whose first byte carries two descriptors (a hostile or
   buggy peer): the first is handed over, the second closed. Before,
   fo_session_recv took only a one-descriptor message and leaked both. */
START_TEST(session_frame_with_two_descriptors)
{
    int sp[2], p[2], fd, before;
    unsigned char frame[] = { 'x', 2, 0, 0, 0, 'h', 'i' };
    char type, *payload;
    size_t len;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    ck_assert_int_eq(pipe(p), 0);
    before = open_fds();
    ck_assert_int_eq(fo_fdpass_send(sp[0], frame, sizeof frame, p, 2), 0);
    ck_assert_int_eq(fo_session_recv(sp[1], &type, &payload, &len, 64, 1000, &fd), 0);
    ck_assert_int_eq(type, 'x');
    ck_assert_uint_eq(len, 2);
    ck_assert_str_eq(payload, "hi");
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(open_fds(), before + 1);        /* one kept, the other closed */
    close(fd);
    fo_free(payload);
    ck_assert_int_eq(fo_fdpass_send(sp[0], frame, sizeof frame, p, 2), 0);
    ck_assert_int_eq(fo_session_recv(sp[1], &type, &payload, &len, 64, 1000, NULL), 0);
    ck_assert_int_eq(open_fds(), before);            /* nobody asked: both closed */
    fo_free(payload);
    close(p[0]);
    close(p[1]);
    close(sp[0]);
    close(sp[1]);
}
END_TEST

/* The payload's allocation fails after a descriptor came with the header:
   fo_session_recv returns -1 with no payload and closes that descriptor. */
START_TEST(session_frame_allocation_fails)
{
    int sp[2], p[2], fd = 7, before;
    unsigned char frame[] = { 'x', 2, 0, 0, 0, 'h', 'i' };
    char type, *payload = (char *)1;
    size_t len = 1;

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    ck_assert_int_eq(pipe(p), 0);
    before = open_fds();
    ck_assert_int_eq(fo_fdpass_send(sp[0], frame, sizeof frame, p, 1), 0);
    fo_alloc_fail_after(1);
    ck_assert_int_eq(fo_session_recv(sp[1], &type, &payload, &len, 64, 1000, &fd), -1);
    fo_alloc_fail_after(0);
    ck_assert_ptr_null(payload);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(fd, -1);
    ck_assert_int_eq(open_fds(), before);            /* the passed descriptor closed */
    close(p[0]);
    close(p[1]);
    close(sp[0]);
    close(sp[1]);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        payload_and_descriptors,
        extra_and_truncated_are_closed,
        session_frame_with_two_descriptors,
        session_frame_allocation_fails,
        NULL,
    };
    return fo_check_tests("fdpass", 0, tests);
}
