/*
 * tests/test_fill_qdesign.c - the designed quantized fills
 * (generators/fill_qdesign.h) do what they are designed for, judged with the
 * oracle (oracle/quant.h): an unsaturated fill saturates few outputs and
 * spans the output type, a saturating one saturates both ends, the
 * zero-point fill reaches every end of every type, the per-channel fill
 * spreads M over powers of two, a ties fill really produces exact ties of
 * both signs and parities for its mode (and the modes then disagree), the
 * traps refuse problems without their trap, and every fill keeps the
 * binary32 exactness bound of specification section 11.2.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "oracle/descriptor.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

static const char *const PROBLEMS[] = {
    "n=2 ci=3 co=4 in=6 k=3 s=2 bias=1",
    "ci=4 co=6 g=2 in=4x5 k=3x2 s=2x1 pad=1:0x0:1 bias=1",
    "ci=2 co=3 in=7 k=2 d=2 op=1",
    "n=2 ci=6 co=2 g=2 in=3x3 k=3x3 s=2x2 bias=1",
};
#define NPROBLEMS (sizeof PROBLEMS / sizeof PROBLEMS[0])

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

static iohw__qwant want(int32_t xt, int32_t wt, int32_t yt, int32_t rounding, int32_t form)
{
    iohw__qwant w = {xt, wt, yt, rounding, form, 0};
    return w;
}

static void fill(const iohw_problem *p, int kind, const iohw__qwant *w, uint64_t seed,
                 iohw__qdata *d)
{
    iohw_error err;
    cr_assert_eq(iohw__qfill(p, kind, w, seed, d, &err), 0, "%s: %s",
                 iohw__qfill_name(kind), err.msg);
}

/* y of the oracle as int64 (malloc'd). */
static int64_t *oracle_y(const iohw_problem *p, const iohw__qdata *d)
{
    const int64_t n = iohw_problem_y_count(p);
    int32_t *raw = malloc((size_t)n * 4);
    int64_t *y = malloc((size_t)n * sizeof *y);
    iohw_error err;
    cr_assert(raw != NULL && y != NULL);
    cr_assert_eq(iohw_quant_conv_transpose(p, &d->q, d->x, d->w, d->bias, raw, &err), 0,
                 "%s", err.msg);
    for (int64_t i = 0; i < n; i++)
        y[i] = d->q.y_dtype == IOHW_S8 ? ((int8_t *)raw)[i]
               : d->q.y_dtype == IOHW_U8 ? ((uint8_t *)raw)[i] : raw[i];
    free(raw);
    return y;
}

/* The exact accumulators (the oracle with an s32 output). */
static int64_t *oracle_acc(const iohw_problem *p, const iohw__qdata *d)
{
    iohw__qdata t = *d;
    t.q.y_dtype = IOHW_S32;
    t.q.zp_y = 0;
    return oracle_y(p, &t);
}

static void type_range(int32_t t, int64_t *lo, int64_t *hi)
{
    *lo = t == IOHW_U8 ? 0 : -128;
    *hi = t == IOHW_U8 ? 255 : 127;
}

/* M's odd significand times |acc| stays below 2^24 (section 11.2). */
static void expect_exact_bound(const iohw_problem *p, const iohw__qdata *d)
{
    int64_t *acc = oracle_acc(p, d);
    const int64_t nm = d->q.per_channel ? p->out_channels : 1;
    for (int64_t j = 0; j < nm; j++) {
        int e;
        const double m = d->q.m_form == IOHW_QM_SCALES
            ? (double)frexpf(d->q.s_w[j], &e) : (double)d->q.multiplier[j];
        double odd = d->q.m_form == IOHW_QM_SCALES ? ldexp(m, 24) : m;
        while (odd >= 2 && fmod(odd, 2.0) == 0.0)
            odd /= 2;
        for (int64_t i = 0; i < iohw_problem_y_count(p); i++)
            cr_expect_lt(fabs((double)acc[i]) * odd, 16777216.0);
    }
    free(acc);
}

Test(fill_qdesign, unsat_saturates_few_outputs_and_spans_the_type)
{
    const int32_t types[2] = {IOHW_S8, IOHW_U8};
    for (size_t i = 0; i < NPROBLEMS; i++)
        for (int t = 0; t < 4; t++) {
            iohw_problem p = problem(PROBLEMS[i]);
            iohw__qwant w = want(types[t & 1], types[t >> 1], types[(t + 1) & 1],
                                 1 + t, t & 1 ? IOHW_QM_FIXED : IOHW_QM_SCALES);
            iohw__qdata d;
            int64_t lo, hi, ymin = INT64_MAX, ymax = INT64_MIN, sat = 0;
            fill(&p, IOHW__QFILL_UNSAT, &w, 11 + i * 7 + (size_t)t, &d);
            type_range(w.y_dtype, &lo, &hi);
            int64_t *y = oracle_y(&p, &d);
            const int64_t n = iohw_problem_y_count(&p);
            for (int64_t k = 0; k < n; k++) {
                sat += y[k] == lo || y[k] == hi;
                ymin = y[k] < ymin ? y[k] : ymin;
                ymax = y[k] > ymax ? y[k] : ymax;
            }
            cr_expect_leq(sat * 50, n, "%s: %lld of %lld saturated", PROBLEMS[i],
                          (long long)sat, (long long)n);
            cr_expect_geq(ymax - ymin, 100, "%s: outputs span only [%lld, %lld]",
                          PROBLEMS[i], (long long)ymin, (long long)ymax);
            cr_expect_neq(d.q.zp_x, 0);
            cr_expect_neq(d.q.zp_w, 0);
            expect_exact_bound(&p, &d);
            free(y);
            iohw__qdata_free(&d);
        }
}

Test(fill_qdesign, saturate_reaches_both_ends)
{
    for (size_t i = 0; i < NPROBLEMS; i++) {
        iohw_problem p = problem(PROBLEMS[i]);
        iohw__qwant w = want(IOHW_U8, IOHW_S8, i & 1 ? IOHW_U8 : IOHW_S8,
                             IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED);
        iohw__qdata d;
        int64_t lo, hi, at_lo = 0, at_hi = 0;
        fill(&p, IOHW__QFILL_SATURATE, &w, 5 + i, &d);
        type_range(w.y_dtype, &lo, &hi);
        int64_t *y = oracle_y(&p, &d);
        for (int64_t k = 0; k < iohw_problem_y_count(&p); k++) {
            at_lo += y[k] == lo;
            at_hi += y[k] == hi;
        }
        cr_expect_geq(at_lo, 1, "%s: nothing saturates at %lld", PROBLEMS[i], (long long)lo);
        cr_expect_geq(at_hi, 1, "%s: nothing saturates at %lld", PROBLEMS[i], (long long)hi);
        free(y);
        iohw__qdata_free(&d);
    }
}

Test(fill_qdesign, zero_points_reach_every_end_of_every_type)
{
    /* seen[tensor][type][end] */
    int seen[3][2][2] = {{{0}}};
    iohw_problem p = problem(PROBLEMS[0]);
    for (uint64_t s = 0; s < 24; s++) {
        const int32_t t = s & 1 ? IOHW_U8 : IOHW_S8;
        iohw__qwant w = want(t, t, t, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
        iohw__qdata d;
        int64_t lo, hi;
        fill(&p, IOHW__QFILL_ZP_EXTREME, &w, s, &d);
        type_range(t, &lo, &hi);
        const int32_t zp[3] = {d.q.zp_x, d.q.zp_w, d.q.zp_y};
        for (int k = 0; k < 3; k++) {
            cr_expect(zp[k] == lo || zp[k] == hi, "zero point %d = %d", k, zp[k]);
            seen[k][s & 1][zp[k] == hi] = 1;
        }
        iohw__qdata_free(&d);
    }
    for (int k = 0; k < 3; k++)
        for (int t = 0; t < 2; t++)
            cr_expect(seen[k][t][0] && seen[k][t][1], "zero point %d, %s: an end never drawn",
                      k, t ? "u8" : "s8");
}

/* M[j] as a double. */
static double m_of(const iohw__qdata *d, int64_t j)
{
    if (d->q.m_form == IOHW_QM_SCALES)
        return (double)d->q.s_x * (double)d->q.s_w[j] / (double)d->q.s_y;
    return ldexp((double)d->q.multiplier[j], d->q.shift[j] - 31);
}

Test(fill_qdesign, channels_spread_m_over_powers_of_two_along_o)
{
    for (size_t i = 0; i < NPROBLEMS; i++)
        for (int form = IOHW_QM_SCALES; form <= IOHW_QM_FIXED; form++) {
            iohw_problem p = problem(PROBLEMS[i]);
            iohw__qwant w = want(IOHW_S8, IOHW_S8, IOHW_S8, IOHW_ROUND_HALF_AWAY, form);
            iohw__qdata d;
            fill(&p, IOHW__QFILL_CHANNELS, &w, 3 + i, &d);
            cr_expect_eq(d.q.per_channel, 1);
            double mn = INFINITY, mx = 0;
            for (int64_t j = 0; j < p.out_channels; j++) {
                mn = fmin(mn, m_of(&d, j));
                mx = fmax(mx, m_of(&d, j));
            }
            cr_expect_geq(mx / mn, 4.0, "%s: M spreads only by %g", PROBLEMS[i], mx / mn);
            expect_exact_bound(&p, &d);
            iohw__qdata_free(&d);
        }
}

/* R(M * acc) of channel oc in the mode of q (a copy with `mode`). */
static int64_t requant(const iohw__qdata *d, int32_t mode, int64_t oc, int64_t acc)
{
    iohw_quant q = d->q;
    iohw_error err;
    int64_t r;
    q.rounding = mode;
    cr_assert_eq(iohw_quant_requantize(&q, oc, acc, &r, &err), 0, "%s", err.msg);
    return r;
}

/* Counts the exact ties v = f + 1/2 among the outputs: [0] all, [1]
 * negative, [2] positive, [3] f even, [4] f odd. */
static void count_ties(const iohw_problem *p, const iohw__qdata *d, int64_t n5[5])
{
    int64_t *acc = oracle_acc(p, d);
    const int64_t ov = iohw_problem_y_count(p) / (p->batch * p->out_channels);
    memset(n5, 0, 5 * sizeof *n5);
    for (int64_t i = 0; i < iohw_problem_y_count(p); i++) {
        const int64_t oc = (i / ov) % p->out_channels;
        const int64_t up = requant(d, IOHW_ROUND_HALF_UP, oc, acc[i]);
        const int64_t down = -requant(d, IOHW_ROUND_HALF_UP, oc, -acc[i]);
        if (up == down)
            continue;
        n5[0]++;
        n5[down < 0 ? 1 : 2]++;
        n5[down % 2 == 0 ? 3 : 4]++;
    }
    free(acc);
}

static int64_t differ(const iohw_problem *p, const iohw__qdata *d, int32_t other)
{
    iohw__qdata t = *d;
    t.q.rounding = other;
    int64_t *a = oracle_y(p, d), *b = oracle_y(p, &t), n = 0;
    for (int64_t i = 0; i < iohw_problem_y_count(p); i++)
        n += a[i] != b[i];
    free(a);
    free(b);
    return n;
}

Test(fill_qdesign, ties_fill_produces_ties_of_both_signs_and_parities_for_each_mode)
{
    for (int32_t mode = IOHW_ROUND_HALF_EVEN; mode <= IOHW_ROUND_GEMMLOWP; mode++)
        for (size_t i = 0; i < NPROBLEMS; i++) {
            iohw_problem p = problem(PROBLEMS[i]);
            iohw__qwant w = want(IOHW_U8, IOHW_S8, IOHW_S8, mode,
                                 i & 1 ? IOHW_QM_SCALES : IOHW_QM_FIXED);
            w.per_channel = (int32_t)(i >> 1); /* one M, or C_out equal ones */
            iohw__qdata d;
            int64_t n5[5];
            fill(&p, IOHW__QFILL_TIES, &w, 40 + i, &d);
            count_ties(&p, &d, n5);
            const int64_t n = iohw_problem_y_count(&p);
            cr_expect_geq(n5[0] * 8, n, "mode %d %s: %lld ties of %lld", mode, PROBLEMS[i],
                          (long long)n5[0], (long long)n);
            for (int k = 1; k < 5; k++)
                cr_expect_geq(n5[k], 1, "mode %d %s: no tie of kind %d", mode, PROBLEMS[i], k);
            /* The other single modes give other outputs on this case, and
             * on a gemmlowp case every single mode does. */
            for (int32_t other = IOHW_ROUND_HALF_EVEN; other <= IOHW_ROUND_HALF_UP; other++)
                if (other != mode)
                    cr_expect_gt(differ(&p, &d, other), 0, "mode %d and %d agree on %s", mode,
                                 other, PROBLEMS[i]);
            expect_exact_bound(&p, &d);
            iohw__qdata_free(&d);
        }
}

Test(fill_qdesign, traps_refuse_problems_without_their_trap)
{
    iohw_error err;
    iohw__qdata d;
    iohw__qwant w = want(IOHW_S8, IOHW_S8, IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    iohw_problem same = problem("ci=3 co=3 in=4 k=2");
    iohw_problem nogroups = problem("ci=3 co=2 in=4 k=2");
    cr_expect_eq(iohw__qfill(&same, IOHW__QFILL_IO_TRAP, &w, 1, &d, &err), -1);
    cr_expect(strstr(err.msg, "C_in != C_out/G") != NULL, "%s", err.msg);
    cr_expect_eq(iohw__qfill(&nogroups, IOHW__QFILL_GROUP_TRAP, &w, 1, &d, &err), -1);
    cr_expect(strstr(err.msg, "groups > 1") != NULL, "%s", err.msg);
    fill(&nogroups, IOHW__QFILL_IO_TRAP, &w, 1, &d);
    iohw__qdata_free(&d);
    iohw_problem grouped = problem(PROBLEMS[1]);
    fill(&grouped, IOHW__QFILL_GROUP_TRAP, &w, 1, &d);
    cr_expect_eq(d.q.per_channel, 1);
    iohw__qdata_free(&d);
}

Test(fill_qdesign, every_fill_is_deterministic_and_valid_for_an_s32_output)
{
    iohw_problem p = problem(PROBLEMS[1]);
    for (int kind = 0; kind < IOHW__QFILL_COUNT; kind++) {
        iohw__qwant w = want(IOHW_S8, IOHW_U8, IOHW_S32, IOHW_ROUND_HALF_UP, IOHW_QM_SCALES);
        iohw__qdata a, b;
        cr_expect_eq(iohw__qfill_kind(iohw__qfill_name(kind)), kind);
        fill(&p, kind, &w, 9, &a);
        fill(&p, kind, &w, 9, &b);
        cr_expect_eq(memcmp(a.x, b.x, (size_t)iohw_problem_x_count(&p)), 0);
        cr_expect_eq(memcmp(a.w, b.w, (size_t)iohw_problem_w_count(&p)), 0);
        cr_expect_eq(a.q.zp_y, 0);
        int64_t *y = oracle_y(&p, &a);
        free(y);
        iohw__qdata_free(&a);
        iohw__qdata_free(&b);
    }
    cr_expect_eq(iohw__qfill_kind("nonsense"), -1);
}

Test(fill_qdesign, the_abi_form_puts_the_parameters_in_the_problem_and_the_tensors_in_its_layouts)
{
    iohw_problem p = problem("n=2 ci=3 co=4 in=4x5 k=3x2 s=2x1 bias=1 xl=NHWC wl=HWOI");
    iohw__qwant w = want(IOHW_U8, IOHW_S8, IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    w.per_channel = 1;
    iohw__qdata d;
    iohw_error err;
    fill(&p, IOHW__QFILL_CHANNELS, &w, 21, &d);

    iohw_problem a = p; /* the ABI's quantized problem */
    a.dtype = IOHW_U8;
    a.w_dtype = IOHW_S8;
    a.y_dtype = IOHW_S8;
    a.rounding = IOHW_ROUND_HALF_EVEN;
    a.m_form = IOHW_QM_SCALES;
    a.per_channel = 1;
    const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
    uint8_t *x = malloc((size_t)nx), *wt = malloc((size_t)nw), *back = malloc((size_t)nx);
    int32_t bias[4];
    float s_w[4];
    cr_assert(x != NULL && wt != NULL && back != NULL);
    cr_assert_eq(iohw__fill_qdesign(&a, "qchannels", 21, x, wt, bias, s_w, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(a.zp_x, d.q.zp_x);
    cr_expect_eq(a.zp_w, d.q.zp_w);
    cr_expect_eq(a.zp_y, d.q.zp_y);
    cr_expect(a.s_x == d.q.s_x && a.s_y == d.q.s_y);
    cr_expect_eq(memcmp(s_w, d.s_w, sizeof s_w), 0);
    cr_expect_eq(memcmp(bias, d.bias, sizeof bias), 0);
    iohw_layout_map m;
    cr_assert_eq(iohw_layout_data_map(&p, 0, &m, &err), 0, "%s", err.msg);
    iohw_layout_to_canonical(&m, 1, x, back);
    cr_expect_eq(memcmp(back, d.x, (size_t)nx), 0, "x is not the fill's x in NHWC");
    cr_expect_neq(memcmp(x, d.x, (size_t)nx), 0, "x was left canonical");

    a.per_channel = 0;
    cr_expect_eq(iohw__fill_qdesign(&a, "qchannels", 21, x, wt, bias, s_w, &err), -1);
    cr_expect(strstr(err.msg, "pc=1") != NULL, "%s", err.msg);
    cr_expect_eq(iohw__fill_qdesign(&a, "qrandom", 21, x, wt, bias, s_w, &err), -1);
    free(x);
    free(wt);
    free(back);
    iohw__qdata_free(&d);
}
