/*
 * tests/test_exec_restart.c - exec protocol 3 through `iohw run`
 * (backends/exec, docs/EXEC_PROTOCOL.md "Protocol 3"), with
 * tests/exec/serve_oracle.py: a program that failed a case is replaced
 * before the next one, so that what it did to itself (a heap it overflowed)
 * costs that case only; restart=each replaces it after every case; a
 * program killed after writing a whole OUT.h5 leaves its y, with a warning.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define SERVE IOHW_SOURCE_DIR "/tests/exec/serve_oracle.py"

/* Three cases (2-d f32, co 2, 3 and 4; the third of another class, s=2,
 * so that its supports() asks the program) run by
 * iohw run --jobs 1 with serve_oracle.py in mode and env (VAR=value
 * words for the shell, may be ""); the output and the JSON report in *out.
 * Returns iohw run's status. */
static int run_three(const char *name, const char *mode, const char *env,
                     char **out)
{
    char dir[512];
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
    snprintf(dir, sizeof dir, "%s/restart-%d-%s", IOHW_TEST_TMP, (int)getpid(),
             name);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s' && '%s' gen "
                              "-o '%s/t.h5' --problem 'ci=2 co=2 in=4x4 k=3' "
                              "--problem 'ci=2 co=3 in=4x4 k=3' --problem "
                              "'ci=2 co=4 in=4x4 k=3 s=2' >/dev/null", dir, dir,
                              IOHW_BIN, dir), 0);
    int rc = iohw_test_sh(out, "cd '%s' && TMPDIR='%s' %s IOHW_EXEC_COMMAND='"
                          PYTHON " " SERVE " %s %s' '%s' run --backend "
                          "'%s/libiohw_exec.so' t.h5 --jobs 1 --timeout 300 "
                          "--json report.json 2>&1; st=$?; cat report.json; "
                          "exit $st", dir, dir, env, IOHW_BIN, mode, IOHW_BIN,
                          IOHW_BACKEND_DIR);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
    return rc;
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

/* The middle case overflows the program's heap and fails: that case is
 * an ERROR, and the next case's supports() and run() get a fresh program
 * (before, the next request crashed the poisoned one: a CRASH of the
 * next case). */
Test(exec_restart, a_program_that_failed_a_case_is_replaced_before_the_next,
     .timeout = 600)
{
    char *out;
    int rc = run_three("poison", "poison:3", "", &out);
    cr_expect_eq(rc, 1, "%s", out);
    expect_contains(out, "PASS 2, ERROR 1");
    expect_contains(out, "\nERROR problem.1");
    expect_contains(out, "this case overflowed a heap buffer");
    expect_contains(out, "\"CRASH\": 0,");
    free(out);
}

/* A case that poisons the program and still answers well cannot be seen
 * from outside: restarting after failures leaves the next case to crash,
 * which is why restart=each exists. */
Test(exec_restart, a_quiet_poisoning_costs_the_next_case_without_restart_each,
     .timeout = 600)
{
    char *out;
    int rc = run_three("quiet", "poison-quiet:3", "", &out);
    cr_expect_eq(rc, 1, "%s", out);
    expect_contains(out, "PASS 2, CRASH 1");
    expect_contains(out, "\nCRASH problem.2");
    free(out);
}

Test(exec_restart, iohw_exec_restart_each_gives_every_case_a_fresh_program,
     .timeout = 600)
{
    char *out;
    int rc = run_three("each-env", "poison-quiet:3", "IOHW_EXEC_RESTART=each",
                       &out);
    cr_expect_eq(rc, 0, "%s", out);
    expect_contains(out, "PASS 3");
    free(out);
}

Test(exec_restart, restart_each_in_the_describe_answer_does_the_same,
     .timeout = 600)
{
    char *out;
    int rc = run_three("each-describe", "poison-quiet:3",
                       "IOHW_TEST_SERVE_DESCRIBE='protocols=1 2 3|restart=each'",
                       &out);
    cr_expect_eq(rc, 0, "%s", out);
    expect_contains(out, "PASS 3");
    expect_contains(out, "exec protocol 3");
    free(out);
}

/* Killed by SIGABRT after writing OUT.h5 whole (a crash at interpreter
 * exit): y is judged, and the case carries the warning. */
static void expect_kept(const char *name, const char *env)
{
    char *out;
    int rc = run_three(name, "exit-crash", env, &out);
    cr_expect_eq(rc, 0, "%s", out);
    expect_contains(out, "PASS 3");
    expect_contains(out, "exec: y kept: the program was killed by signal 6");
    expect_contains(out, "after writing OUT.h5 whole");
    free(out);
}

Test(exec_restart, a_protocol_2_crash_after_a_whole_y_is_a_warning,
     .timeout = 600)
{
    expect_kept("kept2", "");
}

Test(exec_restart, a_protocol_1_crash_after_a_whole_y_is_a_warning,
     .timeout = 600)
{
    expect_kept("kept1", "IOHW_EXEC_PROTOCOL=1");
}
