/*
 * tests/test_rng_fill.c - the generators: the random number generator
 * against its published definitions, the fills (determinism, independence of
 * layouts and of the bias, distinct kernel values, special values,
 * cancellation, ranges).  The exactness of `exact` is in test_fill_exact.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

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

/* ---------------------------------------------------------------------- */
/* Helpers. */

static iohw_desc parse(const char *text)
{
    iohw_desc d;
    iohw_error e;
    memset(&d, 0, sizeof d);
    int rc = iohw_desc_parse(text, &d, &e);
    cr_assert_eq(rc, 0, "descriptor '%s': %s", text, e.msg);
    return d;
}

static iohw_desc parse_dt(const char *text, iohw_dtype dt)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s dt=%s", text, iohw_dtype_name(dt));
    return parse(buf);
}

typedef struct inputs {
    void *x, *w, *bias;
    size_t nx, nw, nb, es;
} inputs;

static inputs fill_desc(const iohw_desc *d, const char *fill, uint64_t seed)
{
    inputs in;
    iohw_error e;
    in.es = iohw_dtype_size(d->p.dtype);
    in.nx = (size_t)iohw_problem_x_count(&d->p);
    in.nw = (size_t)iohw_problem_w_count(&d->p);
    in.nb = (size_t)iohw_problem_bias_count(&d->p);
    in.x = calloc(in.nx, in.es);
    in.w = calloc(in.nw, in.es);
    in.bias = in.nb > 0 ? calloc(in.nb, in.es) : NULL;
    cr_assert(in.x != NULL && in.w != NULL);
    int rc = iohw_fill_inputs(&d->p, fill, seed, in.x, in.w, in.bias, &e);
    cr_assert_eq(rc, 0, "fill %s: %s", fill, e.msg);
    return in;
}

static void inputs_free(inputs *in)
{
    free(in->x);
    free(in->w);
    free(in->bias);
}

static int same_bytes(const void *a, const void *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

/* ---------------------------------------------------------------------- */
/* The random number generator. */

/* splitmix64 as published by Steele, Lea and Flood (and in Vigna's
 * reference code), written out again here. */
static uint64_t ref_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* xoshiro256** as published by Blackman and Vigna. */
static uint64_t ref_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t ref_xoshiro(uint64_t s[4])
{
    uint64_t result = ref_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ref_rotl(s[3], 45);
    return result;
}

Test(rng, seeding_uses_the_published_splitmix64_outputs)
{
    iohw_rng r;
    iohw_rng_seed(&r, 0);
    /* The first outputs of splitmix64 from state 0 (a published test
     * vector of the generator). */
    cr_assert_eq(r.s[0], 0xe220a8397b1dcdafULL);
    cr_assert_eq(r.s[1], 0x6e789e6aa1b965f4ULL);
    cr_assert_eq(r.s[2], 0x06c45d188009454fULL);

    const uint64_t seeds[] = {1, 7, 0xdeadbeefULL, UINT64_MAX};
    for (size_t j = 0; j < sizeof seeds / sizeof seeds[0]; j++) {
        uint64_t state = seeds[j];
        iohw_rng_seed(&r, seeds[j]);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(r.s[i], ref_splitmix64(&state), "seed %llu word %d",
                         (unsigned long long)seeds[j], i);
    }
}

Test(rng, next_is_xoshiro256starstar)
{
    /* From the state {1, 2, 3, 4}, by hand: rotl(2*5, 7)*9 = 1280*9 = 11520;
     * after the update s1 = 2^(3^1) = 0, so the second output is 0; then
     * s1 = 262149 and the third is (262149*5 << 7)*9 = 1509978240. */
    iohw_rng r = {{1, 2, 3, 4}};
    cr_assert_eq(iohw_rng_next(&r), 11520ULL);
    cr_assert_eq(iohw_rng_next(&r), 0ULL);
    cr_assert_eq(iohw_rng_next(&r), 1509978240ULL);

    uint64_t s[4];
    iohw_rng_seed(&r, 12345);
    memcpy(s, r.s, sizeof s);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(iohw_rng_next(&r), ref_xoshiro(s), "output %d", i);
}

Test(rng, the_same_seed_gives_the_same_stream_and_another_seed_another)
{
    iohw_rng a, b, c;
    iohw_rng_seed(&a, 42);
    iohw_rng_seed(&b, 42);
    iohw_rng_seed(&c, 43);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t va = iohw_rng_next(&a);
        cr_assert_eq(va, iohw_rng_next(&b));
        differ += va != iohw_rng_next(&c);
    }
    cr_assert_gt(differ, 95);
}

Test(rng, uniform_is_the_top_53_bits_and_lies_in_0_1)
{
    iohw_rng a, b;
    iohw_rng_seed(&a, 9);
    iohw_rng_seed(&b, 9);
    double sum = 0.0;
    for (int i = 0; i < 100000; i++) {
        double u = iohw_rng_uniform(&a);
        cr_assert(u >= 0.0 && u < 1.0, "u = %g", u);
        cr_assert_eq(u, (double)(iohw_rng_next(&b) >> 11) / 9007199254740992.0);
        sum += u;
    }
    cr_assert_float_eq(sum / 100000, 0.5, 0.005);
}

Test(rng, normal_has_mean_0_and_variance_1)
{
    iohw_rng r;
    iohw_rng_seed(&r, 2024);
    const int n = 100000;
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < n; i++) {
        double v = iohw_rng_normal(&r);
        cr_assert(isfinite(v));
        sum += v;
        sum2 += v * v;
    }
    double mean = sum / n;
    double var = sum2 / n - mean * mean;
    /* Standard errors: 1/sqrt(n) = 0.0032 for the mean, sqrt(2/n) = 0.0045
     * for the variance; allow about five of them. */
    cr_assert_float_eq(mean, 0.0, 0.016);
    cr_assert_float_eq(var, 1.0, 0.025);
}

/* The normal CDF, Phi(t) = erfc(-t / sqrt 2) / 2. */
static double phi(double t)
{
    return 0.5 * erfc(-t / sqrt(2.0));
}

Test(rng, normal_follows_the_normal_law_in_the_middle_and_in_both_tails)
{
    /* Counts in 16 bins of width 0.5 over [-4, 4] and in the two tails
     * beyond, against n times their probabilities: a chi-square of 17
     * degrees of freedom (mean 17, sd 5.8; 60 is far out).  The ziggurat's
     * tail beyond 3.654 is its own code path: 2.6e-4 of the draws, 520
     * expected, must be there too. */
    iohw_rng r;
    iohw_rng_seed(&r, 77);
    const int n = 2000000;
    long count[18] = {0}, beyond_r = 0;
    for (int i = 0; i < n; i++) {
        double v = iohw_rng_normal(&r);
        int b = v < -4.0 ? 0 : v >= 4.0 ? 17 : 1 + (int)floor((v + 4.0) * 2.0);
        count[b]++;
        beyond_r += fabs(v) > 3.6541528853610088;
    }
    double chi2 = 0.0;
    for (int b = 0; b < 18; b++) {
        double lo = b == 0 ? -INFINITY : -4.0 + (b - 1) * 0.5;
        double hi = b == 17 ? INFINITY : -4.0 + b * 0.5;
        double e = n * (phi(hi) - phi(lo));
        chi2 += (count[b] - e) * (count[b] - e) / e;
    }
    cr_assert_lt(chi2, 60.0, "chi-square %g over 18 bins", chi2);
    double e_r = n * 2.0 * phi(-3.6541528853610088);
    cr_assert(fabs(beyond_r - e_r) < 5.0 * sqrt(e_r), "%ld beyond R, %g expected",
              beyond_r, e_r);
}

Test(rng, range_stays_inside_and_reaches_every_value)
{
    iohw_rng r;
    iohw_rng_seed(&r, 5);
    int seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        int64_t v = iohw_rng_range(&r, -3, 3);
        cr_assert(v >= -3 && v <= 3, "v = %lld", (long long)v);
        seen[v + 3]++;
    }
    for (int j = 0; j < 7; j++)
        cr_assert_gt(seen[j], 800, "value %d seen %d times of 7000", j - 3, seen[j]);
    cr_assert_eq(iohw_rng_range(&r, 4, 4), 4);
    cr_assert_eq(iohw_rng_range(&r, 4, 2), 4);
    /* The full 64-bit span does not hang. */
    (void)iohw_rng_range(&r, INT64_MIN, INT64_MAX);
}

/* ---------------------------------------------------------------------- */
/* Fills: determinism and independence. */

static const char *base_problem =
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1";

Test(fill, the_same_seed_gives_the_same_bytes_and_another_seed_others)
{
    const char *const *fills = iohw_fill_names();
    for (size_t t = 0; t < 4; t++) {
        iohw_desc d = parse_dt(base_problem, all_dtypes[t]);
        for (int f = 0; fills[f] != NULL; f++) {
            inputs a = fill_desc(&d, fills[f], 7);
            inputs b = fill_desc(&d, fills[f], 7);
            inputs c = fill_desc(&d, fills[f], 8);
            cr_assert(same_bytes(a.x, b.x, a.nx * a.es), "%s x", fills[f]);
            cr_assert(same_bytes(a.w, b.w, a.nw * a.es), "%s w", fills[f]);
            cr_assert(same_bytes(a.bias, b.bias, a.nb * a.es), "%s bias", fills[f]);
            cr_assert(!same_bytes(a.x, c.x, a.nx * a.es), "%s x, seeds 7 and 8", fills[f]);
            cr_assert(!same_bytes(a.w, c.w, a.nw * a.es), "%s w, seeds 7 and 8", fills[f]);
            inputs_free(&a);
            inputs_free(&b);
            inputs_free(&c);
        }
    }
}

Test(fill, adding_a_bias_leaves_x_and_w_unchanged)
{
    const char *const *fills = iohw_fill_names();
    iohw_desc with = parse("n=2 ci=4 co=6 in=5x7 k=3x2 bias=1");
    iohw_desc without = parse("n=2 ci=4 co=6 in=5x7 k=3x2 bias=0");
    for (int f = 0; fills[f] != NULL; f++) {
        inputs a = fill_desc(&with, fills[f], 3);
        inputs b = fill_desc(&without, fills[f], 3);
        cr_assert(same_bytes(a.x, b.x, a.nx * a.es), "%s x", fills[f]);
        cr_assert(same_bytes(a.w, b.w, a.nw * a.es), "%s w", fills[f]);
        inputs_free(&a);
        inputs_free(&b);
    }
}

Test(fill, x_w_and_bias_draw_from_different_streams)
{
    /* Default layouts, so memory order is canonical.  With one stream for
     * all three, each tensor would start with the same numbers. */
    iohw_desc d = parse("ci=2 co=8 in=8 k=4 bias=1");
    inputs a = fill_desc(&d, "normal", 1);
    const float *x = a.x, *w = a.w, *b = a.bias;
    int same_xw = 0, same_xb = 0;
    for (int i = 0; i < 8; i++) {
        same_xw += x[i] == w[i];
        same_xb += x[i] == b[i];
    }
    cr_assert_lt(same_xw, 2);
    cr_assert_lt(same_xb, 2);
    inputs_free(&a);
}

/* Element of a 2-d problem's x or w by canonical indices, read from the
 * tensor in the given layout; the offsets are the row-major formulas of the
 * layout letters, written out here. */
static size_t x_offset(const char *layout, const iohw_problem *p, int64_t n,
                       int64_t c, int64_t h, int64_t w)
{
    const int64_t C = p->in_channels, H = p->in_size[0], W = p->in_size[1];
    if (strcmp(layout, "NCHW") == 0)
        return (size_t)(((n * C + c) * H + h) * W + w);
    /* NHWC */
    return (size_t)(((n * H + h) * W + w) * C + c);
}

static size_t w_offset(const char *layout, const iohw_problem *p, int64_t i,
                       int64_t o, int64_t kh, int64_t kw)
{
    const int64_t CI = p->in_channels, G = p->groups, Cg = CI / G;
    const int64_t Mg = p->out_channels / G, KH = p->kernel[0], KW = p->kernel[1];
    if (strcmp(layout, "IOHW") == 0)
        return (size_t)(((i * Mg + o) * KH + kh) * KW + kw);
    if (strcmp(layout, "HWOI") == 0)
        return (size_t)(((kh * KW + kw) * Mg + o) * CI + i);
    /* GOIHW: G, O (Mg), I (Cg), H, W */
    const int64_t g = i / Cg, il = i % Cg;
    return (size_t)((((g * Mg + o) * Cg + il) * KH + kh) * KW + kw);
}

static void check_layout_pair(const char *problem, const char *xl1, const char *wl1,
                              const char *xl2, const char *wl2)
{
    const char *const *fills = iohw_fill_names();
    char t1[512], t2[512];
    for (size_t t = 0; t < 4; t++) {
        const char *dt = iohw_dtype_name(all_dtypes[t]);
        snprintf(t1, sizeof t1, "%s dt=%s xl=%s wl=%s", problem, dt, xl1, wl1);
        snprintf(t2, sizeof t2, "%s dt=%s xl=%s wl=%s", problem, dt, xl2, wl2);
        iohw_desc d1 = parse(t1), d2 = parse(t2);
        const iohw_problem *p = &d1.p;
        for (int f = 0; fills[f] != NULL; f++) {
            inputs a = fill_desc(&d1, fills[f], 11);
            inputs b = fill_desc(&d2, fills[f], 11);
            const size_t es = a.es;
            for (int64_t n = 0; n < p->batch; n++)
                for (int64_t c = 0; c < p->in_channels; c++)
                    for (int64_t h = 0; h < p->in_size[0]; h++)
                        for (int64_t w = 0; w < p->in_size[1]; w++) {
                            size_t oa = x_offset(xl1, p, n, c, h, w);
                            size_t ob = x_offset(xl2, p, n, c, h, w);
                            cr_assert(same_bytes((char *)a.x + oa * es,
                                                 (char *)b.x + ob * es, es),
                                      "%s %s x[%lld,%lld,%lld,%lld]", fills[f], dt,
                                      (long long)n, (long long)c, (long long)h,
                                      (long long)w);
                        }
            const int64_t Mg = p->out_channels / p->groups;
            for (int64_t i = 0; i < p->in_channels; i++)
                for (int64_t o = 0; o < Mg; o++)
                    for (int64_t kh = 0; kh < p->kernel[0]; kh++)
                        for (int64_t kw = 0; kw < p->kernel[1]; kw++) {
                            size_t oa = w_offset(wl1, p, i, o, kh, kw);
                            size_t ob = w_offset(wl2, p, i, o, kh, kw);
                            cr_assert(same_bytes((char *)a.w + oa * es,
                                                 (char *)b.w + ob * es, es),
                                      "%s %s w[%lld,%lld,%lld,%lld]", fills[f], dt,
                                      (long long)i, (long long)o, (long long)kh,
                                      (long long)kw);
                        }
            cr_assert(same_bytes(a.bias, b.bias, a.nb * es));
            inputs_free(&a);
            inputs_free(&b);
        }
    }
}

Test(fill, another_layout_holds_the_same_semantic_tensors)
{
    check_layout_pair("n=2 ci=3 co=4 in=4x5 k=3x2 s=2x1 bias=1", "NCHW", "IOHW", "NHWC",
                      "HWOI");
}

Test(fill, a_grouped_weight_layout_holds_the_same_semantic_tensors)
{
    check_layout_pair("n=1 ci=4 co=6 g=2 in=3x5 k=2x3 bias=1", "NCHW", "IOHW", "NHWC",
                      "GOIHW");
}

/* Calls of iohw_fill_inputs that must fail, each with the part of the
 * message that names what is wrong ("": not checked).  The arguments are
 * those of a valid problem with a bias except for the one the scenario
 * breaks; the invalid problem has 3 groups that do not divide 2 channels.
 * Parameters are copied into the test's process: arrays, not pointers. */
typedef enum bad_fill_arg {
    NO_PROBLEM, UNKNOWN_FILL, NO_X, NO_W, NO_BIAS, INVALID_PROBLEM
} bad_fill_arg;

typedef struct bad_fill {
    char name[40];      /* the scenario, named in every failure */
    bad_fill_arg arg;
    char why[16];
} bad_fill;

static bad_fill bad_fills[] = {
    {"no problem", NO_PROBLEM, "p"},
    {"the fill 'gauss'", UNKNOWN_FILL, "'gauss'"},
    {"no x", NO_X, "x"},
    {"no w", NO_W, "w"},
    {"no bias though the problem has one", NO_BIAS, "bias"},
    {"an invalid problem", INVALID_PROBLEM, ""},
};

ParameterizedTestParameters(fill, rejects_a_bad_argument_naming_it)
{
    return cr_make_param_array(bad_fill, bad_fills, sizeof bad_fills / sizeof bad_fills[0]);
}

ParameterizedTest(bad_fill *c, fill, rejects_a_bad_argument_naming_it)
{
    iohw_desc d = parse("ci=2 co=2 in=3 k=2 bias=1");
    float x[8], w[8], b[2];
    iohw_error e;
    e.msg[0] = '\0';
    if (c->arg == INVALID_PROBLEM)
        d.p.groups = 3;
    cr_assert_eq(iohw_fill_inputs(c->arg == NO_PROBLEM ? NULL : &d.p,
                                  c->arg == UNKNOWN_FILL ? "gauss" : "normal", 1,
                                  c->arg == NO_X ? NULL : x, c->arg == NO_W ? NULL : w,
                                  c->arg == NO_BIAS ? NULL : b, &e), -1, "%s: accepted", c->name);
    cr_assert(strstr(e.msg, c->why) != NULL, "%s: message '%s' lacks '%s'", c->name, e.msg,
              c->why);
}

static double *load_all(iohw_dtype dt, const void *src, size_t n)
{
    double *d = malloc((n > 0 ? n : 1) * sizeof(double));
    cr_assert(d != NULL);
    iohw_dtype_to_double(dt, src, d, n);
    return d;
}

/* ---------------------------------------------------------------------- */
/* Weight values, special values, cancellation, ranges. */

/* Requires the K values of every (I, O) kernel to be pairwise distinct. */
static void check_distinct(const char *problem, const char *fill, iohw_dtype dt)
{
    iohw_desc d = parse_dt(problem, dt); /* default layout IO+spatial */
    inputs in = fill_desc(&d, fill, 21);
    double *w = load_all(dt, in.w, in.nw);
    int64_t K = 1;
    for (uint32_t a = 0; a < d.p.rank; a++)
        K *= d.p.kernel[a];
    for (size_t q = 0; q < in.nw / (size_t)K; q++)
        for (int64_t i = 0; i < K; i++)
            for (int64_t j = 0; j < i; j++)
                cr_assert(w[q * (size_t)K + (size_t)i] != w[q * (size_t)K + (size_t)j],
                          "%s %s: kernel %zu positions %lld and %lld both %g", fill,
                          iohw_dtype_name(dt), q, (long long)i, (long long)j,
                          w[q * (size_t)K + (size_t)i]);
    free(w);
    inputs_free(&in);
}

Test(fill, weight_values_within_a_kernel_are_distinct)
{
    for (size_t t = 0; t < 4; t++) {
        check_distinct("ci=3 co=2 in=4x4 k=5x5", "normal", all_dtypes[t]);
        check_distinct("ci=3 co=2 in=4x4 k=5x5", "uniform", all_dtypes[t]);
        check_distinct("ci=3 co=2 in=4x4 k=5x5", "range", all_dtypes[t]);
        check_distinct("ci=2 co=3 in=3x3 k=3x3 bias=1", "exact", all_dtypes[t]);
        check_distinct("ci=4 co=4 g=2 in=5 k=7 s=2", "exact", all_dtypes[t]);
    }
}

Test(fill, special_puts_nan_infinities_negative_zero_and_subnormals_in_x_and_w)
{
    for (size_t t = 0; t < 4; t++) {
        iohw_dtype dt = all_dtypes[t];
        const double tiny = dt == IOHW_F32 ? 0x1p-126 : dt == IOHW_F64 ? 0x1p-1022
                          : dt == IOHW_F16 ? 0x1p-14 : 0x1p-126;
        iohw_desc d = parse_dt("ci=4 co=4 in=16x16 k=5x5", dt);
        inputs in = fill_desc(&d, "special", 1);
        for (int which = 0; which < 2; which++) {
            size_t n = which == 0 ? in.nx : in.nw;
            double *v = load_all(dt, which == 0 ? in.x : in.w, n);
            int nan = 0, pinf = 0, ninf = 0, nzero = 0, sub = 0, normal = 0;
            for (size_t j = 0; j < n; j++) {
                nan += isnan(v[j]) != 0;
                pinf += v[j] == INFINITY;
                ninf += v[j] == -INFINITY;
                nzero += v[j] == 0.0 && signbit(v[j]);
                sub += v[j] != 0.0 && fabs(v[j]) < tiny;
                normal += isfinite(v[j]) && fabs(v[j]) >= tiny;
            }
            const char *name = which == 0 ? "x" : "w";
            cr_assert(nan > 0 && pinf > 0 && ninf > 0 && nzero > 0 && sub > 0,
                      "%s %s: nan %d +inf %d -inf %d -0 %d subnormal %d", iohw_dtype_name(dt),
                      name, nan, pinf, ninf, nzero, sub);
            /* About 2%: the rest stays normal. */
            cr_assert_gt(normal, (int)(n * 95 / 100), "%s %s", iohw_dtype_name(dt), name);
            free(v);
        }
        inputs_free(&in);
    }
}

/* Mean over outputs of |y_f64| / err_bound. */
static double mean_relative_result(const char *problem)
{
    iohw_desc d = parse(problem);
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "cancel", NULL, 1, &c, &e), 0, "%s", e.msg);
    const int64_t ny = iohw_problem_y_count(&c.p);
    double sum = 0.0;
    int64_t counted = 0;
    for (int64_t j = 0; j < ny; j++) {
        if (c.err_bound[j] > 0) {
            sum += fabs(c.y_f64[j]) / c.err_bound[j];
            counted++;
        }
    }
    iohw_case_free(&c);
    cr_assert_gt(counted, 0);
    return sum / (double)counted;
}

Test(fill, cancel_makes_the_terms_of_each_output_nearly_cancel)
{
    /* Pairs contribute x*w*delta with delta < 2^-12 in f32: the result is a
     * tiny fraction of sum |x*w|; with normal numbers it is a sizeable one. */
    double c = mean_relative_result("ci=8 co=4 in=8x8 k=3x3 bias=1 fill=cancel");
    double n = mean_relative_result("ci=8 co=4 in=8x8 k=3x3 bias=1 fill=normal");
    cr_assert_lt(c, 0x1p-10, "cancel: mean |y|/err_bound = %g", c);
    cr_assert_gt(n, 0.05, "normal: mean |y|/err_bound = %g", n);
}

Test(fill, uniform_stays_in_minus_1_1_and_range_spans_many_binades)
{
    iohw_desc d = parse("n=2 ci=4 co=4 in=8x8 k=3x3 bias=1");
    inputs u = fill_desc(&d, "uniform", 4);
    const float *ux = u.x;
    for (size_t j = 0; j < u.nx; j++)
        cr_assert(ux[j] >= -1.0f && ux[j] <= 1.0f, "x[%zu] = %g", j, ux[j]);
    inputs_free(&u);

    for (size_t t = 0; t < 4; t++) {
        iohw_dtype dt = all_dtypes[t];
        iohw_desc dr = parse_dt("n=2 ci=4 co=4 in=8x8 k=3x3", dt);
        inputs r = fill_desc(&dr, "range", 4);
        double *x = load_all(dt, r.x, r.nx);
        double lo = INFINITY, hi = 0.0;
        for (size_t j = 0; j < r.nx; j++) {
            cr_assert(isfinite(x[j]), "%s x[%zu] = %g", iohw_dtype_name(dt), j, x[j]);
            if (x[j] != 0.0) {
                lo = fmin(lo, fabs(x[j]));
                hi = fmax(hi, fabs(x[j]));
            }
        }
        /* f16 exponents span [-8, 6]: 14 binades; the others 40 or 80. */
        cr_assert_gt(hi / lo, 0x1p12, "%s: |x| from %g to %g", iohw_dtype_name(dt), lo, hi);
        free(x);
        inputs_free(&r);
    }
}
