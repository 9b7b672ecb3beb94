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

/* Sums in the dtype's own arithmetic (rounding after every addition) in two
 * orders, and requires both to equal the oracle's y bit for bit (a zero's
 * sign aside), and the bound sum |term| + |bias| < 2^p_bits that makes every
 * order exact. */
static int check_exact(const char *problem, iohw_dtype dt, double unit)
{
    iohw_desc d = parse_dt(problem, dt);
    const iohw_problem *p = &d.p;
    const double limit = unit * (dt == IOHW_F32 ? 0x1p24 : dt == IOHW_F64 ? 0x1p53
                                 : dt == IOHW_F16 ? 0x1p11 : 0x1p8);
    const double normal = dt == IOHW_F64 ? 0x1p-1022 : dt == IOHW_F16 ? 0x1p-14 : 0x1p-126;
    int subnormal = 0;
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "exact", NULL, 1, &c, &e), 0, "%s: %s", problem, e.msg);

    const size_t nx = (size_t)iohw_problem_x_count(p), nw = (size_t)iohw_problem_w_count(p);
    const size_t nb = (size_t)iohw_problem_bias_count(p), ny = (size_t)iohw_problem_y_count(p);
    double *x = load_all(dt, c.x, nx), *w = load_all(dt, c.w, nw);
    double *b = load_all(dt, c.bias, nb);
    for (size_t j = 0; j < nx; j++)
        cr_assert(is_integer(x[j] / unit), "x[%zu] = %g", j, x[j]);
    for (size_t j = 0; j < nw; j++)
        cr_assert(is_integer(w[j]) && w[j] != 0, "w[%zu] = %g", j, w[j]);
    for (size_t j = 0; j < nb; j++)
        cr_assert(is_integer(b[j] / unit), "bias[%zu] = %g", j, b[j]);

    int64_t K = 1, O = 1;
    for (uint32_t a = 0; a < p->rank; a++) {
        K *= p->kernel[a];
        O *= p->out_size[a];
    }
    double *terms = malloc((size_t)(p->in_channels * K) * sizeof(double));
    cr_assert(terms != NULL);
    int nonzero = 0;
    for (size_t j = 0; j < ny; j++) {
        /* Canonical y index (the default layout NC+spatial). */
        int64_t rest = (int64_t)j, o[3] = {0, 0, 0};
        for (int a = (int)p->rank - 1; a >= 0; a--) {
            o[a] = rest % p->out_size[a];
            rest /= p->out_size[a];
        }
        const int64_t co = rest % p->out_channels, n = rest / p->out_channels;
        const double bias = nb > 0 ? b[co] : 0.0;
        int64_t nt = output_terms(p, x, w, n, co, o, terms);

        double bound = fabs(bias), fwd = bias, bwd = 0.0;
        for (int64_t t = 0; t < nt; t++) {
            bound += fabs(terms[t]);
            fwd = iohw_dtype_round(dt, fwd + terms[t]);
        }
        for (int64_t t = nt - 1; t >= 0; t--)
            bwd = iohw_dtype_round(dt, bwd + terms[t]);
        bwd = iohw_dtype_round(dt, bwd + bias);
        cr_assert_lt(bound, limit, "%s %s: y[%zu] sums up to %g", problem,
                     iohw_dtype_name(dt), j, bound);

        double y = iohw_dtype_load(dt, c.y, j);
        cr_assert(fwd == y && bwd == y, "%s %s: y[%zu]: oracle %.17g, forward %.17g, "
                  "backward %.17g", problem, iohw_dtype_name(dt), j, y, fwd, bwd);
        if (y != 0.0) {
            cr_assert_eq(signbit(y), signbit(fwd));
            nonzero++;
            subnormal += fabs(y) < normal;
        }
        cr_assert(c.y_f64[j] == y, "y_f64[%zu] = %.17g, y = %.17g", j, c.y_f64[j], y);
    }
    cr_assert_gt(nonzero, 0, "%s %s: every output is zero", problem, iohw_dtype_name(dt));
    free(terms);
    free(x);
    free(w);
    free(b);
    iohw_case_free(&c);
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
    iohw_desc d = parse_dt(problem, dt);
    const iohw_problem *p = &d.p;
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "ties", NULL, 1, &c, &e), 0, "%s: %s", problem, e.msg);
    const size_t nx = (size_t)iohw_problem_x_count(p), nw = (size_t)iohw_problem_w_count(p);
    const size_t nb = (size_t)iohw_problem_bias_count(p), ny = (size_t)iohw_problem_y_count(p);
    double *x = load_all(dt, c.x, nx), *w = load_all(dt, c.w, nw);
    double *b = load_all(dt, c.bias, nb);
    for (size_t j = 0; j < nb; j++)
        cr_assert(b[j] == 0.0, "bias[%zu] = %g", j, b[j]);
    int64_t K = 1;
    for (uint32_t a = 0; a < p->rank; a++)
        K *= p->kernel[a];
    double *terms = malloc((size_t)(p->in_channels * K) * sizeof(double));
    cr_assert(terms != NULL);
    for (size_t j = 0; j < ny; j++) {
        int64_t rest = (int64_t)j, o[3] = {0, 0, 0};
        for (int a = (int)p->rank - 1; a >= 0; a--) {
            o[a] = rest % p->out_size[a];
            rest /= p->out_size[a];
        }
        const int64_t nt = output_terms(p, x, w, rest / p->out_channels,
                                        rest % p->out_channels, o, terms);
        double sum = 0.0;
        int nonzero = 0;
        for (int64_t t = 0; t < nt; t++) {
            nonzero += terms[t] != 0.0;
            sum += terms[t];
        }
        cr_assert_leq(nonzero, 1, "%s %s: y[%zu] has %d nonzero terms", problem,
                      iohw_dtype_name(dt), j, nonzero);
        const double y = iohw_dtype_load(dt, c.y, j);
        cr_assert(y == iohw_dtype_round(dt, sum), "%s: y[%zu] = %g, term %.17g", problem, j,
                  y, sum);
        if (y != sum) {
            (*rounded)++;
            const double other = 2.0 * sum - y;   /* the mirror of y about sum */
            *ties += iohw_dtype_round(dt, other) == other;
        }
    }
    free(terms);
    free(x);
    free(w);
    free(b);
    iohw_case_free(&c);
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
