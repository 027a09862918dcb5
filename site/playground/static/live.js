// The live feed of kwire proxy --web:
// #live (or #live=URL) fills the capture table with the exchanges kwire
// proxy relays, as they happen: its Server-Sent Events (by default
// ../proxy/events, beside the playground) each carry one exchange's NDJSON
// line and its frames in base64. Rows are added in batches (every 100 ms
// at most); a click shows the exchange like a capture's.
import { $, el, fromB64, status, inputNote } from './dom.js';
import { rpc } from './rpc.js';
import { st } from './state.js';
import { closeCapture, drawCapHead, drawCapRows, drawCapSummary, scanned, frameOptions } from './capture.js';
import { clearViews } from './decode.js';

const LIVE_MAX = 20000; // exchanges kept; later ones are counted, not shown
function liveTitle() {
  const c = st.capture, l = c.live, n = c.rows.length, k = c.summary.conns.length;
  $('cap-title').textContent = 'Live from kwire proxy: ' + n + ' exchange' + (n === 1 ? '' : 's') + ', ' + k + ' connection' + (k === 1 ? '' : 's') +
    (l.skipped ? ', ' + l.skipped + ' skipped by the proxy' : '') + (l.dropped ? ', ' + l.dropped + ' past the first ' + LIVE_MAX + ' not kept' : '') +
    ' (' + l.state + ')';
}

export function openLive(url) {
  closeCapture();
  st.gen++;
  st.file = null;
  inputNote(); // a file the box named is no longer shown
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
  frameOptions(false);
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
      latencyMs: x.latencyMs, noResponseExpected: !!x.noResponseExpected, saslToken: !!x.saslToken,
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
      apiText: x.saslToken ? 'SASL token' : x.apiName || (x.apiKey >= 0 ? 'API ' + x.apiKey : 'unknown'),
      errors: [], expected: [], findings: [], errorText: '', clientId: (x.request && x.request.header && x.request.header.clientId) ?? null,
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
  // Error codes (and client ids) come from decoding the frames, in the
  // worker; a raw SASL token's sides (key -2) are no Kafka frames.
  const scan = await rpc('scan', added.flatMap((r) => [c.frames[2 * r.i], c.frames[2 * r.i + 1]]), added.map((r) => (r.saslToken ? -2 : r.apiKey)), added.map((r) => r.version));
  if (st.capture !== c) return;
  scan.exchanges.forEach((x, k) => scanned(added[k], x));
  if (scan.notes.length) { // topic ids no longer learnt, said once
    c.summary.notes.push(...scan.notes);
    $('cap-notes').append(...scan.notes.map((n) => el('li', '', n)));
    $('cap-notes').hidden = false;
  }
  if (added.some((r) => r.errorText || r.expected.length || r.clientId)) { drawCapRows(); drawCapSummary(); }
}
