/*
 * tests/test_diagnose_numeric.c - naming the numeric faults: truncated or
 * half-away rounding of the output, saturation instead of overflow, zero
 * products skipped, inputs rounded to bf16, subnormals flushed; and judging
 * under a declared flush (iohw_diagnose_flush_passes).
 *
 * Each test builds a case whose data make the fault visible (integer data
 * whose sums need rounding in the dtype, zeros meeting Inf, subnormal
 * inputs), fabricates what such a backend writes with its own arithmetic
 * (bit operations on integers and floats, or the oracle run on changed
 * inputs) and checks that iohw_diagnose names exactly that fault, and that
 * an unrelated fault is not named as a numeric one.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "judge/diagnose.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/diagnose_cases.h"

#define TRUNCATED "output rounded toward zero (truncated) instead of to nearest even"
#define HALF_AWAY "output rounded half away from zero instead of half to even"
#define SATURATED "overflow saturated at the largest finite value instead of +-Inf"
#define ZERO_SKIP "products with a zero factor skipped (0 x Inf and 0 x NaN gave no NaN)"
#define ZERO_X_SKIP "products whose x is zero skipped (0 x Inf and 0 x NaN gave no NaN)"
#define ZERO_W_SKIP "products whose w is zero skipped (0 x Inf and 0 x NaN gave no NaN)"
#define FLUSHED "subnormal inputs and results flushed to zero"

#define make iohw_test_case_of
#define copy_of iohw_test_copy
#define expect_named iohw_test_expect_named

/* Recomputes the case's outputs after its inputs were changed. */
static void complete(iohw_case *c)
{
    iohw_error err = {{0}};
    cr_assert_eq(iohw_complete_case(c, 1, &err), 0, "%s", err.msg);
}

#define FLT_MAX_VALUE 0x1.fffffep127

/* Replaces x, w and bias by integers in [lo, hi] (a fixed sequence); with
 * e > 0, w times 2^e and x times 2^e, 2^(e+2) or 2^(e+4) in turn. */
static void scaled_inputs(iohw_case *c, int lo, int hi, int e)
{
    uint32_t s = 12345;
    void *t[3] = {c->x, c->w, c->bias};
    int64_t n[3] = {iohw_problem_x_count(&c->p), iohw_problem_w_count(&c->p),
                    c->bias != NULL ? iohw_problem_bias_count(&c->p) : 0};
    for (int a = 0; a < 3; a++)
        for (int64_t i = 0; i < n[a]; i++) {
            s = s * 1103515245u + 12345u;
            double v = lo + (int)((s >> 16) % (uint32_t)(hi - lo + 1));
            int k = e == 0 || a == 2 ? 0 : a == 0 ? e + (int)(i % 3) * 2 : e;
            iohw_dtype_store(c->p.dtype, t[a], (size_t)i, ldexp(v, k));
        }
    complete(c);
}

static void integer_inputs(iohw_case *c, int lo, int hi)
{
    scaled_inputs(c, lo, hi, 0);
}

/* The oracle's y (case dtype and layout) for these inputs. */
static void *oracle_y(const iohw_case *c, const void *x, const void *w)
{
    return iohw_test_oracle_y(&c->p, x, w, c->bias);
}

/* The output must differ from the correct one, or the test proves nothing. */
static void expect_differs(const iohw_case *c, const void *y)
{
    size_t bytes = (size_t)iohw_problem_y_count(&c->p) * iohw_dtype_size(c->p.dtype);
    cr_assert_neq(memcmp(y, c->y, bytes), 0, "the faulty output equals the oracle's");
}

/* Positive integer v rounded to prec significant bits: by dropping the low
 * bits (away = 0) or by adding half of the dropped part first (away = 1). */
static double int_round(double v, int prec, int away)
{
    uint64_t n = (uint64_t)v;
    int bits = 0;
    while (bits < 64 && (n >> bits) != 0)
        bits++;
    if (bits <= prec)
        return v;
    int s = bits - prec;
    if (away)
        n += (uint64_t)1 << (s - 1);
    return (double)((n >> s) << s);
}

/* y of the case with every element of y_f64 (positive integers) rounded by
 * int_round. */
static void *rounded_output(const iohw_case *c, int prec, int away)
{
    int64_t n = iohw_problem_y_count(&c->p);
    void *y = copy_of(c, c->y, n);
    for (int64_t i = 0; i < n; i++)
        iohw_dtype_store(c->p.dtype, y, (size_t)i, int_round(c->y_f64[i], prec, away));
    return y;
}

/* Sets element i of a (case dtype) to v. */
static void set(const iohw_case *c, void *a, int64_t i, double v)
{
    iohw_dtype_store(c->p.dtype, a, (size_t)i, v);
}

/* --- the final rounding ------------------------------------------------- */

static void rounding_case(const char *desc, int lo, int hi, int prec, int away,
                          const char *name)
{
    iohw_case c;
    make(desc, &c);
    integer_inputs(&c, lo, hi);
    void *y = rounded_output(&c, prec, away);
    expect_differs(&c, y);
    expect_named(&c, y, name);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_numeric, bf16_output_truncated_in_an_exact_case)
{
    rounding_case("ci=3 co=2 in=5x4 k=3x2 bias=1 dt=bf16 fill=exact seed=1", 1, 15, 8, 0,
                  TRUNCATED);
}

Test(diagnose_numeric, f16_output_truncated)
{
    rounding_case("ci=4 co=3 in=6 k=5 dt=f16 fill=exact seed=3", 20, 60, 11, 0, TRUNCATED);
}

Test(diagnose_numeric, f32_output_truncated_from_the_f64_value)
{
    /* products near 2^24 and sums of 12 of them: beyond f32's 24 bits. */
    rounding_case("ci=3 co=2 in=4x4 k=2x2 dt=f32 fill=exact seed=4", 3000, 4095, 24, 0,
                  TRUNCATED);
}

Test(diagnose_numeric, bf16_output_rounded_half_away_from_zero)
{
    rounding_case("ci=2 co=2 in=5x5 k=2x2 bias=1 dt=bf16 fill=exact seed=5", 1, 15, 8, 1,
                  HALF_AWAY);
}

Test(diagnose_numeric, f16_output_rounded_half_away_from_zero)
{
    rounding_case("ci=3 co=2 in=7 k=3 dt=f16 fill=exact seed=6", 20, 60, 11, 1, HALF_AWAY);
}

/* --- overflow ------------------------------------------------------------ */

/* The case's output with every Inf replaced by +-max, named. */
static void expect_saturated(iohw_case c, double max)
{
    int64_t n = iohw_problem_y_count(&c.p), over = 0;
    void *y = copy_of(&c, c.y, n);
    for (int64_t i = 0; i < n; i++)
        if (isinf(iohw_dtype_load(c.p.dtype, c.y, (size_t)i))) {
            iohw_dtype_store(c.p.dtype, y, (size_t)i,
                             copysign(max, iohw_dtype_load(c.p.dtype, c.y, (size_t)i)));
            over++;
        }
    cr_assert_gt(over, 0, "no result overflowed");
    cr_assert_lt(over, n, "every result overflowed");
    expect_named(&c, y, SATURATED);
    free(y);
}

Test(diagnose_numeric, f16_overflow_saturated_at_65504)
{
    /* products up to 255^2 = 65025, sums of up to 6 of them, others that
     * need rounding in 11 bits */
    iohw_case c;
    make("ci=2 co=2 in=6 k=3 s=2 dt=f16 fill=exact seed=7", &c);
    scaled_inputs(&c, 20, 255, 0);
    expect_saturated(c, 65504.0);
    iohw_case_free(&c);
}

Test(diagnose_numeric, f32_overflow_saturated)
{
    /* x = (1.5 * 2^127, 1.5 * 2^127, -2^100), w = (1, 1): y = (1.5 * 2^127,
     * 3 * 2^127 (beyond f32's largest finite), 1.5 * 2^127 - 2^100 (to
     * nearest: 1.5 * 2^127; truncated: one ulp, 2^104, less), -2^100). */
    iohw_case c;
    make("ci=1 co=1 in=3 k=2 dt=f32 fill=exact seed=8", &c);
    const double x[3] = {0x1.8p127, 0x1.8p127, -0x1p100};
    for (int i = 0; i < 3; i++)
        set(&c, c.x, i, x[i]);
    set(&c, c.w, 0, 1.0);
    set(&c, c.w, 1, 1.0);
    complete(&c);
    expect_saturated(c, FLT_MAX_VALUE);
    iohw_case_free(&c);
}

/* --- zero products skipped ---------------------------------------------- */

Test(diagnose_numeric, zero_x_times_an_infinite_weight_skipped)
{
    /* NCHW x [1][2][3][4], IOHW w [2][2][2][2]: input channel 0 all zero,
     * w[0][1][1][0] = +Inf.  IEEE: every output it reaches is NaN.  The
     * shortcut adds nothing for channel 0, as if that weight were 0. */
    iohw_case c;
    make("ci=2 co=2 in=3x4 k=2x2 bias=1 seed=9", &c);
    for (int64_t i = 0; i < 12; i++)
        set(&c, c.x, i, 0.0);
    set(&c, c.w, (0 * 2 + 1) * 4 + 2, INFINITY);
    complete(&c);
    void *w2 = copy_of(&c, c.w, iohw_problem_w_count(&c.p));
    set(&c, w2, (0 * 2 + 1) * 4 + 2, 0.0);
    void *y = oracle_y(&c, c.x, w2);
    expect_differs(&c, y);
    expect_named(&c, y, ZERO_X_SKIP);
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose_numeric, zero_weights_times_a_nan_input_skipped)
{
    /* The weights of input channel 1 all zero, x[0][1][2] = NaN: IEEE gives
     * NaN where it lands, the shortcut the value without it. */
    iohw_case c;
    make("ci=2 co=3 in=5 k=3 s=2 dt=f16 seed=10", &c);
    for (int64_t i = 0; i < 9; i++)
        set(&c, c.w, 9 + i, 0.0);
    set(&c, c.x, 5 + 2, NAN);
    complete(&c);
    void *x2 = copy_of(&c, c.x, iohw_problem_x_count(&c.p));
    set(&c, x2, 5 + 2, 1.0);
    void *y = oracle_y(&c, x2, c.w);
    expect_differs(&c, y);
    expect_named(&c, y, ZERO_W_SKIP);
    free(y);
    free(x2);
    iohw_case_free(&c);
}

/* Input channel 0 of x all zero under a +Inf weight, and input channel 1's
 * weights all zero under a NaN x: IEEE reaches NaN through both. */
static void both_kinds(iohw_case *c)
{
    make("ci=3 co=2 in=3x4 k=2x2 bias=1 seed=12", c);  /* channel 2 plain */
    for (int64_t i = 0; i < 12; i++)
        set(c, c->x, i, 0.0);
    set(c, c->w, (0 * 2 + 1) * 4 + 2, INFINITY);
    for (int64_t i = 0; i < 8; i++)
        set(c, c->w, 8 + i, 0.0);
    set(c, c->x, 12 + 5, NAN);
    complete(c);
}

Test(diagnose_numeric, skipping_only_zero_x_is_told_from_skipping_both)
{
    /* The x shortcut alone: the Inf weight is never met, the NaN x still
     * meets the zero weights. */
    iohw_case c;
    both_kinds(&c);
    void *w2 = copy_of(&c, c.w, iohw_problem_w_count(&c.p));
    set(&c, w2, (0 * 2 + 1) * 4 + 2, 0.0);
    void *y = oracle_y(&c, c.x, w2);
    expect_differs(&c, y);
    expect_named(&c, y, ZERO_X_SKIP);
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose_numeric, skipping_every_zero_factor_is_named_as_such)
{
    /* Both shortcuts: neither special value is met. */
    iohw_case c;
    both_kinds(&c);
    void *w2 = copy_of(&c, c.w, iohw_problem_w_count(&c.p));
    void *x2 = copy_of(&c, c.x, iohw_problem_x_count(&c.p));
    set(&c, w2, (0 * 2 + 1) * 4 + 2, 0.0);
    set(&c, x2, 12 + 5, 1.0);
    void *y = oracle_y(&c, x2, w2);
    expect_differs(&c, y);
    expect_named(&c, y, ZERO_SKIP);
    free(y);
    free(x2);
    free(w2);
    iohw_case_free(&c);
}

/* --- inputs rounded to bf16 ------------------------------------------- */

/* An f32 tensor of n elements rounded to bf16 (to nearest even, on the
 * bits), as f32. */
static void *bf16_rounded(const iohw_case *c, const void *src, int64_t n)
{
    uint32_t *d = copy_of(c, src, n);
    for (int64_t i = 0; i < n; i++)
        d[i] = (d[i] + 0x7fffu + ((d[i] >> 16) & 1u)) & 0xffff0000u;
    return d;
}

static void bf16_case(int round_x, int round_w, const char *name)
{
    iohw_case c;
    make("n=2 ci=4 co=3 in=4x5 k=3x3 bias=1 seed=11", &c);
    void *x2 = round_x ? bf16_rounded(&c, c.x, iohw_problem_x_count(&c.p)) : NULL;
    void *w2 = round_w ? bf16_rounded(&c, c.w, iohw_problem_w_count(&c.p)) : NULL;
    void *y = oracle_y(&c, x2 != NULL ? x2 : c.x, w2 != NULL ? w2 : c.w);
    expect_differs(&c, y);
    expect_named(&c, y, name);
    free(y);
    free(x2);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose_numeric, f32_weights_rounded_to_bf16)
{
    bf16_case(0, 1, "weights rounded to bf16 before an f32 reduction");
}

Test(diagnose_numeric, f32_x_rounded_to_bf16)
{
    bf16_case(1, 0, "x rounded to bf16 before an f32 reduction");
}

Test(diagnose_numeric, f32_x_and_weights_rounded_to_bf16)
{
    bf16_case(1, 1, "x and weights rounded to bf16 before an f32 reduction");
}

/* --- subnormals flushed --------------------------------------------------- */

/* An f32 case whose x are tiny: every third a subnormal (2^-140 times a
 * small integer), the others just above the smallest normal 2^-126, with
 * weights of about 1, so that results lie near 2^-126 where the subnormal
 * terms show.  A backend that flushes reads those x as 0 and writes
 * results below 2^-126 as 0. */
static void subnormal_case(iohw_case *c)
{
    make("ci=2 co=2 in=4x4 k=2x2 seed=12", c);
    int64_t nx = iohw_problem_x_count(&c->p);
    for (int64_t i = 0; i < nx; i++)
        set(c, c->x, i, ldexp((double)(1 + i % 5), i % 3 == 0 ? -140 : -125));
    complete(c);
}

static void *flushed_output(const iohw_case *c)
{
    int64_t nx = iohw_problem_x_count(&c->p), ny = iohw_problem_y_count(&c->p);
    float *x2 = copy_of(c, c->x, nx);
    for (int64_t i = 0; i < nx; i++)
        if (fabsf(x2[i]) < 0x1p-126f)
            x2[i] = 0.0f;
    float *y = oracle_y(c, x2, c->w);
    for (int64_t i = 0; i < ny; i++)
        if (fabsf(y[i]) < 0x1p-126f)
            y[i] = 0.0f;
    free(x2);
    return y;
}

Test(diagnose_numeric, subnormal_inputs_flushed_to_zero)
{
    iohw_case c;
    subnormal_case(&c);
    void *y = flushed_output(&c);
    expect_differs(&c, y);
    expect_named(&c, y, FLUSHED);
    cr_expect_eq(iohw_diagnose_flush_passes(&c, y, NULL), 1);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_numeric, subnormal_results_flushed_without_subnormal_inputs)
{
    /* x of 2^-125 to 5 * 2^-125 (normal), w scaled down by 2^-3: results
     * on both sides of 2^-126; the flushing backend writes the subnormal
     * ones as 0. */
    iohw_case c;
    make("ci=2 co=2 in=3x3 k=2x2 seed=16", &c);
    int64_t nx = iohw_problem_x_count(&c.p), nw = iohw_problem_w_count(&c.p);
    for (int64_t i = 0; i < nx; i++)
        set(&c, c.x, i, ldexp((double)(1 + i % 5), -125));
    for (int64_t i = 0; i < nw; i++)
        set(&c, c.w, i, ldexp(iohw_dtype_load(c.p.dtype, c.w, (size_t)i), -3));
    complete(&c);
    void *y = flushed_output(&c);
    expect_differs(&c, y);
    expect_named(&c, y, FLUSHED);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_numeric, an_output_holding_a_subnormal_is_not_named_as_flushed)
{
    /* A flushing backend writes no subnormal: the flushed output with one
     * element a subnormal is some other bug. */
    iohw_case c;
    char buf[256];
    subnormal_case(&c);
    float *y = flushed_output(&c);
    int64_t ny = iohw_problem_y_count(&c.p), k = 0;
    while (k < ny && y[k] != 0)
        k++;
    cr_assert_lt(k, ny, "no flushed result");
    y[k] = 0x1p-140f;
    iohw_diagnose(&c, y, buf, sizeof buf);
    cr_expect_null(strstr(buf, FLUSHED), "%s", buf);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_numeric, a_declared_flush_does_not_pass_an_unrelated_fault)
{
    iohw_case c;
    subnormal_case(&c);
    float *y = flushed_output(&c);
    y[5] = y[5] * 2 + 1;
    cr_expect_eq(iohw_diagnose_flush_passes(&c, y, NULL), 0);
    cr_expect_eq(iohw_diagnose_flush_passes(&c, c.y, NULL), 1);
    free(y);
    iohw_case_free(&c);
}

/* --- unrelated faults ----------------------------------------------------- */

/* Weight I and O exchanged (C_in = Mg, so the shapes agree): named as that,
 * never as a numeric fault. */
static void not_numeric(const char *desc)
{
    iohw_case c;
    char buf[256];
    make(desc, &c);
    const int64_t C = c.p.in_channels, K = iohw_problem_w_count(&c.p) / (C * C);
    const size_t es = iohw_dtype_size(c.p.dtype);
    unsigned char *w2 = copy_of(&c, c.w, C * C * K);
    for (int64_t i = 0; i < C; i++)
        for (int64_t o = 0; o < C; o++)
            memcpy(w2 + (size_t)((i * C + o) * K) * es,
                   (const unsigned char *)c.w + (size_t)((o * C + i) * K) * es, (size_t)K * es);
    void *y = oracle_y(&c, c.x, w2);
    expect_differs(&c, y);
    iohw_diagnose(&c, y, buf, sizeof buf);
    cr_expect_str_eq(buf, "matches the oracle with weight I and O exchanged");
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose_numeric, weights_exchanged_are_not_named_as_a_numeric_fault)
{
    not_numeric("ci=3 co=3 in=4x3 k=2x3 bias=1 dt=bf16 fill=exact seed=13");
    not_numeric("ci=3 co=3 in=4x3 k=2x3 bias=1 dt=f16 seed=14");
    not_numeric("ci=3 co=3 in=5 k=3 dt=f32 seed=15");
}
