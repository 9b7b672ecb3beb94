/*
 * tests/test_fill_qdeploy.c - the deployment fills (generators/
 * fill_qdeploy.c, specification section 11.5) leave the binary32-exact
 * zone of section 11.2 as designed, judged against the oracle and against
 * properties computed here independently: qdeploy's scales are not
 * dyadic and a binary32 requantization (written out below) differs from
 * the exact one on many elements; qwide's accumulators (summed here with
 * a plain loop) pass 2^31 of both signs; qshift's shifts are left shifts
 * and matter.  Also iohw_quant_accumulate (oracle/quant.h), the int64
 * accumulators, against that loop.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "judge/diagnose_qdeploy.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "oracle/quant.h"

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

static void fill(const iohw_problem *p, int kind, int32_t xt, int32_t wt, int32_t yt,
                 int32_t rounding, int32_t form, int32_t pc, uint64_t seed, iohw__qdata *d)
{
    iohw__qwant w = {xt, wt, yt, rounding, form, pc};
    iohw_error err;
    cr_assert_eq(iohw__qfill(p, kind, &w, seed, d, &err), 0, "%s: %s", iohw__qfill_name(kind),
                 err.msg);
}

static int64_t at8(const void *t, int32_t dt, int64_t i)
{
    return dt == IOHW_S8 ? ((const int8_t *)t)[i] : ((const uint8_t *)t)[i];
}

/* The accumulators of a rank-1 problem with stride 1, no padding, no
 * dilation, G = 1, by the textbook loop: acc[n][oc][i + k] += ... */
static int64_t *naive_acc(const iohw_problem *p, const iohw__qdata *d)
{
    const int64_t N = p->batch, CI = p->in_channels, CO = p->out_channels;
    const int64_t L = p->in_size[0], K = p->kernel[0], O = L + K - 1;
    int64_t *acc = calloc((size_t)(N * CO * O), sizeof *acc);
    cr_assert_not_null(acc);
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < CO; oc++)
            for (int64_t o = 0; o < O; o++) {
                int64_t s = d->bias != NULL ? d->bias[oc] : 0;
                for (int64_t c = 0; c < CI; c++)
                    for (int64_t k = 0; k < K; k++) {
                        const int64_t i = o - k;
                        if (i < 0 || i >= L)
                            continue;
                        s += (at8(d->x, d->q.x_dtype, (n * CI + c) * L + i) - d->q.zp_x) *
                             (at8(d->w, d->q.w_dtype, (c * CO + oc) * K + k) - d->q.zp_w);
                    }
                acc[(n * CO + oc) * O + o] = s;
            }
    return acc;
}

/* y by a binary32 requantization, as a float kernel computes it. */
static int64_t f32_y(const iohw_quant *q, int64_t oc, int64_t acc)
{
    const int64_t j = q->per_channel ? oc : 0;
    volatile float m, v, r;
    if (q->m_form == IOHW_QM_SCALES) {
        volatile float prod = q->s_x * q->s_w[j];
        m = prod / q->s_y;
    } else {
        m = (float)q->multiplier[j] * ldexpf(1.0f, q->shift[j] - 31);
    }
    v = (float)acc * m;
    r = q->rounding == IOHW_ROUND_HALF_EVEN ? rintf(v) : roundf(v);
    const int64_t y = q->zp_y + (int64_t)r;
    return q->y_dtype == IOHW_S8 ? (y < -128 ? -128 : y > 127 ? 127 : y)
                                 : (y < 0 ? 0 : y > 255 ? 255 : y);
}

Test(fill_qdeploy, qdeploy_scales_are_not_dyadic_and_binary32_differs_on_many_elements)
{
    static const char *const P[] = {"n=2 ci=2 co=4 in=6 k=3 s=2 bias=1",
                                    "ci=3 co=4 in=7 k=3 bias=1"};
    static const int32_t R[] = {IOHW_ROUND_HALF_EVEN, IOHW_ROUND_HALF_AWAY};
    for (int pi = 0; pi < 2; pi++)
        for (int ri = 0; ri < 2; ri++)
            for (int form = IOHW_QM_SCALES; form <= IOHW_QM_FIXED; form++) {
                iohw_problem p = problem(P[pi]);
                iohw__qdata d;
                fill(&p, IOHW__QFILL_DEPLOY, IOHW_U8, IOHW_S8, IOHW_S8, R[ri], form, pi, 3, &d);
                const int64_t ny = iohw_problem_y_count(&p), OV = ny / (p.batch * p.out_channels);
                int8_t *y = malloc((size_t)ny);
                int64_t *acc = malloc((size_t)ny * sizeof *acc);
                cr_assert(y != NULL && acc != NULL);
                cr_assert_eq(iohw_quant_conv_transpose(&p, &d.q, d.x, d.w, d.bias, y, NULL), 0);
                cr_assert_eq(iohw_quant_accumulate(&p, &d.q, d.x, d.w, d.bias, acc, NULL), 0);
                int64_t differ = 0;
                for (int64_t i = 0; i < ny; i++)
                    differ += f32_y(&d.q, (i / OV) % p.out_channels, acc[i]) != y[i];
                cr_expect_geq(differ * 8, ny, "%s form %d rounding %d: %lld of %lld differ",
                              P[pi], form, R[ri], (long long)differ, (long long)ny);
                if (form == IOHW_QM_SCALES) {
                    /* s_x * s_w / s_y just below 1/2, exactly (binary64 holds it) */
                    const double prod = (double)d.q.s_x * (double)d.q.s_w[0];
                    cr_expect(prod < 0.5 * (double)d.q.s_y, "M is not below 1/2");
                    cr_expect(prod > 0.4999 * (double)d.q.s_y, "M is not near 1/2");
                    int e;
                    const double sig = ldexp(frexp((double)d.q.s_w[0], &e), 24);
                    cr_expect(fmod(sig, 256.0) != 0.0, "s_w = %g looks dyadic", (double)d.q.s_w[0]);
                } else {
                    cr_expect(d.q.multiplier[0] < (1 << 30) && d.q.multiplier[0] > (1 << 30) - 64);
                }
                free(y);
                free(acc);
                iohw__qdata_free(&d);
            }
}

Test(fill_qdeploy, qwide_accumulators_pass_two_to_the_31_of_both_signs)
{
    iohw_problem p = problem("ci=8192 co=2 in=10 k=9 bias=1");
    static const int32_t T[2] = {IOHW_S8, IOHW_U8};
    for (int t = 0; t < 4; t++) {
        iohw__qdata d;
        fill(&p, IOHW__QFILL_WIDE, T[t & 1], T[t >> 1], IOHW_S8, IOHW_ROUND_HALF_EVEN,
             IOHW_QM_SCALES, 0, (uint64_t)t, &d);
        const int64_t ny = iohw_problem_y_count(&p);
        int64_t *want = naive_acc(&p, &d), *got = malloc((size_t)ny * sizeof *got);
        cr_assert_not_null(got);
        cr_assert_eq(iohw_quant_accumulate(&p, &d.q, d.x, d.w, d.bias, got, NULL), 0);
        int64_t above = 0, below = 0;
        for (int64_t i = 0; i < ny; i++) {
            cr_expect_eq(got[i], want[i], "acc[%lld]", (long long)i);
            above += want[i] > INT32_MAX;
            below += want[i] < INT32_MIN;
        }
        cr_expect_geq(above, 2, "types %d: %lld accumulators past 2^31", t, (long long)above);
        cr_expect_geq(below, 2, "types %d: %lld accumulators past -2^31", t, (long long)below);
        free(want);
        free(got);
        iohw__qdata_free(&d);
    }
}

Test(fill_qdeploy, qwide_refuses_gemmlowp_which_takes_int32_accumulators)
{
    iohw_problem p = problem("ci=8192 co=2 in=10 k=9");
    iohw__qwant w = {IOHW_U8, IOHW_S8, IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED, 0};
    iohw__qdata d;
    iohw_error err = {{0}};
    cr_expect_eq(iohw__qfill(&p, IOHW__QFILL_WIDE, &w, 1, &d, &err), -1);
    cr_expect(strstr(err.msg, "gemmlowp") != NULL, "%s", err.msg);
}

Test(fill_qdeploy, qshift_has_left_shifts_that_change_most_outputs)
{
    static const char *const P[] = {"n=2 ci=2 co=4 in=6 k=3 s=2 bias=1",
                                    "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1",
                                    "ci=2 co=3 in=7 k=2 d=2 op=1"};
    static const int32_t R[] = {IOHW_ROUND_GEMMLOWP, IOHW_ROUND_HALF_EVEN, IOHW_ROUND_HALF_UP};
    for (int pi = 0; pi < 3; pi++) {
        iohw_problem p = problem(P[pi]);
        iohw__qdata d;
        fill(&p, IOHW__QFILL_SHIFT, IOHW_S8, IOHW_U8, IOHW_U8, R[pi], IOHW_QM_SCALES, pi & 1,
             5, &d);
        cr_expect_eq(d.q.m_form, IOHW_QM_FIXED, "qshift takes the fixed form");
        const int64_t nm = d.q.per_channel ? p.out_channels : 1, ny = iohw_problem_y_count(&p);
        for (int64_t j = 0; j < nm; j++) {
            cr_expect(d.q.shift[j] >= 1 && d.q.shift[j] <= 7, "shift %d", d.q.shift[j]);
            cr_expect_geq(d.q.multiplier[j], 1 << 30);
        }
        uint8_t *y = malloc((size_t)ny), *y0 = malloc((size_t)ny);
        int32_t *sh0 = calloc((size_t)nm, sizeof *sh0);
        cr_assert(y != NULL && y0 != NULL && sh0 != NULL);
        cr_assert_eq(iohw_quant_conv_transpose(&p, &d.q, d.x, d.w, d.bias, y, NULL), 0);
        iohw_quant q0 = d.q;
        q0.shift = sh0; /* the left shift dropped */
        cr_assert_eq(iohw_quant_conv_transpose(&p, &q0, d.x, d.w, d.bias, y0, NULL), 0);
        int64_t differ = 0, sat = 0, lo = 255, hi = 0;
        for (int64_t i = 0; i < ny; i++) {
            differ += y[i] != y0[i];
            sat += y[i] == 0 || y[i] == 255;
            lo = y[i] < lo ? y[i] : lo;
            hi = y[i] > hi ? y[i] : hi;
        }
        cr_expect_geq(differ * 2, ny, "%s: %lld of %lld differ", P[pi], (long long)differ,
                      (long long)ny);
        cr_expect_leq(sat * 10, ny, "%s: %lld saturated", P[pi], (long long)sat);
        cr_expect_geq(hi - lo, 40, "%s: outputs span %lld", P[pi], (long long)(hi - lo));
        free(y);
        free(y0);
        free(sh0);
        iohw__qdata_free(&d);
    }
}

Test(fill_qdeploy, accumulate_checks_its_arguments)
{
    iohw_problem p = problem("ci=2 co=3 in=4 k=2");
    iohw_quant q = {.x_dtype = IOHW_S8, .w_dtype = IOHW_S8, .y_dtype = IOHW_S8, .zp_x = 300};
    int8_t x[8] = {0}, w[12] = {0};
    int64_t acc[15];
    iohw_error err = {{0}};
    cr_expect_eq(iohw_quant_accumulate(&p, &q, x, w, NULL, acc, &err), -1);
    cr_expect(strstr(err.msg, "zp_x") != NULL, "%s", err.msg);
    q.zp_x = 0;
    cr_expect_eq(iohw_quant_accumulate(&p, &q, NULL, w, NULL, acc, &err), -1);
    cr_expect(strstr(err.msg, "x_q") != NULL, "%s", err.msg);
}

Test(fill_qdeploy, the_binary32_misreading_is_tried_only_where_it_has_no_other_name)
{
    int32_t mult[2] = {1 << 30, 1 << 30}, sh[2] = {-1, -1};
    iohw_quant q = {.x_dtype = IOHW_S8, .w_dtype = IOHW_S8, .y_dtype = IOHW_S8,
                    .rounding = IOHW_ROUND_GEMMLOWP, .m_form = IOHW_QM_FIXED,
                    .per_channel = 1, .multiplier = mult, .shift = sh};
    cr_expect_eq(iohw__dgq_f32_distinct(&q, 2), 0, "2^30 is a binary32 value");
    mult[1] = (1 << 30) - 1; /* binary32 rounds it to 2^30 */
    cr_expect_eq(iohw__dgq_f32_distinct(&q, 2), 1);
    mult[1] = 1 << 30;
    q.rounding = IOHW_ROUND_HALF_EVEN;
    cr_expect_eq(iohw__dgq_f32_distinct(&q, 2), 1);
    q.y_dtype = IOHW_S32;
    cr_expect_eq(iohw__dgq_f32_distinct(&q, 2), 0, "an s32 y is not requantized");
}
