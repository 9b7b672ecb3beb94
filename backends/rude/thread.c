/*
 * backends/rude/thread.c - starts a thread on every run() and leaves it
 * running (sleeping for ever).
 */
#include <pthread.h>
#include <unistd.h>

void iohw__rude_act(void);

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

void iohw__rude_act(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) == 0)
        pthread_detach(t);
}
