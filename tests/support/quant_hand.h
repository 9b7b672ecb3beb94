/*
 * tests/support/quant_hand.h - a hand-written quantized transposed
 * convolution with one misreading switched on (specification section
 * 11.5), for the quantized diagnosis tests: expected outputs that do not
 * come from the code under test.
 */
#ifndef IOHW_TEST_QUANT_HAND_H
#define IOHW_TEST_QUANT_HAND_H

#include <stdint.h>

#include "generators/fill_qdesign.h"
#include "iohw/backend.h"

typedef __int128 i128;

typedef struct knobs {
    int zp_x_kept, zp_w_kept, io, bias_after, zp_y_first, axis_i, wrap;
    int32_t rounding; /* 0: the case's */
    int no_nudge, plain_shift; /* gemmlowp's own steps, done otherwise */
} knobs;

/* y (int64, canonical) of rank-1 problem p with the knobs. */
void hand(const iohw_problem *p, const iohw__qdata *d, knobs k, int64_t *y);

/* The problem of a descriptor's text (asserted to parse). */
iohw_problem problem(const char *text);

/* The diagnosis of y (int64) on the case, as a sentence in buf (512). */
int diagnose(const iohw_problem *p, const iohw__qdata *d, const int64_t *y, char *buf);

/* Fills the case, computes y by hand with the knobs and expects `name` in
 * the diagnosis; the correct y gets none. */
void expect_named_seed(const char *desc, int kind, iohw__qwant w, knobs k, const char *name,
                       uint64_t seed);
void expect_named(const char *desc, int kind, iohw__qwant w, knobs k, const char *name);

iohw__qwant want(int32_t t, int32_t rounding, int32_t form);

#define P1 "n=2 ci=2 co=4 in=6 k=3 s=2 pad=1:0 bias=1"
#define P2 "ci=4 co=6 g=2 in=5 k=2 d=2 op=1 bias=1"

#endif
