// What the views draw: a frame's nodes, grid rows, tree rows, JSON and hex
// lines as elements, and the small rules they share (spans, values,
// confidence, links to the reference pages). Every text from a frame is
// set with textContent (el) or as a title, its invisible characters
// escaped (shown), in a box of its own direction (style.css isolates
// the value cells).
import { el, hex2, shown } from './dom.js';

export function isTime(name, v) {
  return /(timestamp|timems|time)$/i.test(name) && !/delta/i.test(name) && Number(v) >= 1e11 && Number(v) < 1e14;
}
// utcDate is an epoch-milliseconds timestamp as a UTC date and time:
// "2024-05-01 12:00:00.000 UTC".
export function utcDate(v) {
  const d = new Date(Number(v));
  return isNaN(d) ? '' : d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}

// frameName says what a decoded frame is: its API, version and direction,
// but only when its header was read whole; junk whose "header" failed is
// no API's frame, however its first bytes read. A raw SASL token (decoded
// with data 'sasl') says the message it holds, as its value's type names
// it ("bytes (SASL SCRAM client-first)"), or that it is empty.
export function frameName(sum) {
  if (sum.data === 'sasl') {
    const m = /\(SASL (.+)\)$/.exec(sum.valueType || '');
    return 'SASL token' + (m ? ' (' + m[1] + ')' : sum.buffers[0].len === 4 && sum.sizePrefix && !sum.error ? ' (empty)' : '');
  }
  if (!sum.headerDecoded) return 'not a Kafka ' + sum.direction + ' (its header does not decode)';
  return (sum.apiName || 'API ' + sum.apiKey) + ' v' + sum.apiVersion + ' ' + sum.direction;
}
// nodeLimit says whether the frame's limit note is about the MaxNodes
// limit (a limit that cut records, or the frame's own fields, short).
const nodeLimit = (sum) => !!(sum.limit && /MaxNodes/.test(sum.limit.message));

// nodesText is the status line's count of the frame's nodes: beside the
// MaxNodes limit, said as what it is, so that a count under the limit
// does not contradict the note that the limit cut decoding short.
export function nodesText(sum) {
  if (!nodeLimit(sum) || !sum.maxNodes) return sum.nodeCount + ' nodes';
  return sum.nodeCount + ' nodes in the tree (the MaxNodes limit, ' + sum.maxNodes + ', counts ' + sum.spentNodes + ' here: see the note on the frame)';
}

// limitText is the note on a frame a limit cut short: where and the
// codec's words, and for the MaxNodes limit what it counts and why the
// tree can end under it.
export function limitText(sum) {
  const lim = sum.limit;
  let s = 'A limit cut decoding short at byte ' + lim.offset + (lim.buf ? ' of decompressed buffer ' + lim.buf : '') + ': ' + lim.message + '.';
  if (nodeLimit(sum) && sum.maxNodes) {
    s += ' The browser\'s MaxNodes limit is ' + sum.maxNodes + ' nodes a frame; it counts the tree\'s nodes and 2 for each warning that is not a limit\'s: ' +
      sum.spentNodes + ' for this frame, whose tree has ' + sum.nodeCount + ' nodes.';
    if (sum.spentNodes < sum.maxNodes) {
      s += ' Records stop at their share of the limit (the rest is kept for the frame\'s own fields after them), so the limit cut them before the frame reached it.';
    }
  }
  return s + ' The browser decodes with smaller limits than the kwire command line, which can decode this frame whole.';
}

// showValue is a tree row's value: strings quoted, bytes that are text
// as the grid and kwire decode's tree show them (quoted, with their
// length: the worker's text), other bytes as their base64 or size.
export function showValue(n) {
  // Decoding failed in this value: what its fields hold (0, "") was never read.
  if (n.broken && !n.hasKids && n.value !== undefined) return '(not read)';
  if (n.null) return 'null';
  if (n.text !== undefined) return n.text;
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
export function flatNode(r) {
  const n = r.node;
  return {
    id: r.id, depth: r.depth, kids: r.kids, open: r.open, hasKids: r.kids > 0,
    name: r.label || n.name, type: n.type, start: n.start, end: n.end, buf: n.buf || 0,
    value: n.value, valueName: n.valueName, null: !!n.null, size: n.size, text: r.text,
    warnings: n.warnings || null, broken: !!n.broken, truncated: !!n.truncated,
  };
}

// drawBits shows the bit fields of an attributes cell on the bit ruler:
// bit 0 is the least significant, so it sits in the rightmost column.
export function drawBits(c) {
  const w = (c.end - c.start) * 8;
  const box = el('span', 'pg-bits');
  box.style.gridTemplateColumns = 'repeat(' + w + ', 1fr)';
  for (const b of c.bits) {
    const m = /^bits? (\d+)(?:-(\d+))?$/.exec(b.type);
    if (!m) continue;
    const lo = +m[1], hi = m[2] === undefined ? lo : +m[2];
    if (hi >= w) continue;
    const set = b.value !== 'false' && parseInt(b.value, 10) !== 0; // "0 none" is unset; "4 zstd" set
    const f = el('span', 'pg-bit' + (set ? ' pg-bit-set' : ''), b.name + '=' + b.value);
    f.style.gridColumn = (w - hi) + ' / ' + (w - lo + 1);
    f.title = shown(b.name + ' (' + b.type + ') = ' + b.value);
    box.appendChild(f);
  }
  return box;
}

export function within(a, b) { // span a inside span b
  return a && b && a.buf === b.buf && a.start >= b.start && a.end <= b.end && a.end > a.start;
}
export function overlaps(buf, start, end, s) {
  return s && s.buf === buf && start < s.end && end > s.start;
}
export const confidence = (c) => (c >= 0.9 ? 'very likely' : c >= 0.6 ? 'likely' : c >= 0.3 ? 'possible' : 'unlikely') + ' (' + Math.round(c * 100) + '%)';
export const docsHref = (name, v, dir) => '../api/' + encodeURIComponent(name.toLowerCase()) + '/v' + v + '.html#' + dir;

export function drawGridRow(panel, buf, r) {
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
      const n = await panel.rpc('expandCell', buf, r.cell.index);
      const v = panel.views['grid' + buf];
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
    const date = c.value !== undefined && isTime(c.label, c.value) ? utcDate(c.value) : '';
    e.title = shown((c.path || c.label) + ' (' + c.type + ') [' + c.start + ', ' + c.end + ')' + (c.value !== undefined ? ' = ' + c.value : '') + (date ? ' (' + date + ')' : ''));
    e.appendChild(el('span', 'kw-label', c.label));
    if (c.bits && s.first && s.last) e.appendChild(drawBits(c));
    else if (c.value !== undefined && s.first) e.appendChild(el('span', 'kw-val', c.value));
    if (date && s.first) e.appendChild(el('span', 'kw-val kw-date', date));
    row.appendChild(e);
  }
  return row;
}

export function drawTreeRow(panel, row) {
  const n = flatNode(row);
  const r = el('div', 'pg-row');
  r.setAttribute('role', 'treeitem');
  r.setAttribute('aria-level', n.depth + 1);
  if (n.hasKids) r.setAttribute('aria-expanded', n.open);
  r.dataset.node = n.id; r.dataset.start = n.start; r.dataset.end = n.end; r.dataset.buf = n.buf;
  r.style.paddingLeft = (0.3 + n.depth * 1.1) + 'em';
  if (n.broken) r.classList.add('pg-broken');
  const t = el('span', 'pg-tog', n.hasKids ? (n.open ? '▾' : '▸') : ' ');
  t.addEventListener('click', (e) => { e.stopPropagation(); panel.toggle(n.id); });
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
    const d = utcDate(n.value);
    if (d) r.appendChild(el('span', 'pg-vname pg-date', ' ' + d));
  }
  if (n.hasKids && !n.open) r.appendChild(el('span', 'pg-type', ' {' + n.kids + '}'));
  r.appendChild(el('span', 'pg-range', '  [' + n.start + ', ' + n.end + ')' + (n.buf ? ' buf ' + n.buf : '')));
  if (n.warnings) r.appendChild(el('span', 'pg-wmark', ' ⚠ ' + n.warnings.join('; ')));
  r.title = shown(n.name + ' ' + n.type + ' [' + n.start + ', ' + n.end + ')');
  return r;
}

export function drawJSONLine(l, i) {
  const r = el('div', 'pg-row', l);
  r.dataset.line = i;
  r.setAttribute('role', 'option');
  return r;
}

export function drawHexLine(buf, line) {
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

