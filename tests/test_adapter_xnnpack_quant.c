/*
 * tests/test_adapter_xnnpack_quant.c - the XNNPACK adapter's run_quant
 * (specification section 11): xnn_create_deconvolution2d_nhwc_qs8 / _qu8
 * behind it, called in-process on cases built in memory.
 *
 *   - on exact-by-construction cases (the qrandom fill's power-of-two M and
 *     accumulators far below 2^24, section 11.2: XNNPACK's float
 *     requantization sees v itself on every x86-64 kernel) it claims the
 *     case, leaves the inputs alone and writes y equal to the oracle's;
 *   - it refuses what XNNPACK does not compute by the definition (s32 y,
 *     per-channel M, the fixed form, other roundings, a qs8 weight zero
 *     point, mixed types, other layouts), each with its reason, and a
 *     requantization scale XNNPACK refuses (>= 256) is UNSUPPORTED from
 *     run_quant() with the reason.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void *copy_of(const void *src, size_t n)
{
    void *d = malloc(n > 0 ? n : 1);
    cr_assert_not_null(d);
    if (n > 0)
        memcpy(d, src, n);
    return d;
}

/* Runs desc through supports() and run_quant() and expects the oracle's y
 * exactly, with x, w, bias and requant unchanged. */
static void expect_exact(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_case c;
    make(desc, &c);
    cr_assert(iohw_problem_is_quant(&c.p), "'%s' is not quantized", desc);
    cr_assert_eq(lb->table->supports(lb->ctx, &c.p), IOHW_OK,
                 "xnnpack does not claim '%s': %s", desc,
                 iohw_backend_last_error(lb));
    const size_t nx = (size_t)iohw_problem_x_count(&c.p);
    const size_t nw = (size_t)iohw_problem_w_count(&c.p);
    const size_t ny = (size_t)iohw_problem_y_count(&c.p);
    const size_t nb = c.p.has_bias ? (size_t)c.p.out_channels * 4 : 0;
    const size_t nr = iohw_quant_requant_bytes(&c.p);
    void *x = copy_of(c.x, nx), *w = copy_of(c.w, nw);
    void *b = copy_of(c.bias, nb), *rq = copy_of(c.requant, nr);
    unsigned char *y = malloc(ny);
    cr_assert_not_null(y);
    memset(y, 0x5A, ny);
    int rc = lb->table->run_quant(lb->ctx, &c.p, x, w, c.p.has_bias ? b : NULL,
                                  rq, y);
    cr_assert_eq(rc, IOHW_OK, "'%s': status %d: %s", desc, rc,
                 iohw_backend_last_error(lb));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < ny; i++)
        if (y[i] != ((const unsigned char *)c.y)[i] && bad++ == 0)
            first = i;
    cr_expect_eq(bad, 0, "'%s': %zu of %zu elements differ, first at %zu: "
                 "got %d, expected %d", desc, bad, ny, first, y[first],
                 ((const unsigned char *)c.y)[first]);
    cr_expect(memcmp(x, c.x, nx) == 0 && memcmp(w, c.w, nw) == 0 &&
                  (nb == 0 || memcmp(b, c.bias, nb) == 0) &&
                  memcmp(rq, c.requant, nr) == 0,
              "'%s': the backend wrote into its inputs", desc);
    free(x), free(w), free(b), free(rq), free(y);
    iohw_case_free(&c);
}

/* supports() refuses desc with a reason containing why. */
static void expect_refused(const iohw_loaded_backend *lb, const char *desc,
                           const char *why)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "'%s': %s", desc, err.msg);
    cr_expect_eq(lb->table->supports(lb->ctx, &d.p), IOHW_UNSUPPORTED,
                 "xnnpack claims '%s'", desc);
    cr_expect(strstr(iohw_backend_last_error(lb), why) != NULL,
              "'%s': the reason '%s' does not say '%s'", desc,
              iohw_backend_last_error(lb), why);
}

/* qs8 and qu8, groups, pads, adjustment, batch, weight layouts, zero
 * points, with and without bias: M a power of two, |acc| < 2^21. */
static const char *const EXACT[] = {
    "ci=2 co=3 in=4x4 k=3 s=2 dt=s8 ydt=s8 zp=3,0,0 bias=1 xl=NHWC wl=OHWI",
    "ci=2 co=3 in=4x4 k=3 s=2 dt=s8 zp=-7,0,0 sx=0.25 xl=NHWC wl=OIHW",
    "n=2 ci=4 co=6 g=2 in=5x3 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=u8 zp=128,7,0 "
    "bias=1 xl=NHWC wl=GOIHW",
    "ci=3 co=2 in=3x5 k=2 d=2 dt=u8 zp=0,255,0 sx=2 xl=NHWC wl=HWOI",
    "ci=4 co=4 g=4 in=4x4 k=3 s=2 pad=1 op=1 dt=s8 bias=1 xl=NHWC",
};

Test(adapter_xnnpack_quant, computes_exact_cases_as_the_oracle)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_xnnpack", &lb);
    cr_assert_not_null(lb.table->run_quant, "xnnpack has no run_quant");
    for (size_t i = 0; i < NELEMS(EXACT); i++)
        expect_exact(&lb, EXACT[i]);
    iohw_backend_unload(&lb);
}

/* What XNNPACK does not compute by the definition, with a word of the
 * reason each. */
static const struct {
    const char *desc, *why;
} REFUSED[] = {
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 ydt=s32", "no s32 output"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 pc=1", "no per-channel M"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=u8 pc=1 zp=1,2,3", "no per-channel M"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 m=fixed", "not a fixed-point multiplier"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 round=gemmlowp", "not a fixed-point multiplier"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=u8 round=half_up", "half_even only"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 round=half_away", "half_even only"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 zp=0,1,0", "no kernel zero point"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=s8 wdt=u8", "its qu8 one u8"},
    {"ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC dt=u8 ydt=s8", "its qu8 one u8"},
    {"ci=2 co=3 in=4x4 k=3 s=2 dt=s8", "NHWC data only"},
    {"ci=2 co=3 in=5 k=3 dt=u8 xl=NWC", "2-d only"},
};

Test(adapter_xnnpack_quant, refuses_what_xnnpack_does_not_compute_with_reasons)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_xnnpack", &lb);
    for (size_t i = 0; i < NELEMS(REFUSED); i++)
        expect_refused(&lb, REFUSED[i].desc, REFUSED[i].why);
    iohw_backend_unload(&lb);
}

Test(adapter_xnnpack_quant, run_refuses_a_quantized_problem_and_run_quant_a_float_one)
{
    iohw_loaded_backend lb;
    iohw_case c, f;
    load_or_skip("iohw_xnnpack", &lb);
    make(EXACT[0], &c);
    make("ci=2 co=3 in=4x4 k=3 s=2 xl=NHWC", &f);
    cr_expect_eq(lb.table->run(lb.ctx, &c.p, c.x, c.w, c.bias, c.y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "is quantized") != NULL,
              "%s", iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run_quant(lb.ctx, &f.p, f.x, f.w, NULL, f.x, f.y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "is not quantized") != NULL,
              "%s", iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run_quant(lb.ctx, &c.p, c.x, c.w, c.bias, NULL, c.y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "requant is NULL") != NULL,
              "%s", iohw_backend_last_error(&lb));
    iohw_case_free(&c);
    iohw_case_free(&f);
    iohw_backend_unload(&lb);
}

/* XNNPACK refuses a requantization scale s_x * s_w / s_y of 256 or more
 * when it creates the operator: UNSUPPORTED, saying so, y left alone. */
Test(adapter_xnnpack_quant, a_scale_xnnpack_refuses_is_unsupported_with_the_reason)
{
    iohw_loaded_backend lb;
    iohw_case c;
    load_or_skip("iohw_xnnpack", &lb);
    make(EXACT[0], &c);
    const float s_w = 0x1p40f; /* M = s_x * 2^40 / s_y: s_y <= 2^20 s_x here */
    const size_t ny = (size_t)iohw_problem_y_count(&c.p);
    unsigned char *y = malloc(ny);
    cr_assert_not_null(y);
    memset(y, 0x5A, ny);
    cr_assert_leq(c.p.s_y, 0x1p20f * c.p.s_x, "s_y %g", (double)c.p.s_y);
    cr_expect_eq(lb.table->run_quant(lb.ctx, &c.p, c.x, c.w, c.bias, &s_w, y),
                 IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "below 256") != NULL, "%s",
              iohw_backend_last_error(&lb));
    for (size_t i = 0; i < ny; i++)
        cr_assert_eq(y[i], 0x5A, "y[%zu] was written", i);
    free(y);
    iohw_case_free(&c);
    iohw_backend_unload(&lb);
}
