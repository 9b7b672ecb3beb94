/*
 * tests/test_report_factors.c - the factor coverage of a run: each factor's
 * value from the descriptor, levels and pairs counted by outcome.
 */
#include "test_reports_fixture.h"

/* --- factors -------------------------------------------------------------- */

static void expect_values(const char *desc, const char *const want[IOHW_FACTOR_COUNT])
{
    char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX];
    iohw_error err = {{0}};
    cr_assert_eq(iohw_factor_values(desc, v, &err), 0, "%s: %s", desc, err.msg);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++)
        cr_expect_str_eq(v[k], want[k], "%s: factor %s", desc,
                         iohw_factor_name((iohw_factor)k));
}

Test(factors, derive_each_value_from_the_descriptor)
{
    /* D1: g=2 with ci=4 is grouped; largest stride 2, dilation 2; pads 1:0
     * are asymmetric; op 1 < max(s=2, d=1) on H is within the limit. */
    static const char *const v1[] = {"2", "grouped", "2", "2", "asymmetric", ">0",
                                     "f32", "NHWC", "OIHW", "normal", "yes"};
    expect_values(D1, v1);
    /* D2: g = ci = 4 is depthwise (one input channel per group). */
    static const char *const v2[] = {"3", "depthwise", "2", "2", "none", "0",
                                     "bf16", "NDHWC", "GOIDHW", "exact", "no"};
    expect_values(D2, v2);
    /* op=7 >= max(s=7, d=1): beyond the limit; stride 7 bins as 5+;
     * symmetric pads; default layouts. */
    static const char *const v3[] = {"1", "1", "5+", "1", "symmetric", "beyond-limit",
                                     "f64", "NCW", "IOW", "cancel", "no"};
    expect_values("ci=3 co=5 in=9 k=4 s=7 pad=2 op=7 dt=f64 fill=cancel", v3);
    /* Not every op > 0 is beyond the limit: op=2 < max(s=3, d=1). */
    static const char *const v4[] = {"1", "1", "3", "1", "none", ">0",
                                     "f32", "NCW", "IOW", "normal", "no"};
    expect_values("ci=1 co=1 in=4 k=3 s=3 op=2", v4);
    char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX];
    cr_expect_eq(iohw_factor_values("ci=1 bogus=2", v, NULL), -1);
    cr_expect_eq(iohw_factor_values("", v, NULL), -1);
}

/* D1 PASS, D1 FAIL, D2 UNSUPPORTED, and one without descriptor. */
static iohw_run_results four_cases(iohw_result it[4])
{
    it[0] = make("a.b.1", "f.h5", D1, IOHW_RESULT_PASS);
    it[1] = make("a.b.2", "f.h5", D1, IOHW_RESULT_FAIL);
    it[2] = make("a.b.3", "f.h5", D2, IOHW_RESULT_UNSUPPORTED);
    it[3] = make("a.b.4", "f.h5", "", IOHW_RESULT_INVALID);
    return (iohw_run_results){.items = it, .count = 4};
}

Test(factors, count_each_level_by_outcome)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    cr_expect_eq(cov.unknown, 1);
    cr_assert_eq(cov.nlevels[IOHW_FACTOR_RANK], 2);
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_RANK][0].value, "2");
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][0].count[IOHW_OUTCOME_PASS], 1);
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][0].count[IOHW_OUTCOME_FAIL], 1);
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][1].count[IOHW_OUTCOME_SKIP], 1);
    /* Known order: f32 before bf16, grouped before depthwise. */
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_DTYPE][0].value, "f32");
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_GROUPS][1].value, "depthwise");
    cr_expect_eq(cov.nlevels[IOHW_FACTOR_STRIDE], 1);
    iohw_coverage_free(&cov);
}

/* rank x dtype: (2, f32) pass 1 fail 1; (3, bf16) skip 1; others 0. */
Test(factors, count_each_pair_of_levels_by_outcome)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    int64_t *m = iohw_coverage_pair(&cov, IOHW_FACTOR_RANK, IOHW_FACTOR_DTYPE);
    cr_assert_not_null(m);
    cr_expect_eq(m[(0 * 2 + 0) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_PASS], 1);
    cr_expect_eq(m[(0 * 2 + 0) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_FAIL], 1);
    cr_expect_eq(m[(1 * 2 + 1) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_SKIP], 1);
    for (int k = 0; k < IOHW_OUTCOME_COUNT; k++) {
        cr_expect_eq(m[(0 * 2 + 1) * IOHW_OUTCOME_COUNT + k], 0, "(2, bf16), outcome %d", k);
        cr_expect_eq(m[(1 * 2 + 0) * IOHW_OUTCOME_COUNT + k], 0, "(3, f32), outcome %d", k);
    }
    free(m);
    iohw_coverage_free(&cov);
}

/* Levels per factor: 2 everywhere but stride and dilation (1), so
 * possible = ((9*2 + 2*1)^2 - (9*4 + 2*1)) / 2 = (400 - 38) / 2 = 181;
 * every factor pair sees D1's cell and D2's, one cell when both factors
 * have one level (stride x dilation): 54*2 + 1 = 109; every pair holds
 * D1's failure; no cell passes only. */
/* The pair summary of the first n of the four cases. */
static iohw_pair_summary pairs_of_first(int64_t n)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    iohw_pair_summary ps;
    r.count = n;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    iohw_coverage_pairs(&cov, &ps);
    iohw_coverage_free(&cov);
    return ps;
}

Test(factors, summarise_the_pairs_exercised_failing_and_passing)
{
    iohw_pair_summary ps = pairs_of_first(4);
    cr_expect_eq(ps.possible, 181);
    cr_expect_eq(ps.exercised, 109);
    cr_expect_eq(ps.failing, 55);
    cr_expect_eq(ps.passing, 0);
}

/* One passing case: 55 pairs of one cell, all passing. */
Test(factors, one_passing_case_passes_every_pair_it_exercises)
{
    iohw_pair_summary ps = pairs_of_first(1);
    cr_expect_eq(ps.possible, 55);
    cr_expect_eq(ps.exercised, 55);
    cr_expect_eq(ps.passing, 55);
    cr_expect_eq(ps.failing, 0);
}
