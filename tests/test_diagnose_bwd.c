/*
 * tests/test_diagnose_bwd.c - naming the bug behind a failed backward case
 * (judge/diagnose_bwd.c; specification sections 3.5 and 13).
 *
 * Each case is built in memory: rank 1, f64, NCW data and IOW weight (so
 * memory order is canonical order), integer inputs, fill "exact".  The
 * case's own outputs and each buggy backend's output come from the small
 * reference of support/bwd_cases.c (rank-1 plain loops of section 13 with the bug's knob),
 * which is anchored by hand-computed numbers; the first tests are worked
 * by hand throughout.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/diagnose_bwd.h"
#include "judge/diagnose_quant.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/bwd_cases.h"

static int diagnose(const iohw_case *c, const void *y, char *buf, size_t n)
{
    return c->p.direction == IOHW_DIR_BWD_D ? iohw_diagnose_bwd_data(c, y, buf, n)
                                            : iohw_diagnose_bwd_weights(c, y, buf, n);
}

static void expect_sentence(const iohw_case *c, const double *y, const char *want)
{
    char buf[256];
    const int rc = diagnose(c, y, buf, sizeof buf);
    cr_expect_str_eq(buf, want);
    cr_expect_eq(rc, want[0] != '\0', "%s", buf);
}

#define MATCHES "matches the oracle with "

/* BWD_D: one group (2 channels each way), L 3, K 3, S 2, P 1, A 1 (O 7);
 * two groups of 1 input and 2 output channels. */
static const iohw_test_shape D_ONE = {IOHW_DIR_BWD_D, 0, 2, 2, 2, 1, 3, 3, 2, 1, 0, 1};
static const iohw_test_shape D_GROUPS = {IOHW_DIR_BWD_D, 0, 1, 2, 4, 2, 3, 3, 2, 1, 0, 1};
/* BWD_WB: two images, two groups of 1 input and 2 output channels. */
static const iohw_test_shape W_GROUPS = {IOHW_DIR_BWD_W, 1, 2, 2, 4, 2, 3, 3, 2, 1, 0, 1};
/* BWD_W: C_in 3, Mg 2, one group. */
static const iohw_test_shape W_IO = {IOHW_DIR_BWD_W, 0, 2, 3, 2, 1, 3, 2, 1, 0, 0, 0};


/* --- by hand --------------------------------------------------------------- */

/* N 1, C 1, L 2, K 2, S 2, P 0 (O 4); dy = 1 2 3 4, w = 10 100:
 * dx[i] = dy[2i] w[0] + dy[2i+1] w[1] = 210, 430; taps reversed: 120, 340;
 * one position late: dy[2i+1] w[0] + dy[2i+2] w[1] = 320, 40. */
Test(diagnose_bwd, hand_worked_dx_with_the_taps_reversed)
{
    static const iohw_test_shape s = {IOHW_DIR_BWD_D, 0, 1, 1, 1, 1, 2, 2, 2, 0, 0, 0};
    static const double dy[4] = {1, 2, 3, 4}, w[2] = {10, 100};
    iohw_case c;
    iohw_test_bwd_case(&s, 0, dy, w, &c);
    cr_assert_eq(((double *)c.y)[0], 210);
    cr_assert_eq(((double *)c.y)[1], 430);
    double dx[2];
    cr_assert_eq(iohw_conv_transpose_bwd_data_def(&c.p, dy, w, 1, dx, c.err_bound, NULL), 0);
    cr_expect(dx[0] == 210 && dx[1] == 430, "the oracle gives %g %g", dx[0], dx[1]);
    const double flipped[2] = {120, 340}, late[2] = {320, 40};
    expect_sentence(&c, flipped, MATCHES "gradient kernel not flipped (taps reversed)");
    expect_sentence(&c, late, MATCHES "dy read one position off the stride phase");
    iohw_test_bwd_free(&c);
}

/* N 2, C 1, L 2, K 2, S 2 (O 4), bias; x = (1 2), (3 4); dy = (1 2 3 4),
 * (5 6 7 8): dw[k] = sum_n sum_i x[n][i] dy[n][2i+k] = 50, 60, db = 36;
 * image 0 only: dw = 7, 10, db = 10; db from position 0: 1 + 5 = 6. */
Test(diagnose_bwd, hand_worked_dw_of_the_first_image_and_db_of_one_position)
{
    static const iohw_test_shape s = {IOHW_DIR_BWD_W, 1, 2, 1, 1, 1, 2, 2, 2, 0, 0, 0};
    static const double dy[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[4] = {1, 2, 3, 4};
    iohw_case c;
    iohw_test_bwd_case(&s, 0, dy, x, &c);
    const double *y = c.y;
    cr_assert(y[0] == 50 && y[1] == 60 && y[2] == 36, "%g %g %g", y[0], y[1], y[2]);
    const double first[3] = {7, 10, 10}, one_position[3] = {50, 60, 6};
    expect_sentence(&c, first, MATCHES "batch not summed (dw and db from n = 0 only)");
    expect_sentence(&c, one_position, MATCHES "db without the spatial sum (first position only)");
    iohw_test_bwd_free(&c);
}

/* Two groups of one channel, L 2, K 1: dw = x[c] . dy[c] per channel; x =
 * (1 2), (3 4), dy = (5 6), (7 8): dw = 17, 53, db = 11, 15; db summed into
 * the first group's channel: 26, 0. */
Test(diagnose_bwd, hand_worked_db_summed_per_group)
{
    static const iohw_test_shape s = {IOHW_DIR_BWD_W, 1, 1, 2, 2, 2, 2, 1, 1, 0, 0, 0};
    static const double dy[4] = {5, 6, 7, 8}, x[4] = {1, 2, 3, 4};
    iohw_case c;
    iohw_test_bwd_case(&s, 0, dy, x, &c);
    const double *y = c.y;
    cr_assert(y[0] == 17 && y[1] == 53 && y[2] == 11 && y[3] == 15);
    const double per_group[4] = {17, 53, 26, 0};
    expect_sentence(&c, per_group, MATCHES "db summed per group into the first group's channels");
    iohw_test_bwd_free(&c);
}

/* --- each misreading ------------------------------------------------------ */

static void named(const iohw_test_shape *s, unsigned seed, const iohw_test_knobs *k, const char *name)
{
    iohw_case c;
    char want[256];
    iohw_test_bwd_case(s, seed, NULL, NULL, &c);
    double *y = iohw_test_bwd_buggy(&c, k, NULL);
    snprintf(want, sizeof want, MATCHES "%s", name);
    expect_sentence(&c, y, want);
    free(y);
    iohw_test_bwd_free(&c);
}

Test(diagnose_bwd, dx_taps_reversed)
{
    const iohw_test_knobs k = {.flip = 1};
    named(&D_ONE, 11, &k, "gradient kernel not flipped (taps reversed)");
}

Test(diagnose_bwd, dw_taps_reversed)
{
    const iohw_test_knobs k = {.flip = 1};
    named(&W_GROUPS, 12, &k, "gradient kernel not flipped (taps reversed)");
}

Test(diagnose_bwd, dx_stride_phase)
{
    const iohw_test_knobs k = {.phase = 1};
    named(&D_ONE, 13, &k, "dy read one position off the stride phase");
}

Test(diagnose_bwd, dw_stride_phase)
{
    const iohw_test_knobs k = {.phase = 1};
    named(&W_GROUPS, 14, &k, "dy read one position off the stride phase");
}

Test(diagnose_bwd, dx_groups_interleaved)
{
    const iohw_test_knobs k = {.interleave = 1};
    named(&D_GROUPS, 15, &k, "channels of the groups interleaved in the gradient");
}

/* dw's groups interleaved; db stays right (its reduction is per channel). */
Test(diagnose_bwd, dw_groups_interleaved)
{
    iohw_case c;
    const iohw_test_knobs k = {.interleave = 1}, right = {0};
    iohw_test_bwd_case(&W_GROUPS, 16, NULL, NULL, &c);
    double *y = iohw_test_bwd_buggy(&c, &k, NULL), *good = iohw_test_bwd_buggy(&c, &right, NULL);
    const int64_t nw = iohw_problem_w_count(&c.p);
    memcpy(y + nw, good + nw, 4 * sizeof *y);
    expect_sentence(&c, y, MATCHES "channels of the groups interleaved in the gradient");
    free(y);
    free(good);
    iohw_test_bwd_free(&c);
}

Test(diagnose_bwd, batch_not_summed)
{
    const iohw_test_knobs k = {.batch = 1};
    named(&W_GROUPS, 17, &k, "batch not summed (dw and db from n = 0 only)");
}

/* dy's memory ([N][C][7]) read with extents 6: plane j starts at 6j. */
static void op_left_out(const iohw_test_shape *s, unsigned seed)
{
    iohw_case c;
    iohw_test_bwd_case(s, seed, NULL, NULL, &c);
    const iohw_test_knobs k = {.dyO = c.p.out_size[0] - 1};
    cr_assert_eq(c.p.out_size[0], 7);
    double *y = iohw_test_bwd_buggy(&c, &k, NULL);
    expect_sentence(&c, y, MATCHES "dy read without its output_padding (rows shifted)");
    free(y);
    iohw_test_bwd_free(&c);
}

Test(diagnose_bwd, dx_output_padding_left_out_of_dy)
{
    op_left_out(&D_ONE, 18);
}

Test(diagnose_bwd, dw_output_padding_left_out_of_dy)
{
    op_left_out(&W_GROUPS, 19);
}

/* dw [3][2][2] (IOW) stored as OIW: element (c, m, k) at (m*3 + c)*2 + k. */
Test(diagnose_bwd, dw_written_as_oihw)
{
    iohw_case c;
    iohw_test_bwd_case(&W_IO, 20, NULL, NULL, &c);
    const double *good = c.y;
    double y[12];
    for (int c_ = 0; c_ < 3; c_++)
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 2; k++)
                y[(m * 3 + c_) * 2 + k] = good[(c_ * 2 + m) * 2 + k];
    expect_sentence(&c, y, MATCHES "dw written with I and O exchanged (as OIHW)");
    iohw_test_bwd_free(&c);
}

/* w [2][2][3] (IOW) read as OIW by backward-data: w'(c, m, k) =
 * w[(m*2 + c)*3 + k]. */
Test(diagnose_bwd, dx_from_w_read_as_oihw)
{
    iohw_case c;
    const iohw_test_knobs right = {0};
    iohw_test_bwd_case(&D_ONE, 24, NULL, NULL, &c);
    const double *w = c.w;
    double w2[12];
    for (int c_ = 0; c_ < 2; c_++)
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 3; k++)
                w2[(c_ * 2 + m) * 3 + k] = w[(m * 2 + c_) * 3 + k];
    double *y = iohw_test_doubles(iohw_problem_out_count(&c.p));
    iohw_test_bwd_dx(&c.p, &right, c.dy, w2, y);
    expect_sentence(&c, y, MATCHES "w read with I and O exchanged (as OIHW)");
    free(y);
    iohw_test_bwd_free(&c);
}

/* db from dy's memory [2][4][7] read as NWC: channel c's elements at
 * (n*7 + o)*4 + c. */
Test(diagnose_bwd, db_along_the_wrong_axis)
{
    iohw_case c;
    iohw_test_bwd_case(&W_GROUPS, 21, NULL, NULL, &c);
    const int64_t nw = iohw_problem_w_count(&c.p), nout = nw + 4;
    double *y = iohw_test_doubles(nout);
    const double *dy = c.dy;
    memcpy(y, c.y, (size_t)nout * sizeof *y);
    for (int co = 0; co < 4; co++) {
        y[nw + co] = 0;
        for (int j = 0; j < 14; j++)
            y[nw + co] += dy[j * 4 + co];
    }
    expect_sentence(&c, y, MATCHES "db summed along the wrong axis of dy's memory");
    free(y);
    iohw_test_bwd_free(&c);
}

/* --- nothing named ---------------------------------------------------------- */

Test(diagnose_bwd, noise_all_zero_and_constant_outputs_are_not_named)
{
    iohw_case c;
    iohw_test_bwd_case(&W_GROUPS, 22, NULL, NULL, &c);
    const int64_t nout = iohw_problem_out_count(&c.p);
    double *y = iohw_test_doubles(nout);
    expect_sentence(&c, y, "");                       /* all zero */
    for (int64_t i = 0; i < nout; i++)
        y[i] = 5;
    expect_sentence(&c, y, "");                       /* one value */
    memcpy(y, c.y, (size_t)nout * sizeof *y);
    y[1] += 1;
    y[nout - 3] -= 2;
    expect_sentence(&c, y, "");                       /* noise */
    free(y);
    iohw_test_bwd_free(&c);
}

/* w's taps a palindrome (1 2 1): the taps reversed give the oracle's own
 * dx, so that misreading tells nothing and is not named, neither for the
 * oracle's output nor beside the misreading that is. */
Test(diagnose_bwd, a_misreading_equal_to_the_oracle_is_not_named)
{
    static const iohw_test_shape s = {IOHW_DIR_BWD_D, 0, 1, 1, 1, 1, 3, 3, 2, 1, 0, 1};
    static const double w[3] = {1, 2, 1};
    iohw_case c;
    iohw_test_bwd_case(&s, 23, NULL, w, &c);
    const iohw_test_knobs flip = {.flip = 1}, late = {.phase = 1};
    double *y = iohw_test_bwd_buggy(&c, &flip, NULL);
    cr_assert_eq(memcmp(y, c.y, 3 * sizeof *y), 0);
    expect_sentence(&c, y, "");
    free(y);
    y = iohw_test_bwd_buggy(&c, &late, NULL);
    expect_sentence(&c, y, MATCHES "dy read one position off the stride phase");
    free(y);
    iohw_test_bwd_free(&c);
}

/* --- the table ---------------------------------------------------------------- */

Test(diagnose_bwd, names_follow_every_earlier_name_in_the_table)
{
    const int nb = iohw__dgb_count();
    const int first = iohw_diagnose_count() - nb;
    cr_assert_eq(nb, 10);
    cr_expect_gt(first, iohw__dgq_count());
    for (int i = 0; i < nb; i++) {
        char sentence[256];
        cr_expect_str_eq(iohw_diagnose_name(first + i), iohw__dgb_name(i));
        cr_expect_str_eq(iohw_diagnose_meaning(first + i), iohw__dgb_meaning(i));
        snprintf(sentence, sizeof sentence, MATCHES "%s", iohw__dgb_name(i));
        cr_expect_eq(iohw_diagnose_find(sentence), first + i, "%s", sentence);
    }
    cr_expect_str_eq(iohw_diagnose_name(first - 1), iohw__dgq_name(iohw__dgq_count() - 1));
    cr_expect_null(iohw_diagnose_name(first + nb));
}
