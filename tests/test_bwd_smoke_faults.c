/*
 * tests/test_bwd_smoke_faults.c - the smoke profile corners the backward
 * bugs (specification section 13; PITFALLS.md "Backward bugs"): each
 * backward seeded fault (backends/faults/bwd_*.c) FAILs at least three of
 * the smoke profile's backward cases, and at least three of its failures
 * are named by its backward diagnosis (judge/diagnose_bwd.c).  Detection
 * that rests on one case is luck.  A table of both counts per fault is
 * printed.
 *
 * The smoke profile's backward cases are its category file backward.h5;
 * the verdicts and diagnoses are read from `iohw run --json`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"

#define MIN_CASES 3

typedef struct bwd_fault {
    const char *name;      /* libiohw_<name>.so */
    const char *diagnosis; /* what its diagnosis says (dw written / w read
                              with I and O exchanged: their common part) */
} bwd_fault;

static const bwd_fault FAULTS[] = {
    {"fault_bwd_io_swap", "I and O exchanged (as OIHW)"},
    {"fault_bwd_no_flip", "gradient kernel not flipped (taps reversed)"},
    {"fault_bwd_op_ignored", "dy read without its output_padding (rows shifted)"},
    {"fault_bwd_stride_phase", "dy read one position off the stride phase"},
    {"fault_bwd_group_interleave", "channels of the groups interleaved in the gradient"},
    {"fault_bwd_db_per_group", "db summed per group into the first group's channels"},
    {"fault_bwd_db_no_spatial", "db without the spatial sum (first position only)"},
    {"fault_bwd_db_wrong_axis", "db summed along the wrong axis of dy's memory"},
    {"fault_bwd_batch_n0", "batch not summed (dw and db from n = 0 only)"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

static void run_smoke(const char *dir, const char *name, iohw_report *rep)
{
    char json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    const int rc = iohw_test_sh(NULL, "'%s' run --backend '%s/libiohw_%s.so' '%s/backward.h5' "
                                "--jobs 2 --quiet --json '%s' > /dev/null 2>&1",
                                IOHW_BIN, IOHW_BACKEND_DIR, name, dir, json);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", name, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

Test(bwd_smoke_faults, each_fails_three_backward_smoke_cases_named_by_its_diagnosis,
     .timeout = 580)
{
    char dir[512];
    int fails[NFAULTS], named[NFAULTS];
    snprintf(dir, sizeof dir, "%s/bwd-smoke-%d", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
                              "> /dev/null", dir, IOHW_BIN, dir), 0);

    for (size_t f = 0; f < NFAULTS; f++) {
        iohw_report rep;
        run_smoke(dir, FAULTS[f].name, &rep);
        cr_expect_gt(rep.results.count, 0, "the smoke profile has no backward case");
        fails[f] = named[f] = 0;
        for (int64_t i = 0; i < rep.results.count; i++) {
            const iohw_result *r = &rep.results.items[i];
            if (r->status != IOHW_RESULT_FAIL)
                continue;
            fails[f]++;
            named[f] += strstr(r->diagnosis, FAULTS[f].diagnosis) != NULL;
        }
        iohw_report_free(&rep);
    }

    printf("%-28s %6s %6s  diagnosis\n", "fault", "failed", "named");
    for (size_t f = 0; f < NFAULTS; f++)
        printf("%-28s %6d %6d  %s\n", FAULTS[f].name, fails[f], named[f], FAULTS[f].diagnosis);
    fflush(stdout);
    for (size_t f = 0; f < NFAULTS; f++) {
        cr_expect_geq(fails[f], MIN_CASES, "%s fails %d backward smoke cases", FAULTS[f].name,
                      fails[f]);
        cr_expect_geq(named[f], MIN_CASES, "%s: %d failures named \"%s\"", FAULTS[f].name,
                      named[f], FAULTS[f].diagnosis);
    }
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
