/*
 * results/run_results.h - what a run leaves behind: its results in case
 * order with the run's machine, timing and coverage, and the pure functions
 * over them (the exit status, the compared count, the coverage sentence).
 * harness/run.h fills it in; reports/ reads it.
 */
#ifndef IOHW_RUN_RESULTS_H
#define IOHW_RUN_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "results/machine.h"
#include "results/result.h"

/* A run's results, in case order (file order, then id order). */
typedef struct iohw_run_results {
    /* The results. */
    iohw_result *items;
    int64_t count;
    double *wall;               /* per item: seconds from handing the case to
                                   a worker to its result; 0 for results taken
                                   from the journal or found INVALID while
                                   listing the cases; NULL when count is 0 */
    int64_t resumed;            /* items taken from the journal */
    /* What ran, where, how long. */
    /* malloc'd by iohw, whole (no fixed size), freed by
     * iohw_run_results_free; NULL reads as "". */
    char *backend_name;
    char *backend_version;
    iohw_machine machine;       /* the machine the run happened on */
    double seconds;             /* wall time of the whole run */
    /* The run's options the results are read with: allow_empty for the
     * exit status, and repro for the repro lines of the summary's verdict
     * (its backend points into the run's options); zero in results read
     * back from a report. */
    int allow_empty;
    iohw_repro_options repro;
    int all_tags;               /* --tags: the table by tag lists every tag */
    int quiet;                  /* --quiet: no table by tag (unless
                                   all_tags) */
    /* The claimed-pair coverage (docs/REPORT_FORMAT.md), set by the cli
     * after the run; claim_known 0 when it was not computed. */
    int claim_known;
    int64_t claim_pairs;        /* factor-value pairs the backend claims */
    int64_t claim_covered;      /* of those, pairs the claimed cases hold */
} iohw_run_results;

void iohw_run_results_free(iohw_run_results *r);

/* The claimed-pair coverage as one sentence ("of the N factor-value pairs
 * this backend claims, the claimed cases cover M (P%)") into buf; 0, or -1
 * (buf "") when r->claim_known is 0. */
int iohw_run_claim_sentence(const iohw_run_results *r, char *buf, size_t n);

/* The exit status of `iohw run` for these results: 1 when some result is
 * FAIL, ERROR, CRASH, TIMEOUT or INVALID, or when no case's output was
 * compared (every case UNSUPPORTED, or none selected) and r->allow_empty is
 * 0; else 0. */
int iohw_run_exit_code(const iohw_run_results *r);

/* The number of results whose output was compared with the oracle's: PASS,
 * FAIL, and WAIVED ones that had been compared (elements > 0). */
int64_t iohw_run_compared(const iohw_run_results *r);

#endif
