// Permalinks (#hex=...&dir=response&api=3&v=12&size=yes, #mode=encode&json=...&size=no,
// #live) and the examples row: both fill the page's controls and decode.
import { $, el, toHex, inputNote } from './dom.js';
import { rpc } from './rpc.js';
import { st, LINK_MAX } from './state.js';
import { decodeInput } from './decode.js';
import { openLive } from './live.js';
import { setMode, runEncode, loadExample, replaceJSON, putLink, decodeLink, newLink, arrived } from './encode.js';
import { closeStorage } from './storage.js';

// setLink writes decode mode's link (shown when decode mode is on screen:
// encode mode has its own, and the URL is the link of the mode shown).
export function setLink(bytes, o, sum) {
  if (!bytes) { putLink('decode', ''); return; }
  if (bytes.length > LINK_MAX) {
    putLink('decode', '', 'This input (' + bytes.length + ' bytes) is larger than the ' + LINK_MAX + ' bytes a link holds, so the link does not carry it.');
    return;
  }
  const p = new URLSearchParams();
  p.set('hex', toHex(bytes));
  if (o.response) {
    p.set('dir', 'response');
    if (sum) { p.set('api', sum.apiKey); p.set('v', sum.apiVersion); }
  }
  if (o.size !== 'auto') p.set('size', o.size);
  if ($('kafka-form').checked) p.set('form', 'kafka');
  putLink('decode', p.toString());
}

// setJSONForm shows value JSON in Kafka's own form (every bytes field
// base64) or kwire's (records and consumer-protocol data decoded), in
// every panel.
export async function setJSONForm() {
  const kafka = $('kafka-form').checked;
  for (const p of st.panels) p.views.json.changedRows();
  await rpc('jsonForm', kafka);
  for (const p of st.panels) if (p.sum) await p.loadJSON(p.sum);
  const h = new URLSearchParams(decodeLink());
  if (h.has('hex') || h.has('b64') || h.has('in')) {
    if (kafka) h.set('form', 'kafka'); else h.delete('form');
    putLink('decode', h.toString());
  }
}

// reading counts the links read: one read while an older one waits (for
// the module's list of APIs, say) is the one that stands.
let reading = 0;

// followLink shows the entry of the browser's history it went to (Back,
// Forward, a link followed); its fragment describes it, and none is the
// page as it opened: empty.
export function followLink() {
  if (location.hash) { readLink(); return; }
  ++reading;
  closeStorage();
  arrived('decode');
  setMode('decode');
  st.file = null; st.pasted = null;
  $('input').value = '';
  inputNote();
  decodeInput();
}

export async function readLink() {
  const h = location.hash.slice(1);
  if (!h) return false;
  const mine = ++reading;
  const p = new URLSearchParams(h);
  if (p.has('live')) {
    closeStorage(); // (a reading again of its records stops)
    arrived('decode');
    setMode('decode');
    openLive(new URL(p.get('live') || '../proxy/events', location.href).href);
    return true;
  }
  if (p.get('mode') === 'encode') {
    arrived('encode');
    setMode('encode');
    $('enc-nosize').checked = p.get('size') === 'no';
    if (p.has('json')) replaceJSON(p.get('json'), 'The link\'s JSON'); // over edits (a link followed later): undoable
    if (p.has('api')) await exampleFromLink(p);
    if (mine !== reading) return true;
    runEncode();
    return true;
  }
  const text = p.get('hex') || p.get('b64') || p.get('in');
  if (!text) return false;
  // The frame being read for the entry left is no longer wanted: its
  // answer must not draw it, nor write its link over this entry's; nor
  // do storage files shown stay beside it (a reading again of their
  // records stops).
  ++st.gen;
  closeStorage();
  arrived('decode');
  setMode('decode');
  $('dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  const api = p.get('api');
  $('api').value = 'auto';
  $('ver').value = p.get('v') || '';
  $('size').value = ['yes', 'no'].includes(p.get('size')) ? p.get('size') : 'auto';
  if ($('kafka-form').checked !== (p.get('form') === 'kafka')) {
    $('kafka-form').checked = p.get('form') === 'kafka';
    await rpc('jsonForm', $('kafka-form').checked);
    if (mine !== reading) return true;
  }
  // The parameter names the form: hex= is read as hex (so a bad digit is a
  // hex error at its column), b64= as base64, in= by detection.
  $('mode').value = p.get('hex') ? 'hex' : p.get('b64') ? 'base64' : 'auto';
  st.modeByPage = $('mode').value !== 'auto'; // for the link's text only
  st.file = null; st.pasted = null;
  $('input').value = text;
  inputNote();
  if (api !== null) {
    // The API may be named: the list of names comes with the module.
    await st.apisReady;
    if (mine !== reading) return true;
    const a = /^\d+$/.test(api) ? st.byKey.get(+api) : st.apis.find((x) => x.name.toLowerCase() === api.toLowerCase());
    $('api').value = a ? String(a.key) : 'auto';
  }
  decodeInput();
  return true;
}

async function exampleFromLink(p) {
  await st.apisReady;
  const a = st.byKey.get(+p.get('api'));
  if (!a) return;
  $('ex-api').value = a.key; $('ex-ver').value = p.get('v') || 0; $('ex-dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  await loadExample();
}

export async function drawExamples() {
  let xs;
  try { xs = await (await fetch('examples.json')).json(); } catch { return; }
  const box = $('examples');
  for (const x of xs) {
    const b = el('button', 'pg-example', x.label);
    b.dataset.example = x.id;
    b.title = x.hint;
    b.addEventListener('click', () => loadDecodeExample(x));
    box.appendChild(b);
  }
}

// The example replaces whatever was shown: storage files shown close (a
// reading again of their records stops), as a frame typed closes them.
async function loadDecodeExample(x) {
  newLink();
  setMode('decode');
  closeStorage();
  $('dir').value = x.dir || 'request';
  $('api').value = x.api !== undefined && x.dir === 'response' ? String(x.api) : 'auto';
  $('ver').value = x.dir === 'response' && x.v !== undefined ? x.v : '';
  $('size').value = 'auto';
  if (x.file) {
    const bytes = new Uint8Array(await (await fetch(x.file)).arrayBuffer());
    st.file = { name: x.file, bytes }; st.pasted = null;
    $('input').value = '';
    inputNote(x.file + ' (' + bytes.length + ' bytes, binary); type or paste here to replace it');
  } else {
    st.file = null; st.pasted = null;
    $('mode').value = 'hex';
    st.modeByPage = true; // for the example's text only
    $('input').value = x.hex;
    inputNote();
  }
  decodeInput();
}
