/*
 * tests/test_conformance.c - the smoke profile against every third-party
 * adapter that is built (oneDNN, XNNPACK, libtorch), with --adapt-layout and
 * each adapter's baseline of known library discrepancies
 * (backends/<name>/baseline-smoke.txt): `iohw run` must exit 0, so any new
 * failure - a regression in an adapter or a library - fails the test.  The
 * minimal cases of the known discrepancies (cases/regressions/) must still
 * fail without the baseline, or the baseline is out of date.
 *
 * The libraries run natively (what users ship): oneDNN's and libtorch's
 * known discrepancies live in kernels only some CPUs have (docs/
 * CONFORMANCE.md O1, O2, T1), so their baseline entries carry CPU
 * conditions and their regression cases are expected to fail only where
 * the CPU has the feature (elsewhere the library refuses or passes them).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/machine.h"

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

/* cases/regressions/NAME.h5 against lib<NAME>: exit 1 without the baseline
 * when `fails` (the library still has its bug here), 0 otherwise; 0 with
 * backends/NAME/baseline-regressions.txt (which covers every case, and
 * whose entries for CPUs without the feature are neither applied nor
 * stale). */
static void regressions_of(const char *name, int fails)
{
    char lib[600], cmd[4096];
    snprintf(lib, sizeof lib, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    if (access(lib, R_OK) != 0)
        cr_skip_test("%s is not built", lib);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s/cases/regressions/%s.h5' "
             "--jobs 1 --quiet --allow-empty > /dev/null 2>&1", IOHW_BIN, lib, IOHW_SOURCE_DIR, name);
    int rc = run_cmd(cmd);
    if (fails)
        cr_expect_eq(rc, 1, "%s no longer fails its regression cases on this CPU: update "
                     "backends/%s/baseline-*.txt and docs/CONFORMANCE.md", name, name);
    else
        cr_expect_eq(rc, 0, "%s fails its regression cases on a CPU without the "
                     "feature: %s", name, cmd);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s/cases/regressions/%s.h5' "
             "--jobs 1 --quiet --allow-empty --baseline '%s/backends/%s/baseline-regressions.txt' "
             "2>&1 | grep -q stale", IOHW_BIN, lib, IOHW_SOURCE_DIR, name, IOHW_SOURCE_DIR,
             name);
    cr_expect_neq(run_cmd(cmd), 0, "%s: a baseline entry is stale: %s", name, cmd);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s/cases/regressions/%s.h5' "
             "--jobs 1 --quiet --allow-empty --baseline '%s/backends/%s/baseline-regressions.txt' "
             "> /dev/null 2>&1", IOHW_BIN, lib, IOHW_SOURCE_DIR, name, IOHW_SOURCE_DIR, name);
    cr_expect_eq(run_cmd(cmd), 0, "the baseline does not cover every regression case: %s",
                 cmd);
}

static int cpu_has(const char *feature)
{
    iohw_machine m;
    iohw_machine_detect(&m);
    return iohw_machine_has(&m, feature);
}

Test(conformance, the_xnnpack_regression_cases_still_fail_without_the_baseline)
{
    regressions_of("xnnpack", 1);
}

/* oneDNN's bf16 kernels exist only on AVX-512 CPUs, and every one of them
 * has O3 (onednn.2); O1 (onednn.0) needs AVX-512-BF16, O2 (onednn.1) AMX.
 * On AVX2-only CPUs oneDNN has no bf16 deconvolution (UNSUPPORTED). */
Test(conformance, the_onednn_regression_cases_fail_where_the_cpu_has_avx512)
{
    regressions_of("onednn", cpu_has("avx512bw"));
}

/* T1 needs what libtorch 1.13's mkldnn bf16 path checks: AVX-512 BW, VL
 * and DQ; elsewhere libtorch has no bf16 kernel (UNSUPPORTED). */
Test(conformance, the_torch_regression_cases_fail_where_the_cpu_has_avx512)
{
    regressions_of("torch", cpu_has("avx512bw") && cpu_has("avx512vl") &&
                                cpu_has("avx512dq"));
}

/* cases/regressions/ is made by cases/regressions/make.sh from descriptors,
 * not by hand: the script writes the same files again. */
Test(conformance, the_regression_files_are_what_their_script_writes)
{
    static const char *const FILES[] = {"xnnpack", "onednn", "torch"};
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/regressions-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && bash '%s/cases/regressions/"
             "make.sh' '%s' '%s' > /dev/null", dir, dir, IOHW_SOURCE_DIR, IOHW_BIN, dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        snprintf(cmd, sizeof cmd, "cmp -s '%s/%s.h5' '%s/cases/regressions/%s.h5'", dir,
                 FILES[i], IOHW_SOURCE_DIR, FILES[i]);
        cr_expect_eq(run_cmd(cmd), 0, "cases/regressions/%s.h5 is not what make.sh "
                     "writes (run cases/regressions/make.sh)", FILES[i]);
    }
}
