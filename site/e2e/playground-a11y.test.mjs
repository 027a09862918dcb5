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
import { contrastOf } from './helpers-site.mjs';

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

// phone opens the page at 320 x 640 CSS px (1280 px at 400%) with the
// Produce example decoded.
async function phone() {
  const ctx = await pg.browser.newContext({ viewport: { width: 320, height: 640 } });
  const page = await open('', { ctx });
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await page.click('.pg-example:text("Produce with records")');
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b && document.querySelectorAll('#tree .pg-row').length > 5, before, { timeout: 60_000 });
  return { ctx, page };
}

test('#2: at 320 px, what takes the focus is never hidden under the selection bar', { timeout: 120_000 }, async () => {
  const { ctx, page } = await phone();
  await page.focus('#tree');
  for (let i = 0; i < 3; i++) await press(page, 'ArrowDown');
  assert.ok(await page.isVisible('#selbar'));
  await page.focus('#input');
  const hidden = [];
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    const h = await page.evaluate(() => {
      const e = document.activeElement, bar = document.getElementById('selbar');
      if (!e || e === document.body || bar.contains(e)) return null;
      const r = e.getBoundingClientRect(), b = bar.getBoundingClientRect();
      if (!r.height) return null;
      const seen = Math.min(r.bottom, b.top, innerHeight) - Math.max(r.top, 0);
      return seen <= 0 ? (e.id || e.className || e.tagName) + ' at ' + Math.round(r.top) + '-' + Math.round(r.bottom) + ', the bar from ' + Math.round(b.top) : null;
    });
    if (h) hidden.push(h);
  }
  assert.deepEqual(hidden, []);
  assert.deepEqual(page.errors, []);
  await ctx.close();
});

test('#3 #4: at 320 px the page does not scroll sideways, and a tree row too long for its box scrolls the box, not cut', { timeout: 120_000 }, async () => {
  const { ctx, page } = await phone();
  const [sw, cw] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(sw <= cw, 'the page scrolls sideways: ' + sw + ' > ' + cw);
  const tree = await page.evaluate(() => {
    const box = document.getElementById('tree');
    return {
      scrolls: box.scrollWidth > box.clientWidth,
      cut: [...box.querySelectorAll('.pg-row')].filter((r) => r.scrollWidth > r.clientWidth + 1).map((r) => r.textContent.trim()),
      ranges: [...box.querySelectorAll('.pg-row .pg-range')].filter((e) => e.getBoundingClientRect().right > box.getBoundingClientRect().right).length,
    };
  });
  assert.deepEqual(tree.cut, [], 'tree rows cut short');
  assert.ok(tree.scrolls && tree.ranges > 0, 'no tree row reaches past the box at 320 px: ' + JSON.stringify(tree));
  // Scrolled sideways, a row's bytes come into view.
  await page.evaluate(() => { const b = document.getElementById('tree'); b.scrollLeft = b.scrollWidth; });
  assert.ok(await page.evaluate(() => {
    const box = document.getElementById('tree'), br = box.getBoundingClientRect();
    return [...box.querySelectorAll('.pg-row .pg-range')].some((e) => { const r = e.getBoundingClientRect(); return r.right <= br.right + 1 && r.left >= br.left; });
  }));
  assert.deepEqual(page.errors, []);
  await ctx.close();
});

// At 320 px (WCAG 1.4.10, Reflow) a byte grid cell's label wraps, the
// grid's rows growing to hold the tallest: an ellipsis cut "transacti…",
// "partition…" and others, their text only in the selection bar once
// chosen. Every row of the grid is looked at, scrolled into view.
test('at 320 px no label in the byte grid is cut', { timeout: 120_000 }, async () => {
  const { ctx, page } = await phone();
  const box = page.locator('#grids .kw-grid').first();
  const rows = +(await box.getAttribute('aria-rowcount'));
  assert.ok(rows > 20, 'rows: ' + rows);
  const cutNow = () => box.evaluate((g) => {
    const gr = g.getBoundingClientRect();
    const cells = [...g.querySelectorAll('.kw-row .kw-cell')].filter((c) => { const r = c.getBoundingClientRect(); return r.bottom > gr.top && r.top < gr.bottom; });
    return {
      labels: cells.map((c) => c.querySelector('.kw-label')?.textContent).filter(Boolean),
      cut: cells.filter((c) => {
        const l = c.querySelector('.kw-label');
        return c.scrollHeight > c.clientHeight + 1 || (l && (l.scrollWidth > l.clientWidth + 1 || l.getBoundingClientRect().bottom > c.getBoundingClientRect().bottom + 0.5));
      }).map((c) => c.textContent),
    };
  });
  const seen = new Set(), cut = new Set();
  for (let y = 0, last = -1; ; y += 150) {
    await box.evaluate((g, y) => { g.scrollTop = y; }, y);
    const top = await box.evaluate((g) => g.scrollTop);
    // The rows in view drawn (and grown to fit, which may redraw them).
    await page.waitForFunction((g) => {
      const gr = g.getBoundingClientRect(), rs = [...g.querySelectorAll('.kw-row')].map((r) => r.getBoundingClientRect());
      return rs.some((r) => r.top <= gr.top + 20 && r.bottom > gr.top + 20) && rs.some((r) => r.top < gr.bottom - 4 && r.bottom >= Math.min(gr.bottom - 4, gr.top + g.scrollHeight - g.scrollTop - 4));
    }, await box.elementHandle(), { timeout: 10_000 });
    await page.waitForFunction((g) => [...g.querySelectorAll('.kw-cell')].every((c) => c.scrollHeight <= c.clientHeight + 1), await box.elementHandle(), { timeout: 2_000 }).catch(() => {});
    const r = await cutNow();
    r.labels.forEach((l) => seen.add(l));
    r.cut.forEach((c) => cut.add(c));
    if (top === last) break;
    last = top;
  }
  assert.ok(seen.has('transactionalId length') && seen.has('partitionLeaderEpoch'), 'labels seen: ' + [...seen].join(', '));
  assert.deepEqual([...cut], []);
  // Rows do not overlap: each starts where the one above ends.
  const overlap = await box.evaluate((g) => {
    const rs = [...g.querySelectorAll('.kw-row')].map((r) => [+r.dataset.row, r.getBoundingClientRect()]).sort((a, b) => a[0] - b[0]);
    return rs.slice(1).filter(([i, r], k) => i === rs[k][0] + 1 && r.top < rs[k][1].bottom - 0.5).map(([i]) => i);
  });
  assert.deepEqual(overlap, []);
  assert.deepEqual(page.errors, []);
  await ctx.close();
});

// tied says whether field is marked invalid and described by the error box.
const tied = (page, field) => page.$eval(field, (f) => {
  const d = f.getAttribute('aria-describedby'), box = d && document.getElementById(d);
  return { invalid: f.getAttribute('aria-invalid'), described: box && !box.hidden ? box.textContent : null };
});

test('#5: an error marks its field invalid and describes it, in decode and encode mode; mended, neither', { timeout: 120_000 }, async () => {
  const page = await open();
  await page.fill('#input', '00 00 00 1b zz 12 00 03');
  await page.waitForFunction(() => !document.getElementById('input-error').hidden);
  const bad = await tied(page, '#input');
  assert.equal(bad.invalid, 'true');
  assert.match(bad.described || '', /could not be read/);
  await page.fill('#input', QUICK);
  await page.waitForFunction(() => document.getElementById('input-error').hidden && document.body.dataset.decoded);
  assert.deepEqual(await tied(page, '#input'), { invalid: null, described: null });
  // Encode mode's JSON.
  await page.click('#mode-encode');
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent), null, { timeout: 30_000 });
  const good = await page.inputValue('#enc-json');
  await page.fill('#enc-json', good.replace('":', '" '));
  await page.waitForFunction(() => !document.getElementById('enc-error').hidden);
  const enc = await tied(page, '#enc-json');
  assert.equal(enc.invalid, 'true');
  assert.match(enc.described || '', /does not parse at line/);
  await page.fill('#enc-json', good);
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent));
  assert.deepEqual(await tied(page, '#enc-json'), { invalid: null, described: null });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('#6: an encode error\'s place is a button named for where it goes, working with Enter and Space', { timeout: 120_000 }, async () => {
  const page = await open('#mode=encode&api=18&v=3&dir=request');
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent), null, { timeout: 30_000 });
  const good = await page.inputValue('#enc-json');
  const lines = good.split('\n');
  const bad = lines.map((l, i) => (i === 3 ? l.replace('":', '" ') : l)).join('\n');
  await page.fill('#enc-json', bad);
  await page.waitForFunction(() => !document.getElementById('enc-error').hidden);
  const err = await page.textContent('#enc-error');
  assert.doesNotMatch(err, /click/i, 'mouse-only wording');
  assert.equal(await page.getAttribute('#enc-error', 'tabindex'), null, 'the alert itself is no tab stop');
  const go = page.getByRole('button', { name: /^Go to line 4, column \d+ in the JSON$/ });
  assert.equal(await go.count(), 1, 'no button to the error\'s place');
  const col = +/column (\d+)/.exec(await go.textContent())[1];
  const want = lines.slice(0, 3).join('\n').length + 1 + col - 1;
  for (const key of ['Space', 'Enter']) {
    await page.$eval('#enc-json', (t) => t.setSelectionRange(0, 0));
    await go.focus();
    await page.keyboard.press(key);
    const sel = await page.$eval('#enc-json', (t) => [t.selectionStart, document.activeElement === t]);
    assert.deepEqual(sel, [want, true], key);
  }
  await page.fill('#enc-json', good);
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent));
  assert.equal(await go.isVisible(), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// An encode error is said once (WCAG 4.1.3): it was said by the alert,
// then "Not encoded: the error is above." by the status after it, and
// both again at every keystroke that left the error as it was. Every
// change to a live region's text is counted, each key's encode waited for.
test('an encode error is said once, by one live region, not again while it stays', { timeout: 120_000 }, async () => {
  const page = await open('#mode=encode&api=18&v=3&dir=request');
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent), null, { timeout: 30_000 });
  await page.evaluate(() => {
    window.said = [];
    const live = () => [...document.querySelectorAll('[role=alert], [role=status], [aria-live]')].filter((e) => e.getAttribute('aria-live') !== 'off');
    new MutationObserver((ms) => {
      const changed = new Set();
      for (const m of ms) for (const r of live()) if (r.contains(m.target) || m.target.contains(r)) changed.add(r);
      for (const r of changed) if (r.checkVisibility() && r.textContent.trim()) window.said.push([r.id || r.className, r.textContent.trim()]);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['hidden'] });
  });
  await page.focus('#enc-json');
  await page.keyboard.press('Control+End');
  // Each key makes the same error: a second value after the JSON's end.
  for (const key of ['x', 'y', 'z']) {
    const gen = await page.evaluate(() => document.body.dataset.encError || '');
    await page.keyboard.press(key);
    await page.waitForFunction((g) => (document.body.dataset.encError || '') !== g, gen, { timeout: 10_000 });
  }
  const said = await page.evaluate(() => window.said);
  assert.equal(said.length, 1, 'said: ' + JSON.stringify(said, null, 1));
  assert.equal(said[0][0], 'enc-error');
  assert.match(said[0][1], /does not parse at line \d+, column \d+/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

async function decoded(page, act) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await act();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
}

test('#9: the capture table is one tab stop, its rows named, the arrow keys moving the stop', { timeout: 120_000 }, async () => {
  const page = await open();
  await decoded(page, () => page.setInputFiles('#file', CAPTURE));
  await page.waitForFunction(() => document.querySelectorAll('#cap-table tbody tr').length > 5);
  const stops = () => page.$$eval('#cap-table tbody tr', (rows) => rows.filter((r) => r.tabIndex >= 0).map((r) => r.dataset.exchange));
  assert.equal((await stops()).length, 1, 'tab stops among the rows');
  // Tab from the stop leaves the table at once.
  await page.focus('#cap-table tbody tr[tabindex="0"]');
  const name = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  assert.match(name || '', /^Exchange \d+: \S+ v\d+/);
  await decoded(page, () => page.keyboard.press('ArrowDown'));
  const now = await page.evaluate(() => document.activeElement.dataset.exchange);
  assert.deepEqual(await stops(), [now], 'the row moved to is the stop');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => !!document.activeElement.closest('#cap-table tbody')), false, 'Tab went to another row');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('#10 #11 #15: the modes are a tabs pattern (one stop, arrow keys, a mark in forced colours), placeholders readable, the hex dump a group', { timeout: 120_000 }, async () => {
  const page = await open('#hex=' + QUICK);
  await ready(page);
  const tabs = () => page.$$eval('[role=tab]', (ts) => ts.map((t) => [t.id, t.tabIndex, t.getAttribute('aria-selected')]));
  assert.deepEqual(await tabs(), [['mode-decode', 0, 'true'], ['mode-encode', -1, 'false']]);
  await page.focus('#mode-decode');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => !document.getElementById('encode-pane').hidden);
  assert.deepEqual(await tabs(), [['mode-decode', -1, 'false'], ['mode-encode', 0, 'true']]);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'mode-encode');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => !document.getElementById('decode-pane').hidden);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'mode-decode');
  // Under forced colours the selected tab differs by more than its weight.
  await page.emulateMedia({ forcedColors: 'active' });
  const look = (id) => page.$eval(id, (b) => { const c = getComputedStyle(b); return [c.textDecorationLine, c.borderTopWidth, c.borderTopColor].join(' '); });
  assert.notEqual(await look('#mode-decode'), await look('#mode-encode'));
  await page.emulateMedia({ forcedColors: 'none' });
  // Placeholders: 4.5:1 in both schemes.
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    for (const sel of ['#ver', '#input', '#cap-client']) {
      const r = await contrastOf(page.locator(sel), '::placeholder');
      assert.ok(r >= 4.5, `${colorScheme}: ${sel}'s placeholder contrast is ${r.toFixed(2)}`);
    }
  }
  // The hex dump's name goes with a role.
  assert.equal(await page.getAttribute('#hex', 'role'), 'group');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('#12: the storage view\'s record JSON, a box that scrolls, takes the focus', { timeout: 180_000 }, async () => {
  const page = await open();
  const dir = join(root, 'testdata', 'storage', 'logdir', '__consumer_offsets-7');
  await page.setInputFiles('#file', ['00000000000000000000.log', '00000000000000000000.index', '00000000000000000000.timeindex', 'leader-epoch-checkpoint'].map((f) => join(dir, f)));
  await page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelector('#st-record pre.pg-st-text') &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  const pre = await page.$eval('#st-record pre.pg-st-text', (p) => [p.tabIndex, p.getAttribute('role'), p.getAttribute('aria-label')]);
  assert.deepEqual(pre, [0, 'region', 'record as JSON']);
  // One tab stop among the records.
  assert.equal(await page.$$eval('#st-table tbody tr', (rows) => rows.filter((r) => r.tabIndex >= 0).length), 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});
