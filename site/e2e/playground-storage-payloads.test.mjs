// A segment's record payloads in the playground's storage view, in real
// Chromium: an ordinary topic's keys and values read with the schemas the
// user gives (payload.wasm, which storage.wasm calls through the worker),
// as kwire log --schemas reads them: the records table shows the decoded
// values, a record's detail its fields (grid, tree, value JSON), a value
// whose schema is missing says why. Schemas dropped beside a folder do not
// hold its records back: they show at once, as stored, and are read again
// once payload.wasm runs; schemas given after the files are open read them
// again too (the records listed, not the files: the worker is asked to
// read the files once), and when payload.wasm runs already, the folder is
// read once, with them; the schemas' status says how the records listed
// read. The values are written by avsc, a real Avro serializer, with the
// schema registry's framing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { session } from './helpers-playground.mjs';
import { batchOf, bigSegment } from './bigsegment.mjs';

const require = createRequire(import.meta.url);
const avro = require('avsc');

const ID = 7, MISSING = 99;
const schema = {
  type: 'record', name: 'Order', namespace: 'com.acme',
  fields: [{ name: 'customer', type: 'string' }, { name: 'amount', type: 'long' }],
};
const type = avro.Type.forSchema(schema);
// framed is v written by avsc after the registry's framing: a zero byte,
// the schema id (4 bytes, big-endian).
const framed = (id, v) => {
  const head = Buffer.alloc(5);
  head.writeInt32BE(id, 1);
  return Buffer.concat([head, type.toBuffer(v)]);
};
const evil = '<img src=x onerror="window.pwned=1">Ana';

let dir, orders, schemaPath, otherPath, big;
const pg = session({
  setup: async () => {
    dir = await mkdtemp(join(tmpdir(), 'kwire-storage-payloads-'));
    orders = join(dir, 'orders-0');
    await mkdir(orders);
    const enc = new TextEncoder();
    await writeFile(join(orders, '00000000000000000000.log'), batchOf([
      { key: enc.encode('order-1'), value: framed(ID, { customer: evil, amount: 123456789 }) },
      { key: enc.encode('order-2'), value: framed(ID, { customer: 'Bo', amount: 5 }) },
      { key: enc.encode('order-3'), value: framed(MISSING, { customer: 'Cy', amount: 1 }) },
      { key: enc.encode('plain'), value: enc.encode('hello') },
    ]));
    await mkdir(join(dir, 'beside'));
    schemaPath = join(dir, 'beside', ID + '.avsc');
    await writeFile(schemaPath, JSON.stringify(schema));
    await mkdir(join(dir, 'other'));
    otherPath = join(dir, 'other', '8.avsc');
    await writeFile(otherPath, '"string"');
  },
  teardown: async () => { if (dir) await rm(dir, { recursive: true, force: true }); },
});

// drop drops paths (folders, files) on the page as the OS hands them over.
async function drop(page, files) {
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
}

// cells is the records table's rows: each cell's text.
const cells = (page) => page.$$eval('#st-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
const decodedRows = (page) => page.waitForFunction(() => {
  const tr = document.querySelector('#st-table tbody tr');
  return tr && /"customer"/.test(tr.cells[3].textContent) && !/^Reading/.test(document.getElementById('status').textContent);
}, null, { timeout: 120_000 });
// countOps, run in the page before its scripts, counts the ops the page
// asks the worker for (window.kwireOps); ops answers how many of op.
const countOps = [() => {
  window.kwireOps = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...rest) {
    if (m && m.op) { window.kwireOps.push(m.op); (window.kwireOpTimes ||= {})[m.op] = performance.now(); }
    return post.call(this, m, ...rest);
  };
}];
const ops = (page, op) => page.evaluate((o) => window.kwireOps.filter((x) => x === o).length, op);
// listedStatus is what the schemas' status line says of the records
// listed in orders-0: the values decoded with schema 7, the one whose
// schema is missing and why, and the parts no schema reads.
const listedStatus = new RegExp('Of the 4 records listed: 2 values decoded with schema 7 \\(Avro\\); 1 value not decoded: schema ' + MISSING +
  '[^;]*; 4 keys and 1 value with no schema to read them \\(no schema id, and no schema for the topic\\): shown as stored\\.$');
const payStatus = (page) => page.waitForFunction(() => /Of the/.test(document.getElementById('pay-status').textContent), null, { timeout: 60_000 })
  .then(() => page.textContent('#pay-status'));

// detail waits for the record drawn to show what matches re, and
// answers its text.
const detail = (page, re) => page.waitForFunction((src) => {
  const box = document.getElementById('st-record');
  return new RegExp(src).test(box.textContent) && box.textContent;
}, re.source, { timeout: 60_000 }).then((h) => h.jsonValue());

test('a folder dropped with schemas beside it: its records show at once, then decoded with them; a missing schema says why', { timeout: 240_000 }, async () => {
  // Not held: how long until the records show, and until they are decoded.
  const quick = await pg.open();
  let t0 = Date.now();
  await drop(quick, [orders, schemaPath]);
  await quick.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length === 4, null, { timeout: 60_000, polling: 10 });
  const firstRows = Date.now() - t0;
  await decodedRows(quick);
  console.log('storage payloads: a folder dropped with a schema beside it: its records on screen ' + firstRows + ' ms after the drop, decoded ' + (Date.now() - t0) + ' ms after it (payload.wasm loaded meanwhile)');
  await quick.close();

  // payload.wasm held by the server: the records show all the same.
  const page = await pg.open('', { init: countOps });
  const gate = pg.server.holdFile('payload.wasm');
  t0 = Date.now();
  await drop(page, [orders, schemaPath]);
  await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length === 4 && document.querySelectorAll('#st-record section').length === 2, null, { timeout: 60_000 })
    .catch(() => assert.fail('the records wait for payload.wasm'));
  await gate.asked;
  let rows = await cells(page);
  assert.match(rows[0][3], /^base64:/, 'as stored while payload.wasm loads');
  assert.equal(rows[0][2], 'order-1');
  assert.match(await page.textContent('#st-folder'), /Schemas taken for the record payloads \(the storage view's keys and values, and the frames and captures opened next\): 7\.avsc\./);
  gate.release();

  await decodedRows(page);
  rows = await cells(page);
  assert.equal(rows.length, 4);
  assert.equal(rows[0][3], JSON.stringify({ customer: evil, amount: 123456789 }));
  assert.equal(rows[1][3], '{"customer":"Bo","amount":5}');
  assert.equal(rows[0][2], 'order-1', 'a key without framing or schema stays as stored');
  assert.equal(rows[3][3], 'hello');
  // The value whose schema is not among those given: why, in its row.
  assert.match(rows[2][3], new RegExp('^⚠ not decoded: schema ' + MISSING + ' .*— base64:'));
  const bad = await page.$$eval('#st-table tbody tr', (trs) => [trs[2].className, trs[2].title, trs[0].className]);
  assert.equal(bad[0], 'pg-st-bad');
  assert.match(bad[1], new RegExp('^Not decoded: value: schema ' + MISSING));
  assert.equal(bad[2], '');
  // The folder was read once: the records listed had their keys and
  // values read again, not the folder's files.
  assert.equal(await ops(page, 'storage'), 1, 'the folder is read once');
  assert.equal(await ops(page, 'storagePayloads'), 1);
  // The schemas' status says how the records listed read.
  assert.match(await payStatus(page), listedStatus);

  // The record shown is drawn again with its fields: tree, grid, JSON.
  const first = await detail(page, /customer/);
  assert.match(first, /amount/);
  assert.match(first, /123456789/);
  const json = JSON.parse(await page.textContent('#st-record pre'));
  assert.deepEqual(json.key, { text: 'order-1' });
  assert.equal(json.value.format, 'avro');
  assert.equal(json.value.schemaId, ID);
  assert.deepEqual(json.value.decoded, { customer: evil, amount: 123456789 });
  assert.ok((await page.$$('#st-record .pg-st-grid .kw-cell')).length > 0, 'the value\'s bytes drawn');
  assert.ok(await page.$$eval('#st-record .pg-st-tree li', (lis) => lis.some((li) => /^customer/.test(li.textContent))));

  // The record whose schema is missing says why.
  await page.click('#st-table tbody tr:nth-child(3)');
  const missing = await detail(page, new RegExp('The value: schema ' + MISSING));
  assert.doesNotMatch(missing, /customer/);
  assert.equal(JSON.parse(await page.textContent('#st-record pre')).value.schemaId, MISSING);

  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.$$eval('#storage img', (x) => x.length), 0, 'decoded text is never markup');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('payload.wasm running already: a folder dropped with schemas beside it is read once, with them', { timeout: 240_000 }, async () => {
  const page = await pg.open('', { init: countOps });
  // Another schema first: payload.wasm runs, schema 7 is not known yet.
  await page.click('#pay summary');
  await page.setInputFiles('#pay-files', [otherPath]);
  await page.waitForFunction(() => +(document.body.dataset.schemas || 0) >= 1, null, { timeout: 120_000 });
  await drop(page, [orders, schemaPath]);
  await decodedRows(page);
  const rows = await cells(page);
  assert.equal(rows.length, 4);
  assert.equal(rows[1][3], '{"customer":"Bo","amount":5}');
  assert.equal(await ops(page, 'storage'), 1, 'the folder is read once');
  assert.equal(await ops(page, 'storagePayloads'), 0, 'nothing is read again');
  assert.match(await payStatus(page), listedStatus);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('schemas given after the folder is open read its records again, the record shown kept', { timeout: 240_000 }, async () => {
  const page = await pg.open('', { init: countOps });
  await page.setInputFiles('#folder', orders);
  await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length === 4 && document.querySelectorAll('#st-record section').length === 2 &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 60_000 });
  assert.match((await cells(page))[1][3], /^base64:/);
  await page.click('#st-table tbody tr:nth-child(2)');
  await detail(page, /order-2/);
  assert.ok(!page.wasm.includes('payload.wasm'));

  await page.click('#pay summary');
  await page.setInputFiles('#pay-files', [schemaPath]);
  await decodedRows(page);
  assert.equal((await cells(page))[1][3], '{"customer":"Bo","amount":5}');
  assert.equal(await page.$eval('#st-table tbody tr[aria-current]', (tr) => tr.dataset.record), '1', 'the record shown stays');
  await detail(page, /customer/);
  assert.deepEqual(JSON.parse(await page.textContent('#st-record pre')).value.decoded, { customer: 'Bo', amount: 5 });
  assert.equal(await ops(page, 'storage'), 1, 'the folder is not read again');
  assert.equal(await ops(page, 'storagePayloads'), 1);
  assert.match(await payStatus(page), listedStatus);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A schema file inside the partition folder (a folder kept with its
// schema beside its segments), opened with "Open folder…" or dropped, or
// inside a log.dirs folder's partition: taken as a schema, as when dropped
// beside the folder, and said so, not left out as a file not Kafka's; the
// records read with it.
test('a schema inside a partition folder is taken as a schema, not left out', { timeout: 240_000 }, async () => {
  const logdirs = join(dir, 'inside');
  const part = join(logdirs, 'orders-0');
  await mkdir(part, { recursive: true });
  await writeFile(join(part, '00000000000000000000.log'), await readFile(join(orders, '00000000000000000000.log')));
  await writeFile(join(part, ID + '.avsc'), JSON.stringify(schema));
  for (const [how, what, path] of [['open', part, 'orders-0/7.avsc'], ['drop', part, 'orders-0/7.avsc'], ['drop', logdirs, 'inside/orders-0/7.avsc']]) {
    const page = await pg.open();
    if (how === 'open') await page.setInputFiles('#folder', what);
    else await drop(page, [what]);
    await decodedRows(page);
    const rows = await cells(page);
    assert.equal(rows.length, 4, how + ' ' + what);
    assert.equal(rows[1][3], '{"customer":"Bo","amount":5}');
    const note = await page.textContent('#st-folder');
    assert.doesNotMatch(note, /Left out/);
    assert.equal(note, "Schemas taken for the record payloads (the storage view's keys and values, and the frames and captures opened next): " + path + '.');
    assert.deepEqual(await page.$$eval('#pay-list li', (l) => l.map((x) => x.firstChild.textContent)), ['7.avsc']);
    assert.match(await payStatus(page), listedStatus);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

// What reading the payloads costs a big listing (measured, not asserted
// beyond its being listed): a segment of Avro values, 20,000 of its records
// listed, with no schema given and then with the schema; and the schema
// given once it was listed, which reads the records listed again, not the
// segment. KWIRE_BIG_MB sets the segment's size (16 MiB).
test('a big segment of Avro values: listed with the schema given, streaming as without', { timeout: 600_000 }, async () => {
  const enc = new TextEncoder();
  const recs = [];
  for (let i = 0; i < 200; i++) recs.push({ key: enc.encode('c-' + i), value: framed(ID, { customer: 'customer ' + i + ' '.padEnd(60, 'x'), amount: i }) });
  const path = join(dir, 'big', '00000000000000000000.log');
  await mkdir(join(dir, 'big'), { recursive: true });
  const seg = await bigSegment(path, (+process.env.KWIRE_BIG_MB || 16) << 20, 200, batchOf(recs));
  big = seg;
  const times = {};
  for (const withSchema of [false, true, false, true]) {
    const page = await pg.open();
    if (withSchema) {
      await page.click('#pay summary');
      await page.setInputFiles('#pay-files', [schemaPath]);
      await page.waitForFunction(() => +(document.body.dataset.schemas || 0) >= 1, null, { timeout: 120_000 });
    }
    const t0 = Date.now();
    await page.setInputFiles('#file', [path]);
    await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length > 0, null, { timeout: 120_000, polling: 10 });
    const first = Date.now() - t0;
    await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
    const done = Date.now() - t0;
    const top = await page.$eval('#st-table tbody tr', (tr) => tr.cells[3].textContent);
    if (withSchema) assert.equal(top, '{"customer":"customer 0 ' + 'x'.repeat(59) + '","amount":0}');
    else assert.match(top, /^base64:/);
    assert.equal((await page.$$('#st-table tbody tr')).length, 20000);
    const k = withSchema ? 'with' : 'without';
    times[k] = times[k] ? { first: Math.min(times[k].first, first), done: Math.min(times[k].done, done) } : { first, done };
    assert.deepEqual(page.errors, []);
    await page.close();
  }
  console.log('storage payloads: a ' + (big.size / 1e6).toFixed(1) + ' MB segment of ' + big.records.toLocaleString('en') + ' Avro records, 20,000 listed: first rows ' +
    times.without.first + ' ms, all ' + times.without.done + ' ms without schemas; with the schema ' + times.with.first + ' ms, ' + times.with.done + ' ms (' +
    ((times.with.done - times.without.done) * 1000 / 20000).toFixed(1) + ' µs a record listed)');

  // The schema given once the segment is listed: the 20,000 records
  // listed are read again, their batches alone.
  const page = await pg.open('', { init: countOps });
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
  await page.click('#pay summary');
  const t0 = Date.now();
  await page.setInputFiles('#pay-files', [schemaPath]);
  const shownAt = await page.waitForFunction(() => /"customer"/.test(document.querySelector('#st-table tbody tr').cells[3].textContent) &&
    /no problem found/.test(document.getElementById('status').textContent) && performance.now(), null, { timeout: 300_000, polling: 20 }).then((h) => h.jsonValue());
  const after = Date.now() - t0;
  // From the schemas applied (payload.wasm loaded) to the rows decoded:
  // the records read again, or the segment read again by old pages.
  const applied = await page.evaluate(() => window.kwireOpTimes.schemas);
  console.log('storage payloads: the schema given once the ' + (big.size / 1e6).toFixed(1) + ' MB segment was listed: its 20,000 records decoded ' + after +
    ' ms after (payload.wasm loaded meanwhile), ' + Math.round(shownAt - applied) + ' ms after the schemas went to the worker; the worker asked to read the segment ' +
    await ops(page, 'storage') + ' time(s)');
  assert.equal(await ops(page, 'storage'), 1, 'the segment is not read again');
  assert.equal(await page.$$eval('#st-table tbody tr', (trs) => trs.length), 20000);
  assert.equal(await page.$eval('#st-table tbody:last-of-type tr:last-child', (tr) => tr.cells[3].textContent), '{"customer":"customer 199 ' + 'x'.repeat(59) + '","amount":199}');
  assert.match(await page.textContent('#pay-status'), /Of the 20,000 records listed: 20,000 values decoded with schema 7 \(Avro\); 20,000 keys with no schema/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// againSegment is the segment of 200 Avro records a batch, 20,000 of its
// records listed, which the tests below give the schema after (written
// once).
let againPath;
async function againSegment() {
  if (againPath) return againPath;
  const enc = new TextEncoder();
  const recs = [];
  for (let i = 0; i < 200; i++) recs.push({ key: enc.encode('c-' + i), value: framed(ID, { customer: 'customer ' + i, amount: i }) });
  await mkdir(join(dir, 'again'), { recursive: true });
  const path = join(dir, 'again', '00000000000000000000.log');
  await bigSegment(path, 6 << 20, 200, batchOf(recs));
  againPath = path;
  return path;
}

// The schema given once 20,000 records are listed: their keys and values
// read again come to the page as the listing's came, in pieces of at most
// 500 records, a message each (they came in one answer, one task of the
// page's), their rows changed where they are a slice at a time (no task
// changes more than MOST_ROWS: the listing's bound,
// playground-storage.test.mjs), the table busy meanwhile and the count as
// it was, and at the end every row decoded. The longest task meanwhile is printed, not judged (time is the
// machine's).
const MOST_ROWS = 2000;
// countReplies, run in the page before its scripts, counts the worker's
// messages for each storagePayloads request (window.kwireReplies: the
// records each carried; window.kwireRequests: the requests' ids, in
// order; window.kwirePieces: the pieces posted for each, by id;
// window.kwireAnswers: each one's answer; window.kwireOnPiece, when set,
// is called with a piece's request id before the page takes it;
// window.kwireListings: for each storage or storageStop request, in
// order, the pieces of each reading again the page had taken when the
// worker's first message for it came: the worker posts its messages in
// order, so a piece taken later was posted after the worker took it;
// window.kwireAtFirst: the same for each storagePayloads request, by id;
// window.kwireHold, when set, is called with each answer's request id,
// and an answer it says yes to is held back from the page, which takes it
// when the test calls window.kwireHeld: an answer that comes late).
const countReplies = [() => {
  const ids = new Set();
  window.kwireReplies = [];
  window.kwireRequests = [];
  window.kwirePieces = {};
  window.kwireAnswers = {};
  window.kwireListings = [];
  window.kwireAtFirst = {};
  const listings = new Map();
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...rest) {
    if (m && m.op === 'storagePayloads') { ids.add(m.id); window.kwireRequests.push(m.id); window.kwirePieces[m.id] = 0; }
    if (m && (m.op === 'storage' || m.op === 'storageStop')) listings.set(m.id, null);
    return post.call(this, m, ...rest);
  };
  const d = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    configurable: true, get() { return d.get.call(this); },
    set(f) {
      d.set.call(this, function (e) {
        window.kwireMessageAt = performance.now();
        if (e.data && listings.get(e.data.id) === null) { listings.set(e.data.id, { ...window.kwirePieces }); window.kwireListings.push(listings.get(e.data.id)); }
        if (e.data && ids.has(e.data.id)) {
          if (!(e.data.id in window.kwireAtFirst)) window.kwireAtFirst[e.data.id] = { ...window.kwirePieces };
          const x = e.data.progress || e.data.result;
          window.kwireReplies.push(x && Array.isArray(x.records) ? x.records.length : -1);
          if (e.data.progress) window.kwirePieces[e.data.id]++;
          else window.kwireAnswers[e.data.id] = e.data.result || { error: e.data.error };
          if (e.data.progress && window.kwireOnPiece) window.kwireOnPiece(e.data.id);
        }
        if (e.data && ('result' in e.data || 'error' in e.data) && window.kwireHold && window.kwireHold(e.data.id)) { window.kwireHeld = () => f.call(this, e); return; }
        return f.call(this, e);
      });
    },
  });
}];
test('the schema given once a big segment is listed: its records read again in pieces, their rows a slice at a time', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  const page = await pg.open('', { init: countReplies });
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
  assert.match(await page.$eval('#st-table tbody tr', (tr) => tr.cells[3].textContent), /^base64:/);
  const countBefore = await page.textContent('#st-count');
  await page.evaluate(() => {
    window.again = { tasks: [], said: [], from: performance.now(), mostRows: 0, busy: 0 };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.again.tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    const t = document.getElementById('st-table'), count = document.getElementById('st-count');
    // The rows added or changed (a cell's text set) between two
    // checkpoints of the microtasks: at most a task's.
    new MutationObserver((ms) => {
      const rows = new Set();
      for (const m of ms) {
        for (const x of m.addedNodes) if (x.tagName === 'TR') rows.add(x);
        const tr = m.target.nodeType === 1 && m.target.closest('tbody tr');
        if (tr) rows.add(tr); // (a cell's text set)
      }
      window.again.mostRows = Math.max(window.again.mostRows, rows.size);
    }).observe(t, { childList: true, subtree: true });
    new MutationObserver(() => { if (t.getAttribute('aria-busy') === 'true') window.again.busy++; }).observe(t, { attributes: true, attributeFilter: ['aria-busy'] });
    new MutationObserver(() => window.again.said.push({
      text: count.textContent, rows: [...t.tBodies].reduce((n, b) => n + b.rows.length, 0), rowCount: t.getAttribute('aria-rowcount'), busy: t.getAttribute('aria-busy'),
    })).observe(count, { childList: true, characterData: true, subtree: true });
  });
  await page.click('#pay summary');
  const t0 = Date.now();
  await page.setInputFiles('#pay-files', [schemaPath]);
  await page.waitForFunction(() => /Of the 20,000 records listed/.test(document.getElementById('pay-status').textContent) &&
    /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 300_000, polling: 20 });
  const ms = Date.now() - t0;
  const { tasks, said, from, mostRows, busy } = await page.evaluate(() => window.again);
  const replies = await page.evaluate(() => window.kwireReplies);
  console.log('storage payloads: 20,000 records read again, decoded ' + ms + ' ms after the schema was given (payload.wasm loaded meanwhile), in ' + replies.length + ' messages of at most ' + Math.max(...replies) + ' records; the most rows changed in one task ' + mostRows +
    ', the longest main-thread task meanwhile ' + Math.round(Math.max(0, ...tasks.filter(([at]) => at >= from).map(([, ms]) => ms))) + ' ms');
  assert.ok(replies.length > 1 && Math.max(...replies) <= 500, 'the records read again come in pieces: ' + JSON.stringify(replies));
  assert.equal(replies.reduce((n, x) => n + Math.max(0, x), 0), 20000);
  assert.ok(mostRows > 0 && mostRows <= MOST_ROWS, mostRows + ' rows changed in one task');
  // The rows are changed where they are, the table busy meanwhile: every
  // row there all along, the count as it was (not the rows made again).
  assert.ok(busy > 0, 'the table said it was busy');
  assert.ok(said.every((x) => x.text === countBefore && x.rows === 20000 && x.rowCount === '20001'), 'the count and the rows stay: ' + JSON.stringify(said));
  const table = await page.evaluate(() => {
    const t = document.getElementById('st-table');
    const trs = [...t.querySelectorAll('tbody tr')];
    return { rows: trs.length, offsets: trs.every((tr, i) => tr.cells[0].textContent === String(i)), values: trs.map((tr) => tr.cells[3].textContent),
      busy: t.getAttribute('aria-busy'), rowCount: t.getAttribute('aria-rowcount'), current: [...t.querySelectorAll('tr[aria-current]')].map((tr) => tr.cells[0].textContent) };
  });
  assert.deepEqual({ ...table, values: undefined }, { rows: 20000, offsets: true, values: undefined, busy: null, rowCount: '20001', current: ['0'] });
  table.values.forEach((v, i) => { if (v !== JSON.stringify({ customer: 'customer ' + (i % 200), amount: i % 200 })) assert.fail('row ' + i + ': ' + v); });
  assert.match(await page.textContent('#pay-status'), /Of the 20,000 records listed: 20,000 values decoded with schema 7 \(Avro\)/);
  await detail(page, /customer/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The records read again are decoded in their rows, where they are: the
// table is not begun again, so the user, scrolled to row 12,000 with it
// picked, stays there, that row current, focused and drawn, the count as
// it was; the rows' text changes (the value decoded), no row goes or
// comes. (The table begun again took the scroll back to its top and the
// focus away, and lost the rows on screen until remade.) The task that
// ends the reading (the count, the status, how the records read) is
// printed, not judged.
const DEEP = 12000;
test('the schema given while scrolled deep in a big listing: the rows decoded in place, the scroll, the current row and the count kept', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  const page = await pg.open('', { init: countReplies });
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent) && document.querySelectorAll('#st-record section').length === 2,
    null, { timeout: 150_000, polling: 20 });
  await page.$eval('#st-table tr[data-record="' + DEEP + '"]', (tr) => tr.scrollIntoView({ block: 'center' }));
  await page.click('#st-table tr[data-record="' + DEEP + '"]');
  await detail(page, new RegExp('c-' + (DEEP % 200)));
  // Where the user is: the box's scroll, the rows on screen (the offsets
  // drawn at its top and middle), the row current and focused, the count.
  const where = () => page.evaluate(() => {
    const t = document.getElementById('st-table'), box = t.closest('.pg-capbox'), r = box.getBoundingClientRect();
    const at = (y) => { const e = document.elementFromPoint(r.left + 20, y); const tr = e && e.closest('tbody tr'); return tr ? tr.cells[0].textContent : null; };
    return {
      scrollTop: box.scrollTop, top: at(r.top + t.tHead.getBoundingClientRect().height + 8), middle: at(r.top + r.height / 2),
      current: [...t.querySelectorAll('tr[aria-current]')].map((tr) => tr.cells[0].textContent),
      focused: document.activeElement && document.activeElement.dataset.record, count: document.getElementById('st-count').textContent, rowCount: t.getAttribute('aria-rowcount'),
    };
  });
  const before = await where();
  assert.ok(before.scrollTop > 100000 && before.middle !== null && +before.middle > 11000, JSON.stringify(before));
  assert.deepEqual([before.current, before.focused], [[String(DEEP)], String(DEEP)]);
  await page.evaluate(() => {
    const t = document.getElementById('st-table'), box = t.closest('.pg-capbox'), count = document.getElementById('st-count');
    window.inPlace = { removed: 0, added: 0, scrolls: [], counts: [], from: performance.now(), tasks: [], endAt: 0, endTask: -1, resumed: 0 };
    // The page's slices resume after scheduler.yield: when the last one
    // began, the task that ends the reading began.
    if (globalThis.scheduler && scheduler.yield) {
      const y = scheduler.yield.bind(scheduler);
      scheduler.yield = () => y().then(() => { window.inPlace.resumed = performance.now(); });
    }
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.inPlace.tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    new MutationObserver((ms) => {
      for (const m of ms) {
        for (const x of m.removedNodes) if (x.tagName === 'TR' || x.tagName === 'TBODY') window.inPlace.removed++;
        for (const x of m.addedNodes) if (x.tagName === 'TR' || x.tagName === 'TBODY') window.inPlace.added++;
      }
    }).observe(t, { childList: true, subtree: true });
    box.addEventListener('scroll', () => window.inPlace.scrolls.push(box.scrollTop));
    new MutationObserver(() => window.inPlace.counts.push(count.textContent + ' | ' + t.getAttribute('aria-rowcount'))).observe(count, { childList: true, characterData: true, subtree: true });
    // The moment the schemas' status says how the records read: within
    // the task that ends the reading.
    const pay = document.getElementById('pay-status');
    new MutationObserver(() => {
      if (window.inPlace.endAt || !/Of the 20,000/.test(pay.textContent)) return;
      window.inPlace.endAt = performance.now();
      const began = Math.max(window.inPlace.resumed, window.kwireMessageAt || 0);
      if (began) window.inPlace.endTask = window.inPlace.endAt - began;
    })
      .observe(pay, { childList: true, characterData: true, subtree: true });
  });
  await page.setInputFiles('#pay-files', [schemaPath]); // (not opened: the row keeps the focus)
  await page.waitForFunction(() => /Of the 20,000 records listed/.test(document.getElementById('pay-status').textContent) &&
    /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 300_000, polling: 20 });
  await detail(page, /customer/);
  const after = await where();
  const seen = await page.evaluate(() => window.inPlace);
  const end = seen.tasks.find(([at, ms]) => at <= seen.endAt && seen.endAt <= at + ms + 1);
  console.log('storage payloads: read again while at row ' + DEEP + ': the task that ended it ' + (end ? Math.round(end[1]) + ' ms' : 'under 50 ms (no long task)') +
    (seen.endTask >= 0 ? ', from its start to the status said ' + seen.endTask.toFixed(1) + ' ms' : '') +
    '; the longest tasks meanwhile ' + seen.tasks.filter(([at]) => at >= seen.from).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([at, ms]) => Math.round(ms) + ' ms (at ' + Math.round(at - seen.from) + ')').join(', ') +
    '; the status said at ' + Math.round(seen.endAt - seen.from) + '; rows removed ' + seen.removed + ', added ' + seen.added);
  assert.deepEqual(after, before, 'where the user was: ' + JSON.stringify({ before, after }));
  assert.deepEqual({ removed: seen.removed, added: seen.added, scrolls: seen.scrolls.filter((y) => y !== before.scrollTop) }, { removed: 0, added: 0, scrolls: [] });
  assert.ok(seen.counts.every((c) => c === before.count + ' | 20001'), 'the count stays: ' + JSON.stringify(seen.counts));
  const table = await page.evaluate(() => {
    const trs = [...document.querySelectorAll('#st-table tbody tr')];
    return { rows: trs.length, offsets: trs.every((tr, i) => tr.cells[0].textContent === String(i) && tr.dataset.record === String(i)), values: trs.map((tr) => tr.cells[3].textContent), bad: trs.filter((tr) => tr.className || tr.title).length };
  });
  assert.deepEqual({ ...table, values: undefined }, { rows: 20000, offsets: true, values: undefined, bad: 0 });
  table.values.forEach((v, i) => { if (v !== JSON.stringify({ customer: 'customer ' + (i % 200), amount: i % 200 })) assert.fail('row ' + i + ': ' + v); });
  // The columns fit the text decoded (as wide as the longest value
  // listed, not the base64 it was), as a listing's columns are.
  const cols = await page.$eval('#st-table', (t) => t.style.getPropertyValue('--st-cols').split(' ')[3]);
  assert.equal(cols, JSON.stringify({ customer: 'customer 199', amount: 199 }).length + 2 + 'ch');
  const drawn = await detail(page, /customer/);
  assert.match(drawn, new RegExp('customer ' + (DEEP % 200)));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Schemas given twice quickly: the first reading again is stopped by the
// second between its pieces (the worker read all of them before, each
// posted to the page, which dropped them), and the second's rows are
// what the table shows; and the view closed stops a reading again too.
test('schemas given twice quickly: the first reading again stops at the second; the view closed stops one', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  const page = await pg.open('', { init: countReplies });
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
  await page.click('#pay summary');
  // The second schema given as the first piece of the first reading again
  // comes (a file picked, as the picker gives it): the pieces the first
  // posts after the page asked for the second, the worker had posted
  // before it took the request, or read meanwhile.
  await page.evaluate(() => {
    window.kwireOnPiece = () => {
      window.kwireOnPiece = null;
      window.piecesThen = { ...window.kwirePieces };
      const input = document.getElementById('pay-files'), dt = new DataTransfer();
      dt.items.add(new File(['"string"'], '8.avsc'));
      input.files = dt.files;
      input.dispatchEvent(new Event('change'));
    };
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (m, ...rest) {
      if (m && m.op === 'storagePayloads' && window.piecesThen && !window.piecesAsked) window.piecesAsked = { ...window.kwirePieces };
      return post.call(this, m, ...rest);
    };
  });
  await page.setInputFiles('#pay-files', [schemaPath]);
  await page.waitForFunction(() => /Of the 20,000 records listed/.test(document.getElementById('pay-status').textContent) && window.kwireRequests.length === 2 &&
    window.kwireRequests.every((id) => id in window.kwireAnswers) && /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 300_000, polling: 20 });
  const { ids, pieces, answers, then, asked, atFirst } = await page.evaluate(() => ({ ids: window.kwireRequests, pieces: window.kwirePieces, answers: window.kwireAnswers, then: window.piecesThen, asked: window.piecesAsked, atFirst: window.kwireAtFirst }));
  const [first, second] = ids;
  console.log('storage payloads: schemas given twice: the first reading again posted ' + pieces[first] + ' of 40 pieces (' + then[first] + ' when the second schema was given, ' +
    asked[first] + ' when the second reading was asked for, ' + atFirst[second][first] + ' when the second\'s first piece came), the second ' + pieces[second]);
  // How many pieces the first posted before the worker took the second
  // is the machine's (the page, busy, takes them late); that none came
  // after the second's first piece is the stop's.
  assert.ok(asked[first] < 40 && pieces[first] === atFirst[second][first], 'the first reading again stopped: ' + JSON.stringify({ pieces, then, asked, atFirst, answer: answers[first] }));
  assert.equal(answers[first].stopped, true);
  assert.equal(pieces[second], 40);
  const values = await page.$$eval('#st-table tbody tr', (trs) => trs.map((tr) => tr.cells[3].textContent));
  assert.equal(values.length, 20000);
  values.forEach((v, i) => { if (v !== JSON.stringify({ customer: 'customer ' + (i % 200), amount: i % 200 })) assert.fail('row ' + i + ': ' + v); });
  assert.match(await page.textContent('#pay-status'), /Of the 20,000 records listed: 20,000 values decoded with schema 7 \(Avro\)/);

  // The view closed (a frame typed) while a third reading again runs:
  // the worker stops it too.
  await page.evaluate(() => {
    window.kwireOnPiece = () => {
      window.kwireOnPiece = null;
      const input = document.getElementById('input');
      input.value = '00';
      input.dispatchEvent(new Event('input'));
    };
  });
  await page.setInputFiles('#pay-files', [schemaPath]);
  await page.waitForFunction(() => window.kwireRequests.length === 3 && window.kwireRequests[2] in window.kwireAnswers, null, { timeout: 300_000, polling: 20 });
  const third = await page.evaluate(() => {
    const id = window.kwireRequests[2], l = window.kwireListings;
    return { pieces: window.kwirePieces[id], atStop: l.length === 2 ? l[1][id] : 'listings: ' + l.length, answer: window.kwireAnswers[id], hidden: document.getElementById('storage').hidden };
  });
  console.log('storage payloads: the view closed while read again: ' + third.pieces + ' of 40 pieces posted, ' + third.atStop + ' when the worker took the stop');
  // No piece after the worker answered the stop (storageStop).
  assert.deepEqual({ ...third, pieces: third.pieces < 40 && third.pieces === third.atStop, atStop: undefined }, { pieces: true, atStop: undefined, answer: { records: [], stopped: true }, hidden: true }, JSON.stringify(third));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// consoleErrors collects what the page and its worker say on the console
// as errors (page.errors has the uncaught ones).
const consoleErrors = (page) => {
  const errs = [];
  page.on('console', (m) => { if (m.type() === 'error') errs.push(m.text()); });
  return errs;
};

// superseded waits for the worker's answers to both readings again
// (first, stopped; the second when there is one) and answers what the
// page counted of the first: its pieces posted, those posted when the
// page asked for what superseded it (window.piecesAsked), its answer.
async function firstReading(page) {
  await page.waitForFunction(() => window.kwireRequests.length >= 1 && window.kwireRequests[0] in window.kwireAnswers, null, { timeout: 300_000, polling: 20 });
  return page.evaluate(() => {
    const id = window.kwireRequests[0], l = window.kwireListings;
    return { pieces: window.kwirePieces[id], asked: window.piecesAsked, listing: l.length === 2 ? l[1][id] : 'listings: ' + l.length, answer: window.kwireAnswers[id] };
  });
}

// askedAt, run in the page, notes the pieces the first reading again had
// posted when the page first asked the worker for op (window.piecesAsked).
const askedAt = (op) => {
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...rest) {
    if (m && m.op === op && window.kwireRequests.length && window.piecesAsked === undefined) window.piecesAsked = window.kwirePieces[window.kwireRequests[0]];
    return post.call(this, m, ...rest);
  };
};

// Other files opened (a segment picked, a partition folder dropped) while
// the records listed are read again with the schema just given: the
// worker stops that reading between its pieces (its storage op counts as
// the stop; the records the reading names are no longer the module's),
// none of its pieces is written into the new view, whose records are the
// new files' own, decoded with the schema, and nothing is said wrong.
test('other files opened while the records are read again: the reading stops, the new view is the new files\' alone', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  const orderLog = await readFile(join(orders, '00000000000000000000.log'));
  for (const how of ['files picked', 'a folder dropped']) {
    const page = await pg.open('', { init: countReplies });
    const errs = consoleErrors(page);
    await page.evaluate(askedAt, 'storage');
    await page.setInputFiles('#file', [path]);
    await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
    await page.click('#pay summary');
    if (how === 'files picked') {
      // At the first piece, before the page takes it: a segment of 4
      // records picked (as the picker gives it).
      await page.evaluate((bytes) => {
        window.kwireOnPiece = () => {
          window.kwireOnPiece = null;
          const input = document.getElementById('file'), dt = new DataTransfer();
          dt.items.add(new File([new Uint8Array(bytes)], '00000000000000000000.log'));
          input.files = dt.files;
          input.dispatchEvent(new Event('change'));
        };
      }, [...orderLog]);
      await page.setInputFiles('#pay-files', [schemaPath]);
    } else {
      await page.setInputFiles('#pay-files', [schemaPath]);
      // As soon as the page asked for the reading again: the folder's
      // files are walked first, while its pieces come.
      await page.waitForFunction(() => window.kwireRequests.length >= 1, null, { timeout: 120_000, polling: 5 });
      await drop(page, [orders]);
    }
    // The new view: its 4 records, decoded, and the status said.
    await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length === 4 && /"customer"/.test(document.querySelector('#st-table tbody tr').cells[3].textContent) &&
      /Of the 4 records listed/.test(document.getElementById('pay-status').textContent) && !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000, polling: 20 });
    // Whatever of the first reading was still coming has come by now,
    // and is not in the table.
    await page.waitForTimeout(300);
    const first = await firstReading(page);
    console.log('storage payloads: ' + how + ' while read again: the first reading posted ' + first.pieces + ' of 40 pieces (' + first.asked +
      ' taken when the page asked for the new files, ' + first.listing + ' when the worker began them)');
    assert.deepEqual(first.answer, { records: [], stopped: true }, how + ': the first reading stopped: ' + JSON.stringify(first));
    // No piece of it after the worker began the new files: it stopped there.
    assert.ok(first.asked < 40 && first.pieces === first.listing, how + ': stopped when the new files were begun: ' + JSON.stringify(first));
    const rows = await cells(page);
    assert.deepEqual(rows.map((r) => [r[0], r[2]]), [['0', 'order-1'], ['1', 'order-2'], ['2', 'order-3'], ['3', 'plain']], how);
    assert.equal(rows[0][3], JSON.stringify({ customer: evil, amount: 123456789 }));
    assert.equal(rows[1][3], '{"customer":"Bo","amount":5}');
    assert.match(rows[2][3], new RegExp('^⚠ not decoded: schema ' + MISSING));
    assert.equal(rows[3][3], 'hello');
    assert.ok(rows.every((r) => !/customer \d/.test(r.join(' '))), how + ': no row of the first files: ' + JSON.stringify(rows));
    assert.match(await page.textContent('#pay-status'), new RegExp('Of the 4 records listed: 2 values decoded with schema 7 \\(Avro\\); 1 value not decoded: schema ' + MISSING));
    assert.match(await page.textContent('#st-title'), /4 records/);
    assert.equal(await page.$eval('#st-count', (x) => x.textContent), '');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(errs, []);
    await page.close();
  }
});

// The page turned to something else while the records are read again (a
// decode example picked, a link to a frame followed, a large text
// pasted): the storage view closes, as when a frame is typed, and the
// worker stops the reading (storageStop); the frame is shown alone.
test('an example picked, a link followed or text pasted while the records are read again: the view closes, the reading stops', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  for (const how of ['an example picked', 'a link followed', 'text pasted']) {
    const page = await pg.open('', { init: countReplies });
    const errs = consoleErrors(page);
    await page.evaluate(askedAt, 'storageStop');
    await page.setInputFiles('#file', [path]);
    await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
    await page.click('#pay summary');
    await page.evaluate((how) => {
      window.kwireOnPiece = () => {
        window.kwireOnPiece = null;
        if (how === 'an example picked') document.querySelector('#examples button').click();
        else if (how === 'a link followed') location.hash = 'hex=' + '0000003600120003000000070012636f6e73756d65722d62696c6c696e672d3100126170616368652d6b61666b612d6a61766106342e302e3000';
        else {
          const dt = new DataTransfer();
          dt.setData('text/plain', '0000003600120003000000070012636f6e73756d65722d62696c6c696e672d3100126170616368652d6b61666b612d6a61766106342e302e3000'.repeat(2500));
          document.getElementById('input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
        }
      };
    }, how);
    await page.setInputFiles('#pay-files', [schemaPath]);
    const first = await firstReading(page);
    await page.waitForFunction(() => !/^Reading/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent !== '', null, { timeout: 120_000, polling: 20 });
    await page.waitForTimeout(300);
    const seen = await page.evaluate(() => ({ storage: document.getElementById('storage').hidden, shown: window.kwirePlayground.storage === null, status: document.getElementById('status').textContent }));
    console.log('storage payloads: ' + how + ' while read again: the first reading posted ' + first.pieces + ' of 40 pieces (' + first.asked + ' when the page stopped it); the status: ' + seen.status);
    assert.deepEqual({ hidden: seen.storage, closed: seen.shown }, { hidden: true, closed: true }, how + ': the storage view closed');
    assert.deepEqual(first.answer, { records: [], stopped: true }, how + ': the reading stopped: ' + JSON.stringify(first));
    // No piece of it after the worker took the stop.
    assert.ok(first.asked < 40 && first.pieces === first.listing, how + ': stopped when the worker took the stop: ' + JSON.stringify(first));
    assert.deepEqual(page.errors, []);
    assert.deepEqual(errs, []);
    await page.close();
  }
});

// A reading again whose answer the page takes late, once other files are
// open and their own records are read again (held back here until the
// second reading's first piece: the worker answered as the other files
// began): the view closed then stops the second reading all the same.
// The page numbered the readings of each view on its own, and the first
// view's answer, its reading 1 as the second's was, said no reading ran
// any more: the view closed did not ask the worker to stop, and the
// second reading posted all 40 pieces.
test('a reading again answered late, once other files\' reading again has begun: the view closed still stops that one', { timeout: 600_000 }, async () => {
  const path = await againSegment();
  const page = await pg.open('', { init: countReplies });
  const errs = consoleErrors(page);
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
  await page.click('#pay summary');
  // At the first reading's first piece, the segment the view shows is
  // opened again (as the picker gives it): a view of its own, which the
  // worker stops the first reading at; the first's answer is held back.
  await page.evaluate(() => {
    window.kwireHold = (id) => id === window.kwireRequests[0];
    window.kwireOnPiece = () => {
      window.kwireOnPiece = null;
      window.firstView = window.kwirePlayground.storage;
      const input = document.getElementById('file'), dt = new DataTransfer();
      for (const f of window.firstView.files) dt.items.add(f.file);
      input.files = dt.files;
      input.dispatchEvent(new Event('change'));
    };
  });
  await page.setInputFiles('#pay-files', [schemaPath]);
  await page.waitForFunction(() => {
    const s = window.kwirePlayground.storage;
    return window.kwireHeld && s && s !== window.firstView && s.result && /no problem found/.test(document.getElementById('status').textContent);
  }, null, { timeout: 300_000, polling: 20 });
  // Another schema given: the new view's records read again. At its first
  // piece the first reading's answer comes, then a frame is typed.
  await page.evaluate(() => {
    window.kwireOnPiece = (id) => {
      if (id !== window.kwireRequests[1]) return;
      window.kwireOnPiece = null;
      window.kwireHold = null;
      window.kwireHeld();
      setTimeout(() => {
        const input = document.getElementById('input');
        input.value = '00';
        input.dispatchEvent(new Event('input'));
      }, 0);
    };
  });
  await page.setInputFiles('#pay-files', [otherPath]);
  await page.waitForFunction(() => window.kwireRequests.length === 2 && window.kwireRequests[1] in window.kwireAnswers, null, { timeout: 300_000, polling: 20 });
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const [first, second] = window.kwireRequests, l = window.kwireListings;
    return {
      first: window.kwireAnswers[first], answer: window.kwireAnswers[second], pieces: window.kwirePieces[second],
      atStop: l.length === 3 ? l[2][second] : 'listings: ' + l.length, hidden: document.getElementById('storage').hidden, closed: window.kwirePlayground.storage === null,
    };
  });
  console.log('storage payloads: the view closed after an earlier view\'s reading answered late: the later reading posted ' + seen.pieces + ' of 40 pieces, ' + seen.atStop + ' when the worker took the stop');
  assert.deepEqual(seen.first, { records: [], stopped: true }, 'the first reading stopped as the files were opened again: ' + JSON.stringify(seen));
  assert.deepEqual({ hidden: seen.hidden, closed: seen.closed }, { hidden: true, closed: true }, 'the view closed');
  assert.deepEqual(seen.answer, { records: [], stopped: true }, 'the later reading stopped: ' + JSON.stringify(seen));
  // No piece after the worker took the stop (storageStop).
  assert.ok(seen.pieces < 40 && seen.pieces === seen.atStop, 'stopped when the worker took the stop: ' + JSON.stringify(seen));
  assert.deepEqual(page.errors, []);
  assert.deepEqual(errs, []);
  await page.close();
});
