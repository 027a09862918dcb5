// The playground for a screen reader, a keyboard and a phone-sized window
// (WCAG 2.2, in real Chromium), after an accessibility review: arrow keys
// in the grid, tree and JSON are said aloud (a polite live region and the
// focused box's active descendant), focus never hides under the fixed
// selection bar, nothing scrolls the page sideways at 320 px, errors are
// tied to their fields, the capture table is one tab stop, the modes are
// a tabs pattern, and the boxes that scroll or carry a name have a role.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session, root } from './helpers-playground.mjs';

// ApiVersions v3 request: size [0, 4), apiKey [4, 6), apiVersion [6, 8),
// correlationId [8, 12), clientId [12, 19) (length [12, 14)), tags 19,
// clientSoftwareName [20, 27), clientSoftwareVersion [27, 31), tags 31.
const QUICK = '0000001b001200030000000700056b7769726500066b7769726504312e3000';
const CAPTURE = join(root, 'testdata', 'captures', 'kfake-clients.pcapng');

const pg = session();
const { open } = pg;

const ready = (page) => page.waitForFunction(() => document.body.dataset.decoded && document.querySelectorAll('#grids .kw-row').length > 0 &&
  document.querySelectorAll('#tree .pg-row').length > 0 && document.querySelectorAll('#json .pg-row').length > 0, null, { timeout: 60_000 });

// press presses key in the focused box and waits for the selection to move.
async function press(page, key) {
  const n = await page.evaluate(() => +document.body.dataset.selected || 0);
  await page.keyboard.press(key);
  await page.waitForFunction((k) => (+document.body.dataset.selected || 0) > k, n, { timeout: 10_000 });
}

// said is what the focused box tells a screen reader: the live region's
// text, and the element its aria-activedescendant names.
const said = (page) => page.evaluate(() => {
  const f = document.activeElement, id = f.getAttribute('aria-activedescendant'), at = id && document.getElementById(id);
  return {
    live: document.getElementById('sel-live').textContent,
    liveRole: document.getElementById('sel-live').getAttribute('aria-live'),
    focus: f.id || f.className,
    active: at ? { role: at.getAttribute('role'), selected: at.getAttribute('aria-selected'), text: at.textContent, inside: f.contains(at) } : null,
  };
});

test('#1: arrow keys in the byte grid, the tree and the JSON are said (live region, active descendant)', { timeout: 120_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await ready(page);
  // The tree: down from nothing selects the first row, then the next.
  await page.focus('#tree');
  await press(page, 'ArrowDown');
  await press(page, 'ArrowDown');
  await page.waitForFunction(() => /^Selected: /.test(document.getElementById('sel-live').textContent));
  let s = await said(page);
  assert.equal(s.liveRole, 'polite');
  assert.equal(s.focus, 'tree');
  assert.ok(s.active && s.active.inside, 'the tree names no active descendant: ' + JSON.stringify(s));
  assert.deepEqual([s.active.role, s.active.selected], ['treeitem', 'true']);
  const treeName = s.active.text.trim().split(/\s+/)[1];
  assert.ok(s.live.includes(treeName), s.live + ' does not name ' + treeName);
  assert.match(s.live, /\[\d+, \d+\), \d+ bytes/);
  // The grid: a cell, its path, type, value and bytes.
  await page.focus('#grids .kw-grid');
  await press(page, 'Home');
  await press(page, 'ArrowRight');
  await page.waitForFunction(() => /\[4, 6\)/.test(document.getElementById('sel-live').textContent), null, { timeout: 10_000 })
    .catch(async () => assert.fail(JSON.stringify(await said(page))));
  s = await said(page);
  assert.match(s.live, /^Selected: header › requestApiKey, int16 = 18\b.*, bytes \[4, 6\), 2 bytes$/);
  assert.ok(s.active && s.active.inside, 'the grid names no active descendant: ' + JSON.stringify(s));
  assert.deepEqual([s.active.role, s.active.selected], ['gridcell', 'true']);
  // The JSON: a line an option.
  await page.focus('#json');
  await press(page, 'ArrowDown');
  await page.waitForFunction(() => !/\[4, 6\)/.test(document.getElementById('sel-live').textContent));
  s = await said(page);
  assert.match(s.live, /^Selected: /);
  assert.ok(s.active && s.active.inside, 'the JSON names no active descendant: ' + JSON.stringify(s));
  assert.deepEqual([s.active.role, s.active.selected], ['option', 'true']);
  assert.deepEqual(page.errors, []);
  await page.close();
});
