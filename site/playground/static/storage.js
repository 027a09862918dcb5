// Kafka's storage files (segments, indexes, snapshots, checkpoints; see
// wasm/storage): dropped or opened together, read by storage.wasm in the
// worker. A table of the segments' records (offset, timestamp, key, value,
// headers, producer, control markers), each file's problems flagged (an
// index or .txnindex entry that disagrees with its segment, a
// leader-epoch-checkpoint that disagrees with the batches, a CRC mismatch,
// a torn tail), and a record's key and value drawn as a byte grid and a tree, an
// internal topic's decoded through Kafka's schemas for it, an ordinary
// topic's, once the user gave schemas, through them (payload.wasm, called
// by storage.wasm in the worker: Avro, Protobuf, JSON Schema, the
// registry's framing), as kwire log --schemas reads them.
import { $, el, status, showError, mb, grouped } from './dom.js';
import { rpc, rpcProgress } from './rpc.js';
import { st } from './state.js';
import { drawGridRow } from './views.js';
import { leaveFrame } from './decode.js';
import { closeCapture, frameOptions, rowKeys } from './capture.js';
import { setLink } from './link.js';
import { afterListing, payloadTally } from './payloads.js';
import { INTERNAL } from './folder.js';
import { startRecords, startUpdate, updateRecords, endUpdate, stopRows, appendRecords, rowsMade, rowsDone, rowOf } from './strows.js';

// isStorageName says whether a file is named as Kafka names its files.
export function isStorageName(name) {
  return /^\d{20}\.(log|index|timeindex|txnindex|snapshot)(\.(deleted|cleaned|swap))?$/.test(name) ||
    /^\d{20}-\d{10}\.checkpoint(\.part|\.deleted)?$/.test(name) ||
    ['leader-epoch-checkpoint', 'recovery-point-offset-checkpoint', 'replication-offset-checkpoint', 'log-start-offset-checkpoint',
      'cleaner-offset-checkpoint', 'partition.metadata', 'meta.properties', 'quorum-state', 'bootstrap.checkpoint'].includes(name);
}

// crcTable is the table of the reflected CRC-32 of polynomial poly.
function crcTable(poly) {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
}
let crcTables = null;
function crc(t, b) {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = t[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// looksLikeSegment says whether a file not named as Kafka names its files
// is a segment by its bytes, as kwire log reads one: its first entry's
// head (a length no entry is shorter than, magic 0 to 2) and, when the
// entry is at most a MiB, the CRC of its bytes (CRC-32C for magic 2,
// CRC-32 before), which a frame's bytes do not have.
export async function looksLikeSegment(f) {
  const head = new Uint8Array(await f.slice(0, 17).arrayBuffer());
  if (head.length < 17) return false;
  const dv = new DataView(head.buffer);
  const length = dv.getInt32(8), magic = head[16];
  if (length < 14 || magic > 2) return false;
  if (length + 12 > f.size) return false; // cut short: no CRC to judge, and no batch either
  if (length + 12 > 1 << 20) return true;
  const b = new Uint8Array(await f.slice(0, 12 + length).arrayBuffer());
  crcTables = crcTables || { c: crcTable(0x82f63b78), ieee: crcTable(0xedb88320) };
  const v = new DataView(b.buffer);
  return magic === 2 ? b.length >= 21 && crc(crcTables.c, b.subarray(21)) === v.getUint32(17) : crc(crcTables.ieee, b.subarray(16)) === v.getUint32(12);
}

// rereading is the number of the reading again of the records listed
// (payloadsAgain) that may be running in the worker, 0 when none: closing
// the view stops it there. readings numbers them across every view
// opened, so a reading's answer clears rereading only while it is still
// its own: the answer of an earlier view's reading, coming once a later
// view's has begun, cleared it when each view counted its own (both were
// 1), and the view closed then left the later reading running.
let readings = 0, rereading = 0;

// closeStorage closes the storage view; the frame options, hidden while
// it was shown, show again (they stayed hidden until a frame decoded: a
// text that read as none could not be given its Input form).
export function closeStorage() {
  if (rereading) { rereading = 0; rpc('storageStop'); }
  stopRows();
  if (st.storage) frameOptions(true);
  st.storage = null;
  $('storage').hidden = true;
  drawWhere(null);
}

// drawWhere shows, for a folder's files (where: {dir, choices, note}),
// the folder they are and what else the folder held: the partition
// picker when it held several, and what was left out of it.
function drawWhere(where) {
  $('st-part-label').hidden = !where || where.choices < 2;
  $('st-folder').hidden = !where || !where.note;
  $('st-folder').textContent = where ? where.note : '';
}

// openStorage reads the files ([{name, file}], file a File) together;
// topic is the partition's topic ('' to let the module guess among the
// internal ones). where, for a folder's files, is {dir: the folder's
// path ('' for the files dropped beside the folders), name: what the
// title calls the set (its path, or what the files beside are), whole: the files are all of its (so its newest segment is among
// them and the leader-epoch-checkpoint is checked against the log end),
// choices: how many partitions the folder opened held, note: what to say
// of it}; null for files picked. The worker reads the files in slices: the records
// show as they are listed (their rows made a slice of time at a time:
// appendRecords), the status says how far the reading got, and the
// files' descriptions (their problems, index checks) and the rest of the
// records come at the end; the status says the files are read once every
// record listed has its row.
//
// keep, when a record's id, is the record to show again once listed (the
// files read again with the schemas given, when their records could not
// be: payloads.js, again).
export async function openStorage(files, topic, gen, where = null, keep = -1) {
  // What was shown goes at once: its rows name records of the files read
  // before, which the worker no longer keeps. listed settles once the
  // listing ended (payloadsAgain waits for it).
  const s = { files, topic, where, result: null, current: -1, drawn: 0, listed: null, again: 0 };
  let done;
  s.listed = new Promise((r) => { done = r; });
  try {
    await list(s, topic, gen, keep);
  } finally {
    done();
  }
}

async function list(s, topic, gen, keep) {
  const { files, where } = s;
  const what = (where && where.name ? where.name + ': ' : '') + files.length + ' storage file' + (files.length === 1 ? '' : 's');
  status('Reading ' + what + '…');
  setLink(null);
  closeCapture();
  frameOptions(false);
  leaveFrame();
  st.storage = s;
  drawWhere(where);
  $('st-topic').value = topic || '';
  $('st-title').textContent = what + ', reading…';
  $('st-files').replaceChildren();
  if (keep < 0) $('st-record').replaceChildren();
  startRecords();
  // pickFirst shows the record kept, once listed, else the first.
  const pickFirst = (recs, last) => {
    const k = keep >= 0 ? recs.find((r) => r.id === keep) : null;
    return k || keep < 0 || last ? pickRecord(k ? k.id : recs[0].id) : null;
  };
  let listed = 0, said = 0;
  const got = []; // the records reported, which the answer does not carry again (streamed)
  const progress = (p) => {
    if (gen !== st.gen) return;
    listed += p.records.length;
    for (const x of p.records) got.push(x);
    if (p.records.length) {
      $('storage').hidden = false; // the first records: the table shows while the rest is read
      appendRecords(p.records);
      s.drawn += p.records.length;
      if (s.current < 0) pickFirst(p.records, false);
    }
    // The status at most five times a second (each change lays the page
    // out), and at once for the first records.
    const now = performance.now();
    if (now - said < 200 && !(p.records.length && listed === p.records.length)) return;
    said = now;
    status('Reading ' + what + ': ' + mb(p.read) + ' of ' + mb(p.total) +
      (listed ? ', ' + grouped(listed) + ' record' + (listed === 1 ? '' : 's') + ' listed so far' : '') + '…');
  };
  const r = await rpcProgress('storage', progress, files.map((f) => f.name), files.map((f) => f.file), topic, !!(where && where.whole));
  if (gen !== st.gen) return;
  if (r.error) { closeStorage(); showError($('input-error'), 'These files could not be read: ' + r.error); return; }
  if (r.streamed) r.records = got;
  s.result = r;
  st.storage = s;
  const guess = r.guessed ? ' (guessed from the records: type or pick another above if it is wrong)' : '';
  $('st-title').textContent = what + ', ' + grouped(r.recordCount) + ' record' +
    (r.recordCount === 1 ? '' : 's') + (r.topic ? ', topic ' + r.topic + guess : '');
  drawFiles(r.files);
  if (s.drawn > r.records.length) { startRecords(); s.drawn = 0; } // (the module listed fewer than it reported: never so far)
  appendRecords(r.records.slice(s.drawn));
  s.drawn = r.records.length;
  $('storage').hidden = false;
  // The rows still to make are made while the page stays responsive; a
  // new listing meanwhile (other files, a topic typed) drops them.
  if (!(await rowsMade()) || gen !== st.gen) return;
  rowsListed(r, r.payloads);
  if (r.records.length && s.current < 0) await pickFirst(r.records, true);
}

// rowsListed says, once every row of r's records is made, that the
// listing is done: the count and the status; and, when its keys and
// values were read with the schemas given (payloads: true, or their
// tally counted as they came: payloadTally), how they read.
function rowsListed(r, payloads) {
  rowsDone();
  drawCount(r);
  status(readStatus(r));
  if (payloads) afterListing(r.records, r.topic, typeof payloads === 'object' ? payloads : null);
}

// drawCount says how many of the records are listed.
function drawCount(r) {
  $('st-count').textContent = r.recordCount > r.records.length
    ? 'showing the first ' + grouped(r.records.length) + ' of ' + grouped(r.recordCount) + ' (the rest are counted, not listed)'
    : '';
}

// readStatus is what the status says once the files are read, and, when
// the records' topic is not known (no partition folder named it, as a
// segment given alone: kwire log takes it from the folder's name too),
// that it is not: the schemas named by a topic apply once it is typed.
function readStatus(r) {
  const problems = r.files.reduce((n, f) => n + f.problems.length, 0);
  return (problems ? problems + ' problem' + (problems === 1 ? '' : 's') + ' found: see the flagged files.' : 'Read; no problem found.') +
    (!r.topic && r.recordCount ? " The records' topic is not known (no partition folder names it, as orders-0 names orders): type it in Topic above for the schemas named by it (orders-value.avsc, orders-key.proto) to apply." : '');
}

// payloadsAgain reads the keys and values of the records listed again
// with the schemas now given (the worker's storage module reads their
// batches again, not the files: a 1 GiB segment is not read a second
// time), after a listing under way has ended; then says how they read and
// draws the record shown again. It answers false when the
// records could not be read so (the caller reads the files again); true
// when done, or when nothing is to be done (an internal topic's records,
// read with Kafka's schemas; other files opened meanwhile).
//
// The records come back as the listing's came: in pieces of 500, a
// message each, and their rows are changed where they are, a slice of
// time at a time through the listing's queue (updateRecords: the cells
// the keys and values read set again by the row builder, recordRow's
// fillRow): the table is not begun again, so the scroll, the rows on
// screen, the row current and focused and the count stay as they were
// (begun again, the table went back to its top while the user was at row
// 12,000). What afterListing says of them is counted a piece at a time
// (payloadTally), so the task that ends the reading does not go over the
// 20,000 again. A reading begun while another runs (schemas given again)
// stops the other in the worker, between its pieces; so do other files
// opened, and the view closed (closeStorage).
export async function payloadsAgain() {
  const s = st.storage;
  if (!s) return true;
  const gen = st.gen;
  const token = ++s.again; // schemas given again meanwhile: the later reading draws
  await s.listed;
  const stale = () => gen !== st.gen || s !== st.storage || token !== s.again;
  if (stale()) return true;
  const r = s.result;
  if (!r) return false; // the listing failed
  if (INTERNAL.includes(r.topic)) { afterListing(r.records, r.topic); return true; }
  const n = r.records.length;
  const what = 'the keys and values of the ' + grouped(n) + ' record' + (n === 1 ? '' : 's') + ' listed again with the schemas';
  status('Reading ' + what + '…');
  const byID = new Map(r.records.map((x) => [x.id, x]));
  const tally = payloadTally();
  let said = 0, done = 0;
  startUpdate();
  // A piece: the records of ids p.from to p.to whose batches read again,
  // with their keys and values; the rows of all of those ids follow.
  const progress = (p) => {
    if (stale()) return;
    for (const x of p.records) {
      const rec = byID.get(x.id);
      if (!rec) continue;
      delete rec.keyPayload;
      delete rec.valuePayload;
      if (x.keyPayload) rec.keyPayload = x.keyPayload;
      if (x.valuePayload) rec.valuePayload = x.valuePayload;
    }
    const recs = r.records.slice(p.from, p.to);
    tally.add(recs);
    updateRecords(recs);
    done = p.to;
    const now = performance.now();
    if (now - said < 200 && p.read < p.total) return;
    said = now;
    status('Reading ' + what + ': ' + grouped(p.read) + ' of ' + grouped(p.total) + ' read…');
  };
  const mine = rereading = ++readings;
  let a;
  try {
    a = await rpcProgress('storagePayloads', progress, 0, n);
  } catch (e) {
    a = { error: e.message };
  } finally {
    if (rereading === mine) rereading = 0; // (else a later reading's runs on, of this view or another)
  }
  if (stale() || a.stopped) return true; // (stopped: by a later reading, or other files opened)
  if (a.error) return false;
  if (done < n) { const recs = r.records.slice(done); tally.add(recs); updateRecords(recs); } // (every piece came before the answer: never so far)
  if (!(await rowsMade()) || stale()) return true;
  endUpdate();
  rowsListed(r, tally);
  if (s.current >= 0) await pickRecord(s.current);
  return true;
}

function drawFiles(files) {
  const box = $('st-files');
  box.replaceChildren();
  for (const f of files) {
    const li = el('li', f.problems.length ? 'pg-st-bad' : '');
    li.appendChild(el('strong', '', f.name));
    const what = [f.kind, grouped(f.size) + ' bytes'];
    if (f.batches !== undefined) what.push(f.batches + ' batches');
    if (f.wrappers) what.push(f.wrappers + ' compressed wrapper' + (f.wrappers === 1 ? '' : 's') + ' (magic 0/1: its messages are the records)');
    if (f.entries !== undefined) what.push(grouped(f.entries) + (f.entries === 1 ? ' entry' : ' entries') + (f.unused ? ', ' + f.unused + ' unused (preallocated)' : '') + (f.unchecked ? ', no segment beside it to check against' : ''));
    // A leader-epoch-checkpoint is checked against the segments given with
    // it, as kwire log checks a partition directory's; a .txnindex against
    // its segment (unchecked, above, when that is not among the files).
    if (f.checkedAgainstSegments !== undefined) what.push(f.checkedAgainstSegments ? "checked against the segments' leader epochs" : 'no segment among the files to check it against');
    li.appendChild(el('span', 'pg-muted', ' ' + what.join(' · ')));
    if (f.problems.length) {
      li.appendChild(el('span', 'pg-st-flag', ' ⚠ ' + f.problems.length + ' problem' + (f.problems.length === 1 ? '' : 's')));
      const ul = el('ul', 'pg-st-problems');
      for (const p of f.problems.slice(0, 200)) ul.appendChild(el('li', '', p));
      li.appendChild(ul);
    }
    if (f.notes && f.notes.length) {
      // Said, not counted as a problem, as kwire log has them: zeros to
      // the end, space a broker preallocated.
      const ul = el('ul', 'pg-st-notes');
      for (const n of f.notes) ul.appendChild(el('li', 'pg-muted', n));
      li.appendChild(ul);
    }
    if (f.entryList && f.entryList.length) {
      // A checkpoint's entries are all it holds: they show at once, as
      // kwire log lists them; an index's wait behind their summary.
      const d = el('details');
      d.open = /checkpoint/.test(f.kind);
      d.appendChild(el('summary', '', f.entryList.length < f.entries ? 'entries (the first ' + grouped(f.entryList.length) + ')' : 'entries'));
      const t = el('table', 'pg-table pg-st-entries');
      const keys = Object.keys(f.entryList[0]).filter((k) => k !== 'problem');
      const head = el('tr');
      for (const k of [...keys, 'problem']) { const th = el('th', '', k); th.scope = 'col'; head.appendChild(th); }
      t.appendChild(el('thead')).appendChild(head);
      const body = t.appendChild(el('tbody'));
      for (const e of f.entryList) {
        const tr = el('tr', e.problem ? 'pg-st-bad' : '');
        for (const k of keys) tr.appendChild(el('td', '', String(e[k])));
        tr.appendChild(el('td', '', e.problem || ''));
        body.appendChild(tr);
      }
      d.appendChild(t);
      li.appendChild(d);
    }
    if (f.json) {
      // A box that scrolls takes the focus, so the keys can scroll it.
      const pre = el('pre', 'pg-st-text', f.json);
      pre.tabIndex = 0;
      pre.setAttribute('role', 'region');
      pre.setAttribute('aria-label', f.name + ' as text');
      li.appendChild(pre);
    }
    box.appendChild(li);
  }
}


// A click on a row draws its record (one listener for the rows made and
// those to come); the keys walk the records as they walk a capture's
// exchanges, across the table's bodies.
$('st-table').addEventListener('click', (e) => {
  const tr = e.target.closest('tr');
  if (tr && tr.parentNode.tagName === 'TBODY' && tr.dataset.record !== undefined) pickRecord(+tr.dataset.record);
});
rowKeys($('st-table'), (tr) => pickRecord(+tr.dataset.record));

// pickRecord draws record id's key and value.
export async function pickRecord(id) {
  const s = st.storage;
  if (!s) return;
  s.current = id;
  // The row marked current: the one of id alone (the rows made after it
  // are marked as they are made: recordRow), not each of the 20,000 rows
  // set again, in the task that ends a reading again among others.
  const t = $('st-table');
  for (const tr of t.querySelectorAll('tbody > tr[aria-current]')) if (+tr.dataset.record !== id) tr.removeAttribute('aria-current');
  const tr = rowOf(t, id);
  if (tr) tr.setAttribute('aria-current', '');
  const gen = st.gen;
  const r = await rpc('storageRecord', id);
  // (Another record picked meanwhile, as arrow keys held down do, draws instead.)
  if (gen !== st.gen || s !== st.storage || s.current !== id) return;
  const box = $('st-record');
  box.replaceChildren();
  if (r.error) { box.appendChild(el('p', 'pg-error', r.error)); return; }
  // What failed and why, as kwire log's "error" says it: the part's bytes
  // are in its grid below, what was read of it in its tree.
  if (r.internalError) box.appendChild(el('p', 'pg-error', 'Not decoded: ' + r.internalError));
  // What the payload decoders said of an ordinary topic's key and value
  // (payload.wasm, with the schemas given): why one did not decode.
  for (const p of r.parts) for (const w of p.warnings || []) box.appendChild(el('p', 'pg-error', 'The ' + p.name + ': ' + w));
  for (const p of r.parts) {
    const sec = el('section', 'pg-st-part');
    sec.appendChild(el('h3', '', p.name + (p.null ? ': null' : '')));
    if (!p.null) {
      const grid = el('div', 'kw-grid pg-st-grid');
      grid.setAttribute('role', 'grid');
      grid.setAttribute('aria-label', p.name + ' bytes');
      // The rows come whole: an elided cell's "show" has nothing more to fetch.
      const panel = { rpc: async () => p.rows.length, views: { ['grid' + p.buf]: { setCount() {}, update() {} } } };
      for (const row of p.rows) grid.appendChild(drawGridRow(panel, p.buf, row));
      sec.appendChild(grid);
      const tree = el('ul', 'pg-st-tree');
      tree.setAttribute('aria-label', p.name + ' tree');
      for (const n of p.tree) {
        const li = el('li');
        li.style.paddingLeft = (n.depth * 1.2) + 'em';
        li.appendChild(el('span', 'pg-st-name', n.name));
        li.appendChild(el('span', 'pg-muted', ' ' + n.type + ' [' + n.start + ', ' + n.end + ')'));
        if (n.value) li.appendChild(el('span', 'pg-st-val', ' = ' + n.value));
        if (n.warning) li.appendChild(el('span', 'pg-st-flag', ' ⚠ ' + n.warning));
        tree.appendChild(li);
      }
      sec.appendChild(tree);
    }
    box.appendChild(sec);
  }
  if (r.json) {
    // A box that scrolls takes the focus, so the keys can scroll it.
    const pre = box.appendChild(el('pre', 'pg-st-text', r.json));
    pre.tabIndex = 0;
    pre.setAttribute('role', 'region');
    pre.setAttribute('aria-label', 'record as JSON');
  }
}
