// The documentation site in real Chromium: the index and its filter, the
// Produce, Fetch and Metadata pages at their lowest and highest versions
// (no console errors, a grid cell for every field of the example, the
// version switcher), phone width, dark mode, and "open in playground".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { tempDir, buildCLI, buildSite, serve, launch, watch, annotated, leaves, apis } from "./helpers-site.mjs";

let tmp, bin, server, browser, apiList, built;

before(async () => {
  tmp = tempDir();
  bin = buildCLI(tmp.dir);
  const out = tmp.dir + "/dist";
  built = buildSite(bin, out);
  server = await serve(bin, out);
  browser = await launch();
  apiList = apis(bin);
}, { timeout: 600000 });

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

async function open(path, opts = {}) {
  const ctx = await browser.newContext(opts);
  const page = await ctx.newPage();
  const errors = watch(page);
  const resp = await page.goto(server.url + path);
  assert.equal(resp.status(), 200, path);
  return { ctx, page, errors };
}

test("index lists every API by category and filters", async () => {
  const { ctx, page, errors } = await open("index.html");
  const rows = await page.locator("tr.api").count();
  assert.equal(rows, apiList.length);
  assert.equal(await page.locator("section.cat").count(), 8);
  const keys = await page.locator("tr.api td.key").allTextContents();
  assert.deepEqual(keys.map(Number).sort((a, b) => a - b), apiList.map((a) => a.key).sort((a, b) => a - b));
  await page.fill("#filter", "fetch");
  const visible = await page.locator("tr.api:not(.hidden) td:nth-child(2) a").allTextContents();
  assert.ok(visible.includes("Fetch"), visible.join());
  assert.ok(!visible.includes("Produce"), visible.join());
  await page.fill("#filter", "3");
  assert.ok((await page.locator("tr.api:not(.hidden) td:nth-child(2) a").allTextContents()).includes("Metadata"));
  await page.fill("#filter", "");
  assert.equal(await page.locator("tr.api:not(.hidden)").count(), apiList.length);
  assert.ok(await page.locator('a[href^="playground/#hex="]').count() >= apiList.length);
  assert.deepEqual(errors, []);
  await ctx.close();
});

const samples = [];
for (const name of ["Produce", "Fetch", "Metadata"]) {
  samples.push([name, "min"], [name, "max"]);
}

for (const [name, which] of samples) {
  test(`${name} ${which} version page draws every field`, async () => {
    const a = apiList.find((x) => x.name === name);
    const v = which === "min" ? a.minVersion : a.maxVersion;
    const { ctx, page, errors } = await open(`api/${name.toLowerCase()}/v${v}.html`);
    assert.match(await page.locator("h1").innerText(), new RegExp(`${name}\\s+v${v}`));
    for (const dir of ["request", "response"]) {
      const sec = page.locator(`section#${dir}`);
      const hex = await sec.getAttribute("data-hex");
      const cells = await sec.locator('.kw-grid[data-buf="0"] .kw-cell[data-start]').evaluateAll((els) =>
        els.map((e) => ({ start: +e.dataset.start, end: +e.dataset.end, node: +e.dataset.node })));
      assert.ok(cells.length > 0, `${dir}: no cells`);
      // The cells tile the frame.
      const spans = [...new Map(cells.map((c) => [`${c.start}-${c.end}`, c])).values()].sort((x, y) => x.start - y.start);
      let pos = 0;
      for (const c of spans) {
        assert.equal(c.start, pos, `${dir}: gap or overlap at byte ${pos}`);
        pos = c.end;
      }
      assert.equal(pos, hex.length / 2, `${dir}: cells end at ${pos}`);
      // Every field the CLI decodes from the same bytes has a cell that
      // ends where it ends, inside its span.
      const tree = annotated(bin, hex, { response: dir === "response", api: a.key, version: v });
      assert.equal(tree.apiVersion, v);
      for (const leaf of leaves(tree.root)) {
        const hit = spans.some((c) => c.end === leaf.end && c.start >= leaf.start);
        assert.ok(hit, `${dir}: no cell for ${leaf.name} [${leaf.start}, ${leaf.end})`);
      }
      // The tree and the JSON are there too, and a grid cell is visible.
      assert.ok(await sec.locator(".tree .tn").count() > cells.length / 2);
      assert.ok(await sec.locator(".json pre.chroma").count() === 1);
      assert.ok(await sec.locator(".kw-cell").first().isVisible());
      assert.match(await sec.locator("a.play").getAttribute("href"), new RegExp(`^\\.\\./\\.\\./playground/#hex=${hex}&dir=${dir}&api=${a.key}&v=${v}`));
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

test("version switcher moves between versions", async () => {
  const a = apiList.find((x) => x.name === "Produce");
  const { ctx, page, errors } = await open(`api/produce/v${a.maxVersion}.html`);
  await Promise.all([page.waitForURL(/\/v3\.html$/), page.selectOption("#version-switch", "v3.html")]);
  assert.match(await page.locator("h1").innerText(), /Produce\s+v3/);
  assert.equal(await page.locator("#version-switch").inputValue(), "v3.html");
  await Promise.all([page.waitForURL(/\/v4\.html$/), page.click("a.next")]);
  assert.match(await page.locator("h1").innerText(), /Produce\s+v4/);
  await Promise.all([page.waitForURL(/\/v0\.html$/), page.click('.vlist a[href="v0.html"]')]);
  assert.match(await page.locator("h1").innerText(), /Produce\s+v0/);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test("pages fit a phone and follow the dark scheme", async () => {
  for (const path of ["index.html", "api/produce/v13.html", "types.html", "records.html", "protocol.html", "errors.html"]) {
    const { ctx, page, errors } = await open(path, { viewport: { width: 375, height: 800 }, colorScheme: "dark" });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `${path}: the page scrolls sideways by ${overflow}px at 375px`);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert.ok(r + g + b < 150, `${path}: background ${bg} is not dark`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test("open in playground decodes the same example", async (t) => {
  if (!built.playground) {
    // MARKED: needs a buildable web/playground and wasm/ (another
    // engineer's work); the site links there with the example either way.
    t.skip("the playground was not built: " + built.reason);
    return;
  }
  for (const [name, which, dir] of [["Produce", "max", "request"], ["Fetch", "max", "response"], ["Metadata", "min", "request"]]) {
    const a = apiList.find((x) => x.name === name);
    const v = which === "min" ? a.minVersion : a.maxVersion;
    const { ctx, page, errors } = await open(`api/${name.toLowerCase()}/v${v}.html`);
    const hex = await page.locator(`section#${dir}`).getAttribute("data-hex");
    await Promise.all([page.waitForURL(/playground\/#hex=/), page.locator(`section#${dir} a.play`).click()]);
    // The playground fills its input with the example and decodes it as
    // the same API, version and direction, into as many nodes as the CLI
    // finds in the same bytes.
    const want = annotated(bin, hex, { response: dir === "response", api: a.key, version: v });
    let count = 0;
    (function walk(n) { count++; (n.children || []).forEach(walk); })(want.root);
    await page.waitForFunction(() => /nodes/.test(document.getElementById("status").textContent), null, { timeout: 30000 });
    const text = await page.locator("#status").innerText();
    assert.match(text, new RegExp(`${name} v${v} ${dir}`), text);
    assert.match(text, new RegExp(`\\b${count} nodes`), `${text}; the CLI decodes ${count} nodes`);
    assert.equal((await page.locator("#input").inputValue()).replace(/\s/g, ""), hex);
    assert.ok(await page.locator(".kw-cell").count() > 0, "the playground drew no grid");
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
