/*
 * tests/test_fill_exact.c - the `exact` fill really is exact: for problems
 * with few and with very many terms (the sparse fallback of f16 and bf16),
 * in every dtype, y computed in the dtype's own arithmetic (rounding after
 * every addition) in two summation orders equals the oracle's y bit for bit,
 * and sum |term| + |bias| stays below 2^p_bits so that every order is exact.
 * The same holds for the `subnormal` fill in units of the smallest
 * subnormal, whose results are mostly subnormal; and every output element
 * of the `ties` fill is at most one nonzero product, which the oracle rounds
 * once (ties among them in f16 and bf16).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

static const iohw_dtype all_dtypes[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};

static iohw_desc parse_dt(const char *text, iohw_dtype dt)
{
    char buf[512];
    iohw_desc d;
    iohw_error e;
    snprintf(buf, sizeof buf, "%s dt=%s", text, iohw_dtype_name(dt));
    memset(&d, 0, sizeof d);
    cr_assert_eq(iohw_desc_parse(buf, &d, &e), 0, "descriptor '%s': %s", buf, e.msg);
    return d;
}

/* The products of output y[n][co][o...] of canonical tensors (x[N][C_in][L],
 * w[C_in][Mg][K]), in the order c, then kernel positions row-major; written
 * from the definition i*S + k*D - P = o.  Returns the count. */
static int64_t output_terms(const iohw_problem *p, const double *x, const double *w,
                            int64_t n, int64_t co, const int64_t *o, double *terms)
{
    const int R = (int)p->rank;
    const int64_t G = p->groups, Cg = p->in_channels / G, Mg = p->out_channels / G;
    const int64_t g = co / Mg, m = co % Mg;
    int64_t L = 1, K = 1, nt = 0;
    for (int a = 0; a < R; a++) {
        L *= p->in_size[a];
        K *= p->kernel[a];
    }
    for (int64_t c = 0; c < Cg; c++) {
        const int64_t ci = g * Cg + c;
        for (int64_t kk = 0; kk < K; kk++) {
            int64_t rest = kk, xi = 0, ok = 1, k[3], i[3];
            for (int a = R - 1; a >= 0; a--) {
                k[a] = rest % p->kernel[a];
                rest /= p->kernel[a];
            }
            for (int a = 0; a < R; a++) {
                int64_t v = o[a] + p->pad_begin[a] - k[a] * p->dilation[a];
                if (v < 0 || v % p->stride[a] != 0 || v / p->stride[a] >= p->in_size[a])
                    ok = 0;
                i[a] = ok ? v / p->stride[a] : 0;
                xi = xi * p->in_size[a] + i[a];
            }
            if (!ok)
                continue;
            terms[nt++] = x[(n * p->in_channels + ci) * L + xi] * w[(ci * Mg + m) * K + kk];
        }
    }
    return nt;
}

static double *load_all(iohw_dtype dt, const void *src, size_t n)
{
    double *d = malloc((n > 0 ? n : 1) * sizeof(double));
    cr_assert(d != NULL);
    iohw_dtype_to_double(dt, src, d, n);
    return d;
}

static int is_integer(double v)
{
    return isfinite(v) && v == floor(v);
}

/* A case made from a descriptor, its inputs as doubles (canonical: the
 * default layouts), and room for one output element's terms. */
typedef struct made {
    iohw_desc d;
    iohw_case c;
    double *x, *w, *b, *terms;
    size_t nx, nw, nb, ny;
} made;

static void made_init(made *m, const char *problem, iohw_dtype dt)
{
    iohw_error e;
    const iohw_problem *p = &m->d.p;
    m->d = parse_dt(problem, dt);
    cr_assert_eq(iohw_make_case(&m->d, "fill", NULL, 1, &m->c, &e), 0, "%s: %s", problem,
                 e.msg);
    m->nx = (size_t)iohw_problem_x_count(p);
    m->nw = (size_t)iohw_problem_w_count(p);
    m->nb = (size_t)iohw_problem_bias_count(p);
    m->ny = (size_t)iohw_problem_y_count(p);
    m->x = load_all(dt, m->c.x, m->nx);
    m->w = load_all(dt, m->c.w, m->nw);
    m->b = load_all(dt, m->c.bias, m->nb);
    int64_t K = 1;
    for (uint32_t a = 0; a < p->rank; a++)
        K *= p->kernel[a];
    m->terms = malloc((size_t)(p->in_channels * K) * sizeof(double));
    cr_assert(m->terms != NULL);
}

static void made_free(made *m)
{
    free(m->terms);
    free(m->x);
    free(m->w);
    free(m->b);
    iohw_case_free(&m->c);
}

/* The terms of output element j (canonical order); returns their count and
 * sets *co to its output channel. */
static int64_t made_terms(made *m, size_t j, int64_t *co)
{
    const iohw_problem *p = &m->d.p;
    int64_t rest = (int64_t)j, o[3] = {0, 0, 0};
    for (int a = (int)p->rank - 1; a >= 0; a--) {
        o[a] = rest % p->out_size[a];
        rest /= p->out_size[a];
    }
    *co = rest % p->out_channels;
    return output_terms(p, m->x, m->w, rest / p->out_channels, *co, o, m->terms);
}

/* Sums in the dtype's own arithmetic (rounding after every addition) in two
 * orders, and requires both to equal the oracle's y bit for bit (a zero's
 * sign aside), and the bound sum |term| + |bias| < 2^p_bits that makes every
 * order exact; x and bias in units of `unit`.  Returns the number of
 * subnormal results. */
static int check_exact(const char *problem, iohw_dtype dt, double unit)
{
    const double limit = unit * (dt == IOHW_F32 ? 0x1p24 : dt == IOHW_F64 ? 0x1p53
                                 : dt == IOHW_F16 ? 0x1p11 : 0x1p8);
    const double normal = dt == IOHW_F64 ? 0x1p-1022 : dt == IOHW_F16 ? 0x1p-14 : 0x1p-126;
    int subnormal = 0, nonzero = 0;
    made m;

    made_init(&m, problem, dt);
    for (size_t j = 0; j < m.nx; j++)
        cr_assert(is_integer(m.x[j] / unit), "x[%zu] = %g", j, m.x[j]);
    for (size_t j = 0; j < m.nw; j++)
        cr_assert(is_integer(m.w[j]) && m.w[j] != 0, "w[%zu] = %g", j, m.w[j]);
    for (size_t j = 0; j < m.nb; j++)
        cr_assert(is_integer(m.b[j] / unit), "bias[%zu] = %g", j, m.b[j]);

    for (size_t j = 0; j < m.ny; j++) {
        int64_t co;
        const int64_t nt = made_terms(&m, j, &co);
        const double bias = m.nb > 0 ? m.b[co] : 0.0;
        double bound = fabs(bias), fwd = bias, bwd = 0.0;
        for (int64_t t = 0; t < nt; t++) {
            bound += fabs(m.terms[t]);
            fwd = iohw_dtype_round(dt, fwd + m.terms[t]);
        }
        for (int64_t t = nt - 1; t >= 0; t--)
            bwd = iohw_dtype_round(dt, bwd + m.terms[t]);
        bwd = iohw_dtype_round(dt, bwd + bias);
        cr_assert_lt(bound, limit, "%s %s: y[%zu] sums up to %g", problem,
                     iohw_dtype_name(dt), j, bound);

        double y = iohw_dtype_load(dt, m.c.y, j);
        cr_assert(fwd == y && bwd == y, "%s %s: y[%zu]: oracle %.17g, forward %.17g, "
                  "backward %.17g", problem, iohw_dtype_name(dt), j, y, fwd, bwd);
        if (y != 0.0) {
            cr_assert_eq(signbit(y), signbit(fwd));
            nonzero++;
            subnormal += fabs(y) < normal;
        }
        cr_assert(m.c.y_f64[j] == y, "y_f64[%zu] = %.17g, y = %.17g", j, m.c.y_f64[j], y);
    }
    cr_assert_gt(nonzero, 0, "%s %s: every output is zero", problem, iohw_dtype_name(dt));
    made_free(&m);
    return subnormal;
}

static const char *const exact_problems[] = {
    "n=2 ci=3 co=4 in=5x4 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 fill=exact seed=3",
    "ci=4 co=6 g=2 in=7 k=4 s=3 pad=2 bias=1 fill=exact seed=5",
    "ci=2 co=2 in=3x3x3 k=2x2x2 s=1x2x1 fill=exact",
    /* 40 * 9 = 360 terms: beyond bf16's 2^8, the sparse fallback. */
    "ci=40 co=2 in=6x6 k=3x3 bias=1 fill=exact",
    /* 300 * 9 = 2700 terms: beyond f16's 2^11 too. */
    "ci=300 co=1 in=4x4 k=3x3 fill=exact",
};

Test(fill_exact, every_partial_sum_is_exact_in_every_dtype)
{
    for (size_t j = 0; j < sizeof exact_problems / sizeof exact_problems[0]; j++)
        for (size_t t = 0; t < 4; t++)
            (void)check_exact(exact_problems[j], all_dtypes[t], 1.0);
}

static const char *const subnormal_problems[] = {
    "n=2 ci=3 co=4 in=5x4 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 fill=subnormal seed=3",
    "ci=4 co=6 g=2 in=7 k=4 s=3 pad=2 bias=1 fill=subnormal seed=5",
    "ci=40 co=2 in=6x6 k=3x3 bias=1 fill=subnormal",
};

Test(fill_exact, the_subnormal_fill_is_exact_with_subnormal_results_in_every_dtype)
{
    static const double unit[] = {0x1p-149, 0x1p-1074, 0x1p-24, 0x1p-133};
    for (size_t j = 0; j < sizeof subnormal_problems / sizeof subnormal_problems[0]; j++)
        for (size_t t = 0; t < 4; t++)
            cr_expect_gt(check_exact(subnormal_problems[j], all_dtypes[t], unit[t]), 0,
                         "%s %s: no subnormal result", subnormal_problems[j],
                         iohw_dtype_name(all_dtypes[t]));
}

/* Every output element of a ties case: at most one nonzero term, no bias,
 * y the term rounded once; counts the elements that needed rounding and
 * the ties (exactly halfway between y and a neighbour). */
static void check_ties(const char *problem, iohw_dtype dt, int *rounded, int *ties)
{
    made m;

    made_init(&m, problem, dt);
    for (size_t j = 0; j < m.nb; j++)
        cr_assert(m.b[j] == 0.0, "bias[%zu] = %g", j, m.b[j]);
    for (size_t j = 0; j < m.ny; j++) {
        int64_t co;
        const int64_t nt = made_terms(&m, j, &co);
        double sum = 0.0;
        int nonzero = 0;
        for (int64_t t = 0; t < nt; t++) {
            nonzero += m.terms[t] != 0.0;
            sum += m.terms[t];
        }
        cr_assert_leq(nonzero, 1, "%s %s: y[%zu] has %d nonzero terms", problem,
                      iohw_dtype_name(dt), j, nonzero);
        const double y = iohw_dtype_load(dt, m.c.y, j);
        cr_assert(y == iohw_dtype_round(dt, sum), "%s: y[%zu] = %g, term %.17g", problem, j,
                  y, sum);
        if (y != sum) {
            (*rounded)++;
            const double other = 2.0 * sum - y;   /* the mirror of y about sum */
            *ties += iohw_dtype_round(dt, other) == other;
        }
    }
    made_free(&m);
}

Test(fill_exact, the_ties_fill_has_one_product_per_output_rounded_once_with_ties)
{
    static const char *const problems[] = {
        "ci=2 co=3 in=9 k=4 s=2 fill=ties seed=3",
        "n=2 ci=6 co=4 g=2 in=5x4 k=3x3 s=2x1 d=1x2 pad=1x0:1 bias=1 fill=ties",
        "ci=2 co=2 in=3x3x2 k=2x2x2 s=1x2x1 fill=ties",
    };
    for (size_t t = 0; t < 4; t++) {
        int rounded = 0, ties = 0;
        for (size_t j = 0; j < sizeof problems / sizeof problems[0]; j++)
            check_ties(problems[j], all_dtypes[t], &rounded, &ties);
        /* f64 products are rounded in double already. */
        if (all_dtypes[t] != IOHW_F64)
            cr_expect_gt(rounded, 0, "%s: no result needed rounding",
                         iohw_dtype_name(all_dtypes[t]));
        if (all_dtypes[t] == IOHW_F16 || all_dtypes[t] == IOHW_BF16)
            cr_expect_gt(ties, 0, "%s: no tie", iohw_dtype_name(all_dtypes[t]));
    }
}
