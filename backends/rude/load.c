/*
 * backends/rude/load.c - starts a thread when it is loaded (as oneDNN,
 * OpenMP and libtorch do) and appends the loading process's id to the file
 * named by IOHW_RUDE_LOAD_LOG, so that tests can tell which processes load
 * a backend; its run() is plain.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void iohw__rude_act(void);

void iohw__rude_act(void)
{
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

__attribute__((constructor)) static void on_load(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) == 0)
        pthread_detach(t);
    const char *log = getenv("IOHW_RUDE_LOAD_LOG");
    FILE *f = log != NULL ? fopen(log, "a") : NULL;
    if (f != NULL) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
}
