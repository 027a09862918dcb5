#!/usr/bin/env bash
# Builds the Cloudflare Worker into OUT (default wasm/worker/build): the Go
# WebAssembly module app.wasm and syumai/workers' JavaScript shim
# (runtime.mjs, wasm_exec.js), generated offline from the Go module cache
# by workers-assets-gen, with our own entry (worker.mjs, instance.mjs: one
# Go instance per isolate serves every request). internal/wasmprep merges
# app.wasm's data segments. Prints the sizes and fails when the Worker is
# over 3 MB gzip, the free plan's limit.
#
#   wasm/worker/build.sh [OUT]
#   WASM_OPT=1 wasm/worker/build.sh   # also run wasm-opt -Oz
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-wasm/worker/build}
limit=3000000

# workers-assets-gen empties its output folder first.
go run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o "$out"
GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$out/app.wasm" ./wasm/worker
go run ./internal/wasmprep "$out/app.wasm" >/dev/null
cp wasm/worker/worker.mjs wasm/worker/instance.mjs "$out/"
# wasm-opt (WASM_OPT=1) takes minutes and saves about 0.5% gzip on this
# module, so it is opt-in.
if [ "${WASM_OPT:-0}" = 1 ] && command -v wasm-opt >/dev/null; then
	wasm-opt -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
		"$out/app.wasm" -o "$out/app.opt.wasm"
	mv "$out/app.opt.wasm" "$out/app.wasm"
elif [ "${WASM_OPT:-0}" = 1 ]; then
	echo "worker: wasm-opt not found; app.wasm is not optimised" >&2
fi

raw=$(wc -c <"$out/app.wasm")
gz=$(gzip -9 -c "$out/app.wasm" | wc -c)
total=$(cat "$out/app.wasm" "$out"/*.mjs "$out/wasm_exec.js" | gzip -9 | wc -c)
echo "worker: app.wasm $raw bytes raw, $gz bytes gzip; Worker total $total bytes gzip (limit $limit)"
if [ "$total" -ge "$limit" ]; then
	echo "worker: over the 3 MB gzip limit" >&2
	exit 1
fi
