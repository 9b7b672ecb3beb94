/*
 * tests/test_exec_litert.c - the LiteRT adapter (backends/js/litert_backend.js:
 * TensorFlow Lite's TRANSPOSE_CONV in WebAssembly, npm @litertjs/core)
 * through the exec backend, in-process through the loader, with both of
 * its kernels: the XNNPack delegate (constant weights) and TFLite's builtin
 * kernel (weights fed as an input).  Skipped, saying which is missing,
 * without node or the npm packages of the build tree (BUILD/js,
 * scripts/setup_js.sh).
 *
 * Only what holds on every x86-64 CPU is asserted (WebAssembly's
 * arithmetic does not depend on it): exactly representable f32 cases pass,
 * in ranks 1 and 2, under SAME and VALID padding and with output_padding;
 * quantized ties come out rounded half to even by the XNNPack delegate and
 * by gemmlowp's double rounding by the builtin kernel (so each kernel is
 * the one that computed); explicit pads that TFLite's SAME and VALID
 * cannot state, groups, dilation, rank 3, f16 and int8 weights with a zero
 * point are refused with the reason; the builtin kernel clamps an
 * overflowing sum to the largest finite float (docs/CONFORMANCE.md, L1),
 * and the XNNPack delegate makes NaN of an edge output a NaN weight does
 * not reach (L2).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"

#define JS_DIR IOHW_BACKEND_DIR "/../js"
#define LITERT_PROGRAM IOHW_SOURCE_DIR "/backends/js/litert_backend.js"
#define LITERT_PACKAGE JS_DIR "/node_modules/@litertjs/core/package.json"
#define H5WASM_PACKAGE JS_DIR "/node_modules/h5wasm/package.json"

static void skip_without_litert(void)
{
    if (system("command -v node >/dev/null 2>&1") != 0)
        cr_skip_test("node is not on PATH: the JavaScript adapters are "
                     "skipped");
    if (access(LITERT_PACKAGE, R_OK) != 0 || access(H5WASM_PACKAGE, R_OK) != 0)
        cr_skip_test("%s is missing: scripts/setup_js.sh did not install the "
                     "npm packages (no npm, no registry or IOHW_JS=OFF)",
                     LITERT_PACKAGE);
    cr_assert_eq(setenv("IOHW_JS_DIR", JS_DIR, 1), 0);
}

/* Loads the exec backend running the program with kernel (xnnpack or
 * builtin); protocol NULL lets the --describe answer decide. */
static void load_litert(const char *kernel, const char *protocol,
                        iohw_loaded_backend *lb)
{
    char command[1024];
    skip_without_litert();
    snprintf(command, sizeof command, "node %s --kernel=%s", LITERT_PROGRAM,
             kernel);
    load_exec_program(command, protocol, lb);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

Test(exec_litert, names_itself_and_speaks_protocol_3, .timeout = 300)
{
    iohw_loaded_backend lb;
    load_litert("xnnpack", NULL, &lb);
    cr_expect_str_eq(lb.table->name, "exec:litert-xnnpack");
    expect_contains(lb.table->version, "@litertjs/core 2.5.3");
    expect_contains(lb.table->version, "XNNPack delegate");
    expect_contains(lb.table->version, "exec protocol 3");
    iohw_backend_unload(&lb);
    load_litert("builtin", NULL, &lb);
    cr_expect_str_eq(lb.table->name, "exec:litert-builtin");
    expect_contains(lb.table->version, "builtin transpose_conv");
    iohw_backend_unload(&lb);
}

/* SAME (pad_begin 0 or 1 where the total is odd or even), VALID with
 * output_padding, rank 1 as H = 1, a batch and a bias. */
static const char *const EXACT[] = {
    "ci=3 co=2 in=4x5 k=3 s=2 pad=0:1 bias=1 xl=NHWC wl=OHWI fill=exact",
    "n=2 ci=2 co=3 in=3x4 k=3x2 s=1x2 pad=1:1x0 bias=1 xl=NHWC wl=OHWI "
    "fill=exact",
    "ci=2 co=2 in=3x3 k=2 s=3 op=1x2 xl=NHWC wl=OHWI fill=exact",
    "n=2 ci=3 co=2 in=7 k=3 s=2 op=1 bias=1 xl=NWC wl=OWI fill=exact",
    NULL,
};

Test(exec_litert, exact_cases_pass_with_both_kernels, .timeout = 300)
{
    static const char *const kernels[] = {"xnnpack", "builtin"};
    for (int k = 0; k < 2; k++) {
        iohw_loaded_backend lb;
        load_litert(kernels[k], NULL, &lb);
        for (const char *const *d = EXACT; *d != NULL; d++)
            expect_pass(&lb, *d);
        iohw_backend_unload(&lb);
    }
}

Test(exec_litert, protocol_1_gives_the_same_answers, .timeout = 300)
{
    iohw_loaded_backend lb;
    load_litert("builtin", "1", &lb);
    expect_contains(lb.table->version, "exec protocol 1");
    expect_pass(&lb, EXACT[0]);
    expect_unsupported_saying(&lb, "ci=2 co=2 in=4x4 k=3 s=2 pad=1 op=1 "
                              "xl=NHWC wl=OHWI", "SAME or VALID");
    iohw_backend_unload(&lb);
}

/* qties: about half of the outputs are exact ties.  Half to even passes
 * only if the XNNPack delegate computed (the builtin kernel rounds by
 * gemmlowp), gemmlowp only if the builtin kernel did. */
Test(exec_litert, each_kernel_rounds_quantized_ties_its_own_way,
     .timeout = 300)
{
    iohw_loaded_backend lb;
    load_litert("xnnpack", NULL, &lb);
    expect_pass(&lb, "ci=3 co=4 in=5x5 k=3 s=2 pad=0:1 bias=1 dt=u8 wdt=u8 "
                     "ydt=u8 zp=130,120,125 round=half_even m=scales pc=0 "
                     "xl=NHWC wl=OHWI fill=qties");
    /* int8, per channel (TFLite's int8 weights have zero point 0). */
    expect_pass(&lb, "ci=3 co=4 in=7 k=3 s=2 bias=1 dt=s8 wdt=s8 ydt=s8 "
                     "zp=0,0,15 round=half_even m=scales pc=1 sx=0.5 sy=64 "
                     "xl=NWC wl=OWI fill=qrandom");
    expect_unsupported_saying(&lb, "ci=3 co=4 in=5x5 k=3 s=2 pad=0:1 dt=s8 "
                              "wdt=s8 ydt=s8 zp=3,0,-5 round=gemmlowp "
                              "m=fixed pc=1 xl=NHWC wl=OHWI",
                              "rounding half_even in the scales form");
    iohw_backend_unload(&lb);
    load_litert("builtin", NULL, &lb);
    expect_pass(&lb, "ci=3 co=4 in=5x5 k=3 s=2 pad=0:1 bias=1 dt=u8 wdt=u8 "
                     "ydt=u8 zp=130,120,125 round=gemmlowp m=fixed pc=0 "
                     "xl=NHWC wl=OHWI fill=qties");
    /* qshift: multipliers of 31 bits, stated by two float scales. */
    expect_pass(&lb, "ci=3 co=4 in=5x5 k=3 s=2 pad=0:1 bias=1 dt=u8 wdt=u8 "
                     "ydt=u8 zp=130,120,125 round=gemmlowp m=fixed pc=0 "
                     "xl=NHWC wl=OHWI fill=qshift");
    iohw_backend_unload(&lb);
}

Test(exec_litert, what_tflite_cannot_state_is_refused_with_the_reason,
     .timeout = 300)
{
    iohw_loaded_backend lb;
    load_litert("xnnpack", NULL, &lb);
    /* SAME pads 0 before here (total 1), VALID 0: pad_begin 1 is neither. */
    expect_unsupported_saying(&lb, "ci=2 co=2 in=4x4 k=3 s=2 pad=1 op=1 "
                              "xl=NHWC wl=OHWI", "SAME or VALID");
    expect_unsupported_saying(&lb, "ci=4 co=4 g=2 in=4x4 k=3 xl=NHWC "
                              "wl=OHWI", "no groups");
    expect_unsupported_saying(&lb, "ci=2 co=2 in=4x4 k=3 d=2 xl=NHWC "
                              "wl=OHWI", "no dilation");
    expect_unsupported_saying(&lb, "ci=2 co=2 in=3x3 k=3 dt=f16 xl=NHWC "
                              "wl=OHWI", "f16");
    expect_unsupported_saying(&lb, "ci=2 co=2 in=3x3 k=3 dt=s8 wdt=s8 ydt=s8 "
                              "zp=1,2,3 round=half_even m=scales pc=1 "
                              "xl=NHWC wl=OHWI", "symmetric");
    expect_unsupported_saying(&lb, "ci=2 co=2 in=3x3x3 k=2 xl=NDHWC "
                              "wl=ODHWI", "NWC NHWC");
    iohw_backend_unload(&lb);
}

/* L1: the builtin kernel clamps its float output to [-FLT_MAX, FLT_MAX]
 * (the range of its fused activation NONE), so a sum that overflows comes
 * back finite; the XNNPack delegate returns the infinity. */
Test(exec_litert, the_builtin_kernel_clamps_an_overflow, .timeout = 300)
{
    static const char *const desc =
        "ci=2 co=1 in=1x1 k=1 xl=NHWC wl=OHWI fill=huge";
    iohw_loaded_backend lb;
    iohw_case c;
    iohw_result r;
    char text[2048];
    load_litert("builtin", NULL, &lb);
    make(desc, &c);
    cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    run_case(&lb, &c, &r);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL, "%s",
                 iohw_test_describe(&r, text, sizeof text));
    cr_log_info("%s", text);
    iohw_backend_unload(&lb);
    load_litert("xnnpack", NULL, &lb);
    expect_pass(&lb, desc);
    iohw_backend_unload(&lb);
    iohw_case_free(&c);
}

/* L2: the XNNPack delegate makes NaN of y[0] = x[0] * w[0] = 0.2196, which
 * the NaN weight tap w[1] does not reach; the builtin kernel computes it
 * (x = [0.937, NaN, -1.242, -0.379], w = [0.234, NaN]). */
Test(exec_litert, the_xnnpack_delegate_spreads_a_nan_weight_to_the_edge,
     .timeout = 300)
{
    static const char *const desc =
        "ci=1 co=1 in=4 k=2 xl=NWC wl=OWI fill=special seed=8";
    iohw_loaded_backend lb;
    iohw_case c;
    iohw_result r;
    char text[2048];
    load_litert("xnnpack", NULL, &lb);
    make(desc, &c);
    cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    run_case(&lb, &c, &r);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL, "%s",
                 iohw_test_describe(&r, text, sizeof text));
    iohw_backend_unload(&lb);
    load_litert("builtin", NULL, &lb);
    expect_pass(&lb, desc);
    iohw_backend_unload(&lb);
    iohw_case_free(&c);
}

/* Every case of cases/regressions/litert.h5 has an entry in one of the two
 * kernels' regression baselines (needs neither node nor the packages). */
Test(exec_litert, every_regression_case_has_a_baseline_entry)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "ids=$('%s' run --list '%s/cases/regressions/litert.h5' | "
             "cut -f1) && [ -n \"$ids\" ] && for id in $ids; do cat "
             "'%s/backends/js/baseline-litert-xnnpack-regressions.txt' "
             "'%s/backends/js/baseline-litert-builtin-regressions.txt' | "
             "grep -q \"^$id \" || exit 1; done",
             IOHW_BIN, IOHW_SOURCE_DIR, IOHW_SOURCE_DIR, IOHW_SOURCE_DIR);
    cr_expect(system(cmd) == 0, "a case of cases/regressions/litert.h5 has "
              "no baseline entry: %s", cmd);
}

/* Each kernel fails exactly its own regression cases: with its baseline
 * `iohw run` exits 0 and no entry is stale (a stale entry, a case that
 * passes, would say the discrepancy is gone).  A generous --timeout: node
 * starts slowly on a loaded machine. */
Test(exec_litert, each_kernel_fails_its_regression_cases, .timeout = 300)
{
    static const char *const kernels[] = {"xnnpack", "builtin"};
    skip_without_litert();
    for (int k = 0; k < 2; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "IOHW_EXEC_COMMAND='node %s --kernel=%s' '%s' run --backend "
                 "'%s/libiohw_exec.so' '%s/cases/regressions/litert.h5' "
                 "--timeout 300 "
                 "--baseline '%s/backends/js/baseline-litert-%s-regressions.txt'"
                 " > '%s/litert-regressions-%s.out' 2>&1 && ! grep -q stale "
                 "'%s/litert-regressions-%s.out'",
                 LITERT_PROGRAM, kernels[k], IOHW_BIN, IOHW_BACKEND_DIR,
                 IOHW_SOURCE_DIR, IOHW_SOURCE_DIR, kernels[k], IOHW_TEST_TMP,
                 kernels[k], IOHW_TEST_TMP, kernels[k]);
        cr_expect(system(cmd) == 0, "%s: %s", kernels[k], cmd);
    }
}

/* cases/regressions/litert.h5 is what cases/regressions/make.sh writes. */
Test(exec_litert, the_regression_file_is_what_its_script_writes)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "d='%s/litert-regressions-%d' && rm -rf \"$d\" && mkdir -p \"$d\" "
             "&& bash '%s/cases/regressions/make.sh' '%s' \"$d\" > /dev/null "
             "&& cmp \"$d/litert.h5\" '%s/cases/regressions/litert.h5' && "
             "rm -rf \"$d\"",
             IOHW_TEST_TMP, (int)getpid(), IOHW_SOURCE_DIR, IOHW_BIN,
             IOHW_SOURCE_DIR);
    cr_expect(system(cmd) == 0, "cases/regressions/litert.h5 is not what "
              "make.sh writes (run cases/regressions/make.sh): %s", cmd);
}
