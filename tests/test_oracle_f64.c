/*
 * tests/test_oracle_f64.c - the double-double accumulation of f64 cases,
 * checked against sums in __float128.
 *
 * A product of two doubles has at most 106 significant bits, so it is exact
 * in __float128 (113 bits); the test sums the exact products of each output
 * element in __float128 (relative error ~2^-113 per addition) and compares
 * the oracle with it.  The oracle rounds hi + lo once, so it must lie within
 * one ulp of the exact value (plus a term of order n^2 * 2^-106 * sum|t|
 * that only matters under extreme cancellation); naive double summation
 * does not, on cancelling data.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

typedef __float128 quad;

static quad qabs(quad v)
{
    return v < 0 ? -v : v;
}

/* For each output element, directly from the definition: for each c and
 * each tap k, the input position i = (o + P - k*D)/S when that divides and
 * lies in [0, L) on every axis.  Sums in quad (sum) and double (naive, in
 * the same (c, k) order), and the quad sum of |terms| (mag). */
static void exact_sums(const iohw_problem *p, const double *x, const double *w,
                       const double *bias, quad *sum, double *naive, quad *mag,
                       int64_t *nterms)
{
    const int R = (int)p->rank;
    const int64_t Cg = p->in_channels / p->groups, Mg = p->out_channels / p->groups;
    int64_t L[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1};
    int64_t D[3] = {1, 1, 1}, P[3] = {0, 0, 0}, O[3] = {1, 1, 1};
    for (int a = 0; a < R; a++) {
        const int b = 3 - R + a;
        L[b] = p->in_size[a]; K[b] = p->kernel[a]; S[b] = p->stride[a];
        D[b] = p->dilation[a]; P[b] = p->pad_begin[a]; O[b] = p->out_size[a];
    }
    const int64_t nO = O[0] * O[1] * O[2], nL = L[0] * L[1] * L[2];
    const int64_t nK = K[0] * K[1] * K[2];
    for (int64_t n = 0; n < p->batch; n++)
    for (int64_t co = 0; co < p->out_channels; co++) {
        const int64_t g = co / Mg, m = co % Mg;
        for (int64_t e = 0; e < nO; e++) {
            const int64_t o[3] = {e / (O[1] * O[2]), e / O[2] % O[1], e % O[2]};
            const double b = bias != NULL ? bias[co] : 0.0;
            quad s = b, a = fabs(b);
            double d = b;
            int64_t cnt = 0;
            for (int64_t c = 0; c < Cg; c++)
            for (int64_t k = 0; k < nK; k++) {
                const int64_t kk[3] = {k / (K[1] * K[2]), k / K[2] % K[1], k % K[2]};
                int64_t i[3] = {0, 0, 0};
                int ok = 1;
                for (int ax = 0; ax < 3; ax++) {
                    const int64_t num = o[ax] + P[ax] - kk[ax] * D[ax];
                    if (num < 0 || num % S[ax] != 0 || num / S[ax] >= L[ax])
                        ok = 0;
                    else
                        i[ax] = num / S[ax];
                }
                if (!ok)
                    continue;
                const int64_t ci = g * Cg + c;
                const double xv = x[(n * p->in_channels + ci) * nL +
                                    (i[0] * L[1] + i[1]) * L[2] + i[2]];
                const double wv = w[(ci * Mg + m) * nK + k];
                s += (quad)xv * (quad)wv;
                a += qabs((quad)xv * (quad)wv);
                d += xv * wv;
                cnt++;
            }
            const int64_t idx = (n * p->out_channels + co) * nO + e;
            sum[idx] = s;
            mag[idx] = a;
            naive[idx] = d;
            nterms[idx] = cnt;
        }
    }
}

static iohw_problem make(int rank, int64_t ci, int64_t co, int64_t g,
                         const int64_t *L, const int64_t *K, const int64_t *S,
                         const int64_t *D, const int64_t *P, int bias)
{
    iohw_problem p;
    iohw_problem_init(&p);
    p.rank = (uint32_t)rank;
    p.in_channels = ci;
    p.out_channels = co;
    p.groups = g;
    p.dtype = IOHW_F64;
    p.has_bias = bias;
    for (int a = 0; a < rank; a++) {
        p.in_size[a] = L[a]; p.kernel[a] = K[a]; p.stride[a] = S[a];
        p.dilation[a] = D[a]; p.pad_begin[a] = P[a]; p.pad_end[a] = P[a];
    }
    iohw_error err;
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    return p;
}

/* Runs the core in double-double on C_in = n, one output, K = L = 1:
 * y = sum_c x[c] * w[c]. */
static double dot(int n, const double *x, const double *w, double *eb)
{
    const int64_t one[1] = {1}, zero[1] = {0};
    iohw_problem p = make(1, n, 1, 1, one, one, one, one, zero, 0);
    double y;
    iohw_error err;
    cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, NULL, 1, 1, &y, eb, &err), 0,
                 "%s", err.msg);
    return y;
}

/* 1e16 + 1 - 1e16: naive double gives 0 (1e16 + 1 is a tie that rounds to
 * the even 1e16); the exact sum is 1.  Also 1 + 1e16 - 1e16 + 1 = 2, where
 * naive summation in that order gives 0 + 1 = 1. */
Test(oracle_f64, cancelling_terms_keep_the_small_ones)
{
    const double x[3] = {1e16, 1.0, -1e16}, w[3] = {1.0, 1.0, 1.0};
    volatile double naive = 1e16;
    naive += 1.0;
    naive += -1e16;
    cr_assert_neq(naive, 1.0, "naive double sum should lose the 1 (got %g)", naive);
    double eb;
    cr_expect_eq(dot(3, x, w, &eb), 1.0);
    /* eb = 2e16 + 1, which rounds (a tie) to the even 2e16. */
    cr_expect_eq(eb, 2e16);

    const double x2[4] = {1.0, 1e16, -1e16, 1.0}, w2[4] = {1.0, 1.0, 1.0, 1.0};
    cr_expect_eq(dot(4, x2, w2, &eb), 2.0);
}

/* An inexact product: (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60; rounded to double
 * the 2^-60 is lost.  Minus (1 + 2^-29) the exact sum is 2^-60; naive double
 * gives 0.  The two-product keeps it. */
Test(oracle_f64, the_rounding_error_of_each_product_is_kept)
{
    const double a = 1.0 + 0x1p-30;
    const double x[2] = {a, -(1.0 + 0x1p-29)}, w[2] = {a, 1.0};
    volatile double naive = x[0] * w[0];
    naive += x[1] * w[1];
    cr_assert_eq(naive, 0.0);
    double eb;
    cr_expect_eq(dot(2, x, w, &eb), 0x1p-60);
    /* |terms| = 1 + 2^-29 + 2^-60 + 1 + 2^-29 rounds to 2 + 2^-28. */
    cr_expect_eq(eb, 2.0 + 0x1p-28);
}

static double ulp_of(double v)
{
    const double a = fabs(v);
    return nextafter(a, INFINITY) - a;
}

/* Random f64 problems (ranks 1-3, groups, strides, dilations) with values
 * spread over 2^-20 .. 2^20 and, in half of the channels, a near-negation of
 * the other half so the sums cancel: the oracle is within one ulp of the
 * exact sum (plus the n^2 * 2^-106 * sum|t| term), its err_bound within one
 * ulp of sum |t|, and it is more often correct than naive summation. */
Test(oracle_f64, double_double_is_within_an_ulp_of_the_exact_sum)
{
    iohw_rng r;
    iohw_rng_seed(&r, 64);
    int64_t naive_off = 0, dd_off = 0, total = 0;
    for (int it = 0; it < 60; it++) {
        const int rank = 1 + it % 3;
        int64_t L[3], K[3], S[3], D[3], P[3];
        for (int a = 0; a < rank; a++) {
            L[a] = iohw_rng_range(&r, 2, rank == 3 ? 3 : 6);
            K[a] = iohw_rng_range(&r, 1, 4);
            S[a] = iohw_rng_range(&r, 1, 2);
            D[a] = iohw_rng_range(&r, 1, 2);
            P[a] = 0;
        }
        const int64_t G = iohw_rng_range(&r, 1, 2);
        const int64_t Cg = 2 * iohw_rng_range(&r, 1, 3);
        iohw_problem p = make(rank, G * Cg, G * iohw_rng_range(&r, 1, 2), G,
                              L, K, S, D, P, 1);
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p), nb = p.out_channels;
        const int64_t plane = nx / (p.batch * p.in_channels);
        double *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
        double *b = malloc((size_t)nb * sizeof *b);
        double *y = malloc((size_t)ny * sizeof *y), *eb = malloc((size_t)ny * sizeof *eb);
        double *naive = malloc((size_t)ny * sizeof *naive);
        quad *sum = malloc((size_t)ny * sizeof *sum), *mag = malloc((size_t)ny * sizeof *mag);
        int64_t *cnt = malloc((size_t)ny * sizeof *cnt);
        cr_assert(x && w && b && y && eb && naive && sum && mag && cnt);
        for (int64_t i = 0; i < nx; i++)
            x[i] = ldexp(iohw_rng_normal(&r), (int)iohw_rng_range(&r, -20, 20));
        for (int64_t i = 0; i < nw; i++)
            w[i] = 1.0 + iohw_rng_uniform(&r);
        for (int64_t i = 0; i < nb; i++)
            b[i] = iohw_rng_normal(&r);
        /* Channel c + Cg/2 of each group holds -x of channel c, perturbed. */
        for (int64_t q = 0; q < p.in_channels; q++) {
            const int64_t c = q % Cg;
            if (c < Cg / 2)
                continue;
            const double *src = x + (q - Cg / 2) * plane;
            for (int64_t i = 0; i < plane; i++)
                x[q * plane + i] = -src[i] * (1.0 + ldexp(iohw_rng_normal(&r), -40));
        }
        iohw_error err;
        cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, b, 1, 2, y, eb, &err), 0,
                     "%s", err.msg);
        exact_sums(&p, x, w, b, sum, naive, mag, cnt);
        for (int64_t i = 0; i < ny; i++) {
            const double ex = (double)sum[i];
            const double n2 = (double)((cnt[i] + 2) * (cnt[i] + 2));
            const double tol = ulp_of(ex) + n2 * 0x1p-106 * (double)mag[i];
            const double got = (double)qabs((quad)y[i] - sum[i]);
            cr_assert_leq(got, tol, "problem %d, y[%lld] = %a, exact %a (error %g, tol %g)",
                          it, (long long)i, y[i], ex, got, tol);
            cr_assert_leq((double)qabs((quad)eb[i] - mag[i]), ulp_of((double)mag[i]),
                          "problem %d, eb[%lld] = %a, sum|t| %a", it, (long long)i,
                          eb[i], (double)mag[i]);
            dd_off += y[i] != ex;
            naive_off += naive[i] != ex;
            total++;
        }
        free(x); free(w); free(b); free(y); free(eb); free(naive);
        free(sum); free(mag); free(cnt);
    }
    cr_log_info("%lld elements: double-double not correctly rounded %lld, naive %lld",
                (long long)total, (long long)dd_off, (long long)naive_off);
    cr_expect_lt(dd_off * 10, naive_off, "double-double should be far better than naive");
    cr_expect_leq(dd_off * 100, total, "double-double is almost always correctly rounded");
}

/* Through iohw_oracle_run with dtype f64: y is y_f64 itself (no rounding
 * to do), and the double-double path is taken (the cancelling example). */
Test(oracle_f64, the_f64_run_uses_double_double)
{
    const int64_t one[1] = {1}, zero[1] = {0};
    iohw_problem p = make(1, 3, 1, 1, one, one, one, one, zero, 1);
    const double x[3] = {1e16, 1.0, -1e16}, w[3] = {1.0, 1.0, 1.0};
    const double b[1] = {0.5};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run(&p, x, w, b, 1, &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.y_f64[0], 1.5);
    cr_expect_eq(((const double *)r.y)[0], 1.5);
    cr_expect_eq(r.terms_max, 3);
    iohw_oracle_result_free(&r);
}
