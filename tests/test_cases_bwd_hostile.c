/*
 * tests/test_cases_bwd_hostile.c - the case reader against broken backward
 * cases (specification sections 4 and 13): a valid BWD_W (with bias) or
 * BWD_D file is broken in one way - a dataset of the wrong shape or type,
 * missing, one a backward case must not hold, the attribute 'direction'
 * wrong - and the error must name the file, the case and the dataset or
 * attribute.
 *
 * The base problem is test_cases_break.h's (worked by hand): rank 2, NCHW
 * / IOHW, N = 1, C_in = 10, C_out = 15, in 4x3, kernel 5x5, out 8x7; so
 * dy [1,15,8,7], dx [1,10,4,3], dw [10,15,5,5], db [15].
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "oracle/descriptor.h"
#include "generators/generators.h"
#include "test_cases_break.h"

#define NX 120
#define NW 3750
#define NY 840

/* Writes the base problem as a backward case of direction dir (BWD_W with
 * a bias, BWD_D without). */
static void write_bwd(const char *path, int32_t dir)
{
    iohw_case c;
    iohw_error e;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, ID);
    iohw_problem *p = &c.p;
    iohw_problem_init(p);
    p->rank = 2;
    p->in_channels = 10;
    p->out_channels = 15;
    p->in_size[0] = 4;
    p->in_size[1] = 3;
    p->kernel[0] = p->kernel[1] = 5;
    p->dtype = IOHW_F32;
    p->direction = dir;
    p->has_bias = dir == IOHW_DIR_BWD_W;
    cr_assert_eq(iohw_problem_finish(p, &e), 0, "%s", e.msg);
    snprintf(c.fill, sizeof c.fill, "exact");
    c.tags = strdup("2d,dir-bwd");
    c.descriptor = strdup("ci=10 co=15 in=4x3 k=5x5");
    c.terms_max = iohw_oracle_terms_max(p);
    const int64_t nout = dir == IOHW_DIR_BWD_W ? NW + 15 : NX;
    cr_assert_eq(iohw_problem_out_count(p), nout);
    c.dy = calloc(NY, 4);
    if (dir == IOHW_DIR_BWD_W)
        c.x = calloc(NX, 4);
    else
        c.w = calloc(NW, 4);
    c.y = calloc((size_t)nout, 4);
    c.y_f64 = calloc((size_t)nout, 8);
    c.err_bound = calloc((size_t)nout, 8);
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    iohw_case_free(&c);
}

static void run_bwd(const breakage *b, size_t n, int32_t dir, unsigned what)
{
    for (size_t i = 0; i < n; i++) {
        char path[512];
        tmp_path(path, sizeof path, b[i].label);
        write_bwd(path, dir);
        mutate(path, b[i].m);
        expect_error(path, ID, what, b[i].needle, b[i].label);
        remove(path);
    }
}

static void drop(hid_t g, const char *name)
{
    cr_assert_geq(H5Ldelete(g, name, H5P_DEFAULT), 0, "%s", name);
}

/* A dataset of doubles, every value v. */
static void put_f64(hid_t g, const char *name, int ndim, const hsize_t *dims,
                    double v)
{
    replace_ds(g, name, H5T_IEEE_F64LE, ndim, dims);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    hssize_t n = H5Sget_simple_extent_npoints(H5Dget_space(d));
    double *buf = malloc((size_t)n * sizeof *buf);
    for (hssize_t i = 0; i < n; i++)
        buf[i] = v;
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                           H5P_DEFAULT, buf), 0);
    free(buf);
    H5Dclose(d);
}

static const hsize_t DY[4] = {1, 15, 8, 7}, DX[4] = {1, 10, 4, 3},
                     DW[4] = {10, 15, 5, 5}, DB[1] = {15};

/* --- BWD_W with bias --------------------------------------------------- */

static void no_dy(hid_t f, hid_t g) { (void)f; drop(g, "dy"); }
static void no_db(hid_t f, hid_t g) { (void)f; drop(g, "db"); }
static void no_dw_f64(hid_t f, hid_t g) { (void)f; drop(g, "dw_f64"); }
static void dy_short(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 15, 8, 6};
    (void)f;
    replace_ds(g, "dy", H5T_IEEE_F32LE, 4, d);
}
static void dy_f64(hid_t f, hid_t g) { (void)f; replace_ds(g, "dy", H5T_IEEE_F64LE, 4, DY); }
static void dw_as_dx(hid_t f, hid_t g) { (void)f; replace_ds(g, "dw", H5T_IEEE_F32LE, 4, DX); }
static void db_14(hid_t f, hid_t g)
{
    const hsize_t d[1] = {14};
    (void)f;
    replace_ds(g, "db", H5T_IEEE_F32LE, 1, d);
}
static void db_int(hid_t f, hid_t g) { (void)f; replace_ds(g, "db", H5T_STD_I32LE, 1, DB); }
static void db_f64_f32(hid_t f, hid_t g) { (void)f; replace_ds(g, "db_f64", H5T_IEEE_F32LE, 1, DB); }
static void dw_eb_neg(hid_t f, hid_t g) { (void)f; put_f64(g, "dw_err_bound", 4, DW, -1.0); }
static void db_eb_neg(hid_t f, hid_t g) { (void)f; put_f64(g, "db_err_bound", 1, DB, -0.5); }
static void extra_y(hid_t f, hid_t g) { (void)f; replace_ds(g, "y", H5T_IEEE_F32LE, 4, DY); }
static void extra_eb(hid_t f, hid_t g) { (void)f; put_f64(g, "err_bound", 4, DY, 1.0); }
static void extra_bias(hid_t f, hid_t g) { (void)f; replace_ds(g, "bias", H5T_IEEE_F32LE, 1, DB); }
static void extra_w(hid_t f, hid_t g) { (void)f; replace_ds(g, "w", H5T_IEEE_F32LE, 4, DW); }
static void dir_7(hid_t f, hid_t g) { (void)f; set_1(g, "direction", 7); }
static void dir_neg(hid_t f, hid_t g) { (void)f; set_1(g, "direction", -1); }
static void dir_string(hid_t f, hid_t g) { (void)f; set_str(g, "direction", "bwd_w"); }
static void dir_gone(hid_t f, hid_t g) { (void)f; del_attr(g, "direction"); }
static void bias_0(hid_t f, hid_t g) { (void)f; set_1(g, "has_bias", 0); }
static void terms_off(hid_t f, hid_t g)
{
    hid_t a = H5Aopen(g, "terms_max", H5P_DEFAULT);
    int64_t t;
    (void)f;
    cr_assert_geq(H5Aread(a, H5T_NATIVE_INT64, &t), 0);
    H5Aclose(a);
    set_1(g, "terms_max", t + 1);
}
static void dtype_s8(hid_t f, hid_t g) { (void)f; set_str(g, "dtype", "s8"); }

Test(bwd_hostile, bwd_w_datasets_are_named)
{
    const breakage b[] = {
        {"w-no-dy", no_dy, "dataset 'dy' is missing"},
        {"w-no-db", no_db, "dataset 'db' is missing"},
        {"w-no-dw-f64", no_dw_f64, "dataset 'dw_f64' is missing"},
        {"w-dy-short", dy_short, "dataset 'dy' has shape [1,15,8,6] but the "
         "data layout 'NCHW' with C = out_channels needs [1,15,8,7]"},
        {"w-dy-f64", dy_f64, "dataset 'dy' has type float64"},
        {"w-dw-as-dx", dw_as_dx, "dataset 'dw' has shape [1,10,4,3] but the "
         "weight layout 'IOHW' needs [10,15,5,5]"},
        {"w-db-14", db_14, "dataset 'db' has shape [14] but out_channels = "
         "15 needs [15]"},
        {"w-db-int", db_int, "dataset 'db' has type int32"},
        {"w-db-f64-f32", db_f64_f32, "dataset 'db_f64' has type float32"},
        {"w-dw-eb-neg", dw_eb_neg, "dataset 'dw_err_bound' holds the "
         "negative value -1 at element 0"},
        {"w-db-eb-neg", db_eb_neg, "dataset 'db_err_bound' holds the "
         "negative value -0.5 at element 0"},
        {"w-extra-y", extra_y, "dataset 'y' is present in a backward case "
         "(its outputs are dw and db)"},
        {"w-extra-eb", extra_eb, "dataset 'err_bound' is present in a "
         "backward case"},
        {"w-extra-bias", extra_bias, "dataset 'bias' is present in a "
         "backward case"},
        {"w-extra-w", extra_w, "dataset 'w' is present in a BWD_W case (its "
         "inputs are x and dy)"},
        {"w-bias-0", bias_0, "dataset 'db' is present but has_bias is 0"},
    };
    run_bwd(b, sizeof b / sizeof b[0], IOHW_DIR_BWD_W, IOHW_READ_ALL);
}

Test(bwd_hostile, the_attribute_direction_is_checked)
{
    const breakage b[] = {
        {"dir-7", dir_7, "attribute 'direction' is 7; it must be 0 "
         "(forward), 1 (BWD_D) or 2 (BWD_W)"},
        {"dir-neg", dir_neg, "attribute 'direction' is -1"},
        {"dir-string", dir_string, "attribute 'direction' has type string, "
         "not an integer type"},
        {"dir-gone", dir_gone, "dataset 'dy' is present in a forward case"},
        {"dir-terms", terms_off, "terms_max is"},
        {"dir-s8", dtype_s8, "attribute 'w_dtype' is missing"},
    };
    run_bwd(b, sizeof b / sizeof b[0], IOHW_DIR_BWD_W, IOHW_READ_ATTRS);
}

/* --- BWD_D ------------------------------------------------------------- */

static void extra_x(hid_t f, hid_t g) { (void)f; replace_ds(g, "x", H5T_IEEE_F32LE, 4, DX); }
static void extra_db(hid_t f, hid_t g) { (void)f; replace_ds(g, "db", H5T_IEEE_F32LE, 1, DB); }
static void no_w(hid_t f, hid_t g) { (void)f; drop(g, "w"); }
static void no_dx_eb(hid_t f, hid_t g) { (void)f; drop(g, "dx_err_bound"); }
static void dx_as_dy(hid_t f, hid_t g) { (void)f; replace_ds(g, "dx", H5T_IEEE_F32LE, 4, DY); }
static void dx_f64_f32(hid_t f, hid_t g) { (void)f; replace_ds(g, "dx_f64", H5T_IEEE_F32LE, 4, DX); }
static void dx_eb_neg(hid_t f, hid_t g) { (void)f; put_f64(g, "dx_err_bound", 4, DX, -2.0); }
static void bias_1(hid_t f, hid_t g) { (void)f; set_1(g, "has_bias", 1); }
static void dy_scalar(hid_t f, hid_t g) { (void)f; replace_ds(g, "dy", H5T_IEEE_F32LE, 0, NULL); }

Test(bwd_hostile, bwd_d_datasets_are_named)
{
    const breakage b[] = {
        {"d-extra-x", extra_x, "dataset 'x' is present in a BWD_D case (its "
         "inputs are dy and w)"},
        {"d-extra-db", extra_db, "dataset 'db' is present in a BWD_D case"},
        {"d-extra-y", extra_y, "dataset 'y' is present in a backward case "
         "(its output is dx)"},
        {"d-no-w", no_w, "dataset 'w' is missing"},
        {"d-no-dy", no_dy, "dataset 'dy' is missing"},
        {"d-no-dx-eb", no_dx_eb, "dataset 'dx_err_bound' is missing"},
        {"d-dx-as-dy", dx_as_dy, "dataset 'dx' has shape [1,15,8,7] but the "
         "data layout 'NCHW' with C = in_channels needs [1,10,4,3]"},
        {"d-dx-f64-f32", dx_f64_f32, "dataset 'dx_f64' has type float32"},
        {"d-dx-eb-neg", dx_eb_neg, "dataset 'dx_err_bound' holds the "
         "negative value -2"},
        {"d-dy-scalar", dy_scalar, "dataset 'dy' is a scalar"},
        {"d-bias-1", bias_1, "direction BWD_D with has_bias = 1"},
    };
    run_bwd(b, sizeof b / sizeof b[0], IOHW_DIR_BWD_D, IOHW_READ_ALL);
}

/* NaN and Inf bounds are allowed (section 4: err_bound >= 0 or NaN/Inf),
 * in a backward case as in a forward one. */
Test(bwd_hostile, nan_and_inf_bounds_are_allowed)
{
    char path[512];
    iohw_error e;
    iohw_case c;
    tmp_path(path, sizeof path, "nan-bounds");
    write_bwd(path, IOHW_DIR_BWD_W);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
    put_f64(g, "dw_err_bound", 4, DW, NAN);
    put_f64(g, "db_err_bound", 1, DB, INFINITY);
    H5Gclose(g);
    H5Fclose(fid);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, &e), 0, "%s",
                 e.msg);
    cr_assert(isnan(c.err_bound[0]) && isnan(c.err_bound[NW - 1]));
    cr_assert(isinf(c.err_bound[NW]) && isinf(c.err_bound[NW + 14]));
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    remove(path);
}

/* A quantized case stating a direction is refused (backward problems are
 * float only). */
Test(bwd_hostile, a_quantized_case_with_a_direction_is_refused)
{
    char path[512];
    iohw_case c;
    iohw_desc d;
    iohw_error e = {{0}};
    tmp_path(path, sizeof path, "quant-dir");
    cr_assert_eq(iohw_desc_parse("ci=3 co=2 in=6x2 k=3 s=3 dt=s8 ydt=s32 "
                                 "zp=1,2,0", &d, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_make_case(&d, ID, NULL, 1, &c, &e), 0, "%s", e.msg);
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    iohw_case_free(&c);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
    set_1(g, "direction", IOHW_DIR_BWD_D);
    H5Gclose(g);
    H5Fclose(fid);
    expect_error(path, ID, IOHW_READ_ALL, "invalid problem: direction BWD_D: "
                 "backward problems are", "quant-dir");
    remove(path);
}
