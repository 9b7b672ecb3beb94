/*
 * tests/test_fuzz_flaky.c - `iohw fuzz` runs a TIMEOUT or CRASH again
 * before shrinking it (specification section 7): a backend that misbehaves
 * on its first run() only (backends/faults/flaky.c) gives a flaky case, no
 * failure class and exit status 0; a backend that hangs every time still
 * gives a shrunk TIMEOUT class.  A shrink stops at its deadline, keeping
 * the smallest case found (the fuzzer's bound on --time).  No timing: the
 * deadline tested is one already past.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "explore/fuzz.h"
#include "explore/shrink.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "support/shell.h"

static void setup(const char *name, const char *tag, char *backend, char *dir,
                  char *mark, iohw_fuzz_options *o)
{
    snprintf(backend, 512, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    snprintf(dir, 512, "%s/fuzz-flaky-%s-%d", IOHW_TEST_TMP, tag, (int)getpid());
    snprintf(mark, 600, "%s/mark", dir);
    iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    setenv("IOHW_FLAKY_MARK", mark, 1);
    iohw_fuzz_options_init(o);
    o->backend = backend;
    o->out_dir = dir;
    o->seed = 5;
    o->time_s = 0;
    o->max_cases = 16;
    o->jobs = 1;
    o->timeout = 1;
    o->max_calls = 12;
}

static void expect_flaky(const char *name, iohw_result_status first)
{
    char backend[512], dir[512], mark[600];
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    setup(name, name, backend, dir, mark, &o);
    cr_assert_eq(iohw_fuzz(&o, &r, &err), 0, "%s", err.msg);
    cr_expect_eq(access(mark, F_OK), 0, "the backend never ran");
    cr_expect_eq(r.cases, 16);
    cr_expect_eq(r.by_status[first], 1, "the first case misbehaves once");
    cr_expect_eq(r.flaky, 1);
    cr_expect_eq(r.flaky_cases[0].first.status, first);
    cr_expect_eq(r.flaky_cases[0].again, IOHW_RESULT_PASS);
    cr_expect_eq(r.nclasses, 0, "a flaky case is not a finding");
    cr_expect_str_eq(r.regressions, "", "nothing shrunk, nothing written");

    char *text = NULL;
    iohw_test_sh(&text, "cat '%s'", r.report);
    cr_expect(strstr(text, "failure classes: 0") != NULL, "%s", text);
    cr_expect(strstr(text, "flaky (a TIMEOUT or CRASH that did not happen when "
                     "run again") != NULL, "%s", text);
    char line[64];
    snprintf(line, sizeof line, "%s then PASS: n=", iohw_result_status_name(first));
    cr_expect(strstr(text, line) != NULL, "%s", text);
    free(text);
    iohw_fuzz_report_free(&r);

    /* The command: exit 0, the flaky case on the console. */
    iohw_test_sh(NULL, "rm -f '%s'", mark);
    int rc = iohw_test_sh(&text, "IOHW_FLAKY_MARK='%s' '%s' fuzz --backend '%s' "
                          "--cases 16 --jobs 1 --timeout 1 --seed 5 -o '%s'",
                          mark, IOHW_BIN, backend, dir);
    cr_expect_eq(rc, 0, "%s", text);
    cr_expect(strstr(text, "0 failed in 0 classes") != NULL, "%s", text);
    cr_expect(strstr(text, "flaky (passed when run again, not shrunk): 1") != NULL,
              "%s", text);
    cr_expect(strstr(text, "PASS when run again (not shrunk)") != NULL, "%s", text);
    free(text);
    unsetenv("IOHW_FLAKY_MARK");
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fuzz_flaky, a_timeout_that_passes_when_run_again_is_flaky)
{
    expect_flaky("flaky_hang", IOHW_RESULT_TIMEOUT);
}

Test(fuzz_flaky, a_crash_that_passes_when_run_again_is_flaky)
{
    expect_flaky("flaky_crash", IOHW_RESULT_CRASH);
}

Test(fuzz_flaky, a_crash_every_time_is_a_class_and_shrunk)
{
    char backend[512], dir[512], mark[600];
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    setup("fault_crash", "crash", backend, dir, mark, &o);
    o.max_cases = 32;
    cr_assert_eq(iohw_fuzz(&o, &r, &err), 0, "%s", err.msg);
    cr_assert_gt(r.by_status[IOHW_RESULT_CRASH], 0, "seed 5 draws no grouped problem");
    cr_expect_eq(r.flaky, 0);
    cr_assert_eq(r.nclasses, 1);
    cr_expect_str_eq(r.classes[0].key, "CRASH");
    cr_expect(r.classes[0].shrunk_ok);
    cr_expect_gt(r.classes[0].shrunk.calls, 0);
    iohw_fuzz_report_free(&r);
    unsetenv("IOHW_FLAKY_MARK");
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

/* A case no_flip fails (a 3-wide kernel), written to dir/case.h5. */
static void failing_case(const char *dir, char *path)
{
    iohw_desc d;
    iohw_case c;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse("n=2 ci=3 co=2 in=6x5 k=3x3 s=2x1 fill=normal "
                                 "seed=4", &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "big", NULL, 1, &c, &err), 0, "%s", err.msg);
    snprintf(path, 600, "%s/case.h5", dir);
    iohw_case_file *f = iohw_case_file_create(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
    iohw_case_free(&c);
}

Test(fuzz_flaky, a_shrink_stops_at_its_deadline_keeping_the_original)
{
    char dir[512], path[600], backend[512];
    iohw_shrink_options so;
    iohw_shrink_result a, b;
    iohw_error err = {{0}};
    snprintf(dir, sizeof dir, "%s/shrink-deadline-%d", IOHW_TEST_TMP, (int)getpid());
    iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    snprintf(backend, sizeof backend, "%s/libiohw_fault_no_flip.so", IOHW_BACKEND_DIR);
    failing_case(dir, path);
    iohw_shrink_options_init(&so);
    so.backend = backend;
    so.tmpdir = dir;
    so.max_calls = 40;

    so.deadline = 1e-9;  /* long past on the monotonic clock */
    cr_assert_eq(iohw_shrink_case(&so, path, "big", &a, &err), 0, "%s", err.msg);
    cr_expect_eq(a.calls, 1, "only the original is run");
    cr_expect_eq(a.steps, 0);
    cr_expect_eq(a.budget_hit, 1);
    cr_expect_eq(a.minimal_case.p.in_size[0], 6, "%s", a.minimal_case.descriptor);
    cr_expect_eq(a.minimal_case.p.batch, 2, "%s", a.minimal_case.descriptor);

    so.deadline = 0;     /* none: the same case shrinks */
    cr_assert_eq(iohw_shrink_case(&so, path, "big", &b, &err), 0, "%s", err.msg);
    cr_expect_gt(b.steps, 0);
    cr_expect_eq(b.minimal_case.p.batch, 1, "%s", b.minimal_case.descriptor);
    iohw_shrink_result_free(&a);
    iohw_shrink_result_free(&b);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
