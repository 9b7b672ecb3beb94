/*
 * tests/test_exec.c - the exec backend (backends/exec, docs/EXEC_PROTOCOL.md)
 * in-process through the loader, with the programs it runs:
 *   - a shell wrapper around `iohw oracle` (always available): every dtype
 *     passes through the files exactly (judged against the oracle by
 *     judge/compare.c);
 *   - shell scripts that misbehave (refuse, fail with a message, die by a
 *     signal, write nothing, write a file that is not HDF5 or a y of the
 *     wrong shape): each is refused or reported as the protocol says;
 *   - backends/python/torch_backend.py, only when /usr/bin/python3 imports
 *     torch and h5py.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"

/* Loads the exec adapter with IOHW_EXEC_COMMAND set to command (or unset
 * for NULL); init reads it.  Each test runs in its own process. */
static void load_exec(const char *command, iohw_loaded_backend *lb)
{
    if (command != NULL)
        cr_assert_eq(setenv("IOHW_EXEC_COMMAND", command, 1), 0);
    else
        cr_assert_eq(unsetenv("IOHW_EXEC_COMMAND"), 0);
    load_or_skip("iohw_exec", lb);
}

/* The exec protocol wrapped around `iohw oracle`: claims everything. */
static const char ORACLE_BODY[] =
    "if [ \"$1\" = --supports ]; then exit 0; fi\n"
    "exec \"" IOHW_BIN "\" oracle \"$1\" -o \"$2\" >/dev/null\n";

Test(exec, passes_every_dtype_through_a_program_that_runs_the_oracle)
{
    char prog[1024];
    iohw_loaded_backend lb;
    exec_script("oracle", ORACLE_BODY, prog, sizeof prog);
    load_exec(prog, &lb);
    expect_pass(&lb, "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 "
                     "op=1x0 bias=1 xl=NHWC wl=OIHW");
    expect_pass(&lb, "ci=3 co=5 in=9 k=4 s=3 pad=2:1 op=2 dt=f64 bias=1");
    expect_pass(&lb, "ci=6 co=9 g=3 in=3x5 k=2x3 s=3x2 wl=GOIHW xl=CHWN "
                     "bias=1 dt=f16");
    expect_pass(&lb, "ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 "
                     "xl=NDHWC wl=GOIDHW bias=1");
    expect_pass(&lb, "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 fill=special bias=1");
    iohw_backend_unload(&lb);
    remove(prog);
}

/* A query that cannot be answered is an error of the backend, not a
 * refusal (iohw run makes the case ERROR), with a reason. */
static void expect_query_error(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "'%s': %s", desc, err.msg);
    cr_expect_eq(lb->table->supports(lb->ctx, &d.p), IOHW_BACKEND_ERROR,
                 "a failed query on '%s' should be IOHW_BACKEND_ERROR", desc);
    cr_expect_str_not_empty(iohw_backend_last_error(lb), "no reason for '%s'", desc);
}

/* Without a program nothing is claimed: UNSUPPORTED with the reason
 * docs/EXEC_PROTOCOL.md gives. */
static void expect_refused_without_command(const char *command, const char *why)
{
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_error err;
    load_exec(command, &lb);
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x4 k=3", &d, &err), 0, "%s", err.msg);
    cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_UNSUPPORTED);
    cr_expect_str_eq(iohw_backend_last_error(&lb), why);
    iohw_backend_unload(&lb);
}

Test(exec, refuses_every_problem_when_no_command_is_set)
{
    expect_refused_without_command(NULL, "IOHW_EXEC_COMMAND is not set");
    expect_refused_without_command(" ", "IOHW_EXEC_COMMAND is empty");
}

Test(exec, a_query_that_fails_is_an_error_asked_once_per_class)
{
    char prog[1024], count[1024], body[2048];
    iohw_loaded_backend lb;
    snprintf(count, sizeof count, "%s/exec-count-%d", IOHW_TEST_TMP,
             (int)getpid());
    snprintf(body, sizeof body,
             "[ \"$1\" = --describe ] && exit 1\n"
             "echo asked >> \"%s\"\n"
             "echo \"only 2-d here\"\n"
             "exit 1\n", count);
    exec_script("refuse", body, prog, sizeof prog);
    remove(count);
    load_exec(prog, &lb);

    /* Two problems of one class (sizes differ), then another class. */
    expect_query_error(&lb, "ci=2 co=3 in=5 k=3");
    cr_expect(strstr(iohw_backend_last_error(&lb), "only 2-d here") != NULL,
              "the reason quotes the program: %s",
              iohw_backend_last_error(&lb));
    expect_query_error(&lb, "ci=4 co=1 in=9 k=2");
    expect_query_error(&lb, "ci=4 co=1 in=9 k=2 s=2");
    FILE *f = fopen(count, "r");
    cr_assert_not_null(f);
    int lines = 0;
    for (int ch; (ch = fgetc(f)) != EOF;)
        lines += ch == '\n';
    fclose(f);
    cr_expect_eq(lines, 2, "the program was asked %d times for 2 classes",
                 lines);
    remove(count);
    remove(prog);
    iohw_backend_unload(&lb);
}

/* Runs a claimed case whose program misbehaves; returns run()'s status and
 * leaves the message in msg. */
static int run_misbehaving(const char *body, char *msg, size_t n)
{
    char prog[1024];
    iohw_loaded_backend lb;
    iohw_case c;
    exec_script("bad", body, prog, sizeof prog);
    load_exec(prog, &lb);
    make("ci=2 co=3 in=4x4 k=3 bias=1", &c);
    cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    const size_t ny = (size_t)iohw_problem_y_count(&c.p);
    float *y = malloc(ny * sizeof *y);
    cr_assert_not_null(y);
    int st = lb.table->run(lb.ctx, &c.p, c.x, c.w, c.bias, y);
    snprintf(msg, n, "%s", iohw_backend_last_error(&lb));
    free(y);
    iohw_case_free(&c);
    remove(prog);
    iohw_backend_unload(&lb);
    return st;
}

/* A program failing with this body is an IOHW_BACKEND_ERROR whose message
 * holds every text of want (NULL-terminated) and is at most the output
 * kept (8192 bytes from the start, 2048 from the end) and a few words. */
static void expect_failure_mentions(const char *body, const char *const *want)
{
    static char msg[16384];
    int st = run_misbehaving(body, msg, sizeof msg);
    cr_expect_eq(st, IOHW_BACKEND_ERROR);
    for (; *want != NULL; want++)
        cr_expect(strstr(msg, *want) != NULL, "no '%s' in: %.300s", *want,
                  msg);
    cr_expect_lt(strlen(msg), 8192 + 2048 + 400, "%.300s", msg);
}

Test(exec, reports_a_failing_program_with_the_end_of_its_output)
{
    static const char *const want[] = {"exited with status 3",
                                       "boom: no kernel for this", NULL};
    expect_failure_mentions("[ \"$1\" = --supports ] && exit 0\n"
                            "echo starting\n"
                            "echo 'boom: no kernel for this' >&2\n"
                            "exit 3\n", want);
}

/* The reason a program gives is usually at the top: a long output keeps
 * its first lines as well as its last, and says that some is left out
 * (800 lines of 24 bytes, of which 10240 bytes are kept). */
Test(exec, reports_the_first_and_last_lines_of_a_long_output)
{
    static const char *const want[] = {"exited with status 4",
                                       "FIRST: the device cannot be opened",
                                       "LAST: giving up", "bytes ...]", NULL};
    expect_failure_mentions("[ \"$1\" = --supports ] && exit 0\n"
                            "echo 'FIRST: the device cannot be opened' >&2\n"
                            "i=0; while [ $i -lt 800 ]; do "
                            "echo 'noise noise noise noise'; i=$((i+1)); done\n"
                            "echo 'LAST: giving up'\n"
                            "exit 4\n", want);
}

Test(exec, reports_a_program_killed_by_a_signal)
{
    char msg[1024];
    int st = run_misbehaving("[ \"$1\" = --supports ] && exit 0\n"
                             "kill -SEGV $$\n", msg, sizeof msg);
    cr_expect_eq(st, IOHW_BACKEND_ERROR);
    cr_expect(strstr(msg, "signal 11") != NULL, "%s", msg);
}

Test(exec, reports_a_program_that_writes_no_output)
{
    char msg[1024];
    int st = run_misbehaving("exit 0\n", msg, sizeof msg);
    cr_expect_eq(st, IOHW_BACKEND_ERROR);
    cr_expect(strstr(msg, "wrote no") != NULL, "%s", msg);
}

Test(exec, reports_an_output_that_is_not_hdf5)
{
    char msg[1024];
    int st = run_misbehaving("[ \"$1\" = --supports ] && exit 0\n"
                             "echo 'not hdf5' > \"$2\"\n", msg, sizeof msg);
    cr_expect_eq(st, IOHW_BACKEND_ERROR);
    cr_expect(strstr(msg, "cannot open") != NULL, "%s", msg);
}

Test(exec, reports_an_output_of_the_wrong_shape)
{
    char msg[1024], body[2048];
    /* The oracle's answer to another problem (in 4x5 instead of 4x4). */
    snprintf(body, sizeof body,
             "[ \"$1\" = --supports ] && exit 0\n"
             "exec \"%s\" gen --problem 'ci=2 co=3 in=4x5 k=3 bias=1' "
             "-o \"$2\" >/dev/null\n", IOHW_BIN);
    int st = run_misbehaving(body, msg, sizeof msg);
    cr_expect_eq(st, IOHW_BACKEND_ERROR);
    cr_expect(strstr(msg, "y") != NULL && strstr(msg, "elements") != NULL,
              "%s", msg);
}

Test(exec, a_program_that_does_not_exist_fails_the_query)
{
    iohw_loaded_backend lb;
    load_exec(IOHW_TEST_TMP "/no-such-program", &lb);
    expect_query_error(&lb, "ci=2 co=3 in=4x4 k=3");
    cr_expect(strstr(iohw_backend_last_error(&lb), "executed") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}

/* --- backends/python/torch_backend.py ------------------------------------- */

#define PYTHON "/usr/bin/python3"
#define TORCH_PROGRAM IOHW_SOURCE_DIR "/backends/python/torch_backend.py"

static void skip_without_torch(void)
{
    if (access(PYTHON, X_OK) != 0 ||
        system(PYTHON " -c 'import torch, h5py' >/dev/null 2>&1") != 0)
        cr_skip_test(PYTHON " cannot import torch and h5py");
}

/* The program runs with torch.backends.mkldnn off (IOHW_TORCH_MKLDNN=0, it
 * inherits the environment): torch then takes the same kernels on every
 * x86-64 CPU.  With mkldnn on, torch 1.13 on AVX-512 CPUs sends bf16 to
 * mkldnn's forward convolution (docs/CONFORMANCE.md, T1), so whether the
 * bf16 case below is claimed would depend on the machine. */
Test(exec, the_pytorch_program_matches_the_oracle, .timeout = 300)
{
    iohw_loaded_backend lb;
    skip_without_torch();
    cr_assert_eq(setenv("IOHW_TORCH_MKLDNN", "0", 1), 0);
    load_exec(PYTHON " " TORCH_PROGRAM, &lb);

    /* Claimed: f32 and f64, the emulations, grouped layouts, NaN and Inf. */
    expect_pass(&lb, "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 "
                     "op=1x0 bias=1 xl=NHWC wl=GOHWI");
    expect_pass(&lb, "ci=2 co=3 in=4 k=2 s=1 op=5 pad=3:0 bias=1 xl=CWN");
    expect_pass(&lb, "ci=4 co=6 g=2 in=3x2x3 k=2 s=2x1x2 d=1x2x1 dt=f64 "
                     "wl=GIODHW xl=DHWNC bias=1 pad=1:0x0x0:1 op=1x1x0");
    expect_pass(&lb, "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 fill=special bias=1 "
                     "wl=HWOI");

    /* bf16: claimed only when this torch computes it, then correct. */
    iohw_case c;
    iohw_result r;
    char text[2048];
    make("ci=4 co=2 g=2 in=7 k=5 s=2 d=3 pad=4:2 op=1 dt=bf16 bias=1 "
         "xl=NWC wl=GIOW", &c);
    if (lb.table->supports(lb.ctx, &c.p) == IOHW_OK) {
        run_case(&lb, &c, &r);
        cr_expect_eq(r.status, IOHW_RESULT_PASS, "bf16: %s",
                     iohw_test_describe(&r, text, sizeof text));
    } else {
        cr_expect(strstr(iohw_backend_last_error(&lb), "bf16") != NULL,
                  "bf16 refused for another reason: %s",
                  iohw_backend_last_error(&lb));
    }
    iohw_case_free(&c);
    iohw_backend_unload(&lb);
}

/* The program speaks both protocols: 2 unless the host asks for 1. */
Test(exec, the_pytorch_program_serves_either_protocol, .timeout = 300)
{
    static const char *const protocols[] = {"1", "2"};
    skip_without_torch();
    for (int i = 0; i < 2; i++) {
        iohw_loaded_backend lb;
        char want[32];
        cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", protocols[i], 1), 0);
        load_exec(PYTHON " " TORCH_PROGRAM, &lb);
        snprintf(want, sizeof want, "exec protocol %s", protocols[i]);
        cr_expect(strstr(lb.table->version, want) != NULL, "%s",
                  lb.table->version);
        cr_expect(strstr(lb.table->version, "torch 1.") != NULL ||
                  strstr(lb.table->version, "torch 2.") != NULL, "%s",
                  lb.table->version);
        cr_expect_str_eq(lb.table->name, "exec:torch_backend.py");
        expect_pass(&lb, "ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 "
                         "bias=1 xl=NHWC wl=GOHWI");
        iohw_backend_unload(&lb);
    }
}

/* A library exception is reported through the protocol (status 1, one
 * line naming torch's version and the error), never as a traceback.  The
 * exception here is h5py's, for an input that does not exist: the same on
 * every machine. */
Test(exec, the_pytorch_program_reports_an_exception_in_one_line)
{
    char out[4096] = "";
    skip_without_torch();
    FILE *p = popen(PYTHON " " TORCH_PROGRAM " " IOHW_TEST_TMP
                    "/no-such-input.h5 " IOHW_TEST_TMP "/out.h5 2>&1", "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "wait status %d: %s", st, out);
    cr_expect(strstr(out, "Traceback") == NULL, "%s", out);
    cr_expect(strncmp(out, "torch_backend.py: ", 18) == 0, "%s", out);
    cr_expect(strchr(out, '\n') == out + n - 1, "more than one line: %s", out);
}

/* Natively (mkldnn as torch ships it), the program never crops a tensor of
 * the wrong shape into y: on CPUs where torch 1.13 takes the mkldnn bf16
 * path (AVX-512 BW, VL and DQ) the grouped 3-d case is an ERROR naming both
 * shapes; elsewhere torch has no bf16 kernel and it is refused. */
Test(exec, the_pytorch_program_reports_a_wrong_shape_natively)
{
    iohw_loaded_backend lb;
    iohw_case c;
    iohw_result r;
    char text[2048];
    skip_without_torch();
    cr_assert_eq(unsetenv("IOHW_TORCH_MKLDNN"), 0);
    load_exec(PYTHON " " TORCH_PROGRAM, &lb);
    make("ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC "
         "wl=GOIDHW fill=exact", &c);
    if (lb.table->supports(lb.ctx, &c.p) == IOHW_OK) {
        run_case(&lb, &c, &r);
        cr_expect(r.status == IOHW_RESULT_PASS ||
                      (r.status == IOHW_RESULT_ERROR &&
                       strstr(r.message, "where [1,4,7,9,10] is right") != NULL &&
                       strstr(r.message, "Traceback") == NULL),
                  "%s", iohw_test_describe(&r, text, sizeof text));
    } else {
        cr_expect(strstr(iohw_backend_last_error(&lb), "bf16") != NULL, "%s",
                  iohw_backend_last_error(&lb));
    }
    iohw_case_free(&c);
    iohw_backend_unload(&lb);
}
