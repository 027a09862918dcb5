// Encode mode's state, in real Chromium: a big frame's JSON put in the
// text box without holding the page up, the user's edits kept across a
// trip to decode mode and given back after an example replaced them, and
// the selection bar belonging to the mode on screen. Timings are printed
// for the report; the limits asserted are what a user notices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { session } from './helpers-playground.mjs';

// ApiVersions v3 request, clientId "kwire", as the other tests use it.
const QUICK = '0000001b001200030000000700056b7769726500066b7769726504312e3000';

const pg = session({ contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] } });
const { open } = pg;

async function decoded(page, act) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await act();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 120_000 });
}

// encoded runs act and waits for the encode it leads to (bytes or an error).
async function encoded(page, act) {
  const before = await page.evaluate(() => (document.body.dataset.encoded || '') + '/' + (document.body.dataset.encError || ''));
  await act();
  await page.waitForFunction((b) => (document.body.dataset.encoded || '') + '/' + (document.body.dataset.encError || '') !== b, before, { timeout: 120_000 });
}

const encStatus = (page) => page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent), null, { timeout: 120_000 });

test('encode mode: "Edit it here" on a 1 MB frame\'s JSON keeps the page answering; edits in a window go into the whole JSON', { timeout: 300_000 }, async () => {
  const page = await open();
  await page.selectOption('#dir', 'response');
  await page.selectOption('#api', '1');
  await page.fill('#ver', '12');
  await page.$eval('#ver', (e) => e.blur()); // its change event would decode again later
  await decoded(page, () => page.setInputFiles('#file', join(pg.built.inputs, 'big-fetch.bin')));
  await page.click('#mode-encode');
  await encStatus(page);
  const whole = await page.evaluate(() => window.kwirePlayground.encText.text.length);
  assert.ok(whole > 4 << 20, 'the frame\'s JSON is megabytes: ' + whole);
  // Click, then watch the page for 1.5 s: a timer every 10 ms, and every
  // task over 50 ms (the 800 ms an encode waits for typing to pause
  // included, should one follow).
  const r = await page.evaluate(async () => {
    const tasks = [];
    const po = new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push(Math.round(e.duration)); });
    po.observe({ type: 'longtask' });
    const gaps = [];
    let last = performance.now(), on = true;
    const tick = () => { const n = performance.now(); gaps.push(n - last); last = n; if (on) setTimeout(tick, 10); };
    setTimeout(tick, 10);
    const t0 = performance.now();
    document.getElementById('enc-big-edit').click();
    const click = performance.now() - t0;
    await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
    const painted = performance.now() - t0;
    await new Promise((res) => setTimeout(res, 1500));
    on = false;
    po.disconnect();
    const ta = document.getElementById('enc-json');
    return { click, painted, maxGap: Math.max(...gaps), tasks, box: ta.value.length, first: ta.value.slice(0, 200), lines: document.getElementById('enc-lines').textContent.trim().split('\n').slice(0, 2) };
  });
  console.log('playground: "Edit it here" on ' + whole + ' characters of JSON: the click ' + Math.round(r.click) + ' ms, painted after ' + Math.round(r.painted) +
    ' ms, longest timer gap ' + Math.round(r.maxGap) + ' ms, long tasks ' + JSON.stringify(r.tasks));
  // The times are printed, not judged: a timed test measures the machine
  // (these failed on a loaded one at 386 ms). What keeps the page
  // answering is judged: the box holds a window of the JSON, not its
  // megabytes, and its line numbers are the window's.
  assert.ok(r.box > 1000 && r.box <= 60_000, 'the box holds a window of the JSON: ' + r.box);
  assert.ok(r.first.startsWith('{\n  "direction": "response"'), r.first);
  assert.deepEqual(r.lines, ['1', '2']);
  assert.match(await page.textContent('#enc-big-text'), /^Lines 1–[\d,]+ of [\d,]+ of this frame's JSON are in the box/);
  assert.equal(await page.isDisabled('#enc-win-prev'), true);

  // The next window: the gutter numbers its lines as the whole JSON's.
  const w1 = await page.evaluate(() => ({ ...window.kwirePlayground.encText.win }));
  await page.click('#enc-win-next');
  const w2 = await page.evaluate(() => ({ ...window.kwirePlayground.encText.win }));
  assert.equal(w2.line, w1.line + w1.lines);
  assert.equal(w2.from, w1.to + 1);
  assert.equal((await page.textContent('#enc-lines')).trim().split('\n')[0], String(w2.line + 1));
  assert.equal(await page.inputValue('#enc-json'), await page.evaluate(() => { const t = window.kwirePlayground.encText; return t.text.slice(t.win.from, t.win.to); }));
  // A space typed at the window's start goes into the whole JSON, which
  // is encoded again (the same frame: a space is no change to JSON).
  const before = await page.evaluate(() => window.kwirePlayground.encText.text);
  await page.focus('#enc-json');
  await page.$eval('#enc-json', (t) => t.setSelectionRange(0, 0));
  await encoded(page, () => page.keyboard.type(' '));
  await encStatus(page);
  const after = await page.evaluate(() => window.kwirePlayground.encText.text);
  assert.equal(after, before.slice(0, w2.from) + ' ' + before.slice(w2.from));
  assert.equal(await page.evaluate(() => window.kwirePlayground.encoded.length), pg.built.manifest.bigFetch.bytes);
  await page.click('#enc-copy-json');
  assert.equal(await page.evaluate(() => window.kwirePlayground.copied.length), before.length + 1);
  // Back a window: the first lines again.
  await page.click('#enc-win-prev');
  assert.equal(await page.evaluate(() => window.kwirePlayground.encText.win.from), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('encode mode keeps the user\'s edits across decode mode; an example over them can be undone', { timeout: 120_000 }, async () => {
  const page = await open();
  await decoded(page, () => page.fill('#input', QUICK));
  await page.click('#mode-encode');
  await encStatus(page);
  const frame = await page.inputValue('#enc-json');
  assert.match(frame, /"clientId": "kwire"/);
  const edited = frame.replace('"clientId": "kwire"', '"clientId": "edited-by-me"');
  await encoded(page, () => page.fill('#enc-json', edited));
  await encStatus(page);
  // Encode → Decode → Encode: the edit is there, and it is what is encoded.
  await page.click('#mode-decode');
  await page.click('#mode-encode');
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('#enc-json'), edited);
  await encStatus(page);
  assert.match(await page.textContent('#enc-hex'), /6564697465642d62792d6d65/); // "edited-by-me"
  // "Decode these bytes" and back: the JSON as the user wrote it.
  await decoded(page, () => page.click('#enc-decode'));
  await page.click('#mode-encode');
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('#enc-json'), edited);
  // Load example: the example replaces the edits, with a way back.
  await page.selectOption('#ex-api', '3');
  await page.fill('#ex-ver', '12');
  await encoded(page, () => page.click('#ex-load'));
  assert.match(await page.inputValue('#enc-json'), /"apiKey": 3/);
  assert.ok(await page.isVisible('#enc-undo'), 'the page says the edits were replaced');
  assert.match(await page.textContent('#enc-undo'), /The example replaced your edited JSON/);
  await encoded(page, () => page.click('#enc-undo-button'));
  assert.equal(await page.inputValue('#enc-json'), edited);
  assert.equal(await page.isVisible('#enc-undo'), false);
  await encStatus(page);
  // An example over JSON nobody edited replaces it without a word.
  await encoded(page, () => page.click('#ex-load'));
  await encoded(page, () => page.click('#ex-load'));
  assert.equal(await page.isVisible('#enc-undo'), false);
  // A new frame decoded meanwhile is taken, edits or not (with a way back).
  await page.fill('#enc-json', edited);
  await page.click('#mode-decode');
  await decoded(page, () => page.fill('#input', QUICK.replace('6b77697265', '6b77697266'))); // clientId "kwirf"
  await page.click('#mode-encode');
  await page.waitForFunction(() => /"kwirf"/.test(document.getElementById('enc-json').value));
  assert.ok(await page.isVisible('#enc-undo'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the selection bar belongs to its mode: encode mode\'s selection shows there, and only there', { timeout: 120_000 }, async () => {
  const page = await open();
  await decoded(page, () => page.fill('#input', QUICK));
  await page.click('#mode-encode');
  await encStatus(page);
  await page.waitForSelector('#enc-grids .kw-cell');
  await page.click('#enc-grids .kw-cell:has(.kw-label:text-is("clientId"))');
  await page.waitForFunction(() => window.kwirePlayground.panels[2].sel && /clientId/.test(document.getElementById('sel-desc').textContent));
  // Decode mode: nothing selected there, no bar.
  await page.click('#mode-decode');
  assert.equal(await page.isVisible('#selbar'), false, 'encode mode\'s selection bar shows in decode mode: ' + await page.textContent('#sel-desc'));
  // Encode mode: its selection, in its bar.
  await page.click('#mode-encode');
  assert.ok(await page.isVisible('#selbar'), 'encode mode shows its selection');
  const encDesc = await page.textContent('#sel-desc');
  assert.match(encDesc, /clientId {2}\[12, 19\)/);
  await page.click('#mode-decode');
  // A selection of decode mode's own, then back to encode mode's.
  await page.click('#grids .kw-cell:has(.kw-label:text-is("correlationId"))');
  await page.waitForFunction(() => /correlationId/.test(document.getElementById('sel-desc').textContent));
  await page.click('#mode-encode');
  assert.ok(await page.isVisible('#selbar'));
  assert.equal(await page.textContent('#sel-desc'), encDesc);
  // Its buttons copy encode mode's selection: the client id's bytes.
  await page.click('#copy-hex');
  await page.waitForFunction(() => window.kwirePlayground.copied !== null);
  assert.equal(await page.evaluate(() => window.kwirePlayground.copied), '00056b77697265');
  await page.click('#mode-decode');
  assert.match(await page.textContent('#sel-desc'), /correlationId/);
  await page.click('#copy-hex');
  await page.waitForFunction(() => window.kwirePlayground.copied === '00000007');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Issue: the page froze for minutes after the copy buttons were used on a
// 1 MB frame. Copy JSON of its root copies the node's annotated JSON, 40
// MB in 712,000 lines; pasted into encode mode and put in the box ("Edit
// it here anyway"), the line numbers read the box's value once a line:
// the click held the page for 27-42 s and each keystroke for 13 s more.
test('Copy JSON of a 1 MB frame\'s root, pasted into encode mode and edited there: the page keeps answering', { timeout: 300_000 }, async () => {
  const page = await open();
  await page.selectOption('#dir', 'response');
  await page.selectOption('#api', '1');
  await page.fill('#ver', '12');
  await page.$eval('#ver', (e) => e.blur());
  await decoded(page, () => page.setInputFiles('#file', join(pg.built.inputs, 'big-fetch.bin')));
  await page.click('#tree .pg-row >> nth=0');
  await page.waitForFunction(() => /\[0, /.test(document.getElementById('sel-desc').textContent));
  await page.click('#copy-json');
  await page.waitForFunction(() => window.kwirePlayground.copied, null, { timeout: 120_000 });
  const copied = await page.evaluate(() => window.kwirePlayground.copied.length);
  assert.ok(copied > 20 << 20, 'the root\'s annotated JSON: ' + copied);
  await page.click('#mode-encode');
  await encStatus(page);
  await page.focus('#enc-json');
  await page.keyboard.press('Control+V');
  await page.waitForFunction(() => /^The pasted JSON: /.test(document.getElementById('enc-json').placeholder), null, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => window.kwirePlayground.encText.text.length), copied);
  await page.waitForFunction(() => document.body.dataset.encError, null, { timeout: 120_000 }); // annotated JSON is no value JSON
  // The click, then a keystroke in the box and the encode it leads to,
  // watched for long tasks.
  await page.evaluate(() => {
    window.tasks = [];
    window.po = new PerformanceObserver((l) => { for (const e of l.getEntries()) window.tasks.push(Math.round(e.duration)); });
    window.po.observe({ type: 'longtask' });
  });
  const click = await page.evaluate(async () => {
    const t = performance.now();
    document.getElementById('enc-big-edit').click();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t;
  });
  const clickTasks = await page.evaluate(() => window.tasks.splice(0));
  await page.$eval('#enc-json', (t) => { t.focus(); t.setSelectionRange(0, 0); });
  const t0 = Date.now();
  await encoded(page, () => page.keyboard.type('x'));
  const typedMs = Date.now() - t0;
  const typeTasks = await page.evaluate(() => window.tasks.splice(0));
  console.log('playground: 40 MB of copied JSON in encode mode: "Edit it here" ' + Math.round(click) + ' ms to a painted frame (tasks ' + JSON.stringify(clickTasks) +
    '), a keystroke to its encode ' + typedMs + ' ms (tasks ' + JSON.stringify(typeTasks) + ')');
  // The times are printed, not judged (a timed test measures the machine:
  // the keystroke's tasks were [1716,315] on a loaded one, 0.5 s on a
  // quiet one, 13 s before the fix). What the freeze came from is judged:
  // the box holds a window of the 40 MB, and the line numbers, which read
  // the box's value once a line, are the window's.
  const shown = await page.evaluate(() => ({ box: document.getElementById('enc-json').value.length, lines: document.getElementById('enc-lines').textContent.trim().split('\n').length }));
  assert.ok(shown.box > 1000 && shown.box <= 60_000, 'the box holds a window of the JSON: ' + shown.box);
  assert.ok(shown.lines >= 2 && shown.lines <= 5_000, 'the line numbers are the window\'s: ' + shown.lines);
  assert.equal(await page.evaluate(() => window.kwirePlayground.encText.text.length), copied + 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('encode mode names the fields the JSON leaves out, written as their defaults', { timeout: 120_000 }, async () => {
  const json = '{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire"}}';
  const page = await open('#mode=encode&json=' + encodeURIComponent(json));
  await page.waitForFunction(() => /decoded back below/.test(document.getElementById('enc-status').textContent), null, { timeout: 120_000 });
  assert.equal(await page.textContent('#enc-status'),
    "28 bytes; decoded back below. Not given, written as its default (Kafka's JSON reader requires it): body.clientSoftwareVersion");
  // Given, it is said no more.
  await encoded(page, () => page.fill('#enc-json', json.replace('"clientSoftwareName":"kwire"', '"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"')));
  await encStatus(page);
  assert.equal(await page.textContent('#enc-status'), '31 bytes; decoded back below');
  assert.deepEqual(page.errors, []);
  await page.close();
});
