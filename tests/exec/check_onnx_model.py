#!/usr/bin/python3
"""Checks the model `node backends/js/onnx_model.js --selftest` prints (hex
on stdin) against onnx.proto: decoded here with a protobuf wire-format
reader of its own (no package), and by the onnx module's checker when
python3 has it (an onnx older than the model's IR version and opset checks
a copy stamped with its own newest: see check_with_onnx).  The self-test model is ConvTranspose, f16, rank 2, with
bias, group 2, strides 2x3, pads 1,0,2,1, output_padding 1,0, dilations
1x2 and auto_pad NOTSET.  Prints "model ok" or exits 1 naming the
difference."""
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(buf):
    """{field number: [values]}: ints for wire type 0, bytes for 2."""
    out, i = {}, 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = bytes(buf[i:i + n]), i + n
        else:
            raise ValueError("wire type %d in field %d" % (wire, num))
        out.setdefault(num, []).append(value)
    return out


def packed(buf):
    vals, i = [], 0
    while i < len(buf):
        v, i = varint(buf, i)
        vals.append(v)
    return vals


def expect(what, got, want):
    if got != want:
        sys.exit("%s: %r, not %r" % (what, got, want))


def value_info(buf):
    """(name, elem_type, number of dims) of a ValueInfoProto."""
    f = fields(buf)
    tensor = fields(fields(f[2][0])[1][0])
    dims = fields(tensor[2][0]).get(1, [])
    return f[1][0].decode(), tensor[1][0], len(dims)


def main():
    data = bytes.fromhex(sys.stdin.read().strip())
    model = fields(data)
    expect("ir_version", model[1], [10])
    opset = fields(model[8][0])
    expect("opset domain", opset.get(1, [b""]), [b""])
    expect("opset version", opset[2], [22])
    graph = fields(model[7][0])
    node = fields(graph[1][0])
    expect("op_type", node[4], [b"ConvTranspose"])
    expect("node inputs", node[1], [b"X", b"W", b"B"])
    expect("node outputs", node[2], [b"Y"])
    attrs = {}
    for a in node[5]:
        f = fields(a)
        kind = f[20][0]
        if kind == 2:  # INT
            attrs[f[1][0].decode()] = f[3][0]
        elif kind == 7:  # INTS
            attrs[f[1][0].decode()] = packed(f[8][0])
        elif kind == 3:  # STRING
            attrs[f[1][0].decode()] = f[4][0].decode()
        else:
            sys.exit("attribute type %d" % kind)
    expect("attributes", attrs, {
        "group": 2, "strides": [2, 3], "pads": [1, 0, 2, 1],
        "output_padding": [1, 0], "dilations": [1, 2], "auto_pad": "NOTSET"})
    expect("graph inputs", [value_info(v) for v in graph[11]],
           [("X", 10, 4), ("W", 10, 4), ("B", 10, 1)])
    expect("graph outputs", [value_info(v) for v in graph[12]], [("Y", 10, 4)])
    try:
        import onnx
    except ImportError:
        print("model ok (onnx module not installed: its checker skipped)")
        return
    check_with_onnx(onnx, data)


def check_with_onnx(onnx, data):
    """The onnx module's checker on the model, or, when that onnx predates
    IR 10 and opset 22 (Debian 12's onnx 1.12 knows IR 8, opset 17), on a
    copy stamped with the newest IR version and opset it knows: IR 10 is
    already the lowest that opset 22 allows, and ConvTranspose-22 differs
    from ConvTranspose-11 only in also taking bf16, which the f16 self-test
    model does not use."""
    model = onnx.load_from_string(data)
    ir, opset = onnx.IR_VERSION, onnx.defs.onnx_opset_version()
    note = ""
    if ir < model.ir_version or opset < model.opset_import[0].version:
        if onnx.defs.get_schema("ConvTranspose", opset).since_version < 11:
            sys.exit("onnx %s knows no ConvTranspose-11 (opset %d)"
                     % (onnx.__version__, opset))
        model.ir_version = ir
        model.opset_import[0].version = opset
        note = ", on a copy stamped IR %d opset %d, the newest it knows" % (
            ir, opset)
    onnx.checker.check_model(model, full_check=True)
    print("model ok (and onnx %s's checker%s)" % (onnx.__version__, note))


if __name__ == "__main__":
    main()
