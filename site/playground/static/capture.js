// Captures: a table of exchanges (sortable, filtered by API, client id and
// errors), the per-API summary, and an exchange's request and response
// decoded side by side in panels 0 and 1.
import { $, el, shown, status, showError } from './dom.js';
import { confidence } from './views.js';
import { rpc } from './rpc.js';
import { st } from './state.js';
import { resetOutput, clearViews } from './decode.js';
import { setLink } from './link.js';

// The exchanges table's columns, in Wireshark's spirit: what a row is
// first (number, time, API, client), how it went next, where it ran last.
// Each: [key, heading, sort value, cell text]. A version the capture does
// not know (a response whose request is not in it) is blank, not -1, as
// are a raw SASL token's version and correlation id (it has neither); the
// errors sort as they read, the expected ones with them. A frame the
// capture holds only in part counts the bytes captured of its whole
// ("30 of 95").
const errorCell = (x) => [x.errorText, ...x.expected.map((n) => n + ' (expected)')].filter(Boolean).join(', ');
const bytesCell = (n, missing) => (n === undefined ? '' : missing ? n + ' of ' + (n + missing) : n);
const COLS = [
  ['i', '#', (x) => x.i + 1, (x) => x.i + 1],
  ['time', 'Time (s)', (x) => x.t, (x) => (x.time === undefined ? '' : x.t.toFixed(3))],
  ['api', 'API', (x) => x.apiText, (x) => x.apiText],
  ['version', 'Version', (x) => x.version, (x) => (x.version >= 0 ? x.version : '')],
  ['client', 'Client id', (x) => x.clientId ?? '', (x) => x.clientId ?? ''],
  ['latency', 'Latency ms', (x) => x.latencyMs ?? -1, (x) => (x.latencyMs === undefined ? '' : x.latencyMs.toFixed(3))],
  ['error', 'Error', errorCell, errorCell],
  ['reqBytes', 'Req. bytes', (x) => x.requestBytes ?? -1, (x) => bytesCell(x.requestBytes, x.requestMissing)],
  ['respBytes', 'Resp. bytes', (x) => x.responseBytes ?? -1, (x) => bytesCell(x.responseBytes, x.responseMissing)],
  ['corr', 'Corr. id', (x) => x.correlationId, (x) => (x.saslToken ? '' : x.correlationId)],
  ['conn', 'Connection', (x) => x.conn, (x) => x.conn],
  ['dir', 'Direction', (x) => x.dirText, (x) => x.dirText],
];

// scanned fills a row from the worker's scan of its frames: the client id,
// the error codes that mean a failure, those that are a normal step of a
// protocol (expected), and whether a side failed to decode. A side the
// capture holds only in part stops where its bytes do, which is no
// failure of them (kwire pcap says the same).
export function scanned(row, x) {
  const reqErr = row.requestMissing ? '' : x.requestError, respErr = row.responseMissing ? '' : x.responseError;
  row.clientId = x.clientId ?? row.clientId;
  row.errors = x.errors;
  row.expected = x.expected || [];
  row.errorText = x.errors.join(', ') || (reqErr || respErr ? 'does not decode' : '');
  row.decodeError = reqErr || respErr || '';
}

// inPart says which sides of an exchange the capture holds only in part
// (bytes lost, or cut by the snap length, inside them), "" for none:
// "request", "response" or "request and response".
const inPart = (x) => [x.requestMissing && 'request', x.responseMissing && 'response'].filter(Boolean).join(' and ');

// partTitle is what a panel's title says of a side held only in part.
const partTitle = (side, missing) => side + ', captured in part (' + missing + ' byte' + (missing === 1 ? '' : 's') + ' of it ' + (missing === 1 ? 'was' : 'were') + ' not captured)';

// cutHeader names the frame of a panel that the capture cut inside its
// header, which the decode cannot name: the capture read the exchange's
// API and version from the request's first bytes, before the cut.
function cutHeader(p, x, side, missing) {
  if (!missing || !p.sum || p.sum.headerDecoded || x.apiKey < 0) return;
  p.e.title.textContent = shown(partTitle(side, missing) + ': ' + (x.apiName || 'API ' + x.apiKey) + ' v' + x.version + ' ' + side.toLowerCase() +
    ', cut inside its header, ' + p.sum.buffers[0].len + ' bytes');
}

// frameOptions shows or hides the options that apply to one frame
// (direction, API, version, size prefix, input form): a capture's
// exchanges carry their own.
export function frameOptions(show) {
  $('frame-opts').hidden = !show;
}

export function closeCapture() {
  if (st.capture && st.capture.live) st.capture.live.es.close();
  st.capture = null;
  $('capture').hidden = true;
  frameOptions(true);
}

// dumpNote is what the status says first of a capture read from a text
// of packets' dumps: that it was, and what its times are ('' for a
// capture file).
const dumpNote = (d) => (d ? 'Read as a capture from ' + d.name + (d.times ? '; ' + d.times : '') + '. ' : '');

// openCapture reads bytes as a capture: a pcap or pcapng file, or a text
// of several packets' dumps. notDump, if given, is called instead of
// saying the capture could not be read when the bytes are neither.
export async function openCapture(bytes, gen, notDump) {
  status('Reading the capture…');
  // The link held the last frame: it no longer stands for the page.
  setLink(null);
  frameOptions(false);
  const r = await rpc('capture', bytes, st.keyLog ? st.keyLog.bytes : null);
  if (gen !== st.gen) return;
  // The input is read: a big one's decoding state (decodingState) ends
  // here, as no frame's decode (which ends it) follows a capture's.
  delete document.body.dataset.decoding;
  if (r.error && r.notDump && notDump) { closeCapture(); notDump(); return; }
  if (r.error) { clearViews(); closeCapture(); showError($('input-error'), (r.notDump === false ? 'This text of packets\' dumps' : 'This capture') + ' could not be read: ' + r.error); return; }
  const s = r.summary;
  const conns = new Map(s.conns.map((c) => [c.id, c]));
  const t0 = Math.min(...s.exchanges.map((x) => Math.min(x.requestTime ?? Infinity, x.responseTime ?? Infinity)));
  const rows = s.exchanges.map((x, i) => {
    const c = conns.get(x.conn);
    const time = x.requestTime ?? x.responseTime;
    return {
      ...x, i, t: time === undefined ? 0 : (time - t0) / 1000, time,
      conn: '#' + x.conn + (c ? ' ' + c.client : '') + (c?.tls ? ' (TLS)' : ''),
      connTitle: c ? 'connection ' + x.conn + ': client ' + c.client + ' → broker ' + c.broker + (c.tls ? ', ' + c.tls + ', decrypted' : '') : '',
      dirText: (r.frames[2 * i] && r.frames[2 * i + 1] ? '⇄ both' : r.frames[2 * i] ? (x.noResponseExpected ? '→ no reply due' : '→ request only') : '← response only') +
        (inPart(x) ? ' (' + inPart(x) + ' in part)' : ''),
      apiText: x.saslToken ? 'SASL token' : x.apiName || (x.apiKey >= 0 ? 'API ' + x.apiKey : 'unknown'),
      errors: [], expected: [], errorText: '', clientId: null,
      // The protocol rules (kwire check) the exchange breaks; skipped ones
      // (not judged) go with the notes.
      findings: (x.findings || []).filter((f) => f.severity !== 'skipped'),
    };
  });
  st.capture = { summary: s, frames: r.frames, rows, sort: ['i', 1], current: -1, dump: r.dump || null };
  // The client ids and error codes come from decoding every frame (an API
  // key of -2 tells the scan a raw SASL token's sides, which are no Kafka
  // frames: not decoded); the scan's notes (topic ids no longer learnt,
  // said once) join the capture's.
  const scan = await rpc('scan', r.frames, s.exchanges.map((x) => (x.saslToken ? -2 : x.apiKey)), s.exchanges.map((x) => x.version));
  if (gen !== st.gen) return;
  scan.exchanges.forEach((x, i) => scanned(rows[i], x));
  s.notes.push(...scan.notes);
  const tls = s.conns.filter((c) => c.tls).length, total = capTotal(s);
  $('cap-title').textContent = 'Capture: ' + s.packets + ' packet' + (s.packets === 1 ? '' : 's') + ', ' + s.conns.length + ' Kafka connection' + (s.conns.length === 1 ? '' : 's') +
    (tls ? ' (' + tls + ' decrypted from TLS)' : '') +
    ', ' + total + ' exchange' + (total === 1 ? '' : 's') + (total > s.exchanges.length ? ' (the first ' + s.exchanges.length + ' listed)' : '') +
    (s.notes.length ? ', ' + s.notes.length + ' note(s)' : '') +
    (r.dump ? ' — read from ' + r.dump.name : '');
  const apiSel = $('cap-api');
  apiSel.replaceChildren(el('option', '', 'all'));
  apiSel.firstChild.value = '';
  for (const a of [...new Set([...rows.map((x) => x.apiText), ...(s.apis || []).map((x) => x.api)])].sort()) { const o = el('option', '', a); o.value = a; apiSel.appendChild(o); }
  $('cap-client').value = ''; $('cap-errors').checked = false;
  const notes = $('cap-notes');
  const checked = [...s.exchanges.flatMap((x) => (x.findings || []).filter((f) => f.severity === 'skipped')), ...(s.checkEnd || [])]
    .map((f) => 'kwire check: ' + f.text);
  notes.replaceChildren(...[...s.notes, ...checked].slice(0, 50).map((n) => el('li', '', n)));
  notes.hidden = !s.notes.length && !checked.length;
  drawCapHead();
  drawCapRows();
  drawCapSummary();
  $('capture').hidden = false;
  clearViews();
  const first = rows.find((x) => r.frames[2 * x.i] || r.frames[2 * x.i + 1]);
  if (first) await pickExchange(first.i, gen);
  else status(dumpNote(r.dump) + 'The capture holds no Kafka frames.');
}

// capTotal is how many exchanges the capture holds: those listed, or,
// when capture.wasm listed only the first, the sum of its per-API
// counts of every exchange ("apis").
const capTotal = (s) => (s.apis ? s.apis.reduce((n, a) => n + a.count, 0) : s.exchanges.length);

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

export function drawCapHead() {
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
export function drawCapRows() {
  const c = st.capture, rows = capFiltered();
  const body = $('cap-table').tBodies[0];
  body.replaceChildren();
  for (const x of rows.slice(0, CAP_SHOWN)) {
    const tr = el('tr');
    tr.dataset.exchange = x.i;
    tr.tabIndex = -1; // one row is the table's tab stop (rowKeys)
    if (x.i === c.current) tr.setAttribute('aria-current', 'true');
    // A row's name, as a screen reader says it on focus: what it is.
    tr.setAttribute('aria-label', 'Exchange ' + (x.i + 1) + ': ' + x.apiText + (x.version >= 0 ? ' v' + x.version : '') + (x.clientId ? ', client ' + x.clientId : '') +
      (x.errorText ? ', error ' + x.errorText : '') + (x.latencyMs !== undefined ? ', ' + x.latencyMs.toFixed(3) + ' ms' : ''));
    if (x.errorText) tr.classList.add('pg-caperr');
    const part = inPart(x); // sides held only in part
    if (part) tr.classList.add('pg-cappart');
    const findings = x.findings || []; // kwire check's, for a capture's rows
    const worst = ['error', 'warning', 'note'].find((v) => findings.some((f) => f.severity === v));
    if (worst) { tr.classList.add('pg-capfind', 'pg-capfind-' + worst); tr.dataset.rules = findings.map((f) => f.rule).join(' '); }
    for (const [k, , , text] of COLS) {
      const td = el('td', 'pg-c-' + k, String(text(x)));
      if (k === 'time' && x.time !== undefined) td.title = new Date(x.time).toISOString();
      if (k === 'i' && worst) {
        // A flag on the row's number; its title lists kwire check's lines.
        td.appendChild(el('span', 'pg-flag', ' ⚑'));
        td.title = findings.map((f) => f.text).join('\n');
      }
      if (k === 'error' && x.decodeError) td.title = x.decodeError;
      if (k === 'dir' && part) td.title = 'The capture holds the ' + part + ' only in part (bytes lost, or cut by the snap length): shown as far as captured, not judged by kwire check';
      if (k === 'reqBytes' && x.requestMissing) td.title = x.requestMissing + ' bytes of the request were not captured';
      if (k === 'respBytes' && x.responseMissing) td.title = x.responseMissing + ' bytes of the response were not captured';
      if (k === 'conn') td.title = x.connTitle + (x.clientId ? ', client id ' + x.clientId : '');
      if (k === 'error' && !x.errorText && x.expected.length) td.classList.add('pg-expected');
      tr.appendChild(td);
    }
    tr.addEventListener('click', () => pickExchange(x.i, ++st.gen));
    body.appendChild(tr);
  }
  if (!rows.length && c.rows.length) {
    // Filters that match nothing say so, rather than an empty table.
    const td = el('td', 'pg-capnone', 'No exchange matches the filters above.');
    td.colSpan = COLS.length;
    body.appendChild(el('tr')).appendChild(td);
  }
  rovingStop(body);
  $('cap-count').textContent = rows.length + ' of ' + c.rows.length + (c.summary.apis ? ' listed' : '') + ' exchanges' + (rows.length > CAP_SHOWN ? ' (the first ' + CAP_SHOWN + ' shown)' : '');
}

// percentile is the p-th quantile of xs (sorted ascending) by nearest
// rank, the rule of kwire pcap --summary (internal/capture/summary.Rank):
// with two latencies the 99th percentile is the larger.
export function percentile(xs, p) {
  return xs.length ? xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(p * xs.length) - 1))] : undefined;
}

// drawCapSummary is the CLI's pcap --summary table: per API, the versions
// seen, counts, errors, bytes and latency percentiles, of the exchanges
// the filters keep (as kwire pcap --summary --api ... counts them).
//
// A capture of more exchanges than capture.wasm lists comes with its
// per-API figures of every exchange ("apis": counts, versions, bytes,
// latencies, the percentiles from a uniform sample past 16,384 an API);
// the table shows those, filtered by API, but for errors and expected
// codes, which the page learns by decoding the listed frames alone, and
// its caption says so. A client id or errors only filter is known for the
// listed exchanges alone, so with one the table covers those, and says so.
export function drawCapSummary() {
  const c = st.capture, all = c.summary.apis, listed = c.summary.exchanges.length;
  const whole = all && !$('cap-client').value.trim() && !$('cap-errors').checked;
  const by = new Map();
  for (const x of capFiltered()) {
    const s = by.get(x.apiText) || { versions: new Map(), n: 0, errors: 0, expected: 0, bytes: 0, lat: [] };
    by.set(x.apiText, s);
    s.n++;
    if (!x.saslToken) s.versions.set(x.version, (s.versions.get(x.version) || 0) + 1); // a raw SASL token has none
    if (x.errorText) s.errors++;
    else if (x.expected.length) s.expected++;
    s.bytes += (x.requestBytes || 0) + (x.responseBytes || 0);
    if (x.latencyMs !== undefined) s.lat.push(x.latencyMs);
  }
  for (const s of by.values()) {
    s.lat.sort((a, b) => a - b);
    [s.p50, s.p99, s.max] = [percentile(s.lat, 0.5), percentile(s.lat, 0.99), s.lat[s.lat.length - 1]];
  }
  let sampled = false;
  if (whole) {
    const api = $('cap-api').value;
    for (const a of all) {
      if (api && a.api !== api) continue;
      const s = by.get(a.api) || { errors: 0, expected: 0 };
      by.set(a.api, { ...s, n: a.count, versions: new Map(a.versions), bytes: a.bytes, p50: a.p50Ms, p99: a.p99Ms, max: a.maxMs });
      sampled ||= !!a.sampled;
    }
  }
  const cap = $('cap-summary').caption;
  cap.textContent = !all ? 'Per API'
    : whole ? 'Per API, all ' + capTotal(c.summary) + ' exchanges of the capture; errors and expected codes of the first ' + listed + ', listed, only' +
      (sampled ? '; percentiles from a uniform sample of each API\'s latencies, max exact' : '')
      : 'Per API, the listed exchanges the filters keep: the client ids and errors of the capture\'s other ' + (capTotal(c.summary) - listed) + ' are unknown';
  const body = $('cap-summary').tBodies[0];
  body.replaceChildren();
  const fmt = (v) => (v === undefined ? '' : v.toFixed(2));
  for (const [api, s] of [...by.entries()].sort((a, b) => b[1].n - a[1].n)) {
    const tr = el('tr');
    // A version not known (-1: a response whose request the capture lacks)
    // is v?, as a version is written: "v?×1", not "unknown×1".
    const vs = [...s.versions.entries()].sort((a, b) => a[0] - b[0]).map(([v, n]) => (v >= 0 ? 'v' + v : 'v?') + '×' + n).join(' ');
    const cells = [api, vs, s.n, s.errors, s.expected, s.bytes, fmt(s.p50), fmt(s.p99), fmt(s.max)];
    for (const v of cells) tr.appendChild(el('td', '', String(v)));
    body.appendChild(tr);
  }
}
// pickExchange decodes an exchange's request and response side by side.
// Each panel links to the other side's packet, as Wireshark's "Request
// in frame" and "Response in frame" do.
export async function pickExchange(i, gen) {
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
  const guessed = x.saslToken ? await pickTokens(x, req, resp, gen) : await pickFrames(x, req, resp, gen);
  if (guessed === undefined || gen !== st.gen) return;
  const [mine, theirs] = x.saslToken ? ['broker token', 'client token'] : ['response', 'request'];
  frameLinks(p0, x.requestPacket, mine, x.responsePacket, p1);
  frameLinks(p1, x.responsePacket, theirs, x.requestPacket, p0);
  st.sum = p0.sum;
  const broken = c.rows[i].findings.map((f) => f.rule + ' (' + f.severity + ')');
  const what = x.saslToken ? 'raw SASL token after SaslHandshake v0'
    : x.apiKey >= 0 ? (x.apiName || 'API ' + x.apiKey) + ' v' + x.version + ', correlation id ' + x.correlationId
      : 'response only, API unknown' + (guessed ? ' (guessed: ' + (guessed.apiName || 'API ' + guessed.apiKey) + ' v' + guessed.version + ', ' + confidence(guessed.confidence) + ')' : '') +
        ', correlation id ' + x.correlationId;
  status(dumpNote(c.dump) + 'Capture exchange ' + (i + 1) + ': ' + what +
    (x.latencyMs !== undefined ? ', answered in ' + x.latencyMs.toFixed(3) + ' ms' : '') +
    (inPart(x) ? '; the ' + inPart(x) + (x.requestMissing && x.responseMissing ? ' were' : ' was') + ' captured in part' : '') +
    (broken.length ? '; breaks ' + [...new Set(broken)].join(', ') : ''));
  document.body.dataset.decoded = String(gen);
}

// pickFrames decodes a Kafka exchange's request and response in panels 0
// and 1. It returns the reading guessed for a response whose request is
// not in the capture (null for none), undefined when another pick came
// meanwhile.
async function pickFrames(x, req, resp, gen) {
  const [p0, p1] = st.panels;
  // A side the capture holds only in part decodes as far as its bytes go
  // (its size prefix says the whole frame's size: the decode stops at the
  // cut, saying so, and shows what was read before it).
  if (req) {
    await p0.decode(req, { response: false, size: 'yes' }, x.requestMissing ? partTitle('Request', x.requestMissing) : 'Request');
    cutHeader(p0, x, 'Request', x.requestMissing);
  } else { p0.clear(); p0.e.title.textContent = 'Request: not in the capture'; }
  if (gen !== st.gen) return undefined;
  // A response whose request is not in the capture: its API and version
  // are unknown, and read as the likeliest reading, as kwire pcap does.
  // A response held only in part is never guessed (a guess never starts
  // from a frame cut short).
  let guessed = null;
  if (resp && x.apiKey < 0 && !x.responseMissing) {
    const cands = await rpc('guess', resp, 'yes');
    if (gen !== st.gen) return undefined;
    guessed = cands[0] || null;
  }
  if (resp && x.apiKey >= 0) {
    await p1.decode(resp, { response: true, api: x.apiKey, version: x.version, size: 'yes' }, x.responseMissing ? partTitle('Response', x.responseMissing) : 'Response');
    cutHeader(p1, x, 'Response', x.responseMissing);
  } else if (resp && x.responseMissing) { p1.clear(); p1.e.title.textContent = partTitle('Response', x.responseMissing) + ': its request (and so its API) is not in the capture, so it is not decoded'; }
  else if (guessed) await p1.decode(resp, { response: true, api: guessed.apiKey, version: guessed.version, size: 'yes' }, 'Response (its request is not in the capture; guessed, ' + confidence(guessed.confidence) + ')');
  else if (resp) { p1.clear(); p1.e.title.textContent = 'Response: its request (and so its API) is not in the capture, and no reading fits it'; }
  else { p1.clear(); p1.e.title.textContent = x.noResponseExpected ? 'Response: none expected (acks=0)' : 'Response: not in the capture'; }
  return guessed;
}

// pickTokens decodes a raw SASL token exchange (after a SaslHandshake v0
// a client and broker send each other a size and a token, no Kafka
// header) in panels 0 and 1: each side as the SASL message it holds,
// never guessed as a Kafka frame. It returns null, or undefined when
// another pick came meanwhile.
async function pickTokens(x, req, resp, gen) {
  const sides = [[st.panels[0], req, 'Client token', x.requestMissing], [st.panels[1], resp, 'Broker token', x.responseMissing]];
  for (const [p, bytes, name, missing] of sides) {
    if (bytes) await p.decode(bytes, { data: 'sasl', size: 'yes' }, missing ? partTitle(name, missing) : name);
    else { p.clear(); p.e.title.textContent = name + ': not in the capture'; }
    if (gen !== st.gen) return undefined;
  }
  return null;
}

// frameLinks says, in a panel's head, which packet of the capture holds
// its frame and links to the other side's (shown in the other panel).
function frameLinks(p, own, other, otherPacket, to) {
  const box = p.e.frames;
  box.replaceChildren();
  if (own !== undefined) box.appendChild(el('span', 'pg-muted', 'frame ' + own + ' · '));
  if (otherPacket !== undefined) {
    const a = el('a', 'pg-framelink', other + ' in frame ' + otherPacket);
    a.href = '#';
    a.dataset.frame = otherPacket;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      to.root.scrollIntoView({ block: 'start' });
      to.e.title.tabIndex = -1;
      to.e.title.focus();
    });
    box.appendChild(a);
  } else if (own !== undefined) box.appendChild(el('span', 'pg-muted', 'no ' + other + ' captured'));
  box.hidden = !box.childNodes.length;
}

// rovingStop makes one row of a table body its tab stop when none is, the
// row shown (aria-current) or else the first: Tab passes the table in one
// press. (Rows come with tabindex -1; records stream in.)
export function rovingStop(body) {
  if (body.querySelector('tr[tabindex="0"]')) return;
  const stop = body.querySelector('tr[aria-current][tabindex]') || body.querySelector('tr[tabindex]');
  if (stop) stop.tabIndex = 0;
}

// rowKeys lets the keyboard walk a table body's rows as Wireshark's packet
// list does: up, down, page up, page down, home and end focus another row
// and show it; Enter and Space show the focused one. The row focused is
// the table's one tab stop (roving tabindex). show(tr) shows a row. The
// capture's exchanges and the storage view's records move alike.
export function rowKeys(body, show) {
  const steps = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10, Home: -Infinity, End: Infinity };
  // body is a table body, or a table whose bodies' rows are walked as one.
  const whole = body.tagName === 'TABLE';
  const ours = (tr) => tr && (whole ? tr.parentNode.tagName === 'TBODY' && tr.parentNode.parentNode === body : tr.parentNode === body);
  body.addEventListener('focusin', (e) => {
    const tr = e.target.closest('tr');
    if (!ours(tr) || !tr.hasAttribute('tabindex')) return;
    for (const r of body.querySelectorAll('tr[tabindex="0"]')) if (r !== tr) r.tabIndex = -1;
    tr.tabIndex = 0;
  });
  body.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tr = e.target.closest('tr');
    if (!ours(tr)) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); show(tr); return; }
    if (!(e.key in steps)) return;
    e.preventDefault();
    let rows = body.rows, at = tr.sectionRowIndex;
    if (whole) {
      // The rows before tr's body, then tr's place in it.
      rows = body.querySelectorAll(':scope > tbody > tr');
      for (let b = tr.parentNode.previousElementSibling; b && b.tagName === 'TBODY'; b = b.previousElementSibling) at += b.rows.length;
    }
    const to = rows[Math.max(0, Math.min(rows.length - 1, at + steps[e.key]))];
    if (!to || to === tr) return;
    to.focus();
    show(to);
  });
}

rowKeys($('cap-table').tBodies[0], (tr) => { if (st.capture) pickExchange(+tr.dataset.exchange, ++st.gen); });
