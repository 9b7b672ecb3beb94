/*
 * tests/test_claim_layouts.c - the claim of a backend that takes one data
 * layout with one weight layout (generators/claim.h), as TFLite does:
 * x in N<spatial>C, the weights in O<spatial>I (OWI, OHWI), ranks 1 and 2,
 * f32, one group, no dilation, no padding, no output_padding.  Such a
 * backend claims, among others, every kernel size with channels-last data
 * and every stride in 1-d: the search finds these pairs with at most a few
 * thousand accepts() calls, and the suite it plans is non-empty and all
 * claimed.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "generators/claim.h"
#include "generators/suite_internal.h"

#define CALLS_MAX 4000  /* "a few thousand": 3,326 now */

/* Factor numbers and value counts (generators/suite_factors.c). */
enum { F_RANK = 0, F_KERNEL = 3, F_STRIDE = 4, F_XL = 15, F_WL = 16 };
enum { KERNELS = 6, STRIDES = 4, RANK_1D = 0, RANK_2D = 1, XL_LAST = 1, WL_OTHER = 4 };

/* The rule, on a problem. */
static int nhwc_ohwi_rule(const iohw_problem *p)
{
    char data[8], weights[8];
    if (p->rank < 1 || p->rank > 2 || p->dtype != IOHW_F32 || p->groups != 1)
        return 0;
    const char *sp = p->rank == 1 ? "W" : "HW";
    snprintf(data, sizeof data, "N%sC", sp);
    snprintf(weights, sizeof weights, "O%sI", sp);
    if (strcmp(p->data_layout, data) != 0 || strcmp(p->weight_layout, weights) != 0)
        return 0;
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->dilation[a] != 1 || p->pad_begin[a] != 0 || p->pad_end[a] != 0
            || p->output_padding[a] != 0)
            return 0;
    return 1;
}

static int nhwc_ohwi_accepts(const iohw_problem *p, void *ctx)
{
    int *calls = ctx;
    if (calls != NULL)
        (*calls)++;
    return p->direction == IOHW_DIR_FWD && nhwc_ohwi_rule(p);
}

static int claimed(const iohw_claim *c, int f, int a, int g, int b)
{
    return c->pair[(size_t)(c->offset[f] + a) * (size_t)c->nvalues
                   + (size_t)(c->offset[g] + b)];
}

Test(claim_layouts, one_layout_pair_is_found_within_a_few_thousand_calls)
{
    iohw_claim c;
    iohw_error e;
    int calls = 0;
    cr_assert_eq(iohw_claim_learn(nhwc_ohwi_accepts, &calls, &c, &e), 0, "%s", e.msg);
    cr_expect_gt(c.accepted_rows, 0, "no row accepted in %d calls", calls);
    cr_expect_leq(calls, CALLS_MAX, "%d accepts() calls", calls);
    cr_expect_eq(c.asked, calls);
    cr_expect(claimed(&c, F_RANK, RANK_2D, F_WL, WL_OTHER));
    cr_expect(claimed(&c, F_RANK, RANK_1D, F_XL, XL_LAST));
    for (int k = 0; k < KERNELS; k++)
        cr_expect(claimed(&c, F_KERNEL, k, F_XL, XL_LAST), "kernel value %d not claimed", k);
    for (int s = 0; s < STRIDES; s++)
        cr_expect(claimed(&c, F_STRIDE, s, F_RANK, RANK_1D), "stride value %d not claimed", s);
    iohw_claim_free(&c);
}

Test(claim_layouts, the_suite_for_the_claim_is_non_empty_and_all_claimed)
{
    iohw_claim c;
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_claim_learn(nhwc_ohwi_accepts, NULL, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_plan_for_claim("smoke", 1, &c, nhwc_ohwi_accepts, NULL, &plan, &e), 0,
                 "%s", e.msg);
    int64_t pairwise = 0;
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_problem *p = &plan.cases[i].desc.p;
        cr_expect(nhwc_ohwi_rule(p), "case %s (%s, %s) is not claimed", plan.cases[i].id,
                  p->data_layout, p->weight_layout);
        pairwise += plan.cases[i].file == IOHW__CAT_PAIRWISE;
    }
    cr_expect_geq(pairwise, 10, "%lld pairwise cases", (long long)pairwise);
    cr_expect_eq(plan.claim_covered, plan.claim_pairs, "the suite holds %lld of %lld pairs",
                 (long long)plan.claim_covered, (long long)plan.claim_pairs);
    iohw_plan_free(&plan);
    iohw_claim_free(&c);
}
