/*
 * sandbox/worker_repeat.h - `iohw run --repeat N` inside the worker
 * (sandbox/worker.c): the bookkeeping of calling run() N times on the same
 * inputs, and the timing of the bundled reference on the same case.
 * Internal to the harness.
 *
 * Before each later call y is put back as it was before the first (the
 * verifier's sentinel fill), so that every call starts from the same
 * state; after the last, y holds the first call's output again: that one
 * is judged, as without --repeat.  A later call whose output differs from
 * the first (bit for bit) makes one warning, "run() gave different outputs
 * on repeated calls": a backend must be deterministic for the same inputs.
 * A later call that returns an error ends the repetition with a warning.
 * Neither changes the status.
 */
#ifndef IOHW_WORKER_REPEAT_H
#define IOHW_WORKER_REPEAT_H

#include <stddef.h>

#include "iohw/backend.h"

/* The start of the warning of a backend whose repeated outputs differ. */
#define IOHW_REPEAT_DIFFERS "run() gave different outputs on repeated calls"

typedef struct iohw__repeat {
    int want;              /* calls wanted, >= 1 */
    int n;                 /* calls made and timed */
    double *t;             /* their times in seconds (t[0] always usable) */
    double one;            /* t's storage when want is 1 */
    unsigned char *y;      /* the output in the worker's mapping */
    size_t len;            /* its bytes */
    unsigned char *before; /* y before the first call (want > 1) */
    unsigned char *first;  /* y after the first call */
    int differs;           /* the first call whose output differed, or 0 */
    /* The reference, timed after each call of the backend (interleaved,
     * so that neither finds the caches the other left more often). */
    int ref;               /* 1: time it; 0: not, or it failed */
    int rn;                /* its calls made */
    double *rt;            /* their times */
    unsigned char *ry;     /* its output buffer */
} iohw__repeat;

/* Prepares want calls (< 1: one) on y (len bytes), with ref the timing
 * of the reference.  When memory for the copies runs out, one call is
 * made (and the reference is not timed). */
void iohw__repeat_start(iohw__repeat *rp, int want, int ref, unsigned char *y,
                        size_t len);

/* After a call that returned IOHW_OK: 1 when another is due (y is then as
 * it was before the first call), 0 when done. */
int iohw__repeat_next(iohw__repeat *rp);

/* Records a later call that returned rc: 0 when it counts, -1 when it
 * failed (a warning in warn, size n, names it; stop repeating). */
int iohw__repeat_done(iohw__repeat *rp, int rc, const char **warn);

/* Puts the first call's output back into y; the median and the fastest of
 * the calls made (the median of an even number is the mean of the middle
 * two), and the warning of differing outputs. */
void iohw__repeat_finish(iohw__repeat *rp, double *median, double *min,
                         const char **warn);
void iohw__repeat_free(iohw__repeat *rp);

/* Appends to dst (size n) each "; "-separated part of src that dst does
 * not hold yet: the warnings of later calls, without repeating the first
 * call's. */
void iohw__repeat_merge_warnings(const char **dst, const char *src);

/* Times one call of the bundled reference on the same case, when
 * rp->ref: what libiohw_reference.so's run() does (iohw_oracle_run on one
 * thread, then the copy of y into a buffer of its own), in this process;
 * a failure ends the reference's timing. */
void iohw__repeat_reference(iohw__repeat *rp, const iohw_problem *p,
                            const void *x, const void *w, const void *bias);

/* The reference's median in seconds: 0 unless it was timed as often as
 * the backend. */
double iohw__repeat_reference_median(iohw__repeat *rp);

#endif
