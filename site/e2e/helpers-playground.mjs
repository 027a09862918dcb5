// Helpers for the playground's browser tests: build the WebAssembly
// modules and the page into a temporary directory laid out as the site
// generator lays out dist/playground/, serve it on 127.0.0.1, and start
// Debian's Chromium through playwright-core.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, mkdir, copyFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { gzip } from 'node:zlib';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, extname, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { before, after } from 'node:test';

const run = promisify(execFile);
const gzipAsync = promisify(gzip);
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// build compiles kwire.wasm, capture.wasm and inflate.wasm and assembles the page in a
// new directory, which it returns with the generated test inputs. Under
// npm test (e2e/run.mjs) every file shares the one build run.mjs made,
// named by KWIRE_E2E_BUILT, and must not write into it; a file run alone
// builds its own, which its remove() deletes (session's after does).
export async function build() {
  const shared = process.env.KWIRE_E2E_BUILT;
  if (shared) return { ...(await describe(shared)), shared: true, remove: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'kwire-playground-'));
  try {
    await buildInto(dir);
    return { ...(await describe(dir)), shared: false, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

// buildInto writes the page into dir/playground and the test inputs into
// dir/inputs.
export async function buildInto(dir) {
  const site = join(dir, 'playground');
  const inputs = join(dir, 'inputs');
  await mkdir(site, { recursive: true });
  // The modules come from make wasm, as the site's do: the same flags, and
  // its checks of kwire.wasm's and capture.wasm's gzip sizes.
  const opts = { cwd: root, timeout: 300_000, maxBuffer: 16 << 20 };
  await Promise.all([
    run('make', ['--no-print-directory', 'wasm', 'DIST=' + site], opts),
    run('go', ['run', './site/internal/e2egen', '-out', inputs], { cwd: root, timeout: 300_000 }),
  ]);
  await copyFile(join(root, 'internal', 'render', 'grid.css'), join(site, 'grid.css'));
  const staticDir = join(root, 'site', 'playground', 'static');
  for (const f of await readdir(staticDir)) await copyFile(join(staticDir, f), join(site, f));
  // The gzip copies kwire site writes beside the modules and scripts
  // (site/playground.go, writeGzipCopy), served as kwire serve serves them;
  // at zlib's default level (kwire site uses the best: 1% smaller, 3.5
  // times the work), on libuv's threads.
  await Promise.all((await readdir(site)).filter((f) => /\.(wasm|js)$/.test(f)).map(async (f) => {
    const b = await readFile(join(site, f));
    if (b.length < 1024) return;
    const z = await gzipAsync(b);
    if (z.length < b.length) await writeFile(join(site, f + '.gz'), z);
  }));
}

async function describe(dir) {
  const site = join(dir, 'playground');
  const inputs = join(dir, 'inputs');
  const sizes = {};
  for (const f of ['kwire.wasm', 'capture.wasm', 'inflate.wasm']) sizes[f] = (await stat(join(site, f))).size;
  const manifest = JSON.parse(await readFile(join(inputs, 'manifest.json'), 'utf8'));
  return { dir, site, inputs, manifest, sizes };
}

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json',
};

const acceptsGzip = (h) => (h || '').split(',').some((item) => {
  const [coding, ...params] = item.split(';').map((x) => x.trim().toLowerCase());
  return coding === 'gzip' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
});

// serve serves dir at http://127.0.0.1:PORT/prefix/ (a path prefix, as on
// the docs site), returning the page's URL and a close function.
//
// A file with a gzip copy (FILE.gz, no older than it) goes as that copy,
// Content-Encoding gzip, to a request that accepts gzip, with the decoded
// length in X-Decoded-Content-Length, as kwire serve sends it
// (cmd/kwire/serve.go, sendPrecompressed); state.encoded lists the files
// so sent.
//
// A slow link is a gate: server.holdWasm() makes every kwire.wasm
// response to a request carrying its headers send them and a first third, then wait until the test
// calls the release function it returns (no timers: the test decides when
// the rest arrives). server.wasmSent tells how far it got.
//
// server.holdFile(file) holds every response for file (payload.wasm: the
// page's work that must not wait for it) until the test calls release;
// asked is a promise that a request for it came.
export function serve(dir, prefix = '/docs/playground/') {
  let hold = null;
  const gates = new Map(); // file -> {released, asked}
  const state = { wasmSent: 0, requested: [], encoded: [] }; // requested: every file asked for, in order
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(prefix)) { res.writeHead(404).end(); return; }
    let file = path.slice(prefix.length);
    if (file === '' || file.endsWith('/')) file += 'index.html';
    if (file.includes('..')) { res.writeHead(400).end(); return; }
    state.requested.push(file);
    const gate = gates.get(file);
    if (gate) {
      gate.asked();
      await gate.released;
    }
    let body;
    try {
      body = await readFile(join(dir, file));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const headers = { 'content-type': types[extname(file)] || 'application/octet-stream', 'cache-control': 'no-cache' };
    const gz = await stat(join(dir, file + '.gz')).catch(() => null);
    if (gz && gz.mtimeMs >= (await stat(join(dir, file))).mtimeMs) {
      headers.vary = 'Accept-Encoding';
      if (acceptsGzip(req.headers['accept-encoding'])) {
        headers['content-encoding'] = 'gzip';
        headers['x-decoded-content-length'] = body.length;
        body = await readFile(join(dir, file + '.gz'));
        state.encoded.push(file);
      }
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    if (file === 'kwire.wasm' && hold && req.headers['x-kwire-gate'] === hold.tag) {
      // Every request of the gated context is held (the page's and a
      // service worker's precache alike), so none slips past at full speed.
      const gate = hold;
      const cut = Math.floor(body.length / 3);
      res.write(body.subarray(0, cut));
      state.wasmSent = cut;
      gate.sent();
      await gate.released;
      if (hold === gate) hold = null;
      state.wasmSent = body.length;
      res.end(body.subarray(cut));
      return;
    }
    res.end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = 'http://127.0.0.1:' + server.address().port + prefix;
      resolve({
        url,
        state,
        // holdWasm returns {sent: a promise that the first part went out,
        // release(), headers}: only a request carrying those headers (a
        // browser context made with them as extraHTTPHeaders) is held, so
        // other pages (and service workers filling their caches) are not.
        holdWasm() {
          let release, sent;
          const released = new Promise((r) => { release = r; });
          const first = new Promise((r) => { sent = r; });
          const tag = String(Math.random()).slice(2);
          hold = { released, sent, tag };
          return { sent: first, release, headers: { 'x-kwire-gate': tag } };
        },
        holdFile(file) {
          let release, asked;
          const released = new Promise((r) => { release = r; });
          const first = new Promise((r) => { asked = r; });
          gates.set(file, { released, asked });
          return { asked: first, release: () => { gates.delete(file); release(); } };
        },
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

// session registers the hooks a playground test file starts with: the
// page built and served, Chromium launched with one 1400x1000 context
// (contextOptions added), then setup (more servers, fixtures); at the end
// teardown, then Chromium and the server closed. It returns the state the
// hooks fill in: built, server, browser, context, and open.
export function session({ contextOptions = {}, setup, teardown } = {}) {
  const s = {
    // open loads the page (its URL plus hash) in a new tab of ctx, with
    // the page's uncaught errors in page.errors and the .wasm files it
    // fetched in page.wasm, once the decoder says ready. init runs in the
    // page before its scripts.
    open: async (hash = '', { ctx = s.context, init } = {}) => {
      const page = await ctx.newPage();
      page.errors = [];
      page.wasm = [];
      page.on('pageerror', (e) => page.errors.push(e.message));
      page.on('request', (r) => { if (r.url().endsWith('.wasm')) page.wasm.push(r.url().split('/').pop()); });
      if (init) await page.addInitScript(...init);
      await page.goto(s.server.url + hash);
      await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
      return page;
    },
  };
  before(async () => {
    s.built = await build();
    s.server = await serve(s.built.site);
    s.browser = await launch();
    s.context = await s.browser.newContext({ viewport: { width: 1400, height: 1000 }, ...contextOptions });
    await setup?.(s);
  }, { timeout: 600_000 });
  after(async () => {
    await teardown?.(s);
    await s.browser?.close();
    await s.server?.close();
    await s.built?.remove();
  });
  return s;
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// axe runs axe-core's WCAG 2 A/AA rules on the page and returns the
// violations as [rule, impact, [selectors of up to 5 nodes]].
const axeSource = await readFile(join(root, 'site', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
export async function axe(page, opts = {}) {
  await page.evaluate(axeSource);
  const res = await page.evaluate((o) => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] },
    resultTypes: ['violations'],
    ...o,
  }), opts);
  return res.violations.map((v) => [v.id, v.impact, v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' ' + (n.any[0]?.message || n.failureSummary || '').slice(0, 160))]);
}

// decodedJSON reads the JSON pane from top to bottom (it draws only the
// lines in view) and parses the frame's value JSON.
export async function decodedJSON(page) {
  await page.waitForFunction(() => window.kwirePlayground.panels[0].jsonReady && document.querySelectorAll('#json .pg-row[data-line]').length > 0);
  return JSON.parse(await page.evaluate(async () => {
    const box = document.getElementById('json'), lines = new Map();
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    // settle waits until the rows drawn change from before and then stay
    // the same for two looks (the page asks the worker for them).
    const drawn = () => [...box.querySelectorAll('.pg-row[data-line]')].map((r) => r.dataset.line).join();
    const settle = async (before) => {
      let prev = null;
      for (let i = 0; i < 100; i++) {
        await sleep(60);
        const now = drawn();
        if (now !== before && now === prev) return;
        prev = now;
      }
    };
    box.scrollTop = 0;
    let before = null;
    for (let last = -1; ; ) {
      await settle(before);
      for (const r of box.querySelectorAll('.pg-row[data-line]')) lines.set(+r.dataset.line, r.textContent);
      if (box.scrollTop === last) break;
      last = box.scrollTop;
      before = drawn();
      box.scrollTop += 110;
    }
    box.scrollTop = 0;
    const n = Math.max(...lines.keys()) + 1;
    if (lines.size !== n) throw new Error('the JSON pane drew ' + lines.size + ' of lines 0-' + (n - 1) + ', not ' + [...Array(n).keys()].filter((k) => !lines.has(k)));
    return [...lines.keys()].sort((x, y) => x - y).map((k) => lines.get(k)).join('\n');
  }));
}
