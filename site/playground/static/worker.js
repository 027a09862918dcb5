// The playground's worker: it runs the WebAssembly codec, which keeps the
// decoded frame, so the page only asks for what it shows (a window of grid
// rows, tree rows, JSON lines or hex lines). Messages: {id, op, args} in,
// {id, result} or {id, error} out. Nothing leaves the browser.
'use strict';

importScripts('wasm_exec.js');

let ready = null; // promise: the main module is running
let captureReady = null; // promise: the capture module is running

function runModule(url, readyName) {
  return new Promise((resolve, reject) => {
    self[readyName] = resolve;
    const go = new Go();
    const slow = () => fetch(url).then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject));
    const load = WebAssembly.instantiateStreaming
      ? WebAssembly.instantiateStreaming(fetch(url), go.importObject).catch(slow)
      : slow();
    load.then((r) => { go.run(r.instance); }, reject);
  });
}

function main() {
  if (!ready) ready = runModule('kwire.wasm', 'kwireReady');
  return ready;
}

let buffers = []; // the decoded frame's buffers: the input, then derived ones

function hexLines(buf, from, count) {
  const b = buffers[buf];
  if (!b) return [];
  const out = [];
  for (let i = Math.max(0, from); i < Math.min(Math.ceil(b.length / 16), from + count); i++) {
    out.push({ offset: i * 16, bytes: Array.from(b.subarray(i * 16, i * 16 + 16)) });
  }
  return out;
}

const J = (s) => JSON.parse(s);
// Exact int64: JSON.parse would round integers past 2^53, so such values
// are kept as their digits.
const JX = (s) => JSON.parse(s.replace(/"value":(-?\d{16,})/g, '"value":"$1"'));

const ops = {
  async init() { await main(); return J(self.kwire.apis()); },
  async parse(text, mode) { await main(); return self.kwire.parseInput(text, mode || 'auto'); },
  async decode(bytes, o) {
    await main();
    const t0 = performance.now();
    const res = self.kwire.decode(bytes, !!o.response, o.api | 0, o.version | 0, o.size || 'auto');
    buffers = [bytes].concat(Array.from(res.buffers));
    const sum = JX(res.summary);
    sum.timing = { worker: performance.now() - t0 };
    return sum;
  },
  async guess(bytes, size) { await main(); return J(self.kwire.guess(bytes, size || 'auto')); },
  async encode(json, noSize) { await main(); return self.kwire.encode(json, !!noSize); },
  async example(api, version, response) { await main(); return self.kwire.example(api, version, !!response); },
  async capture(bytes) {
    if (!captureReady) captureReady = runModule('capture.wasm', 'kwireCaptureReady');
    await captureReady;
    const r = self.kwireCapture.read(bytes);
    if (r.error) return { error: r.error };
    return { summary: J(r.summary), frames: Array.from(r.frames) };
  },
  treeRows: (from, n) => JX(self.kwire.treeRows(from, n)),
  setOpen: (id, open) => self.kwire.setOpen(id, open === undefined ? -1 : open ? 1 : 0),
  reveal: (id) => JX(self.kwire.reveal(id)),
  gridRows: (buf, from, n) => J(self.kwire.gridRows(buf, from, n)),
  expandCell: (buf, cell) => self.kwire.expandCell(buf, cell),
  cellAt: (buf, off) => J(self.kwire.cellAt(buf, off)),
  rowOf: (buf, off) => self.kwire.rowOf(buf, off),
  jsonCount: () => self.kwire.jsonCount(),
  jsonLines: (from, n) => { const s = self.kwire.jsonLines(from, n); return s === '' && n <= 0 ? [] : s.split('\n'); },
  nodeJSON: (id) => self.kwire.nodeJSON(id),
  path: (id) => self.kwire.path(id),
  parentOf: (id) => self.kwire.parentOf(id),
  hexLines,
  slice: (buf, start, end) => (buffers[buf] || new Uint8Array(0)).slice(start, end),
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  const recv = performance.timeOrigin + performance.now();
  try {
    if (!ops[op]) throw new Error('unknown op ' + op);
    const result = await ops[op](...(args || []));
    if (op === 'decode') { result.timing.recv = recv; result.timing.sent = performance.timeOrigin + performance.now(); }
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
