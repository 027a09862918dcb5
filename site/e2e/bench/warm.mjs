// Measures what a user waits for before and during the first decodes, and
// prints the numbers (a measuring script, not a test: nothing is asserted
// and the machine's load moves every number):
//
//   worker      the Cloudflare Worker under `wrangler dev` (workerd,
//               offline, 127.0.0.1): median and p99 of 200 warm POST
//               /api/decode requests of two small frames (a 32-byte
//               ApiVersions request, a Produce request with a gzip batch of
//               three records) and workerd's CPU time per request.
//   playground  the playground served locally in headless Chromium, a new
//               browser context (cold cache) per run: the page opened with a
//               small frame in its link (navigation to the frame on screen,
//               and from the load event to it),
//               the decoder ready, the first small frame typed after ready and
//               a repeat of it, the first 1 MiB Fetch response opened as a file
//               and a repeat, the same bytes pasted as hex; the longest
//               main-thread task in each (the page's responsiveness); and
//               what the worker's warm-up took in idle time (pages that
//               predate it have none).
//
// Usage, from site/ (after npm ci):
//
//	node e2e/bench/warm.mjs [worker] [playground] [--runs 5] [--requests 200] [--site DIR]
import { join } from 'node:path';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { tempDir, buildWorker, workerConfig, startWrangler, workerdCPU } from '../helpers-worker.mjs';
import { build, serve, launch } from '../helpers-playground.mjs';

const args = process.argv.slice(2);
const flag = (name, def) => {
  const i = args.indexOf('--' + name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const parts = args.filter((a, i) => ['worker', 'playground'].includes(a));
const want = (p) => parts.length === 0 || parts.includes(p);
const runs = flag('runs', 5);
const requests = flag('requests', 200);

const QUICK = '0000001b001200030000000700056b7769726500066b7769726504312e3000';

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.min(s.length - 1, Math.ceil(s.length * p / 100) - 1))];
}
const f1 = (x) => x.toFixed(1).padStart(7);
const stats = (xs) => `median ${f1(pct(xs, 50))} ms, p99 ${f1(pct(xs, 99))} ms`;

async function worker() {
  const tmp = tempDir();
  try {
    const out = join(tmp.dir, 'build');
    console.log(buildWorker(out));
    const produce = Buffer.from(await producFrame(tmp.dir), 'hex');
    const frames = [['ApiVersions request, 32 B', Buffer.from(QUICK, 'hex')], [`Produce request, gzip batch, ${produce.length} B`, produce]];

    // Under wrangler dev.
    const assets = join(tmp.dir, 'assets');
    mkdirSync(assets, { recursive: true });
    writeFileSync(join(assets, 'index.html'), '<!doctype html><title>kwire</title>\n');
    const wr = await startWrangler(tmp.dir, workerConfig(out, assets));
    console.log(`\nWorker under wrangler dev, POST /api/decode, ${requests} warm requests each (after 20 to warm up):`);
    try {
      for (const [name, body] of frames) {
        const post = async () => {
          const t0 = performance.now();
          const res = await fetch(wr.url + '/api/decode', { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
          return performance.now() - t0;
        };
        for (let i = 0; i < 20; i++) await post();
        const lat = [], cpu = [];
        for (let i = 0; i < requests; i++) {
          const c0 = workerdCPU(wr.pid);
          lat.push(await post());
          cpu.push(workerdCPU(wr.pid) - c0);
        }
        console.log(`  ${name.padEnd(40)} wall ${stats(lat)}; workerd CPU ${stats(cpu)}`);
      }
      const floor = [];
      for (let i = 0; i < 50; i++) {
        const c0 = workerdCPU(wr.pid);
        await (await fetch(wr.url + '/')).arrayBuffer();
        floor.push(workerdCPU(wr.pid) - c0);
      }
      console.log(`  (a static asset, no Go: workerd CPU median ${pct(floor, 50).toFixed(1)} ms)`);
    } finally {
      await wr.stop();
    }

  } finally {
    tmp.cleanup();
  }
}

// producFrame writes site/internal/e2egen's frames and returns the Produce
// request with a gzip batch, as hex.
async function producFrame(dir) {
  const { execFileSync } = await import('node:child_process');
  const { repo } = await import('../helpers-worker.mjs');
  execFileSync('go', ['run', './site/internal/e2egen', '-out', join(dir, 'inputs')], { cwd: repo });
  return readFileSync(join(dir, 'inputs', 'produce-gzip.hex'), 'utf8').trim();
}

// Installed in every page before its scripts: marks when the decoder is
// ready and when each decode is on screen, and the main thread's long
// tasks.
function marks() {
  window.__kw = { ready: 0, decoded: [], long: [], event: 0 };
  // The user's action: the time its event reached the page (Playwright's
  // own checks before it acts are not the page's time).
  for (const type of ['input', 'change', 'paste']) {
    document.addEventListener(type, () => { if (!window.__kw.event) window.__kw.event = performance.now(); }, true);
  }
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__kw.long.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
  const watch = () => new MutationObserver(() => {
    const d = document.body.dataset;
    if (d.ready && !window.__kw.ready) window.__kw.ready = performance.now();
    if (d.decoded && d.decoded !== window.__kw.last) {
      window.__kw.last = d.decoded;
      window.__kw.decoded.push(performance.now());
    }
  }).observe(document.body, { attributes: true });
  if (document.body) watch(); else document.addEventListener('DOMContentLoaded', watch);
}

async function playground() {
  // --site DIR: a playground already built by helpers-playground's build
  // (DIR/playground, DIR/inputs), to measure changes to its static files.
  const i = args.indexOf('--site');
  const built = i >= 0 ? { site: join(args[i + 1], 'playground'), inputs: join(args[i + 1], 'inputs') } : await build();
  const server = await serve(built.site);
  const browser = await launch();
  const bigFile = join(built.inputs, 'big-fetch.bin');
  const bigHex = readFileSync(bigFile).toString('hex');
  const rows = {};
  const add = (k, v) => (rows[k] ??= []).push(v);
  try {
    for (let r = 0; r < runs; r++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      await context.addInitScript(marks);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // Cold: the page opened from a link holding a small frame.
      await page.goto(server.url + '#hex=' + QUICK);
      await page.waitForFunction(() => window.__kw.ready && window.__kw.decoded.length > 0, null, { timeout: 120_000 });
      const load = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return { ready: window.__kw.ready, frame: window.__kw.decoded[0], dom: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, long: window.__kw.long };
      });
      add('page loaded (DOMContentLoaded)', load.dom);
      add('page loaded (load event)', load.load);
      add('decoder ready', load.ready);
      add('link\'s small frame on screen', load.frame);
      // Issue 25's measure: the frame on screen within 1 s of page load.
      add('link\'s small frame, after the load event', load.frame - load.load);
      add('longest main-thread task while loading', Math.max(0, ...load.long.map((l) => l[1])));
      // One action: the time from its first event in the page (input,
      // change, paste) to its decode on screen, and the longest main-thread
      // task meanwhile.
      // Its decode is the first one on screen whose status line matches
      // what (the input's name), once the action has started.
      const act = async (name, what, fn) => {
        const n = await page.evaluate(() => window.__kw.decoded.length);
        await page.evaluate(() => { window.__kw.long = []; window.__kw.event = 0; });
        await fn();
        await page.waitForFunction(([k, re]) => window.__kw.decoded.length > k && new RegExp(re).test(document.getElementById('status').textContent),
          [n, what], { timeout: 120_000 });
        const m = await page.evaluate(() => ({ at: window.__kw.decoded.at(-1), t0: window.__kw.event, long: window.__kw.long, timing: window.kwirePlayground.timing, origin: performance.timeOrigin }));
        const t0 = m.t0;
        if (process.env.KW_TIMING) {
          const t = m.timing;
          console.log(name, JSON.stringify({ toSend: t.sentAt - m.origin - t0, rpc: t.decodeRPC, queued: t.worker.recv - t.sentAt, worker: t.worker.worker, screen: t.firstScreen, total: m.at - t0 }));
        }
        add(name, m.at - t0);
        add(name + ': longest task', Math.max(0, ...m.long.map((l) => l[1])));
        // Settle (not timed): the JSON view is built after the first
        // screen, and the next action would wait for it.
        await page.waitForFunction(() => document.querySelectorAll('#json .pg-row').length > 0, null, { timeout: 120_000 });
      };
      // A small frame typed (a different one from the link's, then again).
      const other = '0000001b001200030000000800056b7769726500066b7769726504312e3100';
      await act('small frame typed, first', 'ApiVersions', () => page.fill('#input', other));
      await act('small frame typed, again', 'ApiVersions', () => page.fill('#input', QUICK));
      await page.selectOption('#dir', 'response');
      await page.selectOption('#api', '1');
      await page.fill('#ver', '12');
      await page.waitForFunction(() => !/ApiVersions/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
      await act('1 MiB Fetch file, first', 'big-fetch.bin, \\d+ bytes', () => page.setInputFiles('#file', bigFile));
      await act('1 MiB Fetch file, again', 'big-fetch.bin, \\d+ bytes', () => page.setInputFiles('#file', bigFile));
      await page.evaluate((text) => { window.__bigHex = text; }, bigHex);
      await act('1 MiB Fetch pasted as hex', '^(?!binary file).*Fetch v12 response', () => page.evaluate(() => {
        const dt = new DataTransfer();
        dt.setData('text/plain', window.__bigHex);
        document.getElementById('input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }));
      // The worker's warm-up (worker.js, warmStep): what its steps took in
      // all, in idle time between the actions above.
      if (await page.evaluate(() => 'warmUp' in window.kwirePlayground)) {
        await page.waitForFunction(() => window.kwirePlayground.warmUp, null, { timeout: 120_000 });
        add('worker warm-up, its steps in all (idle time)', await page.evaluate(() => window.kwirePlayground.warmUp.ms));
      }
      if (errors.length) console.log('page errors:', errors);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(`\nPlayground in headless Chromium, served locally, ${runs} cold runs (ms from navigation, or from the action):`);
  for (const [k, v] of Object.entries(rows)) {
    console.log(`  ${k.padEnd(46)} median ${f1(pct(v, 50))}  min ${f1(Math.min(...v))}  max ${f1(Math.max(...v))}`);
  }
}

if (want('worker')) await worker();
if (want('playground')) await playground();
