'use strict';
// The quantization block of a quantized case (specification section 11.4)
// and TFLite's quantization parameters that state it, for litert_backend.js.
//
// TFLite states a quantized TRANSPOSE_CONV by float32 scales and integer
// zero points on its tensors: x (s_x, zp_x), the weights (s_w per output
// channel along O, zero points 0; or one s_w and zp_w for uint8), y (s_y,
// zp_y) and an int32 bias at scale s_x * s_w.  Its builtin kernel derives
// the fixed-point multiplier of each channel as QuantizeMultiplier(
// (double)s_x * s_w / s_y) and requantizes with gemmlowp's double rounding
// (specification section 11.3); the XNNPack delegate computes the scale in
// binary32 and rounds half to even.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const io = require('./exec_io.js');

let h5 = null;
async function h5wasm() {
  if (h5 === null) {
    const dir = io.packageDir('h5wasm');
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const mod = await import(pathToFileURL(path.join(dir, pkg.exports['./node'].import)).href);
    await mod.ready;
    h5 = mod;
  }
  return h5;
}

const one = (v) => (ArrayBuffer.isView(v) || Array.isArray(v) ? v[0] : v);

// The block of IN.h5's case, or null for a float case.
async function readQuant(file, caseId) {
  const mod = await h5wasm();
  const f = new mod.File(file, 'r');
  try {
    const g = f.get(`cases/${caseId}`);
    const a = g.attrs;
    if (!('w_dtype' in a)) return null;
    const where = `${file}: /cases/${caseId}`;
    const need = (n) => {
      if (!(n in a)) throw new Error(`${where} has no attribute '${n}'`);
      return one(a[n].value);
    };
    const q = { w_dtype: String(need('w_dtype')), y_dtype: String(need('y_dtype')),
                zp_x: Number(need('zp_x')), zp_w: Number(need('zp_w')),
                zp_y: Number(need('zp_y')) };
    if (q.y_dtype === 's32') return q;
    q.rounding = String(need('rounding'));
    q.m_form = String(need('m_form'));
    q.per_channel = Number(need('per_channel'));
    const data = (n) => {
      const d = g.get(n);
      if (!d || !d.metadata) throw new Error(`${where} has no dataset '${n}'`);
      return Array.from(d.value, Number);
    };
    if (q.m_form === 'scales') {
      q.s_x = Number(need('s_x'));
      q.s_y = Number(need('s_y'));
      q.s_w = data('s_w');
    } else {
      q.multiplier = data('multiplier');
      q.shift = data('shift');
    }
    return q;
  } finally {
    f.close();
  }
}

// The float32 value q * 2^(sh - 31), or null when binary32 cannot hold it.
function float32Multiplier(q, sh) {
  const v = q * 2 ** (sh - 31);
  return Math.fround(v) === v && v >= 2 ** -126 ? v : null;
}

// Two binary32 scales a, b whose exact product rounds, at 31 bits, to
// q * 2^(sh - 31) (q in [2^30, 2^31)) as QuantizeMultiplier rounds it:
// a * b lies strictly within half a unit of q's last bit.  null if none
// is found.
function scalePair(q, sh) {
  const Q = BigInt(q) << 17n; // the target at 48 bits
  const tol = 1n << 16n;
  for (let A = (1n << 24n) - 1n; A > (1n << 23n); A -= 1n) {
    const B = (Q + A / 2n) / A;
    if (B >= (1n << 24n)) break;
    const d = A * B - Q;
    if (d < tol && d > -tol) {
      return [Number(A) / 2 ** 23, Number(B) * 2 ** (sh - 25)];
    }
  }
  return null;
}

// TFLite's scales for a case in the fixed form (the builtin kernel): {s_x,
// s_w[], s_y}, or throws saying which multiplier TFLite cannot state.
function fixedScales(q, cout) {
  const n = q.per_channel ? cout : 1;
  const bad = (i, why) => new Error(
    `the multiplier ${q.multiplier[i]} with shift ${q.shift[i]}` +
    `${q.per_channel ? ` of output channel ${i}` : ''} ${why}`);
  for (let i = 0; i < n; i++) {
    if (!(q.multiplier[i] >= 2 ** 30 && q.multiplier[i] < 2 ** 31)) {
      throw bad(i, 'is not in [2^30, 2^31): TFLite derives only normalized multipliers ' +
                   '(QuantizeMultiplier of a float scale)');
    }
  }
  if (!q.per_channel) {
    const pair = scalePair(q.multiplier[0], q.shift[0]);
    if (pair === null) throw bad(0, 'is no product of two binary32 scales found');
    return { s_x: pair[0], s_w: [pair[1]], s_y: 1 };
  }
  const s_w = [];
  for (let i = 0; i < n; i++) {
    const v = float32Multiplier(q.multiplier[i], q.shift[i]);
    if (v === null) {
      throw bad(i, 'has more than 24 significant bits: TFLite states a per-channel ' +
                   'multiplier by a binary32 weight scale (with s_x = s_y = 1)');
    }
    s_w.push(v);
  }
  return { s_x: 1, s_w, s_y: 1 };
}

// TFLite's quantization parameters of the model's tensors: {x, w, bias, y}.
function tensorQuant(q, cout, kernel) {
  let s;
  if (q.m_form === 'scales') {
    s = { s_x: q.s_x, s_w: q.s_w, s_y: q.s_y };
  } else {
    s = fixedScales(q, cout);
  }
  const sw = q.per_channel ? s.s_w : Array(cout).fill(s.s_w[0]);
  const perChannel = q.per_channel || q.w_dtype === 's8';
  return {
    x: { scale: [s.s_x], zeroPoint: [q.zp_x] },
    w: perChannel ? { scale: sw, zeroPoint: Array(cout).fill(0), axis: 0 }
                  : { scale: [sw[0]], zeroPoint: [q.zp_w] },
    bias: perChannel ? { scale: sw.map((v) => Math.fround(s.s_x * v)),
                         zeroPoint: Array(cout).fill(0), axis: 0 }
                     : { scale: [Math.fround(s.s_x * sw[0])], zeroPoint: [0] },
    y: { scale: [s.s_y], zeroPoint: [q.zp_y] },
    kernel,
  };
}

module.exports = { readQuant, tensorQuant, fixedScales };
