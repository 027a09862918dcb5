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
import { tempDir, buildCLI, serve, launch, repo, contrastOf } from "./helpers-site.mjs";

const axeSource = readFileSync(join(repo, "site", "node_modules", "axe-core", "axe.min.js"), "utf8");
// target-size (WCAG 2.2's 2.5.8): the trees' rows and internal.html's
// version links were under 24 px, stacked with no space between them;
// at 390 px so were the index's links and the hex dumps' summaries.
const rules = ["scrollable-region-focusable", "landmark-unique", "aria-allowed-attr", "aria-prohibited-attr", "aria-allowed-role",
  "target-size", "aria-required-parent", "aria-required-children", "nested-interactive"];

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
  "internal/consumer_offsets/offsetcommitvalue/v4.html", "internal/consumer_offsets/offsetcommitvalue/index.html", "internal.html",
  "index.html", "errors.html", "records.html", "protocol.html", "types.html", "json-api.html",
  "api/produce/v9.html", "api/metadata/v0.html",
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

// At a phone's width (WCAG 2.5.8, Target Size): the index's links, an
// entry's stacked under its name, were 16 px high, and the hex dump's
// summary 21.7 px; each is 24 by 24 px now, measured, not left to axe alone.
test("at 390 px the index's links and the hex dumps' summaries are 24 px targets", async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 900 } });
  const page = await ctx.newPage();
  const small = [];
  const measure = (sel) => page.locator(sel).evaluateAll((es) => es.filter((e) => e.getClientRects().length)
    .map((e) => { const r = e.getBoundingClientRect(); return [e.textContent.trim(), Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]; }));
  await page.goto(server.url + "index.html");
  const links = await measure("table.apis a");
  assert.ok(links.length > 100, "index links measured: " + links.length);
  for (const [t, w, h] of links) if (w < 24 || h < 24) small.push(`index.html: ${t} ${w}x${h}`);
  for (const path of ["api/produce/v9.html", "internal/consumer_offsets/offsetcommitvalue/v4.html", "records.html", "protocol.html"]) {
    await page.goto(server.url + path);
    const sums = await measure("details.hex > summary, details.schemajson > summary");
    assert.ok(sums.length > 0, path + ": no summary measured");
    for (const [t, w, h] of sums) if (w < 24 || h < 24) small.push(`${path}: ${t.slice(0, 30)} ${w}x${h}`);
  }
  assert.deepEqual(small, []);
  await ctx.close();
});

// At 320 px (WCAG 1.4.10, Reflow) the byte grid's field labels wrap in
// their cells, the rows growing: an ellipsis cut a third of them
// ("transacti…", "partition…"), their text only in a title and, once
// tapped, the selection line.
test("at 320 px no label in a version page's byte grid is cut", async () => {
  const ctx = await browser.newContext({ viewport: { width: 320, height: 640 } });
  const page = await ctx.newPage();
  const cut = [];
  for (const path of ["api/produce/v9.html", "api/metadata/v12.html", "api/apiversions/v3.html"]) {
    await page.goto(server.url + path);
    const r = await page.evaluate(() => {
      const labels = [...document.querySelectorAll(".kw-grid .kw-label")];
      return {
        n: labels.length,
        long: labels.filter((l) => l.textContent.length >= 20).length,
        cut: labels.filter((l) => {
          const c = l.closest(".kw-cell"), lr = l.getBoundingClientRect(), cr = c.getBoundingClientRect();
          return l.scrollWidth > l.clientWidth + 1 || lr.bottom > cr.bottom + 0.5 || c.scrollHeight > c.clientHeight + 1;
        }).map((l) => l.textContent),
      };
    });
    assert.ok(r.n > 10 && r.long > 0, path + ": labels measured " + JSON.stringify(r));
    for (const t of r.cut) cut.push(path + ": " + t);
  }
  assert.deepEqual(cut, []);
  await ctx.close();
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

// The value JSON's colours (chroma's github and github-dark styles) are
// readable in both colour schemes: in dark pages the punctuation took the
// light style's near-black (#1f2328 on #161b22, a contrast of 1.09), as
// github-dark sets no colour for it (site/highlight.go unsets what only
// the light style sets). Each token's colour is measured against the code
// block's background (axe's color-contrast leaves text in a box that
// scrolls unjudged), and held to WCAG's 4.5:1.
test("the JSON examples' colours have contrast in dark and light pages", { timeout: 300000 }, async () => {
  const found = [];
  for (const colorScheme of ["dark", "light"]) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
    const page = await ctx.newPage();
    for (const path of ["api/metadata/v12.html", "api/produce/v13.html", "internal/consumer_offsets/offsetcommitvalue/v4.html"]) {
      const resp = await page.goto(server.url + path);
      assert.equal(resp.status(), 200, path);
      const worst = await page.evaluate(() => {
        const rgb = (s) => s.match(/[\d.]+/g).map(Number);
        const lum = ([r, g, b]) => {
          const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const bg = (e) => {
          for (; e; e = e.parentElement) {
            const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
          }
          return [255, 255, 255];
        };
        const byClass = {};
        for (const e of document.querySelectorAll(".chroma span[class]")) {
          if (!e.textContent.trim() || e.children.length) continue;
          const a = lum(rgb(getComputedStyle(e).color)), b = lum(bg(e));
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          const k = e.className;
          if (!(k in byClass) || ratio < byClass[k].ratio) byClass[k] = { ratio, color: getComputedStyle(e).color, text: e.textContent.slice(0, 20) };
        }
        return byClass;
      });
      assert.ok("p" in worst, `${path}: no punctuation in its JSON`);
      for (const [k, w] of Object.entries(worst)) {
        if (w.ratio < 4.5) found.push(`${path} (${colorScheme}): .${k} ${JSON.stringify(w.text)} in ${w.color}, contrast ${w.ratio.toFixed(2)}`);
      }
    }
    await ctx.close();
  }
  assert.deepEqual(found, []);
});

// The decoded tree is one composite, ARIA's tree (a11y review #7): one tab
// stop (the selected item, roving tabindex), every node an item the arrow
// keys reach, leaves too, focus and selection moving together from the
// focused item, a click moving both; the grid names its selected cell as
// its active descendant.
test("the decoded tree is one tab stop whose arrow keys move focus and selection together", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(server.url + "api/produce/v9.html");
  const sec = page.locator("section#request");
  // Tab stops inside the tree box: one.
  const stops = await sec.locator(".treebox").evaluate((b) => [...b.querySelectorAll("a, summary, [tabindex]")].filter((e) => e.tabIndex >= 0 && !e.closest("details:not([open]) > :not(summary)")).length);
  assert.equal(stops, 1, "tab stops in the tree");
  assert.equal(await sec.locator(".treebox [role=tree]").count(), 1);
  const focused = () => page.evaluate(() => {
    const f = document.activeElement, name = f.getAttribute("aria-labelledby") && document.getElementById(f.getAttribute("aria-labelledby"));
    return { role: f.getAttribute("role"), selected: f.getAttribute("aria-selected"), name: name ? name.querySelector(".tname").textContent : null,
      picked: [...document.querySelectorAll("#request .tn.kw-sel .tname")].map((e) => e.textContent), leaf: !f.querySelector("details") };
  });
  await sec.locator(".treebox [role=tree] [tabindex='0']").focus();
  const names = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("ArrowDown");
    const f = await focused();
    assert.equal(f.role, "treeitem");
    assert.equal(f.selected, "true");
    assert.deepEqual(f.picked, [f.name], "the focused item is the one selected");
    names.push(f.name + (f.leaf ? "" : "/"));
  }
  assert.ok(names.includes("acks") && names.includes("timeoutMs"), "leaf fields are reached: " + names.join(" "));
  // A click on a leaf moves the focus there, and the keys go on from it.
  await sec.locator('.tn:has(.tname:text-is("transactionalId"))').click();
  assert.equal((await focused()).name, "transactionalId");
  await page.keyboard.press("ArrowDown");
  assert.equal((await focused()).name, "acks");
  // Left goes up to the parent; Left again closes it, Right opens it.
  await page.keyboard.press("ArrowLeft");
  const parent = await focused();
  assert.ok(!parent.leaf, parent.name);
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-expanded")), "false");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-expanded")), "true");
  // The grid: its selected cell is its active descendant.
  await sec.locator(".kw-grid").first().focus();
  await page.keyboard.press("ArrowRight");
  const active = await sec.locator(".kw-grid").first().evaluate((g) => {
    const c = document.getElementById(g.getAttribute("aria-activedescendant") || "-");
    return c && [c.getAttribute("role"), c.getAttribute("aria-selected"), g.contains(c)];
  });
  assert.deepEqual(active, ["gridcell", "true", true]);
  await ctx.close();
});

// The search box (a11y review #11, #13) and the header's section links
// (#14): the placeholder readable in both schemes, the number of results
// said, and aria-current="page" only on a link to the page itself.
test("search: placeholder contrast, results counted aloud; aria-current only on the current page", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
    const page = await ctx.newPage();
    await page.goto(server.url + "api/produce/v9.html");
    const ratio = await contrastOf(page.locator("#q"), "::placeholder");
    assert.ok(ratio >= 4.5, `${colorScheme}: the search placeholder's contrast is ${ratio.toFixed(2)}`);
    await ctx.close();
  }
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(server.url + "api/produce/v9.html");
  // The header's APIs link goes to the index, not this page.
  assert.equal(await page.locator("nav.sections a[aria-current='page']").count(), 0);
  assert.equal(await page.locator("nav.sections a[aria-current='true']").textContent(), "APIs");
  await page.goto(server.url + "index.html");
  assert.equal(await page.locator("nav.sections a[aria-current='page']").textContent(), "APIs");
  await page.fill("#q", "fetch");
  await page.waitForFunction(() => !document.getElementById("q-results").hidden);
  const status = page.locator("form.search [role=status]");
  assert.equal(await status.count(), 1, "no status in the search form");
  const n = await page.locator("#q-results [role=option]").count();
  await page.waitForFunction(() => /\d+ results?/.test(document.querySelector("form.search [role=status]").textContent));
  assert.match(await status.textContent(), new RegExp("^\\d+ results?"));
  assert.ok(n > 0);
  await page.fill("#q", "zzzzqqq");
  await page.waitForFunction(() => document.querySelector("form.search [role=status]").textContent === "No results", null, { timeout: 5000 })
    .catch(async () => assert.fail(await status.textContent()));
  await ctx.close();
});
