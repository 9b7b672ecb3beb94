/*
 * tests/test_exec_ort.c - the ONNX Runtime adapter (backends/js/ort_backend.js,
 * onnxruntime-node and, with --ort=web, onnxruntime-web) through the exec
 * backend, in-process through the loader, when node and
 * the npm packages of the build tree (BUILD/js, scripts/setup_js.sh) are
 * there; skipped, saying which is missing, otherwise.  It asserts only what
 * holds on any x86-64 CPU: exactly representable (fill=exact) f32 and f16
 * cases pass, f64 and bf16 are refused with ORT's reason, output_padding
 * at the stride is refused, a layout ONNX does not take is refused from the
 * --describe answer, and a file that is not a case gives a clear error.
 * Also the protobuf of the one-node model (backends/js/onnx_model.js),
 * decoded by tests/exec/check_onnx_model.py (node and python3 only; the
 * onnx module's checker too where python3-onnx is installed), and
 * the conventions of ONNX stated as such (tests/exec/check_ort_convention.py).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"
#include "support/shell.h"

#define JS_DIR IOHW_BACKEND_DIR "/../js"
#define ORT_PROGRAM IOHW_SOURCE_DIR "/backends/js/ort_backend.js"
#define ORT_PACKAGE JS_DIR "/node_modules/onnxruntime-node/package.json"
#define ORT_WEB_PACKAGE JS_DIR "/node_modules/onnxruntime-web/package.json"

/* Skips the test unless node is on PATH (as execvp finds it). */
static void skip_without_node(void)
{
    if (iohw_test_sh(NULL, "command -v node >/dev/null") != 0)
        cr_skip_test("node is not on PATH: the JavaScript adapters are "
                     "skipped");
}

/* Skips the test unless node and the build tree's npm packages are there. */
static void skip_without_ort(void)
{
    skip_without_node();
    if (access(ORT_PACKAGE, R_OK) != 0)
        cr_skip_test("%s is missing: scripts/setup_js.sh did not install the "
                     "npm packages (no npm, no registry or IOHW_JS=OFF)",
                     ORT_PACKAGE);
    cr_assert_eq(setenv("IOHW_JS_DIR", JS_DIR, 1), 0);
}

/* Loads the exec adapter running ort_backend.js (IOHW_EXEC_PROTOCOL set to
 * protocol, or unset for NULL: the program's --describe answer decides). */
static void load_ort(const char *protocol, iohw_loaded_backend *lb)
{
    skip_without_ort();
    load_exec_program("node " ORT_PROGRAM, protocol, lb);
}

/* The same with onnxruntime-web (ort_backend.js --ort=web, wasm EP). */
static void load_ort_web(iohw_loaded_backend *lb)
{
    skip_without_ort();
    if (access(ORT_WEB_PACKAGE, R_OK) != 0)
        cr_skip_test("%s is missing: scripts/setup_js.sh did not install the "
                     "npm packages", ORT_WEB_PACKAGE);
    load_exec_program("node " ORT_PROGRAM " --ort=web", NULL, lb);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

/* The adapter refuses desc with a reason holding every word of want. */
static void expect_refused(const iohw_loaded_backend *lb, const char *desc,
                           const char *const *want)
{
    expect_unsupported(lb, desc);
    for (; *want != NULL; want++)
        expect_contains(iohw_backend_last_error(lb), *want);
}

/* Exactly representable (fill=exact) f32 and f16 cases pass in every rank. */
static void expect_exact_cases_pass(const iohw_loaded_backend *lb)
{
    expect_pass(lb, "n=2 ci=3 co=4 in=7 k=3 s=2 pad=1:2 op=1 bias=1 "
                    "xl=NCW wl=IOW fill=exact");
    expect_pass(lb, "ci=4 co=6 g=2 in=5x4 k=3x2 s=2x3 d=2x1 pad=0:1x1:0 "
                    "op=1x2 bias=1 fill=exact");
    expect_pass(lb, "ci=2 co=3 in=3x2x4 k=2x3x2 s=1x2x2 pad=1x0x0:1 "
                    "xl=NCDHW wl=IODHW fill=exact");
    expect_pass(lb, "ci=3 co=2 in=4x4 k=3 s=2 pad=1 dt=f16 bias=1 "
                    "fill=exact");
}

Test(exec_ort, names_itself_and_speaks_protocol_2)
{
    iohw_loaded_backend lb;
    load_ort(NULL, &lb);
    cr_expect_str_eq(lb.table->name, "exec:onnxruntime-node");
    expect_contains(lb.table->version, "onnxruntime-node 1.");
    expect_contains(lb.table->version, "CPU EP");
    expect_contains(lb.table->version, "exec protocol 2");
    iohw_backend_unload(&lb);
}

Test(exec_ort, exactly_representable_cases_pass_in_every_rank)
{
    iohw_loaded_backend lb;
    load_ort(NULL, &lb);
    expect_exact_cases_pass(&lb);
    iohw_backend_unload(&lb);
}

Test(exec_ort, protocol_1_gives_the_same_answers)
{
    iohw_loaded_backend lb;
    load_ort("1", &lb);
    expect_contains(lb.table->version, "exec protocol 1");
    expect_pass(&lb, "ci=2 co=3 in=4x5 k=3 s=2 pad=1:0x1 bias=1 fill=exact");
    static const char *const f64[] = {"f64", "ConvTranspose", NULL};
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 dt=f64", f64);
    iohw_backend_unload(&lb);
}

Test(exec_ort, f64_and_bf16_are_refused_with_the_reason)
{
    iohw_loaded_backend lb;
    load_ort(NULL, &lb);
    static const char *const f64[] = {"builds no f64 ConvTranspose",
                                      "Could not find an implementation",
                                      NULL};
    static const char *const bf16[] = {"builds no bf16 ConvTranspose",
                                       "Could not find an implementation",
                                       NULL};
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 s=2 dt=f64", f64);
    expect_refused(&lb, "ci=2 co=3 in=4x5x3 k=3 s=2 dt=f64 xl=NCDHW "
                        "wl=IODHW", f64);
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 s=2 dt=bf16", bf16);
    iohw_backend_unload(&lb);
}

Test(exec_ort, output_padding_at_the_stride_is_refused_with_ort_s_reason)
{
    iohw_loaded_backend lb;
    load_ort(NULL, &lb);
    static const char *const why[] = {"refuses output_padding",
                                      "output_padding", NULL};
    /* op = s < d: below max(stride, dilation), still refused. */
    expect_refused(&lb, "ci=2 co=2 in=5 k=3 s=2 d=3 op=2 xl=NCW wl=IOW", why);
    expect_refused(&lb, "ci=2 co=2 in=4x4 k=3 s=1 op=1x0", why);
    iohw_backend_unload(&lb);
}

Test(exec_ort, layouts_onnx_does_not_take_are_refused)
{
    iohw_loaded_backend lb;
    load_ort(NULL, &lb);
    static const char *const data[] = {"NCW NCHW NCDHW", "NHWC", NULL};
    static const char *const weight[] = {"IOW IOHW IODHW", "OIHW", NULL};
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 xl=NHWC", data);
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 wl=OIHW", weight);
    iohw_backend_unload(&lb);
}

Test(exec_ort, a_file_that_is_not_a_case_is_a_clear_error)
{
    char *out = NULL;
    const char *bad = IOHW_TEST_TMP "/ort-not-a-case.h5";
    skip_without_ort();
    FILE *f = fopen(bad, "w");
    cr_assert_not_null(f);
    fputs("not HDF5\n", f);
    cr_assert_eq(fclose(f), 0);
    int rc = iohw_test_sh(&out, "node '%s' '%s' '%s.out'", ORT_PROGRAM, bad,
                          bad);
    cr_expect_eq(rc, 1, "status %d: %s", rc, out);
    expect_contains(out, "ort_backend.js: ");
    expect_contains(out, "is not an HDF5 file");
    free(out);
    rc = iohw_test_sh(&out, "node '%s' --supports '%s/missing.h5' '%s.out'",
                      ORT_PROGRAM, IOHW_TEST_TMP, bad);
    cr_expect_eq(rc, 1, "status %d: %s", rc, out);
    expect_contains(out, "cannot open");
    expect_contains(out, "missing.h5");
    free(out);
    remove(bad);
}

Test(exec_ort, the_model_protobuf_decodes_as_onnx_says)
{
    char *out = NULL;
    skip_without_node();
    if (access("/usr/bin/python3", X_OK) != 0)
        cr_skip_test("/usr/bin/python3 is missing");
    int rc = iohw_test_sh(&out, "node '%s/backends/js/onnx_model.js' "
                          "--selftest | /usr/bin/python3 "
                          "'%s/tests/exec/check_onnx_model.py'",
                          IOHW_SOURCE_DIR, IOHW_SOURCE_DIR);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "model ok");
    cr_log_info("%s", out); /* whether the onnx module's checker ran */
    free(out);
}

/* A case made from ONNX's convention reaches ORT as auto_pad or
 * output_shape (the other padding's result when the attribute says so),
 * one made from another framework's as explicit pads, and an output of
 * another shape than the case's is an error naming both
 * (tests/exec/check_ort_convention.py; h5py and numpy). */
Test(exec_ort, onnx_conventions_are_stated_as_onnx_states_them)
{
    char *out = NULL;
    skip_without_ort();
    if (iohw_test_sh(NULL, "/usr/bin/python3 -c 'import h5py, numpy'") != 0)
        cr_skip_test("/usr/bin/python3 cannot import h5py and numpy");
    int rc = iohw_test_sh(&out, "/usr/bin/python3 "
                          "'%s/tests/exec/check_ort_convention.py' '%s' '%s' "
                          "'%s'", IOHW_SOURCE_DIR, IOHW_BIN, ORT_PROGRAM,
                          IOHW_TEST_TMP);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    expect_contains(out, "convention ok");
    free(out);
}

Test(exec_ort, web_names_itself_and_speaks_protocol_2)
{
    iohw_loaded_backend lb;
    load_ort_web(&lb);
    cr_expect_str_eq(lb.table->name, "exec:onnxruntime-web");
    expect_contains(lb.table->version, "onnxruntime-web 1.");
    expect_contains(lb.table->version, "wasm EP");
    expect_contains(lb.table->version, "exec protocol 2");
    iohw_backend_unload(&lb);
}

Test(exec_ort, web_passes_exactly_representable_cases_in_every_rank)
{
    iohw_loaded_backend lb;
    load_ort_web(&lb);
    expect_exact_cases_pass(&lb);
    iohw_backend_unload(&lb);
}

Test(exec_ort, web_refuses_what_its_wasm_kernels_lack)
{
    iohw_loaded_backend lb;
    load_ort_web(&lb);
    static const char *const f64[] = {"onnxruntime-web", "wasm EP",
                                      "builds no f64 ConvTranspose", NULL};
    static const char *const bf16[] = {"builds no bf16 ConvTranspose", NULL};
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 s=2 dt=f64", f64);
    expect_refused(&lb, "ci=2 co=3 in=4x5 k=3 s=2 dt=bf16", bf16);
    static const char *const op[] = {"refuses output_padding", NULL};
    expect_refused(&lb, "ci=2 co=2 in=5 k=3 s=2 d=3 op=2 xl=NCW wl=IOW", op);
    iohw_backend_unload(&lb);
}

Test(exec_ort, an_unknown_package_is_a_usage_error)
{
    char *out = NULL;
    skip_without_node();
    int rc = iohw_test_sh(&out, "node '%s' --ort=native --describe",
                          ORT_PROGRAM);
    cr_expect_eq(rc, 2, "status %d: %s", rc, out);
    expect_contains(out, "--ort=native: the package is node or web");
    free(out);
}
