// A schema registry that gives no answer at first (the playground's
// "Record payloads", read by the browser itself) and comes back: the page
// says it was unreachable and when it will be asked again, and the first
// decode after that backoff asks it and decodes the payload. Before, the
// page never asked again until the user gave the schemas again. The
// backoff is 30 s in the page; ?registryRetry=MS (for tests) makes it
// short.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { session, decodedJSON } from './helpers-playground.mjs';

const require = createRequire(import.meta.url);
const kafkaRequest = require('kafkajs/src/protocol/request.js');
const produceV3 = require('kafkajs/src/protocol/requests/produce/v3/request.js');

const RETRY_MS = 3000;
const schema = { type: 'record', name: 'Order', namespace: 'com.acme', fields: [{ name: 'customer', type: 'string' }] };
// Confluent's framing (magic 0, schema id 1), then the Avro record: the
// string "Ana" (zigzag length 3, then its bytes).
const value = Buffer.from([0, 0, 0, 0, 1, 6, ...Buffer.from('Ana')]);

// registry answers GET /schemas/ids/1 (any origin may read it) while up;
// while down it drops every connection unanswered, as a registry that is
// not there does.
function registry(state) {
  const server = createServer((req, res) => {
    state.requests.push((state.up ? 'up ' : 'down ') + req.method + ' ' + req.url);
    if (!state.up) { req.socket.destroy(); return; }
    const h = { 'content-type': 'application/vnd.schemaregistry.v1+json', 'access-control-allow-origin': '*' };
    if (req.method === 'GET' && new URL(req.url, 'http://x').pathname === '/schemas/ids/1') {
      return res.writeHead(200, h).end(JSON.stringify({ schema: JSON.stringify(schema) }));
    }
    res.writeHead(404, h).end(JSON.stringify({ error_code: 40403, message: 'Schema not found' }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: 'http://127.0.0.1:' + server.address().port + '/',
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}

let reg, frame;
const state = { up: false, requests: [] };

const pg = session({
  setup: async () => {
    reg = await registry(state);
    const req = produceV3({
      acks: -1, timeout: 30000, topicData: [{ topic: 'orders', partitions: [{ partition: 0, messages: [{ key: 'order-1', value, timestamp: 1700000000000 }] }] }],
    });
    frame = (await kafkaRequest({ correlationId: 7, clientId: 'kafkajs', request: req })).buffer;
  },
  teardown: async () => { await reg?.close(); },
});

const valueOf = (j) => j.body.topicData[0].partitionData[0].records[0].records[0].value;

test('a registry unreachable at first is asked again by the first decode after the backoff, and the payload decodes', { timeout: 240_000 }, async () => {
  const page = await pg.open('?registryRetry=' + RETRY_MS);
  const hex = frame.toString('hex');
  await page.fill('#input', hex);
  await page.waitForFunction(() => document.querySelectorAll('#tree .pg-row').length > 0 && /Produce/.test(document.getElementById('status').textContent));

  // The registry is down when it is given.
  await page.click('#pay summary');
  await page.fill('#pay-url', reg.url);
  const before = await page.evaluate(() => document.body.dataset.decoded);
  await page.click('#pay-use');
  await page.waitForFunction((b) => +(document.body.dataset.schemas || 0) >= 1 && document.body.dataset.decoded !== b, before, { timeout: 120_000 });
  await page.waitForFunction(() => /was unreachable/.test(document.getElementById('pay-status').textContent), null, { timeout: 20_000 });
  const said = await page.textContent('#pay-status');
  assert.match(said, /^The registry at http:\/\/127\.0\.0\.1:\d+\/ was unreachable: it will be asked again by the first decode after .+ \(in [1-3] s\)\.$/);
  const shownAt = Date.now();
  assert.match(await page.textContent('#pay-error'), /could not be read from this page/);
  const asked = state.requests.length;
  assert.ok(asked >= 1 && state.requests.every((r) => r === 'down GET /schemas/ids/1'), state.requests.join());

  // It comes back; a decode within the backoff does not ask it, the
  // first after it does.
  state.up = true;
  const decode = async (text) => {
    const b = await page.evaluate(() => document.body.dataset.decoded);
    await page.fill('#input', text);
    await page.waitForFunction((x) => document.body.dataset.decoded !== x, b, { timeout: 60_000 });
  };
  await decode(hex + ' ');
  assert.equal(state.requests.length, asked, 'asked again within the backoff: ' + state.requests.join());
  assert.equal(valueOf(await decodedJSON(page)).decoded, undefined, 'no schema while it is held down');
  await new Promise((r) => setTimeout(r, Math.max(0, shownAt + RETRY_MS + 200 - Date.now())));
  await decode(hex);
  assert.deepEqual(valueOf(await decodedJSON(page)).decoded, { customer: 'Ana' });
  assert.ok(state.requests.includes('up GET /schemas/ids/1'), state.requests.join());
  await page.waitForFunction(() => /Record payloads are decoded with the registry at .* failed before it answered\)\.$/.test(document.getElementById('pay-status').textContent), null, { timeout: 10_000 });
  assert.equal(await page.isHidden('#pay-error'), true);
  assert.deepEqual(page.errors, []);
});
