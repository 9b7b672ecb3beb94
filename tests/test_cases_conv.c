/*
 * tests/test_cases_conv.c - a case's framework convention in its file
 * (specification sections 4 and 12): the attributes auto_pad, convention and
 * out_shape written only when set and read back into the problem; files
 * without them (every older file) state no convention; bad values, a
 * convention without its name, and pads the convention does not resolve to
 * are refused with the attribute named; `iohw show` prints it.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "support/shell.h"
#include "test_cases_break.h"

/* H: total 8 + 3 - 10 = 1 (0:1); W: 3 + 4 - 4 = 3 from out = 4 (1:2). */
#define CONV_DESC "ci=2 co=3 in=5x4 k=3x4 s=2x1 out=10x4 auto_pad=same_upper conv=onnx"

static void write_conv(const char *path, const char *desc)
{
    iohw_desc d;
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_desc_parse(desc, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_make_case(&d, ID, NULL, 1, &c, &e), 0, "%s", e.msg);
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    iohw_case_free(&c);
}

static void read_back(const char *path, iohw_case *c)
{
    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ATTRS, c, &e), 0, "%s", e.msg);
    iohw_case_file_close(f, NULL);
}

static int has_attr(const char *path, const char *name)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
    int has = H5Aexists(g, name) > 0;
    H5Gclose(g);
    H5Fclose(fid);
    return has;
}

Test(cases_conv, the_convention_is_written_and_read_back)
{
    char path[512];
    tmp_path(path, sizeof path, "conv-roundtrip");
    write_conv(path, CONV_DESC);
    iohw_case c;
    read_back(path, &c);
    cr_expect_eq(c.p.convention, IOHW_CONV_ONNX);
    cr_expect_eq(c.p.auto_pad, IOHW_AUTO_PAD_SAME_UPPER);
    cr_expect(c.p.out_shape[0] == 10 && c.p.out_shape[1] == 4 && c.p.out_shape[2] == 0);
    cr_expect(c.p.pad_begin[0] == 0 && c.p.pad_end[0] == 1, "H %lld:%lld",
              (long long)c.p.pad_begin[0], (long long)c.p.pad_end[0]);
    cr_expect(c.p.pad_begin[1] == 1 && c.p.pad_end[1] == 2);
    cr_expect(strstr(c.descriptor, "out=10x4") != NULL, "%s", c.descriptor);
    cr_expect(strstr(c.tags, "conv-onnx,auto_pad-same_upper,out-shape") != NULL, "%s",
              c.tags);
    iohw_case_free(&c);
    remove(path);

    /* A convention without auto_pad writes no auto_pad. */
    write_conv(path, "ci=1 co=1 in=5 k=4 s=2 out=9 conv=mxnet");
    cr_expect(!has_attr(path, "auto_pad"));
    cr_expect(has_attr(path, "convention") && has_attr(path, "out_shape"));
    read_back(path, &c);
    cr_expect_eq(c.p.convention, IOHW_CONV_MXNET);
    cr_expect_eq(c.p.auto_pad, IOHW_AUTO_PAD_NONE);
    cr_expect_eq(c.p.out_shape[0], 9);
    iohw_case_free(&c);
    remove(path);
}

Test(cases_conv, a_file_without_the_attributes_states_no_convention)
{
    char path[512];
    tmp_path(path, sizeof path, "conv-none");
    write_base(path, IOHW_F32);
    cr_expect(!has_attr(path, "auto_pad") && !has_attr(path, "convention") &&
              !has_attr(path, "out_shape"));
    iohw_case c;
    read_back(path, &c);
    cr_expect_eq(c.p.convention, IOHW_CONV_NONE);
    cr_expect_eq(c.p.auto_pad, IOHW_AUTO_PAD_NONE);
    cr_expect(c.p.out_shape[0] == 0 && c.p.out_shape[1] == 0);
    iohw_case_free(&c);
    remove(path);
}

/* --- hostile values ------------------------------------------------------ */

static void auto_pad_same(hid_t f, hid_t g) { (void)f; set_str(g, "auto_pad", "same"); }
static void convention_caffe(hid_t f, hid_t g) { (void)f; set_str(g, "convention", "caffe"); }
static void convention_gone(hid_t f, hid_t g) { (void)f; del_attr(g, "convention"); }
static void convention_int(hid_t f, hid_t g) { (void)f; set_1(g, "convention", 1); }
static void out_shape_short(hid_t f, hid_t g) { (void)f; set_i64(g, "out_shape", 1, (int64_t[]){10}); }
static void out_shape_negative(hid_t f, hid_t g)
{
    (void)f;
    set_i64(g, "out_shape", 2, (int64_t[]){-10, 4});
}
static void out_shape_other(hid_t f, hid_t g)
{
    (void)f;
    set_i64(g, "out_shape", 2, (int64_t[]){9, 4});
}
static void pads_moved(hid_t f, hid_t g)
{
    /* H 1:0 instead of 0:1: the same out_size, the other split. */
    (void)f;
    set_i64(g, "pad_begin", 2, (int64_t[]){1, 1});
    set_i64(g, "pad_end", 2, (int64_t[]){0, 2});
}
static void auto_pad_huge(hid_t f, hid_t g)
{
    char big[80];
    (void)f;
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    set_str(g, "auto_pad", big);
}

Test(cases_conv, bad_convention_attributes_are_named)
{
    static const breakage cases[] = {
        {"auto_pad same", auto_pad_same,
         "attribute 'auto_pad' is 'same'; it must be same_upper, same_lower or valid"},
        {"convention caffe", convention_caffe,
         "attribute 'convention' is 'caffe'; it must be onnx, tf, tvm, torch or mxnet"},
        {"convention gone", convention_gone,
         "attribute 'auto_pad' is present without 'convention'"},
        {"convention int", convention_int, "convention"},
        {"out_shape short", out_shape_short, "out_shape"},
        {"out_shape negative", out_shape_negative, "every entry must be >= 1"},
        {"out_shape other", out_shape_other,
         "the stated convention: pad_begin[0] (H) = 0, but conv=onnx auto_pad=same_upper "
         "resolves it to"},
        {"pads moved", pads_moved,
         "the stated convention: pad_begin[0] (H) = 1, but conv=onnx auto_pad=same_upper "
         "resolves it to 0"},
        {"auto_pad huge", auto_pad_huge, "auto_pad"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        tmp_path(path, sizeof path, "conv-bad");
        write_conv(path, CONV_DESC);
        mutate(path, cases[i].m);
        expect_error(path, ID, IOHW_READ_ATTRS, cases[i].needle, cases[i].label);
        remove(path);
    }
}

Test(cases_conv, the_writer_refuses_pads_the_convention_does_not_give)
{
    iohw_desc d;
    iohw_case c;
    iohw_error e;
    char path[512];
    cr_assert_eq(iohw_desc_parse(CONV_DESC, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_make_case(&d, ID, NULL, 1, &c, &e), 0, "%s", e.msg);
    c.p.auto_pad = IOHW_AUTO_PAD_SAME_LOWER;  /* pads stay SAME_UPPER's */
    tmp_path(path, sizeof path, "conv-writer");
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_expect_neq(iohw_case_file_write(f, &c, &e), 0);
    cr_expect(strstr(e.msg, "the stated convention: pad_begin[0] (H) = 0, but conv=onnx "
                            "auto_pad=same_lower resolves it to 1") != NULL, "%s", e.msg);
    iohw_case_file_abandon(f);
    iohw_case_free(&c);
}

Test(cases_conv, show_prints_the_stated_convention)
{
    char path[512];
    char *out = NULL;
    tmp_path(path, sizeof path, "conv-show");
    write_conv(path, CONV_DESC);
    cr_assert_eq(iohw_test_sh(&out, "'%s' show '%s'", IOHW_BIN, path), 0, "%s", out);
    cr_expect(strstr(out, "convention     onnx auto_pad=same_upper out=10x4 (specification "
                          "section 12)") != NULL, "%s", out);
    free(out);
    remove(path);
    write_base(path, IOHW_F32);
    cr_assert_eq(iohw_test_sh(&out, "'%s' show '%s'", IOHW_BIN, path), 0, "%s", out);
    cr_expect(strstr(out, "convention") == NULL, "%s", out);
    free(out);
    remove(path);
}
