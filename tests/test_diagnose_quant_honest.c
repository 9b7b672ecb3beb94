/*
 * tests/test_diagnose_quant_honest.c - the honesty rules of the quantized
 * diagnosis (specification section 11.5), on outputs computed by hand
 * (tests/support/quant_hand.c): nothing is named from an output saturated
 * everywhere it differs (at one limit or both, but a handful) or holding
 * one value; gemmlowp's own steps done otherwise are named by the common
 * name where a single rounding gives the same output; two misreadings that
 * coincide are named by their group's common name.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "judge/diagnose.h"
#include "oracle/problem.h"
#include "support/quant_hand.h"

/* Elements of y (the type's limits lo, hi) that differ from good, and of
 * those, the ones inside the limits. */
static int64_t inside_diff(const int64_t *y, const int64_t *good, int64_t n, int64_t lo,
                           int64_t hi, int64_t *differ)
{
    int64_t in = 0;
    *differ = 0;
    for (int64_t i = 0; i < n; i++) {
        *differ += y[i] != good[i];
        in += y[i] != good[i] && y[i] > lo && y[i] < hi;
    }
    return in;
}

/* The bias added to the output is named where it leaves an element inside
 * the limits that differs; the seed is the first whose output (by hand)
 * has one. */
Test(diagnose_quant, bias_after_requantization_is_named)
{
    knobs k = {0}, none = {0};
    k.bias_after = 1;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED);
    iohw_problem p = problem(P2);
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    int64_t differ = 0;
    uint64_t seed = 0;
    cr_assert(y != NULL && good != NULL);
    for (;; seed++) {
        iohw__qdata d;
        iohw_error err;
        cr_assert_lt(seed, 200, "no seed leaves a differing element inside the limits");
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, seed, &d, &err), 0, "%s", err.msg);
        hand(&p, &d, none, good);
        hand(&p, &d, k, y);
        const int64_t in = inside_diff(y, good, n, -128, 127, &differ);
        iohw__qdata_free(&d);
        if (in > 0)
            break;
    }
    free(y);
    free(good);
    expect_named_seed(P2, IOHW__QFILL_UNSAT, w, k, "bias added after the requantization", seed);
}

/* Specification section 11.5: an output saturated everywhere it differs,
 * at both limits, carries no trace (every misreading that overflows both
 * ways saturates alike): the bias added after the requantization on the
 * case of seed 7, where (by hand) every element is at -128 or 127, with a
 * handful of elements put back to the oracle's unsaturated values, is
 * named by nothing. */
Test(diagnose_quant, saturated_everywhere_but_a_handful_gets_no_diagnosis)
{
    knobs k = {0}, none = {0};
    k.bias_after = 1;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED);
    iohw_problem p = problem(P2);
    iohw__qdata d;
    iohw_error err;
    char buf[512];
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    int64_t differ, lo = 0, hi = 0;
    cr_assert(y != NULL && good != NULL);
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, 7, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, none, good);
    hand(&p, &d, k, y);
    cr_assert_eq(inside_diff(y, good, n, -128, 127, &differ), 0, "an element inside the limits");
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "saturated at both limits, diagnosed: %s", buf);
    for (int64_t i = 0, back = 0; i < n && back < 3; i++)
        if (good[i] > -128 && good[i] < 127) {
            y[i] = good[i];
            back++;
        }
    for (int64_t i = 0; i < n; i++) {
        lo += y[i] == -128;
        hi += y[i] == 127;
    }
    cr_assert(differ > 1 && lo > 0 && hi > 0 && lo + hi < n, "differ %lld, at -128 %lld, "
              "at 127 %lld of %lld", (long long)differ, (long long)lo, (long long)hi,
              (long long)n);
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    free(good);
    iohw__qdata_free(&d);
}


/* A constant output saturated at 255 differs from the oracle everywhere the
 * oracle is below 255: it "matches" every misreading that saturates there,
 * and carries no trace of any; none is named.  The wrapped output of the
 * same case is still named. */
Test(diagnose_quant, a_saturated_constant_output_gets_no_diagnosis)
{
    iohw_problem p = problem(P1);
    iohw__qdata d;
    iohw_error err;
    char buf[512];
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    knobs none = {0};
    cr_assert(y != NULL && good != NULL);
    iohw__qwant w = want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, 1, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, none, good);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++) {
        y[i] = 255;
        differ += good[i] != 255;
    }
    cr_assert_gt(differ, 1, "the oracle is 255 almost everywhere");
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "constant 255 diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    free(good);
    iohw__qdata_free(&d);
}

/* gemmlowp's own steps (specification section 11.3) on the ties fill
 * (M = 1/4: multiplier 2^30, shift -1).  Without the nudge, the high
 * half truncates and the rounding divide by 2 then rounds x/4 once, half
 * away from zero: the output is also the single rounding half away, and
 * the case cannot tell the two apart; the common name is given.  The
 * divide as a plain shift floors x/2 rounded: where it differs from every
 * single mode (checked here by hand) it is named itself. */
static void expect_gemmlowp_step(knobs k, const char *name)
{
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED);
    iohw__qdata d;
    iohw_error err;
    int64_t y[2 * 4 * 12], good[2 * 4 * 12], single[2 * 4 * 12];
    char buf[512];
    knobs none = {0}, away = {0};
    away.rounding = IOHW_ROUND_HALF_AWAY;
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
    cr_assert(d.q.multiplier[0] == 1 << 30 && d.q.shift[0] == -1, "the ties fill's M is 1/4");
    hand(&p, &d, none, good);
    hand(&p, &d, k, y);
    hand(&p, &d, away, single);
    cr_assert_neq(memcmp(y, good, sizeof y), 0, "%s changes nothing", name);
    cr_assert_eq(memcmp(y, single, sizeof y) == 0, k.no_nudge, "half away: %s", name);
    cr_expect_eq(diagnose(&p, &d, y, buf), 1, "%s not diagnosed", name);
    cr_expect(strstr(buf, name) != NULL, "want \"%s\", got \"%s\"", name, buf);
    cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
    iohw__qdata_free(&d);
}

Test(diagnose_quant, gemmlowp_nudge_omitted_gets_the_common_name)
{
    knobs k = {0};
    k.no_nudge = 1;
    expect_gemmlowp_step(k, "matches the oracle with rounding inside the fixed-point multiply "
                            "differs from gemmlowp's");
}

Test(diagnose_quant, gemmlowp_rounding_divide_as_plain_shift_is_named)
{
    knobs k = {0};
    k.plain_shift = 1;
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED);
    iohw__qdata d;
    iohw_error err;
    int64_t y[2 * 4 * 12], other[2 * 4 * 12];
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, k, y);
    for (int32_t r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_HALF_UP; r++) {
        knobs m = {0};
        m.rounding = r;
        hand(&p, &d, m, other);
        cr_assert_neq(memcmp(y, other, sizeof y), 0, "the plain shift is mode %d here", r);
    }
    iohw__qdata_free(&d);
    expect_gemmlowp_step(k, "matches the oracle with gemmlowp's rounding divide by a power of "
                            "two as a plain shift");
}

/* Two misreadings that give one output (computed here by hand): ties
 * rounded half up where half_away is asked, and zp_y added before
 * rounding, on a ties case where every tie that changes is one whose sign
 * zp_y flips.  Both change only how ties round: the common name of their
 * group is given, neither own name. */
Test(diagnose_quant, two_misreadings_coinciding_get_their_common_name)
{
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES);
    iohw__qdata d;
    iohw_error err;
    int64_t up[2 * 4 * 12], first[2 * 4 * 12], good[2 * 4 * 12];
    char buf[512];
    knobs none = {0}, ku = {0}, kz = {0};
    ku.rounding = IOHW_ROUND_HALF_UP;
    kz.zp_y_first = 1;
    uint64_t seed = 0;
    for (;; seed++) {
        cr_assert_lt(seed, 400, "no ties case where the two coincide");
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, seed, &d, &err), 0, "%s", err.msg);
        hand(&p, &d, none, good);
        hand(&p, &d, ku, up);
        hand(&p, &d, kz, first);
        if (memcmp(up, first, sizeof up) == 0 && memcmp(up, good, sizeof up) != 0)
            break;
        iohw__qdata_free(&d);
    }
    cr_expect_eq(diagnose(&p, &d, up, buf), 1, "not diagnosed");
    cr_expect_str_eq(buf, "matches the oracle with ties rounded in another mode where half_away "
                          "was asked");
    cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
    iohw__qdata_free(&d);
}
