/*
 * tests/test_suite_qlib.c - the quantized rows the int8 libraries claim
 * (generators/suite_qlib.c): their number in smoke and ci, their place at
 * the end of quant.h5, what each is (2-d, half_even, one M or M per
 * channel, the types XNNPACK's qs8/qu8 and oneDNN's int8 deconvolutions
 * take), what ci's covering array reaches (channel tails, groups, strides,
 * padding, output padding, dilation, odd widths, zero points at the ends of
 * their types, the designed fills), and that the adapters' supports()
 * claim them: XNNPACK every qs8 and qu8 one, oneDNN (pinned to AVX2) every
 * one with s8 weights.  Claims only: what the libraries compute is for
 * test_conformance and docs/CONFORMANCE.md.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "generators/suite.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "support/adapter_asserts.h"

static int is_qlib(const iohw_plan_case *pc)
{
    return strstr(pc->tags, "qlib") != NULL;
}

/* qs8: s8 throughout, zp_w 0, one M; qu8: u8 throughout, one M; u8s8: u8
 * x and y, s8 w with zp_w 0, M per channel.  -1 otherwise. */
static int lib_type(const iohw_problem *p)
{
    const int32_t w = iohw_problem_w_dtype(p), y = iohw_problem_y_dtype(p);
    if (p->dtype == IOHW_S8 && w == IOHW_S8 && y == IOHW_S8 && p->zp_w == 0 && !p->per_channel)
        return 0;
    if (p->dtype == IOHW_U8 && w == IOHW_U8 && y == IOHW_U8 && !p->per_channel)
        return 1;
    if (p->dtype == IOHW_U8 && w == IOHW_S8 && y == IOHW_U8 && p->zp_w == 0 && p->per_channel)
        return 2;
    return -1;
}

/* The plan's qlib cases, each checked; returns how many. */
static int64_t check_plan(const char *profile, iohw_plan *plan)
{
    iohw_error err = {{0}};
    int64_t n = 0, first = -1, last_quant = -1;
    cr_assert_eq(iohw_plan_profile(profile, 1, plan, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < plan->count; i++) {
        const iohw_plan_case *pc = &plan->cases[i];
        const iohw_problem *p = &pc->desc.p;
        /* After the qlib rows come only the zp_y rows and the deployment
         * rows (qdeploy, qwide, qshift: suite_qdesign.c). */
        if (strcmp(plan->files[pc->file], "quant.h5") == 0 &&
            strstr(pc->tags, "bug-quant-zp-y") == NULL &&
            strstr(pc->tags, "bug-quant-f32-requant") == NULL &&
            strstr(pc->tags, "bug-quant-acc-wrap") == NULL &&
            strstr(pc->tags, "bug-quant-shift-left") == NULL)
            last_quant = i;
        if (!is_qlib(pc))
            continue;
        n++;
        first = first < 0 ? i : first;
        cr_expect_eq(i, first + n - 1, "%s: the qlib rows are together", pc->id);
        cr_expect_eq(p->rank, 2, "%s", pc->id);
        cr_expect_eq(p->rounding, IOHW_ROUND_HALF_EVEN, "%s", pc->id);
        cr_expect_eq(p->m_form, IOHW_QM_SCALES, "%s", pc->id);
        const int t = lib_type(p);
        cr_expect(t >= 0, "%s: not a type the libraries take", pc->id);
        if (t == 0 || t == 1)
            cr_expect_str_eq(p->data_layout, "NHWC", "%s: XNNPACK takes NHWC", pc->id);
        cr_expect(p->output_padding[0] < p->stride[0] && p->output_padding[1] < p->stride[1],
                  "%s", pc->id);
        cr_expect(p->out_size[0] >= p->stride[0] && p->out_size[1] >= p->stride[1],
                  "%s: an output side shorter than the stride", pc->id);
    }
    cr_expect_eq(first + n - 1, last_quant, "%s: the qlib rows end quant.h5 (but for the zp_y and deployment rows)", profile);
    return n;
}

Test(suite_qlib, smoke_and_ci_end_quant_with_rows_the_libraries_take)
{
    iohw_plan plan;
    const int64_t smoke = check_plan("smoke", &plan);
    iohw_plan_free(&plan);
    cr_expect(smoke >= 6 && smoke <= 12, "smoke has %lld qlib cases", (long long)smoke);
    const int64_t ci = check_plan("ci", &plan);
    iohw_plan_free(&plan);
    cr_expect(ci >= 25 && ci <= 50, "ci has %lld qlib cases", (long long)ci);
}

typedef struct reach {
    int type[3], ends[3][2], cg[18], mg[18], grouped, depthwise, strided, op, dilated,
        asym, batch, bias[2], odd_w, fill_ties, fill_zp, fill_sat;
} reach;

static void note(reach *r, const iohw_plan_case *pc)
{
    const iohw_problem *p = &pc->desc.p;
    const int t = lib_type(p);
    const int64_t cg = p->in_channels / p->groups, mg = p->out_channels / p->groups;
    const int lo = p->dtype == IOHW_S8 ? -128 : 0;
    if (t < 0)
        return;
    r->type[t]++;
    r->ends[t][0] += p->zp_x == lo;
    r->ends[t][1] += p->zp_x == lo + 255;
    r->cg[cg < 17 ? cg : 17]++;
    r->mg[mg < 17 ? mg : 17]++;
    r->grouped += p->groups > 1 && cg > 1;
    r->depthwise += p->groups > 1 && cg == 1 && mg == 1;
    r->strided += p->stride[0] > 1 || p->stride[1] > 1;
    r->op += p->output_padding[0] > 0 || p->output_padding[1] > 0;
    r->dilated += p->dilation[0] > 1 || p->dilation[1] > 1;
    r->asym += p->pad_begin[0] != p->pad_end[0] || p->pad_begin[1] != p->pad_end[1];
    r->batch += p->batch > 1;
    r->bias[p->has_bias != 0]++;
    r->odd_w += p->in_size[1] % 2 == 1 && p->in_size[1] > 1;
    r->fill_ties += strcmp(pc->desc.fill, "qties") == 0;
    r->fill_zp += strcmp(pc->desc.fill, "qzp-extreme") == 0;
    r->fill_sat += strcmp(pc->desc.fill, "qsaturate") == 0;
}

Test(suite_qlib, ci_reaches_channel_tails_geometry_and_extreme_zero_points)
{
    iohw_plan plan;
    iohw_error err = {{0}};
    reach r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(iohw_plan_profile("ci", 1, &plan, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < plan.count; i++)
        if (is_qlib(&plan.cases[i]))
            note(&r, &plan.cases[i]);
    iohw_plan_free(&plan);
    for (int t = 0; t < 3; t++) {
        cr_expect_geq(r.type[t], 5, "type %d in %d cases", t, r.type[t]);
        cr_expect(r.ends[t][0] > 0 && r.ends[t][1] > 0, "type %d: zp_x at both ends", t);
    }
    /* XNNPACK's channel tails: 1 and 17 per group, and one block of 16 */
    cr_expect(r.cg[1] > 0 && r.cg[16] > 0 && r.cg[17] > 0, "input channels per group");
    cr_expect(r.mg[1] > 0 && r.mg[17] > 0, "output channels per group");
    cr_expect(r.grouped > 0 && r.depthwise > 0 && r.strided > 0 && r.op > 0, "geometry");
    cr_expect(r.dilated > 0 && r.asym > 0 && r.batch > 0 && r.odd_w > 0, "geometry");
    cr_expect(r.bias[0] > 0 && r.bias[1] > 0, "with and without bias");
    cr_expect(r.fill_ties >= 2 && r.fill_zp >= 2 && r.fill_sat >= 2, "designed fills");
}

/* lib's supports() claims every qlib case of the profile whose type is
 * in `types` (a mask of lib_type values). */
static void expect_claimed(const char *lib, const char *profile, int types)
{
    iohw_loaded_backend lb;
    iohw_plan plan;
    iohw_error err = {{0}};
    int claimed = 0;
    load_or_skip(lib, &lb);
    cr_assert_eq(iohw_plan_profile(profile, 1, &plan, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_problem *p = &plan.cases[i].desc.p;
        if (!is_qlib(&plan.cases[i]) || !(types >> lib_type(p) & 1))
            continue;
        claimed++;
        cr_expect_eq(lb.table->supports(lb.ctx, p), IOHW_OK, "%s does not claim %s %s: %s",
                     lib, profile, plan.cases[i].id, iohw_backend_last_error(&lb));
    }
    cr_expect_gt(claimed, 0, "%s: no case to claim", profile);
    iohw_plan_free(&plan);
    iohw_backend_unload(&lb);
}

Test(suite_qlib, xnnpack_claims_every_qs8_and_qu8_row)
{
    expect_claimed("iohw_xnnpack", "smoke", 1 << 0 | 1 << 1);
    expect_claimed("iohw_xnnpack", "ci", 1 << 0 | 1 << 1);
}

Test(suite_qlib, onednn_pinned_to_avx2_claims_every_row_with_s8_weights)
{
    cr_assert_eq(setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1), 0);
    expect_claimed("iohw_onednn", "smoke", 1 << 0 | 1 << 2);
    expect_claimed("iohw_onednn", "ci", 1 << 0 | 1 << 2);
}
