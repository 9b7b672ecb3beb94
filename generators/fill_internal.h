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
#include "oracle/layout.h"
#include "oracle/error.h"

/* Stream tags: the stream of a tensor is seeded with
 * iohw__fill_stream_seed(seed, tag). */
enum {
    IOHW__STREAM_X = 1,
    IOHW__STREAM_W = 2,
    IOHW__STREAM_BIAS = 3,
    IOHW__STREAM_SPECIAL_X = 4,
    IOHW__STREAM_SPECIAL_W = 5,
    IOHW__STREAM_DY = 6
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
    /* Set by the exact fill: the bounds of x and w, and the nonzero x
     * values per (n, g) block of its sparse fallback (-1: dense). */
    int64_t exact_ax, exact_aw, exact_m;
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

/* The fill's view of a validated problem: its extents named, no buffers
 * (fill.c). */
void iohw__fill_name_extents(const iohw_problem *p, uint64_t seed, iohw__fill *f);

/* Names the extents, allocates x, w and bias and fills them with `fill`
 * (a generated fill, checked by the caller); free with
 * iohw__fill_release (safe after a failure). */
int iohw__fill_make(const iohw_problem *p, const char *fill, uint64_t seed,
                    iohw__fill *f, iohw_error *err);
void iohw__fill_release(iohw__fill *f);

/* Fills f's buffers (allocated) with `fill`: exact, narrow or random. */
int iohw__fill_dispatch(iohw__fill *f, const char *fill, iohw_error *err);

/* Scatters canonical doubles into the layout of m, stored in dt at dst. */
int iohw__fill_store(const iohw_layout_map *m, iohw_dtype dt, const double *canon,
                     void *dst, iohw_error *err);

/* The exact fill's inputs alone: f->x dense in [-a, a] without zero, or
 * (m >= 0) m values +-1 per (n, g) block (fill_exact.c). */
void iohw__fill_exact_x(iohw__fill *f, int64_t a, int64_t m);

#endif
