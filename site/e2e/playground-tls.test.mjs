// A capture of Kafka over TLS in the playground, in real Chromium: opened
// with its key log (the two files together, or the key log after it), or
// carrying its own secrets (editcap --inject-secrets), its connections are
// decrypted in the browser and its exchanges decoded; alone, it is said to
// be encrypted. The sample is a franz-go client against kfake over TLS 1.3
// (internal/capture/testdata/tls, made by TestCommittedTLSCapture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session, root, decodedJSON } from './helpers-playground.mjs';

const { open } = session();
const dir = join(root, 'internal', 'capture', 'testdata', 'tls');
const CAPTURE = join(dir, 'tls13.pcapng');
const KEYS = join(dir, 'keys.log');

async function opened(page, files) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.setInputFiles('#file', files);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
}

const title = (page) => page.textContent('#cap-title');
const cells = (page, k) => page.$$eval('#cap-table tbody td.pg-c-' + k, (tds) => tds.map((t) => t.textContent));

async function decrypted(page) {
  await page.waitForFunction(() => /decrypted from TLS/.test(document.getElementById('cap-title').textContent), null, { timeout: 60_000 });
  assert.match(await title(page), /^Capture: 95 packets, 5 Kafka connections \(5 decrypted from TLS\), 13 exchanges/);
  const conns = await cells(page, 'conn');
  assert.equal(conns.length, 13);
  assert.ok(conns.every((c) => / \(TLS\)$/.test(c)), conns.join('\n'));
  const apis = await cells(page, 'api');
  assert.ok(apis.includes('Produce') && apis.includes('Fetch'), apis.join(' '));
  // The Produce request decodes, its records the three the client wrote.
  const i = apis.indexOf('Produce');
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click(`#cap-table tbody tr[data-exchange="${i}"]`);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before);
  const json = JSON.stringify(await decodedJSON(page));
  for (const k of ['sample-key-0', 'sample-key-1', 'sample-key-2']) assert.ok(json.includes(k), k + ' in ' + json.slice(0, 400));
  const connTitle = await page.$eval(`#cap-table tbody tr[data-exchange="${i}"] td.pg-c-conn`, (td) => td.title);
  assert.match(connTitle, /^connection \d+: client 127\.0\.0\.1:\d+ → broker 127\.0\.0\.1:33437, TLS 1\.3 TLS_AES_128_GCM_SHA256, decrypted/);
}

test('a TLS capture opened with its key log is decrypted and decoded', { timeout: 180_000 }, async () => {
  const page = await open();
  await opened(page, [CAPTURE, KEYS]);
  await decrypted(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a TLS capture alone is said to be encrypted; its key log given after decrypts it', { timeout: 180_000 }, async () => {
  const page = await open();
  // Nothing to decode: the capture's title is what changes.
  await page.setInputFiles('#file', CAPTURE);
  await page.waitForFunction(() => /^Capture: 95 /.test(document.getElementById('cap-title').textContent), null, { timeout: 120_000 });
  assert.match(await title(page), /^Capture: 95 packets, 0 Kafka connections, 0 exchanges/);
  const notes = await page.$$eval('#cap-notes li', (lis) => lis.map((l) => l.textContent));
  assert.equal(notes.filter((n) => /TLS \(record header 16 03 01\): encrypted, not decoded/.test(n)).length, 5, notes.join('\n'));
  assert.ok(notes.includes('5 TLS connections left encrypted: open or drop the key log their clients wrote (SSLKEYLOGFILE, Go\'s tls.Config.KeyLogWriter) to decrypt them'), notes.join('\n'));
  await opened(page, KEYS);
  await decrypted(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a capture carrying its secrets (editcap --inject-secrets) is decrypted with no key log', { timeout: 180_000 }, async () => {
  const page = await open();
  await opened(page, join(dir, 'tls13-dsb.pcapng'));
  await decrypted(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});
