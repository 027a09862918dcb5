// bigSegment writes a Kafka segment of about `bytes` bytes to path: one
// record batch (v2, uncompressed, CRC-32C over its bytes from the
// attributes on, as Kafka's DefaultRecordBatch writes it) of `perBatch`
// orders-like records (a key, a JSON value of some 300 bytes, two headers)
// written again and again with increasing base offsets (the base offset is
// outside the CRC). It answers {batches, records, size}.
import { open } from 'node:fs/promises';

const table = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  table[n] = c >>> 0;
}
export function crc32c(b) {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = table[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function varint(out, v) {
  let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  do {
    let byte = Number(z & 0x7fn);
    z >>= 7n;
    if (z) byte |= 0x80;
    out.push(byte);
  } while (z);
}

export const BASE_TIMESTAMP = 1700000000000;

// recordBatch is one batch's bytes (its base offset 0).
export function recordBatch(perBatch) {
  const enc = new TextEncoder();
  const recs = [];
  for (let i = 0; i < perBatch; i++) {
    const key = enc.encode('c-' + String(i % 1000).padStart(3, '0'));
    const value = enc.encode(JSON.stringify({ order: i, customer: 'c-' + String(i % 1000).padStart(3, '0'), items: [{ sku: 'sku-' + (i * 7 % 501), qty: 1 + i % 5, price: 9.99 + i % 40 }],
      note: 'deliver to the back door, ring twice'.repeat(5), total: 19.98 + i }));
    recs.push({ key, value, headers: [['trace-id', String(i).padStart(16, '0')], ['source', 'checkout']] });
  }
  return batchOf(recs);
}

// batchOf is the bytes of one batch (its base offset 0) of recs: [{key,
// value (bytes, or null), headers: [[name, text]]}], their timestamps
// BASE_TIMESTAMP and a millisecond apart.
export function batchOf(recs) {
  const enc = new TextEncoder();
  const body = [];
  recs.forEach((r, i) => {
    const rec = [0]; // attributes
    varint(rec, i); // timestamp delta
    varint(rec, i); // offset delta
    for (const b of [r.key, r.value]) {
      if (b === null || b === undefined) varint(rec, -1);
      else { varint(rec, b.length); rec.push(...b); }
    }
    const headers = r.headers || [];
    varint(rec, headers.length);
    for (const [k, v] of headers) {
      const kb = enc.encode(k), vb = enc.encode(v);
      varint(rec, kb.length); rec.push(...kb);
      varint(rec, vb.length); rec.push(...vb);
    }
    varint(body, rec.length);
    body.push(...rec);
  });
  const b = Buffer.alloc(61 + body.length);
  b.writeBigInt64BE(0n, 0); // base offset
  b.writeInt32BE(b.length - 12, 8); // batch length
  b.writeInt32BE(0, 12); // partition leader epoch
  b.writeInt8(2, 16); // magic
  b.writeInt16BE(0, 21); // attributes: no compression, create time
  b.writeInt32BE(recs.length - 1, 23); // last offset delta
  b.writeBigInt64BE(BigInt(BASE_TIMESTAMP), 27);
  b.writeBigInt64BE(BigInt(BASE_TIMESTAMP + recs.length - 1), 35);
  b.writeBigInt64BE(-1n, 43); // producer id
  b.writeInt16BE(-1, 51); // producer epoch
  b.writeInt32BE(-1, 53); // base sequence
  b.writeInt32BE(recs.length, 57);
  Buffer.from(body).copy(b, 61);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

// bigSegment writes the segment (batch, when given, is the batch written
// again and again, as batchOf makes one, in place of recordBatch's).
export async function bigSegment(path, bytes, perBatch = 200, given = null) {
  const batch = given || recordBatch(perBatch);
  perBatch = batch.readInt32BE(57);
  const batches = Math.max(1, Math.floor(bytes / batch.length));
  const per = Math.max(1, Math.floor((8 << 20) / batch.length)); // written 8 MiB at a time
  const chunk = Buffer.alloc(per * batch.length);
  for (let i = 0; i < per; i++) batch.copy(chunk, i * batch.length);
  const f = await open(path, 'w');
  try {
    for (let n = 0; n < batches; n += per) {
      const k = Math.min(per, batches - n);
      for (let i = 0; i < k; i++) chunk.writeBigInt64BE(BigInt((n + i) * perBatch), i * batch.length);
      await f.write(chunk, 0, k * batch.length);
    }
  } finally {
    await f.close();
  }
  return { batches, records: batches * perBatch, size: batches * batch.length };
}
