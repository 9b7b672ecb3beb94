/*
 * tests/test_diagnose_accum.c - the accum16 fill (generators/fill_narrow.c)
 * and the two diagnoses of its bug classes (specification sections 3.5
 * and 9): "sum accumulated in the 16-bit type (f16 or bf16)" and
 * "pad_begin ignored (nothing cropped at the beginning)".
 *
 * The outputs a buggy backend writes are fabricated here with arithmetic of
 * the test's own: a 1x1 kernel's output is a sum over channels at each
 * position, and an accum16 product is (X/8) s with X = 11 or 19, which a
 * 16-bit accumulator holds as floor(X/8) s = s or 2s.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "support/diagnose_cases.h"

#define PAD_BEGIN "pad_begin ignored (nothing cropped at the beginning)"
#define ACCUM16 "sum accumulated in the 16-bit type (f16 or bf16)"

static double load(const iohw_case *c, const void *a, int64_t i)
{
    return iohw_dtype_load(c->p.dtype, a, (size_t)i);
}

/* --- pad_begin ignored --------------------------------------------------- */

/* The output of a 1x1 stride-1 kernel (default layouts) that stores full
 * position q at output position q: y[n][m][q] = bias[m] + sum_c x[n][c][q']
 * w[c][m], q' the same (row-major) coordinates on the input grid. */
static void *uncropped_at_zero(const iohw_case *c)
{
    const iohw_problem *p = &c->p;
    const int64_t C = p->in_channels, M = p->out_channels, ny = iohw_problem_y_count(p);
    int64_t L = 1, O = 1;
    for (uint32_t a = 0; a < p->rank; a++) {
        L *= p->in_size[a];
        O *= p->out_size[a];
    }
    void *y = iohw_test_copy(c, c->y, ny);
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t q = 0; q < O; q++) {
                /* q's coordinates on the output grid, then on the input's. */
                int64_t rest = q, at = 0, stride = 1;
                for (int a = (int)p->rank - 1; a >= 0; a--) {
                    at += rest % p->out_size[a] * stride;
                    rest /= p->out_size[a];
                    stride *= p->in_size[a];
                }
                double s = p->has_bias ? load(c, c->bias, m) : 0.0;
                for (int64_t ch = 0; ch < C; ch++)
                    s += load(c, c->x, (n * C + ch) * L + at) * load(c, c->w, ch * M + m);
                iohw_dtype_store(p->dtype, y, (size_t)((n * M + m) * O + q), s);
            }
    cr_expect_neq(memcmp(y, c->y, (size_t)ny * iohw_dtype_size(p->dtype)), 0);
    return y;
}

static void pad_begin_case(const char *desc)
{
    iohw_case c;
    iohw_test_case_of(desc, &c);
    void *y = uncropped_at_zero(&c);
    iohw_test_expect_named(&c, y, PAD_BEGIN);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_accum, pad_begin_ignored_on_a_1x1_kernel_asymmetric_1d)
{
    pad_begin_case("ci=2 co=3 in=7 k=1 pad=2:1 bias=1 fill=exact seed=5");
}

Test(diagnose_accum, pad_begin_ignored_on_a_1x1_kernel_symmetric_2d_batch)
{
    pad_begin_case("n=2 ci=2 co=2 in=4x5 k=1x1 pad=1x2 fill=normal seed=6");
}

Test(diagnose_accum, pad_begin_ignored_on_a_1x1x1_kernel_3d_f16)
{
    pad_begin_case("ci=3 co=2 in=3x4x4 k=1x1x1 pad=1:0x0:1x1 bias=1 dt=f16 seed=7");
}

/* --- the accum16 fill ---------------------------------------------------- */

/* The smallest subnormal s of the fill's 16-bit grid and the exponents of
 * x and w: f16 2^-24, -14, -13; bf16 2^-133, -68, -68. */
static void grid(iohw_dtype dt, double *s, int *ex, int *ew)
{
    const int bf = dt == IOHW_BF16;
    *s = ldexp(1.0, bf ? -133 : -24);
    *ex = bf ? -68 : -14;
    *ew = bf ? -68 : -13;
}

Test(diagnose_accum, the_accum16_fill_puts_every_product_3_8_of_s_past_a_multiple_of_s)
{
    const char *const dts[] = {"f16", "bf16", "f32", "f64"};
    for (int t = 0; t < 4; t++)
        for (int seed = 1; seed <= 2; seed++) {
            char desc[128];
            iohw_case c;
            snprintf(desc, sizeof desc, "ci=4 co=4 g=2 in=5x3 k=2x2 bias=1 dt=%s "
                     "fill=accum16 seed=%d", dts[t], seed);
            iohw_test_case_of(desc, &c);
            double s;
            int ex, ew, seen[2] = {0, 0};
            grid(c.p.dtype, &s, &ex, &ew);
            for (int64_t i = 0; i < iohw_problem_x_count(&c.p); i++) {
                const double X = ldexp(load(&c, c.x, i), -ex);
                cr_assert(X == 11 || X == 19, "%s: x[%lld] = %g * 2^%d", desc,
                          (long long)i, X, ex);
                seen[X == 19]++;
            }
            cr_expect(seen[0] > 0 && seen[1] > 0, "%s: both 11 and 19", desc);
            /* w[ci][m][k]: ci in 0..3 (2 groups of 2), Mg = 2, 4 taps; the
             * sign is that of output channel g*2+m, flipped by an odd seed. */
            for (int64_t i = 0; i < iohw_problem_w_count(&c.p); i++) {
                const int64_t co = i / 8 / 2 * 2 + i / 4 % 2;
                const double want = (co + seed) % 2 == 0 ? ldexp(1.0, ew) : -ldexp(1.0, ew);
                cr_assert_eq(load(&c, c.w, i), want, "%s: w[%lld]", desc, (long long)i);
                const double r = ldexp(load(&c, c.x, 0), -ex) * ldexp(fabs(want), -ew) / 8;
                cr_assert_eq(r - floor(r), 0.375, "%s", desc);
            }
            for (int64_t m = 0; m < 4; m++) {
                const double b = load(&c, c.bias, m) / s;
                cr_expect(fabs(b) >= 1 && fabs(b) <= 4 && b == floor(b), "%s: bias %g s", desc,
                          b);
                cr_expect((b > 0) == ((m + seed) % 2 == 0), "%s: bias sign", desc);
            }
            iohw_case_free(&c);
        }
}

/* --- accumulated in the 16-bit type -------------------------------------- */

/* What a 16-bit accumulator makes of an accum16 case (rank 1 or 2, stride
 * 1, no padding, default layouts): bias + sum of sign * floor(|t| / s) * s
 * over the terms t; the elements (each with at least two terms) must lie
 * more than `margin` tolerances (with terms_max) from the exact sum. */
static void *floored_sum(const iohw_case *c, double margin)
{
    const iohw_problem *p = &c->p;
    const int R = (int)p->rank;
    const int64_t C = p->in_channels, M = p->out_channels;
    const int64_t H = R == 2 ? p->in_size[0] : 1, W = p->in_size[R - 1];
    const int64_t KH = R == 2 ? p->kernel[0] : 1, KW = p->kernel[R - 1];
    const int64_t OH = R == 2 ? p->out_size[0] : 1, OW = p->out_size[R - 1];
    const double u = iohw_dtype_unit_roundoff(p->dtype);
    double s;
    int ex, ew;
    grid(p->dtype, &s, &ex, &ew);
    void *y = iohw_test_copy(c, c->y, M * OH * OW);
    for (int64_t m = 0; m < M; m++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t at = (m * OH + oh) * OW + ow;
                double acc = p->has_bias ? load(c, c->bias, m) : 0.0;
                for (int64_t ch = 0; ch < C; ch++)
                    for (int64_t kh = 0; kh < KH; kh++)
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int64_t ih = oh - kh, iw = ow - kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            const double t = load(c, c->x, (ch * H + ih) * W + iw) *
                                             load(c, c->w, (ch * M + m) * KH * KW + kh * KW + kw);
                            acc += copysign(floor(fabs(t) / s) * s, t);
                        }
                const double tol = (double)(c->terms_max + 2) * u * c->err_bound[at] + s / 2;
                cr_expect_gt(fabs(acc - c->y_f64[at]), margin * tol, "element %lld",
                             (long long)at);
                iohw_dtype_store(p->dtype, y, (size_t)at, acc);
            }
    return y;
}

Test(diagnose_accum, f16_accumulated_in_f16_is_named_and_fails_every_element_3_times_over)
{
    iohw_case c;
    iohw_test_case_of("ci=8 co=2 in=6 k=3 bias=1 dt=f16 fill=accum16 seed=3", &c);
    void *y = floored_sum(&c, 3.0);
    iohw_test_expect_named(&c, y, ACCUM16);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_accum, bf16_accumulated_in_bf16_is_named)
{
    iohw_case c;
    iohw_test_case_of("ci=4 co=2 in=4x5 k=2x2 dt=bf16 fill=accum16 seed=4", &c);
    void *y = floored_sum(&c, 1.0);
    iohw_test_expect_named(&c, y, ACCUM16);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_accum, an_f32_case_is_never_named_as_accumulated_in_16_bits)
{
    iohw_case c;
    char buf[256];
    iohw_test_case_of("ci=8 co=2 in=6 k=3 bias=1 dt=f32 fill=accum16 seed=3", &c);
    void *y = floored_sum(&c, 3.0);
    iohw_diagnose(&c, y, buf, sizeof buf);
    cr_expect(strstr(buf, "16-bit") == NULL, "%s", buf);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_accum, an_f16_output_off_elsewhere_is_not_named_as_accumulated)
{
    /* The floored sum with its first element moved by 40 s: no longer what
     * a 16-bit accumulator gives there. */
    iohw_case c;
    char buf[256];
    iohw_test_case_of("ci=8 co=2 in=6 k=3 bias=1 dt=f16 fill=accum16 seed=3", &c);
    void *y = floored_sum(&c, 3.0);
    iohw_dtype_store(c.p.dtype, y, 0, load(&c, y, 0) + ldexp(40.0, -24));
    iohw_diagnose(&c, y, buf, sizeof buf);
    cr_expect(strstr(buf, ACCUM16) == NULL, "%s", buf);
    free(y);
    iohw_case_free(&c);
}
