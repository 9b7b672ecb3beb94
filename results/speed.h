/*
 * results/speed.h - the speed part of a performance run (`iohw run
 * --repeat N`, docs/REPORT_FORMAT.md "speed"): the timed results grouped
 * by class, the class of the circuit breaker (harness/breaker.h: rank and
 * dtype), each with its cases, the total of their median run() times, the
 * median of their GMAC/s and the median of their ratios to the reference;
 * then the slowest cases.  Built from the results alone (a report read
 * back gives the same part).  Runs without --repeat have no timed result
 * and no speed part.
 */
#ifndef IOHW_SPEED_H
#define IOHW_SPEED_H

#include <stdint.h>
#include <stdio.h>

#include "results/run_results.h"

/* Slowest cases kept. */
#define IOHW_SPEED_SLOWEST 5

typedef struct iohw_speed_class {
    char name[48];           /* "rank 2, f32"; "unknown" when the
                                descriptor does not parse */
    int64_t cases;           /* timed results of the class */
    double total_ms;         /* the sum of their time_ms */
    double gmacs;            /* the median of their gmacs */
    double ratio;            /* the median of their ratios (results with
                                one); 0 when none has one */
    int64_t with_ratio;      /* results with a ratio */
} iohw_speed_class;

typedef struct iohw_speed {
    iohw_speed_class *classes;  /* by rank, then dtype code */
    int nclasses;
    iohw_speed_class all;       /* every timed result ("all") */
    int repeat;                 /* the largest repeat seen */
    int64_t slowest[IOHW_SPEED_SLOWEST];  /* indices into the results,
                                             largest time_ms first */
    int nslowest;
} iohw_speed;

/* Groups the timed results of r (repeat > 0).  0, or -1 when memory runs
 * out; s->all.cases is 0 when nothing was timed. */
int iohw_speed_build(const iohw_run_results *r, iohw_speed *s);
void iohw_speed_free(iohw_speed *s);

/* The console's speed part: a table of the classes and the slowest cases;
 * nothing when s holds no timed result. */
void iohw_speed_print(const iohw_speed *s, const iohw_run_results *r,
                      FILE *out);

#endif
