/*
 * tests/test_cases_datasets.c - the case reader against broken datasets: a
 * valid file (test_cases_break.h) with one dataset missing, reshaped,
 * retyped, replaced by a group or a soft link, kept outside the file, or
 * holding a negative error bound; f16 and bf16 storage checks; and the
 * control: the unbroken base file of every dtype reads.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_cases_break.h"

Test(hostile_datasets, every_missing_dataset_is_named)
{
    static const char *names[] = {"x", "w", "bias", "y", "y_f64",
                                  "err_bound"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512], needle[64];
        tmp_path(path, sizeof path, names[i]);
        write_base(path, IOHW_F32);
        hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
        cr_assert_geq(H5Ldelete(g, names[i], H5P_DEFAULT), 0);
        H5Gclose(g);
        H5Fclose(fid);
        snprintf(needle, sizeof needle, "dataset '%s' is missing", names[i]);
        /* Even an attributes-only read checks the datasets. */
        expect_error(path, ID, IOHW_READ_ATTRS, needle, names[i]);
        if (i < 3)   /* inputs are required of user cases too */
            expect_error(path, ID, IOHW_READ_USER, needle, names[i]);
        remove(path);
    }
}


/* ---------------------------------------------------------------------- */
/* Datasets of the wrong shape, type or kind. */

static void w_swapped(hid_t f, hid_t g)
{
    const hsize_t d[4] = {15, 10, 5, 5};
    (void)f;
    replace_ds(g, "w", H5T_IEEE_F32LE, 4, d);
}
static void x_rank3(hid_t f, hid_t g)
{
    const hsize_t d[3] = {1, 10, 12};
    (void)f;
    replace_ds(g, "x", H5T_IEEE_F32LE, 3, d);
}
static void y64_short(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 15, 8, 6};
    (void)f;
    replace_ds(g, "y_f64", H5T_IEEE_F64LE, 4, d);
}
static void bias_long(hid_t f, hid_t g)
{
    const hsize_t d[1] = {16};
    (void)f;
    replace_ds(g, "bias", H5T_IEEE_F32LE, 1, d);
}
static void x_f64(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 10, 4, 3};
    (void)f;
    replace_ds(g, "x", H5T_IEEE_F64LE, 4, d);
}
static void x_int32(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 10, 4, 3};
    (void)f;
    replace_ds(g, "x", H5T_STD_I32LE, 4, d);
}
static void y64_f32(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 15, 8, 7};
    (void)f;
    replace_ds(g, "y_f64", H5T_IEEE_F32LE, 4, d);
}
static void x_scalar(hid_t f, hid_t g)
{
    (void)f;
    replace_ds(g, "x", H5T_IEEE_F32LE, 0, NULL);
}
static void x_group(hid_t f, hid_t g)
{
    (void)f;
    H5Ldelete(g, "x", H5P_DEFAULT);
    H5Gclose(H5Gcreate2(g, "x", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}
static void x_soft(hid_t f, hid_t g)
{
    (void)f;
    H5Ldelete(g, "x", H5P_DEFAULT);
    cr_assert_geq(H5Lcreate_soft("/cases/" ID "/w", g, "x", H5P_DEFAULT,
                                 H5P_DEFAULT), 0);
}
static void no_bias_flag(hid_t f, hid_t g) { (void)f; set_1(g, "has_bias", 0); }
static void eb_negative(hid_t f, hid_t g)
{
    (void)f;
    hid_t d = H5Dopen2(g, "err_bound", H5P_DEFAULT);
    double *v = malloc(840 * sizeof *v);
    for (int i = 0; i < 840; i++)
        v[i] = 1.0;
    v[17] = -0.5;
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                           H5P_DEFAULT, v), 0);
    free(v);
    H5Dclose(d);
}
/* x's numbers kept in an outside raw file. */
static void x_external(hid_t f, hid_t g)
{
    char raw[512];
    (void)f;
    snprintf(raw, sizeof raw, "%s/hostile-%ld-raw.bin", IOHW_TEST_TMP,
             (long)getpid());
    FILE *fp = fopen(raw, "wb");
    static const float zeros[120];
    fwrite(zeros, sizeof zeros, 1, fp);
    fclose(fp);
    H5Ldelete(g, "x", H5P_DEFAULT);
    const hsize_t d[4] = {1, 10, 4, 3};
    hid_t s = H5Screate_simple(4, d, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    cr_assert_geq(H5Pset_external(dcpl, raw, 0, sizeof zeros), 0);
    hid_t ds = H5Dcreate2(g, "x", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT);
    cr_assert_geq(ds, 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(s);
}

Test(hostile_datasets, a_transposed_weight_gets_the_exact_message)
{
    char path[512], want[1024];
    iohw_error e;
    iohw_case c;
    tmp_path(path, sizeof path, "w-exact");
    write_base(path, IOHW_F32);
    mutate(path, w_swapped);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, &e), -1);
    snprintf(want, sizeof want, "%s: case '" ID "': dataset 'w' has shape "
             "[15,10,5,5] but the weight layout 'IOHW' needs [10,15,5,5]",
             path);
    cr_assert_str_eq(e.msg, want);
    iohw_case_file_close(f, NULL);
    remove(path);
}

Test(hostile_datasets, datasets_of_the_wrong_shape_type_or_kind_are_named)
{
    const breakage b[] = {
        {"x-rank3", x_rank3, "dataset 'x' has shape [1,10,12] but the data "
         "layout 'NCHW' needs [1,10,4,3]"},
        {"y64-short", y64_short, "dataset 'y_f64' has shape [1,15,8,6] but "
         "the data layout 'NCHW' with C = out_channels needs [1,15,8,7]"},
        {"bias-long", bias_long, "dataset 'bias' has shape [16] but "
         "out_channels = 15 needs [15]"},
        {"x-f64", x_f64, "dataset 'x' has type float64, but the case dtype "
         "f32 needs float32"},
        {"x-int32", x_int32, "dataset 'x' has type int32"},
        {"y64-f32", y64_f32, "dataset 'y_f64' has type float32, but this "
         "dataset needs float64"},
        {"x-scalar", x_scalar, "dataset 'x' is a scalar, but the data layout "
         "'NCHW' needs [1,10,4,3]"},
        {"x-group", x_group, "'x' is a group, not a dataset"},
        {"x-soft", x_soft, "dataset 'x' is a soft or external link"},
        {"no-bias-flag", no_bias_flag,
         "dataset 'bias' is present but has_bias is 0"},
        {"x-external", x_external, "dataset 'x' keeps its data in external "
         "files"},
    };
    run_breakages(b, (int)(sizeof b / sizeof b[0]), IOHW_F32,
                  IOHW_READ_ATTRS);
    char raw[512];
    snprintf(raw, sizeof raw, "%s/hostile-%ld-raw.bin", IOHW_TEST_TMP,
             (long)getpid());
    remove(raw);
}

Test(hostile_datasets, a_negative_error_bound_is_found_when_loaded)
{
    const breakage b[] = {
        {"eb-negative", eb_negative, "dataset 'err_bound' holds the negative "
         "value -0.5 at element 17"},
    };
    run_breakages(b, 1, IOHW_F32, IOHW_READ_OUTPUTS);
}

/* f16 and bf16 storage. */
static void bf16_no_encoding(hid_t f, hid_t g)
{
    (void)f;
    hid_t d = H5Dopen2(g, "w", H5P_DEFAULT);
    cr_assert_geq(H5Adelete(d, "encoding"), 0);
    H5Dclose(d);
}
static void bf16_wrong_encoding(hid_t f, hid_t g)
{
    (void)f;
    hid_t d = H5Dopen2(g, "bias", H5P_DEFAULT);
    set_str(d, "encoding", "f16");
    H5Dclose(d);
}
static void bf16_signed(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 10, 4, 3};
    (void)f;
    replace_ds(g, "x", H5T_STD_I16LE, 4, d);
}
static void f16_as_uint16(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 15, 8, 7};
    (void)f;
    replace_ds(g, "y", H5T_STD_U16LE, 4, d);
}
/* A 16-bit float with bfloat16's fields: not IEEE binary16. */
static void f16_not_ieee(hid_t f, hid_t g)
{
    const hsize_t d[4] = {1, 10, 4, 3};
    (void)f;
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(t, 15, 7, 8, 0, 7);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 127);
    replace_ds(g, "x", t, 4, d);
    H5Tclose(t);
}

Test(hostile_datasets, f16_and_bf16_storage_is_checked)
{
    const breakage bf[] = {
        {"bf16-no-encoding", bf16_no_encoding,
         "dataset 'w' has no attribute 'encoding'"},
        {"bf16-wrong-encoding", bf16_wrong_encoding,
         "dataset 'bias' has encoding 'f16', but a bf16 dataset needs"},
        {"bf16-signed", bf16_signed, "dataset 'x' has type int16, but the "
         "case dtype bf16 needs uint16"},
    };
    run_breakages(bf, 3, IOHW_BF16, IOHW_READ_ALL);
    const breakage h[] = {
        {"f16-uint16", f16_as_uint16, "dataset 'y' has type uint16, but the "
         "case dtype f16 needs float16"},
        {"f16-not-ieee", f16_not_ieee, "dataset 'x' has type float (16 bits, "
         "not an IEEE format)"},
    };
    run_breakages(h, 2, IOHW_F16, IOHW_READ_ALL);
}

Test(hostile_datasets, the_untouched_base_files_read_correctly)
{
    /* The control for every test above: without a mutation each dtype's
     * base file reads. */
    const iohw_dtype dts[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};
    for (int i = 0; i < 4; i++) {
        char path[512];
        iohw_error e;
        iohw_case c;
        tmp_path(path, sizeof path, iohw_dtype_name(dts[i]));
        write_base(path, dts[i]);
        iohw_case_file *f = iohw_case_file_open(path, &e);
        cr_assert_not_null(f, "%s", e.msg);
        cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, &e), 0,
                     "%s", e.msg);
        cr_assert_eq(c.p.out_size[0], 8);
        cr_assert_eq(iohw_dtype_load(dts[i], c.w, 3750 - 1), (3749 % 7) - 3);
        iohw_case_free(&c);
        iohw_case_file_close(f, NULL);
        remove(path);
    }
}
