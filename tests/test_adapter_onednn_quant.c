/*
 * tests/test_adapter_onednn_quant.c - the oneDNN adapter's run_quant()
 * (backends/onednn/onednn_quant.c, specification section 11), called
 * in-process through the loader.
 *
 * What holds on any x86-64 CPU (oneDNN pinned to its AVX2 kernels, which
 * have no VNNI: they halve s8 weights and saturate u8 x s8 pairs at int16,
 * docs/CONFORMANCE.md O5-O6, and add zp_y before rounding, O4): a grouped,
 * per-channel problem built so that every step is exact on every kernel
 * (even weights, small accumulators, power-of-two scales, an even zp_y)
 * comes out as computed by hand, ties rounded to even and each channel's
 * scale taken along O; what oneDNN 2.6 cannot state (u8 weights, a weight
 * zero point, the fixed form, roundings other than half_even) is refused
 * with the reason.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "support/adapter_asserts.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void pin_kernels(void)
{
    setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1);
}

TestSuite(onednn_quant, .init = pin_kernels);

/* N=1, C_in=2, C_out=4, G=2 (Cg=1, Mg=2), W=3, K=2, S=2: out 6, no two
 * taps meet.  s8 x with zp_x 2, s8 w (IOW), s8 y with zp_y 4, half_even,
 * per-channel s_w = [1, 0.5, 0.25, 2], s_x 0.5, s_y 1: M = [1/2, 1/4, 1/8,
 * 1] along O. */
static void grouped_problem(iohw_problem *p)
{
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->rank = 1;
    p->batch = 1;
    p->in_channels = 2;
    p->out_channels = 4;
    p->groups = 2;
    p->in_size[0] = 3;
    p->kernel[0] = 2;
    p->stride[0] = 2;
    p->dilation[0] = 1;
    p->out_size[0] = 6;
    strcpy(p->data_layout, "NCW");
    strcpy(p->weight_layout, "IOW");
    p->dtype = p->w_dtype = p->y_dtype = IOHW_S8;
    p->has_bias = 1;
    p->zp_x = 2;
    p->zp_y = 4;
    p->rounding = IOHW_ROUND_HALF_EVEN;
    p->m_form = IOHW_QM_SCALES;
    p->per_channel = 1;
    p->s_x = 0.5f;
    p->s_y = 1.0f;
}

Test(onednn_quant, a_grouped_per_channel_problem_comes_out_exact)
{
    static const int8_t x[2][3] = {{4, -6, 10}, {-2, 8, 6}};
    static const int8_t w[2][2][2] = {{{2, 4}, {-6, 2}}, {{4, -2}, {8, 6}}};
    static const int32_t bias[4] = {11, -18, 0, 6};
    static const float s_w[4] = {1.0f, 0.5f, 0.25f, 2.0f};
    /* By hand: acc[oc][2i + k] = bias[oc] + (x[g][i] - 2) * w[g][m][k],
     * y = 4 + R(M[oc] * acc); e.g. oc 0, o 0: 11 + 2 * 2 = 15, 7.5 -> 8
     * (a tie to even), 12.  Channels 0, 1 and 3 have ties. */
    static const int8_t want[4][6] = {{12, 14, 2, -6, 18, 26},
                                      {-4, 0, 12, -4, -12, 4},
                                      {2, 5, 7, 2, 6, 3},
                                      {-22, -14, 58, 46, 42, 34}};
    iohw_loaded_backend lb;
    iohw_problem p;
    int8_t y[4][6];
    load_or_skip("iohw_onednn", &lb);
    grouped_problem(&p);
    cr_assert(IOHW_HAS_MEMBER(lb.table, iohw_backend, run_quant) &&
              lb.table->run_quant != NULL, "the onednn adapter has no run_quant");
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    memset(y, 0x55, sizeof y);
    cr_assert_eq(lb.table->run_quant(lb.ctx, &p, x, w, bias, s_w, y), IOHW_OK,
                 "%s", iohw_backend_last_error(&lb));
    for (int oc = 0; oc < 4; oc++)
        for (int o = 0; o < 6; o++)
            cr_expect_eq(y[oc][o], want[oc][o], "y[%d][%d]: expected %d, got %d",
                         oc, o, want[oc][o], y[oc][o]);
    /* Without its scales the problem is malformed; run() is for float
     * problems only. */
    cr_expect_eq(lb.table->run_quant(lb.ctx, &p, x, w, bias, NULL, y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "requant") != NULL, "%s",
              iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run(lb.ctx, &p, x, w, bias, y), IOHW_INVALID_PROBLEM);
    iohw_backend_unload(&lb);
}

/* The version names oneDNN's effective ISA: pinned to AVX2 that is avx2 on
 * every CPU with AVX2, and "vnni" is not in it, so the baseline entries of
 * O5 and O6 (`version!~vnni`) apply. */
Test(onednn_quant, the_version_names_the_pinned_isa_without_vnni)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_onednn", &lb);
    const char *v = lb.table->version;
    cr_expect(strstr(v, "; ISA avx2)") != NULL, "version '%s'", v);
    cr_expect(strstr(v, "vnni") == NULL, "version '%s'", v);
    iohw_backend_unload(&lb);
}

/* Refused problems and a word of the reason each must give. */
static const struct {
    const char *desc, *why;
} REFUSED[] = {
    {"ci=2 co=3 in=4 k=3 dt=s8 wdt=u8 ydt=s8 round=half_even m=scales sx=0.5 sy=1",
     "s8 weights"},
    {"ci=2 co=3 in=4 k=3 dt=u8 wdt=s8 ydt=u8 zp=0,3,0 round=half_even m=scales sx=0.5 sy=1",
     "weight zero point"},
    {"ci=2 co=3 in=4 k=3 dt=s8 wdt=s8 ydt=s8 round=half_even m=fixed", "fixed"},
    {"ci=2 co=3 in=4 k=3 dt=s8 wdt=s8 ydt=s8 round=half_away m=scales sx=0.5 sy=1",
     "half_away"},
    {"ci=2 co=3 in=4 k=3 dt=s8 wdt=s8 ydt=u8 round=half_up m=scales sx=0.5 sy=1",
     "half_up"},
    {"ci=2 co=3 in=4 k=3 dt=s8 wdt=s8 ydt=s8 round=gemmlowp m=fixed", "fixed"},
};

Test(onednn_quant, what_onednn_26_cannot_state_is_refused_with_the_reason)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_onednn", &lb);
    for (size_t i = 0; i < NELEMS(REFUSED); i++) {
        expect_unsupported(&lb, REFUSED[i].desc);
        cr_expect(strstr(iohw_backend_last_error(&lb), REFUSED[i].why) != NULL,
                  "'%s' refused with '%s', which does not say '%s'",
                  REFUSED[i].desc, iohw_backend_last_error(&lb), REFUSED[i].why);
    }
    iohw_backend_unload(&lb);
}
