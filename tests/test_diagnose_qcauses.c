/*
 * tests/test_diagnose_qcauses.c - the further quantized misreadings
 * (judge/diagnose_qcauses.c, specification section 11.5) on cases small
 * enough to work out by hand: the zero-insertion form padded with 0, pairs
 * of products saturated to int16, M indexed within the group, the narrow
 * clamp, the clamp before zp_y.  The expected values are computed in the
 * comments, not by the code under test.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "judge/diagnose_qcauses.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

static iohw_quant quant(int32_t xt, int32_t wt, int32_t yt, int32_t zx, int32_t zw, int32_t zy,
                        const float *s_w, int per_channel)
{
    iohw_quant q = {xt, wt, yt, zx, zw, zy, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES,
                    per_channel, 1.0f, 1.0f, s_w, NULL, NULL};
    return q;
}

Test(diagnose_qcauses, zero_insertion_padded_with_0_adds_minus_zp_x_times_the_missing_taps)
{
    /* L = 2, K = 2, S = 2: O = 4, each output has one real tap and one
     * that falls on an inserted zero or the border.  x = {10, 20},
     * zp_x = 4; w = {3, 5}, zp_w = 1 (w - zp_w = {2, 4}).
     *   o0: 6*2 + (0-4)*4 = -4     o1: (0-4)*2 + 6*4 = 16
     *   o2: 16*2 + (0-4)*4 = 16    o3: (0-4)*2 + 16*4 = 56 */
    iohw_problem p = problem("ci=1 co=1 in=2 k=2 s=2");
    const float one = 1.0f;
    iohw_quant q = quant(IOHW_U8, IOHW_S8, IOHW_S32, 4, 1, 0, &one, 0);
    const uint8_t x[2] = {10, 20}, w[2] = {3, 5};
    const iohw__dgq_canon c = {&p, &q, x, w, NULL, 4, 4};
    int64_t acc[4];
    cr_assert_eq(iohw__dgq_pad_zero_acc(&c, acc), 0);
    const int64_t want[4] = {-4, 16, 16, 56};
    for (int i = 0; i < 4; i++)
        cr_expect_eq(acc[i], want[i], "o%d: %lld, want %lld", i, (long long)acc[i],
                     (long long)want[i]);
    /* with zp_x = 0 the inserted zeros are the definition's: 10*2, 10*4,
     * 20*2, 20*4, and a bias of 7 is added once */
    const int32_t bias = 7;
    const iohw__dgq_canon cb = {&p, &q, x, w, &bias, 4, 4};
    q.zp_x = 0;
    cr_assert_eq(iohw__dgq_pad_zero_acc(&cb, acc), 0);
    cr_expect(acc[0] == 27 && acc[1] == 47 && acc[2] == 47 && acc[3] == 87);
}

Test(diagnose_qcauses, pairs_of_products_saturate_to_int16)
{
    /* two input channels, one tap, one output: u8 x = {200, 200}, s8 w =
     * {100, 100}: 20000 + 20000 = 40000 -> 32767 */
    iohw_problem p = problem("ci=2 co=1 in=1 k=1");
    const float one = 1.0f;
    iohw_quant q = quant(IOHW_U8, IOHW_S8, IOHW_S32, 0, 0, 0, &one, 0);
    const uint8_t x[2] = {200, 200}, w[2] = {100, 100};
    const iohw__dgq_canon c = {&p, &q, x, w, NULL, 1, 1};
    int64_t acc;
    cr_assert_eq(iohw__dgq_sat16_acc(&c, &acc), 0);
    cr_expect_eq(acc, 32767);
    /* zp_x = 50: the definition's 150*100*2 = 30000; the raw pair is still
     * 40000, so 7233 is lost: 22767 */
    q.zp_x = 50;
    cr_assert_eq(iohw__dgq_sat16_acc(&c, &acc), 0);
    cr_expect_eq(acc, 22767);
    /* s8 x = {100, 100} taken as u8 228, w = {-100, -100}: raw pair
     * -45600 -> -32768 (+12832); the definition's -20000 -> -7168 */
    const uint8_t xs[2] = {100, 100}, ws[2] = {(uint8_t)-100, (uint8_t)-100};
    iohw_quant qs = quant(IOHW_S8, IOHW_S8, IOHW_S32, 0, 0, 0, &one, 0);
    const iohw__dgq_canon cs = {&p, &qs, xs, ws, NULL, 1, 1};
    cr_assert_eq(iohw__dgq_sat16_acc(&cs, &acc), 0);
    cr_expect_eq(acc, -7168);
    /* small values never saturate: 3*4 + 5*6 = 42 */
    const uint8_t x2[2] = {3, 5}, w2[2] = {4, 6};
    const iohw__dgq_canon c2 = {&p, &q, x2, w2, NULL, 1, 1};
    q.zp_x = 0;
    cr_assert_eq(iohw__dgq_sat16_acc(&c2, &acc), 0);
    cr_expect_eq(acc, 42);
}

Test(diagnose_qcauses, per_channel_m_within_the_group)
{
    /* G = 2, Mg = 2: output channel 3 is m = 1 of group 1 and takes
     * M[1] = 1/4: 10/4 = 2.5 -> 2 (half_even), where M[3] = 2 gives 20 */
    iohw_problem p = problem("ci=2 co=4 g=2 in=1 k=1");
    const float s_w[4] = {0.5f, 0.25f, 1.0f, 2.0f};
    iohw_quant q = quant(IOHW_U8, IOHW_S8, IOHW_S8, 0, 0, 0, s_w, 1);
    const iohw__dgq_canon c = {&p, &q, NULL, NULL, NULL, 4, 1};
    int64_t out;
    cr_assert_eq(iohw__dgq_pc_group_finish(&c, 3, 10, &out), 0);
    cr_expect_eq(out, 2);
    cr_assert_eq(iohw__dgq_pc_group_finish(&c, 2, 10, &out), 0); /* M[0] = 1/2 */
    cr_expect_eq(out, 5);
}

Test(diagnose_qcauses, narrow_clamp_and_clamp_before_zp_y)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=1");
    const float one = 1.0f;
    iohw_quant q = quant(IOHW_U8, IOHW_S8, IOHW_S8, 0, 0, 0, &one, 0);
    const iohw__dgq_canon c = {&p, &q, NULL, NULL, NULL, 1, 1};
    int64_t out;
    cr_assert_eq(iohw__dgq_narrow_clamp_finish(&c, 0, -200, &out), 0);
    cr_expect_eq(out, -127);
    cr_assert_eq(iohw__dgq_narrow_clamp_finish(&c, 0, 300, &out), 0);
    cr_expect_eq(out, 127);
    q.y_dtype = IOHW_U8;
    cr_assert_eq(iohw__dgq_narrow_clamp_finish(&c, 0, -5, &out), 0);
    cr_expect_eq(out, 1);
    /* u8, zp_y = 100: R = -30 clamped to 0 first, then 100 (the definition:
     * 70); R = 200 gives 300, saturated to 255; R = 20 gives 120 */
    q.zp_y = 100;
    cr_assert_eq(iohw__dgq_clamp_first_finish(&c, 0, -30, &out), 0);
    cr_expect_eq(out, 100);
    cr_assert_eq(iohw__dgq_clamp_first_finish(&c, 0, 200, &out), 0);
    cr_expect_eq(out, 255);
    cr_assert_eq(iohw__dgq_clamp_first_finish(&c, 0, 20, &out), 0);
    cr_expect_eq(out, 120);
}

Test(diagnose_qcauses, x_read_with_the_other_signedness)
{
    /* one tap: u8 x = 200 read as int8 -56, zp_x = 10, w - zp_w = 3:
     * (-56 - 10) * 3 = -198 (the definition: 190 * 3 = 570); an s8 x of
     * -56 read as uint8 200 gives 570 */
    iohw_problem p = problem("ci=1 co=1 in=1 k=1");
    const float one = 1.0f;
    iohw_quant q = quant(IOHW_U8, IOHW_S8, IOHW_S32, 10, 2, 0, &one, 0);
    const uint8_t x[1] = {200}, w[1] = {5};
    const iohw__dgq_canon c = {&p, &q, x, w, NULL, 1, 1};
    int64_t acc;
    cr_assert_eq(iohw__dgq_x_sign_acc(&c, &acc), 0);
    cr_expect_eq(acc, -198);
    q.x_dtype = IOHW_S8;
    cr_assert_eq(iohw__dgq_x_sign_acc(&c, &acc), 0);
    cr_expect_eq(acc, 570);
}
