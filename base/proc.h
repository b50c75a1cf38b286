/* proc.h — the process's own descriptors and /proc/self/stat: for the jail's
 * init, the session supervisor and the egress proxy alike. */
#ifndef FO_BASE_PROC_H
#define FO_BASE_PROC_H

/* Closes every descriptor from 3 up but keep1 and keep2 (-1: none):
   close_range(2) where the kernel has it, a loop before 5.9. */
void fo_close_all_except(int keep1, int keep2);
/* Fields 4..n-1 of /proc/self/stat into field[4..n-1] (field[k] is field k
   of proc(5): 26 start_code ... 48..51 arg_start arg_end env_start env_end;
   0..3 are set to 0). n at most 52. 0, or -1 when /proc can't tell. */
int fo_self_stat(unsigned long long *field, int n);

#endif
