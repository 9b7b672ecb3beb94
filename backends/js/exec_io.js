'use strict';
// What a node program behind iohw's exec protocol (docs/EXEC_PROTOCOL.md)
// needs besides its library: finding the npm packages, reading IN.h5 and
// writing OUT.h5 with h5wasm, and the command line of protocols 1 and 2.
//
// The packages are those of backends/js/package.json, installed by
// scripts/setup_js.sh BUILD into BUILD/js/node_modules.  They are found in
// $IOHW_JS_DIR/node_modules when IOHW_JS_DIR is set, else in node_modules
// beside or above this file, else in the repository's build/js.
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const { pathToFileURL } = require('url');

const REPO = path.resolve(__dirname, '..', '..');

// The node_modules folders searched, in order.
function moduleDirs() {
  const dirs = [];
  if (process.env.IOHW_JS_DIR) {
    dirs.push(path.join(path.resolve(process.env.IOHW_JS_DIR), 'node_modules'));
  } else {
    for (let d = __dirname; ; d = path.dirname(d)) {
      dirs.push(path.join(d, 'node_modules'));
      if (path.dirname(d) === d) break;
    }
    dirs.push(path.join(REPO, 'build', 'js', 'node_modules'));
  }
  return dirs;
}

// The folder of package name, or an Error saying where it was looked for.
function packageDir(name) {
  const dirs = moduleDirs();
  for (const d of dirs) {
    if (fs.existsSync(path.join(d, name, 'package.json'))) return path.join(d, name);
  }
  throw new Error(`the npm package ${name} is not installed (looked in ` +
                  `${dirs.join(', ')}): run scripts/setup_js.sh BUILD and ` +
                  'set IOHW_JS_DIR=BUILD/js');
}

function packageVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(packageDir(name), 'package.json'), 'utf8')).version;
}

// require() of a CommonJS package from where it is installed.
function requirePackage(name) {
  const dir = packageDir(name);
  return createRequire(path.join(path.dirname(dir), 'noop.js'))(name);
}

let h5 = null;
// h5wasm's node build (an ES module), loaded once.
async function h5wasm() {
  if (h5 === null) {
    const dir = packageDir('h5wasm');
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const entry = pkg.exports['./node'].import;
    const mod = await import(pathToFileURL(path.join(dir, entry)).href);
    await mod.ready;
    h5 = mod;
  }
  return h5;
}

const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

function checkHdf5(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw new Error(`cannot open ${file}: ${e.code || e.message}`);
  }
  const head = Buffer.alloc(8);
  const n = fs.readSync(fd, head, 0, 8, 0);
  fs.closeSync(fd);
  if (n < 8 || !head.equals(HDF5_SIGNATURE)) {
    throw new Error(`${file} is not an HDF5 file`);
  }
}

function attrValue(attrs, name, where) {
  if (!(name in attrs)) throw new Error(`${where} has no attribute '${name}'`);
  return attrs[name].value;
}

function intOf(v) {
  const x = Array.isArray(v) || ArrayBuffer.isView(v) ? v[0] : v;
  return Number(x);
}

function intsOf(v, n, name, where) {
  const a = Array.from(ArrayBuffer.isView(v) || Array.isArray(v) ? v : [v], Number);
  if (a.length !== n || a.some((x) => !Number.isSafeInteger(x))) {
    throw new Error(`${where}: attribute '${name}' holds [${a}], not ${n} integers`);
  }
  return a;
}

function stringOf(v) {
  return String(Array.isArray(v) ? v[0] : v);
}

const INT_ATTRS = ['rank', 'batch', 'in_channels', 'out_channels', 'groups', 'has_bias'];
const AXIS_ATTRS = ['in_size', 'kernel', 'stride', 'dilation', 'pad_begin', 'pad_end',
                    'output_padding', 'out_size'];
const STRING_ATTRS = ['dtype', 'data_layout', 'weight_layout'];

// The raw bytes of a dataset (any element type, f16 included, which
// h5wasm's .value refuses).
function rawBytes(mod, file, ds) {
  const md = ds.metadata;
  const nbytes = md.size * md.total_size;
  const p = mod.Module._malloc(Math.max(nbytes, 1));
  try {
    mod.Module.get_dataset_data(file.file_id, ds.path, null, null, null, BigInt(p));
    return { bytes: mod.Module.HEAPU8.slice(p, p + nbytes), shape: md.shape.map(Number),
             itemSize: md.size, isFloat: md.type === 1 };
  } finally {
    mod.Module._free(p);
  }
}

// The framework convention of the case, if any (specification section 12):
// the attributes auto_pad, convention and out_shape, on the file's root or
// the case's group.
function readConvention(rootAttrs, caseAttrs, rank, where) {
  const pick = (n) => (n in rootAttrs ? rootAttrs[n].value : n in caseAttrs ? caseAttrs[n].value : null);
  const autoPad = pick('auto_pad');
  const convention = pick('convention');
  const outShape = pick('out_shape');
  return {
    autoPad: autoPad === null ? '' : stringOf(autoPad).toLowerCase(),
    convention: convention === null ? '' : stringOf(convention).toLowerCase(),
    outShape: outShape === null ? null : intsOf(outShape, rank, 'out_shape', where),
  };
}

// The one case of IN.h5: {problem, x, w, bias, caseId} (a backward case:
// dy and w, or x and dy; problem.direction 1 or 2); x, w, bias and dy are
// the raw datasets ({bytes, shape, itemSize}); file is IN.h5's path (for
// what a program reads itself).  Throws an Error naming
// what is wrong.
async function readCase(file) {
  checkHdf5(file);
  const mod = await h5wasm();
  const f = new mod.File(file, 'r');
  try {
    const cases = f.get('cases');
    if (!cases || typeof cases.keys !== 'function') throw new Error(`${file} has no group /cases`);
    const ids = cases.keys();
    if (ids.length !== 1) throw new Error(`${file} holds ${ids.length} cases; the exec protocol sends one`);
    const where = `${file}: /cases/${ids[0]}`;
    const g = f.get(`cases/${ids[0]}`);
    const a = g.attrs;
    const p = {};
    for (const n of INT_ATTRS) p[n] = intOf(attrValue(a, n, where));
    if (!(p.rank >= 1 && p.rank <= 3)) throw new Error(`${where}: rank ${p.rank} is not 1, 2 or 3`);
    for (const n of AXIS_ATTRS) p[n] = intsOf(attrValue(a, n, where), p.rank, n, where);
    for (const n of STRING_ATTRS) p[n] = stringOf(attrValue(a, n, where));
    p.conv = readConvention(f.attrs, a, p.rank, where);
    const data = (n) => {
      const ds = g.get(n);
      if (!ds || !ds.metadata) throw new Error(`${where} has no dataset '${n}'`);
      return rawBytes(mod, f, ds);
    };
    // The direction (specification section 13; absent: forward) names the
    // inputs: forward x, w, bias; BWD_D dy, w; BWD_W x, dy.
    p.direction = 'direction' in a ? intOf(attrValue(a, 'direction', where)) : 0;
    if (p.direction === 1) return { problem: p, dy: data('dy'), w: data('w'), caseId: ids[0] };
    if (p.direction === 2) return { problem: p, x: data('x'), dy: data('dy'), caseId: ids[0] };
    return { problem: p, x: data('x'), w: data('w'), bias: p.has_bias ? data('bias') : null,
             caseId: ids[0], file };
  } finally {
    f.close();
  }
}

// OUT.h5 as a copy of IN.h5 whose /cases/ID/y holds bytes (the case's
// dtype, its y's shape): the protocol's second form of a result, which
// needs no dataset type h5wasm cannot create (f16).  outputs is y's bytes,
// or {name: bytes} for the datasets of a backward case (dx; dw and db),
// whose placeholders IN.h5 holds.
async function writeResult(inFile, outFile, caseId, outputs) {
  const mod = await h5wasm();
  const named = outputs instanceof Uint8Array ? { y: outputs } : outputs;
  fs.copyFileSync(inFile, outFile);
  const f = new mod.File(outFile, 'a');
  try {
    for (const [name, bytes] of Object.entries(named)) {
      const d = f.get(`cases/${caseId}/${name}`);
      if (!d || !d.metadata) throw new Error(`the case has no dataset ${name} to write`);
      const want = d.metadata.size * d.metadata.total_size;
      if (bytes.length !== want) {
        throw new Error(`the result has ${bytes.length} bytes where the case's ${name} has ${want}`);
      }
      const p = mod.Module._malloc(Math.max(want, 1));
      try {
        mod.Module.HEAPU8.set(bytes, p);
        mod.Module.set_dataset_data(f.file_id, d.path, null, null, null, BigInt(p));
      } finally {
        mod.Module._free(p);
      }
    }
  } finally {
    f.close();
  }
}

// OUT.h5 with the root attribute unsupported = why.
async function writeRefusal(outFile, why) {
  const mod = await h5wasm();
  const f = new mod.File(outFile, 'w');
  try {
    f.create_attribute('unsupported', why);
  } finally {
    f.close();
  }
}

// Protocol 2: length-prefixed requests on stdin, replies on fd 1.  Whatever
// else writes to stdout (console.log of a library) goes to stderr.
function serve(handler) {
  const replyFd = 1;
  const toStderr = (...args) => process.stderr.write(args.join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  process.stdout.write = (chunk) => process.stderr.write(chunk);
  let buf = Buffer.alloc(0);
  let busy = Promise.resolve();
  const send = (text) => {
    const body = Buffer.from(text, 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    fs.writeSync(replyFd, Buffer.concat([head, body]));
  };
  process.stdin.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
      const n = buf.readUInt32LE(0);
      const req = buf.subarray(4, 4 + n).toString('utf8');
      buf = buf.subarray(4 + n);
      busy = busy.then(() => handler(req.split('\n'))).then(send, (e) => send(`error\n${e.message}`));
    }
  });
  process.stdin.on('end', () => { busy.then(() => process.exit(0)); });
}

// main(argv, program): the command line of docs/EXEC_PROTOCOL.md.  program
// has describe() (key=value lines), supports(c) (null or the reason of a
// refusal) and run(c) (the result's bytes), c being readCase's answer;
// name is the program's file for messages.
function main(program, name) {
  const args = process.argv.slice(2);
  const fail = (e) => {
    process.stderr.write(`${name}: ${e.message}\n`);
    process.exit(1);
  };
  if (args.length === 1 && args[0] === '--describe') {
    Promise.resolve().then(() => program.describe()).then((t) => process.stdout.write(t), fail);
    return;
  }
  if (args.length === 1 && args[0] === '--serve') {
    serve((words) => answerRequest(program, name, words));
    return;
  }
  const query = args[0] === '--supports';
  const files = query ? args.slice(1) : args;
  if (files.length !== 2) {
    process.stderr.write(`usage: ${name} --describe | --serve | [--supports] IN.h5 OUT.h5\n`);
    process.exit(2);
  }
  answerCase(program, query, files[0], files[1]).then(() => process.exit(0), fail);
}

// A supports query or a run: null when done, or the reason of a refusal
// (also written into OUT.h5).
async function answerCase(program, query, inFile, outFile) {
  const c = await readCase(inFile);
  const why = await program.supports(c);
  if (why !== null) {
    await writeRefusal(outFile, why);
    return why;
  }
  if (!query) await writeResult(inFile, outFile, c.caseId, await program.run(c));
  return null;
}

async function answerRequest(program, name, words) {
  if (words[0] === 'describe' && words.length === 1) return `ok\n${await program.describe()}`;
  if ((words[0] === 'supports' || words[0] === 'run') && words.length === 3) {
    try {
      const why = await answerCase(program, words[0] === 'supports', words[1], words[2]);
      return why === null ? 'ok' : `unsupported\n${why}`;
    } catch (e) {
      return `error\n${name}: ${e.message}`;
    }
  }
  return `error\n${name}: unknown request '${words[0]}'`;
}

module.exports = { main, readCase, packageVersion, requirePackage, packageDir };
