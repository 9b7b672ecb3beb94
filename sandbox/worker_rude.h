/*
 * sandbox/worker_rude.h - what a backend call did to the worker's process
 * that does not change its output: the floating-point environment,
 * descriptors, threads, signal dispositions.  Internal to the worker.
 *
 * The state is captured once, after the backend is loaded and initialised.
 * Before every backend call the floating-point environment is set back to
 * the captured one; after it, each difference becomes a warning and is
 * undone where the worker can:
 *   - floating-point environment (MXCSR and the x87 control word; the
 *     sticky exception flags are ignored): restored;
 *   - descriptors open before the call and closed by it: 0, 1 and 2 are
 *     reopened on what they were (/dev/null and the output pipes);
 *   - descriptors opened and kept: warned when a call leaves more open
 *     descriptors than any earlier call left (a library opening a file once
 *     warns once);
 *   - threads: warned when a call leaves more threads than any earlier call
 *     left (a thread pool started once by a library on its first call warns
 *     on that case only; oneDNN, OpenMP and libtorch do this);
 *   - dispositions of signals 1..31: every change is restored.
 */
#ifndef IOHW_WORKER_RUDE_H
#define IOHW_WORKER_RUDE_H

#include <fenv.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define IOHW__RUDE_FDS 1024

typedef struct iohw__fdset {
    uint64_t bits[IOHW__RUDE_FDS / 64];
    int count;              /* all open descriptors, above the bitmap too */
    int ok;                 /* 0: /proc/self/fd could not be read */
} iohw__fdset;

typedef struct iohw__rude {
    fenv_t env;                     /* captured after loading */
    int std_copy[3];                /* what 0, 1 and 2 were, at high numbers */
    int max_threads, max_fds;       /* high-water marks left by calls */
} iohw__rude;

/* The state before one call. */
typedef struct iohw__rude_snap {
    iohw__fdset fds;
    struct sigaction acts[32];
} iohw__rude_snap;

/* Captures the state; std_copy holds high-numbered duplicates of 0, 1, 2. */
void iohw__rude_capture(iohw__rude *r, const int std_copy[3]);

/* Restores the floating-point environment and records the state. */
void iohw__rude_before(const iohw__rude *r, iohw__rude_snap *s);

/* Compares with the state before the call `call` ("run()"), appends the
 * warnings to *warn (a kept text, "; "-separated) and undoes what it can. */
void iohw__rude_after(iohw__rude *r, const iohw__rude_snap *s,
                      const char *call, const char **warn);

/* Appends text to the "; "-separated kept text *warn (results/text.h). */
void iohw__warn_add(const char **warn, const char *text);

/* The lowest descriptor number the worker moves its own descriptors to. */
int iohw__rude_high_fd(void);

#endif
