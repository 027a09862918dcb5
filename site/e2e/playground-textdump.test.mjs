// A text of several packets' dumps (tshark -x of a capture, as a user
// pastes it from a terminal or saves it to a .txt) in real Chromium: it
// opens as the capture it was printed from, the same table of exchanges
// as the capture file gives (APIs, versions, pairing, sizes, kwire
// check's flags), the times aside, which tshark -x does not print; the
// status and the table's title say it was read from a text dump, and that
// its times are made up. One packet's dump still decodes as its frame,
// and a text that only looks like several dumps keeps its parse error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { session, root } from './helpers-playground.mjs';

const run = promisify(execFile);

const pg = session();
const { open } = pg;

// tsharkX is tshark -x of a capture, as cmd/kwire/textdump_test.go runs it
// (TZ=UTC, from the capture's folder).
async function tsharkX(file) {
  const { stdout } = await run('tshark', ['-r', file, '-x'], { cwd: root, env: { ...process.env, TZ: 'UTC' }, maxBuffer: 64 << 20 });
  return stdout;
}

// shown runs act, which makes the page show a capture, and waits until its
// first exchange is drawn.
async function shown(page, act) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await act();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelectorAll('#cap-table tbody tr').length > 0);
}

// rows is the exchanges table as text, cell by cell, without the cells
// that hold times (the time and the latency), with each row's flag.
const rows = (page) => page.$$eval('#cap-table tbody tr', (trs) => trs.map((tr) => ({
  flag: tr.classList.contains('pg-capfind') ? tr.dataset.rules + ': ' + tr.querySelector('.pg-c-i').title : '',
  ...Object.fromEntries([...tr.cells].filter((c) => !/pg-c-(time|latency)/.test(c.className)).map((c) => [c.className.replace('pg-c-', ''), c.textContent])),
})));

const summary = (page) => page.$$eval('#cap-summary tbody tr', (trs) => trs.map((tr) => [...tr.cells].slice(0, 6).map((c) => c.textContent).join(' ')));

// drop drops a file holding text on the page, as from a file manager.
async function drop(page, name, text) {
  const dt = await page.evaluateHandle(([n, t]) => {
    const d = new DataTransfer();
    d.items.add(new File([t], n, { type: 'text/plain' }));
    return d;
  }, [name, text]);
  await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
}

const noTimes = "it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing";

// The capture file, then its tshark -x pasted, then dropped as a file:
// the same table each time.
// conn.order.bad, a broker answering out of order, has a row kwire
// check flags: the flag and its line come through the text as well.
for (const [capture, packets, first, flag] of [
  ['testdata/captures/kafka.pcap', 23, 'ApiVersions v3, correlation id 1', null],
  ['testdata/check/conn.order.bad.pcapng', null, null, /^conn\.order: conn\.order error conn 2 correlation 1 response/],
]) {
  test(`tshark -x of ${capture}, pasted and dropped: the capture's table`, { timeout: 240_000 }, async () => {
    const text = await tsharkX(capture);
    const page = await open();
    await shown(page, () => page.setInputFiles('#file', join(root, capture)));
    const want = await rows(page), wantSummary = await summary(page), title = await page.textContent('#cap-title');
    const n = packets ?? +title.match(/^Capture: (\d+) packets/)[1];
    assert.ok(want.length > 0);
    if (flag) assert.ok(want.some((r) => flag.test(r.flag)), JSON.stringify(want));

    // Pasted into the text box.
    await shown(page, () => page.fill('#input', text));
    assert.deepEqual(await rows(page), want);
    assert.deepEqual(await summary(page), wantSummary);
    assert.equal(await page.textContent('#cap-title'), title + ' — read from a text dump of ' + n + " packets (tshark -x or Wireshark's Copy as Hex Dump)");
    const said = await page.textContent('#status');
    assert.ok(said.startsWith('Read as a capture from a text dump of ' + n + " packets (tshark -x or Wireshark's Copy as Hex Dump); " + noTimes + '. Capture exchange 1: ' + (first ?? '')), said);
    assert.ok(!(await page.isVisible('#input-error')));
    assert.ok(await page.isVisible('#capture'));
    assert.match(await page.textContent('#frame-title'), /^Request: /);

    // Dropped as a .txt file.
    await page.fill('#input', '');
    await shown(page, () => drop(page, 'capture.txt', text));
    assert.deepEqual(await rows(page), want);
    assert.ok((await page.textContent('#status')).startsWith('Read as a capture from a text dump of ' + n + ' packets'));
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

// A text dump of over 4 MiB opened as a file is the capture as well: the
// page took any file that large for binary, and showed its text as a
// frame that does not read.
test('tshark -x of a capture, 6 MB of text, opened as a file: the capture\'s table', { timeout: 240_000 }, async () => {
  const capture = join(pg.built.inputs, 'traffic.pcap');
  const text = await tsharkX(capture);
  assert.ok(text.length > 4 << 20, 'tshark -x printed ' + text.length + ' bytes');
  const page = await open();
  await shown(page, () => page.setInputFiles('#file', capture));
  const want = await rows(page), title = await page.textContent('#cap-title');
  const n = +title.match(/^Capture: (\d+) packets/)[1];
  assert.ok(want.length > 0);

  await shown(page, () => page.setInputFiles('#file', { name: 'capture.txt', mimeType: 'text/plain', buffer: Buffer.from(text) }));
  assert.deepEqual(await rows(page), want);
  assert.equal(await page.textContent('#cap-title'), title + ' — read from a text dump of ' + n + " packets (tshark -x or Wireshark's Copy as Hex Dump)");
  assert.ok((await page.textContent('#status')).startsWith('Read as a capture from a text dump of ' + n + ' packets'));
  assert.ok(!(await page.isVisible('#input-error')));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// One packet's dump is its frame, as before; and a text that only looks
// like several dumps (two lines at offset 0) keeps the error of its parse.
test('one packet\'s dump decodes as its frame; two offsets 0 of no packet are an error', { timeout: 180_000 }, async () => {
  const page = await open();
  const one = await readFile(join(root, 'internal', 'input', 'testdata', 'packets', 'p8.tshark-x'), 'utf8');
  let before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.fill('#input', one);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 60_000 });
  assert.match(await page.textContent('#status'), /a whole packet \(Ethernet, IPv4, TCP port 47164 to 19092\)/);
  assert.ok(!(await page.isVisible('#capture')));

  await page.fill('#input', '0000  00 01\n0000  00 02\n');
  await page.waitForSelector('#input-error:not([hidden])', { timeout: 60_000 });
  assert.match(await page.textContent('#input-error'), /^These bytes could not be read: line 2, column \d+: offset 0x0 does not follow the previous line/);
  assert.ok(!(await page.isVisible('#capture')));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A followed TCP stream, as tshark -z follow,tcp,yaml prints it (what
// Wireshark's Follow → TCP Stream shows as YAML), every stream of a
// capture: the capture's table, with its times (YAML gives them). The
// page showed it as a frame that failed at "peers:".
test('tshark -z follow,tcp,yaml of every stream, pasted: the capture\'s table', { timeout: 240_000 }, async () => {
  const capture = 'testdata/captures/kafkajs-clients.pcapng';
  const { stdout: fields } = await run('tshark', ['-r', capture, '-T', 'fields', '-e', 'tcp.stream'], { cwd: root });
  const streams = Math.max(...fields.trim().split('\n').map(Number)) + 1;
  const args = ['-r', capture, '-q'];
  for (let i = 0; i < streams; i++) args.push('-z', 'follow,tcp,yaml,' + i);
  const { stdout: text } = await run('tshark', args, { cwd: root, maxBuffer: 64 << 20 });
  const page = await open();
  await shown(page, () => page.setInputFiles('#file', join(root, capture)));
  const want = await rows(page), title = await page.textContent('#cap-title');
  assert.ok(want.length > 0);

  // A follow does not say when a stream without data was opened: the
  // connections' numbers may differ, their addresses do not.
  const unnumbered = (rs) => rs.map((r) => ({ ...r, conn: r.conn.replace(/^#\d+ /, '') }));
  await shown(page, () => page.fill('#input', text));
  assert.deepEqual(unnumbered(await rows(page)), unnumbered(want));
  const got = await page.textContent('#cap-title');
  assert.match(got, /— read from a followed TCP stream \(tshark -z follow, Wireshark's Follow TCP Stream\), made \d+ packets$/);
  assert.equal(got.split(' packets')[0].replace(/\d+$/, ''), title.split(' packets')[0].replace(/\d+$/, ''));
  const said = await page.textContent('#status');
  assert.ok(said.startsWith('Read as a capture from a followed TCP stream'), said);
  assert.ok(!said.includes(noTimes), said);
  assert.ok(!(await page.isVisible('#input-error')));
  assert.deepEqual(page.errors, []);
  await page.close();
});
