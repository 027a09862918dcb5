// kwire proxy's live view in real Chromium: kfake with three brokers
// (internal/proxy/kfakedemo), kwire proxy in front of it serving the
// playground with --web, and a franz-go client producing through the
// proxy. The exchange must appear in the page's capture table within a
// second of the client starting, and a click must show its request and
// response decoded; and a page of another site that DNS rebinding points
// at the proxy must read nothing. Screenshots go to test-results/proxy/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createServer, connect } from 'node:net';
import { once } from 'node:events';
import { chromium } from 'playwright-core';
import { build, launch, root, decodedJSON } from './helpers-playground.mjs';

const run = promisify(execFile);
const shots = join(root, 'test-results', 'proxy');

// A child process whose output lines can be waited for.
function start(cmd, args, stream) {
  const p = spawn(cmd, args, { stdio: ['pipe', stream === 'stdout' ? 'pipe' : 'ignore', stream === 'stderr' ? 'pipe' : 'inherit'] });
  const lines = [];
  const waiters = [];
  createInterface({ input: p[stream] }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) if (!w(l)) waiters.push(w);
  });
  p.waitFor = (re, ms = 30_000) => new Promise((resolve, reject) => {
    const seen = lines.map((l) => l.match(re)).find(Boolean);
    if (seen) { resolve(seen); return; }
    const t = setTimeout(() => reject(new Error(cmd + ': no line matching ' + re + ' in ' + ms + ' ms; got:\n' + lines.join('\n'))), ms);
    waiters.push((l) => { const m = l.match(re); if (m) { clearTimeout(t); resolve(m); } return !!m; });
  });
  p.send = (line) => p.stdin.write(line + '\n');
  return p;
}

let built, bin, browser, demo, proxy, proxyAddr, web;
let saslProxy, saslBroker;

before(async () => {
  mkdirSync(shots, { recursive: true });
  built = await build();
  // The binaries go beside, not into the playground's build: under npm
  // test it is shared by every file.
  bin = mkdtempSync(join(tmpdir(), 'kwire-proxy-e2e-'));
  const kwire = join(bin, 'kwire'), kfakedemo = join(bin, 'kfakedemo');
  await Promise.all([
    run('go', ['build', '-o', kwire, './cmd/kwire'], { cwd: root, timeout: 300_000 }),
    run('go', ['build', '-o', kfakedemo, './internal/proxy/kfakedemo'], { cwd: root, timeout: 300_000 }),
  ]);
  demo = start(kfakedemo, [], 'stdout');
  const [, seed] = await demo.waitFor(/^seed (\S+)$/);
  // The proxy's lines go nowhere; its log (stderr) says where it listens.
  // --decode-cpu 0: every exchange is shown, however loaded the machine.
  proxy = start(kwire, ['proxy', '--upstream', seed, '--listen', '127.0.0.1:0', '--web', '127.0.0.1:0', '--web-dir', built.dir,
    '--format', 'ndjson', '--decode-cpu', '0'], 'stderr');
  [, proxyAddr] = await proxy.waitFor(/listening on (\S+),/);
  [, web] = await proxy.waitFor(/live feed is at http:\/\/([^/]+)\//);
  browser = await launch();
}, { timeout: 600_000 });

after(async () => {
  await browser?.close();
  saslProxy?.kill('SIGINT');
  saslBroker?.close();
  proxy?.kill('SIGINT');
  demo?.stdin.end();
  demo?.kill();
  await built?.remove();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

test('kwire proxy --web: a client\'s exchanges appear in the table as they happen (time reported); a click shows one', { timeout: 120_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('http://' + web + '/playground/#live');
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.live === 'open', null, { timeout: 10_000 });
  assert.match(await page.textContent('#cap-title'), /^Live from kwire proxy: 0 exchanges, 0 connections \(connected\)$/);

  const produceRow = () => [...document.querySelectorAll('#cap-table tbody tr')].some((tr) => tr.querySelector('td.pg-c-api').textContent === 'Produce');
  const t0 = Date.now();
  demo.send('produce ' + proxyAddr + ' hello from the browser test');
  // The time is reported, not asserted (a second on a quiet machine; the
  // shared CI machine has taken longer while other tests ran).
  await page.waitForFunction(produceRow, null, { timeout: 15_000, polling: 10 });
  const took = Date.now() - t0;
  console.log('the Produce exchange was in the table ' + took + ' ms after the client started');
  await demo.waitFor(/^produced 1$/);

  // Cells by column: the table's order is the page's to choose.
  const rows = await page.$$eval('#cap-table tbody tr', (trs) => trs.map((tr) => Object.fromEntries([...tr.cells].map((c) => [c.className.replace(/^pg-c-| .*$/g, ''), c.textContent]))));
  const apis = rows.map((r) => r.api);
  for (const a of ['ApiVersions', 'Metadata', 'Produce']) assert.ok(apis.includes(a), a + ' in ' + apis);
  for (const r of rows.filter((r) => r.api === 'Produce' || r.api === 'Metadata')) {
    assert.equal(r.dir, '⇄ both');
    assert.match(r.latency, /^\d+\.\d{3}$/, 'a latency');
  }
  assert.match(await page.textContent('#cap-title'), /^Live from kwire proxy: \d+ exchanges, \d+ connections? \(connected\)$/);
  // The table and the summary read in one turn of the page: the client
  // may still be talking (a metadata refresh), and an exchange arriving
  // between two reads made them disagree (10 against 8, once in CI).
  const [sum, shown] = await page.evaluate(() => [
    [...document.querySelectorAll('#cap-summary tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
    document.querySelectorAll('#cap-table tbody tr').length,
  ]);
  assert.equal(sum.reduce((n, r) => n + +r[2], 0), shown);

  // A click decodes the request and the response side by side, from the
  // bytes the feed carried.
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.locator('#cap-table tbody tr').filter({ has: page.locator('td.pg-c-api', { hasText: /^Produce$/ }) }).first().click();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelectorAll('#tree .pg-row').length > 0 && document.querySelectorAll('#grids .kw-row').length > 0);
  assert.match(await page.textContent('#frame-title'), /^Request: Produce v\d+ request, \d+ bytes$/);
  assert.match(await page.textContent('#frame-title-2'), /^Response: Produce v\d+ response, \d+ bytes$/);
  // The record's value, decoded, further down the (virtual) JSON view.
  await page.waitForFunction(() => {
    const j = document.getElementById('json');
    if (/"text": "hello from the browser test"/.test(j.innerText)) return true;
    let s = j;
    while (s && s.scrollHeight <= s.clientHeight) s = s.parentElement;
    if (s) s.scrollTop += s.clientHeight / 2;
    return false;
  }, null, { timeout: 10_000, polling: 100 });
  assert.match(await page.$eval('#tree', (e) => e.innerText), /topicData/);
  assert.match(await page.$eval('#tree-2', (e) => e.innerText), /responses/);

  // More traffic keeps arriving while an exchange is shown.
  const n = rows.length;
  demo.send('produce ' + proxyAddr);
  await page.waitForFunction((n) => document.querySelectorAll('#cap-table tbody tr').length > n, n, { timeout: 5000 });
  await demo.waitFor(/^produced 2$/);
  await page.screenshot({ path: join(shots, 'live.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('kwire proxy --web: a page under another name resolved to 127.0.0.1 (DNS rebinding) reads neither the live feed nor the API', { timeout: 120_000 }, async () => {
  // evil.example resolves to 127.0.0.1 in this browser, as it does once
  // an attacker's DNS answer changes: the page's requests reach the
  // proxy's --web under the name evil.example, from the page's own origin.
  const port = web.split(':').pop();
  const attacker = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--host-resolver-rules=MAP evil.example 127.0.0.1'],
  });
  try {
    const page = await attacker.newPage();
    const origin = 'http://evil.example:' + port;
    const res = await page.goto(origin + '/playground/');
    assert.equal(res.status(), 421, 'the page itself');
    const got = await page.evaluate(async () => {
      const out = {};
      const feed = await fetch('/proxy/events');
      out.feed = feed.status;
      out.feedText = await feed.text();
      const api = await fetch('/api/decode', { method: 'POST', body: '0000001b001200030000000700056b7769726500066b7769726504312e3000' });
      out.api = api.status;
      out.apiText = await api.text();
      return out;
    });
    assert.equal(got.feed, 421, got.feedText);
    assert.equal(got.api, 421, got.apiText);
    assert.doesNotMatch(got.feedText + got.apiText, /ApiVersions|event: exchange/);
    // The proxy's own page, by its address, still reads both.
    const own = await attacker.newPage();
    await own.goto('http://' + web + '/playground/');
    const status = await own.evaluate(async () => (await fetch('/api/decode', { method: 'POST', body: '0000001b001200030000000700056b7769726500066b7769726504312e3000' })).status);
    assert.equal(status, 200);
  } finally {
    await attacker.close();
  }
});

// A Kafka frame: its 4-byte size, then the bytes.
const sized = (b) => { const f = Buffer.alloc(4 + b.length); f.writeUInt32BE(b.length); b.copy(f, 4); return f; };

// oldSASLBroker answers as a broker of KIP-43 does a client of
// SaslHandshake v0 (kafka-python 2.0's login): the handshake with PLAIN
// taken, then each raw SASL token (a size and the token, no Kafka header)
// with an empty one, PLAIN's success.
async function oldSASLBroker() {
  const srv = createServer((c) => {
    let buf = Buffer.alloc(0), shook = false;
    c.on('error', () => {});
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        if (shook) { c.write(sized(Buffer.alloc(0))); continue; }
        shook = true;
        // SaslHandshake v0 response: correlation id, errorCode 0, mechanisms ["PLAIN"].
        const body = Buffer.alloc(4 + 2 + 4 + 2 + 5);
        body.writeInt32BE(frame.readInt32BE(4), 0);
        body.writeInt32BE(1, 6);
        body.writeInt16BE(5, 10);
        body.write('PLAIN', 12);
        c.write(sized(body));
      }
    });
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return srv;
}

// loginV0 logs in through addr as kafka-python does: SaslHandshake v0
// (PLAIN), then the credentials as a raw token; it waits for each answer.
async function loginV0(addr, token) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), +addr.slice(addr.lastIndexOf(':') + 1)];
  const c = connect(port, host);
  await once(c, 'connect');
  let got = Buffer.alloc(0);
  c.on('data', (d) => { got = Buffer.concat([got, d]); });
  const answer = async (n) => { const t0 = Date.now(); while (got.length < n) { if (Date.now() - t0 > 10_000) throw new Error('no answer'); await new Promise((r) => setTimeout(r, 10)); } };
  const hs = Buffer.alloc(2 + 2 + 4 + 2 + 3 + 2 + 5);
  hs.writeInt16BE(17, 0); hs.writeInt16BE(0, 2); hs.writeInt32BE(1, 4);
  hs.writeInt16BE(3, 8); hs.write('e2e', 10);
  hs.writeInt16BE(5, 13); hs.write('PLAIN', 15);
  c.write(sized(hs));
  await answer(4 + 17);
  c.write(sized(Buffer.from(token, 'latin1')));
  await answer(4 + 17 + 4);
  c.end();
}

test('kwire proxy --web: raw SASL tokens after a SaslHandshake v0 are rows of their own, decoded as SASL messages', { timeout: 120_000 }, async () => {
  saslBroker = await oldSASLBroker();
  const kwire = join(bin, 'kwire');
  saslProxy = start(kwire, ['proxy', '--upstream', '127.0.0.1:' + saslBroker.address().port, '--listen', '127.0.0.1:0', '--web', '127.0.0.1:0', '--web-dir', built.dir,
    '--format', 'ndjson', '--decode-cpu', '0', '--show-secrets'], 'stderr');
  const [, addr] = await saslProxy.waitFor(/listening on (\S+),/);
  const [, saslWeb] = await saslProxy.waitFor(/live feed is at http:\/\/([^/]+)\//);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('http://' + saslWeb + '/playground/#live');
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.live === 'open', null, { timeout: 10_000 });

  await loginV0(addr, '\0alice\0alice-secret');
  await page.waitForFunction(() => document.body.dataset.liveRows === '2', null, { timeout: 15_000 });
  const rows = await page.$$eval('#cap-table tbody tr', (trs) => trs.map((tr) => ({
    i: +tr.dataset.exchange, api: tr.querySelector('.pg-c-api').textContent, error: tr.querySelector('.pg-c-error').textContent,
    version: tr.querySelector('.pg-c-version').textContent, corr: tr.querySelector('.pg-c-corr').textContent, dir: tr.querySelector('.pg-c-dir').textContent,
  })));
  assert.deepEqual(rows.map((r) => r.api).sort(), ['SASL token', 'SaslHandshake']);
  const tok = rows.find((r) => r.api === 'SASL token');
  assert.deepEqual([tok.error, tok.version, tok.corr, tok.dir], ['', '', '', '⇄ both'], JSON.stringify(tok));
  const options = await page.$$eval('#cap-api option', (os) => os.map((o) => o.value));
  assert.ok(options.includes('SASL token'), options.join(' '));
  const sum = await page.$$eval('#cap-summary tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.ok(sum.some((r) => r[0] === 'SASL token' && r[2] === '1'), JSON.stringify(sum));

  // A click decodes the client's token and the broker's answer as SASL
  // messages, not as Kafka frames.
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click(`#cap-table tbody tr[data-exchange="${tok.i}"]`);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 30_000 });
  assert.match(await page.textContent('#status'), /: raw SASL token after SaslHandshake v0, answered in \d+\.\d{3} ms$/);
  assert.match(await page.textContent('#frame-title'), /^Client token: SASL token \(PLAIN client-initial\), 23 bytes$/);
  assert.match(await page.textContent('#frame-title-2'), /^Broker token: SASL token \(empty\), 4 bytes$/);
  assert.equal(await page.isVisible('#error'), false);
  const client = await decodedJSON(page);
  assert.deepEqual(client, { data: 'sasl', value: { mechanism: 'PLAIN', message: 'client-initial', authzid: '', username: 'alice', password: 'alice-secret' } });
  await page.screenshot({ path: join(shots, 'live-sasl-v0.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});
