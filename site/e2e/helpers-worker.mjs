// Helpers for the Worker's tests: build the Worker (worker/build.sh) and
// the site (make site), run them under `wrangler dev` (workerd) offline on
// 127.0.0.1, and stop it again.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

// tempDir makes a scratch folder; the caller removes it with cleanup().
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "kwire-worker-e2e-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, {
    cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20, timeout: 10 * 60_000, ...opts,
  });
}

// buildWorker runs worker/build.sh into out and returns its size line.
export function buildWorker(out) {
  const log = run("bash", ["wasm/worker/build.sh", out]);
  return log.trim().split("\n").filter((l) => l.startsWith("worker:")).join("\n");
}

function walk(dir, found = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, found);
    else found.push(p);
  }
  return found;
}

// buildAssets writes the static assets into out: the real site (make site)
// when it builds, else a minimal stand-in (an index.html, one docs page and
// a .wasm file copied from the Worker build), so the routing and content
// types are still checked. It returns which it made and the URL paths of a
// docs page and of the playground's wasm module.
export function buildAssets(out, workerBuild) {
  let kind = "make site";
  try {
    run("make", ["site", `DIST=${out}`]);
  } catch (err) {
    kind = "minimal stand-in (make site failed: " + String(err.stderr || err.message).trim().split("\n").pop() + ")";
    rmSync(out, { recursive: true, force: true });
    mkdirSync(join(out, "api", "metadata"), { recursive: true });
    mkdirSync(join(out, "playground"), { recursive: true });
    writeFileSync(join(out, "index.html"), "<!doctype html><title>kwire</title><h1>kwire (stand-in)</h1>\n");
    writeFileSync(join(out, "api", "metadata", "v12.html"), "<!doctype html><title>Metadata v12</title><h1>Metadata v12</h1>\n");
    copyFileSync(join(workerBuild, "app.wasm"), join(out, "playground", "kwire.0123456789.wasm"));
  }
  const files = walk(out).map((f) => "/" + relative(out, f).split("\\").join("/"));
  const wasm = files.find((f) => f.startsWith("/playground/") && f.endsWith(".wasm")) || files.find((f) => f.endsWith(".wasm"));
  const docs = files.find((f) => /^\/api\/metadata\/v\d+\.html$/.test(f)) || files.find((f) => f.startsWith("/api/") && f.endsWith(".html"));
  if (!existsSync(join(out, "index.html")) || !wasm || !docs) {
    throw new Error(`assets in ${out} lack index.html, a docs page or a .wasm file`);
  }
  return { kind, wasm, docs };
}

// freePort asks the kernel for a free port on 127.0.0.1.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The offline settings DEVELOPERS.md gives for wrangler on this machine.
const offline = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};

// workerConfig reads worker/wrangler.jsonc (comments on their own lines)
// and points it at a build folder and an assets folder.
export function workerConfig(build, assets) {
  const text = readFileSync(join(repo, "wasm", "worker", "wrangler.jsonc"), "utf8")
    .split("\n").filter((l) => !/^\s*\/\//.test(l)).join("\n");
  const cfg = JSON.parse(text);
  delete cfg.$schema;
  cfg.main = join(build, "worker.mjs");
  cfg.assets.directory = assets;
  return cfg;
}

// startWrangler runs `wrangler dev` on 127.0.0.1 with cfg (written into
// dir) and resolves once it is ready, within timeoutMs. stop() ends it
// (and workerd under it: the process group it leads).
export async function startWrangler(dir, cfg, timeoutMs = 90_000) {
  const cfgPath = join(dir, "wrangler.json");
  writeFileSync(cfgPath, JSON.stringify(cfg, null, 2));
  const [port, inspector] = [await freePort(), await freePort()];
  const bin = join(repo, "site", "node_modules", ".bin", "wrangler");
  const child = spawn(bin, [
    "dev", "-c", cfgPath, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector),
    "--persist-to", join(dir, "state"), "--log-level", "info", "--show-interactive-dev-session=false",
  ], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...offline, XDG_CONFIG_HOME: join(dir, "config"), WRANGLER_LOG_PATH: join(dir, "logs"), CI: "1", NO_COLOR: "1" },
  });
  let log = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, "SIGTERM"); } catch { /* already gone */ }
    const t = setTimeout(() => { try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ } }, 5000);
    await exited;
    clearTimeout(t);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`wrangler dev not ready in ${timeoutMs} ms:\n${log}`)), timeoutMs);
      const onData = (d) => {
        log += d;
        if (log.includes(`Ready on ${url}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      exited.then((code) => { clearTimeout(timer); reject(new Error(`wrangler dev exited ${code}:\n${log}`)); });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop, log: () => log, pid: child.pid };
}

// timed fetches with a bound on the time, and says how long it took. A
// kept-alive connection that the server closed while it sat idle (node's
// fetch keeps them; wrangler dev closes them after a few seconds) fails
// before any answer with "other side closed": that one is sent again on a
// new connection, as browsers do, once.
export async function timed(url, init = {}, timeoutMs = 30_000) {
  const t0 = performance.now();
  let res;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    if (err?.cause?.code !== "UND_ERR_SOCKET") throw err;
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  }
  const body = Buffer.from(await res.arrayBuffer());
  return { res, body, ms: performance.now() - t0 };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// workerdCPU is the CPU time, in milliseconds, that the workerd processes
// under a wrangler dev (the process group pgid leads) have used so far:
// every thread's time on a CPU, from /proc/PID/task/TID/schedstat
// (nanoseconds). Linux only.
export function workerdCPU(pgid) {
  let ns = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat;
    try { stat = readFileSync(`/proc/${pid}/stat`, "utf8"); } catch { continue; }
    // comm may hold spaces: the fields after it start past the last ")".
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (comm !== "workerd" || Number(fields[2]) !== pgid) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try { ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]); } catch { /* thread gone */ }
    }
  }
  return ns / 1e6;
}

// loadWorkerModule loads the Worker's Go module from a build folder into
// this node process and returns handle(request), which answers one
// request as the Worker does (through the Worker's own instance.mjs and
// syumai/workers' binding) and also says how large the instance's linear
// memory is after it: wasm memory only grows, so on a fresh instance that
// is the request's peak, what counts against a Worker's 128 MB. By default
// every request gets a fresh instance, as syumai/workers' own entry would
// start; with { keep: true } the requests share one server, as in the
// Worker (options go to newServer, e.g. maxMemory), and handle.server is
// it.
export async function loadWorkerModule(build, { keep = false, ...options } = {}) {
  await import(join(build, "wasm_exec.js"));
  globalThis.tryCatch ??= (fn) => {
    try { return { result: fn() }; } catch (error) { return { error }; }
  };
  const { newServer } = await import(join(build, "instance.mjs"));
  const mod = await WebAssembly.compile(readFileSync(join(build, "app.wasm")));
  const shared = newServer(mod, options);
  const handle = async function handle(request) {
    const server = keep ? shared : newServer(mod, options);
    const res = await server(request, {}, {});
    const body = Buffer.from(await res.arrayBuffer());
    const inst = server.last();
    return { res, body, memory: inst.memory.buffer.byteLength, instance: inst };
  };
  handle.server = shared;
  return handle;
}

// worstCases writes the costliest requests the Worker's limits accept
// (internal/api/worst) into dir and returns them with their bodies.
export function worstCases(dir) {
  run("go", ["run", "internal/api/worst/write.go", "-worker", dir]);
  return JSON.parse(readFileSync(join(dir, "index.json"), "utf8"))
    .map((c) => ({ ...c, body: readFileSync(join(dir, c.file)) }));
}
