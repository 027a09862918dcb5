// A Panel shows one decoded frame (grid, tree, value JSON, hex) held in a
// worker slot: panel 0 the frame being decoded (a capture's request),
// panel 1 a capture's response beside it, panel 2 encode mode's bytes.
// The frame stays in the worker; the panel asks for the window it shows.
import { $, el, shown } from './dom.js';
import { rpcAt } from './rpc.js';
import { st, GRID_ROW, LINE } from './state.js';
import { Virtual } from './virtual.js';
import { flatNode, within, overlaps, docsHref, frameName, limitText, showValue, drawGridRow, drawTreeRow, drawJSONLine, drawHexLine } from './views.js';

// showSelection shows p's selection in the selection bar, or hides the
// bar (p null). The bar belongs to the mode on screen: encode mode's
// panel (slot 2) shows there in encode mode only, decode mode's panels in
// decode mode only.
export function showSelection(p) {
  const encoding = !$('encode-pane').hidden;
  if (p && (p.slot === 2) !== encoding) return;
  st.active = p;
  $('selbar').hidden = !p;
  $('sel-desc').textContent = p ? p.desc : '';
  if (!p) $('sel-live').textContent = '';
}

// Where the window is narrow (a phone's, 320 px at 400% zoom), a grid
// cell's label wraps rather than ends in an ellipsis (style.css, WCAG
// 1.4.10): a grid's rows, all of one height (virtual.js), grow to hold
// the tallest cell drawn yet. They never shrink while the window stays
// narrow, so rows in view do not jump back and forth; wide again, the
// labels are one line and the rows their own height.
const narrow = matchMedia('(max-width: 640px)');
function fitRows(v) {
  if (!narrow.matches) return;
  let over = 0;
  for (const c of v.box.querySelectorAll('.kw-cell')) over = Math.max(over, c.scrollHeight - c.clientHeight);
  if (over <= 0) return;
  setRowHeight(v, v.rowH + over);
}
// setRowHeight draws v's rows h high, the row at the top of the box kept there.
function setRowHeight(v, h) {
  const y = v.box.scrollTop, at = y <= v.top ? y : v.top + (y - v.top) / v.rowH * h;
  v.rowH = h;
  if (h === GRID_ROW) v.box.style.removeProperty('--kw-rowh'); else v.box.style.setProperty('--kw-rowh', h + 'px');
  v.setCount(v.count);
  v.update(true, at);
}
// A window made narrower, or wide again: the grids drawn anew (fitted).
let refit = 0;
const refitGrids = () => {
  cancelAnimationFrame(refit);
  refit = requestAnimationFrame(() => {
    for (const p of st.panels) {
      if (!p) continue;
      for (const [k, v] of Object.entries(p.views)) {
        if (!k.startsWith('grid') || !v.count) continue;
        if (narrow.matches) v.update(true); else if (v.rowH !== GRID_ROW) setRowHeight(v, GRID_ROW);
      }
    }
  });
};
narrow.addEventListener('change', refitGrids);
addEventListener('resize', () => { if (narrow.matches) refitGrids(); });

// The bar is fixed at the bottom of the window: the page keeps its height
// clear when it scrolls what takes the focus into view (scroll-padding),
// so a link or box tabbed to is never hidden under it (at 320 px wide the
// bar wraps to two lines).
new ResizeObserver(() => {
  const bar = $('selbar');
  document.documentElement.style.scrollPaddingBottom = bar.hidden ? '' : bar.offsetHeight + 8 + 'px';
}).observe($('selbar'));

// announce says a selection in the page's polite live region (#sel-live)
// as the reference pages' note says theirs: a screen reader hears each
// selection the arrow keys make in the grid, the tree or the JSON, whose
// focus stays on the box (the rows in view are the only ones drawn). Only
// the panel on screen speaks.
function announce(p, text) {
  if (st.active === p) $('sel-live').textContent = text;
}

// activeDescendant points box (the focused grid, tree or list) at el, the
// element drawn for the selection, or at nothing when it is not drawn.
function activeDescendant(box, el, id) {
  const old = box.querySelector('#' + id);
  if (old && old !== el) old.removeAttribute('id');
  if (el) { el.id = id; box.setAttribute('aria-activedescendant', id); } else box.removeAttribute('aria-activedescendant');
}

export class Panel {
  constructor(slot, host, ids) {
    this.slot = slot;
    const root = $('panel-tpl').content.firstElementChild.cloneNode(true);
    host.appendChild(root);
    this.root = root;
    const q = (s) => root.querySelector(s);
    this.e = {
      title: q('.pg-ptitle'), doc: q('.pg-doclink'), frames: q('.pg-pframes'), error: q('.pg-perror'), limit: q('.pg-plimit'), warn: q('.pg-pwarn'),
      views: q('.pg-views'), grids: q('.pg-grids'), tree: q('.pg-tree'), json: q('.pg-json'), hex: q('.pg-hex'), hexbuf: q('.pg-hexbuf'),
    };
    if (ids) for (const k of Object.keys(ids)) this.e[k].id = ids[k];
    // A panel's state, all of it.
    this.sum = null; // the summary of the frame shown (null: none)
    this.bytes = null; // the frame's bytes
    this.hl = null; // the hovered span: {buf, start, end, node, lines?}
    this.sel = null; // the selected span: {buf, start, end, node, part?, lines?}
    this.desc = ''; // the selection as the selection bar says it
    this.jsonReady = false; // the value JSON's lines are counted and can be asked for
    this.views = {}; // the virtual lists: tree, json, hex, and grid<buf> for each buffer
    const paint = () => this.paint();
    this.views.tree = new Virtual(this.e.tree, LINE, (from, n) => this.rpc('treeRows', from, n), (r) => drawTreeRow(this, r), paint);
    this.views.json = new Virtual(this.e.json, LINE, (from, n) => this.rpc('jsonLines', from, n), (l, i) => drawJSONLine(l, i), paint);
    this.views.hex = new Virtual(this.e.hex, LINE, (from, n) => this.rpc('hexLines', this.views.hex.buf || 0, from, n), (l) => drawHexLine(this.views.hex.buf || 0, l), paint);
    this.wire(this.e.tree, 'tree');
    this.wire(this.e.hex, 'hex');
    this.wire(this.e.json, 'json');
    this.e.tree.addEventListener('keydown', (e) => this.treeKey(e));
    this.e.json.addEventListener('keydown', (e) => this.jsonKey(e));
    this.e.hex.addEventListener('keydown', (e) => this.byteKey(e, this.views.hex.buf || 0, this.views.hex, 16));
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
    this.e.frames.replaceChildren(); this.e.frames.hidden = true;
    this.desc = '';
    if (st.active === this) showSelection(null);
  }

  // decode decodes bytes into this panel's slot and draws it: a frame, or
  // with o.data what codec.Options.Data names ('sasl': a raw SASL token).
  async decode(bytes, o, title) {
    const t0 = performance.now();
    const sum = await this.rpc('decode', bytes, { response: o.response, api: o.api || 0, version: o.version || 0, size: o.size, data: o.data || '' });
    sum.rpcMs = performance.now() - t0;
    this.bytes = bytes;
    this.show(sum, title);
    await new Promise((r) => requestAnimationFrame(() => r()));
    sum.firstScreenMs = performance.now() - t0;
    return sum;
  }

  show(sum, title) {
    this.sum = sum; this.hl = this.sel = null; this.desc = '';
    if (st.active === this) showSelection(null);
    this.e.title.textContent = shown((title ? title + ': ' : '') + frameName(sum) + ', ' + sum.buffers[0].len + ' bytes');
    if (sum.apiName && sum.headerDecoded) {
      this.e.doc.href = docsHref(sum.apiName, sum.apiVersion, sum.direction);
      this.e.doc.textContent = 'Reference page for ' + sum.apiName + ' v' + sum.apiVersion;
      this.e.doc.hidden = false;
    } else this.e.doc.hidden = true;
    const err = sum.error;
    if (err) {
      this.e.error.textContent = shown(err.offset >= 0
        ? 'Decoding stopped at byte ' + err.offset + (err.buf ? ' of decompressed buffer ' + err.buf : '') + (err.path ? ' (' + err.path + ')' : '') +
          ': expected ' + err.expected + (err.found ? ', found ' + err.found : '') + '. What was read before it is shown below; the error is marked in the grid and the hex.'
        : err.message);
      this.e.error.dataset.offset = err.offset;
    }
    this.e.error.hidden = !err;
    const lim = sum.limit;
    if (lim) this.e.limit.textContent = shown(limitText(sum));
    this.e.limit.hidden = !lim;
    const wl = this.e.warn;
    wl.replaceChildren();
    for (const w of sum.warnings) {
      const li = el('li', w.limit ? 'pg-wlimit' : '', 'Byte ' + w.offset + (w.buf ? ' of buffer ' + w.buf : '') + ': ' + w.message);
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
      // The ruler counts bytes, as the row offsets do (four a row).
      const ruler = el('div', 'kw-ruler');
      ruler.setAttribute('aria-hidden', 'true');
      ruler.appendChild(el('span', 'kw-off'));
      for (let i = 0; i < 4; i++) ruler.appendChild(el('span', 'kw-rb', '+' + i));
      box.appendChild(ruler);
      box.appendChild(el('div', 'pg-spacer'));
      wrap.appendChild(box);
      grids.appendChild(wrap);
      const v = new Virtual(box, GRID_ROW, (from, n) => this.rpc('gridRows', b.buf, from, n), (r) => drawGridRow(this, b.buf, r), () => { this.paint(); fitRows(v); }, 18);
      v.setCount(b.rows);
      this.views['grid' + b.buf] = v;
      this.wire(box, 'grid');
      box.addEventListener('keydown', (e) => this.byteKey(e, b.buf, this.views['grid' + b.buf], 4));
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

  // paint marks, in every view, what the hovered and the selected node
  // cover. Hover is a tint; selection a solid outline: never the same.
  paint() {
    const hl = this.hl, sel = this.sel, err = this.sum && this.sum.error, uid = 'pg' + this.slot;
    for (const box of this.e.grids.querySelectorAll('.pg-gridbox')) {
      const cells = sel ? box.querySelectorAll('.kw-cell[data-buf]') : [];
      let at = null;
      for (const c of cells) {
        const s = { buf: +c.dataset.buf, start: +c.dataset.start, end: +c.dataset.end };
        if (!within(s, sel)) continue;
        if (!at || (sel.part && s.start === sel.part.start)) at = c;
      }
      activeDescendant(box, at, uid + '-grid' + box.dataset.buf + '-sel');
    }
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
    activeDescendant(this.e.tree, sel ? this.e.tree.querySelector('.pg-row[aria-selected="true"]') : null, uid + '-tree-sel');
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
    activeDescendant(this.e.json, sel ? this.e.json.querySelector('.pg-row[aria-selected="true"]') : null, uid + '-json-sel');
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
    if (this.slot !== 2) st.activeDecode = this;
    this.paint();
    this.desc = '';
    showSelection(this);
    const path = span.node >= 0 ? await this.rpc('path', span.node) : '';
    const part = span.part && (span.part.start !== span.start || span.part.end !== span.end)
      ? '  (pointed at [' + span.part.start + ', ' + span.part.end + '))' : '';
    if (this.sel === span) {
      this.desc = shown((path || 'bytes') + '  [' + span.start + ', ' + span.end + ')' + (span.buf ? ' in buffer ' + span.buf : '') +
        '  ' + (span.end - span.start) + ' bytes' + part);
      if (st.active === this) $('sel-desc').textContent = this.desc;
    }
    const where = '[' + span.start + ', ' + span.end + ')' + (span.buf ? ' in buffer ' + span.buf : '') + ', ' + (span.end - span.start) + ' bytes';
    if (span.node < 0 && this.sel === span) announce(this, 'Selected: bytes ' + where);
    if (span.node >= 0) {
      const r = await this.rpc('reveal', span.node);
      if (r && this.sel === span) {
        const n = flatNode(r.node), v = showValue(n);
        announce(this, shown('Selected: ' + (path || n.name) + ', ' + n.type + (v ? ' = ' + v : '') + (n.valueName ? ' ' + n.valueName : '') + ', bytes ' + where + (part ? ', ' + part.trim() : '')));
      }
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
      // The hex's own keys keep the byte moved to in sight, not its node's start.
      this.views.hex.scrollTo(Math.floor((from === 'hexkeys' && span.part ? span.part : span).start / 16));
    }
    this.paint();
    document.body.dataset.selected = String((+document.body.dataset.selected || 0) + 1);
  }

  async toggle(id, open) {
    const n = await this.rpc('setOpen', id, open);
    this.views.tree.setCount(n);
    this.views.tree.update(true);
  }

  // pageRows is how many rows of a view make a page: those in sight, less
  // one kept from the page before.
  pageRows(v) { return Math.max(1, Math.floor((v.box.clientHeight - v.top) / v.rowH) - 1); }

  // byteKey moves the selection, in the grid (a row: four bytes) or the
  // hex dump (a row: sixteen), by a cell (arrows left and right), a row
  // (up and down), a page, or to the first or last byte. Home, End and the
  // page keys are the view's own, not the browser's scroll, which glides
  // there over a megabyte of rows with none drawn on the way. In the hex,
  // a byte no cell covers is selected alone, as a click on it does.
  async byteKey(e, buf, view, perRow) {
    const sel = this.sel, hex = view === this.views.hex;
    if (!this.sum || !['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp', 'Enter', 'Home', 'End', 'PageDown', 'PageUp'].includes(e.key)) return;
    e.preventDefault();
    if (e.key === 'Enter') { if (sel && sel.node >= 0) this.toggle(sel.node, true); return; }
    const page = perRow * this.pageRows(view);
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: perRow, ArrowUp: -perRow, PageDown: page, PageUp: -page }[e.key];
    const len = (this.sum.buffers.find((b) => b.buf === buf) || { len: 1 }).len;
    const cur = sel && sel.buf === buf ? (sel.part || sel) : null;
    let off = cur ? (step > 0 ? cur.end - 1 : cur.start) + step : 0;
    if (e.key === 'Home') off = 0;
    if (e.key === 'End') off = len - 1;
    off = Math.max(0, Math.min(len - 1, off));
    const c = await this.rpc('cellAt', buf, off);
    const from = hex ? 'hexkeys' : 'keys';
    if (c) this.select({ buf, start: c.nodeStart, end: c.nodeEnd, node: c.node, part: { start: c.start, end: c.end } }, from);
    else if (hex && len > 0) this.select({ buf, start: off, end: off + 1, node: -1 }, from);
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
    const keys = ['ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft', 'Enter', 'Home', 'End', 'PageDown', 'PageUp'];
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
      // A page: as many rows as the tree shows, less one kept in sight.
      case 'PageDown': idx = node ? Math.min(tv.count - 1, idx + this.pageRows(tv)) : 0; break;
      case 'PageUp': idx = Math.max(0, idx - this.pageRows(tv)); break;
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
