// The playground page. All decoding happens in worker.js (WebAssembly);
// this file draws what the worker answers, a window at a time, and keeps
// the views in step. Text that came from a frame is only ever set with
// textContent or as an attribute value, never parsed as HTML.
//
// A Panel shows one decoded frame (grid, tree, value JSON, hex) held in a
// worker slot: panel 0 the frame being decoded (a capture's request),
// panel 1 a capture's response beside it, panel 2 encode mode's bytes.
'use strict';

(() => {
const $ = (id) => document.getElementById(id);
const LINK_MAX = 32 << 10; // bytes kept in a permalink
const GRID_ROW = 36, LINE = 22;
const HINT_MAX = 64 << 10; // largest request checked for a response reading

// ---- the worker ----
const worker = new Worker('worker.js');
let nextID = 1;
const pending = new Map();
worker.onmessage = (e) => {
  if (e.data.event === 'load') { loading(e.data); return; }
  const p = pending.get(e.data.id);
  if (!p) return;
  pending.delete(e.data.id);
  if (e.data.error !== undefined) p.reject(new Error(e.data.error)); else p.resolve(e.data.result);
};
function rpcAt(slot, op, ...args) {
  return new Promise((resolve, reject) => {
    const id = nextID++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args, slot });
  });
}
const rpc = (op, ...args) => rpcAt(0, op, ...args);

// ---- state ----
const st = {
  ready: false, apis: [], byKey: new Map(),
  file: null,          // {name, bytes} of an opened binary file
  capture: null,       // {summary, frames, rows, scan}
  picked: null,        // a frame picked from a list: {bytes, format}
  gen: 0,              // decode generation, to drop stale answers
  panels: [], active: null,
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
const mb = (n) => (n / 1e6).toFixed(1) + ' MB';

// ---- loading the decoder ----
function loading(d) {
  const box = $('loading'), bar = $('loading-bar'), text = $('loading-text');
  st.load = d;
  if (d.phase === 'ready') { box.hidden = true; return; }
  box.hidden = false;
  if (d.phase === 'starting') {
    bar.removeAttribute('value');
    text.textContent = 'Starting the decoder…';
  } else if (d.total > 0) {
    const pct = Math.min(100, Math.round(100 * d.loaded / d.total));
    bar.value = pct;
    text.textContent = 'Loading the decoder: ' + pct + '% (' + mb(d.loaded) + ' of ' + mb(d.total) + ')';
  } else {
    bar.removeAttribute('value');
    text.textContent = 'Loading the decoder: ' + mb(d.loaded);
  }
  document.body.dataset.loading = d.phase;
}

// ---- virtual lists: only the rows in view exist in the DOM ----
class Virtual {
  constructor(box, rowH, fetch, draw, painted, top) {
    this.box = box; this.rowH = rowH; this.fetch = fetch; this.draw = draw; this.painted = painted; this.top = top || 0;
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
    this.painted();
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

// ---- what the views draw ----
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

function within(a, b) { // span a inside span b
  return a && b && a.buf === b.buf && a.start >= b.start && a.end <= b.end && a.end > a.start;
}
function overlaps(buf, start, end, s) {
  return s && s.buf === buf && start < s.end && end > s.start;
}
const confidence = (c) => (c >= 0.9 ? 'very likely' : c >= 0.6 ? 'likely' : c >= 0.3 ? 'possible' : 'unlikely') + ' (' + Math.round(c * 100) + '%)';
const docsHref = (name, v, dir) => '../api/' + encodeURIComponent(name.toLowerCase()) + '/v' + v + '.html#' + dir;

// ---- a panel: one decoded frame ----
class Panel {
  constructor(slot, host, ids) {
    this.slot = slot;
    const root = $('panel-tpl').content.firstElementChild.cloneNode(true);
    host.appendChild(root);
    this.root = root;
    const q = (s) => root.querySelector(s);
    this.e = {
      title: q('.pg-ptitle'), doc: q('.pg-doclink'), error: q('.pg-perror'), limit: q('.pg-plimit'), warn: q('.pg-pwarn'),
      views: q('.pg-views'), grids: q('.pg-grids'), tree: q('.pg-tree'), json: q('.pg-json'), hex: q('.pg-hex'), hexbuf: q('.pg-hexbuf'),
    };
    if (ids) for (const k of Object.keys(ids)) this.e[k].id = ids[k];
    this.sum = null; this.hl = null; this.sel = null; this.views = {}; this.bytes = null;
    const paint = () => this.paint();
    this.views.tree = new Virtual(this.e.tree, LINE, (from, n) => this.rpc('treeRows', from, n), (r) => this.drawTreeRow(r), paint);
    this.views.json = new Virtual(this.e.json, LINE, (from, n) => this.rpc('jsonLines', from, n), (l, i) => this.drawJSONLine(l, i), paint);
    this.views.hex = new Virtual(this.e.hex, LINE, (from, n) => this.rpc('hexLines', this.views.hex.buf || 0, from, n), (l) => this.drawHexLine(this.views.hex.buf || 0, l), paint);
    this.wire(this.e.tree, 'tree');
    this.wire(this.e.hex, 'hex');
    this.wire(this.e.json, 'json');
    this.e.tree.addEventListener('keydown', (e) => this.treeKey(e));
    this.e.json.addEventListener('keydown', (e) => this.jsonKey(e));
    this.e.tree.addEventListener('dblclick', (e) => { const r = e.target.closest('.pg-row'); if (r) this.toggle(+r.dataset.node); });
    this.e.hexbuf.addEventListener('change', () => this.showHex(+this.e.hexbuf.value));
    this.e.error.addEventListener('click', () => {
      const err = this.sum && this.sum.error;
      if (err && err.offset >= 0 && this.sum.errNode >= 0) this.selectNode(this.sum.errNode, 'error');
    });
    this.e.error.tabIndex = 0;
  }
  rpc(op, ...args) { return rpcAt(this.slot, op, ...args); }
  get hidden() { return this.root.hidden; }
  set hidden(h) { this.root.hidden = h; }

  clear() {
    this.sum = null; this.hl = this.sel = null; this.bytes = null;
    this.e.views.hidden = true;
    for (const k of ['error', 'limit', 'warn']) this.e[k].hidden = true;
    this.e.title.textContent = ''; this.e.doc.hidden = true;
    if (st.active === this) $('selbar').hidden = true;
  }

  // decode decodes bytes into this panel's slot and draws it.
  async decode(bytes, o, title) {
    const t0 = performance.now();
    const sum = await this.rpc('decode', bytes, { response: o.response, api: o.api || 0, version: o.version || 0, size: o.size });
    sum.rpcMs = performance.now() - t0;
    this.bytes = bytes;
    this.show(sum, title);
    await new Promise((r) => requestAnimationFrame(() => r()));
    sum.firstScreenMs = performance.now() - t0;
    return sum;
  }

  show(sum, title) {
    this.sum = sum; this.hl = this.sel = null;
    if (st.active === this) $('selbar').hidden = true;
    const name = sum.apiName || ('API ' + sum.apiKey);
    this.e.title.textContent = (title ? title + ': ' : '') + name + ' v' + sum.apiVersion + ' ' + sum.direction + ', ' + sum.buffers[0].len + ' bytes';
    if (sum.apiName) {
      this.e.doc.href = docsHref(sum.apiName, sum.apiVersion, sum.direction);
      this.e.doc.textContent = 'Reference page for ' + sum.apiName + ' v' + sum.apiVersion;
      this.e.doc.hidden = false;
    } else this.e.doc.hidden = true;
    const err = sum.error;
    if (err) {
      this.e.error.textContent = err.offset >= 0
        ? 'Decoding stopped at byte ' + err.offset + (err.buf ? ' of decompressed buffer ' + err.buf : '') + (err.path ? ' (' + err.path + ')' : '') +
          ': expected ' + err.expected + (err.found ? ', found ' + err.found : '') + '. What was read before it is shown below; the error is marked in the grid and the hex.'
        : err.message;
      this.e.error.dataset.offset = err.offset;
    }
    this.e.error.hidden = !err;
    const lim = sum.limit;
    if (lim) {
      this.e.limit.textContent = 'A limit cut decoding short at byte ' + lim.offset + (lim.buf ? ' of decompressed buffer ' + lim.buf : '') + ': ' + lim.message +
        '. The browser decodes with smaller limits than the kwire command line, which can decode this frame whole.';
    }
    this.e.limit.hidden = !lim;
    const wl = this.e.warn;
    wl.replaceChildren();
    for (const w of sum.warnings) {
      const li = el('li', w.limit ? 'pg-wlimit' : '', 'Byte ' + w.start + (w.buf ? ' of buffer ' + w.buf : '') + ': ' + w.message);
      li.tabIndex = 0;
      li.addEventListener('click', () => this.selectNode(w.node, 'warning'));
      wl.appendChild(li);
    }
    if (sum.warningCount > sum.warnings.length) wl.appendChild(el('li', '', (sum.warningCount - sum.warnings.length) + ' more warnings'));
    wl.hidden = !sum.warnings.length;
    this.buildViews(sum);
  }

  buildViews(sum) {
    const grids = this.e.grids;
    grids.replaceChildren();
    for (const k of Object.keys(this.views)) if (k.startsWith('grid')) delete this.views[k];
    for (const b of sum.buffers) if (b.from) b.from = flatNode(b.from);
    for (const b of sum.buffers) {
      const wrap = el('div', b.buf ? 'pg-derived' : 'pg-main');
      if (b.buf) {
        const h = el('h4');
        h.appendChild(document.createTextNode('Derived buffer ' + b.buf + ' (' + b.len + ' bytes, decompressed) from '));
        const a = el('a', '', b.from ? b.from.name + ' [' + b.from.start + ', ' + b.from.end + ')' + (b.from.buf ? ' of buffer ' + b.from.buf : '') : 'a batch');
        a.tabIndex = 0;
        a.href = '#';
        if (b.from) a.addEventListener('click', (e) => { e.preventDefault(); this.select({ buf: b.from.buf, start: b.from.start, end: b.from.end, node: b.from.id }); });
        h.appendChild(a);
        wrap.appendChild(h);
      }
      const box = el('div', 'pg-scroll pg-gridbox kw-grid');
      box.dataset.buf = b.buf;
      box.tabIndex = 0;
      box.setAttribute('role', 'grid');
      box.setAttribute('aria-readonly', 'true');
      box.setAttribute('aria-rowcount', String(b.rows));
      box.setAttribute('aria-label', b.buf ? 'derived buffer ' + b.buf : 'byte grid');
      const ruler = el('div', 'kw-ruler');
      ruler.setAttribute('aria-hidden', 'true');
      ruler.appendChild(el('span', 'kw-off'));
      for (let i = 0; i < 32; i++) ruler.appendChild(el('span', '', String(i % 10)));
      box.appendChild(ruler);
      box.appendChild(el('div', 'pg-spacer'));
      wrap.appendChild(box);
      grids.appendChild(wrap);
      const v = new Virtual(box, GRID_ROW, (from, n) => this.rpc('gridRows', b.buf, from, n), (r) => this.drawGridRow(b.buf, r), () => this.paint(), 18);
      v.setCount(b.rows);
      this.views['grid' + b.buf] = v;
      this.wire(box, 'grid');
      box.addEventListener('keydown', (e) => this.gridKey(e, b.buf));
    }
    this.views.tree.clear(); this.views.tree.setCount(sum.treeRows);
    this.views.json.clear();
    this.jsonReady = false;
    const hb = this.e.hexbuf;
    hb.replaceChildren();
    for (const b of sum.buffers) {
      const o = el('option', '', b.buf ? 'buffer ' + b.buf + ' (decompressed)' : 'input');
      o.value = b.buf;
      hb.appendChild(o);
    }
    this.e.views.hidden = false;
    this.showHex(0);
    for (const k of Object.keys(this.views)) if (k !== 'json') this.views[k].update(true);
    // The value JSON is written after the first screen is up.
    setTimeout(() => { if (this.sum === sum) this.loadJSON(sum); }, 0);
  }

  // loadJSON shows the frame's value JSON, in the form the switch says.
  async loadJSON(sum) {
    const n = await this.rpc('jsonCount');
    if (this.sum !== sum) return;
    sum.jsonLines = n;
    this.jsonReady = true;
    this.views.json.clear();
    this.views.json.setCount(n);
    await this.views.json.update(true);
    if (this.sel && this.sel.node >= 0) this.sel.lines = await this.rpc('jsonSpanOf', this.sel.node);
    this.paint();
  }

  showHex(buf) {
    const b = this.sum.buffers.find((x) => x.buf === buf) || { len: 0 };
    const v = this.views.hex;
    v.buf = buf;
    this.e.hexbuf.value = buf;
    v.clear();
    v.setCount(Math.ceil(b.len / 16));
    v.update(true);
  }

  drawGridRow(buf, r) {
    const row = el('div', 'kw-row');
    row.setAttribute('role', 'row');
    row.setAttribute('aria-rowindex', String(r.index + 1));
    row.dataset.row = r.index;
    if (r.elided) {
      row.classList.add('kw-elided');
      const off = row.appendChild(el('span', 'kw-off'));
      off.setAttribute('role', 'rowheader');
      const m = el('span', 'kw-cell kw-more', '… ' + r.elided + ' more bytes of ' + r.cell.label + ' … (click to show)');
      m.setAttribute('role', 'gridcell');
      m.style.gridColumn = '2 / span 32';
      m.dataset.node = r.cell.node; m.dataset.start = r.cell.start; m.dataset.end = r.cell.end; m.dataset.buf = buf;
      m.addEventListener('click', async (e) => {
        e.stopPropagation();
        const n = await this.rpc('expandCell', buf, r.cell.index);
        const v = this.views['grid' + buf];
        v.setCount(n); v.update(true);
      });
      row.appendChild(m);
      return row;
    }
    const off = row.appendChild(el('span', 'kw-off', r.offset.toString(16).padStart(4, '0')));
    off.setAttribute('role', 'rowheader');
    for (const s of r.segs) {
      const c = s.cell;
      const e = el('span', 'kw-cell kw-' + c.kind);
      e.setAttribute('role', 'gridcell');
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

  drawTreeRow(row) {
    const n = flatNode(row);
    const r = el('div', 'pg-row');
    r.setAttribute('role', 'treeitem');
    r.setAttribute('aria-level', n.depth + 1);
    if (n.hasKids) r.setAttribute('aria-expanded', n.open);
    r.dataset.node = n.id; r.dataset.start = n.start; r.dataset.end = n.end; r.dataset.buf = n.buf;
    r.style.paddingLeft = (0.3 + n.depth * 1.1) + 'em';
    if (n.broken) r.classList.add('pg-broken');
    const t = el('span', 'pg-tog', n.hasKids ? (n.open ? '▾' : '▸') : ' ');
    t.addEventListener('click', (e) => { e.stopPropagation(); this.toggle(n.id); });
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
    if (n.warnings) r.appendChild(el('span', 'pg-wmark', ' ⚠ ' + n.warnings.join('; ')));
    r.title = n.name + ' ' + n.type + ' [' + n.start + ', ' + n.end + ')';
    return r;
  }

  drawJSONLine(l, i) {
    const r = el('div', 'pg-row', l);
    r.dataset.line = i;
    r.setAttribute('role', 'option');
    return r;
  }

  drawHexLine(buf, line) {
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

  // paint marks, in every view, what the hovered and the selected node
  // cover. Hover is a tint; selection a solid outline: never the same.
  paint() {
    const hl = this.hl, sel = this.sel, err = this.sum && this.sum.error;
    for (const c of this.e.grids.querySelectorAll('.kw-cell[data-buf]')) {
      const s = { buf: +c.dataset.buf, start: +c.dataset.start, end: +c.dataset.end };
      c.classList.toggle('kw-hl', within(s, hl));
      const on = within(s, sel);
      c.classList.toggle('kw-sel', on);
      c.classList.toggle('kw-part', !!(on && sel.part && s.start === sel.part.start && s.end === sel.part.end));
      if (on) c.setAttribute('aria-selected', 'true'); else c.removeAttribute('aria-selected');
      c.classList.toggle('kw-errat', !!(err && err.offset >= 0 && s.buf === (err.buf || 0) && err.offset >= s.start && err.offset < s.end));
    }
    for (const r of this.e.tree.querySelectorAll('.pg-row')) {
      const id = +r.dataset.node;
      r.classList.toggle('pg-hl', !!hl && hl.node === id);
      r.classList.toggle('pg-sel', !!sel && sel.node === id);
      r.setAttribute('aria-selected', String(!!sel && sel.node === id));
    }
    for (const b of this.e.hex.querySelectorAll('.pg-byte')) {
      const o = +b.dataset.off, buf = +b.dataset.buf;
      b.classList.toggle('pg-hl', overlaps(buf, o, o + 1, hl));
      b.classList.toggle('pg-sel', overlaps(buf, o, o + 1, sel));
      b.classList.toggle('pg-err', !!(err && err.offset === o && (err.buf || 0) === buf));
    }
    const inLines = (i, s) => s && s.lines && i >= s.lines[0] && i <= s.lines[1];
    for (const r of this.e.json.querySelectorAll('.pg-row')) {
      const i = +r.dataset.line;
      r.classList.toggle('pg-hl', !!inLines(i, hl));
      r.classList.toggle('pg-sel', !!inLines(i, sel));
      r.setAttribute('aria-selected', String(!!inLines(i, sel)));
    }
  }

  // spanAt is the selection a view's element stands for: a node, with the
  // part of it (a length prefix, say) that was pointed at.
  async spanAt(t, from) {
    if (from === 'json') {
      const id = await this.rpc('jsonNodeAt', +t.dataset.line);
      return id >= 0 ? this.nodeSpan(id) : null;
    }
    if (t.dataset.off !== undefined) {
      const c = await this.rpc('cellAt', +t.dataset.buf, +t.dataset.off);
      if (!c) return { buf: +t.dataset.buf, start: +t.dataset.off, end: +t.dataset.off + 1, node: -1 };
      return { buf: c.buf, start: c.nodeStart, end: c.nodeEnd, node: c.node, part: { start: c.start, end: c.end } };
    }
    const s = { buf: +t.dataset.buf, start: +t.dataset.start, end: +t.dataset.end, node: +t.dataset.node };
    if (from === 'grid') {
      const c = await this.rpc('cellAt', s.buf, s.start);
      if (c && c.node === s.node) return { buf: s.buf, start: c.nodeStart, end: c.nodeEnd, node: s.node, part: { start: s.start, end: s.end } };
    }
    return s;
  }
  async nodeSpan(id) {
    const r = await this.rpc('reveal', id);
    if (!r) return null;
    const n = flatNode(r.node);
    return { buf: n.buf, start: n.start, end: n.end, node: id };
  }
  async selectNode(id, from) {
    const s = await this.nodeSpan(id);
    if (s) this.select(s, from);
  }

  wire(box, from) {
    const target = (e) => (from === 'json' ? e.target.closest('.pg-row[data-line]') : e.target.closest('[data-buf]'));
    box.addEventListener('mouseover', async (e) => {
      const t = target(e);
      if (!t) return;
      this.hover(await this.spanAt(t, from));
    });
    box.addEventListener('mouseleave', () => this.hover(null));
    // After a scroll the pointer rests over other content: a stale hover
    // must not look like a selection, so it goes.
    box.addEventListener('scroll', () => { if (this.hl) this.hover(null); }, { passive: true });
    box.addEventListener('click', async (e) => {
      if (e.target.closest('.pg-tog') || e.target.closest('.kw-more')) return;
      const t = target(e);
      if (!t) return;
      const s = await this.spanAt(t, from);
      if (s) this.select(s, from);
    });
  }

  async hover(span) {
    const same = (a, b) => (a === b) || (a && b && a.buf === b.buf && a.start === b.start && a.end === b.end && a.node === b.node);
    if (same(span, this.hl)) return;
    this.hl = span;
    if (span && span.node >= 0 && this.jsonReady) {
      span.lines = await this.rpc('jsonSpanOf', span.node);
      if (this.hl !== span) return;
    }
    this.paint();
  }

  async select(span, from) {
    if (!span) return;
    this.sel = span;
    st.active = this;
    this.paint();
    const bar = $('selbar');
    bar.hidden = false;
    const path = span.node >= 0 ? await this.rpc('path', span.node) : '';
    const part = span.part && (span.part.start !== span.start || span.part.end !== span.end)
      ? '  (pointed at [' + span.part.start + ', ' + span.part.end + '))' : '';
    $('sel-desc').textContent = (path || 'bytes') + '  [' + span.start + ', ' + span.end + ')' + (span.buf ? ' in buffer ' + span.buf : '') +
      '  ' + (span.end - span.start) + ' bytes' + part;
    if (span.node >= 0) {
      const r = await this.rpc('reveal', span.node);
      const tv = this.views.tree;
      tv.setCount(r.treeRows);
      if (from !== 'tree') await tv.scrollTo(r.treeIndex); else tv.update(true);
      if (this.jsonReady) {
        span.lines = await this.rpc('jsonSpanOf', span.node);
        if (from !== 'json' && span.lines) await this.views.json.scrollTo(span.lines[0]);
      }
    }
    const g = this.views['grid' + span.buf];
    if (from !== 'grid' && g) g.scrollTo(await this.rpc('rowOf', span.buf, span.start));
    if (from !== 'hex') {
      if (this.views.hex.buf !== span.buf) this.showHex(span.buf);
      this.views.hex.scrollTo(Math.floor(span.start / 16));
    }
    this.paint();
    document.body.dataset.selected = String((+document.body.dataset.selected || 0) + 1);
  }

  async toggle(id, open) {
    const n = await this.rpc('setOpen', id, open);
    this.views.tree.setCount(n);
    this.views.tree.update(true);
  }

  async gridKey(e, buf) {
    const sel = this.sel;
    if (!['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp', 'Enter'].includes(e.key)) return;
    e.preventDefault();
    if (e.key === 'Enter') { if (sel && sel.node >= 0) this.toggle(sel.node, true); return; }
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 4, ArrowUp: -4 }[e.key];
    const cur = sel && sel.buf === buf ? (sel.part || sel) : null;
    const off = cur ? (step > 0 ? cur.end - 1 : cur.start) + step : 0;
    const c = await this.rpc('cellAt', buf, Math.max(0, off));
    if (c) this.select({ buf, start: c.nodeStart, end: c.nodeEnd, node: c.node, part: { start: c.start, end: c.end } }, 'keys');
  }

  async jsonKey(e) {
    if (!['ArrowDown', 'ArrowUp'].includes(e.key) || !this.jsonReady) return;
    e.preventDefault();
    const lines = this.sel && this.sel.lines;
    let i = lines ? (e.key === 'ArrowDown' ? lines[1] + 1 : lines[0] - 1) : 0;
    i = Math.max(0, Math.min(this.views.json.count - 1, i));
    const id = await this.rpc('jsonNodeAt', i);
    if (id >= 0) this.selectNode(id, 'keys');
  }

  async treeKey(e) {
    const keys = ['ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft', 'Enter', 'Home', 'End'];
    if (!keys.includes(e.key)) return;
    e.preventDefault();
    const tv = this.views.tree;
    let idx = 0, node = null;
    if (this.sel && this.sel.node >= 0) {
      const r = await this.rpc('reveal', this.sel.node);
      idx = r.treeIndex; node = flatNode(r.node);
    }
    switch (e.key) {
      case 'ArrowDown': idx = node ? Math.min(tv.count - 1, idx + 1) : 0; break;
      case 'ArrowUp': idx = Math.max(0, idx - 1); break;
      case 'Home': idx = 0; break;
      case 'End': idx = tv.count - 1; break;
      case 'ArrowRight': case 'Enter':
        if (node && node.hasKids && !node.open) { await this.toggle(node.id, true); return; }
        if (e.key === 'Enter' && node && node.open) { await this.toggle(node.id, false); return; }
        idx = Math.min(tv.count - 1, idx + 1); break;
      case 'ArrowLeft':
        if (node && node.hasKids && node.open) { await this.toggle(node.id, false); return; }
        if (node) { const p = await this.rpc('parentOf', node.id); if (p >= 0) { const r = await this.rpc('reveal', p); idx = r.treeIndex; } }
        break;
    }
    const [row] = await this.rpc('treeRows', idx, 1);
    if (row) { const n = flatNode(row); this.select({ buf: n.buf, start: n.start, end: n.end, node: n.id }, 'keys'); }
  }
}

// ---- input ----
function looksLikeCapture(b) {
  if (b.length < 4) return false;
  const m = (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) >>> 0;
  return m === 0xa1b2c3d4 || m === 0xd4c3b2a1 || m === 0xa1b23c4d || m === 0x4d3cb2a1 || m === 0x0a0d0d0a || (b[0] === 0x1f && b[1] === 0x8b);
}

function status(text) {
  $('status').textContent = text;
}
function showError(box, text) { box.hidden = !text; box.textContent = text || ''; }

function options() {
  const dir = $('dir').value, api = $('api').value, ver = $('ver').value;
  return { response: dir === 'response', api: api === 'auto' ? null : +api, version: ver === '' ? null : +ver, size: $('size').value };
}

const run = debounce(() => decodeInput(), 200);

// single shows one panel (a frame) instead of a capture's pair.
function single() {
  st.panels[1].hidden = true;
  st.panels[1].clear();
  st.panels[0].e.title.hidden = false;
  $('panels').classList.remove('pg-pair');
}

function resetOutput() {
  showError($('input-error'), '');
  $('guesses').hidden = true;
  $('hint').hidden = true;
}

async function decodeInput() {
  run.cancel();
  st.picked = null;
  const gen = ++st.gen;
  let bytes, format;
  resetOutput();
  if (!st.ready) status('The decoder is still loading; these bytes will be decoded as soon as it is ready.');
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
      const mode = $('mode').value === 'auto' ? '' : ' as ' + $('mode').value;
      showError($('input-error'), 'These bytes could not be read' + mode + (r.line ? ': line ' + r.line + ', column ' + r.column : '') + ': ' + r.error + '.');
      setLink(null);
      return;
    }
    bytes = r.bytes; format = r.format;
    if (r.frames) { showFrames(bytes, r.frames, format, gen); return; }
  }
  $('frames').hidden = true;
  if (looksLikeCapture(bytes)) {
    await openCapture(bytes, gen);
    return;
  }
  closeCapture();
  await decodeBytes(bytes, format, gen);
}

async function decodeBytes(bytes, format, gen) {
  const o = options();
  resetOutput();
  single();
  if (o.response && (o.api === null || o.version === null)) {
    const cands = (await rpc('guess', bytes, o.size)).filter((c) => o.api === null || c.apiKey === o.api);
    if (gen !== st.gen) return;
    if (cands.length) {
      showGuesses('Automatic: the readings that decode every byte, most likely first', cands, bytes, format, gen);
      return decodeWith(bytes, format, gen, { response: true, api: cands[0].apiKey, version: cands[0].version, size: o.size },
        'guessed, ' + confidence(cands[0].confidence));
    }
    // Nothing reads every byte (a truncated frame, say): show the readings
    // that got furthest, and draw the first with its error at its byte.
    const part = (await rpc('partial', bytes, o.size)).filter((c) => o.api === null || c.apiKey === o.api);
    if (gen !== st.gen) return;
    if (!part.length) {
      clearViews();
      showError($('input-error'), 'No API and version reads this response, even in part' +
        (bytes.length > HINT_MAX ? ' (frames over 64 KiB are not tried every way)' : '') + ': choose them above.');
      return;
    }
    showGuesses('No reading decodes every byte (is the frame cut short?); these read furthest before an error:', part, bytes, format, gen);
    return decodeWith(bytes, format, gen, { response: true, api: part[0].apiKey, version: part[0].version, size: o.size },
      'no reading fits every byte; showing the one that reads furthest');
  }
  return decodeWith(bytes, format, gen, o);
}

async function decodeWith(bytes, format, gen, o, note) {
  const p = st.panels[0];
  const t0 = performance.now();
  st.sentAt = performance.timeOrigin + t0;
  p.bytes = bytes;
  const sum = await p.rpc('decode', bytes, { response: o.response, api: o.api || 0, version: o.version || 0, size: o.size });
  if (gen !== st.gen) return;
  const tDecoded = performance.now() - t0;
  p.show(sum);
  st.sum = sum;
  const name = sum.apiName || ('API ' + sum.apiKey);
  status(format + ', ' + bytes.length + ' bytes: ' + name + ' v' + sum.apiVersion + ' ' + sum.direction +
    (note ? ' (' + note + ')' : '') + (sum.sizePrefix ? '' : ', no size prefix') + ', ' + sum.nodeCount + ' nodes');
  setLink(bytes, o, sum);
  if (!o.response && sum.error) responseHint(bytes, o, gen, sum);
  st.lastDecodeMs = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => r()));
  st.firstScreenMs = performance.now() - t0;
  st.timing = { sentAt: st.sentAt, decodeRPC: tDecoded, worker: sum.timing, firstScreen: st.firstScreenMs };
  document.body.dataset.decoded = String(gen);
}

// responseHint offers the response reading of bytes that fail as a request.
async function responseHint(bytes, o, gen, sum) {
  if (bytes.length > HINT_MAX) return;
  const cands = await rpc('guess', bytes, o.size);
  if (gen !== st.gen || !cands.length) return;
  const c = cands[0];
  const h = $('hint');
  h.replaceChildren();
  h.appendChild(el('span', '', 'These bytes do not read as a request (decoding stops at byte ' + sum.error.offset + '), but they read cleanly as a response: ' +
    (c.apiName || 'API ' + c.apiKey) + ' v' + c.version + ', ' + confidence(c.confidence) + '. '));
  const b = el('button', '', 'Decode as a ' + (c.apiName || 'API ' + c.apiKey) + ' v' + c.version + ' response');
  b.id = 'hint-switch';
  b.addEventListener('click', () => {
    $('dir').value = 'response'; $('api').value = String(c.apiKey); $('ver').value = c.version;
    redo();
  });
  h.appendChild(b);
  h.hidden = false;
}

function clearViews() {
  for (const p of st.panels.slice(0, 2)) p.clear();
  $('selbar').hidden = true;
  st.sum = null;
}

function showGuesses(title, cands, bytes, format, gen) {
  const g = $('guesses');
  g.replaceChildren(el('h3', '', title));
  cands.forEach((c, i) => {
    const what = (c.apiName || 'API ' + c.apiKey) + ' v' + c.version;
    const text = c.offset !== undefined
      ? what + ': reads to byte ' + c.offset + ', then ' + c.message.replace(/^at byte \d+( \([^)]*\))?: /, '')
      : what + (c.versions.length ? ' (same as v' + c.versions.join(', v') + ')' : '') + ': ' + confidence(c.confidence) +
        (c.doubts.length ? '; doubts: ' + c.doubts.join('; ') : '');
    const b = el('button', '', text);
    b.dataset.api = c.apiKey; b.dataset.version = c.version;
    if (i === 0) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', () => {
      for (const x of g.querySelectorAll('button')) x.removeAttribute('aria-current');
      b.setAttribute('aria-current', 'true');
      decodeWith(bytes, format, ++st.gen, { response: true, api: c.apiKey, version: c.version, size: $('size').value }, 'picked from the list');
    });
    g.appendChild(b);
  });
  g.hidden = false;
}

// showFrames lists back-to-back frames found in one input and decodes the
// first; each can be picked.
function showFrames(bytes, offs, format, gen) {
  const box = $('frames');
  closeCapture();
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

// A frame picked from a list is decoded again with the new options;
// otherwise the input is read again.
function redo() {
  if (st.picked) { run.cancel(); decodeBytes(st.picked.bytes, st.picked.format, ++st.gen); } else run();
}

// ---- captures: a table of exchanges ----
const COLS = [
  ['i', '#', (x) => x.i + 1],
  ['time', 'Time (s)', (x) => x.t],
  ['conn', 'Connection', (x) => x.conn],
  ['dir', 'Direction', (x) => x.dirText],
  ['api', 'API', (x) => x.apiText],
  ['version', 'Version', (x) => x.version],
  ['corr', 'Corr. id', (x) => x.correlationId],
  ['reqBytes', 'Req. bytes', (x) => x.requestBytes ?? -1],
  ['respBytes', 'Resp. bytes', (x) => x.responseBytes ?? -1],
  ['latency', 'Latency ms', (x) => x.latencyMs ?? -1],
  ['error', 'Error', (x) => x.errorText],
];

function closeCapture() {
  if (st.capture && st.capture.live) st.capture.live.es.close();
  st.capture = null;
  $('capture').hidden = true;
}

async function openCapture(bytes, gen) {
  status('Reading the capture…');
  const r = await rpc('capture', bytes);
  if (gen !== st.gen) return;
  if (r.error) { clearViews(); closeCapture(); showError($('input-error'), 'This capture could not be read: ' + r.error); return; }
  const s = r.summary;
  const conns = new Map(s.conns.map((c) => [c.id, c]));
  const t0 = Math.min(...s.exchanges.map((x) => Math.min(x.requestTime ?? Infinity, x.responseTime ?? Infinity)));
  const rows = s.exchanges.map((x, i) => {
    const c = conns.get(x.conn);
    const time = x.requestTime ?? x.responseTime;
    return {
      ...x, i, t: time === undefined ? 0 : (time - t0) / 1000, time,
      conn: '#' + x.conn + (c ? ' ' + c.client : ''), connTitle: c ? 'connection ' + x.conn + ': client ' + c.client + ' → broker ' + c.broker : '',
      dirText: r.frames[2 * i] && r.frames[2 * i + 1] ? '⇄ both' : r.frames[2 * i] ? (x.noResponseExpected ? '→ no reply due' : '→ request only') : '← response only',
      apiText: x.apiName || (x.apiKey >= 0 ? 'API ' + x.apiKey : 'unknown'),
      errors: [], errorText: '', clientId: null,
    };
  });
  st.capture = { summary: s, frames: r.frames, rows, sort: ['i', 1], current: -1 };
  // The client ids and error codes come from decoding every frame.
  const scan = await rpc('scan', r.frames, s.exchanges.map((x) => x.apiKey), s.exchanges.map((x) => x.version));
  if (gen !== st.gen) return;
  scan.forEach((x, i) => {
    const row = rows[i];
    row.clientId = x.clientId ?? null;
    row.errors = x.errors;
    row.errorText = x.errors.join(', ') || (x.requestError || x.responseError ? 'does not decode' : '');
    row.decodeError = x.requestError || x.responseError || '';
  });
  $('cap-title').textContent = 'Capture: ' + s.packets + ' packets, ' + s.conns.length + ' Kafka connection' + (s.conns.length === 1 ? '' : 's') +
    ', ' + s.exchanges.length + ' exchange' + (s.exchanges.length === 1 ? '' : 's') + (s.notes.length ? ', ' + s.notes.length + ' note(s)' : '');
  const apiSel = $('cap-api');
  apiSel.replaceChildren(el('option', '', 'all'));
  apiSel.firstChild.value = '';
  for (const a of [...new Set(rows.map((x) => x.apiText))].sort()) { const o = el('option', '', a); o.value = a; apiSel.appendChild(o); }
  $('cap-client').value = ''; $('cap-errors').checked = false;
  const notes = $('cap-notes');
  notes.replaceChildren(...s.notes.slice(0, 50).map((n) => el('li', '', n)));
  notes.hidden = !s.notes.length;
  drawCapHead();
  drawCapRows();
  drawCapSummary();
  $('capture').hidden = false;
  clearViews();
  const first = rows.find((x) => r.frames[2 * x.i] || r.frames[2 * x.i + 1]);
  if (first) await pickExchange(first.i, gen);
  else status('The capture holds no Kafka frames.');
}

function capFiltered() {
  const c = st.capture, api = $('cap-api').value, client = $('cap-client').value.trim().toLowerCase(), errs = $('cap-errors').checked;
  let rows = c.rows.filter((x) => (!api || x.apiText === api) && (!client || (x.clientId || '').toLowerCase().includes(client)) && (!errs || x.errorText));
  const [key, dir] = c.sort;
  const col = COLS.find((k) => k[0] === key);
  rows = rows.slice().sort((a, b) => {
    const x = col[2](a), y = col[2](b);
    return (x < y ? -1 : x > y ? 1 : a.i - b.i) * dir;
  });
  return rows;
}

function drawCapHead() {
  const tr = $('cap-table').tHead.rows[0];
  tr.replaceChildren();
  const [key, dir] = st.capture.sort;
  for (const [k, label] of COLS) {
    const th = el('th');
    th.scope = 'col';
    th.setAttribute('aria-sort', k === key ? (dir > 0 ? 'ascending' : 'descending') : 'none');
    const b = el('button', 'pg-sort', label + (k === key ? (dir > 0 ? ' ▲' : ' ▼') : ''));
    b.dataset.col = k;
    b.addEventListener('click', () => {
      const c = st.capture;
      c.sort = [k, c.sort[0] === k ? -c.sort[1] : 1];
      drawCapHead();
      drawCapRows();
    });
    th.appendChild(b);
    tr.appendChild(th);
  }
}

const CAP_SHOWN = 3000;
function drawCapRows() {
  const c = st.capture, rows = capFiltered();
  const body = $('cap-table').tBodies[0];
  body.replaceChildren();
  for (const x of rows.slice(0, CAP_SHOWN)) {
    const tr = el('tr');
    tr.dataset.exchange = x.i;
    tr.tabIndex = 0;
    if (x.i === c.current) tr.setAttribute('aria-current', 'true');
    if (x.errorText) tr.classList.add('pg-caperr');
    const cells = [x.i + 1, x.time === undefined ? '' : x.t.toFixed(3), x.conn, x.dirText, x.apiText, x.version, x.correlationId,
      x.requestBytes ?? '', x.responseBytes ?? '', x.latencyMs === undefined ? '' : x.latencyMs.toFixed(3), x.errorText];
    cells.forEach((v, j) => {
      const td = el('td', 'pg-c-' + COLS[j][0], String(v));
      if (j === 1 && x.time !== undefined) td.title = new Date(x.time).toISOString();
      if (j === 10 && x.decodeError) td.title = x.decodeError;
      if (j === 2) td.title = x.connTitle + (x.clientId ? ', client id ' + x.clientId : '');
      tr.appendChild(td);
    });
    tr.addEventListener('click', () => pickExchange(x.i, ++st.gen));
    tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pickExchange(x.i, ++st.gen); } });
    body.appendChild(tr);
  }
  $('cap-count').textContent = rows.length + ' of ' + c.rows.length + ' exchanges' + (rows.length > CAP_SHOWN ? ' (the first ' + CAP_SHOWN + ' shown)' : '');
}

function percentile(xs, p) { return xs.length ? xs[Math.floor(p * (xs.length - 1))] : undefined; }

// drawCapSummary is the CLI's pcap --summary table: per API, the versions
// seen, counts, errors, bytes and latency percentiles.
function drawCapSummary() {
  const by = new Map();
  for (const x of st.capture.rows) {
    const s = by.get(x.apiText) || { versions: new Map(), n: 0, errors: 0, bytes: 0, lat: [] };
    by.set(x.apiText, s);
    s.n++;
    s.versions.set(x.version, (s.versions.get(x.version) || 0) + 1);
    if (x.errorText) s.errors++;
    s.bytes += (x.requestBytes || 0) + (x.responseBytes || 0);
    if (x.latencyMs !== undefined) s.lat.push(x.latencyMs);
  }
  const body = $('cap-summary').tBodies[0];
  body.replaceChildren();
  const fmt = (v) => (v === undefined ? '' : v.toFixed(2));
  for (const [api, s] of [...by.entries()].sort((a, b) => b[1].n - a[1].n)) {
    s.lat.sort((a, b) => a - b);
    const tr = el('tr');
    const vs = [...s.versions.entries()].sort((a, b) => a[0] - b[0]).map(([v, n]) => 'v' + v + '×' + n).join(' ');
    for (const v of [api, vs, s.n, s.errors, s.bytes, fmt(percentile(s.lat, 0.5)), fmt(percentile(s.lat, 0.99))]) tr.appendChild(el('td', '', String(v)));
    body.appendChild(tr);
  }
}

// ---- the live feed of kwire proxy --web ----
// #live (or #live=URL) fills the capture table with the exchanges kwire
// proxy relays, as they happen: its Server-Sent Events (by default
// ../proxy/events, beside the playground) each carry one exchange's NDJSON
// line and its frames in base64. Rows are added in batches (every 100 ms
// at most); a click shows the exchange like a capture's.
const LIVE_MAX = 20000; // exchanges kept; later ones are counted, not shown

function fromB64(s) {
  const bin = atob(s);
  const b = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
  return b;
}

function liveTitle() {
  const c = st.capture, l = c.live, n = c.rows.length, k = c.summary.conns.length;
  $('cap-title').textContent = 'Live from kwire proxy: ' + n + ' exchange' + (n === 1 ? '' : 's') + ', ' + k + ' connection' + (k === 1 ? '' : 's') +
    (l.skipped ? ', ' + l.skipped + ' skipped by the proxy' : '') + (l.dropped ? ', ' + l.dropped + ' past the first ' + LIVE_MAX + ' not kept' : '') +
    ' (' + l.state + ')';
}

function openLive(url) {
  closeCapture();
  st.gen++;
  st.file = null;
  const live = { url, es: null, skipped: 0, dropped: 0, conns: new Map(), queue: [], t0: undefined, state: 'connecting', timer: 0 };
  st.capture = { summary: { exchanges: [], conns: [], packets: 0, notes: [] }, frames: [], rows: [], sort: ['i', 1], current: -1, live };
  const apiSel = $('cap-api');
  apiSel.replaceChildren(el('option', '', 'all'));
  apiSel.firstChild.value = '';
  $('cap-client').value = ''; $('cap-errors').checked = false;
  $('cap-notes').hidden = true;
  drawCapHead();
  drawCapRows();
  drawCapSummary();
  liveTitle();
  $('capture').hidden = false;
  clearViews();
  status('Waiting for exchanges from kwire proxy (' + url + ')…');
  const es = new EventSource(url);
  live.es = es;
  es.onopen = () => { live.state = 'connected'; liveTitle(); document.body.dataset.live = 'open'; };
  es.onerror = () => { live.state = es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'; liveTitle(); };
  es.addEventListener('exchange', (e) => {
    live.queue.push(JSON.parse(e.data));
    if (!live.timer) live.timer = setTimeout(liveFlush, 100);
  });
  es.addEventListener('skipped', (e) => { live.skipped += JSON.parse(e.data).skipped || 0; liveTitle(); });
}

async function liveFlush() {
  const c = st.capture;
  if (!c || !c.live) return;
  const l = c.live;
  l.timer = 0;
  const added = [];
  for (const ev of l.queue.splice(0)) {
    if (c.rows.length >= LIVE_MAX) { l.dropped++; continue; }
    const x = ev.exchange || {};
    const id = x.connId;
    if (!l.conns.has(id)) {
      const m = /^conn \d+ (\S+)->(\S+)$/.exec(x.conn || '');
      const conn = { id, client: m ? m[1] : '', broker: m ? m[2] : '' };
      l.conns.set(id, conn);
      c.summary.conns.push(conn);
    }
    const conn = l.conns.get(id);
    const req = ev.request ? fromB64(ev.request) : null, resp = ev.response ? fromB64(ev.response) : null;
    const rt = x.requestTime ? Date.parse(x.requestTime) : undefined, pt = x.responseTime ? Date.parse(x.responseTime) : undefined;
    const sx = {
      conn: id, apiKey: x.apiKey, apiName: x.apiName, version: x.apiVersion, correlationId: x.correlationId,
      requestTime: rt, responseTime: pt, requestBytes: req ? req.length : undefined, responseBytes: resp ? resp.length : undefined,
      latencyMs: x.latencyMs, noResponseExpected: !!x.noResponseExpected,
    };
    const i = c.summary.exchanges.length;
    c.summary.exchanges.push(sx);
    c.frames.push(req, resp);
    const time = rt ?? pt;
    if (l.t0 === undefined) l.t0 = time;
    const row = {
      ...sx, i, t: time === undefined || l.t0 === undefined ? 0 : (time - l.t0) / 1000, time,
      conn: '#' + id + ' ' + conn.client, connTitle: 'connection ' + id + ': client ' + conn.client + ' → broker ' + conn.broker,
      dirText: req && resp ? '⇄ both' : req ? (sx.noResponseExpected ? '→ no reply due' : '→ request only') : '← response only',
      apiText: x.apiName || (x.apiKey >= 0 ? 'API ' + x.apiKey : 'unknown'),
      errors: [], errorText: '', clientId: (x.request && x.request.header && x.request.header.clientId) ?? null,
    };
    c.rows.push(row);
    added.push(row);
  }
  liveTitle();
  if (!added.length) return;
  const apiSel = $('cap-api'), have = new Set([...apiSel.options].map((o) => o.value));
  for (const a of [...new Set(added.map((x) => x.apiText))].sort()) {
    if (!have.has(a)) { const o = el('option', '', a); o.value = a; apiSel.appendChild(o); }
  }
  drawCapRows();
  drawCapSummary();
  document.body.dataset.liveRows = String(c.rows.length);
  if (c.current < 0) status('Click an exchange to see its request and response.');
  // Error codes (and client ids) come from decoding the frames, in the worker.
  const scan = await rpc('scan', added.flatMap((r) => [c.frames[2 * r.i], c.frames[2 * r.i + 1]]), added.map((r) => r.apiKey), added.map((r) => r.version));
  if (st.capture !== c) return;
  scan.forEach((x, k) => {
    const row = added[k];
    row.clientId = x.clientId ?? row.clientId;
    row.errors = x.errors;
    row.errorText = x.errors.join(', ') || (x.requestError || x.responseError ? 'does not decode' : '');
    row.decodeError = x.requestError || x.responseError || '';
  });
  if (added.some((r) => r.errorText)) { drawCapRows(); drawCapSummary(); }
}

// pickExchange decodes an exchange's request and response side by side.
async function pickExchange(i, gen) {
  const c = st.capture, x = c.summary.exchanges[i];
  c.current = i;
  for (const tr of $('cap-table').tBodies[0].rows) {
    if (+tr.dataset.exchange === i) tr.setAttribute('aria-current', 'true'); else tr.removeAttribute('aria-current');
  }
  resetOutput();
  st.picked = null;
  const [req, resp] = [c.frames[2 * i], c.frames[2 * i + 1]];
  $('panels').classList.add('pg-pair');
  const [p0, p1] = st.panels;
  p0.hidden = false; p1.hidden = false;
  if (req) await p0.decode(req, { response: false, size: 'yes' }, 'Request');
  else { p0.clear(); p0.e.title.textContent = 'Request: not in the capture'; }
  if (gen !== st.gen) return;
  if (resp && x.apiKey >= 0) await p1.decode(resp, { response: true, api: x.apiKey, version: x.version, size: 'yes' }, 'Response');
  else if (resp) { p1.clear(); p1.e.title.textContent = 'Response: its request (and so its API) is not in the capture'; }
  else { p1.clear(); p1.e.title.textContent = x.noResponseExpected ? 'Response: none expected (acks=0)' : 'Response: not in the capture'; }
  if (gen !== st.gen) return;
  st.sum = p0.sum;
  status('Capture exchange ' + (i + 1) + ': ' + (x.apiName || 'API ' + x.apiKey) + ' v' + x.version + ', correlation id ' + x.correlationId +
    (x.latencyMs !== undefined ? ', answered in ' + x.latencyMs.toFixed(3) + ' ms' : ''));
  document.body.dataset.decoded = String(gen);
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
  if ($('kafka-form').checked) p.set('form', 'kafka');
  history.replaceState(null, '', '#' + p.toString());
}

// setJSONForm shows value JSON in Kafka's own form (every bytes field
// base64) or kwire's (records and consumer-protocol data decoded), in
// every panel.
async function setJSONForm() {
  const kafka = $('kafka-form').checked;
  await rpc('jsonForm', kafka);
  for (const p of st.panels) if (p.sum) await p.loadJSON(p.sum);
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('hex') || h.has('b64') || h.has('in')) {
    if (kafka) h.set('form', 'kafka'); else h.delete('form');
    history.replaceState(null, '', '#' + h.toString());
  }
}

async function readLink() {
  const h = location.hash.slice(1);
  if (!h) return false;
  const p = new URLSearchParams(h);
  if (p.has('live')) {
    setMode('decode');
    openLive(new URL(p.get('live') || '../proxy/events', location.href).href);
    return true;
  }
  if (p.get('mode') === 'encode') {
    setMode('encode');
    if (p.has('json')) $('enc-json').value = p.get('json');
    if (p.has('api')) await exampleFromLink(p);
    runEncode();
    return true;
  }
  const text = p.get('hex') || p.get('b64') || p.get('in');
  if (!text) return false;
  setMode('decode');
  $('dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  const api = p.get('api');
  $('api').value = 'auto';
  $('ver').value = p.get('v') || '';
  $('size').value = ['yes', 'no'].includes(p.get('size')) ? p.get('size') : 'auto';
  if ($('kafka-form').checked !== (p.get('form') === 'kafka')) {
    $('kafka-form').checked = p.get('form') === 'kafka';
    await rpc('jsonForm', $('kafka-form').checked);
  }
  $('mode').value = p.has('b64') ? 'base64' : /^[0-9a-fA-F\s]*$/.test(text) ? 'hex' : 'auto';
  st.file = null;
  $('input').value = text;
  if (api !== null) {
    // The API may be named: the list of names comes with the module.
    await apisReady;
    const a = /^\d+$/.test(api) ? st.byKey.get(+api) : st.apis.find((x) => x.name.toLowerCase() === api.toLowerCase());
    $('api').value = a ? String(a.key) : 'auto';
  }
  decodeInput();
  return true;
}

async function exampleFromLink(p) {
  await apisReady;
  const a = st.byKey.get(+p.get('api'));
  if (!a) return;
  $('ex-api').value = a.key; $('ex-ver').value = p.get('v') || 0; $('ex-dir').value = p.get('dir') === 'response' ? 'response' : 'request';
  await loadExample();
}

// ---- examples: one click each ----
async function drawExamples() {
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

async function loadDecodeExample(x) {
  setMode('decode');
  $('dir').value = x.dir || 'request';
  $('api').value = x.api !== undefined && x.dir === 'response' ? String(x.api) : 'auto';
  $('ver').value = x.dir === 'response' && x.v !== undefined ? x.v : '';
  $('size').value = 'auto';
  if (x.file) {
    const bytes = new Uint8Array(await (await fetch(x.file)).arrayBuffer());
    st.file = { name: x.file, bytes };
    $('input').value = '';
    $('input').placeholder = x.file + ' (' + bytes.length + ' bytes, binary); type or paste here to replace it';
  } else {
    st.file = null;
    $('mode').value = 'hex';
    $('input').value = x.hex;
  }
  decodeInput();
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
  const sum = st.panels[0].sum;
  if (sum && !sum.error) {
    const lines = await st.panels[0].rpc('jsonLines', 0, await st.panels[0].rpc('jsonCount'));
    $('enc-json').value = lines.join('\n');
    $('enc-nosize').checked = !sum.sizePrefix;
    $('ex-api').value = sum.apiKey; $('ex-ver').value = sum.apiVersion; $('ex-dir').value = sum.direction;
  } else if (!$('enc-json').value.trim()) {
    await loadExample();
  }
  runEncode();
}

async function loadExample() {
  const js = await rpc('example', +$('ex-api').value, +$('ex-ver').value, $('ex-dir').value === 'response');
  if (!js) { showError($('enc-error'), 'No example: ' + $('ex-dir').value + ' version ' + $('ex-ver').value + ' is not defined for this API.'); return; }
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
  const gen = ++st.encGen;
  const r = await rpc('encode', text, $('enc-nosize').checked);
  if (gen !== st.encGen) return;
  const ep = st.panels[2];
  if (r.error) {
    const e = r.error;
    const at = e.path ? locate(text, e.path) : null;
    showError($('enc-error'), (e.path ? 'At ' + e.path + (at ? ' (' + lineCol(text, at[0]) + ')' : '') + ': ' : '') + e.message);
    st.encErrorAt = at;
    $('enc-hex').textContent = '';
    st.encoded = null;
    $('enc-copy-hex').disabled = $('enc-copy-b64').disabled = true;
    ep.clear();
    return;
  }
  showError($('enc-error'), '');
  st.encoded = r.bytes;
  $('enc-hex').textContent = toHex(r.bytes);
  $('enc-copy-hex').disabled = $('enc-copy-b64').disabled = false;
  // The encoded frame, drawn as the decoder reads it back.
  let env = {};
  try { env = JSON.parse(text); } catch { /* the bytes say it all */ }
  const resp = env.direction === 'response';
  const sum = await ep.decode(r.bytes, { response: resp, api: env.apiKey, version: env.apiVersion, size: $('enc-nosize').checked ? 'no' : 'yes' }, 'Encoded');
  if (gen !== st.encGen) return;
  $('enc-status').textContent = r.bytes.length + ' bytes' + (sum.error ? '; they do not decode back: ' + sum.error.message : '; decoded back below');
  document.body.dataset.encoded = String(gen);
}, 120);

// ---- copying ----
async function copyText(text, what) {
  st.copied = text;
  try { await navigator.clipboard.writeText(text); status('Copied ' + what + ' (' + text.length + ' characters).'); return true; } catch { return false; }
}
async function copy(kind) {
  const p = st.active, s = p && p.sel;
  if (!s) return;
  let text;
  if (kind === 'json') text = s.node >= 0 ? await p.rpc('nodeJSON', s.node) : '';
  else {
    const b = await p.rpc('slice', s.buf, s.start, s.end);
    text = kind === 'hex' ? toHex(b) : toB64(b);
  }
  if (!await copyText(text, kind)) {
    status('The browser refused the clipboard; the text is in the selection bar.');
    $('sel-desc').textContent = text.slice(0, 2000);
  }
}
async function encCopy(kind) {
  const text = kind === 'json' ? $('enc-json').value : st.encoded ? (kind === 'hex' ? toHex(st.encoded) : toB64(st.encoded)) : '';
  if (!text) return;
  const ok = await copyText(text, kind);
  $('enc-status').textContent = ok ? 'Copied ' + kind + ' (' + text.length + ' characters).' : 'The browser refused the clipboard.';
}

// ---- start ----
// Everything is wired at once, before the module has loaded: what is typed
// or dropped early waits in the worker's queue and decodes when it is ready.
st.encGen = 0;
st.panels = [
  new Panel(0, $('panels'), { tree: 'tree', json: 'json', hex: 'hex', grids: 'grids', hexbuf: 'hex-buf', error: 'error', warn: 'warnings', limit: 'limit', views: 'views', title: 'frame-title', doc: 'doc-link' }),
  new Panel(1, $('panels'), { tree: 'tree-2', json: 'json-2', hex: 'hex-2', grids: 'grids-2', error: 'error-2', warn: 'warnings-2', limit: 'limit-2', title: 'frame-title-2', doc: 'doc-link-2' }),
  new Panel(2, $('enc-panel'), { grids: 'enc-grids', tree: 'enc-tree', title: 'enc-title' }),
];
for (const p of st.panels) p.clear();
st.panels[1].hidden = true;

$('input').addEventListener('input', () => { st.file = null; run(); });
for (const id of ['dir', 'api', 'ver', 'size']) $(id).addEventListener('change', redo);
$('mode').addEventListener('change', run);
$('kafka-form').addEventListener('change', setJSONForm);
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
$('enc-copy-hex').addEventListener('click', () => encCopy('hex'));
$('enc-copy-b64').addEventListener('click', () => encCopy('base64'));
$('enc-copy-json').addEventListener('click', () => encCopy('json'));
for (const id of ['cap-api', 'cap-errors']) $(id).addEventListener('change', drawCapRows);
$('cap-client').addEventListener('input', debounce(drawCapRows, 100));

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

const apisReady = rpc('init').then((apis) => {
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
  if (!linked) status('Paste bytes above, pick an example, open a file, or drop one here.');
});

if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  navigator.serviceWorker.register('sw.js').catch(() => {});
}
})();
