/* fdpass.h - messages with descriptors over a Unix socket (SCM_RIGHTS).
   One copy for the jail's init and folio, the session supervisor and the
   service's zygote. A message is a few bytes of payload (a tag first, by
   convention) and up to FO_FDPASS_MAX descriptors. */
#ifndef FOLIO_SANDBOX_FDPASS_H
#define FOLIO_SANDBOX_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

#define FO_FDPASS_MAX 4

/* Sends len bytes of data (len >= 1) with n descriptors (n <= FO_FDPASS_MAX),
   retrying on EINTR, never raising SIGPIPE. Returns 0 when the whole message
   went, else -1 with errno set. */
int fo_fdpass_send(int sock, const void *data, size_t len, const int *fds, size_t n);

/* Receives one message into buf (at most cap bytes) and up to max descriptors
   into fds (close-on-exec; unused slots -1; descriptors beyond max or in a
   truncated message are closed, never leaked). *nfds, when not NULL, gets how
   many arrived. Returns the payload length, 0 at end of stream, or -1 with
   errno set (EMSGSIZE for a truncated message, whose descriptors are closed). */
ssize_t fo_fdpass_recv(int sock, void *buf, size_t cap, int *fds, size_t max, size_t *nfds);

#endif
