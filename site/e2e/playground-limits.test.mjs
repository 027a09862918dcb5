// The playground on a frame past the browser's node limit, as a tester
// met it in Chromium: a Fetch response of 5,500 partitions of one batch
// (1.1 MB, many-partitions.bin from site/internal/e2egen). The limit's
// warnings are one line, the node count and the limit agree in words,
// the tree pages with PageUp/PageDown, and a jump to the end of the frame
// draws the byte grid at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session } from './helpers-playground.mjs';

const pg = session();
const { open } = pg;

// slowWorker makes the worker's answers to the ops named in ms (op ->
// milliseconds) come that much later, as on a slow machine or behind a
// long op (the value JSON of a 1 MB frame takes the worker a second or
// two): what the page draws meanwhile is then plain to see.
function slowWorker(ms) {
  window.__slow = ms;
  const W = window.Worker;
  window.Worker = function (url, opts) {
    const w = new W(url, opts);
    const ops = new Map(); // request id -> op
    const post = w.postMessage.bind(w);
    w.postMessage = (m, t) => { if (m && m.id) ops.set(m.id, m.op); return t ? post(m, t) : post(m); };
    const set = Object.getOwnPropertyDescriptor(W.prototype, 'onmessage').set;
    let handler = null;
    Object.defineProperty(w, 'onmessage', {
      get: () => handler,
      set(fn) {
        handler = fn;
        set.call(w, (e) => {
          const d = e.data && e.data.id && window.__slow[ops.get(e.data.id)];
          if (d) setTimeout(() => fn(e), d); else fn(e);
        });
      },
    });
    return w;
  };
}

// openMany decodes many-partitions.bin as the Fetch v12 response it is,
// and waits for its first screen and its value JSON.
async function openMany(page) {
  await page.selectOption('#dir', 'response');
  await page.selectOption('#api', '1');
  await page.fill('#ver', '12');
  await page.$eval('#ver', (e) => e.blur()); // its change event now, not at the first click
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.setInputFiles('#file', join(pg.built.inputs, 'many-partitions.bin'));
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelectorAll('#tree .pg-row').length > 0 && document.querySelectorAll('#grids .kw-row').length > 0 &&
    document.querySelectorAll('#json .pg-row').length > 0, null, { timeout: 60_000 });
}

const selDesc = (page) => page.textContent('#sel-desc');

test('past the node limit: one warning for every records field cut, with the count and the first byte', { timeout: 180_000 }, async () => {
  const page = await open('', { init: [slowWorker, {}] });
  await openMany(page);
  const m = pg.built.manifest.manyPartitions;
  assert.equal(m.partitions, 5500);
  const ws = await page.$$eval('#warnings li', (ls) => ls.map((l) => l.textContent));
  assert.equal(ws.length, 1, ws.length + ' warnings, the first: ' + ws.slice(0, 3).join(' | '));
  assert.match(ws[0], /^Byte (\d+): entries from byte \1 not decoded: the MaxNodes limit \(262144 nodes\) is reached for records .*; so were the entries of (\d+) more records fields after it, the last from byte \d+$/);
  const more = +ws[0].match(/entries of (\d+) more/)[1];
  assert.ok(more > 1000 && more < m.partitions, more + ' more records fields cut');
  // The warning still selects the first cut's bytes.
  await page.click('#warnings li');
  const first = ws[0].match(/^Byte (\d+)/)[1];
  await page.waitForFunction((b) => document.getElementById('sel-desc').textContent.includes('[' + b + ', '), first);
  // The bytes not decoded: the records field's entry {"_raw": ...}.
  assert.match(await selDesc(page), /partitions\[\d+\] › records\[\d+\] › _raw {2}\[/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('past the node limit: the status line\'s count and the limit\'s note say what each counts', { timeout: 180_000 }, async () => {
  const page = await open('', { init: [slowWorker, {}] });
  await openMany(page);
  const sum = await page.evaluate(() => window.kwirePlayground.sum);
  assert.equal(sum.maxNodes, 262144);
  assert.ok(sum.nodeCount < sum.maxNodes, 'the tree ends under the limit: ' + sum.nodeCount);
  const status = await page.textContent('#status');
  assert.match(status, new RegExp(sum.nodeCount + ' nodes in the tree \\(the MaxNodes limit, 262144, counts ' + sum.spentNodes + ' here: see the note on the frame\\)$'), status);
  const note = await page.textContent('#limit');
  // What records may take of the limit, what the limit counts, this
  // frame's count (the status line's), and why it ended under the limit.
  assert.match(note, /is reached for records \(they may take \d+ nodes; the rest is kept for the frame's own fields after them and a margin\)/, note);
  assert.match(note, new RegExp('The browser\'s MaxNodes limit is 262144 nodes a frame; it counts the tree\'s nodes and 2 for each warning that is not a limit\'s: ' +
    sum.spentNodes + ' for this frame, whose tree has ' + sum.nodeCount + ' nodes\\. Records stop at their share of the limit'), note);
  assert.match(note, /The browser decodes with smaller limits than the kwire command line/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// selected is what the views show selected: the tree row, the grid cells
// (their span) and the JSON lines.
const selected = (page) => page.evaluate(() => {
  const row = document.querySelector('#tree .pg-row.pg-sel');
  const cells = [...document.querySelectorAll('#grids .kw-cell.kw-sel')];
  return {
    top: row ? parseFloat(row.style.top) : null,
    node: row ? +row.dataset.node : null,
    start: row ? +row.dataset.start : null,
    end: row ? +row.dataset.end : null,
    cells: cells.map((c) => [+c.dataset.start, +c.dataset.end]),
    json: document.querySelectorAll('#json .pg-row.pg-sel').length,
  };
});

test('the tree: PageDown and PageUp move the selection a page of rows, Home and End to the ends; grid and JSON follow', { timeout: 180_000 }, async () => {
  const page = await open('', { init: [slowWorker, {}] });
  await openMany(page);
  // The tree of a big frame opens two levels deep: open the responses,
  // the topic and its partitions, thousands of rows.
  // (Opened through the panel, and the row waited for as drawn open: a
  // double click on a row the tree is about to redraw can close it again.)
  const openRow = async (name) => {
    const id = await page.$eval('#tree', (t, nm) => {
      const r = [...t.querySelectorAll('.pg-row[aria-expanded="false"]')].find((x) => x.querySelector('.pg-name').textContent === nm);
      window.kwirePlayground.panels[0].toggle(+r.dataset.node, true);
      return r.dataset.node;
    }, name);
    await page.waitForFunction((i) => document.querySelector('#tree .pg-row[data-node="' + i + '"][aria-expanded="true"]'), id);
  };
  await openRow('responses');
  await openRow('responses[0]');
  await openRow('partitions');
  await page.click('#tree .pg-row >> nth=2');
  await page.waitForFunction(() => document.querySelector('#tree .pg-row.pg-sel'));
  const rows = await page.$eval('#tree', (t) => Math.floor(t.clientHeight / 22) - 1); // a page: the rows in sight, less one
  const start = await selected(page);
  const moved = async (key, want) => {
    const n = await page.evaluate(() => +document.body.dataset.selected || 0);
    await page.keyboard.press(key);
    await page.waitForFunction((k) => (+document.body.dataset.selected || 0) > k, n);
    // The grid and the JSON draw the new selection once their rows are in.
    await page.waitForFunction(() => document.querySelector('#grids .kw-cell.kw-sel') && document.querySelector('#json .pg-row.pg-sel'));
    const s = await selected(page);
    assert.equal(s.top, want, key + ': the tree row at ' + s.top + ', want ' + want);
    assert.ok(s.cells.length > 0 && s.cells.every(([a, b]) => a >= s.start && b <= s.end), key + ': grid cells ' + JSON.stringify(s.cells) + ' in [' + s.start + ', ' + s.end + ')');
    assert.ok(s.json > 0, key + ': JSON lines selected');
    return s;
  };
  await moved('PageDown', start.top + rows * 22);
  await moved('PageDown', start.top + 2 * rows * 22);
  await moved('PageUp', start.top + rows * 22);
  await moved('Home', 0);
  await moved('PageUp', 0); // at the top, it stays
  const count = await page.evaluate(() => window.kwirePlayground.panels[0].views.tree.count);
  const end = await moved('End', (count - 1) * 22);
  await moved('PageDown', end.top); // at the end, it stays
  assert.deepEqual(page.errors, []);
  await page.close();
});

// watchGrid records, each animation frame, where the byte grid is
// scrolled and how many of its rows are in sight there.
function watchGrid() {
  window.__grid = [];
  (function tick() {
    const box = document.querySelector('#grids .pg-gridbox');
    if (box) {
      const top = box.scrollTop, h = box.clientHeight;
      let seen = 0;
      for (const r of box.querySelectorAll('.kw-row')) {
        const y = parseFloat(r.style.top);
        if (y + 36 > top + 18 && y < top + h) seen++;
      }
      window.__grid.push([top, seen]);
    }
    requestAnimationFrame(tick);
  })();
}

test('a jump to the end of a 1.1 MB frame draws the byte grid in the same frame as the scroll', { timeout: 240_000 }, async () => {
  // The worker answers the grid's rows 400 ms late: a jump that scrolls
  // the grid before its rows come shows it blank that long.
  const page = await open('', { init: [slowWorker, { gridRows: 400 }] });
  await openMany(page);
  const frameLen = await page.evaluate(() => window.kwirePlayground.sum.buffers[0].len);
  await page.evaluate(watchGrid);
  const blank = () => page.evaluate(() => window.__grid.filter(([top, seen]) => top > 0 && seen === 0).length);
  const jump = async (act, what) => {
    const n = await page.evaluate(() => +document.body.dataset.selected || 0);
    await act();
    await page.waitForFunction((k) => (+document.body.dataset.selected || 0) > k, n);
    // Rows at the end are in sight once the grid has scrolled there: in
    // the frame it scrolled in, not after the worker's answer.
    await page.waitForFunction(() => { const b = document.querySelector('#grids .pg-gridbox'); return b.scrollTop + b.clientHeight >= b.scrollHeight - 40; }, null, { timeout: 10_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const last = await page.evaluate(() => window.__grid[window.__grid.length - 1]);
    assert.ok(last[1] > 0, what + ': the grid shows no rows at the end');
    assert.equal(await blank(), 0, what + ': frames with the grid scrolled and no rows in sight: ' + JSON.stringify(await page.evaluate(() => window.__grid.filter(([t, s]) => t > 0 && s === 0).slice(0, 5))));
    assert.match(await selDesc(page), new RegExp('\\[' + (frameLen - 1) + ', ' + frameLen + '\\)'), what);
  };
  // The last node in the tree, by End.
  await page.click('#tree .pg-row >> nth=1');
  await page.waitForFunction(() => document.querySelector('#tree .pg-row.pg-sel'));
  await jump(() => page.keyboard.press('End'), 'End in the tree');
  // Back to the start, then End in the grid itself: the last byte
  // selected, the grid there at once (not the browser's glide).
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('#grids .pg-gridbox').scrollTop === 0);
  await page.click('#grids .kw-cell >> nth=1');
  await page.evaluate(() => { window.__grid.length = 0; });
  await jump(() => page.keyboard.press('End'), 'End in the grid');
  assert.deepEqual(page.errors, []);
  await page.close();
});
