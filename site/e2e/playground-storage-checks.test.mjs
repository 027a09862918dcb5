// The playground's storage view flags what kwire log flags, through the
// same checks (codec/storage's OffsetCheck and IndexCheck, in
// storage.wasm), in real Chromium: offsets that go back (a segment
// appended to itself), a segment running past the next one's base, an
// index entry past the segment (only that entry); and zeros to the end
// are a note, not a problem, as kwire log has them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtemp, mkdir, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { session, root } from './helpers-playground.mjs';

let dir;
const orders = join(root, 'testdata', 'storage', 'logdir', 'orders-0');
const seg0 = '00000000000000000000.log';

const pg = session({
  setup: async () => { dir = await mkdtemp(join(tmpdir(), 'kwire-storage-checks-')); },
  teardown: async () => { if (dir) await rm(dir, { recursive: true, force: true }); },
});
const { open } = pg;

// files: {name: bytes}, written to a folder of their own and opened together.
async function openFiles(page, files) {
  const d = await mkdtemp(join(dir, 'f-'));
  const paths = [];
  for (const [name, b] of Object.entries(files)) {
    await writeFile(join(d, name), b);
    paths.push(join(d, name));
  }
  await page.setInputFiles('#file', paths);
  await page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelectorAll('#st-record section').length > 0 &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
}

const flagged = (page) => page.$$eval('#st-files li.pg-st-bad', (l) => l.map((x) => x.textContent));

test('offset problems are flagged as kwire log reports them', { timeout: 180_000 }, async () => {
  const log0 = await readFile(join(orders, seg0));
  const log24 = await readFile(join(orders, '00000000000000000024.log'));
  const page = await open();
  await openFiles(page, { [seg0]: Buffer.concat([log0, log0]) });
  assert.match(await page.textContent('#status'), /^5 problems found/);
  const bad = (await flagged(page)).join('\n');
  assert.equal((bad.match(/go back below the entries before it, which reached offset 23/g) || []).length, 5, bad);

  assert.deepEqual(page.errors, []);
  await page.close();

  const two = await open();
  await openFiles(two, { [seg0]: log0, '00000000000000000010.log': log24 });
  assert.match((await flagged(two)).join('\n'), /the segment runs to offset 23, past the next segment's base offset 10/);
  assert.match(await two.textContent('#status'), /^1 problem found/);
  await two.close();

  const index = Buffer.from(await readFile(join(orders, '00000000000000000000.index')));
  index.writeUInt32BE(99999, 4);
  const idx = await open();
  await openFiles(idx, { [seg0]: log0, '00000000000000000000.index': index });
  assert.match(await idx.textContent('#status'), /^1 problem found/);
  assert.equal(await idx.$$eval('.pg-st-entries tr.pg-st-bad', (l) => l.length), 1, 'only entry 0');
  assert.deepEqual(idx.errors, []);
  await idx.close();
});

test('zeros to the end are a note, not a problem', { timeout: 180_000 }, async () => {
  const log0 = await readFile(join(orders, seg0));
  const page = await open();
  await openFiles(page, { [seg0]: Buffer.concat([log0, Buffer.alloc(100000)]) });
  assert.match(await page.textContent('#status'), /no problem found/);
  assert.deepEqual(await flagged(page), []);
  assert.match(await page.textContent('#st-files'), /every byte to the end is zero/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Records of an internal topic that do not read as its records showed
// their undecoded part as "null": the table now shows its bytes (text or
// base64) flagged as not decoded, and the record why, as kwire log's
// "error" says it. Two batches of one record each (storagedata.Batch):
// key "k0", value "v" (no record type of __consumer_offsets: the key
// fails, the value is not read); key 00 01 00 03 67, an OffsetCommitKey
// whose group's length runs past the key, value 00 09 01 02 03.
const badOffsets = Buffer.from('00000000000000000000003b00000000026e4ac6680000000000000000018bcfe568000000018bcfe56800ffffffffffffff' +
  'ffffffffffffff0000000112000000046b3002760000000000000000010000004200000000028ffad7080000000000000000018bcfe568000000018bcfe5680' +
  '0ffffffffffffffffffffffffffff00000001200000000a00010003670a000901020300', 'hex');

test('an internal record that does not decode shows its bytes and why, not null', { timeout: 180_000 }, async () => {
  const page = await open();
  await openFiles(page, { [seg0]: badOffsets });
  await page.fill('#st-topic', '__consumer_offsets');
  await page.press('#st-topic', 'Enter');
  await page.waitForFunction(() => /topic __consumer_offsets/.test(document.getElementById('st-title').textContent) &&
    document.querySelectorAll('#st-record section').length > 0 && !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  const rows = await page.$$eval('#st-table tbody tr', (trs) => trs.map((tr) => ({ cells: [...tr.cells].map((c) => c.textContent), bad: tr.classList.contains('pg-st-bad'), title: tr.title })));
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0].cells.slice(2, 4), ['⚠ not decoded: k0', '⚠ not decoded: v']);
  assert.deepEqual(rows[1].cells.slice(2, 4), ['⚠ not decoded: base64:AAEAA2c=', '⚠ not decoded: base64:AAkBAgM=']);
  assert.ok(rows.every((r) => r.bad), 'both flagged');
  assert.match(rows[0].title, /^Not decoded: its key, at byte 66 \(type\): not decoded as a record of __consumer_offsets: expected a record type of __consumer_offsets, found 27440$/);
  assert.match(rows[1].title, /its key, at byte 139 \(key\.group\): not decoded as OffsetCommitKey/);
  // The record drawn says why above its parts.
  assert.match(await page.textContent('#st-record p.pg-error'), /^Not decoded: its key, at byte 66 \(type\)/);
  await page.click('#st-table tbody tr:nth-child(2)');
  await page.waitForFunction(() => /byte 139/.test(document.querySelector('#st-record p.pg-error')?.textContent || ''));
  assert.match(await page.textContent('#st-record pre'), /"valueBytes": "AAkBAgM="/);
  // The JSON's error offset is the segment position, as kwire log
  // --topic __consumer_offsets writes it (139) and the line above says it,
  // not counted from the batch's start (68).
  assert.match(await page.textContent('#st-record pre'), /"error": \{\n\s*"part": "key",\n\s*"offset": 139,/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A partition's files opened together are checked as kwire log checks
// its directory: the .txnindex against its segment (an entry whose last
// offset, 30, holds a data batch, and the ABORT marker at 41 with no
// entry) and the leader-epoch-checkpoint against the batches' epochs
// (the batches from 24 are epoch 1; this checkpoint starts it at 30).
test('a .txnindex and a leader-epoch-checkpoint are checked against the segments', { timeout: 180_000 }, async () => {
  const txn = Buffer.from(await readFile(join(orders, '00000000000000000024.txnindex')));
  txn.writeBigInt64BE(30n, 18); // the entry's last offset
  const files = { [seg0]: await readFile(join(orders, seg0)), '00000000000000000024.txnindex': txn, 'leader-epoch-checkpoint': Buffer.from('0\n2\n0 0\n1 30\n') };
  for (const f of ['00000000000000000024.log', '00000000000000000024.index']) files[f] = await readFile(join(orders, f));
  const page = await open();
  await openFiles(page, files);
  const bad = (await flagged(page)).join('\n');
  assert.match(bad, /00000000000000000024\.txnindex.*entry 0: first offset 39 is above the last \(30\); no ABORT marker of producer 7 at its last offset 30: a batch \(offsets 30-33\) holds it/s);
  assert.match(bad, /the ABORT marker of producer 7 at offset 41 has no entry/);
  assert.match(bad, /leader-epoch-checkpoint.*checked against the segments' leader epochs.*batch at offset 24 has leader epoch 1, which the checkpoint starts at offset 30; the checkpoint gives offset 24 epoch 0 \(from offset 0\)/s);
  assert.match(await page.textContent('#status'), /^3 problems found/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
