/*
 * tests/test_show_as.c - `iohw show --as torch` snippets run with the
 * system's python3 and PyTorch reproduce the oracle's output within the
 * bound of specification section 3.3 (PyTorch computes it, not iohw: the
 * snippet's check is PyTorch's result against the case's y_f64), for
 * symmetric and asymmetric pads, output_padding beyond the stride, groups,
 * other layouts (NHWC, OIHW, GOIHW), 1-d and 3-d, f64, f16 and bf16, and a
 * case large enough to be read from the .h5; and `--as onnx` folders that
 * ONNX's own checker accepts and that import back agreeing.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/shell.h"

#define TMP IOHW_TEST_TMP "/show_as"
#define PY "/usr/bin/python3"

static const char *const PROBLEMS[] = {
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 dt=f32 xl=NHWC wl=OIHW",
    "ci=3 co=2 in=5x4 k=3 s=2 pad=1 op=1 bias=1",
    "ci=2 co=2 in=6 k=1 s=1 op=2 bias=1",
    "ci=4 co=4 g=4 in=4x4x3 k=2x3x2 s=2 pad=0:1x1x0 dt=f64 wl=GOIDHW",
    "ci=2 co=3 in=7 k=4 s=3 d=2 bias=1 dt=f16",
    "ci=2 co=2 in=5x5 k=3 s=2 dt=bf16 bias=1",
    "n=2 ci=8 co=8 in=24x24 k=3 s=2 pad=1 op=1 bias=1 xl=NHWC",
};

static void skip_without(const char *module)
{
    if (iohw_test_sh(NULL, "%s -c 'import %s' >/dev/null 2>&1", PY, module) != 0)
        cr_skip_test("%s has no %s", PY, module);
}

Test(show_as, torch_snippets_reproduce_the_oracle_within_the_bound)
{
    skip_without("torch");
    skip_without("h5py");
    iohw_test_sh(NULL, "mkdir -p '%s'", TMP);
    for (size_t i = 0; i < sizeof PROBLEMS / sizeof PROBLEMS[0]; i++) {
        char *out = NULL;
        int rc = iohw_test_sh(&out, "'%s' gen --problem '%s' -o '%s/t%zu.h5' && '%s' show "
                              "--as torch '%s/t%zu.h5' > '%s/t%zu.py' && %s '%s/t%zu.py'",
                              IOHW_BIN, PROBLEMS[i], TMP, i, IOHW_BIN, TMP, i, TMP, i, PY, TMP,
                              i);
        cr_expect_eq(rc, 0, "%s: %s", PROBLEMS[i], out);
        cr_expect(strstr(out, "reproduced: problem.0") != NULL, "%s: %s", PROBLEMS[i], out);
        free(out);
    }
    /* The large case is read from the .h5, the others are inline. */
    char *out = NULL;
    iohw_test_sh(&out, "grep -c h5py '%s/t6.py' '%s/t0.py'", TMP, TMP);
    cr_expect(strstr(out, "t6.py:2") != NULL && strstr(out, "t0.py:0") != NULL, "%s", out);
    free(out);
}

Test(show_as, a_snippet_notices_an_expected_output_that_is_wrong)
{
    skip_without("torch");
    iohw_test_sh(NULL, "mkdir -p '%s'", TMP);
    char *out = NULL;
    /* The first expected value, 1e9 instead of the oracle's. */
    int rc = iohw_test_sh(&out, "'%s' gen --problem 'ci=1 co=1 in=3 k=2' -o '%s/bad.h5' && "
                          "'%s' show --as torch '%s/bad.h5' | sed '/^expected = /s/(\\[[^,]*/"
                          "([1e9/' > '%s/bad.py' && %s '%s/bad.py'",
                          IOHW_BIN, TMP, IOHW_BIN, TMP, TMP, PY, TMP);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "differs at 1 of 4 elements") != NULL, "%s", out);
    free(out);
}

Test(show_as, onnx_folders_pass_onnx_checker_and_import_back_agreeing)
{
    skip_without("onnx");
    iohw_test_sh(NULL, "mkdir -p '%s'", TMP);
    /* f32, f64 and f16 folders. */
    for (size_t i = 0; i < 5; i++) {
        char *out = NULL;
        int rc = iohw_test_sh(&out, "rm -rf '%s/o%zu' && '%s' gen --problem '%s' -o '%s/o%zu.h5' && "
                              "'%s' show --as onnx '%s/o%zu.h5' -o '%s/o%zu' && %s -c \"import "
                              "onnx; onnx.checker.check_model(onnx.load('%s/o%zu/model.onnx'), "
                              "full_check=True); print('checked')\" && '%s' import onnx "
                              "'%s/o%zu' -o '%s/o%zu_back.h5'",
                              TMP, i, IOHW_BIN, PROBLEMS[i], TMP, i, IOHW_BIN, TMP, i, TMP, i,
                              PY, TMP, i, IOHW_BIN, TMP, i, TMP, i);
        cr_expect_eq(rc, 0, "%s: %s", PROBLEMS[i], out);
        cr_expect(strstr(out, "checked") != NULL, "%s: %s", PROBLEMS[i], out);
        cr_expect(strstr(out, "agree 1, disagree 0") != NULL, "%s: %s", PROBLEMS[i], out);
        free(out);
    }
}

Test(show_as, unknown_formats_and_missing_folders_are_named)
{
    char *out = NULL;
    iohw_test_sh(NULL, "mkdir -p '%s' && '%s' gen --problem 'ci=1 co=1 in=3 k=2' -o '%s/u.h5'",
                 TMP, IOHW_BIN, TMP);
    int rc = iohw_test_sh(&out, "'%s' show --as tflite '%s/u.h5'", IOHW_BIN, TMP);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "--as 'tflite': unknown format (onnx, torch, benchdnn)") != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' show --as onnx '%s/u.h5'", IOHW_BIN, TMP);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "--as onnx writes a folder: give -o DIR") != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' gen --problem 'ci=1 co=1 in=3 k=2 dt=bf16' -o '%s/bf.h5' && "
                      "'%s' show --as onnx '%s/bf.h5' -o '%s/bf'", IOHW_BIN, TMP, IOHW_BIN, TMP,
                      TMP);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "case 'problem.0' is bf16: ConvTranspose of opset 11 takes float16, "
                          "float and double only") != NULL, "%s", out);
    free(out);
}

/* A user hands a failure back: the first ten cases of smoke that the I/O
 * exchange fault (backends/faults/io_swap.c) fails, each as a PyTorch
 * snippet, reproduce the oracle's expected output. */
Test(show_as, snippets_of_ten_failing_seeded_fault_cases_reproduce_the_oracle)
{
    skip_without("torch");
    skip_without("h5py");
    char *out = NULL;
    iohw_test_sh(NULL, "mkdir -p '%s'", TMP);
    iohw_test_smoke(IOHW_BIN, TMP "/smoke");
    iohw_test_sh(&out, "'%s' run --backend '%s/libiohw_fault_io_swap.so' '%s/smoke' "
                 "--no-diagnose --jobs 2 2>&1 | grep '^FAIL ct' | head -10 | "
                 "sed 's/^FAIL \\([^ ]*\\) (\\(.*\\))$/\\2:\\1/' > '%s/failing.txt'; "
                 "wc -l < '%s/failing.txt'", IOHW_BIN, IOHW_BACKEND_DIR, TMP, TMP, TMP);
    cr_assert(out != NULL && atoi(out) == 10, "failing cases: %s", out);
    free(out);
    int rc = iohw_test_sh(&out, "n=0; while read -r c; do '%s' show --as torch \"$c\" > "
                          "'%s/f.py' && %s '%s/f.py' || exit 1; n=$((n+1)); done < "
                          "'%s/failing.txt'; echo \"reproduced $n\"", IOHW_BIN, TMP, PY, TMP,
                          TMP);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "reproduced 10") != NULL, "%s", out);
    free(out);
}
