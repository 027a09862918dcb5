// The playground page. All decoding happens in worker.js (WebAssembly);
// this file draws what the worker answers, a window at a time, and keeps
// the views in step. Text that came from a frame is only ever set with
// textContent or as an attribute value, never parsed as HTML.
'use strict';

(() => {
const $ = (id) => document.getElementById(id);
const LINK_MAX = 32 << 10; // bytes kept in a permalink
const GRID_ROW = 36, LINE = 22;

// ---- the worker ----
const worker = new Worker('worker.js');
let nextID = 1;
const pending = new Map();
worker.onmessage = (e) => {
  const p = pending.get(e.data.id);
  if (!p) return;
  pending.delete(e.data.id);
  if (e.data.error !== undefined) p.reject(new Error(e.data.error)); else p.resolve(e.data.result);
};
function rpc(op, ...args) {
  return new Promise((resolve, reject) => {
    const id = nextID++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}

// ---- state ----
const st = {
  apis: [], byKey: new Map(),
  file: null,          // {name, bytes} of an opened binary file
  capture: null,       // {summary, frames, current}
  bytes: null,         // the frame being decoded
  sum: null,           // the decode summary
  gen: 0,              // decode generation, to drop stale answers
  hl: null, sel: null, // {buf, start, end, node}
  views: {},
  linkNote: '',
};
window.kwirePlayground = st; // for tests and the curious

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const hex2 = (b) => (b < 16 ? '0' : '') + b.toString(16);
const toHex = (bytes) => Array.from(bytes, hex2).join('');
function toB64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
function debounce(fn, ms) {
  let t = 0;
  const f = (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  f.cancel = () => clearTimeout(t);
  return f;
}

// ---- virtual lists: only the rows in view exist in the DOM ----
class Virtual {
  constructor(box, rowH, fetch, draw, top) {
    this.box = box; this.rowH = rowH; this.fetch = fetch; this.draw = draw; this.top = top || 0;
    this.count = 0; this.items = new Map(); this.req = 0;
    this.spacer = box.querySelector('.pg-spacer') || box.appendChild(el('div', 'pg-spacer'));
    box.addEventListener('scroll', () => this.update(), { passive: true });
  }
  setCount(n) {
    this.count = n;
    this.spacer.style.height = (this.top + n * this.rowH) + 'px';
  }
  range() {
    const h = this.box.clientHeight || 600;
    const from = Math.max(0, Math.floor((this.box.scrollTop - this.top) / this.rowH) - 5);
    return [from, Math.min(this.count - from, Math.ceil(h / this.rowH) + 10)];
  }
  async update(force) {
    const [from, n] = this.range();
    if (!force && from === this.from && n === this.n) return;
    this.from = from; this.n = n;
    const req = ++this.req;
    const items = n > 0 ? await this.fetch(from, n) : [];
    if (req !== this.req) return;
    for (const e of this.items.values()) e.remove();
    this.items.clear();
    items.forEach((it, i) => {
      const e = this.draw(it, from + i);
      e.style.top = (this.top + (from + i) * this.rowH) + 'px';
      this.items.set(from + i, e);
      this.box.appendChild(e);
    });
    paintAll();
  }
  scrollTo(i) {
    const y = this.top + i * this.rowH;
    if (y < this.box.scrollTop + this.top || y + this.rowH > this.box.scrollTop + this.box.clientHeight) {
      this.box.scrollTop = Math.max(0, y - this.box.clientHeight / 3);
    }
    return this.update(true);
  }
  clear() {
    for (const e of this.items.values()) e.remove();
    this.items.clear(); this.from = this.n = -1; this.req++;
    this.setCount(0);
  }
}

// ---- drawing ----
function within(a, b) { // span a inside span b
  return a && b && a.buf === b.buf && a.start >= b.start && a.end <= b.end && a.end > a.start;
}
function overlaps(buf, start, end, s) {
  return s && s.buf === buf && start < s.end && end > s.start;
}

function drawGridRow(buf, r) {
  const row = el('div', 'kw-row');
  row.dataset.row = r.index;
  if (r.elided) {
    row.classList.add('kw-elided');
    row.appendChild(el('span', 'kw-off'));
    const m = el('span', 'kw-cell kw-more', '… ' + r.elided + ' more bytes of ' + r.cell.label + ' … (click to show)');
    m.style.gridColumn = '2 / span 32';
    m.dataset.node = r.cell.node; m.dataset.start = r.cell.start; m.dataset.end = r.cell.end; m.dataset.buf = buf;
    m.addEventListener('click', async (e) => {
      e.stopPropagation();
      const n = await rpc('expandCell', buf, r.cell.index);
      const v = st.views['grid' + buf];
      v.setCount(n); v.update(true);
    });
    row.appendChild(m);
    return row;
  }
  row.appendChild(el('span', 'kw-off', r.offset.toString(16).padStart(4, '0')));
  for (const s of r.segs) {
    const c = s.cell;
    const e = el('span', 'kw-cell kw-' + c.kind);
    if (!s.first) e.classList.add('kw-cont');
    if (!s.last) e.classList.add('kw-open');
    if (c.warn) e.classList.add('kw-warn');
    if (c.broken) e.classList.add('kw-broken');
    e.style.gridColumn = (2 + s.col * 8) + ' / span ' + (s.span * 8);
    e.dataset.node = c.node; e.dataset.start = c.start; e.dataset.end = c.end; e.dataset.buf = buf; e.dataset.cell = c.index;
    e.title = c.path + ' (' + c.type + ') [' + c.start + ', ' + c.end + ')' + (c.value !== undefined ? ' = ' + c.value : '');
    e.appendChild(el('span', 'kw-label', c.label));
    if (c.bits && s.first && s.last) e.appendChild(drawBits(c));
    else if (c.value !== undefined && s.first) e.appendChild(el('span', 'kw-val', c.value));
    row.appendChild(e);
  }
  return row;
}

// drawBits shows the bit fields of an attributes cell on the bit ruler:
// bit 0 is the least significant, so it sits in the rightmost column.
function drawBits(c) {
  const w = (c.end - c.start) * 8;
  const box = el('span', 'pg-bits');
  box.style.gridTemplateColumns = 'repeat(' + w + ', 1fr)';
  for (const b of c.bits) {
    const m = /^bits? (\d+)(?:-(\d+))?$/.exec(b.type);
    if (!m) continue;
    const lo = +m[1], hi = m[2] === undefined ? lo : +m[2];
    if (hi >= w) continue;
    const f = el('span', 'pg-bit' + (b.value !== '0' && b.value !== 'false' ? ' pg-bit-set' : ''), b.name + '=' + b.value);
    f.style.gridColumn = (w - hi) + ' / ' + (w - lo + 1);
    f.title = b.name + ' (' + b.type + ') = ' + b.value;
    box.appendChild(f);
  }
  return box;
}

function isTime(name, v) {
  return /(timestamp|timems|time)$/i.test(name) && !/delta/i.test(name) && Number(v) >= 1e11 && Number(v) < 1e14;
}
function showValue(n) {
  if (n.null) return 'null';
  if (n.value === undefined) return n.size !== undefined ? n.size + ' bytes' : '';
  if (typeof n.value === 'string' && /string/.test(n.type)) {
    const s = n.value.length > 200 ? n.value.slice(0, 200) + '…' : n.value;
    return JSON.stringify(s);
  }
  const v = String(n.value);
  return v.length > 200 ? v.slice(0, 200) + '…' : v;
}

// flatNode turns a tree row from the worker ({id, depth, kids, open,
// label, node: the annotated node}) into what the views use.
function flatNode(r) {
  const n = r.node;
  return {
    id: r.id, depth: r.depth, kids: r.kids, open: r.open, hasKids: r.kids > 0,
    name: r.label || n.name, type: n.type, start: n.start, end: n.end, buf: n.buf || 0,
    value: n.value, valueName: n.valueName, null: !!n.null, size: n.size,
    warnings: n.warnings || null, broken: !!n.broken, truncated: !!n.truncated,
  };
}

function drawTreeRow(row) {
  const n = flatNode(row);
  const r = el('div', 'pg-row');
  r.setAttribute('role', 'treeitem');
  r.setAttribute('aria-level', n.depth + 1);
  if (n.hasKids) r.setAttribute('aria-expanded', n.open);
  r.dataset.node = n.id; r.dataset.start = n.start; r.dataset.end = n.end; r.dataset.buf = n.buf;
  r.style.paddingLeft = (0.3 + n.depth * 1.1) + 'em';
  if (n.broken) r.classList.add('pg-broken');
  const t = el('span', 'pg-tog', n.hasKids ? (n.open ? '▾' : '▸') : ' ');
  t.addEventListener('click', (e) => { e.stopPropagation(); toggle(n.id); });
  r.appendChild(t);
  r.appendChild(el('span', 'pg-name', n.name));
  r.appendChild(el('span', 'pg-type', ' ' + n.type));
  const v = showValue(n);
  if (v) {
    r.appendChild(document.createTextNode(' = '));
    r.appendChild(el('span', 'pg-val', v));
  }
  if (n.valueName) r.appendChild(el('span', 'pg-vname', ' ' + n.valueName));
  if (n.value !== undefined && isTime(n.name, n.value)) {
    const d = new Date(Number(n.value));
    if (!isNaN(d)) r.appendChild(el('span', 'pg-vname', ' ' + d.toISOString()));
  }
  if (n.hasKids && !n.open) r.appendChild(el('span', 'pg-type', ' {' + n.kids + '}'));
  r.appendChild(el('span', 'pg-range', '  [' + n.start + ', ' + n.end + ')' + (n.buf ? ' buf ' + n.buf : '')));
  if (n.warnings) {
    const w = el('span', 'pg-wmark', ' ⚠ ' + n.warnings.join('; '));
    r.appendChild(w);
  }
  r.title = n.name + ' ' + n.type + ' [' + n.start + ', ' + n.end + ')';
  return r;
}

function drawHexLine(buf, line) {
  const r = el('div', 'pg-row');
  r.appendChild(el('span', 'pg-off', line.offset.toString(16).padStart(6, '0')));
  let ascii = '';
  line.bytes.forEach((b, i) => {
    const s = el('span', 'pg-byte', hex2(b));
    s.dataset.off = line.offset + i; s.dataset.buf = buf;
    r.appendChild(s);
    ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
  });
  r.appendChild(el('span', 'pg-ascii', ascii));
  return r;
}

// paintAll marks, in every view, what the hovered and the selected span cover.
function paintAll() {
  const hl = st.hl, sel = st.sel, err = st.sum && st.sum.error;
  for (const c of document.querySelectorAll('#grids .kw-cell[data-buf]')) {
    const s = { buf: +c.dataset.buf, start: +c.dataset.start, end: +c.dataset.end };
    c.classList.toggle('kw-hl', within(s, hl));
    c.classList.toggle('kw-sel', within(s, sel));
    c.classList.toggle('kw-errat', !!(err && err.offset >= 0 && s.buf === (err.buf || 0) && err.offset >= s.start && err.offset < s.end));
  }
  for (const r of document.querySelectorAll('#tree .pg-row')) {
    const id = +r.dataset.node;
    r.classList.toggle('pg-hl', !!hl && (hl.node === id));
    r.classList.toggle('pg-sel', !!sel && sel.node === id);
  }
  for (const b of document.querySelectorAll('#hex .pg-byte')) {
    const o = +b.dataset.off, buf = +b.dataset.buf;
    b.classList.toggle('pg-hl', overlaps(buf, o, o + 1, hl));
    b.classList.toggle('pg-sel', overlaps(buf, o, o + 1, sel));
    b.classList.toggle('pg-err', !!(err && err.offset === o && (err.buf || 0) === buf));
  }
}

function spanOf(e) {
  if (e.dataset.off !== undefined) return null;
  return { buf: +e.dataset.buf, start: +e.dataset.start, end: +e.dataset.end, node: +e.dataset.node };
}

async function spanAtByte(buf, off) {
  const n = await rpc('cellAt', buf, off);
  return n;
}

function hover(span) {
  const same = (a, b) => (a === b) || (a && b && a.buf === b.buf && a.start === b.start && a.end === b.end && a.node === b.node);
  if (same(span, st.hl)) return;
  st.hl = span;
  paintAll();
}

async function select(span, from) {
  if (!span) return;
  st.sel = span;
  paintAll();
  const bar = $('selbar');
  bar.hidden = false;
  const path = span.node >= 0 ? await rpc('path', span.node) : '';
  $('sel-desc').textContent = (path || 'bytes') + '  [' + span.start + ', ' + span.end + ')' + (span.buf ? ' in buffer ' + span.buf : '') + '  ' + (span.end - span.start) + ' bytes';
  if (span.node >= 0) {
    const r = await rpc('reveal', span.node);
    const tv = st.views.tree;
    tv.setCount(r.treeRows);
    if (from !== 'tree') await tv.scrollTo(r.treeIndex); else tv.update(true);
  }
  if (from !== 'grid' && st.views['grid' + span.buf]) {
    const rr = await rpc('rowOf', span.buf, span.start);
    st.views['grid' + span.buf].scrollTo(rr);
  }
  if (from !== 'hex') {
    if (+$('hex-buf').value !== span.buf) { $('hex-buf').value = span.buf; showHex(span.buf); }
    st.views.hex.scrollTo(Math.floor(span.start / 16));
  }
}

function wireHover(box, from) {
  box.addEventListener('mouseover', async (e) => {
    const t = e.target.closest('[data-buf]');
    if (!t) return;
    if (t.dataset.off !== undefined) {
      const s = await spanAtByte(+t.dataset.buf, +t.dataset.off);
      hover(s || { buf: +t.dataset.buf, start: +t.dataset.off, end: +t.dataset.off + 1, node: -1 });
    } else hover(spanOf(t));
  });
  box.addEventListener('mouseleave', () => hover(null));
  box.addEventListener('click', async (e) => {
    if (e.target.closest('.pg-tog') || e.target.closest('.kw-more')) return;
    const t = e.target.closest('[data-buf]');
    if (!t) return;
    if (t.dataset.off !== undefined) {
      const s = await spanAtByte(+t.dataset.buf, +t.dataset.off);
      select(s || { buf: +t.dataset.buf, start: +t.dataset.off, end: +t.dataset.off + 1, node: -1 }, from);
    } else select(spanOf(t), from);
  });
}

async function toggle(id, open) {
  const n = await rpc('setOpen', id, open);
  st.views.tree.setCount(n);
  st.views.tree.update(true);
}

// ---- the views for a decoded frame ----
function buildViews(sum) {
  const grids = $('grids');
  grids.replaceChildren();
  for (const k of Object.keys(st.views)) if (k.startsWith('grid')) delete st.views[k];
  for (const b of sum.buffers) if (b.from) b.from = flatNode(b.from);
  for (const b of sum.buffers) {
    const wrap = el('div', b.buf ? 'pg-derived' : 'pg-main');
    if (b.buf) {
      const h = el('h3');
      h.appendChild(document.createTextNode('Derived buffer ' + b.buf + ' (' + b.len + ' bytes, decompressed) from '));
      const a = el('a', '', b.from ? b.from.name + ' [' + b.from.start + ', ' + b.from.end + ')' + (b.from.buf ? ' of buffer ' + b.from.buf : '') : 'a batch');
      a.tabIndex = 0;
      if (b.from) a.addEventListener('click', () => select({ buf: b.from.buf, start: b.from.start, end: b.from.end, node: b.from.id }));
      h.appendChild(a);
      wrap.appendChild(h);
    }
    const box = el('div', 'pg-scroll pg-gridbox kw-grid');
    box.dataset.buf = b.buf;
    box.tabIndex = 0;
    box.setAttribute('role', 'grid');
    box.setAttribute('aria-label', b.buf ? 'derived buffer ' + b.buf : 'byte grid');
    const ruler = el('div', 'kw-ruler');
    ruler.setAttribute('aria-hidden', 'true');
    ruler.appendChild(el('span', 'kw-off'));
    for (let i = 0; i < 32; i++) ruler.appendChild(el('span', '', String(i % 10)));
    box.appendChild(ruler);
    box.appendChild(el('div', 'pg-spacer'));
    wrap.appendChild(box);
    grids.appendChild(wrap);
    const v = new Virtual(box, GRID_ROW, (from, n) => rpc('gridRows', b.buf, from, n), (r) => drawGridRow(b.buf, r), 18);
    v.setCount(b.rows);
    st.views['grid' + b.buf] = v;
    wireHover(box, 'grid');
    box.addEventListener('keydown', (e) => gridKey(e, b.buf));
  }
  st.views.tree.clear(); st.views.tree.setCount(sum.treeRows);
  st.views.json.clear();
  const hb = $('hex-buf');
  hb.replaceChildren();
  for (const b of sum.buffers) {
    const o = el('option', '', b.buf ? 'buffer ' + b.buf + ' (decompressed)' : 'input');
    o.value = b.buf;
    hb.appendChild(o);
  }
  $('views').hidden = false;
  showHex(0);
  for (const k of Object.keys(st.views)) if (k !== 'json') st.views[k].update(true);
  // The value JSON is written after the first screen is up.
  setTimeout(async () => {
    if (st.sum !== sum) return;
    const n = await rpc('jsonCount');
    if (st.sum !== sum) return;
    sum.jsonLines = n;
    st.views.json.setCount(n);
    st.views.json.update(true);
  }, 0);
}

function showHex(buf) {
  const b = st.sum.buffers.find((x) => x.buf === buf) || { len: 0 };
  const v = st.views.hex;
  v.buf = buf;
  v.clear();
  v.setCount(Math.ceil(b.len / 16));
  v.update(true);
}

async function gridKey(e, buf) {
  const sel = st.sel;
  if (!['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp', 'Enter'].includes(e.key)) return;
  e.preventDefault();
  if (e.key === 'Enter') { if (sel && sel.node >= 0) toggle(sel.node, true); return; }
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 4, ArrowUp: -4 }[e.key];
  const off = sel && sel.buf === buf ? (step > 0 ? sel.end - 1 : sel.start) : 0;
  const s = await rpc('cellAt', buf, Math.max(0, off + (sel && sel.buf === buf ? step : 0)));
  if (s) select(s, 'keys');
}

async function treeKey(e) {
  const keys = ['ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft', 'Enter', 'Home', 'End'];
  if (!keys.includes(e.key)) return;
  e.preventDefault();
  const tv = st.views.tree;
  let idx = 0, node = null;
  if (st.sel && st.sel.node >= 0) {
    const r = await rpc('reveal', st.sel.node);
    idx = r.treeIndex; node = flatNode(r.node);
  }
  switch (e.key) {
    case 'ArrowDown': idx = node ? Math.min(tv.count - 1, idx + 1) : 0; break;
    case 'ArrowUp': idx = Math.max(0, idx - 1); break;
    case 'Home': idx = 0; break;
    case 'End': idx = tv.count - 1; break;
    case 'ArrowRight': case 'Enter':
      if (node && node.hasKids && !node.open) { await toggle(node.id, true); return; }
      if (e.key === 'Enter' && node && node.open) { await toggle(node.id, false); return; }
      idx = Math.min(tv.count - 1, idx + 1); break;
    case 'ArrowLeft':
      if (node && node.hasKids && node.open) { await toggle(node.id, false); return; }
      if (node) { const p = await rpc('parentOf', node.id); if (p >= 0) { const r = await rpc('reveal', p); idx = r.treeIndex; } }
      break;
  }
  const [row] = await rpc('treeRows', idx, 1);
  if (row) { const n = flatNode(row); select({ buf: n.buf, start: n.start, end: n.end, node: n.id }, 'keys'); }
}

// ---- input ----
function looksLikeCapture(b) {
  if (b.length < 4) return false;
  const m = (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) >>> 0;
  return m === 0xa1b2c3d4 || m === 0xd4c3b2a1 || m === 0xa1b23c4d || m === 0x4d3cb2a1 || m === 0x0a0d0d0a || (b[0] === 0x1f && b[1] === 0x8b);
}

function status(text) { $('status').textContent = text; }
function showError(box, text) { box.hidden = !text; box.textContent = text || ''; }

function options() {
  const dir = $('dir').value, api = $('api').value, ver = $('ver').value;
  return { response: dir === 'response', api: api === 'auto' ? null : +api, version: ver === '' ? null : +ver, size: $('size').value };
}

const run = debounce(() => decodeInput(), 200);

async function decodeInput() {
  run.cancel();
  st.picked = null;
  const gen = ++st.gen;
  let bytes, format;
  showError($('error'), '');
  $('guesses').hidden = true;
  if (st.file) {
    bytes = st.file.bytes; format = 'binary file ' + st.file.name;
  } else {
    const text = $('input').value;
    if (!text.trim()) { clearViews(); status(''); setLink(null); return; }
    const r = await rpc('parse', text, $('mode').value);
    if (gen !== st.gen) return;
    if (r.error) {
      clearViews();
      status('');
      showError($('error'), 'input: ' + r.error);
      setLink(null);
      return;
    }
    bytes = r.bytes; format = r.format;
    if (r.frames) { showFrames(bytes, r.frames, format, gen); return; }
  }
  if (looksLikeCapture(bytes)) {
    await openCapture(bytes, gen);
    return;
  }
  st.capture = null;
  $('capture').hidden = true;
  await decodeBytes(bytes, format, gen);
}

async function decodeBytes(bytes, format, gen) {
  const o = options();
  showError($('error'), '');
  $('guesses').hidden = true;
  st.bytes = bytes;
  if (o.response && (o.api === null || o.version === null)) {
    const cands = (await rpc('guess', bytes, o.size)).filter((c) => o.api === null || c.apiKey === o.api);
    if (gen !== st.gen) return;
    showGuesses(cands, bytes, format, gen);
    if (!cands.length) {
      clearViews();
      showError($('error'), 'no API and version reads this response cleanly; choose them above');
      return;
    }
    return decodeWith(bytes, format, gen, { response: true, api: cands[0].apiKey, version: cands[0].version, size: o.size }, cands[0]);
  }
  return decodeWith(bytes, format, gen, o);
}

async function decodeWith(bytes, format, gen, o, guess) {
  const t0 = performance.now();
  st.sentAt = performance.timeOrigin + t0;
  st.sentAt = performance.timeOrigin + performance.now();
  const sum = await rpc('decode', bytes, { response: o.response, api: o.api || 0, version: o.version || 0, size: o.size });
  if (gen !== st.gen) return;
  const tDecoded = performance.now() - t0;
  st.gotAt = performance.timeOrigin + performance.now();
  st.sum = sum;
  st.hl = st.sel = null;
  $('selbar').hidden = true;
  buildViews(sum);
  const name = sum.apiName || ('API ' + sum.apiKey);
  status(format + ', ' + bytes.length + ' bytes: ' + name + ' v' + sum.apiVersion + ' ' + sum.direction +
    (guess ? ' (guessed)' : '') + (sum.sizePrefix ? '' : ', no size prefix') + ', ' + sum.nodeCount + ' nodes');
  const err = sum.error;
  if (err) {
    showError($('error'), (err.offset >= 0 ? 'at byte ' + err.offset + (err.buf ? ' of buffer ' + err.buf : '') + (err.path ? ' (' + err.path + ')' : '') + ': expected ' + err.expected + ', found ' + err.found : err.message));
    $('error').dataset.offset = err.offset;
  }
  const wl = $('warnings');
  wl.replaceChildren();
  for (const w of sum.warnings) {
    const li = el('li', '', 'byte ' + w.start + (w.buf ? ' of buffer ' + w.buf : '') + ': ' + w.message);
    li.addEventListener('click', () => select({ buf: w.buf, start: w.start, end: w.end, node: w.node }));
    wl.appendChild(li);
  }
  wl.hidden = !sum.warnings.length;
  setLink(bytes, o, sum);
  st.lastDecodeMs = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => r()));
  st.firstScreenMs = performance.now() - t0;
  st.timing = { sentAt: st.sentAt, gotAt: performance.timeOrigin + t0 + tDecoded, decodeRPC: tDecoded, worker: sum.timing, firstScreen: st.firstScreenMs };
  document.body.dataset.decoded = String(gen);
}

function clearViews() {
  $('views').hidden = true;
  $('warnings').hidden = true;
  $('selbar').hidden = true;
  st.sum = null;
}

function showGuesses(cands, bytes, format, gen) {
  const g = $('guesses');
  g.replaceChildren(el('h3', '', cands.length ? 'Automatic: the readings that decode every byte, most plausible first' : 'Automatic: no reading fits'));
  cands.forEach((c, i) => {
    const b = el('button', '', (c.apiName || 'API ' + c.apiKey) + ' v' + c.version + (c.versions.length ? ' (same as v' + c.versions.join(', v') + ')' : '') +
      '  score ' + c.score + '  ' + Math.round(c.confidence * 100) + '%' + (c.doubts.length ? '  doubts: ' + c.doubts.join('; ') : ''));
    b.dataset.api = c.apiKey; b.dataset.version = c.version;
    if (i === 0) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', () => {
      for (const x of g.querySelectorAll('button')) x.removeAttribute('aria-current');
      b.setAttribute('aria-current', 'true');
      decodeWith(bytes, format, ++st.gen, { response: true, api: c.apiKey, version: c.version, size: $('size').value }, c);
    });
    g.appendChild(b);
  });
  g.hidden = false;
}

async function openCapture(bytes, gen) {
  status('reading capture…');
  const r = await rpc('capture', bytes);
  if (gen !== st.gen) return;
  const box = $('capture');
  if (r.error) { clearViews(); showError($('error'), r.error); box.hidden = true; return; }
  st.capture = r;
  const s = r.summary;
  box.replaceChildren(el('h3', '', 'Capture: ' + s.packets + ' packets, ' + s.conns.length + ' Kafka connection(s), ' + s.exchanges.length + ' exchange(s)' + (s.notes.length ? '; ' + s.notes.length + ' note(s)' : '')));
  const conns = new Map(s.conns.map((c) => [c.id, c]));
  let first = null;
  s.exchanges.forEach((x, i) => {
    const c = conns.get(x.conn);
    const label = '#' + x.conn + ' ' + (c ? c.client + ' → ' + c.broker : '') + '  ' + (x.apiName || 'API ' + x.apiKey) + ' v' + x.version + ' corr ' + x.correlationId;
    for (const [k, side] of [[0, 'request'], [1, 'response']]) {
      const fb = r.frames[2 * i + k];
      if (!fb) continue;
      const b = el('button', '', label + '  ' + side + ' (' + fb.length + ' bytes, packet ' + (k ? x.responsePacket : x.requestPacket) + ')');
      b.dataset.exchange = i; b.dataset.side = side;
      b.addEventListener('click', () => pickFrame(i, k));
      box.appendChild(b);
      if (!first) first = [i, k];
    }
  });
  box.hidden = false;
  if (first) pickFrame(first[0], first[1]);
  else { clearViews(); status('the capture holds no Kafka frames'); }
}

// showFrames lists back-to-back frames found in one input and decodes the
// first; each can be picked.
function showFrames(bytes, offs, format, gen) {
  const box = $('capture');
  st.capture = null;
  box.replaceChildren(el('h3', '', (offs.length - 1) + ' frames, back to back'));
  const pick = (i, b, g) => {
    for (const x of box.querySelectorAll('button')) x.setAttribute('aria-current', String(x === b));
    st.picked = { bytes: bytes.subarray(offs[i], offs[i + 1]), format: format + ' frame ' + (i + 1) + ' of ' + (offs.length - 1) };
    decodeBytes(st.picked.bytes, st.picked.format, g);
  };
  for (let i = 0; i + 1 < offs.length; i++) {
    const b = el('button', '', 'frame ' + (i + 1) + ': bytes [' + offs[i] + ', ' + offs[i + 1] + ')');
    b.dataset.frame = i;
    b.addEventListener('click', () => pick(i, b, ++st.gen));
    box.appendChild(b);
  }
  box.hidden = false;
  pick(0, box.querySelector('button'), gen);
}

function pickFrame(i, k) {
  const r = st.capture, x = r.summary.exchanges[i];
  for (const b of $('capture').querySelectorAll('button')) b.setAttribute('aria-current', String(+b.dataset.exchange === i && b.dataset.side === (k ? 'response' : 'request')));
  $('dir').value = k ? 'response' : 'request';
  if (k && x.apiKey >= 0) { $('api').value = String(x.apiKey); $('ver').value = x.version; } else if (!k) { $('api').value = 'auto'; $('ver').value = ''; }
  $('size').value = 'yes';
  st.picked = { bytes: r.frames[2 * i + k], format: 'capture frame' };
  decodeBytes(st.picked.bytes, st.picked.format, ++st.gen);
}

// ---- permalinks: #hex=...&dir=response&api=3&v=12&size=yes ----
function setLink(bytes, o, sum) {
  const note = $('link-note');
  if (!bytes) { history.replaceState(null, '', location.pathname + location.search); note.hidden = true; return; }
  if (bytes.length > LINK_MAX) {
    note.textContent = 'This input (' + bytes.length + ' bytes) is larger than the ' + LINK_MAX + ' bytes a link holds, so the link does not carry it.';
    note.hidden = false;
    history.replaceState(null, '', location.pathname + location.search);
    return;
  }
  note.hidden = true;
  const p = new URLSearchParams();
  p.set('hex', toHex(bytes));
  if (o.response) {
    p.set('dir', 'response');
    if (sum) { p.set('api', sum.apiKey); p.set('v', sum.apiVersion); }
  }
  if (o.size !== 'auto') p.set('size', o.size);
  history.replaceState(null, '', '#' + p.toString());
}

function readLink() {
  const h = location.hash.slice(1);
  if (!h) return false;
  const p = new URLSearchParams(h);
  if (p.get('mode') === 'encode') {
    setMode('encode');
    if (p.has('json')) $('enc-json').value = p.get('json');
    if (p.has('api')) exampleFromLink(p);
    runEncode();
    return true;
  }
  let text = p.get('hex') || p.get('b64') || p.get('in');
  if (!text) return false;
  $('dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  const api = p.get('api');
  if (api !== null) {
    const a = /^\d+$/.test(api) ? st.byKey.get(+api) : st.apis.find((x) => x.name.toLowerCase() === api.toLowerCase());
    $('api').value = a ? String(a.key) : 'auto';
  } else $('api').value = 'auto';
  $('ver').value = p.get('v') || '';
  $('size').value = ['yes', 'no'].includes(p.get('size')) ? p.get('size') : 'auto';
  $('mode').value = p.has('b64') ? 'base64' : /^[0-9a-fA-F\s]*$/.test(text) ? 'hex' : 'auto';
  st.file = null;
  $('input').value = text;
  decodeInput();
  return true;
}

async function exampleFromLink(p) {
  const a = st.byKey.get(+p.get('api'));
  if (!a) return;
  $('ex-api').value = a.key; $('ex-ver').value = p.get('v') || 0; $('ex-dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  await loadExample();
}

// ---- encode mode ----
function setMode(m) {
  $('mode-decode').setAttribute('aria-selected', String(m === 'decode'));
  $('mode-encode').setAttribute('aria-selected', String(m === 'encode'));
  $('decode-pane').hidden = m !== 'decode';
  $('encode-pane').hidden = m !== 'encode';
}

async function enterEncode() {
  setMode('encode');
  if (st.sum && !st.sum.error) {
    const lines = await rpc('jsonLines', 0, await rpc('jsonCount'));
    $('enc-json').value = lines.join('\n');
    $('enc-nosize').checked = !st.sum.sizePrefix;
    $('ex-api').value = st.sum.apiKey; $('ex-ver').value = st.sum.apiVersion; $('ex-dir').value = st.sum.direction;
  } else if (!$('enc-json').value.trim()) {
    await loadExample();
  }
  runEncode();
}

async function loadExample() {
  const js = await rpc('example', +$('ex-api').value, +$('ex-ver').value, $('ex-dir').value === 'response');
  if (!js) { showError($('enc-error'), 'no example: ' + ($('ex-dir').value) + ' version ' + $('ex-ver').value + ' is not defined for this API'); return; }
  $('enc-json').value = js;
  runEncode();
}

function lineCol(text, off) {
  const before = text.slice(0, off);
  const line = before.split('\n').length;
  return 'line ' + line + ', column ' + (off - before.lastIndexOf('\n'));
}

// locate finds where a value-JSON path ("body.topics[0].name") is in the
// text: the offset and length of the deepest key or element on it.
function locate(text, target) {
  let i = 0, best = null;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = () => { const s = i; i++; while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1; i++; return text.slice(s, i); };
  const on = (p) => target === p || target.startsWith(p + '.') || target.startsWith(p + '[');
  const value = (path, depth) => {
    ws();
    if (depth > 200 || i >= text.length) return;
    const c = text[i];
    if (c === '{') {
      i++; ws();
      while (i < text.length && text[i] !== '}') {
        ws();
        const at = i;
        let key;
        try { key = JSON.parse(str()); } catch { return; }
        const p = path ? path + '.' + key : key;
        if (on(p)) best = [at, key.length + 2];
        ws(); if (text[i] === ':') i++;
        value(p, depth + 1);
        ws(); if (text[i] === ',') i++; else break;
      }
      i++;
    } else if (c === '[') {
      i++; ws();
      for (let n = 0; i < text.length && text[i] !== ']'; n++) {
        ws();
        const p = path + '[' + n + ']';
        if (on(p)) best = [i, 1];
        value(p, depth + 1);
        ws(); if (text[i] === ',') i++; else break;
      }
      i++;
    } else if (c === '"') str();
    else { while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++; }
  };
  value('', 0);
  return best;
}

// setEncodeLink puts the JSON being encoded into the fragment, so a link
// reproduces encode mode too (as long as the text fits a link).
function setEncodeLink(text) {
  if (text.length > LINK_MAX) { history.replaceState(null, '', location.pathname + location.search); return; }
  const p = new URLSearchParams();
  p.set('mode', 'encode');
  p.set('json', text);
  history.replaceState(null, '', '#' + p.toString());
}

const runEncode = debounce(async () => {
  const text = $('enc-json').value;
  setEncodeLink(text);
  const r = await rpc('encode', text, $('enc-nosize').checked);
  if (r.error) {
    const e = r.error;
    const at = e.path ? locate(text, e.path) : null;
    showError($('enc-error'), (e.path ? 'at ' + e.path + (at ? ' (' + lineCol(text, at[0]) + ')' : '') + ': ' : '') + e.message);
    st.encErrorAt = at;
    $('enc-hex').textContent = '';
    st.encoded = null;
    return;
  }
  showError($('enc-error'), '');
  st.encoded = r.bytes;
  $('enc-hex').textContent = toHex(r.bytes);
}, 120);

// ---- copying ----
async function copy(kind) {
  const s = st.sel;
  if (!s) return;
  let text;
  if (kind === 'json') text = s.node >= 0 ? await rpc('nodeJSON', s.node) : '';
  else {
    const b = await rpc('slice', s.buf, s.start, s.end);
    text = kind === 'hex' ? toHex(b) : toB64(b);
  }
  st.copied = text;
  try { await navigator.clipboard.writeText(text); status('copied ' + kind + ' (' + text.length + ' characters)'); }
  catch { status('copy: the browser refused the clipboard; the text is in the selection bar'); $('sel-desc').textContent = text.slice(0, 2000); }
}

// ---- start ----
async function init() {
  st.views.tree = new Virtual($('tree'), LINE, (from, n) => rpc('treeRows', from, n), drawTreeRow);
  st.views.json = new Virtual($('json'), LINE, (from, n) => rpc('jsonLines', from, n), (l) => el('div', 'pg-row', l));
  st.views.hex = new Virtual($('hex'), LINE, (from, n) => rpc('hexLines', st.views.hex.buf || 0, from, n), (l) => drawHexLine(st.views.hex.buf || 0, l));
  wireHover($('tree'), 'tree');
  wireHover($('hex'), 'hex');
  $('tree').addEventListener('keydown', treeKey);
  $('tree').addEventListener('dblclick', (e) => { const r = e.target.closest('.pg-row'); if (r) toggle(+r.dataset.node); });
  $('hex-buf').addEventListener('change', () => showHex(+$('hex-buf').value));
  $('error').addEventListener('click', () => {
    const e = st.sum && st.sum.error;
    if (e && e.offset >= 0) {
      if (st.sum.errNode >= 0) select({ buf: e.buf || 0, start: e.offset, end: e.offset + 1, node: st.sum.errNode });
    }
  });

  const apis = await rpc('init');
  st.apis = apis;
  for (const a of apis) {
    st.byKey.set(a.key, a);
    const o = el('option', '', a.key + ' ' + a.name);
    o.value = a.key;
    $('api').appendChild(o);
    $('ex-api').appendChild(o.cloneNode(true));
  }
  $('ex-api').value = 18; $('ex-ver').value = 3;

  $('input').addEventListener('input', () => { st.file = null; run(); });
  // A frame picked from a list (capture or back-to-back frames) is decoded
  // again with the new options; otherwise the input is read again.
  const redo = () => {
    if (st.picked) { run.cancel(); decodeBytes(st.picked.bytes, st.picked.format, ++st.gen); } else run();
  };
  for (const id of ['dir', 'api', 'ver', 'size']) $(id).addEventListener('change', redo);
  $('mode').addEventListener('change', run);
  $('ver').addEventListener('input', debounce(redo, 200));
  $('file').addEventListener('change', () => { const f = $('file').files[0]; $('file').value = ''; if (f) openFile(f); });
  $('mode-decode').addEventListener('click', () => setMode('decode'));
  $('mode-encode').addEventListener('click', enterEncode);
  $('ex-load').addEventListener('click', loadExample);
  $('enc-json').addEventListener('input', runEncode);
  $('enc-error').addEventListener('click', () => {
    const at = st.encErrorAt, ta = $('enc-json');
    if (!at) return;
    ta.focus();
    ta.setSelectionRange(at[0], at[0] + at[1]);
    ta.scrollTop = Math.max(0, (ta.value.slice(0, at[0]).split('\n').length - 5) * 16);
  });
  $('enc-nosize').addEventListener('change', runEncode);
  $('enc-decode').addEventListener('click', () => {
    if (!st.encoded) return;
    let env = {};
    try { env = JSON.parse($('enc-json').value); } catch { /* the bytes say it all */ }
    st.file = null;
    $('input').value = toHex(st.encoded);
    $('mode').value = 'hex';
    $('dir').value = env.direction === 'response' ? 'response' : 'request';
    $('api').value = env.direction === 'response' && st.byKey.has(env.apiKey) ? env.apiKey : 'auto';
    $('ver').value = env.direction === 'response' ? env.apiVersion : '';
    $('size').value = $('enc-nosize').checked ? 'no' : 'auto';
    setMode('decode');
    decodeInput();
  });
  $('copy-hex').addEventListener('click', () => copy('hex'));
  $('copy-b64').addEventListener('click', () => copy('base64'));
  $('copy-json').addEventListener('click', () => copy('json'));

  // Files: pick or drop.
  let depth = 0;
  document.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; $('drop').hidden = false; });
  document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; $('drop').hidden = true; } });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault(); depth = 0; $('drop').hidden = true;
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) openFile(f);
  });
  window.addEventListener('hashchange', () => { if (location.hash !== st.lastHash) readLink(); });

  if (!readLink()) status('Paste bytes above, open a file, or drop one here.');
  document.body.dataset.ready = '1';

  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }
}

async function openFile(f) {
  const bytes = new Uint8Array(await f.arrayBuffer());
  // Text files (hex, dumps, base64) go through the text box; binary stays binary.
  let text = null;
  if (bytes.length < (4 << 20) && !bytes.some((b) => b === 0 || (b < 9))) {
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { text = null; }
  }
  if (text !== null && !looksLikeCapture(bytes)) {
    st.file = null;
    $('input').value = text;
  } else {
    st.file = { name: f.name, bytes };
    $('input').value = '';
    $('input').placeholder = f.name + ' (' + bytes.length + ' bytes, binary); type or paste here to replace it';
  }
  decodeInput();
}

const origReplace = history.replaceState.bind(history);
history.replaceState = (s, t, u) => { origReplace(s, t, u); st.lastHash = location.hash; };

init().catch((e) => { status('the playground failed to start: ' + e.message); });
})();
