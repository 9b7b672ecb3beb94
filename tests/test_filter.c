/*
 * tests/test_filter.c - --filter expressions and --shard I/N.
 *
 * The case below is written out by hand; its output size follows from the
 * formula of the specification:
 *   H: (5 - 1)*2 - 1 - 0 + 1*(3 - 1) + 1 + 1 = 11
 *   W: (7 - 1)*1 - 0 - 1 + 2*(2 - 1) + 0 + 1 = 8
 * so the per-axis keys (largest over the axes) are k=3 s=2 d=2 pb=1 pe=1
 * op=1 in=7 out=11.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness/filter.h"

static char case_tags[] = "rank2,grouped,dilated";

static iohw_case sample(void)
{
    iohw_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "ct2d.grouped.3");
    c.p.rank = 2;
    c.p.batch = 2;
    c.p.in_channels = 4;
    c.p.out_channels = 6;
    c.p.groups = 2;
    c.p.in_size[0] = 5, c.p.in_size[1] = 7;
    c.p.kernel[0] = 3, c.p.kernel[1] = 2;
    c.p.stride[0] = 2, c.p.stride[1] = 1;
    c.p.dilation[0] = 1, c.p.dilation[1] = 2;
    c.p.pad_begin[0] = 1, c.p.pad_begin[1] = 0;
    c.p.pad_end[0] = 0, c.p.pad_end[1] = 1;
    c.p.output_padding[0] = 1, c.p.output_padding[1] = 0;
    c.p.out_size[0] = 11, c.p.out_size[1] = 8;
    strcpy(c.p.data_layout, "NHWC");
    strcpy(c.p.weight_layout, "OIHW");
    c.p.dtype = IOHW_F16;
    c.p.has_bias = 1;
    strcpy(c.fill, "normal");
    c.tags = case_tags;
    return c;
}

/* 1 / 0 for a filter that parses; -1 when it does not. */
static int matches(const char *expr)
{
    iohw_case c = sample();
    iohw_error err = {{0}};
    iohw_filter *f = iohw_filter_parse(expr, &err);
    if (f == NULL) {
        cr_log_error("filter \"%s\" rejected: %s", expr, err.msg);
        return -1;
    }
    int m = iohw_filter_match(f, &c);
    iohw_filter_free(f);
    return m;
}

/* The message of a filter that must be rejected. */
static const char *rejected(const char *expr)
{
    static iohw_error err;
    memset(&err, 0, sizeof err);
    iohw_filter *f = iohw_filter_parse(expr, &err);
    if (f != NULL) {
        iohw_filter_free(f);
        return NULL;
    }
    return err.msg;
}

Test(filter, every_operator_compares_a_number)
{
    cr_expect_eq(matches("rank=2"), 1);
    cr_expect_eq(matches("rank=3"), 0);
    cr_expect_eq(matches("rank!=2"), 0);
    cr_expect_eq(matches("rank!=1"), 1);
    cr_expect_eq(matches("rank<3"), 1);
    cr_expect_eq(matches("rank<2"), 0);
    cr_expect_eq(matches("rank<=2"), 1);
    cr_expect_eq(matches("rank<=1"), 0);
    cr_expect_eq(matches("rank>1"), 1);
    cr_expect_eq(matches("rank>2"), 0);
    cr_expect_eq(matches("rank>=2"), 1);
    cr_expect_eq(matches("rank>=3"), 0);
}

Test(filter, every_numeric_key_reads_its_member)
{
    const char *yes[] = {"n=2", "ci=4", "co=6", "g=2", "k=3", "s=2", "d=2",
                         "pb=1", "pe=1", "op=1", "in=7", "out=11"};
    const char *no[] = {"n=1", "ci=6", "co=4", "g=1", "k=2", "s=1", "d=1",
                        "pb=0", "pe=0", "op=0", "in=5", "out=8"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        cr_expect_eq(matches(yes[i]), 1, "%s", yes[i]);
        cr_expect_eq(matches(no[i]), 0, "%s", no[i]);
    }
}

Test(filter, per_axis_keys_compare_the_largest_axis)
{
    /* kernel 3x2: the largest is 3, so k>2 holds and k<3 does not. */
    cr_expect_eq(matches("k>2"), 1);
    cr_expect_eq(matches("k<3"), 0);
    /* dilation 1x2 */
    cr_expect_eq(matches("d>1"), 1);
}

Test(filter, string_keys_compare_whole_strings)
{
    cr_expect_eq(matches("dt=f16"), 1);
    cr_expect_eq(matches("dt=f32"), 0);
    cr_expect_eq(matches("dt!=f32"), 1);
    cr_expect_eq(matches("xl=NHWC"), 1);
    cr_expect_eq(matches("xl=NCHW"), 0);
    cr_expect_eq(matches("xl=NHW"), 0);
    cr_expect_eq(matches("wl=OIHW"), 1);
    cr_expect_eq(matches("wl!=OIHW"), 0);
    cr_expect_eq(matches("fill=normal"), 1);
    cr_expect_eq(matches("fill=exact"), 0);
}

Test(filter, tags_are_whole_comma_separated_words)
{
    cr_expect_eq(matches("tag=grouped"), 1);
    cr_expect_eq(matches("tag=rank2"), 1);
    cr_expect_eq(matches("tag=dilated"), 1);
    cr_expect_eq(matches("tag=group"), 0);     /* a prefix is not the tag */
    cr_expect_eq(matches("tag=ouped"), 0);
    cr_expect_eq(matches("tag=bias"), 0);
    cr_expect_eq(matches("tag!=bias"), 1);
    cr_expect_eq(matches("tag!=dilated"), 0);
}

Test(filter, a_case_without_tags_has_none)
{
    iohw_case c = sample();
    c.tags = NULL;
    iohw_filter *f = iohw_filter_parse("tag!=grouped", NULL);
    cr_assert_not_null(f);
    cr_expect_eq(iohw_filter_match(f, &c), 1);
    iohw_filter_free(f);
    f = iohw_filter_parse("tag=grouped", NULL);
    cr_assert_not_null(f);
    cr_expect_eq(iohw_filter_match(f, &c), 0);
    iohw_filter_free(f);
}

Test(filter, id_globs_match_with_and_without_the_key)
{
    cr_expect_eq(matches("id=ct2d.*"), 1);
    cr_expect_eq(matches("id=ct3d.*"), 0);
    cr_expect_eq(matches("id!=ct3d.*"), 1);
    cr_expect_eq(matches("id!=ct2d.*"), 0);
    cr_expect_eq(matches("id=ct2d.grouped.3"), 1);
    cr_expect_eq(matches("id=ct2d.grouped"), 0);   /* a glob matches all */
    cr_expect_eq(matches("ct2d.*"), 1);
    cr_expect_eq(matches("*.grouped.?"), 1);
    cr_expect_eq(matches("*.grouped.[0-2]"), 0);
    cr_expect_eq(matches("ct1d*"), 0);
}

Test(filter, every_condition_must_hold)
{
    cr_expect_eq(matches("rank=2,g>1,tag=dilated"), 1);
    cr_expect_eq(matches("rank=2,g>2,tag=dilated"), 0);
    cr_expect_eq(matches("ct2d.*,dt=f16"), 1);
    cr_expect_eq(matches("ct2d.*,dt=f32"), 0);
    cr_expect_eq(matches(" rank = 2 , g >= 2 ,  tag=grouped "), 1);
}

Test(filter, an_unknown_key_is_named)
{
    const char *m = rejected("rank=2,colour=red");
    cr_assert_not_null(m);
    cr_expect(strstr(m, "unknown key") != NULL, "%s", m);
    cr_expect(strstr(m, "colour") != NULL, "%s", m);
}

Test(filter, a_bad_operator_is_named)
{
    const char *bad[] = {"rank=>2", "rank==2", "g<>1", "rank=!2", "n<<2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = rejected(bad[i]);
        cr_assert_not_null(m, "%s was accepted", bad[i]);
        cr_expect(strstr(m, "bad operator") != NULL, "%s: %s", bad[i], m);
        cr_expect(strstr(m, bad[i]) != NULL, "%s: %s", bad[i], m);
    }
}

Test(filter, strings_and_tags_accept_only_equality)
{
    const char *bad[] = {"tag<x", "dt>f16", "xl<=NCHW", "id>=a*", "fill<exact"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = rejected(bad[i]);
        cr_assert_not_null(m, "%s was accepted", bad[i]);
        cr_expect(strstr(m, "bad operator") != NULL, "%s: %s", bad[i], m);
    }
}

Test(filter, a_bad_number_is_named)
{
    const char *bad[] = {"rank=two", "k>3x2", "g=1.5", "n=", "co=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = rejected(bad[i]);
        cr_assert_not_null(m, "%s was accepted", bad[i]);
        cr_expect(strstr(m, bad[i]) != NULL, "%s: %s", bad[i], m);
    }
    cr_expect(strstr(rejected("rank=two"), "bad number") != NULL);
    cr_expect(strstr(rejected("n="), "missing value") != NULL);
}

Test(filter, empty_conditions_are_errors)
{
    const char *bad[] = {"", "rank=2,,g=1", "rank=2,", ",rank=2", " , "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = rejected(bad[i]);
        cr_assert_not_null(m, "\"%s\" was accepted", bad[i]);
        cr_expect(strstr(m, "empty") != NULL, "\"%s\": %s", bad[i], m);
    }
    cr_expect(strstr(rejected("rank=2,,g=1"), "condition 2") != NULL);
}

Test(filter, a_missing_key_is_an_error)
{
    const char *m = rejected("=2");
    cr_assert_not_null(m);
    cr_expect(strstr(m, "missing key") != NULL, "%s", m);
    cr_expect_null(iohw_filter_parse(NULL, NULL));
}

Test(shard, parses_index_and_count)
{
    int i = 0, n = 0;
    cr_assert_eq(iohw_shard_parse("1/4", &i, &n, NULL), 0);
    cr_expect_eq(i, 1);
    cr_expect_eq(n, 4);
    cr_assert_eq(iohw_shard_parse("4/4", &i, &n, NULL), 0);
    cr_expect_eq(i, 4);
    cr_assert_eq(iohw_shard_parse("1/1", &i, &n, NULL), 0);
    cr_expect_eq(n, 1);
}

Test(shard, rejects_bad_text_and_names_it)
{
    const char *bad[] = {"0/4", "5/4", "a/4", "1/0", "1/", "/4", "1/4x", "-1/4",
                         "1/-4", "", "14", "1/2/3", "+1/4", "99999999999/1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        iohw_error err = {{0}};
        int i = -7, n = -7;
        cr_expect_eq(iohw_shard_parse(bad[k], &i, &n, &err), -1, "\"%s\"", bad[k]);
        cr_expect(strstr(err.msg, "shard") != NULL, "\"%s\": %s", bad[k], err.msg);
        cr_expect(strstr(err.msg, bad[k]) != NULL, "\"%s\": %s", bad[k], err.msg);
        cr_expect_eq(i, -7, "\"%s\" changed the index", bad[k]);
    }
    cr_expect_eq(iohw_shard_parse(NULL, NULL, NULL, NULL), -1);
}

/* Every id falls in exactly one shard; with 1000 ids and N shards each holds
 * about 1000/N (a binomial spread of sqrt(1000 (1/N)(1 - 1/N)), below 16;
 * the bounds allow more than four times that). */
static void check_partition(int count)
{
    int sizes[16] = {0};
    char id[64];
    for (int k = 0; k < 1000; k++) {
        snprintf(id, sizeof id, "ct%dd.case-%04d", 1 + k % 3, k);
        int owners = 0;
        for (int s = 1; s <= count; s++)
            if (iohw_shard_match(id, s, count)) {
                owners++;
                sizes[s - 1]++;
            }
        cr_assert_eq(owners, 1, "%s is in %d of %d shards", id, owners, count);
    }
    for (int s = 0; s < count; s++) {
        int expect = 1000 / count;
        cr_expect(sizes[s] > expect - 70 && sizes[s] < expect + 70,
                  "shard %d/%d holds %d of 1000", s + 1, count, sizes[s]);
    }
}

Test(shard, shards_partition_the_ids_evenly)
{
    check_partition(1);
    check_partition(2);
    check_partition(4);
    check_partition(7);
}

Test(shard, membership_depends_only_on_the_id)
{
    char id[32];
    strcpy(id, "ct2d.a");
    int first = -1;
    for (int s = 1; s <= 5; s++)
        if (iohw_shard_match(id, s, 5))
            first = s;
    cr_assert_neq(first, -1);
    /* Same id in another buffer: same shard. */
    char copy[32];
    strcpy(copy, id);
    cr_expect_eq(iohw_shard_match(copy, first, 5), 1);
    /* Out-of-range arguments belong to no shard. */
    cr_expect_eq(iohw_shard_match(id, 0, 5), 0);
    cr_expect_eq(iohw_shard_match(id, 6, 5), 0);
    cr_expect_eq(iohw_shard_match(id, 1, 0), 0);
    cr_expect_eq(iohw_shard_match(NULL, 1, 1), 0);
}
