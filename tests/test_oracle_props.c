/*
 * tests/test_oracle_props.c - properties of the oracle, checked against
 * independent formulations (tests/support/reference_forms.c) on random
 * problems: scatter = gather, the adjoint identity, invariance under layout
 * permutation and thread count, the IOHW/OIHW seed example, and rounding to
 * every dtype.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/reference_forms.h"

/* A random small valid problem: ranks 1-3, groups, strides, dilations,
 * asymmetric pads (sometimes cropping real values), output_padding
 * (sometimes beyond max(S, D)), bias. */
static iohw_problem random_problem(iohw_rng *r, int with_bias)
{
    for (;;) {
        iohw_problem p;
        iohw_problem_init(&p);
        p.rank = (uint32_t)iohw_rng_range(r, 1, 3);
        const int64_t G = iohw_rng_range(r, 1, 3);
        p.groups = G;
        p.in_channels = G * iohw_rng_range(r, 1, 3);
        p.out_channels = G * iohw_rng_range(r, 1, 3);
        p.batch = iohw_rng_range(r, 1, 2);
        const int64_t lmax = p.rank == 3 ? 3 : 5;
        for (uint32_t a = 0; a < p.rank; a++) {
            p.in_size[a] = iohw_rng_range(r, 1, lmax);
            p.kernel[a] = iohw_rng_range(r, 1, 3);
            p.stride[a] = iohw_rng_range(r, 1, 3);
            p.dilation[a] = iohw_rng_range(r, 1, 3);
            p.pad_begin[a] = iohw_rng_range(r, 0, 3);
            p.pad_end[a] = iohw_rng_range(r, 0, 3);
            const int64_t lim = p.stride[a] > p.dilation[a] ? p.stride[a]
                                                            : p.dilation[a];
            p.output_padding[a] = iohw_rng_range(r, 0, lim);
        }
        p.has_bias = with_bias < 0 ? (int)iohw_rng_range(r, 0, 1) : with_bias;
        if (iohw_problem_finish(&p, NULL) == 0)
            return p;
    }
}

static double *ints(iohw_rng *r, int64_t n, int64_t lo, int64_t hi)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)iohw_rng_range(r, lo, hi);
    return v;
}

static double *normals(iohw_rng *r, int64_t n)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = iohw_rng_normal(r);
    return v;
}

static double *dalloc(int64_t n)
{
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    cr_assert(v != NULL);
    return v;
}

static void absolute(double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fabs(v[i]);
}

/* (a) The scatter form equals the gather form, y exactly; eb equals the
 * gather form of |x|, |w|, |bias|; terms_max equals the largest gather
 * result with all-ones x and w (each element then counts its terms). */
Test(oracle_props, scatter_form_equals_gather_form_on_random_problems)
{
    iohw_rng r;
    iohw_rng_seed(&r, 20240601);
    for (int it = 0; it < 400; it++) {
        const iohw_problem p = random_problem(&r, -1);
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p), nb = p.out_channels;
        double *x = ints(&r, nx, -4, 4), *w = ints(&r, nw, -4, 4);
        double *b = p.has_bias ? ints(&r, nb, -4, 4) : NULL;
        double *y = dalloc(ny), *eb = dalloc(ny), *ref = dalloc(ny);
        const int dd = (int)iohw_rng_range(&r, 0, 1);
        const int threads = (int)iohw_rng_range(&r, 1, 3);
        iohw_error err;
        cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, b, dd, threads, y, eb, &err),
                     0, "%s", err.msg);
        cr_assert_eq(iohw_ref_gather(&p, x, w, b, ref), 0);
        for (int64_t i = 0; i < ny; i++)
            cr_assert_eq(y[i], ref[i], "problem %d, y[%lld]: scatter %g, gather %g",
                         it, (long long)i, y[i], ref[i]);

        absolute(x, nx);
        absolute(w, nw);
        if (b != NULL)
            absolute(b, nb);
        cr_assert_eq(iohw_ref_gather(&p, x, w, b, ref), 0);
        for (int64_t i = 0; i < ny; i++)
            cr_assert_eq(eb[i], ref[i], "problem %d, eb[%lld]: %g, want %g",
                         it, (long long)i, eb[i], ref[i]);

        for (int64_t i = 0; i < nx; i++)
            x[i] = 1.0;
        for (int64_t i = 0; i < nw; i++)
            w[i] = 1.0;
        cr_assert_eq(iohw_ref_gather(&p, x, w, NULL, ref), 0);
        double most = 0.0;
        for (int64_t i = 0; i < ny; i++)
            most = ref[i] > most ? ref[i] : most;
        cr_assert_eq(iohw_oracle_terms_max(&p), (int64_t)most,
                     "problem %d: terms_max %lld, counted %g", it,
                     (long long)iohw_oracle_terms_max(&p), most);
        free(x); free(w); free(b); free(y); free(eb); free(ref);
    }
}

/* (a) The same on long 1-d and 2-d rows (the oracle works through rows
 * of more than 512 output columns per phase in blocks). */
Test(oracle_props, long_rows_equal_the_gather_form)
{
    iohw_rng r;
    iohw_rng_seed(&r, 99);
    for (int it = 0; it < 12; it++) {
        iohw_problem p;
        iohw_problem_init(&p);
        p.rank = 1 + (uint32_t)(it % 2);
        p.in_channels = 2;
        p.out_channels = 3;
        p.has_bias = 1;
        const int a = (int)p.rank - 1;
        p.in_size[a] = iohw_rng_range(&r, 900, 1300);
        p.kernel[a] = iohw_rng_range(&r, 1, 5);
        p.stride[a] = iohw_rng_range(&r, 1, 3);
        p.dilation[a] = iohw_rng_range(&r, 1, 3);
        p.pad_begin[a] = iohw_rng_range(&r, 0, 4);
        p.pad_end[a] = iohw_rng_range(&r, 0, 4);
        p.output_padding[a] = iohw_rng_range(&r, 0, 1);
        if (p.rank == 2) {
            p.in_size[0] = 2;
            p.kernel[0] = 2;
        }
        iohw_error err;
        cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p);
        double *x = ints(&r, nx, -4, 4), *w = ints(&r, nw, -4, 4);
        double *b = ints(&r, p.out_channels, -4, 4);
        double *y = dalloc(ny), *eb = dalloc(ny), *ref = dalloc(ny);
        cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, b, it % 2, 2, y, eb, &err),
                     0, "%s", err.msg);
        cr_assert_eq(iohw_ref_gather(&p, x, w, b, ref), 0);
        for (int64_t i = 0; i < ny; i++)
            cr_assert_eq(y[i], ref[i], "problem %d, y[%lld]: scatter %g, gather %g",
                         it, (long long)i, y[i], ref[i]);
        free(x); free(w); free(b); free(y); free(eb); free(ref);
    }
}

/* (b) <conv_transpose(x, w), v> = <x, conv(v, w)> with integer data, so
 * both sides are exact. */
Test(oracle_props, conv_transpose_is_the_adjoint_of_the_forward_convolution)
{
    iohw_rng r;
    iohw_rng_seed(&r, 77);
    for (int it = 0; it < 300; it++) {
        const iohw_problem p = random_problem(&r, 0);
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p);
        double *x = ints(&r, nx, -5, 5), *w = ints(&r, nw, -5, 5);
        double *v = ints(&r, ny, -5, 5);
        double *y = dalloc(ny), *eb = dalloc(ny), *z = dalloc(nx);
        iohw_error err;
        cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, NULL, 0, 1, y, eb, &err),
                     0, "%s", err.msg);
        cr_assert_eq(iohw_ref_conv_forward(&p, v, w, z), 0);
        double lhs = 0.0, rhs = 0.0;
        for (int64_t i = 0; i < ny; i++)
            lhs += y[i] * v[i];
        for (int64_t i = 0; i < nx; i++)
            rhs += x[i] * z[i];
        cr_assert_eq(lhs, rhs, "problem %d: <ct(x,w),v> = %g, <x,conv(v,w)> = %g",
                     it, lhs, rhs);
        free(x); free(w); free(v); free(y); free(eb); free(z);
    }
}

/* Next lexicographic permutation of s (length n); 0 after the last. */
static int next_perm(char *s, int n)
{
    int i = n - 2;
    while (i >= 0 && s[i] >= s[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (s[j] <= s[i])
        j--;
    char t = s[i]; s[i] = s[j]; s[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) {
        t = s[a]; s[a] = s[b]; s[b] = t;
    }
    return 1;
}

static void sort_chars(char *s)
{
    const int n = (int)strlen(s);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            char t = s[j]; s[j] = s[j - 1]; s[j - 1] = t;
        }
}

/* Runs the oracle on canonical double data re-expressed in the layouts of
 * q (and its dtype) and returns y_f64 and err_bound back in canonical
 * order (2*ny doubles). */
static double *run_in_layouts(const iohw_problem *q, const double *x,
                              const double *w, const double *b)
{
    iohw_error err;
    iohw_layout_map xm, wm, ym;
    cr_assert_eq(iohw_layout_data_map(q, 0, &xm, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_layout_weight_map(q, &wm, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_layout_data_map(q, 1, &ym, &err), 0, "%s", err.msg);
    const size_t es = iohw_dtype_size(q->dtype);
    double *xl = dalloc(xm.count), *wl = dalloc(wm.count);
    void *xt = malloc((size_t)xm.count * es), *wt = malloc((size_t)wm.count * es);
    void *bt = malloc((size_t)q->out_channels * es);
    cr_assert(xt != NULL && wt != NULL && bt != NULL);
    iohw_layout_from_canonical(&xm, sizeof(double), x, xl);
    iohw_layout_from_canonical(&wm, sizeof(double), w, wl);
    iohw_dtype_from_double(q->dtype, xl, xt, (size_t)xm.count);
    iohw_dtype_from_double(q->dtype, wl, wt, (size_t)wm.count);
    if (q->has_bias)
        iohw_dtype_from_double(q->dtype, b, bt, (size_t)q->out_channels);
    iohw_oracle_result res;
    cr_assert_eq(iohw_oracle_run(q, xt, wt, q->has_bias ? bt : NULL, 1, &res, &err),
                 0, "%s: %s %s", err.msg, q->data_layout, q->weight_layout);
    double *out = dalloc(2 * ym.count);
    iohw_layout_to_canonical(&ym, sizeof(double), res.y_f64, out);
    iohw_layout_to_canonical(&ym, sizeof(double), res.err_bound, out + ym.count);
    iohw_oracle_result_free(&res);
    free(xl); free(wl); free(xt); free(wt); free(bt);
    return out;
}

/* (c) The same problem with x and y in every data layout, and w in every
 * weight layout with and without G, gives bit-identical y_f64 and
 * err_bound once permuted back (ranks 1-3, f32 and f64). */
Test(oracle_props, every_layout_permutation_gives_the_same_result)
{
    iohw_rng r;
    iohw_rng_seed(&r, 5);
    for (int rank = 1; rank <= 3; rank++) {
        for (int f64 = 0; f64 <= 1; f64++) {
            iohw_problem p;
            iohw_problem_init(&p);
            p.rank = (uint32_t)rank;
            p.batch = 2;
            p.in_channels = 4;
            p.out_channels = 6;
            p.groups = 2;
            p.has_bias = 1;
            p.dtype = f64 ? IOHW_F64 : IOHW_F32;
            for (int a = 0; a < rank; a++) {
                p.in_size[a] = 2 + a;
                p.kernel[a] = 3 - a;
                p.stride[a] = 1 + a;
                p.dilation[a] = 2 - a % 2;
                p.pad_begin[a] = a;
                p.output_padding[a] = a > 0 ? 1 : 0;
            }
            iohw_error err;
            cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
            const int64_t ny = iohw_problem_y_count(&p);
            double *x = normals(&r, iohw_problem_x_count(&p));
            double *w = normals(&r, iohw_problem_w_count(&p));
            double *b = normals(&r, p.out_channels);
            double *base = run_in_layouts(&p, x, w, b);
            const char *sp = iohw_spatial_letters(rank);
            const char *heads[3] = {"NC", "IO", "GIO"};
            for (int kind = 0; kind < 3; kind++) {
                char s[IOHW_LAYOUT_MAX_DIMS + 1];
                snprintf(s, sizeof s, "%s%s", heads[kind], sp);
                sort_chars(s);
                int count = 0;
                do {
                    iohw_problem q = p;
                    strcpy(kind == 0 ? q.data_layout : q.weight_layout, s);
                    double *got = run_in_layouts(&q, x, w, b);
                    cr_assert(memcmp(got, base, (size_t)(2 * ny) * sizeof *got) == 0,
                              "rank %d: %s / %s differs from the canonical run",
                              rank, q.data_layout, q.weight_layout);
                    free(got);
                    count++;
                } while (next_perm(s, (int)strlen(s)));
                const int want[3][3] = {{6, 24, 120}, {6, 24, 120}, {24, 120, 720}};
                cr_assert_eq(count, want[kind][rank - 1]);
            }
            free(x); free(w); free(b); free(base);
        }
    }
}

/* A rank-2 f64 problem with distinct weight values, y in canonical order. */
static iohw_problem seed_problem(int64_t ci, int64_t co, int64_t g,
                                 const char *wl)
{
    iohw_problem p;
    iohw_problem_init(&p);
    p.rank = 2;
    p.in_channels = ci;
    p.out_channels = co;
    p.groups = g;
    p.in_size[0] = 3;
    p.in_size[1] = 4;
    p.kernel[0] = 5;
    p.kernel[1] = 5;
    p.dtype = IOHW_F64;
    strcpy(p.weight_layout, wl);
    iohw_error err;
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    return p;
}

static double *run_f64(const iohw_problem *p, const double *x, const double *w)
{
    iohw_oracle_result res;
    iohw_error err;
    cr_assert_eq(iohw_oracle_run(p, x, w, NULL, 1, &res, &err), 0, "%s", err.msg);
    double *y = res.y_f64;
    res.y_f64 = NULL;
    iohw_oracle_result_free(&res);
    return y;
}

static int64_t count_diff(const double *a, const double *b, int64_t n)
{
    int64_t d = 0;
    for (int64_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* (d) PyTorch's ConvTranspose2d(10, 30, 5, groups=2) has weight
 * [10, 15, 5, 5] in IOHW; declared OIHW the same numbers are stored
 * [15, 10, 5, 5].  IOHW memory mislabelled OIHW is read with I and O
 * exchanged and gives a different y. */
Test(oracle_props, the_seed_example_iohw_memory_declared_oihw_differs)
{
    iohw_problem pi = seed_problem(10, 30, 2, "IOHW");
    iohw_problem po = seed_problem(10, 30, 2, "OIHW");
    iohw_layout_map mi, mo;
    iohw_error err;
    cr_assert_eq(iohw_layout_weight_map(&pi, &mi, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_layout_weight_map(&po, &mo, &err), 0, "%s", err.msg);
    const int64_t si[4] = {10, 15, 5, 5}, so[4] = {15, 10, 5, 5};
    cr_assert_eq(mi.ndim, 4);
    cr_assert_eq(mo.ndim, 4);
    for (int a = 0; a < 4; a++) {
        cr_expect_eq(mi.shape[a], si[a], "IOHW shape[%d] = %lld", a, (long long)mi.shape[a]);
        cr_expect_eq(mo.shape[a], so[a], "OIHW shape[%d] = %lld", a, (long long)mo.shape[a]);
    }

    iohw_rng r;
    iohw_rng_seed(&r, 10);
    const int64_t ny = iohw_problem_y_count(&pi);
    double *x = ints(&r, iohw_problem_x_count(&pi), -3, 3);
    double *w = ints(&r, iohw_problem_w_count(&pi), -50, 50);
    double *yi = run_f64(&pi, x, w);
    double *yo = run_f64(&po, x, w);
    cr_expect_gt(count_diff(yi, yo, ny), ny / 2,
                 "IOHW memory read as OIHW must change most of y");

    /* Properly re-stored as OIHW (wo[o][i] = w[i][o]) it agrees. */
    double *wo = dalloc(mo.count);
    for (int64_t i = 0; i < 10; i++)
        for (int64_t o = 0; o < 15; o++)
            for (int64_t k = 0; k < 25; k++)
                wo[(o * 10 + i) * 25 + k] = w[(i * 15 + o) * 25 + k];
    double *yo2 = run_f64(&po, x, wo);
    cr_expect_eq(count_diff(yi, yo2, ny), 0);
    free(x); free(w); free(wo); free(yi); free(yo); free(yo2);
}

/* (d) When C_in = Mg the exchanged reading has the same shape, so only the
 * values show it: C_in=4, C_out=8, G=2 (Cg=2, Mg=4) and C_in=C_out=3, G=1.
 * Values distinct per (i, o) give a different y; values symmetric under
 * the exchange (w[a][b][k] = w[b][a][k]) give the same y - the bug hides. */
Test(oracle_props, with_cin_equal_to_mg_only_values_reveal_the_exchange)
{
    const int64_t cfg[2][3] = {{4, 8, 2}, {3, 3, 1}};
    iohw_rng r;
    iohw_rng_seed(&r, 11);
    for (int c = 0; c < 2; c++) {
        const int64_t CI = cfg[c][0], CO = cfg[c][1], G = cfg[c][2];
        iohw_problem pi = seed_problem(CI, CO, G, "IOHW");
        iohw_problem po = seed_problem(CI, CO, G, "OIHW");
        iohw_layout_map mi, mo;
        cr_assert_eq(iohw_layout_weight_map(&pi, &mi, NULL), 0);
        cr_assert_eq(iohw_layout_weight_map(&po, &mo, NULL), 0);
        for (int a = 0; a < 4; a++)
            cr_assert_eq(mi.shape[a], mo.shape[a], "same shape when C_in = Mg");
        const int64_t ny = iohw_problem_y_count(&pi), M = CO / G;
        cr_assert_eq(CI, M);
        double *x = ints(&r, iohw_problem_x_count(&pi), -3, 3);
        double *w = ints(&r, iohw_problem_w_count(&pi), -50, 50);
        double *yi = run_f64(&pi, x, w), *yo = run_f64(&po, x, w);
        cr_expect_gt(count_diff(yi, yo, ny), 0, "distinct values expose it");
        /* Symmetrise: memory [a][b][k] = [b][a][k]. */
        for (int64_t a = 0; a < CI; a++)
            for (int64_t b = 0; b < a; b++)
                for (int64_t k = 0; k < 25; k++)
                    w[(a * M + b) * 25 + k] = w[(b * M + a) * 25 + k];
        double *zi = run_f64(&pi, x, w), *zo = run_f64(&po, x, w);
        cr_expect_eq(count_diff(zi, zo, ny), 0, "symmetric values hide it");
        free(x); free(w); free(yi); free(yo); free(zi); free(zo);
    }
}

/* (e) threads = 1, 2 and 3 give bit-identical y and eb, in double and in
 * double-double. */
Test(oracle_props, thread_count_never_changes_a_bit)
{
    iohw_rng r;
    iohw_rng_seed(&r, 3);
    for (int it = 0; it < 40; it++) {
        iohw_problem p = random_problem(&r, 1);
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p);
        double *x = normals(&r, nx), *w = normals(&r, nw);
        double *b = normals(&r, p.out_channels);
        double *y[3], *eb[3];
        const int dd = it % 2;
        iohw_error err;
        for (int t = 0; t < 3; t++) {
            y[t] = dalloc(ny);
            eb[t] = dalloc(ny);
            cr_assert_eq(iohw_conv_transpose_ref(&p, x, w, b, dd, t + 1, y[t], eb[t], &err),
                         0, "%s", err.msg);
        }
        for (int t = 1; t < 3; t++) {
            cr_assert(memcmp(y[0], y[t], (size_t)ny * sizeof(double)) == 0,
                      "problem %d: y differs with %d threads", it, t + 1);
            cr_assert(memcmp(eb[0], eb[t], (size_t)ny * sizeof(double)) == 0,
                      "problem %d: eb differs with %d threads", it, t + 1);
        }
        for (int t = 0; t < 3; t++) {
            free(y[t]);
            free(eb[t]);
        }
        free(x); free(w); free(b);
    }
}

/* (f) For every dtype: y_f64 equals the gather form on the decoded inputs
 * (integers up to 40 are exact in every dtype and their sums in double),
 * and y is y_f64 rounded to the dtype, element by element. */
Test(oracle_props, y_is_y_f64_rounded_in_every_dtype)
{
    const iohw_dtype dts[4] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};
    iohw_rng r;
    iohw_rng_seed(&r, 16);
    for (int it = 0; it < 60; it++) {
        iohw_problem p = random_problem(&r, -1);
        p.dtype = dts[it % 4];
        const iohw_dtype dt = p.dtype;
        const int64_t nx = iohw_problem_x_count(&p), nw = iohw_problem_w_count(&p);
        const int64_t ny = iohw_problem_y_count(&p), nb = p.out_channels;
        const size_t es = iohw_dtype_size(dt);
        double *x = ints(&r, nx, -40, 40), *w = ints(&r, nw, -40, 40);
        double *b = ints(&r, nb, -40, 40), *ref = dalloc(ny);
        void *xt = malloc((size_t)nx * es), *wt = malloc((size_t)nw * es);
        void *bt = malloc((size_t)nb * es);
        cr_assert(xt != NULL && wt != NULL && bt != NULL);
        iohw_dtype_from_double(dt, x, xt, (size_t)nx);
        iohw_dtype_from_double(dt, w, wt, (size_t)nw);
        iohw_dtype_from_double(dt, b, bt, (size_t)nb);
        iohw_oracle_result res;
        iohw_error err;
        cr_assert_eq(iohw_oracle_run(&p, xt, wt, bt, 2, &res, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_ref_gather(&p, x, w, p.has_bias ? b : NULL, ref), 0);
        for (int64_t i = 0; i < ny; i++) {
            cr_assert_eq(res.y_f64[i], ref[i], "%s: y_f64[%lld] = %g, want %g",
                         iohw_dtype_name(dt), (long long)i, res.y_f64[i], ref[i]);
            const double got = iohw_dtype_load(dt, res.y, (size_t)i);
            const double want = iohw_dtype_round(dt, res.y_f64[i]);
            cr_assert_eq(got, want, "%s: y[%lld] = %g, want round(%g) = %g",
                         iohw_dtype_name(dt), (long long)i, got, res.y_f64[i], want);
        }
        iohw_oracle_result_free(&res);
        free(x); free(w); free(b); free(ref); free(xt); free(wt); free(bt);
    }
}
