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

// The schema given once 20,000 records are listed: their keys and values
// read again come to the page as the listing's came, in pieces of at most
// 500 records, a message each (they came in one answer, one task of the
// page's), their rows made a slice at a time (no task adds more than
// MOST_ROWS: the listing's bound, playground-storage.test.mjs), the count
// saying how many rows of the 20,000 are made, and at the end every row
// decoded. The longest task meanwhile is printed, not judged (time is the
// machine's).
const MOST_ROWS = 2000;
// countReplies, run in the page before its scripts, counts the worker's
// messages for each storagePayloads request (window.kwireReplies: the
// records each carried).
const countReplies = [() => {
  const ids = new Set();
  window.kwireReplies = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...rest) {
    if (m && m.op === 'storagePayloads') ids.add(m.id);
    return post.call(this, m, ...rest);
  };
  const d = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    configurable: true, get() { return d.get.call(this); },
    set(f) {
      d.set.call(this, function (e) {
        if (e.data && ids.has(e.data.id)) {
          const x = e.data.progress || e.data.result;
          window.kwireReplies.push(x && Array.isArray(x.records) ? x.records.length : -1);
        }
        return f.call(this, e);
      });
    },
  });
}];
test('the schema given once a big segment is listed: its records read again in pieces, their rows a slice at a time', { timeout: 600_000 }, async () => {
  const enc = new TextEncoder();
  const recs = [];
  for (let i = 0; i < 200; i++) recs.push({ key: enc.encode('c-' + i), value: framed(ID, { customer: 'customer ' + i, amount: i }) });
  await mkdir(join(dir, 'again'), { recursive: true });
  const path = join(dir, 'again', '00000000000000000000.log');
  await bigSegment(path, 6 << 20, 200, batchOf(recs));
  const page = await pg.open('', { init: countReplies });
  await page.setInputFiles('#file', [path]);
  await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000, polling: 20 });
  assert.match(await page.$eval('#st-table tbody tr', (tr) => tr.cells[3].textContent), /^base64:/);
  await page.evaluate(() => {
    window.again = { tasks: [], said: [], from: performance.now(), mostRows: 0 };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.again.tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    const t = document.getElementById('st-table'), count = document.getElementById('st-count');
    new MutationObserver((ms) => {
      let n = 0;
      for (const m of ms) for (const x of m.addedNodes) if (x.tagName === 'TR') n++;
      window.again.mostRows = Math.max(window.again.mostRows, n);
    }).observe(t, { childList: true, subtree: true });
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
  const { tasks, said, from, mostRows } = await page.evaluate(() => window.again);
  const replies = await page.evaluate(() => window.kwireReplies);
  console.log('storage payloads: 20,000 records read again, decoded ' + ms + ' ms after the schema was given (payload.wasm loaded meanwhile), in ' + replies.length + ' messages of at most ' + Math.max(...replies) + ' records; the most rows added in one task ' + mostRows +
    ', the longest main-thread task meanwhile ' + Math.round(Math.max(0, ...tasks.filter(([at]) => at >= from).map(([, ms]) => ms))) + ' ms');
  assert.ok(replies.length > 1 && Math.max(...replies) <= 500, 'the records read again come in pieces: ' + JSON.stringify(replies));
  assert.equal(replies.reduce((n, x) => n + Math.max(0, x), 0), 20000);
  assert.ok(mostRows > 0 && mostRows <= MOST_ROWS, mostRows + ' rows added in one task');
  const making = said.filter((x) => /^listing/.test(x.text));
  assert.ok(making.length > 0, 'the count said the rows were being made: ' + JSON.stringify(said));
  for (const x of making) {
    const [, made, of] = x.text.match(/^listing ([\d,]+) of ([\d,]+) rows…$/).map((n) => +String(n).replaceAll(',', ''));
    assert.ok(made === x.rows && made < of && of === 20000 && x.rowCount === '20001' && x.busy === 'true', JSON.stringify(x));
  }
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
