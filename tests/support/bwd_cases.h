/*
 * tests/support/bwd_cases.h - small backward cases in memory
 * (specification section 13): rank 1, f64, NCW data and IOW weight (memory
 * order = canonical order), fill "exact", the outputs from rank-1 plain
 * loops of section 13 with one bug's knob turned.
 */
#ifndef IOHW_TEST_BWD_CASES_H
#define IOHW_TEST_BWD_CASES_H

#include <stdint.h>

#include "cases/case.h"

/* A bug's knob (all 0: the definition). */
typedef struct iohw_test_knobs {
    int flip, phase, interleave;  /* taps reversed; dy read at +phase;
                                     group channels at j*G + g */
    int64_t batch;     /* images summed (0: all) */
    int64_t dyO;       /* dy's extent as read (0: O) */
} iohw_test_knobs;

/* The problem: direction, bias, N, C_in, C_out, G, L, K, S, pad_begin,
 * pad_end, output_padding (dilation 1). */
typedef struct iohw_test_shape {
    int32_t dir, bias;
    int64_t N, Ci, Co, G, L, K, S, P, Pe, A;
} iohw_test_shape;

/* dx [N][C_in][L] from dy and w; dw [C_in][Mg][K] then db [C_out] (with a
 * bias) from x and dy, under knobs k. */
void iohw_test_bwd_dx(const iohw_problem *p, const iohw_test_knobs *k, const double *dy,
                      const double *w, double *dx);
void iohw_test_bwd_dw(const iohw_problem *p, const iohw_test_knobs *k, const double *x,
                      const double *dy, double *out);

/* n zeroed doubles (fails the test without memory). */
double *iohw_test_doubles(int64_t n);

/* The case of shape s: dy and w (BWD_D) or x (BWD_W) given, or small
 * integers from seed when NULL; its outputs from the loops above. */
void iohw_test_bwd_case(const iohw_test_shape *s, unsigned seed, const double *dy,
                        const double *in1, iohw_case *c);
/* The output of a backend with knobs k (dy NULL: the case's). */
double *iohw_test_bwd_buggy(const iohw_case *c, const iohw_test_knobs *k, const double *dy);
void iohw_test_bwd_free(iohw_case *c);

#endif
