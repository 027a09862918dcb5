// Kafka's storage files in the playground (issue 20), in real Chromium:
// a partition's files opened together read as a table of records, each
// file's problems flagged (an index entry that points into a batch, a torn
// tail), a record's key and value drawn as a byte grid and a tree, an
// internal topic's decoded through Kafka's schemas (testdata/storage, see
// its README). storage.wasm loads only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { session, axe, root } from './helpers-playground.mjs';
import { bigSegment } from './bigsegment.mjs';

const data = join(root, 'testdata', 'storage');

const pg = session();
const { open } = pg;

async function openFiles(page, files) {
  await page.setInputFiles('#file', files.map((f) => join(data, f)));
  // The records show as they are read (the status says how far): the
  // files are read once the status says something else.
  await page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelectorAll('#st-record section').length > 0 &&
    !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
}

const rows = (page) => page.$$eval('#st-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

test('a segment of orders with its indexes: every record in the table, the first drawn, no problem', { timeout: 180_000 }, async () => {
  const page = await open();
  assert.ok(!page.wasm.includes('storage.wasm'), 'storage.wasm loads only for storage files');
  const t0 = Date.now();
  await openFiles(page, ['logdir/orders-0/00000000000000000000.log', 'logdir/orders-0/00000000000000000000.index', 'logdir/orders-0/00000000000000000000.timeindex']);
  console.log('storage: the first batch on screen ' + (Date.now() - t0) + ' ms after opening (storage.wasm loaded then)');
  assert.ok(page.wasm.includes('storage.wasm'));
  const rs = await rows(page);
  assert.equal(rs.length, 24, 'the segment holds offsets 0-23');
  assert.equal(rs[0][0], '0');
  assert.match(rs[0][1], /^1700000000000 \(2023-11-14 22:13:20\.000 UTC\)$/);
  assert.equal(rs[0][2], 'c-000');
  assert.match(rs[0][3], /^\{"order":0,"customer":"c-000"/);
  assert.equal(rs[0][4], 'trace-id=0000000000000000, source=checkout');
  assert.equal(rs[23][0], '23', 'records of zstd, lz4, snappy and gzip batches too');
  assert.match(await page.textContent('#status'), /no problem found/);
  assert.equal(await page.$$eval('#st-files li.pg-st-bad', (l) => l.length), 0);
  // The first record's key and value as grids and trees.
  const parts = await page.$$eval('#st-record section', (ss) => ss.map((s) => ({
    title: s.querySelector('h3').textContent, cells: s.querySelectorAll('.kw-cell').length, tree: [...s.querySelectorAll('.pg-st-tree li')].map((l) => l.textContent),
  })));
  assert.deepEqual(parts.map((p) => p.title), ['key', 'value']);
  assert.ok(parts[0].cells >= 2 && parts[0].tree[0].startsWith('key'), JSON.stringify(parts[0]));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('__consumer_offsets: keys and values decoded by their schemas, the topic guessed from the records', { timeout: 180_000 }, async () => {
  const page = await open();
  await openFiles(page, ['logdir/__consumer_offsets-7/00000000000000000000.log']);
  assert.match(await page.textContent('#st-title'), /topic __consumer_offsets \(guessed/);
  const rs = await rows(page);
  assert.equal(rs[0][2], '{"group":"billing"}');
  assert.match(rs[0][3], /"protocolType":"consumer"/);
  assert.ok(rs.some((r) => r[3] === 'null (tombstone)'), 'the tombstone');
  assert.ok(rs.some((r) => r[6] === 'COMMIT'), 'the transaction marker');
  // The group metadata's value tree names its fields, the members'
  // consumer-protocol bytes decoded.
  const tree = await page.$$eval('#st-record section:nth-of-type(2) .pg-st-tree li', (l) => l.map((x) => x.textContent));
  assert.ok(tree.some((l) => /^protocolType string \[\d+, \d+\) = "consumer"$/.test(l)), tree.join('\n'));
  assert.ok(tree.some((l) => /^topics \[\]string/.test(l)), 'the subscription decoded');
  assert.match(await page.textContent('#st-record pre'), /"valueSchema": "GroupMetadataValue"/);
  // Picking another record draws it.
  await page.click('#st-table tbody tr:nth-child(3)');
  await page.waitForFunction(() => /OffsetCommitValue/.test(document.querySelector('#st-record pre')?.textContent || ''));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an index pointing into a batch and a torn tail are flagged', { timeout: 180_000 }, async () => {
  const page = await open();
  await openFiles(page, ['broken/wrong-index/00000000000000000000.log', 'broken/wrong-index/00000000000000000000.index']);
  const bad = await page.$$eval('#st-files li.pg-st-bad', (l) => l.map((x) => x.textContent));
  assert.equal(bad.length, 1, bad.join('\n'));
  assert.match(bad[0], /00000000000000000000\.index.*entry 3: position 1852 is not the start of an entry of the segment \(it is inside the entry at 1851\)/s);
  assert.match(await page.textContent('#status'), /1 problem found/);
  const badEntries = await page.$$eval('.pg-st-entries tr.pg-st-bad', (l) => l.length);
  assert.equal(badEntries, 1);
  await page.close();

  const torn = await open();
  await openFiles(torn, ['broken/torn-tail/00000000000000000000.log']);
  const flagged = await torn.$$eval('#st-files li.pg-st-bad', (l) => l.map((x) => x.textContent));
  assert.match(flagged.join('\n'), /torn tail at position 1851 \(161 bytes, after 4 entries\)/);
  assert.equal((await rows(torn)).length, 19, 'the records before the tail');
  assert.deepEqual(torn.errors, []);
  assert.deepEqual(await axe(torn, { include: ['#storage'] }), []);
  await torn.close();
});

// A segment as big as a busy partition's (Kafka's default is 1 GiB; here
// 256 MiB, some 765,000 records) is read in slices by the worker: the
// first records are on screen while the rest is read (the status says how
// far), storage.wasm's memory stays far below the file's size (it held
// the file whole, and grew to 434 MiB for this one, before), and every
// record is counted past the 20,000 listed.
test('a 256 MiB segment streams: its first records on screen at once, the module\'s memory flat, every record counted', { timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kwire-bigsegment-'));
  try {
    const path = join(dir, '00000000000000000000.log');
    const seg = await bigSegment(path, 256 << 20);
    const page = await open();
    const t0 = Date.now();
    await page.setInputFiles('#file', [path]);
    const first = await page.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length > 0 && document.getElementById('status').textContent, null, { timeout: 120_000, polling: 20 });
    const firstMs = Date.now() - t0;
    const reading = await first.jsonValue();
    const mb = (n) => (n / 1e6).toFixed(1) + ' MB';
    assert.match(reading, new RegExp('^Reading 1 storage file: [\\d.]+ MB of ' + mb(seg.size).replace('.', '\\.') + ', [\\d,]+ records? listed so far'), 'the first records show while the rest is read');
    const top = (await rows(page))[0];
    assert.equal(top[0], '0');
    assert.equal(top[2], 'c-000');
    assert.match(top[3], /^\{"order":0,"customer":"c-000"/);
    await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 150_000 });
    const doneMs = Date.now() - t0;
    console.log('storage: a ' + mb(seg.size) + ' segment\'s first batch on screen ' + firstMs + ' ms after opening, all ' + seg.records.toLocaleString('en') + ' records read in ' + doneMs + ' ms');
    assert.equal(await page.textContent('#st-title'), '1 storage file, ' + seg.records.toLocaleString('en') + ' records');
    assert.equal(await page.textContent('#st-count'), 'showing the first 20,000 of ' + seg.records.toLocaleString('en') + ' (the rest are counted, not listed)');
    const listed = await page.$$eval('#st-table tbody tr', (trs) => [trs.length, trs[trs.length - 1].cells[0].textContent]);
    assert.deepEqual(listed, [20000, '19999']);
    assert.match(await page.textContent('#st-files'), new RegExp(seg.batches + ' batches'));
    // A WebAssembly memory only grows: its size now is its peak.
    let memory = 0;
    for (const w of page.workers()) memory = Math.max(memory, await w.evaluate(() => self.kwireMemory?.['storage.wasm']?.buffer.byteLength || 0));
    console.log('storage: storage.wasm memory ' + (memory / 2 ** 20).toFixed(1) + ' MiB for the ' + mb(seg.size) + ' segment');
    assert.ok(memory > 0 && memory < 128 * 2 ** 20, 'storage.wasm memory ' + memory);
    assert.equal((await page.$$('#st-record section')).length, 2, 'the first record drawn');
    assert.deepEqual(page.errors, []);
    await page.close();

    // Other files opened while it is read replace it: the big one's read
    // stops, and nothing of it stays on screen.
    const again = await open();
    await again.setInputFiles('#file', [path]);
    await again.waitForFunction(() => document.querySelectorAll('#st-table tbody tr').length > 0, null, { timeout: 120_000 });
    assert.match(await again.textContent('#status'), /^Reading 1 storage file: /);
    await openFiles(again, ['logdir/orders-0/00000000000000000000.log', 'logdir/orders-0/00000000000000000000.index']);
    assert.equal(await again.textContent('#st-title'), '2 storage files, 24 records');
    assert.equal((await rows(again)).length, 24);
    assert.match(await again.textContent('#status'), /no problem found/);
    assert.deepEqual(again.errors, []);
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// The 20,000 records listed of a segment of some 30,000: a table that
// fits its columns to every cell cost Chromium 2.5 to 10 s of layout for
// them, a freeze. The rows come in bodies of at most 250, each skipped
// while off screen (content-visibility), the columns fixed by the text
// listed; the rows are still a table's rows, every one in the page (find
// in page reaches them), and the keys, clicks and aria-current work
// across the bodies, into bodies never drawn.
test('20,000 records listed: rows in bodies skipped off screen, cheap to lay out, the keys walk across them', { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kwire-chunks-'));
  try {
    const path = join(dir, '00000000000000000000.log');
    const seg = await bigSegment(path, 10 << 20);
    const page = await open();
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); }).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await page.setInputFiles('#file', [path]);
    await page.waitForFunction(() => /no problem found/.test(document.getElementById('status').textContent) && document.querySelectorAll('#st-record section').length === 2,
      null, { timeout: 150_000, polling: 20 });
    const listedMs = Date.now() - t0;
    assert.equal(await page.textContent('#st-count'), 'showing the first 20,000 of ' + seg.records.toLocaleString('en') + ' (the rest are counted, not listed)');
    const shape = await page.evaluate(() => {
      const t = document.getElementById('st-table');
      const bodies = [...t.tBodies];
      return {
        rows: t.querySelectorAll('tbody tr').length, bodies: bodies.length, most: Math.max(...bodies.map((b) => b.rows.length)),
        skipped: bodies.filter((b) => getComputedStyle(b).contentVisibility === 'auto').length,
        last: bodies.at(-1).rows[bodies.at(-1).rows.length - 1].cells[0].textContent,
        stops: t.querySelectorAll('tr[tabindex="0"]').length,
        // The rows of bodies not drawn are not in the accessibility tree:
        // the table says how many it has, each row its place.
        rowCount: t.getAttribute('aria-rowcount'), headIndex: t.tHead.rows[0].getAttribute('aria-rowindex'),
        indexes: [...t.querySelectorAll('tbody tr')].every((tr, i) => tr.getAttribute('aria-rowindex') === String(i + 2)),
      };
    });
    assert.deepEqual(shape, { rows: 20000, bodies: 80, most: 250, skipped: 80, last: '19999', stops: 1, rowCount: '20001', headIndex: '1', indexes: true });
    // The table laid out afresh, its bodies put back, as when listed.
    const layout = await page.evaluate(() => {
      const t = document.getElementById('st-table');
      const bodies = [...t.tBodies];
      for (const b of bodies) b.remove();
      void t.offsetHeight;
      const s = performance.now();
      for (const b of bodies) t.appendChild(b);
      void t.offsetHeight;
      return performance.now() - s;
    });
    const longest = Math.max(0, ...await page.evaluate(() => window.longTasks));
    console.log('storage: 20,000 of ' + seg.records.toLocaleString('en') + ' records listed in ' + listedMs + ' ms; the longest main-thread task meanwhile ' +
      Math.round(longest) + ' ms; the table laid out afresh in ' + layout.toFixed(1) + ' ms');
    // End: the last row, in a body never drawn, focused, current, drawn;
    // Home and a click back to the first.
    const at = (offset) => page.waitForFunction((o) => {
      const tr = document.activeElement;
      return tr && tr.cells && tr.cells[0].textContent === o && tr.hasAttribute('aria-current') && document.querySelectorAll('#st-table tr[aria-current]').length === 1 &&
        tr.tabIndex === 0 && document.querySelectorAll('#st-table tr[tabindex="0"]').length === 1 &&
        (document.querySelector('#st-record section .pg-st-tree li')?.textContent || '').endsWith('= "' + tr.cells[2].textContent + '" (5 bytes)');
    }, String(offset), { timeout: 20_000 });
    await page.focus('#st-table tbody tr');
    await page.keyboard.press('End');
    await at(19999);
    const seen = await page.evaluate(() => {
      const box = document.querySelector('#st-table').closest('.pg-capbox').getBoundingClientRect(), r = document.activeElement.getBoundingClientRect();
      return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    });
    assert.ok(seen, 'the last row scrolled into view');
    await page.keyboard.press('ArrowUp');
    await at(19998);
    await page.keyboard.press('PageUp');
    await at(19988);
    // Across a body's edge: rows 250 and 249 are in different bodies.
    await page.focus('#st-table tbody:nth-of-type(2) tr');
    await page.keyboard.press('ArrowUp');
    await at(249);
    await page.keyboard.press('ArrowDown');
    await at(250);
    await page.keyboard.press('Home');
    await at(0);
    await page.click('#st-table tbody:nth-of-type(2) tr:nth-child(3)');
    await page.waitForFunction(() => document.querySelector('#st-table tr[aria-current]')?.cells[0].textContent === '252' &&
      document.querySelector('#st-record section .pg-st-tree li')?.textContent.endsWith('= "c-052" (5 bytes)'), null, { timeout: 20_000 });
    // Columns line up: every row of a body drawn has the head's widths.
    const aligned = await page.evaluate(() => {
      const w = (tr) => [...tr.cells].map((c) => Math.round(c.getBoundingClientRect().width));
      const head = w(document.querySelector('#st-table thead tr'));
      return [...document.querySelectorAll('#st-table tbody:nth-of-type(2) tr')].every((tr) => w(tr).join() === head.join());
    });
    assert.ok(aligned, 'the rows have the columns of the head');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// Checkpoint files hold nothing but their entries: the file's line says
// how many, and they show at once as kwire log lists them (line, then the
// entry's fields), not as "[object Object] entries".
test('checkpoints: their entries counted and listed', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.setInputFiles('#file', ['logdir/orders-0/leader-epoch-checkpoint', 'logdir/replication-offset-checkpoint'].map((f) => join(data, f)));
  await page.waitForFunction(() => !document.getElementById('storage').hidden && /no problem found/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
  const files = await page.$$eval('#st-files > li', (lis) => lis.map((li) => ({
    line: li.querySelector('strong').textContent + li.querySelector('.pg-muted').textContent,
    open: li.querySelector('details')?.open,
    rows: [...li.querySelectorAll('.pg-st-entries tr')].filter((tr) => tr.checkVisibility()).map((tr) => [...tr.cells].map((c) => c.textContent).join(' | ')),
  })));
  assert.deepEqual(files, [
    { line: 'leader-epoch-checkpoint leader-epoch-checkpoint · 13 bytes · 2 entries · no segment among the files to check it against', open: true,
      rows: ['line | epoch | startOffset | problem', '3 | 0 | 0 | ', '4 | 1 | 24 | '] },
    { line: 'replication-offset-checkpoint offset-checkpoint · 64 bytes · 3 entries', open: true,
      rows: ['line | topic | partition | offset | problem', '3 | orders | 0 | 42 | ', '4 | __consumer_offsets | 7 | 10 | ', '5 | __transaction_state | 0 | 2 | '] },
  ]);
  assert.doesNotMatch(await page.textContent('#st-files'), /object Object/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The records table walks by keyboard as the capture's exchanges do: the
// arrows, Page Up and Down, Home and End move to a record and draw it;
// Space and Enter draw the focused one.
test('the records table: arrow keys, Page Up/Down, Home, End and Space', { timeout: 180_000 }, async () => {
  const page = await open();
  await openFiles(page, ['logdir/orders-0/00000000000000000000.log']);
  const drawnKey = () => page.$eval('#st-record section .pg-st-tree li', (li) => li.textContent);
  const at = async (offset) => {
    await page.waitForFunction((o) => {
      const tr = document.activeElement;
      // The row focused and marked current, its key the one drawn.
      return tr && tr.dataset.record !== undefined && tr.cells[0].textContent === o && tr.hasAttribute('aria-current') &&
        (document.querySelector('#st-record section .pg-st-tree li')?.textContent || '').endsWith('= "' + tr.cells[2].textContent + '" (5 bytes)');
    }, String(offset), { timeout: 10_000 }).catch(async () => assert.fail('not at offset ' + offset + ': focused ' +
      await page.evaluate(() => document.activeElement.textContent.slice(0, 40)) + ', drawn ' + await drawnKey()));
  };
  await page.focus('#st-table tbody tr:first-child');
  await page.keyboard.press('ArrowDown');
  await at(1);
  await page.keyboard.press('ArrowDown');
  await at(2);
  await page.keyboard.press('ArrowUp');
  await at(1);
  await page.keyboard.press('PageDown');
  await at(11);
  await page.keyboard.press('End');
  await at(23);
  await page.keyboard.press('PageUp');
  await at(13);
  await page.keyboard.press('Home');
  await at(0);
  await page.keyboard.press('ArrowUp');
  await at(0);
  // Space on a row Tab reached (not drawn yet) draws it, and scrolls nothing.
  await page.click('#st-table tbody tr:nth-child(6)');
  await page.focus('#st-table tbody tr:nth-child(4)');
  const y = await page.evaluate(() => scrollY);
  await page.keyboard.press(' ');
  await at(3);
  assert.equal(await page.evaluate(() => scrollY), y);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// "Open file…" and "Open schema files…" are labels around hidden file
// inputs: focus from the keyboard outlines the label; a click does not.
test('the file inputs show keyboard focus on their labels', { timeout: 120_000 }, async () => {
  const page = await open();
  await page.evaluate(() => { document.getElementById('pay').open = true; });
  const outline = (sel) => page.$eval(sel, (i) => { const s = getComputedStyle(i.closest('label')); return s.outlineStyle === 'none' ? 'none' : s.outlineStyle + ' ' + s.outlineWidth; });
  for (const id of ['#file', '#pay-files']) {
    // The element before it in the tab order, then Tab.
    await page.evaluate((sel) => {
      const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter((e) => e.tabIndex >= 0 && !e.disabled && e.checkVisibility({ visibilityProperty: true }) || e.matches(sel));
      const i = all.indexOf(document.querySelector(sel));
      all[i - 1].focus();
    }, id);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => '#' + document.activeElement.id), id, 'Tab reaches ' + id);
    assert.equal(await outline(id), 'solid 2px', id + ' focused from the keyboard');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await outline(id), 'none', id + ' no longer focused');
  }
  // Focus that follows a click on the label (the file dialog, closed) shows none.
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('label.pg-file:has(#file)')]);
  await chooser.setFiles([]);
  await page.evaluate(() => document.getElementById('file').focus());
  assert.equal(await page.evaluate(() => document.activeElement.id), 'file');
  assert.equal(await outline('#file'), 'none', 'focus after a click');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a segment under a name of its own is read as a segment, by its bytes; a frame file stays a frame', { timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kwire-seg-'));
  try {
    const seg = join(dir, 'orders-segment.log');
    await copyFile(join(data, 'logdir/orders-0/00000000000000000000.log'), seg);
    const page = await open();
    await page.setInputFiles('#file', [seg]);
    await page.waitForFunction(() => !document.getElementById('storage').hidden && document.querySelectorAll('#st-record section').length > 0 &&
      !/^Reading/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
    assert.equal((await rows(page)).length, 24, 'the segment holds offsets 0-23');
    // An ApiVersions request saved as a binary file is still a frame.
    const frame = join(dir, 'request.bin');
    await writeFile(frame, Buffer.from('0000001b001200030000000700056b7769726500066b7769726504312e3000', 'hex'));
    await page.setInputFiles('#file', [frame]);
    await page.waitForFunction(() => /ApiVersions v3 request/.test(document.getElementById('status').textContent), null, { timeout: 60_000 });
    assert.ok(await page.$eval('#storage', (e) => e.hidden));
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
