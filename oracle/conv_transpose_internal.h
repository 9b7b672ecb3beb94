/*
 * oracle/conv_transpose_internal.h - what the definition
 * (conv_transpose.c) and the tuned kernel (conv_transpose_fast.c) share:
 * the argument checks, the index map and the one addition of a term.
 * Internal to oracle/ (quant.c uses the index map too).
 */
#ifndef IOHW_CONV_TRANSPOSE_INTERNAL_H
#define IOHW_CONV_TRANSPOSE_INTERNAL_H

#include <math.h>

#include "oracle/oracle.h"

/* The argument checks of iohw_conv_transpose_def, in argument order; each
 * message starts with `who` and names the argument.  0 or -1. */
int iohw__conv_transpose_check(const char *who, const iohw_problem *p,
                               const double *x, const double *w,
                               const double *bias, int dd, const double *y,
                               const double *eb, iohw_error *err);

/* Product of the first R entries of an extent array. */
int64_t iohw__volume(const int64_t *ext, int R);

/* Where tap k (row-major index into K...) carries input position i
 * (row-major into L...): the row-major index of o into O..., or -1 when
 * o_a = i_a*S_a + k_a*D_a - P_a falls outside [0, O_a) on some axis.  Shared
 * by the definition and the quantized definition (quant.c). */
int64_t iohw__out_position(const iohw_problem *p, int64_t k, int64_t i);

#if defined(__GNUC__)
#define IOHW__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define IOHW__ALWAYS_INLINE inline
#endif

/*
 * y += t and eb += |t| for the term t = a*b.
 *
 * Double (dd = 0): t is rounded once (exact for f32, f16 and bf16 inputs).
 * Double-double (dd = 1): the product is split exactly, a*b = p + e with
 * p = fl(a*b), e = fma(a, b, -p); the high word is the plain sum
 * hi <- fl(hi + p), TwoSum gives that addition's exact error s, and
 * lo <- lo + (s + e), in that order of operations.  The bound does the same with |a*b| = |p| + e*sign(p).
 * The file including this must be compiled with -ffp-contract=off.
 */
static IOHW__ALWAYS_INLINE void iohw__add_term(double a, double b, double *yh,
                                               double *eh)
{
    const double t = a * b;
    *yh += t;
    *eh += fabs(t);
}

/* hi <- fl(hi + v); returns the exact error of that addition (TwoSum). */
static IOHW__ALWAYS_INLINE double iohw__two_sum(double *hi, double v)
{
    const double h = *hi;
    const double sum = h + v;
    const double bv = sum - h;
    *hi = sum;
    return (h - (sum - bv)) + (v - bv);
}

static IOHW__ALWAYS_INLINE void iohw__add_term_dd(double a, double b,
                                                  double *yh, double *yl,
                                                  double *eh, double *el)
{
    const double p = a * b;
    const double e = fma(a, b, -p);
    const double ap = fabs(p);
    const double ae = e * copysign(1.0, p);
    const double s = iohw__two_sum(yh, p);
    *yl += s + e;
    const double se = iohw__two_sum(eh, ap);
    *el += se + ae;
}

/* The double-double result: fl(hi + lo), or hi when it is not finite (then
 * lo may hold NaN from inf - inf). */
static IOHW__ALWAYS_INLINE double iohw__dd_value(double hi, double lo)
{
    return isfinite(hi) ? hi + lo : hi;
}

#endif
