/*
 * tests/test_oracle_quant.c - the quantized oracle (specification section
 * 11) on small cases worked by hand, and its argument errors.
 *
 * Every expected value is derived in the comment above it from
 *   acc = bias_q + sum (x_q - zp_x) * (w_q - zp_w)
 *   y_q = saturate(zp_y + R(M[oc] * acc), qmin, qmax),  oc = g*Mg + m.
 * Most cases are ci=1 co=1 k=1 in=L, where o = i and acc = (x - zp_x) * w'.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

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

static const float ONE[1] = {1.0f};

/* Per-tensor parameters: s8 x, w, y, zero points 0, M = s_w (s_x = s_y = 1)
 * in the scales form. */
static iohw_quant plain(int32_t rounding, const float *s_w)
{
    iohw_quant q;
    memset(&q, 0, sizeof q);
    q.x_dtype = q.w_dtype = q.y_dtype = IOHW_S8;
    q.rounding = rounding;
    q.m_form = IOHW_QM_SCALES;
    q.s_x = q.s_y = 1.0f;
    q.s_w = s_w;
    return q;
}

/* The same with the fixed form: M = mult * 2^(sh - 31). */
static iohw_quant fixed(int32_t rounding, const int32_t *mult, const int32_t *sh)
{
    iohw_quant q = plain(rounding, NULL);
    q.m_form = IOHW_QM_FIXED;
    q.multiplier = mult;
    q.shift = sh;
    return q;
}

/* Runs the oracle; y holds n values of q's y dtype, compared as int64. */
static void check(const char *desc, const iohw_quant *q, const void *x,
                  const void *w, const int32_t *bias, const int64_t *want,
                  int64_t n)
{
    iohw_problem p = problem(desc);
    union { int8_t s8[64]; uint8_t u8[64]; int32_t s32[64]; } y;
    iohw_error err;
    cr_assert_leq(n, 64);
    cr_assert_eq(iohw_problem_y_count(&p), n);
    cr_assert_eq(iohw_quant_conv_transpose(&p, q, x, w, bias, &y, &err), 0,
                 "%s: %s", desc, err.msg);
    for (int64_t i = 0; i < n; i++) {
        const int64_t got = q->y_dtype == IOHW_S8 ? y.s8[i]
                            : q->y_dtype == IOHW_U8 ? y.u8[i] : y.s32[i];
        cr_expect_eq(got, want[i], "%s rounding %d: y[%lld] = %lld, want %lld",
                     desc, (int)q->rounding, (long long)i, (long long)got,
                     (long long)want[i]);
    }
}

/* M = 0.5, w = 1, acc = x = [1, -1, 3, -3, 2, -2, 0]:
 *   v = [0.5, -0.5, 1.5, -1.5, 1, -1, 0]
 *   half_even [0, 0, 2, -2, 1, -1, 0]   (ties to the even neighbour)
 *   half_away [1, -1, 2, -2, 1, -1, 0]
 *   half_up   [1, 0, 2, -1, 1, -1, 0]   (ties toward +inf)
 * The fixed form q = 2^30, sh = 0 is the same M and gives the same. */
static const int8_t TIE_X[7] = {1, -1, 3, -3, 2, -2, 0};
static const int8_t W_ONE[1] = {1};
#define TIE_DESC "ci=1 co=1 in=7 k=1"

Test(oracle_quant, ties_round_as_each_single_mode_says)
{
    const float half[1] = {0.5f};
    const int32_t mult[1] = {1 << 30}, sh[1] = {0};
    const int32_t modes[3] = {IOHW_ROUND_HALF_EVEN, IOHW_ROUND_HALF_AWAY,
                              IOHW_ROUND_HALF_UP};
    const int64_t want[3][7] = {{0, 0, 2, -2, 1, -1, 0},
                                {1, -1, 2, -2, 1, -1, 0},
                                {1, 0, 2, -1, 1, -1, 0}};
    for (int j = 0; j < 3; j++) {
        iohw_quant q = plain(modes[j], half);
        check(TIE_DESC, &q, TIE_X, W_ONE, NULL, want[j], 7);
        q = fixed(modes[j], mult, sh);
        check(TIE_DESC, &q, TIE_X, W_ONE, NULL, want[j], 7);
    }
}

/* zp_y is added after R: M = 0.5, x = [1, -1, 3], zp_y = 1, half_even:
 *   1 + R([0.5, -0.5, 1.5]) = 1 + [0, 0, 2] = [1, 1, 3]
 * (rounding zp_y + v instead gives rint([1.5, 0.5, 2.5]) = [2, 0, 2]). */
Test(oracle_quant, the_output_zero_point_is_added_after_rounding)
{
    const int8_t x[3] = {1, -1, 3};
    const float half[1] = {0.5f};
    const int64_t want[3] = {1, 1, 3};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, half);
    q.zp_y = 1;
    check("ci=1 co=1 in=3 k=1", &q, x, W_ONE, NULL, want, 3);
}

/* gemmlowp with sh = 0 (no second rounding): h = trunc((a*2^30 + nudge) /
 * 2^31), nudge 2^30 for a >= 0, 1 - 2^30 below: a = -1 gives
 * trunc((1 - 2^31) / 2^31) = 0, a = -3 gives trunc((1 - 2^32)/2^31) = -1:
 * ties toward +inf, [1, 0, 2, -1, 1, -1, 0]. */
Test(oracle_quant, gemmlowp_high_mul_rounds_ties_toward_plus_infinity)
{
    const int32_t mult[1] = {1 << 30}, sh[1] = {0};
    const int64_t want[7] = {1, 0, 2, -1, 1, -1, 0};
    iohw_quant q = fixed(IOHW_ROUND_GEMMLOWP, mult, sh);
    check(TIE_DESC, &q, TIE_X, W_ONE, NULL, want, 7);
}

/* q = 2^30, sh = -1: M = 0.25, acc = x = [5, 6, -6, 2, -2]:
 *   v = [1.25, 1.5, -1.5, 0.5, -0.5]
 *   gemmlowp: h = round_up(x/2) = [3, 3, -3, 1, -1], then h/2 with ties
 *     away (threshold 0 for h >= 0, 1 below): [2, 2, -2, 1, -1]
 *   half_even [1, 2, -2, 0, 0]; half_away [1, 2, -2, 1, -1];
 *   half_up [1, 2, -1, 1, 0].
 * 1.25 -> 2 is the double rounding no single rounding does. */
Test(oracle_quant, gemmlowp_rounds_twice)
{
    const int8_t x[5] = {5, 6, -6, 2, -2};
    const int32_t mult[1] = {1 << 30}, sh[1] = {-1};
    const int32_t modes[4] = {IOHW_ROUND_GEMMLOWP, IOHW_ROUND_HALF_EVEN,
                              IOHW_ROUND_HALF_AWAY, IOHW_ROUND_HALF_UP};
    const int64_t want[4][5] = {{2, 2, -2, 1, -1}, {1, 2, -2, 0, 0},
                                {1, 2, -2, 1, -1}, {1, 2, -1, 1, 0}};
    for (int j = 0; j < 4; j++) {
        iohw_quant q = fixed(modes[j], mult, sh);
        check("ci=1 co=1 in=5 k=1", &q, x, W_ONE, NULL, want[j], 5);
    }
}

/* M = 1, x s8 = [-128, 127, 0, 1], w u8 = [255], zp 0:
 *   acc = [-32640, 32385, 0, 255]
 *   y s8: [-128, 127, 0, 127]; y u8: [0, 255, 0, 255]. */
Test(oracle_quant, results_saturate_at_both_ends)
{
    const int8_t x[4] = {-128, 127, 0, 1};
    const uint8_t w[1] = {255};
    const int64_t want_s8[4] = {-128, 127, 0, 127}, want_u8[4] = {0, 255, 0, 255};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, ONE);
    q.w_dtype = IOHW_U8;
    check("ci=1 co=1 in=4 k=1", &q, x, w, NULL, want_s8, 4);
    q.y_dtype = IOHW_U8;
    check("ci=1 co=1 in=4 k=1", &q, x, w, NULL, want_u8, 4);
}

/* x u8 = [0, 255, 200], zp_x = 255: x' = [-255, 0, -55]; w s8 = [127],
 * zp_w = -128: w' = 255; acc = [-65025, 0, -14025]; M = 2^-8:
 *   v = [-254.00390625, 0, -54.78515625], R = [-254, 0, -55];
 *   y u8, zp_y = 255: [1, 255, 200]. */
Test(oracle_quant, zero_points_at_the_unsigned_top_and_signed_bottom)
{
    const uint8_t x[3] = {0, 255, 200};
    const int8_t w[1] = {127};
    const float s_w[1] = {1.0f / 256};
    const int64_t want[3] = {1, 255, 200};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, s_w);
    q.x_dtype = q.y_dtype = IOHW_U8;
    q.zp_x = 255;
    q.zp_w = -128;
    q.zp_y = 255;
    check("ci=1 co=1 in=3 k=1", &q, x, w, NULL, want, 3);
}

/* x s8 = [-128, 127, 0], zp_x = -128: x' = [0, 255, 128]; w u8 = [0],
 * zp_w = 255: w' = -255; acc = [0, -65025, -32640]; M = 2^-8:
 *   v = [0, -254.00390625, -127.5 (a tie)], half_even R = [0, -254, -128];
 *   y s8, zp_y = 127: [127, -127, -1]. */
Test(oracle_quant, zero_points_at_the_signed_bottom_and_unsigned_top)
{
    const int8_t x[3] = {-128, 127, 0};
    const uint8_t w[1] = {0};
    const float s_w[1] = {1.0f / 256};
    const int64_t want[3] = {127, -127, -1};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, s_w);
    q.w_dtype = IOHW_U8;
    q.zp_x = -128;
    q.zp_w = 255;
    q.zp_y = 127;
    check("ci=1 co=1 in=3 k=1", &q, x, w, NULL, want, 3);
}

/* s32 y, no requantization: bias INT32_MAX + 1*1 and INT32_MIN + 1*(-1)
 * saturate; ci=1 co=2 in=1 k=1, x = [1], w[0][m] = [1, -1],
 * bias = [INT32_MAX, INT32_MIN]: acc = [2^31, -2^31 - 1]. */
Test(oracle_quant, an_s32_output_is_the_accumulator_saturated)
{
    const int8_t x[1] = {1}, w[2] = {1, -1};
    const int32_t bias[2] = {INT32_MAX, INT32_MIN};
    const int64_t want[2] = {INT32_MAX, INT32_MIN};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, ONE);
    q.y_dtype = IOHW_S32;
    check("ci=1 co=2 in=1 k=1 bias=1", &q, x, w, bias, want, 2);
}

/* ci=2 co=4 g=2 in=1 k=1: Cg = 1, Mg = 2, oc = 2g + m reads x[g];
 * x = [10, 20], w = 1, bias = [1, 2, 3, 4]: acc = [11, 12, 23, 24].
 * Per-channel M along O = [1, 1/2, 1/4, 1/8] (s_w, s_x = s_y = 1):
 *   v = [11, 6, 5.75, 3] -> [11, 6, 6, 3].
 * Along I (M of the term's input channel g: [1, 1/2] for g = 0, 1) it
 * would be [11, 12, 11.5, 12] -> [11, 12, 12, 12]: a different answer.
 * The fixed form q = 2^30, sh = [1, 0, -1, -2] is the same M. */
Test(oracle_quant, per_channel_scales_run_along_o_with_groups)
{
    const int8_t x[2] = {10, 20}, w[4] = {1, 1, 1, 1};
    const int32_t bias[4] = {1, 2, 3, 4};
    const float s_w[4] = {1.0f, 0.5f, 0.25f, 0.125f};
    const int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
    const int32_t sh[4] = {1, 0, -1, -2};
    const int64_t want[4] = {11, 6, 6, 3};
    const char *desc = "ci=2 co=4 g=2 in=1 k=1 bias=1";
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, s_w);
    q.per_channel = 1;
    check(desc, &q, x, w, bias, want, 4);
    q = fixed(IOHW_ROUND_HALF_EVEN, mult, sh);
    q.per_channel = 1;
    check(desc, &q, x, w, bias, want, 4);
}

/* A non-dyadic M: s_x = 1, s_w = 1, s_y = 3, acc = x = [3, 4, 5, -5, 7]:
 * v = [1, 4/3, 5/3, -5/3, 7/3] -> [1, 1, 2, -2, 2] in every mode (no tie).
 * M = 1/3 is no binary32 value: only the exact quotient gives this. */
Test(oracle_quant, a_scale_quotient_is_rounded_exactly)
{
    const int8_t x[5] = {3, 4, 5, -5, 7};
    const int64_t want[5] = {1, 1, 2, -2, 2};
    iohw_quant q = plain(IOHW_ROUND_HALF_UP, ONE);
    q.s_y = 3.0f;
    check("ci=1 co=1 in=5 k=1", &q, x, W_ONE, NULL, want, 5);
}

/* Scales at the ends of binary32: s_x = 2^100, s_w = 2^20, s_y = 2^-100
 * make M = 2^220 (every nonzero acc saturates, zero stays zp_y); the
 * inverses make M = 2^-220 (|v| < 2^-200: R = 0, even for acc < 0 in
 * half_up).  x = [3, -3, 0], zp_y = 5, s8. */
Test(oracle_quant, extreme_scales_saturate_or_round_to_zero)
{
    const int8_t x[3] = {3, -3, 0};
    const float big[1] = {0x1p20f}, small[1] = {0x1p-20f};
    const int64_t want_big[3] = {127, -128, 5}, want_small[3] = {5, 5, 5};
    iohw_quant q = plain(IOHW_ROUND_HALF_UP, big);
    q.zp_y = 5;
    q.s_x = 0x1p100f;
    q.s_y = 0x1p-100f;
    check("ci=1 co=1 in=3 k=1", &q, x, W_ONE, NULL, want_big, 3);
    q.s_w = small;
    q.s_x = 0x1p-100f;
    q.s_y = 0x1p100f;
    check("ci=1 co=1 in=3 k=1", &q, x, W_ONE, NULL, want_small, 3);
}

/* The terms of section 1: L=3, K=2, o = i + k, x = [1, -2, 3],
 * w = [10, 100] (zp 0), M = 1/64, half_even:
 *   acc = [10, 80, -170, 300], v = [0.15625, 1.25, -2.65625, 4.6875]
 *   R = [0, 1, -3, 5]. */
Test(oracle_quant, overlapping_taps_sum_before_one_rounding)
{
    const int8_t x[3] = {1, -2, 3}, w[2] = {10, 100};
    const float s_w[1] = {1.0f / 64};
    const int64_t want[4] = {0, 1, -3, 5};
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, s_w);
    check("ci=1 co=1 in=3 k=2", &q, x, w, NULL, want, 4);
}

/* One wrong member per row; the message must name it. */
typedef struct bad_quant {
    const char *name;
    void (*spoil)(iohw_quant *q);
    const char *want;
} bad_quant;

static const float BAD_SCALE[1] = {0.0f};
static const int32_t BAD_MULT[1] = {-1}, BAD_SHIFT[1] = {31}, ZERO[1] = {0};

static void x_dtype_s32(iohw_quant *q) { q->x_dtype = IOHW_S32; }
static void w_dtype_9(iohw_quant *q) { q->w_dtype = 9; }
static void y_dtype_0(iohw_quant *q) { q->y_dtype = 0; }
static void zp_x_128(iohw_quant *q) { q->zp_x = 128; }
static void zp_w_u8_neg(iohw_quant *q) { q->w_dtype = IOHW_U8; q->zp_w = -1; }
static void zp_y_s32(iohw_quant *q) { q->y_dtype = IOHW_S32; q->zp_y = 1; }
static void rounding_5(iohw_quant *q) { q->rounding = 5; }
static void m_form_0(iohw_quant *q) { q->m_form = 0; }
static void gemmlowp_scales(iohw_quant *q) { q->rounding = IOHW_ROUND_GEMMLOWP; }
static void per_channel_2(iohw_quant *q) { q->per_channel = 2; }
static void s_x_nan(iohw_quant *q) { q->s_x = __builtin_nanf(""); }
static void s_y_subnormal(iohw_quant *q) { q->s_y = 1e-45f; }
static void s_w_zero(iohw_quant *q) { q->s_w = BAD_SCALE; }
static void s_w_null(iohw_quant *q) { q->s_w = NULL; }
static void mult_negative(iohw_quant *q)
{
    q->m_form = IOHW_QM_FIXED;
    q->multiplier = BAD_MULT;
    q->shift = ZERO;
}
static void shift_31(iohw_quant *q)
{
    q->m_form = IOHW_QM_FIXED;
    q->multiplier = ZERO;
    q->shift = BAD_SHIFT;
}
static void shift_null(iohw_quant *q)
{
    q->m_form = IOHW_QM_FIXED;
    q->multiplier = ZERO;
}

static const bad_quant BAD[] = {
    {"x_dtype s32", x_dtype_s32, "x_dtype = 7"},
    {"w_dtype 9", w_dtype_9, "w_dtype = 9"},
    {"y_dtype 0", y_dtype_0, "y_dtype = 0"},
    {"zp_x 128 for s8", zp_x_128, "zp_x = 128 is outside its dtype's range [-128, 127]"},
    {"zp_w -1 for u8", zp_w_u8_neg, "zp_w = -1 is outside its dtype's range [0, 255]"},
    {"zp_y 1 for s32", zp_y_s32, "zp_y = 1, must be 0 for an s32 y"},
    {"rounding 5", rounding_5, "rounding = 5"},
    {"m_form 0", m_form_0, "m_form = 0"},
    {"gemmlowp with scales", gemmlowp_scales, "gemmlowp rounding needs the fixed form"},
    {"per_channel 2", per_channel_2, "per_channel = 2"},
    {"s_x NaN", s_x_nan, "s_x[0] = nan must be a positive normal"},
    {"s_y subnormal", s_y_subnormal, "s_y[0]"},
    {"s_w zero", s_w_zero, "s_w[0] = 0 must be a positive normal"},
    {"s_w NULL", s_w_null, "s_w is NULL"},
    {"multiplier -1", mult_negative, "multiplier[0] = -1 is negative"},
    {"shift 31", shift_31, "shift[0] = 31 is outside [-31, 30]"},
    {"shift NULL", shift_null, "shift is NULL"},
};

Test(oracle_quant, each_bad_parameter_is_named)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=1");
    const int8_t x[1] = {1}, w[1] = {1};
    int8_t y[1];
    for (size_t j = 0; j < sizeof BAD / sizeof BAD[0]; j++) {
        iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, ONE);
        iohw_error err = {{0}};
        BAD[j].spoil(&q);
        cr_expect_eq(iohw_quant_conv_transpose(&p, &q, x, w, NULL, y, &err), -1,
                     "%s accepted", BAD[j].name);
        cr_expect(strstr(err.msg, BAD[j].want) != NULL, "%s: '%s' lacks '%s'",
                  BAD[j].name, err.msg, BAD[j].want);
    }
}

Test(oracle_quant, missing_tensors_and_a_bad_problem_are_named)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=1 bias=1");
    const int8_t x[1] = {1}, w[1] = {1};
    const int32_t b[1] = {0};
    int8_t y[1];
    iohw_quant q = plain(IOHW_ROUND_HALF_EVEN, ONE);
    iohw_error err;
    const struct { const void *x, *w; const int32_t *b; void *y; const char *want; } rows[] = {
        {NULL, w, b, y, "x_q is NULL"},
        {x, NULL, b, y, "w_q is NULL"},
        {x, w, NULL, y, "bias_q is NULL but the problem has a bias"},
        {x, w, b, NULL, "y_q is NULL"},
    };
    for (size_t j = 0; j < sizeof rows / sizeof rows[0]; j++) {
        cr_expect_eq(iohw_quant_conv_transpose(&p, &q, rows[j].x, rows[j].w,
                                               rows[j].b, rows[j].y, &err), -1);
        cr_expect(strstr(err.msg, rows[j].want) != NULL, "'%s' lacks '%s'",
                  err.msg, rows[j].want);
    }
    cr_expect_eq(iohw_quant_conv_transpose(NULL, &q, x, w, b, y, &err), -1);
    cr_expect(strstr(err.msg, "problem p is NULL") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_quant_conv_transpose(&p, NULL, x, w, b, y, &err), -1);
    cr_expect(strstr(err.msg, "parameters q are NULL") != NULL, "%s", err.msg);
    p.groups = 0;
    cr_expect_eq(iohw_quant_conv_transpose(&p, &q, x, w, b, y, &err), -1);
    cr_expect(strstr(err.msg, "quant_conv_transpose: problem p") != NULL, "%s", err.msg);
}

/* gemmlowp takes acc as an int32 shifted left by max(sh, 0): x = 127,
 * w = 127, sh = 30 gives 16129 * 2^30, outside int32: the case is invalid. */
Test(oracle_quant, a_gemmlowp_accumulator_leaving_int32_is_an_error)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=1");
    const int8_t x[1] = {127}, w[1] = {127};
    const int32_t mult[1] = {1 << 30}, sh[1] = {30};
    int8_t y[1];
    iohw_error err;
    iohw_quant q = fixed(IOHW_ROUND_GEMMLOWP, mult, sh);
    cr_assert_eq(iohw_quant_conv_transpose(&p, &q, x, w, NULL, y, &err), -1);
    cr_expect(strstr(err.msg, "16129 * 2^30 leaves int32") != NULL, "%s", err.msg);
    q.rounding = IOHW_ROUND_HALF_UP; /* the single rounding saturates */
    cr_assert_eq(iohw_quant_conv_transpose(&p, &q, x, w, NULL, y, &err), 0, "%s", err.msg);
    cr_expect_eq(y[0], 127);
}
