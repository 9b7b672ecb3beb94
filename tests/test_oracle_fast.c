/*
 * tests/test_oracle_fast.c - the tuned oracle kernel (conv_transpose_fast.c)
 * is the default only because it gives the same bits as the definition
 * (conv_transpose.c): y, y_f64, err_bound and terms_max, on every case of
 * the smoke and ci profiles and on random problems in every dtype and fill,
 * with 1 to 4 threads.  And IOHW_ORACLE, `iohw gen --definition` and
 * `iohw oracle --definition` pick the definition.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "generators/generators.h"
#include "generators/suite.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* Index of the first element whose bits differ, or -1. */
static int64_t first_difference(const void *a, const void *b, int64_t n,
                                size_t size)
{
    const unsigned char *pa = a, *pb = b;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(pa + (size_t)i * size, pb + (size_t)i * size, size) != 0)
            return i;
    return -1;
}

static void expect_same_bits(const char *what, const char *id, const char *name,
                             const void *a, const void *b, int64_t n, size_t size,
                             int dtype)
{
    const int64_t i = first_difference(a, b, n, size);
    if (i < 0)
        return;
    const double va = size == sizeof(double) ? ((const double *)a)[i]
                                             : iohw_dtype_load(dtype, a, (size_t)i);
    const double vb = size == sizeof(double) ? ((const double *)b)[i]
                                             : iohw_dtype_load(dtype, b, (size_t)i);
    cr_assert_fail("%s: case %s: %s[%lld]: definition %.17g, fast %.17g", what, id,
                   name, (long long)i, va, vb);
}

static void expect_same_result(const char *what, const char *id, const iohw_problem *p,
                               const iohw_oracle_result *def,
                               const iohw_oracle_result *fast)
{
    const int64_t ny = iohw_problem_y_count(p);
    expect_same_bits(what, id, "y", def->y, fast->y, ny, iohw_dtype_size(p->dtype),
                     p->dtype);
    expect_same_bits(what, id, "y_f64", def->y_f64, fast->y_f64, ny, sizeof(double), 0);
    expect_same_bits(what, id, "err_bound", def->err_bound, fast->err_bound, ny,
                     sizeof(double), 0);
    cr_assert_eq(def->terms_max, fast->terms_max, "%s: case %s: terms_max %lld vs %lld",
                 what, id, (long long)def->terms_max, (long long)fast->terms_max);
}

/* Makes the case of a descriptor, runs the definition once and the tuned
 * kernel with 1..4 threads, and checks every result (and the case's stored
 * one) bit for bit. */
static void check_case(const char *what, const iohw_desc *d, const char *id)
{
    iohw_case c;
    iohw_error err;
    cr_assert_eq(iohw_make_case(d, id, NULL, 1, &c, &err), 0, "%s: case %s: %s", what,
                 id, err.msg);
    iohw_oracle_result def;
    cr_assert_eq(iohw_oracle_run_method(&c.p, c.x, c.w, c.bias, IOHW_ORACLE_DEFINITION,
                                        1, &def, &err), 0, "%s: case %s: %s", what, id,
                 err.msg);
    iohw_oracle_result stored = {c.y_f64, c.err_bound, c.y, c.terms_max};
    expect_same_result(what, id, &c.p, &def, &stored);
    for (int threads = 1; threads <= 4; threads++) {
        iohw_oracle_result fast;
        cr_assert_eq(iohw_oracle_run_method(&c.p, c.x, c.w, c.bias, IOHW_ORACLE_FAST,
                                            threads, &fast, &err), 0,
                     "%s: case %s: %s", what, id, err.msg);
        expect_same_result(what, id, &c.p, &def, &fast);
        iohw_oracle_result_free(&fast);
    }
    /* The paths this CPU would not take: AVX2 vectors, the scatter kernel. */
    static const char *const caps[] = {"avx2", "none"};
    for (int k = 0; k < 2; k++) {
        iohw_oracle_result fast;
        setenv(IOHW_ORACLE_ISA_ENV, caps[k], 1);
        int rc = iohw_oracle_run_method(&c.p, c.x, c.w, c.bias, IOHW_ORACLE_FAST, 1 + k,
                                        &fast, &err);
        unsetenv(IOHW_ORACLE_ISA_ENV);
        cr_assert_eq(rc, 0, "%s: case %s (%s): %s", what, id, caps[k], err.msg);
        expect_same_result(what, id, &c.p, &def, &fast);
        iohw_oracle_result_free(&fast);
    }
    iohw_oracle_result_free(&def);
    iohw_case_free(&c);
}

static void check_profile(const char *profile)
{
    iohw_plan plan;
    iohw_error err;
    cr_assert_eq(iohw_plan_profile(profile, 1, &plan, &err), 0, "%s", err.msg);
    cr_assert_gt(plan.count, 100, "profile %s has only %lld cases", profile,
                 (long long)plan.count);
    for (int64_t i = 0; i < plan.count; i++)
        /* The float forward oracle only: a backward direction has no
         * tuned kernel (both methods run its definition). */
        if (!iohw_problem_is_quant(&plan.cases[i].desc.p) &&
            !iohw_problem_is_backward(&plan.cases[i].desc.p))
            check_case(profile, &plan.cases[i].desc, plan.cases[i].id);
    iohw_plan_free(&plan);
}

/* The profiles by index: a parameter holds no pointer, as each test runs
 * in a process of its own. */
static const char *const profiles[] = {"smoke", "ci"};

ParameterizedTestParameters(oracle_fast, equals_the_definition_on_every_case_of)
{
    static int which[] = {0, 1};
    return cr_make_param_array(int, which, 2);
}

ParameterizedTest(int *which, oracle_fast, equals_the_definition_on_every_case_of)
{
    check_profile(profiles[*which]);
}

/* A random descriptor: ranks 1-3, groups, strides, dilations, asymmetric
 * pads, output_padding (sometimes beyond max(S, D)), bias, in dtype dt with
 * fill `fill`. */
static int random_descriptor(iohw_rng *r, const char *dt, const char *fill, char *buf,
                             size_t n)
{
    const int rank = (int)iohw_rng_range(r, 1, 3);
    const int64_t g = iohw_rng_range(r, 1, 3);
    const int64_t lmax = rank == 3 ? 4 : 9;
    char in[64] = "", k[64] = "", s[64] = "", d[64] = "", pad[96] = "", op[64] = "";
    for (int a = 0; a < rank; a++) {
        const char *x = a == 0 ? "" : "x";
        const int64_t st = iohw_rng_range(r, 1, 3), di = iohw_rng_range(r, 1, 3);
        const int64_t lim = st > di ? st : di;
        snprintf(in + strlen(in), sizeof in - strlen(in), "%s%lld", x,
                 (long long)iohw_rng_range(r, 1, lmax));
        snprintf(k + strlen(k), sizeof k - strlen(k), "%s%lld", x,
                 (long long)iohw_rng_range(r, 1, 4));
        snprintf(s + strlen(s), sizeof s - strlen(s), "%s%lld", x, (long long)st);
        snprintf(d + strlen(d), sizeof d - strlen(d), "%s%lld", x, (long long)di);
        snprintf(pad + strlen(pad), sizeof pad - strlen(pad), "%s%lld:%lld", x,
                 (long long)iohw_rng_range(r, 0, 3), (long long)iohw_rng_range(r, 0, 3));
        snprintf(op + strlen(op), sizeof op - strlen(op), "%s%lld", x,
                 (long long)iohw_rng_range(r, 0, lim));
    }
    return snprintf(buf, n, "n=%lld ci=%lld co=%lld g=%lld in=%s k=%s s=%s d=%s pad=%s "
                    "op=%s bias=%lld dt=%s fill=%s seed=%llu",
                    (long long)iohw_rng_range(r, 1, 2), (long long)(g * iohw_rng_range(r, 1, 4)),
                    (long long)(g * iohw_rng_range(r, 1, 4)), (long long)g, in, k, s, d,
                    pad, op, (long long)iohw_rng_range(r, 0, 1), dt, fill,
                    (unsigned long long)iohw_rng_next(r));
}

Test(oracle_fast, equals_the_definition_on_random_problems_in_every_dtype_and_fill)
{
    static const char *dtypes[] = {"f32", "f64", "f16", "bf16"};
    const char *const *fills = iohw_fill_names();
    iohw_rng r;
    iohw_rng_seed(&r, 20261202);
    int made = 0;
    for (int t = 0; t < 4; t++) {
        for (int f = 0; fills[f] != NULL; f++) {
            for (int it = 0; it < 12; it++) {
                char text[IOHW_DESC_MAX], id[64];
                iohw_desc d;
                random_descriptor(&r, dtypes[t], fills[f], text, sizeof text);
                if (iohw_desc_parse(text, &d, NULL) != 0)
                    continue; /* an output size below 1: draw again */
                snprintf(id, sizeof id, "random.%s.%s.%d", dtypes[t], fills[f], it);
                check_case(text, &d, id);
                made++;
            }
        }
    }
    cr_expect_gt(made, 150, "only %d random problems were valid", made);
}

/* check_case on each of n descriptor texts. */
static void check_texts(const char *const *texts, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        iohw_desc d;
        iohw_error err;
        cr_assert_eq(iohw_desc_parse(texts[i], &d, &err), 0, "%s: %s", texts[i], err.msg);
        check_case(texts[i], &d, id);
    }
}

/* Rows of more than 512 output columns per phase go through the tuned
 * kernel's blocks. */
Test(oracle_fast, equals_the_definition_on_long_rows)
{
    static const char *texts[] = {
        "ci=2 co=3 in=1500 k=5 s=1 d=2 pad=3:1 bias=1 dt=f32",
        "ci=2 co=2 in=700 k=3 s=3 d=1 pad=0:2 op=2 bias=1 dt=f64",
        "ci=4 co=2 g=2 in=2x1100 k=2x4 s=1x2 d=1x3 pad=0x1:4 dt=bf16 fill=range",
        "ci=1 co=1 in=3000 k=1 dt=f16 fill=special",
    };
    check_texts(texts, sizeof texts / sizeof texts[0], "long");
}

/* The plain-double path's blocks of 8 outputs: rows shorter and longer
 * than a block, rows run together where they follow each other in x (k = s
 * and k = 2s with pad s/2), edges a tap reaches only partly, several tiles
 * of blocks, output channels in fours and the rest (Mg = 5, 7), many input
 * channels, and every special value (with NaNs of both signs meeting). */
Test(oracle_fast, equals_the_definition_on_blocks_of_outputs)
{
    static const char *texts[] = {
        "n=2 ci=8 co=10 g=2 in=6x6x6 k=3x3x3 s=2x2x2 bias=1 dt=f32 fill=special",
        "n=3 ci=40 co=7 in=4x4 k=4x4 s=2x2 pad=1x1 dt=f32",
        "ci=12 co=5 in=20x20 k=2x2 s=2x2 bias=1 dt=bf16 fill=special",
        "ci=9 co=6 g=3 in=13x13 k=3x3 pad=1x1 d=1x2 bias=1 dt=f16 fill=cancel",
        "ci=24 co=6 in=300 k=10 s=5 pad=3:2 bias=1 dt=f32 fill=special",
        "n=2 ci=3 co=9 in=2x2 k=1x5 s=3x1 d=1x3 pad=0x4:1 op=2x0 dt=f32 fill=range",
        /* many specials per element: NaN from inf - inf meets NaN from x */
        "ci=2 co=5 in=9x7 k=30x20 s=4x6 d=2x3 pad=7x2 bias=1 fill=special",
    };
    check_texts(texts, sizeof texts / sizeof texts[0], "blocks");
}

/* An output no tap reaches, or a lane of a block a tap does not reach,
 * keeps a bias of -0.0: both kernels called directly, x and w of zeros
 * of either sign and small integers, in double and double-double. */
Test(oracle_fast, keeps_a_negative_zero_bias)
{
    static const char *texts[] = {
        "n=2 ci=4 co=5 g=1 in=5x6 k=3x2 s=4x3 pad=1x0:2 bias=1",
        "ci=2 co=3 in=11 k=3 s=2 d=3 pad=2:4 bias=1",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        iohw_desc d;
        iohw_error err;
        cr_assert_eq(iohw_desc_parse(texts[i], &d, &err), 0, "%s: %s", texts[i], err.msg);
        const int64_t nx = iohw_problem_x_count(&d.p), nw = iohw_problem_w_count(&d.p);
        const int64_t ny = iohw_problem_y_count(&d.p), nb = d.p.out_channels;
        double *x = malloc((size_t)nx * sizeof *x), *w = malloc((size_t)nw * sizeof *w);
        double *b = malloc((size_t)nb * sizeof *b);
        double *y[2], *eb[2];
        for (int k = 0; k < 2; k++) {
            y[k] = malloc((size_t)ny * sizeof *y[k]);
            eb[k] = malloc((size_t)ny * sizeof *eb[k]);
        }
        cr_assert(x != NULL && w != NULL && b != NULL && y[1] != NULL && eb[1] != NULL);
        for (int64_t j = 0; j < nx; j++)
            x[j] = j % 3 == 0 ? -0.0 : j % 3 == 1 ? 0.0 : (double)(j % 7) - 3;
        for (int64_t j = 0; j < nw; j++)
            w[j] = j % 4 == 0 ? -0.0 : (double)(j % 5) - 2;
        for (int64_t j = 0; j < nb; j++)
            b[j] = j % 2 == 0 ? -0.0 : 0.5;
        for (int dd = 0; dd <= 1; dd++) {
            cr_assert_eq(iohw_conv_transpose_def(&d.p, x, w, b, dd, y[0], eb[0], &err), 0,
                         "%s", err.msg);
            cr_assert_eq(iohw_conv_transpose_fast(&d.p, x, w, b, dd, 2, y[1], eb[1], &err),
                         0, "%s", err.msg);
            expect_same_bits(texts[i], "direct", dd ? "y (dd)" : "y", y[0], y[1], ny,
                             sizeof(double), 0);
            expect_same_bits(texts[i], "direct", dd ? "eb (dd)" : "eb", eb[0], eb[1], ny,
                             sizeof(double), 0);
        }
        free(x);
        free(w);
        free(b);
        for (int k = 0; k < 2; k++) {
            free(y[k]);
            free(eb[k]);
        }
    }
}

/* IOHW_ORACLE: unset, "" and "fast" pick the tuned kernel, "definition"
 * the definition; anything else is an error that names the variable. */
Test(oracle_fast, the_environment_picks_the_implementation)
{
    iohw_oracle_method m;
    iohw_error err;
    unsetenv(IOHW_ORACLE_ENV);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), 0);
    cr_expect_eq(m, IOHW_ORACLE_FAST);
    setenv(IOHW_ORACLE_ENV, "", 1);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), 0);
    cr_expect_eq(m, IOHW_ORACLE_FAST);
    setenv(IOHW_ORACLE_ENV, "fast", 1);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), 0);
    cr_expect_eq(m, IOHW_ORACLE_FAST);
    setenv(IOHW_ORACLE_ENV, "definition", 1);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), 0);
    cr_expect_eq(m, IOHW_ORACLE_DEFINITION);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FAST, &m, &err), 0);
    cr_expect_eq(m, IOHW_ORACLE_FAST, "an explicit method wins over the environment");

    setenv(IOHW_ORACLE_ENV, "slow", 1);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), -1);
    cr_expect(strstr(err.msg, "IOHW_ORACLE='slow'") != NULL, "message: %s", err.msg);
    iohw_desc d;
    iohw_case c;
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=3 k=2", &d, &err), 0);
    cr_expect_eq(iohw_make_case(&d, "env", NULL, 1, &c, &err), -1,
                 "a misspelt IOHW_ORACLE must not fall back silently");
    cr_expect(strstr(err.msg, "IOHW_ORACLE") != NULL, "message: %s", err.msg);

    unsetenv(IOHW_ORACLE_ENV);
    setenv(IOHW_ORACLE_ISA_ENV, "avx512", 1);
    cr_assert_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), -1);
    cr_expect(strstr(err.msg, "IOHW_ORACLE_ISA='avx512'") != NULL, "message: %s", err.msg);
    setenv(IOHW_ORACLE_ISA_ENV, "avx2", 1);
    cr_expect_eq(iohw_oracle_method_resolve(IOHW_ORACLE_FROM_ENV, &m, &err), 0, "%s",
                 err.msg);
    unsetenv(IOHW_ORACLE_ISA_ENV);
}

/* The definition checks its arguments in order, each message naming it. */
Test(oracle_fast, the_definition_names_a_bad_argument)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=3 k=2 bias=1", &d, &err), 0);
    double x[3] = {1, 2, 3}, w[2] = {1, 1}, b[1] = {0}, y[4], eb[4];
    cr_expect_eq(iohw_conv_transpose_def(NULL, x, w, b, 0, y, eb, &err), -1);
    cr_expect_str_eq(err.msg, "conv_transpose_def: problem p is NULL");
    cr_expect_eq(iohw_conv_transpose_def(&d.p, x, w, NULL, 0, y, eb, &err), -1);
    cr_expect_str_eq(err.msg, "conv_transpose_def: bias is NULL but the problem has a bias");
    cr_expect_eq(iohw_conv_transpose_def(&d.p, x, w, b, 3, y, eb, &err), -1);
    cr_expect_str_eq(err.msg, "conv_transpose_def: dd is 3, must be 0 or 1");
    cr_expect_eq(iohw_conv_transpose_def(&d.p, x, w, b, 0, y, NULL, &err), -1);
    cr_expect_str_eq(err.msg, "conv_transpose_def: eb is NULL");
    cr_assert_eq(iohw_conv_transpose_def(&d.p, x, w, b, 0, y, eb, &err), 0, "%s", err.msg);
    const double want[4] = {1, 3, 5, 3};
    for (int i = 0; i < 4; i++)
        cr_expect_eq(y[i], want[i], "y[%d] = %g, want %g", i, y[i], want[i]);
}

/* Runs a shell command; its exit status, or -1 when it did not exit. */
static int shell(const char *cmd)
{
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `iohw gen --definition` and `iohw oracle --definition` write the same
 * bytes as without the option, and IOHW_ORACLE=definition does the same. */
Test(oracle_fast, the_command_line_writes_the_same_files_either_way)
{
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/oracle-fast-%d", IOHW_TEST_TMP, (int)getpid());
    const char *problems =
        "--problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1' "
        "--problem 'ci=3 co=2 in=9 k=4 s=3 dt=f64 fill=cancel' "
        "--problem 'ci=2 co=2 in=3x3x3 k=2 dt=bf16 fill=special xl=NDHWC wl=DHWOI'";
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s' && cd '%s' && "
             "'%s' gen %s -o fast.h5 >/dev/null && "
             "'%s' gen %s --definition -o def.h5 >/dev/null && "
             "IOHW_ORACLE=definition '%s' gen %s -o env.h5 >/dev/null && "
             "cmp fast.h5 def.h5 && cmp fast.h5 env.h5 && "
             "'%s' oracle fast.h5 -o o_fast.h5 >/dev/null && "
             "'%s' oracle fast.h5 --definition -o o_def.h5 >/dev/null && "
             "cmp o_fast.h5 o_def.h5",
             dir, dir, dir, IOHW_BIN, problems, IOHW_BIN, problems, IOHW_BIN, problems,
             IOHW_BIN, IOHW_BIN);
    cr_expect_eq(shell(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "IOHW_ORACLE=slow '%s' gen --problem 'ci=1 co=1 in=3 k=2' "
             "-o '%s/bad.h5' 2>'%s/bad.txt'", IOHW_BIN, dir, dir);
    cr_expect_eq(shell(cmd), 2, "a misspelt IOHW_ORACLE is an error: %s", cmd);
    snprintf(cmd, sizeof cmd, "grep -q \"IOHW_ORACLE='slow'\" '%s/bad.txt'", dir);
    cr_expect_eq(shell(cmd), 0, "the message names the variable");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    shell(cmd);
}
