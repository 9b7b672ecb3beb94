/*
 * tests/test_adapter_torch_quant.c - the libtorch adapter's run_quant()
 * (backends/torch/torch_quant.cpp, specification section 11): libtorch
 * 1.13's quantized::conv_transpose1d/2d on its qnnpack engine, which the
 * adapter pins: u8 x runs libtorch's QNNPACK (SSE2 kernels on every x86-64
 * CPU), s8 x its XNNPACK path (kernels chosen by the CPU, so only cases
 * exact on every kernel are asserted).  Called in-process through the
 * loader.
 *
 *   - a per-channel problem with a weight zero point, an odd zp_y and
 *     ties, computed by hand, comes out exact (ties to even on v, zp_y
 *     added after, each channel's scale along O);
 *   - exact-by-construction cases (power-of-two M, accumulators far below
 *     2^24, section 11.2) and every quantized ci case it claims come out
 *     as the oracle's, with the inputs left alone;
 *   - what qnnpack does not compute by the definition is refused with the
 *     reason, and run()/run_quant() refuse each other's problems.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "generators/suite.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "support/adapter_asserts.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* N=1, C_in=1, C_out=2, W=3, K=2, S=2: out 6, no two taps meet.  u8 x with
 * zp_x 3, s8 w (IOW) with zp_w -1, u8 y with zp_y 5, half_even, s_x 0.5,
 * s_y 1, per-channel s_w = [1, 0.25]: M = [1/2, 1/8] along O. */
static const char HAND[] = "ci=1 co=2 in=3 k=2 s=2 bias=1 dt=u8 wdt=s8 ydt=u8 "
                           "zp=3,-1,5 pc=1 sx=0.5 sy=1 xl=NCW wl=IOW";

Test(torch_quant, a_per_channel_problem_with_ties_comes_out_as_by_hand)
{
    static const uint8_t x[3] = {4, 6, 0};   /* x - zp_x: 1, 3, -3 */
    static const int8_t w[2][2] = {{2, 0}, {6, -9}}; /* w - zp_w: 3 1; 7 -8 */
    static const int32_t bias[2] = {0, 4};
    static const float s_w[2] = {1.0f, 0.25f};
    /* acc[oc][2i + k] = bias[oc] + (x[i] - 3) * (w[oc][k] + 1):
     * oc 0: 3 1 9 3 -9 -3, times 1/2: 1.5 0.5 4.5 1.5 -4.5 -1.5, to even
     *       2 0 4 2 -4 -2, plus 5: 7 5 9 7 1 3 (5 + R(v), not R(5 + v),
     *       which would give 6 6 10 6 0 4);
     * oc 1: 11 -4 25 -20 -17 28, times 1/8: 1.375 -0.5 3.125 -2.5 -2.125
     *       3.5, to even 1 0 3 -2 -2 4, plus 5: 6 5 8 3 3 9.  With the
     *       scales along I (one input channel, so both M = 1/2) oc 1 would
     *       differ. */
    static const uint8_t want[2][6] = {{7, 5, 9, 7, 1, 3}, {6, 5, 8, 3, 3, 9}};
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_error err;
    uint8_t y[2][6];
    load_or_skip("iohw_torch", &lb);
    cr_assert_eq(iohw_desc_parse(HAND, &d, &err), 0, "%s", err.msg);
    const iohw_problem *p = &d.p;
    cr_assert(IOHW_HAS_MEMBER(lb.table, iohw_backend, run_quant) &&
              lb.table->run_quant != NULL, "the torch adapter has no run_quant");
    cr_expect_eq(lb.table->supports(lb.ctx, p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    memset(y, 0x5A, sizeof y);
    cr_assert_eq(lb.table->run_quant(lb.ctx, p, x, w, bias, s_w, y), IOHW_OK,
                 "%s", iohw_backend_last_error(&lb));
    for (int oc = 0; oc < 2; oc++)
        for (int o = 0; o < 6; o++)
            cr_expect_eq(y[oc][o], want[oc][o], "y[%d][%d]: expected %d, got %d",
                         oc, o, want[oc][o], y[oc][o]);
    iohw_backend_unload(&lb);
}

/* A copy of n bytes (at least one, so that it is never NULL). */
static void *copy_bytes(const void *src, size_t n)
{
    void *d = calloc(n > 0 ? n : 1, 1);
    cr_assert_not_null(d);
    if (n > 0)
        memcpy(d, src, n);
    return d;
}

/* run_quant() on copies of c's inputs; returns how many elements of y
 * differ from the oracle's, and expects the copies unchanged. */
static int64_t run_against_oracle(const iohw_loaded_backend *lb, const iohw_case *c)
{
    const size_t n[4] = {(size_t)iohw_problem_x_count(&c->p),
                         (size_t)iohw_problem_w_count(&c->p),
                         c->p.has_bias ? (size_t)c->p.out_channels * sizeof(int32_t) : 0,
                         iohw_quant_requant_bytes(&c->p)};
    const void *orig[4] = {c->x, c->w, c->bias, c->requant};
    void *in[4];
    for (int k = 0; k < 4; k++)
        in[k] = copy_bytes(orig[k], n[k]);
    const size_t ny = (size_t)iohw_problem_y_count(&c->p);
    unsigned char *y = malloc(ny);
    cr_assert_not_null(y);
    memset(y, 0x5A, ny);
    int rc = lb->table->run_quant(lb->ctx, &c->p, in[0], in[1], n[2] > 0 ? in[2] : NULL,
                                  in[3], y);
    cr_assert_eq(rc, IOHW_OK, "'%s': status %d: %s", c->descriptor, rc,
                 iohw_backend_last_error(lb));
    int64_t bad = 0;
    for (size_t i = 0; i < ny; i++)
        if (y[i] != ((const unsigned char *)c->y)[i] && bad++ == 0)
            cr_log_error("'%s': y[%zu] is %d, the oracle's %d", c->descriptor, i, y[i],
                         ((const unsigned char *)c->y)[i]);
    for (int k = 0; k < 4; k++) {
        cr_expect(n[k] == 0 || memcmp(in[k], orig[k], n[k]) == 0,
                  "'%s': the backend wrote into input %d", c->descriptor, k);
        free(in[k]);
    }
    free(y);
    return bad;
}

/* Ranks 1 and 2, groups, dilation, asymmetric pads, output_padding beyond
 * stride and dilation, batch, layouts, weight zero points, per-channel M
 * (G = 1), with and without bias, and the designed fills. */
static const char *const EXACT[] = {
    "ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=u8 zp=3,0,9 bias=1",
    "n=2 ci=4 co=6 g=2 in=5x3 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=u8 wdt=s8 ydt=u8 "
    "zp=128,7,0 bias=1 xl=NHWC wl=GOIHW",
    "ci=3 co=2 in=3x5 k=2 d=2 dt=u8 wdt=s8 ydt=u8 zp=0,-128,0 sx=2 xl=NHWC wl=HWOI",
    "ci=4 co=4 g=4 in=4x4 k=3 s=2 pad=1 op=1 dt=u8 wdt=s8 ydt=u8 bias=1 wl=OIHW",
    "ci=3 co=5 in=6 k=4 s=3 d=2 pad=2:0 op=4 dt=u8 wdt=s8 ydt=u8 zp=255,127,255 bias=1",
    "ci=2 co=4 in=5 k=3 s=2 pad=0:3 dt=u8 wdt=s8 ydt=u8 pc=1 bias=1 xl=NWC wl=WOI",
    "n=2 ci=3 co=4 in=3x4 k=2x3 s=2 d=1x2 pad=1 dt=u8 wdt=s8 ydt=u8 pc=1 zp=5,-3,7",
    "ci=3 co=4 in=4x3 k=3 s=2 dt=u8 wdt=s8 ydt=u8 pc=1 bias=1 fill=qchannels",
    "ci=2 co=6 g=2 in=5 k=3 s=2 dt=u8 wdt=s8 ydt=u8 bias=1 fill=qties",
    "ci=3 co=4 in=4x4 k=3 s=2 pad=1 dt=u8 wdt=s8 ydt=u8 bias=1 fill=qsaturate",
    "ci=2 co=5 in=4x3 k=2 s=2 dt=u8 wdt=s8 ydt=u8 bias=1 fill=qzp-extreme",
    "ci=2 co=6 in=6 k=3 s=2 dt=u8 wdt=s8 ydt=u8 bias=1 fill=qio-trap",
    "ci=2 co=3 in=4x4 k=3 s=2 dt=s8 zp=3,0,-5 bias=1 xl=NHWC wl=OHWI",
    "n=2 ci=4 co=6 g=2 in=5 k=3 s=2 pad=1:0 op=1 dt=s8 zp=-7,0,0 sx=0.25 bias=1",
    "ci=3 co=2 in=3x5 k=2 d=2 pad=0:1x1:0 dt=s8 zp=127,0,-128 wl=GOIHW",
    "n=3 ci=2 co=2 in=7 k=4 s=3 d=2 pad=2 op=2 dt=s8 zp=-128,0,127 bias=1 xl=NWC",
};

Test(torch_quant, computes_exact_cases_as_the_oracle)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_torch", &lb);
    for (size_t i = 0; i < NELEMS(EXACT); i++) {
        iohw_case c;
        make(EXACT[i], &c);
        cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK,
                     "torch does not claim '%s': %s", EXACT[i],
                     iohw_backend_last_error(&lb));
        cr_expect_eq(run_against_oracle(&lb, &c), 0, "'%s' differs from the oracle",
                     EXACT[i]);
        iohw_case_free(&c);
    }
    iohw_backend_unload(&lb);
}

/* Every quantized case of the ci profile that the adapter claims (smoke
 * has none it claims). */
Test(torch_quant, every_claimed_quantized_ci_case_equals_the_oracle, .timeout = 300)
{
    iohw_loaded_backend lb;
    iohw_plan plan;
    iohw_error err;
    int64_t quant = 0, claimed = 0, bad = 0;
    load_or_skip("iohw_torch", &lb);
    cr_assert_eq(iohw_plan_profile("ci", 1, &plan, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *pc = &plan.cases[i];
        if (!iohw_problem_is_quant(&pc->desc.p))
            continue;
        quant++;
        if (lb.table->supports(lb.ctx, &pc->desc.p) != IOHW_OK)
            continue;
        claimed++;
        iohw_case c;
        cr_assert_eq(iohw_make_case(&pc->desc, pc->id, NULL, 1, &c, &err), 0, "%s: %s",
                     pc->id, err.msg);
        bad += run_against_oracle(&lb, &c) != 0;
        iohw_case_free(&c);
    }
    printf("torch claims %lld of %lld quantized ci cases\n", (long long)claimed,
                (long long)quant);
    cr_expect_gt(claimed, 0, "torch claims none of %lld quantized ci cases",
                 (long long)quant);
    cr_expect_eq(bad, 0, "%lld of %lld claimed quantized ci cases differ", (long long)bad,
                 (long long)claimed);
    iohw_plan_free(&plan);
    iohw_backend_unload(&lb);
}

/* What the adapter refuses, with a word of the reason each. */
static const struct {
    const char *desc, *why;
} REFUSED[] = {
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=s8 zp=0,1,0", "no weight zero point"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=s8 pc=1", "no per-channel M"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=s8 ydt=u8", "qint8 y only"},
    {"ci=2 co=3 in=5 k=3 s=2 d=3 op=2 dt=s8", "below the stride"},
    {"ci=2 co=3 in=3x3x3 k=2 dt=s8", "no conv_transpose3d"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8", "qint8 weights only"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=s8", "quint8 y only"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=s32", "no s32 output"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=u8 m=fixed", "fixed"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=u8 round=gemmlowp", "fixed"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=u8 wdt=s8 ydt=u8 round=half_away", "no other rounding"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=s8 round=half_up", "no other rounding"},
    {"ci=2 co=3 in=3x3x3 k=2 dt=u8 wdt=s8 ydt=u8", "conv_transpose3d"},
    {"ci=2 co=4 g=2 in=4x4 k=3 dt=u8 wdt=s8 ydt=u8 pc=1", "with groups"},
};

Test(torch_quant, refuses_what_qnnpack_does_not_compute_with_reasons)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_torch", &lb);
    for (size_t i = 0; i < NELEMS(REFUSED); i++)
        expect_unsupported_saying(&lb, REFUSED[i].desc, REFUSED[i].why);
    iohw_backend_unload(&lb);
}

/* A call's status is INVALID_PROBLEM and its reason says word. */
static void expect_invalid(const iohw_loaded_backend *lb, int rc, const char *word)
{
    const char *why = iohw_backend_last_error(lb);
    cr_expect_eq(rc, IOHW_INVALID_PROBLEM, "status %d: %s", rc, why);
    cr_expect(strstr(why, word) != NULL, "'%s' does not say '%s'", why, word);
}

Test(torch_quant, run_and_run_quant_refuse_each_others_problems)
{
    iohw_loaded_backend lb;
    iohw_case q, f;
    load_or_skip("iohw_torch", &lb);
    make(EXACT[0], &q);
    make("ci=2 co=3 in=4x4 k=3 s=2", &f);
    const iohw_backend *t = lb.table;
    expect_invalid(&lb, t->run(lb.ctx, &q.p, q.x, q.w, q.bias, q.y), "is quantized");
    expect_invalid(&lb, t->run_quant(lb.ctx, &f.p, f.x, f.w, NULL, f.x, f.y), "is not quantized");
    expect_invalid(&lb, t->run_quant(lb.ctx, &q.p, q.x, q.w, q.bias, NULL, q.y),
                   "requant is NULL");
    iohw_case_free(&q);
    iohw_case_free(&f);
    iohw_backend_unload(&lb);
}

/* On the s8 path XNNPACK refuses M = s_x * s_w / s_y >= 256: run_quant()
 * answers UNSUPPORTED with the reason before libtorch is called, y left
 * alone. */
Test(torch_quant, an_s8_scale_xnnpack_refuses_is_unsupported_from_run_quant)
{
    static const int8_t x[4] = {1, 2, 3, 4}, w[2] = {1, -1};
    static const float s_w = 0x1p10f;   /* M = 2^-1 * 2^10 / 1 = 512 */
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_error err;
    int8_t y[5];
    load_or_skip("iohw_torch", &lb);
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=4 k=2 dt=s8 sx=0.5 sy=1", &d, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    memset(y, 0x5A, sizeof y);
    cr_expect_eq(lb.table->run_quant(lb.ctx, &d.p, x, w, NULL, &s_w, y), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "below 256") != NULL, "%s",
              iohw_backend_last_error(&lb));
    for (size_t i = 0; i < sizeof y; i++)
        cr_expect_eq(y[i], 0x5A, "y[%zu] was written", i);
    iohw_backend_unload(&lb);
}
