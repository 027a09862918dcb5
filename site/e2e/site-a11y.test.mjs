// The reference pages' scrolling boxes and landmarks in real Chromium,
// checked by axe-core: every box that scrolls can be reached from the
// keyboard (scrollable-region-focusable: rule pages' example <pre>s and the
// field tables' wrappers could not), and no two landmarks of one role share
// a name (landmark-unique: a version page's request and response trees were
// both "decoded tree"). Wide pages at a laptop's width and at a phone's,
// where more of them scroll. The pages alone are built (kwire site, no
// playground): nothing here needs the WebAssembly modules.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, buildCLI, serve, launch, repo } from "./helpers-site.mjs";

const axeSource = readFileSync(join(repo, "site", "node_modules", "axe-core", "axe.min.js"), "utf8");
const rules = ["scrollable-region-focusable", "landmark-unique", "aria-allowed-attr", "aria-prohibited-attr", "aria-allowed-role"];

let tmp, server, browser;

before(async () => {
  tmp = tempDir();
  const bin = buildCLI(tmp.dir);
  const out = join(tmp.dir, "dist");
  execFileSync(bin, ["site", "--out", out], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  server = await serve(bin, out);
  browser = await launch();
}, { timeout: 300000 });

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

const pages = [
  "rules/conn.order.html", "rules/conn.correlation.html", "rules/index.html",
  "api/sharefetch/v2.html", "api/produce/v13.html", "api/fetch/v4.html", "api/fetch/index.html",
  "internal/consumer_offsets/offsetcommitvalue/v4.html", "internal.html",
  "index.html", "errors.html", "records.html", "protocol.html", "types.html",
];

test("scrolling boxes take focus and landmarks have distinct names (axe-core)", { timeout: 300000 }, async () => {
  const found = [];
  for (const width of [1280, 390]) {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    for (const path of pages) {
      const resp = await page.goto(server.url + path);
      assert.equal(resp.status(), 200, path);
      await page.evaluate(axeSource);
      const res = await page.evaluate((ids) => window.axe.run(document, { runOnly: { type: "rule", values: ids }, resultTypes: ["violations"] }), rules);
      for (const v of res.violations) {
        found.push(`${path} at ${width}px: ${v.id}: ` + v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ") + (v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ""));
      }
    }
    await ctx.close();
  }
  assert.deepEqual(found, []);
});

test("a field table that scrolls can be scrolled from the keyboard", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(server.url + "api/sharefetch/v2.html");
  const box = page.locator("section#request .scroll:has(table.fields)");
  assert.ok(await box.evaluate((e) => e.scrollWidth > e.clientWidth), "the request's field table does not overflow at 1280 px");
  assert.equal(await box.getAttribute("aria-label"), "ShareFetch Request: fields");
  await box.focus();
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((e) => e.scrollLeft > 0, await box.elementHandle());
  // The two trees are told apart by name.
  assert.deepEqual(await page.locator(".treebox").evaluateAll((es) => es.map((e) => e.getAttribute("aria-label"))),
    ["ShareFetch Request: decoded tree", "ShareFetch Response: decoded tree"]);
  await ctx.close();
});
