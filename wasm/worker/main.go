//go:build js && wasm

// Command worker is kwire's Cloudflare Worker: the JSON API of package api
// served from WebAssembly through github.com/syumai/workers. The docs site
// and the playground are Workers static assets (see wrangler.jsonc); only
// /api/* reaches this code.
//
// One Go instance serves every request of its isolate. syumai/workers
// converts each request and response (its binding.handleRequest, set at
// its package init), but its Serve answers one request and returns: the
// first response body read to its end closes the channel Done returns
// (handler_js.go, appCloser.Close), so main would exit, and a second
// response would close that channel again and panic. So main uses
// ServeNonBlock and Ready and never returns, and the handler (package
// whole) hands each answer to syumai/workers as a JavaScript body of its
// own (WriteRawJSBody, which syumai/workers' ResponseWriter offers for
// bodies that already live in JavaScript): the pipe whose closing closes
// that channel is never read, and the answer needs no JavaScript stream
// pulled chunk by chunk through Go. instance.mjs keeps the instance and
// calls binding.handleRequest for each request.
//
// Build it with build.sh, run it with wrangler dev; README.md in this
// folder says how to deploy it.
package main

import (
	"syscall/js"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/wasm/worker/whole"
	"github.com/syumai/workers"
)

func main() {
	workers.ServeNonBlock(whole.Handler(api.New(api.WorkerOptions)))
	// instance.mjs reads each body up to this, plus one byte (api answers
	// 413 past it), and hands it over whole (package whole).
	js.Global().Get("context").Get("binding").Set("maxBody", api.WorkerOptions.MaxBody)
	workers.Ready()
	// Requests arrive as JavaScript calls into the instance; main stays
	// blocked so that the Go program never exits.
	select {}
}
