// The topic of a segment's records in the playground's storage view, in
// real Chromium: taken from the partition folder's name as kwire log takes
// it (Kafka names a partition's directory <topic>-<partition>: orders-0
// holds topic orders' partition 0), an ordinary topic's too, so that the
// schemas named by the topic (orders-value.avsc: Confluent's
// TopicNameStrategy, values written without the registry's framing)
// read its values; a segment given alone has no topic known, which the
// status says, and the topic the user types applies. The values are
// written by avsc, a real Avro serializer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { session } from './helpers-playground.mjs';
import { batchOf } from './bigsegment.mjs';

const require = createRequire(import.meta.url);
const avro = require('avsc');

const schema = {
  type: 'record', name: 'Order', namespace: 'com.acme',
  fields: [{ name: 'customer', type: 'string' }, { name: 'amount', type: 'long' }],
};
const type = avro.Type.forSchema(schema);

let dir, orders, schemaPath, bare;
const pg = session({
  setup: async () => {
    dir = await mkdtemp(join(tmpdir(), 'kwire-storage-topic-'));
    orders = join(dir, 'orders-0');
    await mkdir(orders);
    const enc = new TextEncoder();
    const seg = batchOf([
      { key: enc.encode('order-1'), value: type.toBuffer({ customer: 'Ana', amount: 123456789 }) },
      { key: enc.encode('order-2'), value: type.toBuffer({ customer: 'Bo', amount: 5 }) },
    ]);
    await writeFile(join(orders, '00000000000000000000.log'), seg);
    // The schema of topic orders' values, beside the folder.
    schemaPath = join(dir, 'orders-value.avsc');
    await writeFile(schemaPath, JSON.stringify(schema));
    // The same segment alone: nothing names its topic.
    await mkdir(join(dir, 'alone'));
    bare = join(dir, 'alone', '00000000000000000000.log');
    await writeFile(bare, seg);
  },
  teardown: async () => { if (dir) await rm(dir, { recursive: true, force: true }); },
});

// drop drops paths (folders, files) on the page as the OS hands them over.
async function drop(page, files) {
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
}

const values = (page) => page.$$eval('#st-table tbody tr', (trs) => trs.map((tr) => tr.cells[3].textContent));
// decoded waits for the table's values to be the orders decoded, the
// listing done.
const decoded = (page) => page.waitForFunction(() => {
  const trs = document.querySelectorAll('#st-table tbody tr');
  return trs.length === 2 && /"customer"/.test(trs[1].cells[3].textContent) && !/^Reading/.test(document.getElementById('status').textContent);
}, null, { timeout: 120_000 }).catch(async () => assert.fail('not decoded: ' + JSON.stringify(await values(page)) + '; status: ' +
  await page.textContent('#status') + '; schemas: ' + await page.textContent('#pay-status')));
const ORDERS = [JSON.stringify({ customer: 'Ana', amount: 123456789 }), '{"customer":"Bo","amount":5}'];
const listedStatus = /Of the 2 records listed: 2 values decoded with the topic's value schema \(Avro\); 2 keys with no schema/;

test('a partition folder orders-0 dropped with orders-value.avsc beside it: its records are topic orders\', their values decoded', { timeout: 240_000 }, async () => {
  const page = await pg.open();
  await drop(page, [orders, schemaPath]);
  await decoded(page);
  assert.deepEqual(await values(page), ORDERS);
  assert.equal(await page.$eval('#st-topic', (t) => t.value), 'orders', 'the topic from the folder\'s name, shown');
  assert.match(await page.textContent('#st-title'), /^orders-0: 1 storage file, 2 records, topic orders$/);
  assert.match(await page.textContent('#status'), /^Read; no problem found\.$/, 'the topic known: nothing to say of it');
  assert.match(await page.textContent('#pay-status'), listedStatus);
  // The record drawn with the topic's schema.
  await page.waitForFunction(() => /customer/.test(document.getElementById('st-record').textContent), null, { timeout: 60_000 });
  assert.deepEqual(JSON.parse(await page.textContent('#st-record pre')).value.decoded, { customer: 'Ana', amount: 123456789 });
  // The internal topics are still listed to pick from.
  assert.deepEqual(await page.$$eval('#st-topics option', (os) => os.map((o) => o.value)),
    ['__consumer_offsets', '__transaction_state', '__share_group_state', '__cluster_metadata', '__remote_log_metadata']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a segment given alone: the status says its topic is not known; the topic typed applies', { timeout: 240_000 }, async () => {
  const page = await pg.open();
  await page.click('#pay summary');
  await page.setInputFiles('#pay-files', [schemaPath]);
  await page.waitForFunction(() => +(document.body.dataset.schemas || 0) >= 1, null, { timeout: 120_000 });
  await page.setInputFiles('#file', [bare]);
  await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length === 2 && /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  assert.match((await values(page))[0], /^base64:/, 'no topic, no topic schema: as stored');
  assert.match(await page.textContent('#status'), /^Read; no problem found\. The records' topic is not known \(no partition folder names it, as orders-0 names orders\): type it in Topic above/);
  assert.equal(await page.$eval('#st-topic', (t) => t.value), '');
  assert.match(await page.textContent('#st-title'), /^1 storage file, 2 records$/);
  await page.waitForFunction(() => /Of the/.test(document.getElementById('pay-status').textContent), null, { timeout: 60_000 });
  assert.match(await page.textContent('#pay-status'), /Of the 2 records listed: 2 keys and 2 values with no schema to read them \(no schema id, and the records' topic is not known: type it in Topic/);

  await page.fill('#st-topic', ' orders ');
  await page.press('#st-topic', 'Enter');
  await decoded(page);
  assert.deepEqual(await values(page), ORDERS);
  assert.equal(await page.$eval('#st-topic', (t) => t.value), 'orders');
  assert.match(await page.textContent('#st-title'), /^1 storage file, 2 records, topic orders$/);
  assert.match(await page.textContent('#status'), /^Read; no problem found\.$/);
  await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('pay-status').textContent), listedStatus.source, { timeout: 60_000 });

  // The topic typed holds for the next segment given alone.
  await page.$eval('#st-table tbody tr', (tr) => { tr.dataset.old = '1'; });
  await page.setInputFiles('#file', [bare]);
  await page.waitForFunction(() => !document.querySelector('#st-table tbody tr[data-old]'), null, { timeout: 60_000 });
  await decoded(page);
  assert.match(await page.textContent('#st-title'), /topic orders$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
