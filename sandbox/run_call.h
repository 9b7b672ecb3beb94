/*
 * sandbox/run_call.h - the backend call that computes a problem: run() for
 * a float problem, run_quant() for a quantized one (specification section
 * 11.4).  The one place the worker side (worker.c, worker_repeat.c,
 * probe.c) and the verifier's messages tell the two apart.  Internal to
 * the harness.
 */
#ifndef IOHW_RUN_CALL_H
#define IOHW_RUN_CALL_H

#include "iohw/backend.h"

/* The tensors of one call, in the backend's own pointers. */
typedef struct iohw__run_args {
    const void *x, *w, *bias, *requant;
    void *y;                /* the direction's output (dw then db) */
    const void *dy;         /* a backward case's dy */
} iohw__run_args;

typedef struct iohw__run_call {
    const char *name;      /* "run()", "run_quant()": for messages */
    /* Why a backend without the call refuses the problem; NULL when
     * every backend has it. */
    const char *missing;
    /* 1: the bundled reference can be timed on the problem (--repeat). */
    int reference;
    /* 1 when backend t has the call. */
    int (*present)(const iohw_backend *t);
    /* Makes the call; the backend's status. */
    int (*call)(const iohw_backend *t, void *ctx, const iohw_problem *p,
                const iohw__run_args *a);
} iohw__run_call;

/* The call that computes p. */
const iohw__run_call *iohw__run_call_of(const iohw_problem *p);

#endif
