/*
 * tests/test_oracle_hand.c - the oracle on small cases worked by hand.
 *
 * Every expected value is derived in the comment above it from
 *   y[n, g*Mg + m, o] = bias[g*Mg + m]
 *       + sum_{c < Cg} sum_{(i,k): i*S + k*D - P_begin = o} x[..] * w[..]
 * and the output size O = (L - 1)*S - P_begin - P_end + D*(K - 1) + A + 1.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* A problem from its descriptor (specification section 6): layouts
 * NC+spatial / IO+spatial and f32 unless the text says otherwise. */
static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

/* Runs the core in double and checks y, eb (when eb_want is not NULL) and
 * terms_max against hand values. */
static void check_core(const iohw_problem *p, const double *x,
                       const double *w, const double *bias,
                       const double *y_want, const double *eb_want,
                       int64_t ny, int64_t terms_want)
{
    double y[64], eb[64];
    iohw_error err;
    cr_assert_leq(ny, 64);
    cr_assert_eq(iohw_problem_y_count(p), ny);
    for (int dd = 0; dd <= 1; dd++) {
        cr_assert_eq(iohw_conv_transpose_ref(p, x, w, bias, dd, 1, y, eb, &err),
                     0, "%s", err.msg);
        for (int64_t i = 0; i < ny; i++) {
            cr_expect_eq(y[i], y_want[i], "dd=%d y[%lld] = %g, want %g", dd,
                         (long long)i, y[i], y_want[i]);
            if (eb_want != NULL)
                cr_expect_eq(eb[i], eb_want[i], "dd=%d eb[%lld] = %g, want %g",
                             dd, (long long)i, eb[i], eb_want[i]);
        }
    }
    cr_expect_eq(iohw_oracle_terms_max(p), terms_want, "terms_max %lld, want %lld",
                 (long long)iohw_oracle_terms_max(p), (long long)terms_want);
}

/* L=3, K=2, S=1, O = 2 + 1 + 1 = 4, o = i + k, x = [1,-2,3], w = [10,100]:
 *   y0 = x0 w0 = 10                       eb0 = 10
 *   y1 = x1 w0 + x0 w1 = -20 + 100 = 80    eb1 = 20 + 100 = 120
 *   y2 = x2 w0 + x1 w1 = 30 - 200 = -170   eb2 = 30 + 200 = 230
 *   y3 = x2 w1 = 300                      eb3 = 300
 * terms_max = 2 (o = 1 and o = 2). */
Test(oracle_hand, a_dense_1d_case_sums_overlapping_taps)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2");
    const double x[] = {1, -2, 3}, w[] = {10, 100};
    const double y[] = {10, 80, -170, 300}, eb[] = {10, 120, 230, 300};
    check_core(&p, x, w, NULL, y, eb, 4, 2);
}

/* Stride larger than the kernel: L=3, K=2, S=3, bias 5.
 * O = 2*3 + 1 + 1 = 8, o = 3i + k: i0 -> 0,1; i1 -> 3,4; i2 -> 6,7.
 * o = 2 and o = 5 are reached by no (i, k): they hold only the bias.
 * x = [1,2,3], w = [10,100]:
 *   y = [5+10, 5+100, 5, 5+20, 5+200, 5, 5+30, 5+300]
 * terms_max = 1. */
Test(oracle_hand, positions_no_tap_reaches_hold_only_the_bias)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2 s=3 bias=1");
    const double x[] = {1, 2, 3}, w[] = {10, 100}, b[] = {5};
    const double y[] = {15, 105, 5, 25, 205, 5, 35, 305};
    check_core(&p, x, w, b, y, y, 8, 1);
}

/* Dilation 2: L=3, K=3, S=1, D=2.  O = 2 + 2*2 + 1 = 7, o = i + 2k.
 * x = [1,2,3], w = [1,10,100]:
 *   o0: i0k0 = 1          o1: i1k0 = 2
 *   o2: i2k0 + i0k1 = 3 + 10 = 13
 *   o3: i1k1 = 20
 *   o4: i2k1 + i0k2 = 30 + 100 = 130
 *   o5: i1k2 = 200        o6: i2k2 = 300
 * terms_max = 2.  (An effective kernel k + d - 1 = 4 would give O = 6.) */
Test(oracle_hand, dilation_spreads_the_taps)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=3 d=2");
    const double x[] = {1, 2, 3}, w[] = {1, 10, 100};
    const double y[] = {1, 2, 13, 20, 130, 200, 300};
    check_core(&p, x, w, NULL, y, y, 7, 2);
}

/* Asymmetric pads crop the output at the named end.
 * L=3, K=2, S=2: the uncropped output has 2*2 + 1 + 1 = 6 positions,
 * u = 2i + k: [x0w0, x0w1, x1w0, x1w1, x2w0, x2w1] = [10,100,20,200,30,300].
 * pad_begin=1, pad_end=0 drops u=0:  y = [100, 20, 200, 30, 300].
 * pad_begin=0, pad_end=1 drops u=5:  y = [10, 100, 20, 200, 30].
 * terms_max = 1 in both. */
static const double pad_x[] = {1, 2, 3}, pad_w[] = {10, 100};

Test(oracle_hand, pad_begin_crops_the_first_positions)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2 s=2 pad=1:0");
    const double y[] = {100, 20, 200, 30, 300};
    check_core(&p, pad_x, pad_w, NULL, y, y, 5, 1);
}

Test(oracle_hand, pad_end_crops_the_last_positions)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2 s=2 pad=0:1");
    const double y[] = {10, 100, 20, 200, 30};
    check_core(&p, pad_x, pad_w, NULL, y, y, 5, 1);
}

/* output_padding with pad_end = 0: L=2, K=2, S=2, A=1, bias 7.
 * O = 2 + 1 + 1 + 1 = 5; o = 2i + k reaches 0..3 only, so o = 4 (the
 * output_padding position) holds only the bias.  x = [1,2], w = [10,100]:
 *   y = [7+10, 7+100, 7+20, 7+200, 7]. */
Test(oracle_hand, output_padding_without_pad_end_adds_bias_only_positions)
{
    iohw_problem p = problem("ci=1 co=1 in=2 k=2 s=2 op=1 bias=1");
    const double x[] = {1, 2}, w[] = {10, 100}, b[] = {7};
    const double y[] = {17, 107, 27, 207, 7};
    check_core(&p, x, w, b, y, y, 5, 1);
}

/* output_padding with pad_end > 0: L=2, K=3, S=2, pad_end=2, A=1.
 * O = 2 - 0 - 2 + 2 + 1 + 1 = 4 (3 without A).  o = 2i + k:
 *   i0 -> o 0,1,2; i1 -> o 2,3,(4 cropped).  x = [1,2], w = [1,10,100]:
 *   y0 = x0w0 = 1, y1 = x0w1 = 10, y2 = x0w2 + x1w0 = 100 + 2 = 102,
 *   y3 = x1w1 = 20   <- the output_padding position holds a real value.
 * terms_max = 2. */
Test(oracle_hand, output_padding_with_pad_end_exposes_real_values)
{
    iohw_problem p = problem("ci=1 co=1 in=2 k=3 s=2 pad=0:2 op=1");
    const double x[] = {1, 2}, w[] = {1, 10, 100};
    const double y[] = {1, 10, 102, 20};
    check_core(&p, x, w, NULL, y, y, 4, 2);
}

/* Groups: C_in=2, C_out=4, G=2, so Cg=1, Mg=2; L=2, K=1.
 * w[C_in][Mg] = [[1,2],[3,4]], x[0] = [1,10], x[1] = [100,1000],
 * bias = [0.5,-1,2,0]:
 *   y[0] = 0.5 + x[0]*w[0][0] = [1.5, 10.5]       eb [1.5, 10.5]
 *   y[1] = -1 + x[0]*w[0][1] = [1, 19]            eb [3, 21]
 *   y[2] = 2 + x[1]*w[1][0] = [302, 3002]         eb [302, 3002]
 *   y[3] = 0 + x[1]*w[1][1] = [400, 4000]         eb [400, 4000]
 * terms_max = Cg * 1 = 1. */
Test(oracle_hand, groups_take_blocked_channels_and_per_channel_bias)
{
    iohw_problem p = problem("ci=2 co=4 g=2 in=2 k=1 bias=1");
    const double x[] = {1, 10, 100, 1000}, w[] = {1, 2, 3, 4};
    const double b[] = {0.5, -1, 2, 0};
    const double y[] = {1.5, 10.5, 1, 19, 302, 3002, 400, 4000};
    const double eb[] = {1.5, 10.5, 3, 21, 302, 3002, 400, 4000};
    check_core(&p, x, w, b, y, eb, 8, 1);
}

/* Groups with Cg=2: C_in=4, C_out=2, G=2, Mg=1; L=1, K=1.
 * x = [1,2,3,4], w[C_in][1] = [10,100,1000,10000]:
 *   y[0] = x0 w0 + x1 w1 = 10 + 200 = 210
 *   y[1] = x2 w2 + x3 w3 = 3000 + 40000 = 43000
 * (interleaved groups would give x0w0 + x2w2 = 3010).  terms_max = 2. */
Test(oracle_hand, a_group_sums_its_own_input_channels)
{
    iohw_problem p = problem("ci=4 co=2 g=2 in=1 k=1");
    const double x[] = {1, 2, 3, 4}, w[] = {10, 100, 1000, 10000};
    const double y[] = {210, 43000};
    check_core(&p, x, w, NULL, y, y, 2, 2);
}

/* 2-d, 2x2 input, 2x2 kernel, stride 1: O = 3x3, (oh, ow) = (ih+kh, iw+kw).
 * x = [[1,2],[3,4]], w = [[1,10],[100,1000]]:
 *   y00 = x00w00 = 1
 *   y01 = x01w00 + x00w01 = 2 + 10 = 12
 *   y02 = x01w01 = 20
 *   y10 = x10w00 + x00w10 = 3 + 100 = 103
 *   y11 = x11w00 + x10w01 + x01w10 + x00w11 = 4 + 30 + 200 + 1000 = 1234
 *   y12 = x11w01 + x01w11 = 40 + 2000 = 2040
 *   y20 = x10w10 = 300
 *   y21 = x11w10 + x10w11 = 400 + 3000 = 3400
 *   y22 = x11w11 = 4000
 * terms_max = 2 * 2 = 4. */
Test(oracle_hand, a_dense_2d_case_matches_the_hand_sum)
{
    iohw_problem p = problem("ci=1 co=1 in=2x2 k=2x2");
    const double x[] = {1, 2, 3, 4}, w[] = {1, 10, 100, 1000};
    const double y[] = {1, 12, 20, 103, 1234, 2040, 300, 3400, 4000};
    check_core(&p, x, w, NULL, y, y, 9, 4);
}

/* 2-d with stride (2,1): O = (2+1+1, 1+1+1) = 4x3, oh = 2ih + kh (no
 * overlap along H), ow = iw + kw.  Same x and w:
 *   oh0 (ih0,kh0): [x00w00, x01w00+x00w01, x01w01] = [1, 12, 20]
 *   oh1 (ih0,kh1): [x00w10, x01w10+x00w11, x01w11] = [100, 1200, 2000]
 *   oh2 (ih1,kh0): [x10w00, x11w00+x10w01, x11w01] = [3, 34, 40]
 *   oh3 (ih1,kh1): [x10w10, x11w10+x10w11, x11w11] = [300, 3400, 4000]
 * terms_max = 1 * 2 = 2. */
Test(oracle_hand, a_2d_case_with_different_strides_per_axis)
{
    iohw_problem p = problem("ci=1 co=1 in=2x2 k=2x2 s=2x1");
    const double x[] = {1, 2, 3, 4}, w[] = {1, 10, 100, 1000};
    const double y[] = {1, 12, 20, 100, 1200, 2000, 3, 34, 40, 300, 3400, 4000};
    check_core(&p, x, w, NULL, y, y, 12, 2);
}

/* The 2-d stride-1 case above through iohw_oracle_run in f32, with the
 * data in NHWC (same memory for one channel) and bias -0.5: every value is
 * exact in f32, so y must equal the hand values minus 0.5 bit for bit, and
 * err_bound = hand values + 0.5; terms_max = 4. */
Test(oracle_hand, f32_run_is_exact_on_representable_values)
{
    iohw_problem p = problem("ci=1 co=1 in=2x2 k=2x2");
    p.has_bias = 1;
    strcpy(p.data_layout, "NHWC");
    const float x[] = {1, 2, 3, 4}, w[] = {1, 10, 100, 1000}, b[] = {-0.5f};
    const float y[] = {0.5f, 11.5f, 19.5f, 102.5f, 1233.5f, 2039.5f, 299.5f,
                       3399.5f, 3999.5f};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run(&p, x, w, b, 1, &r, &err), 0, "%s", err.msg);
    const float *yr = r.y;
    for (int i = 0; i < 9; i++) {
        cr_expect_eq(yr[i], y[i], "y[%d] = %.9g, want %.9g", i, yr[i], y[i]);
        cr_expect_eq(r.y_f64[i], (double)y[i]);
        cr_expect_eq(r.err_bound[i], (double)y[i] + 1.0);
    }
    cr_expect_eq(r.terms_max, 4);
    iohw_oracle_result_free(&r);
}

/* An f32 value that is not a double sum of f32 partial sums: 2^24 + 1 + 1.
 * C_in=3, K=1, L=1: y = x0w0 + x1w1 + x2w2 = 2^24 + 1 + 1 = 2^24 + 2, which
 * is representable in f32; float accumulation would give 2^24 (each +1 is
 * a tie that rounds back to even).  The oracle sums in double. */
Test(oracle_hand, f32_products_are_summed_in_double)
{
    iohw_problem p = problem("ci=3 co=1 in=1 k=1");
    const float x[] = {16777216.0f, 1.0f, 1.0f}, w[] = {1.0f, 1.0f, 1.0f};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run(&p, x, w, NULL, 1, &r, &err), 0, "%s", err.msg);
    cr_expect_eq(((const float *)r.y)[0], 16777218.0f);
    cr_expect_eq(r.y_f64[0], 16777218.0);
    cr_expect_eq(r.terms_max, 3);
    iohw_oracle_result_free(&r);
}

/* y is rounded once, straight from the double.  C_in=3, K=L=1:
 * y_f64 = x0 w0 + x1 w1 + x2 w2.
 * f16: x = [1, 2^-11, 2^-20], w = [1, 1, 2^-20] (2^-20 is an f16
 *   subnormal): y_f64 = 1 + 2^-11 + 2^-40, just above the tie between 1
 *   and 1 + 2^-10, so y = 1 + 2^-10.
 * bf16: x = [1, 2^-8, 2^-40], w = [1, 1, 1]: y_f64 = 1 + 2^-8 + 2^-40,
 *   just above the tie between 1 and 1 + 2^-7, so y = 1 + 2^-7.
 * Rounding through float first would drop the 2^-40, leave an exact tie and
 * give the even 1 in both. */
static void expect_rounded_once(iohw_dtype dt, const double xs[3], const double ws[3],
                                double want)
{
    const char *name = iohw_dtype_name(dt);
    iohw_problem p = problem("ci=3 co=1 in=1 k=1");
    uint16_t x[3], w[3];
    p.dtype = dt;
    for (int i = 0; i < 3; i++) {
        iohw_dtype_store(dt, x, (size_t)i, xs[i]);
        iohw_dtype_store(dt, w, (size_t)i, ws[i]);
        cr_assert_eq(iohw_dtype_load(dt, x, (size_t)i), xs[i], "%s: x[%d]", name, i);
        cr_assert_eq(iohw_dtype_load(dt, w, (size_t)i), ws[i], "%s: w[%d]", name, i);
    }
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run(&p, x, w, NULL, 1, &r, &err), 0, "%s: %s", name, err.msg);
    cr_expect_eq(r.y_f64[0], 1.0 + xs[1] + 0x1p-40, "%s: y_f64 = %a", name, r.y_f64[0]);
    cr_expect_eq(iohw_dtype_load(dt, r.y, 0), want, "%s: y = %a", name,
                 iohw_dtype_load(dt, r.y, 0));
    iohw_oracle_result_free(&r);
}

Test(oracle_hand, an_f16_y_is_rounded_once_from_the_double)
{
    const double x[3] = {1.0, 0x1p-11, 0x1p-20}, w[3] = {1.0, 1.0, 0x1p-20};
    expect_rounded_once(IOHW_F16, x, w, 1.0 + 0x1p-10);
}

Test(oracle_hand, a_bf16_y_is_rounded_once_from_the_double)
{
    const double x[3] = {1.0, 0x1p-8, 0x1p-40}, w[3] = {1.0, 1.0, 1.0};
    expect_rounded_once(IOHW_BF16, x, w, 1.0 + 0x1p-7);
}

/* When every tap is cropped away (L=1, K=1, pad_begin=1, A=1: O = 1 and
 * o = i + k - 1 = -1 is out of range) no product is summed: terms_max = 0
 * and y = bias. */
Test(oracle_hand, a_fully_cropped_case_has_zero_terms)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=1 pad=1:0 op=1 bias=1");
    const double x[] = {3}, w[] = {4}, b[] = {-2};
    const double y[] = {-2}, eb[] = {2};
    check_core(&p, x, w, b, y, eb, 1, 0);
}

/* terms_max on long axes, counted without visiting every (o, k) pair. */

/* L=1000, K=1000, S=1: o = i + k, and o = 999 is reached by all 1000 taps
 * (i = 999 - k), so terms_max = 1000. */
Test(oracle_hand, terms_max_counts_every_tap_of_a_long_dense_axis)
{
    iohw_problem p = problem("ci=1 co=1 in=1000 k=1000");
    cr_expect_eq(iohw_oracle_terms_max(&p), 1000);
}

/* L=3, K=2^20: o = i + k, at most L = 3 taps reach any o, so terms_max = 3
 * (times Cg = 2 with 2 channels). */
Test(oracle_hand, terms_max_is_bounded_by_the_input_length_under_a_huge_kernel)
{
    iohw_problem p = problem("ci=2 co=1 in=3 k=1048576");
    cr_expect_eq(iohw_oracle_terms_max(&p), 6);
}

/* L=4, K=5, S=2, D=3: o = 2i + 3k, so 3k = o - 2i is one of o, o-2, o-4,
 * o-6; those are o, o+1, o+2, o (mod 3), so at most two (o and o-6) are
 * multiples of 3: at most 2 taps, reached at o = 6 by (i,k) = (0,2), (3,0). */
Test(oracle_hand, terms_max_counts_only_the_taps_stride_and_dilation_let_meet)
{
    iohw_problem p = problem("ci=1 co=1 in=4 k=5 s=2 d=3");
    cr_expect_eq(iohw_oracle_terms_max(&p), 2);
}

/* NaN and infinities propagate as in IEEE summation, in both modes:
 * C_in=3, K=1, L=1 with x = [inf, 1, 2] -> inf; x = [inf, -inf, 1] -> NaN.
 * The bound of either is +inf. */
static void sum_both_modes(const double x[3], int dd, double *y, double *eb)
{
    iohw_problem p = problem("ci=3 co=1 in=1 k=1");
    const double w[] = {1, 1, 1};
    iohw_error err;
    cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, NULL, dd, 1, y, eb, &err), 0,
                 "dd=%d: %s", dd, err.msg);
}

Test(oracle_hand, an_infinity_propagates_through_the_sum)
{
    const double x[] = {INFINITY, 1, 2};
    for (int dd = 0; dd <= 1; dd++) {
        double y, eb;
        sum_both_modes(x, dd, &y, &eb);
        cr_expect(isinf(y) && y > 0, "dd=%d: y = %g", dd, y);
        cr_expect(isinf(eb) && eb > 0, "dd=%d: eb = %g", dd, eb);
    }
}

Test(oracle_hand, opposite_infinities_sum_to_nan)
{
    const double x[] = {INFINITY, -INFINITY, 1};
    for (int dd = 0; dd <= 1; dd++) {
        double y, eb;
        sum_both_modes(x, dd, &y, &eb);
        cr_expect(isnan(y), "dd=%d: y = %g", dd, y);
        cr_expect(isinf(eb) && eb > 0, "dd=%d: eb = %g", dd, eb);
    }
}

/* Error exits: each bad argument is refused with a message naming it.  The
 * arguments are those of a valid problem (L=2, K=2, bias) except the one
 * the scenario breaks; the invalid problem has 3 groups that do not divide
 * 1 channel. */
typedef enum broken_arg {
    NO_PROBLEM, INVALID_PROBLEM, NO_X, NO_W, NO_BIAS, BAD_DD, NO_Y, NO_EB, NO_RESULT
} broken_arg;

/* Parameters are copied into the test's process: arrays, not pointers. */
typedef struct bad_call {
    char name[40];      /* the scenario, named in every failure */
    broken_arg broken;
    char why[16];       /* part of the message; "": not checked */
} bad_call;

typedef struct call_args {
    iohw_problem p;
    const iohw_problem *pp;
    const double *x, *w, *b;
    int dd;
    double *y, *eb;
} call_args;

static void break_args(broken_arg broken, call_args *a, double y[3], double eb[3])
{
    static const double x[2] = {1, 2}, w[2] = {3, 4}, b[1] = {5};
    a->p = problem("ci=1 co=1 in=2 k=2 bias=1");
    if (broken == INVALID_PROBLEM)
        a->p.groups = 3;
    a->pp = broken == NO_PROBLEM ? NULL : &a->p;
    a->x = broken == NO_X ? NULL : x;
    a->w = broken == NO_W ? NULL : w;
    a->b = broken == NO_BIAS ? NULL : b;
    a->dd = broken == BAD_DD ? 2 : 0;
    a->y = broken == NO_Y ? NULL : y;
    a->eb = broken == NO_EB ? NULL : eb;
}

static bad_call core_calls[] = {
    {"no problem", NO_PROBLEM, "problem"},
    {"an invalid problem", INVALID_PROBLEM, "problem"},
    {"no x", NO_X, "x is NULL"},
    {"no w", NO_W, "w is NULL"},
    {"no bias though the problem has one", NO_BIAS, "bias"},
    {"dd = 2", BAD_DD, "dd"},
    {"no y", NO_Y, "y is NULL"},
    {"no eb", NO_EB, "eb is NULL"},
};

ParameterizedTestParameters(oracle_hand, the_core_refuses_a_bad_argument_naming_it)
{
    return cr_make_param_array(bad_call, core_calls, sizeof core_calls / sizeof core_calls[0]);
}

ParameterizedTest(bad_call *c, oracle_hand, the_core_refuses_a_bad_argument_naming_it)
{
    call_args a;
    double y[3], eb[3];
    iohw_error err;
    err.msg[0] = '\0';
    break_args(c->broken, &a, y, eb);
    cr_expect_eq(iohw_conv_transpose_ref(a.pp, a.x, a.w, a.b, a.dd, 1, a.y, a.eb, &err), -1,
                 "%s: accepted", c->name);
    cr_expect(strstr(err.msg, c->why) != NULL, "%s: message '%s' lacks '%s'", c->name,
              err.msg, c->why);
}

Test(oracle_hand, terms_max_of_an_invalid_problem_is_minus_1)
{
    iohw_problem bad = problem("ci=1 co=1 in=2 k=2 bias=1");
    bad.groups = 3;
    cr_expect_eq(iohw_oracle_terms_max(&bad), -1);
}

/* iohw_oracle_run: the same checks in f32, without a bias, and r is left
 * zeroed. */
static bad_call run_calls[] = {
    {"an invalid problem", INVALID_PROBLEM, ""},
    {"no x", NO_X, "x is NULL"},
    {"no w", NO_W, "w is NULL"},
    {"no bias though the problem has one", NO_BIAS, "bias"},
    {"no result", NO_RESULT, "r is NULL"},
};

ParameterizedTestParameters(oracle_hand, a_run_refuses_a_bad_argument_naming_it)
{
    return cr_make_param_array(bad_call, run_calls, sizeof run_calls / sizeof run_calls[0]);
}

ParameterizedTest(bad_call *c, oracle_hand, a_run_refuses_a_bad_argument_naming_it)
{
    static const float xf[2] = {1, 2}, wf[2] = {3, 4};
    iohw_problem p = problem("ci=1 co=1 in=2 k=2 bias=1");
    if (c->broken == INVALID_PROBLEM)
        p.groups = 3;
    iohw_oracle_result r;
    memset(&r, 0xff, sizeof r);
    iohw_error err;
    err.msg[0] = '\0';
    cr_expect_eq(iohw_oracle_run(&p, c->broken == NO_X ? NULL : xf,
                                 c->broken == NO_W ? NULL : wf, NULL, 1,
                                 c->broken == NO_RESULT ? NULL : &r, &err), -1,
                 "%s: accepted", c->name);
    if (c->why[0] != '\0')
        cr_expect(strstr(err.msg, c->why) != NULL, "%s: message '%s' lacks '%s'", c->name,
                  err.msg, c->why);
    if (c->broken != NO_RESULT)
        cr_expect(r.y == NULL && r.y_f64 == NULL && r.err_bound == NULL,
                  "%s: r is not zeroed", c->name);
}

Test(oracle_hand, freeing_a_null_result_does_nothing)
{
    iohw_oracle_result_free(NULL);
}
