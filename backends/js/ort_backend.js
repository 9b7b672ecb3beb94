#!/usr/bin/env node
'use strict';
// ONNX Runtime behind iohw's exec protocol (docs/EXEC_PROTOCOL.md), in
// either of its npm packages: onnxruntime-node (native, CPU execution
// provider; the default) or onnxruntime-web (WebAssembly, wasm execution
// provider: other kernels, compiled from the same sources for the browser).
//
//   node ort_backend.js [--ort=node|web] --describe   name, version, keys
//   node ort_backend.js [--ort=node|web] --serve      protocol 2
//   node ort_backend.js [--ort=node|web] [--supports] IN.h5 OUT.h5
//                                                     protocol 1
//
//   IOHW_JS_DIR=build/js IOHW_EXEC_COMMAND="node backends/js/ort_backend.js --ort=web" \
//       iohw run --backend build/backends/libiohw_exec.so SUITE --adapt-layout
//
// What ORT refuses (a dtype, output_padding at the stride or the
// dilation) is a matter of the problem's class, so the backend's cache of
// one answer per class holds (no supports=problem).
//
// Every problem becomes a one-node ONNX model (ConvTranspose, opset 22,
// onnx_model.js) whose attributes state it: group, kernel_shape, strides,
// dilations and either
//   - explicit pads [begin..., end...] and output_padding, or
//   - when the case was stated in ONNX's convention (its attributes
//     auto_pad = same_upper | same_lower | valid and/or out_shape, with
//     convention absent or "onnx"; specification section 12): auto_pad,
//     output_shape and output_padding as ONNX states them, ORT deriving
//     the pads itself.  A case stated in another framework's convention
//     (tf, tvm, torch, mxnet) is given to ORT with explicit pads.
// Sessions are cached per model (the attributes and the dtype), the inputs
// having no fixed extents.  ONNX takes x as N, C, spatial and w as C_in,
// C_out/group, kernel: the layouts claimed are exactly NCW NCHW NCDHW and
// IOW IOHW IODHW (--adapt-layout brings other cases to them).
//
// dtypes: f32 and f16.  A dtype ORT cannot build a session for (f64 and
// bf16, which ConvTranspose-22 allows: no CPU kernel) is refused with ORT's
// own reason; so is a problem ORT rejects at run time when
// output_padding reaches the stride on some axis.  Any other failure of
// ORT is an error, and so is an output whose shape is not the case's
// (naming both shapes; never cropped).
const io = require('./exec_io.js');
const { convTransposeModel, ELEM } = require('./onnx_model.js');

const NAME = 'ort_backend.js';

// The package, from the leading argument --ort=node|web (taken off the
// command line before io.main reads it).
const PACKAGES = {
  node: { name: 'onnxruntime-node', ep: 'cpu', epName: 'CPU EP' },
  web: { name: 'onnxruntime-web', ep: 'wasm', epName: 'wasm EP' },
};
function packageArg() {
  const arg = process.argv[2] || '';
  if (!arg.startsWith('--ort=')) return PACKAGES.node;
  process.argv.splice(2, 1);
  const pkg = PACKAGES[arg.slice('--ort='.length)];
  if (pkg === undefined) {
    process.stderr.write(`${NAME}: ${arg}: the package is node or web\n`);
    process.exit(2);
  }
  return pkg;
}
const PKG = packageArg();
const SPATIAL = { 1: 'W', 2: 'HW', 3: 'DHW' };
const TENSOR = {
  f32: ['float32', Float32Array], f16: ['float16', Uint16Array],
  f64: ['float64', Float64Array], bf16: ['bfloat16', Uint16Array],
};
const AUTO_PADS = ['same_upper', 'same_lower', 'valid'];
const SESSIONS_KEPT = 32;

let ortModule = null;
function ort() {
  if (ortModule === null) {
    ortModule = io.requirePackage(PKG.name);
    ortModule.env.logLevel = 'fatal';
    // One thread: no worker threads in node, and the answers do not
    // depend on how many there are.
    if (PKG.ep === 'wasm') ortModule.env.wasm.numThreads = 1;
  }
  return ortModule;
}

function version() {
  return `${PKG.name} ${io.packageVersion(PKG.name)}`;
}

function describe() {
  return `name=${PKG.name}\n` +
         `version=${version()}, ${PKG.epName}\n` +
         'protocols=1 2\n' +
         `data_layouts=${Object.values(SPATIAL).map((s) => `NC${s}`).join(' ')}\n` +
         `weight_layouts=${Object.values(SPATIAL).map((s) => `IO${s}`).join(' ')}\n`;
}

// Whether the case is stated in ONNX's convention (auto_pad, output_shape).
function statedByConvention(p) {
  const c = p.conv;
  if (c.convention !== '' && c.convention !== 'none' && c.convention !== 'onnx') return false;
  const autoPad = c.autoPad !== '' && c.autoPad !== 'none' && c.autoPad !== 'notset';
  if (autoPad && !AUTO_PADS.includes(c.autoPad)) {
    throw new Error(`auto_pad '${c.autoPad}' is not one of ${AUTO_PADS.join(', ')}`);
  }
  return autoPad || (c.outShape !== null && c.outShape.some((v) => v > 0));
}

// The node's attributes, as [name, value] pairs.
function attributes(p) {
  const a = [['group', p.groups], ['kernel_shape', p.kernel], ['strides', p.stride],
             ['dilations', p.dilation]];
  if (statedByConvention(p)) {
    const c = p.conv;
    if (AUTO_PADS.includes(c.autoPad)) a.push(['auto_pad', c.autoPad.toUpperCase()]);
    if (c.outShape !== null && c.outShape.some((v) => v > 0)) a.push(['output_shape', c.outShape]);
  } else {
    a.push(['pads', [...p.pad_begin, ...p.pad_end]]);
  }
  // ONNX counts output_padding in the total padding of auto_pad and
  // output_shape too (onnx/defs/nn/defs.cc).
  if (p.output_padding.some((v) => v !== 0)) a.push(['output_padding', p.output_padding]);
  return a;
}

const sessions = new Map();
// The session of p's model, from the cache (most recently used last).
async function session(p) {
  const attrs = attributes(p);
  const key = JSON.stringify([p.dtype, p.rank, p.has_bias, attrs]);
  let s = sessions.get(key);
  if (s !== undefined) {
    sessions.delete(key);
  } else {
    const model = convTransposeModel({ elemType: ELEM[p.dtype], rank: p.rank,
                                       hasBias: p.has_bias !== 0, attrs });
    s = await ort().InferenceSession.create(model, {
      executionProviders: [PKG.ep], intraOpNumThreads: 1, interOpNumThreads: 1,
      logSeverityLevel: 4,
    });
    if (sessions.size >= SESSIONS_KEPT) {
      const [oldKey, old] = sessions.entries().next().value;
      sessions.delete(oldKey);
      await old.release();
    }
  }
  sessions.set(key, s);
  return s;
}

function sameShape(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function tensor(p, data, dims, what) {
  if (!sameShape(data.shape, dims)) {
    throw new Error(`the case's ${what} has the shape [${data.shape}] where ` +
                    `[${dims}] is right`);
  }
  const [type, Array_] = TENSOR[p.dtype];
  if (data.itemSize !== Array_.BYTES_PER_ELEMENT) {
    throw new Error(`the case's ${what} has ${data.itemSize}-byte elements, not ${p.dtype}`);
  }
  const bytes = data.bytes;
  return new (ort().Tensor)(type, new Array_(bytes.buffer, bytes.byteOffset,
                                             bytes.length / Array_.BYTES_PER_ELEMENT), dims);
}

// Runs p's model on the case's tensors; the output's bytes.
async function compute(c) {
  const p = c.problem;
  const s = await session(p);
  const feeds = {
    X: tensor(p, c.x, [p.batch, p.in_channels, ...p.in_size], 'x'),
    W: tensor(p, c.w, [p.in_channels, p.out_channels / p.groups, ...p.kernel], 'w'),
  };
  if (p.has_bias) feeds.B = tensor(p, c.bias, [p.out_channels], 'bias');
  const y = (await s.run(feeds)).Y;
  const want = [p.batch, p.out_channels, ...p.out_size];
  if (!sameShape(y.dims, want)) {
    throw new Error(`ONNX Runtime returned Y of shape [${y.dims}] where [${want}] is right`);
  }
  if (y.type !== TENSOR[p.dtype][0]) {
    throw new Error(`ONNX Runtime returned Y of type ${y.type}, not ${TENSOR[p.dtype][0]}`);
  }
  return Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
}

function firstLine(e) {
  return String(e.message).split('\n')[0];
}

// null when ORT computes c's problem class, else ORT's reason.
async function supports(c) {
  const p = c.problem;
  const sp = SPATIAL[p.rank];
  if (p.data_layout !== `NC${sp}` || p.weight_layout !== `IO${sp}`) {
    return `ONNX ConvTranspose takes x in NC${sp} and w in IO${sp}, not ` +
           `${p.data_layout} and ${p.weight_layout}`;
  }
  if (!(p.dtype in TENSOR)) return `ONNX ConvTranspose has no ${p.dtype} type`;
  try {
    await session(p);
  } catch (e) {
    return `${version()} (${PKG.epName}) builds no ${p.dtype} ConvTranspose: ${firstLine(e)}`;
  }
  if (p.output_padding.some((v, i) => v >= p.stride[i])) {
    try {
      await compute(c);
    } catch (e) {
      return `${version()} refuses output_padding ${p.output_padding} with ` +
             `stride ${p.stride}: ${firstLine(e)}`;
    }
  }
  return null;
}

async function run(c) {
  try {
    return await compute(c);
  } catch (e) {
    throw new Error(`${version()}: ${e.message}`);
  }
}

io.main({ describe, supports, run }, NAME);
