// The playground page's entry module. All decoding happens in worker.js
// (WebAssembly); the page draws what the worker answers, a window at a
// time, and keeps the views in step. The modules:
//
//   state.js    the shared state, every field declared in one place
//   dom.js      element, hex/base64 and status helpers
//   rpc.js      the worker and the decoder's download progress
//   virtual.js  virtual lists (only the rows in view are in the DOM)
//   views.js    drawing grid rows, tree rows, JSON and hex lines
//   panel.js    a Panel: one decoded frame's four linked views
//   decode.js   decode mode: input, guesses, back-to-back frames
//   capture.js  a capture's table of exchanges and its summary
//   storage.js  Kafka's storage files: records, index problems
//   payloads.js record payloads: the schemas given, payload.wasm
//   live.js     kwire proxy's live feed in the capture table
//   link.js     permalinks and the examples row
//   encode.js   encode mode
//   encbox.js   encode mode's text box: the JSON, its lines, undo
//   copy.js     copying to the clipboard
//
// This module wires the page's controls to them and starts everything.
// Text that came from a frame is only ever set with textContent or as an
// attribute value, never parsed as HTML.
import { $, el, toHex, debounce, status, inputNote } from './dom.js';
import { rpc } from './rpc.js';
import { st, PASTE_INLINE } from './state.js';
import { Panel } from './panel.js';
import { looksLikeCapture, run, redo, redoSoon, decodeInput } from './decode.js';
import { drawCapRows, drawCapSummary } from './capture.js';
import { isStorageName, looksLikeSegment, openStorage, closeStorage } from './storage.js';
import { filesOfEntries, filesOfInput, partitions, firstShown, leftOut, topicOf } from './folder.js';
import { setJSONForm, readLink, followLink, drawExamples } from './link.js';
import { setMode, enterEncode, loadExample, runEncode, jumpToError, typed, replaceJSON, encodeText, undo, newLink } from './encode.js';
import { editAnyway, saveJSON, drawLines, nextWindow, prevWindow } from './encbox.js';
import { copy, encCopy } from './copy.js';
import { isSchemaName, readSchemaFiles, apply as applySchemas, wirePayloads } from './payloads.js';

window.kwirePlayground = st; // for tests and the curious

// Everything is wired at once, before the module has loaded: what is typed
// or dropped early waits in the worker's queue and decodes when it is ready.
st.panels = [
  new Panel(0, $('panels'), { tree: 'tree', json: 'json', hex: 'hex', grids: 'grids', hexbuf: 'hex-buf', error: 'error', warn: 'warnings', limit: 'limit', views: 'views', title: 'frame-title', doc: 'doc-link', frames: 'pframes' }),
  new Panel(1, $('panels'), { tree: 'tree-2', json: 'json-2', hex: 'hex-2', grids: 'grids-2', error: 'error-2', warn: 'warnings-2', limit: 'limit-2', title: 'frame-title-2', doc: 'doc-link-2', frames: 'pframes-2' }),
  new Panel(2, $('enc-panel'), { grids: 'enc-grids', tree: 'enc-tree', title: 'enc-title' }),
];
for (const p of st.panels) p.clear();
st.panels[1].hidden = true;

// ownMode sets the Input select back to auto for new text when the page,
// not the user, chose it (hex for a link's or an example's hex): a base64
// paste after a hex link is read as base64, not refused as bad hex. A
// choice the user made stays.
function ownMode() {
  if (!st.modeByPage) return;
  st.modeByPage = false;
  $('mode').value = 'auto';
}
$('input').addEventListener('input', () => { ownMode(); st.file = null; st.pasted = null; inputNote(); closeStorage(); run(); });
// A large paste is not put in the text box, where laying out megabytes of
// text would hold the page for seconds: it is kept aside, parsed in the
// worker like a file's bytes, and decoded at once.
$('input').addEventListener('paste', (e) => {
  newLink(); // a paste is a new frame; typing edits the one there
  const text = e.clipboardData && e.clipboardData.getData('text/plain');
  if (!text || text.length < PASTE_INLINE) return; // the text box takes it (and its input event)
  e.preventDefault();
  ownMode();
  st.file = null;
  closeStorage(); // as the text box's input event closes it
  putText(text, 'pasted text');
  decodeInput();
});

// putText shows text in the text box, or, past PASTE_INLINE characters,
// keeps it aside (st.pasted) and says so in the box.
function putText(text, name) {
  if (text.length < PASTE_INLINE) { st.pasted = null; $('input').value = text; inputNote(); return; }
  st.pasted = { text, name };
  $('input').value = '';
  inputNote(name + ': ' + text.length.toLocaleString('en') + ' characters, decoded below (not shown here, to keep the page quick); type or paste here to replace it');
}
for (const id of ['dir', 'api', 'ver', 'size']) $(id).addEventListener('change', redo);
$('mode').addEventListener('change', () => { st.modeByPage = false; run(); });
$('kafka-form').addEventListener('change', setJSONForm);
$('ver').addEventListener('input', redoSoon);
$('file').addEventListener('change', () => { const fs = [...$('file').files]; $('file').value = ''; openFiles(fs); });
$('folder').addEventListener('change', () => {
  const fs = $('folder').files;
  const read = filesOfInput(fs);
  $('folder').value = '';
  openDropped(read);
});
// The topic typed (committed: Enter, or the field left) or picked from
// the internal topics listed: the files are read again as that topic's.
// topicTyped is the one the user gave last: files given alone (no folder names
// their topic) are read as its, not as the folder's opened before.
let topicTyped = '';
function topicGiven() {
  const t = $('st-topic');
  t.value = t.value.trim();
  topicTyped = t.value;
  if (st.storage && t.value !== st.storage.topic) openStorage(st.storage.files, t.value, ++st.gen, st.storage.where);
}
$('st-topic').addEventListener('change', topicGiven);
// A pick from the list (Chromium's datalist) is an input, not yet a change.
$('st-topic').addEventListener('input', (e) => { if (e.inputType === 'insertReplacementText') topicGiven(); });
$('st-part').addEventListener('change', () => { if (folder) showPartition(+$('st-part').value); });
$('mode-decode').addEventListener('click', () => { if ($('decode-pane').hidden) newLink(); setMode('decode'); });
$('mode-encode').addEventListener('click', () => { if (!$('decode-pane').hidden) newLink(); enterEncode(); });
// The mode tabs' keys (ARIA's tabs pattern): the arrows, Home and End
// move to the other tab and select it.
document.querySelector('.pg-modes').addEventListener('keydown', (e) => {
  if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
  e.preventDefault();
  const to = $(e.key === 'Home' || (e.key !== 'End' && e.target.id === 'mode-encode') ? 'mode-decode' : 'mode-encode');
  to.focus();
  if (to.getAttribute('aria-selected') !== 'true') to.click();
});
$('ex-load').addEventListener('click', () => { newLink(); loadExample(); });
$('enc-json').addEventListener('input', typed);
// A large paste is kept out of the text box, as decode mode keeps one; it
// replaces the JSON being encoded (even when the box holds a window of it).
$('enc-json').addEventListener('paste', (e) => {
  const text = e.clipboardData && e.clipboardData.getData('text/plain');
  if (!text || text.length < PASTE_INLINE) return; // the text box takes it
  e.preventDefault();
  replaceJSON(text, 'The pasted JSON'); // over edits: undoable
  runEncode();
});
$('enc-big-edit').addEventListener('click', editAnyway);
$('enc-big-save').addEventListener('click', saveJSON);
$('enc-win-next').addEventListener('click', nextWindow);
$('enc-win-prev').addEventListener('click', prevWindow);
$('enc-undo-button').addEventListener('click', undo);
$('enc-as-bytes').addEventListener('click', () => {
  // Hex pasted in encode mode, decoded as if pasted in decode mode.
  const text = encodeText();
  setMode('decode');
  st.file = null;
  closeStorage();
  if ($('mode').value !== 'auto') { $('mode').value = 'auto'; st.modeByPage = false; }
  putText(text, 'text from encode mode');
  decodeInput();
});
// The error's place: a button (Enter and Space), and a click on the error itself.
$('enc-error').addEventListener('click', jumpToError);
$('enc-error-go').addEventListener('click', jumpToError);
$('enc-json').addEventListener('scroll', drawLines, { passive: true });
$('enc-nosize').addEventListener('change', runEncode);
$('enc-decode').addEventListener('click', () => {
  if (!st.encoded) return;
  const env = st.encEnv || {};
  st.file = null;
  closeStorage(); // the frame replaces storage files shown (a reading again of their records stops)
  putText(toHex(st.encoded), 'the encoded bytes\' hex');
  $('mode').value = 'hex';
  st.modeByPage = true;
  $('dir').value = env.direction === 'response' ? 'response' : 'request';
  $('api').value = env.direction === 'response' && st.byKey.has(env.apiKey) ? env.apiKey : 'auto';
  $('ver').value = env.direction === 'response' ? env.apiVersion : '';
  $('size').value = $('enc-nosize').checked ? 'no' : 'auto';
  setMode('decode');
  // The frame decoded from the JSON is the one encode mode's JSON stands
  // for: back in encode mode the JSON is left as the user wrote it.
  const gen = st.gen + 1; // the one decodeInput takes
  decodeInput().then(() => { if (gen === st.gen && st.panels[0].sum) st.encFrom = st.panels[0].sum; });
});
wirePayloads();
$('copy-hex').addEventListener('click', () => copy('hex'));
$('copy-b64').addEventListener('click', () => copy('base64'));
$('copy-json').addEventListener('click', () => copy('json'));
$('enc-copy-hex').addEventListener('click', () => encCopy('hex'));
$('enc-copy-b64').addEventListener('click', () => encCopy('base64'));
$('enc-copy-json').addEventListener('click', () => encCopy('json'));
const capFilter = () => { drawCapRows(); drawCapSummary(); };
for (const id of ['cap-api', 'cap-errors']) $(id).addEventListener('change', capFilter);
$('cap-client').addEventListener('input', debounce(capFilter, 100));

// Files: pick or drop.
let depth = 0;
document.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; $('drop').hidden = false; });
document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; $('drop').hidden = true; } });
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => {
  e.preventDefault(); depth = 0; $('drop').hidden = true;
  // A folder dropped is read through its entries (dataTransfer.files
  // lists it as a file of no bytes): taken now, while the drop lasts.
  const items = e.dataTransfer && e.dataTransfer.items ? [...e.dataTransfer.items] : [];
  const entries = items.filter((i) => i.kind === 'file' && i.webkitGetAsEntry).map((i) => i.webkitGetAsEntry()).filter(Boolean);
  if (entries.some((x) => x.isDirectory)) {
    status('Reading the folder…');
    filesOfEntries(entries).then(openDropped, (err) => status('The folder could not be read: ' + err.message));
    return;
  }
  openFiles(e.dataTransfer ? [...e.dataTransfer.files] : []);
});

// folder is the folder opened last ({groups, note, whole}; see
// folder.js), whose partitions the Partition select picks from.
let folder = null;

// openDropped opens folders dropped with files beside them: those files
// are read as they are when dropped alone, alongside the folders' (they
// were said left out, not being in a folder): schemas and TLS key logs
// are taken as such, Kafka's files (by name, or a segment's bytes) read
// with the folders', as a set of their own; a frame or capture is not
// shown with them (the page shows one thing at a time), which is said,
// unless the folders hold no Kafka file: it is shown then. Schema files
// inside the folders (a partition's folder holding orders-value.avsc)
// are taken as schemas too, as they would be dropped beside it, rather
// than left out as files not Kafka's; a folder opened with "Open
// folder…" comes here as well, with no files beside it.
async function openDropped({ files, left }) {
  const loose = files.filter((x) => !x.path.includes('/'));
  const inside = files.filter((x) => x.path.includes('/') && isSchemaName(x.file.name));
  const { rest, schemas, keyLogs, applied } = await setAside(loose.map((x) => x.file), inside.map((x) => x.file));
  files = files.filter((x) => !inside.includes(x));
  const notOpened = [], renamed = new Set();
  for (const f of rest) {
    if (isStorageName(f.name)) continue;
    if (await looksLikeSegment(f)) renamed.add(f); else notOpened.push(f);
  }
  const read = files.filter((x) => x.path.includes('/') || rest.includes(x.file))
    .filter((x) => !notOpened.includes(x.file))
    .map((x) => (renamed.has(x.file) ? { ...x, stored: true } : x));
  if (!partitions(read).groups.length && notOpened.length) { await applied(); await openFiles(notOpened); return; }
  // A schema inside a folder is named by its path (orders-0/7.avsc).
  const pathOf = new Map(inside.map((x) => [x.file, x.path]));
  const names = (fs) => fs.slice(0, 3).map((f) => pathOf.get(f) || f.name).join(', ') + (fs.length > 3 ? ' and ' + (fs.length - 3) + ' more' : '');
  const beside = [];
  // The records show at once, their keys and values as stored; once the
  // schemas apply (payload.wasm loads the first time: a second or two),
  // the records listed are read again with them (payloads.js, again). When
  // payload.wasm runs already, the schemas apply first, and the folder is
  // read once, with them.
  const first = schemas.length && st.payloads;
  if (first) await applied(false);
  if (schemas.length) beside.push('Schemas taken for the record payloads (the storage view\'s keys and values, and the frames and captures opened next): ' + names(schemas) + '.');
  if (keyLogs.length) beside.push('TLS key log kept for the captures opened next: ' + names(keyLogs) + '.');
  if (notOpened.length) beside.push('Not opened: ' + names(notOpened) + ', dropped beside the folder: a frame or capture is shown on its own, not with a folder\'s files; open ' + (notOpened.length === 1 ? 'it' : 'them') + ' by ' + (notOpened.length === 1 ? 'itself' : 'themselves') + '.');
  openFolder({ files: read, left }, beside.join(' '));
  if (!first) applied();
}

// openFolder opens a folder's files (read by filesOfEntries or
// filesOfInput), a partition's together as kwire log reads its directory;
// of a log.dirs folder's partitions the first is shown, the others
// listed to pick from. beside says what became of the files dropped
// beside the folder that are not read with it.
function openFolder({ files, left }, beside = '') {
  const { groups, others } = partitions(files);
  const out = [leftOut(left, others), beside].filter(Boolean).join(' ');
  if (!groups.length) {
    status((files.length ? 'No file in the folder is named as Kafka names its files' : 'The folder holds no file') + ' (a partition\'s folder holds segments, 00000000000000000000.log, and their indexes). ' + out);
    return;
  }
  newLink(); // a folder is a new place: Back returns from it
  const top = new Set(groups.filter((g) => g.dir).map((g) => g.dir.split('/')[0]));
  // The files dropped beside the folders are a set with no folder: named
  // so wherever a folder's set is named by its path (the picker, the
  // title, the status), beside however many folders were dropped.
  const dropped = new Set(files.filter((x) => x.path.includes('/')).map((x) => x.path.split('/')[0]));
  const besideName = 'files dropped beside the folder' + (Math.max(dropped.size, top.size) > 1 ? 's' : '');
  folder = { groups, out, whole: !left.overflow, top: [...top].join(', '), folders: top.size, beside: groups.some((g) => !g.dir), besideName };
  $('st-part').replaceChildren(...groups.map((g, i) => {
    const o = el('option', '', (g.dir || besideName) + ' (' + g.files.length + ' file' + (g.files.length === 1 ? '' : 's') + ')');
    o.value = String(i);
    return o;
  }));
  showPartition(firstShown(groups));
}

// showPartition opens the folder's group i: a partition's files, checked
// together (the log end too when the folder was read whole).
function showPartition(i) {
  const g = folder.groups[i];
  $('st-part').value = String(i);
  st.file = null; st.pasted = null;
  $('input').value = '';
  inputNote(g.dir ? g.dir + ' (a folder of Kafka storage files, read below); type or paste here to replace it'
    : 'the ' + folder.besideName + ' (Kafka storage files, read below); type or paste here to replace them');
  const n = folder.groups.length;
  const sets = folder.beside
    ? 'The folder' + (folder.folders > 1 ? 's ' : ' ') + folder.top + ' and the files dropped beside ' + (folder.folders > 1 ? 'them' : 'it') + ' hold ' + n + ' sets of Kafka files'
    : 'The folder' + (folder.folders > 1 ? 's ' + folder.top + ' hold ' : ' ' + folder.top + ' holds ') + n + ' folders of Kafka files';
  const note = (n > 1 ? sets + ', each checked on its own, as kwire log checks each partition directory: ' + (g.dir ? g.dir + ' is' : 'the ' + folder.besideName + ' are') +
    ' shown; pick another with Partition above. ' : '') + folder.out;
  const topic = topicOf(g.dir);
  $('st-topic').value = topic;
  openStorage(g.files, topic, ++st.gen, { dir: g.dir, name: g.dir || folder.besideName, whole: folder.whole && g.dir !== '', choices: n, note: note.trim() });
}

// openFiles opens what was picked or dropped: Kafka's storage files (by
// their names) together, else the first file as a frame or capture.
async function openFiles(fs) {
  if (!fs.length) return;
  newLink(); // a file is a new place: Back returns from it
  const { rest, schemas, keyLogs, applied } = await setAside(fs);
  fs = rest;
  if (!fs.length) {
    await applied();
    if (!keyLogs.length) return;
    if (st.capture && !st.capture.live) { await decodeInput(); return; }
    status('TLS key log ' + st.keyLog.name + ' kept: the captures opened next have their TLS connections decrypted with it.');
    return;
  }
  const stored = fs.filter((f) => isStorageName(f.name));
  // A segment renamed (orders-segment.log) is a segment by its bytes, as
  // kwire log reads it: it was decoded as a request.
  if (!stored.length && fs.length === 1 && await looksLikeSegment(fs[0])) stored.push(fs[0]);
  if (!stored.length) {
    closeStorage();
    await applied(); // the frame decodes once, with the schemas
    const gen = await openFile(fs[0]);
    // One frame or capture is shown at a time: the status names those left.
    if (fs.length > 1 && gen === st.gen) {
      const rest = fs.slice(1).map((f) => f.name);
      status($('status').textContent + ' — ' + fs.length + ' files given: only ' + fs[0].name + ' is shown (one frame or capture at a time); not opened: ' +
        rest.slice(0, 5).join(', ') + (rest.length > 5 ? ' and ' + (rest.length - 5) + ' more' : '') + '.');
    }
    return;
  }
  st.file = null; st.pasted = null;
  folder = null;
  $('input').value = '';
  inputNote(stored.map((f) => f.name).join(', ') + ' (Kafka storage files, read below); type or paste here to replace them');
  // The files themselves go to the worker, which reads them in slices: a
  // segment (1 GiB by Kafka's default) is never whole in memory. The
  // records show at once; their keys and values are read again once the
  // schemas apply, or, when payload.wasm runs already, with them, the
  // schemas applied first.
  const first = schemas.length && st.payloads;
  if (first) await applied(false);
  openStorage(stored.map((f) => ({ name: f.name, file: f })), topicTyped, ++st.gen);
  if (!first) applied();
}
// A fragment the page did not write: a link followed, or Back and Forward
// through the places the page pushed. Back to the page without one is the
// page as it opened: empty. It is taken at popstate, which comes as the
// browser goes to the entry, before any answer of the worker's for the
// entry left can write that entry's link over it (hashchange comes a task
// later: a frame's answer came between, once, and its link, written over
// the entry as it opened, then read as the page's own); hashchange, which
// comes after, finds the fragment taken.
const followed = () => {
  if (location.hash === st.lastHash) return;
  st.lastHash = location.hash;
  followLink();
};
window.addEventListener('popstate', followed);
window.addEventListener('hashchange', followed);

// setAside takes from the files given those that are no input: schema
// files (.avsc, .proto, ID.json, TOPIC-value.json) go to the record
// payloads' schemas, and TLS key logs (SSLKEYLOGFILE's lines) decrypt the
// captures opened, the next and those after it. It returns the rest and
// those taken, and applied, which applies the schemas taken (a promise;
// nothing to do when none were; applied(false) does not decode what is
// shown again, what is opened next being read with them): a frame waits
// for them, storage files are shown first, payload.wasm loading
// meanwhile, unless it runs already.
//
// schemasToo are schema files found with fs (inside a folder dropped):
// taken with its, and not looked at for a key log.
async function setAside(fs, schemasToo = []) {
  const schemas = [...fs.filter((f) => isSchemaName(f.name)), ...schemasToo];
  let applied = async () => {};
  if (schemas.length) {
    $('pay').open = true;
    fs = fs.filter((f) => !isSchemaName(f.name));
    await readSchemaFiles(schemas);
    let once = null;
    applied = (redraw = true) => (once ||= applySchemas(redraw));
  }
  const keyLogs = [];
  for (const f of fs) if (await isKeyLog(f)) keyLogs.push(f);
  if (keyLogs.length) {
    fs = fs.filter((f) => !keyLogs.includes(f));
    const parts = await Promise.all(keyLogs.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length + 1, 0));
    let at = 0;
    for (const p of parts) { bytes.set(p, at); at += p.length; bytes[at++] = 10; }
    st.keyLog = { name: keyLogs.map((f) => f.name).join(', '), bytes };
  }
  return { rest: fs, schemas, keyLogs, applied };
}

// isKeyLog says whether f is a TLS key log: a text whose first line that
// is not a comment is one of the NSS format's (LABEL, a 64-digit client
// random, a secret).
const KEYLOG_LINE = /^(CLIENT_RANDOM|CLIENT_HANDSHAKE_TRAFFIC_SECRET|SERVER_HANDSHAKE_TRAFFIC_SECRET|CLIENT_TRAFFIC_SECRET_0|SERVER_TRAFFIC_SECRET_0|EXPORTER_SECRET|CLIENT_EARLY_TRAFFIC_SECRET) [0-9a-fA-F]{64} [0-9a-fA-F]+\r?$/;
async function isKeyLog(f) {
  const head = await f.slice(0, 4096).text();
  const line = head.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'));
  return line !== undefined && KEYLOG_LINE.test(line);
}

async function openFile(f) {
  const bytes = new Uint8Array(await f.arrayBuffer());
  // Text files (hex, dumps, base64) go through the text box; binary stays binary.
  // Text saved as UTF-16 with a byte order mark (PowerShell's > writes
  // UTF-16LE) is text too, if it decodes to no control character.
  // A text of any size is text (tshark -x of a capture of a megabyte is
  // some 4 MiB of it); the scan stops at a binary file's first control
  // byte, which comes early.
  let text = null;
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) ? (bytes[0] === 0xff ? 'utf-16le' : 'utf-16be') : '';
  if (utf16 || !bytes.some((b) => b === 0 || (b < 9))) {
    try { text = new TextDecoder(utf16 || 'utf-8', { fatal: true }).decode(bytes); } catch { text = null; }
    if (utf16 && text !== null && /[\0-\x08\x0e-\x1f\x7f]/.test(text)) text = null;
  }
  ownMode();
  if (text !== null && !looksLikeCapture(bytes)) {
    st.file = null;
    putText(text, f.name);
  } else {
    st.file = { name: f.name, bytes }; st.pasted = null;
    $('input').value = '';
    inputNote(f.name + ' (' + bytes.length + ' bytes, binary); type or paste here to replace it');
  }
  const gen = st.gen + 1; // the one decodeInput takes
  await decodeInput();
  return gen;
}

const origReplace = history.replaceState.bind(history);
history.replaceState = (s, t, u) => { origReplace(s, t, u); st.lastHash = location.hash; };
const origPush = history.pushState.bind(history);
history.pushState = (s, t, u) => { origPush(s, t, u); st.lastHash = location.hash; };

st.apisReady = rpc('init').then((apis) => {
  st.apis = apis;
  for (const a of apis) {
    st.byKey.set(a.key, a);
    const o = el('option', '', a.key + ' ' + a.name);
    o.value = a.key;
    $('api').appendChild(o);
    $('ex-api').appendChild(o.cloneNode(true));
  }
  if (!$('ex-api').dataset.set) { $('ex-api').value = 18; $('ex-ver').value = 3; }
  st.ready = true;
  $('loading').hidden = true;
  document.body.dataset.ready = '1';
  if (/still loading/.test($('status').textContent)) status('The decoder is ready.');
}, (e) => {
  status('The playground failed to start: ' + e.message);
  $('loading-text').textContent = 'The decoder failed to load: ' + e.message;
});
drawExamples();
readLink().then((linked) => {
  if (!linked) status('Paste bytes above, pick an example, or open or drop files or folders.');
});

// The service worker's install fetches the core files, kwire.wasm again
// among them: registered once the decoder is ready (or has failed), it
// does not compete with the first load (a link's frame on screen 1.3-1.75
// -> 1.0-1.35 s from navigation: medians of 4 runs of 4 cold loads each,
// alternating, e2e/bench/warm.mjs; faster in 3 of the 4).
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  st.apisReady.finally(() => navigator.serviceWorker.register('sw.js').catch(() => {}));
}
