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
    const body = [0]; // attributes
    varint(body, i); // timestamp delta
    varint(body, i); // offset delta
    varint(body, key.length); body.push(...key);
    varint(body, value.length); body.push(...value);
    const headers = [['trace-id', String(i).padStart(16, '0')], ['source', 'checkout']];
    varint(body, headers.length);
    for (const [k, v] of headers) {
      const kb = enc.encode(k), vb = enc.encode(v);
      varint(body, kb.length); body.push(...kb);
      varint(body, vb.length); body.push(...vb);
    }
    const rec = [];
    varint(rec, body.length);
    recs.push(...rec, ...body);
  }
  const b = Buffer.alloc(61 + recs.length);
  b.writeBigInt64BE(0n, 0); // base offset
  b.writeInt32BE(b.length - 12, 8); // batch length
  b.writeInt32BE(0, 12); // partition leader epoch
  b.writeInt8(2, 16); // magic
  b.writeInt16BE(0, 21); // attributes: no compression, create time
  b.writeInt32BE(perBatch - 1, 23); // last offset delta
  b.writeBigInt64BE(BigInt(BASE_TIMESTAMP), 27);
  b.writeBigInt64BE(BigInt(BASE_TIMESTAMP + perBatch - 1), 35);
  b.writeBigInt64BE(-1n, 43); // producer id
  b.writeInt16BE(-1, 51); // producer epoch
  b.writeInt32BE(-1, 53); // base sequence
  b.writeInt32BE(perBatch, 57);
  Buffer.from(recs).copy(b, 61);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

export async function bigSegment(path, bytes, perBatch = 200) {
  const batch = recordBatch(perBatch);
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
