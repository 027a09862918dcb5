// Kafka's internal topics in the playground's frames (issue 20), in real
// Chromium: a Produce request to __consumer_offsets carrying an offset
// commit (key and value as franz-go's kmsg writes them) shows the record's
// key and value decoded through Kafka's schemas in the tree, under the
// record, with their bytes in the grid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session } from './helpers-playground.mjs';

// Produce v9 to __consumer_offsets: OffsetCommitKey{billing, orders, 3},
// OffsetCommitValue v3{offset 4242, leaderEpoch 7, "note", 1700000000123}.
const COMMIT = '000000ab000000090000000700056b776972650000ffff0000753002135f5f636f6e73756d65725f6f66667365747302000000007800000000000000000000006b000000000269ab659c0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff00000001720000002e0001000762696c6c696e6700066f72646572730000000338000300000000000010920000000700046e6f74650000018bcfe5687b00000000';

const pg = session();
const { open } = pg;

test('__consumer_offsets in a Produce request: the commit decoded in the tree', { timeout: 180_000 }, async () => {
  const page = await open('#hex=' + COMMIT);
  await page.waitForFunction(() => document.body.dataset.decoded && document.querySelectorAll('#grids .kw-row').length > 0, null, { timeout: 60_000 });
  assert.match(await page.textContent('#status'), /Produce v9 request/);
  // Selecting the value's offset in the grid (its last rows) reveals it
  // in the tree, under the OffsetCommitValue the record's value decodes to.
  await page.$eval('#grids .pg-main .pg-scroll', (b) => { b.scrollTop = b.scrollHeight; });
  await page.locator('#grids .kw-cell:has(.kw-label:text-is("offset"))').first().click();
  await page.waitForFunction(() => /OffsetCommitValue/.test(document.getElementById('tree').innerText));
  const tree = await page.$eval('#tree', (e) => e.innerText);
  assert.match(tree, /offset int64 = 4242/);
  assert.match(tree, /commitTimestamp int64 = 1700000000123/);
  assert.match(tree, /metadata string = "?note"?/);
  await page.locator('#grids .kw-cell:has(.kw-label:text-is("group"))').first().click();
  await page.waitForFunction(() => /OffsetCommitKey/.test(document.getElementById('tree').innerText));
  assert.match(await page.$eval('#tree', (e) => e.innerText), /group string = "?billing"?/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a capture of kgo fetching __consumer_offsets by topic id: the ids learnt from its Metadata answers, the commit decoded', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.setInputFiles('#file', join(pg.built.inputs, 'commit.pcap'));
  await page.waitForSelector('#cap-table tbody tr', { timeout: 60_000 });
  const fetches = await page.$$eval('#cap-table tbody tr', (trs) => trs.filter((tr) => /Fetch/.test(tr.cells[2]?.textContent || '')).map((tr) => tr.dataset.exchange));
  assert.ok(fetches.length > 0, 'the capture holds Fetch exchanges');
  let found = false;
  for (const ex of fetches) {
    const before = await page.evaluate(() => document.body.dataset.decoded || '');
    await page.click('#cap-table tbody tr[data-exchange="' + ex + '"]');
    await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 60_000 }).catch(() => {});
    await page.waitForFunction(() => document.querySelectorAll('#grids .kw-row').length > 0);
    // The response's panel; kgo compresses, so the record is in an inflated buffer's grid.
    for (const box of await page.$$('#grids-2 .pg-scroll')) await box.evaluate((b) => { b.scrollTop = b.scrollHeight; });
    const cell = page.locator('#grids-2 .kw-cell:has(.kw-label:text-is("commitTimestamp"))');
    await page.waitForTimeout(300);
    if (await cell.count() === 0) continue;
    await cell.first().click();
    await page.waitForFunction(() => /OffsetCommitValue/.test(document.getElementById('tree-2').innerText));
    assert.match(await page.$eval('#tree-2', (e) => e.innerText), /commitTimestamp int64 = 1700000000123/);
    found = true;
    break;
  }
  if (!found) console.log('grids-2 labels: ' + (await page.$$eval('#grids-2 .kw-label', (ls) => ls.map((l) => l.textContent))).join('|'));
  assert.ok(found, 'a Fetch response shows the commit decoded');
  assert.deepEqual(page.errors, []);
  await page.close();
});
