//go:build js && wasm

// Package whole lets one Go instance serve many requests through
// github.com/syumai/workers (wasm/worker): its Handler writes each answer
// in memory and gives it to syumai/workers as one JavaScript body, and
// takes each request body whole when the JavaScript side has read it
// already. Both avoid what keeps syumai/workers to one request per
// instance (its Serve's Done channel, closed when the first streamed
// answer has been read) and what would pile up in an instance that serves
// many (a js.Func left behind per chunk of a streamed request body).
package whole

import (
	"bytes"
	"io"
	"net/http"
	"syscall/js"
)

// rawBodyGetter is what syumai/workers' request body (internal/jsutil's
// reader of a JavaScript stream) offers: the JavaScript value it reads.
type rawBodyGetter interface {
	GetRawJSBody() js.Value
}

// bodyBytes is the request body as wasm/worker/instance.mjs hands it
// over: not a stream but an object { bytes: Uint8Array }, read in
// JavaScript before the request reaches Go. syumai/workers reads a stream through one
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
const internalError = `{"error":"internal error","offset":null,"path":"","expected":"","found":""}`

// Handler returns h with each answer written to memory (h's limits bound
// it), then given to syumai/workers as the status, the headers and the
// body as one Uint8Array (none for HEAD, as net/http's server sends
// none). A request body that is { bytes: Uint8Array } (see bodyBytes)
// reaches h as those bytes. A panic in h (none is known for kwire's API:
// it answers every input) becomes a 500 with the API's error shape, so
// that the instance, and the requests in flight on it, carry on.
func Handler(h http.Handler) http.Handler { return handler{h} }

type handler struct{ h http.Handler }

func (s handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
