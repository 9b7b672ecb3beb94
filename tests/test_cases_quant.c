/*
 * tests/test_cases_quant.c - quantized cases in files (specification
 * sections 4 and 11.4): written and read back unchanged in every form
 * (scales, fixed, s32 y), and the reader against broken quantized files -
 * bad type codes, missing attributes, requant datasets of the wrong size,
 * type or value, float outputs in an exact case - each named.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "generators/generators.h"
#include "oracle/quant_problem.h"
#include "test_cases_break.h"

#define SCALES "n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2 bias=1 dt=u8 wdt=s8 ydt=u8 " \
               "zp=3,-2,0 round=half_away pc=1 sx=0.5"
#define FIXED "ci=3 co=4 in=6x3 k=2 s=2 dt=s8 wdt=u8 round=gemmlowp pc=1 " \
              "zp=0,128,0 xl=NHWC wl=OHWI"
#define S32 "ci=3 co=2 in=6x2 k=3 s=3 dt=s8 ydt=s32 zp=1,2,0 bias=1"

static void make(const char *text, iohw_case *c)
{
    iohw_desc d;
    iohw_error e = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_make_case(&d, ID, NULL, 1, c, &e), 0, "%s", e.msg);
}

static void write_quant(const char *path, const char *text)
{
    iohw_case c;
    iohw_error e = {{0}};
    make(text, &c);
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    iohw_case_free(&c);
}

static void expect_same_bytes(const void *a, const void *b, size_t n,
                              const char *what, const char *text)
{
    cr_assert((a == NULL) == (b == NULL), "%s %s: one is NULL", text, what);
    if (a != NULL)
        cr_expect_eq(memcmp(a, b, n), 0, "%s: %s differs", text, what);
}

static void round_trip(const char *text)
{
    char path[512];
    iohw_case a, b;
    iohw_error e = {{0}};
    tmp_path(path, sizeof path, "quant-trip");
    write_quant(path, text);
    make(text, &a);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &b, &e), 0, "%s", e.msg);
    iohw_case_file_close(f, NULL);
    const iohw_problem *p = &a.p;
    cr_expect_eq(memcmp(&a.p, &b.p, sizeof a.p), 0, "%s: the problem differs", text);
    cr_expect_str_eq(a.descriptor, b.descriptor);
    cr_expect_str_eq(a.fill, b.fill);
    expect_same_bytes(a.x, b.x, (size_t)iohw_problem_x_count(p), "x", text);
    expect_same_bytes(a.w, b.w, (size_t)iohw_problem_w_count(p), "w", text);
    expect_same_bytes(a.bias, b.bias, (size_t)iohw_problem_bias_count(p) * 4, "bias", text);
    expect_same_bytes(a.requant, b.requant, iohw_quant_requant_bytes(p), "requant", text);
    expect_same_bytes(a.y, b.y, (size_t)iohw_problem_y_count(p)
                      * iohw_dtype_size(iohw_problem_y_dtype(p)), "y", text);
    cr_expect_null(b.y_f64, "%s: an exact case has no y_f64", text);
    cr_expect_null(b.err_bound);
    cr_expect_eq(a.terms_max, b.terms_max);
    iohw_case_free(&a);
    iohw_case_free(&b);
    remove(path);
}

Test(cases_quant, every_form_reads_back_unchanged)
{
    round_trip(SCALES);
    round_trip(FIXED);
    round_trip(S32);
}

Test(cases_quant, the_written_y_is_the_oracles_and_the_descriptor_reads_back)
{
    iohw_case c;
    iohw_error e = {{0}};
    make(SCALES, &c);
    const int64_t ny = iohw_problem_y_count(&c.p);
    uint8_t *y = malloc((size_t)ny);
    cr_assert_eq(iohw_quant_run(&c.p, c.x, c.w, c.bias, c.requant, y, &e), 0, "%s", e.msg);
    cr_expect_eq(memcmp(y, c.y, (size_t)ny), 0);
    iohw_desc d;
    cr_assert_eq(iohw_desc_parse(c.descriptor, &d, &e), 0, "%s", e.msg);
    cr_expect_eq(memcmp(&d.p, &c.p, sizeof c.p), 0, "the descriptor holds the chosen zp_y and s_y");
    /* The outputs span the range without mostly saturating. */
    int64_t low = 0, high = 0, lo = 255, hi = 0;
    for (int64_t i = 0; i < ny; i++) {
        low += y[i] == 0;
        high += y[i] == 255;
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
    }
    cr_expect_lt(low + high, ny / 10, "%lld of %lld saturate", (long long)(low + high), (long long)ny);
    cr_expect_gt(hi - lo, 64, "outputs from %lld to %lld", (long long)lo, (long long)hi);
    free(y);
    iohw_case_free(&c);
}

/* --- hostile quantized files ---------------------------------------------- */

/* One broken file per breakage, each a fresh case of descriptor text. */
static void run_quant_breakages(const breakage *b, size_t n, const char *text)
{
    for (size_t i = 0; i < n; i++) {
        char path[512];
        tmp_path(path, sizeof path, b[i].label);
        write_quant(path, text);
        mutate(path, b[i].m);
        expect_error(path, ID, IOHW_READ_ALL, b[i].needle, b[i].label);
        remove(path);
    }
}

static void dtype_s16(hid_t f, hid_t g) { (void)f; set_str(g, "dtype", "s16"); }
static void ydtype_f32(hid_t f, hid_t g) { (void)f; set_str(g, "y_dtype", "f32"); }
static void wdtype_s32(hid_t f, hid_t g) { (void)f; set_str(g, "w_dtype", "s32"); }
static void rounding_bad(hid_t f, hid_t g) { (void)f; set_str(g, "rounding", "nearest"); }
static void no_zp_y(hid_t f, hid_t g) { (void)f; del_attr(g, "zp_y"); }
static void no_s_x(hid_t f, hid_t g) { (void)f; del_attr(g, "s_x"); }
static void zp_x_300(hid_t f, hid_t g) { (void)f; set_1(g, "zp_x", 300); }
static void s_y_f64(hid_t f, hid_t g)
{
    const double v = 0.5;
    (void)f;
    set_attr(g, "s_y", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &v);
}
static void s_w_short(hid_t f, hid_t g)
{
    const hsize_t dims[1] = {5};
    (void)f;
    replace_ds(g, "s_w", H5T_IEEE_F32LE, 1, dims);
}
static void s_w_int(hid_t f, hid_t g)
{
    const hsize_t dims[1] = {6};
    (void)f;
    replace_ds(g, "s_w", H5T_STD_I32LE, 1, dims);
}
static void s_w_zero(hid_t f, hid_t g)
{
    const hsize_t dims[1] = {6};
    (void)f;
    replace_ds(g, "s_w", H5T_IEEE_F32LE, 1, dims);
}
static void no_s_w(hid_t f, hid_t g) { (void)f; H5Ldelete(g, "s_w", H5P_DEFAULT); }
static void y_float(hid_t f, hid_t g)
{
    const hsize_t dims[4] = {2, 6, 11, 8};
    (void)f;
    replace_ds(g, "y", H5T_IEEE_F32LE, 4, dims);
}
static void w_unsigned(hid_t f, hid_t g)
{
    const hsize_t dims[4] = {4, 3, 3, 2};
    (void)f;
    replace_ds(g, "w", H5T_STD_U8LE, 4, dims);
}
static void with_y_f64(hid_t f, hid_t g)
{
    const hsize_t dims[4] = {2, 6, 11, 8};
    (void)f;
    replace_ds(g, "y_f64", H5T_IEEE_F64LE, 4, dims);
}

Test(cases_quant, a_broken_scales_case_is_refused_by_name)
{
    const breakage b[] = {
        {"dtype-s16", dtype_s16, "attribute 'dtype' is 's16'; it must be f32, f64, f16, bf16, s8 or u8"},
        {"ydtype-f32", ydtype_f32, "attribute 'y_dtype' is 'f32'; it must be s8, u8 or s32"},
        {"wdtype-s32", wdtype_s32, "attribute 'w_dtype' is 's32'; it must be s8 or u8"},
        {"rounding", rounding_bad, "attribute 'rounding' is 'nearest'"},
        {"no-zp-y", no_zp_y, "attribute 'zp_y' is missing"},
        {"no-s-x", no_s_x, "attribute 's_x' is missing"},
        {"zp-x-300", zp_x_300, "invalid problem: quant: zp_x = 300 is outside"},
        {"s-y-f64", s_y_f64, "attribute 's_y' has type float64; it must be float32"},
        {"s-w-short", s_w_short, "dataset 's_w' has shape [5] but per_channel = 1 (6 values) needs [6]"},
        {"s-w-int", s_w_int, "dataset 's_w' has type int32"},
        {"s-w-zero", s_w_zero, "s_w[0] = 0 must be a positive normal"},
        {"no-s-w", no_s_w, "dataset 's_w' is missing"},
        {"y-float", y_float, "dataset 'y' has type float32, but the case dtype u8 needs uint8"},
        {"w-unsigned", w_unsigned, "dataset 'w' has type uint8, but the case dtype s8 needs int8"},
        {"y-f64", with_y_f64, "dataset 'y_f64' is present in a quantized case"},
    };
    run_quant_breakages(b, sizeof b / sizeof b[0], SCALES);
}

static void no_shift(hid_t f, hid_t g) { (void)f; H5Ldelete(g, "shift", H5P_DEFAULT); }
static void multiplier_negative(hid_t f, hid_t g)
{
    const int32_t v[4] = {-1, 1, 1, 1};
    (void)f;
    hid_t d = H5Dopen2(g, "multiplier", H5P_DEFAULT);
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    H5Dclose(d);
}
static void shift_long(hid_t f, hid_t g)
{
    const hsize_t dims[1] = {5};
    (void)f;
    replace_ds(g, "shift", H5T_STD_I32LE, 1, dims);
}

Test(cases_quant, a_broken_fixed_case_is_refused_by_name)
{
    const breakage b[] = {
        {"no-shift", no_shift, "dataset 'shift' is missing"},
        {"mult-negative", multiplier_negative, "multiplier[0] = -1 is negative"},
        {"shift-long", shift_long, "dataset 'shift' has shape [5] but per_channel = 1 (4 values) needs [4]"},
    };
    run_quant_breakages(b, sizeof b / sizeof b[0], FIXED);
}

Test(cases_quant, the_writer_refuses_a_quantized_case_without_its_requant_values)
{
    char path[512];
    iohw_case c;
    iohw_error e = {{0}};
    tmp_path(path, sizeof path, "quant-write");
    make(SCALES, &c);
    free(c.requant);
    c.requant = NULL;
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_expect_eq(iohw_case_file_write(f, &c, &e), -1);
    cr_expect(strstr(e.msg, "the requant tensor is NULL") != NULL, "%s", e.msg);
    iohw_case_file_abandon(f);
    iohw_case_free(&c);
}
