/*
 * tests/test_suite_backward.c - the backward cases of the suites
 * (specification sections 9 and 13), tested on the plans and on the fills:
 * every profile holds both directions in backward.h5 over ranks, dtypes,
 * groups, strides, dilation, padding, output_padding, bias and batch; ids
 * and dir- tags follow the direction; each bug-bwd-<name> tag marks cases
 * of the shape its bug needs; the backward covering arrays hold every pair
 * of the 409 that can coexist (counted by hand below); forward coverage
 * stays what it was; the models profile adds its layers' gradients of at
 * most 2^16 elements; a suite inside a backend's claim offers backward
 * cases only where accepts() takes their direction, and they change no
 * forward figure (tests/test_fill_direction.c tests the fill of dy).
 * Labelled slow: planning ci and full is inherent work (about 12 s of CPU
 * under the sanitizers, each profile planned once for its two checks).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "generators/claim.h"
#include "generators/suite.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "support/tags.h"

static iohw_plan plan_of(const char *profile)
{
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_plan_profile(profile, 1, &plan, &e), 0, "%s: %s", profile, e.msg);
    return plan;
}

static int is_bwd(const iohw_plan_case *c)
{
    return c->desc.p.direction != IOHW_DIR_FWD;
}

static int any_axis(const int64_t *v, uint32_t rank, int64_t above)
{
    for (uint32_t a = 0; a < rank; a++)
        if (v[a] > above)
            return 1;
    return 0;
}

/* What a profile's backward cases hold, counted from the problems. */
typedef struct seen {
    int64_t n, dir[3], dtype[4], rank[4];
    int64_t grouped, dilated, asym, outpad, strided, bias_w, nobias_w, batch;
} seen;

static void count(const iohw_plan *plan, seen *s)
{
    memset(s, 0, sizeof *s);
    for (int64_t i = 0; i < plan->count; i++) {
        const iohw_plan_case *c = &plan->cases[i];
        const iohw_problem *p = &c->desc.p;
        if (!is_bwd(c))
            continue;
        cr_expect_str_eq(plan->files[c->file], "backward.h5", "%s", c->id);
        s->n++;
        s->dir[p->direction]++;
        s->dtype[p->dtype == IOHW_F32 ? 0 : p->dtype == IOHW_F64 ? 1
                 : p->dtype == IOHW_F16 ? 2 : 3]++;
        s->rank[p->rank]++;
        s->grouped += p->groups > 1;
        s->dilated += any_axis(p->dilation, p->rank, 1);
        s->strided += any_axis(p->stride, p->rank, 1);
        s->outpad += any_axis(p->output_padding, p->rank, 0);
        s->batch += p->batch > 1;
        for (uint32_t a = 0; a < p->rank; a++)
            if (p->pad_begin[a] != p->pad_end[a]) {
                s->asym++;
                break;
            }
        if (p->direction == IOHW_DIR_BWD_W) {
            s->bias_w += p->has_bias != 0;
            s->nobias_w += p->has_bias == 0;
        }
        cr_expect(p->direction == IOHW_DIR_BWD_W || !p->has_bias, "%s", c->id);
        iohw_error e;
        cr_expect_eq(iohw_problem_validate(p, &e), 0, "%s: %s", c->id, e.msg);
    }
}

/* Each profile is planned once for both checks below (planning ci and
 * full is most of this file's time). */
static void check_factors(const char *profile, const seen *s)
{
    cr_expect_gt(s->dir[IOHW_DIR_BWD_D], 0, "%s", profile);
    cr_expect_gt(s->dir[IOHW_DIR_BWD_W], 0, "%s", profile);
    for (int t = 0; t < 4; t++)
        cr_expect_gt(s->dtype[t], 0, "%s dtype %d", profile, t);
    for (int r = 1; r <= 3; r++)
        cr_expect_gt(s->rank[r], 0, "%s rank %d", profile, r);
    cr_expect_gt(s->grouped, 0, "%s", profile);
    cr_expect_gt(s->dilated, 0, "%s", profile);
    cr_expect_gt(s->asym, 0, "%s", profile);
    cr_expect_gt(s->outpad, 0, "%s", profile);
    cr_expect_gt(s->strided, 0, "%s", profile);
    cr_expect_gt(s->bias_w, 0, "%s", profile);
    cr_expect_gt(s->nobias_w, 0, "%s", profile);
    cr_expect_gt(s->batch, 0, "%s", profile);
}

Test(suite_backward, every_profile_holds_both_directions_over_every_factor_smoke_61_ci_330_full_778)
{
    /* Measured when the category was designed: smoke's budget is about 90
     * backward cases (many tests write smoke), ci's about 350. */
    static const char *const PROFILES[] = {"smoke", "ci", "full"};
    static const int64_t WANT[] = {61, 330, 778};
    for (int k = 0; k < 3; k++) {
        iohw_plan plan = plan_of(PROFILES[k]);
        seen s;
        count(&plan, &s);
        check_factors(PROFILES[k], &s);
        cr_expect_eq(s.n, WANT[k], "%s has %lld backward cases", PROFILES[k],
                     (long long)s.n);
        int64_t in_file = -1;
        for (int f = 0; f < plan.nfiles; f++)
            if (strcmp(plan.files[f], "backward.h5") == 0)
                in_file = plan.file_cases[f];
        cr_expect_eq(in_file, WANT[k], "%s", PROFILES[k]);
        iohw_plan_free(&plan);
    }
}

Test(suite_backward, ids_name_rank_direction_and_dtype_and_tags_name_the_direction)
{
    iohw_plan plan = plan_of("ci");
    int64_t counter = 0;
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *c = &plan.cases[i];
        const iohw_problem *p = &c->desc.p;
        char tags[1024], want[64];
        cr_assert_gt(iohw_plan_case_tags(c, tags, sizeof tags), 0, "%s", c->id);
        const int d = iohw_test_has_tag(tags, "dir-bwd_d");
        const int w = iohw_test_has_tag(tags, "dir-bwd_w");
        if (!is_bwd(c)) {
            cr_expect(!d && !w, "forward case %s carries a dir- tag", c->id);
            continue;
        }
        cr_expect_eq(d, p->direction == IOHW_DIR_BWD_D, "%s: %s", c->id, tags);
        cr_expect_eq(w, p->direction == IOHW_DIR_BWD_W, "%s: %s", c->id, tags);
        cr_expect(iohw_test_has_tag(tags, "backward"), "%s", c->id);
        snprintf(want, sizeof want, "ct%ud.%s.%s.%04lld", (unsigned)p->rank,
                 p->direction == IOHW_DIR_BWD_D ? "bwd_d" : "bwd_w",
                 iohw_dtype_name(p->dtype), (long long)counter++);
        cr_expect_str_eq(c->id, want);
    }
    iohw_plan_free(&plan);
}

/* The shape each bug tag promises (see suite_backward_rows.c). */
static int fits(const char *bug, const iohw_problem *p)
{
    const int64_t Cg = p->in_channels / p->groups, Mg = p->out_channels / p->groups;
    if (strcmp(bug, "bug-bwd-io-swap") == 0)
        return Cg != Mg;
    if (strcmp(bug, "bug-bwd-no-flip") == 0) {
        for (uint32_t a = 0; a < p->rank; a++)
            if (p->kernel[a] > 1)
                return 1;
        return 0;
    }
    if (strcmp(bug, "bug-bwd-op-leak") == 0)
        return any_axis(p->output_padding, p->rank, 0);
    if (strcmp(bug, "bug-bwd-stride-phase") == 0) {
        for (uint32_t a = 0; a < p->rank; a++)
            if (p->stride[a] > 1 && p->kernel[a] % p->stride[a] != 0)
                return 1;
        return 0;
    }
    if (strcmp(bug, "bug-bwd-group-interleave") == 0)
        return p->groups > 1 && Cg != Mg;
    if (strcmp(bug, "bug-bwd-db-axes") == 0)
        return p->direction == IOHW_DIR_BWD_W && p->has_bias && p->batch > 1
               && iohw_problem_y_count(p) > p->batch * p->out_channels;
    if (strcmp(bug, "bug-bwd-batch") == 0)
        return p->direction == IOHW_DIR_BWD_W && p->batch > 1;
    return 0;
}

Test(suite_backward, each_bug_tag_marks_smoke_cases_of_its_shape_in_two_dtypes)
{
    static const char *const BUGS[] = {
        "bug-bwd-io-swap", "bug-bwd-no-flip", "bug-bwd-op-leak", "bug-bwd-stride-phase",
        "bug-bwd-group-interleave", "bug-bwd-db-axes", "bug-bwd-batch",
    };
    iohw_plan plan = plan_of("smoke");
    for (size_t b = 0; b < sizeof BUGS / sizeof BUGS[0]; b++) {
        int n = 0, f32 = 0, other = 0, grouped_db = 0, op_beyond = 0;
        for (int64_t i = 0; i < plan.count; i++) {
            const iohw_plan_case *c = &plan.cases[i];
            if (!iohw_test_has_tag(c->tags, BUGS[b]))
                continue;
            n++;
            cr_expect(fits(BUGS[b], &c->desc.p), "%s tagged %s", c->id, BUGS[b]);
            f32 += c->desc.p.dtype == IOHW_F32;
            other += c->desc.p.dtype != IOHW_F32;
            grouped_db += c->desc.p.groups > 1;
            op_beyond += iohw_problem_beyond_limit(&c->desc.p);
        }
        cr_expect_geq(n, 4, "%s: %d smoke cases", BUGS[b], n);
        cr_expect_gt(f32, 0, "%s", BUGS[b]);
        cr_expect_gt(other, 0, "%s", BUGS[b]);
        if (strcmp(BUGS[b], "bug-bwd-db-axes") == 0)
            cr_expect_gt(grouped_db, 0, "db per group needs groups");
        if (strcmp(BUGS[b], "bug-bwd-op-leak") == 0)
            cr_expect_gt(op_beyond, 0, "output_padding rows no (i, k) reaches");
    }
    iohw_plan_free(&plan);
}

Test(suite_backward, its_covering_array_holds_all_409_pairs_and_forward_coverage_stays)
{
    /* Backward factors: dir 2, dtype 4, rank 3, groups 3, stride 3,
     * dilation 2, padding 3, output_padding 2, bias 2, batch 2, fill 2,
     * layout 2: sum 30, sum of squares 80, (30^2 - 80) / 2 = 410 pairs, of
     * which (bwd_d, bias) cannot coexist: 409. */
    iohw_plan plan = plan_of("smoke");
    cr_expect_eq(plan.bwd_nfactors, 12);
    cr_expect_eq(plan.bwd_pairs_coexisting, 409);
    cr_expect_eq(plan.bwd_pairs_covered, 409);
    cr_expect_gt(plan.bwd_rows, 0);
    /* The forward figures of smoke before the backward category. */
    cr_expect_eq(plan.pairs_coexisting, 2139);
    cr_expect_eq(plan.pairs_covered, 2139);
    iohw_plan_free(&plan);
}

Test(suite_backward, models_adds_each_layers_gradients_of_at_most_2_16_elements)
{
    iohw_plan plan = plan_of("models");
    int64_t fwd = 0, d = 0, w = 0;
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *c = &plan.cases[i];
        const iohw_problem *p = &c->desc.p;
        const char *dot = strrchr(c->id, '.');
        if (!is_bwd(c)) {
            fwd++;
            /* Its gradients are there exactly when they are small. */
            int64_t nx = p->batch * p->in_channels, nw = p->in_channels
                         * (p->out_channels / p->groups);
            for (uint32_t a = 0; a < p->rank; a++) {
                nx *= p->in_size[a];
                nw *= p->kernel[a];
            }
            int has_d = 0, has_w = 0;
            for (int64_t j = 0; j < plan.count; j++) {
                size_t n = strlen(c->id);
                if (strncmp(plan.cases[j].id, c->id, n) != 0)
                    continue;
                has_d |= strcmp(plan.cases[j].id + n, ".bwd_d") == 0;
                has_w |= strcmp(plan.cases[j].id + n, ".bwd_w") == 0;
            }
            cr_expect_eq(has_d, nx <= 65536, "%s: x has %lld elements", c->id,
                         (long long)nx);
            cr_expect_eq(has_w, nw + (p->has_bias ? p->out_channels : 0) <= 65536,
                         "%s: w has %lld elements", c->id, (long long)nw);
            continue;
        }
        cr_expect_leq(iohw_problem_out_count(p), 65536, "%s", c->id);
        cr_expect_str_eq(dot, p->direction == IOHW_DIR_BWD_D ? ".bwd_d" : ".bwd_w");
        cr_expect_str_eq(plan.files[c->file], "models.h5");
        d += p->direction == IOHW_DIR_BWD_D;
        w += p->direction == IOHW_DIR_BWD_W;
    }
    cr_expect_eq(fwd, 76);
    cr_expect_gt(d, 0);
    cr_expect_gt(w, 0);
    iohw_plan_free(&plan);
}

/* ---------------------------------------------------------------------- */
/* A backend's claim (generators/claim.h): backward cases go to accepts()
 * with their direction and never count as forward problems. */

/* f32 only; forward always, BWD_D when *ctx, never BWD_W. */
static int f32_accepts(const iohw_problem *p, void *ctx)
{
    const int *bwd_d = ctx;
    if (p->dtype != IOHW_F32)
        return 0;
    return p->direction == IOHW_DIR_FWD || (p->direction == IOHW_DIR_BWD_D && *bwd_d);
}

static void claim_plan(int bwd_d, int64_t *fwd, int64_t *d, int64_t *w,
                       int64_t *covered)
{
    iohw_claim c;
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_claim_learn(f32_accepts, &bwd_d, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_plan_for_claim("smoke", 1, &c, f32_accepts, &bwd_d, &plan, &e), 0,
                 "%s", e.msg);
    *fwd = *d = *w = 0;
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_problem *p = &plan.cases[i].desc.p;
        cr_expect_eq(p->dtype, IOHW_F32, "%s", plan.cases[i].id);
        *fwd += p->direction == IOHW_DIR_FWD;
        *d += p->direction == IOHW_DIR_BWD_D;
        *w += p->direction == IOHW_DIR_BWD_W;
    }
    *covered = plan.claim_covered;
    iohw_plan_free(&plan);
    iohw_claim_free(&c);
}

Test(suite_backward, a_claim_offers_backward_cases_only_where_accepts_takes_their_direction)
{
    /* smoke's f32 BWD_D cases, counted on the plain plan. */
    iohw_plan smoke = plan_of("smoke");
    int64_t want_d = 0;
    for (int64_t i = 0; i < smoke.count; i++)
        want_d += smoke.cases[i].desc.p.direction == IOHW_DIR_BWD_D
                  && smoke.cases[i].desc.p.dtype == IOHW_F32;
    iohw_plan_free(&smoke);
    cr_assert_gt(want_d, 0);

    int64_t fwd0, d0, w0, cov0, fwd1, d1, w1, cov1;
    claim_plan(0, &fwd0, &d0, &w0, &cov0);
    claim_plan(1, &fwd1, &d1, &w1, &cov1);
    cr_expect_eq(d0 + w0, 0, "a backend without backward entry points gets none");
    cr_expect_eq(d1, want_d);
    cr_expect_eq(w1, 0);
    /* The forward part and its claimed-pair coverage do not change. */
    cr_expect_eq(fwd1, fwd0);
    cr_expect_eq(cov1, cov0);
}
