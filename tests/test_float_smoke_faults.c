/*
 * tests/test_float_smoke_faults.c - the smoke profile corners the float
 * bug classes bug-1x1-crop and bug-f16-accum
 * (PITFALLS.md; specification sections 3.5 and 9): each seeded fault
 * FAILs at least three smoke cases carrying its class's tag, and at least
 * three of its failures are named by its diagnosis (a 1x1 fast path that
 * forgets the crop is "pad_begin ignored"; a 16-bit running sum is "sum
 * accumulated in the 16-bit type").  No failure of either is named with
 * the other's diagnosis.  A table of the counts is printed.
 *
 * The verdicts and diagnoses are read from `iohw run --json`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"
#include "support/tags.h"

#define MIN_CASES 3

typedef struct float_fault {
    const char *name;      /* libiohw_<name>.so */
    const char *tag;       /* its class's tag */
    const char *diagnosis; /* what its diagnosis says */
} float_fault;

static const float_fault FAULTS[] = {
    {"fault_crop_1x1", "bug-1x1-crop", "pad_begin ignored (nothing cropped at the beginning)"},
    {"fault_f16_coarse", "bug-f16-accum", "sum accumulated in the 16-bit type (f16 or bf16)"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

static void run_smoke(const char *dir, const char *name, iohw_report *rep)
{
    char json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    const int rc = iohw_test_sh(NULL, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 2 "
                                "--quiet --json '%s' > /dev/null 2>&1",
                                IOHW_BIN, IOHW_BACKEND_DIR, name, dir, json);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", name, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

Test(float_smoke_faults, each_fails_three_tagged_smoke_cases_named_by_its_diagnosis,
     .timeout = 580)
{
    char dir[512];
    int fails[NFAULTS], tagged[NFAULTS], named[NFAULTS], wrong[NFAULTS];
    snprintf(dir, sizeof dir, "%s/float-smoke-%d", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
                              "> /dev/null", dir, IOHW_BIN, dir), 0);

    for (size_t f = 0; f < NFAULTS; f++) {
        iohw_report rep;
        run_smoke(dir, FAULTS[f].name, &rep);
        fails[f] = tagged[f] = named[f] = wrong[f] = 0;
        for (int64_t i = 0; i < rep.results.count; i++) {
            const iohw_result *r = &rep.results.items[i];
            if (r->status != IOHW_RESULT_FAIL)
                continue;
            fails[f]++;
            tagged[f] += iohw_test_has_tag(r->tags, FAULTS[f].tag);
            named[f] += strstr(r->diagnosis, FAULTS[f].diagnosis) != NULL;
            for (size_t g = 0; g < NFAULTS; g++)
                wrong[f] += g != f && strstr(r->diagnosis, FAULTS[g].diagnosis) != NULL;
        }
        iohw_report_free(&rep);
    }

    printf("%-20s %6s %6s %6s  diagnosis\n", "fault", "failed", "tagged", "named");
    for (size_t f = 0; f < NFAULTS; f++)
        printf("%-20s %6d %6d %6d  %s\n", FAULTS[f].name, fails[f], tagged[f], named[f],
               FAULTS[f].diagnosis);
    fflush(stdout);
    for (size_t f = 0; f < NFAULTS; f++) {
        cr_expect_geq(tagged[f], MIN_CASES, "%s fails %d smoke cases tagged %s",
                      FAULTS[f].name, tagged[f], FAULTS[f].tag);
        cr_expect_geq(named[f], MIN_CASES, "%s: %d failures named \"%s\"", FAULTS[f].name,
                      named[f], FAULTS[f].diagnosis);
        cr_expect_eq(wrong[f], 0, "%s: %d failures named as the other fault", FAULTS[f].name,
                     wrong[f]);
    }
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
