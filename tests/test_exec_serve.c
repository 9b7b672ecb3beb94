/*
 * tests/test_exec_serve.c - the exec backend's protocol 2 and --describe
 * (backends/exec, docs/EXEC_PROTOCOL.md), with tests/exec/serve_oracle.py
 * (python3 only: it computes through `iohw oracle`), whose MODE argument
 * makes it serve well, die, hang, answer garbage, report an error or
 * refuse.  A program's death or hang ends the process that asked, so those
 * run through `iohw run`; the others run in-process through the loader.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "harness/run.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"
#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define SERVE IOHW_SOURCE_DIR "/tests/exec/serve_oracle.py"

static void skip_without_python(void)
{
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
}

/* Loads the exec adapter running serve_oracle.py in mode (IOHW_EXEC_PROTOCOL
 * set to protocol, or unset for NULL). */
static void load_serve(const char *mode, const char *protocol,
                       iohw_loaded_backend *lb)
{
    char command[2048];
    skip_without_python();
    snprintf(command, sizeof command, PYTHON " " SERVE " %s %s", IOHW_BIN, mode);
    load_exec_program(command, protocol, lb);
}

static void expect_contains(const char *text, const char *want)
{
    cr_expect(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}

Test(exec_serve, a_program_that_speaks_protocol_2_passes_every_dtype)
{
    iohw_loaded_backend lb;
    load_serve("good", NULL, &lb);
    cr_expect_str_eq(lb.table->name, "exec:serve-oracle");
    expect_contains(lb.table->version, "1.0 (");
    expect_contains(lb.table->version, "exec protocol 2");
    expect_pass(&lb, "n=3 ci=2 co=4 g=2 in=6x3 k=2x3 s=1x2 d=2x1 pad=0:1x1:0 "
                     "op=0x1 bias=1 xl=NCHW wl=HWIO");
    expect_pass(&lb, "ci=5 co=2 in=7 k=3 s=2 pad=1:2 op=1 dt=f64");
    expect_pass(&lb, "ci=4 co=6 g=2 in=4x3 k=3x2 s=2x3 wl=GIOHW xl=NHWC "
                     "bias=1 dt=f16");
    expect_pass(&lb, "ci=2 co=2 in=3x3x4 k=2x2x3 s=1x2x1 dt=bf16 xl=NCDHW "
                     "wl=DHWOI");
    iohw_backend_unload(&lb);
}

Test(exec_serve, the_host_can_ask_for_protocol_1)
{
    iohw_loaded_backend lb;
    load_serve("good", "1", &lb);
    expect_contains(lb.table->version, "exec protocol 1");
    expect_pass(&lb, "ci=2 co=3 in=4x4 k=3 s=2 bias=1");
    iohw_backend_unload(&lb);
}

Test(exec_serve, a_program_without_a_describe_answer_is_named_by_its_file)
{
    char prog[1024];
    iohw_loaded_backend lb;
    snprintf(prog, sizeof prog, "%s/exec-quiet-%d.sh", IOHW_TEST_TMP,
             (int)getpid());
    FILE *f = fopen(prog, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\n[ \"$1\" = --describe ] && exit 2\nexit 0\n");
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(prog, 0755), 0);
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", prog, 1), 0);
    cr_assert_eq(unsetenv("IOHW_EXEC_PROTOCOL"), 0);
    load_or_skip("iohw_exec", &lb);
    char want[128];
    snprintf(want, sizeof want, "exec:exec-quiet-%d.sh", (int)getpid());
    cr_expect_str_eq(lb.table->name, want);
    expect_contains(lb.table->version, "no --describe answer");
    expect_contains(lb.table->version, "exec protocol 1");
    iohw_backend_unload(&lb);
    remove(prog);
}

/* Under protocol 2 a program that cannot be executed fails the query
 * (an ERROR of the case), as under protocol 1; it does not end us. */
Test(exec_serve, a_program_that_does_not_exist_fails_the_query)
{
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", IOHW_TEST_TMP "/no-such-program",
                        1), 0);
    cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", "2", 1), 0);
    load_or_skip("iohw_exec", &lb);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x4 k=3", &d, &err), 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_BACKEND_ERROR);
    expect_contains(iohw_backend_last_error(&lb), "status 127");
    expect_contains(iohw_backend_last_error(&lb), "cannot execute");
    iohw_backend_unload(&lb);
}

/* Runs the case on a claimed problem; returns run()'s status, the
 * message in msg. */
static int run_one(const iohw_loaded_backend *lb, const char *desc, char *msg,
                   size_t n)
{
    iohw_case c;
    make(desc, &c);
    cr_assert_eq(lb->table->supports(lb->ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(lb));
    float *y = malloc((size_t)iohw_problem_y_count(&c.p) * sizeof *y);
    cr_assert_not_null(y);
    int st = lb->table->run(lb->ctx, &c.p, c.x, c.w, c.bias, y);
    snprintf(msg, n, "%s", iohw_backend_last_error(lb));
    free(y);
    iohw_case_free(&c);
    return st;
}

Test(exec_serve, a_garbage_answer_is_an_error_naming_the_program)
{
    iohw_loaded_backend lb;
    char msg[1024];
    load_serve("garbage", NULL, &lb);
    for (int i = 0; i < 2; i++) {  /* the second one by a fresh program */
        cr_expect_eq(run_one(&lb, "ci=2 co=3 in=4x4 k=3", msg, sizeof msg),
                     IOHW_BACKEND_ERROR);
        expect_contains(msg, "serve_oracle.py answered garbage");
        expect_contains(msg, "it began \"hell\"");
    }
    iohw_backend_unload(&lb);
}

Test(exec_serve, an_error_answer_is_an_error_with_the_programs_message)
{
    iohw_loaded_backend lb;
    char msg[1024];
    load_serve("error", NULL, &lb);
    cr_expect_eq(run_one(&lb, "ci=2 co=3 in=4x4 k=3", msg, sizeof msg),
                 IOHW_BACKEND_ERROR);
    expect_contains(msg, "serve_oracle.py reported an error: no kernel for "
                         "this problem");
    iohw_backend_unload(&lb);
}

/* A refusal given for one problem, quoted on another of its class, says
 * which problem its numbers are about. */
Test(exec_serve, a_cached_refusal_names_the_problem_it_was_given_for)
{
    iohw_loaded_backend lb;
    iohw_desc a, b;
    iohw_error err;
    load_serve("refuse", NULL, &lb);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=5 k=3 s=2 op=2", &a, &err), 0);
    cr_assert_eq(iohw_desc_parse("ci=4 co=1 in=9 k=2 s=3 op=4", &b, &err), 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &a.p), IOHW_UNSUPPORTED);
    const char *why = iohw_backend_last_error(&lb);
    expect_contains(why, "output_padding 2 is not below stride 2");
    cr_expect(strstr(why, "given for") == NULL, "%s", why);
    cr_expect_eq(lb.table->supports(lb.ctx, &b.p), IOHW_UNSUPPORTED);
    why = iohw_backend_last_error(&lb);
    expect_contains(why, "output_padding 2 is not below stride 2");
    expect_contains(why, "given for n=1 ci=2 co=3");
    iohw_backend_unload(&lb);
}

/* output_padding 1 and 2 with stride 2 and dilation 3 share every other
 * bit of the class (both below max(stride, dilation)): a program that
 * refuses output_padding >= stride is asked about each. */
Test(exec_serve, output_padding_at_the_stride_is_a_class_of_its_own)
{
    iohw_loaded_backend lb;
    load_serve("op-below-stride", NULL, &lb);
    expect_pass(&lb, "ci=2 co=3 in=5 k=3 s=2 d=3 op=1");
    expect_unsupported(&lb, "ci=2 co=3 in=5 k=3 s=2 d=3 op=2");
    expect_contains(iohw_backend_last_error(&lb), "output_padding 2 >= stride 2");
    iohw_backend_unload(&lb);
}

/* --describe lists NHWC and HWOI: others are refused without asking. */
Test(exec_serve, layouts_the_program_does_not_list_are_refused_with_why)
{
    iohw_loaded_backend lb;
    load_serve("layouts", NULL, &lb);
    expect_pass(&lb, "ci=2 co=3 in=4x4 k=3 xl=NHWC wl=HWOI");
    expect_unsupported(&lb, "ci=2 co=3 in=4x4 k=3 xl=NCHW wl=HWOI");
    expect_contains(iohw_backend_last_error(&lb), "takes the data layouts NHWC");
    expect_unsupported(&lb, "ci=2 co=3 in=4x4 k=3 xl=NHWC wl=OIHW");
    expect_contains(iohw_backend_last_error(&lb), "weight layouts HWOI");
    iohw_backend_unload(&lb);
}

/* --- through iohw run ------------------------------------------------------ */

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Runs iohw run on two cases (2-d, NCHW / IOHW, two classes) with
 * serve_oracle.py in mode, its requests logged, and a 300 s limit (a
 * loaded machine's; opts may set a shorter one); the output in *out, the
 * number of requests whose log line is `counted` in *asked. */
static int run_two(const char *name, const char *mode, const char *opts,
                   const char *counted, int *asked, char **out)
{
    char dir[512], *log = NULL;
    skip_without_python();
    snprintf(dir, sizeof dir, "%s/serve-%d-%s", IOHW_TEST_TMP, (int)getpid(),
             name);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s' && '%s' gen "
                              "-o '%s/t.h5' --problem 'ci=2 co=3 in=5x4 k=3' "
                              "--problem 'ci=2 co=2 in=4x6 k=2 s=2' "
                              ">/dev/null", dir, dir, IOHW_BIN, dir), 0);
    int rc = iohw_test_sh(out, "cd '%s' && TMPDIR='%s' IOHW_TEST_SERVE_LOG=log "
                          "IOHW_EXEC_COMMAND='" PYTHON " " SERVE " %s %s' '%s' "
                          "run --backend '%s/libiohw_exec.so' t.h5 --jobs 1 "
                          "--timeout 300 %s "
                          "2>&1", dir, dir, IOHW_BIN, mode, IOHW_BIN,
                          IOHW_BACKEND_DIR, opts);
    iohw_test_sh(&log, "cat '%s/log'", dir);
    char line[64];
    snprintf(line, sizeof line, "\n%s\n", counted);
    char *text = malloc(strlen(log) + 2);
    cr_assert_not_null(text);
    snprintf(text, strlen(log) + 2, "\n%s", log);
    *asked = count(text, line);
    free(text);
    free(log);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
    return rc;
}

Test(exec_serve, a_program_that_dies_is_that_cases_crash_and_a_fresh_one_runs_on)
{
    char *out;
    int runs;
    int rc = run_two("dies", "die:marker", "", "run", &runs, &out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_eq(count(out, "\nCRASH problem.0"), 1, "%s", out);
    expect_contains(out, "killed by signal SIGSEGV");
    expect_contains(out, "PASS 1, CRASH 1");
    expect_contains(out, "backend: exec:serve-oracle");
    cr_expect_eq(runs, 2, "%d run requests", runs);
    free(out);
}

Test(exec_serve, a_program_that_hangs_is_a_timeout, .timeout = 300)
{
    char *out;
    int runs;
    /* 20 s: the program must start and answer supports() within the limit
     * on a loaded machine under ASan too, so that only run() hangs. */
    int rc = run_two("hangs", "hang", "--timeout 20", "run", &runs, &out);
    cr_expect_eq(rc, 1, "%s", out);
    expect_contains(out, "TIMEOUT 2");
    expect_contains(out, "run() did not return within");
    free(out);
}

/* --adapt-layout takes both cases to NHWC / HWOI, the one pair the program
 * lists: one query per class, none for the pairs tried before it. */
static void expect_adapted_asking_once(const char *protocol, const char *query)
{
    char *out;
    int asked;
    cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", protocol, 1), 0);
    int rc = run_two(protocol[0] == '1' ? "adapt1" : "adapt2", "layouts",
                     "--adapt-layout", query, &asked, &out);
    cr_expect_eq(rc, 0, "%s", out);
    expect_contains(out, "PASS 2");
    cr_expect_eq(asked, 2, "%d supports queries for 2 classes: %s", asked, out);
    free(out);
}

Test(exec_serve, adapt_layout_asks_protocol_1_programs_once_per_class)
{
    expect_adapted_asking_once("1", "--supports");
}

Test(exec_serve, adapt_layout_asks_protocol_2_programs_once_per_class)
{
    expect_adapted_asking_once("2", "supports");
}

/* --- memory --------------------------------------------------------------- */

/* A program is held to its resident memory: one that fills 300 MiB under
 * a limit of 100 MiB is killed, and the message says which limit. */
Test(exec_serve, a_protocol_1_program_over_the_memory_limit_is_killed_and_told)
{
    iohw_loaded_backend lb;
    char msg[1024];
    cr_assert_eq(setenv("IOHW_EXEC_MEMORY_LIMIT_MB", "100", 1), 0);
    load_serve("hog:300", "1", &lb);
    cr_expect_eq(run_one(&lb, "ci=2 co=3 in=4x4 k=3", msg, sizeof msg),
                 IOHW_BACKEND_ERROR);
    expect_contains(msg, "killed by signal 9");
    expect_contains(msg, "resident memory reached");
    expect_contains(msg, "over the limit of 100 MiB");
    iohw_backend_unload(&lb);
}

Test(exec_serve, a_protocol_2_program_over_the_memory_limit_is_that_cases_crash)
{
    char *out;
    int runs;
    cr_assert_eq(setenv("IOHW_EXEC_MEMORY_LIMIT_MB", "100", 1), 0);
    int rc = run_two("hog", "hog:300", "--json report.json; cat report.json",
                     "run", &runs, &out);
    cr_expect_eq(rc, 0, "%s", out);  /* the status of cat */
    cr_expect_eq(count(out, "\nCRASH problem."), 2, "%s", out);
    expect_contains(out, "serve_oracle.py: resident memory 1");
    expect_contains(out, "MiB > limit 100 MiB, killed");
    free(out);
}

/* Under --memory-limit (address space, for the worker) a program may
 * reserve more address space than the limit, as V8 does for WebAssembly:
 * it is held to resident memory instead. */
Test(exec_serve, a_program_may_reserve_more_address_space_than_the_limit)
{
    char *out;
    int runs;
    if (!iohw_run_memory_limit_works())
        cr_skip_test("--memory-limit is not enforced in this build (ASan)");
    int rc = run_two("reserve", "reserve", "--memory-limit 2048", "run",
                     &runs, &out);
    cr_expect_eq(rc, 0, "%s", out);
    expect_contains(out, "PASS 2");
    free(out);
}
