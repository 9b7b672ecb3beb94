/*
 * tests/test_cases_hostile.c - the case reader against broken attributes:
 * for every attribute check, a valid file (test_cases_break.h) is broken in
 * one way - the attribute deleted, given another type or length, or a bad
 * value - and the error must name the file, the case and the reason.
 * Datasets are in test_cases_datasets.c, whole files in test_cases_files.c.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "test_cases_break.h"

/* ---------------------------------------------------------------------- */
/* Missing attributes and datasets. */

Test(hostile_missing, every_missing_attribute_is_named)
{
    static const char *names[] = {
        "rank", "batch", "in_channels", "out_channels", "groups", "in_size",
        "kernel", "stride", "dilation", "pad_begin", "pad_end",
        "output_padding", "out_size", "data_layout", "weight_layout",
        "dtype", "has_bias", "fill", "seed", "tags", "descriptor",
        "terms_max"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512], needle[64];
        tmp_path(path, sizeof path, names[i]);
        write_base(path, IOHW_F32);
        hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
        del_attr(g, names[i]);
        H5Gclose(g);
        H5Fclose(fid);
        snprintf(needle, sizeof needle, "attribute '%s' is missing",
                 names[i]);
        expect_error(path, ID, IOHW_READ_ATTRS, needle, names[i]);
        remove(path);
    }
}

/* ---------------------------------------------------------------------- */
/* Attributes of the wrong type or length. */

static void rank_string(hid_t f, hid_t g) { (void)f; set_str(g, "rank", "2"); }
static void batch_float(hid_t f, hid_t g)
{
    double one = 1.0;
    (void)f;
    set_attr(g, "batch", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &one);
}
static void layout_int(hid_t f, hid_t g) { (void)f; set_1(g, "data_layout", 7); }
static void kernel_three(hid_t f, hid_t g)
{
    const int64_t k[3] = {5, 5, 5};
    (void)f;
    set_i64(g, "kernel", 3, k);
}
static void in_size_scalar(hid_t f, hid_t g) { (void)f; set_1(g, "in_size", 4); }
static void stride_2d(hid_t f, hid_t g)
{
    const int64_t v[2] = {1, 1};
    hsize_t dims[2] = {1, 2};
    (void)f;
    del_attr(g, "stride");
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t a = H5Acreate2(g, "stride", H5T_STD_I64LE, s, H5P_DEFAULT,
                         H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, v);
    H5Aclose(a);
    H5Sclose(s);
}
static void seed_string(hid_t f, hid_t g) { (void)f; set_str(g, "seed", "7"); }
static void batch_huge(hid_t f, hid_t g)
{
    const uint64_t v = ((uint64_t)1 << 63) + 5;
    (void)f;
    set_attr(g, "batch", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &v);
}
static void pad_empty(hid_t f, hid_t g)
{
    (void)f;
    del_attr(g, "pad_end");
    hid_t s = H5Screate(H5S_NULL);
    hid_t a = H5Acreate2(g, "pad_end", H5T_STD_I64LE, s, H5P_DEFAULT,
                         H5P_DEFAULT);
    H5Aclose(a);
    H5Sclose(s);
}
static void fill_compound(hid_t f, hid_t g)
{
    struct { int32_t a; } v = {1};
    (void)f;
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof v);
    H5Tinsert(t, "a", 0, H5T_NATIVE_INT32);
    set_attr(g, "fill", t, t, 0, &v);
    H5Tclose(t);
}

Test(hostile_types, attributes_of_the_wrong_type_or_length_are_named)
{
    const breakage b[] = {
        {"rank-string", rank_string,
         "attribute 'rank' has type string, not an integer type"},
        {"batch-float", batch_float,
         "attribute 'batch' has type float64, not an integer type"},
        {"layout-int", layout_int,
         "attribute 'data_layout' has type int64, not string"},
        {"kernel-three", kernel_three,
         "attribute 'kernel' holds 3 value(s) in 1 dimension(s), but 2 are "
         "needed (one per spatial axis)"},
        {"in-size-scalar", in_size_scalar,
         "attribute 'in_size' holds one value, but 2 are needed"},
        {"stride-2d", stride_2d,
         "attribute 'stride' holds 2 value(s) in 2 dimension(s)"},
        {"seed-string", seed_string, "attribute 'seed' has type string"},
        {"batch-huge", batch_huge,
         "attribute 'batch' holds 9223372036854775813, beyond the int64"},
        {"pad-empty", pad_empty, "attribute 'pad_end' holds no value"},
        {"fill-compound", fill_compound,
         "attribute 'fill' has type compound, not string"},
    };
    run_breakages(b, (int)(sizeof b / sizeof b[0]), IOHW_F32,
                  IOHW_READ_ATTRS);
}

/* ---------------------------------------------------------------------- */
/* Attributes with bad values. */

static void rank_4(hid_t f, hid_t g) { (void)f; set_1(g, "rank", 4); }
static void rank_0(hid_t f, hid_t g) { (void)f; set_1(g, "rank", 0); }
static void in_negative(hid_t f, hid_t g)
{
    const int64_t v[2] = {-3, 3};
    (void)f;
    set_i64(g, "in_size", 2, v);
}
static void kernel_zero(hid_t f, hid_t g)
{
    const int64_t v[2] = {5, 0};
    (void)f;
    set_i64(g, "kernel", 2, v);
}
static void stride_overflow(hid_t f, hid_t g)
{
    const int64_t v[2] = {INT64_MAX, 1};
    (void)f;
    set_i64(g, "stride", 2, v);
}
/* in = 2^20 x 2^20 with out_size kept consistent (out = in + 4): x would
 * hold 10 * 2^40 elements. */
static void in_absurd(hid_t f, hid_t g)
{
    const int64_t in[2] = {(int64_t)1 << 20, (int64_t)1 << 20};
    const int64_t out[2] = {in[0] + 4, in[1] + 4};
    (void)f;
    set_i64(g, "in_size", 2, in);
    set_i64(g, "out_size", 2, out);
}
/* in = 2^40 x 2^40: the element count itself overflows int64. */
static void in_overflow(hid_t f, hid_t g)
{
    const int64_t in[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    const int64_t out[2] = {in[0] + 4, in[1] + 4};
    (void)f;
    set_i64(g, "in_size", 2, in);
    set_i64(g, "out_size", 2, out);
}
static void out_wrong(hid_t f, hid_t g)
{
    const int64_t v[2] = {8, 9};
    (void)f;
    set_i64(g, "out_size", 2, v);
}
static void pad_too_much(hid_t f, hid_t g)
{
    const int64_t v[2] = {100, 0};
    (void)f;
    set_i64(g, "pad_begin", 2, v);
}
static void groups_4(hid_t f, hid_t g) { (void)f; set_1(g, "groups", 4); }
static void batch_0(hid_t f, hid_t g) { (void)f; set_1(g, "batch", 0); }
static void dtype_f8(hid_t f, hid_t g) { (void)f; set_str(g, "dtype", "f8"); }
static void xl_bad(hid_t f, hid_t g) { (void)f; set_str(g, "data_layout", "NCHX"); }
static void xl_rank3(hid_t f, hid_t g) { (void)f; set_str(g, "data_layout", "NCDHW"); }
static void wl_bad(hid_t f, hid_t g) { (void)f; set_str(g, "weight_layout", "IOHWI"); }
static void xl_long(hid_t f, hid_t g)
{
    (void)f;
    set_str(g, "data_layout", "NCHWNCHWNCHWNCHW");
}
static void bias_2(hid_t f, hid_t g) { (void)f; set_1(g, "has_bias", 2); }
static void fill_bad(hid_t f, hid_t g) { (void)f; set_str(g, "fill", "bad fill"); }
static void seed_negative(hid_t f, hid_t g) { (void)f; set_1(g, "seed", -1); }
static void tags_newline(hid_t f, hid_t g) { (void)f; set_str(g, "tags", "2d\nbias"); }
static void terms_999(hid_t f, hid_t g) { (void)f; set_1(g, "terms_max", 999); }

Test(hostile_values, attributes_with_bad_values_are_named)
{
    const breakage b[] = {
        {"rank-4", rank_4, "attribute 'rank' is 4; it must be 1, 2 or 3"},
        {"rank-0", rank_0, "attribute 'rank' is 0"},
        {"in-negative", in_negative, "in_size[0] (H) = -3: must be >= 1"},
        {"kernel-zero", kernel_zero, "kernel[1] (W) = 0: must be >= 1"},
        {"stride-overflow", stride_overflow, "overflows"},
        {"in-absurd", in_absurd, "more than the limit"},
        {"in-overflow", in_overflow, "overflows int64"},
        {"out-wrong", out_wrong, "out_size[1] (W) = 9, but the formula gives 7"},
        {"pad-too-much", pad_too_much, "out_size[0] (H): the formula gives"},
        {"groups-4", groups_4, "groups = 4 does not divide in_channels = 10"},
        {"batch-0", batch_0, "batch = 0"},
        {"dtype-f8", dtype_f8, "attribute 'dtype' is 'f8'"},
        {"xl-bad", xl_bad, "data_layout"},
        {"xl-rank3", xl_rank3, "data_layout"},
        {"wl-bad", wl_bad, "weight_layout"},
        {"xl-long", xl_long, "attribute 'data_layout' is 16 characters long"},
        {"bias-2", bias_2, "attribute 'has_bias' is 2"},
        {"fill-bad", fill_bad, "attribute 'fill' is 'bad fill'"},
        {"seed-negative", seed_negative, "attribute 'seed' is -1"},
        {"tags-newline", tags_newline,
         "attribute 'tags' holds the control character 0x0a at offset 2"},
        {"terms-999", terms_999, "terms_max is 999"},
    };
    run_breakages(b, (int)(sizeof b / sizeof b[0]), IOHW_F32,
                  IOHW_READ_ATTRS);
}

Test(hostile_values, a_user_read_still_checks_what_is_present)
{
    const breakage b[] = {
        {"user-out-wrong", out_wrong, "out_size[1] (W) = 9"},
        {"user-terms", terms_999, "terms_max is 999"},
        {"user-fill", fill_bad, "attribute 'fill' is 'bad fill'"},
        {"user-tags", tags_newline, "control character"},
    };
    run_breakages(b, (int)(sizeof b / sizeof b[0]), IOHW_F32,
                  IOHW_READ_USER);
}
