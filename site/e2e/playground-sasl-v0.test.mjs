// A capture of kafka-python logging in with SCRAM-SHA-256 after a
// SaslHandshake v0 (testdata/captures/kafkapython-sasl.pcapng: 5
// connections, two raw token exchanges each) in the playground, in real
// Chromium: the raw tokens, which carry no Kafka header, are rows of their
// own ('SASL token', not 'unknown'), and picking one decodes the client's
// token and the broker's answer as the SASL messages they hold, never as
// Kafka frames; a click on a part's tree row selects its bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session, root, decodedJSON } from './helpers-playground.mjs';

const { open } = session();
const CAPTURE = join(root, 'testdata', 'captures', 'kafkapython-sasl.pcapng');

const cells = (page, k) => page.$$eval('#cap-table tbody td.pg-c-' + k, (tds) => tds.map((t) => t.textContent));
const decoded = (page) => page.evaluate(() => document.body.dataset.decoded || '');

test('raw SASL tokens after SaslHandshake v0 show as SASL messages', { timeout: 180_000 }, async () => {
  const page = await open();
  let before = await decoded(page);
  await page.setInputFiles('#file', CAPTURE);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
  assert.match(await page.textContent('#cap-title'), /^Capture: 121 packets, 5 Kafka connections, /);

  const apis = await cells(page, 'api');
  assert.equal(apis.filter((a) => a === 'SASL token').length, 10, apis.join(' '));
  assert.ok(!apis.includes('unknown'), apis.join(' '));
  assert.ok(apis.includes('SaslHandshake') && apis.includes('Produce'), apis.join(' '));
  // No token row fails to decode, and none has a version or correlation id.
  const rows = await page.$$eval('#cap-table tbody tr', (trs) => trs.map((tr) => ({
    i: +tr.dataset.exchange, api: tr.querySelector('.pg-c-api').textContent, error: tr.querySelector('.pg-c-error').textContent,
    version: tr.querySelector('.pg-c-version').textContent, corr: tr.querySelector('.pg-c-corr').textContent,
  })));
  for (const r of rows.filter((x) => x.api === 'SASL token')) assert.deepEqual([r.error, r.version, r.corr], ['', '', ''], JSON.stringify(r));
  // The API filter offers the tokens.
  const options = await page.$$eval('#cap-api option', (os) => os.map((o) => o.value));
  assert.ok(options.includes('SASL token'), options.join(' '));

  // The first token exchange: the client's first SCRAM message and the
  // broker's first answer.
  const first = rows.find((x) => x.api === 'SASL token');
  before = await decoded(page);
  await page.click(`#cap-table tbody tr[data-exchange="${first.i}"]`);
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before);
  assert.match(await page.textContent('#status'), new RegExp('^Capture exchange ' + (first.i + 1) + ': raw SASL token after SaslHandshake v0, answered in \\d+\\.\\d{3} ms$'));
  assert.match(await page.textContent('#frame-title'), /^Client token: SASL token \(SCRAM client-first\), 49 bytes$/);
  assert.match(await page.textContent('#frame-title-2'), /^Broker token: SASL token \(SCRAM server-first\), 86 bytes$/);
  assert.equal(await page.isVisible('#doc-link'), false, 'a token has no reference page');
  assert.equal(await page.isVisible('#error'), false);
  assert.equal(await page.isVisible('#error-2'), false);

  const client = await decodedJSON(page);
  assert.equal(client.data, 'sasl');
  assert.equal(client.value.mechanism, 'SCRAM');
  assert.equal(client.value.message, 'client-first');
  assert.equal(client.value.username, 'scram');
  await page.waitForFunction(() => window.kwirePlayground.panels[1].jsonReady);
  const broker = JSON.parse(await page.evaluate(() => window.kwirePlayground.panels[1].rpc('jsonText')));
  assert.equal(broker.value.message, 'server-first');
  assert.equal(broker.value.iterations, 4096);
  assert.ok(broker.value.nonce.startsWith(client.value.nonce), 'the server nonce extends the client one');
  const pane = await page.$$eval('#json-2 .pg-row', (rs) => rs.map((r) => r.textContent).join('\n'));
  assert.match(pane, /"iterations": 4096/);

  // The tree: the size, then the value typed as the message it holds;
  // username's row selects "scram" (bytes 9 to 13: 4 of size, then "n,,n=").
  const typ = await page.$$eval('#tree .pg-row', (rs) => rs.map((r) => r.textContent).find((t) => t.includes('value')));
  assert.match(typ, /SASL SCRAM client-first/);
  await page.click('#tree .pg-row:has(.pg-name:text-is("username"))');
  await page.waitForFunction(() => document.querySelector('#tree .pg-row.pg-sel .pg-name')?.textContent === 'username', null, { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelectorAll('#hex .pg-byte.pg-sel').length > 0 && /username/.test(document.getElementById('sel-desc').textContent), null, { timeout: 10_000 });
  const sel = await page.evaluate(() => ({
    desc: document.getElementById('sel-desc').textContent,
    hex: [...document.querySelectorAll('#hex .pg-byte.pg-sel')].map((b) => +b.dataset.off),
    grid: [...document.querySelectorAll('#grids .kw-cell.kw-sel')].map((c) => [+c.dataset.start, +c.dataset.end]),
  }));
  assert.deepEqual(sel.hex, [9, 10, 11, 12, 13], 'username selects "scram": ' + JSON.stringify(sel));
  assert.ok(sel.grid.length > 0 && sel.grid.every(([s, e]) => s >= 9 && e <= 14), 'the grid selects "scram" alone: ' + JSON.stringify(sel));
  assert.equal(Math.min(...sel.grid.map((c) => c[0])), 9);
  assert.equal(Math.max(...sel.grid.map((c) => c[1])), 14);
  assert.match(sel.desc, /username {2}\[9, 14\) {2}5 bytes/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
