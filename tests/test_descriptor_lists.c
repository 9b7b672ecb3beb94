/*
 * tests/test_descriptor_lists.c - the descriptor keys sw, qmul and qshift
 * (specification section 11.4): parsed per value, 1 or co values, errors
 * naming the key, a hostile list refused, the canonical form read back, and
 * a generated case keeping what its descriptor states.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/quant_problem.h"

#define BASE "n=1 ci=2 co=3 in=4 k=2 dt=u8 wdt=s8 "

static iohw_desc *parse_ok(const char *text)
{
    iohw_desc *d = malloc(sizeof *d);
    iohw_error err = {{0}};
    cr_assert_not_null(d);
    cr_assert_eq(iohw_desc_parse(text, d, &err), 0, "%s: %s", text, err.msg);
    return d;
}

static void parse_fails(const char *text, const char *needle)
{
    iohw_desc *d = malloc(sizeof *d);
    iohw_error err = {{0}};
    cr_assert_not_null(d);
    cr_assert_eq(iohw_desc_parse(text, d, &err), -1, "%.80s parsed", text);
    cr_expect(strstr(err.msg, needle) != NULL, "%.80s: '%s' lacks '%s'", text, err.msg,
              needle);
    free(d);
}

Test(descriptor_lists, sw_per_channel_is_stored_and_stated)
{
    iohw_desc *d = parse_ok(BASE "pc=1 sx=0.00392156863 sw=0.0123,0.0456,0.5");
    cr_expect_eq(d->n_sw, 3);
    cr_expect_eq(d->sw[0], 0.0123f);
    cr_expect_eq(d->sw[1], 0.0456f);
    cr_expect_eq(d->sw[2], 0.5f);
    cr_expect_eq(d->p.s_x, 1.0f / 255.0f);
    cr_expect_eq(d->stated, (uint32_t)(IOHW_STATED_SX | IOHW_STATED_SW));
    free(d);
}

Test(descriptor_lists, qmul_and_qshift_one_value_or_per_channel)
{
    iohw_desc *d = parse_ok(BASE "pc=1 m=fixed qmul=1500000000 qshift=3,-2,30");
    cr_expect_eq(d->n_qmul, 1);
    cr_expect_eq(d->qmul[0], 1500000000);
    cr_expect_eq(d->n_qshift, 3);
    cr_expect_eq(d->qshift[0], 3);
    cr_expect_eq(d->qshift[1], -2);
    cr_expect_eq(d->qshift[2], 30);
    cr_expect_eq(d->stated, (uint32_t)(IOHW_STATED_QMUL | IOHW_STATED_QSHIFT));
    free(d);
    d = parse_ok(BASE "m=fixed qshift=-31");
    cr_expect_eq(d->n_qshift, 1);
    cr_expect_eq(d->qshift[0], -31);
    free(d);
}

Test(descriptor_lists, nothing_stated_without_the_keys)
{
    iohw_desc *d = parse_ok(BASE "pc=1");
    cr_expect_eq(d->stated, 0u);
    cr_expect_eq(d->n_sw + d->n_qmul + d->n_qshift, 0);
    free(d);
}

Test(descriptor_lists, bad_values_name_the_key)
{
    parse_fails(BASE "pc=1 sw=0.1,0.2", "sw: 2 values; it takes 1, or co = 3 with pc=1");
    parse_fails(BASE "pc=0 sw=0.1,0.2,0.3", "sw: 3 values; it takes 1");
    parse_fails(BASE "sw=0", "sw: value 1 '0' must be a positive normal");
    parse_fails(BASE "pc=1 sw=0.1,-0.5,0.2", "sw: value 2 '-0.5' must be a positive");
    parse_fails(BASE "sw=nan", "sw: value 1 'nan' must be a positive normal");
    parse_fails(BASE "sw=inf", "sw: value 1 'inf'");
    parse_fails(BASE "sw=1e39", "sw: value 1 '1e39'");
    parse_fails(BASE "sw=0.1x", "sw: value 1 '0.1x' is not a decimal number");
    parse_fails(BASE "pc=1 sw=0.1,,0.2", "sw: value 2 '' is not a decimal number");
    parse_fails(BASE "m=fixed qmul=0", "qmul: value 1 '0' is outside [1, 2147483647]");
    parse_fails(BASE "m=fixed qmul=2147483648", "qmul: value 1 '2147483648' is outside");
    parse_fails(BASE "m=fixed qshift=31", "qshift: value 1 '31' is outside [-31, 30]");
    parse_fails(BASE "m=fixed qshift=-32", "qshift: value 1 '-32' is outside [-31, 30]");
    parse_fails(BASE "m=fixed sw=0.5", "sw belongs to m=scales");
    parse_fails(BASE "qmul=1073741824", "qmul and qshift belong to m=fixed");
    parse_fails(BASE "qshift=1", "qmul and qshift belong to m=fixed");
    parse_fails(BASE "ydt=s32 sw=0.5", "an s32 y is not requantized");
    parse_fails("ci=2 co=3 in=4 k=2 sw=0.5", "this key is for a quantized problem");
}

Test(descriptor_lists, a_hostile_list_of_a_million_values_is_refused)
{
    const size_t n = 1000000;
    char *text = malloc(strlen(BASE) + 20 + 4 * n);
    cr_assert_not_null(text);
    char *at = text + sprintf(text, "%spc=1 sw=", BASE);
    for (size_t i = 0; i < n; i++) {
        memcpy(at, i == 0 ? "0.5" : ",0.5", i == 0 ? 3 : 4);
        at += i == 0 ? 3 : 4;
    }
    *at = '\0';
    parse_fails(text, "sw: 1000000 values, at most 256");
    free(text);
}

Test(descriptor_lists, canonical_form_parses_back_to_the_same_problem)
{
    static const char *const TEXTS[] = {
        BASE "pc=1 sx=0.00392156863 sy=0.0157 sw=0.0123,0.0456,0.5 seed=4",
        BASE "pc=0 sw=0.00787401572",
        BASE "pc=1 m=fixed qmul=1073741824,1500000000,2147483647 qshift=3,-2,0",
        BASE "round=gemmlowp pc=1 qshift=7",
    };
    char one[IOHW_DESC_MAX], two[IOHW_DESC_MAX];
    for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++) {
        iohw_desc *a = parse_ok(TEXTS[i]);
        cr_assert_gt(iohw_desc_format(a, one, sizeof one), 0, "%s", TEXTS[i]);
        iohw_desc *b = parse_ok(one);
        cr_expect_eq(memcmp(&a->p, &b->p, sizeof a->p), 0, "%s", one);
        cr_expect_eq(a->n_sw, b->n_sw, "%s", one);
        cr_expect_eq(memcmp(a->sw, b->sw, sizeof a->sw), 0, "%s", one);
        cr_expect_eq(memcmp(a->qmul, b->qmul, sizeof a->qmul), 0, "%s", one);
        cr_expect_eq(memcmp(a->qshift, b->qshift, sizeof a->qshift), 0, "%s", one);
        cr_assert_gt(iohw_desc_format(b, two, sizeof two), 0);
        cr_expect_str_eq(two, one);
        free(a);
        free(b);
    }
    iohw_desc *c = parse_ok(TEXTS[2]);
    cr_assert_gt(iohw_desc_format(c, one, sizeof one), 0);
    cr_expect(strstr(one, " qmul=1073741824,1500000000,2147483647 qshift=3,-2,0 xl=") != NULL,
              "%s", one);
    free(c);
}

/* n values v, comma-separated, after "key=". */
static size_t put_list(char *at, const char *key, const char *v, int n)
{
    char *start = at;
    at += sprintf(at, " %s=", key);
    for (int i = 0; i < n; i++)
        at += sprintf(at, "%s%s", i ? "," : "", v);
    return (size_t)(at - start);
}

Test(descriptor_lists, the_longest_lists_are_neither_cut_nor_refused)
{
    /* 256 channels, every value as long as its key allows: the canonical
     * form (over 8 KB) parses back, and a case made from it keeps it. */
    static const char *const FORMS[][3] = {
        {"m=fixed", "qmul", "2147483647"},
        {"m=scales", "sw", "1.17549435e-38"},
    };
    for (int f = 0; f < 2; f++) {
        char *text = malloc(16384), *one = malloc(IOHW_DESC_MAX);
        cr_assert(text != NULL && one != NULL);
        size_t len = (size_t)sprintf(text, "n=1 ci=2 co=256 in=2 k=1 dt=s8 pc=1 %s",
                                     FORMS[f][0]);
        len += put_list(text + len, FORMS[f][1], FORMS[f][2], 256);
        if (f == 0)
            put_list(text + len, "qshift", "-31", 256);
        iohw_desc *a = parse_ok(text);
        int n = iohw_desc_format(a, one, IOHW_DESC_MAX);
        cr_assert_gt(n, 256 * (int)strlen(FORMS[f][2]), "%.80s: %d", text, n);
        iohw_desc *b = parse_ok(one);
        cr_expect_eq(memcmp(a->qmul, b->qmul, sizeof a->qmul), 0);
        cr_expect_eq(memcmp(a->qshift, b->qshift, sizeof a->qshift), 0);
        cr_expect_eq(memcmp(a->sw, b->sw, sizeof a->sw), 0);
        iohw_case c;
        iohw_error err = {{0}};
        cr_assert_eq(iohw_make_case(a, "long.0", NULL, 1, &c, &err), 0, "%s", err.msg);
        /* The case's descriptor holds the fitted scales too; the lists
         * are as stated. */
        char *list = strstr(one, FORMS[f][1]);
        cr_assert_not_null(list);
        *strstr(list, " xl=") = '\0';
        cr_expect(strstr(c.descriptor, list) != NULL, "%.200s", c.descriptor);
        iohw_case_free(&c);
        free(a);
        free(b);
        free(text);
        free(one);
    }
}
