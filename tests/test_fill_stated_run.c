/*
 * tests/test_fill_stated_run.c - a case generated from a descriptor that
 * states the fixed multipliers with left shifts (qmul=, qshift=:
 * specification section 11.4) reaches the judge with them: the seeded
 * fault that ignores positive shifts FAILs it and is named "fixed-point
 * left shift ignored" (section 11.5), and the reference passes it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"

#define STATED "ci=2 co=3 in=6 k=2 dt=s8 wdt=s8 ydt=s8 round=half_even m=fixed pc=1 " \
               "fill=qshift qmul=1073741824,1500000000,1200000000 qshift=3,2,1"

/* Runs backend lib (under build/backends) on the one case of STATED. */
static void run_one(const char *lib, int want_rc, iohw_result *out)
{
    char dir[512], json[600];
    iohw_report rep;
    iohw_error err = {{0}};
    snprintf(dir, sizeof dir, "%s/fill-stated-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(json, sizeof json, "%s/r.json", dir);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s' && '%s' gen "
                              "--problem '%s' -o '%s/c.h5' > /dev/null", dir, dir, IOHW_BIN,
                              STATED, dir), 0);
    int rc = iohw_test_sh(NULL, "'%s' run --backend '%s/%s' '%s/c.h5' --quiet --json '%s' "
                          "> /dev/null 2>&1", IOHW_BIN, IOHW_BACKEND_DIR, lib, dir, json);
    cr_assert_eq(rc, want_rc, "%s: exit %d", lib, rc);
    cr_assert_eq(iohw_report_read(json, &rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep.results.count, 1);
    *out = rep.results.items[0];
    iohw_report_free(&rep);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fill_stated_run, the_left_shift_ignored_fault_fails_the_stated_case_named)
{
    iohw_result r;
    run_one("libiohw_fault_quant_shift_left.so", 1, &r);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_str_eq(r.diagnosis, "matches the oracle with fixed-point left shift ignored");
    cr_expect(strstr(r.descriptor, " qmul=1073741824,1500000000,1200000000 qshift=3,2,1 ")
                  != NULL, "%s", r.descriptor);
}

Test(fill_stated_run, the_reference_passes_it)
{
    iohw_result r;
    run_one("libiohw_reference.so", 0, &r);
    cr_expect_eq(r.status, IOHW_RESULT_PASS);
}
