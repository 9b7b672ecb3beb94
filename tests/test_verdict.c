/*
 * tests/test_verdict.c - the bug first: failures grouped by diagnosis,
 * largest group first, each with its meaning and smallest case
 * (judge/verdict.h), on hand-built result sets; and the meaning of every
 * diagnosis in the table.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/verdict.h"

#define IO "matches the oracle with weight I and O exchanged"
#define FLIP "matches the oracle with kernel flipped"
#define NO_MATCH "FAIL: no diagnosis (no misreading tried matches the output)"

/* ci=1 co=1 in=4 k=3: 4 inputs x 1 output channel x 3 taps = 12 MACs;
 * ci=2 co=3 in=5 k=3: 10 x 3 x 3 = 90; ci=2 co=2 in=3x3 k=2x2: 18 x 2 x 4
 * = 144. */
#define SMALL "ci=1 co=1 in=4 k=3"
#define MID "ci=2 co=3 in=5 k=3"
#define BIG "ci=2 co=2 in=3x3 k=2x2"

static iohw_result items[40];
static iohw_run_results results;

static void add(iohw_result_status s, const char *desc, const char *tags,
                const char *diagnosis)
{
    iohw_result *r = &items[results.count];
    iohw_result_init(r);
    r->case_id = iohw_text_fmt("case.%lld", (long long)results.count);
    r->file = iohw_text_fmt("suite/x.h5");
    r->descriptor = iohw_text_keep(desc);
    r->tags = iohw_text_keep(tags);
    r->diagnosis = iohw_text_keep(diagnosis);
    r->status = s;
    results.count++;
}

static void setup(void)
{
    memset(&results, 0, sizeof results);
    results.items = items;
}

TestSuite(verdict, .init = setup);

Test(verdict, groups_by_first_named_diagnosis_largest_first)
{
    add(IOHW_RESULT_PASS, SMALL, "1d", "");
    add(IOHW_RESULT_FAIL, BIG, "2d", FLIP);                       /* 1 */
    add(IOHW_RESULT_FAIL, BIG, "2d,pad", "");                     /* 2 */
    add(IOHW_RESULT_FAIL, MID, "1d", IO);                         /* 3 */
    add(IOHW_RESULT_CRASH, MID, "2d,pad", "");                    /* 4 */
    add(IOHW_RESULT_FAIL, BIG, "2d", IO ", or with kernel flipped"); /* 5 */
    add(IOHW_RESULT_FAIL, SMALL, "1d,pad", "");                   /* 6 */
    add(IOHW_RESULT_FAIL, SMALL, "1d", IO);                       /* 7 */
    add(IOHW_RESULT_FAIL, BIG, "2d,pad", "");                     /* 8 */
    add(IOHW_RESULT_WAIVED, SMALL, "1d", IO);

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.failures, 8);
    cr_assert_eq(v.count, 4);
    /* FAILs without a diagnosis are one cause, whatever their tags; a tie
     * of three: the group seen first comes first. */
    cr_expect_str_eq(v.groups[0].label, NO_MATCH);
    cr_expect_eq(v.groups[0].count, 3);
    cr_expect_eq(v.groups[0].diagnosis, -1);
    cr_expect_str_eq(v.groups[0].meaning,
                     "the output differs from the oracle beyond the tolerance");
    cr_expect_str_eq(v.groups[1].label, "weight I and O exchanged");
    cr_expect_eq(v.groups[1].count, 3);
    cr_expect_eq(v.groups[1].diagnosis, 1);
    /* Groups of one, in the order their first case came. */
    cr_expect_str_eq(v.groups[2].label, "kernel flipped");
    cr_expect_str_eq(v.groups[3].label, "CRASH without a message");
    for (int k = 0; k < v.count; k++)
        cr_expect_eq(v.groups[k].first, k == 0 ? 2 : k == 1 ? 3 : k == 2 ? 1 : 4);
    char line[256];
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "8 failures in 4 groups");
    iohw_verdict_free(&v);
}

/* 33 cases failing with one libtorch exception, its shapes, sizes and
 * addresses differing from case to case, are one group. */
Test(verdict, one_exception_with_other_shapes_and_numbers_is_one_group)
{
    static const char *const tags[] = {"1d", "2d,pad", "3d,bias,batch", "2d,groups"};
    for (int i = 0; i < 33; i++) {
        add(IOHW_RESULT_ERROR, i % 2 ? MID : BIG, tags[i % 4], "");
        items[i].message = iohw_text_fmt(
                 "run: libtorch: Given transposed=1, weight of size [%d, %d, %d, %d], "
                 "expected input[%d, %d, %d] to have %d channels, but got %d channels "
                 "instead (at 0x%x in '/opt/torch/lib/libtorch_cpu.so', %dx%dx%d)",
                 i + 1, i + 2, 3, i % 5 + 1, 1, i + 4, 7, i + 1, i + 4, 0x7f00 + i,
                 i + 1, i + 2, 2 * i + 3);
    }
    add(IOHW_RESULT_ERROR, MID, "1d", "");
    items[33].message = iohw_text_fmt("run: out of memory");

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 2);
    cr_expect_eq(v.groups[0].count, 33);
    cr_expect_str_eq(v.groups[0].label, "ERROR: run: libtorch: Given transposed=N, weight "
                     "of size SHAPE, expected inputSHAPE to have N channels, but got N "
                     "channels instead (at ADDR in PATH, SHAPE)");
    cr_expect_str_eq(v.groups[1].label, "ERROR: run: out of memory");
    cr_expect_eq(v.groups[1].count, 1);
    iohw_verdict_free(&v);
}

/* A FAIL whose diagnosis could not be checked joins the group of the
 * misreading it is consistent with; one whose first mismatches are all
 * non-finite, without one, is grouped as such, not by its tags. */
Test(verdict, fails_without_a_diagnosis_are_grouped_by_what_is_known)
{
    add(IOHW_RESULT_FAIL, MID, "1d", IO);
    add(IOHW_RESULT_FAIL, BIG, "2d,huge", IOHW_DIAGNOSE_CONSISTENT "weight I and O "
        "exchanged (not checkable: the output overflows)");
    add(IOHW_RESULT_FAIL, BIG, "2d,huge", "");
    add(IOHW_RESULT_FAIL, SMALL, "1d,special", "");
    for (int i = 2; i < 4; i++) {
        items[i].npoints = 2;
        items[i].points[0].got = i == 2 ? INFINITY : NAN;
        items[i].points[1].got = -INFINITY;
    }

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 2);
    cr_expect_str_eq(v.groups[0].label, "weight I and O exchanged");
    cr_expect_eq(v.groups[0].count, 2);
    cr_expect_str_eq(v.groups[1].label,
                     "FAIL: the output overflows or is NaN (no diagnosis checkable)");
    cr_expect_eq(v.groups[1].count, 2);
    iohw_verdict_free(&v);
}

Test(verdict, the_smallest_case_has_the_fewest_multiply_adds)
{
    add(IOHW_RESULT_FAIL, BIG, "2d", IO);
    add(IOHW_RESULT_FAIL, MID, "1d", IO);
    add(IOHW_RESULT_FAIL, SMALL, "1d", IO);
    add(IOHW_RESULT_FAIL, SMALL, "1d", IO);   /* a tie: the earlier stays */
    add(IOHW_RESULT_FAIL, MID, "1d", IO);

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 1);
    cr_expect_eq(v.groups[0].smallest, 2);
    cr_expect_eq(v.groups[0].smallest_macs, 12.0);
    cr_expect_eq(v.groups[0].first, 0);
    iohw_verdict_free(&v);
}

Test(verdict, an_unreadable_descriptor_counts_as_zero_work)
{
    add(IOHW_RESULT_INVALID, MID, "", "");
    add(IOHW_RESULT_INVALID, "", "", "");

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 1);
    cr_expect_str_eq(v.groups[0].label, "INVALID without a message");
    cr_expect_eq(v.groups[0].smallest, 1);
    cr_expect_eq(v.groups[0].smallest_macs, 0.0);
    iohw_verdict_free(&v);
}

Test(verdict, the_headline_names_the_one_diagnosis_of_every_failure)
{
    add(IOHW_RESULT_FAIL, MID, "1d", IO);
    add(IOHW_RESULT_PASS, MID, "1d", "");
    add(IOHW_RESULT_FAIL, SMALL, "1d", IO ", or with kernel flipped");

    iohw_verdict v;
    char line[256];
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "all 2 failures match weight I and O exchanged");
    cr_expect_str_eq(v.groups[0].meaning, "your kernel reads the weight as OIHW: "
                     "index w[m][c] where the definition has w[c][m]");
    iohw_verdict_free(&v);
}

/* The seeded output_padding-dropped fault's picture: every failure
 * matches "output_padding dropped", some also a padding bug named earlier
 * in the table.  A failure several causes explain joins the cause that
 * explains the most failures of the run: one group, not three. */
#define OP "output_padding dropped"
#define SWAP "matches the oracle with pad begin and end exchanged, or with "
#define PAD_IN "matches the oracle with padding applied to the input instead of " \
    "cropping the output, or with "
Test(verdict, a_failure_several_causes_explain_joins_the_largest_cause)
{
    add(IOHW_RESULT_FAIL, MID, "1d", "matches the oracle with " OP);
    add(IOHW_RESULT_FAIL, BIG, "2d", SWAP OP);
    add(IOHW_RESULT_FAIL, BIG, "2d", PAD_IN OP);
    add(IOHW_RESULT_FAIL, SMALL, "1d", SWAP OP);
    add(IOHW_RESULT_FAIL, MID, "1d", "matches the oracle with " OP);

    iohw_verdict v;
    char line[256];
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 1, "%d groups, the first '%s'", v.count, v.groups[0].label);
    cr_expect_str_eq(v.groups[0].label, OP);
    cr_expect_eq(v.groups[0].count, 5);
    cr_expect_eq(v.groups[0].smallest, 3);
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "all 5 failures match " OP);
    iohw_verdict_free(&v);
}

/* Equal counts: the table's order decides ("kernel flipped" comes after
 * "weight I and O exchanged"), whatever order the sentence names them. */
Test(verdict, a_tie_between_causes_goes_to_the_table_order)
{
    add(IOHW_RESULT_FAIL, MID, "1d", FLIP ", or with weight I and O exchanged");
    add(IOHW_RESULT_FAIL, MID, "1d", FLIP);
    add(IOHW_RESULT_FAIL, MID, "1d", IO);

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.count, 2);
    cr_expect_str_eq(v.groups[0].label, "weight I and O exchanged");
    cr_expect_eq(v.groups[0].count, 2);
    cr_expect_eq(v.groups[0].first, 0);
    cr_expect_eq(v.groups[1].count, 1);
    iohw_verdict_free(&v);
}

Test(verdict, the_matches_of_a_sentence_are_read_in_its_order)
{
    int found[4];
    const int io = iohw_diagnose_find("weight I and O exchanged");
    const int flip = iohw_diagnose_find("kernel flipped");
    const int groups = iohw_diagnose_find("output channels of the groups interleaved, "
                                          "bias included");
    cr_assert(io >= 0 && flip >= 0 && groups >= 0);
    cr_assert_eq(iohw_verdict_matches(FLIP ", or with output channels of the groups "
                                      "interleaved, bias included, or with weight I and "
                                      "O exchanged", found, 4), 3);
    cr_expect_eq(found[0], flip);
    cr_expect_eq(found[1], groups);
    cr_expect_eq(found[2], io);
    cr_expect_eq(iohw_verdict_matches(IOHW_DIAGNOSE_CONSISTENT "kernel flipped (not "
                                      "checkable: the output overflows)", found, 4), 1);
    cr_expect_eq(found[0], flip);
    cr_expect_eq(iohw_verdict_matches("", found, 4), 0);
    cr_expect_eq(iohw_verdict_matches("no diagnosis: out of memory", found, 4), 0);
    cr_expect_eq(iohw_verdict_matches(IO ", or with kernel flipped", found, 1), 1);
}

Test(verdict, one_undiagnosed_group_is_not_called_a_match)
{
    add(IOHW_RESULT_CRASH, MID, "1d", "");

    iohw_verdict v;
    char line[256];
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "1 failure in 1 group");
    iohw_verdict_free(&v);
}

Test(verdict, no_failures_no_groups)
{
    add(IOHW_RESULT_PASS, MID, "1d", "");
    add(IOHW_RESULT_UNSUPPORTED, MID, "1d", "");

    iohw_verdict v;
    char line[256];
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_expect_eq(v.count, 0);
    cr_expect_eq(v.failures, 0);
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "no failures");
    iohw_verdict_free(&v);
}

Test(verdict, every_diagnosis_in_the_table_has_a_meaning_and_is_found_by_name)
{
    const int n = iohw_diagnose_count();
    cr_assert_gt(n, 30);
    for (int i = 0; i < n; i++) {
        const char *name = iohw_diagnose_name(i);
        const char *meaning = iohw_diagnose_meaning(i);
        char sentence[512];
        cr_assert(meaning != NULL, "%s: no meaning", name);
        cr_expect(strncmp(meaning, "your kernel ", 12) == 0, "%s: '%s'", name, meaning);
        cr_expect_lt(strlen(meaning), 120, "%s: not one line: '%s'", name, meaning);
        cr_expect(strchr(meaning, '\n') == NULL, "%s", name);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(meaning, iohw_diagnose_meaning(j), "%s and %s share a meaning",
                              name, iohw_diagnose_name(j));
        cr_expect_eq(iohw_diagnose_find(name), i, "%s", name);
        snprintf(sentence, sizeof sentence, "matches the oracle with %s", name);
        cr_expect_eq(iohw_diagnose_find(sentence), i, "%s", sentence);
        snprintf(sentence, sizeof sentence, "matches the oracle with %s, or with pads "
                 "averaged", name);
        cr_expect_eq(iohw_diagnose_find(sentence), i, "%s", sentence);
    }
    cr_expect_null(iohw_diagnose_meaning(n));
    cr_expect_null(iohw_diagnose_meaning(-1));
    cr_expect_eq(iohw_diagnose_find("no diagnosis: out of memory"), -1);
    cr_expect_eq(iohw_diagnose_find("matches the oracle with something new"), -1);
}

/* Backward failures group per kernel (specification section 13): one
 * cause in BWD_W, with db or without, is one group; the same "no
 * diagnosis" in BWD_D and in forward are two more. */
#define DW_IO "matches the oracle with dw written with I and O exchanged (as OIHW)"
Test(verdict, backward_causes_group_per_kernel)
{
    add(IOHW_RESULT_FAIL, MID " dir=bwd_w", "dir-bwd_w", DW_IO);
    snprintf(items[0].direction, sizeof items[0].direction, "BWD_W");
    add(IOHW_RESULT_FAIL, MID " bias=1 dir=bwd_w", "dir-bwd_w", DW_IO);
    snprintf(items[1].direction, sizeof items[1].direction, "BWD_WB");
    add(IOHW_RESULT_FAIL, SMALL " dir=bwd_d", "dir-bwd_d", "");
    snprintf(items[2].direction, sizeof items[2].direction, "BWD_D");
    add(IOHW_RESULT_FAIL, SMALL, "1d", "");

    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&results, &v), 0);
    cr_assert_eq(v.failures, 4);
    cr_assert_eq(v.count, 3);
    cr_expect_str_eq(v.groups[0].label,
                     "BWD_W: dw written with I and O exchanged (as OIHW)");
    cr_expect_eq(v.groups[0].count, 2);
    cr_expect_str_eq(v.groups[1].label, "BWD_D: " NO_MATCH);
    cr_expect_str_eq(v.groups[2].label, NO_MATCH);
    iohw_verdict_free(&v);
}
