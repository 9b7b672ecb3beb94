/*
 * tests/test_run_isolate.c - `iohw run --isolate`: a backend that damages
 * its own process in one case (tests/isolate/heap_poison.c: a grouped
 * problem computed right, then SIGSEGV in whatever run() comes next in that
 * process) costs a later, innocent case without it, and nothing with it.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

#define POISON IOHW_BACKEND_DIR "/libiohw_heap_poison.so"

static char file[512];

/* Four cases in this order: plain, grouped (poisons), plain, plain. */
static void make_cases(void)
{
    snprintf(file, sizeof file, "%s/isolate-%d.h5", IOHW_TEST_TMP, (int)getpid());
    int rc = iohw_test_sh(NULL, "'%s' gen --problem 'ci=2 co=2 in=4 k=3' "
                          "--problem 'ci=4 co=4 g=2 in=4 k=3' "
                          "--problem 'ci=3 co=2 in=5 k=2' --problem 'ci=2 co=3 in=3 k=3' "
                          "--id c -o '%s'", IOHW_BIN, file);
    cr_assert_eq(rc, 0);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

Test(run_isolate, a_poisoned_worker_crashes_the_next_case_without_it)
{
    char *out = NULL;
    make_cases();
    int rc = iohw_test_sh(&out, "'%s' run --backend '%s' '%s' --jobs 1 --no-diagnose",
                          IOHW_BIN, POISON, file);
    cr_expect_eq(rc, 1, "status %d: %s", rc, out);
    expect_contains(out, "CRASH c.2 (");
    expect_contains(out, "PASS 3, CRASH 1");
    /* The failure block offers the case in other tools' terms. */
    char as[700];
    snprintf(as, sizeof as, "  in other tools: iohw show --as FORMAT '%s:c.2' (FORMAT: "
             "benchdnn, torch, or onnx -o DIR)\n", file);
    expect_contains(out, as);
    free(out);
}

Test(run_isolate, every_case_passes_with_a_fresh_worker_each)
{
    char *out = NULL;
    make_cases();
    int rc = iohw_test_sh(&out, "'%s' run --backend '%s' '%s' --jobs 1 --isolate",
                          IOHW_BIN, POISON, file);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "compared with the oracle: 4 of 4 case(s)");
    expect_contains(out, "CRASH               0");
    free(out);
}
