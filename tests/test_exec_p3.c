/*
 * tests/test_exec_p3.c - exec protocol 3 in-process (backends/exec,
 * docs/EXEC_PROTOCOL.md "Protocol 3"), with tests/exec/serve_oracle.py:
 * supports() asked per problem for a program that says supports=problem
 * and once per class for one that does not, and no text cut to a fixed
 * size (names, versions, reasons, messages, paths: 4 KB strings).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "sandbox/loader.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"
#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define SERVE IOHW_SOURCE_DIR "/tests/exec/serve_oracle.py"

/* The 4 KB text serve_oracle.py's long and loud modes give. */
static char long_text[4097];

static void init_long(void)
{
    memset(long_text, 'L', 4093);
    memcpy(long_text + 4093, "END", 4);
}

/* Loads serve_oracle.py in mode, describe (may be NULL) added to its
 * --describe answer, its requests logged into log (may be NULL). */
static void load(const char *mode, const char *protocol, const char *describe,
                 const char *log, iohw_loaded_backend *lb)
{
    char command[2048];
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
    if (describe != NULL)
        cr_assert_eq(setenv("IOHW_TEST_SERVE_DESCRIBE", describe, 1), 0);
    if (log != NULL)
        cr_assert_eq(setenv("IOHW_TEST_SERVE_LOG", log, 1), 0);
    snprintf(command, sizeof command, PYTHON " " SERVE " %s %s", IOHW_BIN,
             mode);
    load_exec_program(command, protocol, lb);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %.300s", want, text);
}

/* The number of lines of the log that are `word`. */
static int logged(const char *log, const char *word)
{
    char *out = NULL;
    iohw_test_sh(&out, "grep -cx '%s' '%s'", word, log);
    int n = atoi(out);
    free(out);
    return n;
}

static void log_path(const char *tag, char *path, size_t n)
{
    snprintf(path, n, "%s/p3-%s-%d.log", IOHW_TEST_TMP, tag, (int)getpid());
    remove(path);
}

/* --- supports per problem ---------------------------------------------- */

/* co=2 and co=6 share a class (only sizes differ).  Asked per problem,
 * the program claims one and refuses the other, in either order. */
static void expect_per_problem(int pass_first)
{
    iohw_loaded_backend lb;
    char log[512];
    log_path("per", log, sizeof log);
    load("co-max:4", NULL, "protocols=1 2 3|supports=problem", log, &lb);
    expect_contains(lb.table->version, "exec protocol 3");
    const char *pass = "ci=2 co=2 in=4x4 k=3", *refused = "ci=2 co=6 in=4x4 k=3";
    for (int i = 0; i < 2; i++) {
        const char *which = (i == 0) == pass_first ? pass : refused;
        if (which == pass) {
            expect_pass(&lb, pass);
        } else {
            expect_unsupported_saying(&lb, refused, "co=6 is more than 4 "
                                                    "output channels");
            cr_expect(strstr(iohw_backend_last_error(&lb), "given for") ==
                      NULL, "%s", iohw_backend_last_error(&lb));
        }
    }
    /* Asked again, the answers come from the cache: one request each. */
    expect_unsupported(&lb, refused);
    expect_pass(&lb, pass);
    cr_expect_eq(logged(log, "supports"), 2);
    iohw_backend_unload(&lb);
    remove(log);
}

Test(exec_p3, per_problem_supports_claims_the_small_problem_first)
{
    expect_per_problem(1);
}

Test(exec_p3, per_problem_supports_refuses_the_large_problem_first)
{
    expect_per_problem(0);
}

/* Without supports=problem the class's first answer stands for the
 * class (the fast path): one request for both problems. */
Test(exec_p3, a_program_that_does_not_ask_is_asked_once_per_class)
{
    iohw_loaded_backend lb;
    char log[512];
    log_path("class", log, sizeof log);
    load("co-max:4", NULL, NULL, log, &lb);
    expect_contains(lb.table->version, "exec protocol 2");
    expect_pass(&lb, "ci=2 co=2 in=4x4 k=3");
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse("ci=2 co=6 in=4x4 k=3", &d, &err), 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK);
    cr_expect_eq(logged(log, "supports"), 1);
    iohw_backend_unload(&lb);
    remove(log);
}

/* --- no fixed-size text ------------------------------------------------- */

Test(exec_p3, a_4k_name_and_version_are_whole_and_the_protocol_is_named_first)
{
    iohw_loaded_backend lb;
    char want[4200];
    init_long();
    load("long", NULL, NULL, NULL, &lb);
    snprintf(want, sizeof want, "exec:%s", long_text);
    cr_expect_str_eq(lb.table->name, want);
    snprintf(want, sizeof want, "%s (exec protocol 2; ", long_text);
    cr_expect_eq(strncmp(lb.table->version, want, strlen(want)), 0, "%.80s",
                 lb.table->version);
    iohw_backend_unload(&lb);
}

Test(exec_p3, a_4k_refusal_reason_is_whole)
{
    iohw_loaded_backend lb;
    char want[4200];
    init_long();
    load("long", NULL, NULL, NULL, &lb);
    snprintf(want, sizeof want, "the program does not claim this problem: "
             "%s", long_text);
    expect_unsupported(&lb, "ci=2 co=5 in=4x4 k=3");
    cr_expect_str_eq(iohw_backend_last_error(&lb), want);
    iohw_backend_unload(&lb);
}

static int run_one(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_case c;
    make(desc, &c);
    cr_assert_eq(lb->table->supports(lb->ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(lb));
    float *y = malloc((size_t)iohw_problem_y_count(&c.p) * sizeof *y);
    cr_assert_not_null(y);
    int st = lb->table->run(lb->ctx, &c.p, c.x, c.w, c.bias, y);
    free(y);
    iohw_case_free(&c);
    return st;
}

Test(exec_p3, a_4k_error_message_is_whole)
{
    iohw_loaded_backend lb;
    char want[4200];
    init_long();
    load("long", NULL, NULL, NULL, &lb);
    cr_expect_eq(run_one(&lb, "ci=2 co=7 in=4x4 k=3"), IOHW_BACKEND_ERROR);
    snprintf(want, sizeof want, "/tests/exec/serve_oracle.py reported an "
             "error: %s", long_text);
    const char *msg = iohw_backend_last_error(&lb);
    cr_expect(strlen(msg) >= strlen(want) &&
              strcmp(msg + strlen(msg) - strlen(want), want) == 0,
              "%.200s", msg);
    /* Restarted after the error, the program serves the next case. */
    expect_pass(&lb, "ci=2 co=3 in=4x4 k=3");
    iohw_backend_unload(&lb);
}

Test(exec_p3, a_4k_protocol_1_output_is_whole)
{
    iohw_loaded_backend lb;
    init_long();
    load("loud", "1", NULL, NULL, &lb);
    cr_expect_eq(run_one(&lb, "ci=2 co=3 in=4x4 k=3"), IOHW_BACKEND_ERROR);
    const char *msg = iohw_backend_last_error(&lb);
    expect_contains(msg, "exited with status 1; its output: ");
    expect_contains(msg, long_text);
    iohw_backend_unload(&lb);
}

/* A folder about 4 KB deep holds the program and is TMPDIR: the command,
 * the label, the private files' paths are all whole. */
Test(exec_p3, a_4k_path_to_the_program_and_to_tmpdir_works)
{
    char dir[4096], seg[201], command[8192];
    iohw_loaded_backend lb;
    memset(seg, 'd', 200);
    seg[200] = '\0';
    int n = snprintf(dir, sizeof dir, "%s/p3-deep-%d", IOHW_TEST_TMP,
                     (int)getpid());
    while (n + 201 < 3900)
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%s", seg);
    cr_assert_eq(iohw_test_sh(NULL, "mkdir -p '%s' && cp '%s' '%s/prog.py'",
                              dir, SERVE, dir), 0);
    cr_assert_eq(setenv("TMPDIR", dir, 1), 0);
    snprintf(command, sizeof command, PYTHON " %s/prog.py %s good", dir,
             IOHW_BIN);
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
    load_exec_program(command, NULL, &lb);
    char want[8300];
    snprintf(want, sizeof want, "1.0 (exec protocol 2; %s)", command);
    cr_expect_str_eq(lb.table->version, want);
    expect_pass(&lb, "ci=2 co=3 in=4x4 k=3");
    iohw_backend_unload(&lb);
    unsetenv("TMPDIR");
    iohw_test_sh(NULL, "rm -rf '%s/p3-deep-%d'", IOHW_TEST_TMP, (int)getpid());
}
