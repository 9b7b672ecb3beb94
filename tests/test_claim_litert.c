/*
 * tests/test_claim_litert.c - `iohw gen --for-backend` with the LiteRT
 * program (backends/js/litert_backend.js behind the exec backend), which
 * takes x in NHWC (NWC) with the weights in OHWI (OWI) only: the smoke
 * claim finishes, with its progress line, and plans a
 * non-empty suite that the program claims case for case.  Skipped when
 * node or the npm packages are absent, as tests/test_exec_litert.c is.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

#define JS_DIR IOHW_BACKEND_DIR "/../js"
#define LITERT_PROGRAM IOHW_SOURCE_DIR "/backends/js/litert_backend.js"
#define LITERT_PACKAGE JS_DIR "/node_modules/@litertjs/core/package.json"
#define H5WASM_PACKAGE JS_DIR "/node_modules/h5wasm/package.json"
#define CALLS_MAX 8000

static void skip_without_litert(void)
{
    if (system("command -v node >/dev/null 2>&1") != 0)
        cr_skip_test("node is not on PATH: the JavaScript adapters are skipped");
    if (access(LITERT_PACKAGE, R_OK) != 0 || access(H5WASM_PACKAGE, R_OK) != 0)
        cr_skip_test("%s is missing: scripts/setup_js.sh did not install the "
                     "npm packages (no npm, no registry or IOHW_JS=OFF)", LITERT_PACKAGE);
}

/* The number after key in text, or -1. */
static long long number_after(const char *text, const char *key)
{
    const char *at = strstr(text, key);
    return at != NULL ? strtoll(at + strlen(key), NULL, 10) : -1;
}

static void expect_a_claimed_suite(const char *kernel)
{
    char *text = NULL;
    skip_without_litert();
    int rc = iohw_test_sh(&text, "IOHW_JS_DIR='%s' IOHW_EXEC_COMMAND='node %s "
                          "--kernel=%s' '%s' gen --profile smoke --dry-run "
                          "--for-backend '%s/libiohw_exec.so' 2>&1",
                          JS_DIR, LITERT_PROGRAM, kernel, IOHW_BIN, IOHW_BACKEND_DIR);
    cr_assert_eq(rc, 0, "%s", text);
    cr_expect(strstr(text, "gen: asking the backend what it claims: ") != NULL, "%s", text);
    cr_expect(strstr(text, "(done)") != NULL, "%s", text);
    const long long calls = number_after(text, "supports() asked ");
    cr_expect_gt(calls, 0, "%s", text);
    cr_expect_leq(calls, CALLS_MAX, "%lld supports() calls", calls);
    const long long cases = number_after(text, "this suite: ");
    cr_expect_geq(cases, 20, "%s", text);
    cr_expect(strstr(text, "cases, all claimed") != NULL, "%s", text);
    free(text);
}

/* One kernel: the program's supports() answers alike for both (the same
 * 5,591 calls and 188 cases were measured with --kernel=builtin), and each
 * run costs a minute under the sanitizers. */
Test(claim_litert, the_xnnpack_kernel_gets_a_claimed_suite, .timeout = 600)
{
    expect_a_claimed_suite("xnnpack");
}
