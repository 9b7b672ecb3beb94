/*
 * tests/test_oracle_terms.c - terms_max (iohw_oracle_terms): the count on
 * problems worked by hand, and every error exit with its reason.
 *
 * Per axis, output o sums the pairs (i, k) with i*S + k*D - P = o; terms_max
 * is C_in/G times the product over the axes of the largest such count.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/oracle.h"

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s: %s", text, err.msg);
    return d.p;
}

Test(terms, a_dense_axis_counts_the_overlapping_taps)
{
    /* L=3 K=2: outputs 0..3 sum 1, 2, 2, 1 pairs; C_in/G = 4/2 = 2. */
    iohw_problem p = problem("ci=4 co=2 g=2 in=3 k=2");
    int64_t t = 0;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_oracle_terms(&p, &t, &err), 0, "%s", err.msg);
    cr_expect_eq(t, 4, "terms_max %lld, want 4", (long long)t);
    cr_expect_eq(iohw_oracle_terms_max(&p), 4);
}

Test(terms, axes_multiply_and_a_stride_as_wide_as_the_kernel_gives_one_tap)
{
    /* Axis H: L=3 K=2 S=2, every output one pair; axis W: L=4 K=3, at most
     * 3 pairs. */
    iohw_problem p = problem("ci=1 co=1 in=3x4 k=2x3 s=2x1");
    int64_t t = 0;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_oracle_terms(&p, &t, &err), 0, "%s", err.msg);
    cr_expect_eq(t, 3, "terms_max %lld, want 3", (long long)t);
}

Test(terms, an_invalid_problem_is_refused_with_the_reason)
{
    iohw_problem p = problem("ci=2 co=2 in=3 k=2");
    p.groups = 3;
    int64_t t = 7;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_oracle_terms(&p, &t, &err), -1);
    cr_expect_eq(t, -1);
    cr_expect(strstr(err.msg, "terms_max: problem") == err.msg, "%s", err.msg);
    cr_expect(strstr(err.msg, "groups = 3 does not divide in_channels = 2") != NULL,
              "%s", err.msg);
    cr_expect_eq(iohw_oracle_terms_max(&p), -1);
}

Test(terms, null_arguments_are_named)
{
    iohw_problem p = problem("ci=1 co=1 in=3 k=2");
    int64_t t = 7;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_oracle_terms(NULL, &t, &err), -1);
    cr_expect_eq(t, -1);
    cr_expect_str_eq(err.msg, "terms_max: problem is NULL");
    cr_expect_eq(iohw_oracle_terms(&p, NULL, &err), -1);
    cr_expect_str_eq(err.msg, "terms_max: argument terms_max is NULL");
    cr_expect_eq(iohw_oracle_terms_max(NULL), -1);
}
