/*
 * tests/test_diagnose_quant.c - the quantized diagnoses
 * (judge/diagnose_quant.c): an output computed by a hand-written
 * quantized transposed convolution (tests/support/quant_hand.c: rank 1,
 * canonical layouts, exact rationals), with one misreading switched on, is named by
 * that misreading; the correct output gets no diagnosis.  The data come
 * from the designed fills (generators/fill_qdesign.h), chosen so that each
 * misreading changes the output.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "judge/diagnose.h"
#include "judge/diagnose_bwd.h"
#include "judge/diagnose_quant.h"
#include "oracle/problem.h"
#include "support/quant_hand.h"

Test(diagnose_quant, zero_points_not_subtracted_are_named)
{
    knobs k = {0};
    k.zp_x_kept = 1;
    expect_named(P1, IOHW__QFILL_UNSAT, want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "x's zero point not subtracted");
    memset(&k, 0, sizeof k);
    k.zp_w_kept = 1;
    expect_named(P2, IOHW__QFILL_UNSAT, want(IOHW_S8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "w's zero point not subtracted");
    k.zp_x_kept = 1;
    expect_named(P1, IOHW__QFILL_ZP_EXTREME, want(IOHW_S8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES), k,
                 "zero points of x and w not subtracted");
}

/* The name a rounding misreading gets on the case (specification section
 * 11.5): its own, or its group's common name when another member of the
 * group gives the same output (computed here by hand): another mode, or
 * zp_y added before rounding; where gemmlowp is asked, its doubling high
 * multiply without the nudge equals one rounding half away from zero
 * (shift -1 here: the truncated high half, then gemmlowp's rounding
 * divide, is floor(x/2^31 + 1/2) above zero and its mirror below). */
static const char *rounding_name(const iohw_problem *p, const iohw__qdata *d, int32_t asked,
                                 int32_t used, const int64_t *y, char *name)
{
    static const char *const DESC[5] = {"", "ties rounded to even",
                                        "ties rounded half away from zero",
                                        "ties rounded half up", "gemmlowp's double rounding"};
    static const char *const ASKED[5] = {"", "half_even", "half_away", "half_up", "gemmlowp"};
    const int64_t n = iohw_problem_y_count(p);
    int64_t *other = malloc((size_t)n * sizeof *other);
    int same = asked == IOHW_ROUND_GEMMLOWP && used == IOHW_ROUND_HALF_AWAY;
    cr_assert_not_null(other);
    for (int32_t r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_GEMMLOWP + 1 && !same; r++) {
        knobs k = {0};
        if (r == asked || r == used)
            continue;
        if (r == IOHW_ROUND_GEMMLOWP + 1) { /* zp_y added before rounding */
            if (d->q.zp_y == 0 || asked == IOHW_ROUND_HALF_UP || asked == IOHW_ROUND_GEMMLOWP)
                continue;
            k.zp_y_first = 1;
        } else {
            if (r == IOHW_ROUND_GEMMLOWP && d->q.m_form != IOHW_QM_FIXED)
                continue;
            k.rounding = r;
        }
        hand(p, d, k, other);
        same = memcmp(other, y, (size_t)n * sizeof *y) == 0;
    }
    free(other);
    if (!same)
        snprintf(name, 128, "matches the oracle with %s where %s was asked", DESC[used],
                 ASKED[asked]);
    else if (asked == IOHW_ROUND_GEMMLOWP)
        snprintf(name, 128, "matches the oracle with rounding inside the fixed-point multiply "
                 "differs from gemmlowp's");
    else
        snprintf(name, 128, "matches the oracle with ties rounded in another mode where %s was "
                 "asked", ASKED[asked]);
    return name;
}

Test(diagnose_quant, every_other_rounding_is_named_with_the_mode_asked)
{
    for (int32_t asked = IOHW_ROUND_HALF_EVEN; asked <= IOHW_ROUND_GEMMLOWP; asked++)
        for (int32_t used = IOHW_ROUND_HALF_EVEN; used <= IOHW_ROUND_GEMMLOWP; used++) {
            char name[128];
            knobs k = {0};
            if (used == asked)
                continue;
            k.rounding = used;
            /* gemmlowp on either side needs the fixed form; its ties
             * fill (M = 1/4) separates it from every single mode */
            const int fixed = asked == IOHW_ROUND_GEMMLOWP || used == IOHW_ROUND_GEMMLOWP;
            iohw__qwant w = want(IOHW_S8, used == IOHW_ROUND_GEMMLOWP ? used : asked,
                                 fixed ? IOHW_QM_FIXED : IOHW_QM_SCALES);
            iohw_problem p = problem(P1);
            iohw__qdata d;
            iohw_error err;
            cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
            d.q.rounding = asked;
            int64_t y[2 * 4 * 12], good[2 * 4 * 12];
            char buf[512];
            knobs none = {0};
            cr_assert_eq(iohw_problem_y_count(&p), 2 * 4 * 12);
            hand(&p, &d, none, good);
            hand(&p, &d, k, y);
            cr_assert_neq(memcmp(y, good, sizeof y), 0, "%d for %d changes nothing", used, asked);
            cr_expect_eq(diagnose(&p, &d, good, buf), 0, "%s", buf);
            rounding_name(&p, &d, asked, used, y, name);
            cr_expect_eq(diagnose(&p, &d, y, buf), 1, "%s not diagnosed", name);
            cr_expect_str_eq(buf, name);
            cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
            iohw__qdata_free(&d);
        }
}

Test(diagnose_quant, zp_y_before_rounding_is_named)
{
    knobs k = {0};
    k.zp_y_first = 1;
    /* a ties fill with an odd zp_y (half_even then differs at ties) */
    iohw_problem p = problem(P1);
    iohw__qdata d;
    iohw_error err;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    uint64_t seed = 0;
    for (;; seed++) {
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, seed, &d, &err), 0, "%s", err.msg);
        const int odd = d.q.zp_y % 2 != 0;
        iohw__qdata_free(&d);
        if (odd)
            break;
    }
    expect_named_seed(P1, IOHW__QFILL_TIES, w, k, "zp_y added before rounding", seed);
}

Test(diagnose_quant, per_channel_scales_along_i_are_named)
{
    knobs k = {0};
    k.axis_i = 1;
    expect_named(P1, IOHW__QFILL_CHANNELS, want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "per-channel scales applied along I");
    expect_named(P2, IOHW__QFILL_GROUP_TRAP, want(IOHW_U8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "per-channel scales applied along I");
}

Test(diagnose_quant, no_saturation_is_named)
{
    knobs k = {0};
    k.wrap = 1;
    expect_named(P1, IOHW__QFILL_SATURATE, want(IOHW_U8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES), k,
                 "no saturation (wrapped around)");
    expect_named(P2, IOHW__QFILL_SATURATE, want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED), k,
                 "no saturation (wrapped around)");
}
Test(diagnose_quant, weight_i_and_o_exchanged_is_named)
{
    knobs k = {0};
    k.io = 1;
    expect_named(P1, IOHW__QFILL_IO_TRAP, want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "quantized weight read with I and O exchanged");
    expect_named("ci=3 co=6 g=3 in=4 k=3 s=2 bias=1", IOHW__QFILL_IO_TRAP,
                 want(IOHW_S8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "quantized weight read with I and O exchanged");
}


Test(diagnose_quant, names_join_the_diagnosis_table)
{
    /* The quantized names follow the float ones; the backward ones
     * (diagnose_bwd.h) come after them. */
    const int nf = iohw_diagnose_count() - iohw__dgq_count() - iohw__dgb_count();
    cr_assert_gt(nf, 0);
    for (int i = 0; i < iohw__dgq_count(); i++) {
        cr_expect_str_eq(iohw_diagnose_name(nf + i), iohw__dgq_name(i));
        cr_expect_str_eq(iohw_diagnose_meaning(nf + i), iohw__dgq_meaning(i));
        cr_expect_eq(iohw_diagnose_find(iohw__dgq_name(i)), nf + i, "%s", iohw__dgq_name(i));
    }
    cr_expect_null(iohw__dgq_name(iohw__dgq_count()));
}
