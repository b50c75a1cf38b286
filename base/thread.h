/* thread.h — the helper threads of a render (the output watchdog, the
 * packing and deflating threads). */
#ifndef FO_THREAD_H
#define FO_THREAD_H

#include <pthread.h>

/* pthread_create, the thread beginning with SIGINT, SIGTERM and SIGHUP
 * blocked: those signals then reach only the thread that stages the outputs,
 * so their cleanup (base/stage.c) never runs on another thread while that one
 * is half way through creating or renaming a file. 0, or an error number. */
int fo_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
