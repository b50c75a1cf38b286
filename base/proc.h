/* proc.h — descriptors and /proc/self/stat, for every layer: folio run, the
 * jail's init, the session supervisor, the egress proxy and the service. */
#ifndef FO_BASE_PROC_H
#define FO_BASE_PROC_H

#include <stddef.h>

/* Writes all n bytes of p to fd, again after EINTR; on a non-blocking fd
   that is full, waits for room until `until` (fo_now() seconds; 0: gives up
   at once). 0, or -1 when the reader went away or time ran out. */
int fo_write_all(int fd, const void *p, size_t n, double until);

/* Closes every descriptor from 3 up but keep1 and keep2 (-1: none):
   close_range(2) where the kernel has it, a loop before 5.9. */
void fo_close_all_except(int keep1, int keep2);
/* Fields 4..n-1 of /proc/self/stat into field[4..n-1] (field[k] is field k
   of proc(5): 26 start_code ... 48..51 arg_start arg_end env_start env_end;
   0..3 are set to 0). n at most 52. 0, or -1 when /proc can't tell. */
int fo_self_stat(unsigned long long *field, int n);

#endif
