/*
 * tests/test_tfjs.c - backends/js/tfjs_backend.js (TensorFlow.js) through the
 * exec backend, in-process through the loader.  It needs node and the npm
 * packages of backends/js/package.json: IOHW_JS_DIR, else js/ of this build
 * tree or of the source tree's build/ (scripts/setup_js.sh BUILD installs
 * them in BUILD/js); without them those tests are skipped, saying why.
 *
 * Only what holds on every x86-64 CPU is asserted: the cpu backend
 * computes exact-fill f32 cases exactly (in JavaScript doubles), among them
 * the minimal cases of the wasm backend's W1 and W2 (which have baseline
 * entries); f64 and rank 1 are refused with tfjs's reason; the reports name
 * the program and its tfjs backend.  What the wasm backend computes is left
 * to scripts/main.sh and its baselines (docs/CONFORMANCE.md, W1 and W2).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"

#define TFJS_PROGRAM IOHW_SOURCE_DIR "/backends/js/tfjs_backend.js"

/* 1 when dir (a BUILD/js folder) holds the packages the program loads. */
static int has_packages(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path,
             "%s/node_modules/@tensorflow/tfjs-core/package.json", dir);
    if (access(path, R_OK) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/node_modules/h5wasm/package.json", dir);
    return access(path, R_OK) == 0;
}

/* Skips the test without node or the npm packages; else points the
 * program at the packages (IOHW_JS_DIR, which it inherits). */
static void skip_without_tfjs(void)
{
    static const char *const dirs[] = {
        IOHW_BACKEND_DIR "/../js",
        IOHW_SOURCE_DIR "/build/js",
    };
    if (system("node --version >/dev/null 2>&1") != 0)
        cr_skip_test("node is not installed");
    const char *env = getenv("IOHW_JS_DIR");
    if (env != NULL && env[0] != '\0') {
        if (!has_packages(env))
            cr_skip_test("IOHW_JS_DIR=%s holds no tfjs and h5wasm", env);
        return;
    }
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (has_packages(dirs[i])) {
            cr_assert_eq(setenv("IOHW_JS_DIR", dirs[i], 1), 0);
            return;
        }
    cr_skip_test("no npm packages in %s or %s (scripts/setup_js.sh BUILD "
                 "installs them)", dirs[0], dirs[1]);
}

/* Loads the exec backend running the program on tfjs's `which` backend. */
static void load_tfjs(const char *which, iohw_loaded_backend *lb)
{
    char command[1024];
    skip_without_tfjs();
    snprintf(command, sizeof command, "node %s --tfjs-backend=%s",
             TFJS_PROGRAM, which);
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", command, 1), 0);
    load_or_skip("iohw_exec", lb);
}

/* Refused, with a reason naming `why`. */
static void expect_refused_for(const iohw_loaded_backend *lb,
                               const char *desc, const char *why)
{
    expect_unsupported(lb, desc);
    cr_expect(strstr(iohw_backend_last_error(lb), why) != NULL,
              "'%s' refused, but not for \"%s\": %s", desc, why,
              iohw_backend_last_error(lb));
}

Test(tfjs, the_cpu_backend_computes_exact_rank2_cases, .timeout = 300)
{
    static const char *const protocols[] = {"1", "2"};
    for (int i = 0; i < 2; i++) {
        iohw_loaded_backend lb;
        char want[32];
        cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", protocols[i], 1), 0);
        load_tfjs("cpu", &lb);
        cr_expect_str_eq(lb.table->name, "exec:tfjs-cpu");
        snprintf(want, sizeof want, "exec protocol %s", protocols[i]);
        cr_expect(strstr(lb.table->version, want) != NULL, "%s",
                  lb.table->version);
        /* Explicit asymmetric pads, output_padding below the stride, a
         * bias added after the op. */
        expect_pass(&lb, "n=2 ci=3 co=4 in=3x4 k=3x2 s=2x1 pad=1:0x0:1 "
                         "op=1x0 bias=1 xl=NHWC wl=HWOI fill=exact");
        expect_pass(&lb, "ci=5 co=2 in=4x5 k=2x3 s=2 xl=NHWC wl=HWOI "
                         "fill=exact");
        iohw_backend_unload(&lb);
    }
}

Test(tfjs, what_tfjs_does_not_have_is_refused_with_the_reason,
     .timeout = 300)
{
    iohw_loaded_backend lb;
    load_tfjs("cpu", &lb);
    expect_refused_for(&lb, "ci=2 co=3 in=4x5 k=3 dt=f64 xl=NHWC wl=HWOI",
                       "tfjs has no f64 tensors");
    expect_refused_for(&lb, "ci=2 co=3 in=7 k=3 xl=NWC wl=WOI",
                       "no conv1dTranspose");
    expect_refused_for(&lb, "ci=4 co=6 g=2 in=4x5 k=3 xl=NHWC wl=HWOI",
                       "has no groups");
    expect_refused_for(&lb, "ci=2 co=3 in=4x5 k=3 d=2 xl=NHWC wl=HWOI",
                       "has no dilation");
    expect_refused_for(&lb, "ci=2 co=3 in=4x5 k=3 s=2 op=2x0 xl=NHWC wl=HWOI",
                       "output_padding must be below the stride");
    expect_refused_for(&lb, "ci=2 co=3 in=3x4x5 k=3 pad=1 xl=NDHWC wl=DHWOI",
                       "takes pad 'same' or 'valid' only");
    iohw_backend_unload(&lb);
}

/* The wasm backend serves under a resident-memory limit of 1 GiB (V8
 * reserves far more address space than that) and names itself. */
Test(tfjs, the_wasm_backend_starts_and_names_itself, .timeout = 300)
{
    iohw_loaded_backend lb;
    cr_assert_eq(setenv("IOHW_EXEC_MEMORY_LIMIT_MB", "1024", 1), 0);
    load_tfjs("wasm", &lb);
    cr_expect_str_eq(lb.table->name, "exec:tfjs-wasm");
    cr_expect(strstr(lb.table->version, " wasm, node ") != NULL, "%s",
              lb.table->version);
    expect_refused_for(&lb, "ci=2 co=3 in=4x5 k=3 dt=f16 xl=NHWC wl=HWOI",
                       "tfjs has no f16 tensors");
    iohw_backend_unload(&lb);
}

/* The minimal cases of W1 and W2 are what the cpu backend computes right. */
Test(tfjs, the_cpu_backend_computes_the_wasm_regression_cases, .timeout = 300)
{
    iohw_loaded_backend lb;
    load_tfjs("cpu", &lb);
    expect_pass(&lb, "ci=1 co=1 in=2x1x1 k=1 xl=NDHWC wl=DHWOI fill=exact");
    expect_pass(&lb, "ci=1 co=1 in=1x1x1 k=1x1x2 s=1x1x2 xl=NDHWC wl=DHWOI "
                     "fill=exact");
    iohw_backend_unload(&lb);
}

/* Every case of cases/regressions/tfjs.h5 has an entry in the wasm
 * regression baseline (needs neither node nor the packages). */
Test(tfjs, every_regression_case_has_a_wasm_baseline_entry)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "ids=$('%s' run --list '%s/cases/regressions/tfjs.h5' | cut -f1) "
             "&& [ -n \"$ids\" ] && for id in $ids; do grep -q \"^$id \" "
             "'%s/backends/js/baseline-tfjs-wasm-regressions.txt' || exit 1; "
             "done", IOHW_BIN, IOHW_SOURCE_DIR, IOHW_SOURCE_DIR);
    int st = system(cmd);
    cr_expect(st == 0, "a case of cases/regressions/tfjs.h5 has no entry in "
              "backends/js/baseline-tfjs-wasm-regressions.txt: %s", cmd);
}

/* A failure is reported through the protocol (status 1, one line naming
 * the program and the tfjs backend), never as a stack trace: here an input
 * that does not exist, the same on every machine. */
Test(tfjs, a_failure_is_reported_in_one_line)
{
    char out[4096] = "";
    skip_without_tfjs();
    FILE *p = popen("node " TFJS_PROGRAM " --tfjs-backend=cpu " IOHW_TEST_TMP
                    "/no-such-input.h5 " IOHW_TEST_TMP "/out.h5 2>&1", "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "wait status %d: %s", st,
              out);
    cr_expect(strncmp(out, "tfjs_backend.js (tfjs-cpu): ", 28) == 0, "%s",
              out);
    cr_expect(strstr(out, "no-such-input.h5") != NULL, "%s", out);
    cr_expect(n > 0 && strchr(out, '\n') == out + n - 1,
              "more than one line: %s", out);
}
