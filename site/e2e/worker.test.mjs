// The Cloudflare Worker under `wrangler dev` (workerd), offline on
// 127.0.0.1: every API route with good and bad input, the docs site and the
// playground's wasm from the static assets, content types, and the cold and
// warm latency of the Go Worker.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { mkdirSync, writeFileSync, readdirSync, readFileSync } from "node:fs";
import {
  tempDir, buildWorker, buildAssets, workerConfig, startWrangler, timed, median, workerdCPU, loadWorkerModule, worstCases,
} from "./helpers-worker.mjs";

// The README's ApiVersions v3 request (client "kwire", correlation id 7).
const frameHex = "0000001b001200030000000700056b7769726500066b7769726504312e3000";
const frame = Buffer.from(frameHex, "hex");

let tmp, wr, assets, build;

before(async () => {
  tmp = tempDir();
  build = join(tmp.dir, "build");
  const sizes = buildWorker(build);
  console.log(sizes);
  // A module an earlier make wasm left at the assets' root (make site
  // removes it: see the static assets test).
  mkdirSync(join(tmp.dir, "dist"), { recursive: true });
  writeFileSync(join(tmp.dir, "dist", "kwire.wasm"), "left by an earlier make wasm");
  assets = buildAssets(join(tmp.dir, "dist"), build);
  console.log(`worker e2e: assets from ${assets.kind}; docs page ${assets.docs}, wasm ${assets.wasm}`);
  wr = await startWrangler(tmp.dir, workerConfig(build, join(tmp.dir, "dist")));
}, { timeout: 12 * 60_000 });

after(async () => {
  if (wr) await wr.stop();
  if (tmp) tmp.cleanup();
}, { timeout: 30_000 });

const api = (path, init) => timed(wr.url + path, init);
const post = (path, body, type = "application/octet-stream") =>
  api(path, { method: "POST", body, headers: { "content-type": type } });

function json(r) {
  assert.equal(r.res.headers.get("content-type"), "application/json");
  return JSON.parse(r.body.toString("utf8"));
}

// An error answer: the status and the full error shape.
function error(r, status) {
  assert.equal(r.res.status, status, r.body.toString());
  const e = json(r);
  for (const k of ["error", "offset", "path", "expected", "found"]) assert.ok(k in e, `${k} missing in ${r.body}`);
  assert.ok(e.error.length > 0);
  return e;
}

// Latency first, so the first request is the Worker's first.
test("latency: first request and warm requests", async () => {
  const cold = await api("/api/apis");
  assert.equal(cold.res.status, 200);
  const warm = [];
  for (let i = 0; i < 20; i++) warm.push((await api("/api/apis")).ms);
  const decode = [];
  for (let i = 0; i < 20; i++) {
    const r = await post("/api/decode", frame);
    assert.equal(r.res.status, 200);
    decode.push(r.ms);
  }
  const asset = [];
  for (let i = 0; i < 20; i++) asset.push((await api("/")).ms);
  console.log(`worker latency under wrangler dev: first request (GET /api/apis) ${cold.ms.toFixed(1)} ms; ` +
    `warm median of 20: GET /api/apis ${median(warm).toFixed(1)} ms, POST /api/decode ${median(decode).toFixed(1)} ms, ` +
    `static GET / ${median(asset).toFixed(1)} ms`);
});

test("GET /api/apis lists every API", async () => {
  const list = json(await api("/api/apis"));
  assert.ok(Array.isArray(list) && list.length >= 90);
  assert.deepEqual(list[0], { ...list[0], key: 0, name: "Produce" });
  assert.ok(list.every((a) => typeof a.minVersion === "number" && typeof a.category === "string"));
});

test("GET /api/schema/{api}/{version}", async () => {
  const r = await api("/api/schema/Metadata/12");
  assert.equal(r.res.status, 200);
  const d = json(r);
  assert.equal(d.name, "Metadata");
  assert.equal(d.version, 12);
  assert.match(d.request.bnf, /Metadata Request \(Version: 12\)/);
  assert.ok(d.request.fields.length > 0 && d.response.fields.length > 0);
  assert.equal(json(await api("/api/schema/3/0")).key, 3);
  error(await api("/api/schema/Nope/1"), 404);
  error(await api("/api/schema/Metadata/999"), 404);
  error(await api("/api/schema/Metadata/x"), 400);
  error(await api("/api/schema/Metadata/1", { method: "POST", body: "x" }), 405);
});

test("POST /api/decode: bytes, hex, base64, annotated, responses", async () => {
  for (const [body, type] of [
    [frame, "application/octet-stream"],
    [frameHex, "text/plain"],
    [frameHex.match(/../g).join(" ") + "\n", "text/plain"],
    [frame.toString("base64"), "text/plain"],
  ]) {
    const r = await post("/api/decode", body, type);
    assert.equal(r.res.status, 200, r.body.toString());
    const v = json(r);
    assert.equal(v.apiName, "ApiVersions");
    assert.equal(v.header.correlationId, 7);
  }
  const unsized = await post("/api/decode?sizePrefix=false", frame.subarray(4));
  assert.equal(json(unsized).apiVersion, 3);
  const ann = json(await post("/api/decode?format=annotated", frame));
  assert.ok(Array.isArray(ann.root.children));

  // A response: a Metadata v12 response the Worker encodes from a minimal
  // envelope (defaults for every field), decoded back with api and version.
  const env = { direction: "response", apiKey: 3, apiVersion: 12, header: { correlationId: 9 }, body: {} };
  const enc = await post("/api/encode", JSON.stringify(env), "application/json");
  assert.equal(enc.res.status, 200, enc.body.toString());
  const resp = json(await post("/api/decode?direction=response&api=Metadata&version=12", enc.body));
  assert.equal(resp.direction, "response");
  assert.equal(resp.header.correlationId, 9);
});

// kafka=1: Kafka's own JSON form. A Produce request's records and a
// JoinGroup request's consumer-protocol metadata are base64 strings (by
// default they decode into batches and a subscription), the body has no
// key of kwire's own, and the form encodes back to the same bytes.
test("POST /api/decode?kafka=1: Kafka's own JSON form", async () => {
  // codec.ExampleRecords: one uncompressed batch, one record (key "k", value "v", one header).
  const records = "AAAAAAAAAAAAAAA+AAAAAAL8JTYnAAAAAAAAAAABlHaYIMAAAAGUdpggwP//////////////////AAAAARgAAAACawJ2AgJoAng=";
  const produce = { apiName: "Produce", apiVersion: 9, header: { correlationId: 5, clientId: "kwire" },
    body: { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: "orders", partitionData: [{ index: 0, records }] }] } };
  const join = { apiName: "JoinGroup", apiVersion: 9, header: { correlationId: 3, clientId: "c" },
    body: { groupId: "billing", sessionTimeoutMs: 45000, rebalanceTimeoutMs: 60000, memberId: "", groupInstanceId: null,
      protocolType: "consumer", protocols: [{ name: "range", metadata:
        { version: 3, topics: ["orders"], userData: null, ownedPartitions: [], generationId: 4, rackId: null } }], reason: null } };
  for (const [name, env, get] of [
    ["Produce records", produce, (b) => b.topicData[0].partitionData[0].records],
    ["JoinGroup metadata", join, (b) => b.protocols[0].metadata],
  ]) {
    const enc = await post("/api/encode", JSON.stringify(env), "application/json");
    assert.equal(enc.res.status, 200, `${name}: ${enc.body}`);
    const def = get(json(await post("/api/decode", enc.body)).body);
    assert.equal(typeof def, "object", `${name}: the default form decodes it`);
    assert.ok(def !== null);
    for (const q of ["?kafka=1", "?kafka=true&records=base64"]) {
      const r = await post("/api/decode" + q, enc.body);
      assert.equal(r.res.status, 200, `${name} ${q}: ${r.body}`);
      const v = json(r);
      const got = get(v.body);
      assert.equal(typeof got, "string", `${name} ${q}: ${JSON.stringify(got)}`);
      assert.ok(enc.body.includes(Buffer.from(got, "base64")), `${name} ${q}: the field's own bytes`);
      if (name === "Produce records") assert.equal(got, records);
      const body = JSON.stringify(v.body);
      assert.ok(!body.includes('"_'), `${name} ${q}: no kwire-only key: ${body}`);
      assert.ok(!body.includes('"baseOffset"') && !body.includes('"topics":['), `${name} ${q}: nothing nested: ${body}`);
      const again = await post("/api/encode", r.body, "application/json");
      assert.equal(again.res.status, 200, again.body.toString());
      assert.deepEqual(again.body, enc.body, `${name} ${q}: reads back to the same frame`);
    }
  }
  assert.equal(error(await post("/api/decode?kafka=maybe", frame), 400).path, "?kafka");
  assert.equal(error(await post("/api/decode?kafka=1&format=annotated", frame), 400).path, "?kafka");
});

test("POST /api/decode: bad input gets 400 with offset, path, expected, found", async () => {
  error(await post("/api/decode", Buffer.alloc(0)), 400);
  const garbage = error(await post("/api/decode", "this is not a frame at all", "text/plain"), 400);
  assert.equal(typeof garbage.offset, "number");
  error(await post("/api/decode", Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x01])), 400);
  for (const n of [3, 8, 12, 17, 25, frame.length - 1]) {
    const e = error(await post("/api/decode", frame.subarray(0, n)), 400);
    assert.equal(typeof e.offset, "number", `${n} bytes: ${JSON.stringify(e)}`);
    assert.ok(e.expected && e.found, `${n} bytes: ${JSON.stringify(e)}`);
    if (n >= 12) assert.ok(e.path.length > 0 && "partial" in e, `${n} bytes: ${JSON.stringify(e)}`);
  }
  const bad = error(await post("/api/decode?direction=sideways", frame), 400);
  assert.equal(bad.path, "?direction");
  error(await post("/api/decode?direction=response&api=Nope", frame), 400);
  // Over 1 MiB: 413.
  error(await post("/api/decode", Buffer.alloc((1 << 20) + 1)), 413);
  error(await post("/api/decode", "00".repeat(1 << 20), "text/plain"), 413);
});

// A body over the limit, chunked (no length) or with a length, is answered
// 413, and the request after it as usual: instance.mjs reads such a body to
// its end (up to MAX_DRAIN_BYTES), where it used to leave it half read,
// which made wrangler dev's proxy answer the next POST with its own 503
// ("Your worker restarted mid-request").
test("a body over the limit, chunked or with a length, then a request: 413, then 200", async () => {
  const octet = { "content-type": "application/octet-stream" };
  for (let i = 0; i < 3; i++) {
    for (const [name, init] of [
      ["chunked", () => ({ method: "POST", body: chunked(600 << 10), duplex: "half", headers: octet })],
      ["with a length", () => ({ method: "POST", body: Buffer.alloc((512 << 10) + 1), headers: octet })],
    ]) {
      const over = await api("/api/decode", init());
      assert.equal(error(over, 413).expected, `at most ${512 << 10} bytes`, name);
      const next = await post("/api/decode", frameHex, "text/plain");
      assert.equal(next.res.status, 200, `${name}, round ${i}: the request after the 413: ${next.body.subarray(0, 200)}`);
      assert.equal(json(next).header.correlationId, 7);
    }
  }
});

// What instance.mjs reads of a body over the limit, in node through the
// Worker's own module: all of it up to MAX_DRAIN_BYTES, past that no more
// than that before it cancels the rest, and nothing of a body whose length
// says it is past that.
test("instance.mjs: a body over the limit is read to its end, up to MAX_DRAIN_BYTES", async () => {
  const { MAX_DRAIN_BYTES } = await import(join(build, "instance.mjs"));
  const handle = await loadWorkerModule(build, { keep: true });
  const counted = (n) => {
    const s = { pulled: 0, cancelled: false };
    let left = n;
    s.body = new ReadableStream({
      pull(c) {
        const k = Math.min(left, 64 << 10);
        if (k === 0) return c.close();
        left -= k;
        s.pulled += k;
        c.enqueue(new Uint8Array(k).fill(0x30));
      },
      cancel() { s.cancelled = true; },
    });
    return s;
  };
  const octet = { "content-type": "application/octet-stream" };
  for (const n of [(512 << 10) + 100_000, 2 << 20, MAX_DRAIN_BYTES]) {
    const s = counted(n);
    const r = await handle(new Request("http://worker/api/decode", { method: "POST", body: s.body, duplex: "half", headers: octet }));
    assert.equal(r.res.status, 413);
    assert.equal(s.pulled, n, `${n} bytes chunked: read to the end`);
    assert.ok(!s.cancelled, `${n} bytes chunked: not cancelled`);
  }
  const s = counted(MAX_DRAIN_BYTES + (1 << 20));
  const r = await handle(new Request("http://worker/api/decode", { method: "POST", body: s.body, duplex: "half", headers: octet }));
  assert.equal(r.res.status, 413);
  assert.ok(s.cancelled && s.pulled <= MAX_DRAIN_BYTES + (128 << 10), `past MAX_DRAIN_BYTES: cancelled after ${s.pulled} bytes`);
  const long = counted(MAX_DRAIN_BYTES + 1);
  const l = await handle(new Request("http://worker/api/decode", { method: "POST", body: long.body, duplex: "half",
    headers: { ...octet, "content-length": String(MAX_DRAIN_BYTES + 1) } }));
  assert.equal(l.res.status, 413);
  assert.ok(long.cancelled && long.pulled <= 128 << 10, `a length past MAX_DRAIN_BYTES: cancelled after ${long.pulled} bytes`);
  const ok = await handle(new Request("http://worker/api/decode", { method: "POST", body: frame, headers: octet }));
  assert.equal(ok.res.status, 200);
});

test("POST /api/encode: value JSON to bytes, hex; wrong JSON gets 400", async () => {
  const value = (await post("/api/decode", frame)).body;
  const r = await post("/api/encode", value, "application/json");
  assert.equal(r.res.status, 200);
  assert.equal(r.res.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual(r.body, frame);
  const h = await post("/api/encode?as=hex", value, "application/json");
  assert.equal(h.res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(h.body.toString(), frameHex + "\n");

  error(await post("/api/encode", "", "application/json"), 400);
  const syntax = error(await post("/api/encode", '{"apiKey": 18,', "application/json"), 400);
  assert.equal(syntax.offset, 14);
  const wrong = JSON.parse(value.toString());
  wrong.body.clientName = wrong.body.clientSoftwareName;
  delete wrong.body.clientSoftwareName;
  assert.equal(error(await post("/api/encode", JSON.stringify(wrong), "application/json"), 400).path, "body.clientName");
  const typed = JSON.parse(value.toString());
  typed.header.correlationId = "seven";
  const e = error(await post("/api/encode", JSON.stringify(typed), "application/json"), 400);
  assert.equal(e.path, "header.correlationId");
  assert.equal(e.expected, "an integer");
  error(await post("/api/encode", "[1,2,3]", "application/json"), 400);
  // A frame's hex is named, with what to send instead; annotated JSON is
  // read back as its frame's value JSON, or refused saying why.
  assert.match(error(await post("/api/encode", frameHex, "text/plain"), 400).error, /^hex, not JSON: .*\/api\/decode/);
  const ann = (await post("/api/decode?format=annotated", frame)).body;
  const back = await post("/api/encode", ann, "application/json");
  assert.equal(back.res.status, 200);
  assert.equal(Buffer.from(back.body).toString("hex"), Buffer.from(frame).toString("hex"));
  const cut = '{"apiKey":0,"apiVersion":9,"buffers":[9],"root":{"children":[{"role":"body","truncated":true}]}}';
  assert.match(error(await post("/api/encode", cut, "application/json"), 400).error, /^annotated JSON that cannot be encoded: .*send value JSON/);
  error(await post("/api/encode", "{".repeat((1 << 20) + 10), "application/json"), 413);
});

test("unknown routes get 404, wrong methods 405", async () => {
  error(await api("/api/nope"), 404);
  error(await api("/api/decode/more", { method: "POST", body: "00" }), 404);
  const m = error(await api("/api/decode"), 405);
  assert.equal(m.found, "GET");
  const r = await api("/api/apis", { method: "DELETE" });
  error(r, 405);
  assert.equal(r.res.headers.get("allow"), "GET, HEAD");
  // A preflight is answered (pages of any origin may call the API);
  // answers carry the origin header too, the static files do not.
  const pre = await api("/api/decode", { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
  assert.equal(pre.res.status, 204);
  assert.equal(pre.res.headers.get("access-control-allow-origin"), "*");
  assert.equal(pre.res.headers.get("access-control-allow-methods"), "GET, HEAD, POST");
  assert.equal(pre.res.headers.get("access-control-allow-headers"), "Content-Type");
  const cross = await api("/api/apis", { headers: { origin: "https://example.org" } });
  assert.equal(cross.res.status, 200);
  assert.equal(cross.res.headers.get("access-control-allow-origin"), "*");
  const head = await api("/api/apis", { method: "HEAD" });
  assert.equal(head.res.status, 200);
  assert.equal(head.res.headers.get("content-type"), "application/json");
  assert.equal(head.body.length, 0);
  // A path that is no file falls through to the Worker's 404: the API's
  // JSON error, naming the route a near miss was meant for, or for a
  // browser asking for a page (a mistyped docs URL: they live under
  // /api/<name>/, in lower case) an HTML page with the site's policy, as
  // kwire serve answers them (the same handler).
  error(await api("/no/such/page.html"), 404);
  error(await api("/api/Metadata/v12.html"), 404);
  assert.equal(error(await api("/api/decode/", { method: "POST", body: frameHex }), 404).error,
    "no such route: /api/decode/ (did you mean POST /api/decode?)");
  assert.match(error(await api("/api/foo"), 404).error, /^no such route: \/api\/foo \(routes: POST \/api\/decode, /);
  const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
  const page = await api("/api/Metadata/v12.html", { headers: { accept: browser } });
  assert.equal(page.res.status, 404);
  assert.equal(page.res.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(page.res.headers.get("content-security-policy") || "", /frame-ancestors 'none'/);
  const text = page.body.toString();
  assert.match(text, /<h1>Not found<\/h1>/);
  assert.ok(text.includes('href="../../index.html"') && text.includes('href="../../search.html?q=Metadata+v12"'), text);
  // Its lower case is suggested, as it is a page; v99's is not, being none.
  assert.ok(text.includes("Page names are lower case: <code>/api/metadata/v12.html</code>?"), text);
  const v99 = await api("/api/Metadata/v99.html", { headers: { accept: browser } });
  assert.equal(v99.res.status, 404);
  assert.ok(!v99.body.toString().includes("lower case"), v99.body.toString());
  // A route keeps its JSON, whatever the Accept.
  error(await api("/api/decode", { headers: { accept: browser } }), 405);
});

test("static assets: the site, a docs page under /api/, the wasm module", async () => {
  const home = await api("/");
  assert.equal(home.res.status, 200);
  assert.match(home.res.headers.get("content-type"), /^text\/html/);
  assert.match(home.body.toString(), /<html|<!doctype/i);

  // The JSON API's own page, and an internal record type's folder (its
  // versions), as kwire serve answers them.
  if (assets.kind === "make site") {
    const j = await api("/json-api.html");
    assert.equal(j.res.status, 200);
    assert.match(j.body.toString(), /<h1>The JSON API<\/h1>/);
    const rec = await api("/internal/cluster_metadata/aborttransactionrecord/");
    assert.equal(rec.res.status, 200);
    assert.match(rec.body.toString(), /<h1>AbortTransactionRecord /);
  }

  const docs = await api(assets.docs);
  assert.equal(docs.res.status, 200, assets.docs);
  assert.match(docs.res.headers.get("content-type"), /^text\/html/);
  // Without the extension too (html_handling), beside the API routes.
  const bare = await api(assets.docs.replace(/\.html$/, ""));
  assert.equal(bare.res.status, 200, assets.docs);
  assert.match(bare.res.headers.get("content-type"), /^text\/html/);

  // Every page says no other origin may frame it (the site's _headers,
  // which a meta tag cannot say), and _headers itself is not served.
  for (const page of [home, docs, bare]) {
    assert.match(page.res.headers.get("content-security-policy") || "", /frame-ancestors 'none'/);
    assert.equal(page.res.headers.get("x-content-type-options"), "nosniff");
  }
  assert.notEqual((await api("/_headers")).res.status, 200, "_headers is read, not served");

  const wasm = await api(assets.wasm);
  assert.equal(wasm.res.status, 200);
  assert.equal(wasm.res.headers.get("content-type"), "application/wasm");
  assert.deepEqual(wasm.body.subarray(0, 4), Buffer.from([0x00, 0x61, 0x73, 0x6d]));

  // A file named by its content hash is cached for good, as kwire serve
  // sends it (the site's _headers); a page is revalidated.
  if (assets.kind === "make site") {
    // The assets a deploy uploads hold the playground's modules as their
    // content-hashed copies only: make site builds the modules beside the
    // assets (make wasm wrote 26 MB of un-hashed ones into them, which
    // nothing loads), and removes those an earlier build left there.
    const dist = join(tmp.dir, "dist");
    const unhashed = /^(kwire|capture|storage|payload|inflate)\.wasm$|^wasm_exec\.js$/;
    assert.deepEqual(readdirSync(dist).filter((f) => unhashed.test(f)), [], "un-hashed modules at the assets' root");
    assert.equal((await api("/kwire.wasm")).res.status, 404);
    const named = [];
    const walk = (d) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(html|js|json|css|webmanifest)$/.test(e.name) &&
          /(^|[^.\w])(kwire|capture|storage|payload|inflate)\.wasm|(^|[^.\w])wasm_exec\.js/.test(readFileSync(p, "utf8"))) named.push(relative(dist, p));
      }
    };
    walk(dist);
    assert.deepEqual(named, [], "files that name an un-hashed module (the pages, the playground, its sw.js)");
    assert.match(assets.wasm, /\.[0-9a-f]{10}\.wasm$/);
    assert.equal(wasm.res.headers.get("cache-control"), "public, max-age=31536000, immutable", assets.wasm);
    assert.doesNotMatch(home.res.headers.get("cache-control") || "", /immutable/);
  }
});

// The Go instance's memory (wasm memory only grows: its size after a
// request is the request's peak) must leave room under a Worker isolate's
// 128 MB for other requests running beside it: api.WorkerOptions keep
// every accepted request within half of it (wasm/worker/README.md).
const workerMemory = 64 << 20;

// The costliest requests the Worker's limits accept (internal/api/worst):
// each is answered 200 under workerd, its Go instance stays within
// workerMemory, and the CPU time workerd spent on it is reported, the
// first time (V8 still runs the code paths it meets first unoptimised) and
// the least of three. Times are reported, never asserted.
test("the costliest accepted requests: CPU time under workerd, memory per Go instance", { timeout: 15 * 60_000 }, async () => {
  const cases = worstCases(join(tmp.dir, "worst"));
  const handle = await loadWorkerModule(build);
  const cpu = async (f) => {
    const c0 = workerdCPU(wr.pid);
    const r = await f();
    return { r, cpu: workerdCPU(wr.pid) - c0 };
  };
  // What a request costs before any decoding: the smallest answers.
  const apis = [], small = [];
  for (let i = 0; i < 5; i++) {
    apis.push((await cpu(() => api("/api/apis"))).cpu);
    small.push((await cpu(() => post("/api/decode", frame))).cpu);
  }
  const rows = [`GET /api/apis ${median(apis).toFixed(0)} ms, POST /api/decode of a 31-byte frame ${median(small).toFixed(0)} ms (medians of 5)`];
  let slowest = { cpu: 0 };
  for (const c of cases) {
    const init = { method: "POST", body: c.body, headers: { "content-type": c.contentType } };
    const runs = [];
    let r;
    for (let i = 0; i < 3; i++) {
      const m = await cpu(() => timed(wr.url + c.route + c.query, init, 120_000));
      r = m.r;
      assert.equal(r.res.status, 200, `${c.name}: ${r.body.subarray(0, 300)}`);
      runs.push(m.cpu);
    }
    const m = await handle(new Request("http://worker" + c.route + c.query, init));
    assert.equal(m.res.status, 200, c.name);
    assert.equal(m.body.length, r.body.length, `${c.name}: the same module answers the same under node`);
    assert.ok(m.memory <= workerMemory, `${c.name}: the Go instance grew to ${m.memory >> 20} MiB, over ${workerMemory >> 20} MiB`);
    rows.push(`${c.name.padEnd(42)} CPU ${runs[0].toFixed(0).padStart(4)} ms first, ${Math.min(...runs).toFixed(0).padStart(4)} ms least; ` +
      `memory ${(m.memory >> 20).toString().padStart(3)} MiB; answer ${(r.body.length >> 10).toString().padStart(5)} KiB (${c.what})`);
    if (runs[0] > slowest.cpu) slowest = { cpu: runs[0], name: c.name };
  }
  console.log(`worker: workerd CPU time per request under wrangler dev\n  ${rows.join("\n  ")}\n` +
    `  slowest accepted request: ${slowest.name}, ${slowest.cpu.toFixed(0)} ms of CPU the first time`);
});

// A request over the body limit that says no length: a stream, sent
// chunked, of n bytes.
function chunked(n) {
  let left = n;
  return new ReadableStream({
    pull(c) {
      const k = Math.min(left, 64 << 10);
      if (k === 0) return c.close();
      left -= k;
      c.enqueue(new Uint8Array(k).fill(0x30));
    },
  });
}

// The requests beside the worst cases: small ones, bad ones, every route.
function everydayRequests() {
  const octet = { "content-type": "application/octet-stream" };
  return [
    { name: "small decode", path: "/api/decode", init: () => ({ method: "POST", body: frame, headers: octet }) },
    { name: "apis", path: "/api/apis", init: () => ({}) },
    { name: "HEAD apis", path: "/api/apis", init: () => ({ method: "HEAD" }) },
    { name: "schema", path: "/api/schema/Metadata/12", init: () => ({}) },
    { name: "annotated", path: "/api/decode?format=annotated", init: () => ({ method: "POST", body: frame, headers: octet }) },
    { name: "hex decode", path: "/api/decode", init: () => ({ method: "POST", body: frameHex, headers: { "content-type": "text/plain" } }) },
    { name: "garbage", path: "/api/decode", init: () => ({ method: "POST", body: "this is not a frame at all", headers: { "content-type": "text/plain" } }) },
    { name: "truncated", path: "/api/decode", init: () => ({ method: "POST", body: frame.subarray(0, 17), headers: octet }) },
    { name: "empty", path: "/api/decode", init: () => ({ method: "POST", body: Buffer.alloc(0), headers: octet }) },
    { name: "bad encode", path: "/api/encode", init: () => ({ method: "POST", body: '{"apiKey": 18,', headers: { "content-type": "application/json" } }) },
    { name: "404", path: "/api/nope", init: () => ({}) },
    { name: "405", path: "/api/decode", init: () => ({}) },
    // Bodies over the limit are answered 413, read to their end first
    // (instance.mjs, readBody): left half read, they made wrangler dev's
    // proxy fail the request after them with its own 503.
    { name: "over the limit, with a length", path: "/api/decode",
      init: () => ({ method: "POST", body: Buffer.alloc((512 << 10) + 1), headers: { ...octet, "content-length": String((512 << 10) + 1) } }) },
    { name: "over the limit, chunked", path: "/api/decode",
      init: () => ({ method: "POST", body: chunked((512 << 10) + 100_000), duplex: "half", headers: octet }) },
  ];
}

// One Go instance per isolate serves every request (wasm/worker/
// instance.mjs, through syumai/workers' binding.handleRequest). Sharing
// it must change nothing a client sees: the same answers, byte for byte,
// as a fresh instance per request (what syumai/workers' own entry does),
// after requests of every size and kind in any order. An instance that
// grew past maxMemory takes no new request, and serving many requests
// does not grow the instance (syumai/workers' stream reader leaves a
// js.Func behind per chunk read; wasm/worker/whole takes bodies whole instead).
test("one kept instance: the same answers as fresh ones, the grown one dropped, no growth per request", { timeout: 10 * 60_000 }, async () => {
  const { MAX_MEMORY_BYTES } = await import(join(build, "instance.mjs"));
  const cases = worstCases(join(tmp.dir, "worst-keep"));
  const fresh = await loadWorkerModule(build);
  const kept = await loadWorkerModule(build, { keep: true });
  const every = everydayRequests();
  const worst = cases.map((c) => ({
    name: c.name, path: c.route + c.query, init: () => ({ method: "POST", body: c.body, headers: { "content-type": c.contentType } }),
  }));
  const seq = [...every];
  for (const c of worst) seq.push(c, every[0], every[1], every[6]);
  let prev, instances = 0;
  for (const c of seq) {
    const want = await fresh(new Request("http://worker" + c.path, c.init()));
    const got = await kept(new Request("http://worker" + c.path, c.init()));
    assert.equal(got.res.status, want.res.status, c.name);
    assert.equal(got.res.headers.get("content-type"), want.res.headers.get("content-type"), c.name);
    assert.ok(got.body.equals(want.body), `${c.name}: the kept instance answers otherwise than a fresh one:\n${got.body.subarray(0, 200)}\n${want.body.subarray(0, 200)}`);
    if (got.instance !== prev) {
      instances++;
      assert.ok(prev === undefined || prev.memory.buffer.byteLength > MAX_MEMORY_BYTES,
        `${c.name}: a new instance although the last one had ${prev && prev.memory.buffer.byteLength >> 20} MiB`);
    }
    prev = got.instance;
  }
  const statuses = new Set((await Promise.all(every.map(async (c) => (await fresh(new Request("http://worker" + c.path, c.init()))).res.status))));
  assert.deepEqual([...statuses].sort(), [200, 400, 404, 405, 413], "the everyday requests cover every answer");

  // A server that keeps no instance past 16 MiB: the largest worst case
  // grows its instance past that, and the next request starts another.
  const small = await loadWorkerModule(build, { keep: true, maxMemory: 16 << 20 });
  let grown;
  for (const c of worst) {
    const r = await small(new Request("http://worker" + c.path, c.init()));
    assert.equal(r.res.status, 200, c.name);
    if (r.memory > 16 << 20) {
      grown = r.instance;
      break;
    }
  }
  assert.ok(grown, `none of the ${worst.length} worst cases grew an instance past 16 MiB`);
  assert.notEqual(small.server.kept(), grown, "an instance past maxMemory is not kept");
  const next = await small(new Request("http://worker/api/decode", every[0].init()));
  assert.equal(next.res.status, 200);
  assert.notEqual(next.instance, grown, "the request after it runs on a new instance");

  // Serving does not grow the instance: 5,000 more requests after 2,000 to
  // warm up (the Go heap settles at about 11.5 MiB) leave its memory and
  // its table of JavaScript values (Go's references to JS objects and
  // functions) where they were, give or take what the garbage collector
  // has not yet collected. (With syumai/workers reading the bodies, the
  // same 5,000 grew them from 12 to 15.3 MiB and from 15,699 to 35,765.)
  const steady = await loadWorkerModule(build, { keep: true });
  const round = async (n) => {
    let r;
    for (let i = 0; i < n; i++) {
      const c = every[[0, 1, 6, 7, 9][i % 5]];
      r = await steady(new Request("http://worker" + c.path, c.init()));
    }
    return r.instance;
  };
  const inst = await round(2000);
  const mem0 = inst.memory.buffer.byteLength, values0 = inst.go._values.length;
  assert.equal(await round(5000), inst, "one instance served them all");
  const mem1 = inst.memory.buffer.byteLength, values1 = inst.go._values.length;
  console.log(`kept instance: ${seq.length} requests on ${instances} instance(s); after 2,000 and 7,000 small requests: ` +
    `memory ${(mem0 / 2 ** 20).toFixed(1)} and ${(mem1 / 2 ** 20).toFixed(1)} MiB, JS value table ${values0} and ${values1}`);
  assert.ok(mem1 - mem0 <= 1 << 20, `the instance grew from ${mem0} to ${mem1} bytes over 5,000 requests`);
  assert.ok(values1 <= Math.max(2 * values0, 8192), `Go's JS value table grew from ${values0} to ${values1} over 5,000 requests`);
});

// Many requests at once reach the one instance under workerd: each gets
// the answer it gets alone, worst cases and bodies over the limit among
// them, and a request after them all is answered as usual.
test("concurrent requests under wrangler dev: every one answered as alone", { timeout: 10 * 60_000 }, async () => {
  const cases = worstCases(join(tmp.dir, "worst-concurrent"));
  const every = everydayRequests();
  const heavy = cases.slice(0, 3).map((c) => ({
    name: c.name, path: c.route + c.query, init: () => ({ method: "POST", body: c.body, headers: { "content-type": c.contentType } }),
  }));
  const kinds = [...every, ...heavy];
  const alone = new Map();
  for (const k of kinds) {
    const r = await timed(wr.url + k.path, k.init(), 120_000);
    alone.set(k, r);
  }
  for (let round = 0; round < 3; round++) {
    const batch = [];
    for (let i = 0; i < 4; i++) batch.push(...every);
    batch.push(...heavy);
    const got = await Promise.all(batch.map(async (k) => ({ k, r: await timed(wr.url + k.path, k.init(), 120_000) })));
    for (const { k, r } of got) {
      const want = alone.get(k);
      assert.equal(r.res.status, want.res.status, `round ${round}, ${k.name}: ${r.body.subarray(0, 200)}`);
      assert.ok(r.body.equals(want.body), `round ${round}, ${k.name}: an answer that differs from the one alone`);
    }
  }
  const after = await post("/api/decode", frame);
  assert.equal(after.res.status, 200);
  assert.equal(json(after).header.correlationId, 7);
});
