/*
 * cli/claim.h - what a backend claims, learned by asking its supports() in
 * a child (sandbox/probe.h) over the pairwise factors (generators/claim.h),
 * for `iohw gen --for-backend` and the claimed-pair coverage of `iohw run`.
 */
#ifndef IOHW_CLI_CLAIM_H
#define IOHW_CLI_CLAIM_H

#include <stdint.h>
#include <stdio.h>

#include "generators/claim.h"
#include "generators/suite.h"
#include "sandbox/probe.h"
#include "harness/run.h"
#include "oracle/error.h"

typedef struct iohw_cli_claim {
    iohw_probe probe;
    iohw_claim claim;
    iohw_error err;    /* the probe's last error */
    void *memo;        /* the answers, by problem (claim.c) */
    int64_t remembered; /* accepts() answered from the memo */
    FILE *progress;    /* a line every few seconds while asking, or NULL */
    double t0, shown;  /* when asking began, and the last line */
} iohw_cli_claim;

/* Starts the probe child and learns the claim; on failure nothing is left
 * to free.  Free with iohw_cli_claim_free.  Every problem is asked once
 * (the answers are kept by problem); with progress set, a line every
 * IOHW_CLI_CLAIM_PROGRESS_S seconds says how many supports() calls were
 * made, as plain lines whether or not it is a terminal. */
#define IOHW_CLI_CLAIM_PROGRESS_S 10.0
int iohw_cli_claim_learn(const char *backend, iohw_cli_claim *cc,
                         FILE *progress, iohw_error *err);
/* iohw_plan_for_claim with the probe child answering. */
int iohw_cli_claim_plan(iohw_cli_claim *cc, const char *profile, uint64_t seed,
                        iohw_plan *plan, iohw_error *err);
void iohw_cli_claim_free(iohw_cli_claim *cc);

/* Sets r->claim_pairs, claim_covered and claim_known: the backend's claim,
 * and how many claimed pairs the results that are not UNSUPPORTED hold. */
int iohw_cli_claim_coverage(const char *backend, iohw_run_results *r,
                            iohw_error *err);

#endif
