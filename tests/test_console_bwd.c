/*
 * tests/test_console_bwd.c - the console's mismatch table of a backward
 * case (harness/console_internal.h; specification section 13): its title
 * and rows name dx, dw or db and its columns their coordinates (n ci d h w
 * for dx, ci co kd kh kw for dw), never y's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

/* A BWD_WB case with two groups and a BWD_D case, run against backend
 * (knob: IOHW_BWD_KNOB or NULL); the console's output. */
static char *console_of(const char *backend, const char *knob)
{
    char *out = NULL;
    iohw_test_sh(NULL, "rm -rf '%s/console-bwd-%d' && mkdir -p '%s/console-bwd-%d' && "
                 "'%s' gen -o '%s/console-bwd-%d/c.h5' "
                 "--problem 'n=2 ci=2 co=4 g=2 in=4 k=3 s=2 bias=1 dir=bwd_wb fill=exact seed=3' "
                 "--problem 'n=1 ci=2 co=3 in=4 k=3 s=2 dir=bwd_d fill=exact seed=4' > /dev/null",
                 IOHW_TEST_TMP, (int)getpid(), IOHW_TEST_TMP, (int)getpid(), IOHW_BIN,
                 IOHW_TEST_TMP, (int)getpid());
    iohw_test_sh(&out, "%s%s%s'%s' run --jobs 1 --backend '%s/libiohw_%s.so' "
                 "'%s/console-bwd-%d/c.h5' 2>&1; rm -rf '%s/console-bwd-%d'",
                 knob ? "IOHW_BWD_KNOB=" : "", knob ? knob : "", knob ? " " : "",
                 IOHW_BIN, IOHW_BACKEND_DIR, backend, IOHW_TEST_TMP, (int)getpid(),
                 IOHW_TEST_TMP, (int)getpid());
    cr_assert_not_null(out);
    return out;
}

Test(console_bwd, a_wrong_db_is_tabled_as_db_with_weight_columns)
{
    char *out = console_of("fault_bwd_db_per_group", NULL);
    cr_expect_not_null(strstr(out, "first mismatches of dw and db (of 4):"), "%s", out);
    cr_expect_not_null(strstr(out, "    of     ci    co    kd    kh    kw         expected"),
                       "%s", out);
    /* db[0]: the first group's channel 0 gets both groups' sums. */
    cr_expect_not_null(strstr(out, "    db      0     0     0     0     0"), "%s", out);
    cr_expect_null(strstr(out, "first mismatches (of"), "no y table: %s", out);
    free(out);
}

Test(console_bwd, a_wrong_dx_is_tabled_as_dx_with_input_channels)
{
    char *out = console_of("bwd_test", "wrong_dx");
    cr_expect_not_null(strstr(out, "first mismatches of dx (of 1):"), "%s", out);
    cr_expect_not_null(strstr(out, "    of      n    ci     d     h     w         expected"),
                       "%s", out);
    /* The knob puts dx[0] (n=0, c=0, first position) off by one. */
    cr_expect_not_null(strstr(out, "    dx      0     0     0     0     0"), "%s", out);
    free(out);
}
