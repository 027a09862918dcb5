// The hex dump walks by keyboard, as the byte grid does (in real Chromium):
// #hex is a tab stop, and its arrow keys move the selection a cell left or
// right and a row (sixteen bytes) up or down, Home and End to the first and
// last byte, the tree, the JSON and the grid following as they follow a
// click on a hex byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { session } from './helpers-playground.mjs';

// ApiVersions v3 request: size [0, 4), apiKey [4, 6), apiVersion [6, 8),
// correlationId [8, 12), clientId [12, 19) (length [12, 14)), tags 19,
// clientSoftwareName [20, 27), clientSoftwareVersion [27, 31), tags 31.
const QUICK = '0000001b001200030000000700056b7769726500066b7769726504312e3000';

const pg = session();
const { open } = pg;

// state is what every view shows selected.
const state = (page) => page.evaluate(() => ({
  desc: document.getElementById('sel-desc').textContent,
  hex: [...document.querySelectorAll('#hex .pg-byte.pg-sel')].map((b) => +b.dataset.off),
  grid: [...document.querySelectorAll('#grids .kw-cell.kw-sel')].map((c) => [+c.dataset.start, +c.dataset.end]),
  part: [...document.querySelectorAll('#grids .kw-cell.kw-part')].map((c) => [+c.dataset.start, +c.dataset.end]),
  tree: [...document.querySelectorAll('#tree .pg-row.pg-sel .pg-name')].map((n) => n.textContent),
  json: [...document.querySelectorAll('#json .pg-row.pg-sel')].map((r) => r.textContent.trim()),
  focus: document.activeElement && document.activeElement.id,
}));

const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);

test('arrow keys, Home and End in the hex dump move the selection; every view follows', { timeout: 180_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await page.waitForFunction(() => document.body.dataset.decoded && document.querySelectorAll('#grids .kw-row').length > 0 &&
    document.querySelectorAll('#hex .pg-byte').length === 31 && document.querySelectorAll('#json .pg-row').length > 0, null, { timeout: 60_000 });
  // A click on a byte of correlationId selects it, as it did before.
  await page.click('#hex .pg-byte[data-off="9"]');
  await page.waitForFunction(() => /correlationId/.test(document.getElementById('sel-desc').textContent));
  await page.focus('#hex');
  const press = async (key, want) => {
    const n = await page.evaluate(() => +document.body.dataset.selected || 0);
    await page.keyboard.press(key);
    await page.waitForFunction((k) => (+document.body.dataset.selected || 0) > k, n, { timeout: 10_000 })
      .catch(() => assert.fail(key + ' in the hex dump did not move the selection (still ' + JSON.stringify(n) + ')'));
    await page.waitForFunction(([w, json]) => {
      const d = document.getElementById('sel-desc').textContent;
      return d.includes(w) && document.querySelector('#tree .pg-row.pg-sel') && !!document.querySelector('#json .pg-row.pg-sel') === json && document.querySelector('#grids .kw-cell.kw-sel');
    }, [want.desc, want.json !== null], { timeout: 10_000 }).catch(async () => assert.fail(key + ': ' + JSON.stringify(await state(page))));
    const s = await state(page);
    assert.equal(s.focus, 'hex', key + ': focus stays in the hex dump');
    assert.ok(s.desc.includes(want.desc), key + ': ' + s.desc);
    assert.deepEqual(s.hex, want.hex, key + ': hex bytes selected');
    assert.ok(s.grid.length > 0 && s.grid.every(([a, b]) => a >= want.hex[0] && b <= want.hex.at(-1) + 1), key + ': grid cells ' + JSON.stringify(s.grid));
    // (A cell split over two grid rows is drawn as two.)
    assert.deepEqual([...new Set(s.part.map(String))], [String(want.part)], key + ': the grid cell pointed at');
    assert.deepEqual(s.tree, [want.tree], key + ': tree row selected');
    if (want.json === null) assert.deepEqual(s.json, [], key + ': no JSON line shows it');
    else assert.ok(s.json.some((l) => l.includes(want.json || '"' + want.tree + '"')), key + ': JSON lines ' + JSON.stringify(s.json));
  };
  // Right: the next cell, clientId's length (clientId selected, as a click there does).
  await press('ArrowRight', { desc: '[12, 19)', hex: range(12, 19), part: [12, 14], tree: 'clientId' });
  // Right again: clientId's bytes; Left: back to its length, then correlationId.
  await press('ArrowRight', { desc: '[12, 19)', hex: range(12, 19), part: [14, 19], tree: 'clientId' });
  await press('ArrowLeft', { desc: '[12, 19)', hex: range(12, 19), part: [12, 14], tree: 'clientId' });
  await press('ArrowLeft', { desc: '[8, 12)', hex: range(8, 12), part: [8, 12], tree: 'correlationId' });
  // Down: sixteen bytes on (byte 27), clientSoftwareVersion's bytes; Up: back.
  await press('ArrowDown', { desc: '[26, 30)', hex: range(26, 30), part: [27, 30], tree: 'clientSoftwareVersion' });
  await press('ArrowUp', { desc: '[8, 12)', hex: range(8, 12), part: [8, 12], tree: 'correlationId' });
  await press('Home', { desc: '[0, 4)', hex: range(0, 4), part: [0, 4], tree: 'size', json: null }); // the frame's size: in no JSON line
  await press('End', { desc: '[30, 31)', hex: [30], part: [30, 31], tree: '_tagged', json: '"body": {' }); // the body's tags: the body's JSON
  assert.deepEqual(page.errors, []);
  await page.close();
});
