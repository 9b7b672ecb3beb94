/*
 * tests/test_import_benchdnn.c - `iohw import benchdnn` end to end: a
 * batch file and command-line words become a case file that the reference
 * backend passes; a malformed word is reported with its place and the rest
 * are still written; --dry-run writes nothing.  (The descriptor rules are
 * tests/test_benchdnn.c's.)
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

#define REFERENCE IOHW_BACKEND_DIR "/libiohw_reference.so"

static char dir[512];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s/import-benchdnn-%d", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

Test(import_benchdnn, a_batch_file_becomes_cases_the_reference_passes)
{
    char *out = NULL;
    make_dir();
    cr_assert_eq(iohw_test_sh(NULL, "printf '%%s\\n' '# shapes' "
                              "'g2ic4ih5oc4oh10kh3sh2n\"up\"' 'ic3iw4oc2kw3dw1' "
                              "> '%s/shapes'", dir), 0);
    int rc = iohw_test_sh(&out, "cd '%s' && '%s' import benchdnn --mb=1 "
                          "--dir=FWD_B,BWD_D,BWD_WB shapes --dt=f16 "
                          "'mb1ic2id2ih3iw2oc2kd2kh2kw2' -o cases.h5",
                          dir, IOHW_BIN);
    cr_assert_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "cases.h5:benchdnn.0000.up.fwd_b.f32  n=1 g=2 ci=4 co=4 "
                         "in=5x5 k=3x3 s=2x2 d=1x1 pad=0:1x0:1");
    expect_contains(out, "(shapes:2: g2ic4ih5oc4oh10kh3sh2n\"up\")");
    expect_contains(out, "benchdnn.0005.problem.bwd_wb.f32");
    expect_contains(out, "benchdnn.0008.problem.bwd_wb.f16");
    expect_contains(out, "wrote 9 case(s)");
    free(out);
    rc = iohw_test_sh(&out, "'%s' run --backend '%s' '%s/cases.h5' --filter tag=benchdnn",
                      IOHW_BIN, REFERENCE, dir);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "compared with the oracle: 9 of 9 case(s)");
    free(out);
    /* And back: the first case as benchdnn's line (o given, so the end
     * padding follows). */
    rc = iohw_test_sh(&out, "'%s' show --as benchdnn '%s/cases.h5:benchdnn.0000.up.fwd_b.f32'",
                      IOHW_BIN, dir);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "./benchdnn --deconv --dir=FWD_B --dt=f32 g2mb1ic4ih5iw5oc4oh10ow10"
                         "kh3kw3sh2sw2ph0pw0n\"benchdnn.0000.up.fwd_b.f32\"");
    free(out);
}

Test(import_benchdnn, a_malformed_word_is_named_and_the_rest_written)
{
    char *out = NULL;
    make_dir();
    int rc = iohw_test_sh(&out, "cd '%s' && '%s' import benchdnn 'ic2iw3oc2kw3' "
                          "'ic2iw3oc2kq3' --dt=bf16:bf16:f32 'ic2iw3oc2kw3' -o c.h5",
                          dir, IOHW_BIN);
    cr_expect_eq(rc, 2, "status %d: %s", rc, out);
    expect_contains(out, "command line:2: ic2iw3oc2kq3: 'ic2iw3oc2kq3': no entry at 'kq3'");
    expect_contains(out, "command line:4: ic2iw3oc2kw3 skipped: --dt=bf16:bf16:f32");
    expect_contains(out, "wrote 1 case(s)");
    expect_contains(out, "1 problem(s); 1 skipped (no iohw definition), 0 too large, "
                         "1 malformed");
    free(out);
    rc = iohw_test_sh(&out, "'%s' show '%s/c.h5'", IOHW_BIN, dir);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "benchdnn.0000.problem.fwd_b.f32");
    free(out);
}

Test(import_benchdnn, dry_run_writes_nothing_and_large_layers_are_skipped)
{
    char *out = NULL;
    make_dir();
    /* 96 * 256 * 256 * 28 * 28 * 4 * 4 = 7.89e10 multiply-adds. */
    int rc = iohw_test_sh(&out, "cd '%s' && '%s' import benchdnn --dry-run "
                          "'mb96ic256ih28oc256oh56kh4sh2ph1n\"big\"' 'ic2iw3oc2kw3' "
                          "--max-macs 1e6", dir, IOHW_BIN);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "big\" skipped: 7.89e+10 multiply-adds, more than --max-macs 1e+06");
    expect_contains(out, "benchdnn.0000.problem.fwd_b.f32\tn=2 g=1 ci=2 co=2 in=3 k=3");
    free(out);
    rc = iohw_test_sh(&out, "ls '%s'", dir);
    cr_expect(strstr(out, ".h5") == NULL, "a file was written: %s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' import benchdnn 'ic2iw3oc2kw3'", IOHW_BIN);
    cr_expect_eq(rc, 2);
    expect_contains(out, "missing -o OUT.h5");
    free(out);
    rc = iohw_test_sh(&out, "'%s' import onnx-or-so x", IOHW_BIN);
    cr_expect_eq(rc, 2);
    expect_contains(out, "unknown format 'onnx-or-so' (onnx, benchdnn)");
    free(out);
}

/* tests/benchdnn/deconv_batch: 22 deconvolution lines in benchdnn's syntax
 * (grouped, depthwise, dilated, 1x1, 1-d, 3-d, an end padding that is
 * iohw's output_padding; FWD_B, FWD_D, BWD_D, BWD_W, BWD_WB) import as 38
 * cases and run against the oneDNN adapter when it is built.  oneDNN's
 * numbers are a finding, not this test's verdict: only the harness's side
 * (every case run, none an ERROR or CRASH) is asserted. */
Test(import_benchdnn, a_batch_file_of_every_direction_runs_against_onednn)
{
    char *out = NULL;
    make_dir();
    int rc = iohw_test_sh(&out, "'%s' import benchdnn '%s/tests/benchdnn/deconv_batch' "
                          "-o '%s/batch.h5' | tail -1", IOHW_BIN, IOHW_SOURCE_DIR, dir);
    cr_assert_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "wrote 38 case(s)");
    free(out);
    rc = iohw_test_sh(&out, "'%s' show '%s/batch.h5' | grep -c 'dir=bwd_d'", IOHW_BIN, dir);
    cr_expect(out != NULL && atoi(out) == 6, "BWD_D cases: %s", out);
    free(out);
    if (access(IOHW_BACKEND_DIR "/libiohw_onednn.so", R_OK) != 0)
        cr_skip_test("the oneDNN adapter is not built");
    rc = iohw_test_sh(&out, "'%s' run --backend '%s/libiohw_onednn.so' '%s/batch.h5' --quiet",
                      IOHW_BIN, IOHW_BACKEND_DIR, dir);
    cr_expect(rc == 0 || rc == 1, "status %d: %s", rc, out);
    expect_contains(out, "total              38");
    expect_contains(out, "ERROR               0");
    expect_contains(out, "CRASH               0");
    cr_log_info("%s", out);
    free(out);
}
