/*
 * tests/test_claim.c - a backend's claim (generators/claim.h), the probe
 * child (sandbox/probe.h), `iohw gen --for-backend` and `iohw run
 * --claim-coverage`, on the narrow backend (backends/narrow: f32, one
 * group, no dilation, 2-d only).
 *
 * The independent count: the claimed pairs are the pairs that coexist
 * under the suite's factor predicate narrowed by the narrow rule, written
 * here on the built problem (not the learner's search): the generic
 * pairwise coverage routine counts them, and counts which of them a set of
 * cases holds.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/claim.h"
#include "generators/suite_internal.h"
#include "sandbox/probe.h"
#include "support/shell.h"

#define NARROW IOHW_BACKEND_DIR "/libiohw_narrow.so"

/* The narrow backend's rule, on a problem. */
static int narrow_rule(const iohw_problem *p)
{
    if (p->dtype != IOHW_F32 || p->groups != 1 || p->rank != 2)
        return 0;
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->dilation[a] != 1)
            return 0;
    return 1;
}

static int narrow_accepts(const iohw_problem *p, void *ctx)
{
    int *calls = ctx;
    if (calls != NULL)
        (*calls)++;
    return narrow_rule(p);
}

/* The suite's predicate, narrowed: on partial rows what the rule implies
 * for single factor values (rank 2d, groups 1, dilation 1, f32); on
 * complete rows the rule on one of the row's first four variants. */
static iohw_pw_spec suite_spec;

/* Factor numbers (generators/suite_factors.c): rank, dilation, groups,
 * dtype; values 2d, D = 1, G = 1, f32. */
enum { F_RANK = 0, F_DILATION = 5, F_GROUPS = 9, F_DTYPE = 14 };

static int narrow_valid(const int *v, void *ctx)
{
    (void)ctx;
    if (!suite_spec.valid(v, suite_spec.ctx))
        return 0;
    if ((v[F_RANK] >= 0 && v[F_RANK] != 1) || (v[F_DILATION] >= 0 && v[F_DILATION] != 0)
        || (v[F_GROUPS] >= 0 && v[F_GROUPS] != 0) || (v[F_DTYPE] >= 0 && v[F_DTYPE] != 0))
        return 0;
    for (int f = 0; f < IOHW__NFACTORS; f++)
        if (v[f] < 0)
            return 1;
    iohw_problem p;
    for (int variant = 0; variant < 4; variant++)
        if (iohw__factors_build(v, variant, &p) == 0 && narrow_rule(&p))
            return 1;
    return 0;
}

/* Claimed pairs, and of those the pairs the accepted problems of descs
 * hold, counted independently. */
static void independent(const iohw_desc *descs, int64_t n, int64_t *claimed,
                        int64_t *covered)
{
    iohw__factors_spec(&suite_spec, 0);
    iohw_pw_spec s = suite_spec;
    s.valid = narrow_valid;
    int *rows = calloc((size_t)(n > 0 ? n : 1) * IOHW__NFACTORS, sizeof *rows);
    cr_assert_not_null(rows);
    int k = 0;
    for (int64_t i = 0; i < n; i++)
        if (narrow_rule(&descs[i].p))
            iohw__factors_classify(&descs[i].p, descs[i].fill, rows + (size_t)k++ * IOHW__NFACTORS);
    iohw_error e;
    cr_assert_eq(iohw_pairwise_coverage(&s, rows, k, claimed, covered, &e), 0, "%s", e.msg);
    free(rows);
}

static void plan_descs(const iohw_plan *plan, iohw_desc **descs)
{
    *descs = calloc((size_t)(plan->count > 0 ? plan->count : 1), sizeof **descs);
    cr_assert_not_null(*descs);
    for (int64_t i = 0; i < plan->count; i++)
        (*descs)[i] = plan->cases[i].desc;
}

Test(claim, learned_claim_equals_the_independent_count)
{
    iohw_claim c;
    iohw_error e;
    int calls = 0;
    cr_assert_eq(iohw_claim_learn(narrow_accepts, &calls, &c, &e), 0, "%s", e.msg);
    int64_t claimed, covered;
    independent(NULL, 0, &claimed, &covered);
    cr_expect_eq(c.pairs_claimed, claimed, "learned %lld pairs, independent count %lld",
                 (long long)c.pairs_claimed, (long long)claimed);
    cr_expect_lt(c.pairs_claimed, c.pairs_coexisting);
    cr_expect_eq(c.asked, calls);
    iohw_claim_free(&c);
}

Test(claim, suite_for_the_claim_is_all_claimed_and_covers_every_claimed_pair)
{
    iohw_claim c;
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_claim_learn(narrow_accepts, NULL, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_plan_for_claim("smoke", 1, &c, narrow_accepts, NULL, &plan, &e), 0,
                 "%s", e.msg);
    for (int64_t i = 0; i < plan.count; i++)
        cr_expect(narrow_rule(&plan.cases[i].desc.p), "case %s is not claimed",
                  plan.cases[i].id);

    iohw_desc *d;
    int64_t claimed, covered;
    plan_descs(&plan, &d);
    independent(d, plan.count, &claimed, &covered);
    free(d);
    cr_expect_eq(plan.claim_pairs, claimed);
    cr_expect_eq(covered, claimed, "the suite holds %lld of %lld claimed pairs",
                 (long long)covered, (long long)claimed);
    cr_expect_eq(plan.claim_covered, covered);

    /* The plain profile: fewer claimed cases, fewer claimed pairs. */
    iohw_plan smoke;
    cr_assert_eq(iohw_plan_profile("smoke", 1, &smoke, &e), 0, "%s", e.msg);
    int64_t accepted = 0;
    for (int64_t i = 0; i < smoke.count; i++)
        accepted += narrow_rule(&smoke.cases[i].desc.p);
    plan_descs(&smoke, &d);
    independent(d, smoke.count, &claimed, &covered);
    free(d);
    cr_expect_eq(plan.profile_cases, smoke.count);
    cr_expect_eq(plan.profile_claimed, accepted);
    cr_expect_eq(plan.profile_claim_covered, covered);
    cr_expect_lt(accepted, plan.count, "smoke has %lld claimed cases, the suite %lld",
                 (long long)accepted, (long long)plan.count);
    cr_expect_lt(covered, claimed);
    iohw_plan_free(&smoke);
    iohw_plan_free(&plan);
    iohw_claim_free(&c);
}

static int refuse(const iohw_problem *p, void *ctx)
{
    (void)p;
    (void)ctx;
    return 0;
}

static int broken(const iohw_problem *p, void *ctx)
{
    (void)p;
    (void)ctx;
    return -1;
}

Test(claim, nothing_claimed_means_an_empty_suite_and_errors_stop_the_learning)
{
    iohw_claim c;
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_claim_learn(refuse, NULL, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.pairs_claimed, 0);
    cr_assert_eq(iohw_plan_for_claim("smoke", 1, &c, refuse, NULL, &plan, &e), 0, "%s", e.msg);
    cr_expect_eq(plan.count, 0);
    iohw_plan_free(&plan);
    iohw_claim_free(&c);

    cr_expect_neq(iohw_claim_learn(broken, NULL, &c, &e), 0);
    cr_expect(strstr(e.msg, "asking the backend failed") != NULL, "%s", e.msg);
    iohw_claim_free(&c);
}

Test(claim, probe_child_answers_supports)
{
    iohw_probe pr;
    iohw_error e;
    iohw_desc d;
    cr_assert_eq(iohw_probe_start(NARROW, &pr, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x4 k=3x3 dt=f32", &d, &e), 0, "%s", e.msg);
    cr_expect_eq(iohw_probe_supports(&pr, &d.p, &e), 1);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x4 k=3x3 dt=f64", &d, &e), 0, "%s", e.msg);
    cr_expect_eq(iohw_probe_supports(&pr, &d.p, &e), 0);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4 k=3 dt=f32", &d, &e), 0, "%s", e.msg);
    cr_expect_eq(iohw_probe_supports(&pr, &d.p, &e), 0);
    cr_expect_eq(pr.calls, 3);
    iohw_probe_stop(&pr);
    iohw_probe_stop(&pr);
    cr_expect_eq(iohw_probe_supports(&pr, &d.p, &e), -1);

    /* A supports() that dies stops the probe with the reason. */
    cr_assert_eq(iohw_probe_start(NARROW, &pr, &e), 0, "%s", e.msg);
    cr_expect_str_eq(pr.name, "narrow");
    iohw_probe_stop(&pr);
    setenv("IOHW_NARROW_ABORT", "1", 1);
    cr_assert_eq(iohw_probe_start(NARROW, &pr, &e), 0, "%s", e.msg);
    unsetenv("IOHW_NARROW_ABORT");
    cr_expect_eq(iohw_probe_supports(&pr, &d.p, &e), -1);
    cr_expect(strstr(e.msg, "died in supports()") != NULL, "%s", e.msg);
    cr_expect_eq(pr.pid, 0);

    cr_expect_neq(iohw_probe_start(IOHW_BACKEND_DIR "/libiohw_no_such.so", &pr, &e), 0);
    cr_expect(strstr(e.msg, "libiohw_no_such.so") != NULL, "%s", e.msg);
}

/* A long version comes whole, not cut: the exec backend's version quotes
 * IOHW_EXEC_COMMAND, here 4 KB long. */
Test(claim, probe_keeps_a_4kb_version_whole)
{
    char command[4097];
    iohw_probe pr;
    iohw_error e;
    memset(command, 'x', sizeof command);
    memcpy(command, "/no/such/", 9);
    command[4096] = '\0';
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", command, 1), 0);
    cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", "1", 1), 0);
    const int rc = iohw_probe_start(IOHW_BACKEND_DIR "/libiohw_exec.so", &pr, &e);
    unsetenv("IOHW_EXEC_COMMAND");
    unsetenv("IOHW_EXEC_PROTOCOL");
    cr_assert_eq(rc, 0, "%s", e.msg);
    /* The version holds the whole command, not a cut of it. */
    cr_expect(strstr(pr.version, command) != NULL, "%s", pr.version);
    iohw_probe_stop(&pr);
}

/* The value after `key` in text, or -1. */
static long long number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p != NULL ? strtoll(p + strlen(key), NULL, 10) : -1;
}

Test(claim, gen_for_backend_then_run_shows_no_unsupported_and_full_coverage)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "rm -rf '%s/claim-suite' && '%s' gen --profile smoke "
                          "--for-backend '%s' -o '%s/claim-suite' --threads 2",
                          IOHW_TEST_TMP, IOHW_BIN, NARROW, IOHW_TEST_TMP);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "all claimed, claimed-pair coverage") != NULL, "%s", out);
    free(out);

    int64_t claimed, covered;
    independent(NULL, 0, &claimed, &covered);
    rc = iohw_test_sh(&out, "'%s' run --backend '%s' '%s/claim-suite' --jobs 2 --quiet "
                      "--claim-coverage", IOHW_BIN, NARROW, IOHW_TEST_TMP);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_eq(number_after(out, "\nUNSUPPORTED"), 0, "%s", out);
    cr_expect_eq(number_after(out, "of the "), claimed, "%s", out);
    cr_expect_eq(number_after(out, "claimed cases cover "), claimed, "%s", out);
    free(out);
}

Test(claim, gen_for_backend_errors_name_the_problem)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' gen --profile smoke --for-backend '%s/nope.so' "
                          "--dry-run", IOHW_BIN, IOHW_TEST_TMP);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "nope.so") != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' gen --problem 'ci=1 co=1 in=2 k=2' -o x.h5 "
                      "--for-backend '%s'", IOHW_BIN, NARROW);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "--for-backend applies to --profile") != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' gen --profile smoke --for-backend '%s' --dry-run",
                      IOHW_BIN, IOHW_BACKEND_DIR "/libiohw_picky.so");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "claims none of the") != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' gen --profile tiny --for-backend '%s' --dry-run",
                      IOHW_BIN, NARROW);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "unknown profile 'tiny'") != NULL, "%s", out);
    free(out);
}
