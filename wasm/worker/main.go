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
// ServeNonBlock and Ready and never returns, and the handler hands the
// whole answer to syumai/workers as a JavaScript body of its own
// (WriteRawJSBody, which syumai/workers' ResponseWriter offers for
// bodies that already live in JavaScript): the pipe whose closing closes
// that channel is never read, and the answer needs no JavaScript stream
// pulled chunk by chunk through Go. instance.mjs keeps the instance and
// calls binding.handleRequest for each request.
//
// Build it with build.sh, run it with wrangler dev; README.md in this
// folder says how to deploy it.
package main

import (
	"bytes"
	"io"
	"net/http"
	"syscall/js"

	"github.com/kwire/kwire/internal/api"
	"github.com/syumai/workers"
)

func main() {
	workers.ServeNonBlock(whole{api.New(api.WorkerOptions)})
	// instance.mjs reads each body up to this, plus one byte (api answers
	// 413 past it), and hands it over whole (see bodyBytes).
	js.Global().Get("context").Get("binding").Set("maxBody", api.WorkerOptions.MaxBody)
	workers.Ready()
	// Requests arrive as JavaScript calls into the instance; main stays
	// blocked so that the Go program never exits.
	select {}
}

// rawBodyGetter is what syumai/workers' request body (internal/jsutil's
// reader of a JavaScript stream) offers: the JavaScript value it reads.
type rawBodyGetter interface {
	GetRawJSBody() js.Value
}

// bodyBytes is the request body as instance.mjs hands it over: not a
// stream but an object { bytes: Uint8Array }, read in JavaScript before
// the request reaches Go. syumai/workers reads a stream through one
// JavaScript promise per chunk, each leaving a js.Func behind (its
// reader releases the callback of the promise's outcome, never the
// other: internal/jsutil/stream.go), which one instance serving every
// request cannot afford. ok is false for any other body, which is then
// read as syumai/workers reads it.
func bodyBytes(r *http.Request) (b []byte, ok bool) {
	g, isRaw := r.Body.(rawBodyGetter)
	if !isRaw {
		return nil, false
	}
	v := g.GetRawJSBody()
	if v.Type() != js.TypeObject {
		return nil, false
	}
	u := v.Get("bytes")
	if u.Type() != js.TypeObject {
		return nil, false
	}
	b = make([]byte, u.Get("byteLength").Int())
	js.CopyBytesToGo(b, u)
	return b, true
}

// rawBodyWriter is what syumai/workers' ResponseWriter (internal/jshttp)
// offers to take a body that is already a JavaScript value: it becomes
// the Response's body as it is.
type rawBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

// internalError is the answer to a panic: the API's error shape.
const internalError = `{"error":"internal error","offset":0,"path":"","expected":"","found":""}`

// whole runs h with the answer written to memory (the handler's limits
// bound it), then gives syumai/workers the status, the headers and the
// body as one Uint8Array. A panic (none is known: the handler answers
// every input) becomes a 500, so that the instance, and the requests in
// flight on it, carry on.
type whole struct{ h http.Handler }

func (s whole) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if body, ok := bodyBytes(r); ok {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	b := &buffered{status: http.StatusOK, header: w.Header()}
	func() {
		defer func() {
			if p := recover(); p != nil {
				clear(b.header)
				b.header.Set("Content-Type", "application/json")
				b.status = http.StatusInternalServerError
				b.body.Reset()
				b.body.WriteString(internalError)
			}
		}()
		s.h.ServeHTTP(b, r)
	}()
	w.WriteHeader(b.status)
	raw, ok := w.(rawBodyWriter)
	if !ok {
		// Not syumai/workers' ResponseWriter: write through it.
		w.Write(b.body.Bytes())
		return
	}
	body := js.Null()
	if b.body.Len() > 0 && r.Method != http.MethodHead { // as net/http's server, no body for HEAD
		body = js.Global().Get("Uint8Array").New(b.body.Len())
		js.CopyBytesToJS(body, b.body.Bytes())
	}
	raw.WriteRawJSBody(body)
}

// buffered is the http.ResponseWriter the handler writes to: the header
// is the outer writer's own, the status and body wait in memory.
type buffered struct {
	status int
	wrote  bool
	header http.Header
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
