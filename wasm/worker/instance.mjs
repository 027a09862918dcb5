// Runs the Worker's Go module the way syumai/workers' worker.mjs does (a
// fresh Go instance for every request), with one difference: the
// instance's linear memory is one kept from an earlier request when one is
// free, zeroed, instead of a new one. build.sh makes app.wasm import its
// memory (kwire.mem, internal/wasmprep) for this.
//
// Why: on a fresh memory every page the instance touches (the module's
// data, some 2.4 MB, then the heap) costs a page fault, which was most of
// a small request's time (measured under wrangler dev: internal/bench/
// startup). A kept memory has its pages already; zeroing it is a memset.
// Nothing else is kept: each request still gets a fresh Go runtime, heap
// and module data, on memory as zero as a new one, so no request can see
// or change another's state.
//
// A memory goes back to the pool when its Go program has exited (the
// response is read to the end) and only if it did not grow past
// MAX_KEPT_BYTES; at most MAX_KEPT are kept. An isolate has 128 MB.

export const MAX_KEPT = 4;
export const MAX_KEPT_BYTES = 16 << 20;

// newRunner returns run(context), which starts the Go module mod on a
// memory from the pool (or a new one of pages 64 KiB pages) and resolves
// once the Go side is ready (workers.ready), with the instance and its
// memory; the Go program's exit gives the memory back. globalThis.Go
// (wasm_exec.js) must be loaded.
export function newRunner(mod, pages) {
  const free = [];
  return async function run(context) {
    let memory = free.pop();
    if (memory) new Uint8Array(memory.buffer).fill(0);
    else memory = new WebAssembly.Memory({ initial: pages });
    const go = new Go();
    let ready;
    const readyPromise = new Promise((resolve) => {
      ready = resolve;
    });
    const instance = new WebAssembly.Instance(mod, {
      ...go.importObject,
      kwire: { mem: memory },
      workers: {
        ready: () => {
          ready();
        },
      },
    });
    const exited = go.run(instance, context);
    exited.then(() => {
      // Timers the Go runtime left would resume an exited program (which
      // throws, touching no memory); they are dropped all the same.
      for (const t of go._scheduledTimeouts.values()) clearTimeout(t);
      go._scheduledTimeouts.clear();
      if (free.length < MAX_KEPT && memory.buffer.byteLength <= MAX_KEPT_BYTES) free.push(memory);
    }, () => {}); // a program that failed keeps its memory: it is dropped
    await readyPromise;
    return { instance, memory, exited };
  };
}
