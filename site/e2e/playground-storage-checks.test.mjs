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
