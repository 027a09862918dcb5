// The index's release column in Chromium for the APIs only KRaft
// controllers serve (Vote, BrokerRegistration, ...): the page's own cell
// and the one site.js writes when another release is picked show the
// controllers' version, marked "(controller)"; both were blank, which
// reads as "not in this release". The pages alone are built (kwire site),
// without the playground's wasm.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { tempDir, buildCLI, serve, launch, watch } from "./helpers-site.mjs";

let tmp, bin, server, browser;

before(async () => {
  tmp = tempDir();
  bin = buildCLI(tmp.dir);
  const out = tmp.dir + "/dist";
  execFileSync(bin, ["site", "--out", out], { stdio: "ignore" });
  server = await serve(bin, out);
  browser = await launch();
}, { timeout: 600000 });

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

test("the release column shows the controller-only APIs in their releases", async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = watch(page);
  assert.equal((await page.goto(server.url + "index.html")).status(), 200);
  const cell = (key) => page.locator(`tr.api[data-key="${key}"] td.rel`).textContent();
  assert.equal(await page.locator("th.relhead").first().textContent(), "Kafka 4.2");
  assert.equal(await cell(52), "v2 (controller)"); // Vote
  assert.equal(await cell(62), "v4 (controller)"); // BrokerRegistration
  assert.equal(await cell(0), "v13"); // Produce, a broker's
  assert.equal(await cell(4), ""); // LeaderAndIsr: gone with ZooKeeper
  await page.selectOption("#release", "3.9");
  assert.equal(await cell(52), "v1 (controller)");
  assert.equal(await cell(55), "v2 (controller)"); // DescribeQuorum: 3.9's ZooKeeper brokers lacked it
  assert.equal(await cell(4), "v7");
  await page.selectOption("#release", "4.2");
  assert.equal(await cell(52), "v2 (controller)");
  assert.equal(await cell(55), "v2"); // 4.x brokers serve it
  // Every API 4.2 has is in the column; only those 4.0 dropped, and the
  // ones no release serves yet, are blank.
  const blank = await page.locator("tr.api").evaluateAll((rows) =>
    rows.filter((r) => r.querySelector("td.rel").textContent === "").map((r) => Number(r.dataset.key)));
  assert.deepEqual(blank.sort((a, b) => a - b), [4, 5, 6, 7, 93, 94]);
  assert.deepEqual(errors, []);
  await ctx.close();
});
