/*
 * tests/test_shape_smoke_fault.c - the smoke profile catches a library
 * that ignores the dilation and returns the undilated output shape
 * (backends/faults/dilation_ignored_shape.c: the smaller output copied
 * densely into y, its tail never written), and the shape diagnosis
 * (specification section 3.5) names it on at least three cases, proven by
 * the values; no case is named after another misreading.  The smoke
 * profile has dilated cases: that is what this counts on.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/diagnose_shape.h"
#include "reports/reports.h"
#include "support/shell.h"

#define MIN_CASES 3
#define NAME "dilation ignored: "

Test(shape_smoke_fault, dilation_ignored_shape_fails_and_is_named_on_three_cases,
     .timeout = 580)
{
    char dir[512], json[600];
    iohw_report rep;
    iohw_error err = {{0}};
    snprintf(dir, sizeof dir, "%s/shape-smoke-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(json, sizeof json, "%s/r.json", dir);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && '%s' gen --profile smoke "
                              "-o '%s' > /dev/null", dir, IOHW_BIN, dir), 0);
    int rc = iohw_test_sh(NULL, "'%s' run --backend "
                          "'%s/libiohw_fault_dilation_ignored_shape.so' '%s' "
                          "--jobs 2 --quiet --json '%s' > /dev/null 2>&1",
                          IOHW_BIN, IOHW_BACKEND_DIR, dir, json);
    cr_assert_eq(rc, 1, "the smoke profile does not catch it: exit %d", rc);
    cr_assert_eq(iohw_report_read(json, &rep, &err), 0, "%s", err.msg);

    int fails = 0, named = 0, dilated = 0;
    for (int64_t i = 0; i < rep.results.count; i++) {
        const iohw_result *r = &rep.results.items[i];
        dilated += strstr(r->tags, "dilated") != NULL;
        if (r->status != IOHW_RESULT_FAIL)
            continue;
        fails++;
        named += strncmp(r->diagnosis, NAME, strlen(NAME)) == 0;
        /* named after another shape misreading: wrong */
        for (int k = 0; k < iohw_diagnose_shape_count(); k++) {
            char other[128];
            snprintf(other, sizeof other, "%s: ", iohw_diagnose_shape_name(k));
            if (strcmp(other, NAME) != 0)
                cr_expect(strncmp(r->diagnosis, other, strlen(other)) != 0,
                          "%s named wrongly: %s", r->case_id, r->diagnosis);
        }
    }
    printf("dilation_ignored_shape: %d dilated smoke cases, %d FAIL, %d named "
           "'dilation ignored' by the shape diagnosis\n", dilated, fails, named);
    cr_expect_geq(dilated, MIN_CASES, "the smoke profile has %d dilated cases",
                  dilated);
    cr_expect_geq(fails, MIN_CASES);
    cr_expect_geq(named, MIN_CASES);
    iohw_report_free(&rep);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
