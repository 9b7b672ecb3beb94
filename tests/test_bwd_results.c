/*
 * tests/test_bwd_results.c - what a backward case leaves behind
 * (specification section 13): the record's "direction" member (written
 * only for a backward result, read back, refused when unknown, naming the
 * member) and the filter key dir= (fwd, bwd, bwd_d, bwd_w and benchdnn's
 * names, any case).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness/console.h"
#include "harness/filter.h"
#include "results/record.h"
#include "results/result.h"

static iohw_result sample(const char *direction)
{
    iohw_result r;
    iohw_result_init(&r);
    r.case_id = iohw_text_fmt("ct1d.bwd_w.f32.0001");
    r.status = IOHW_RESULT_FAIL;
    snprintf(r.direction, sizeof r.direction, "%s", direction);
    return r;
}

Test(bwd_results, record_writes_and_reads_the_direction)
{
    static char buf[65536];
    iohw_result r = sample("BWD_WB"), back;
    iohw_error err = {{0}};
    int n = iohw_record_encode(&r, buf, sizeof buf);
    cr_assert_gt(n, 0);
    cr_assert_not_null(strstr(buf, "\"tags\": \"\", \"direction\": \"BWD_WB\", "
                                   "\"status\": \"FAIL\""), "%s", buf);
    cr_assert_eq(iohw_record_decode(buf, (size_t)n, &back, &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(back.direction, "BWD_WB");
}

Test(bwd_results, a_forward_record_has_no_direction_member)
{
    static char buf[65536];
    iohw_result r = sample(""), back;
    iohw_error err = {{0}};
    int n = iohw_record_encode(&r, buf, sizeof buf);
    cr_assert_gt(n, 0);
    cr_assert_null(strstr(buf, "direction"), "%s", buf);
    cr_assert_eq(iohw_record_decode(buf, (size_t)n, &back, &err), 0);
    cr_assert_str_eq(back.direction, "");
}

Test(bwd_results, an_unknown_direction_is_refused_by_name)
{
    static const char *const bad[] = {
        "{\"id\": \"a\", \"status\": \"PASS\", \"direction\": \"BWD_X\"}",
        "{\"id\": \"a\", \"status\": \"PASS\", \"direction\": 3}",
        "{\"id\": \"a\", \"status\": \"PASS\", \"direction\": \"FWD_DIRECTION\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iohw_result r;
        iohw_error err = {{0}};
        cr_assert_eq(iohw_record_decode(bad[i], strlen(bad[i]), &r, &err), -1,
                     "%s", bad[i]);
        cr_assert_not_null(strstr(err.msg, "direction"), "%s", err.msg);
    }
    const char *ok = "{\"id\": \"a\", \"status\": \"PASS\", \"direction\": "
                     "\"BWD_D\"}";
    iohw_result r;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_record_decode(ok, strlen(ok), &r, &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(r.direction, "BWD_D");
}

/* --- the filter key dir= ------------------------------------------------- */

static int matches(const char *expr, int32_t dir, int32_t bias)
{
    iohw_error err = {{0}};
    iohw_filter *f = iohw_filter_parse(expr, &err);
    cr_assert_not_null(f, "%s: %s", expr, err.msg);
    iohw_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "x");
    c.p.direction = dir;
    c.p.has_bias = bias;
    char empty[1] = "";
    c.tags = empty;
    c.descriptor = empty;
    int m = iohw_filter_match(f, &c);
    iohw_filter_free(f);
    return m;
}

Test(bwd_results, filter_dir_values)
{
    /* {expression, FWD no bias, FWD bias, BWD_D, BWD_W, BWD_W bias} */
    static const struct {
        const char *expr;
        int want[5];
    } rows[] = {
        {"dir=fwd", {1, 1, 0, 0, 0}},   {"dir=bwd", {0, 0, 1, 1, 1}},
        {"dir=bwd_d", {0, 0, 1, 0, 0}}, {"dir=bwd_w", {0, 0, 0, 1, 1}},
        {"dir=fwd_d", {1, 0, 0, 0, 0}}, {"dir=FWD_B", {0, 1, 0, 0, 0}},
        {"dir=BWD_WB", {0, 0, 0, 0, 1}}, {"dir!=bwd", {1, 1, 0, 0, 0}},
    };
    static const int32_t dirs[5] = {0, 0, 1, 2, 2}, bias[5] = {0, 1, 0, 0, 1};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int k = 0; k < 5; k++)
            cr_expect_eq(matches(rows[i].expr, dirs[k], bias[k]),
                         rows[i].want[k], "%s on problem %d", rows[i].expr, k);
}

Test(bwd_results, filter_dir_refuses_unknown_values)
{
    iohw_error err = {{0}};
    cr_assert_null(iohw_filter_parse("dir=sideways", &err));
    cr_assert_not_null(strstr(err.msg, "unknown direction \"sideways\""), "%s",
                       err.msg);
    cr_assert_null(iohw_filter_parse("dir<bwd", &err));
    cr_assert_not_null(strstr(err.msg, "only = and !="), "%s", err.msg);
}

/* --- the console's block of a bad result --------------------------------- */

Test(bwd_results, console_block_names_the_direction)
{
    static char buf[1 << 16];
    iohw_result r = sample("BWD_W");
    r.file = iohw_text_fmt("suite/backward.h5");
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    cr_assert_not_null(f);
    iohw_console_block(f, "libx.so", &r);
    fclose(f);
    cr_assert_not_null(strstr(buf, "\nFAIL BWD_W ct1d.bwd_w.f32.0001 "
                                   "(suite/backward.h5)\n"), "%s", buf);
}
