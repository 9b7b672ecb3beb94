/*
 * tests/test_conformance.c - the smoke profile against every third-party
 * adapter that is built (oneDNN, XNNPACK, libtorch), with --adapt-layout and
 * each adapter's baseline of known library discrepancies
 * (backends/<name>/baseline-smoke.txt): `iohw run` must exit 0, so any new
 * failure - a regression in an adapter or a library - fails the test.  The
 * minimal cases of the known discrepancies (cases/regressions/) must still
 * fail without the baseline, or the baseline is out of date.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    if (!WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static const char *smoke_dir(void)
{
    static char dir[512];
    if (dir[0] == '\0') {
        char cmd[2048];
        snprintf(dir, sizeof dir, "%s/conformance-%d", IOHW_TEST_TMP, (int)getpid());
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' > /dev/null",
                 dir, IOHW_BIN, dir);
        cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
    }
    return dir;
}

/* Runs smoke against lib<name>.so; skips when the adapter is not built. */
static void smoke_against(const char *name)
{
    char lib[600], base[600], cmd[4096];
    snprintf(lib, sizeof lib, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    if (access(lib, R_OK) != 0)
        cr_skip_test("%s is not built (its library was not found)", lib);
    snprintf(base, sizeof base, "%s/backends/%s/baseline-smoke.txt", IOHW_SOURCE_DIR, name);
    char opt[700] = "";
    if (access(base, R_OK) == 0)
        snprintf(opt, sizeof opt, "--baseline '%s'", base);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s' --adapt-layout --jobs 2 "
             "--timeout 60 --quiet %s > '%s/%s.out' 2>&1", IOHW_BIN, lib, smoke_dir(),
             opt, smoke_dir(), name);
    int rc = run_cmd(cmd);
    cr_expect_eq(rc, 0, "%s: smoke has failures outside the baseline; see %s/%s.out",
                 name, smoke_dir(), name);
}

Test(conformance, onednn_passes_smoke_apart_from_its_baseline) { smoke_against("onednn"); }
Test(conformance, xnnpack_passes_smoke_apart_from_its_baseline) { smoke_against("xnnpack"); }
Test(conformance, libtorch_passes_smoke_apart_from_its_baseline) { smoke_against("torch"); }

Test(conformance, the_xnnpack_regression_cases_still_fail_without_the_baseline)
{
    char lib[600], cmd[4096];
    snprintf(lib, sizeof lib, "%s/libiohw_xnnpack.so", IOHW_BACKEND_DIR);
    if (access(lib, R_OK) != 0)
        cr_skip_test("%s is not built", lib);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s/cases/regressions/xnnpack.h5' "
             "--jobs 1 --quiet > /dev/null 2>&1", IOHW_BIN, lib, IOHW_SOURCE_DIR);
    cr_expect_eq(run_cmd(cmd), 1, "XNNPACK no longer fails its regression cases: "
                 "update backends/xnnpack/baseline-*.txt and docs/CONFORMANCE.md");
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s/cases/regressions/xnnpack.h5' "
             "--jobs 1 --quiet --baseline '%s/backends/xnnpack/baseline-regressions.txt' > /dev/null 2>&1",
             IOHW_BIN, lib, IOHW_SOURCE_DIR, IOHW_SOURCE_DIR);
    cr_expect_eq(run_cmd(cmd), 0, "the baseline does not cover every regression case");
}
