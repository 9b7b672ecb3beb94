/*
 * tests/test_adapter_bwd.c - the adapters' backward directions
 * (run_bwd_data, run_bwd_weights; specification section 13) over the real
 * libraries, called in-process through the loader and compared with the
 * oracle's backward definitions (iohw_oracle_run_inputs) within the
 * tolerance of specification section 3 (judge/compare.h's rule).
 *
 * For the torch and oneDNN adapters (a test whose .so is absent is
 * skipped): every rank, groups, dilation, asymmetric pads, output padding
 * (within and beyond the frameworks' limits), bias for BWD_W, permuted
 * data and weight layouts, f32 and f64 (f16 and bf16 where the library
 * claims them).  Each problem is either refused with a reason or computed
 * within the tolerance, every output element written and the inputs left
 * alone; the common problems (CORE) must be claimed.
 *
 * The libraries are pinned to the kernels every x86-64 CPU has, as in
 * test_adapters.c (ONEDNN_MAX_CPU_ISA=AVX2, IOHW_TORCH_MKLDNN=0).
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/adapter_asserts.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void pin_kernels(void)
{
    setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1);
    setenv("IOHW_TORCH_MKLDNN", "0", 1);
}

TestSuite(adapter_bwd, .init = pin_kernels);

/* Forward descriptors; each is run as BWD_D (without its bias) and BWD_W
 * (with it).  The first N_CORE are f32 with output_padding below the
 * stride: both libraries must claim them. */
static const char *const CASES[] = {
    "ci=3 co=5 in=7 k=4 s=3 pad=2:1 op=2 bias=1",
    "ci=2 co=4 in=5 k=3 d=2 xl=NWC wl=OWI bias=1",
    "ci=4 co=6 g=2 in=9 k=3 s=2 d=2 pad=0:3 op=1 xl=CWN wl=WGOI bias=1",
    "ci=1 co=1 in=1 k=1",
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 "
    "xl=NHWC wl=OIHW",
    "ci=6 co=9 g=3 in=3x5 k=2x3 s=3x2 wl=GOHWI xl=NHWC bias=1",
    "ci=8 co=8 g=8 in=4x4 k=3 s=2 pad=1 op=1 bias=1 xl=NHWC",
    "n=2 ci=2 co=3 in=2x3x4 k=2x2x3 s=1x2x2 pad=0:1x1:0x1:1 op=0x1x1 bias=1 "
    "wl=OIDHW",
    "ci=4 co=6 g=2 in=3x2x3 k=2 s=2x1x2 d=1x2x1 wl=GIODHW xl=DHWNC bias=1",
    /* the rest: f64, half types, output padding beyond the stride */
    "ci=3 co=2 in=4x4 k=3x3 s=2 pad=1 op=1 wl=HWOI dt=f64 bias=1",
    "ci=4 co=6 g=2 in=3x2x3 k=2 s=2x1x2 d=1x2x1 dt=f64 wl=GIODHW xl=DHWNC "
    "bias=1",
    "ci=2 co=2 in=3 k=9 s=2 pad=3 dt=f64",
    "ci=2 co=2 in=4 k=2 s=2 op=3 bias=1",
    "ci=2 co=3 in=4x3 k=2 s=1 op=2x0 pad=0:1x1:0",
    "n=2 ci=3 co=2 in=3x2x4 k=3x1x2 s=1x2x1 d=2x1x1 pad=2:0x0x0:1 op=1x1x0 "
    "bias=1",
    "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=bf16 bias=1",
    "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=f16 bias=1",
};
#define N_CORE 9

/* u, the unit roundoff of a float dtype. */
static double unit_roundoff(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F64: return ldexp(1.0, -53);
    case IOHW_F16: return ldexp(1.0, -11);
    case IOHW_BF16: return ldexp(1.0, -8);
    default: return ldexp(1.0, -24);
    }
}

/* Half an ulp of v in dtype dt (v already rounded to dt). */
static double half_ulp(iohw_dtype dt, double v)
{
    const double u = unit_roundoff(dt);
    const double tiny = dt == IOHW_F64 ? DBL_MIN : dt == IOHW_F32 ? FLT_MIN
                        : dt == IOHW_F16 ? ldexp(1.0, -14) : FLT_MIN;
    int e;
    frexp(fabs(v) > tiny ? v : tiny, &e);
    return ldexp(1.0, e - 1) * u; /* 2^(exponent) * u */
}

/* Input values k/8 for k in -5..5: exact in every float dtype, so the
 * library and the oracle start from the same numbers. */
static void *filled(iohw_dtype dt, int64_t n, int salt)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    void *out = malloc((size_t)(n > 0 ? n : 1) * iohw_dtype_size(dt));
    cr_assert(v != NULL && out != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)((i * 7 + salt * 3 + 1) % 11 - 5) / 8.0;
    iohw_dtype_from_double(dt, v, out, (size_t)n);
    free(v);
    return out;
}

static void *copy_of(const void *p, size_t n)
{
    void *q = malloc(n > 0 ? n : 1);
    cr_assert_not_null(q);
    memcpy(q, p, n);
    return q;
}

/* Compares got (out_count elements of p's dtype, the layouts of p's
 * direction) with the oracle: |got - y_f64| <= (T + 2) u eb + half an ulp
 * of the rounded result (specification section 3).  Returns the number
 * of mismatches; the first is described in first. */
static int64_t mismatches(const iohw_problem *p, const iohw_oracle_result *r,
                          const void *got, char *first, size_t n)
{
    const int64_t count = iohw_problem_out_count(p);
    const double u = unit_roundoff(p->dtype);
    double *g = malloc((size_t)count * sizeof *g);
    double *want = malloc((size_t)count * sizeof *want);
    int64_t bad = 0;
    cr_assert(g != NULL && want != NULL);
    iohw_dtype_to_double(p->dtype, got, g, (size_t)count);
    iohw_dtype_to_double(p->dtype, r->y, want, (size_t)count);
    for (int64_t i = 0; i < count; i++) {
        const double tol = (double)(r->terms_max + 2) * u * r->err_bound[i] +
                           half_ulp(p->dtype, want[i]);
        if (!(fabs(g[i] - r->y_f64[i]) <= tol)) {
            if (bad++ == 0)
                snprintf(first, n, "element %lld of %lld: got %.17g, "
                         "expected %.17g (tolerance %.3g)", (long long)i,
                         (long long)count, g[i], r->y_f64[i], tol);
        }
    }
    free(g);
    free(want);
    return bad;
}

/* Runs p (a backward problem) on the backend and checks it.  Returns 1
 * when claimed (and checked), 0 when refused with a reason. */
static int check_problem(const iohw_loaded_backend *lb, const iohw_problem *p,
                         const char *desc)
{
    const iohw_backend *t = lb->table;
    const char *dir = iohw_direction_name(p);
    int st = t->supports(lb->ctx, p);
    cr_assert(st == IOHW_OK || st == IOHW_UNSUPPORTED,
              "%s: supports() returned %d on %s '%s'", t->name, st, dir, desc);
    if (st != IOHW_OK) {
        cr_expect_str_not_empty(iohw_backend_last_error(lb),
                                "%s refuses %s '%s' without a reason",
                                t->name, dir, desc);
        return 0;
    }

    /* Inputs, their copies, the output full of a NaN sentinel. */
    const size_t es = iohw_dtype_size(p->dtype);
    const int bwd_d = p->direction == IOHW_DIR_BWD_D;
    const int64_t na = bwd_d ? iohw_problem_dy_count(p) : iohw_problem_x_count(p);
    const int64_t nb = bwd_d ? iohw_problem_w_count(p) : iohw_problem_dy_count(p);
    const int64_t no = iohw_problem_out_count(p);
    void *a = filled(p->dtype, na, 1), *b = filled(p->dtype, nb, 2);
    void *a0 = copy_of(a, (size_t)na * es), *b0 = copy_of(b, (size_t)nb * es);
    unsigned char *out = malloc((size_t)no * es);
    cr_assert_not_null(out);
    memset(out, 0xff, (size_t)no * es);

    if (bwd_d)
        st = t->run_bwd_data(lb->ctx, p, a, b, out);
    else
        st = t->run_bwd_weights(lb->ctx, p, a, b, out,
                                p->has_bias ? out + (size_t)iohw_problem_w_count(p) * es
                                            : NULL);
    cr_expect_eq(st, IOHW_OK, "%s: %s '%s' claimed, then status %d: %s",
                 t->name, dir, desc, st, iohw_backend_last_error(lb));
    cr_expect(memcmp(a, a0, (size_t)na * es) == 0 &&
              memcmp(b, b0, (size_t)nb * es) == 0,
              "%s wrote into its inputs on %s '%s'", t->name, dir, desc);

    if (st == IOHW_OK) {
        iohw_oracle_inputs in = {0};
        iohw_oracle_result r;
        iohw_error err;
        char first[256] = "";
        if (bwd_d) {
            in.dy = a;
            in.w = b;
        } else {
            in.x = a;
            in.dy = b;
        }
        cr_assert_eq(iohw_oracle_run_inputs(p, &in, IOHW_ORACLE_DEFINITION, 1,
                                            &r, &err), 0, "%s", err.msg);
        int64_t bad = mismatches(p, &r, out, first, sizeof first);
        cr_expect_eq(bad, 0, "%s: %s '%s': %lld mismatches, first %s",
                     t->name, dir, desc, (long long)bad, first);
        iohw_oracle_result_free(&r);
    }
    free(a);
    free(b);
    free(a0);
    free(b0);
    free(out);
    return 1;
}

/* Every case in both directions; returns how many of the core ones were
 * claimed (2 * N_CORE when all were), and counts every claim in *claimed. */
static int check_all(const iohw_loaded_backend *lb, int *claimed)
{
    int core = 0;
    *claimed = 0;
    cr_assert(IOHW_HAS_MEMBER(lb->table, iohw_backend, run_bwd_weights) &&
              lb->table->run_bwd_data != NULL &&
              lb->table->run_bwd_weights != NULL,
              "%s has no backward entry points", lb->table->name);
    for (size_t i = 0; i < NELEMS(CASES); i++) {
        iohw_desc d;
        iohw_error err;
        cr_assert_eq(iohw_desc_parse(CASES[i], &d, &err), 0, "%s", err.msg);
        for (int dir = IOHW_DIR_BWD_D; dir <= IOHW_DIR_BWD_W; dir++) {
            iohw_problem p = d.p;
            p.direction = dir;
            if (dir == IOHW_DIR_BWD_D)
                p.has_bias = 0;
            cr_assert_eq(iohw_problem_validate(&p, &err), 0, "%s", err.msg);
            int c = check_problem(lb, &p, CASES[i]);
            *claimed += c;
            if (i < N_CORE)
                core += c;
        }
    }
    return core;
}

Test(adapter_bwd, torch)
{
    iohw_loaded_backend lb;
    int claimed;
    load_or_skip("iohw_torch", &lb);
    /* libtorch's CPU kernels compute f32 and f64 in both directions. */
    cr_expect_eq(check_all(&lb, &claimed), 2 * N_CORE,
                 "torch must claim every core problem");
    cr_expect_geq(claimed, 2 * N_CORE + 12, "torch claimed only %d", claimed);
    iohw_backend_unload(&lb);
}

Test(adapter_bwd, onednn)
{
    iohw_loaded_backend lb;
    int claimed;
    load_or_skip("iohw_onednn", &lb);
    /* oneDNN has f32 in both directions on every x86-64 CPU (never f64). */
    cr_expect_eq(check_all(&lb, &claimed), 2 * N_CORE,
                 "onednn must claim every core problem");
    iohw_backend_unload(&lb);
}

/* A backward problem is not run()'s, and an entry point is not another
 * direction's: both adapters say so. */
Test(adapter_bwd, wrong_entry_points)
{
    const char *names[] = {"iohw_torch", "iohw_onednn"};
    for (size_t i = 0; i < NELEMS(names); i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/lib%s.so", IOHW_BACKEND_DIR, names[i]);
        if (access(path, F_OK) != 0)
            continue;
        iohw_loaded_backend lb;
        iohw_desc d;
        iohw_error err;
        float buf[64] = {0};
        load_or_skip(names[i], &lb);
        cr_assert_eq(iohw_desc_parse("ci=2 co=2 in=3 k=2", &d, &err), 0);
        d.p.direction = IOHW_DIR_BWD_D;
        cr_expect_eq(lb.table->run(lb.ctx, &d.p, buf, buf, NULL, buf),
                     IOHW_INVALID_PROBLEM, "%s run() took BWD_D", names[i]);
        cr_expect(strstr(iohw_backend_last_error(&lb), "BWD_D") != NULL,
                  "%s: '%s'", names[i], iohw_backend_last_error(&lb));
        cr_expect_eq(lb.table->run_bwd_weights(lb.ctx, &d.p, buf, buf, buf,
                                               NULL),
                     IOHW_INVALID_PROBLEM,
                     "%s run_bwd_weights() took BWD_D", names[i]);
        iohw_backend_unload(&lb);
    }
}
