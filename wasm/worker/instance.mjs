// Runs the Worker's Go module (app.wasm) as one instance that serves every
// request its isolate gets, through syumai/workers' own binding: the
// instance is started as syumai/workers' worker.mjs starts one (go.run on
// a runtime context { env, ctx, binding, ... }, then the workers.ready
// import), and each request goes to binding.handleRequest, which
// syumai/workers' Go side set at its init (with its body read already:
// goRequest). Its worker.mjs starts a new instance for every request;
// main.go says why that is not needed here.
//
// Why: a fresh instance made each request pay for instantiating the
// module, the Go runtime's start and every package's init before a byte
// was decoded, most of a small request's CPU time (internal/bench/startup
// measures it). The API handler keeps no state between requests (beyond
// its Limiter's count of decodes running), so sharing the instance
// shares nothing else.
//
// The instance is dropped, and the next request starts a new one, when its
// Go program has exited (it never does on its own) or when its linear
// memory has grown past MAX_MEMORY_BYTES (wasm memory never shrinks; the
// largest accepted request peaks at about 32 MiB, half of an isolate's 128
// MB is the Worker's budget). Requests still in flight on a dropped
// instance finish on it.

export const MAX_MEMORY_BYTES = 64 << 20;

// MAX_DRAIN_BYTES bounds how much of a body over the limit is read, and
// dropped, before its 413 is answered (see readBody).
export const MAX_DRAIN_BYTES = 4 << 20;

// readBody reads req's body and keeps at most limit+1 bytes of it: the
// handler answers 413 past limit, so more would be kept for nothing (a
// body whose Content-Length is over the limit is kept not at all: the
// handler answers 413 from the header). The rest of a body over the limit
// is read to its end and dropped, not left unread: a body left half read,
// its reader released or cancelled, made wrangler dev's proxy fail the
// request after the 413 ("Your worker restarted mid-request", a 503 to the
// next POST), and a client that sends the whole body before reading the
// answer gets it. Past MAX_DRAIN_BYTES (8 times the Worker's limit) the
// rest is cancelled all the same, at once when Content-Length says it is
// that long: reading costs CPU time (4 MiB sent chunked took some 100 ms of
// workerd's CPU under wrangler dev, its proxy included), which a body that
// large is not worth. (Cancelled midway, such a body can still upset
// wrangler dev's proxy.)
async function readBody(req, limit) {
  const length = Number(req.headers.get("content-length"));
  if (length > limit && length > MAX_DRAIN_BYTES) {
    await req.body.cancel().catch(() => {});
    return new Uint8Array(0);
  }
  const reader = req.body.getReader();
  const keep = length > limit ? 0 : limit + 1;
  const chunks = [];
  let n = 0;
  try {
    for (;;) {
      if (n > limit && n > MAX_DRAIN_BYTES) {
        await reader.cancel();
        break;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (n < keep) chunks.push(value);
      n += value.byteLength;
    }
  } catch {
    // The client went away: what was read is all there is.
  }
  reader.releaseLock();
  if (chunks.length === 1) return chunks[0];
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

// goRequest is what binding.handleRequest is given for req: the fields
// syumai/workers reads from a Request (internal/jshttp.ToRequest: url,
// method, headers, body), with the body already read, as { bytes }, which
// wasm/worker/whole's bodyBytes takes whole (a stream would be read through one
// JavaScript promise per chunk).
async function goRequest(req, maxBody) {
  const body = req.body === null ? null : { bytes: await readBody(req, maxBody) };
  return { url: req.url, method: req.method, headers: req.headers, body, cf: req.cf };
}

// start instantiates mod and runs its Go program up to the point where it
// waits for requests (workers.ready, called before go.run returns).
// globalThis.Go (wasm_exec.js, syumai/workers' copy that gives the Go side
// its runtime context) must be loaded.
function start(mod, context) {
  const go = new Go();
  let ready = false;
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => { ready = true; } },
  });
  const inst = { go, instance, context, memory: instance.exports.mem, dead: false, served: 0, inFlight: new Set() };
  // A Go program that exits with requests in flight (a runtime fault:
  // panics in the handler are recovered) would answer none of them: they
  // fail instead.
  const die = (err) => {
    inst.dead = true;
    for (const reject of inst.inFlight) reject(new Error("the Worker's Go program exited" + (err ? ": " + err : "")));
    inst.inFlight.clear();
  };
  go.run(instance, context).then(() => die(), die);
  if (!ready || typeof context.binding.handleRequest !== "function") {
    inst.dead = true;
    throw new Error("app.wasm did not get ready to serve");
  }
  return inst;
}

// newServer returns handle(request, env, ctx) -> Promise<Response>, which
// runs every request on one kept instance of mod (a new one after the
// conditions above; maxMemory in place of MAX_MEMORY_BYTES when given).
// newContext({ env, ctx, binding }) makes the runtime context
// (syumai/workers' createRuntimeContext from runtime.mjs in the Worker).
// The instance reads that object at its start and keeps it: each request
// sets its env and ctx on it before it reaches Go. env is the same for
// every request of a Worker; ctx (waitUntil) is the latest request's, so a
// handler that used cloudflare.WaitUntil could be given another request's
// (kwire's uses neither). For tests: handle.kept() is the instance kept
// now, if any, handle.last() the one that took the last request.
export function newServer(mod, { newContext = (c) => c, maxMemory = MAX_MEMORY_BYTES } = {}) {
  let inst, last;
  const handle = async function handle(req, env, ctx) {
    if (inst === undefined || inst.dead) inst = start(mod, newContext({ env, ctx, binding: {} }));
    const cur = inst;
    last = cur;
    cur.served++;
    const goReq = await goRequest(req, cur.context.binding.maxBody);
    cur.context.env = env;
    cur.context.ctx = ctx;
    try {
      return await new Promise((resolve, reject) => {
        if (cur.dead) return reject(new Error("the Worker's Go program exited"));
        cur.inFlight.add(reject);
        cur.context.binding.handleRequest(goReq).then(resolve, reject).finally(() => cur.inFlight.delete(reject));
      });
    } finally {
      if (inst === cur && (cur.dead || cur.memory.buffer.byteLength > maxMemory)) inst = undefined;
    }
  };
  handle.kept = () => inst;
  handle.last = () => last;
  return handle;
}
