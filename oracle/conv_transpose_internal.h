/*
 * oracle/conv_transpose_internal.h - what the definition
 * (conv_transpose.c) and the tuned kernel (conv_transpose_fast.c) share:
 * the argument checks and the one addition of a term (the index map is
 * index.h).  Internal to oracle/.
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

/* terms_max of a validated backward problem (specification section 13):
 * dx's, or the larger of dw's and db's (oracle_backward.c). */
int64_t iohw__oracle_terms_backward(const iohw_problem *p);

/* Compiles a function once per named target, picked at run time (x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#endif
#endif
#ifndef CLONES
#define CLONES(...)
#endif

/* The problem as 3-d extents (missing leading axes: extent 1, stride 1,
 * dilation 1, no padding), shared by the tuned kernel's two paths. */
typedef struct iohw__ct_plan {
    int64_t N, C_in, C_out, Cg, Mg;
    int64_t L[3], K[3], S[3], D[3], P[3], O[3];
    int64_t *ilo[3], *ihi[3];    /* per axis, per tap: valid i in [ilo, ihi) */
    const double *x, *w, *bias;
    double *y, *eb;
    int dd;
    double *xm, *wt;             /* the plain-double path's copies of x and w */
} iohw__ct_plan;

/* The plain-double path (dd = 0), output stationary (conv_transpose_os.c).
 * prepare: the copies of x and w it reads, and the number of its units of
 * work (0 when out of memory); release frees them.  units: computes units
 * [u0, u1), 0 or -1 when its scratch cannot be allocated.  usable: 1 when
 * this CPU runs it (AVX2), else the scatter kernel runs. */
int iohw__ct_os_usable(void);
int64_t iohw__ct_os_prepare(iohw__ct_plan *pl);
void iohw__ct_os_release(iohw__ct_plan *pl);
int iohw__ct_os_units(const iohw__ct_plan *pl, int64_t u0, int64_t u1);

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
