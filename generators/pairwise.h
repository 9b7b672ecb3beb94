/*
 * generators/pairwise.h - covering arrays of strength 2 ("pairwise") over
 * factors with values, under a validity predicate.
 *
 * A factor f has nvalues[f] values, numbered 0 .. nvalues[f] - 1.  A row
 * gives every factor one value.  A pair is two values of two different
 * factors, (f = a, g = b); it can coexist when some valid row holds both.
 * The generator returns rows, all valid, that together hold every pair that
 * can coexist, and reports how many pairs can coexist and how many the rows
 * cover (equal, unless the row limit stopped it).
 *
 * The predicate judges partial rows: values[f] = -1 means "not chosen yet".
 * It must be sound: return 0 for a partial row only when no way of choosing
 * the missing values gives a valid row; return 1 otherwise (it may be
 * optimistic about partial rows).  For a complete row it must be exact.
 * The search for a valid completion tries the values of each factor in
 * index order, so putting cheap or common values first makes it fast.
 *
 * Method (greedy, AETG-like): each new row starts from an uncovered pair,
 * then gives the other factors, in a random order, the value that covers
 * the most uncovered pairs with the values already chosen, among those that
 * still allow a valid completion; of several candidate rows the one covering
 * the most new pairs is kept.  Everything is drawn from `seed`, so the same
 * spec gives the same rows on every machine.
 */
#ifndef IOHW_PAIRWISE_H
#define IOHW_PAIRWISE_H

#include <stdint.h>

#include "oracle/error.h"

#define IOHW_PW_MAX_FACTORS 32
#define IOHW_PW_MAX_VALUES 32

/* 1 when the (partial) row can still become valid, 0 when it cannot. */
typedef int (*iohw_pw_valid_fn)(const int *values, void *ctx);

typedef struct iohw_pw_spec {
    int nfactors;             /* 1 .. IOHW_PW_MAX_FACTORS */
    const int *nvalues;       /* [nfactors], each 1 .. IOHW_PW_MAX_VALUES */
    iohw_pw_valid_fn valid;   /* NULL: every row is valid */
    void *ctx;                /* passed to valid */
    uint64_t seed;            /* drives every random choice */
    int candidates;           /* candidate rows per kept row; 0: 8 */
    int64_t node_limit;       /* nodes per completion search; 0: 1000000 */
    int max_rows;             /* stop after this many rows; 0: 100000 */
} iohw_pw_spec;

typedef struct iohw_pw_array {
    int nfactors;
    int nrows;
    int *rows;                /* nrows * nfactors values, row after row */
    int64_t pairs_coexisting; /* pairs some valid row holds */
    int64_t pairs_covered;    /* of those, pairs the rows hold */
    int64_t searches_cut;     /* completion searches stopped by node_limit
                                 (their rows or pairs counted as invalid) */
} iohw_pw_array;

/* Builds a covering array.  Fails (message naming the argument) on a bad
 * spec, or when memory runs out.  Free the result with iohw_pw_array_free. */
int iohw_pairwise_generate(const iohw_pw_spec *s, iohw_pw_array *a,
                           iohw_error *err);
void iohw_pw_array_free(iohw_pw_array *a);

/* Coverage of arbitrary rows (nrows * nfactors values; a value of -1, or
 * one out of range, counts for no pair): how many pairs can coexist under
 * the spec and how many of them the rows hold. */
int iohw_pairwise_coverage(const iohw_pw_spec *s, const int *rows, int nrows,
                           int64_t *coexisting, int64_t *covered,
                           iohw_error *err);

/* A valid row drawn at random (values tried in a random order at each
 * step of the completion search); 0, or -1 when no valid row was found. */
int iohw_pairwise_random_row(const iohw_pw_spec *s, uint64_t seed, int *row,
                             iohw_error *err);

#endif
