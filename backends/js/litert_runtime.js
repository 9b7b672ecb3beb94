'use strict';
// LiteRT (npm @litertjs/core, TensorFlow Lite in WebAssembly) loaded into
// node, and a compiled model run on raw tensor bytes, for litert_backend.js.
//
// The package is written for browsers and workers: its loader calls
// importScripts() on the Emscripten glue (litert_wasm*_internal.js) and
// reads the factory from self.ModuleFactory.  Here self is globalThis and
// importScripts compiles the glue as a CommonJS module (the package says
// "type": "module", so require() would take it for an ES module).  Tensors
// of every element type (int8 and uint8 included, which the package's
// Tensor class does not take) go through its embind API: a host-memory
// LiteRtTensorBuffer of the model's own input type, filled through the
// wasm heap.
const fs = require('fs');
const path = require('path');
const Module = require('module');
const { pathToFileURL } = require('url');
const io = require('./exec_io.js');

const PACKAGE = '@litertjs/core';
let loaded = null;

function installShim() {
  globalThis.self = globalThis;
  globalThis.importScripts = (url) => {
    const file = String(url).startsWith('file:') ? new URL(url).pathname : String(url);
    const m = new Module(file);
    m.filename = file;
    m.paths = Module._nodeModulePaths(path.dirname(file));
    m._compile(fs.readFileSync(file, 'utf8'), file);
    globalThis.ModuleFactory = m.exports;
  };
}

// The package's module, with LiteRT loaded (once); its log lines go to
// standard error.
async function litert() {
  if (loaded === null) {
    const dir = io.packageDir(PACKAGE);
    installShim();
    const lrt = await import(pathToFileURL(path.join(dir, 'dist', 'index.js')).href);
    // Node has no navigator: the package's WebGPU probe fails, and says so
    // with a stack; the CPU is all this program asks for.
    const warn = console.warn;
    console.warn = (...args) => {
      if (!String(args[0]).startsWith('Failed to create default WebGPU device')) warn(...args);
    };
    let rt;
    try {
      rt = await lrt.loadLiteRt(path.join(dir, 'wasm') + path.sep);
    } finally {
      console.warn = warn;
    }
    loaded = { lrt, rt, wasm: rt.liteRtWasm };
  }
  return loaded;
}

function version() {
  return `${PACKAGE} ${io.packageVersion(PACKAGE)}`;
}

// A compiled model: {run(inputs), delete()}: inputs the bytes of the
// model's inputs in order; run gives the output's bytes.  Loaded and
// compiled through the embind API (the package's loadAndCompile describes
// every tensor with its Tensor class, which refuses int8).
async function compile(modelBytes) {
  const { rt, wasm } = await litert();
  const environment = rt.getDefaultEnvironment();
  const env = environment.liteRtEnvironment;
  const ptr = wasm._malloc(modelBytes.length);
  wasm.HEAPU8.set(modelBytes, ptr);
  let liteModel = null;
  let compiled = null;
  try {
    liteModel = wasm.loadModel(env, ptr, modelBytes.length);
    compiled = await wasm.compileModel(env, liteModel, {
      environment, accelerator: 'wasm', cpuOptions: { numThreads: 1 }, gpuOptions: {},
      webNNOptions: {} });
  } catch (e) {
    if (liteModel !== null) liteModel.delete();
    wasm._free(ptr);
    throw e;
  }
  const release = () => {
    compiled.delete();
    liteModel.delete();
    wasm._free(ptr);
  };
  const run = async (inputs) => {
    const buffers = inputs.map((bytes, i) => {
      const type = liteModel.getInputTensorType(0, i);
      try {
        if (type.bytes() !== bytes.length) {
          throw new Error(`input ${i} has ${bytes.length} bytes where the model's ` +
                          `tensor has ${type.bytes()}`);
        }
        const b = wasm.LiteRtTensorBuffer.createManaged(
          env, wasm.LiteRtTensorBufferType.HOST_MEMORY, type, bytes.length);
        const at = b.lock(wasm.LiteRtTensorBufferLockMode.WRITE);
        wasm.HEAPU8.set(bytes, at);
        b.unlock();
        return b;
      } finally {
        type.delete();
      }
    });
    let outputs = [];
    try {
      outputs = await compiled.run(0, buffers);
      const y = outputs[0];
      const at = y.lock(wasm.LiteRtTensorBufferLockMode.READ);
      const bytes = wasm.HEAPU8.slice(at, at + y.packedSize());
      y.unlock();
      return bytes;
    } finally {
      for (const b of [...buffers, ...outputs]) b.delete();
    }
  };
  return { run, delete: release };
}

module.exports = { litert, compile, version };
