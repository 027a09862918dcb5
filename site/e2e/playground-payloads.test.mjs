// Record payloads in the playground (issue 21), in real Chromium: a Produce
// request written by kafkajs's own protocol encoder, whose record values
// @kafkajs/confluent-schema-registry's serializers wrote (Avro, Protobuf,
// JSON Schema) against a schema registry served on loopback by this test.
// The page decodes them to their fields with byte spans once the user names
// the registry (which the browser reads itself, CORS) or gives the schema
// files; payload.wasm loads only then. A registry that does not allow the
// page's origin, or is not there, is said plainly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { session, decodedJSON } from './helpers-playground.mjs';

const require = createRequire(import.meta.url);
const kafkaRequest = require('kafkajs/src/protocol/request.js');
const produceV3 = require('kafkajs/src/protocol/requests/produce/v3/request.js');

// registry is a Confluent-compatible schema registry in memory, enough for
// the serializers (register, look up) and for kwire (schemas by id,
// subjects' versions). With cors, it lets any origin read its answers.
function registry(store, cors) {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    store.requests.push(req.method + ' ' + req.url);
    const send = (code, v) => {
      const h = { 'content-type': 'application/vnd.schemaregistry.v1+json' };
      if (cors) h['access-control-allow-origin'] = '*';
      res.writeHead(code, h).end(JSON.stringify(v));
    };
    const parts = new URL(req.url, 'http://x').pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'config' && parts.length === 2) {
      if (req.method === 'PUT') {
        store.configs.set(parts[1], JSON.parse(body).compatibility);
        return send(200, { compatibility: store.configs.get(parts[1]) });
      }
      const c = store.configs.get(parts[1]);
      return c ? send(200, { compatibilityLevel: c }) : send(404, { error_code: 40401, message: 'Subject not found' });
    }
    if (parts[0] === 'schemas' && parts[1] === 'ids' && req.method === 'GET') {
      const s = store.byID[+parts[2] - 1];
      if (!s) return send(404, { error_code: 40403, message: 'Schema ' + parts[2] + ' not found' });
      return send(200, { schema: s.schema, schemaType: s.schemaType, references: s.references });
    }
    if (parts[0] === 'subjects' && parts.length === 3 && req.method === 'POST') {
      const s = JSON.parse(body);
      const vs = store.subjects.get(parts[1]) || [];
      let x = vs.find((v) => v.schema === s.schema);
      if (!x) {
        x = { subject: parts[1], version: vs.length + 1, id: store.byID.length + 1, schema: s.schema, schemaType: s.schemaType || 'AVRO', references: s.references || [] };
        store.byID.push(x);
        vs.push(x);
        store.subjects.set(parts[1], vs);
      }
      return send(200, { id: x.id });
    }
    if (parts[0] === 'subjects' && parts.length === 2 && req.method === 'POST') {
      const s = JSON.parse(body);
      const x = (store.subjects.get(parts[1]) || []).find((v) => v.schema === s.schema);
      return x ? send(200, x) : send(404, { error_code: 40403, message: 'Schema not found' });
    }
    if (parts[0] === 'subjects' && parts[2] === 'versions' && req.method === 'GET') {
      const vs = store.subjects.get(parts[1]) || [];
      const x = parts[3] === 'latest' ? vs[vs.length - 1] : vs[+parts[3] - 1];
      return x ? send(200, x) : send(404, { error_code: 40402, message: 'Version not found' });
    }
    send(404, { error_code: 404, message: 'HTTP 404 Not Found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: 'http://127.0.0.1:' + server.address().port + '/',
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}

// A customer name that is markup: decoded bytes are text in the page.
const evil = '<img src=x onerror="window.pwned=1">Ana';
const avroSchema = {
  type: 'record', name: 'Order', namespace: 'com.acme',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'amount', type: 'long' },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'note', type: ['null', 'string'], default: null },
  ],
};
const protoSchema = `syntax = "proto3";
package acme;
message Shipment {
  string carrier = 1;
  int64 weight = 2;
}
`;
const jsonSchema = { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] };

let cors, plain, store, frame, values, ids, schemaDir;

const pg = session({
  setup: async () => {
    store = { byID: [], subjects: new Map(), configs: new Map(), requests: [] };
    [cors, plain] = await Promise.all([registry(store, true), registry(store, false)]);

    // The serializers register their schemas and write the payloads.
    const reg = new SchemaRegistry({ host: cors.url.replace(/\/$/, '') });
    const { id: avroID } = await reg.register({ type: SchemaType.AVRO, schema: JSON.stringify(avroSchema) }, { subject: 'orders-value' });
    const { id: protoID } = await reg.register({ type: SchemaType.PROTOBUF, schema: protoSchema }, { subject: 'shipments-value' });
    const { id: jsonID } = await reg.register({ type: SchemaType.JSON, schema: JSON.stringify(jsonSchema) }, { subject: 'stock-value' });
    ids = { avro: avroID, proto: protoID, json: jsonID };
    values = {
      avro: await reg.encode(avroID, { customer: evil, amount: 123456789, status: 'PAID', note: 'leave at door' }),
      proto: await reg.encode(protoID, { carrier: 'DHL', weight: 4200 }),
      json: await reg.encode(jsonID, { sku: 'ESP-1', qty: 3 }),
    };
    // kafkajs's own Produce v3 request carries them as record values.
    const req = produceV3({
      acks: -1, timeout: 30000, topicData: [{
        topic: 'orders', partitions: [{
          partition: 0, messages: [
            { key: 'order-1', value: values.avro, timestamp: 1700000000000 },
            { key: 'ship-1', value: values.proto, timestamp: 1700000000001 },
            { key: 'stock-1', value: values.json, timestamp: 1700000000002 },
          ],
        }],
      }],
    });
    frame = (await kafkaRequest({ correlationId: 7, clientId: 'kafkajs', request: req })).buffer;

    // The JSON Schema as a file named by its id, for the files test.
    schemaDir = await mkdtemp(join(tmpdir(), 'kwire-schemas-'));
    await writeFile(join(schemaDir, jsonID + '.json'), JSON.stringify(jsonSchema));
  },
  teardown: async () => {
    await cors?.close();
    await plain?.close();
    if (schemaDir) await rm(schemaDir, { recursive: true, force: true });
  },
});

// open loads the page and decodes the frame in it.
async function open() {
  const page = await pg.open();
  await page.fill('#input', frame.toString('hex'));
  await page.waitForFunction(() => document.querySelectorAll('#tree .pg-row').length > 0 && /Produce/.test(document.getElementById('status').textContent));
  return page;
}

const recordsOf = (j) => j.body.topicData[0].partitionData[0].records[0].records;

// applied waits for the schemas to be given and the frame decoded again.
async function applied(page, n, act) {
  const before = await page.evaluate(() => document.body.dataset.decoded);
  await act();
  await page.waitForFunction(([n, before]) => +(document.body.dataset.schemas || 0) >= n && document.body.dataset.decoded !== before, [n, before], { timeout: 120_000 });
}

// selectByte clicks byte off in the hex pane (the node there is selected
// in every view) and returns the selection bar's text once it names label.
async function selectByte(page, off, label) {
  const b = page.locator('#hex [data-off="' + off + '"]');
  await b.scrollIntoViewIfNeeded();
  await b.click();
  await page.waitForFunction((l) => document.getElementById('sel-desc').textContent.includes(l), label, { timeout: 10_000 });
  return page.textContent('#sel-desc');
}

// gridCell is the text of the grid cell that starts at off (drawn once the
// grid has scrolled to the selection).
const gridCell = (page, off) => page.$eval('#grids .kw-cell[data-start="' + off + '"][data-buf="0"]', (c) => c.textContent);

test('a registry the browser reads: Avro, Protobuf and JSON Schema values decode to their fields, with their bytes', { timeout: 240_000 }, async () => {
  const page = await open();
  const plainJSON = await decodedJSON(page);
  assert.equal(recordsOf(plainJSON)[0].value.format, undefined, 'without schemas no payload is decoded');
  assert.ok(!page.wasm.includes('payload.wasm'), 'payload.wasm loads only when schemas are given: ' + page.wasm);

  await page.click('#pay summary');
  await page.fill('#pay-url', cors.url);
  const asked = store.requests.length;
  const t0 = Date.now();
  await applied(page, 1, () => page.click('#pay-use'));
  console.log('payloads: the frame decoded with the registry ' + (Date.now() - t0) + ' ms after "Use this registry" (payload.wasm loaded then)');
  assert.ok(page.wasm.includes('payload.wasm'));
  assert.ok(store.requests.slice(asked).some((r) => r === 'GET /schemas/ids/' + ids.avro), 'the browser asked the registry: ' + store.requests.slice(asked));
  assert.match(await page.textContent('#pay-status'), /registry at http:\/\/127\.0\.0\.1:\d+\//);

  const recs = recordsOf(await decodedJSON(page));
  assert.deepEqual(recs[0].value, {
    base64: values.avro.toString('base64'), schemaId: ids.avro, format: 'avro',
    decoded: { customer: evil, amount: 123456789, status: 'PAID', note: { string: 'leave at door' } },
  });
  assert.equal(recs[1].value.schemaId, ids.proto);
  assert.equal(recs[1].value.format, 'protobuf');
  assert.deepEqual(recs[1].value.decoded, { carrier: 'DHL', weight: '4200' });
  assert.equal(recs[2].value.format, 'jsonschema');
  assert.deepEqual(recs[2].value.decoded, { sku: 'ESP-1', qty: 3 });
  // kafkajs's serializer writes Protobuf without the message-index list:
  // read, with a warning that says so.
  assert.match(await page.textContent('#warnings'), /index/i);

  // The byte spans, worked out here from the serializer's bytes: the Avro
  // value starts where its bytes are in the frame; magic, schema id, then
  // customer (a zigzag length, then the text), amount, status.
  const at = frame.indexOf(values.avro);
  assert.ok(at > 0);
  const custLen = Buffer.byteLength(evil);
  assert.match(await selectByte(page, at + 2, 'schemaId'), new RegExp('value › schemaId {2}\\[' + (at + 1) + ', ' + (at + 5) + '\\)'));
  assert.match(await selectByte(page, at + 8, 'customer'), new RegExp('customer {2}\\[' + (at + 5) + ', ' + (at + 5 + 1 + custLen) + '\\)'));
  // The tree shows the field with its value, as text; the grid has its cell.
  await page.waitForFunction(() => /customer/.test((document.querySelector('#tree .pg-row.pg-sel') || {}).innerText || ''));
  assert.match(await page.$eval('#tree .pg-row.pg-sel', (r) => r.innerText), /customer .*<img src=x/);
  assert.match(await gridCell(page, at + 5), /customer/);
  const amountAt = at + 5 + 1 + custLen;
  const amountLen = 4; // the zigzag varint of 123456789
  assert.match(await selectByte(page, amountAt, 'amount'), new RegExp('amount {2}\\[' + amountAt + ', ' + (amountAt + amountLen) + '\\)'));
  assert.match(await page.$eval('#tree .pg-row.pg-sel', (r) => r.innerText), /amount .*123456789/);
  assert.match(await selectByte(page, amountAt + amountLen, 'status'), /status/);
  assert.match(await page.$eval('#tree .pg-row.pg-sel', (r) => r.innerText), /PAID/);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.$$eval('#tree img, #grids img, #json img', (x) => x.length), 0, 'decoded text is never markup');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('schema files opened and pasted: the same fields without a registry', { timeout: 240_000 }, async () => {
  const page = await open();
  await page.click('#pay summary');
  // The Avro schema dropped on the page (as from a file manager): it goes
  // to the schemas, not in place of the frame.
  const dt = await page.evaluateHandle(([name, text]) => {
    const d = new DataTransfer();
    d.items.add(new File([text], name, { type: 'application/json' }));
    return d;
  }, [ids.avro + '.avsc', JSON.stringify(avroSchema)]);
  await applied(page, 1, () => page.dispatchEvent('body', 'drop', { dataTransfer: dt }));
  assert.match(await page.textContent('#pay-list'), new RegExp(ids.avro + '\\.avsc'));
  assert.equal(await page.inputValue('#input'), frame.toString('hex'), 'the frame stays');
  // The JSON Schema through the panel's file picker.
  await applied(page, 2, () => page.setInputFiles('#pay-files', [join(schemaDir, ids.json + '.json')]));
  let recs = recordsOf(await decodedJSON(page));
  assert.equal(recs[0].value.decoded.customer, evil);
  assert.equal(recs[0].value.decoded.amount, 123456789);
  assert.deepEqual(recs[2].value.decoded, { sku: 'ESP-1', qty: 3 });
  assert.equal(recs[1].value.decoded, undefined, 'no schema for the Protobuf value yet');
  assert.equal(recs[1].value.schemaId, ids.proto, 'its framing is read all the same');
  assert.match(await page.textContent('#warnings'), new RegExp('schema ' + ids.proto + '|' + ids.proto + '\\.proto'));

  // Pasted: the Protobuf schema, named by its id.
  await page.fill('#pay-name', ids.proto + '.proto');
  await page.fill('#pay-text', protoSchema);
  await applied(page, 3, () => page.click('#pay-add'));
  recs = recordsOf(await decodedJSON(page));
  assert.deepEqual(recs[1].value.decoded, { carrier: 'DHL', weight: '4200' });
  const pAt = frame.indexOf(values.proto);
  // kafkajs writes no message indexes: magic, id, then field 1 (tag, length, "DHL").
  assert.match(await selectByte(page, pAt + 6, 'carrier'), new RegExp('carrier {2}\\[' + (pAt + 5) + ', ' + (pAt + 10) + '\\)'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('schema files that can never be used: each says why, and they are not counted', { timeout: 240_000 }, async () => {
  const page = await open();
  await page.click('#pay summary');
  const file = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await applied(page, 1, () => page.setInputFiles('#pay-files', [
    file(ids.avro + '.avsc', JSON.stringify(avroSchema)),
    file('foo.txt', '{}'),
    file('900.json', '{bad'),
    file('901.avsc', '{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}'),
    file('902.proto', 'syntax = "proto3";\nmessage O { int32 a = 1 }'),
  ]));
  assert.equal(await page.textContent('#pay-status'), 'Record payloads are decoded with 1 schema file. 4 files given cannot be used: the list says why.');
  const items = await page.$$eval('#pay-list li', (lis) => lis.map((li) => li.firstChild.textContent + '|' + (li.querySelector('.pg-pay-problem') || {}).textContent));
  assert.equal(items[0], ids.avro + '.avsc|undefined');
  assert.match(items[1], /^foo\.txt\| \(not used: not a schema file's name: ID\.avsc, ID\.proto or ID\.json/);
  assert.match(items[2], /^900\.json\| \(not used: the JSON schema does not parse: not JSON at line 1, column 2: /);
  assert.match(items[3], /^901\.avsc\| \(not used: the AVRO schema does not parse: /);
  assert.match(items[4], /^902\.proto\| \(not used: the PROTOBUF schema does not parse: 902\.proto:2:25: syntax error/);
  // The usable one decodes.
  assert.equal(recordsOf(await decodedJSON(page))[0].value.decoded.customer, evil);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a registry that does not allow the page, or is not there: said plainly, the frame still decodes', { timeout: 240_000 }, async () => {
  const page = await open();
  await page.click('#pay summary');
  await page.fill('#pay-url', plain.url);
  await applied(page, 1, () => page.click('#pay-use'));
  await page.waitForFunction(() => !document.getElementById('pay-error').hidden);
  const err = await page.textContent('#pay-error');
  assert.match(err, /could not be read from this page/);
  assert.match(err, /Access-Control-Allow-Origin/);
  assert.match(await page.textContent('#warnings'), /Access-Control-Allow-Origin/);
  const decoded = await decodedJSON(page);
  // Every payload says it was not decoded: the first with its request's
  // error, the others (the registry is not asked while held down) in a
  // line pointing to that failure, not the first request's error again.
  const ws = (decoded.warnings || []).map((w) => w.message).filter((m) => /^schema \d+ not read/.test(m));
  assert.equal(ws.length, 3, ws.join('\n'));
  assert.match(ws[0], new RegExp('^schema ' + ids.avro + ' not read: .*Access-Control-Allow-Origin'));
  for (const [i, id] of [[1, ids.proto], [2, ids.json]]) {
    assert.equal(ws[i], 'schema ' + id + ' not read: the schema registry at ' + plain.url + ' was not asked: a request before could not be read from this page (see Record payloads)');
  }
  const recs = recordsOf(decoded);
  assert.equal(recs[0].value.schemaId, ids.avro, 'the framing still shows');
  assert.equal(recs[0].value.decoded, undefined);
  assert.equal(recs[0].key.text, 'order-1', 'the rest of the frame decodes');

  // A port nobody listens on.
  const gone = await registry(store, true);
  await gone.close();
  await page.fill('#pay-url', gone.url);
  await applied(page, 2, () => page.click('#pay-use'));
  await page.waitForFunction(() => !document.getElementById('pay-error').hidden && /could not be read/.test(document.getElementById('pay-error').textContent));

  // Not a URL.
  await page.fill('#pay-url', 'ftp://example.com/');
  await page.click('#pay-use');
  await page.waitForFunction(() => /http:\/\/ or https:\/\//.test(document.getElementById('pay-error').textContent));
  assert.deepEqual(page.errors, []);
  await page.close();
});
