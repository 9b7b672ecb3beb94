/*
 * tests/test_rude.c - backends that compute the right answer but are rude
 * to their own process (backends/rude/): each must PASS every smoke case,
 * and the rudeness must show as a warning on the results, never as another
 * status.  The plain reference backend, run the same way, gets no warning
 * at all.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness/run.h"
#include "support/run_options.h"

/* Writes the smoke profile into a directory of its own (the CLI's code). */
static void make_smoke(char *dir, size_t n, const char *name)
{
    char cmd[2048];
    snprintf(dir, n, "%s/rude-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
             "> /dev/null", dir, IOHW_BIN, dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
}

static void remove_dir(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The first way r falls short: not PASS, or its warnings lack a fragment
 * (none: carry a warning at all); "" when it does not. */
static void shortfall(const iohw_result *r, const char *const *fragments, char *why,
                      size_t n)
{
    why[0] = '\0';
    if (r->status != IOHW_RESULT_PASS) {
        snprintf(why, n, "%s: %s: %s (warnings: %s)", r->case_id,
                 iohw_result_status_name(r->status), r->message, r->warnings);
        return;
    }
    if (fragments == NULL && r->warnings[0] != '\0')
        snprintf(why, n, "%s: %s", r->case_id, r->warnings);
    for (int k = 0; fragments != NULL && fragments[k] != NULL && why[0] == '\0'; k++) {
        /* A quantized case's call is run_quant(), a backward one's
         * run_bwd_data() or run_bwd_weights(). */
        char want[512];
        const char *call = strstr(r->case_id, ".quant.") != NULL   ? "run_quant()"
                           : strstr(r->case_id, ".bwd_d.") != NULL ? "run_bwd_data()"
                           : strstr(r->case_id, ".bwd_w.") != NULL ? "run_bwd_weights()"
                                                                   : NULL;
        if (call == NULL || strncmp(fragments[k], "run()", 5) != 0)
            call = "";
        snprintf(want, sizeof want, "%s%s", call,
                 call[0] != '\0' ? fragments[k] + 5 : fragments[k]);
        if (strstr(r->warnings, want) == NULL)
            snprintf(why, n, "%s: warnings '%s' lack '%s'", r->case_id, r->warnings, want);
    }
}

/* Runs backend libiohw_<name>.so on smoke; every case must PASS and carry
 * each of the warning fragments (none: no warning at all).  The results
 * are freed before any assertion, so that a failure leaks nothing. */
static void expect_pass_with(const char *name, const char *const *fragments)
{
    char dir[512], backend[512], why[4096] = "";
    make_smoke(dir, sizeof dir, name);
    snprintf(backend, sizeof backend, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    const char *inputs[1] = {dir};
    iohw_run_options o = iohw_test_run_options(backend, inputs);
    iohw_run_results res;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(&o, &res, &err), 0, "%s", err.msg);
    const int64_t count = res.count;
    for (int64_t i = 0; i < res.count && why[0] == '\0'; i++)
        shortfall(&res.items[i], fragments, why, sizeof why);
    const int code = iohw_run_exit_code(&res);
    iohw_run_results_free(&res);
    remove_dir(dir);
    cr_assert_gt(count, 100, "smoke has %lld cases", (long long)count);
    cr_assert_str_empty(why, "%s", why);
    cr_assert_eq(code, 0);
}

Test(rude, the_reference_backend_gets_no_warning)
{
    expect_pass_with("reference", NULL);
}

Test(rude, closing_descriptors_0_1_2_is_a_warning_and_later_cases_still_pass)
{
    static const char *const w[] = {"run() closed descriptor(s) 0, 1, 2, open before the call (0, 1, 2 "
                                    "reopened)", NULL};
    expect_pass_with("rude_fds", w);
}

Test(rude, a_changed_fp_environment_is_restored_and_named)
{
#if defined(__x86_64__)
    static const char *const w[] = {
        "run() changed the floating-point environment: MXCSR 0x1f80 -> 0xdfc0 "
        "(FTZ, DAZ, rounding upward); restored", NULL};
#else
    static const char *const w[] = {"run() changed the floating-point "
                                    "environment", NULL};
#endif
    expect_pass_with("rude_fpenv", w);
}

Test(rude, a_thread_left_running_is_a_warning)
{
    static const char *const w[] = {"run() left", "thread(s) running", NULL};
    expect_pass_with("rude_thread", w);
}

Test(rude, a_flood_on_stdout_and_stderr_is_counted_with_its_first_line)
{
    static const char *const w[] = {
        "on stdout (first line: \"rude_flood: debug output on stdout\")",
        "on stderr (first line: \"rude_flood: debug output on stderr\")", NULL};
    expect_pass_with("rude_flood", w);
}

Test(rude, signal_handlers_of_its_own_are_undone_and_named)
{
    static const char *const w[] = {
        "run() changed the disposition of SIGINT, SIGSEGV; restored", NULL};
    expect_pass_with("rude_signals", w);
}

Test(rude, a_backend_is_loaded_in_children_only_and_its_load_time_thread_is_quiet)
{
    /* libiohw_rude_load.so starts a thread when loaded and logs the pid of
     * every process that loads it: the probe child and the workers, never
     * the process that calls iohw_run. */
    char log[512], line[64];
    snprintf(log, sizeof log, "%s/rude-%d-load.log", IOHW_TEST_TMP, (int)getpid());
    remove(log);
    setenv("IOHW_RUDE_LOAD_LOG", log, 1);
    expect_pass_with("rude_load", NULL);
    unsetenv("IOHW_RUDE_LOAD_LOG");
    FILE *f = fopen(log, "r");
    cr_assert_not_null(f, "nothing loaded the backend");
    int loads = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        loads++;
        cr_assert_neq(atol(line), (long)getpid(), "the parent loaded the backend");
    }
    fclose(f);
    cr_assert_geq(loads, 2, "%d loads: the probe and at least one worker", loads);
    remove(log);
}

Test(rude, a_1_gib_allocation_passes)
{
    expect_pass_with("rude_alloc", NULL);
}
