/*
 * tests/test_compare.c - the judging rule of specification section 3 on
 * tiny hand-made cases (problem, y, y_f64, err_bound and terms_max set
 * directly, no oracle involved).
 *
 * Bound arithmetic used below, with T = terms_max and u the unit roundoff:
 *   bound = (T + 2) * u * err_bound + ulp(y)/2.
 *   f64, T = 2, y = 1, err_bound = 1: 4 * 2^-53 + 2^-53 = 5 * 2^-53.
 *     Above 1 doubles are 2^-52 = 2 * 2^-53 apart, below 1 2^-53 apart.
 *   f16, T = 0, y = 1, err_bound = 1: 2 * 2^-11 + 2^-11 = 3 * 2^-11
 *     (binary16 spacing at 1 is 2^-10).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "judge/compare.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define MAXN 64

typedef struct tiny {
    iohw_case c;
    unsigned char y[MAXN * 8];     /* the case's stored y */
    unsigned char got[MAXN * 8];   /* the backend's output */
    double y_f64[MAXN];
    double eb[MAXN];
    int64_t n;
} tiny;

/* A rank-1 problem with 1x1 kernel: out = in = n elements, N = C = 1. */
static void tiny_init(tiny *t, iohw_dtype dt, int64_t n, const char *fill,
                     int64_t terms_max)
{
    memset(t, 0, sizeof *t);
    iohw_problem_init(&t->c.p);
    t->c.p.rank = 1;
    t->c.p.in_channels = 1;
    t->c.p.out_channels = 1;
    t->c.p.in_size[0] = n;
    t->c.p.kernel[0] = 1;
    t->c.p.dtype = dt;
    cr_assert_eq(iohw_problem_finish(&t->c.p, NULL), 0);
    cr_assert_eq(t->c.p.out_size[0], n);
    strcpy(t->c.id, "tiny");
    strcpy(t->c.fill, fill);
    t->c.terms_max = terms_max;
    t->c.y = t->y;
    t->c.y_f64 = t->y_f64;
    t->c.err_bound = t->eb;
    t->n = n;
}

/* Element i: the oracle says e with bound eb; the case stores e rounded;
 * the backend wrote g (rounded to the dtype). */
static void put(tiny *t, int64_t i, double e, double eb, double g)
{
    t->y_f64[i] = e;
    t->eb[i] = eb;
    iohw_dtype_store(t->c.p.dtype, t->y, (size_t)i, e);
    iohw_dtype_store(t->c.p.dtype, t->got, (size_t)i, g);
}

static iohw_result judge(tiny *t, const void *sentinel)
{
    iohw_result r;
    iohw_result_init(&r);
    r.worst_ratio = -1.0;
    iohw_compare(&t->c, t->got, sentinel, &r);
    return r;
}

/* One element, f64, T = 2, err_bound 1, expected 1: does g pass? */
static int f64_one_passes(double g, double *ratio)
{
    tiny t;
    tiny_init(&t, IOHW_F64, 1, "normal", 2);
    put(&t, 0, 1.0, 1.0, g);
    iohw_result r = judge(&t, NULL);
    *ratio = r.worst_ratio;
    cr_assert_eq(r.elements, 1);
    return r.status == IOHW_RESULT_PASS;
}

Test(compare, an_output_equal_to_the_oracle_passes)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 4, "normal", 3);
    put(&t, 0, 1.5, 2.0, 1.5);
    put(&t, 1, -0.25, 1.0, -0.25);
    put(&t, 2, 0.0, 0.0, 0.0);
    put(&t, 3, 1e30, 1e30, 1e30);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.status, IOHW_RESULT_PASS);
    cr_expect_eq(r.exact, 0);
    cr_expect_eq(r.elements, 4);
    cr_expect_eq(r.mismatches, 0);
    cr_expect_eq(r.unwritten, 0);
    cr_expect_eq(r.npoints, 0);
    /* 1e30 is not a float: the stored y is rounded, but y_f64 and got hold
     * the same rounded value, so its ratio is |fl(1e30) - 1e30| / (u 1e30)
     * <= 1/2 ulp / (u * 1e30) <= 1. */
    cr_expect(r.worst_ratio >= 0.0 && r.worst_ratio <= 1.0, "%g", r.worst_ratio);
}

Test(compare, f64_bound_edges_above_one)
{
    double ratio;
    /* 1 + 2 ulps = 1 + 4*2^-53 <= 5*2^-53: inside, ratio 4 exactly. */
    cr_expect(f64_one_passes(1.0 + ldexp(4.0, -53), &ratio));
    cr_expect_eq(ratio, 4.0);
    /* 1 + 3 ulps = 1 + 6*2^-53 > 5*2^-53: outside, ratio 6. */
    cr_expect_not(f64_one_passes(1.0 + ldexp(6.0, -53), &ratio));
    cr_expect_eq(ratio, 6.0);
}

Test(compare, f64_bound_edges_below_one_include_the_bound_itself)
{
    double ratio;
    /* 1 - 5*2^-53 is a double (spacing 2^-53 below 1) exactly on the bound. */
    cr_expect(f64_one_passes(1.0 - ldexp(5.0, -53), &ratio));
    cr_expect_eq(ratio, 5.0);
    cr_expect_not(f64_one_passes(1.0 - ldexp(6.0, -53), &ratio));
    cr_expect(f64_one_passes(1.0, &ratio));
    cr_expect_eq(ratio, 0.0);
}

Test(compare, half_an_ulp_of_the_dtype_is_allowed_in_f16)
{
    tiny t;
    tiny_init(&t, IOHW_F16, 3, "normal", 0);
    /* bound 3*2^-11: one f16 ulp (2^-10 = 2*2^-11) passes, two do not. */
    put(&t, 0, 1.0, 1.0, 1.0 + ldexp(1.0, -10));
    put(&t, 1, 1.0, 1.0, 1.0);
    put(&t, 2, 1.0, 1.0, 1.0 + ldexp(2.0, -10));
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_eq(r.mismatches, 1);
    cr_assert_eq(r.npoints, 1);
    cr_expect_eq(r.points[0].index, 2);
    cr_expect_eq(r.points[0].expected, 1.0);
    cr_expect_eq(r.points[0].got, 1.0 + ldexp(2.0, -10));
    cr_expect_eq(r.points[0].bound, ldexp(3.0, -11));
    /* worst ratio: 2^-9 / 2^-11 = 4 */
    cr_expect_eq(r.worst_ratio, 4.0);
}

Test(compare, the_bound_scales_with_terms_max_and_err_bound)
{
    tiny t;
    /* f32, T = 6, err_bound 8: (6+2) * 2^-24 * 8 + 2^-24 (half ulp of 1)
     * = 65 * 2^-24.  Float spacing above 1 is 2^-23: 32 ulps = 64*2^-24
     * pass, 33 ulps = 66*2^-24 fail. */
    tiny_init(&t, IOHW_F32, 2, "uniform", 6);
    put(&t, 0, 1.0, 8.0, 1.0 + ldexp(64.0, -24));
    put(&t, 1, 1.0, 8.0, 1.0 + ldexp(66.0, -24));
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 1);
    cr_assert_eq(r.npoints, 1);
    cr_expect_eq(r.points[0].index, 1);
    /* ratio of element 1: 66*2^-24 / (2^-24 * 8) = 8.25 */
    cr_expect_eq(r.worst_ratio, 8.25);
}

Test(compare, exact_fills_demand_equal_values)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 5, "exact", 4);
    put(&t, 0, 2.0, 2.0, 2.0);
    put(&t, 1, -0.0, 0.0, 0.0);          /* -0 == +0 */
    put(&t, 2, NAN, NAN, NAN);
    put(&t, 3, INFINITY, INFINITY, INFINITY);
    put(&t, 4, 3.0, 3.0, 3.0);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.exact, 1);
    cr_expect_eq(r.status, IOHW_RESULT_PASS);
    cr_expect_eq(r.worst_ratio, 0.0);

    /* One float ulp off (2^-22 at 3) is well inside the tolerance rule
     * ((4+2) * 2^-24 * 3) but an exact case rejects it. */
    iohw_dtype_store(IOHW_F32, t.got, 4, 3.0 + ldexp(1.0, -22));
    r = judge(&t, NULL);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_eq(r.mismatches, 1);
    cr_expect_eq(r.points[0].index, 4);
    cr_expect_eq(r.points[0].bound, 0.0);
    /* ratio 2^-22 / (2^-24 * 3) = 4/3 */
    cr_expect_float_eq(r.worst_ratio, 4.0 / 3.0, 1e-12);

    /* The same output with a normal fill passes. */
    strcpy(t.c.fill, "normal");
    r = judge(&t, NULL);
    cr_expect_eq(r.exact, 0);
    cr_expect_eq(r.status, IOHW_RESULT_PASS);
}

Test(compare, exact_fills_require_nan_for_nan)
{
    tiny t;
    tiny_init(&t, IOHW_F64, 2, "exact", 1);
    put(&t, 0, NAN, NAN, 0.0);
    put(&t, 1, 1.0, 1.0, NAN);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 2);
    cr_expect(isinf(r.worst_ratio));
    cr_expect(iohw_compare_is_exact(&t.c));
    strcpy(t.c.fill, "exactly");
    cr_expect_not(iohw_compare_is_exact(&t.c));
}

Test(compare, nan_expected_requires_nan)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 3, "special", 1);
    put(&t, 0, NAN, NAN, NAN);
    put(&t, 1, NAN, INFINITY, 1.0);
    put(&t, 2, NAN, 1.0, INFINITY);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 2);
    cr_expect_eq(r.points[0].index, 1);
    cr_expect_eq(r.points[1].index, 2);
    cr_expect(isinf(r.worst_ratio) && r.worst_ratio > 0);
}

Test(compare, infinities_must_match_exactly)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 4, "special", 1);
    put(&t, 0, INFINITY, INFINITY, INFINITY);
    put(&t, 1, -INFINITY, INFINITY, -INFINITY);
    put(&t, 2, INFINITY, INFINITY, -INFINITY);
    put(&t, 3, -INFINITY, INFINITY, 3.4e38);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 2);
    cr_expect_eq(r.points[0].index, 2);
    cr_expect_eq(r.points[1].index, 3);
    cr_expect(isinf(r.worst_ratio));
}

Test(compare, a_non_finite_value_where_a_finite_one_is_expected_fails)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 3, "normal", 1);
    put(&t, 0, 1.0, 1e30, INFINITY);   /* even a huge bound does not help */
    put(&t, 1, 1.0, 1e30, NAN);
    put(&t, 2, 1.0, 1e30, -INFINITY);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 3);
    cr_expect(isinf(r.worst_ratio));
}

Test(compare, an_overflowed_rounding_accepts_the_same_infinity)
{
    tiny t;
    /* f16's largest value is 65504; 70000 rounds to +Inf. */
    tiny_init(&t, IOHW_F16, 2, "range", 1);
    put(&t, 0, 70000.0, 70000.0, INFINITY);
    put(&t, 1, 70000.0, 70000.0, -INFINITY);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 1);
    cr_expect_eq(r.points[0].index, 1);
}

Test(compare, special_fills_with_an_infinite_bound_accept_any_finite_value)
{
    tiny t;
    tiny_init(&t, IOHW_F64, 3, "special", 2);
    put(&t, 0, 1.0, INFINITY, 12345.0);
    put(&t, 1, 1.0, NAN, -7.0);
    put(&t, 2, 1.0, INFINITY, NAN);   /* but never a NaN for a finite value */
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 1);
    cr_expect_eq(r.points[0].index, 2);
}

Test(compare, a_zero_bound_allows_nothing_and_gives_an_infinite_ratio)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 2, "normal", 5);
    put(&t, 0, 0.0, 0.0, 0.0);
    put(&t, 1, 0.0, 0.0, 1e-30);
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.mismatches, 1);
    cr_expect_eq(r.points[0].index, 1);
    cr_expect(isinf(r.worst_ratio));
}

Test(compare, worst_ratio_is_the_largest_over_all_elements)
{
    tiny t;
    tiny_init(&t, IOHW_F64, 3, "normal", 100);
    /* ratios |g - e| / (2^-53 * eb): 2, 16 and 8, all within the bound. */
    put(&t, 0, 1.0, 1.0, 1.0 + ldexp(2.0, -53));
    put(&t, 1, 2.0, 0.5, 2.0 + ldexp(8.0, -53));
    put(&t, 2, 4.0, 4.0, 4.0 + ldexp(32.0, -53));
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.status, IOHW_RESULT_PASS);
    cr_expect_eq(r.worst_ratio, 16.0);
}

Test(compare, elements_holding_the_sentinel_are_unwritten_mismatches)
{
    tiny t;
    uint32_t sentinel = 0x7fa5a5a5u;   /* a float NaN pattern */
    tiny_init(&t, IOHW_F32, 4, "normal", 1);
    for (int i = 0; i < 4; i++)
        put(&t, i, 1.0, 1.0, 1.0);
    memcpy(t.got + 4, &sentinel, 4);
    memcpy(t.got + 12, &sentinel, 4);
    iohw_result r = judge(&t, &sentinel);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_eq(r.unwritten, 2);
    cr_expect_eq(r.mismatches, 2);
    cr_expect_eq(r.points[0].index, 1);
    cr_expect_eq(r.points[1].index, 3);
    cr_expect(isinf(r.worst_ratio));

    /* Without a sentinel they are plain NaN mismatches. */
    r = judge(&t, NULL);
    cr_expect_eq(r.unwritten, 0);
    cr_expect_eq(r.mismatches, 2);
}

Test(compare, a_sentinel_equal_to_a_right_value_still_counts_as_unwritten)
{
    tiny t;
    uint16_t sentinel = iohw_f16_from_double(1.0);
    tiny_init(&t, IOHW_F16, 3, "normal", 1);
    put(&t, 0, 1.0, 1.0, 1.0);
    put(&t, 1, 2.0, 2.0, 2.0);
    put(&t, 2, 1.0, 1.0, 1.0);
    iohw_result r = judge(&t, &sentinel);
    cr_expect_eq(r.unwritten, 2);
    cr_expect_eq(r.mismatches, 2);
}

Test(compare, missing_outputs_make_the_case_invalid)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 2, "normal", 1);
    t.c.y_f64 = NULL;
    iohw_result r = judge(&t, NULL);
    cr_expect_eq(r.status, IOHW_RESULT_INVALID);
    cr_expect(strstr(r.message, "y_f64") != NULL, "%s", r.message);
    t.c.y_f64 = t.y_f64;
    iohw_result_init(&r);
    iohw_compare(&t.c, NULL, NULL, &r);
    cr_expect_eq(r.status, IOHW_RESULT_INVALID);
    iohw_compare(&t.c, t.got, NULL, NULL);   /* no result: nothing happens */
}

/* --- coordinates of points --------------------------------------------- */

/* A case whose outputs are all 0 (err_bound 1) in layout `xl`, N = 2,
 * C_out = 3, rank from `in`; the backend wrote 1 at memory indices idx. */
static iohw_result wrong_at(tiny *t, int rank, const int64_t *in, const char *xl,
                            int64_t batch, int64_t co, const int64_t *idx, int nidx)
{
    memset(t, 0, sizeof *t);
    iohw_problem_init(&t->c.p);
    t->c.p.rank = (uint32_t)rank;
    t->c.p.batch = batch;
    t->c.p.in_channels = 1;
    t->c.p.out_channels = co;
    for (int a = 0; a < rank; a++) {
        t->c.p.in_size[a] = in[a];
        t->c.p.kernel[a] = 1;
    }
    strcpy(t->c.p.data_layout, xl);
    cr_assert_eq(iohw_problem_finish(&t->c.p, NULL), 0);
    int64_t n = iohw_problem_y_count(&t->c.p);
    cr_assert(n <= MAXN);
    strcpy(t->c.fill, "normal");
    t->c.terms_max = 1;
    t->c.y = t->y;
    t->c.y_f64 = t->y_f64;
    t->c.err_bound = t->eb;
    for (int64_t i = 0; i < n; i++)
        put(t, i, 0.0, 1.0, 0.0);
    for (int k = 0; k < nidx; k++)
        iohw_dtype_store(IOHW_F32, t->got, (size_t)idx[k], 1.0);
    return judge(t, NULL);
}

static void expect_coord(const iohw_point *pt, int64_t n, int64_t c, int64_t d,
                         int64_t h, int64_t w)
{
    cr_expect_eq(pt->coord[0], n, "n of index %lld", (long long)pt->index);
    cr_expect_eq(pt->coord[1], c, "c of index %lld", (long long)pt->index);
    cr_expect_eq(pt->coord[2], d, "d of index %lld", (long long)pt->index);
    cr_expect_eq(pt->coord[3], h, "h of index %lld", (long long)pt->index);
    cr_expect_eq(pt->coord[4], w, "w of index %lld", (long long)pt->index);
}

Test(compare, points_of_nchw_carry_n_c_h_w)
{
    tiny t;
    const int64_t in[2] = {2, 4};
    /* NCHW [2][3][2][4]: index ((n*3 + c)*2 + h)*4 + w.
     *   5 = (0, 0, 1, 1);  19 = (0, 2, 0, 3);  47 = (1, 2, 1, 3). */
    const int64_t idx[3] = {47, 5, 19};
    iohw_result r = wrong_at(&t, 2, in, "NCHW", 2, 3, idx, 3);
    cr_assert_eq(r.npoints, 3);
    cr_expect_eq(r.points[0].index, 5);
    expect_coord(&r.points[0], 0, 0, 0, 1, 1);
    cr_expect_eq(r.points[1].index, 19);
    expect_coord(&r.points[1], 0, 2, 0, 0, 3);
    cr_expect_eq(r.points[2].index, 47);
    expect_coord(&r.points[2], 1, 2, 0, 1, 3);
    cr_expect_eq(r.points[2].expected, 0.0);
    cr_expect_eq(r.points[2].got, 1.0);
}

Test(compare, points_of_nhwc_carry_n_c_h_w)
{
    tiny t;
    const int64_t in[2] = {2, 4};
    /* NHWC [2][2][4][3]: index ((n*2 + h)*4 + w)*3 + c.
     *   19 = ((0*2+1)*4+2)*3+1 -> (n 0, c 1, h 1, w 2);
     *   47 = ((1*2+1)*4+3)*3+2 -> (n 1, c 2, h 1, w 3);
     *    5 = ((0*2+0)*4+1)*3+2 -> (n 0, c 2, h 0, w 1). */
    const int64_t idx[3] = {19, 47, 5};
    iohw_result r = wrong_at(&t, 2, in, "NHWC", 2, 3, idx, 3);
    cr_assert_eq(r.npoints, 3);
    expect_coord(&r.points[0], 0, 2, 0, 0, 1);
    expect_coord(&r.points[1], 0, 1, 0, 1, 2);
    expect_coord(&r.points[2], 1, 2, 0, 1, 3);
}

Test(compare, points_of_ncdhw_carry_all_five_coordinates)
{
    tiny t;
    const int64_t in[3] = {2, 3, 4};
    /* NCDHW [1][2][2][3][4]: index (((n*2 + c)*2 + d)*3 + h)*4 + w.
     *   47 = (((0*2+1)*2+1)*3+2)*4+3 -> (0, 1, 1, 2, 3);
     *   13 = (((0*2+0)*2+1)*3+0)*4+1 -> (0, 0, 1, 0, 1). */
    const int64_t idx[2] = {47, 13};
    iohw_result r = wrong_at(&t, 3, in, "NCDHW", 1, 2, idx, 2);
    cr_assert_eq(r.npoints, 2);
    expect_coord(&r.points[0], 0, 0, 1, 0, 1);
    expect_coord(&r.points[1], 0, 1, 1, 2, 3);
}

Test(compare, points_of_rank_one_leave_d_and_h_zero)
{
    tiny t;
    const int64_t in[1] = {5};
    /* NWC [2][5][3]: 29 = (1*5 + 4)*3 + 2 -> (n 1, c 2, w 4). */
    const int64_t idx[1] = {29};
    iohw_result r = wrong_at(&t, 1, in, "NWC", 2, 3, idx, 1);
    cr_assert_eq(r.npoints, 1);
    expect_coord(&r.points[0], 1, 2, 0, 0, 4);
}

Test(compare, only_the_first_points_are_kept_but_every_mismatch_counts)
{
    tiny t;
    const int64_t in[2] = {2, 4};
    int64_t idx[48];
    for (int k = 0; k < 48; k++)
        idx[k] = 47 - k;
    iohw_result r = wrong_at(&t, 2, in, "NCHW", 2, 3, idx, 48);
    cr_expect_eq(r.mismatches, 48);
    cr_assert_eq(r.npoints, IOHW_RESULT_POINTS);
    for (int k = 0; k < IOHW_RESULT_POINTS; k++)
        cr_expect_eq(r.points[k].index, k);
}

Test(compare, the_error_map_bins_every_mismatch_by_h_and_w)
{
    tiny t;
    const int64_t in[2] = {2, 4};
    /* NCHW [2][3][2][4], O_h = 2, O_w = 4, 16 bins per axis: bin row
     * h*16/2 = 8h, bin column w*16/4 = 4w.  Mismatches at 5 = (n0 c0 h1 w1),
     * 19 = (n0 c2 h0 w3), 47 = (n1 c2 h1 w3) and 45 = (n1 c2 h1 w1):
     * bins (8, 4) twice, (0, 12) once, (8, 12) once; nothing else. */
    const int64_t idx[4] = {47, 5, 19, 45};
    iohw_result r = wrong_at(&t, 2, in, "NCHW", 2, 3, idx, 4);
    const int B = IOHW_RESULT_ERRMAP;
    int total = 0;
    for (int i = 0; i < B * B; i++)
        total += r.errmap[i];
    cr_expect_eq(total, 4);
    cr_expect_eq(r.errmap[8 * B + 4], 2);
    cr_expect_eq(r.errmap[0 * B + 12], 1);
    cr_expect_eq(r.errmap[8 * B + 12], 1);
}

Test(compare, the_error_map_of_rank_one_uses_a_single_row)
{
    tiny t;
    const int64_t in[1] = {5};
    /* NWC [2][5][3], O_w = 5: w = 4 -> column 4*16/5 = 12, row 0.
     * 29 = (n1 c2 w4), 14 = (n0 c2 w4). */
    const int64_t idx[2] = {29, 14};
    iohw_result r = wrong_at(&t, 1, in, "NWC", 2, 3, idx, 2);
    cr_expect_eq(r.errmap[12], 2);
}

/* --- a declared subnormal flush (specification section 3.4) ------------ */

/* Status of t's output under the default rule and under a declared flush. */
static void judge_both(tiny *t, iohw_result_status strict,
                       iohw_result_status flushed)
{
    iohw_result r;
    iohw_result_init(&r);
    iohw_compare(&t->c, t->got, NULL, &r);
    cr_expect_eq(r.status, strict, "default rule: %s",
                 iohw_result_status_name(r.status));
    iohw_result_init(&r);
    iohw_compare_flushed(&t->c, t->got, NULL, &r);
    cr_expect_eq(r.status, flushed, "declared flush: %s",
                 iohw_result_status_name(r.status));
}

Test(compare, a_subnormal_result_read_as_zero_passes_only_under_a_declared_flush)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 2, "normal", 4);
    put(&t, 0, 0x1p-130, 0x1p-130, 0.0);
    put(&t, 1, -0x1p-149, 0x1p-149, -0.0);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_PASS);
}

Test(compare, a_declared_flush_still_fails_a_wrong_normal_value)
{
    tiny t;
    tiny_init(&t, IOHW_F32, 2, "normal", 4);
    put(&t, 0, 0x1p-130, 0x1p-130, 0.0);
    put(&t, 1, 1.0, 1.0, 1.0 + 0x1p-10);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_FAIL);
}

Test(compare, the_flush_slack_is_three_smallest_normals_for_one_term)
{
    /* T = 1, eb = 2^-120 > m = 2^-126: min(eb, (2T + 1) m) = 3 m, beside
     * which the default bound (3 * 2^-24 * 2^-120 plus half an
     * ulp of 2^-120, 2^-144) is 2^-17 of m. */
    tiny t;
    tiny_init(&t, IOHW_F32, 1, "normal", 1);
    put(&t, 0, 0x1p-120, 0x1p-120, 0x1p-120 - 3 * 0x1p-126);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_PASS);
    put(&t, 0, 0x1p-120, 0x1p-120, 0x1p-120 - 4 * 0x1p-126);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_FAIL);
}

Test(compare, an_exact_fill_under_a_declared_flush_accepts_zero_for_a_subnormal_only)
{
    tiny t;
    tiny_init(&t, IOHW_BF16, 2, "exact", 2);
    put(&t, 0, 0x1p-130, 0x1p-130, 0.0);
    put(&t, 1, 3.0, 3.0, 3.0);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_PASS);
    put(&t, 0, 0x1p-130, 0x1p-130, 0x1p-131);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_FAIL);
}

Test(compare, the_flush_slack_never_exceeds_the_elements_err_bound)
{
    /* T = 4, e = eb = 2^-128: (2T + 1) m = 9 * 2^-126 but eb is smaller,
     * so the slack is eb: 0 passes (all lost), 3 * 2^-128 (off by 2 eb)
     * does not. */
    tiny t;
    tiny_init(&t, IOHW_F32, 1, "normal", 4);
    put(&t, 0, 0x1p-128, 0x1p-128, 0.0);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_PASS);
    put(&t, 0, 0x1p-128, 0x1p-128, 3 * 0x1p-128);
    judge_both(&t, IOHW_RESULT_FAIL, IOHW_RESULT_FAIL);
}
