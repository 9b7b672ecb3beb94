/*
 * tests/test_oracle_backward.c - the backward definitions (specification
 * section 13) on cases worked by hand, and their adjoint identities with
 * the forward definition on random problems.
 *
 * Hand cases use o = i*S + k*D - P_begin, and
 *   dx[i] = sum_{m, k: o in [0, O)} dy[o] * w[c][m][k],
 *   dw[k] = sum_{n, i: o in [0, O)} x[i] * dy[o],   db = sum dy.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

static iohw_problem problem(const char *text, int32_t dir)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    d.p.direction = dir;
    cr_assert_eq(iohw_problem_validate(&d.p, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

/* L=3, K=2, S=2, op=1: O = (3-1)*2 + 1*(2-1) + 1 + 1 = 7 and o = 2i + k:
 * i=0 -> o 0,1; i=1 -> o 2,3; i=2 -> o 4,5; o = 6 is the output_padding
 * position no (i, k) reaches.  dy = [1, 2, 3, 4, 5, 6, 100], w = [10, 1]:
 *   dx0 = dy0*10 + dy1*1 = 12, dx1 = dy2*10 + dy3 = 34,
 *   dx2 = dy4*10 + dy5 = 56   (dy6 = 100 reaches no dx). */
Test(oracle_backward, data_1d_stride_output_padding)
{
    iohw_problem p = problem("n=1 ci=1 co=1 in=3 k=2 s=2 op=1", IOHW_DIR_BWD_D);
    cr_assert_eq(p.out_size[0], 7);
    const double dy[7] = {1, 2, 3, 4, 5, 6, 100}, w[2] = {10, 1};
    double dx[3], eb[3];
    iohw_error err;
    for (int dd = 0; dd <= 1; dd++) {
        cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, dd, dx, eb, &err),
                     0, "%s", err.msg);
        cr_expect_eq(dx[0], 12.0);
        cr_expect_eq(dx[1], 34.0);
        cr_expect_eq(dx[2], 56.0);
        cr_expect_eq(eb[2], 56.0);
    }
    cr_expect_eq(iohw_oracle_terms_max(&p), 2);
}

/* The same shape for the weights, two batch items, with bias:
 * x[n=0] = [1, 2, 3], x[n=1] = [-1, 0, 1]; dy[n=0] = [1..7] as above
 * with dy6 = 100, dy[n=1] = [1, 0, 0, 0, 0, 0, 1]:
 *   dw[k=0] = sum_n sum_i x[i] dy[2i]   = (1*1 + 2*3 + 3*5) + (-1*1) = 21
 *   dw[k=1] = sum_n sum_i x[i] dy[2i+1] = (1*2 + 2*4 + 3*6) + 0 = 28
 *   db = (1+2+3+4+5+6+100) + (1+1) = 123; its bound the same (all >= 0).
 * terms: dw 2 batch * 3 positions = 6; db 2 * 7 = 14 -> 14. */
Test(oracle_backward, weights_1d_batch_bias)
{
    iohw_problem p = problem("n=2 ci=1 co=1 in=3 k=2 s=2 op=1 bias=1",
                             IOHW_DIR_BWD_W);
    const double x[6] = {1, 2, 3, -1, 0, 1};
    const double dy[14] = {1, 2, 3, 4, 5, 6, 100, 1, 0, 0, 0, 0, 0, 1};
    double dw[2], ebw[2], db[1], ebb[1];
    iohw_error err;
    for (int dd = 0; dd <= 1; dd++) {
        cr_assert_eq(iohw_conv_transpose_bwd_weights_def(&p, x, dy, dd, dw, ebw,
                                                         db, ebb, &err), 0, "%s", err.msg);
        cr_expect_eq(dw[0], 21.0);
        cr_expect_eq(dw[1], 28.0);
        cr_expect_eq(ebw[0], 23.0); /* 1 + 6 + 15 + 1 */
        cr_expect_eq(db[0], 123.0);
        cr_expect_eq(ebb[0], 123.0);
    }
    cr_expect_eq(iohw_oracle_terms_max(&p), 14);
    p.has_bias = 0;
    cr_expect_eq(iohw_oracle_terms_max(&p), 6);
}

/* Groups: ci=2 co=2 g=2, k=1, in=1: each channel only meets its own group.
 * w[c][0][0] = {2, 3}; dy = {5, 7}: dx = {2*5, 3*7} = {10, 21};
 * x = {11, 13}: dw = {11*5, 13*7} = {55, 91}. */
Test(oracle_backward, groups_stay_apart)
{
    iohw_problem pd = problem("n=1 ci=2 co=2 g=2 in=1 k=1", IOHW_DIR_BWD_D);
    iohw_problem pw = problem("n=1 ci=2 co=2 g=2 in=1 k=1", IOHW_DIR_BWD_W);
    const double w[2] = {2, 3}, dy[2] = {5, 7}, x[2] = {11, 13};
    double dx[2], eb[2], dw[2], ebw[2];
    iohw_error err;
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&pd, dy, w, 0, dx, eb, &err), 0);
    cr_expect_eq(dx[0], 10.0);
    cr_expect_eq(dx[1], 21.0);
    cr_assert_eq(iohw_conv_transpose_bwd_weights_def(&pw, x, dy, 0, dw, ebw, NULL,
                                                     NULL, &err), 0);
    cr_expect_eq(dw[0], 55.0);
    cr_expect_eq(dw[1], 91.0);
}

/* Deterministic small values. */
static void fill(double *v, int64_t n, unsigned *seed)
{
    for (int64_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        v[i] = (double)((int)((*seed >> 16) % 17) - 8) / 4.0;
    }
}

static double dot(const double *a, const double *b, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* <conv_transpose(x, w), dy> = <x, dx> = <w, dw>, and db = sum of dy, on
 * problems of every rank with groups, dilation, asymmetric pads and
 * output_padding (values are multiples of 1/4: every sum is exact). */
Test(oracle_backward, adjoint_identities)
{
    static const char *const texts[] = {
        "n=2 ci=4 co=6 g=2 in=5 k=3 s=2 d=2 pad=1:2 op=1",
        "n=1 ci=3 co=2 in=4x3 k=2x3 s=2x1 pad=0:1x1:0 op=1x0",
        "n=2 ci=2 co=4 g=2 in=3x2x3 k=2x2x1 s=1x2x3 d=2x1x1 op=0x1x2",
        "n=1 ci=1 co=1 in=2 k=5 s=3 pad=3:3",
    };
    unsigned seed = 7;
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        iohw_problem p = problem(texts[t], IOHW_DIR_FWD);
        p.has_bias = 1;
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p), nb = p.out_channels;
        double *x = malloc(8 * nx), *w = malloc(8 * nw), *dy = malloc(8 * ny);
        double *y = malloc(8 * ny), *eby = malloc(8 * ny), *zero = calloc(nb, 8);
        double *dx = malloc(8 * nx), *ebx = malloc(8 * nx);
        double *dw = malloc(8 * nw), *ebw = malloc(8 * nw), *db = malloc(8 * nb),
               *ebb = malloc(8 * nb);
        fill(x, nx, &seed);
        fill(w, nw, &seed);
        fill(dy, ny, &seed);
        iohw_error err;
        cr_assert_eq(iohw_conv_transpose_def(&p, x, w, zero, 0, y, eby, &err), 0);
        p.direction = IOHW_DIR_BWD_W;
        cr_assert_eq(iohw_conv_transpose_bwd_weights_def(&p, x, dy, 0, dw, ebw, db,
                                                         ebb, &err), 0, "%s", err.msg);
        p.direction = IOHW_DIR_BWD_D;
        p.has_bias = 0;
        cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 0, dx, ebx, &err),
                     0, "%s", err.msg);
        const double fwd = dot(y, dy, ny);
        cr_expect_eq(dot(x, dx, nx), fwd, "%s: <x, dx> %g, <y, dy> %g", texts[t],
                     dot(x, dx, nx), fwd);
        cr_expect_eq(dot(w, dw, nw), fwd, "%s: <w, dw> %g, <y, dy> %g", texts[t],
                     dot(w, dw, nw), fwd);
        const int64_t per = ny / nb / p.batch;
        for (int64_t co = 0; co < nb; co++) {
            double s = 0.0;
            for (int64_t n = 0; n < p.batch; n++)
                for (int64_t o = 0; o < per; o++)
                    s += dy[(n * nb + co) * per + o];
            cr_expect_eq(db[co], s, "%s: db[%lld]", texts[t], (long long)co);
        }
        free(x), free(w), free(dy), free(y), free(eby), free(zero);
        free(dx), free(ebx), free(dw), free(ebw), free(db), free(ebb);
    }
}

/* Through iohw_oracle_run_inputs with layouts and a dtype: NHWC dy and dx,
 * HWOI dw give the canonical numbers permuted, rounded to f32. */
Test(oracle_backward, run_inputs_layouts)
{
    iohw_problem c = problem("n=1 ci=2 co=3 in=2x2 k=2x1 s=2x1", IOHW_DIR_BWD_W);
    iohw_problem l = problem("n=1 ci=2 co=3 in=2x2 k=2x1 s=2x1 xl=NHWC wl=HWOI",
                             IOHW_DIR_BWD_W);
    const int64_t nx = iohw_problem_x_count(&c), ny = iohw_problem_y_count(&c);
    float x[8], dy[24], xt[8], dyt[24];
    for (int i = 0; i < nx; i++)
        x[i] = (float)(i + 1);
    for (int i = 0; i < ny; i++)
        dy[i] = (float)(i % 5) - 2.0f;
    /* NCHW -> NHWC: [c][h][w] -> [h][w][c]. */
    const int64_t hw_x = nx / 2, hw_y = ny / 3;
    for (int64_t ch = 0; ch < 2; ch++)
        for (int64_t s = 0; s < hw_x; s++)
            xt[s * 2 + ch] = x[ch * hw_x + s];
    for (int64_t ch = 0; ch < 3; ch++)
        for (int64_t s = 0; s < hw_y; s++)
            dyt[s * 3 + ch] = dy[ch * hw_y + s];
    iohw_oracle_inputs a = {x, NULL, NULL, dy}, b = {xt, NULL, NULL, dyt};
    iohw_oracle_result ra, rb;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&c, &a, IOHW_ORACLE_FAST, 1, &ra, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(iohw_oracle_run_inputs(&l, &b, IOHW_ORACLE_FAST, 1, &rb, &err), 0,
                 "%s", err.msg);
    /* IOHW [i][o][h][w] -> HWOI [h][w][o][i]; K = 2x1. */
    for (int64_t i = 0; i < 2; i++)
        for (int64_t o = 0; o < 3; o++)
            for (int64_t h = 0; h < 2; h++) {
                const double want = ra.y_f64[(i * 3 + o) * 2 + h];
                cr_expect_eq(rb.y_f64[(h * 3 + o) * 2 + i], want);
                cr_expect_eq(((float *)rb.y)[(h * 3 + o) * 2 + i], (float)want);
            }
    cr_expect_eq(ra.terms_max, rb.terms_max);
    iohw_oracle_result_free(&ra);
    iohw_oracle_result_free(&rb);
}

/* f64 sums in double-double: 1 + 2^-60 - 1 is 2^-60, not 0. */
Test(oracle_backward, f64_double_double)
{
    iohw_problem p = problem("n=1 ci=1 co=3 in=1 k=1 dt=f64", IOHW_DIR_BWD_D);
    const double dy[3] = {1.0, ldexp(1.0, -60), -1.0}, w[3] = {1.0, 1.0, 1.0};
    double dx[1], eb[1];
    iohw_error err;
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 1, dx, eb, &err), 0);
    cr_expect_eq(dx[0], ldexp(1.0, -60));
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, 0, dx, eb, &err), 0);
    cr_expect_eq(dx[0], 0.0);
}

Test(oracle_backward, refusals_name_the_argument)
{
    iohw_problem p = problem("n=1 ci=1 co=1 in=2 k=2", IOHW_DIR_BWD_D);
    iohw_oracle_inputs in = {NULL, NULL, NULL, NULL};
    iohw_oracle_result r;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), -1);
    cr_expect(strstr(err.msg, "dy") != NULL, "%s", err.msg);
    const float dy[3] = {1, 2, 3};
    in.dy = dy;
    cr_assert_eq(iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FAST, 1, &r, &err), -1);
    cr_expect(strstr(err.msg, "BWD_D needs w") != NULL, "%s", err.msg);
    const float x[2] = {1, 2}, w[2] = {1, 1};
    cr_assert_eq(iohw_oracle_run(&p, x, w, NULL, 1, &r, &err), -1);
    cr_expect(strstr(err.msg, "iohw_oracle_run_inputs") != NULL, "%s", err.msg);
}
