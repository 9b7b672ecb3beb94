/*
 * tests/test_exec_bwd.c - the backward directions (specification section
 * 13) through the exec backend (docs/EXEC_PROTOCOL.md, "Backward cases"):
 * a program that opts in gets IN.h5 with dy and writes dx, or dw and db; one
 * that does not is refused without being asked; a missing dataset is an
 * error naming it.  The programs: tests/exec/bwd_numpy.py (plain numpy
 * loops), backends/python/torch_backend.py (skipped without torch) and
 * backends/js/tfjs_backend.js (skipped without node and its packages).
 *
 * The expected values are worked out by hand from section 13's sums for
 * one small problem, ci=2 co=3 in=2 k=2 s=2 (O = 4; each output position
 * o = 2i + k has exactly one (i, k)), with
 *
 *     x[c][i] = 2c + i + 1,  dy[m][o] = 4m + o + 1,  w[c][m][k] = 6c + 2m + k + 1
 *
 * so dx[c][i] = sum over m, k of dy[m][2i + k] w[c][m][k] (dx[0][0] = 1·1 +
 * 2·2 + 5·3 + 6·4 + 9·5 + 10·6 = 149), dw[c][m][k] = sum over i of x[c][i]
 * dy[m][2i + k] (dw[0][0][0] = 1·1 + 2·3 = 7) and db[m] = sum over o of
 * dy[m][o] (db[0] = 1 + 2 + 3 + 4 = 10).
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

#define PYTHON "/usr/bin/python3"
#define BWD_NUMPY PYTHON " " IOHW_SOURCE_DIR "/tests/exec/bwd_numpy.py"
#define TORCH_PROGRAM PYTHON " " IOHW_SOURCE_DIR "/backends/python/torch_backend.py"
#define TFJS_PROGRAM "node " IOHW_SOURCE_DIR "/backends/js/tfjs_backend.js"

/* The problem in IOW/NCW order (see the top) and its answers. */
static const double X[4] = {1, 2, 3, 4};
static const double DY[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const double W[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const double DX[4] = {149, 191, 347, 461};
static const double DW[12] = {7, 10, 19, 22, 31, 34, 15, 22, 43, 50, 71, 78};
static const double DB[3] = {10, 26, 42};
/* dw with its I and O axes swapped in memory (OIW), same shape. */
static const double DW_OIW[12] = {7, 10, 15, 22, 19, 22, 43, 50, 31, 34, 71, 78};

/* The same problem in NHWC / HWOI (H = 1), for tfjs. */
static const double X_NHWC[4] = {1, 3, 2, 4};
static const double DY_NHWC[12] = {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12};
static const double W_HWOI[12] = {1, 7, 3, 9, 5, 11, 2, 8, 4, 10, 6, 12};
static const double DX_NHWC[4] = {149, 347, 191, 461};
static const double DW_HWOI[12] = {7, 15, 19, 43, 31, 71, 10, 22, 22, 50, 34, 78};

#define RANK1 "ci=2 co=3 in=2 k=2 s=2"
#define RANK2 "ci=2 co=3 in=1x2 k=1x2 s=1x2 xl=NHWC wl=HWOI"

/* The problem of desc in direction dir (with bias when bias). */
static iohw_problem problem(const char *desc, int32_t dir, int bias)
{
    char text[256];
    iohw_desc d;
    iohw_error err;
    snprintf(text, sizeof text, "%s bias=%d", desc, bias);
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    d.p.direction = dir;
    cr_assert_eq(iohw_problem_validate(&d.p, &err), 0, "%s", err.msg);
    return d.p;
}

static void to_f32(const double *v, float *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (float)v[i];
}

static void expect_values(const char *what, const float *got,
                          const double *want, int n)
{
    for (int i = 0; i < n; i++)
        cr_expect_eq(got[i], (float)want[i], "%s[%d] = %g, not %g", what, i,
                     (double)got[i], want[i]);
}

/* Runs BWD_D and BWD_W (with bias) of desc and expects the answers. */
static void expect_both(const iohw_loaded_backend *lb, const char *desc,
                        const double *x, const double *dy, const double *w,
                        const double *dx, const double *dw)
{
    float fx[4], fdy[12], fw[12], gdx[4], gdw[12], gdb[3];
    to_f32(x, fx, 4);
    to_f32(dy, fdy, 12);
    to_f32(w, fw, 12);
    iohw_problem pd = problem(desc, IOHW_DIR_BWD_D, 0);
    iohw_problem pw = problem(desc, IOHW_DIR_BWD_W, 1);
    cr_assert_eq(lb->table->supports(lb->ctx, &pd), IOHW_OK, "%s",
                 iohw_backend_last_error(lb));
    cr_assert_eq(lb->table->run_bwd_data(lb->ctx, &pd, fdy, fw, gdx), IOHW_OK,
                 "%s", iohw_backend_last_error(lb));
    expect_values("dx", gdx, dx, 4);
    cr_assert_eq(lb->table->supports(lb->ctx, &pw), IOHW_OK, "%s",
                 iohw_backend_last_error(lb));
    cr_assert_eq(lb->table->run_bwd_weights(lb->ctx, &pw, fx, fdy, gdw, gdb),
                 IOHW_OK, "%s", iohw_backend_last_error(lb));
    expect_values("dw", gdw, dw, 12);
    expect_values("db", gdb, DB, 3);
}

/* Skips the test unless PYTHON has the modules (blank-separated). */
static void need_python(const char *modules)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, PYTHON " -c 'import %s' >/dev/null 2>&1",
             modules);
    if (system(cmd) != 0)
        cr_skip_test(PYTHON " lacks one of: %s", modules);
}

Test(exec_bwd, a_program_that_opts_in_computes_dx_dw_and_db, .timeout = 120)
{
    iohw_loaded_backend lb;
    need_python("h5py, numpy");
    load_exec_program(BWD_NUMPY, NULL, &lb);
    cr_expect_str_eq(lb.table->name, "exec:bwd_numpy.py");
    expect_both(&lb, RANK1, X, DY, W, DX, DW);

    /* It lists no fwd: a forward problem is refused without asking. */
    iohw_problem fwd = problem(RANK1, IOHW_DIR_FWD, 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &fwd), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "no fwd") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}

Test(exec_bwd, a_dw_written_as_oihw_comes_back_swapped, .timeout = 120)
{
    iohw_loaded_backend lb;
    float fx[4], fdy[12], dw[12], db[3];
    need_python("h5py, numpy");
    load_exec_program(BWD_NUMPY " --dw-oihw", NULL, &lb);
    to_f32(X, fx, 4);
    to_f32(DY, fdy, 12);
    iohw_problem p = problem(RANK1, IOHW_DIR_BWD_W, 1);
    cr_assert_eq(lb.table->run_bwd_weights(lb.ctx, &p, fx, fdy, dw, db),
                 IOHW_OK, "%s", iohw_backend_last_error(&lb));
    expect_values("dw", dw, DW_OIW, 12);
    expect_values("db", db, DB, 3);
    iohw_backend_unload(&lb);
}

Test(exec_bwd, a_program_that_does_not_opt_in_never_sees_a_backward_case,
     .timeout = 120)
{
    char script[1024], marker[1100], body[2400];
    iohw_loaded_backend lb;
    float dy[12], w[12], dx[4];
    snprintf(marker, sizeof marker, "%s/exec-bwd-asked-%d", IOHW_TEST_TMP,
             (int)getpid());
    unlink(marker);
    /* It answers --describe without directions= and marks any other call. */
    snprintf(body, sizeof body,
             "if [ \"$1\" = --describe ]; then echo name=plain; exit 0; fi\n"
             "touch %s\nexit 1\n", marker);
    exec_script("bwd-plain", body, script, sizeof script);
    load_exec_program(script, NULL, &lb);
    iohw_problem pd = problem(RANK1, IOHW_DIR_BWD_D, 0);
    iohw_problem pw = problem(RANK1, IOHW_DIR_BWD_W, 1);
    cr_expect_eq(lb.table->supports(lb.ctx, &pd), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "does not opt in to BWD_D: "
                     "its --describe answer has no directions= line") != NULL,
              "%s", iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->supports(lb.ctx, &pw), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "BWD_WB") != NULL, "%s",
              iohw_backend_last_error(&lb));
    to_f32(DY, dy, 12);
    to_f32(W, w, 12);
    cr_expect_eq(lb.table->run_bwd_data(lb.ctx, &pd, dy, w, dx),
                 IOHW_UNSUPPORTED);
    cr_expect_neq(access(marker, F_OK), 0, "the program was asked");
    iohw_backend_unload(&lb);
    unlink(marker);
    unlink(script);
}

Test(exec_bwd, an_answer_without_db_is_an_error_naming_db, .timeout = 120)
{
    char script[1024], body[1024];
    iohw_loaded_backend lb;
    float x[4], dy[12], dw[12], db[3];
    need_python("h5py, numpy");
    /* It opts in and writes dw of the right shape but no db. */
    snprintf(body, sizeof body,
             "if [ \"$1\" = --describe ]; then echo directions=bwd_w; exit 0; fi\n"
             "if [ \"$1\" = --supports ]; then shift; fi\n"
             PYTHON " -c 'import h5py, numpy, sys\n"
             "with h5py.File(sys.argv[2], \"w\") as f:\n"
             "    f[\"dw\"] = numpy.zeros((2, 3, 2), numpy.float32)\n' \"$@\"\n");
    exec_script("bwd-nodb", body, script, sizeof script);
    load_exec_program(script, NULL, &lb);
    to_f32(X, x, 4);
    to_f32(DY, dy, 12);
    iohw_problem p = problem(RANK1, IOHW_DIR_BWD_W, 1);
    cr_expect_eq(lb.table->run_bwd_weights(lb.ctx, &p, x, dy, dw, db),
                 IOHW_BACKEND_ERROR);
    cr_expect(strstr(iohw_backend_last_error(&lb), "neither /db, nor "
                     "/cases/case/db") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
    unlink(script);
}

Test(exec_bwd, torch_computes_both_directions, .timeout = 300)
{
    static const char *const protocols[] = {"1", "2"};
    need_python("h5py, numpy, torch");
    cr_assert_eq(setenv("IOHW_TORCH_MKLDNN", "0", 1), 0);
    for (int i = 0; i < 2; i++) {
        iohw_loaded_backend lb;
        load_exec_program(TORCH_PROGRAM, protocols[i], &lb);
        expect_both(&lb, RANK1, X, DY, W, DX, DW);
        expect_both(&lb, "ci=2 co=3 in=1x2 k=1x2 s=1x2 xl=NHWC wl=HWOI", X_NHWC,
                    DY_NHWC, W_HWOI, DX_NHWC, DW_HWOI);
        iohw_backend_unload(&lb);
    }
}

/* 1 when dir (a BUILD/js folder) holds tfjs and h5wasm. */
static int has_js_packages(const char *dir)
{
    char a[1200], b[1200];
    snprintf(a, sizeof a, "%s/node_modules/@tensorflow/tfjs-core/package.json",
             dir);
    snprintf(b, sizeof b, "%s/node_modules/h5wasm/package.json", dir);
    return access(a, R_OK) == 0 && access(b, R_OK) == 0;
}

/* As tests/test_tfjs.c finds them: IOHW_JS_DIR, else js/ of this build. */
static void need_tfjs(void)
{
    const char *env = getenv("IOHW_JS_DIR");
    if (system("node --version >/dev/null 2>&1") != 0)
        cr_skip_test("node is not installed");
    if (env != NULL && env[0] != '\0') {
        if (!has_js_packages(env))
            cr_skip_test("IOHW_JS_DIR=%s holds no tfjs and h5wasm", env);
        return;
    }
    if (!has_js_packages(IOHW_BACKEND_DIR "/../js"))
        cr_skip_test("no npm packages in %s (scripts/setup_js.sh BUILD)",
                     IOHW_BACKEND_DIR "/../js");
    cr_assert_eq(setenv("IOHW_JS_DIR", IOHW_BACKEND_DIR "/../js", 1), 0);
}

Test(exec_bwd, tfjs_computes_rank2_and_refuses_rank3, .timeout = 300)
{
    iohw_loaded_backend lb;
    need_tfjs();
    load_exec_program(TFJS_PROGRAM " --tfjs-backend=cpu", NULL, &lb);
    expect_both(&lb, RANK2, X_NHWC, DY_NHWC, W_HWOI, DX_NHWC, DW_HWOI);
    iohw_problem p3 = problem("ci=2 co=3 in=1x1x2 k=1x1x2 s=1x1x2 xl=NDHWC "
                              "wl=DHWOI", IOHW_DIR_BWD_D, 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &p3), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "no gradient for "
                     "conv3dTranspose") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}

Test(exec_bwd, tfjs_wasm_computes_dx_and_refuses_dw, .timeout = 300)
{
    iohw_loaded_backend lb;
    float dy[12], w[12], dx[4];
    need_tfjs();
    load_exec_program(TFJS_PROGRAM " --tfjs-backend=wasm", NULL, &lb);
    to_f32(DY_NHWC, dy, 12);
    to_f32(W_HWOI, w, 12);
    iohw_problem pd = problem(RANK2, IOHW_DIR_BWD_D, 0);
    cr_assert_eq(lb.table->supports(lb.ctx, &pd), IOHW_OK, "%s",
                 iohw_backend_last_error(&lb));
    cr_assert_eq(lb.table->run_bwd_data(lb.ctx, &pd, dy, w, dx), IOHW_OK,
                 "%s", iohw_backend_last_error(&lb));
    expect_values("dx", dx, DX_NHWC, 4);
    iohw_problem pw = problem(RANK2, IOHW_DIR_BWD_W, 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &pw), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "no Conv2DBackpropFilter "
                     "kernel") != NULL, "%s", iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}
