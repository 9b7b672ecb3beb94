/*
 * tests/test_oracle_backward.c - the backward directions' oracle
 * (specification section 13) on small cases worked by hand, its
 * terms_max, double-double exactness and its argument errors.
 *
 * Every expected value is derived in the comment above it from
 *   dx[n, g*Cg + c, i] = sum_m sum_k dy[n, g*Mg + m, o] * w[g*Cg + c, m, k]
 *   dw[g*Cg + c, m, k] = sum_n sum_i x[n, g*Cg + c, i] * dy[n, g*Mg + m, o]
 *   db[co] = sum_n sum_o dy[n, co, o]
 * with o = i*S + k*D - P_begin in [0, O), and
 *   O = (L - 1)*S - P_begin - P_end + D*(K - 1) + A + 1.
 * Properties on random problems are in test_oracle_backward_props.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* A problem from its descriptor (specification section 6) with the
 * direction set afterwards. */
static iohw_problem problem(const char *text, int32_t dir)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    d.p.direction = dir;
    return d.p;
}

static void expect_values(const char *what, int dd, const double *got,
                          const double *want, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        cr_expect_eq(got[j], want[j], "dd=%d %s[%lld] = %.17g, want %.17g", dd,
                     what, (long long)j, got[j], want[j]);
}

/* dx by the definition in double and in double-double, and terms_max. */
static void check_dx(const iohw_problem *p, const double *dy, const double *w,
                     const double *dx_want, const double *eb_want, int64_t nx,
                     int64_t terms_want)
{
    double dx[64], eb[64];
    iohw_error err;
    cr_assert_eq(iohw_problem_x_count(p), nx);
    cr_assert_leq(nx, 64);
    for (int dd = 0; dd <= 1; dd++) {
        cr_assert_eq(iohw_conv_transpose_bwd_data_def(p, dy, w, dd, dx, eb, &err), 0,
                     "%s", err.msg);
        expect_values("dx", dd, dx, dx_want, nx);
        if (eb_want != NULL)
            expect_values("eb", dd, eb, eb_want, nx);
    }
    cr_expect_eq(iohw_oracle_terms_max(p), terms_want, "terms_max %lld, want %lld",
                 (long long)iohw_oracle_terms_max(p), (long long)terms_want);
}

/* dw (and db when the problem has a bias) likewise. */
static void check_dw(const iohw_problem *p, const double *x, const double *dy,
                     const double *dw_want, const double *ebw_want,
                     const double *db_want, const double *ebb_want, int64_t nw,
                     int64_t terms_want)
{
    double dw[64], ebw[64], db[8], ebb[8];
    iohw_error err;
    cr_assert_eq(iohw_problem_w_count(p), nw);
    cr_assert_leq(nw, 64);
    cr_assert_leq(p->out_channels, 8);
    for (int dd = 0; dd <= 1; dd++) {
        cr_assert_eq(iohw_conv_transpose_bwd_weights_def(p, x, dy, dd, dw, ebw, db,
                                                         ebb, &err), 0, "%s", err.msg);
        expect_values("dw", dd, dw, dw_want, nw);
        if (ebw_want != NULL)
            expect_values("ebw", dd, ebw, ebw_want, nw);
        if (p->has_bias) {
            expect_values("db", dd, db, db_want, p->out_channels);
            expect_values("ebb", dd, ebb, ebb_want, p->out_channels);
        }
    }
    cr_expect_eq(iohw_oracle_terms_max(p), terms_want, "terms_max %lld, want %lld",
                 (long long)iohw_oracle_terms_max(p), (long long)terms_want);
}

/* L=3, K=2, S=1: O=4, o = i + k.  dy = [1,-2,3,4], w = [10,100]:
 *   dx0 = dy0 w0 + dy1 w1 = 10 - 200 = -190     eb 210
 *   dx1 = dy1 w0 + dy2 w1 = -20 + 300 = 280     eb 320
 *   dx2 = dy2 w0 + dy3 w1 = 30 + 400 = 430      eb 430
 * terms_max = Mg * 2 taps per i = 2. */
Test(oracle_backward, dense_1d_data_gradient)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2", IOHW_DIR_BWD_D);
    const double dy[] = {1, -2, 3, 4}, w[] = {10, 100};
    const double dx[] = {-190, 280, 430}, eb[] = {210, 320, 430};
    check_dx(&p, dy, w, dx, eb, 3, 2);
}

/* Same problem, x = [1,-2,3]:
 *   dw0 = x0 dy0 + x1 dy1 + x2 dy2 = 1 + 4 + 9 = 14        eb 14
 *   dw1 = x0 dy1 + x1 dy2 + x2 dy3 = -2 - 6 + 12 = 4       eb 20
 *   db  = 1 - 2 + 3 + 4 = 6                                eb 10
 * terms_max: dw N * 3 inputs per tap = 3, db N * O = 4: 4. */
Test(oracle_backward, dense_1d_weight_and_bias_gradients)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2 bias=1", IOHW_DIR_BWD_W);
    const double x[] = {1, -2, 3}, dy[] = {1, -2, 3, 4};
    const double dw[] = {14, 4}, ebw[] = {14, 20}, db[] = {6}, ebb[] = {10};
    check_dw(&p, x, dy, dw, ebw, db, ebb, 2, 4);
    p.has_bias = 0;
    check_dw(&p, x, dy, dw, ebw, NULL, NULL, 2, 3);
}

/* L=3, K=3, S=2, pad 1:0, op 1: O = 4 - 1 + 2 + 1 + 1 = 7, o = 2i + k - 1.
 *   i0: k0 -> -1 (outside), k1 -> 0, k2 -> 1
 *   i1: k0 -> 1, k1 -> 2, k2 -> 3
 *   i2: k0 -> 3, k1 -> 4, k2 -> 5;  o = 6 (output_padding): no pair.
 * dy = [1..7], w = [1,10,100]:
 *   dx0 = dy0*10 + dy1*100 = 210
 *   dx1 = dy1 + dy2*10 + dy3*100 = 2 + 30 + 400 = 432
 *   dx2 = dy3 + dy4*10 + dy5*100 = 4 + 50 + 600 = 654
 * terms_max 3 (i1, i2). */
Test(oracle_backward, stride_pad_and_output_padding_data_gradient)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=3 s=2 pad=1:0 op=1", IOHW_DIR_BWD_D);
    cr_assert_eq(p.out_size[0], 7);
    const double dy[] = {1, 2, 3, 4, 5, 6, 7}, w[] = {1, 10, 100};
    const double dx[] = {210, 432, 654};
    check_dx(&p, dy, w, dx, dx, 3, 3);
}

/* Same, x = [1,2,3]:
 *   dw0 = x1 dy1 + x2 dy3 = 4 + 12 = 16           (i0 outside)
 *   dw1 = x0 dy0 + x1 dy2 + x2 dy4 = 1 + 6 + 15 = 22
 *   dw2 = x0 dy1 + x1 dy3 + x2 dy5 = 2 + 8 + 18 = 28
 *   db = 1 + ... + 7 = 28: dy6 reaches db only.
 * terms_max: dw 3, db 7: 7. */
Test(oracle_backward, stride_pad_and_output_padding_weight_gradient)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=3 s=2 pad=1:0 op=1 bias=1",
                             IOHW_DIR_BWD_W);
    const double x[] = {1, 2, 3}, dy[] = {1, 2, 3, 4, 5, 6, 7};
    const double dw[] = {16, 22, 28}, db[] = {28};
    check_dw(&p, x, dy, dw, dw, db, db, 3, 7);
}

/* L=3, K=1, pad 1:1: O = 2 - 2 + 0 + 1 = 1, o = i - 1: only i1 reaches.
 * dy = [5], w = [3]: dx = [0, 15, 0]; x = [1,2,3]: dw = x1*5 = 10.
 * terms_max: dx 1, dw 1. */
Test(oracle_backward, inputs_no_output_reaches_get_zero)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=1 pad=1:1", IOHW_DIR_BWD_D);
    const double dy[] = {5}, w[] = {3}, x[] = {1, 2, 3};
    const double dx[] = {0, 15, 0}, dw[] = {10};
    check_dx(&p, dy, w, dx, dx, 3, 1);
    p.direction = IOHW_DIR_BWD_W;
    check_dw(&p, x, dy, dw, dw, NULL, NULL, 1, 1);
}

/* Dilation: L=2, K=2, D=3: O = 1 + 3 + 1 = 5, o = i + 3k; o2 unreached.
 * dy = [1..5], w = [10,100]: dx0 = dy0*10 + dy3*100 = 410,
 * dx1 = dy1*10 + dy4*100 = 520.  x = [1,2]: dw0 = 1*1 + 2*2 = 5,
 * dw1 = 1*4 + 2*5 = 14.  terms_max 2 both. */
Test(oracle_backward, dilation)
{
    iohw_problem p = problem("ci=1 co=1 in=2 k=2 d=3", IOHW_DIR_BWD_D);
    const double dy[] = {1, 2, 3, 4, 5}, w[] = {10, 100}, x[] = {1, 2};
    const double dx[] = {410, 520}, dw[] = {5, 14};
    check_dx(&p, dy, w, dx, dx, 2, 2);
    p.direction = IOHW_DIR_BWD_W;
    check_dw(&p, x, dy, dw, dw, NULL, NULL, 2, 2);
}

/* Groups 2: C_in=2, C_out=4, Cg=1, Mg=2, L=2, K=1: o = i.
 * w[ci][m] = [[1,2],[3,4]]; dy[co] = [1,2],[3,4],[5,6],[7,8].
 *   dx[ci0] = dy[co0]*1 + dy[co1]*2 = [1+6, 2+8] = [7, 10]
 *   dx[ci1] = dy[co2]*3 + dy[co3]*4 = [15+28, 18+32] = [43, 50]
 * x[ci0] = [1,-1], x[ci1] = [2,0.5]:
 *   dw[0][0] = 1*1 - 1*2 = -1 (eb 3)   dw[0][1] = 3 - 4 = -1 (eb 7)
 *   dw[1][0] = 10 + 3 = 13             dw[1][1] = 14 + 4 = 18
 * terms_max: dx Mg*1 = 2, dw N*2 = 2. */
Test(oracle_backward, groups_pair_channels_within_a_group)
{
    iohw_problem p = problem("ci=2 co=4 g=2 in=2 k=1", IOHW_DIR_BWD_D);
    const double w[] = {1, 2, 3, 4}, dy[] = {1, 2, 3, 4, 5, 6, 7, 8};
    const double x[] = {1, -1, 2, 0.5};
    const double dx[] = {7, 10, 43, 50};
    const double dw[] = {-1, -1, 13, 18}, ebw[] = {3, 7, 13, 18};
    check_dx(&p, dy, w, dx, dx, 4, 2);
    p.direction = IOHW_DIR_BWD_W;
    check_dw(&p, x, dy, dw, ebw, NULL, NULL, 4, 2);
}

/* 2-d, L=2x2, K=2x2, S=2: O=4x4, o = 2i + k per axis (each o one pair).
 * dy[oh][ow] = 10 oh + ow, w = [[1,2],[3,4]] (sum 10):
 *   dx[ih][iw] = sum_k w[k] (20 ih + 2 iw + 10 kh + kw)
 *              = 10 (20 ih + 2 iw) + (0 + 2 + 30 + 44) = 76 + 200 ih + 20 iw
 * x = [[1,2],[3,4]] (sum 10):
 *   dw[kh][kw] = sum_i x[i] (20 ih + 2 iw) + 10 (10 kh + kw)
 *              = (0 + 4 + 60 + 88) + 100 kh + 10 kw = 152 + 100 kh + 10 kw
 * terms_max: dx 2*2 = 4, dw 2*2 = 4. */
Test(oracle_backward, stride_2_in_2d)
{
    iohw_problem p = problem("ci=1 co=1 in=2x2 k=2x2 s=2", IOHW_DIR_BWD_D);
    double dy[16];
    for (int o = 0; o < 16; o++)
        dy[o] = 10 * (o / 4) + o % 4;
    const double w[] = {1, 2, 3, 4}, x[] = {1, 2, 3, 4};
    const double dx[] = {76, 96, 276, 296}, dw[] = {152, 162, 252, 262};
    check_dx(&p, dy, w, dx, dx, 4, 4);
    p.direction = IOHW_DIR_BWD_W;
    check_dw(&p, x, dy, dw, dw, NULL, NULL, 4, 4);
}

/* terms_max by hand:
 *  - in=5 k=3 s=2, Mg=3, N=3: O = 11, every tap of every i inside:
 *    dx 3*3 = 9; dw 3*5 = 15; with bias db 3*11 = 33.
 *  - in=4 k=3 pad=2:2: O = 2, o = i + k - 2: i0 {k2}, i1 {k1,k2},
 *    i2 {k0,k1}, i3 {k0}: dx 2; k0 {i2,i3}, k1 {i1,i2}, k2 {i0,i1}: dw 2.
 *  - 2-d in=4x5 k=3x2 pad=2:2x0 d=1x3 n=2 co=2: W axis O = 4 + 3 + 1 = 8,
 *    o = i + 3k, every pair inside: dx 2*(2*2) = 8; dw 2*(2*5) = 20. */
Test(oracle_backward, terms_max_by_hand)
{
    const struct {
        const char *desc;
        int32_t dir;
        int64_t want;
    } rows[] = {
        {"n=3 ci=2 co=6 g=2 in=5 k=3 s=2", IOHW_DIR_BWD_D, 9},
        {"n=3 ci=2 co=6 g=2 in=5 k=3 s=2", IOHW_DIR_BWD_W, 15},
        {"n=3 ci=2 co=6 g=2 in=5 k=3 s=2 bias=1", IOHW_DIR_BWD_W, 33},
        {"n=3 ci=2 co=6 g=2 in=5 k=3 s=2", IOHW_DIR_FWD, 2},
        {"ci=1 co=1 in=4 k=3 pad=2:2", IOHW_DIR_BWD_D, 2},
        {"ci=1 co=1 in=4 k=3 pad=2:2", IOHW_DIR_BWD_W, 2},
        {"n=2 ci=1 co=2 in=4x5 k=3x2 pad=2:2x0 d=1x3", IOHW_DIR_BWD_D, 8},
        {"n=2 ci=1 co=2 in=4x5 k=3x2 pad=2:2x0 d=1x3", IOHW_DIR_BWD_W, 20},
    };
    for (size_t j = 0; j < sizeof rows / sizeof rows[0]; j++) {
        iohw_problem p = problem(rows[j].desc, rows[j].dir);
        int64_t t = -2;
        iohw_error err;
        cr_assert_eq(iohw_oracle_terms(&p, &t, &err), 0, "%s", err.msg);
        cr_expect_eq(t, rows[j].want, "'%s' dir %d: terms_max %lld, want %lld",
                     rows[j].desc, (int)rows[j].dir, (long long)t,
                     (long long)rows[j].want);
    }
}

/* dx0 = dy0 w0 + dy1 w1 + dy2 w2 with dy = [2^53, 1, -2^53], w = 1: plain
 * double loses the 1 (2^53 + 1 rounds to 2^53), double-double keeps it;
 * eb = 2^53 + 1 + 2^53 = 2^54 + 1, rounded once to 2^54. */
Test(oracle_backward, double_double_keeps_a_term_double_absorbs)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=3 dt=f64", IOHW_DIR_BWD_D);
    const double big = 9007199254740992.0; /* 2^53 */
    const double dy[] = {big, 1, -big}, w[] = {1, 1, 1};
    double dx[1], eb[1];
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 0, dx, eb, NULL), 0);
    cr_expect_eq(dx[0], 0.0);
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 1, dx, eb, NULL), 0);
    cr_expect_eq(dx[0], 1.0);
    cr_expect_eq(eb[0], 2 * big, "eb %.17g", eb[0]);
}

/* dx0 = (1 + 2^-30)(1 - 2^-30) - 1 = -2^-60: the product is no double;
 * double-double splits it exactly (the oracle's f64 path), plain double
 * rounds it to 1 and gets 0.  dw0 = x0 dy0 with the same numbers, through
 * the oracle in f64: dw1 = (1 + 2^-30) * -1. */
Test(oracle_backward, double_double_forms_products_exactly)
{
    const double a = ldexp(1.0, -30);
    iohw_problem p = problem("ci=1 co=1 in=1 k=2 dt=f64", IOHW_DIR_BWD_D);
    const double dy[] = {1 + a, -1}, w[] = {1 - a, 1};
    double dx[1], eb[1];
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 0, dx, eb, NULL), 0);
    cr_expect_eq(dx[0], 0.0);

    iohw_oracle_inputs in = {.dy = dy, .w = w};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), 0,
                 "%s", err.msg);
    cr_expect_eq(r.y_f64[0], -ldexp(1.0, -60), "dx0 %.17g", r.y_f64[0]);
    cr_expect_eq(((const double *)r.y)[0], -ldexp(1.0, -60));
    cr_expect_eq(r.terms_max, 2);
    iohw_oracle_result_free(&r);
}

/* f32: the terms are summed in double and rounded once.  dy = [2^24, 1,
 * -2^24] (f32 values), w = 1: dx = 1 (a float sum would give 0), eb =
 * 2^25 + 1.  Then dy = [1, 2^-30, 2^-30]: dx = 1 + 2^-29 in double,
 * rounded to 1 in f32. */
Test(oracle_backward, f32_sums_in_double_and_rounds_once)
{
    iohw_problem p = problem("ci=1 co=1 in=1 k=3", IOHW_DIR_BWD_D);
    const float dy[] = {16777216.0f, 1.0f, -16777216.0f}, w[] = {1, 1, 1};
    iohw_oracle_inputs in = {.dy = dy, .w = w};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_DEFINITION, 1, &r, &err),
                 0, "%s", err.msg);
    cr_expect_eq(((const float *)r.y)[0], 1.0f);
    cr_expect_eq(r.err_bound[0], 33554433.0);
    iohw_oracle_result_free(&r);

    const float dy2[] = {1.0f, 0x1p-30f, 0x1p-30f};
    in.dy = dy2;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), 0,
                 "%s", err.msg);
    cr_expect_eq(r.y_f64[0], 1 + ldexp(1.0, -29));
    cr_expect_eq(((const float *)r.y)[0], 1.0f);
    iohw_oracle_result_free(&r);
}

/* BWD_WB through the oracle: dw in the weight layout, db right after.
 * The dense_1d case: dw = [14, 4], db = [6]; terms_max 4. */
Test(oracle_backward, weights_with_bias_put_db_after_dw)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2 bias=1", IOHW_DIR_BWD_W);
    cr_assert_eq(iohw_problem_out_count(&p), 3);
    const float x[] = {1, -2, 3}, dy[] = {1, -2, 3, 4};
    iohw_oracle_inputs in = {.x = x, .dy = dy};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 2, &r, &err), 0,
                 "%s", err.msg);
    const float want[] = {14, 4, 6};
    const double eb[] = {14, 20, 10};
    for (int j = 0; j < 3; j++) {
        cr_expect_eq(((const float *)r.y)[j], want[j], "out[%d]", j);
        cr_expect_eq(r.y_f64[j], want[j], "out_f64[%d]", j);
        cr_expect_eq(r.err_bound[j], eb[j], "err_bound[%d]", j);
    }
    cr_expect_eq(r.terms_max, 4);
    iohw_oracle_result_free(&r);
}

/* A forward problem goes to iohw_oracle_run_method: the hand case of
 * tests/test_oracle_hand.c, y = [10, 80, -170, 300]. */
Test(oracle_backward, forward_problems_run_the_forward_oracle)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2", IOHW_DIR_FWD);
    const float x[] = {1, -2, 3}, w[] = {10, 100};
    iohw_oracle_inputs in = {.x = x, .w = w};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), 0,
                 "%s", err.msg);
    const float y[] = {10, 80, -170, 300};
    for (int j = 0; j < 4; j++)
        cr_expect_eq(((const float *)r.y)[j], y[j], "y[%d]", j);
    cr_expect_eq(r.terms_max, 2);
    iohw_oracle_result_free(&r);
}

static void expect_error(int rc, const iohw_error *err, const char *needle)
{
    cr_expect_eq(rc, -1);
    cr_expect(strstr(err->msg, needle) != NULL, "message '%s' lacks '%s'", err->msg,
              needle);
}

Test(oracle_backward, bad_arguments_are_named)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2", IOHW_DIR_BWD_D);
    const float v[8] = {0};
    double d[8] = {0}, e[8], dw[8], ew[8];
    iohw_oracle_inputs in = {.w = v};
    iohw_oracle_result r;
    iohw_error err;
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, NULL, &err), &err,
                 "result r is NULL");
    expect_error(iohw_oracle_run_inputs(NULL, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "problem p is NULL");
    expect_error(iohw_oracle_run_inputs(&p, NULL, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "inputs in is NULL");
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "BWD_D: dy is NULL");
    cr_expect_null(r.y);
    in = (iohw_oracle_inputs){.dy = v};
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "BWD_D: w is NULL");
    expect_error(iohw_oracle_run_inputs(&p, &in, (iohw_oracle_method)7, 1, &r, &err),
                 &err, "method 7");
    p.direction = IOHW_DIR_BWD_W;
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "BWD_W: x is NULL");
    in = (iohw_oracle_inputs){.x = v};
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "BWD_W: dy is NULL");
    p.direction = IOHW_DIR_BWD_D;
    p.has_bias = 1;
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "BWD_D with has_bias = 1");
    p.has_bias = 0;
    p.direction = 5;
    expect_error(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), &err,
                 "direction = 5");
    p.direction = IOHW_DIR_BWD_D;
    expect_error(iohw_conv_transpose_bwd_data_def(NULL, d, d, 0, d, e, &err), &err,
                 "conv_transpose_bwd_data_def: problem p is NULL");
    expect_error(iohw_conv_transpose_bwd_data_def(&p, NULL, d, 0, d, e, &err), &err,
                 "bwd_data_def: dy is NULL");
    expect_error(iohw_conv_transpose_bwd_data_def(&p, d, NULL, 0, d, e, &err), &err,
                 "bwd_data_def: w is NULL");
    expect_error(iohw_conv_transpose_bwd_data_def(&p, d, d, 2, d, e, &err), &err,
                 "dd is 2, must be 0 or 1");
    expect_error(iohw_conv_transpose_bwd_data_def(&p, d, d, 0, NULL, e, &err), &err,
                 "dx is NULL");
    expect_error(iohw_conv_transpose_bwd_data_def(&p, d, d, 0, d, NULL, &err), &err,
                 "eb is NULL");
    p.direction = IOHW_DIR_BWD_W;
    p.has_bias = 1;
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, NULL, d, 0, dw, ew, d, e, &err),
                 &err, "bwd_weights_def: x is NULL");
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, NULL, 0, dw, ew, d, e, &err),
                 &err, "bwd_weights_def: dy is NULL");
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, d, 0, NULL, ew, d, e, &err),
                 &err, "dw is NULL");
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, d, 0, dw, NULL, d, e, &err),
                 &err, "ebw is NULL");
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, d, 0, dw, ew, NULL, e, &err),
                 &err, "db is NULL but the problem has a bias");
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, d, 0, dw, ew, d, NULL, &err),
                 &err, "ebb is NULL but the problem has a bias");
    p.in_channels = 0;
    expect_error(iohw_conv_transpose_bwd_weights_def(&p, d, d, 0, dw, ew, d, e, &err),
                 &err, "conv_transpose_bwd_weights_def: problem p");
    int64_t t;
    expect_error(iohw_oracle_terms(&p, &t, &err), &err, "terms_max: problem");
    cr_expect_eq(iohw_oracle_terms_max(&p), -1);
}
