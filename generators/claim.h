/*
 * generators/claim.h - what a backend claims, over the factors of the
 * pairwise category (suite_factors.c), and suites inside that claim.
 *
 * A backend claims a pair of factor values (f = a, g = b) when it accepts
 * (supports() returns IOHW_OK) at least one representative problem that
 * holds both values: one of the first four problems the factor builder
 * makes of a valid row (its variants 0 to 3, which differ in layout
 * permutations, batch, groups, lengths and pad sides) or, for a row whose
 * weight layout is of the class "other", variant 0 with the weights in
 * O<spatial>I (TFLite's OHWI, which variants 0 to 3 never give in 2-d and
 * 3-d).  The generators
 * never load a backend: the caller passes `accepts`, which asks it (cli
 * asks sandbox/probe.h).
 *
 * Learning the claim (iohw_claim_learn) asks accepts() about:
 *   1. the rows of the smoke covering array; when it accepts none of
 *      them, the simplest row (every other factor at its first value) of
 *      each rank, data layout class and weight layout class, until one is
 *      accepted, so that a backend taking one layout pair has a row to
 *      repair from;
 *   2. for every factor value no accepted row holds yet, rows that hold it,
 *      each repaired from an accepted row (or, while there are none, from
 *      a covering-array row): the value set, the other factors keeping the
 *      base row's values where the validity rules allow;
 *   3. the same for every pair of claimed values no accepted row holds.
 * An accepted row makes every pair it holds claimed, whatever its fill
 * (a backend never sees the fill).  A pair none of the tried rows shows is
 * taken as not claimed; the answers are cached, so each row is asked once.
 */
#ifndef IOHW_GEN_CLAIM_H
#define IOHW_GEN_CLAIM_H

#include <stdint.h>

#include "generators/suite.h"
#include "iohw/backend.h"
#include "oracle/descriptor.h"
#include "oracle/error.h"

/* 1 when the backend accepts p, 0 when not, -1 on an error (the caller
 * keeps its message).  p may be a backward problem (p->direction set,
 * specification section 13): accepts() answers 0 for it when the backend
 * has no entry point of that direction, as sandbox/probe.h does, so that a
 * backward case is never offered to a backend as a forward one. */
typedef int (*iohw_accepts_fn)(const iohw_problem *p, void *ctx);

#define IOHW_CLAIM_VALUES_MAX 128

typedef struct iohw_claim {
    int nfactors;
    int nvalues;                 /* values of every factor together */
    int offset[32];              /* first value of each factor */
    unsigned char *pair;         /* [nvalues * nvalues]: 1 when claimed,
                                    for (first, second) value numbers of two
                                    different factors, both orders set */
    int64_t pairs_coexisting;    /* pairs of the factor space (every valid
                                    row together) */
    int64_t pairs_claimed;
    int64_t accepted_rows;       /* distinct rows the backend accepted */
    int64_t asked;               /* accepts() calls */
    void *cache;                 /* the answers, by row (internal) */
} iohw_claim;

/* Learns the claim (see above).  Fails when accepts() does (message:
 * "claim: " and the caller's prefix) or memory runs out.  Free with
 * iohw_claim_free, also after a failure. */
int iohw_claim_learn(iohw_accepts_fn accepts, void *ctx, iohw_claim *c,
                     iohw_error *err);
void iohw_claim_free(iohw_claim *c);

/* How many claimed pairs some problem of descs[0 .. n-1] holds (each
 * classified into factor values with its fill). */
int64_t iohw_claim_covered(const iohw_claim *c, const iohw_desc *descs,
                           int64_t n);

/* Plans a profile for a backend: its pairwise category replaced by as many
 * covering arrays of the claimed pairs as the profile has (every claimed
 * pair in every array; rows whose problem the backend does not accept are
 * not used), then the profile's other cases that the backend accepts, ids
 * numbered anew within each category, seeds kept.  plan->claim_* say how
 * many cases the plain profile had, how many of them the backend accepts
 * and the claimed-pair coverage of both. */
int iohw_plan_for_claim(const char *profile, uint64_t seed, iohw_claim *c,
                        iohw_accepts_fn accepts, void *ctx, iohw_plan *plan,
                        iohw_error *err);

#endif
