/*
 * tests/test_run_limits.c - the limits of `iohw run`: the default timeout
 * that grows with a case's work (harness/timeouts.h), the circuit breaker
 * that stops running a class of cases that hangs (harness/breaker.h), a run
 * that compared nothing is not a pass, a supports() that fails is an ERROR,
 * and the repro command keeps the options that change an outcome
 * (results/result.h).
 *
 * Backends: fault_hang_rank3 never returns on rank-3 problems;
 * fault_picky_channels_reversed claims only channels-last data and reverses
 * the output channels; picky claims only channels-last data and is correct;
 * exec runs a shell script written by the test.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/result.h"
#include "harness/run.h"
#include "harness/timeouts.h"
#include "support/shell.h"

#define sh iohw_test_sh

/* A fresh directory for one test. */
static void make_dir(char *dir, size_t n, const char *name)
{
    snprintf(dir, n, "%s/limits-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    cr_assert_eq(sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
}

static void remove_dir(const char *dir)
{
    sh(NULL, "rm -rf '%s'", dir);
}

static void backend_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* --- the timeout --------------------------------------------------------- */

static double timeout_of(const iohw_run_options *o, const char *desc)
{
    iohw_listing_entry e;
    memset(&e, 0, sizeof e);
    e.descriptor = (char *)desc;
    return iohw_case_timeout(o, &e);
}

Test(limits, the_default_timeout_is_a_floor_plus_the_cases_multiply_adds)
{
    iohw_run_options o;
    iohw_run_options_init(&o);
    cr_assert_eq(o.timeout, 10.0);
    cr_assert_eq(o.timeout_scaled, 1);
    /* x has 2*5 elements, each meets co*k = 3*3 weights: 90 MACs. */
    cr_assert_float_eq(timeout_of(&o, "ci=2 co=3 in=5 k=3"), 10.0 + 90e-7, 1e-12);
    /* 64*64*64 inputs times 64*5*5 weights: 419430400 MACs, 41.9 s. */
    cr_assert_float_eq(timeout_of(&o, "ci=64 co=64 in=64x64 k=5x5"),
                       10.0 + 41.94304, 1e-9);
    /* Groups: each input meets only its group's co/g outputs. */
    cr_assert_float_eq(timeout_of(&o, "ci=8 co=8 g=4 in=10 k=3"), 10.0 + 480e-7,
                       1e-12);
}

Test(limits, a_fixed_timeout_is_the_limit_of_every_case)
{
    iohw_run_options o;
    iohw_run_options_init(&o);
    o.timeout = 7;
    o.timeout_scaled = 0;
    cr_assert_eq(timeout_of(&o, "ci=64 co=64 in=64x64 k=5x5"), 7.0);
    cr_assert_eq(timeout_of(&o, "ci=2 co=3 in=5 k=3"), 7.0);
    o.timeout = 0;
    cr_assert_eq(timeout_of(&o, "ci=2 co=3 in=5 k=3"), 0.0);
}

Test(limits, the_run_options_start_from_the_documented_defaults)
{
    iohw_run_options o;
    iohw_run_options_init(&o);
    cr_assert_eq(o.memory_limit_mb, 8192);
    cr_assert_eq(o.breaker, 3);
    cr_assert_eq(o.diagnose, 1);
    cr_assert_eq(o.shard_index, 1);
    cr_assert_eq(o.shard_count, 1);
    cr_assert_eq(o.jobs, 0);
    cr_assert_eq(o.allow_empty, 0);
}

/* --- the circuit breaker ------------------------------------------------- */

static int is_rank3(const iohw_result *r)
{
    return strncmp(r->case_id, "ct3d.", 5) == 0;
}

Test(limits, the_breaker_stops_running_a_class_that_hangs_and_reports_every_case)
{
    char dir[512], lib[512];
    make_dir(dir, sizeof dir, "breaker");
    cr_assert_eq(sh(NULL, "'%s' gen --profile smoke -o '%s' --threads 2 > /dev/null",
                    IOHW_BIN, dir), 0);
    backend_path(lib, sizeof lib, "fault_hang_rank3");
    const char *inputs[1] = {dir};
    iohw_run_options o;
    iohw_run_options_init(&o);
    o.backend = lib;
    o.inputs = inputs;
    o.ninputs = 1;
    o.jobs = 2;
    /* Only the cases that hang: no correct call runs under the short
     * limit, so load cannot turn a PASS into a TIMEOUT. */
    o.filter = "rank=3";
    o.timeout = 0.5;
    o.timeout_scaled = 0;
    o.breaker = 2;
    o.diagnose = 0;
    o.progress = -1;
    iohw_run_results res;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(&o, &res, &err), 0, "%s", err.msg);

    /* Per dtype of rank 3: cases really run into the timeout, cases not run. */
    static const char *const dts[] = {"f32", "f64", "f16", "bf16"};
    int ran[4] = {0}, skipped[4] = {0};
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (strstr(r->case_id, ".quant.") != NULL || /* no run_quant, */
            strstr(r->case_id, ".bwd_") != NULL) {   /* nor a backward entry */
            cr_expect_eq(r->status, IOHW_RESULT_UNSUPPORTED, "%s: %s", r->case_id,
                         r->message);
            continue;
        }
        cr_expect(is_rank3(r), "%s: not rank 3", r->case_id);
        cr_expect_eq(r->status, IOHW_RESULT_TIMEOUT, "%s: %s", r->case_id, r->message);
        int d = -1;
        for (int k = 0; k < 4; k++) {
            char key[16];
            snprintf(key, sizeof key, "dt=%s ", dts[k]);
            if (strstr(r->descriptor, key) != NULL)
                d = k;
        }
        cr_assert_geq(d, 0, "%s: dtype of '%s'", r->case_id, r->descriptor);
        if (strstr(r->message, "did not return within 0.5 s") != NULL) {
            ran[d]++;
        } else {
            char want[128];
            snprintf(want, sizeof want, "cases of this class (rank 3, %s) timed out",
                     dts[d]);
            cr_expect(strncmp(r->message, "not run: ", 9) == 0 &&
                      strstr(r->message, want) != NULL, "%s: '%s'", r->case_id,
                      r->message);
            skipped[d]++;
        }
    }
    /* Two TIMEOUTs open a class; the other job may be running a third. */
    for (int k = 0; k < 4; k++) {
        cr_expect(ran[k] >= 2 && ran[k] <= 3, "%s: %d cases ran into the timeout",
                  dts[k], ran[k]);
        cr_expect_gt(skipped[k], 0, "%s: no case was left out", dts[k]);
    }
    cr_expect_eq(iohw_run_exit_code(&res), 1);
    iohw_run_results_free(&res);
    remove_dir(dir);
}

/* Three rank-3 f64 cases against the hanging backend; returns the output. */
static int run_three_hanging(const char *dir, const char *breaker, char **out)
{
    char lib[512];
    backend_path(lib, sizeof lib, "fault_hang_rank3");
    cr_assert_eq(sh(NULL, "'%s' gen -o '%s/r3.h5' --problem 'ci=2 co=2 in=3x2x2 k=2 "
                    "dt=f64' --problem 'ci=1 co=2 in=2x2x3 k=2 s=2 dt=f64' --problem "
                    "'ci=2 co=1 in=2x2x2 k=1 dt=f64' > /dev/null", IOHW_BIN, dir), 0);
    return sh(out, "'%s' run --backend '%s' '%s/r3.h5' --jobs 1 --timeout 0.3 "
              "--quiet %s 2>&1", IOHW_BIN, lib, dir, breaker);
}

Test(limits, with_the_breaker_off_every_case_of_the_class_runs)
{
    char dir[512], *out;
    make_dir(dir, sizeof dir, "nobreaker");
    cr_assert_eq(run_three_hanging(dir, "--breaker 0", &out), 1, "%s", out);
    cr_expect_eq(count(out, "did not return within 0.3 s"), 3, "%s", out);
    cr_expect_eq(count(out, "not run:"), 0, "%s", out);
    free(out);
    cr_assert_eq(run_three_hanging(dir, "--breaker 1", &out), 1, "%s", out);
    cr_expect_eq(count(out, "did not return within 0.3 s"), 1, "%s", out);
    cr_expect_eq(count(out, "message:   not run: 1 case of this class (rank 3, "
                            "f64) timed out (the circuit breaker, --breaker 1)"), 2,
                 "%s", out);
    free(out);
    remove_dir(dir);
}

Test(limits, on_resume_the_journals_timeouts_count_and_left_out_cases_run_again)
{
    char dir[512], *out;
    make_dir(dir, sizeof dir, "resume");
    char opts[700];
    snprintf(opts, sizeof opts, "--breaker 0 --journal '%s/j.jsonl' --filter "
             "'id=problem.0'", dir);
    cr_assert_eq(run_three_hanging(dir, opts, &out), 1, "%s", out);
    cr_expect_eq(count(out, "did not return within 0.3 s"), 1, "%s", out);
    free(out);
    snprintf(opts, sizeof opts, "--breaker 1 --journal '%s/j.jsonl' --resume", dir);
    cr_assert_eq(run_three_hanging(dir, opts, &out), 1, "%s", out);
    /* Only the journal's case ran into the timeout; none was run again. */
    cr_expect_eq(count(out, "message:   run() did not return within"), 1, "%s", out);
    cr_expect_not_null(strstr(out, "(1 taken from the journal)"), "%s", out);
    cr_expect_eq(count(out, "message:   not run: 1 case of this class (rank 3, "
                            "f64)"), 2, "%s", out);
    free(out);
    /* The cases left out run when the breaker is off. */
    snprintf(opts, sizeof opts, "--breaker 0 --journal '%s/j.jsonl' --resume", dir);
    cr_assert_eq(run_three_hanging(dir, opts, &out), 1, "%s", out);
    cr_expect_eq(count(out, "message:   run() did not return within"), 3, "%s", out);
    cr_expect_not_null(strstr(out, "(1 taken from the journal)"), "%s", out);
    free(out);
    remove_dir(dir);
}

/* --- nothing tested ------------------------------------------------------ */

/* Two channels-first cases, which the picky backend does not claim. */
static void make_channels_first(const char *dir)
{
    cr_assert_eq(sh(NULL, "'%s' gen -o '%s/t.h5' --problem 'ci=2 co=3 in=5x4 k=3' "
                    "--problem 'ci=2 co=2 in=6 k=2 s=2' > /dev/null", IOHW_BIN, dir), 0);
}

Test(limits, a_run_that_compares_nothing_fails_and_says_so)
{
    char dir[512], lib[512], *out;
    make_dir(dir, sizeof dir, "empty");
    make_channels_first(dir);
    backend_path(lib, sizeof lib, "picky");
    int rc = sh(&out, "'%s' run --backend '%s' '%s' --quiet 2>&1", IOHW_BIN, lib, dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_not_null(strstr(out, "compared with the oracle: 0 of 2 case(s)"), "%s", out);
    cr_expect_not_null(strstr(out, "FAILED: nothing was tested: 2 of 2 UNSUPPORTED"),
                       "%s", out);
    free(out);

    rc = sh(&out, "'%s' run --backend '%s' '%s' --quiet --allow-empty 2>&1", IOHW_BIN,
            lib, dir);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_not_null(strstr(out, "OK (--allow-empty): nothing was tested: 2 of 2 "
                                   "UNSUPPORTED"), "%s", out);
    free(out);

    backend_path(lib, sizeof lib, "reference");
    rc = sh(&out, "'%s' run --backend '%s' '%s' --quiet 2>&1", IOHW_BIN, lib, dir);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_not_null(strstr(out, "compared with the oracle: 2 of 2 case(s)"), "%s", out);
    cr_expect_not_null(strstr(out, "OK: nothing failed"), "%s", out);
    free(out);
    remove_dir(dir);
}

Test(limits, selecting_no_case_is_not_a_pass_either)
{
    char dir[512], lib[512], *out;
    make_dir(dir, sizeof dir, "none");
    make_channels_first(dir);
    backend_path(lib, sizeof lib, "reference");
    int rc = sh(&out, "'%s' run --backend '%s' '%s' --filter 'rank=3' --quiet 2>&1",
                IOHW_BIN, lib, dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_not_null(strstr(out, "nothing was tested: no case selected"), "%s", out);
    free(out);
    remove_dir(dir);
}

/* --- supports() failing -------------------------------------------------- */

/* Runs the two channels-first cases through the exec backend with a program
 * whose --supports query does what `query` says.  The backend's private
 * folders go into dir (TMPDIR), so that removing dir removes them too, also
 * those of a worker killed in the middle of a query. */
static int run_exec(const char *dir, const char *query, const char *opts,
                    char **out)
{
    char prog[600], lib[512];
    snprintf(prog, sizeof prog, "%s/prog.sh", dir);
    FILE *f = fopen(prog, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\nif [ \"$1\" = --supports ]; then\n%s\nfi\nexit 0\n", query);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(prog, 0755), 0);
    backend_path(lib, sizeof lib, "exec");
    return sh(out, "TMPDIR='%s' IOHW_EXEC_COMMAND='%s' '%s' run --backend '%s' '%s/t.h5' "
              "--quiet --jobs 1 %s", dir, prog, IOHW_BIN, lib, dir, opts);
}

/* Both channels-first cases are ERROR with `needle` in the output. */
static void expect_errors(const char *name, const char *query, const char *needle)
{
    char dir[512], *out;
    make_dir(dir, sizeof dir, name);
    make_channels_first(dir);
    int rc = run_exec(dir, query, "", &out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_eq(count(out, "\nERROR problem."), 2, "%s", out);
    cr_expect_not_null(strstr(out, needle), "%s", out);
    free(out);
    remove_dir(dir);
}

Test(limits, a_supports_query_that_dies_is_an_error_not_a_refusal)
{
    expect_errors("dies", "echo 'cannot map memory' >&2; exit 3",
                  "supports() returned IOHW_BACKEND_ERROR: the --supports query "
                  "failed");
}

Test(limits, a_supports_query_that_answers_garbage_is_an_error)
{
    expect_errors("garbage", "echo 'not hdf5' > \"$3\"; exit 0",
                  "the --supports query's answer");
}

Test(limits, a_supports_query_that_hangs_is_a_timeout_not_a_refusal)
{
    char dir[512], *out;
    make_dir(dir, sizeof dir, "query-hangs");
    make_channels_first(dir);
    int rc = run_exec(dir, "exec sleep 5", "--timeout 0.5", &out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_eq(count(out, "supports() did not return within 0.5 s"), 2, "%s", out);
    free(out);
    remove_dir(dir);
}

/* --- the repro command --------------------------------------------------- */

Test(limits, the_repro_command_carries_the_options_that_change_outcomes)
{
    iohw_result r;
    char buf[1024];
    iohw_result_init(&r);
    r.case_id = iohw_text_keep("ct2d.0001");
    r.file = iohw_text_keep("s/a.h5");
    iohw_run_options run;
    iohw_run_options_init(&run);
    run.backend = "/opt/lib.so";
    iohw_repro_options o;
    iohw_repro_options_of_run(&run, &o);
    cr_assert_geq(iohw_repro_format(&o, &r, buf, (int)sizeof buf), 0);
    cr_assert_str_eq(buf, "iohw run --backend /opt/lib.so s/a.h5 --filter 'id=ct2d.0001'");

    run.adapt_layout = 1;
    run.timeout = 2.5;
    run.timeout_scaled = 0;
    run.memory_limit_mb = 1024;
    iohw_repro_options_of_run(&run, &o);
    cr_assert_geq(iohw_repro_format(&o, &r, buf, (int)sizeof buf), 0);
    cr_assert_str_eq(buf, "iohw run --backend /opt/lib.so s/a.h5 --filter 'id=ct2d.0001'"
                          " --adapt-layout --timeout 2.5 --memory-limit 1024");

    /* From the result alone (the reports): its message shows the adaptation. */
    r.message = iohw_text_keep("run with layouts NHWC/GOHWI (adapted from NCHW/IOHW); x");
    cr_assert_geq(iohw_repro_command("/opt/lib.so", &r, buf, (int)sizeof buf), 0);
    cr_assert_str_eq(buf, "iohw run --backend /opt/lib.so s/a.h5 --filter 'id=ct2d.0001'"
                          " --adapt-layout");
}

/* The first __REPRO line of out, with its "iohw" replaced by IOHW_BIN. */
static void first_repro(const char *out, char *cmd, size_t n)
{
    const char *p = strstr(out, "__REPRO: iohw ");
    cr_assert_not_null(p, "%s", out);
    p += strlen("__REPRO: iohw ");
    const char *end = strchr(p, '\n');
    cr_assert_not_null(end);
    snprintf(cmd, n, "'%s' %.*s", IOHW_BIN, (int)(end - p), p);
}

Test(limits, the_repro_of_an_adapted_failure_gives_the_same_status)
{
    char dir[512], lib[512], cmd[4096], *out, *again;
    make_dir(dir, sizeof dir, "repro");
    make_channels_first(dir);
    backend_path(lib, sizeof lib, "fault_picky_channels_reversed");
    int rc = sh(&out, "'%s' run --backend '%s' '%s' --adapt-layout --quiet "
                "--filter 'rank=2' 2>&1", IOHW_BIN, lib, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "\nFAIL "), "%s", out);
    first_repro(out, cmd, sizeof cmd);
    cr_expect_not_null(strstr(cmd, " --adapt-layout"), "%s", cmd);

    rc = sh(&again, "%s --quiet 2>&1", cmd);
    cr_expect_eq(rc, 1, "%s\n%s", cmd, again);
    cr_expect_not_null(strstr(again, "\nFAIL "), "%s\n%s", cmd, again);
    cr_expect_not_null(strstr(again, "run with layouts"), "%s\n%s", cmd, again);
    free(again);
    free(out);
    remove_dir(dir);
}
