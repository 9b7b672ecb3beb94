/*
 * tests/test_diagnose_conv.c - the diagnoses of a misread framework
 * convention (specification sections 3.5 and 12).  Each test builds a case
 * stated in a convention, writes the output a buggy backend would return -
 * the oracle run on the same inputs with the pads that backend used, worked
 * out by hand below - and checks what iohw_diagnose names.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/judge.h"
#include "support/diagnose_cases.h"

static void expect_diagnosis(const iohw_case *c, const void *y, const char *want)
{
    char buf[256];
    cr_expect_eq(iohw_diagnose(c, y, buf, sizeof buf), 1, "nothing matched");
    cr_expect_str_eq(buf, want);
}

/* H: total 2*4 + 3 - 10 = 1, SAME_UPPER 0:1; W: 6 + 4 - 8 = 2, 1:1. */
#define UPPER "ci=2 co=3 in=5x4 k=3x4 s=2 bias=1 seed=41 auto_pad=same_upper conv=onnx"

Test(diagnose_conv, same_lower_where_same_upper_was_asked)
{
    iohw_case c;
    iohw_test_case_of(UPPER, &c);
    cr_assert(c.p.pad_begin[0] == 0 && c.p.pad_end[0] == 1);
    const int64_t pb[2] = {1, 1}, pe[2] = {0, 1};
    void *y = iohw_test_with_pads(&c, pb, pe, NULL);
    /* Exchanging the pads is the same arithmetic, so both are named. */
    expect_diagnosis(&c, y, "matches the oracle with SAME_LOWER where SAME_UPPER was asked, "
                            "or with pad begin and end exchanged");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, same_upper_where_same_lower_was_asked)
{
    iohw_case c;
    /* H: total 1, SAME_LOWER 1:0; W: 1:1. */
    iohw_test_case_of("ci=2 co=3 in=5x4 k=3x4 s=2 seed=42 auto_pad=same_lower conv=onnx", &c);
    cr_assert(c.p.pad_begin[0] == 1 && c.p.pad_end[0] == 0);
    const int64_t pb[2] = {0, 1}, pe[2] = {1, 1};
    void *y = iohw_test_with_pads(&c, pb, pe, NULL);
    /* H: floor((1 + 0)/2) = 0 too, so averaging matches as well. */
    expect_diagnosis(&c, y, "matches the oracle with SAME_UPPER where SAME_LOWER was asked, "
                            "or with pad begin and end exchanged, or with pads averaged");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, valid_where_same_was_asked)
{
    iohw_case c;
    iohw_test_case_of(UPPER, &c);
    /* Nothing cropped at the beginning: 0:1 and 0:2. */
    const int64_t pb[2] = {0, 0}, pe[2] = {1, 2};
    void *y = iohw_test_with_pads(&c, pb, pe, NULL);
    expect_diagnosis(&c, y, "matches the oracle with VALID (no padding) where SAME was asked");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, onnx_output_shape_padding_at_the_end)
{
    iohw_case c;
    /* total 15 + 5 - 17 = 3: ONNX 2:1, ONNX Runtime before 1.13 1:2. */
    iohw_test_case_of("ci=2 co=2 in=6 k=5 s=3 bias=1 seed=43 out=17 conv=onnx", &c);
    cr_assert(c.p.pad_begin[0] == 2 && c.p.pad_end[0] == 1);
    const int64_t pb[1] = {1}, pe[1] = {2};
    void *y = iohw_test_with_pads(&c, pb, pe, NULL);
    /* (2 + 1)/2 = 1: averaging the pads does the same. */
    expect_diagnosis(&c, y, "matches the oracle with output_shape's odd padding at the end "
                            "where ONNX puts it at the beginning, or with pad begin and end "
                            "exchanged, or with pads averaged");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, mxnet_adj_put_at_the_beginning)
{
    iohw_case c;
    /* t = 12 - 9 = 3: pad 2 on both sides, adj 1 at the end.  With adj at
     * the beginning the crop starts at 2 - 1 = 1. */
    iohw_test_case_of("ci=2 co=3 in=5 k=4 s=2 bias=1 seed=44 out=9 conv=mxnet", &c);
    cr_assert(c.p.pad_begin[0] == 2 && c.p.pad_end[0] == 2 && c.p.output_padding[0] == 1);
    const int64_t pb[1] = {1}, pe[1] = {2}, op[1] = {0};
    void *y = iohw_test_with_pads(&c, pb, pe, op);
    expect_diagnosis(&c, y, "matches the oracle with output_padding at the beginning");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, explicit_pads_are_not_called_a_convention)
{
    iohw_case c;
    /* The same problem as UPPER with its pads written out. */
    iohw_test_case_of("ci=2 co=3 in=5x4 k=3x4 s=2 pad=0:1x1 bias=1 seed=41", &c);
    const int64_t pb[2] = {1, 1}, pe[2] = {0, 1};
    void *y = iohw_test_with_pads(&c, pb, pe, NULL);
    expect_diagnosis(&c, y, "matches the oracle with pad begin and end exchanged");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose_conv, the_correct_output_of_a_convention_case_is_not_diagnosed)
{
    iohw_case c;
    iohw_test_case_of(UPPER, &c);
    char buf[256];
    cr_expect_eq(iohw_diagnose(&c, c.y, buf, sizeof buf), 0, "%s", buf);
    iohw_case_free(&c);
}
