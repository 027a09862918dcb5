// A broker's folders in the playground, in real Chromium: a partition's
// folder (orders-0/) opened with "Open folder…" or dropped on the page
// reads as `kwire log DIR` reads it, its files checked together and the
// leader-epoch-checkpoint against the log end; a log.dirs folder's
// partitions are each checked on their own, one shown, the others listed
// to pick from; what is left out (folders deeper than one level, files
// not Kafka's, past the bound) is said; a folder's names are text. And
// the log end is not judged when the newest segment may be missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyFile, mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { session, axe, root } from './helpers-playground.mjs';

const logdir = join(root, 'testdata', 'storage', 'logdir');
const orders = join(logdir, 'orders-0');

let dir;
const pg = session({
  setup: async () => { dir = await mkdtemp(join(tmpdir(), 'kwire-storage-folders-')); },
  teardown: async () => { if (dir) await rm(dir, { recursive: true, force: true }); },
});
const { open } = pg;

// read waits for the files to be read (the status no longer "Reading").
const read = (page) => page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelectorAll('#st-record section').length > 0 &&
  !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
const rows = (page) => page.$$eval('#st-table tbody tr', (trs) => trs.length);
const files = (page) => page.$$eval('#st-files > li', (l) => l.map((x) => x.textContent));

// copyOf copies orders-0's files but those named in leave to a new folder
// NAME inside a new directory, and returns its path.
async function copyOf(name, leave = [], extra = {}) {
  const d = join(await mkdtemp(join(dir, 'c-')), name);
  await mkdir(d, { recursive: true });
  for (const f of await readdir(orders)) if (!leave.includes(f)) await copyFile(join(orders, f), join(d, f));
  for (const [f, b] of Object.entries(extra)) await writeFile(join(d, f), b);
  return d;
}

test('Open folder…: a partition folder read as kwire log reads it, the log end checked', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.setInputFiles('#folder', orders);
  await read(page);
  assert.match(await page.textContent('#st-title'), /^orders-0: 10 storage files, 42 records/);
  assert.equal(await rows(page), 42, "both segments: every record listed");
  assert.match(await page.textContent('#status'), /no problem found/);
  const fs = await files(page);
  const epochs = fs.find((f) => f.startsWith('leader-epoch-checkpoint'));
  assert.match(epochs, /checked against the segments' leader epochs/);
  assert.doesNotMatch(epochs, /log end is not checked/, 'a folder\'s files: the log end is known');
  assert.ok(await page.$eval('#st-part-label', (e) => e.hidden), 'one partition: no picker');
  assert.ok(await page.$eval('#st-folder', (e) => e.hidden), 'nothing left out');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a log.dirs folder: each partition on its own, the first with segments shown, the others to pick', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.setInputFiles('#folder', logdir);
  await read(page);
  const opts = await page.$$eval('#st-part option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(opts.map((o) => o.replace(/ \(.*/, '')), ['logdir', 'logdir/__cluster_metadata-0', 'logdir/__consumer_offsets-7', 'logdir/__remote_log_metadata-0',
    'logdir/__share_group_state-0', 'logdir/__transaction_state-0', 'logdir/orders-0']);
  assert.ok(!(await page.$eval('#st-part-label', (e) => e.hidden)));
  assert.equal(await page.$eval('#st-part', (s) => s.selectedOptions[0].textContent), 'logdir/__cluster_metadata-0 (5 files)');
  assert.match(await page.textContent('#st-title'), /^logdir\/__cluster_metadata-0: 5 storage files, .*topic __cluster_metadata$/);
  assert.equal(await page.$eval('#st-topic', (s) => s.value), '__cluster_metadata', 'the topic from the folder\'s name, as kwire log takes it');
  assert.match(await page.textContent('#st-folder'), /^The folder logdir holds 7 folders of Kafka files, each checked on its own.*pick another with Partition above\.$/);
  // Another partition: its files alone.
  await page.selectOption('#st-part', { label: 'logdir/orders-0 (10 files)' });
  await page.waitForFunction(() => /^logdir\/orders-0: 10 storage files, 42 records/.test(document.getElementById('st-title').textContent) &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  assert.equal(await rows(page), 42);
  assert.equal(await page.$eval('#st-topic', (s) => s.value), 'orders', 'an ordinary topic from the folder\'s name too');
  assert.match(await page.textContent('#st-title'), /topic orders$/);
  assert.match(await page.textContent('#status'), /no problem found\.$/);
  await page.selectOption('#st-part', { index: 2 });
  await page.waitForFunction(() => /^logdir\/__consumer_offsets-7: /.test(document.getElementById('st-title').textContent) &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  assert.match(await page.textContent('#st-title'), /topic __consumer_offsets$/, 'not guessed: the folder names it');
  // A file opened afterwards is not the folder's: the picker goes.
  await page.setInputFiles('#file', join(orders, '00000000000000000000.log'));
  await page.waitForFunction(() => /^1 storage file, 24 records/.test(document.getElementById('st-title').textContent) && !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  assert.ok(await page.$eval('#st-part-label', (e) => e.hidden));
  assert.ok(await page.$eval('#st-folder', (e) => e.hidden));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A drop through Chromium's own drag and drop (DevTools' Input.dispatchDragEvent
// with the folder's path, as the OS hands it over): the page reads the
// folder through DataTransferItem.webkitGetAsEntry, not dataTransfer.files.
test('a partition folder dropped on the page', { timeout: 180_000 }, async () => {
  const page = await open();
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: [orders], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
  await read(page);
  assert.match(await page.textContent('#st-title'), /^orders-0: 10 storage files, 42 records/);
  assert.doesNotMatch((await files(page)).join('\n'), /log end is not checked/);
  assert.match(await page.textContent('#status'), /no problem found/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('what a folder leaves out is said, and its names are text', { timeout: 180_000 }, async () => {
  // One level of subfolders is read: a partition folder's own folder is
  // not; a file Kafka does not name is not opened.
  const top = join(dir, 'top');
  const part = join(top, '<img id=x src=x>-0');
  await mkdir(join(part, 'deeper', 'deepest'), { recursive: true });
  await copyFile(join(orders, '00000000000000000000.log'), join(part, '00000000000000000000.log'));
  await copyFile(join(orders, '00000000000000000000.log'), join(part, 'deeper', '00000000000000000000.log'));
  await copyFile(join(orders, '00000000000000000000.log'), join(part, 'deeper', 'deepest', '00000000000000000000.log'));
  await writeFile(join(top, '.lock'), '');
  const page = await open();
  await page.setInputFiles('#folder', top);
  await read(page);
  assert.match(await page.textContent('#st-title'), /^top\/<img id=x src=x>-0: 1 storage file, 24 records/);
  assert.equal(await page.$('#x'), null, 'a name is never HTML');
  assert.equal(await page.textContent('#st-folder'), 'Left out: the folders more than one level down (top/<img id=x src=x>-0/deeper); 1 file not named as Kafka names its files (top/.lock).');
  assert.equal(await rows(page), 24, 'the deeper segments are not read');
  await page.close();

  // Past the bound: what was read is opened, and the rest said left out.
  const many = join(dir, 'many');
  await mkdir(many);
  await copyFile(join(orders, '00000000000000000000.log'), join(many, '00000000000000000000.log'));
  for (let i = 0; i < 520; i++) await writeFile(join(many, 'note-' + String(i).padStart(3, '0') + '.txt'), '');
  const big = await open();
  await big.setInputFiles('#folder', many);
  await read(big);
  assert.match(await big.textContent('#st-folder'), /^Left out: the files past the first 500 \(open a partition's folder on its own to read all of its\); 499 files not named as Kafka names its files \(many\/note-000\.txt/);
  assert.deepEqual(big.errors, []);
  await big.close();
});

// The leader-epoch-checkpoint starts epoch 1 at 30: past the end of
// segment 0 (offsets 0-23), not of the partition's log (42).
test('the log end is judged only when the newest segment is among the files', { timeout: 180_000 }, async () => {
  const check = Buffer.from('0\n2\n0 0\n1 30\n');
  // A folder whose newest segment, 24, is missing (its indexes are there).
  const d = await copyOf('orders-0', ['00000000000000000024.log'], { 'leader-epoch-checkpoint': check });
  const page = await open();
  await page.setInputFiles('#folder', d);
  await read(page);
  const epochs = (await files(page)).find((f) => f.startsWith('leader-epoch-checkpoint'));
  assert.doesNotMatch(epochs, /past the log end/);
  assert.match(epochs, /the log end is not checked: the newest segment, 00000000000000000024\.log \(00000000000000000024\.index is its\), is not among the segments read/);
  assert.match(await page.textContent('#status'), /no problem found/);
  await page.close();

  // Files picked one by one: a newer segment may have been left out.
  const p = await open();
  await p.setInputFiles('#file', [join(d, '00000000000000000000.log'), join(d, 'leader-epoch-checkpoint')]);
  await read(p);
  const e2 = (await files(p)).find((f) => f.startsWith('leader-epoch-checkpoint'));
  assert.doesNotMatch(e2, /past the log end/);
  assert.match(e2, /the log end is not checked: these files were picked, not opened as the partition's folder/);
  await p.close();

  // The whole folder: judged, and right.
  const whole = await copyOf('orders-0', [], { 'leader-epoch-checkpoint': Buffer.from('0\n2\n0 0\n1 50\n') });
  const w = await open();
  await w.setInputFiles('#folder', whole);
  await read(w);
  assert.match((await files(w)).find((f) => f.startsWith('leader-epoch-checkpoint')), /epoch 1 starts at offset 50, past the log end offset 42/);
  await w.close();
});

// Files dropped beside a folder are read with it, as they are when
// dropped alone (they were said left out, not being in a folder): a
// segment renamed is a set of Kafka files of its own, a schema goes to the
// record payloads, and a capture, which is not shown with a folder's
// files, is said not opened and why. They come within the bound before
// the folder's files, however many those are.
test('files dropped beside a folder are read with it', { timeout: 180_000 }, async () => {
  const drop = async (page, files) => {
    const cdp = await page.context().newCDPSession(page);
    const data = { items: [], files, dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
  };
  const beside = await mkdtemp(join(dir, 'beside-'));
  const renamed = join(beside, 'orders-segment.log');
  await copyFile(join(orders, '00000000000000000000.log'), renamed);
  const schema = join(beside, 'order.avsc');
  await writeFile(schema, '{"type":"record","name":"Order","fields":[{"name":"amount","type":"long"}]}');
  const capture = join(beside, 'example.pcapng');
  await copyFile(join(root, 'site', 'playground', 'static', 'example.pcapng'), capture);

  const page = await open();
  await drop(page, [orders, renamed, schema]);
  await read(page);
  // The folder is shown, the file beside it is a set to pick.
  assert.match(await page.textContent('#st-title'), /^orders-0: 10 storage files, 42 records/);
  assert.deepEqual(await page.$$eval('#st-part option', (os) => os.map((o) => o.textContent)),
    ['files dropped beside the folder (1 file)', 'orders-0 (10 files)']);
  const note = await page.textContent('#st-folder');
  assert.doesNotMatch(note, /Left out/);
  assert.match(note, /^The folder orders-0 and the files dropped beside it hold 2 sets of Kafka files, each checked on its own/);
  assert.match(note, /Schemas taken for the record payloads \(the storage view's keys and values, and the frames and captures opened next\): order\.avsc\.$/);
  assert.deepEqual(await page.$$eval('#pay-list li', (l) => l.map((x) => x.firstChild.textContent)), ['order.avsc']);
  await page.selectOption('#st-part', { index: 0 });
  // Its set is named wherever a folder's is by its path: the title, the
  // note, the text box's placeholder.
  await page.waitForFunction(() => /^files dropped beside the folder: 1 storage file, 24 records/.test(document.getElementById('st-title').textContent) &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 })
    .catch(async () => assert.fail('the segment dropped beside the folder is not read, or its set not named: ' + await page.textContent('#st-title')));
  assert.equal(await rows(page), 24);
  assert.match(await page.textContent('#st-folder'), /each checked on its own, as kwire log checks each partition directory: the files dropped beside the folder are shown; pick another/);
  assert.equal(await page.$eval('#input', (i) => i.placeholder), 'the files dropped beside the folder (Kafka storage files, read below); type or paste here to replace them');
  assert.deepEqual(page.errors, []);
  await page.close();

  // A capture beside the folder: not shown with it, and said so.
  const cap = await open();
  await drop(cap, [orders, capture]);
  await read(cap);
  assert.match(await cap.textContent('#st-title'), /^orders-0: 10 storage files, 42 records/);
  assert.equal(await cap.textContent('#st-folder'),
    'Not opened: example.pcapng, dropped beside the folder: a frame or capture is shown on its own, not with a folder\'s files; open it by itself.');
  assert.deepEqual(cap.errors, []);
  await cap.close();

  // A folder of more files than the bound, the segment beside it dropped
  // after it: the segment is read all the same.
  const many = join(await mkdtemp(join(dir, 'many-')), 'many');
  await mkdir(many);
  for (let i = 0; i < 510; i++) await writeFile(join(many, 'note-' + String(i).padStart(3, '0') + '.txt'), '');
  const big = await open();
  await drop(big, [many, renamed]);
  await read(big);
  assert.match(await big.textContent('#st-title'), /^files dropped beside the folder: 1 storage file, 24 records/);
  assert.match(await big.textContent('#st-folder'), /^Left out: the files past the first 500 .*; 499 files not named as Kafka names its files \(many\/note-000\.txt/);
  assert.deepEqual(big.errors, []);
  await big.close();

  // Beside two folders: the files dropped beside the folders.
  const two = await open();
  await drop(two, [orders, await copyOf('payments-0'), renamed]);
  await read(two);
  assert.deepEqual(await two.$$eval('#st-part option', (os) => os.map((o) => o.textContent)),
    ['files dropped beside the folders (1 file)', 'orders-0 (10 files)', 'payments-0 (10 files)']);
  assert.deepEqual(two.errors, []);
  await two.close();
});

// Folders are opened and dropped as files are: the input's label, its
// placeholder and the first status say so, not files alone.
test('the input\'s label, placeholder and first status say files or folders', { timeout: 120_000 }, async () => {
  const page = await open();
  const said = await page.evaluate(() => {
    const i = document.getElementById('input');
    return { label: [...i.labels].map((l) => l.textContent).join(' '), placeholder: i.placeholder, status: document.getElementById('status').textContent };
  });
  assert.match(said.label, /drop files or folders anywhere on the page: .*a partition's folder$/);
  assert.match(said.placeholder, /^e\.g\. 0000001b[0-9a-f]+, or drop files or folders on the page$/);
  assert.equal(said.status, 'Paste bytes above, pick an example, or open or drop files or folders.');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The text box's placeholder says what is shown that the box does not
// hold (a folder, a binary file), and, once that is no longer shown (the
// box typed in, cleared, a frame typed), the example it opened with again.
test('the input\'s placeholder follows what is shown', { timeout: 120_000 }, async () => {
  const page = await open();
  const placeholder = () => page.$eval('#input', (i) => i.placeholder);
  const example = await placeholder();
  assert.match(example, /^e\.g\. 0000001b/);
  await page.setInputFiles('#folder', orders);
  await read(page);
  assert.equal(await placeholder(), 'orders-0 (a folder of Kafka storage files, read below); type or paste here to replace it');
  await page.fill('#input', '00');
  await page.fill('#input', '');
  assert.ok(await page.$eval('#storage', (e) => e.hidden), 'the folder is no longer shown');
  assert.equal(await placeholder(), example, 'the box cleared after a folder');
  // A binary file, then a frame typed over it.
  const bin = join(await mkdtemp(join(dir, 'bin-')), 'frame.bin');
  const hex = '0000001b001200030000000700056b7769726500066b7769726504312e3000';
  await writeFile(bin, Buffer.from(hex, 'hex'));
  await page.setInputFiles('#file', bin);
  await page.waitForFunction(() => /ApiVersions/.test(document.getElementById('frame-title').textContent), null, { timeout: 60_000 });
  assert.equal(await placeholder(), 'frame.bin (31 bytes, binary); type or paste here to replace it');
  await page.fill('#input', hex);
  await page.waitForFunction(() => !window.kwirePlayground.file, null, { timeout: 60_000 });
  assert.equal(await placeholder(), example, 'a frame typed over a file');
  await page.fill('#input', '');
  assert.equal(await placeholder(), example, 'the box cleared after a file');
  assert.deepEqual(page.errors, []);
  await page.close();
});
