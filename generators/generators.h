/*
 * generators/generators.h - turning problems into cases: deterministic
 * random numbers, input fills, tags, and complete cases (inputs filled, the
 * oracle run, every attribute set).
 */
#ifndef IOHW_GENERATORS_H
#define IOHW_GENERATORS_H

#include <stddef.h>
#include <stdint.h>

#include "cases/case.h"
#include "oracle/descriptor.h"
#include "oracle/error.h"

/* A small deterministic generator (splitmix64 seeded, xoshiro256**):
 * the same seed gives the same stream on every machine. */
typedef struct iohw_rng {
    uint64_t s[4];
} iohw_rng;

void iohw_rng_seed(iohw_rng *r, uint64_t seed);
uint64_t iohw_rng_next(iohw_rng *r);
double iohw_rng_uniform(iohw_rng *r);          /* [0, 1) */
double iohw_rng_normal(iohw_rng *r);           /* mean 0, deviation 1 */
int64_t iohw_rng_range(iohw_rng *r, int64_t lo, int64_t hi); /* [lo, hi] */

/* Fills x, w and bias (bias may be NULL without bias) of a validated problem
 * in its layouts and dtype.  Fills (see iohw_fill_names):
 *   exact   - small integers, scaled so that every partial sum in any order is
 *             exactly representable in the dtype: results match bit for bit;
 *   normal  - N(0, 1) rounded to the dtype;
 *   uniform - U(-1, 1) rounded to the dtype;
 *   cancel  - terms that nearly cancel in each output element;
 *   range   - magnitudes spread over many binades;
 *   special - mostly normal values with NaN, +-Inf, -0 and subnormals mixed in.
 *   zeros   - normal, with x = +-0 exactly where w is +-Inf or NaN and w = +-0
 *             where x is: 0 * Inf and 0 * NaN reach the output (NaN);
 *   subnormal - exact, with x and bias scaled by the smallest subnormal:
 *             inputs and results in the subnormal range, bit-exact;
 *   ties    - one nonzero product per output element, exact in f32 but
 *             not a number of the dtype (ties included), no bias: judged
 *             bit for bit against rounding to nearest even;
 *   huge    - same-sign terms near the largest finite value: results
 *             overflow to +-Inf in every summation order.
 * Every fill gives distinct values to the weight positions of one (I, O)
 * pair where the dtype allows, so flipped or exchanged kernels change the
 * result. */
int iohw_fill_inputs(const iohw_problem *p, const char *fill, uint64_t seed,
                     void *x, void *w, void *bias, iohw_error *err);

/* The inputs of p's direction (specification section 13): forward as
 * iohw_fill_inputs (dy ignored, may be NULL); BWD_D dy (data layout,
 * C = C_out, iohw_problem_dy_count(p) elements) and w; BWD_W x and dy (the
 * other buffers ignored, may be NULL).  x and w hold what
 * iohw_fill_inputs gives; dy is filled like x from its own stream, with
 * the exact fill's bounds chosen so that every backward sum is exact
 * (fill_direction.c).  The narrow fills (zeros, subnormal, ties, huge)
 * have no backward form: an error naming the fill. */
int iohw_fill_direction_inputs(const iohw_problem *p, const char *fill,
                               uint64_t seed, void *x, void *w, void *bias,
                               void *dy, iohw_error *err);

/* Comma-separated tags derived from the problem (rank, grouped, depthwise,
 * strided, dilated, asym-pad, out-pad, op-beyond-limit, bias, dtype, ...)
 * plus the fill's.  Returns the length or -1 if buf is too small. */
int iohw_problem_tags(const iohw_problem *p, const char *fill, char *buf,
                      size_t n);

/* Builds a complete case from a parsed descriptor: allocates and fills the
 * inputs, runs the oracle (with `threads`), sets id, tags (the derived ones
 * followed by extra_tags when not NULL), descriptor, fill, seed and
 * terms_max.  Free it with iohw_case_free. */
int iohw_make_case(const iohw_desc *d, const char *id, const char *extra_tags,
                   int threads, iohw_case *c, iohw_error *err);

/* Completes a case whose problem and inputs are set (a user-supplied case):
 * recomputes out_size, runs the oracle and sets y, y_f64, err_bound,
 * terms_max; fills in a descriptor and tags when they are missing. */
int iohw_complete_case(iohw_case *c, int threads, iohw_error *err);

#endif
