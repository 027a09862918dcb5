// Encodes record payloads with the real serializers of
// @kafkajs/confluent-schema-registry (4.1: avsc, protobufjs, ajv), against
// the schema registry at the URL given (a test registry on loopback), and
// prints one JSON line per payload: {"name","id","hex","value"}.
// internal/registry's TestKafkajsSerializers runs it and decodes the
// payloads with kwire. Not a test on its own.
//
// With "check", it reads kwire's readings back, one JSON line each, and
// answers one line each: for {"format":"avro","id","json"} the hex of
// avsc's encoding of that Avro JSON; for {"format":"protobuf","id","hex"}
// protobufjs's reading of those bytes (as "value" is written above).
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { createInterface } from 'node:readline';

const [url, mode] = process.argv.slice(2);
if (!url) {
  console.error('usage: node kafkajs-encode.mjs REGISTRY_URL [check]');
  process.exit(2);
}
const registry = new SchemaRegistry({ host: url }, {
  [SchemaType.JSON]: { strict: true },
});
const protoObject = { longs: String, enums: String, bytes: String };
if (mode === 'check') {
  for await (const line of createInterface({ input: process.stdin })) {
    const q = JSON.parse(line);
    const schema = await registry.getSchema(q.id);
    if (q.format === 'avro') {
      // schema is avsc's Type: Avro's JSON encoding in, binary out.
      console.log(JSON.stringify({ hex: schema.toBuffer(schema.fromString(q.json)).toString('hex') }));
    } else {
      const T = schema.message;
      console.log(JSON.stringify({ value: T.toObject(T.decode(Buffer.from(q.hex, 'hex')), protoObject) }));
    }
  }
  process.exit(0);
}
const out = [];
const emit = (name, id, buf, value) => out.push(JSON.stringify({ name, id, hex: buf.toString('hex'), value }));

// Avro: a record with every kind of type, one named type from another
// subject (a schema reference).
const address = {
  type: 'record', name: 'Address', namespace: 'com.acme',
  fields: [{ name: 'street', type: 'string' }, { name: 'zip', type: ['null', 'int'], default: null }],
};
const addr = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(address) }, { subject: 'com.acme.Address' });
const order = {
  type: 'record', name: 'Order', namespace: 'com.acme',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'customer', type: 'string' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'attrs', type: { type: 'map', values: 'int' } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'hash', type: { type: 'fixed', name: 'MD5', size: 4 } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'ok', type: 'boolean' },
    { name: 'ratio', type: 'float' },
    { name: 'score', type: 'double' },
    { name: 'ship', type: 'com.acme.Address' },
    { name: 'alt', type: ['null', 'com.acme.Address', 'string'], default: null },
  ],
};
const { id: orderId } = await registry.register({
  type: SchemaType.AVRO, schema: JSON.stringify(order),
  references: [{ name: 'com.acme.Address', subject: 'com.acme.Address', version: 1 }],
}, { subject: 'orders-value' });
const orders = [
  {
    id: 42, customer: 'Ana "Q" Müller', amount: Buffer.from([0x04, 0xd2]), status: 'PAID',
    tags: ['gift', 'rush'], attrs: { x: 1, y: -2 }, note: 'leave at door', hash: Buffer.from([1, 2, 3, 0xff]),
    at: 1714564800000, day: 19844, ok: true, ratio: 0.1, score: -2.5e300,
    ship: { street: 'Main St 1', zip: 12345 }, alt: { street: 'Back St 2', zip: null },
  },
  {
    id: -4503599627370496, customer: '', amount: Buffer.from([0xff, 0x38]), status: 'NEW',
    tags: [], attrs: {}, note: null, hash: Buffer.from([0, 0, 0, 0]),
    at: 0, day: -1, ok: false, ratio: -1.5, score: 0, ship: { street: '', zip: null }, alt: 'x',
  },
];
for (const [i, v] of orders.entries()) {
  const buf = await registry.encode(orderId, v);
  // The value as Avro's JSON encoding writes it, for the test to compare.
  const json = { ...v, amount: latin1(v.amount), hash: latin1(v.hash), note: v.note === null ? null : { string: v.note } };
  json.ship = { street: v.ship.street, zip: v.ship.zip === null ? null : { int: v.ship.zip } };
  // avsc takes unions unwrapped; Avro's JSON wraps every branch but null.
  const a = v.alt;
  json.alt = typeof a === 'string' ? { string: a } : { 'com.acme.Address': { street: a.street, zip: a.zip === null ? null : { int: a.zip } } };
  emit('avro-order-' + i, orderId, buf, json);
}

// Protobuf: imports (another subject, and a well-known type), nested
// messages, enums, maps, packed repeated, oneof.
const common = `syntax = "proto3";
package acme;
message Money {
  string currency = 1;
  int64 units = 2;
  int32 nanos = 3;
}
`;
await registry.register({ type: SchemaType.PROTOBUF, schema: common }, { subject: 'acme/common.proto' });
// protobufjs does not know the well-known types by import, so the registry
// holds Timestamp as a subject of its own (as some registries do).
const timestamp = `syntax = "proto3";
package google.protobuf;
message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}
`;
await registry.register({ type: SchemaType.PROTOBUF, schema: timestamp }, { subject: 'google/protobuf/timestamp.proto' });
const proto = `syntax = "proto3";
package acme;
import "acme/common.proto";
import "google/protobuf/timestamp.proto";
message Order {
  int64 id = 1;
  string customer = 2;
  acme.Money total = 3;
  repeated string tags = 4;
  map<string, int32> attrs = 5;
  Status status = 6;
  google.protobuf.Timestamp at = 7;
  repeated int32 qty = 8;
  bytes blob = 9;
  double score = 10;
  oneof contact {
    string email = 11;
    string phone = 12;
  }
  sint64 delta = 13;
  Line line = 14;
  enum Status {
    STATUS_UNKNOWN = 0;
    STATUS_PAID = 1;
    STATUS_SHIPPED = 2;
  }
  message Line {
    string sku = 1;
    fixed32 count = 2;
  }
}
message Refund {
  int64 order_id = 1;
}
`;
const { id: protoId } = await registry.register({
  type: SchemaType.PROTOBUF, schema: proto,
  references: [
    { name: 'acme/common.proto', subject: 'acme/common.proto', version: 1 },
    { name: 'google/protobuf/timestamp.proto', subject: 'google/protobuf/timestamp.proto', version: 1 },
  ],
}, { subject: 'orders-proto-value' });
const pbValues = [
  {
    id: 42, customer: 'Ana', total: { currency: 'EUR', units: 12, nanos: 340000000 }, tags: ['gift', 'rush'],
    attrs: { x: 1 }, status: 1, at: { seconds: 1714564800, nanos: 5 }, qty: [1, 2, 300], blob: Buffer.from([0, 1, 2, 0xff]),
    score: 2.5, email: 'ana@example.com', delta: -7, line: { sku: 'A-1', count: 3 },
  },
  { id: 1 },
];
const pbType = (await registry.getSchema(protoId)).message;
for (const [i, v] of pbValues.entries()) {
  const buf = await registry.encode(protoId, v);
  // protobufjs's own reading of the data, in protojson's spelling of
  // 64-bit integers, enums and bytes.
  const obj = pbType.toObject(pbType.decode(buf.subarray(5)), protoObject);
  emit('protobuf-order-' + i, protoId, buf, obj);
}

// JSON Schema, with a reference to another subject's schema.
const addressJson = {
  $id: 'https://example.com/address.json', type: 'object',
  properties: { street: { type: 'string' }, zip: { type: 'integer' } }, required: ['street'],
};
await registry.register({ type: SchemaType.JSON, schema: JSON.stringify(addressJson) }, { subject: 'address-json' });
const customer = {
  $id: 'https://example.com/customer.json', type: 'object',
  properties: {
    id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } },
    address: { $ref: 'https://example.com/address.json' },
  },
  required: ['id', 'name'],
};
const { id: jsonId } = await registry.register({
  type: SchemaType.JSON, schema: JSON.stringify(customer),
  references: [{ name: 'https://example.com/address.json', subject: 'address-json', version: 1 }],
}, { subject: 'customers-value' });
const jsValues = [
  { id: 7, name: 'Ana "Q"', tags: ['vip'], address: { street: 'Main St 1', zip: 12345 } },
  { id: 8, name: 'Bo\u2028é' },
];
for (const [i, v] of jsValues.entries()) {
  emit('json-customer-' + i, jsonId, await registry.encode(jsonId, v), v);
}

function latin1(buf) {
  return String.fromCharCode(...buf);
}
console.log(out.join('\n'));
