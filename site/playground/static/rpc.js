// The worker (worker.js) runs the WebAssembly codec; this module sends it
// requests and shows the module's download progress. rpcAt(slot, op,
// ...args) answers with a promise; slot picks the decoded frame the op
// reads (see Panel).
import { $, mb } from './dom.js';
import { st } from './state.js';

// The worker was started by boot.js, a classic script in the page's head
// (or here, if the page has none).
const boot = self.kwireBoot;
const worker = boot ? boot.worker : new Worker('worker.js');
let nextID = 1;
const pending = new Map(); // request id -> {resolve, reject, progress}
worker.onmessage = (e) => {
  if (e.data.event === 'load') { loading(e.data); return; }
  if (e.data.event === 'warm') { st.warmUp = { ms: e.data.ms, decodes: e.data.decodes, of: e.data.of }; return; }
  const p = pending.get(e.data.id);
  if (!p) return;
  if (e.data.progress !== undefined) { p.progress?.(e.data.progress); return; }
  pending.delete(e.data.id);
  if (e.data.error !== undefined) p.reject(new Error(e.data.error)); else p.resolve(e.data.result);
};
if (boot) for (const e of boot.early.splice(0)) worker.onmessage(e);

// send posts op to the worker and answers its promise; progress, when
// given, gets the reports the op sends before it answers.
function send(slot, op, args, progress) {
  return new Promise((resolve, reject) => {
    const id = nextID++;
    pending.set(id, { resolve, reject, progress });
    worker.postMessage({ id, op, args, slot });
  });
}
export const rpcAt = (slot, op, ...args) => send(slot, op, args);
export const rpc = (op, ...args) => send(0, op, args);

// rpcProgress is rpc for an op that reports how far it got before it
// answers (storage): onProgress gets each report.
export const rpcProgress = (op, onProgress, ...args) => send(0, op, args, onProgress);

// loading shows the decoder's download and start.
function loading(d) {
  const box = $('loading'), bar = $('loading-bar'), text = $('loading-text');
  st.load = d;
  if (d.phase === 'ready') { box.hidden = true; return; }
  box.hidden = false;
  if (d.phase === 'starting') {
    bar.removeAttribute('value');
    text.textContent = d.module === 'payload' ? 'Starting the payload decoders…' : 'Starting the decoder…';
  } else if (d.total > 0) {
    const pct = Math.min(100, Math.round(100 * d.loaded / d.total));
    bar.value = pct;
    text.textContent = (d.module === 'payload' ? 'Loading the payload decoders: ' : 'Loading the decoder: ') + pct + '% (' + mb(d.loaded) + ' of ' + mb(d.total) + ')';
  } else {
    bar.removeAttribute('value');
    text.textContent = (d.module === 'payload' ? 'Loading the payload decoders: ' : 'Loading the decoder: ') + mb(d.loaded);
  }
  document.body.dataset.loading = d.phase;
}
