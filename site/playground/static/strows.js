// The storage view's records table (storage.js lists the records, this
// makes their rows): the rows made a slice of time at a time, in bodies
// skipped while off screen, and changed where they are when the records
// are read again with schemas.

import { $, el, shown, textWidth, grouped } from './dom.js';
import { st } from './state.js';
import { isTime, utcDate } from './views.js';
import { rovingStop } from './capture.js';

// parseExact parses JSON keeping integers past 2^53 exact: they come back
// as JSON.rawJSON values, which JSON.stringify writes as their digits.
function parseExact(s) {
  return JSON.parse(s, (k, v, ctx) =>
    (typeof v === 'number' && !Number.isSafeInteger(v) && ctx && /^-?\d+$/.test(ctx.source) ? JSON.rawJSON(ctx.source) : v));
}

const COLS = ['Offset', 'Timestamp', 'Key', 'Value', 'Headers', 'Producer', 'Marker'];

// The records table is laid out in chunks: a table's automatic layout
// fits its columns to every cell, and for the 20,000 rows listed cost
// Chromium 2.5 to 10 s of main-thread time, which content-visibility on a
// table's row groups does not skip (internal table boxes take no
// containment). So the table, its head and bodies are blocks, each row a
// grid whose columns (--st-cols) are as wide as the longest text of theirs
// listed, in columns (textWidth: an ideograph or an emoji two; cells are
// cut at 120 characters), and each body of CHUNK rows is skipped, layout
// and paint, while off screen (content-visibility: auto, its height
// guessed from its rows until drawn). The elements stay a table's (table,
// tbody, tr, td): find in page and the keys walk every row. Chromium
// leaves a body not drawn out of the accessibility tree, so the table
// says how many rows it has (aria-rowcount, the rows still to make
// counted) and each row its place (aria-rowindex, the head's row the
// first), as a table drawn in part does.
//
// The first body is on screen, so drawn whole, and its rows were laid out
// cold, 250 of them (400 to 1,000 ms on a loaded machine): the first slice
// of a listing makes FIRST_ROWS rows, a screenful and more, and the rows
// of the first body past them are each skipped while off screen
// (style.css), so the first rows on screen cost the layout of FIRST_ROWS.
const CHUNK = 250, FIRST_ROWS = 50;
let widths = [], listedRows = 0;

// The rows are made a slice of time (SLICE_MS) at a time, the page's
// other work let in between (input, painting, the worker's messages):
// the 20,000 rows listed, made in one go, held the main thread 0.7 to
// 2.3 s. queue[at:] are the records waiting for their rows; epoch counts
// the listings, so that a slice of an earlier one, due after startRecords
// or closeStorage, stops rather than mix its rows into the new table.
//
// The same queue changes rows made already, where they are, for their
// records read again (updateRecords: payloadsAgain): updates[up:] are
// those records, done before the rows still to make. fresh is the
// columns' widths of the rows changed so far (startUpdate), which the
// columns take once every row is changed (endUpdate): a column as wide
// as the base64 a value was before it decoded would stay so.
const SLICE_MS = 10;
let queue = [], at = 0, epoch = 0, making = false, waiting = [], saidAt = 0, counting = false;
let updates = [], up = 0, fresh = null, changed = 0, rowByID = null;

// startRecords empties the records table.
export function startRecords() {
  stopRows();
  const t = $('st-table');
  const head = t.tHead.rows[0];
  head.replaceChildren(...COLS.map((c) => { const th = el('th', '', c); th.scope = 'col'; return th; }));
  head.setAttribute('aria-rowindex', 1);
  for (const b of [...t.tBodies]) b.remove();
  widths = COLS.map((c) => c.length);
  listedRows = 0;
  t.setAttribute('aria-rowcount', 1);
  t.style.setProperty('--st-cols', widths.map((w) => w + 2 + 'ch').join(' '));
  $('st-count').textContent = '';
}

// startUpdate begins changing the rows made for their records read
// again: the changes of an earlier reading still waiting are dropped.
export function startUpdate() {
  updates = [];
  up = 0;
  fresh = COLS.map((c) => c.length);
  changed = 0;
  rowByID = null;
}

// updateRecords changes the rows of recs (records whose rows are made)
// to what they hold now: the first slice of them at once, the rest in
// the tasks after, as appendRecords adds rows.
export function updateRecords(recs) {
  if (!recs.length) return;
  updates = up < updates.length ? updates.slice(up).concat(recs) : recs;
  up = 0;
  if (!making) makeRows(epoch);
}

// endUpdate gives the columns the widths of the rows changed, once every
// row is (they only grew meanwhile, so no cell changed was cut).
export function endUpdate() {
  if (fresh && changed >= listedRows && widths.join(' ') !== fresh.join(' ')) {
    widths = fresh;
    $('st-table').style.setProperty('--st-cols', widths.map((w) => w + 2 + 'ch').join(' '));
  }
  fresh = null;
}

// stopRows drops the records still waiting for their rows.
export function stopRows() {
  epoch++;
  queue = [];
  at = 0;
  updates = [];
  up = 0;
  fresh = null;
  rowByID = null;
  making = false;
  rowsDone();
  for (const w of waiting.splice(0)) w(false);
}

// appendRecords adds rows for recs to the records table: the first slice
// of them at once, the rest in the tasks after.
export function appendRecords(recs) {
  if (!recs.length) return;
  queue = at < queue.length ? queue.slice(at).concat(recs) : recs;
  at = 0;
  if (!making) makeRows(epoch);
}

// rowsMade answers once every record appended has its row: true, or
// false when they were dropped (another listing began).
export function rowsMade() {
  return making ? new Promise((r) => waiting.push(r)) : Promise.resolve(true);
}

// nextTask lets the page's other work run: scheduler.yield where there is
// one (its continuation first in line after it), else a task.
const nextTask = () => (globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise((r) => setTimeout(r, 0)));

async function makeRows(my) {
  making = true;
  const t = $('st-table');
  for (;;) {
    makeSlice(t);
    if (up >= updates.length && at >= queue.length) break;
    // The rows still to make or change: the table busy until rowsDone;
    // the rows still to make said, at most twice a second (the count is a
    // live region). (Rows changed leave the count as it was: they are
    // all there.)
    t.setAttribute('aria-busy', 'true');
    const now = performance.now();
    if (at < queue.length && now - saidAt >= 500) {
      saidAt = now;
      counting = true;
      $('st-count').textContent = 'listing ' + grouped(listedRows) + ' of ' + grouped(listedRows + queue.length - at) + ' rows…';
    }
    await nextTask();
    if (my !== epoch) return;
  }
  queue = [];
  at = 0;
  updates = [];
  up = 0;
  making = false;
  for (const w of waiting.splice(0)) w(true);
}

// rowsDone says the listing's rows are all made: the table no longer busy,
// the count's words gone. (Not when the queue empties: records still being
// read come after, and the count would come and go.)
export function rowsDone() {
  saidAt = 0;
  if ($('st-table').hasAttribute('aria-busy')) {
    $('st-table').removeAttribute('aria-busy');
    if (counting) $('st-count').textContent = '';
  }
  counting = false;
}

// makeSlice changes the rows of updates[up:], then makes the rows of
// queue[at:], for SLICE_MS.
function makeSlice(t) {
  const end = performance.now() + SLICE_MS;
  const was = widths.join(' ');
  for (let n = 1; up < updates.length; n++) {
    const r = updates[up++];
    const tr = rowOf(t, r.id, true);
    if (tr) { fillRow(tr, r); changed++; }
    if (n % 16 === 0 && performance.now() >= end) break;
  }
  if (up < updates.length) {
    const now = widths.join(' ');
    if (now !== was) t.style.setProperty('--st-cols', widths.map((w) => w + 2 + 'ch').join(' '));
    return;
  }
  const current = st.storage ? st.storage.current : -1;
  let body = t.tBodies[t.tBodies.length - 1];
  let rows = document.createDocumentFragment();
  let room = body ? CHUNK - body.rows.length : 0;
  const first = listedRows < FIRST_ROWS; // a listing's first rows: FIRST_ROWS of them, on screen at once
  // flush puts the rows made into body, and starts a body when it is full.
  const flush = () => {
    if (body) { body.appendChild(rows); body.style.setProperty('--rows', body.rows.length); }
    rows = document.createDocumentFragment();
  };
  for (let n = 1; at < queue.length; n++) {
    const r = queue[at++];
    if (room <= 0) {
      flush();
      body = t.appendChild(el('tbody', 'pg-st-chunk'));
      room = CHUNK;
    }
    room--;
    rows.appendChild(recordRow(r, current));
    if (first && listedRows >= FIRST_ROWS) break;
    if (n % 16 === 0 && performance.now() >= end) break;
  }
  flush();
  t.setAttribute('aria-rowcount', listedRows + queue.length - at + 1);
  const now = widths.join(' ');
  if (now !== was) t.style.setProperty('--st-cols', widths.map((w) => w + 2 + 'ch').join(' '));
  rovingStop(t);
}

// rowOf is the row of record id, if made: the id-th row (the records'
// ids are their places in the listing), else found by its data-record
// (in a map of the rows, kept while rows are changed: byID).
export function rowOf(t, id, byID = false) {
  const b = t.tBodies[Math.floor(id / CHUNK)], tr = b && b.rows[id % CHUNK];
  if (tr && +tr.dataset.record === id) return tr;
  if (!byID) return t.querySelector('tbody > tr[data-record="' + id + '"]');
  if (!rowByID) rowByID = new Map([...t.querySelectorAll('tbody > tr')].map((x) => [+x.dataset.record, x]));
  return rowByID.get(id);
}

// recordRow is record r's row (current: the id of the record shown,
// marked current when its row comes after it was picked).
function recordRow(r, current) {
  const tr = document.createElement('tr');
  tr.dataset.record = r.id;
  tr.tabIndex = -1; // one row is the table's tab stop (rowKeys)
  tr.setAttribute('aria-rowindex', ++listedRows + 1);
  if (r.id === current) tr.setAttribute('aria-current', '');
  for (let i = 0; i < COLS.length; i++) tr.appendChild(document.createElement('td'));
  fillRow(tr, r);
  return tr;
}

// fillRow sets what record r's row tr shows of it: its cells' text, its
// label, and its flag when a part did not decode; for a row made, and
// again for its record read again (payloadsAgain), a cell's text set
// only when it changed. The columns grow to fit the text (widths, and
// fresh while rows are changed).
function fillRow(tr, r) {
  let label = 'Record at offset ' + r.offset + (r.marker ? ', ' + r.marker : '') + (r.internalError ? ', not decoded: ' + r.internalError : '');
  let title = r.internalError ? 'Not decoded: ' + r.internalError : '';
  const internal = r.internal ? parseExact(r.internal) : null;
  let key = r.key, value = r.value;
  // An ordinary topic's key and value read with the schemas given
  // (payload.wasm): decoded, in the frames' JSON form, or why not.
  const notRead = [];
  [key, value] = [['key', r.key, r.keyPayload], ['value', r.value, r.valuePayload]].map(([part, stored, p]) => {
    if (!p) return stored;
    if (p.decoded !== undefined && p.format !== 'json') return p.decoded;
    if (p.decoded === undefined && p.warnings && p.warnings.length) {
      notRead.push(part + ': ' + p.warnings[0]);
      return '⚠ not decoded: ' + p.warnings[0] + ' — ' + stored;
    }
    return stored;
  });
  if (notRead.length) {
    title = 'Not decoded: ' + notRead.join('; ');
    label += ', not decoded: ' + notRead.join('; ');
  }
  tr.classList.toggle('pg-st-bad', !!(r.internalError || notRead.length));
  if (title) tr.title = title;
  else if (tr.hasAttribute('title')) tr.removeAttribute('title');
  tr.setAttribute('aria-label', label);
  if (internal) {
    // A part read by its schema shows decoded; one that was not (its
    // reading failed, or the other part's did first: "keyBytes",
    // "valueBytes" or no member at all) shows its bytes, text or
    // base64, flagged, as kwire log writes them beside its "error".
    if ('key' in internal) key = JSON.stringify(internal.key);
    else if (r.key !== null && internal.error && internal.error.part === 'key') key = '⚠ not decoded: ' + r.key;
    if ('value' in internal) value = internal.value === null ? 'null (tombstone)' : JSON.stringify(internal.value);
    else if (r.value !== null) value = '⚠ not decoded: ' + r.value;
  }
  const ts = isTime('timestamp', r.timestamp) ? r.timestamp + ' (' + utcDate(r.timestamp) + ')' : String(r.timestamp);
  const cells = [r.offset, ts, key ?? 'null', value ?? 'null',
    r.headers.map((h) => (h[0] ?? 'null') + '=' + (h[1] ?? 'null')).join(', '),
    r.producerId >= 0 ? r.producerId + (r.transactional ? ' (transactional)' : '') : '', r.marker || ''];
  for (let i = 0; i < cells.length; i++) {
    // The text as it shows (invisible characters escaped), so the column
    // is as wide as what is drawn. Decoded bytes are text, never markup.
    const s = shown(cut(String(cells[i]), 120));
    const w = textWidth(s);
    if (w > widths[i]) widths[i] = w;
    if (fresh && w > fresh[i]) fresh[i] = w;
    const td = tr.cells[i];
    if (td.textContent !== s) td.textContent = s;
  }
}

// cut is s cut to n UTF-16 units and an ellipsis when longer, never
// between a surrogate pair's halves.
function cut(s, n) {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c < 0xdc00 ? n - 1 : n) + '…';
}
