/*
 * tests/test_suite_quant.c - the quantized category of the suites
 * (generators/suite_quant.c, specification section 11.4): its size in
 * smoke and ci, what its rows cover (x and y types, M per tensor and per
 * channel, both forms, every rounding, groups, strides), its tags, and
 * outputs that span y's range without most of them saturating.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "generators/generators.h"
#include "generators/suite.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef struct seen {
    int count, x[8], y[8], pc[2], form[3], rounding[5], grouped, strided;
} seen;

static seen plan_quant(const char *profile, iohw_plan *plan)
{
    iohw_error err = {{0}};
    seen s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(iohw_plan_profile(profile, 1, plan, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < plan->count; i++) {
        const iohw_problem *p = &plan->cases[i].desc.p;
        if (strcmp(plan->files[plan->cases[i].file], "quant.h5") != 0) {
            cr_expect(!iohw_problem_is_quant(p), "%s", plan->cases[i].id);
            continue;
        }
        cr_assert(iohw_problem_is_quant(p), "%s", plan->cases[i].id);
        cr_expect(strstr(plan->cases[i].id, ".quant.") != NULL, "%s", plan->cases[i].id);
        if (strcmp(plan->cases[i].desc.fill, "qrandom") != 0 ||
            strstr(plan->cases[i].tags, "qlib") != NULL)
            continue; /* the designed rows (suite_qdesign.c) and the rows the
                         libraries claim (suite_qlib.c) are counted apart */
        s.count++;
        s.x[p->dtype]++;
        s.y[iohw_problem_y_dtype(p)]++;
        s.pc[p->per_channel]++;
        s.form[p->m_form]++;
        s.rounding[p->rounding]++;
        s.grouped += p->groups > 1;
        s.strided += p->stride[0] > 1;
        cr_expect(p->rounding != IOHW_ROUND_GEMMLOWP || p->m_form == IOHW_QM_FIXED);
    }
    return s;
}

static void expect_coverage(const seen *s, const char *profile)
{
    cr_expect(s->x[IOHW_S8] > 0 && s->x[IOHW_U8] > 0, "%s: x types", profile);
    cr_expect(s->y[IOHW_S8] > 0 && s->y[IOHW_U8] > 0 && s->y[IOHW_S32] > 0, "%s: y", profile);
    cr_expect(s->pc[0] > 0 && s->pc[1] > 0, "%s: per tensor and per channel", profile);
    cr_expect(s->form[IOHW_QM_SCALES] > 0 && s->form[IOHW_QM_FIXED] > 0, "%s", profile);
    for (int r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_GEMMLOWP; r++)
        cr_expect(s->rounding[r] >= 2, "%s: %s in %d cases", profile,
                  iohw_quant_rounding_name(r), s->rounding[r]);
    cr_expect(s->grouped > 0 && s->strided > 0, "%s: groups and strides", profile);
}

Test(suite_quant, smoke_has_about_16_quantized_cases_covering_every_mode)
{
    iohw_plan plan;
    seen s = plan_quant("smoke", &plan);
    cr_expect(s.count >= 12 && s.count <= 24, "smoke has %d", s.count);
    expect_coverage(&s, "smoke");
    iohw_plan_free(&plan);
}

Test(suite_quant, ci_has_about_80_quantized_cases_covering_every_mode)
{
    iohw_plan plan;
    seen s = plan_quant("ci", &plan);
    cr_expect(s.count >= 60 && s.count <= 120, "ci has %d", s.count);
    expect_coverage(&s, "ci");
    iohw_plan_free(&plan);
}

/* Saturated elements of y (s8 or u8) and the span of its values. */
static void saturation(const iohw_case *c, int64_t *sat, int64_t *span)
{
    const iohw_dtype yd = iohw_problem_y_dtype(&c->p);
    const int64_t n = iohw_problem_y_count(&c->p);
    const double lo = yd == IOHW_S8 ? -128 : 0, hi = lo + 255;
    double mn = hi, mx = lo;
    *sat = 0;
    for (int64_t i = 0; i < n; i++) {
        const double v = iohw_dtype_load(yd, c->y, (size_t)i);
        *sat += v == lo || v == hi;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    *span = (int64_t)(mx - mn);
}

Test(suite_quant, smoke_outputs_span_the_range_and_rarely_saturate_and_are_tagged)
{
    iohw_plan plan;
    iohw_error err = {{0}};
    plan_quant("smoke", &plan);
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *pc = &plan.cases[i];
        if (!iohw_problem_is_quant(&pc->desc.p))
            continue;
        iohw_case c;
        cr_assert_eq(iohw_make_case(&pc->desc, pc->id, pc->tags, 1, &c, &err), 0, "%s",
                     err.msg);
        char want[IOHW_DESC_MAX];
        cr_assert_gt(iohw_desc_format(&pc->desc, want, sizeof want), 0);
        cr_expect_str_eq(c.descriptor, want, "%s: the plan's descriptor is the case's", pc->id);
        cr_expect(strstr(c.tags, "quant") != NULL, "%s: %s", pc->id, c.tags);
        if (c.p.rounding != 0)
            cr_expect(strstr(c.tags, iohw_quant_rounding_name(c.p.rounding)) != NULL,
                      "%s: %s", pc->id, c.tags);
        /* qrandom fits the output; the designed fills may saturate on
         * purpose (qsaturate) or span few levels (qties) */
        if (iohw_problem_y_dtype(&c.p) != IOHW_S32 && strcmp(c.fill, "qrandom") == 0) {
            int64_t sat, span;
            const int64_t n = iohw_problem_y_count(&c.p);
            saturation(&c, &sat, &span);
            cr_expect_lt(sat * 10, n, "%s: %lld of %lld saturate", pc->id, (long long)sat,
                         (long long)n);
            cr_expect_gt(span, 64, "%s: y spans %lld levels", pc->id, (long long)span);
        }
        iohw_case_free(&c);
    }
    iohw_plan_free(&plan);
}
