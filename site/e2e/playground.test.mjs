// The playground in real Chromium (Debian's, through playwright-core):
// every input shape, linked highlighting, captures, permalinks, encode mode,
// untrusted text, malformed frames and the 1 MiB Fetch response. The test
// builds the WebAssembly modules itself and serves the page from a temporary
// directory on 127.0.0.1 under a path prefix, as the docs site does.
// Screenshots go to test-results/playground/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, serve, launch, root } from './helpers-playground.mjs';

const shots = join(root, 'test-results', 'playground');
const QUICK = '0000001c001200030000000700056b7769726500076b776972652004312e3000';
const quickBytes = Buffer.from(QUICK, 'hex');

let built, server, browser, context;

before(async () => {
  mkdirSync(shots, { recursive: true });
  built = await build();
  server = await serve(built.site);
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
}, { timeout: 600_000 });

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(hash = '') {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  await page.goto(server.url + hash);
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
  return page;
}

// decoded runs act and waits until the page has drawn a new decode.
async function decoded(page, act) {
  const before = await page.evaluate(() => document.body.dataset.decoded || '');
  await act();
  await page.waitForFunction((b) => (document.body.dataset.decoded || '') !== b, before, { timeout: 60_000 });
  // Let the virtual views draw their first windows.
  await page.waitForFunction(() => document.querySelectorAll('#tree .pg-row').length > 0 && document.querySelectorAll('#grids .kw-row').length > 0);
}

const treeText = (page) => page.$eval('#tree', (e) => e.innerText);
const input = (page) => readFileSync(join(built.inputs, page), 'utf8').trim();

function dumps() {
  const tool = (cmd, args) => execFileSync(cmd, args, { input: quickBytes }).toString();
  return [
    ['hex', QUICK],
    ['hex', QUICK.match(/../g).map((b) => '0x' + b).join(', ')],
    ['hex', QUICK.match(/../g).join(':')],
    ['hex-dump-xxd', tool('xxd', [])],
    ['hexdump-C', tool('hexdump', ['-C'])],
    ['od', tool('od', ['-A', 'x', '-t', 'x1z'])],
    ['c-escapes', '"' + QUICK.match(/../g).map((b) => '\\x' + b).join('') + '"'],
    ['base64', quickBytes.toString('base64')],
    ['wireshark', QUICK.match(/.{1,32}/g).map((l, i) => (i * 16).toString(16).padStart(4, '0') + '  ' + l.match(/../g).join(' ')).join('\n')],
  ];
}

test('every pasted input shape decodes to the same values', { timeout: 120_000 }, async () => {
  const page = await open();
  for (const [format, text] of dumps()) {
    await decoded(page, () => page.fill('#input', text));
    const status = await page.textContent('#status');
    assert.match(status, new RegExp('^' + format + ', 32 bytes: ApiVersions v3 request'), 'status for ' + format + ': ' + status);
    const tree = await treeText(page);
    assert.match(tree, /clientId nullable_string = "kwire"/);
    assert.match(tree, /clientSoftwareName compact_string = "kwire "/);
    const cell = await page.$$eval('#grids .kw-cell', (cs) => cs.map((c) => c.textContent));
    assert.ok(cell.includes('clientSoftwareVersion"1.0"'), 'grid cells: ' + cell.join('|'));
    const json = await page.$eval('#json', (e) => e.innerText);
    assert.match(json, /"correlationId": 7/);
  }
  await page.screenshot({ path: join(shots, 'decode-request.png'), fullPage: true });
  // Back-to-back frames (a stream's worth) are listed; each can be picked.
  await decoded(page, () => page.fill('#input', QUICK + input('html.hex')));
  assert.match(await page.textContent('#capture h3'), /^2 frames, back to back/);
  assert.match(await page.textContent('#status'), /frame 1 of 2, 32 bytes: ApiVersions v3 request/);
  await decoded(page, () => page.click('#capture button[data-frame="1"]'));
  assert.match(await page.textContent('#status'), /frame 2 of 2, 134 bytes: ApiVersions v3 request/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('hovering a tree node lights its grid cells and hex bytes; keys and copy work', { timeout: 60_000 }, async () => {
  const page = await open();
  await decoded(page, () => page.fill('#input', QUICK));
  const row = page.locator('#tree .pg-row', { hasText: 'clientId nullable_string' });
  await row.hover();
  await page.waitForSelector('#grids .kw-cell.kw-hl');
  const lit = await page.$$eval('#grids .kw-cell.kw-hl', (cs) => cs.map((c) => [c.querySelector('.kw-label').textContent, +c.dataset.start, +c.dataset.end]));
  // clientId spans [12, 19): its int16 length and its 5 bytes (over two rows).
  assert.deepEqual(lit.map((l) => l[0]).sort(), ['clientId', 'clientId', 'clientId length']);
  for (const [, s, e] of lit) assert.ok(s >= 12 && e <= 19);
  const bytes = await page.$$eval('#hex .pg-byte.pg-hl', (bs) => bs.map((b) => +b.dataset.off));
  assert.deepEqual(bytes, [12, 13, 14, 15, 16, 17, 18]);
  const treeLit = await page.$$eval('#tree .pg-row.pg-hl', (rs) => rs.map((r) => r.innerText));
  assert.equal(treeLit.length, 1);
  await page.screenshot({ path: join(shots, 'hover-tree.png') });

  // Hovering a grid cell lights the tree node.
  await page.hover('#grids .kw-cell:has(.kw-label:text-is("correlationId"))');
  await page.waitForFunction(() => /correlationId/.test((document.querySelector('#tree .pg-row.pg-hl') || {}).innerText || ''));

  // Select with a click, then move with the keyboard.
  await row.click();
  await page.waitForFunction(() => /clientId/.test(document.getElementById('sel-desc').textContent));
  await page.focus('#tree');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => /_tagged|tagged/.test(document.getElementById('sel-desc').textContent));
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => /clientId/.test(document.getElementById('sel-desc').textContent));
  await page.click('#copy-hex');
  await page.waitForFunction(() => window.kwirePlayground.copied === '00056b77697265');
  await page.click('#copy-b64');
  await page.waitForFunction(() => window.kwirePlayground.copied === 'AAVrd2lyZQ==');
  await page.click('#copy-json');
  await page.waitForFunction(() => /"value": "kwire"/.test(window.kwirePlayground.copied || ''));
  // Collapse and expand the header with the keyboard.
  await page.locator('#tree .pg-row', { hasText: 'header RequestHeader' }).click();
  await page.focus('#tree');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => !/requestApiKey/.test(document.getElementById('tree').innerText));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /requestApiKey/.test(document.getElementById('tree').innerText));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a dropped pcap lists its exchanges and decodes the one picked', { timeout: 60_000 }, async () => {
  const page = await open();
  const pcap = readFileSync(join(root, 'testdata', 'captures', 'kafka.pcap'));
  await decoded(page, async () => {
    const dt = await page.evaluateHandle((b64) => {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'kafka.pcap', { type: 'application/vnd.tcpdump.pcap' }));
      return dt;
    }, pcap.toString('base64'));
    await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
    await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
  });
  const list = await page.$eval('#capture', (e) => e.innerText);
  assert.match(list, /Capture: \d+ packets, 2 Kafka connection/);
  assert.match(list, /ApiVersions v3/);
  assert.match(list, /Metadata/);
  assert.match(await page.textContent('#status'), /capture frame, \d+ bytes: ApiVersions v3 request/);
  // Pick responses: each decodes with the API and version of its request.
  // (The fixture's frames are synthetic: their bodies need not fit.)
  await decoded(page, () => page.locator('#capture button', { hasText: /corr 2\s+response/ }).click());
  assert.match(await page.textContent('#status'), /ApiVersions v3 response/);
  assert.match(await treeText(page), /correlationId int32 = 2/);
  await decoded(page, () => page.locator('#capture button', { hasText: /Metadata.*corr 9\s+response/ }).click());
  assert.match(await page.textContent('#status'), /capture frame, 38 bytes: Metadata v12 response/);
  assert.match(await treeText(page), /correlationId int32 = 9/);
  // Changing the options decodes the picked frame again.
  await decoded(page, () => page.selectOption('#size', 'no'));
  assert.match(await page.textContent('#status'), /capture frame, 38 bytes: Metadata v12 response, no size prefix/);
  await page.screenshot({ path: join(shots, 'capture.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a permalink reproduces the view; the site link format works', { timeout: 60_000 }, async () => {
  const page = await open();
  await page.selectOption('#size', 'yes');
  await decoded(page, () => page.fill('#input', QUICK.match(/../g).join(' ')));
  const url = page.url();
  assert.match(url, /#hex=0000001c0012.*&size=yes$/);
  const tree = await treeText(page);
  const other = await open(url.slice(url.indexOf('#')));
  await other.waitForFunction(() => document.body.dataset.decoded);
  await other.waitForSelector('#tree .pg-row');
  assert.equal(await treeText(other), tree);
  assert.equal(await other.inputValue('#size'), 'yes');
  await other.close();

  // A docs-site link to a response, with the API by name.
  const resp = input('apiversions-response.hex');
  const link = await open('#hex=' + resp + '&dir=response&api=ApiVersions&v=3');
  await link.waitForFunction(() => document.body.dataset.decoded);
  await link.waitForSelector('#tree .pg-row');
  assert.match(await link.textContent('#status'), /ApiVersions v3 response/);
  assert.match(await treeText(link), /finalizedFeaturesEpoch int64 = 11/);
  assert.equal(await link.inputValue('#api'), '18');
  // Large inputs say why they are not in the link.
  await decoded(link, () => link.setInputFiles('#file', join(built.inputs, 'big-fetch.bin')));
  assert.match(await link.textContent('#link-note'), /larger than the 32768 bytes a link holds/);
  assert.equal(new URL(link.url()).hash, '');
  await link.close();
  await page.close();
});

test('automatic detection ranks the readings of a response', { timeout: 120_000 }, async () => {
  const page = await open();
  await page.selectOption('#dir', 'response');
  await decoded(page, () => page.fill('#input', input('apiversions-response.hex')));
  await page.waitForSelector('#guesses button');
  const first = await page.$eval('#guesses button', (b) => b.textContent);
  assert.match(first, /^ApiVersions v3/);
  assert.match(await page.textContent('#status'), /ApiVersions v3 response \(guessed\)/);
  await page.screenshot({ path: join(shots, 'guess.png') });
  await page.close();
});

test('encode mode: round trip, examples and errors at the JSON path', { timeout: 60_000 }, async () => {
  const page = await open();
  const hex = input('produce-gzip.hex');
  await decoded(page, () => page.fill('#input', hex));
  // The gzip batch's records are a derived buffer with its own grid.
  assert.equal(await page.locator('#grids .pg-derived').count(), 1);
  assert.match(await page.textContent('#grids .pg-derived h3'), /Derived buffer 1 \(\d+ bytes, decompressed\) from records/);
  // The batch's attributes show their bit fields on the bit ruler.
  await page.$eval('#grids .pg-main .pg-scroll', (e) => { e.scrollTop = 15 * 36; });
  await page.waitForSelector('#grids .pg-bit');
  const bits = await page.$$eval('#grids .pg-bit', (bs) => bs.map((b) => b.textContent + '@' + b.style.gridColumn));
  assert.ok(bits.includes('compression=1@14 / 17'), bits.join(' '));
  assert.ok(bits.includes('timestampType=0@13 / 14'), bits.join(' '));
  await page.screenshot({ path: join(shots, 'derived-buffer.png'), fullPage: true });
  await page.click('#mode-encode');
  await page.waitForFunction((h) => document.getElementById('enc-hex').textContent === h, hex, { timeout: 20_000 });
  // An edit that breaks the value points at its path.
  const js = await page.inputValue('#enc-json');
  await page.fill('#enc-json', js.replace('"acks": ', '"acks": "x", "_": '));
  await page.waitForFunction(() => !document.getElementById('enc-error').hidden);
  const err = await page.textContent('#enc-error');
  assert.match(err, /^at body\.(acks|_) \(line \d+, column \d+\): /);
  // Clicking the message selects the field in the JSON.
  await page.click('#enc-error');
  const picked = await page.$eval('#enc-json', (t) => t.value.slice(t.selectionStart, t.selectionEnd));
  assert.match(picked, /^"(acks|_)"$/);
  await page.screenshot({ path: join(shots, 'encode-error.png') });
  // An example, encoded live, and decoded again.
  await page.selectOption('#ex-api', '3');
  await page.fill('#ex-ver', '12');
  await page.click('#ex-load');
  await page.waitForFunction(() => document.getElementById('enc-hex').textContent.length > 20 && document.getElementById('enc-error').hidden);
  const bytes = await page.textContent('#enc-hex');
  // The link carries encode mode and its JSON, and reproduces the bytes.
  const encLink = await page.evaluate(() => location.hash);
  assert.match(encLink, /^#mode=encode&json=/);
  const again = await open(encLink);
  await again.waitForFunction((h) => document.getElementById('enc-hex').textContent === h, bytes, { timeout: 20_000 });
  await again.close();
  await decoded(page, () => page.click('#enc-decode'));
  assert.match(await page.textContent('#status'), /Metadata v12 request/);
  assert.equal(await page.inputValue('#input'), bytes);
  await page.screenshot({ path: join(shots, 'encode.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
  // A link straight into encode mode on an example.
  const link = await open('#mode=encode&api=3&v=12&dir=response');
  await link.waitForFunction(() => document.getElementById('enc-hex').textContent.length > 20);
  assert.match(await link.inputValue('#enc-json'), /"direction": "response",\s+"apiKey": 3,\s+"apiName": "Metadata",\s+"apiVersion": 12/);
  await link.close();
});

test('strings holding HTML and script are shown as text and run nothing', { timeout: 60_000 }, async () => {
  const page = await open();
  await decoded(page, () => page.fill('#input', input('html.hex')));
  const tree = await treeText(page);
  assert.ok(tree.includes(JSON.stringify(built.manifest.html.clientId)), tree);
  assert.ok(tree.includes(JSON.stringify(built.manifest.html.softwareName)));
  const cells = await page.$$eval('#grids .kw-val', (cs) => cs.map((c) => c.textContent));
  assert.ok(cells.some((c) => c.startsWith('"<img src=x onerror=')), cells.join('|'));
  await page.hover('#grids .kw-cell:has(.kw-label:text-is("clientSoftwareName"))');
  await page.hover('#tree .pg-row:has-text("clientSoftwareName")');
  await page.click('#mode-encode');
  await page.waitForFunction(() => document.getElementById('enc-hex').textContent.length > 0);
  await page.click('#mode-decode');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('#views img, #views script, #views b').count(), 0);
  await page.screenshot({ path: join(shots, 'html-strings.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a malformed frame shows the error at its byte with the partial tree', { timeout: 60_000 }, async () => {
  const page = await open();
  const m = built.manifest.malformed;
  await decoded(page, () => page.fill('#input', input('malformed.hex')));
  const err = await page.textContent('#error');
  assert.equal(err, 'at byte ' + m.offset + ' (' + m.path + '): expected ' + m.expected + ', found ' + m.found);
  const at = await page.$$eval('#grids .kw-cell.kw-errat', (cs) => cs.map((c) => [+c.dataset.start, +c.dataset.end]));
  assert.ok(at.length > 0 && at.every(([s, e]) => s <= m.offset && m.offset < e), JSON.stringify(at));
  assert.deepEqual(await page.$$eval('#hex .pg-byte.pg-err', (bs) => bs.map((b) => +b.dataset.off)), [m.offset]);
  assert.match(await treeText(page), /clientId nullable_string = "kwire"/);
  await page.click('#error');
  await page.waitForFunction(() => /clientSoftwareName/.test(document.getElementById('sel-desc').textContent));
  await page.screenshot({ path: join(shots, 'malformed.png'), fullPage: true });
  await page.close();
});

test('a 1 MiB Fetch response with 10,000 records (time to first screen reported)', { timeout: 180_000 }, async () => {
  const page = await open();
  await page.selectOption('#dir', 'response');
  await page.selectOption('#api', '1');
  await page.fill('#ver', '12');
  const times = [];
  for (let i = 0; i < 3; i++) {
    await decoded(page, () => page.setInputFiles('#file', join(built.inputs, 'big-fetch.bin')));
    const t = await page.evaluate(() => ({ first: window.kwirePlayground.firstScreenMs, ms: window.kwirePlayground.sum.ms, nodes: window.kwirePlayground.sum.nodeCount }));
    times.push(t);
  }
  const status = await page.textContent('#status');
  assert.match(status, new RegExp('big-fetch.bin, ' + built.manifest.bigFetch.bytes + ' bytes: Fetch v12 response'));
  // Only what is visible is in the DOM.
  const rows = await page.$$eval('#grids .kw-row', (r) => r.length);
  const treeRows = await page.$$eval('#tree .pg-row', (r) => r.length);
  assert.ok(rows < 200 && treeRows < 200, rows + ' grid rows, ' + treeRows + ' tree rows in the DOM');
  // Long cells are elided; a click shows them whole.
  const rowsBefore = await page.evaluate(() => window.kwirePlayground.views.grid0.count);
  await page.$eval('#grids .pg-main .pg-scroll', (e) => { e.scrollTop = 40 * 36; });
  await page.waitForSelector('#grids .kw-more');
  await page.click('#grids .kw-more');
  await page.waitForFunction((n) => window.kwirePlayground.views.grid0.count > n, rowsBefore);
  // Error codes by name, in the tree and the grid.
  assert.match(await treeText(page), /errorCode int16 = 2 CORRUPT_MESSAGE/);
  await page.waitForFunction(() => document.querySelectorAll('#json .pg-row').length > 0);
  await page.screenshot({ path: join(shots, 'fetch-1mib.png') });
  const best = Math.min(...times.map((t) => t.first));
  console.log('playground: 1 MiB Fetch (' + built.manifest.bigFetch.bytes + ' bytes, 10,000 records, ' + times[0].nodes + ' nodes): time to first screen ' +
    times.map((t) => Math.round(t.first) + ' ms [wasm decode/index/grid ' + t.ms.join('/') + ']').join(', ') + '; best ' + Math.round(best) + ' ms');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('phone width, dark theme, and offline after the first load', { timeout: 90_000 }, async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(server.url + '#hex=' + QUICK);
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
  await page.waitForSelector('#tree .pg-row');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 400, 'page width ' + width);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(18, 20, 22)');
  await page.screenshot({ path: join(shots, 'phone-dark.png'), fullPage: true });
  // The service worker caches the page; offline, it still loads and decodes.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await page.waitForSelector('#tree .pg-row');
  await phone.setOffline(true);
  await page.reload();
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  await page.waitForSelector('#tree .pg-row', { timeout: 30_000 });
  assert.match(await page.textContent('#status'), /ApiVersions v3 request/);
  await phone.close();
});

test('module sizes', () => {
  const kb = (n) => (n / 1024).toFixed(0) + ' KiB';
  const gz = (f) => execFileSync('gzip', ['-9', '-c', join(built.site, f)], { maxBuffer: 64 << 20 }).length;
  console.log('playground: kwire.wasm ' + kb(built.sizes['kwire.wasm']) + ' raw, ' + kb(gz('kwire.wasm')) + ' gzip; capture.wasm (loaded for captures only) ' +
    kb(built.sizes['capture.wasm']) + ' raw, ' + kb(gz('capture.wasm')) + ' gzip');
});
