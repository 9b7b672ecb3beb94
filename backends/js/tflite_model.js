'use strict';
// A one-operator TensorFlow Lite model (a .tflite flatbuffer) holding a
// TRANSPOSE_CONV, written from TFLite's schema (tensorflow/tensorflow,
// tensorflow/compiler/mlir/lite/schema/schema.fbs) for litert_backend.js.
//
// The flatbuffer is laid out front to back: the root offset, the file
// identifier "TFL3", then every table followed by what it refers to, so
// that every offset points forward as the format requires (a table's
// vtable sits just before it).  Scalars are aligned to their size, vectors'
// lengths to 4 and buffer data to 16 (the schema's force_align).
//
// The operator's inputs are TFLite's: output_shape (int32[4], constant),
// weights OHWI, input NHWC and an optional bias; its output NHWC.

const BUILTIN_TRANSPOSE_CONV = 67;
const OPTIONS_TRANSPOSE_CONV = 49; // BuiltinOptions union: TransposeConvOptions
const PADDING = { same: 0, valid: 1 };
const TENSOR_TYPE = { float32: 0, int32: 2, uint8: 3, int8: 9 };
const SIZE = { u8: 1, i8: 1, bool: 1, i16: 2, u16: 2, i32: 4, u32: 4, f32: 4, i64: 8 };

// Field and vector constructors.  A table is {table: [[id, field]...]};
// a field is a scalar {s: type, v: value} or a reference to a table, a
// vector ({vec: type, v: [...]} of scalars, {vec: 'table', v: [tables]}),
// a string ({str: text}) or raw bytes ({bytes: Uint8Array, align}).
const scalar = (s, v) => ({ s, v });
const table = (fields) => ({ table: fields.filter((f) => f[1] !== undefined) });
const vec = (type, v) => ({ vec: type, v: Array.from(v) });
const tables = (v) => ({ vec: 'table', v });
const str = (text) => ({ str: text });
const bytes = (b) => ({ bytes: b, align: 16 });

class Writer {
  constructor() {
    this.buf = Buffer.alloc(1024);
    this.len = 0;
  }

  reserve(n) {
    while (this.len + n > this.buf.length) {
      const b = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(b, 0, 0, this.len);
      this.buf = b;
    }
    const at = this.len;
    this.len += n;
    return at;
  }

  // Pads so that len + offset is a multiple of align.
  align(align, offset = 0) {
    while ((this.len + offset) % align !== 0) this.reserve(1);
  }

  put(type, at, v) {
    const b = this.buf;
    switch (type) {
      case 'u8': case 'bool': b.writeUInt8(Number(v), at); break;
      case 'i8': b.writeInt8(v, at); break;
      case 'u16': b.writeUInt16LE(v, at); break;
      case 'i16': b.writeInt16LE(v, at); break;
      case 'i32': b.writeInt32LE(v, at); break;
      case 'u32': b.writeUInt32LE(v, at); break;
      case 'f32': b.writeFloatLE(v, at); break;
      case 'i64': b.writeBigInt64LE(BigInt(v), at); break;
      default: throw new Error(`tflite_model: unknown scalar type ${type}`);
    }
  }

  // Writes a referenced object; its position.
  object(o) {
    if (o.table) return this.table(o.table);
    if (o.str !== undefined) {
      const text = Buffer.from(o.str, 'utf8');
      this.align(4);
      const at = this.reserve(4 + text.length + 1);
      this.put('u32', at, text.length);
      text.copy(this.buf, at + 4);
      return at;
    }
    if (o.bytes) {
      this.align(o.align, 4);
      const at = this.reserve(4 + o.bytes.length);
      this.put('u32', at, o.bytes.length);
      Buffer.from(o.bytes.buffer, o.bytes.byteOffset, o.bytes.length).copy(this.buf, at + 4);
      return at;
    }
    if (o.vec === 'table') {
      this.align(4);
      const at = this.reserve(4 + 4 * o.v.length);
      this.put('u32', at, o.v.length);
      o.v.forEach((t, i) => this.patch(at + 4 + 4 * i, this.object(t)));
      return at;
    }
    const size = SIZE[o.vec];
    this.align(Math.max(4, size), 4);
    const at = this.reserve(4 + size * o.v.length);
    this.put('u32', at, o.v.length);
    o.v.forEach((v, i) => this.put(o.vec, at + 4 + size * i, v));
    return at;
  }

  // A forward offset at slot to target.
  patch(slot, target) {
    this.put('u32', slot, target - slot);
  }

  table(fields) {
    // The table's layout: its soffset, then the fields, largest first.
    const sorted = [...fields].sort((a, b) => fieldSize(b[1]) - fieldSize(a[1]));
    let size = 4;
    const where = new Map();
    for (const [id, f] of sorted) {
      const s = fieldSize(f);
      size = Math.ceil(size / s) * s;
      where.set(id, size);
      size += s;
    }
    const maxId = fields.reduce((m, [id]) => Math.max(m, id), -1);
    const vtableSize = 4 + 2 * (maxId + 1);
    const maxAlign = sorted.length > 0 ? Math.max(4, fieldSize(sorted[0][1])) : 4;
    this.align(maxAlign, vtableSize);
    const vt = this.reserve(vtableSize);
    const at = this.reserve(size);
    this.put('u16', vt, vtableSize);
    this.put('u16', vt + 2, size);
    for (let id = 0; id <= maxId; id++) this.put('u16', vt + 4 + 2 * id, where.get(id) || 0);
    this.put('i32', at, at - vt);
    for (const [id, f] of fields) {
      if (f.s) this.put(f.s, at + where.get(id), f.v);
    }
    for (const [id, f] of fields) {
      if (!f.s) this.patch(at + where.get(id), this.object(f));
    }
    return at;
  }
}

function fieldSize(f) {
  return f.s ? SIZE[f.s] : 4;
}

// The flatbuffer of a root table, with the file identifier.
function finish(root) {
  const w = new Writer();
  w.reserve(8);
  w.buf.write('TFL3', 4, 'ascii');
  w.patch(0, w.object(root));
  return new Uint8Array(w.buf.subarray(0, w.len));
}

// Quantization parameters: {scale: [...], zeroPoint: [...], axis}.
function quantization(q) {
  if (!q) return undefined;
  return table([[2, vec('f32', q.scale)], [3, vec('i64', q.zeroPoint)],
                [6, scalar('i32', q.axis || 0)]]);
}

// The model.  spec: {type ('float32', 'int8', 'uint8'), biasType ('float32'
// or 'int32'), x: [N, H, W, C], w: [O, KH, KW, I], y: [N, OH, OW, O],
// stride: [sh, sw], padding ('same' or 'valid'), weights: the bytes of w
// (constant) or null (a model input), bias: its bytes or null (none),
// quant: {x, w, bias, y} quantization parameters or undefined}.
// The model's inputs are, in order: the input x, then the weights when
// they are not constant; its output is y.
function transposeConvModel(spec) {
  const buffers = [table([])]; // buffer 0: the empty sentinel
  const constant = (data) => {
    buffers.push(table([[0, bytes(data)]]));
    return buffers.length - 1;
  };
  const shapeData = new Uint8Array(Int32Array.from(spec.y).buffer);
  const q = spec.quant || {};
  const tensors = [];
  const tensor = (name, shape, type, buffer, quant) => {
    tensors.push(table([[0, vec('i32', shape)], [1, scalar('i8', TENSOR_TYPE[type])],
                        [2, scalar('u32', buffer)], [3, str(name)],
                        [4, quantization(quant)]]));
    return tensors.length - 1;
  };
  const tShape = tensor('output_shape', [4], 'int32', constant(shapeData));
  const tW = tensor('weights', spec.w, spec.type,
                    spec.weights ? constant(spec.weights) : 0, q.w);
  const tX = tensor('input', spec.x, spec.type, 0, q.x);
  const tB = spec.bias ? tensor('bias', [spec.w[0]], spec.biasType, constant(spec.bias), q.bias) : -1;
  const tY = tensor('output', spec.y, spec.type, 0, q.y);
  const inputs = spec.weights ? [tX] : [tX, tW];
  const options = table([[0, scalar('i8', PADDING[spec.padding])],
                         [1, scalar('i32', spec.stride[1])], [2, scalar('i32', spec.stride[0])],
                         [3, scalar('i8', 0)]]);
  const op = table([[0, scalar('u32', 0)], [1, vec('i32', [tShape, tW, tX, tB])],
                    [2, vec('i32', [tY])], [3, scalar('u8', OPTIONS_TRANSPOSE_CONV)],
                    [4, options]]);
  const subgraph = table([[0, tables(tensors)], [1, vec('i32', inputs)], [2, vec('i32', [tY])],
                          [3, tables([op])], [4, str('main')]]);
  const opcode = table([[0, scalar('i8', BUILTIN_TRANSPOSE_CONV)],
                        [2, scalar('i32', spec.type === 'float32' ? 1 : 3)],
                        [3, scalar('i32', BUILTIN_TRANSPOSE_CONV)]]);
  const tensorMap = (name, index) => table([[0, str(name)], [1, scalar('u32', index)]]);
  const signature = table([
    [0, tables(inputs.map((i) => tensorMap(i === tX ? 'input' : 'weights', i)))],
    [1, tables([tensorMap('output', tY)])], [2, str('serving_default')],
    [4, scalar('u32', 0)]]);
  const model = table([[0, scalar('u32', 3)], [1, tables([opcode])], [2, tables([subgraph])],
                       [3, str('iohw transposed convolution')], [4, tables(buffers)],
                       [7, tables([signature])]]);
  return finish(model);
}

module.exports = { transposeConvModel };
