/*
 * backends/opencv/opencv_onnx.cpp - writes the ONNX ModelProto of one
 * ConvTranspose node in the protocol buffers wire format (field numbers
 * from onnx/onnx.proto): varints, and length-delimited fields for strings
 * and messages.  Repeated integers are written unpacked, as onnx.proto
 * (proto2) declares them.
 */
#include "backends/opencv/opencv_onnx.h"

#include <cstring>

namespace {

void varint(std::string &o, uint64_t v)
{
    while (v >= 0x80) {
        o.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    o.push_back(static_cast<char>(v));
}

/* Field `f` as a varint (wire type 0). */
void int_field(std::string &o, int f, int64_t v)
{
    varint(o, static_cast<uint64_t>(f) << 3);
    varint(o, static_cast<uint64_t>(v));
}

/* Field `f` as bytes, a string or an embedded message (wire type 2). */
void bytes_field(std::string &o, int f, const std::string &b)
{
    varint(o, (static_cast<uint64_t>(f) << 3) | 2);
    varint(o, b.size());
    o += b;
}

/* AttributeProto: name 1, i 3, ints 8, type 20 (INT 2, INTS 7). */
std::string attr_ints(const char *name, const std::vector<int64_t> &v)
{
    std::string a;
    bytes_field(a, 1, name);
    for (int64_t x : v)
        int_field(a, 8, x);
    int_field(a, 20, 7);
    return a;
}

std::string attr_int(const char *name, int64_t v)
{
    std::string a;
    bytes_field(a, 1, name);
    int_field(a, 3, v);
    int_field(a, 20, 2);
    return a;
}

/* TensorProto: dims 1, data_type 2 (FLOAT 1), name 8, raw_data 9
 * (little-endian, which x86-64 and every target of OpenCV's is). */
std::string tensor(const char *name, const std::vector<int64_t> &dims,
                   const float *data)
{
    size_t n = 1;
    for (int64_t d : dims)
        n *= static_cast<size_t>(d);
    std::string t;
    for (int64_t d : dims)
        int_field(t, 1, d);
    int_field(t, 2, 1);
    bytes_field(t, 8, name);
    bytes_field(t, 9, std::string(reinterpret_cast<const char *>(data),
                                  n * sizeof(float)));
    return t;
}

/* ValueInfoProto: name 1, type 2 -> TypeProto tensor_type 1 ->
 * elem_type 1 (FLOAT), shape 2 -> dim 1 -> dim_value 1. */
std::string value_info(const char *name, const std::vector<int64_t> &dims)
{
    std::string shape;
    for (int64_t d : dims) {
        std::string dim;
        int_field(dim, 1, d);
        bytes_field(shape, 1, dim);
    }
    std::string tt;
    int_field(tt, 1, 1);
    bytes_field(tt, 2, shape);
    std::string type;
    bytes_field(type, 1, tt);
    std::string v;
    bytes_field(v, 1, name);
    bytes_field(v, 2, type);
    return v;
}

/* NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. */
std::string node(const iohw_opencv_node &n)
{
    std::string o;
    bytes_field(o, 1, "X");
    bytes_field(o, 1, "W");
    if (n.bias != nullptr)
        bytes_field(o, 1, "B");
    bytes_field(o, 2, "Y");
    bytes_field(o, 3, "deconv");
    bytes_field(o, 4, "ConvTranspose");
    bytes_field(o, 5, attr_ints("kernel_shape", n.kernel));
    bytes_field(o, 5, attr_ints("strides", n.strides));
    bytes_field(o, 5, attr_ints("dilations", n.dilations));
    bytes_field(o, 5, attr_ints("pads", n.pads));
    bytes_field(o, 5, attr_ints("output_padding", n.output_padding));
    bytes_field(o, 5, attr_int("group", n.group));
    return o;
}

} /* namespace */

std::string iohw__opencv_onnx_model(const iohw_opencv_node &n)
{
    /* GraphProto: node 1, name 2, initializer 5, input 11, output 12. */
    std::string g;
    bytes_field(g, 1, node(n));
    bytes_field(g, 2, "iohw");
    bytes_field(g, 5, tensor("W", n.w_shape, n.w));
    if (n.bias != nullptr)
        bytes_field(g, 5, tensor("B", {n.y_shape[1]}, n.bias));
    bytes_field(g, 11, value_info("X", n.x_shape));
    bytes_field(g, 12, value_info("Y", n.y_shape));

    /* ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8
     * (OperatorSetIdProto: domain 1, version 2). */
    std::string opset;
    bytes_field(opset, 1, "");
    int_field(opset, 2, 11);
    std::string m;
    int_field(m, 1, 7);
    bytes_field(m, 2, "iohw");
    bytes_field(m, 7, g);
    bytes_field(m, 8, opset);
    return m;
}
