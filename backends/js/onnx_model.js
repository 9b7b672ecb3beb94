'use strict';
// A one-node ONNX model (ConvTranspose) encoded as protobuf bytes, with no
// package: the few messages of onnx.proto (ModelProto, GraphProto,
// NodeProto, AttributeProto, ValueInfoProto, TypeProto, TensorShapeProto,
// OperatorSetIdProto) written field by field.
//
//   convTransposeModel({elemType, rank, hasBias, attrs})
//
// elemType is a TensorProto.DataType (ELEM.f32 ...); attrs is a list of
// [name, value] with an integer, an array of integers or a string value.
// The graph's inputs X, W (and B) and its output Y have their element type
// and rank but no extents, so one model serves every size.
//
//   node onnx_model.js --selftest   prints one model's bytes in hex (the
//                                   test decodes them with the onnx module)

// TensorProto.DataType.
const ELEM = { f32: 1, f16: 10, f64: 11, bf16: 16 };
// AttributeProto.AttributeType.
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;
// The IR version and opset: ConvTranspose-22, whose type constraint holds
// f16, f32, f64 and bf16 (ConvTranspose-11's has no bf16); opset 22 needs
// IR version 10, the lowest that allows it.  An onnx Python package older
// than that (Debian 12's 1.12: IR 8, opset 17) cannot check this model as
// it is; tests/exec/check_onnx_model.py then checks a copy stamped with
// what that package knows.
const IR_VERSION = 10;
const OPSET = 22;

// A varint of a non-negative or negative integer (64-bit two's complement).
function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Buffer.from(out);
}

function key(field, wire) {
  return varint(field * 8 + wire);
}

// Field kinds: wire type 0 (varint) and 2 (length-delimited).
function fieldInt(field, value) {
  return Buffer.concat([key(field, 0), varint(value)]);
}

function fieldBytes(field, bytes) {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8');
  return Buffer.concat([key(field, 2), varint(b.length), b]);
}

function fieldPackedInts(field, values) {
  return fieldBytes(field, Buffer.concat(values.map(varint)));
}

function attribute(name, value) {
  const parts = [fieldBytes(1, name)];
  if (typeof value === 'string') {
    parts.push(fieldBytes(4, value), fieldInt(20, ATTR_STRING));
  } else if (Array.isArray(value)) {
    parts.push(fieldPackedInts(8, value), fieldInt(20, ATTR_INTS));
  } else if (Number.isInteger(value)) {
    parts.push(fieldInt(3, value), fieldInt(20, ATTR_INT));
  } else {
    throw new Error(`attribute ${name}: ${value} is not an integer, ` +
                    'a list of integers or a string');
  }
  return Buffer.concat(parts);
}

// ValueInfoProto: a name and a tensor type of elemType with rank unknown
// extents (dimensions with neither value nor parameter).
function valueInfo(name, elemType, dims) {
  const dim = Buffer.concat(Array.from({ length: dims }, () => fieldBytes(1, Buffer.alloc(0))));
  const tensor = Buffer.concat([fieldInt(1, elemType), fieldBytes(2, dim)]);
  return Buffer.concat([fieldBytes(1, name), fieldBytes(2, fieldBytes(1, tensor))]);
}

function convTransposeModel({ elemType, rank, hasBias, attrs }) {
  const inputs = hasBias ? ['X', 'W', 'B'] : ['X', 'W'];
  const node = Buffer.concat([
    ...inputs.map((n) => fieldBytes(1, n)),
    fieldBytes(2, 'Y'),
    fieldBytes(3, 'convtranspose'),
    fieldBytes(4, 'ConvTranspose'),
    ...attrs.map(([n, v]) => fieldBytes(5, attribute(n, v))),
  ]);
  const dims = { X: rank + 2, W: rank + 2, B: 1 };
  const graph = Buffer.concat([
    fieldBytes(1, node),
    fieldBytes(2, 'iohw'),
    ...inputs.map((n) => fieldBytes(11, valueInfo(n, elemType, dims[n]))),
    fieldBytes(12, valueInfo('Y', elemType, rank + 2)),
  ]);
  const opset = Buffer.concat([fieldBytes(1, ''), fieldInt(2, OPSET)]);
  return Buffer.concat([
    fieldInt(1, IR_VERSION),
    fieldBytes(2, 'iohw'),
    fieldBytes(7, graph),
    fieldBytes(8, opset),
  ]);
}

module.exports = { ELEM, OPSET, convTransposeModel, varint };

if (require.main === module && process.argv[2] === '--selftest') {
  const bytes = convTransposeModel({
    elemType: ELEM.f16, rank: 2, hasBias: true,
    attrs: [['group', 2], ['strides', [2, 3]], ['pads', [1, 0, 2, 1]],
            ['output_padding', [1, 0]], ['dilations', [1, 2]],
            ['auto_pad', 'NOTSET']],
  });
  process.stdout.write(bytes.toString('hex') + '\n');
}
