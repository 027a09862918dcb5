// The playground's worker: it runs the WebAssembly codec, which keeps the
// decoded frames (up to four: see kwire.use in wasm/main.go), so the page
// only asks for what it shows (a window of grid rows, tree rows, JSON lines
// or hex lines). Messages: {id, op, args, slot} in, {id, result} or
// {id, error} out, {event: 'load', phase, loaded, total} while the module
// downloads, so the page can show its progress, and {event: 'warm', ms,
// decodes, of} once it has warmed up. A request that arrives before the
// module runs waits for it; once it runs, the worker warms up in idle
// time (see warmStep). Nothing leaves the browser.
'use strict';

// The module's download starts before wasm_exec.js is fetched and run
// (importScripts blocks this thread; the download does not wait for it).
let kwireResponse = fetch('kwire.wasm');
kwireResponse.catch(() => {}); // failures are met where it is used
importScripts('wasm_exec.js');

let ready = null; // promise: the main module is running
// K is the module every op runs through: kwire.wasm's kwire, until the
// user gives schemas; then payload.wasm's kwirePayload (the same glue with
// the record payload decoders), which the page decodes its frames again
// with. (kwire.wasm stays small: the payload decoders are 3 MB of gzip.)
let K = null;
let payloadReady = null; // promise: the payload module is running
let jsonKafka = false; // the JSON form asked for, which a module switch carries over
let captureReady = null; // promise: the capture module is running (storageReady below: the storage module)

// fetchCounting fetches url (or takes the response to it already asked
// for, given) and reports the bytes received as they come. The total is
// the Content-Length, unless the body is content-encoded: then the length
// counts compressed bytes, and the total is what the server says the
// decoded body's length is (X-Decoded-Content-Length: kwire serve sends
// its gzip copies so), or unknown (0). It resolves to the
// response itself, counted through a clone, so that compileStreaming gets
// the browser's own Response: Chromium caches the compiled code of a
// module by its URL only for such a response, and a repeat visit then
// skips compiling.
function fetchCounting(url, report, given) {
  return (given || fetch(url)).then((res) => {
    if (!res.ok) throw new Error(url + ': HTTP ' + res.status);
    const enc = res.headers.get('content-encoding');
    const total = +((enc && enc !== 'identity' ? res.headers.get('x-decoded-content-length') : res.headers.get('content-length')) || 0);
    if (!res.body) return res;
    const reader = res.clone().body.getReader();
    let loaded = 0;
    report(loaded, total);
    (function pump() {
      reader.read().then(({ done, value }) => {
        if (done) return;
        loaded += value.length;
        report(loaded, total);
        pump();
      }, () => {});
    })();
    return res;
  });
}

// runModule runs a Go module: given, if any, is the response to url
// already asked for.
function runModule(url, readyName, reportAll, given) {
  // The count runs beside the compile: once the module is starting, a late
  // count of bytes is not news.
  let started = false;
  const report = (loaded, total) => {
    if (loaded < 0) started = true;
    else if (started) return;
    reportAll(loaded, total);
  };
  return new Promise((resolve, reject) => {
    self[readyName] = resolve;
    const go = new Go();
    // Streamed, compiled as the bytes come; or, if that fails (a server
    // that does not say application/wasm), fetched here in full.
    const slow = (res) => fetchCounting(url, report, res).then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject));
    const load = WebAssembly.instantiateStreaming
      ? WebAssembly.instantiateStreaming(fetchCounting(url, report, given), go.importObject).catch(() => slow())
      : slow(given);
    load.then((r) => {
      report(-1, 0);
      (self.kwireMemory ||= {})[url] = r.instance.exports.mem; // each module's memory, read by the browser tests
      go.run(r.instance);
    }, reject);
  });
}

function main() {
  if (!ready) {
    let last = -1;
    ready = runModule('kwire.wasm', 'kwireReady', (loaded, total) => {
      // One progress message for each percent (each 64 KiB when the
      // total is unknown), and always the ends.
      const step = loaded < 0 ? -2 : total > 0 ? Math.floor(100 * loaded / total) : loaded >> 16;
      if (step === last) return;
      last = step;
      self.postMessage({ event: 'load', phase: loaded < 0 ? 'starting' : 'downloading', loaded, total });
    }, kwireResponse).then(() => {
      kwireResponse = null;
      K = self.kwire;
      self.postMessage({ event: 'load', phase: 'ready' });
      idle();
    });
  }
  return ready;
}
main(); // start at once: the page needs the module in any case

// Warming up. The first run of any code pays for compiling it (lazily, at
// its first call), and the code a big frame runs hot pays for running
// unoptimised: the engine optimises a function only after it has run a
// while, in the background, and the call running meanwhile finishes in
// the slow code. Measured in Chromium, a 1 MiB Fetch response decoded
// cold took 3 to 5 times a repeat in each of its parts (decode, index,
// grid), and neither the collector nor the heap's growth was the cause
// (the same with the collector off, or with the heap grown beforehand).
// So the worker runs a decode's ops, in idle time only, in a slot of its
// own (3): on two small example frames, then on a Fetch response of
// WARM_RECORDS records, WARM_DECODES times, each time read from hex text
// first, as a paste is. A function is optimised once it has run some
// amount of its code, so a loop with a small body needs many turns:
// measured, a 1 MiB frame decoded after 4,000 records of warm-up (20
// frames of 200) still took about 3 times a repeat, after 8,000 (40 of
// 200, or 16 of 500) 1 to 1.5 times one, while stopping at the first sign
// of speed (the per-record code optimised) left the loops around it slow.
// A request always goes first: every message puts the next step
// WARM_IDLE_MS off; and since a request that comes during a step waits
// for it, a step is small (one decode of 100 records, or the views and
// JSON of one).
const WARM_IDLE_MS = 250;
const WARM_RECORDS = 100;
const WARM_DECODES = 80;
const WARM_SLOT = 3;
let warmTimer = 0;
let warmMs = 0; // what warming up took so far, reported with each decode's timing
const warm = { step: 0, frame: null, hex: '', decodes: 0, views: false, done: false };

// idle (re)schedules the next warm-up step for when the worker has been
// idle a while.
function idle(ms = WARM_IDLE_MS) {
  clearTimeout(warmTimer);
  if (!warm.done && K) warmTimer = setTimeout(warmStep, ms);
}

function warmStep() {
  const t0 = performance.now();
  const s = warm.step++;
  try {
    K.use(WARM_SLOT);
    if (s === 0) {
      warmDecode(K.exampleFrame(3, 12, true), 3, 12, true);
      warmViews();
    } else if (s === 1) {
      warmDecode(K.exampleFrame(18, 3, false), 18, 3, false);
      warmViews();
      K.parseInput('0000001b001200030000000700056b7769726500066b7769726504312e3000', 'auto');
    } else if (s === 2) {
      warm.frame = recordsFrame(WARM_RECORDS);
      if (!warm.frame) warm.done = true; // nothing to warm up on
      else warm.hex = Array.from(warm.frame, (b) => (b < 16 ? '0' : '') + b.toString(16)).join('');
    } else if (warm.views) {
      warm.views = false;
      warmViews();
    } else {
      // A large paste is parsed here, as text: its hex reader is hot code too.
      K.parseInput(warm.hex, 'auto');
      warmDecode(warm.frame, 1, 12, true);
      // The views and the JSON of every fourth (the JSON pane lays out
      // the whole frame: its code is hot too, but less so).
      warm.views = ++warm.decodes % 4 === 0;
    }
  } catch (e) {
    warm.done = true; // a failed warm-up costs the first big decode its speed, nothing else
  }
  if (warm.decodes >= WARM_DECODES && !warm.views) warm.done = true;
  if (warm.done && warm.frame) {
    // The slot keeps a small frame, not the records.
    warm.frame = null;
    warm.hex = '';
    try { warmDecode(K.exampleFrame(18, 3, false), 18, 3, false); } catch (e) { /* as above */ }
  }
  warmMs += performance.now() - t0;
  if (warm.done) self.postMessage({ event: 'warm', ms: warmMs, decodes: warm.decodes, of: WARM_DECODES });
  idle(20); // the next step soon, but after any request that came meanwhile
}

// warmDecode and warmViews run the ops the page runs on a new frame.
function warmDecode(bytes, api, version, response) {
  if (!bytes || !bytes.length) throw new Error('no frame to warm up on');
  ops.decode(WARM_SLOT, bytes, { response, api, version, size: 'yes' });
}
function warmViews() {
  ops.treeRows(WARM_SLOT, 0, 40);
  ops.gridRows(WARM_SLOT, 0, 0, 30);
  ops.hexLines(WARM_SLOT, 0, 0, 40);
  const n = ops.jsonCount(WARM_SLOT);
  ops.jsonLines(WARM_SLOT, 0, Math.min(n, 40));
  ops.jsonSpanOf(WARM_SLOT, 1);
  ops.cellAt(WARM_SLOT, 0, 4);
  ops.reveal(WARM_SLOT, 3);
  ops.path(WARM_SLOT, 3);
}

// recordsFrame encodes the example Fetch v12 response with one batch of n
// records (a key and a value of some 90 bytes each, as a topic's traffic
// often is) in place of its records: the frame the hot paths warm up on.
function recordsFrame(n) {
  const env = JSON.parse(K.example(1, 12, true));
  const records = [];
  for (let i = 0; i < n; i++) {
    records.push({ attributes: 0, timestampDelta: i, offsetDelta: i, key: { text: 'key-' + i },
      value: { text: 'value ' + i + ' ' + 'x'.repeat(80) }, headers: [] });
  }
  const batch = { baseOffset: 0, partitionLeaderEpoch: 0, magic: 2, attributes: { compression: 'none', timestampType: 'CreateTime' },
    lastOffsetDelta: n - 1, baseTimestamp: 1767225600000, maxTimestamp: 1767225600000 + n, producerId: -1, producerEpoch: -1,
    baseSequence: -1, records };
  const put = (v) => {
    if (Array.isArray(v)) return v.some(put);
    if (!v || typeof v !== 'object') return false;
    for (const k of Object.keys(v)) {
      if (k === 'records') { v[k] = [batch]; return true; }
      if (put(v[k])) return true;
    }
    return false;
  };
  if (!put(env)) return null;
  const r = K.encode(JSON.stringify(env), false);
  return r.bytes || null;
}

const buffers = [[], [], [], []]; // per slot (the last is warming up's): the decoded frame's buffers, the input first

function hexLines(slot, buf, from, count) {
  const b = buffers[slot][buf];
  if (!b) return [];
  const out = [];
  for (let i = Math.max(0, from); i < Math.min(Math.ceil(b.length / 16), from + count); i++) {
    out.push({ offset: i * 16, bytes: Array.from(b.subarray(i * 16, i * 16 + 16)) });
  }
  return out;
}

const J = (s) => JSON.parse(s);
// Exact int64: JSON.parse would round integers past 2^53, so such numbers
// are kept as their digits, a string (the reviver sees the number's own
// source text). Anything shown from decoded values is read so.
const JX = (s) => JSON.parse(s, (k, v, ctx) =>
  (typeof v === 'number' && !Number.isSafeInteger(v) && ctx && /^-?\d+$/.test(ctx.source) ? ctx.source : v));

// Each op runs after the module is running and kwire.use(slot) has picked
// the frame it reads, in one go: no other message runs in between.
const ops = {
  init: () => J(K.apis()),
  parse: (slot, text, mode) => K.parseInput(text, mode || 'auto'),
  decode(slot, bytes, o) {
    const t0 = performance.now();
    // o.data: what the bytes are when no frame (codec.Options.Data: 'sasl' a raw SASL token).
    const res = K.decode(bytes, !!o.response, o.api | 0, o.version | 0, o.size || 'auto', o.data || '');
    buffers[slot] = [bytes].concat(Array.from(res.buffers));
    const sum = JX(res.summary);
    sum.timing = { worker: performance.now() - t0, warmUp: warmMs };
    return sum;
  },
  guess: (slot, bytes, size, api, version) => J(K.guess(bytes, size || 'auto', api ?? -1, version ?? -1)),
  partial: (slot, bytes, size) => J(K.partial(bytes, size || 'auto')),
  encode(slot, json, noSize) {
    const r = K.encode(json, !!noSize);
    if (r.bytes) {
      // The envelope the page decodes the bytes back with, read here: the
      // JSON can be megabytes, too much to parse on the page's thread.
      try {
        const v = JSON.parse(json.replace(/^\uFEFF/, ''));
        r.env = { direction: v.direction, apiKey: v.apiKey, apiVersion: v.apiVersion };
      } catch { r.env = {}; }
    }
    return r;
  },
  example: (slot, api, version, response) => K.example(api, version, !!response),
  exampleFrame: (slot, api, version, response) => K.exampleFrame(api, version, !!response),
  scan: (slot, frames, keys, versions) => J(K.scanExchanges(frames, keys, versions)),
  mem: () => J(K.mem()),
  treeRows: (slot, from, n) => JX(K.treeRows(from, n)),
  setOpen: (slot, id, open) => K.setOpen(id, open === undefined ? -1 : open ? 1 : 0),
  reveal: (slot, id) => JX(K.reveal(id)),
  gridRows: (slot, buf, from, n) => J(K.gridRows(buf, from, n)),
  expandCell: (slot, buf, cell) => K.expandCell(buf, cell),
  cellAt: (slot, buf, off) => J(K.cellAt(buf, off)),
  rowOf: (slot, buf, off) => K.rowOf(buf, off),
  jsonCount: () => K.jsonCount(),
  jsonText: () => K.jsonLines(0, K.jsonCount()), // the whole value JSON, one text
  jsonLines: (slot, from, n) => { const s = K.jsonLines(from, n); return s === '' && n <= 0 ? [] : s.split('\n'); },
  jsonNodeAt: (slot, line) => K.jsonNodeAt(line),
  jsonSpanOf: (slot, id) => J(K.jsonSpanOf(id)),
  nodeJSON: (slot, id) => K.nodeJSON(id),
  jsonForm: (slot, kafka) => { jsonKafka = !!kafka; return K.setJSONForm(jsonKafka); },
  path: (slot, id) => K.path(id),
  parentOf: (slot, id) => K.parentOf(id),
  hexLines,
  slice: (slot, buf, start, end) => (buffers[slot][buf] || new Uint8Array(0)).slice(start, end),
};

let storageReady = null; // promise: the storage module is running

async function storageModule() {
  if (!storageReady) storageReady = runModule('storage.wasm', 'kwireStorageReady', () => {});
  await storageReady;
  return self.kwireStorage;
}

// The decompressors are a module of their own (inflate.wasm, wasm/inflate):
// kwire.wasm asks for decompressed bytes through self.kwireInflate, and
// calls this the first time it needs them, in the middle of a decode,
// which is synchronous: so the module is fetched and started
// synchronously (allowed in a worker), once.
self.kwireInflateLoad = () => {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', 'inflate.wasm', false);
  xhr.responseType = 'arraybuffer';
  xhr.send();
  if (xhr.status !== 200) throw new Error('inflate.wasm: HTTP ' + xhr.status);
  const go = new Go();
  go.run(new WebAssembly.Instance(new WebAssembly.Module(xhr.response), go.importObject));
  // (Its main has set self.kwireInflate by the time run returns: it
  // blocks only after.)
};

// capture reads a capture, its TLS connections decrypted with keys (a
// key log's bytes) when given.
async function capture(bytes, keys) {
  if (!captureReady) captureReady = runModule('capture.wasm', 'kwireCaptureReady', () => {});
  await captureReady;
  const r = self.kwireCapture.read(bytes, keys || null);
  if (r.error) return { error: r.error, notDump: !!r.notDump };
  // dump: {packets, name, times} when the bytes were a text of packets' dumps.
  const dump = r.dump ? { packets: r.dump.packets, name: r.dump.name, times: r.dump.times } : null;
  return { summary: J(r.summary), frames: Array.from(r.frames), dump };
}

// schemas loads payload.wasm the first time (reporting its download as
// the main module's is), makes it the module every op runs through, and
// gives it the schema files, the registry URL and, for tests, the
// registry's first wait after no answer (retryMs; 30 s when 0).
async function schemas(names, texts, url, retryMs) {
  await main();
  if (!payloadReady) {
    let last = -1;
    payloadReady = runModule('payload.wasm', 'kwirePayloadReady', (loaded, total) => {
      const step = loaded < 0 ? -2 : total > 0 ? Math.floor(100 * loaded / total) : loaded >> 16;
      if (step === last) return;
      last = step;
      self.postMessage({ event: 'load', phase: loaded < 0 ? 'starting' : 'downloading', loaded, total, module: 'payload' });
    }).then(() => self.postMessage({ event: 'load', phase: 'ready', module: 'payload' }), (e) => { payloadReady = null; throw e; });
  }
  await payloadReady;
  if (K !== self.kwirePayload) { K = self.kwirePayload; K.setJSONForm(jsonKafka); }
  return J(K.schemas(names, texts, url, retryMs || 0));
}

// payloadHook is what storage.wasm reads an ordinary topic's keys and
// values with once payload.wasm runs (the user gave schemas): its
// kwirePayload (payloads, a batch's rows at a time, and payload, the
// record drawn), with the schemas given, called synchronously in the
// middle of a listing as kwire.wasm calls inflate.wasm; undefined before
// (keys and values listed as stored). When schemas come after the files
// were opened, the page has the records listed read again with them
// (storagePayloads: payloads.js, again).
function payloadHook() {
  return K && K === self.kwirePayload ? self.kwirePayload : undefined;
}

const RECORDS_PIECE = 500;

// sendRecords posts records to the page in pieces of at most
// RECORDS_PIECE, each a progress message of request id (a task of the
// page's) with the members of head; one message when there are none.
function sendRecords(id, head, records) {
  for (let i = 0; i === 0 || i < records.length; i += RECORDS_PIECE) {
    self.postMessage({ id, progress: { ...head, records: records.slice(i, i + RECORDS_PIECE) } });
  }
}

// rereads counts the readings again of the records listed
// (storagePayloads): a reading stops, between its pieces, once another
// has begun, or other files are opened (storage), or the page closed the
// view (storageStop); its answer then says it stopped.
let rereads = 0;

// nextMessage lets the messages waiting run (a request of the page's,
// which may stop the reading under way), then answers, whether or not
// the module's promise let them in already: a message through a channel
// of its own, not a timeout, which a loop of them would have the browser
// put off by 4 ms each.
function nextMessage() {
  return new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => { c.port1.close(); resolve(); };
    c.port2.postMessage(null);
  });
}

self.onmessage = async (e) => {
  clearTimeout(warmTimer); // a request goes first
  const { id, op, args, slot } = e.data;
  const recv = performance.timeOrigin + performance.now();
  try {
    let result;
    if (op === 'capture') result = await capture(...args);
    else if (op === 'storage') {
      // The files (File objects) are read in slices by the module, which
      // reports how far it got and the records listed so far.
      // folder: the files are all of a partition folder's.
      // payloads: whether the keys and values were read with the schemas.
      //
      // The records listed go to the page in the reports, in pieces of at
      // most RECORDS_PIECE, each a message (a task) of its own, and the
      // answer carries none of them again (streamed: the page keeps the
      // reports'): a report of a big slice's thousands of records, and the
      // answer with all 20,000 listed again, were each one task of the
      // page's, up to 340 ms to take in.
      const [names, files, topic, folder] = args;
      rereads++; // (the records a reading again names are no longer the module's)
      const m = await storageModule();
      const hook = payloadHook();
      let sent = 0, read = 0, total = 0;
      const report = (p) => {
        ({ read, total } = p);
        sendRecords(id, { read, total }, p.records);
        sent += p.records.length;
      };
      result = JX(await m.open(names, files, topic, (p) => report(JX(p)), !!folder, hook));
      if (Array.isArray(result.records) && result.records.length >= sent) {
        if (result.records.length > sent) report({ read, total, records: result.records.slice(sent) });
        result.records = [];
        result.streamed = true;
      }
      result.payloads = !!hook;
    } else if (op === 'storageRecord') {
      const m = await storageModule();
      result = JX(await m.record(args[0], payloadHook()));
    } else if (op === 'storagePayloads') {
      // The records listed (ids from, to) read again with the schemas now
      // given: only their batches, not the files. They go to the page as
      // the listing's do, in pieces of RECORDS_PIECE, a message each,
      // {read, total, from, to, records} (read of total records read
      // again; records, those of ids from to to that still read), and the
      // answer carries none of them (streamed): the 20,000 listed in one
      // answer were one task of the page's. The module reads a piece's
      // batches a call at a time, so a piece is on its way while the next
      // is read; a batch across two pieces is read for each.
      //
      // Between two pieces the page's requests waiting run (nextMessage):
      // one that begins another reading again, opens other files or
      // closes the view (rereads) stops this one, answered {stopped:
      // true}; it ran to its end before, its pieces posted to a page that
      // dropped them, beside the later reading's.
      const [from, to] = args;
      const my = ++rereads;
      const m = await storageModule();
      const hook = payloadHook();
      const total = Math.max(0, to - from);
      for (let i = from; i < to && !result; i += RECORDS_PIECE) {
        if (i > from) await nextMessage();
        if (my !== rereads) { result = { records: [], stopped: true }; break; }
        const j = Math.min(to, i + RECORDS_PIECE);
        const a = JX(await m.payloads(i, j, hook));
        // Stopped while the piece was read (other files opened: the
        // module, whose records it named, answered "superseded" then):
        // stopped all the same, the piece not posted.
        if (my !== rereads) { result = { records: [], stopped: true }; break; }
        if (a.error) result = a;
        else sendRecords(id, { read: j - from, total, from: i, to: j }, a.records);
      }
      if (!result) result = { records: [], streamed: true };
    } else if (op === 'storageStop') {
      rereads++;
      result = true;
    }
    else if (op === 'schemas') result = await schemas(...args);
    else if (op === 'registryStatus') result = payloadReady ? J(self.kwirePayload.registryStatus()) : null;
    else {
      if (!ops[op]) throw new Error('unknown op ' + op);
      await main();
      K.use(slot | 0);
      result = ops[op](slot | 0, ...(args || []));
    }
    if (op === 'decode') { result.timing.recv = recv; result.timing.sent = performance.timeOrigin + performance.now(); }
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
  idle();
};
