/* echo.c — the live echo of a jailed program's stdout/stderr to folio's own,
 * which must never stall the supervisor (the wall clock holds whatever the
 * caller does with its end of the pipe):
 *   - folio's stdout/stderr, when they are pipes or terminals, are reopened
 *     non-blocking (a new open file description: the caller's stays as it
 *     was); a socket is written with MSG_DONTWAIT; a regular file as is;
 *   - each stream queues at most ECHO_PENDING bytes; while its queue is full
 *     the supervisor stops reading that stream, so the program blocks on its
 *     own write (flow control, nothing lost) and the deadline still kills it;
 *   - at most FO_SANDBOX_ECHO_MAX bytes of each stream are echoed, then one
 *     note; what is not echoed is still read (and the manifest keeps the tail);
 *   - on a terminal, control characters other than \n \t \r (ESC, BEL, DEL,
 *     C1) are shown escaped ("\x1b"), so the program cannot set the title,
 *     clear the screen or write the clipboard (OSC 52) of the caller's terminal.
 * What is still queued when the run ends is written until a deadline, then
 * dropped with a note. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void fo_sandbox_std_nonblocking(void)
{
    int fd;

    for (fd = 1; fd <= 2; fd++) {
        struct stat st;
        char path[32];
        int nb;

        if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        nb = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (nb < 0)
            continue;                   /* e.g. no /proc: writes may block (documented) */
        if (dup2(nb, fd) < 0)
            (void)0;                    /* fd keeps its old, blocking description */
        close(nb);
    }
}

/* One write attempt that never blocks. Bytes written, 0 when the reader is
   full, -1 when it is gone. */
static ssize_t try_write(fo_sandbox_echo *e, const char *s, size_t n)
{
    ssize_t w;

    do
        w = e->sock ? send(e->fd, s, n, MSG_DONTWAIT | MSG_NOSIGNAL) : write(e->fd, s, n);
    while (w < 0 && errno == EINTR);
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return w;
}

void fo_sandbox_echo_open(fo_sandbox_echo *e, int fd, const char *name, char *store)
{
    struct stat st;

    memset(e, 0, sizeof *e);
    e->pend = store;
    e->fd = fd;
    e->name = name;
    if (fd < 0) return;
    e->tty = isatty(fd);
    e->sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

int fo_sandbox_echo_full(const fo_sandbox_echo *e)
{
    /* room for one read of 16 KiB escaped 4 to 1 on a terminal */
    return e->fd >= 0 && e->len + 4 * 16384 > FO_SANDBOX_ECHO_PENDING;
}

int fo_sandbox_echo_pending(const fo_sandbox_echo *e)
{
    return e->fd >= 0 && e->len > 0;
}

void fo_sandbox_echo_flush(fo_sandbox_echo *e)
{
    ssize_t w;

    if (e->fd < 0 || e->gone) return;
    while (e->len > 0 && (w = try_write(e, e->pend, e->len)) > 0) {
        memmove(e->pend, e->pend + w, e->len - (size_t)w);
        e->len -= (size_t)w;
    }
    if (e->len > 0 && w < 0) {
        e->gone = 1;                     /* caller closed its end: keep running */
        e->dropped += e->len;
        e->len = 0;
    }
}

static void queue(fo_sandbox_echo *e, const char *s, size_t n)
{
    if (n > FO_SANDBOX_ECHO_PENDING - e->len) {
        e->dropped += n;                 /* only notes can get here (see _full) */
        return;
    }
    memcpy(e->pend + e->len, s, n);
    e->len += n;
}

/* On a terminal: controls shown as \xNN; a 0xC2 lead byte is held back until
   the next byte says whether it starts a C1 control (U+0080..U+009F). */
static void queue_escaped(fo_sandbox_echo *e, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t k;

    for (k = 0; k < n; k++) {
        unsigned char c = s[k];
        char esc[8];

        if (e->held_c2) {
            e->held_c2 = 0;
            if (c >= 0x80 && c <= 0x9f) {
                memcpy(esc, "\\xc2\\x", 6);
                esc[6] = hex[c >> 4];
                esc[7] = hex[c & 15];
                queue(e, esc, 8);
                continue;
            }
            queue(e, "\xc2", 1);
        }
        if (c == 0xc2) {
            e->held_c2 = 1;
        } else if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) {
            esc[0] = '\\';
            esc[1] = 'x';
            esc[2] = hex[c >> 4];
            esc[3] = hex[c & 15];
            queue(e, esc, 4);
        } else {
            queue(e, (const char *)&s[k], 1);
        }
    }
}

void fo_sandbox_echo_add(fo_sandbox_echo *e, const char *s, size_t n)
{
    size_t take;

    if (e->fd < 0) return;
    take = e->echoed >= FO_SANDBOX_ECHO_MAX ? 0 : FO_SANDBOX_ECHO_MAX - e->echoed;
    if (n > take) {
        e->capped = 1;
        n = (size_t)take;
    }
    if (e->gone) {
        e->dropped += n;
        return;
    }
    if (e->tty)
        queue_escaped(e, (const unsigned char *)s, n);
    else queue(e, s, n);
    e->echoed += n;
    fo_sandbox_echo_flush(e);
}

void fo_sandbox_echo_finish(fo_sandbox_echo *e, double until)
{
    double quiet_since = fo_now();

    if (e->fd < 0) return;
    if (e->held_c2) {
        e->held_c2 = 0;
        queue(e, "\xc2", 1);
    }
    fo_sandbox_echo_flush(e);
    while (e->len > 0 && !e->gone) {
        size_t before = e->len;
        double now = fo_now(), left = until - now;
        struct pollfd pf = { e->fd, POLLOUT, 0 };

        if (now - quiet_since > FO_SANDBOX_ECHO_GRACE && left > FO_SANDBOX_ECHO_GRACE)
            left = 0;                  /* no progress for a while: the reader stalled */
        if (left <= 0) break;
        (void)poll(&pf, 1, (int)(left * 1000) + 1);
        fo_sandbox_echo_flush(e);
        if (e->len < before) quiet_since = fo_now();
    }
    if (e->len > 0) {
        e->stalled = 1;
        e->dropped += e->len;
        e->len = 0;
    }
}

void fo_sandbox_echo_note(fo_sandbox_echo *to, const fo_sandbox_echo *e, double until)
{
    char msg[256];
    int n = 0;

    if (to->fd < 0 || e->fd < 0) return;
    if (e->capped)
        n = snprintf(msg, sizeof msg, "folio: run: %s truncated after %llu bytes (the "
                     "manifest keeps the last %d KiB)\n", e->name,
                     (unsigned long long)e->echoed, FO_SANDBOX_TAIL / 1024);
    else if (e->stalled && !e->gone)
        n = snprintf(msg, sizeof msg, "folio: run: %s: %llu bytes not echoed: the reader "
                     "stopped reading (the manifest keeps the last %d KiB)\n", e->name,
                     (unsigned long long)e->dropped, FO_SANDBOX_TAIL / 1024);
    if (n <= 0 || to->gone) return;
    queue(to, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    fo_sandbox_echo_finish(to, until);
}
