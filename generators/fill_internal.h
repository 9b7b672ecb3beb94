/*
 * generators/fill_internal.h - what the fill files share (not public).
 *
 * A fill works on canonical double tensors (x[N][C_in][L...],
 * w[C_in][Mg][K...], bias[C_out]) whose values are already rounded to the
 * dtype; iohw_fill_inputs (fill.c) then scatters them into the layouts and
 * stores them in the dtype.  Each tensor draws from its own stream, so the
 * numbers of x do not depend on whether the problem has a bias, and none
 * depends on the layouts.
 */
#ifndef IOHW_FILL_INTERNAL_H
#define IOHW_FILL_INTERNAL_H

#include <stdint.h>

#include "generators/generators.h"
#include "iohw/backend.h"
#include "oracle/error.h"

/* Stream tags: the stream of a tensor is seeded with
 * iohw__fill_stream_seed(seed, tag). */
enum {
    IOHW__STREAM_X = 1,
    IOHW__STREAM_W = 2,
    IOHW__STREAM_BIAS = 3,
    IOHW__STREAM_SPECIAL_X = 4,
    IOHW__STREAM_SPECIAL_W = 5
};

typedef struct iohw__fill {
    const iohw_problem *p;
    iohw_dtype dt;
    uint64_t seed;
    /* Named extents. */
    int64_t N;     /* batch */
    int64_t C_in;  /* input channels */
    int64_t C_out; /* output channels */
    int64_t G;     /* groups */
    int64_t Cg;    /* input channels per group */
    int64_t Mg;    /* output channels per group */
    int64_t L;     /* input positions (product of in_size) */
    int64_t K;     /* kernel positions (product of kernel) */
    int64_t nx, nw, nb;
    /* Canonical tensors (nb = 0 and bias NULL without bias). */
    double *x;
    double *w;
    double *bias;
} iohw__fill;

uint64_t iohw__fill_stream_seed(uint64_t seed, int tag);

/* Mantissa bits of the dtype including the implicit one: 24, 53, 11, 8. */
int iohw__fill_precision(iohw_dtype dt);

/* The dtype's smallest positive subnormal: 2^-149, 2^-1074, 2^-24,
 * 2^-133 (fill_random.c). */
double iohw__fill_smallest_subnormal(iohw_dtype dt);

/* exact (fill_exact.c). */
int iohw__fill_exact(iohw__fill *f, iohw_error *err);

/* normal, uniform, range, cancel, special (fill_random.c). */
int iohw__fill_random(iohw__fill *f, const char *fill, iohw_error *err);

/* zeros, subnormal, ties, huge (fill_narrow.c); 1 when fill is one of
 * them. */
int iohw__fill_is_narrow(const char *fill);
int iohw__fill_narrow(iohw__fill *f, const char *fill, iohw_error *err);

#endif
