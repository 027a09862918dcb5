// kwire check in the playground's capture view (issue 23), in real
// Chromium: the exchanges that break a protocol rule carry a flag on their
// row, with kwire check's lines as its title and in the status when shown;
// rules not judged go with the capture's notes; a capture of real clients
// shows none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { session, root } from './helpers-playground.mjs';

const { open } = session();

async function openCapture(page, file) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.setInputFiles('#file', file);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelectorAll('#cap-table tbody tr').length > 0);
}

const flagged = (page) => page.$$eval('#cap-table tbody tr.pg-capfind', (trs) => trs.map((tr) => ({
  exchange: tr.dataset.exchange, rules: tr.dataset.rules, flag: tr.querySelector('.pg-c-i .pg-flag')?.textContent,
  title: tr.querySelector('.pg-c-i').title, error: tr.classList.contains('pg-capfind-error'),
})));

test('a broker answering out of order: the late response\'s row is flagged conn.order, both paired', { timeout: 180_000 }, async () => {
  const page = await open();
  await openCapture(page, join(root, 'testdata', 'check', 'conn.order.bad.pcapng'));
  const rows = await flagged(page);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.equal(rows[0].rules, 'conn.order');
  assert.equal(rows[0].flag, ' ⚑');
  assert.ok(rows[0].error);
  assert.match(rows[0].title, /^conn\.order error conn 2 correlation 1 response \(packet \d+\): the response came after the response to correlation id 2/);
  // Both exchanges are paired (answered, with a latency): none guessed.
  const dirs = await page.$$eval('#cap-table tbody td.pg-c-dir', (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(dirs, ['⇄ both', '⇄ both']);
  // Showing it says which rule it breaks.
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click('#cap-table tbody tr.pg-capfind');
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before);
  assert.match(await page.textContent('#status'), /breaks conn\.order \(error\)/);
  // The rule not judged (no ApiVersions answer) is said once, with the notes.
  const notes = await page.$$eval('#cap-notes li', (lis) => lis.map((l) => l.textContent));
  assert.equal(notes.filter((n) => /^kwire check: conn\.version skipped/.test(n)).length, 1, notes.join('\n'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('real clients break no rule: no row flagged', { timeout: 180_000 }, async () => {
  const page = await open();
  await openCapture(page, join(root, 'testdata', 'captures', 'kfake-clients.pcapng'));
  assert.deepEqual(await flagged(page), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// withoutPacket is a classic pcap (little-endian, as kafka.pcap) without
// its nth packet (1-based, as Wireshark numbers them), as a capture that
// lost it whole.
function withoutPacket(pcap, n) {
  const parts = [pcap.subarray(0, 24)];
  for (let p = 24, i = 1; p + 16 <= pcap.length; i++) {
    const end = p + 16 + pcap.readUInt32LE(p + 8);
    if (i !== n) parts.push(pcap.subarray(p, end));
    p = end;
  }
  return Buffer.concat(parts);
}

// A response whose request is not in the capture (the capture started in
// the middle of a connection, or lost the request whole): its API and
// version are unknown, so no -1 shows for them; its likeliest reading is
// tried, as kwire pcap tries it, and said to be a guess. kafka.pcap
// without its sixth packet, the second ApiVersions request (one whole
// frame in one segment), holds that request's answer alone. (A request
// that lost only some of its bytes is kept as far as it was captured,
// and pairs with its answer: the next test.)
test('a response without its request: unknown, not -1, and read as a guess', { timeout: 180_000 }, async () => {
  const page = await open();
  const dir = await mkdtemp(join(tmpdir(), 'kwire-lostrequest-'));
  try {
    const file = join(dir, 'lost-request.pcap');
    await writeFile(file, withoutPacket(await readFile(join(root, 'testdata', 'captures', 'kafka.pcap')), 6));
    await openCapture(page, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.match(await page.textContent('#cap-title'), /^Capture: 22 packets, 2 Kafka connections, 6 exchanges, \d+ note\(s\)$/);
  const row = await page.$eval('#cap-table tbody tr[data-exchange="1"]', (tr) => Object.fromEntries([...tr.cells].map((c) => [c.className.replace('pg-c-', ''), c.textContent])));
  assert.equal(row.api, 'unknown');
  assert.equal(row.version, '');
  assert.equal(row.corr, '2');
  assert.equal(row.dir, '← response only');
  const summary = await page.$$eval('#cap-summary tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent + ' ' + tr.cells[1].textContent));
  assert.ok(summary.includes('ApiVersions v3×2'), summary.join('\n'));
  // Its version, unknown, is written v? as versions are written (it was
  // "unknown×1").
  assert.ok(summary.includes('unknown v?×1'), summary.join('\n'));
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click('#cap-table tbody tr[data-exchange="1"]');
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before);
  const said = await page.textContent('#status');
  // Its likeliest reading (its bytes: an ApiVersions v3 answer, which
  // later versions read the same).
  assert.match(said, /^Capture exchange 2: response only, API unknown \(guessed: \w+ v\d+, [a-z ]+ \(\d+%\)\), correlation id 2$/);
  assert.doesNotMatch(said + (await page.textContent('#cap-table')), /-1/);
  const guessed = said.match(/guessed: (\w+ v\d+), ([a-z ]+ \(\d+%\))/);
  assert.ok((await page.textContent('#frame-title-2')).startsWith(`Response (its request is not in the capture; guessed, ${guessed[2]}): ${guessed[1]} response`));
  assert.equal(await page.textContent('#frame-title'), 'Request: not in the capture');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A frame the capture holds only in part (a segment lost inside
// kafka-ipv6-null's third request, a Fetch v11) is kept as far as it was
// captured, as kwire pcap keeps it: it names its exchange's API and pairs
// with its answer. Its row says it is in part (no "does not decode": its
// bytes end where the capture's do), its panel decodes what was captured,
// stopping at the cut with what was read before it shown, and kwire
// check's note says it was not judged. (The capture module dropped it,
// and its answer showed alone, its API unknown.)
test('a request captured in part: paired, shown as far as captured, not judged', { timeout: 180_000 }, async () => {
  const page = await open();
  await openCapture(page, join(root, 'testdata', 'captures', 'kafka-ipv6-null.pcapng'));
  assert.equal(await page.textContent('#cap-title'), 'Capture: 14 packets, 1 Kafka connection, 4 exchanges, 2 note(s)');
  const row = await page.$eval('#cap-table tbody tr[data-exchange="2"]', (tr) => ({
    part: tr.classList.contains('pg-cappart'), dirTitle: tr.querySelector('.pg-c-dir').title, bytesTitle: tr.querySelector('.pg-c-reqBytes').title,
    ...Object.fromEntries([...tr.cells].map((c) => [c.className.replace('pg-c-', ''), c.textContent])),
  }));
  assert.equal(row.api, 'Fetch');
  assert.equal(row.version, '11');
  assert.equal(row.corr, '3');
  assert.equal(row.dir, '⇄ both (request in part)');
  assert.equal(row.reqBytes, '30 of 95');
  assert.equal(row.bytesTitle, '65 bytes of the request were not captured');
  assert.equal(row.error, '');
  assert.ok(row.part);
  assert.match(row.dirTitle, /only in part/);
  assert.equal(await page.$$eval('#cap-table tbody tr.pg-cappart', (trs) => trs.length), 1);
  const summary = await page.$$eval('#cap-summary tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent + ' ' + tr.cells[1].textContent));
  assert.deepEqual(summary, ['ApiVersions v3×3', 'Fetch v11×1']);
  const notes = await page.$$eval('#cap-notes li', (lis) => lis.map((l) => l.textContent));
  assert.ok(notes.includes('kwire check: frame.decode skipped conn 1 correlation 3 request (packet 8): a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged'), notes.join('\n'));
  assert.ok(notes.some((n) => /damaged by a gap: only its first 30 bytes are kept, 65 are missing/.test(n)), notes.join('\n'));
  assert.deepEqual(await flagged(page), []);

  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click('#cap-table tbody tr[data-exchange="2"]');
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before);
  assert.equal(await page.textContent('#status'), 'Capture exchange 3: Fetch v11, correlation id 3, answered in 4.000 ms; the request was captured in part');
  assert.equal(await page.textContent('#frame-title'), 'Request, captured in part (65 bytes of it were not captured): Fetch v11 request, 30 bytes');
  // Decoded as far as captured: the error is at the cut, and what came
  // before it is shown.
  assert.ok(await page.isVisible('#error'));
  assert.match(await page.textContent('#error'), /^Decoding stopped at byte 27 \(body\.maxBytes\): .*cut short.*65 are missing/);
  assert.ok(await page.isVisible('#views'));
  assert.match(await page.textContent('#json'), /"maxWaitMs"/);
  assert.match(await page.textContent('#frame-title-2'), /^Response: Fetch v11 response, 22 bytes$/);
  assert.ok(!(await page.isVisible('#error-2')));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A snap length cuts both sides of an exchange: kafka.pcap as captured
// with a snap length of 70 bytes (editcap -s 70) keeps 16 bytes of each
// ApiVersions request and response (the request cut inside its header);
// the response is decoded as the request's API and version as far as it
// goes, never guessed.
test('a response captured in part: its panel says how much is missing and decodes the rest', { timeout: 180_000 }, async () => {
  const page = await open();
  const dir = await mkdtemp(join(tmpdir(), 'kwire-snaplen-'));
  try {
    const pcap = await readFile(join(root, 'testdata', 'captures', 'kafka.pcap'));
    const parts = [pcap.subarray(0, 24)];
    for (let p = 24; p + 16 <= pcap.length;) {
      const incl = pcap.readUInt32LE(p + 8), keep = Math.min(incl, 70);
      const hdr = Buffer.from(pcap.subarray(p, p + 16));
      hdr.writeUInt32LE(keep, 8);
      parts.push(hdr, pcap.subarray(p + 16, p + 16 + keep));
      p += 16 + incl;
    }
    const file = join(dir, 'snap70.pcap');
    await writeFile(file, Buffer.concat(parts));
    await openCapture(page, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // The first exchange is shown on opening.
  await page.waitForFunction(() => /^Capture exchange 1:/.test(document.getElementById('status').textContent));
  const row = await page.$eval('#cap-table tbody tr[data-exchange="0"]', (tr) => Object.fromEntries([...tr.cells].map((c) => [c.className.replace('pg-c-', ''), c.textContent])));
  assert.equal(row.api, 'ApiVersions');
  assert.equal(row.dir, '⇄ both (request and response in part)');
  assert.equal(row.reqBytes, '16 of 36');
  assert.equal(row.respBytes, '16 of 23');
  assert.equal(row.error, '');
  assert.match(await page.textContent('#status'), /^Capture exchange 1: ApiVersions v3, correlation id 1, answered in 1\.000 ms; the request and response were captured in part$/);
  assert.equal(await page.textContent('#frame-title-2'), 'Response, captured in part (7 bytes of it were not captured): ApiVersions v3 response, 16 bytes');
  // The request is cut inside its header (in its client id): the decode
  // cannot name it, the capture did before the cut.
  assert.equal(await page.textContent('#frame-title'), 'Request, captured in part (20 bytes of it were not captured): ApiVersions v3 request, cut inside its header, 16 bytes');
  assert.match(await page.textContent('#error'), /^Decoding stopped at byte 12 \(header\.clientId\): .*20 are missing/);
  assert.ok(await page.isVisible('#error-2'));
  assert.match(await page.textContent('#error-2'), /cut short.*7 are missing/);
  assert.match(await page.textContent('#json-2'), /"errorCode"/);
  const notes = await page.$$eval('#cap-notes li', (lis) => lis.map((l) => l.textContent));
  assert.ok(notes.some((n) => /^kwire check: frame\.decode skipped conn 1 correlation 1 request \(packet 4\): 5 frames the capture holds only in part/.test(n)), notes.join('\n'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The Error column sorts as it reads: a code that is a normal step of a
// protocol ("MEMBER_ID_REQUIRED (expected)") sorts by its text, not as a
// blank; and a capture of one packet says "1 packet".
test('the Error column sorts as shown; one packet is "1 packet"', { timeout: 180_000 }, async () => {
  const page = await open();
  await openCapture(page, join(root, 'testdata', 'captures', 'kafkajs-clients.pcapng'));
  const errors = () => page.$$eval('#cap-table tbody td.pg-c-error', (tds) => tds.map((t) => t.textContent));
  assert.ok((await errors()).includes('MEMBER_ID_REQUIRED (expected)'));
  for (const dir of ['ascending', 'descending']) {
    await page.click('#cap-table thead button[data-col="error"]');
    assert.equal(await page.$eval('#cap-table thead th:has(button[data-col="error"])', (th) => th.getAttribute('aria-sort')), dir);
    const shown = await errors();
    const sorted = shown.slice().sort();
    if (dir === 'descending') sorted.reverse();
    assert.deepEqual(shown, sorted, dir);
  }
  // A capture of one packet (kafka.pcap's first: pcap's 24-byte header,
  // then the packet's 16-byte header and its bytes).
  const dir = await mkdtemp(join(tmpdir(), 'kwire-onepacket-'));
  try {
    const pcap = await readFile(join(root, 'testdata', 'captures', 'kafka.pcap'));
    const one = join(dir, 'one.pcap');
    await writeFile(one, pcap.subarray(0, 24 + 16 + pcap.readUInt32LE(24 + 8)));
    await page.setInputFiles('#file', one);
    await page.waitForFunction(() => /^Capture: 1 /.test(document.getElementById('cap-title').textContent), null, { timeout: 60_000 });
    assert.match(await page.textContent('#cap-title'), /^Capture: 1 packet, \d+ Kafka connections?, 0 exchanges/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
