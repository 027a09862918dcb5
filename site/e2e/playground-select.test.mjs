// What a selection says and selects, in real Chromium: the breadcrumb
// above the panels names a node by its value-JSON path (the path the
// warnings and the JSON panel use), a batch's "_raw" line in the JSON
// panel selects the batch whose bytes it shows, and storage files opened
// while a big frame was being decoded, or a big capture, leave no
// "decoding" state behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session, root } from './helpers-playground.mjs';

const pg = session();
const { open } = pg;

// The Produce example: one batch of two records, the first with a header.
const PRODUCE = '000000c10000000900000007000a70726f64756365722d310000ffff0000753002076f7264657273020000000094010000000000000000000000870000000002199e6af10000000000010000019b76daa8000000019b76daa801ffffffffffffffffffffffffffff000000026e0000000e757365722d34323e7b226576656e74223a227369676e7570222c22706c616e223a2270726f227d020c736f75726365067765623a0002020c757365722d37227b226576656e74223a226c6f67696e227d00000000';
// A Produce v9 request whose batch (74 bytes, from byte 32) holds one
// record and 3 bytes after it inside the batch's length: its CRC fails,
// and its JSON has "_raw", the batch's bytes as base64.
const RAWBATCH = '0000006900000009000000010001740000ffff0000753002027402000000004b00000000000000000000003e00000000027e0a5dfa00000000000000000000000000000000000000000000ffffffffffffffffffffffffffff0000000112000000026b04763000ffffff000000';

// clickJSON scrolls the JSON panel to the first line whose text matches
// re (the panel draws the lines in view) and clicks it.
async function clickJSON(page, re) {
  await page.waitForFunction(() => window.kwirePlayground.panels[0].jsonReady && document.querySelectorAll('#json .pg-row[data-line]').length > 0);
  const line = await page.evaluate(async (src) => {
    const re = new RegExp(src), box = document.getElementById('json');
    const find = () => [...box.querySelectorAll('.pg-row[data-line]')].find((r) => re.test(r.textContent));
    for (let y = 0; !find() && y < box.scrollHeight; y += 200) {
      box.scrollTop = y;
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = find();
    return r ? +r.dataset.line : -1;
  }, re.source);
  assert.ok(line >= 0, 'no JSON line matches ' + re);
  const before = await page.evaluate(() => document.body.dataset.selected || '');
  await page.click(`#json .pg-row[data-line="${line}"]`);
  await page.waitForFunction((b) => (document.body.dataset.selected || '') !== b && window.kwirePlayground.panels[0].sel, before);
  // The selection bar's text comes after the node's path is asked for.
  await page.waitForFunction(() => /\[\d+, \d+\)/.test(document.getElementById('sel-desc').textContent));
}

test('the breadcrumb names a record\'s key by its JSON path: the batch and record by their indexes', { timeout: 120_000 }, async () => {
  const page = await open('#hex=' + PRODUCE);
  await page.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  // The second record's key: the last "key" member of a record (the
  // first record's header has one too, before it).
  await clickJSON(page, /^\s*"key": \{\s*$/);
  const first = await page.textContent('#sel-desc');
  assert.match(first, /^body › topicData\[0\] › partitionData\[0\] › records\[0\] › records\[0\] › key {2}\[\d+, \d+\)/, first);
  await clickJSON(page, /^\s*"text": "user-7"/);
  const second = await page.textContent('#sel-desc');
  assert.match(second, /^body › topicData\[0\] › partitionData\[0\] › records\[0\] › records\[1\] › key {2}\[\d+, \d+\)/, second);
  await page.waitForSelector('#tree .pg-row.pg-sel');
  assert.match(await page.$eval('#tree .pg-row.pg-sel', (r) => r.textContent), /key/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a batch\'s "_raw" line selects the batch, all its bytes lit in the grid', { timeout: 120_000 }, async () => {
  const page = await open('#hex=' + RAWBATCH);
  await page.waitForFunction(() => document.body.dataset.decoded, null, { timeout: 60_000 });
  await clickJSON(page, /^\s*"_raw": "/);
  const sel = await page.evaluate(() => { const s = window.kwirePlayground.panels[0].sel; return { buf: s.buf, start: s.start, end: s.end }; });
  assert.deepEqual(sel, { buf: 0, start: 32, end: 106 }, 'the batch: bytes [32, 106)');
  const desc = await page.textContent('#sel-desc');
  assert.match(desc, /^body › topicData\[0\] › partitionData\[0\] › records\[0\] {2}\[32, 106\) {2}74 bytes/, desc);
  // The tree's selected row is the batch; the grid lights its cells,
  // from its first byte on (the grid draws the rows in view), and no
  // cell outside it.
  await page.waitForSelector('#tree .pg-row.pg-sel');
  assert.match(await page.$eval('#tree .pg-row.pg-sel', (r) => r.textContent), /RecordBatch/);
  await page.waitForFunction(() => document.querySelector('#grids .kw-cell.kw-sel[data-start="32"]'));
  const lit = await page.$$eval('#grids .kw-cell.kw-sel', (cs) => cs.map((c) => [+c.dataset.start, +c.dataset.end]));
  assert.ok(lit.length > 10, 'cells lit: ' + lit.length);
  for (const [s, e] of lit) assert.ok(s >= 32 && e <= 106, 'a cell lit outside the batch: [' + s + ', ' + e + ')');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('storage files opened while a big frame decodes: no "decoding" state stays behind', { timeout: 180_000 }, async () => {
  const page = await open();
  // The worker's answers are held while the files are changed, so that
  // the frame's answer comes after the storage files replaced it, as a
  // slow decode's does.
  await page.evaluate(() => {
    const w = window.kwireBoot.worker, on = w.onmessage;
    window.held = [];
    window.hold = true;
    w.onmessage = (e) => { if (window.hold && e.data.event === undefined) window.held.push(e); else on(e); };
    window.release = () => { window.hold = false; for (const e of window.held.splice(0)) on(e); };
  });
  await page.setInputFiles('#file', join(pg.built.inputs, 'big-fetch.bin'));
  await page.waitForFunction(() => document.body.dataset.decoding !== undefined, null, { timeout: 30_000 });
  await page.setInputFiles('#file', join(root, 'testdata', 'storage', 'logdir', 'orders-0', '00000000000000000000.log'));
  await page.waitForFunction(() => /reading/.test(document.getElementById('st-title').textContent), null, { timeout: 30_000 });
  await page.evaluate(() => window.release());
  await page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelectorAll('#st-record section').length > 0 &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  // The frame's answer came and was dropped (it stood for an input no
  // longer shown): the page decodes nothing.
  await page.waitForFunction(() => window.held.length === 0 && !window.hold);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await page.evaluate(() => document.body.dataset.decoding), undefined, 'the page still says a decode is running');
  assert.doesNotMatch(await page.textContent('#status'), /Decoding big-fetch/);
  assert.equal(await page.$$eval('#st-table tbody tr', (r) => r.length), 24);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a big capture opened: the capture shown, no "decoding" state stays behind', { timeout: 180_000 }, async () => {
  const page = await open();
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.setInputFiles('#file', join(pg.built.inputs, 'traffic.pcap'));
  // The file is over 64 KiB: the page says at once that it is reading it.
  await page.waitForFunction((b) => !document.getElementById('capture').hidden && (document.body.dataset.decoded || '') !== b &&
    document.querySelectorAll('#cap-table tbody tr').length > 0, before, { timeout: 120_000 });
  assert.match(await page.textContent('#cap-title'), /^Capture: \d+ packets/);
  assert.equal(await page.evaluate(() => document.body.dataset.decoding), undefined, 'the page still says a decode is running');
  assert.deepEqual(page.errors, []);
  await page.close();
});
