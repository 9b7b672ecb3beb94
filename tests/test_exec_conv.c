/*
 * tests/test_exec_conv.c - the exec backend passes a stated framework
 * convention (specification section 12) to the program: IN.h5 carries the
 * attributes auto_pad, convention and out_shape of the case (and none for a
 * case with explicit pads), and the per-class cache of supports() answers
 * tells a convention case from the same pads stated explicitly.
 */
#include <criterion/criterion.h>

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "support/adapter_asserts.h"
#include "support/adapter_check.h"

static void load_exec(const char *command, iohw_loaded_backend *lb)
{
    cr_assert_eq(setenv("IOHW_EXEC_COMMAND", command, 1), 0);
    cr_assert_eq(setenv("IOHW_EXEC_PROTOCOL", "1", 1), 0);
    load_or_skip("iohw_exec", lb);
}

/* The string attribute `name` of /cases/case in path, or "" when absent. */
static void read_str(const char *path, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0, "%s", path);
    hid_t g = H5Gopen2(f, "/cases/case", H5P_DEFAULT);
    cr_assert_geq(g, 0);
    if (H5Aexists(g, name) > 0) {
        hid_t a = H5Aopen(g, name, H5P_DEFAULT);
        hid_t t = H5Aget_type(a);
        cr_assert(H5Tget_class(t) == H5T_STRING && H5Tget_size(t) < n, "%s", name);
        hid_t mt = H5Tcopy(t);
        cr_assert_geq(H5Aread(a, mt, buf), 0);
        buf[H5Tget_size(t)] = '\0';
        H5Tclose(mt);
        H5Tclose(t);
        H5Aclose(a);
    }
    H5Gclose(g);
    H5Fclose(f);
}

static int read_out_shape(const char *path, int64_t v[2])
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, "/cases/case", H5P_DEFAULT);
    int has = H5Aexists(g, "out_shape") > 0;
    if (has) {
        hid_t a = H5Aopen(g, "out_shape", H5P_DEFAULT);
        cr_assert_geq(H5Aread(a, H5T_NATIVE_INT64, v), 0);
        H5Aclose(a);
    }
    H5Gclose(g);
    H5Fclose(f);
    return has;
}

Test(exec_conv, in_h5_carries_the_stated_convention)
{
    char prog[1024], copy[1024], body[4096], s[64];
    iohw_loaded_backend lb;
    snprintf(copy, sizeof copy, "%s/exec-conv-in-%d.h5", IOHW_TEST_TMP, (int)getpid());
    snprintf(body, sizeof body,
             "if [ \"$1\" = --supports ]; then exit 0; fi\n"
             "cp \"$1\" '%s'\n"
             "exec \"" IOHW_BIN "\" oracle \"$1\" -o \"$2\" >/dev/null\n", copy);
    exec_script("copy", body, prog, sizeof prog);
    load_exec(prog, &lb);

    expect_pass(&lb, "ci=2 co=3 in=5x4 k=3x4 s=2x1 out=10x4 auto_pad=same_upper conv=onnx");
    read_str(copy, "auto_pad", s, sizeof s);
    cr_expect_str_eq(s, "same_upper");
    read_str(copy, "convention", s, sizeof s);
    cr_expect_str_eq(s, "onnx");
    int64_t v[2] = {0, 0};
    cr_expect(read_out_shape(copy, v) && v[0] == 10 && v[1] == 4);

    expect_pass(&lb, "ci=2 co=3 in=5 k=4 s=2 out=9 conv=mxnet");
    read_str(copy, "auto_pad", s, sizeof s);
    cr_expect_str_eq(s, "");
    read_str(copy, "convention", s, sizeof s);
    cr_expect_str_eq(s, "mxnet");

    expect_pass(&lb, "ci=2 co=3 in=5 k=3 s=2 pad=0:1");
    read_str(copy, "convention", s, sizeof s);
    cr_expect_str_eq(s, "");
    cr_expect(!read_out_shape(copy, v));
    iohw_backend_unload(&lb);
    remove(prog);
    remove(copy);
}

Test(exec_conv, a_convention_is_a_class_of_its_own_for_supports)
{
    char prog[1024], count[1024], body[2048];
    iohw_loaded_backend lb;
    snprintf(count, sizeof count, "%s/exec-conv-count-%d", IOHW_TEST_TMP, (int)getpid());
    remove(count);
    snprintf(body, sizeof body,
             "if [ \"$1\" = --supports ]; then echo q >> '%s'; exit 0; fi\n"
             "exec \"" IOHW_BIN "\" oracle \"$1\" -o \"$2\" >/dev/null\n", count);
    exec_script("count", body, prog, sizeof prog);
    load_exec(prog, &lb);
    /* The same pads, 0:1, stated explicitly and by SAME_UPPER. */
    const char *const descs[] = {
        "ci=2 co=3 in=5 k=3 s=2 pad=0:1",
        "ci=2 co=3 in=5 k=3 s=2 auto_pad=same_upper conv=onnx",
        "ci=2 co=3 in=5 k=3 s=2 auto_pad=same_upper conv=tf",
        "ci=2 co=3 in=7 k=3 s=2 auto_pad=same_upper conv=onnx",
    };
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++) {
        iohw_desc d;
        iohw_error e;
        cr_assert_eq(iohw_desc_parse(descs[i], &d, &e), 0, "%s", e.msg);
        cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK, "%s", descs[i]);
    }
    iohw_backend_unload(&lb);
    /* Three classes: explicit, onnx SAME_UPPER (twice), tf SAME_UPPER. */
    FILE *f = fopen(count, "r");
    cr_assert_not_null(f);
    int lines = 0;
    for (int ch; (ch = fgetc(f)) != EOF;)
        lines += ch == '\n';
    fclose(f);
    cr_expect_eq(lines, 3);
    remove(prog);
    remove(count);
}
