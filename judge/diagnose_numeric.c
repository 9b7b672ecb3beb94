/*
 * judge/diagnose_numeric.c - the numeric faults real kernels ship, as
 * variants of the correct computation (see diagnose_internal.h).  Each is
 * tried where it would change the result, and named by a sentence a backend
 * author recognises:
 *
 *   subnormal inputs and results flushed to zero
 *       x, w and bias with their subnormal values (of the case's dtype) set
 *       to zero, judged by the rule of a declared flush (products, partial
 *       sums and results below the smallest normal may read as zero): FTZ
 *       and DAZ, or kernels built on x86's bf16 instructions, which flush.
 *       Named only for an output that holds no subnormal value (a flushing
 *       kernel writes none) and shows the flush: a subnormal input, or a
 *       zero where the oracle's value is not and flushing could lose it;
 *   output rounded toward zero (truncated) instead of to nearest even
 *       the exact result with its low bits dropped (bf16 taken as the top
 *       half of an f32, f16 or f32 converted by truncation);
 *   output rounded half away from zero instead of half to even
 *       ties of the final rounding go up in magnitude (C's round());
 *   overflow saturated at the largest finite value instead of +-Inf
 *       results clamped to [-max, max] (65504 in f16) where IEEE gives Inf;
 *   products whose x is zero skipped, products whose w is zero skipped,
 *   products with a zero factor skipped (0 x Inf and 0 x NaN gave no NaN)
 *       a sparsity shortcut: terms whose x or w is zero are not added, so
 *       a zero times an Inf or NaN leaves no NaN;
 *   weights / x / x and weights rounded to bf16 before an f32 reduction
 *       an f32 case computed on bf16 copies of its inputs (a "fast math"
 *       or AMX path), accumulated in f32.
 * The rounding variants need a value wider than the dtype (f16, bf16 and
 * f32 only).  Truncation and ties away are tried on exact fills only and
 * judged bit for bit there (every partial sum of such a fill is exact, so
 * the only error is the final rounding); elsewhere the tolerance hides an
 * ulp and both would match the same output.  Saturation is tried on every
 * fill.
 */
#include "judge/diagnose_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

/* --- subnormals ------------------------------------------------------ */

/* The smallest normal magnitude of a dtype. */
static double min_normal(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F16: return 0x1p-14;
    case IOHW_F64: return 0x1p-1022;
    default: return 0x1p-126; /* f32 and bf16 */
    }
}

/* Zeroes the subnormal values of a (n of them, sign kept); how many. */
static int64_t flush(double *a, int64_t n, double lim)
{
    int64_t k = 0;
    for (int64_t i = 0; a != NULL && i < n; i++)
        if (a[i] != 0 && fabs(a[i]) < lim) {
            a[i] = copysign(0.0, a[i]);
            k++;
        }
    return k;
}

/* A copy of one of the case's inputs into v->owned[i]; NULL when memory
 * runs out. */
static double *owned_copy(const double *src, int64_t n, iohw__dg_variant *v,
                          int i, const double **dst)
{
    double *copy = malloc((size_t)n * sizeof *copy);
    if (copy == NULL)
        return NULL;
    memcpy(copy, src, (size_t)n * sizeof *copy);
    v->owned[i] = copy;
    *dst = copy;
    return copy;
}

/* A flushed copy of one of the case's inputs; its count of flushed values,
 * or -1 when memory runs out. */
static int64_t flushed_copy(const double *src, int64_t n, double lim,
                            iohw__dg_variant *v, int i, const double **dst)
{
    if (src == NULL)
        return 0;
    double *copy = owned_copy(src, n, v, i, dst);
    return copy != NULL ? flush(copy, n, lim) : -1;
}

/* 1 when some element's terms come near the smallest normal lim, where
 * flushing can outweigh the default bound. */
static int near_normal(const iohw__dg_base *b, double lim)
{
    const double u = iohw_dtype_unit_roundoff(b->p->dtype);
    const double *eb = b->c->err_bound;
    for (int64_t i = 0; eb != NULL && i < b->ny; i++)
        if (eb[i] > 0 && eb[i] * u < 2 * lim)
            return 1;
    return 0;
}

/* 1 when the output diagnosed holds a subnormal value: a backend that
 * flushes writes none. */
static int output_has_subnormal(const iohw__dg_base *b, double lim)
{
    for (int64_t i = 0; i < b->ny; i++) {
        const double g = iohw_dtype_load(b->p->dtype, b->y, (size_t)i);
        if (g != 0 && fabs(g) < lim)
            return 1;
    }
    return 0;
}

/* The mark of a flush in the output diagnosed: a zero where the oracle's
 * value is not, within what flushing can lose ((2T + 1) lim). */
static int zero_within_reach(const iohw__dg_base *b, double lim)
{
    const double reach = (2.0 * (double)b->c->terms_max + 1.0) * lim;
    const double *e = b->c->y_f64;
    for (int64_t i = 0; e != NULL && i < b->ny; i++)
        if (e[i] != 0 && fabs(e[i]) <= reach &&
            iohw_dtype_load(b->p->dtype, b->y, (size_t)i) == 0)
            return 1;
    return 0;
}

int iohw__dg_subnormals_flushed(const iohw__dg_base *b, iohw__dg_variant *v)
{
    const double lim = min_normal(b->p->dtype);
    int64_t nx = flushed_copy(b->x, b->nx, lim, v, 0, &v->x);
    int64_t nw = flushed_copy(b->w, b->nw, lim, v, 1, &v->w);
    int64_t nb = flushed_copy(b->bias, b->nb, lim, v, 2, &v->bias);
    if (nx < 0 || nw < 0 || nb < 0)
        return -1;
    v->judge_flushed = 1;
    if (b->y == NULL)
        return nx + nw + nb > 0 || near_normal(b, lim);
    /* Naming: only an output without subnormals, that shows the flush. */
    if (output_has_subnormal(b, lim))
        return 0;
    return nx + nw + nb > 0 || zero_within_reach(b, lim);
}

/* --- the final rounding ---------------------------------------------- */

/* Significand bits (implicit one included) and the exponents of the
 * smallest normal and the largest finite binade of f16, bf16 and f32. */
static void limits(iohw_dtype dt, int *prec, int *emin, int *emax)
{
    *prec = dt == IOHW_F16 ? 11 : dt == IOHW_BF16 ? 8 : 24;
    *emin = dt == IOHW_F16 ? -14 : -126;
    *emax = dt == IOHW_F16 ? 15 : 127;
}

double iohw__dg_round(iohw_dtype dt, int mode, double v)
{
    int prec, emin, emax, ex;
    if (dt == IOHW_F64 || isnan(v))
        return v;
    limits(dt, &prec, &emin, &emax);
    const double max = ldexp(2.0 - ldexp(1.0, 1 - prec), emax);
    if (mode == IOHW__DG_ROUND_SATURATE)
        return fabs(v) > max ? copysign(max, v) : iohw_dtype_round(dt, v);
    if (mode == IOHW__DG_ROUND_NEAREST_EVEN || isinf(v) || v == 0)
        return iohw_dtype_round(dt, v);

    /* The spacing q of the dtype at v; v / q and r / q are exact. */
    frexp(v, &ex);                    /* |v| in [2^(ex-1), 2^ex) */
    ex = ex - 1 < emin ? emin : ex - 1;
    const double q = ldexp(1.0, ex - (prec - 1));
    double r = (mode == IOHW__DG_ROUND_TRUNCATE ? trunc(v / q) : round(v / q)) * q;
    if (fabs(r) > max)
        r = mode == IOHW__DG_ROUND_TRUNCATE ? copysign(max, v) : copysign(INFINITY, v);
    return r;
}

/* The variant "result rounded by mode" when it changes some element.
 * Truncation and ties away are told from ties to even only bit for bit:
 * in exact fills. */
static int rounded_by(const iohw__dg_base *b, iohw__dg_variant *v, int mode)
{
    const iohw_dtype dt = b->p->dtype;
    const double *e = b->c->y_f64;
    if (dt == IOHW_F64 || e == NULL)
        return 0;
    if (mode != IOHW__DG_ROUND_SATURATE && !iohw_compare_is_exact(b->c))
        return 0;
    v->out_round = mode;
    for (int64_t i = 0; i < b->ny; i++)
        if (!isnan(e[i]) && iohw__dg_round(dt, mode, e[i]) != iohw_dtype_round(dt, e[i]))
            return 1;
    return 0;
}

int iohw__dg_truncated(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return rounded_by(b, v, IOHW__DG_ROUND_TRUNCATE);
}

int iohw__dg_half_away(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return rounded_by(b, v, IOHW__DG_ROUND_HALF_AWAY);
}

int iohw__dg_saturated(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return rounded_by(b, v, IOHW__DG_ROUND_SATURATE);
}

/* --- zero products skipped ----------------------------------------------- */

/* 1 when a has a zero, 2 when it has an Inf or NaN, 3 for both. */
static int zeros_and_specials(const double *a, int64_t n)
{
    int k = 0;
    for (int64_t i = 0; i < n && k != 3; i++)
        k |= a[i] == 0 ? 1 : !isfinite(a[i]) ? 2 : 0;
    return k;
}

/* The variant skipping the zero factors in `skip` (IOHW__DG_SKIP_*), when
 * the data holds such a zero and an Inf or NaN it could meet, and, for
 * both, when each kind is there (else it is one of the other two). */
static int zero_skip_variant(const iohw__dg_base *b, iohw__dg_variant *v, int skip)
{
    const int kx = zeros_and_specials(b->x, b->nx);
    const int kw = zeros_and_specials(b->w, b->nw);
    const int x_kind = (kx & 1) && (kw & 2), w_kind = (kw & 1) && (kx & 2);
    if (skip == IOHW__DG_SKIP_X ? !x_kind
        : skip == IOHW__DG_SKIP_W ? !w_kind : !(x_kind && w_kind))
        return 0;
    v->skip_zero = skip;
    return 1;
}

int iohw__dg_zero_x_skipped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return zero_skip_variant(b, v, IOHW__DG_SKIP_X);
}

int iohw__dg_zero_w_skipped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return zero_skip_variant(b, v, IOHW__DG_SKIP_W);
}

int iohw__dg_zero_skipped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return zero_skip_variant(b, v, IOHW__DG_SKIP_X | IOHW__DG_SKIP_W);
}

/* Output position of input position i through tap k along one axis, or -1
 * outside [0, O). */
static int64_t reach(int64_t i, int64_t k, int64_t S, int64_t D, int64_t P,
                     int64_t O)
{
    const int64_t o = i * S + k * D - P;
    return o >= 0 && o < O ? o : -1;
}

int iohw__dg_conv_skip_zero(const iohw_problem *q, int skip, const double *x,
                            const double *w, double *y, double *eb)
{
    return iohw__dg_conv_terms(q, skip, 0, x, w, y, eb);
}

int iohw__dg_conv_terms(const iohw_problem *q, int skip, int accum, const double *x,
                        const double *w, double *y, double *eb)
{
    const int R = (int)q->rank;
    int64_t L[3] = {1, 1, 1}, K[3] = {1, 1, 1}, O[3] = {1, 1, 1};
    int64_t S[3] = {1, 1, 1}, D[3] = {1, 1, 1}, P[3] = {0, 0, 0};

    if (iohw_problem_validate(q, NULL) != 0)
        return -1;
    for (int a = 0; a < R; a++) {
        const int A = 3 - R + a;
        L[A] = q->in_size[a];
        K[A] = q->kernel[a];
        O[A] = q->out_size[a];
        S[A] = q->stride[a];
        D[A] = q->dilation[a];
        P[A] = q->pad_begin[a];
    }
    const int64_t G = q->groups, Cg = q->in_channels / G, Mg = q->out_channels / G;
    const int64_t Lt = L[0] * L[1] * L[2], Kt = K[0] * K[1] * K[2];
    const int64_t Ot = O[0] * O[1] * O[2];
    const size_t ny = (size_t)(q->batch * q->out_channels * Ot);
    memset(y, 0, ny * sizeof *y);
    memset(eb, 0, ny * sizeof *eb);

    /* Every product x[n][ci][i] * w[ci][m][k] that reaches the output and
     * has no zero factor of the kinds skipped. */
    for (int64_t n = 0; n < q->batch; n++)
        for (int64_t ci = 0; ci < q->in_channels; ci++)
            for (int64_t m = 0; m < Mg; m++) {
                const double *xp = x + (n * q->in_channels + ci) * Lt;
                const double *wp = w + (ci * Mg + m) * Kt;
                const int64_t co = ci / Cg * Mg + m;
                double *yp = y + (n * q->out_channels + co) * Ot;
                double *ep = eb + (n * q->out_channels + co) * Ot;
                for (int64_t li = 0; li < Lt; li++)
                    for (int64_t ki = 0; ki < Kt; ki++) {
                        const double t = xp[li] * wp[ki];
                        const int64_t o0 = reach(li / (L[1] * L[2]), ki / (K[1] * K[2]),
                                                 S[0], D[0], P[0], O[0]);
                        const int64_t o1 = reach(li / L[2] % L[1], ki / K[2] % K[1],
                                                 S[1], D[1], P[1], O[1]);
                        const int64_t o2 = reach(li % L[2], ki % K[2], S[2], D[2],
                                                 P[2], O[2]);
                        const int skipped = ((skip & IOHW__DG_SKIP_X) && xp[li] == 0)
                                            || ((skip & IOHW__DG_SKIP_W) && wp[ki] == 0);
                        if (skipped || o0 < 0 || o1 < 0 || o2 < 0)
                            continue;
                        double *acc = &yp[(o0 * O[1] + o1) * O[2] + o2];
                        *acc = accum ? iohw_dtype_round(q->dtype,
                                                        *acc + iohw_dtype_round(q->dtype, t))
                                     : *acc + t;
                        ep[(o0 * O[1] + o1) * O[2] + o2] += fabs(t);
                    }
            }
    return 0;
}

/* --- inputs rounded to bf16 ---------------------------------------------- */

/* A bf16-rounded copy of one input of an f32 case; 1 when it changed some
 * value, 0 when not, -1 when memory ran out. */
static int bf16_copy(const double *src, int64_t n, iohw__dg_variant *v, int i,
                     const double **dst)
{
    double *copy = owned_copy(src, n, v, i, dst);
    int changed = 0;
    if (copy == NULL)
        return -1;
    for (int64_t k = 0; k < n; k++) {
        const double r = iohw_dtype_round(IOHW_BF16, copy[k]);
        changed |= r != copy[k] && !isnan(r);
        copy[k] = r;
    }
    return changed;
}

int iohw__dg_w_bf16(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->dtype != IOHW_F32)
        return 0;
    return bf16_copy(b->w, b->nw, v, 1, &v->w);
}

int iohw__dg_x_bf16(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->dtype != IOHW_F32)
        return 0;
    return bf16_copy(b->x, b->nx, v, 0, &v->x);
}

int iohw__dg_xw_bf16(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->dtype != IOHW_F32)
        return 0;
    int kx = bf16_copy(b->x, b->nx, v, 0, &v->x);
    int kw = bf16_copy(b->w, b->nw, v, 1, &v->w);
    if (kx < 0 || kw < 0)
        return -1;
    return kx == 1 && kw == 1;
}
