/*
 * tests/test_verdict.c - the bug first: failures grouped by diagnosis,
 * largest group first, each with its meaning and smallest case
 * (judge/verdict.h), on hand-built result sets; and the meaning of every
 * diagnosis in the table.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/verdict.h"

#define IO "matches the oracle with weight I and O exchanged"
#define FLIP "matches the oracle with kernel flipped"

/* ci=1 co=1 in=4 k=3: 4 inputs x 1 output channel x 3 taps = 12 MACs;
 * ci=2 co=3 in=5 k=3: 10 x 3 x 3 = 90; ci=2 co=2 in=3x3 k=2x2: 18 x 2 x 4
 * = 144. */
#define SMALL "ci=1 co=1 in=4 k=3"
#define MID "ci=2 co=3 in=5 k=3"
#define BIG "ci=2 co=2 in=3x3 k=2x2"

static iohw_result items[16];
static iohw_run_results results;

static void add(iohw_result_status s, const char *desc, const char *tags,
                const char *diagnosis)
{
    iohw_result *r = &items[results.count];
    memset(r, 0, sizeof *r);
    snprintf(r->case_id, sizeof r->case_id, "case.%lld", (long long)results.count);
    snprintf(r->file, sizeof r->file, "suite/x.h5");
    snprintf(r->descriptor, sizeof r->descriptor, "%s", desc);
    snprintf(r->tags, sizeof r->tags, "%s", tags);
    snprintf(r->diagnosis, sizeof r->diagnosis, "%s", diagnosis);
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
    cr_assert_eq(v.count, 5);
    cr_expect_str_eq(v.groups[0].label, "weight I and O exchanged");
    cr_expect_eq(v.groups[0].count, 3);
    cr_expect_eq(v.groups[0].diagnosis, 1);
    cr_expect_str_eq(v.groups[1].label, "FAIL with tags 2d,pad");
    cr_expect_eq(v.groups[1].count, 2);
    cr_expect_eq(v.groups[1].diagnosis, -1);
    cr_expect_str_eq(v.groups[1].meaning,
                     "the output differs from the oracle beyond the tolerance");
    /* Groups of one, in the order their first case came. */
    cr_expect_str_eq(v.groups[2].label, "kernel flipped");
    cr_expect_str_eq(v.groups[3].label, "CRASH with tags 2d,pad");
    cr_expect_str_eq(v.groups[4].label, "FAIL with tags 1d,pad");
    for (int k = 0; k < v.count; k++)
        cr_expect_eq(v.groups[k].first, k == 0 ? 3 : k == 1 ? 2 : k == 2 ? 1 : k == 3 ? 4 : 6);
    char line[256];
    iohw_verdict_headline(&v, line, sizeof line);
    cr_expect_str_eq(line, "8 failures in 5 groups");
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
    cr_expect_str_eq(v.groups[0].label, "INVALID without tags");
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
