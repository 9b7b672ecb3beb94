/*
 * tests/test_oracle_backward_props.c - properties of the backward oracle
 * (specification section 13) on random problems of every rank with
 * groups, dilation, asymmetric pads and output_padding:
 *   - the adjoint identities <conv_transpose(x, w), dy> = <x, dx> =
 *     <w, dw>, with the forward definition (oracle/conv_transpose.c) as
 *     the other side;
 *   - db = the sum of dy over n and o;
 *   - dx = 0 (and its bound 0) where no o is reached;
 *   - terms_max = the largest count of terms of an element, counted here
 *     element by element;
 *   - layouts (NHWC data, OIHW, HWOI, GOIHW weights) permute the same
 *     numbers.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* A random small valid problem (forward direction, no bias). */
static iohw_problem random_problem(iohw_rng *r, uint32_t rank)
{
    for (;;) {
        iohw_problem p;
        iohw_problem_init(&p);
        p.rank = rank;
        const int64_t G = iohw_rng_range(r, 1, 2);
        p.groups = G;
        p.in_channels = G * iohw_rng_range(r, 1, 2);
        p.out_channels = G * iohw_rng_range(r, 1, 3);
        p.batch = iohw_rng_range(r, 1, 2);
        for (uint32_t a = 0; a < rank; a++) {
            p.in_size[a] = iohw_rng_range(r, 1, rank == 3 ? 3 : 5);
            p.kernel[a] = iohw_rng_range(r, 1, 3);
            p.stride[a] = iohw_rng_range(r, 1, 3);
            p.dilation[a] = iohw_rng_range(r, 1, 3);
            p.pad_begin[a] = iohw_rng_range(r, 0, 3);
            p.pad_end[a] = iohw_rng_range(r, 0, 3);
            p.output_padding[a] = iohw_rng_range(r, 0, 2);
        }
        if (iohw_problem_finish(&p, NULL) == 0)
            return p;
    }
}

/* n values: integers in [-4, 4] (exact sums) or normal ones. */
static double *values(iohw_rng *r, int64_t n, int integers)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert(v != NULL);
    for (int64_t j = 0; j < n; j++)
        v[j] = integers ? (double)iohw_rng_range(r, -4, 4) : iohw_rng_normal(r);
    return v;
}

static double dot(const double *a, const double *b, int64_t n, double *abs_sum)
{
    double s = 0, t = 0;
    for (int64_t j = 0; j < n; j++) {
        s += a[j] * b[j];
        t += fabs(a[j] * b[j]);
    }
    *abs_sum = t;
    return s;
}

/* Whether spatial position i (row-major over L) meets tap k inside [0, O). */
static int reaches(const iohw_problem *p, int64_t i, int64_t k)
{
    for (int a = (int)p->rank - 1; a >= 0; a--) {
        const int64_t ia = i % p->in_size[a], ka = k % p->kernel[a];
        i /= p->in_size[a];
        k /= p->kernel[a];
        const int64_t o = ia * p->stride[a] + ka * p->dilation[a] - p->pad_begin[a];
        if (o < 0 || o >= p->out_size[a])
            return 0;
    }
    return 1;
}

static int64_t volume(const int64_t *e, uint32_t rank)
{
    int64_t v = 1;
    for (uint32_t a = 0; a < rank; a++)
        v *= e[a];
    return v;
}

/* The identities, db, the zeros of dx and terms_max on one problem. */
static void check_problem(iohw_rng *r, iohw_problem p, int integers)
{
    const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
    const int64_t ny = iohw_problem_y_count(&p), C_out = p.out_channels;
    const int64_t LV = volume(p.in_size, p.rank), KV = volume(p.kernel, p.rank);
    const int64_t OV = volume(p.out_size, p.rank);
    double *x = values(r, nx, integers), *w = values(r, nw, integers);
    double *dy = values(r, ny, integers);
    double *y = malloc((size_t)ny * sizeof *y), *eby = malloc((size_t)ny * sizeof *y);
    double *dx = malloc((size_t)nx * sizeof *dx), *ebx = malloc((size_t)nx * sizeof *dx);
    double *dw = malloc((size_t)nw * sizeof *dw), *ebw = malloc((size_t)nw * sizeof *dw);
    double *db = malloc((size_t)C_out * sizeof *db), *ebb = malloc((size_t)C_out * sizeof *db);
    iohw_error err;
    const int dd = !integers;

    cr_assert_eq(iohw_conv_transpose_def(&p, x, w, NULL, dd, y, eby, &err), 0, "%s", err.msg);
    p.direction = IOHW_DIR_BWD_D;
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&p, dy, w, dd, dx, ebx, &err), 0,
                 "%s", err.msg);
    p.direction = IOHW_DIR_BWD_W;
    p.has_bias = 1;
    cr_assert_eq(iohw_conv_transpose_bwd_weights_def(&p, x, dy, dd, dw, ebw, db, ebb, &err),
                 0, "%s", err.msg);

    /* <y, dy> = <x, dx> = <w, dw>: exact with integers, else within a few
     * units of the sums of |products|. */
    double ay, ax, aw;
    const double sy = dot(y, dy, ny, &ay), sx = dot(x, dx, nx, &ax);
    const double sw = dot(w, dw, nw, &aw);
    const double tol = integers ? 0 : 1e-13 * (ay + ax + aw + 1);
    cr_expect(fabs(sy - sx) <= tol, "<y,dy> %.17g <x,dx> %.17g", sy, sx);
    cr_expect(fabs(sy - sw) <= tol, "<y,dy> %.17g <w,dw> %.17g", sy, sw);

    /* db = sum of dy per channel. */
    for (int64_t co = 0; co < C_out; co++) {
        double s = 0;
        for (int64_t n = 0; n < p.batch; n++)
            for (int64_t o = 0; o < OV; o++)
                s += dy[(n * C_out + co) * OV + o];
        cr_expect(fabs(db[co] - s) <= (integers ? 0 : 1e-13 * ebb[co]),
                  "db[%lld] %.17g, sum %.17g", (long long)co, db[co], s);
    }

    /* dx = 0 where no tap reaches; terms_max counted element by element. */
    int64_t best_dx = 0, best_dw = 0;
    for (int64_t i = 0; i < LV; i++) {
        int64_t taps = 0;
        for (int64_t k = 0; k < KV; k++)
            taps += reaches(&p, i, k);
        best_dx = taps > best_dx ? taps : best_dx;
        for (int64_t nc = 0; taps == 0 && nc < p.batch * p.in_channels; nc++) {
            cr_expect_eq(dx[nc * LV + i], 0.0);
            cr_expect_eq(ebx[nc * LV + i], 0.0);
        }
    }
    for (int64_t k = 0; k < KV; k++) {
        int64_t inputs = 0;
        for (int64_t i = 0; i < LV; i++)
            inputs += reaches(&p, i, k);
        best_dw = inputs > best_dw ? inputs : best_dw;
    }
    const int64_t Mg = C_out / p.groups, tdw = p.batch * best_dw, tdb = p.batch * OV;
    p.has_bias = 0;
    cr_expect_eq(iohw_oracle_terms_max(&p), tdw);
    p.has_bias = 1;
    cr_expect_eq(iohw_oracle_terms_max(&p), tdb > tdw ? tdb : tdw);
    p.has_bias = 0;
    p.direction = IOHW_DIR_BWD_D;
    cr_expect_eq(iohw_oracle_terms_max(&p), Mg * best_dx);

    free(x), free(w), free(dy), free(y), free(eby), free(dx), free(ebx);
    free(dw), free(ebw), free(db), free(ebb);
}

Test(oracle_backward_props, adjoint_identities_every_rank_integers)
{
    iohw_rng r;
    iohw_rng_seed(&r, 13);
    for (uint32_t rank = 1; rank <= 3; rank++)
        for (int t = 0; t < 60; t++)
            check_problem(&r, random_problem(&r, rank), 1);
}

Test(oracle_backward_props, adjoint_identities_every_rank_reals)
{
    iohw_rng r;
    iohw_rng_seed(&r, 29);
    for (uint32_t rank = 1; rank <= 3; rank++)
        for (int t = 0; t < 30; t++)
            check_problem(&r, random_problem(&r, rank), 0);
}

/* --- layouts: the same numbers, permuted (specification section 2) --- */

enum { N = 2, CI = 4, CO = 6, G = 2, CG = 2, MG = 3, H = 3, W = 2, KH = 2, KW = 3 };
#define DESC "n=2 ci=4 co=6 g=2 in=3x2 k=2x3 s=2x1 d=1x2 pad=1:0x0:2 op=1x1 dt=f64"

/* Offsets of canonical elements in the layouts, written out. */
static int64_t data_off(int nhwc, int64_t C, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t HH, int64_t WW)
{
    return nhwc ? ((n * HH + h) * WW + wd) * C + c : ((n * C + c) * HH + h) * WW + wd;
}

static int64_t weight_off(const char *wl, int64_t ci, int64_t m, int64_t kh, int64_t kw)
{
    const int64_t g = ci / CG, c = ci % CG;
    if (strcmp(wl, "OIHW") == 0)
        return ((m * CI + ci) * KH + kh) * KW + kw;
    if (strcmp(wl, "HWOI") == 0)
        return ((kh * KW + kw) * MG + m) * CI + ci;
    if (strcmp(wl, "GOIHW") == 0)
        return (((g * MG + m) * CG + c) * KH + kh) * KW + kw;
    return ((ci * MG + m) * KH + kh) * KW + kw; /* IOHW */
}

/* Runs dir on the canonical tensors re-laid out as xl/wl; the outputs back
 * in canonical order. */
static void run_laid_out(int32_t dir, int nhwc, const char *wl, const double *x,
                         const double *w, const double *dy, double *out)
{
    char text[256];
    snprintf(text, sizeof text, DESC " bias=%d xl=%s wl=%s", dir == IOHW_DIR_BWD_W,
             nhwc ? "NHWC" : "NCHW", wl);
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    d.p.direction = dir;
    const int64_t OH = d.p.out_size[0], OW = d.p.out_size[1];
    double xl[N * CI * H * W], wlt[CI * MG * KH * KW], dyl[N * CO * 16 * 16];
    cr_assert_leq(OH * OW, 256);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < CI; c++)
            for (int64_t j = 0; j < H * W; j++)
                xl[data_off(nhwc, CI, n, c, j / W, j % W, H, W)] = x[(n * CI + c) * H * W + j];
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < CO; c++)
            for (int64_t j = 0; j < OH * OW; j++)
                dyl[data_off(nhwc, CO, n, c, j / OW, j % OW, OH, OW)] =
                    dy[(n * CO + c) * OH * OW + j];
    for (int64_t ci = 0; ci < CI; ci++)
        for (int64_t m = 0; m < MG; m++)
            for (int64_t k = 0; k < KH * KW; k++)
                wlt[weight_off(wl, ci, m, k / KW, k % KW)] = w[(ci * MG + m) * KH * KW + k];
    iohw_oracle_inputs in = {.x = xl, .w = wlt, .dy = dyl};
    iohw_oracle_result r;
    cr_assert_eq(iohw_oracle_run_inputs(&d.p, &in, IOHW_ORACLE_FAST, 1, &r, &err), 0,
                 "%s", err.msg);
    const double *o = r.y;
    if (dir == IOHW_DIR_BWD_D) {
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < CI; c++)
                for (int64_t j = 0; j < H * W; j++)
                    out[(n * CI + c) * H * W + j] = o[data_off(nhwc, CI, n, c, j / W, j % W, H, W)];
    } else {
        for (int64_t ci = 0; ci < CI; ci++)
            for (int64_t m = 0; m < MG; m++)
                for (int64_t k = 0; k < KH * KW; k++)
                    out[(ci * MG + m) * KH * KW + k] = o[weight_off(wl, ci, m, k / KW, k % KW)];
        memcpy(out + CI * MG * KH * KW, o + CI * MG * KH * KW, CO * sizeof *out);
    }
    iohw_oracle_result_free(&r);
}

Test(oracle_backward_props, layouts_permute_the_same_numbers)
{
    iohw_rng r;
    iohw_rng_seed(&r, 5);
    double *x = values(&r, N * CI * H * W, 0), *w = values(&r, CI * MG * KH * KW, 0);
    double *dy = values(&r, N * CO * 16 * 16, 0);
    const char *wls[] = {"OIHW", "HWOI", "GOIHW"};
    for (int32_t dir = IOHW_DIR_BWD_D; dir <= IOHW_DIR_BWD_W; dir++) {
        double want[CI * MG * KH * KW + CO], got[CI * MG * KH * KW + CO];
        const int64_t n = dir == IOHW_DIR_BWD_D ? N * CI * H * W : CI * MG * KH * KW + CO;
        run_laid_out(dir, 0, "IOHW", x, w, dy, want);
        for (int j = 0; j < 3; j++) {
            run_laid_out(dir, 1, wls[j], x, w, dy, got);
            for (int64_t e = 0; e < n; e++)
                cr_expect_eq(got[e], want[e], "dir %d NHWC %s element %lld: %.17g, want %.17g",
                             (int)dir, wls[j], (long long)e, got[e], want[e]);
        }
    }
    free(x), free(w), free(dy);
}
