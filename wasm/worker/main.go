//go:build js && wasm

// Command worker is kwire's Cloudflare Worker: the JSON API of package api
// served from WebAssembly through github.com/syumai/workers. The docs site
// and the playground are Workers static assets (see wrangler.jsonc); only
// /api/* reaches this code.
//
// Build it with worker/build.sh, run it with wrangler dev; README.md in
// this folder says how to deploy it.
package main

import (
	"github.com/kwire/kwire/internal/api"
	"github.com/syumai/workers"
)

func main() {
	workers.Serve(api.New(api.WorkerOptions))
}
