/*
 * tests/test_diagnose_shape.c - the shape diagnosis (specification section
 * 3.5, judge/diagnose_shape.c).  For each misreading listed: a problem it
 * gives another output shape, the shape worked out by hand from the
 * formula of specification section 1 (O = (L-1)S - Pb - Pe + D(K-1) + 1 +
 * op); where the misread problem keeps the case's inputs, its values (the
 * oracle of the misread problem, stated here as its own descriptor) prove
 * it.  A shape that several misreadings give, values that match none, or
 * one value everywhere name nothing: the facts only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/diagnose_shape.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "support/diagnose_cases.h"

/* The oracle's y of the misread problem `desc` (stated by hand) on the
 * case's x, w and bias, in *n elements; malloc'd. */
static void *misread_y(const iohw_case *c, const char *desc, int64_t *n)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "%s: %s", desc, err.msg);
    cr_assert_eq(iohw_problem_finish(&d.p, &err), 0, "%s: %s", desc, err.msg);
    cr_assert_eq(iohw_problem_x_count(&d.p), iohw_problem_x_count(&c->p));
    cr_assert_eq(iohw_problem_w_count(&d.p), iohw_problem_w_count(&c->p));
    *n = iohw_problem_y_count(&d.p);
    return iohw_test_oracle_y(&d.p, c->x, c->w, c->bias);
}

/* "1x3x5x5" into dims; their number. */
static int parse_dims(const char *s, int64_t *dims)
{
    int nd = 0;
    for (char *end; *s; s = *end ? end + 1 : end)
        dims[nd++] = strtoll(s, &end, 10);
    return nd;
}

typedef struct shape_row {
    const char *name;      /* the misreading */
    const char *desc;      /* the case */
    const char *dims;      /* its output under the misreading, by hand */
    const char *misread;   /* the misread problem (values), or NULL */
} shape_row;

#define B "ci=2 co=3 in=3x4 k=3x2 bias=1 "

static const shape_row ROWS[] = {
    /* H: 2 + 2*2 + 1 = 7 -> 2 + 2 + 1 = 5; W: 5 */
    {"dilation ignored", B "d=2x1", "1x3x5x5", B},
    /* d=3x2: H 2 + 6 + 1 = 9, W 3 + 2 + 1 = 6 */
    {"dilation taken as 0-based (d+1)", B "d=2x1", "1x3x9x6", B "d=3x2"},
    /* s=2 op=1: 8x9; op=0: 7x8 (k-1 gives 7x8 too, with no values) */
    {"output_padding ignored", B "s=2 op=1", "1x3x7x8", B "s=2"},
    /* op=2: 9x10 (at both ends: pad_begin -1, no values) */
    {"output_padding applied twice", B "s=2 op=1", "1x3x9x10", B "s=2 op=2"},
    /* pad=2 op=1: 4x5; pad 1:2 op=1: 5x6 (op=2: 5x6 too, other values) */
    {"output_padding at both ends", B "s=2 pad=2 op=1", "1x3x5x6",
     B "s=2 pad=1:2 op=1"},
    /* s=2 pad=1:2: 4x5; pad 1:0: H 4 - 1 + 3 = 6, W 6 - 1 + 2 = 7 */
    {"padding at the beginning only", B "s=2 pad=1:2", "1x3x6x7", B "s=2 pad=1:0"},
    /* pad 0:2: H 4 - 2 + 3 = 5, W 6 - 2 + 2 = 6 */
    {"padding at the end only", B "s=2 pad=1:2", "1x3x5x6", B "s=2 pad=0:2"},
    /* no pads: 7x8 */
    {"padding ignored", B "s=2 pad=1:2", "1x3x7x8", B "s=2"},
    /* pad=1: 5x6; pad=2: H 4 - 4 + 3 = 3, W 6 - 4 + 2 = 4 */
    {"padding doubled", B "s=2 pad=1", "1x3x3x4", B "s=2 pad=2"},
    /* s=2x3: 7x11; s=1: 5x5 */
    {"stride ignored", B "s=2x3", "1x3x5x5", B},
    /* s=3x2: H 6 + 3 = 9, W 6 + 2 = 8 */
    {"strides of the spatial axes exchanged", B "s=2x3", "1x3x9x8", B "s=3x2"},
    /* 7x11 read along the other axes: 11x7 */
    {"spatial axes exchanged", B "s=2x3", "1x3x11x7", NULL},
    /* G=2: C_in 4, C_in/G 2, C_out/G 3 (5x5) */
    {"I and O channel counts exchanged (C = C_in)",
     "ci=4 co=6 g=2 in=3x4 k=3x2", "1x4x5x5", NULL},
    {"output channels counted as C_in/G", "ci=4 co=6 g=2 in=3x4 k=3x2",
     "1x2x5x5", NULL},
    {"groups ignored in the channel count (C = C_out/G)",
     "ci=4 co=6 g=2 in=3x4 k=3x2", "1x3x5x5", NULL},
    /* k=2x1: H 2 + 1 + 1 = 4, W 3 + 0 + 1 = 4 */
    {"kernel size taken as k-1", B, "1x3x4x4", NULL},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

Test(diagnose_shape, every_misreading_listed_has_a_row_here)
{
    cr_expect_eq(iohw_diagnose_shape_count(), (int)NROWS);
    for (int i = 0; i < iohw_diagnose_shape_count(); i++) {
        int found = 0;
        for (size_t r = 0; r < NROWS; r++)
            found |= strcmp(ROWS[r].name, iohw_diagnose_shape_name(i)) == 0;
        cr_expect(found, "no row for '%s'", iohw_diagnose_shape_name(i));
    }
}

/* The shape names the misreading among its candidates (facts), and the
 * misread problem's own values prove it. */
Test(diagnose_shape, each_misreading_is_a_candidate_by_shape_and_proven_by_values)
{
    for (size_t r = 0; r < NROWS; r++) {
        iohw_case c;
        int64_t dims[8];
        char buf[256], want[160];
        const int nd = parse_dims(ROWS[r].dims, dims);
        iohw_test_case_of(ROWS[r].desc, &c);

        /* the shape alone */
        int rc = iohw_diagnose_shape(&c, NULL, NULL, dims, nd, buf, sizeof buf);
        cr_expect_eq(rc, IOHW_SHAPE_FACTS, "%s: %d: %s", ROWS[r].name, rc, buf);
        cr_expect(strstr(buf, ROWS[r].name) != NULL, "%s: not a candidate: %s",
                  ROWS[r].name, buf);
        snprintf(want, sizeof want, "the output is %s where ", ROWS[r].dims);
        cr_expect(strncmp(buf, want, strlen(want)) == 0, "%s: %s", ROWS[r].name,
                  buf);

        /* the values */
        if (ROWS[r].misread != NULL) {
            int64_t n;
            void *y = misread_y(&c, ROWS[r].misread, &n);
            rc = iohw_diagnose_shape(&c, y, NULL, dims, nd, buf, sizeof buf);
            snprintf(want, sizeof want, "%s: the output is %s where ",
                     ROWS[r].name, ROWS[r].dims);
            cr_expect_eq(rc, IOHW_SHAPE_PROVEN, "%s: %d: %s", ROWS[r].name, rc,
                         buf);
            cr_expect(strncmp(buf, want, strlen(want)) == 0, "%s: %s",
                      ROWS[r].name, buf);
            free(y);
        }
        iohw_case_free(&c);
    }
}

/* Two misreadings give 11x11 (dilation ignored, output_padding ignored):
 * values that match neither name neither; the values of one name it. */
Test(diagnose_shape, a_shared_shape_is_decided_by_values_or_not_at_all)
{
    iohw_case c;
    int64_t dims[4] = {1, 3, 11, 11}, n;
    char buf[256];
    /* H: 6 + 4 + 1 + 2 = 13, W: 9 + 1 + 1 = 11 */
    iohw_test_case_of(B "d=2x1 s=3 op=2x0", &c);
    void *y = misread_y(&c, B "s=3 op=2x0", &n);      /* dilation ignored */
    cr_assert_eq(n, 1 * 3 * 11 * 11);

    cr_expect_eq(iohw_diagnose_shape(&c, y, NULL, dims, 4, buf, sizeof buf),
                 IOHW_SHAPE_PROVEN, "%s", buf);
    cr_expect(strncmp(buf, "dilation ignored: ", 18) == 0, "%s", buf);

    /* other values: the facts, no cause */
    for (int64_t i = 0; i < n; i++)
        iohw_dtype_store(c.p.dtype, y, (size_t)i, (double)(i % 7) - 3.0);
    cr_expect_eq(iohw_diagnose_shape(&c, y, NULL, dims, 4, buf, sizeof buf),
                 IOHW_SHAPE_FACTS, "%s", buf);
    cr_expect_str_eq(buf, "the output is 1x3x11x11 where 1x3x13x11 NCHW is "
                     "right; that is the shape of the problem with dilation "
                     "ignored, or with output_padding ignored; its values "
                     "match none of them");

    /* one value everywhere proves nothing */
    for (int64_t i = 0; i < n; i++)
        iohw_dtype_store(c.p.dtype, y, (size_t)i, 0.0);
    cr_expect_eq(iohw_diagnose_shape(&c, y, NULL, dims, 4, buf, sizeof buf),
                 IOHW_SHAPE_FACTS, "%s", buf);
    cr_expect(strncmp(buf, "the output is ", 14) == 0, "%s", buf);
    cr_expect(strstr(buf, "match none") == NULL, "%s", buf);
    free(y);
    iohw_case_free(&c);
}

/* Shape alone, two candidates (G = 1: C_in = C_in/G): both listed, no
 * cause claimed. */
Test(diagnose_shape, two_candidates_by_shape_alone_are_facts)
{
    iohw_case c;
    int64_t dims[4] = {1, 2, 5, 5};
    char buf[256];
    iohw_test_case_of(B, &c);
    cr_expect_eq(iohw_diagnose_shape(&c, NULL, NULL, dims, 4, buf, sizeof buf),
                 IOHW_SHAPE_FACTS);
    cr_expect_str_eq(buf, "the output is 1x2x5x5 where 1x3x5x5 NCHW is right; "
                     "that is the shape of the problem with I and O channel "
                     "counts exchanged (C = C_in), or with output channels "
                     "counted as C_in/G");
    /* no misreading gives 1x3x2x2 */
    dims[1] = 3;
    dims[2] = dims[3] = 2;
    cr_expect_eq(iohw_diagnose_shape(&c, NULL, NULL, dims, 4, buf, sizeof buf),
                 IOHW_SHAPE_FACTS);
    cr_expect(strstr(buf, "no misreading listed gives that shape") != NULL,
              "%s", buf);
    iohw_case_free(&c);
}

/* A shared object whose adapter copied the undilated output densely into
 * the y it was given: the head holds it, the tail the sentinel (here a
 * signalling NaN of our own).  The float diagnosis names it; a head of
 * other values names nothing by shape. */
Test(diagnose_shape, a_dense_head_of_a_smaller_output_is_named)
{
    iohw_case c;
    int64_t n;
    char buf[256];
    const uint32_t sentinel = 0x7f800001u;    /* signalling NaN (f32) */
    iohw_test_case_of(B "d=2x1", &c);         /* 7x5 = 105 elements */
    void *small = misread_y(&c, B, &n);        /* 5x5 = 75 */
    cr_assert_eq(n, 75);
    float *y = malloc(105 * sizeof *y);
    cr_assert_not_null(y);
    for (int i = 0; i < 105; i++)
        memcpy(&y[i], &sentinel, 4);
    memcpy(y, small, 75 * sizeof *y);

    cr_expect_eq(iohw_diagnose_shape(&c, y, &sentinel, NULL, 0, buf, sizeof buf),
                 IOHW_SHAPE_PROVEN);
    cr_expect_str_eq(buf, "dilation ignored: only the first 75 of 105 elements "
                     "were written, densely, and they are that problem's "
                     "output (1x3x5x5 where 1x3x7x5 NCHW is right)");
    cr_expect_eq(iohw_diagnose_float(&c, y, buf, sizeof buf), 1);
    cr_expect(strncmp(buf, "dilation ignored: only the first 75", 35) == 0,
              "%s", buf);

    /* the head holds other numbers: nothing said by shape */
    for (int i = 0; i < 75; i++)
        y[i] = (float)(i % 5);
    cr_expect_eq(iohw_diagnose_shape(&c, y, &sentinel, NULL, 0, buf, sizeof buf),
                 IOHW_SHAPE_NONE);
    cr_expect_str_eq(buf, "");
    free(small);
    free(y);
    iohw_case_free(&c);
}
