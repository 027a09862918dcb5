// Helpers for the documentation site's browser tests: build the site and
// the CLI, serve the site with `kwire serve` on 127.0.0.1, drive Chromium.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

// tempDir makes a scratch folder; the caller removes it with cleanup().
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "kwire-site-e2e-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20, ...opts });
}

// buildCLI builds the kwire binary into dir and returns its path.
export function buildCLI(dir) {
  const bin = join(dir, "kwire");
  run("go", ["build", "-o", bin, "./cmd/kwire"]);
  return bin;
}

// playgroundReady says whether the real playground can be built: the
// playground package and the wasm entry point exist.
export function playgroundReady() {
  const pg = join(repo, "site/playground");
  return existsSync(join(pg, "static/index.html")) && existsSync(join(repo, "wasm/main.go")) &&
    existsSync(pg) && readdirSync(pg).some((f) => f.endsWith(".go") && !f.endsWith("_test.go"));
}

// buildSite writes the site into out: `make site` (the wasm module and the
// playground included) when the playground exists, else the pages alone.
// It returns whether the playground was built, and why not.
export function buildSite(bin, out) {
  if (playgroundReady()) {
    try {
      run("make", ["site", `DIST=${out}`]);
      return { playground: true };
    } catch (e) {
      run(bin, ["site", "--out", out]);
      return { playground: false, reason: "make site failed: " + String(e.stderr || e).split("\n").slice(0, 3).join(" ") };
    }
  }
  run(bin, ["site", "--out", out]);
  return { playground: false, reason: "web/playground or wasm/ is missing" };
}

// serve starts `kwire serve` on a free loopback port and returns its base
// URL and a stop function.
export async function serve(bin, dir) {
  const child = spawn(bin, ["serve", "--dir", dir, "--addr", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("kwire serve did not start: " + buf)), 15000);
    child.stderr.on("data", (d) => {
      buf += d;
      const m = buf.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`kwire serve exited ${code}: ${buf}`)));
  });
  return {
    url,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    }),
  };
}

export async function launch() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

// watch collects console errors and page errors of a page.
export function watch(page) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("requestfailed", (r) => {
    // Chromium asks for a page's icon (<link rel="icon">) after its load
    // event, and leaving the page cuts that request short: the browser's
    // doing, not the page's (it failed two CI runs so, after a load).
    if (/\/assets\/icon\.[0-9a-f]+\.svg$/.test(r.url()) && /ERR_ABORTED/.test(r.failure()?.errorText ?? "")) return;
    errors.push("request failed: " + r.url());
  });
  return errors;
}

// annotated decodes a frame with the CLI and returns the annotated tree:
// the frame's fields, its records' keys and values as text or bytes
// (--payloads bytes), as a docs page draws them, not the members the CLI
// reads inside JSON payloads.
export function annotated(bin, hex, { response, api, version }) {
  const args = ["decode", "--format", "annotated", "--payloads", "bytes"];
  if (response) args.push("--response", "--api", String(api), "--version", String(version));
  args.push(hex);
  return JSON.parse(run(bin, args));
}

// leaves lists the nodes of the input buffer that have no children.
export function leaves(node, out = []) {
  const kids = node.children || [];
  if (kids.length === 0) {
    if (!node.buf && node.end > node.start) out.push(node);
  } else {
    for (const k of kids) leaves(k, out);
  }
  return out;
}

export function apis(bin) {
  return JSON.parse(run(bin, ["apis", "--json"]));
}

// contrastOf is the WCAG contrast of an element's colour (or its
// pseudo element's, "::placeholder") on the background behind it; el is
// a Locator or an ElementHandle.
export const contrastOf = (el, pseudo) => el.evaluate((e, pseudo) => {
  const rgb = (s) => s.match(/[\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let bg = null;
  for (let x = e; x && !bg; x = x.parentElement) {
    const c = rgb(getComputedStyle(x).backgroundColor);
    if (c.length < 4 || c[3] > 0) bg = c;
  }
  const cs = getComputedStyle(e, pseudo), c = rgb(cs.color), a = (c.length > 3 ? c[3] : 1) * Number(cs.opacity);
  const b = (bg || [255, 255, 255]).slice(0, 3), fg = c.slice(0, 3).map((v, i) => v * a + b[i] * (1 - a));
  const l1 = lum(fg), l2 = lum(b);
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}, pseudo);
