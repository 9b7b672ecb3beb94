/*
 * explore/shrink.h - `iohw shrink`: reduce a failing case to a minimal one
 * that still fails the same way (specification section 7).
 *
 * Greedy shrinking as in property-based testing (QuickCheck, Hypothesis):
 * from the failing problem, reductions are tried in a fixed order (lower
 * rank, fewer batch items, groups and channels per group, no bias, every
 * per-axis extent smaller: input size, kernel, stride, dilation, pads,
 * output_padding; default layouts), each candidate generated with the
 * case's fill and seed and computed by the oracle (generators/), written to
 * a temporary case file and run against the backend in an isolated worker
 * exactly as `iohw run` does (harness/run.h).  The first candidate that
 * still fails the same way is kept and the reductions go on from there,
 * until a whole round of them keeps nothing; then simpler data is tried (a
 * single one-hot x, then a single one-hot w).  The number of backend runs
 * is bounded.
 *
 * "The same way": the same status, and when the original result had a
 * diagnosis, a diagnosis that still names every misreading the original's
 * named (a smaller problem may match more misreadings at once).
 */
#ifndef IOHW_SHRINK_H
#define IOHW_SHRINK_H

#include <stdint.h>
#include <stdio.h>

#include "cases/case.h"
#include "results/result.h"
#include "oracle/error.h"

/* Default bound on the backend runs of one shrink (the original included). */
#define IOHW_SHRINK_MAX_CALLS 300

typedef struct iohw_shrink_options {
    const char *backend;        /* the backend shared object */
    int max_calls;              /* backend runs, the original's included;
                                   <= 0: IOHW_SHRINK_MAX_CALLS */
    double timeout;             /* seconds per backend call; 0: the scaled
                                   default of `iohw run` */
    int64_t memory_limit_mb;    /* per worker; < 0: the default of `iohw run` */
    int adapt_layout;           /* as `iohw run --adapt-layout` */
    const char *tmpdir;         /* for the candidates' case files; NULL:
                                   $TMPDIR or /tmp */
    FILE *log;                  /* each kept step as it is taken, or NULL */
    double deadline;            /* iohw_clock_s() value after which no more
                                   candidate is run (the minimal case found
                                   so far is kept, budget_hit set); 0: none */
} iohw_shrink_options;

/* Sets the defaults above (every member 0 or NULL but the bounds). */
void iohw_shrink_options_init(iohw_shrink_options *o);

typedef struct iohw_shrink_result {
    iohw_result original;       /* the original case's result */
    iohw_result minimal;        /* the minimal case's result (the original's
                                   when no reduction was kept) */
    iohw_case minimal_case;     /* complete (inputs and outputs), id
                                   "<original id>-min"; free with
                                   iohw_case_free */
    int steps;                  /* reductions kept */
    int calls;                  /* backend runs, the original's included */
    int budget_hit;             /* 1 when max_calls or the deadline stopped
                                   the search */
    double seconds;             /* wall time of the whole shrink */
} iohw_shrink_result;

/* Shrinks case `id` of case file `file`.  Returns 0 with *out filled in;
 * -1 with the reason when the case cannot be read, the backend cannot be
 * run, or the case does not fail (PASS, UNSUPPORTED, WAIVED: "nothing to
 * shrink") or is INVALID.  *out is zeroed first. */
int iohw_shrink_case(const iohw_shrink_options *o, const char *file,
                     const char *id, iohw_shrink_result *out, iohw_error *err);

/* Same, starting from a result already in hand (`iohw run --shrink`): the
 * original is not run again. */
int iohw_shrink_result_of(const iohw_shrink_options *o, const iohw_result *r,
                          iohw_shrink_result *out, iohw_error *err);

void iohw_shrink_result_free(iohw_shrink_result *r);

/* 1 when candidate fails the same way as original (see above). */
int iohw_shrink_same_failure(const iohw_result *original,
                             const iohw_result *candidate);

/* 1 when a and b have the same status and either both no diagnosis or
 * diagnoses naming some misreading in common (`iohw fuzz`'s classes: one
 * bug, however many misreadings each case happens to match as well). */
int iohw_shrink_related(const iohw_result *a, const iohw_result *b);

/* Writes the cases to one case file at path (replacing it only when every
 * write worked). */
int iohw_shrink_write(const char *path, const iohw_case *const *cases, int n,
                      iohw_error *err);

/* Prints the outcome: the original and minimal descriptors and statuses,
 * the diagnosis, steps, backend calls and time, and the repro line
 * (`__REPRO:`, with the options of o that change outcomes) of the minimal
 * case as written to the case file `written`. */
void iohw_shrink_print(const iohw_shrink_result *r,
                       const iohw_shrink_options *o, const char *written,
                       FILE *f);

#endif
