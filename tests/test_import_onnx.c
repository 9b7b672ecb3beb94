/*
 * tests/test_import_onnx.c - `iohw import onnx` on ONNX's own node tests
 * (Debian's libonnx-testdata: the 13 models of one ConvTranspose, whose
 * expected outputs ONNX computed) and on hostile folders written here by
 * hand (tests/support/pb_enc.h): two nodes, another operator, a missing
 * input file, a short raw_data, an integer tensor, mixed types, a truncated model, mismatched dims, and
 * a golden output altered to disagree.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cases/case.h"
#include "iohw/backend.h"
#include "support/pb_enc.h"
#include "support/shell.h"

#define DATA "/usr/share/libonnx-testdata/data"
#define TMP IOHW_TEST_TMP "/import_onnx"

static const char *const TESTS[] = {
    "node/test_convtranspose", "node/test_convtranspose_1d", "node/test_convtranspose_3d",
    "node/test_convtranspose_autopad_same", "node/test_convtranspose_dilations",
    "node/test_convtranspose_kernel_shape", "node/test_convtranspose_output_shape",
    "node/test_convtranspose_pad", "node/test_convtranspose_pads",
    "node/test_convtranspose_with_kernel", "pytorch-converted/test_ConvTranspose2d",
    "pytorch-converted/test_ConvTranspose2d_no_bias",
    "pytorch-operator/test_operator_convtranspose",
};

static void skip_without_testdata(void)
{
    struct stat st;
    if (stat(DATA "/node/test_convtranspose/model.onnx", &st) != 0)
        cr_skip_test("libonnx-testdata is not installed (scripts/setup.sh installs it)");
}

Test(import_onnx, onnx_node_tests_of_one_conv_transpose_import_and_agree)
{
    skip_without_testdata();
    char args[4096] = "";
    for (size_t i = 0; i < sizeof TESTS / sizeof TESTS[0]; i++) {
        strcat(args, " '" DATA "/");
        strcat(args, TESTS[i]);
        strcat(args, "'");
    }
    char *out = NULL;
    iohw_test_sh(NULL, "mkdir -p '%s'", TMP);
    int rc = iohw_test_sh(&out, "'%s' import onnx%s -o '%s/all.h5'", IOHW_BIN, args, TMP);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "imported 13, agree 13, disagree 0, not imported 0") != NULL, "%s",
              out);
    cr_expect(strstr(out, "test_convtranspose_output_shape_0: agrees") != NULL, "%s", out);
    free(out);

    /* output_shape 10x8 over F = 9x7 (specification section 12): one more
     * output_padding on each axis, no pads, conv=onnx kept. */
    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(TMP "/all.h5", &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_expect_eq(iohw_case_file_count(f), 13);
    iohw_case c;
    cr_assert_eq(iohw_case_file_read(f, "test_convtranspose_output_shape_0", IOHW_READ_ATTRS,
                                     &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.p.convention, IOHW_CONV_ONNX);
    cr_expect_eq(c.p.output_padding[0], 1);
    cr_expect_eq(c.p.output_padding[1], 1);
    cr_expect_eq(c.p.out_size[0], 10);
    cr_expect_eq(c.p.out_size[1], 8);
    cr_expect_eq(c.p.stride[0], 3);
    cr_expect_eq(c.p.out_channels, 2);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
}

/* Writes bytes into TMP/NAME/FILE (making the folders). */
static void put_file(const char *name, const char *file, const void *b, size_t n)
{
    char path[512];
    iohw_test_sh(NULL, "mkdir -p '%s/%s/test_data_set_0'", TMP, name);
    snprintf(path, sizeof path, "%s/%s/%s", TMP, name, file);
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp, "%s", path);
    cr_assert_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
}

/* A float tensor of dims d (n of them) filled with 1, or of data_type. */
static void put_tensor(const char *name, const char *file, const int64_t *d, int n,
                       int data_type)
{
    static enc t;
    int64_t count = 1;
    t.n = 0;
    for (int i = 0; i < n; i++) {
        put_int(&t, 1, (uint64_t)d[i]);
        count *= d[i];
    }
    put_int(&t, 2, (uint64_t)data_type);
    float one[64];
    for (int i = 0; i < 64; i++)
        one[i] = 1.0f;
    put_bytes(&t, 9, one, (size_t)count * 4);
    put_file(name, file, t.b, t.n);
}

/* model.onnx: `nodes` nodes op(X, W) of a graph with inputs X and W. */
static void put_model(const char *name, int nodes, const char *op)
{
    enc node = {{0}, 0}, graph = {{0}, 0}, vi = {{0}, 0}, m = {{0}, 0};
    put_str(&node, 1, "X");
    put_str(&node, 1, "W");
    put_str(&node, 2, "Y");
    put_str(&node, 4, op);
    for (int i = 0; i < nodes; i++)
        put_msg(&graph, 1, &node);
    put_str(&vi, 1, "X");
    put_msg(&graph, 11, &vi);
    vi.n = 0;
    put_str(&vi, 1, "W");
    put_msg(&graph, 11, &vi);
    put_int(&m, 1, 8);
    put_msg(&m, 7, &graph);
    put_file(name, "model.onnx", m.b, m.n);
}

static void expect_refused(const char *name, const char *frag)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' import onnx '%s/%s' -o '%s/%s.h5'", IOHW_BIN, TMP, name,
                          TMP, name);
    cr_expect_eq(rc, 2, "%s: status %d:\n%s", name, rc, out);
    cr_expect(strstr(out, frag) != NULL, "%s: no '%s' in:\n%s", name, frag, out);
    cr_expect(strstr(out, "nothing imported") != NULL, "%s: %s", name, out);
    free(out);
}

Test(import_onnx, hostile_folders_are_refused_naming_the_file_and_field)
{
    const int64_t x[] = {1, 1, 3}, w[] = {1, 1, 2}, w2[] = {2, 1, 2};
    put_model("two_nodes", 2, "ConvTranspose");
    expect_refused("two_nodes", "two_nodes/model.onnx: GraphProto.node: 2 nodes");
    put_model("conv", 1, "Conv");
    expect_refused("conv", "conv/model.onnx: NodeProto.op_type 'Conv': only ConvTranspose");
    put_model("no_input", 1, "ConvTranspose");
    put_tensor("no_input", "test_data_set_0/input_0.pb", x, 3, 1);
    expect_refused("no_input", "no_input/test_data_set_0/input_1.pb: cannot open");
    put_model("double", 1, "ConvTranspose");
    put_tensor("double", "test_data_set_0/input_0.pb", x, 3, 11);
    put_tensor("double", "test_data_set_0/input_1.pb", w, 3, 1);
    put_tensor("double", "test_data_set_0/output_0.pb", x, 3, 1);
    expect_refused("double", "input X: TensorProto raw_data: holds 12 bytes, its dims give 3 "
                             "values of 8 bytes");
    put_model("int64", 1, "ConvTranspose");
    put_tensor("int64", "test_data_set_0/input_0.pb", x, 3, 7);
    put_tensor("int64", "test_data_set_0/input_1.pb", w, 3, 1);
    put_tensor("int64", "test_data_set_0/output_0.pb", x, 3, 1);
    expect_refused("int64", "input X: TensorProto.data_type = 7: FLOAT (1), DOUBLE (11), "
                            "FLOAT16 (10) or BFLOAT16 (16) are imported");
    put_model("mixed", 1, "ConvTranspose");
    put_tensor("mixed", "test_data_set_0/input_0.pb", x, 3, 1);
    put_tensor("mixed", "test_data_set_0/input_1.pb", w, 3, 10);
    put_tensor("mixed", "test_data_set_0/output_0.pb", x, 3, 1);
    expect_refused("mixed", "input W: TensorProto.data_type = 10, but X's is 1");
    put_model("dims", 1, "ConvTranspose");
    put_tensor("dims", "test_data_set_0/input_0.pb", x, 3, 1);
    put_tensor("dims", "test_data_set_0/input_1.pb", w2, 3, 1);
    expect_refused("dims", "X has 1 channels, W's first dim (C_in) is 2");
    const uint8_t cut[] = {0x3a, 0x40, 0x0a};  /* graph of 64 bytes, 1 there */
    put_file("truncated", "model.onnx", cut, sizeof cut);
    expect_refused("truncated", "truncated/model.onnx: ModelProto: field 7: length 64 exceeds "
                                "the 1 bytes left");
}

Test(import_onnx, an_altered_golden_is_a_finding_not_an_error)
{
    skip_without_testdata();
    char *out = NULL;
    /* The last 4 bytes of output_0.pb are raw_data's last float (field 9
     * is the message's last). */
    int rc = iohw_test_sh(&out, "rm -rf '%s/altered' && mkdir -p '%s' && "
                          "cp -r '" DATA "/node/test_convtranspose' '%s/altered' && "
                          "printf '\\000\\000\\200\\077' | dd of='%s/altered/"
                          "test_data_set_0/output_0.pb' bs=1 conv=notrunc seek=$(( $(stat -c %%s "
                          "'%s/altered/test_data_set_0/output_0.pb') - 4 )) 2>/dev/null",
                          TMP, TMP, TMP, TMP, TMP);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' import onnx '%s/altered' -o '%s/altered.h5'", IOHW_BIN, TMP,
                      TMP);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "altered_0: DISAGREES in 1 of 50 elements, first at element 49: ONNX 1, oracle 8") != NULL, "%s",
              out);
    cr_expect(strstr(out, "imported 1, agree 0, disagree 1") != NULL, "%s", out);
    free(out);
}
