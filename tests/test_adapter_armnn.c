/*
 * tests/test_adapter_armnn.c - the Arm NN adapter (backends/armnn/,
 * libiohw_armnn.so), called in-process through the loader on cases built in
 * memory and judged by judge/compare.c against the oracle.
 *
 * What holds on any x86-64 CPU (Arm NN's CpuRef backend is portable C++ with
 * no CPU dispatch): f32 rank-2 cases with exact fills pass in both layout
 * pairs Arm NN takes (NCHW with OIHW, NHWC with OHWI), with strides,
 * asymmetric pads, bias and output_padding; what the layer cannot state
 * (groups, dilation, ranks 1 and 3, f64, other layouts) is UNSUPPORTED with
 * the reason; the version string names Arm NN 20.08 and CpuRef; a wrong
 * output shape from Arm NN 20.08 (docs/CONFORMANCE.md A1) is an ERROR naming
 * both shapes, and the regression cases of A1-A2 still fail without the
 * baseline.  Skipped with the reason when the adapter was not built, or when
 * Arm NN's CpuRef backend (Debian: libarmnn-cpuref-backend22) is missing.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "support/adapter_asserts.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Loads the adapter, or skips when it or Arm NN's CpuRef backend is
 * missing. */
static void load_armnn(iohw_loaded_backend *lb)
{
    iohw_desc d;
    iohw_error err;
    load_or_skip("iohw_armnn", lb);
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=2x2 k=1 wl=OIHW", &d, &err), 0,
                 "%s", err.msg);
    if (lb->table->supports(lb->ctx, &d.p) != IOHW_OK &&
        strstr(iohw_backend_last_error(lb), "no CpuRef") != NULL) {
        char why[256];
        snprintf(why, sizeof why, "%s", iohw_backend_last_error(lb));
        iohw_backend_unload(lb);
        cr_skip_test("%s", why);
    }
}

/* f32, rank 2, exact fills (every product and sum exact, so any correct
 * implementation gives the oracle's bits), in the two layout pairs. */
static const char *const CLAIMED[] = {
    "ci=1 co=1 in=2x2 k=2 fill=exact wl=OIHW",
    "ci=3 co=5 in=4x3 k=3x2 s=2x1 pad=1:0x0:1 bias=1 fill=exact wl=OIHW",
    "ci=2 co=3 in=3x4 k=2x3 s=3x2 pad=0:2x1:1 op=2x1 bias=1 fill=exact wl=OIHW",
    "ci=4 co=2 in=5x2 k=1x4 s=1x3 pad=0x2:1 fill=exact xl=NHWC wl=OHWI",
    "ci=3 co=4 in=3x3 k=3 s=2 pad=1 op=1 bias=1 fill=exact xl=NHWC wl=OHWI",
    "ci=8 co=6 in=2x3 k=5x1 s=1x2 pad=2:1x0 fill=exact xl=NHWC wl=OHWI",
};

Test(armnn, computes_exact_f32_rank_2_cases)
{
    iohw_loaded_backend lb;
    load_armnn(&lb);
    for (size_t i = 0; i < NELEMS(CLAIMED); i++)
        expect_pass(&lb, CLAIMED[i]);
    iohw_backend_unload(&lb);
}

/* The refusal's reason contains `word`. */
static void expect_refused_for(const iohw_loaded_backend *lb, const char *desc,
                               const char *word)
{
    expect_unsupported(lb, desc);
    cr_expect(strstr(iohw_backend_last_error(lb), word) != NULL,
              "'%s' refused for '%s', not for %s", desc,
              iohw_backend_last_error(lb), word);
}

Test(armnn, refuses_what_the_layer_cannot_state_with_the_reason)
{
    iohw_loaded_backend lb;
    load_armnn(&lb);
    expect_refused_for(&lb, "ci=4 co=6 g=2 in=3x3 k=2 wl=GOIHW", "groups");
    expect_refused_for(&lb, "ci=4 co=6 g=2 in=3x3 k=2 wl=OIHW", "groups");
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3 d=2 wl=OIHW", "dilation");
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3 d=1x2 xl=NHWC wl=OHWI",
                       "dilation");
    expect_refused_for(&lb, "ci=2 co=3 in=2x3x4 k=2 wl=OIDHW", "rank 3");
    expect_refused_for(&lb, "ci=2 co=3 in=5 k=2 wl=OIW", "rank 1");
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3 dt=f64 wl=OIHW", "f64");
    /* The weight layout goes with the data layout. */
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3", "OIHW");
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3 xl=NHWC wl=OIHW", "OHWI");
    expect_refused_for(&lb, "ci=2 co=3 in=4x4 k=3 xl=CHWN wl=OIHW", "NCHW");
    iohw_backend_unload(&lb);
}

Test(armnn, version_names_arm_nn_20_08_and_cpu_ref)
{
    iohw_loaded_backend lb;
    load_or_skip("iohw_armnn", &lb);
    cr_expect_str_eq(lb.table->name, "armnn");
    cr_expect(strstr(lb.table->version, "Arm NN 20.08") != NULL, "%s",
              lb.table->version);
    cr_expect(strstr(lb.table->version, "CpuRef") != NULL, "%s",
              lb.table->version);
    cr_expect(IOHW_HAS_MEMBER(lb.table, iohw_backend, run_quant) &&
                  lb.table->run_quant == NULL,
              "the Arm NN adapter computes no quantized problem");
    iohw_backend_unload(&lb);
}

/* Arm NN 20.08 infers 1 output channel for batch 2 with C_out 2 (A1): the
 * adapter reports both shapes instead of cropping. */
Test(armnn, a_wrong_output_shape_is_an_error_naming_both)
{
    iohw_loaded_backend lb;
    iohw_case c;
    iohw_result r;
    load_armnn(&lb);
    if (strstr(lb.table->version, "Arm NN 20.08") == NULL)
        cr_skip_test("A1 is Arm NN 20.08's (this is %s)", lb.table->version);
    make("n=2 ci=1 co=2 in=1x1 k=1 wl=OIHW", &c);
    cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    run_case(&lb, &c, &r);
    cr_expect_eq(r.status, IOHW_RESULT_ERROR);
    cr_expect(strstr(r.message, "Arm NN infers [2,1,1,1] where [2,2,1,1] is "
                                "right") != NULL,
              "%s", r.message);
    iohw_case_free(&c);
    iohw_backend_unload(&lb);
}

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* cases/regressions/armnn.h5 (A1, A2) fails without the baseline and passes
 * with it, no entry stale. */
Test(armnn, the_regression_cases_still_fail_without_the_baseline)
{
    iohw_loaded_backend lb;
    char cmd[4096], quiet[4200];
    load_armnn(&lb);
    iohw_backend_unload(&lb);
    int k = snprintf(cmd, sizeof cmd, "'%s' run --backend '%s/libiohw_armnn.so' "
                     "'%s/cases/regressions/armnn.h5' --jobs 1 --quiet",
                     IOHW_BIN, IOHW_BACKEND_DIR, IOHW_SOURCE_DIR);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 1, "Arm NN no longer fails its regression "
                 "cases: update backends/armnn/baseline-*.txt and "
                 "docs/CONFORMANCE.md");
    snprintf(cmd + k, sizeof cmd - (size_t)k,
             " --baseline '%s/backends/armnn/baseline-regressions.txt'",
             IOHW_SOURCE_DIR);
    snprintf(quiet, sizeof quiet, "%s > /dev/null 2>&1", cmd);
    cr_expect_eq(run_cmd(quiet), 0, "the baseline does not cover every "
                 "regression case: %s", cmd);
    snprintf(quiet, sizeof quiet, "%s 2>&1 | grep -q stale", cmd);
    cr_expect_neq(run_cmd(quiet), 0, "a baseline entry is stale: %s", cmd);
}
