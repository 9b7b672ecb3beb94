/*
 * harness/breaker.h - the circuit breaker of `iohw run`: a backend that
 * hangs on a whole class of problems would otherwise cost the timeout once
 * per case of the class (hours on the ci profile).
 *
 * The class of a case is its rank and dtype ("rank 3, f32"; a quantized
 * one's x, w and y types: "rank 2, u8/s8/u8"): what a
 * backend's support and its code paths most often depend on.  After
 * `threshold` cases of one class end in TIMEOUT, the class is open: its
 * cases not yet handed to a worker are not run and become TIMEOUT with the
 * message "not run: 3 cases of this class (rank 3, f32) timed out (the
 * circuit breaker, --breaker 3)".  They stay bad results (the run exits 1)
 * and appear in every report; cases already running finish normally.
 * Entries whose descriptor does not parse have no class and are always run.
 * With --resume, the journal's TIMEOUTs count, and the cases the breaker
 * left out are run again (or left out again, if their class is open).
 */
#ifndef IOHW_BREAKER_H
#define IOHW_BREAKER_H

#include <stddef.h>
#include <stdint.h>

#include "harness/listing.h"
#include "results/result.h"
#include "oracle/error.h"

/* The beginning of the message of a case the breaker left out. */
#define IOHW_BREAKER_NOT_RUN "not run: "

typedef struct iohw_breaker_class {
    uint32_t rank;
    int dtype;
    int w_dtype, y_dtype;       /* the same as dtype in a float problem */
    int64_t timeouts;
} iohw_breaker_class;

typedef struct iohw_breaker {
    int threshold;              /* 0: never opens */
    int *class_of;              /* per entry: index into classes, or -1 */
    iohw_breaker_class *classes;
    int nclasses;
} iohw_breaker;

/* Classifies every entry of s.  0, or -1 when memory runs out. */
int iohw_breaker_init(iohw_breaker *b, const iohw_listing *s, int threshold,
                      iohw_error *err);
void iohw_breaker_free(iohw_breaker *b);

/* Counts a TIMEOUT of entry i (a case that was run, not one skipped). */
void iohw_breaker_timeout(iohw_breaker *b, int64_t i);
/* 1 when r is the result of a case the breaker left out (--resume runs
 * such cases again rather than keeping the journal's result). */
int iohw_breaker_left_out(const iohw_result *r);

/* Counts entry i's result taken from a journal when it is a TIMEOUT of a
 * case that was run (not one the breaker left out). */
void iohw_breaker_resumed(iohw_breaker *b, int64_t i, const iohw_result *r);

/* 1 when entry i's class is open, with the message for its result in msg
 * (size n); 0 when the case is to be run. */
int iohw_breaker_open(const iohw_breaker *b, int64_t i, char *msg, size_t n);

#endif
