// Record payloads: the schemas the user gives (files opened, dropped or
// pasted, and a schema registry's URL) for the keys and values of records.
// The first time, the worker loads payload.wasm (kwire.wasm's glue with
// the Avro, Protobuf and JSON Schema decoders) and runs every op through
// it; what is shown is then decoded again with the schemas: the frame, or
// the storage files' records listed, their keys and values read again
// (their batches, not the files: storage.js, payloadsAgain). The registry
// is read by the worker itself (GET /schemas/ids/ID), so it must allow
// this page's origin (CORS). A registry that gave no answer is asked
// again by the first decode after a backoff (30 s, doubling up to 5
// minutes, as kwire proxy does), and the status says when; the query
// parameter ?registryRetry=MS makes the first wait MS milliseconds (the
// browser tests use it; nothing links it). Schema text and everything
// decoded from payloads is shown with textContent only.
import { $, el, showError, shown, grouped } from './dom.js';
import { rpc } from './rpc.js';
import { st } from './state.js';
import { redo } from './decode.js';
import { pickExchange } from './capture.js';
import { openStorage, payloadsAgain } from './storage.js';
import { INTERNAL } from './folder.js';

// isSchemaName says whether a dropped file is a schema rather than input:
// .avsc and .proto always, .json when named as a schema is (by id, or a
// topic's -key or -value).
export function isSchemaName(name) {
  return /\.(avsc|proto)$/i.test(name) || /^(\d+|.+-(key|value))\.json$/i.test(name);
}

// addSchemaFiles reads files (File objects) into the schemas and applies them.
export async function addSchemaFiles(files) {
  await readSchemaFiles(files);
  return apply();
}

// readSchemaFiles reads files into the schemas, not applying them yet:
// files opened with them (a folder dropped with schemas beside it) are
// shown first, and decoded again once the schemas apply.
export async function readSchemaFiles(files) {
  for (const f of files) st.schemas.files.set(f.name, await f.text());
}

const retryMs = Math.max(0, Math.min(+new URLSearchParams(location.search).get('registryRetry') || 0, 300_000));

// apply gives the worker the schemas, then decodes what is shown again
// (unless redraw is false: what is opened next is read with them).
export async function apply(redraw = true) {
  drawList();
  $('pay-status').textContent = st.payloads ? 'Applying the schemas…' : 'Loading the payload decoders…';
  showError($('pay-error'), '');
  const names = [...st.schemas.files.keys()], texts = [...st.schemas.files.values()];
  let r;
  try {
    r = await rpc('schemas', names, texts, st.schemas.url, retryMs);
  } catch (e) {
    $('pay-status').textContent = '';
    showError($('pay-error'), 'The payload decoders could not be loaded: ' + e.message);
    return;
  }
  st.payloads = true;
  if (r.error) {
    $('pay-status').textContent = '';
    showError($('pay-error'), r.error);
    return;
  }
  problems = new Map((r.problems || []).map((p) => [p.name, p.problem]));
  drawList();
  said = shown(describe(r));
  $('pay-status').textContent = said;
  document.body.dataset.schemas = String((+document.body.dataset.schemas || 0) + 1);
  if (redraw) await again();
}

// said is what the status says of the schemas given (describe).
let said = '';

function describe(r) {
  const parts = [r.files + ' schema file' + (r.files === 1 ? '' : 's')];
  if (r.registry) parts.push('the registry at ' + r.registry);
  const bad = problems.size;
  return 'Record payloads are decoded with ' + parts.join(' and ') + '.' +
    (bad ? ' ' + bad + ' file' + (bad === 1 ? '' : 's') + ' given cannot be used: the list says why.' : '');
}

// problems: why each schema file given cannot be used, by name (from the
// worker's last answer).
let problems = new Map();

// again decodes what is shown again, now through payload.wasm: storage
// files are listed again (their keys and values read with the schemas,
// the record shown kept), else the frame shown (decode mode's, or a
// capture's exchange). The storage view goes first: a frame decoded before
// the files were opened is still st.sum, and decoding it again would
// replace them.
async function again() {
  if (st.storage) {
    const s = st.storage;
    if (!(await payloadsAgain()) && s === st.storage) await openStorage(s.files, s.topic, ++st.gen, s.where, s.current);
  } else if (st.capture && st.capture.current >= 0) await pickExchange(st.capture.current, ++st.gen);
  else if (st.sum || st.picked) redo();
}

// afterListing says, once storage files' records are listed with the
// schemas given (recs, of topic), how their keys and values read: how
// many decoded with which schema, and why the others did not; then how
// the registry's requests went (afterDecode). tally, when given, has
// counted recs already, as they came (payloadTally): the 20,000 records
// listed counted at the end were the most of the task that ended their
// reading.
export function afterListing(recs, topic, tally = null) {
  if (!st.payloads) return;
  if (INTERNAL.includes(topic)) {
    afterDecode(shown(' The records listed are ' + topic + "'s: their keys and values are read with Kafka's schemas for it, not with the schemas given."));
    return;
  }
  if (!tally) { tally = payloadTally(); tally.add(recs); }
  const { decoded, failed, plain } = tally;
  const count = (c) => [c.key && grouped(c.key) + (c.key === 1 ? ' key' : ' keys'), c.value && grouped(c.value) + (c.value === 1 ? ' value' : ' values')]
    .filter(Boolean).join(' and ');
  const most = (m) => [...m].sort((a, b) => (b[1].key + b[1].value) - (a[1].key + a[1].value));
  const parts = [];
  for (const [k, c] of most(decoded)) parts.push(count(c) + ' decoded with ' + k);
  const bad = most(failed);
  for (const [k, c] of bad.slice(0, 3)) parts.push(count(c) + ' not decoded: ' + k);
  if (bad.length > 3) {
    const rest = bad.slice(3).reduce((t, [, c]) => ({ key: t.key + c.key, value: t.value + c.value }), { key: 0, value: 0 });
    parts.push(count(rest) + ' not decoded for other reasons');
  }
  // No topic known (a segment given alone): no schema named by one could
  // apply; the user may type it.
  if (plain.key || plain.value) parts.push(count(plain) + ' with no schema to read ' + (plain.key + plain.value === 1 ? 'it' : 'them') +
    (topic ? ' (no schema id, and no schema for the topic)' : " (no schema id, and the records' topic is not known: type it in Topic for the schemas named by it to apply)") + ': shown as stored');
  const n = recs.length;
  afterDecode(shown(' Of the ' + grouped(n) + ' record' + (n === 1 ? '' : 's') + ' listed: ' + (parts.length ? parts.join('; ') : 'no key or value to read') + '.'));
}

// payloadTally counts how records' keys and values read, a piece of them
// at a time (add(recs)), for afterListing: by the schema that decoded
// them (decoded), by why they did not decode (failed), and those no
// schema read (plain), keys and values apart.
const FORMATS = { avro: 'Avro', protobuf: 'Protobuf', jsonschema: 'JSON Schema', json: 'JSON' };
export function payloadTally() {
  const decoded = new Map(), failed = new Map(), plain = { key: 0, value: 0 };
  const count = (m, k, part) => { const c = m.get(k) || { key: 0, value: 0 }; c[part]++; m.set(k, c); };
  const add = (recs) => {
    for (const r of recs) {
      for (const part of ['key', 'value']) {
        const p = r[part + 'Payload'];
        if (r[part] === null || r.marker) continue;
        const format = p && (FORMATS[p.format] || p.format);
        if (p && p.decoded !== undefined) {
          count(decoded, p.schemaId !== undefined ? 'schema ' + p.schemaId + ' (' + format + ')'
            : p.format === 'json' ? 'no schema, as JSON text' : "the topic's " + part + ' schema (' + format + ')', part);
        } else if (p && p.warnings && p.warnings.length) count(failed, p.warnings[0], part);
        else plain[part]++;
      }
    }
  };
  return { decoded, failed, plain, add };
}

// afterDecode says, under the registry's URL, how its requests went (the
// failures are warnings on the records too); listed, when given, is what
// afterListing says of the records listed, said after it.
export async function afterDecode(listed = '') {
  if (!st.payloads) return;
  if (!st.schemas.url) {
    if (listed) $('pay-status').textContent = said + listed;
    return;
  }
  const s = await rpc('registryStatus');
  if (!s) return;
  const line = s.requests + ' request' + (s.requests === 1 ? '' : 's') + ' to the registry';
  if (s.error) showError($('pay-error'), line + ', ' + s.failed + ' failed: ' + s.error);
  else showError($('pay-error'), '');
  if (s.retryIn !== undefined) {
    // Unreachable: the first decode after the backoff asks it again.
    const at = new Date(Date.now() + s.retryIn).toLocaleTimeString();
    $('pay-status').textContent = 'The registry at ' + st.schemas.url + ' was unreachable: it will be asked again by the first decode after ' + at +
      (s.retryIn > 0 ? ' (in ' + Math.ceil(s.retryIn / 1000) + ' s).' : ' (now).') + listed;
  } else if (!s.error) {
    $('pay-status').textContent = 'Record payloads are decoded with the registry at ' + st.schemas.url + ' (' + line + ' so far, ' +
      (s.failed ? s.failed + ' failed before it answered' : 'none failed') + ').' + listed;
  } else if (listed) $('pay-status').textContent = said + listed;
}

function drawList() {
  const ul = $('pay-list');
  ul.replaceChildren();
  for (const name of st.schemas.files.keys()) {
    const li = el('li', '', name);
    if (problems.has(name)) {
      li.classList.add('pg-pay-bad');
      li.appendChild(el('span', 'pg-pay-problem', ' (not used: ' + problems.get(name) + ')'));
    }
    const b = el('button', '', 'Remove');
    b.type = 'button';
    b.setAttribute('aria-label', 'Remove ' + name);
    b.addEventListener('click', () => { st.schemas.files.delete(name); apply(); });
    li.appendChild(b);
    ul.appendChild(li);
  }
  const n = st.schemas.files.size + (st.schemas.url ? 1 : 0);
  $('pay-count').textContent = n ? '(' + st.schemas.files.size + ' file' + (st.schemas.files.size === 1 ? '' : 's') + (st.schemas.url ? ', a registry' : '') + ')' : '';
}

export function wirePayloads() {
  $('pay-files').addEventListener('change', () => { const fs = [...$('pay-files').files]; $('pay-files').value = ''; if (fs.length) addSchemaFiles(fs); });
  $('pay-use').addEventListener('click', () => { st.schemas.url = $('pay-url').value.trim(); apply(); });
  $('pay-url').addEventListener('keydown', (e) => { if (e.key === 'Enter') { st.schemas.url = $('pay-url').value.trim(); apply(); } });
  $('pay-add').addEventListener('click', () => {
    const name = $('pay-name').value.trim(), text = $('pay-text').value;
    if (!name || !text.trim()) { showError($('pay-error'), 'Give the pasted schema a file name (such as 7.avsc, 7.proto or orders-value.json) and its text.'); return; }
    st.schemas.files.set(name, text);
    $('pay-text').value = '';
    apply();
  });
}
