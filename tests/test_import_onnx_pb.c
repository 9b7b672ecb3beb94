/*
 * tests/test_import_onnx_pb.c - the protobuf reader of `iohw import onnx`
 * (cli/import_onnx_pb.c) and the ConvTranspose attributes into a problem
 * (cli/import_onnx_problem.c), on messages encoded here by hand from the
 * wire format (protobuf's encoding: key = field << 3 | wire type; varint 0,
 * 64-bit 1, length-delimited 2, 32-bit 5) and onnx/onnx.proto's field
 * numbers (ModelProto.graph 7, GraphProto.node 1 / input 11, NodeProto.input
 * 1 / op_type 4 / attribute 5, AttributeProto.name 1 / i 3 / s 4 / ints 8,
 * TensorProto.dims 1 / data_type 2 / raw_data 9).  Hostile messages get a
 * message naming the field, never a crash (run under ASan).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cli/import_onnx.h"
#include "cli/import_onnx_pb.h"
#include "support/pb_enc.h"

/* An INTS attribute. */
static void put_ints_attr(enc *node, const char *name, const int64_t *v, int n)
{
    enc a = {{0}, 0};
    put_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        put_int(&a, 8, (uint64_t)v[i]);
    put_int(&a, 20, 7);
    put_msg(node, 5, &a);
}

/* A model of the given nodes (each a ConvTranspose X, W -> Y unless op). */
static void model(enc *m, int nodes, const char *op, const enc *extra_attrs)
{
    enc node = {{0}, 0}, graph = {{0}, 0}, vi = {{0}, 0};
    put_str(&node, 1, "X");
    put_str(&node, 1, "W");
    put_str(&node, 2, "Y");
    put_str(&node, 4, op);
    if (extra_attrs != NULL) {
        memcpy(node.b + node.n, extra_attrs->b, extra_attrs->n);
        node.n += extra_attrs->n;
    }
    for (int i = 0; i < nodes; i++)
        put_msg(&graph, 1, &node);
    put_str(&vi, 1, "X");
    put_msg(&graph, 11, &vi);
    m->n = 0;
    put_int(m, 1, 8);
    put_msg(m, 7, &graph);
}

static void expect_model_error(const enc *m, const char *needle)
{
    iohw__pb_model pm;
    iohw_error e = {{0}};
    cr_assert_neq(iohw__pb_model_parse(m->b, m->n, &pm, &e), 0, "accepted");
    cr_expect(strstr(e.msg, needle) != NULL, "'%s' not in '%s'", needle, e.msg);
}

Test(import_onnx_pb, a_hand_encoded_model_reads_back)
{
    enc m = {{0}, 0}, attrs = {{0}, 0};
    const int64_t s[] = {3, 2};
    put_ints_attr(&attrs, "strides", s, 2);
    model(&m, 1, "ConvTranspose", &attrs);
    iohw__pb_model pm;
    iohw_error e = {{0}};
    cr_assert_eq(iohw__pb_model_parse(m.b, m.n, &pm, &e), 0, "%s", e.msg);
    cr_expect_eq(pm.nnodes, 1);
    cr_expect(iohw__pb_is(pm.node.op_type, "ConvTranspose"));
    cr_expect_eq(pm.node.ninput, 2);
    cr_expect(iohw__pb_is(pm.node.input[1], "W"));
    cr_expect_eq(pm.node.nattr, 1);
    cr_expect_eq(pm.node.attr[0].nints, 2);
    cr_expect_eq(pm.node.attr[0].ints[0], 3);
    cr_expect_eq(pm.node.attr[0].ints[1], 2);
    cr_expect_eq(pm.ninput, 1);
}

Test(import_onnx_pb, two_nodes_are_counted)
{
    enc m = {{0}, 0};
    model(&m, 2, "ConvTranspose", NULL);
    iohw__pb_model pm;
    iohw_error e = {{0}};
    cr_assert_eq(iohw__pb_model_parse(m.b, m.n, &pm, &e), 0, "%s", e.msg);
    cr_expect_eq(pm.nnodes, 2);
}

Test(import_onnx_pb, every_truncation_is_refused_without_a_crash)
{
    enc m = {{0}, 0};
    model(&m, 1, "ConvTranspose", NULL);
    for (size_t n = 1; n < m.n; n++) {
        iohw__pb_model pm;
        iohw_error e = {{0}};
        /* A copy of exactly n bytes, so ASan sees a read past its end. */
        uint8_t *b = malloc(n);
        memcpy(b, m.b, n);
        const int rc = iohw__pb_model_parse(b, n, &pm, &e);
        free(b);
        cr_expect_neq(rc, 0, "cut at %zu of %zu was accepted", n, m.n);
        if (rc != 0)
            cr_expect(strstr(e.msg, "Proto") != NULL, "cut at %zu: '%s'", n, e.msg);
    }
}

Test(import_onnx_pb, hostile_keys_and_lengths_name_the_field)
{
    enc m = {{0}, 0};
    put_key(&m, 7, 2);
    put_varint(&m, (uint64_t)1 << 40);  /* a length far past the end */
    expect_model_error(&m, "ModelProto: field 7: length 1099511627776 exceeds the 0 bytes left");
    m.n = 0;
    put_int(&m, 7, 5);  /* graph as a varint */
    expect_model_error(&m, "ModelProto.graph (field 7): wire type 0, expected 2");
    m.n = 0;
    put_key(&m, 7, 3);  /* a group */
    expect_model_error(&m, "ModelProto: field 7: wire type 3 is not supported");
    m.n = 0;
    for (int i = 0; i < 11; i++)
        m.b[m.n++] = 0xff;
    expect_model_error(&m, "ModelProto: varint longer than 10 bytes");
    m.n = 0;
    put_key(&m, 1, 1);
    m.b[m.n++] = 1;  /* 1 of 8 bytes */
    expect_model_error(&m, "ModelProto: field 1: truncated 64-bit value");
    m.n = 0;
    put_int(&m, 1, 8);
    expect_model_error(&m, "ModelProto: no graph (field 7)");
}

Test(import_onnx_pb, a_nested_bomb_of_unknown_fields_is_skipped_not_entered)
{
    /* 40 levels of field 99 inside field 99 inside the graph. */
    enc in = {{0}, 0}, out = {{0}, 0};
    for (int i = 0; i < 40; i++) {
        out.n = 0;
        put_msg(&out, 99, &in);
        in = out;
    }
    enc m = {{0}, 0};
    put_msg(&m, 7, &in);
    iohw__pb_model pm;
    iohw_error e = {{0}};
    cr_assert_eq(iohw__pb_model_parse(m.b, m.n, &pm, &e), 0, "%s", e.msg);
    cr_expect_eq(pm.nnodes, 0);
}

Test(import_onnx_pb, tensors_of_another_type_or_count_are_refused)
{
    enc t = {{0}, 0};
    const float v[2] = {1.5f, -2.0f};
    put_int(&t, 1, 1);
    put_int(&t, 1, 2);
    put_int(&t, 2, 1);
    put_bytes(&t, 9, v, sizeof v);
    iohw__pb_tensor pt;
    iohw_error e = {{0}};
    float out[3];
    cr_assert_eq(iohw__pb_tensor_parse(t.b, t.n, &pt, &e), 0, "%s", e.msg);
    cr_expect_eq(pt.ndims, 2);
    cr_assert_eq(iohw__pb_tensor_floats(&pt, out, 2, &e), 0, "%s", e.msg);
    cr_expect(out[0] == 1.5f && out[1] == -2.0f);
    cr_expect_neq(iohw__pb_tensor_floats(&pt, out, 3, &e), 0);
    cr_expect(strstr(e.msg, "raw_data: holds 2 float values, its dims give 3") != NULL, "%s",
              e.msg);
    pt.data_type = 11;  /* DOUBLE */
    cr_expect_neq(iohw__pb_tensor_floats(&pt, out, 2, &e), 0);
    cr_expect(strstr(e.msg, "data_type = 11: only FLOAT (1)") != NULL, "%s", e.msg);
}

/* A tensor header of the given dims (no data). */
static iohw__pb_tensor dims(int n, const int64_t *d)
{
    iohw__pb_tensor t;
    memset(&t, 0, sizeof t);
    t.ndims = n;
    memcpy(t.dims, d, (size_t)n * sizeof *d);
    t.data_type = 1;
    return t;
}

static int problem_of(const enc *attrs, const iohw__pb_tensor *x, const iohw__pb_tensor *w,
                      iohw_problem *p, iohw_error *e)
{
    enc m = {{0}, 0};
    iohw__pb_model pm;
    model(&m, 1, "ConvTranspose", attrs);
    cr_assert_eq(iohw__pb_model_parse(m.b, m.n, &pm, e), 0, "%s", e->msg);
    return iohw__onnx_problem(&pm.node, x, w, 0, p, e);
}

Test(import_onnx_pb, test_convtranspose_output_shape_is_one_more_output_padding)
{
    /* ONNX's node test: X 1x1x3x3, W 1x2x3x3, strides 3x2, output_shape
     * 10x8; F = 9x7, total padding -1 (specification section 12). */
    const int64_t xd[] = {1, 1, 3, 3}, wd[] = {1, 2, 3, 3}, s[] = {3, 2}, o[] = {10, 8};
    iohw__pb_tensor x = dims(4, xd), w = dims(4, wd);
    enc attrs = {{0}, 0};
    put_ints_attr(&attrs, "strides", s, 2);
    put_ints_attr(&attrs, "output_shape", o, 2);
    iohw_problem p;
    iohw_error e = {{0}};
    cr_assert_eq(problem_of(&attrs, &x, &w, &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.out_channels, 2);
    cr_expect_eq(p.output_padding[0], 1);
    cr_expect_eq(p.output_padding[1], 1);
    cr_expect_eq(p.pad_begin[0] + p.pad_end[0] + p.pad_begin[1] + p.pad_end[1], 0);
    cr_expect_eq(p.out_size[0], 10);
    cr_expect_eq(p.out_size[1], 8);
}

Test(import_onnx_pb, mismatched_shapes_name_the_attribute_or_input)
{
    const int64_t xd[] = {1, 2, 3, 3}, wd[] = {1, 2, 3, 3}, w3[] = {2, 2, 3},
                  k[] = {3, 2};
    iohw__pb_tensor x = dims(4, xd), w = dims(4, wd), wbad = dims(3, w3);
    iohw_problem p;
    iohw_error e = {{0}};
    cr_expect_neq(problem_of(NULL, &x, &w, &p, &e), 0);
    cr_expect(strstr(e.msg, "X has 2 channels, W's first dim (C_in) is 1") != NULL, "%s", e.msg);
    cr_expect_neq(problem_of(NULL, &x, &wbad, &p, &e), 0);
    cr_expect(strstr(e.msg, "input W has 3 dims, X has 4") != NULL, "%s", e.msg);
    enc attrs = {{0}, 0};
    put_ints_attr(&attrs, "kernel_shape", k, 2);
    x.dims[1] = 1;
    cr_expect_neq(problem_of(&attrs, &x, &w, &p, &e), 0);
    cr_expect(strstr(e.msg, "kernel_shape[1] = 2, but W's dim 3 is 3") != NULL, "%s", e.msg);
    attrs.n = 0;
    put_ints_attr(&attrs, "strides", k, 1);
    cr_expect_neq(problem_of(&attrs, &x, &w, &p, &e), 0);
    cr_expect(strstr(e.msg, "attribute strides has 1 values, expected 2") != NULL, "%s", e.msg);
}
