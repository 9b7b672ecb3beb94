/*
 * tests/test_run_outputs.c - `iohw run` checks every file it will write
 * before the first case runs: a missing report folder is made (as mkdir -p
 * does), a path that cannot be written stops the run at once, naming it,
 * and --shrink names a file only once it is written.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/shell.h"

#define SWAP IOHW_BACKEND_DIR "/libiohw_fault_io_swap.so"
#define PROBLEM "ci=2 co=3 in=4 k=3 s=2 fill=exact"

/* Writes <dir>/one.h5 holding one case, dir emptied first. */
static void one_case(const char *dir)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "rm -rf '%s' && mkdir -p '%s' && '%s' gen --problem '%s' "
                          "-o '%s/one.h5'", dir, dir, IOHW_BIN, PROBLEM, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
}

static int exists(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f != NULL)
        fclose(f);
    return f != NULL;
}

Test(run_outputs, missing_report_folders_are_made_and_shrink_writes_into_them)
{
    const char *dir = IOHW_TEST_TMP "/outputs_missing";
    one_case(dir);
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && '%s' run --backend '%s' one.h5 --quiet --jobs 1 "
                          "--json out3/deep/r.json --html out4/r.html --journal j/r.jsonl "
                          "--shrink", dir, IOHW_BIN, SWAP);
    cr_expect_eq(rc, 1, "one failing case: status %d:\n%s", rc, out);
    cr_expect(exists(dir, "out3/deep/r.json"), "no JSON report:\n%s", out);
    cr_expect(exists(dir, "out4/r.html"), "no HTML report:\n%s", out);
    cr_expect(exists(dir, "j/r.jsonl"), "no journal:\n%s", out);
    cr_expect(exists(dir, "out3/deep/shrunk.h5"), "no shrunk case:\n%s", out);
    cr_expect(strstr(out, "written   out3/deep/shrunk.h5") != NULL, "%s", out);
    free(out);
}

Test(run_outputs, an_unwritable_path_stops_the_run_before_it_starts)
{
    const char *dir = IOHW_TEST_TMP "/outputs_blocked";
    one_case(dir);
    /* A file where a folder should be: no folder can be made there. */
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && touch blocker && '%s' run --backend '%s' one.h5 "
                          "--quiet --jobs 1 --json blocker/r.json --shrink", dir, IOHW_BIN, SWAP);
    cr_expect_eq(rc, 2, "status %d:\n%s", rc, out);
    cr_expect(strstr(out, "cannot write the JSON report in 'blocker'") != NULL, "%s", out);
    cr_expect(strstr(out, "shrunk case") == NULL, "the run went on:\n%s", out);
    cr_expect(strstr(out, "FAIL") == NULL, "a case ran:\n%s", out);
    cr_expect(strstr(out, "written") == NULL, "%s", out);
    free(out);

    rc = iohw_test_sh(&out, "cd '%s' && '%s' run --backend '%s' one.h5 --quiet --jobs 1 "
                      "--shrink=blocker/min", dir, IOHW_BIN, SWAP);
    cr_expect_eq(rc, 2, "status %d:\n%s", rc, out);
    cr_expect(strstr(out, "cannot write the shrunk cases in 'blocker/min'") != NULL, "%s",
              out);
    free(out);

    rc = iohw_test_sh(&out, "cd '%s' && mkdir -p adir && '%s' run --backend '%s' one.h5 "
                      "--quiet --jobs 1 --junit adir", dir, IOHW_BIN, SWAP);
    cr_expect_eq(rc, 2, "status %d:\n%s", rc, out);
    cr_expect(strstr(out, "cannot write the JUnit report 'adir'") != NULL, "%s", out);
    free(out);
}
