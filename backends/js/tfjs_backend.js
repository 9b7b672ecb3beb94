#!/usr/bin/env node
/*
 * TensorFlow.js behind iohw's exec protocol (docs/EXEC_PROTOCOL.md).
 *
 *   tfjs_backend.js --tfjs-backend=cpu|wasm --describe
 *   tfjs_backend.js --tfjs-backend=cpu|wasm --serve              protocol 2
 *   tfjs_backend.js --tfjs-backend=cpu|wasm [--supports] IN.h5 OUT.h5
 *
 * Use it through the exec backend (the leading words of IOHW_EXEC_COMMAND
 * are passed as they are):
 *
 *   IOHW_EXEC_COMMAND="node backends/js/tfjs_backend.js --tfjs-backend=wasm" \
 *       iohw run --backend build/backends/libiohw_exec.so SUITE --adapt-layout
 *
 * The files and the command line of the protocols are backends/js/exec_io.js's
 * (shared with ort_backend.js): the npm packages (backends/js/package.json:
 * @tensorflow/tfjs-core, tfjs-backend-cpu, tfjs-backend-wasm, h5wasm) come
 * from $IOHW_JS_DIR/node_modules, IOHW_JS_DIR=BUILD/js after
 * scripts/setup_js.sh BUILD.
 *
 * The mapping is tfjs's API as it stands, with nothing emulated:
 *   rank 2: tf.conv2dTranspose(x NHWC, filter [kh, kw, out, in] (HWOI),
 *           outputShape, strides, pad), pad the explicit per-side pads
 *           [[0,0],[top,bottom],[left,right],[0,0]];
 *   rank 3: tf.conv3dTranspose(x NDHWC, filter DHWOI, outputShape, strides,
 *           pad), pad 'valid' or 'same' only (its documented type);
 *   outputShape is the case's output shape, always given; a bias is added
 *   with tf.add, as tfjs-layers' Conv2DTranspose/Conv3DTranspose do.
 * When IN.h5 carries the framework convention (the attribute auto_pad,
 * "same_upper" or "valid", at its root or on the case), pad is 'same' or
 * 'valid' as the case asks: tfjs's 'same' puts the odd padding at the end
 * (and at rank 3 shifts the output when the kernel is below the stride:
 * docs/CONFORMANCE.md, C1).
 * Backward cases (specification section 13; --describe opts in with
 * directions=fwd bwd_d bwd_w): tf.grads of the same conv2dTranspose call
 * (tfjs_backward.js); rank 3 is refused, tfjs having no gradient for
 * conv3dTranspose, and BWD_W on the wasm backend, which has no
 * Conv2DBackpropFilter kernel.
 * Refused (UNSUPPORTED, with the reason): dtypes other than f32 (tfjs has
 * no f64, f16 or bf16 tensors), rank 1 (no conv1dTranspose), groups and
 * dilation (neither op has them), output_padding >= stride (tfjs derives
 * x's size from outputShape, so a larger output_padding is another
 * problem), explicit pads at rank 3, other layouts.
 *
 * The tensor tfjs returns must have the case's output shape: anything else
 * is an error ("tfjs returned [..] where [..] is right"), never cropped; and
 * x must have the size tfjs derives from outputShape and the pad (tfjs does
 * not check it), or the case is an error naming both.
 * Any exception ends the program with status 1 and one line naming the
 * program, the tfjs backend and the error; under --serve it is the reply
 * "error" and the program serves on.
 */
'use strict';

const io = require('./exec_io.js');
const backward = require('./tfjs_backward.js');

const SPATIAL = { 1: 'W', 2: 'HW', 3: 'DHW' };

/* The tfjs backend, from the leading argument --tfjs-backend=cpu|wasm (taken
 * off the command line exec_io reads). */
function takeBackendArgument() {
    const arg = process.argv[2] || '';
    if (!arg.startsWith('--tfjs-backend='))
        return 'cpu';
    process.argv.splice(2, 1);
    return arg.slice('--tfjs-backend='.length);
}

const WHICH = takeBackendArgument();
const NAME = 'tfjs_backend.js (tfjs-' + WHICH + ')';

let tfLoaded = null;

/* tfjs-core with its WHICH backend, loaded at the first computation (a
 * query needs no tfjs). */
async function tfjs() {
    if (tfLoaded === null) {
        const tf = io.requirePackage('@tensorflow/tfjs-core');
        // In tfjs-core 4.22 production mode only silences tfjs's warnings
        // (the advice to install tfjs-node would open every error message).
        tf.enableProdMode();
        io.requirePackage('@tensorflow/tfjs-backend-' + WHICH);
        if (!(await tf.setBackend(WHICH)))
            throw new Error('tfjs could not start its ' + WHICH + ' backend');
        await tf.ready();
        tfLoaded = tf;
    }
    return tfLoaded;
}

/* The answer to --describe.  The version stays short ("tfjs 4.22.0 wasm,
 * node 20.20.2": tfjs-core and the backend package, the backend's own
 * version only when it differs): iohw keeps at most 127 bytes of a
 * backend's version, the command line included.  The layouts tfjs takes are
 * listed (rank 1's too, so that a rank-1 case is refused for its real
 * reason): `iohw run --adapt-layout` then asks only those.  (Unlisted, a
 * case in another layout would be refused with its real reason, which
 * refusal() gives before the layout's, but the queries of the other
 * layouts cost smoke 101 s instead of 6 s.) */
function describe() {
    const core = io.packageVersion('@tensorflow/tfjs-core');
    const be = io.packageVersion('@tensorflow/tfjs-backend-' + WHICH);
    io.packageDir('h5wasm');
    return 'name=tfjs-' + WHICH + '\n' +
        'version=tfjs ' + core + ' ' + WHICH + (be === core ? '' : ' ' + be) +
        ', node ' + process.versions.node + '\n' +
        'protocols=1 2\n' +
        'directions=fwd bwd_d bwd_w\n' +
        'data_layouts=NWC NHWC NDHWC\n' +
        'weight_layouts=WOI HWOI DHWOI\n';
}

/* The case's framework convention as "same_upper", "same_lower", "valid"
 * or "" (also the ABI's codes 1, 2, 3). */
function autoPad(p) {
    const v = p.conv.autoPad;
    return { 1: 'same_upper', 2: 'same_lower', 3: 'valid' }[v] ||
        (v === 'none' || v === '0' ? '' : v);
}

/* --- what tfjs can be asked ------------------------------------------------ */

function list(v) {
    return v.join('x');
}

/* null when tfjs's API expresses the problem, else why not. */
function refusal(p) {
    const R = p.rank;
    const op = R === 3 ? 'conv3dTranspose' : 'conv2dTranspose';
    if (p.dtype !== 'f32')
        return 'tfjs has no ' + p.dtype + ' tensors (its float dtype is ' +
            'float32 only)';
    if (R === 1)
        return 'tfjs has no conv1dTranspose (only conv2dTranspose and ' +
            'conv3dTranspose)';
    if (p.groups > 1)
        return 'tfjs\'s ' + op + ' has no groups';
    if (p.dilation.some((d) => d > 1))
        return 'tfjs\'s ' + op + ' has no dilation';
    for (let a = 0; a < R; a++)
        if (p.output_padding[a] >= p.stride[a])
            return 'tfjs derives x\'s size from outputShape, so ' +
                'output_padding must be below the stride (op=' +
                list(p.output_padding) + ' s=' + list(p.stride) + ')';
    const why = padRefusal(p, op);
    if (why !== null)
        return why;
    if (p.direction && R === 3)
        return 'tfjs has no gradient for conv3dTranspose (tfjs-core ' +
            'defines none for Conv3DBackpropInputV2)';
    if (p.direction === 2 && WHICH === 'wasm')
        return 'tfjs-backend-wasm has no Conv2DBackpropFilter kernel (the ' +
            'filter gradient of conv2dTranspose)';
    const sp = SPATIAL[R];
    if (p.data_layout !== 'N' + sp + 'C' || p.weight_layout !== sp + 'OI')
        return 'tfjs\'s ' + op + ' takes N' + sp + 'C data and a ' + sp +
            'OI filter, not ' + p.data_layout + '/' + p.weight_layout;
    return null;
}

function padRefusal(p, op) {
    const padded = p.pad_begin.concat(p.pad_end).some((v) => v > 0);
    const auto = autoPad(p);
    if (auto === 'same_lower' && p.rank === 3)
        return 'tfjs\'s \'same\' puts the odd padding at the end; ' +
            'same_lower is not expressible in ' + op;
    if (p.rank === 3 && padded && auto !== 'same_upper' && auto !== 'valid')
        return 'tfjs\'s conv3dTranspose takes pad \'same\' or \'valid\' ' +
            'only, not explicit pads (pad ' + list(p.pad_begin) + ':' +
            list(p.pad_end) + ')';
    return null;
}

/* The pad argument for the problem (refusal() has passed). */
function padArgument(p) {
    const auto = autoPad(p);
    if (auto === 'same_upper')
        return 'same';
    if (auto === 'valid' || p.rank === 3)
        return 'valid';
    return [[0, 0], [p.pad_begin[0], p.pad_end[0]],
            [p.pad_begin[1], p.pad_end[1]], [0, 0]];
}

/* tfjs does not check x against outputShape: it derives x's size from
 * outputShape and the pad as its forward convolution would (conv_util's
 * getPadAndOutInfo / get3DPadAndOutInfo) and reads x with that size.  Throws
 * unless that is the case's x, so that a mismatch is an error naming both,
 * not numbers read past x. */
function checkInputSize(p, pad) {
    const want = p.out_size.map((o, a) => {
        const k = p.kernel[a];
        const s = p.stride[a];
        if (pad === 'same')
            return Math.ceil(o / s);
        if (pad === 'valid' && p.rank === 2)
            return Math.ceil((o - k + 1) / s);
        const total = pad === 'valid' ? 0 : pad[a + 1][0] + pad[a + 1][1];
        return Math.trunc((o - k + total) / s + 1);
    });
    if (want.join() !== p.in_size.join())
        throw new Error('tfjs would read x as ' + list(want) + ' from ' +
                        'outputShape ' + list(p.out_size) + ' and pad ' +
                        JSON.stringify(pad) + '; the case\'s x is ' +
                        list(p.in_size));
}

/* --- computing --------------------------------------------------------------- */

/* A float32 tensor of a dataset's raw little-endian bytes. */
function tensorOf(tf, data) {
    const bytes = data.bytes;
    const f32 = new Float32Array(bytes.buffer, bytes.byteOffset,
                                 bytes.length / 4);
    return tf.tensor(f32, data.shape, 'float32');
}

/* y's bytes, in the case's data layout (NHWC / NDHWC); a backward case's
 * outputs (backward.js). */
async function run(c) {
    const tf = await tfjs();
    const p = c.problem;
    if (p.direction)
        return backward.run(tf, c, padArgument(p), tensorOf);
    const outShape = [p.batch].concat(p.out_size, [p.out_channels]);
    const pad = padArgument(p);
    checkInputSize(p, pad);
    const y = tf.tidy(() => {
        const tx = tensorOf(tf, c.x);
        const tw = tensorOf(tf, c.w);
        let t = p.rank === 2
            ? tf.conv2dTranspose(tx, tw, outShape, p.stride, pad)
            : tf.conv3dTranspose(tx, tw, outShape, p.stride, pad);
        if (t.shape.join() !== outShape.join())
            throw new Error('tfjs returned [' + t.shape.join(',') +
                            '] where [' + outShape.join(',') + '] is right');
        if (p.has_bias)
            t = tf.add(t, tensorOf(tf, c.bias));
        return t.dataSync().slice();
    });
    return new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
}

if (WHICH !== 'cpu' && WHICH !== 'wasm') {
    process.stderr.write('tfjs_backend.js: --tfjs-backend is cpu or wasm, ' +
                         'not "' + WHICH + '"\n');
    process.exit(2);
}
io.main({ describe, supports: (c) => refusal(c.problem), run }, NAME);
