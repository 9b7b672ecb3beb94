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
 * The npm packages (backends/js/package.json: @tensorflow/tfjs-core,
 * tfjs-backend-cpu, tfjs-backend-wasm, h5wasm) are taken from the folder
 * IOHW_JS_MODULES, else $IOHW_JS_DIR/node_modules, else BUILD/js/node_modules
 * of this source tree, where BUILD is IOHW_BUILD or "build"
 * (scripts/setup_js.sh BUILD installs them there).
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
 * tfjs backend and the error; under --serve it is the reply "error" and
 * the program serves on.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const url = require('url');
const { createRequire } = require('module');

const PROG = path.basename(process.argv[1] || 'tfjs_backend.js');
const SPATIAL = { 1: 'W', 2: 'HW', 3: 'DHW' };

function modulesDir() {
    if (process.env.IOHW_JS_MODULES)
        return path.resolve(process.env.IOHW_JS_MODULES);
    if (process.env.IOHW_JS_DIR)
        return path.resolve(process.env.IOHW_JS_DIR, 'node_modules');
    const build = process.env.IOHW_BUILD || 'build';
    return path.resolve(__dirname, '..', '..', build, 'js', 'node_modules');
}

/* The modules folder, or a clear error when the packages are not there. */
function packagesDir() {
    const dir = modulesDir();
    for (const name of ['@tensorflow/tfjs-core', 'h5wasm'])
        if (!fs.existsSync(path.join(dir, name, 'package.json')))
            throw new Error('no ' + name + ' in ' + dir + ' (set ' +
                            'IOHW_JS_MODULES or run scripts/setup_js.sh)');
    return dir;
}

/* require() from the modules folder. */
function fromModules() {
    return createRequire(path.join(packagesDir(), 'iohw-loader.js'));
}

function packageVersion(name) {
    const file = path.join(packagesDir(), name, 'package.json');
    return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

/* --- the library ---------------------------------------------------------- */

const lib = { tf: null, h5: null, which: null };

/* Loads h5wasm and, unless only a query is to be answered (which needs no
 * tfjs), tfjs with its `which` backend. */
async function loadLibrary(which, withTfjs) {
    lib.which = which;
    const h5file = path.join(packagesDir(), 'h5wasm', 'dist', 'node',
                             'hdf5_hl.js');
    lib.h5 = await import(url.pathToFileURL(h5file).href);
    await lib.h5.ready;
    if (!withTfjs)
        return;
    const req = fromModules();
    const tf = req('@tensorflow/tfjs-core');
    // In tfjs-core 4.22 production mode only silences tfjs's warnings (the
    // advice to install tfjs-node would open every error message).
    tf.enableProdMode();
    req(which === 'wasm' ? '@tensorflow/tfjs-backend-wasm'
                         : '@tensorflow/tfjs-backend-cpu');
    if (!(await tf.setBackend(which)))
        throw new Error('tfjs could not start its ' + which + ' backend');
    await tf.ready();
    lib.tf = tf;
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
function describe(which) {
    const core = packageVersion('@tensorflow/tfjs-core');
    const be = packageVersion('@tensorflow/tfjs-backend-' + which);
    return 'name=tfjs-' + which + '\n' +
        'version=tfjs ' + core + ' ' + which + (be === core ? '' : ' ' + be) +
        ', node ' + process.versions.node + '\n' +
        'protocols=1 2\n' +
        'data_layouts=NWC NHWC NDHWC\n' +
        'weight_layouts=WOI HWOI DHWOI\n';
}

/* --- IN.h5 ----------------------------------------------------------------- */

function attr(entity, name) {
    const a = entity.attrs[name];
    if (a === undefined)
        return undefined;
    const v = a.value;
    if (typeof v === 'bigint')
        return Number(v);
    if (ArrayBuffer.isView(v))
        return Array.from(v, Number);
    return v;
}

/* The framework convention IN.h5 states, as auto_pad "same_upper",
 * "same_lower", "valid" or null (also the ABI's codes 1, 2, 3). */
function autoPad(file, group) {
    let v = attr(group, 'auto_pad');
    if (v === undefined)
        v = attr(file, 'auto_pad');
    if (typeof v === 'number')
        v = { 1: 'same_upper', 2: 'same_lower', 3: 'valid' }[v];
    return typeof v === 'string' && v !== 'none' && v !== ''
        ? v.toLowerCase() : null;
}

/* Throws unless file_path is a readable HDF5 file (h5wasm would print
 * HDF5's error stack and go on with an empty file). */
function checkHdf5(file_path) {
    const head = Buffer.alloc(8);
    const fd = fs.openSync(file_path, 'r');
    try {
        fs.readSync(fd, head, 0, 8, 0);
    } finally {
        fs.closeSync(fd);
    }
    if (!head.equals(Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a,
                                  0x0a])))
        throw new Error(file_path + ' is not an HDF5 file');
}

/* The only case of IN.h5: { prob, group, file }. */
function readCase(file_path) {
    checkHdf5(file_path);
    const f = new lib.h5.File(file_path, 'r');
    const cases = f.get('cases');
    const ids = cases ? cases.keys() : [];
    if (ids.length !== 1) {
        f.close();
        throw new Error(file_path + ' holds ' + ids.length +
                        ' cases; the exec protocol sends one');
    }
    const g = cases.get(ids[0]);
    const prob = { auto_pad: autoPad(f, g) };
    for (const k of ['rank', 'batch', 'in_channels', 'out_channels', 'groups',
                     'has_bias', 'dtype', 'data_layout', 'weight_layout'])
        prob[k] = attr(g, k);
    for (const k of ['in_size', 'kernel', 'stride', 'dilation', 'pad_begin',
                     'pad_end', 'output_padding', 'out_size'])
        prob[k] = attr(g, k);
    return { prob, group: g, file: f };
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
    const sp = SPATIAL[R];
    if (p.data_layout !== 'N' + sp + 'C' || p.weight_layout !== sp + 'OI')
        return 'tfjs\'s ' + op + ' takes N' + sp + 'C data and a ' + sp +
            'OI filter, not ' + p.data_layout + '/' + p.weight_layout;
    return null;
}

function padRefusal(p, op) {
    const padded = p.pad_begin.concat(p.pad_end).some((v) => v > 0);
    if (p.auto_pad === 'same_lower' && p.rank === 3)
        return 'tfjs\'s \'same\' puts the odd padding at the end; ' +
            'same_lower is not expressible in ' + op;
    if (p.rank === 3 && padded && p.auto_pad !== 'same_upper' &&
        p.auto_pad !== 'valid')
        return 'tfjs\'s conv3dTranspose takes pad \'same\' or \'valid\' ' +
            'only, not explicit pads (pad ' + list(p.pad_begin) + ':' +
            list(p.pad_end) + ')';
    return null;
}

/* The pad argument for the problem (refusal() has passed). */
function padArgument(p) {
    if (p.auto_pad === 'same_upper')
        return 'same';
    if (p.auto_pad === 'valid' || p.rank === 3)
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

class ShapeError extends Error {}

function compute(p, g) {
    const tf = lib.tf;
    const x = g.get('x');
    const w = g.get('w');
    const outShape = [p.batch].concat(p.out_size, [p.out_channels]);
    return tf.tidy(() => {
        const tx = tf.tensor(x.value, x.shape, 'float32');
        const tw = tf.tensor(w.value, w.shape, 'float32');
        const pad = padArgument(p);
        checkInputSize(p, pad);
        let y = p.rank === 2
            ? tf.conv2dTranspose(tx, tw, outShape, p.stride, pad)
            : tf.conv3dTranspose(tx, tw, outShape, p.stride, pad);
        if (y.shape.join() !== outShape.join())
            throw new ShapeError('tfjs returned [' + y.shape.join(',') +
                                 '] where [' + outShape.join(',') +
                                 '] is right');
        if (p.has_bias)
            y = tf.add(y, tf.tensor(g.get('bias').value, [p.out_channels],
                                    'float32'));
        return { data: y.dataSync().slice(), shape: outShape };
    });
}

function writeOut(out_path, fill) {
    const f = new lib.h5.File(out_path, 'w');
    try {
        fill(f);
    } finally {
        f.close();
    }
}

/* Answers a query or computes y into OUT.h5; returns the refusal or null. */
function answer(query, in_path, out_path) {
    const { prob, group, file } = readCase(in_path);
    let y = null;
    let why;
    try {
        why = refusal(prob);
        if (why === null && !query)
            y = compute(prob, group);
    } finally {
        file.close();
    }
    if (why !== null)
        writeOut(out_path, (f) => f.create_attribute('unsupported', why));
    else if (y !== null)
        writeOut(out_path, (f) => f.create_dataset({
            name: 'y', data: y.data, shape: y.shape, dtype: '<f' }));
    return why;
}

function oneLine(e) {
    const text = String(e && e.message !== undefined ? e.message : e).trim();
    const first = text.split('\n')[0] || '(no message)';
    const name = e && e.name ? e.name : 'Error';
    return PROG + ': tfjs-' + (lib.which || '?') + ' ' +
        (lib.tf ? lib.tf.version_core : '') + ': ' + name + ': ' + first;
}

/* --- protocol 2 -------------------------------------------------------------- */

function readExactly(n) {
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
        let k;
        try {
            k = fs.readSync(0, buf, got, n - got, null);
        } catch (e) {
            if (e.code === 'EAGAIN') {
                Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
                continue;
            }
            if (e.code === 'EOF')
                return null;
            throw e;
        }
        if (k === 0)
            return null;
        got += k;
    }
    return buf;
}

function readMessage() {
    const head = readExactly(4);
    if (head === null)
        return null;
    const body = readExactly(head.readUInt32LE(0));
    return body === null ? null : body.toString('utf8');
}

function sendMessage(text) {
    const body = Buffer.from(text, 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    fs.writeSync(1, Buffer.concat([head, body]));
}

function serveOne(which, req) {
    const words = req.split('\n');
    if (words[0] === 'describe')
        return 'ok\n' + describe(which);
    if ((words[0] === 'supports' || words[0] === 'run') && words.length === 3) {
        const why = answer(words[0] === 'supports', words[1], words[2]);
        return why === null ? 'ok' : 'unsupported\n' + why;
    }
    return 'error\nunknown request ' + JSON.stringify(words[0]);
}

async function serve(which) {
    // Standard output carries the replies only: whatever tfjs or emscripten
    // prints through the console goes to standard error.
    for (const k of ['log', 'info', 'debug'])
        console[k] = console.error;
    await loadLibrary(which, true);
    for (;;) {
        const req = readMessage();
        if (req === null)
            return 0;
        let reply;
        try {
            reply = serveOne(which, req);
        } catch (e) {
            reply = 'error\n' + oneLine(e);
        }
        sendMessage(reply);
    }
}

/* --- protocol 1 and the command line ------------------------------------------- */

async function main(argv) {
    let args = argv.slice(2);
    let which = 'cpu';
    if (args.length && args[0].startsWith('--tfjs-backend=')) {
        which = args[0].slice('--tfjs-backend='.length);
        args = args.slice(1);
    }
    if (which !== 'cpu' && which !== 'wasm') {
        process.stderr.write(PROG + ': --tfjs-backend is cpu or wasm, not "' +
                             which + '"\n');
        return 2;
    }
    if (args.length === 1 && args[0] === '--describe') {
        process.stdout.write(describe(which));
        return 0;
    }
    if (args.length === 1 && args[0] === '--serve')
        return serve(which);
    const query = args[0] === '--supports';
    if (query)
        args = args.slice(1);
    if (args.length !== 2) {
        process.stderr.write('usage: ' + PROG + ' [--tfjs-backend=cpu|wasm] ' +
                             '--describe | --serve | [--supports] IN.h5 ' +
                             'OUT.h5\n');
        return 2;
    }
    await loadLibrary(which, !query);
    answer(query, args[0], args[1]);
    return 0;
}

main(process.argv).then((code) => {
    process.exitCode = code;
}, (e) => {
    process.stderr.write(oneLine(e) + '\n');
    process.exitCode = 1;
});
