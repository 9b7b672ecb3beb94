#!/usr/bin/env node
'use strict';
// LiteRT (npm @litertjs/core: TensorFlow Lite in WebAssembly) behind iohw's
// exec protocol (docs/EXEC_PROTOCOL.md), protocol 3 with supports=problem.
//
//   node litert_backend.js --kernel=xnnpack|builtin --describe
//   node litert_backend.js --kernel=xnnpack|builtin --serve
//   node litert_backend.js --kernel=xnnpack|builtin [--supports] IN.h5 OUT.h5
//
//   IOHW_JS_DIR=build/js \
//   IOHW_EXEC_COMMAND="node backends/js/litert_backend.js --kernel=builtin" \
//       iohw run --backend build/backends/libiohw_exec.so SUITE --adapt-layout
//
// Every case becomes a one-operator .tflite model (tflite_model.js): a
// TRANSPOSE_CONV with inputs output_shape (the case's y shape, constant),
// weights OHWI, input NHWC and the bias (constant), run by LiteRT's
// CompiledModel on the CPU (accelerator 'wasm', one thread).  The kernel:
//   --kernel=xnnpack  the weights are a constant of the model: LiteRT's
//                     XNNPack delegate takes the operator;
//   --kernel=builtin  the weights are a model input: the delegate, which
//                     wants constant weights, leaves the operator to
//                     TFLite's builtin kernel (tensorflow/lite/kernels/
//                     transpose_conv.cc).
// Rank 1 is the rank-2 operator with H = 1 (as TF's conv1d_transpose states
// it).  dtypes: f32; s8 and u8 (specification section 11) with y of the same
// type: s8 with zp_w = 0 (TFLite's int8 weights are symmetric), per-tensor
// or per-channel; u8 per-tensor.  XNNPack: scales form, half_even;
// builtin: fixed form, gemmlowp (litert_quant.js says how the multiplier
// is stated by TFLite's float scales).
//
// TFLite has no explicit padding: the operator's padding is SAME or VALID,
// and its pads follow from output_shape (ComputePaddingHeightWidth, the
// forward convolution's padding for an input of the output's size).  A
// problem is claimed when one of the two gives its pad_begin on every axis
// and the forward convolution's output size is x's size; the end follows
// from output_shape (output_padding included).  Refused: rank 3 (TFLite's
// CONV_3D_TRANSPOSE is not wrapped), groups, dilation, other dtypes, other
// layouts; the reason says which.  The answer depends on sizes, hence
// supports=problem.
const io = require('./exec_io.js');
const runtime = require('./litert_runtime.js');
const quant = require('./litert_quant.js');
const { transposeConvModel } = require('./tflite_model.js');

function takeKernelArgument() {
  const arg = process.argv[2] || '';
  if (!arg.startsWith('--kernel=')) return 'xnnpack';
  process.argv.splice(2, 1);
  return arg.slice('--kernel='.length);
}

const KERNEL = takeKernelArgument();
if (KERNEL !== 'xnnpack' && KERNEL !== 'builtin') {
  process.stderr.write(`litert_backend.js: --kernel=${KERNEL}: the kernel is xnnpack or builtin\n`);
  process.exit(2);
}
const NAME = `litert_backend.js (${KERNEL})`;
const KERNEL_TEXT = KERNEL === 'xnnpack' ? 'XNNPack delegate, constant weights'
  : 'builtin transpose_conv, weights as input';
const TYPES = { f32: 'float32', s8: 'int8', u8: 'uint8' };

function describe() {
  return `name=litert-${KERNEL}\n` +
         `version=${runtime.version()} (${KERNEL_TEXT}), node ${process.versions.node}\n` +
         'protocols=1 2 3\nsupports=problem\nquantized=1\n' +
         'data_layouts=NWC NHWC\nweight_layouts=OWI OHWI\n';
}

// The problem in rank 2 (H first): {inH, k, s, pb, out} per axis.
function axes(p) {
  const pick = (v, pad) => (p.rank === 1 ? [pad, v[0]] : v);
  return [0, 1].map((i) => ({
    in: pick(p.in_size, 1)[i], k: pick(p.kernel, 1)[i], s: pick(p.stride, 1)[i],
    pb: pick(p.pad_begin, 0)[i], out: pick(p.out_size, 1)[i],
  }));
}

// TFLite's padding of one axis under mode (ComputePaddingHeightWidth with
// the output as the forward convolution's input): {pad, fwdOut}.
function tflitePad(a, mode) {
  const fwdOut = mode === 'same' ? Math.ceil(a.out / a.s) : Math.floor((a.out - a.k) / a.s) + 1;
  const total = Math.max(0, (fwdOut - 1) * a.s + a.k - a.out);
  return { pad: Math.floor(total / 2), fwdOut };
}

// The padding mode that states p ('same' or 'valid'), or null.
function paddingMode(p) {
  const stated = p.conv.autoPad === 'valid' ? ['valid', 'same'] : ['same', 'valid'];
  for (const mode of stated) {
    const ok = axes(p).every((a) => {
      const t = tflitePad(a, mode);
      return t.pad === a.pb && t.fwdOut === a.in;
    });
    if (ok) return mode;
  }
  return null;
}

function padRefusal(p) {
  const said = axes(p).map((a) => ['same', 'valid'].map((m) => {
    const t = tflitePad(a, m);
    return `${m.toUpperCase()} pads ${t.pad} before and takes x of ${t.fwdOut}`;
  }).join(', ')).join('; ');
  return `TFLite's TRANSPOSE_CONV states its padding by SAME or VALID and the output ` +
         `shape only: for pad_begin ${p.pad_begin} with x of ${p.in_size} and y of ` +
         `${p.out_size} (per axis, H first: ${said})`;
}

function quantRefusal(p, q) {
  if (q.y_dtype !== p.dtype || q.w_dtype !== p.dtype) {
    return `TFLite's quantized TRANSPOSE_CONV takes x, w and y of one type, not ` +
           `x ${p.dtype}, w ${q.w_dtype}, y ${q.y_dtype}`;
  }
  if (p.dtype === 's8' && q.zp_w !== 0) {
    return `TFLite's int8 weights are symmetric (zero point 0), not zp_w ${q.zp_w}`;
  }
  if (p.dtype === 'u8' && q.per_channel) {
    return "TFLite's uint8 TRANSPOSE_CONV is per-tensor only, not per-channel";
  }
  const want = KERNEL === 'xnnpack' ? ['half_even', 'scales'] : ['gemmlowp', 'fixed'];
  if (q.rounding !== want[0] || q.m_form !== want[1]) {
    return `TFLite's ${KERNEL_TEXT} requantizes as rounding ${want[0]} in the ` +
           `${want[1]} form of M, not ${q.rounding} in the ${q.m_form} form`;
  }
  return null;
}

// null when the kernel computes c's problem, else the reason.
function refusal(p, q) {
  const sp = { 1: 'W', 2: 'HW' }[p.rank];
  if (sp === undefined) {
    return `rank ${p.rank}: TFLite's TRANSPOSE_CONV is 2-d (rank 1 as H = 1); ` +
           'CONV_3D_TRANSPOSE is not wrapped';
  }
  if (p.direction !== 0) return 'the backward directions are not wrapped';
  if (p.data_layout !== `N${sp}C` || p.weight_layout !== `O${sp}I`) {
    return `TFLite takes x in N${sp}C and the weights in O${sp}I, not ` +
           `${p.data_layout} and ${p.weight_layout}`;
  }
  if (!(p.dtype in TYPES)) return `TFLite's TRANSPOSE_CONV is not wrapped for ${p.dtype}`;
  if (p.groups !== 1) return `TFLite's TRANSPOSE_CONV has no groups (groups ${p.groups})`;
  if (p.dilation.some((d) => d !== 1)) {
    return `TFLite's TRANSPOSE_CONV has no dilation (dilation ${p.dilation})`;
  }
  if (q !== null) {
    const why = quantRefusal(p, q);
    if (why !== null) return why;
  } else if (p.dtype !== 'f32') {
    return `the case's dtype ${p.dtype} comes without its quantization block`;
  }
  return paddingMode(p) === null ? padRefusal(p) : null;
}

const MODELS_KEPT = 8;
const models = new Map();
async function compiledModel(spec) {
  const key = JSON.stringify(spec, (k, v) => (v instanceof Uint8Array
    ? Buffer.from(v).toString('base64') : v));
  let m = models.get(key);
  if (m !== undefined) {
    models.delete(key);
  } else {
    m = await runtime.compile(transposeConvModel(spec));
    if (models.size >= MODELS_KEPT) {
      const [oldKey, old] = models.entries().next().value;
      models.delete(oldKey);
      old.delete();
    }
  }
  models.set(key, m);
  return m;
}

async function compute(c, q) {
  const p = c.problem;
  const [h, w] = axes(p);
  const type = TYPES[p.dtype];
  const shapes = { x: [p.batch, h.in, w.in, p.in_channels],
                   w: [p.out_channels, h.k, w.k, p.in_channels],
                   y: [p.batch, h.out, w.out, p.out_channels] };
  const spec = { type, biasType: q === null ? 'float32' : 'int32', ...shapes,
                 stride: [h.s, w.s], padding: paddingMode(p),
                 weights: KERNEL === 'xnnpack' ? c.w.bytes : null,
                 bias: p.has_bias ? c.bias.bytes : null,
                 quant: q === null ? undefined : quant.tensorQuant(q, p.out_channels, KERNEL) };
  const m = await compiledModel(spec);
  const y = await m.run(KERNEL === 'xnnpack' ? [c.x.bytes] : [c.x.bytes, c.w.bytes]);
  const want = shapes.y.reduce((a, b) => a * b, 1) * (q === null ? 4 : 1);
  if (y.length !== want) {
    throw new Error(`LiteRT returned ${y.length} bytes of y where [${shapes.y}] ${type} has ${want}`);
  }
  return y;
}

async function withQuant(c) {
  return c.problem.dtype === 'f32' ? null : quant.readQuant(c.file, c.caseId);
}

module.exports = { refusal, paddingMode, tflitePad };

if (require.main === module) {
  const program = {
    describe,
    supports: async (c) => refusal(c.problem, await withQuant(c)),
    run: async (c) => {
      try {
        return await compute(c, await withQuant(c));
      } catch (e) {
        throw new Error(`${runtime.version()} (${KERNEL_TEXT}): ${e.message}`);
      }
    },
  };
  io.main(program, NAME);
}
