/* thread.c — see thread.h. Apart from stage.c so that the static launcher,
 * which links stage.c, does not link pthread_create. */
#include "base/thread.h"
#include "base/stage.h"

int fo_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t old;
    int rc;

    fo_stage_signals_block(&old);
    rc = pthread_create(t, NULL, fn, arg);
    fo_stage_signals_restore(&old);
    return rc;
}
