/* clock.h — the monotonic clock, one copy for every layer: deadlines,
 * timeouts and durations (never the wall clock, which jumps). */
#ifndef FO_BASE_CLOCK_H
#define FO_BASE_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double fo_now(void);
/* The same, in whole milliseconds. */
long fo_now_ms(void);

#endif
