/*
 * tests/support/adapter_asserts.h - Criterion assertions shared by the
 * adapter tests (test_adapters.c, test_exec.c): loading an adapter or
 * skipping when it was not built, and expecting a case to pass or to be
 * refused.  Header-only because the assertions are Criterion macros that
 * must run inside the test.
 */
#ifndef IOHW_TEST_ADAPTER_ASSERTS_H
#define IOHW_TEST_ADAPTER_ASSERTS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "support/adapter_check.h"

/* Loads lib<name>.so from the build's backend folder, or skips the test
 * when the adapter was not built (its library is missing). */
static inline void load_or_skip(const char *name, iohw_loaded_backend *lb)
{
    char path[1024];
    iohw_error err;
    snprintf(path, sizeof path, "%s/lib%s.so", IOHW_BACKEND_DIR, name);
    if (access(path, F_OK) != 0)
        cr_skip_test("%s was not built (its library was not found)", path);
    cr_assert_eq(iohw_backend_load(path, lb, &err), 0, "%s", err.msg);
}

/* Writes an executable shell script (#!/bin/sh, then body) into the
 * scratch folder as exec-TAG-PID.sh, for the exec adapter to run, and
 * returns its path. */
static inline void exec_script(const char *tag, const char *body, char *path,
                               size_t n)
{
    snprintf(path, n, "%s/exec-%s-%d.sh", IOHW_TEST_TMP, tag, (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fprintf(f, "#!/bin/sh\n%s", body);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* Loads the exec adapter running command (IOHW_EXEC_COMMAND), with
 * IOHW_EXEC_PROTOCOL set to protocol, or unset for NULL (the program's
 * --describe answer decides). */
static inline void load_exec_program(const char *command, const char *protocol,
                                     iohw_loaded_backend *lb)
{
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", command, 1), 0);
    if (protocol != NULL)
        cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", protocol, 1), 0);
    else
        cr_assert_eq(unsetenv("IOHW_EXEC_PROTOCOL"), 0);
    load_or_skip("iohw_exec", lb);
}

/* Builds a case from a descriptor; aborts the test on failure. */
static inline void make(const char *desc, iohw_case *c)
{
    iohw_error err;
    cr_assert_eq(iohw_test_make_case(desc, c, &err), 0, "%s", err.msg);
}

/* Runs a claimed case and judges it; the inputs must be left alone. */
static inline void run_case(const iohw_loaded_backend *lb, const iohw_case *c,
                     iohw_result *r)
{
    iohw_error err;
    int changed;
    cr_assert_eq(iohw_test_run_case(lb, c, r, &changed, &err), 0, "%s",
                 err.msg);
    cr_expect(!changed, "%s wrote into its inputs on '%s'", lb->table->name,
              c->descriptor);
}

/* The adapter claims the case and its output matches the oracle. */
static inline void expect_pass(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_case c;
    iohw_result r;
    char text[2048];
    make(desc, &c);
    int st = lb->table->supports(lb->ctx, &c.p);
    cr_expect_eq(st, IOHW_OK, "%s does not claim '%s': %s", lb->table->name,
                 desc, iohw_backend_last_error(lb));
    if (st == IOHW_OK) {
        run_case(lb, &c, &r);
        cr_expect_eq(r.status, IOHW_RESULT_PASS, "%s on '%s': %s",
                     lb->table->name, desc,
                     iohw_test_describe(&r, text, sizeof text));
    }
    iohw_case_free(&c);
}

/* The adapter refuses the case, with a reason. */
static inline void expect_unsupported(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "'%s': %s", desc,
                 err.msg);
    cr_expect_eq(lb->table->supports(lb->ctx, &d.p), IOHW_UNSUPPORTED,
                 "%s should not claim '%s'", lb->table->name, desc);
    cr_expect_str_not_empty(iohw_backend_last_error(lb),
                            "%s refuses '%s' without a reason",
                            lb->table->name, desc);
}

/* The same, with a reason that contains why. */
static inline void expect_unsupported_saying(const iohw_loaded_backend *lb,
                                             const char *desc, const char *why)
{
    expect_unsupported(lb, desc);
    cr_expect(strstr(iohw_backend_last_error(lb), why) != NULL,
              "'%s' refused with '%s', which does not say '%s'", desc,
              iohw_backend_last_error(lb), why);
}

#endif
