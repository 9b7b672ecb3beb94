/*
 * tests/test_exec_quant.c - quantized cases (specification section 11)
 * through the exec protocol (docs/EXEC_PROTOCOL.md, "Quantized cases"):
 *   - a shell wrapper around `iohw oracle` that declares quantized=1 gets
 *     IN.h5 with the quantization block and its y back exactly, through
 *     run_quant(), in both forms of M and every output type;
 *   - programs that do not declare it (protocol 1 and 2) are UNSUPPORTED
 *     with the reason, without being asked;
 *   - replies of the wrong type or length are an ERROR naming the dataset;
 *     run() and run_quant() refuse a problem of the other kind;
 *   - backends/python/torch_backend.py (its quantized half is
 *     backends/python/quant_plain.py, plain numpy written from section 11)
 *     passes every quantized smoke case and exact ties of every rounding
 *     mode, and with IOHW_EXAMPLE_QUANT_FAULT=zp_x fails with the
 *     diagnosis "x's zero point not subtracted"; only when /usr/bin/python3
 *     imports torch and h5py.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "reports/reports.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"
#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define TORCH_PROGRAM IOHW_SOURCE_DIR "/backends/python/torch_backend.py"
#define SERVE IOHW_SOURCE_DIR "/tests/exec/serve_oracle.py"

/* The protocol around `iohw oracle`, declaring quantized support. */
static const char QORACLE_BODY[] =
    "if [ \"$1\" = --describe ]; then echo name=qoracle; echo quantized=1; "
    "exit 0; fi\n"
    "if [ \"$1\" = --supports ]; then exit 0; fi\n"
    "exec \"" IOHW_BIN "\" oracle \"$1\" -o \"$2\" >/dev/null\n";

/* Quantized problems over the parameters IN.h5 carries: both forms of M,
 * per tensor and per channel, every rounding mode, s8/u8/s32 y, mixed
 * types, zero points, groups and layouts. */
static const char *const QUANT_CASES[] = {
    "ci=2 co=3 in=5x4 k=3 s=2 dt=s8 zp=3,-2,0 bias=1 xl=NHWC wl=OHWI",
    "n=2 ci=4 co=6 g=2 in=5x3 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=u8 wdt=s8 "
    "ydt=u8 zp=128,7,0 pc=1 round=half_away bias=1 wl=GOIHW",
    "ci=3 co=4 in=9 k=4 s=3 dt=s8 ydt=s32 zp=-5,4,0 bias=1 xl=NWC",
    "ci=2 co=4 in=3x3x2 k=2 s=2 dt=u8 ydt=s8 round=gemmlowp pc=1 zp=200,0,-3",
    "ci=3 co=3 in=7 k=3 d=2 dt=s8 m=fixed round=half_up fill=qties",
};
#define NQUANT (sizeof QUANT_CASES / sizeof QUANT_CASES[0])

Test(exec_quant, a_program_declaring_quantized_support_gets_every_parameter)
{
    char prog[1024];
    iohw_loaded_backend lb;
    exec_script("oracle", QORACLE_BODY, prog, sizeof prog);
    load_exec_program(prog, "1", &lb);
    cr_assert(IOHW_HAS_MEMBER(lb.table, iohw_backend, run_quant) &&
              lb.table->run_quant != NULL, "the exec table has no run_quant");
    for (size_t i = 0; i < NQUANT; i++)
        expect_pass(&lb, QUANT_CASES[i]);
    iohw_backend_unload(&lb);
    remove(prog);
}

/* run() is for float problems and run_quant() for quantized ones: each
 * refuses the other kind, naming it, without running the program. */
Test(exec_quant, run_and_run_quant_refuse_the_other_kind)
{
    char prog[1024];
    iohw_loaded_backend lb;
    iohw_case q, f;
    exec_script("kinds", QORACLE_BODY, prog, sizeof prog);
    load_exec_program(prog, "1", &lb);
    make(QUANT_CASES[0], &q);
    make("ci=2 co=3 in=5x4 k=3 s=2 bias=1", &f);
    float *y = calloc((size_t)iohw_problem_y_count(&f.p), sizeof *y);
    cr_assert_not_null(y);
    cr_expect_eq(lb.table->run(lb.ctx, &q.p, q.x, q.w, q.bias, y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "run_quant") != NULL, "%s",
              iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run_quant(lb.ctx, &f.p, f.x, f.w, f.bias, NULL, y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "not quantized") != NULL,
              "%s", iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run_quant(lb.ctx, &q.p, q.x, q.w, q.bias, NULL, y),
                 IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "requant is NULL") != NULL,
              "%s", iohw_backend_last_error(&lb));
    free(y);
    iohw_case_free(&q);
    iohw_case_free(&f);
    iohw_backend_unload(&lb);
    remove(prog);
}

/* supports() refuses desc, naming quantized=1. */
static void expect_undeclared(const iohw_loaded_backend *lb, const char *desc)
{
    expect_unsupported(lb, desc);
    cr_expect(strstr(iohw_backend_last_error(lb), "quantized=1") != NULL,
              "the reason does not say what is missing: %s",
              iohw_backend_last_error(lb));
}

/* A program written before quantized cases (no --describe at all) still
 * computes float cases and is never asked about quantized ones. */
Test(exec_quant, an_old_protocol_1_program_is_unsupported_with_the_reason)
{
    char prog[1024], count[1024], body[2048];
    iohw_loaded_backend lb;
    snprintf(count, sizeof count, "%s/exec-quant-count-%d", IOHW_TEST_TMP,
             (int)getpid());
    snprintf(body, sizeof body,
             "[ \"$1\" = --describe ] && exit 1\n"
             "[ \"$1\" = --supports ] && echo asked >> \"%s\" && exit 0\n"
             "exec \"%s\" oracle \"$1\" -o \"$2\" >/dev/null\n", count, IOHW_BIN);
    exec_script("old", body, prog, sizeof prog);
    remove(count);
    load_exec_program(prog, NULL, &lb);
    for (size_t i = 0; i < NQUANT; i++)
        expect_undeclared(&lb, QUANT_CASES[i]);
    cr_expect_neq(access(count, F_OK), 0, "the program was asked about a "
                  "quantized problem");
    expect_pass(&lb, "ci=2 co=3 in=5x4 k=3 s=2 bias=1");
    iohw_backend_unload(&lb);
    remove(count);
    remove(prog);
}

Test(exec_quant, an_old_protocol_2_program_is_unsupported_with_the_reason)
{
    char command[2048], log[1024];
    iohw_loaded_backend lb;
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
    snprintf(log, sizeof log, "%s/exec-quant-serve-%d.log", IOHW_TEST_TMP,
             (int)getpid());
    remove(log);
    cr_assert_eq(setenv("IOHW_TEST_SERVE_LOG", log, 1), 0);
    snprintf(command, sizeof command, PYTHON " " SERVE " %s good", IOHW_BIN);
    load_exec_program(command, NULL, &lb);
    cr_expect(strstr(lb.table->version, "exec protocol 2") != NULL, "%s",
              lb.table->version);
    for (size_t i = 0; i < NQUANT; i++)
        expect_undeclared(&lb, QUANT_CASES[i]);
    iohw_backend_unload(&lb);
    char *asked = NULL;
    iohw_test_sh(&asked, "cat '%s' 2>/dev/null", log);
    cr_expect(strstr(asked, "supports") == NULL && strstr(asked, "run") == NULL,
              "the program was asked: %s", asked);
    free(asked);
    remove(log);
}

/* run_quant() on a program that answers with the y of another problem
 * (the oracle's, written by `iohw gen`): its status, the message in msg. */
static int run_replying(const char *reply_desc, char *msg, size_t n)
{
    char prog[1024], body[2048];
    iohw_loaded_backend lb;
    iohw_case c;
    snprintf(body, sizeof body, "%s"
             "exec \"%s\" gen --problem '%s' -o \"$2\" >/dev/null\n",
             "[ \"$1\" = --describe ] && echo quantized=1 && exit 0\n"
             "[ \"$1\" = --supports ] && exit 0\n", IOHW_BIN, reply_desc);
    exec_script("reply", body, prog, sizeof prog);
    load_exec_program(prog, "1", &lb);
    make("ci=2 co=3 in=4x4 k=3 dt=s8 zp=1,2,3 bias=1", &c);
    cr_assert_eq(lb.table->supports(lb.ctx, &c.p), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    const size_t ny = (size_t)iohw_problem_y_count(&c.p);
    signed char *y = malloc(ny);
    cr_assert_not_null(y);
    int st = lb.table->run_quant(lb.ctx, &c.p, c.x, c.w, c.bias, c.requant, y);
    snprintf(msg, n, "%s", iohw_backend_last_error(&lb));
    free(y);
    iohw_case_free(&c);
    remove(prog);
    iohw_backend_unload(&lb);
    return st;
}

/* A reply that is not the case's y is an error naming y and what is
 * wrong (a y of another shape is kept for the shape diagnosis only,
 * specification section 3.5). */
Test(exec_quant, a_reply_of_the_wrong_type_or_length_is_an_error_naming_it)
{
    static const struct {
        const char *reply, *want1, *want2;
    } BAD[] = {
        {"ci=2 co=3 in=4x4 k=3 dt=s8 ydt=s32 bias=1", "int32", "needs int8"},
        {"ci=2 co=3 in=4x4 k=3 dt=u8 ydt=u8", "uint8", "needs int8"},
        {"ci=2 co=3 in=4x4 k=3 bias=1", "float", "needs int8"},
        {"ci=2 co=3 in=4x5 k=3 dt=s8 bias=1", "axis 3 (W)", "elements"},
        {"ci=2 co=2 in=4x4 k=3 dt=s8", "axis 1 (C)", "elements"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char msg[1024];
        int st = run_replying(BAD[i].reply, msg, sizeof msg);
        cr_expect_eq(st, IOHW_BACKEND_ERROR, "'%s': status %d: %s",
                     BAD[i].reply, st, msg);
        cr_expect(strstr(msg, "y") != NULL && strstr(msg, BAD[i].want1) != NULL &&
                      strstr(msg, BAD[i].want2) != NULL,
                  "'%s': no '%s' and '%s' in: %s", BAD[i].reply, BAD[i].want1,
                  BAD[i].want2, msg);
    }
}

/* --- backends/python/torch_backend.py ------------------------------------- */

static void skip_without_torch(void)
{
    if (access(PYTHON, X_OK) != 0 ||
        system(PYTHON " -c 'import torch, h5py' >/dev/null 2>&1") != 0)
        cr_skip_test(PYTHON " cannot import torch and h5py");
}

/* Exact ties of every rounding mode (fill=qties), both forms of M, per
 * channel and not, over protocol 1 and 2: bit for bit the oracle's. */
Test(exec_quant, the_python_example_rounds_ties_as_every_mode_says, .timeout = 300)
{
    static const char *const MODES[] = {"round=half_even", "round=half_away",
                                        "round=half_up", "round=gemmlowp"};
    static const char *const SHAPES[] = {
        "ci=3 co=4 in=6 k=3 s=2 dt=s8 bias=1",
        "n=2 ci=4 co=6 g=2 in=4x3 k=2x3 s=2x1 pad=1:0x0:1 dt=u8 ydt=s8 pc=1 "
        "xl=NHWC wl=GOHWI",
        "ci=2 co=3 in=3x2x3 k=2 d=1x2x1 dt=u8 wdt=u8 m=fixed bias=1",
    };
    skip_without_torch();
    for (int proto = 1; proto <= 2; proto++) {
        iohw_loaded_backend lb;
        load_exec_program(PYTHON " " TORCH_PROGRAM, proto == 1 ? "1" : "2", &lb);
        for (size_t m = 0; m < 4; m++)
            for (size_t s = 0; s < 3; s++) {
                char desc[512];
                snprintf(desc, sizeof desc, "%s %s fill=qties", SHAPES[s],
                         MODES[m]);
                expect_pass(&lb, desc);
            }
        iohw_backend_unload(&lb);
    }
}

/* `iohw run` of the example over the smoke profile's quantized cases into
 * rep (fault: IOHW_EXAMPLE_QUANT_FAULT, or NULL).  A call may take long:
 * the first one waits for the program to import torch, on a machine that
 * may be busy. */
static void run_smoke(const char *fault, iohw_report *rep)
{
    char dir[512];
    iohw_error err = {0};
    snprintf(dir, sizeof dir, "%s/exec-quant-smoke-%d", IOHW_TEST_TMP,
             (int)getpid());
    int rc = iohw_test_sh(NULL, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
                          ">/dev/null", dir, IOHW_BIN, dir);
    cr_assert_eq(rc, 0, "gen --profile smoke failed");
    rc = iohw_test_sh(NULL, "IOHW_EXAMPLE_QUANT_FAULT='%s' IOHW_EXEC_COMMAND='%s' "
                      "'%s' run --backend '%s/libiohw_exec.so' '%s/quant.h5' "
                      "--jobs 2 --timeout 300 --quiet --json '%s/r.json' >/dev/null",
                      fault != NULL ? fault : "", PYTHON " " TORCH_PROGRAM,
                      IOHW_BIN, IOHW_BACKEND_DIR, dir, dir);
    cr_assert(rc == 0 || rc == 1, "iohw run: exit %d", rc);
    char json[600];
    snprintf(json, sizeof json, "%s/r.json", dir);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s", err.msg);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(exec_quant, the_python_example_passes_every_quantized_smoke_case,
     .timeout = 300)
{
    iohw_report rep;
    skip_without_torch();
    run_smoke(NULL, &rep);
    cr_expect_geq(rep.results.count, 20, "only %lld quantized smoke cases",
                  (long long)rep.results.count);
    for (int64_t i = 0; i < rep.results.count; i++) {
        const iohw_result *r = &rep.results.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s: %s: %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
    }
    printf("torch_backend.py: %lld quantized smoke cases\n",
           (long long)rep.results.count);
    iohw_report_free(&rep);
}

/* Dropping zp_x fails every case whose zp_x is not 0, each with a trace named by the
 * diagnosis, and passes the others. */
Test(exec_quant, the_python_example_without_zp_x_fails_named_by_the_diagnosis,
     .timeout = 300)
{
    iohw_report rep;
    int fails = 0, named = 0;
    skip_without_torch();
    run_smoke("zp_x", &rep);
    for (int64_t i = 0; i < rep.results.count; i++) {
        const iohw_result *r = &rep.results.items[i];
        iohw_desc d;
        iohw_error err;
        cr_assert_eq(iohw_desc_parse(r->descriptor, &d, &err), 0, "%s", err.msg);
        fails += r->status == IOHW_RESULT_FAIL;
        cr_expect_eq(r->status, d.p.zp_x != 0 ? IOHW_RESULT_FAIL
                                              : IOHW_RESULT_PASS,
                     "%s (zp_x %d): %s", r->case_id, (int)d.p.zp_x,
                     iohw_result_status_name(r->status));
        /* A failure shows a trace when a differing element lies inside y's
         * range; one saturated at the limits everywhere it differs is
         * rightly unnamed (specification section 11.5, rule 1). */
        const double lo = d.p.y_dtype == IOHW_U8 || (d.p.y_dtype == 0 && d.p.dtype == IOHW_U8)
                              ? 0 : -128;
        int inside = d.p.y_dtype == IOHW_S32; /* not requantized: no limits */
        for (int k = 0; k < r->npoints; k++)
            inside |= r->points[k].got > lo && r->points[k].got < lo + 255;
        named += r->status == IOHW_RESULT_FAIL &&
                 strstr(r->diagnosis, "x's zero point not subtracted") != NULL;
        if (r->status == IOHW_RESULT_FAIL && inside)
            cr_expect(strstr(r->diagnosis, "x's zero point not subtracted") != NULL,
                      "%s: diagnosis '%s'", r->case_id, r->diagnosis);
    }
    cr_expect_geq(fails, 3, "only %d smoke cases fail without zp_x", fails);
    cr_expect_geq(named, 3, "only %d of %d failures named", named, fails);
    iohw_report_free(&rep);
}
