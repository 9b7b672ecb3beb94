/*
 * tests/test_conformance.c - the smoke profile against every third-party
 * adapter that is built (oneDNN, XNNPACK, libtorch, Arm NN), with
 * --adapt-layout and each adapter's baseline of known library discrepancies
 * (backends/<name>/baseline-smoke.txt): `iohw run` must exit 0, so any new
 * failure - a regression in an adapter or a library - fails the test.  The
 * minimal cases of the known discrepancies (cases/regressions/) must still
 * fail without the baseline, or the baseline is out of date.
 *
 * The verdict must not depend on this machine's CPU, so oneDNN and libtorch
 * are pinned to the kernels every x86-64 CPU with AVX2 runs
 * (ONEDNN_MAX_CPU_ISA=AVX2; IOHW_TORCH_MKLDNN=0 and ATEN_CPU_CAPABILITY=avx2
 * for libtorch).  Their known discrepancies live in kernels only some CPUs
 * have (docs/CONFORMANCE.md O1-O3, T1): scripts/main.sh runs the libraries
 * natively and reports them, waived by the CPU-conditioned entries of their
 * baselines.  Here those baselines and regression cases are checked to be
 * well formed: every regression case has an entry, and the baseline is
 * accepted by `iohw run`.  XNNPACK cannot be pinned; its discrepancies
 * (D1-D5) show on AVX2 and AVX-512 CPUs alike.
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

/* Removes a test's scratch folder; kept when the test fails, so that the
 * outputs it names can be read. */
static void remove_dir(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(run_cmd(cmd), 0, "%s", cmd);
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

/* The kernels every x86-64 CPU with AVX2 runs (see the top). */
static void pin_kernels(void)
{
    cr_assert_eq(setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1), 0);
    cr_assert_eq(setenv("IOHW_TORCH_MKLDNN", "0", 1), 0);
    cr_assert_eq(setenv("ATEN_CPU_CAPABILITY", "avx2", 1), 0);
}

/* Runs smoke against lib<name>.so; skips when the adapter is not built. */
static void smoke_against(const char *name)
{
    char lib[600], base[600], cmd[4096];
    pin_kernels();
    snprintf(lib, sizeof lib, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    if (access(lib, R_OK) != 0)
        cr_skip_test("%s is not built (its library was not found)", lib);
    snprintf(base, sizeof base, "%s/backends/%s/baseline-smoke.txt", IOHW_SOURCE_DIR, name);
    char opt[700] = "";
    if (access(base, R_OK) == 0)
        snprintf(opt, sizeof opt, "--baseline '%s'", base);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s' --adapt-layout --jobs 2 "
             "--timeout 300 --quiet %s > '%s/%s.out' 2>&1", IOHW_BIN, lib, smoke_dir(),
             opt, smoke_dir(), name);
    int rc = run_cmd(cmd);
    cr_expect_eq(rc, 0, "%s: smoke has failures outside the baseline; see %s/%s.out",
                 name, smoke_dir(), name);
    if (rc == 0)
        remove_dir(smoke_dir());
}

Test(conformance, onednn_passes_smoke_apart_from_its_baseline) { smoke_against("onednn"); }
Test(conformance, xnnpack_passes_smoke_apart_from_its_baseline) { smoke_against("xnnpack"); }
Test(conformance, libtorch_passes_smoke_apart_from_its_baseline) { smoke_against("torch"); }
Test(conformance, armnn_passes_smoke_apart_from_its_baseline) { smoke_against("armnn"); }

/* The command that runs cases/regressions/FILE.h5 against lib<NAME>.so
 * (with the regression baseline when `baseline`); skips the test when the
 * adapter is not built. */
static void regressions_file_cmd(const char *name, const char *file, int baseline,
                                 char *cmd, size_t n)
{
    char lib[600];
    snprintf(lib, sizeof lib, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    if (access(lib, R_OK) != 0)
        cr_skip_test("%s is not built", lib);
    int k = snprintf(cmd, n, "'%s' run --backend '%s' '%s/cases/regressions/%s.h5' "
                     "--jobs 1 --quiet --allow-empty", IOHW_BIN, lib, IOHW_SOURCE_DIR, file);
    if (baseline)
        snprintf(cmd + k, n - (size_t)k, " --baseline '%s/backends/%s/baseline-regressions.txt'",
                 IOHW_SOURCE_DIR, name);
}

static void regressions_cmd(const char *name, int baseline, char *cmd, size_t n)
{
    regressions_file_cmd(name, name, baseline, cmd, n);
}

/* Every case of cases/regressions/NAME.h5 has an entry in
 * backends/NAME/baseline-regressions.txt. */
static void every_regression_case_has_an_entry(const char *name)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' run --list '%s/cases/regressions/%s.h5' | cut -f1 | "
             "while read -r id; do grep -q \"^$id \" '%s/backends/%s/baseline-regressions.txt' "
             "|| { echo \"$id\"; exit 1; }; done", IOHW_BIN, IOHW_SOURCE_DIR, name,
             IOHW_SOURCE_DIR, name);
    cr_expect_eq(run_cmd(cmd), 0, "%s: a regression case has no baseline entry: %s", name, cmd);
}

/* XNNPACK's discrepancies are in every CPU's kernels: its regression cases
 * fail without the baseline, and the baseline covers them, none stale. */
Test(conformance, the_xnnpack_regression_cases_still_fail_without_the_baseline)
{
    char cmd[4096], quiet[4200];
    regressions_cmd("xnnpack", 0, cmd, sizeof cmd);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 1, "xnnpack no longer fails its regression cases: update "
                 "backends/xnnpack/baseline-*.txt and docs/CONFORMANCE.md");
    regressions_cmd("xnnpack", 1, cmd, sizeof cmd);
    snprintf(quiet, sizeof quiet, "%s 2>&1 | grep -q stale", cmd);
    cr_expect_neq(run_cmd(quiet), 0, "xnnpack: a baseline entry is stale: %s", cmd);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 0, "the baseline does not cover every regression case: %s",
                 cmd);
}

/* oneDNN's and libtorch's discrepancies need AVX-512 kernels (O1-O3, T1):
 * pinned, the regression cases neither fail nor crash on any CPU, the
 * baseline with its CPU conditions is accepted, and it names every case. */
static void pinned_regressions_are_well_formed(const char *name)
{
    char cmd[4096], quiet[4200];
    pin_kernels();
    for (int baseline = 0; baseline <= 1; baseline++) {
        regressions_cmd(name, baseline, cmd, sizeof cmd);
        snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
        cr_expect_eq(run_cmd(quiet), 0, "%s, pinned to AVX2 kernels: %s", name, cmd);
    }
    every_regression_case_has_an_entry(name);
}

Test(conformance, the_onednn_regression_cases_and_baseline_are_well_formed)
{
    pinned_regressions_are_well_formed("onednn");
}

/* oneDNN's int8 deconvolution adds zp_y before rounding on every kernel
 * (O4, onednn-quant.0): pinned to AVX2 (where O5 and O6 fail too) the
 * quantized regression cases fail without the baseline and pass with it. */
Test(conformance, the_onednn_quant_regression_cases_fail_without_the_baseline)
{
    char cmd[4096], quiet[4200];
    pin_kernels();
    regressions_file_cmd("onednn", "onednn-quant", 0, cmd, sizeof cmd);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 1, "onednn no longer fails its quantized regression "
                 "cases: update backends/onednn/baseline-*.txt and docs/CONFORMANCE.md");
    regressions_file_cmd("onednn", "onednn-quant", 1, cmd, sizeof cmd);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 0, "the baseline does not cover every quantized "
                 "regression case: %s", cmd);
    /* The pinned kernels have no VNNI: O5's and O6's entries (version!~vnni)
     * apply and waive, none of them stale. */
    snprintf(quiet, sizeof quiet, "%s 2>&1 | grep \"'onednn-quant\\.[0-9]*'.*stale\"", cmd);
    cr_expect_neq(run_cmd(quiet), 0, "a quantized entry is stale when pinned: %s", cmd);
}

Test(conformance, the_torch_regression_cases_and_baseline_are_well_formed)
{
    pinned_regressions_are_well_formed("torch");
}

/* cases/regressions/ is made by cases/regressions/make.sh from descriptors,
 * not by hand: the script writes the same files again. */
Test(conformance, the_regression_files_are_what_their_script_writes)
{
    static const char *const FILES[] = {"xnnpack", "onednn", "onednn-quant", "torch",
                                        "armnn", "tfjs"};
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/regressions-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && bash '%s/cases/regressions/"
             "make.sh' '%s' '%s' > /dev/null", dir, dir, IOHW_SOURCE_DIR, IOHW_BIN, dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
    int differ = 0;
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        snprintf(cmd, sizeof cmd, "cmp -s '%s/%s.h5' '%s/cases/regressions/%s.h5'", dir,
                 FILES[i], IOHW_SOURCE_DIR, FILES[i]);
        int rc = run_cmd(cmd);
        cr_expect_eq(rc, 0, "cases/regressions/%s.h5 is not what make.sh "
                     "writes (run cases/regressions/make.sh)", FILES[i]);
        differ += rc != 0;
    }
    if (differ == 0)
        remove_dir(dir);
}
