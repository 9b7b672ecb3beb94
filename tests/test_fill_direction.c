/*
 * tests/test_fill_direction.c - iohw_fill_direction_inputs (generators/
 * fill_direction.c, specification section 13): forward is
 * iohw_fill_inputs; BWD_D's w and BWD_W's x are the forward fill's; dy has
 * its own stream; with the exact fill every sum of the direction is
 * exact (checked here by summing |terms| of each gradient element with
 * the section's index relation, written out independently in 1-d); the
 * narrow fills and missing buffers are errors naming them.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

static iohw_problem problem(const char *text, int32_t dir)
{
    iohw_desc d;
    iohw_error e;
    memset(&d, 0, sizeof d);
    cr_assert_eq(iohw_desc_parse(text, &d, &e), 0, "%s: %s", text, e.msg);
    d.p.direction = dir;
    cr_assert_eq(iohw_problem_validate(&d.p, &e), 0, "%s: %s", text, e.msg);
    return d.p;
}

typedef struct bufs {
    void *x, *w, *b, *dy;
    int64_t nx, nw, nb, ny;
    size_t es;
} bufs;

static bufs alloc_for(const iohw_problem *p)
{
    bufs b;
    b.es = iohw_dtype_size(p->dtype);
    b.nx = iohw_problem_x_count(p);
    b.nw = iohw_problem_w_count(p);
    b.nb = p->out_channels;
    b.ny = iohw_problem_dy_count(p);
    b.x = calloc((size_t)b.nx, b.es);
    b.w = calloc((size_t)b.nw, b.es);
    b.b = calloc((size_t)b.nb, b.es);
    b.dy = calloc((size_t)b.ny, b.es);
    cr_assert(b.x && b.w && b.b && b.dy);
    return b;
}

static void free_bufs(bufs *b)
{
    free(b->x);
    free(b->w);
    free(b->b);
    free(b->dy);
}

static double *doubles(iohw_dtype dt, const void *src, int64_t n)
{
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    cr_assert_not_null(d);
    iohw_dtype_to_double(dt, src, d, (size_t)n);
    return d;
}

Test(fill_direction, forward_is_iohw_fill_inputs_and_backward_reuses_its_x_and_w)
{
    iohw_error e;
    iohw_problem f = problem("n=2 ci=4 co=6 g=2 in=5 k=3 s=2 bias=1 dt=f32", IOHW_DIR_FWD);
    bufs a = alloc_for(&f), b = alloc_for(&f);
    cr_assert_eq(iohw_fill_inputs(&f, "normal", 7, a.x, a.w, a.b, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_fill_direction_inputs(&f, "normal", 7, b.x, b.w, b.b, NULL, &e), 0,
                 "%s", e.msg);
    cr_expect_eq(memcmp(a.x, b.x, (size_t)a.nx * a.es), 0);
    cr_expect_eq(memcmp(a.w, b.w, (size_t)a.nw * a.es), 0);
    cr_expect_eq(memcmp(a.b, b.b, (size_t)a.nb * a.es), 0);

    iohw_problem d = problem("n=2 ci=4 co=6 g=2 in=5 k=3 s=2 dt=f32", IOHW_DIR_BWD_D);
    iohw_problem w = problem("n=2 ci=4 co=6 g=2 in=5 k=3 s=2 bias=1 dt=f32", IOHW_DIR_BWD_W);
    bufs bd = alloc_for(&d), bw = alloc_for(&w);
    cr_assert_eq(iohw_fill_direction_inputs(&d, "normal", 7, NULL, bd.w, NULL, bd.dy, &e), 0,
                 "%s", e.msg);
    cr_assert_eq(iohw_fill_direction_inputs(&w, "normal", 7, bw.x, NULL, NULL, bw.dy, &e), 0,
                 "%s", e.msg);
    cr_expect_eq(memcmp(a.w, bd.w, (size_t)a.nw * a.es), 0, "BWD_D's w is forward's");
    cr_expect_eq(memcmp(a.x, bw.x, (size_t)a.nx * a.es), 0, "BWD_W's x is forward's");
    cr_expect_eq(memcmp(bd.dy, bw.dy, (size_t)bd.ny * bd.es), 0, "dy: same seed, same dy");
    /* dy (24 elements) has its own stream: not a prefix of x (20) or w. */
    cr_expect_neq(memcmp(bw.dy, a.x, (size_t)a.nx * a.es), 0);
    int nonzero = 0;
    const float *dy = bw.dy;
    for (int64_t i = 0; i < bw.ny; i++)
        nonzero += dy[i] != 0.0f;
    cr_expect_eq(nonzero, bw.ny, "normal dy has no zero");
    free_bufs(&a);
    free_bufs(&b);
    free_bufs(&bd);
    free_bufs(&bw);
}

Test(fill_direction, another_seed_changes_dy)
{
    iohw_error e;
    iohw_problem d = problem("n=1 ci=2 co=3 in=6 k=3 dt=f16", IOHW_DIR_BWD_D);
    bufs a = alloc_for(&d), b = alloc_for(&d);
    cr_assert_eq(iohw_fill_direction_inputs(&d, "exact", 1, NULL, a.w, NULL, a.dy, &e), 0);
    cr_assert_eq(iohw_fill_direction_inputs(&d, "exact", 2, NULL, b.w, NULL, b.dy, &e), 0);
    cr_expect_neq(memcmp(a.dy, b.dy, (size_t)a.ny * a.es), 0);
    free_bufs(&a);
    free_bufs(&b);
}

/* 1-d, one group, default layouts (NCW, IOW: canonical order).  The
 * largest sum of |terms| of any dx element (BWD_D) or of any dw and db
 * element (BWD_W), by the index relation o = i*S + k*D - P. */
static double largest_sum(const iohw_problem *p, const double *x, const double *w,
                          const double *dy)
{
    const int64_t N = p->batch, C = p->in_channels, M = p->out_channels;
    const int64_t L = p->in_size[0], K = p->kernel[0], O = p->out_size[0];
    const int64_t S = p->stride[0], D = p->dilation[0], P = p->pad_begin[0];
    double worst = 0;
    for (int64_t c = 0; c < C; c++)
        for (int64_t a = 0; a < (p->direction == IOHW_DIR_BWD_D ? N * L : M * K); a++) {
            double sum = 0;
            for (int64_t b = 0; b < (p->direction == IOHW_DIR_BWD_D ? M * K : N * L); b++) {
                /* BWD_D: a = (n, i), b = (m, k); BWD_W: a = (m, k), b = (n, i). */
                int64_t n, i, m, k;
                if (p->direction == IOHW_DIR_BWD_D) {
                    n = a / L, i = a % L, m = b / K, k = b % K;
                } else {
                    m = a / K, k = a % K, n = b / L, i = b % L;
                }
                const int64_t o = i * S + k * D - P;
                if (o < 0 || o >= O)
                    continue;
                const double g = dy[(n * M + m) * O + o];
                sum += p->direction == IOHW_DIR_BWD_D ? fabs(g * w[(c * M + m) * K + k])
                                                      : fabs(g * x[(n * C + c) * L + i]);
            }
            worst = sum > worst ? sum : worst;
        }
    if (p->direction == IOHW_DIR_BWD_W && p->has_bias)
        for (int64_t m = 0; m < M; m++) {
            double sum = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t o = 0; o < O; o++)
                    sum += fabs(dy[(n * M + m) * O + o]);
            worst = sum > worst ? sum : worst;
        }
    return worst;
}

static void expect_exact(const char *text, int32_t dir, double limit)
{
    iohw_error e;
    iohw_problem p = problem(text, dir);
    bufs b = alloc_for(&p);
    cr_assert_eq(iohw_fill_direction_inputs(&p, "exact", 3, b.x, b.w, NULL, b.dy, &e), 0,
                 "%s", e.msg);
    double *x = doubles(p.dtype, b.x, b.nx), *w = doubles(p.dtype, b.w, b.nw);
    double *dy = doubles(p.dtype, b.dy, b.ny);
    int zeros = 0;
    for (int64_t i = 0; i < b.ny; i++) {
        cr_assert_eq(dy[i], nearbyint(dy[i]), "%s: dy[%lld] = %g", text, (long long)i, dy[i]);
        zeros += dy[i] == 0;
    }
    cr_expect_eq(zeros, 0, "%s: the exact dy is dense", text);
    const double worst = largest_sum(&p, x, w, dy);
    cr_expect_leq(worst, limit, "%s: a sum of |terms| reaches %g", text, worst);
    cr_expect_gt(worst, 1, "%s", text);
    free(x);
    free(w);
    free(dy);
    free_bufs(&b);
}

Test(fill_direction, exact_sums_of_either_direction_stay_within_the_precision)
{
    /* 2^11 - 1 for f16, 2^8 - 1 for bf16: every partial sum an integer of
     * at most that, hence exact.  Long batches and outputs: backward terms
     * far outnumber the forward ones (2 per y element here). */
    expect_exact("n=4 ci=2 co=3 in=16 k=3 s=2 dt=f16", IOHW_DIR_BWD_D, 2047);
    expect_exact("n=4 ci=2 co=3 in=16 k=3 s=2 dt=f16", IOHW_DIR_BWD_W, 2047);
    expect_exact("n=4 ci=2 co=3 in=16 k=3 s=2 bias=1 dt=f16", IOHW_DIR_BWD_W, 2047);
    expect_exact("n=2 ci=2 co=2 in=6 k=3 s=2 bias=1 dt=bf16", IOHW_DIR_BWD_W, 255);
    expect_exact("n=2 ci=2 co=2 in=6 k=4 s=3 pad=1:0 op=1 dt=bf16", IOHW_DIR_BWD_D, 255);
}

Test(fill_direction, narrow_fills_and_missing_buffers_are_errors_naming_them)
{
    iohw_error e;
    iohw_problem d = problem("n=1 ci=2 co=2 in=4 k=2 dt=f32", IOHW_DIR_BWD_D);
    iohw_problem w = problem("n=1 ci=2 co=2 in=4 k=2 dt=f32", IOHW_DIR_BWD_W);
    bufs b = alloc_for(&d);
    cr_expect_neq(iohw_fill_direction_inputs(&d, "ties", 1, b.x, b.w, NULL, b.dy, &e), 0);
    cr_expect(strstr(e.msg, "'ties'") != NULL && strstr(e.msg, "BWD_D") != NULL, "%s", e.msg);
    cr_expect_neq(iohw_fill_direction_inputs(&d, "exact", 1, b.x, b.w, NULL, NULL, &e), 0);
    cr_expect(strstr(e.msg, "dy") != NULL, "%s", e.msg);
    cr_expect_neq(iohw_fill_direction_inputs(&d, "exact", 1, b.x, NULL, NULL, b.dy, &e), 0);
    cr_expect(strstr(e.msg, "argument w") != NULL, "%s", e.msg);
    cr_expect_neq(iohw_fill_direction_inputs(&w, "exact", 1, NULL, b.w, NULL, b.dy, &e), 0);
    cr_expect(strstr(e.msg, "argument x") != NULL, "%s", e.msg);
    cr_expect_neq(iohw_fill_direction_inputs(&w, "bogus", 1, b.x, b.w, NULL, b.dy, &e), 0);
    cr_expect(strstr(e.msg, "'bogus'") != NULL, "%s", e.msg);
    free_bufs(&b);
}
