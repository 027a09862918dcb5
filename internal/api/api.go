// Package api is kwire's JSON API over HTTP: one http.Handler that serves
// the routes under /api/ and nothing else, so that the same code runs in
// the Cloudflare Worker (worker/, through github.com/syumai/workers) and
// natively beside the static site (kwire serve) or in tests (httptest).
//
// Routes:
//
//	POST /api/decode   a frame (raw bytes, hex or base64) -> value (?kafka=1: Kafka's own form) or annotated JSON
//	POST /api/encode   value JSON -> the frame as bytes (or ?as=hex, ?as=base64)
//	GET  /api/apis     every API: key, name, category, versions
//	GET  /api/schema/{api}/{version}  the request and response layouts: BNF and field table
//
// Every failure is JSON of one shape, described at Error. Bad input gets
// 400, a body over the limit 413, a body cut by the server's read timeout
// 408, an unknown route 404, a known route with the wrong method 405 (with
// Allow), and a decode or encode that finds the Limiter full 503 (with
// Retry-After). No input makes the handler answer 500. With
// Options.CrossOrigin (the Worker's), pages of any origin may call it.
// Both servers send it the paths that are no file of the site too: a
// browser asking for such a page gets an HTML 404 (notFound), anything
// else the JSON one. Routes lists the routes, for the 404 and the docs.
//
// The package keeps no state between requests (beyond the Limiter's count
// of decodes running) and does no work at init: a Worker's isolate starts
// an instance for its first request, and one that grew too large is
// replaced.
package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/positive"
)

// Default limits.
const (
	DefaultMaxBody         = 1 << 20 // 1 MiB
	DefaultMaxNodes        = 1 << 16
	DefaultMaxDecompressed = 6 << 20
	DefaultMaxGuess        = 64 << 10
	DefaultMaxWork         = 32 << 20
)

// Options bound what one request may cost. Zero values mean the defaults.
type Options struct {
	// MaxBody is the largest request body accepted; larger gets 413.
	MaxBody int64
	// MaxNodes bounds the decoded tree (codec.Options.MaxNodes), and so
	// the size of the annotated JSON.
	MaxNodes int
	// MaxDecompressed bounds the bytes decompressing records may produce.
	MaxDecompressed int
	// MaxWork bounds the bytes a decode scans (codec.Limits.MaxWork): the
	// frame, every nested payload, decompressed bytes included, and every
	// reading tried while guessing.
	MaxWork int
	// MaxGuess is the largest response decoded without a given API and
	// version: guessing tries every API and version, so it costs hundreds
	// of decodes.
	MaxGuess int
	// Limiter bounds the decodes and encodes running at once; nil means
	// DefaultLimiter().
	Limiter *Limiter
	// Payload, when set, reads record keys and values (codec.Options.
	// Payload): a server's own setting (kwire serve --schema-registry,
	// --schemas), never a request's, so that no caller makes the server
	// fetch a URL. The Worker leaves it nil.
	Payload func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node)
	// CrossOrigin lets pages of any origin call the API from a browser
	// (CORS: Access-Control-Allow-Origin *, preflights answered): the
	// public Worker's setting. kwire serve leaves it off: a page a user
	// visits must not reach a server on their loopback, nor through it
	// the schema registry it reads payloads with.
	CrossOrigin bool
}

// WithDefaults is o with every zero limit set to its default.
func (o Options) WithDefaults() Options {
	o.MaxBody = positive.Or(o.MaxBody, DefaultMaxBody)
	o.MaxNodes = positive.Or(o.MaxNodes, DefaultMaxNodes)
	o.MaxDecompressed = positive.Or(o.MaxDecompressed, DefaultMaxDecompressed)
	o.MaxGuess = positive.Or(o.MaxGuess, DefaultMaxGuess)
	o.MaxWork = positive.Or(o.MaxWork, DefaultMaxWork)
	return o
}

// WorkerOptions are the Worker's limits (wasm/worker), half of kwire
// serve's: a Worker runs its requests in one Go instance per isolate,
// whose wasm memory counts against the isolate's 128 MB (it is replaced
// past 64 MiB), and bills and bounds each request's CPU time. With these
// no accepted request grows an instance past 64 MiB, and none takes more
// than a few hundred milliseconds of CPU (wasm/worker/README.md has the
// numbers).
var WorkerOptions = Options{
	MaxBody:         512 << 10,
	MaxNodes:        1 << 14,
	MaxDecompressed: 2 << 20,
	MaxGuess:        64 << 10,
	MaxWork:         8 << 20,
	CrossOrigin:     true,
}

// New returns the handler for the /api/ routes.
func New(o Options) http.Handler {
	o = o.WithDefaults()
	lim := o.Limiter
	if lim == nil {
		lim = DefaultLimiter()
	}
	return &handler{o: o, lim: lim}
}

type handler struct {
	o   Options
	lim *Limiter
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if h.o.CrossOrigin {
		// No credentials are read and the answer is the caller's own
		// bytes decoded: any origin may read it, a 404's hint at the
		// route meant ("POST /api/decode") too.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Kwire-Guess, Kwire-Not-Given, Kwire-Packet, Retry-After")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.Header().Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	switch {
	case p == "/api/decode":
		if allow(w, r, http.MethodPost) {
			h.decode(w, r)
		}
	case p == "/api/encode":
		if allow(w, r, http.MethodPost) {
			h.encode(w, r)
		}
	case p == "/api/apis":
		if allow(w, r, http.MethodGet) {
			apis(w)
		}
	case strings.HasPrefix(p, "/api/schema/"):
		parts := strings.Split(p[len("/api/schema/"):], "/")
		if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			notFound(w, r)
			return
		}
		if allow(w, r, http.MethodGet) {
			schemaRoute(w, parts[0], parts[1])
		}
	default:
		notFound(w, r)
	}
}

// IsRoute reports whether path is one of the API's routes: /api/decode,
// /api/encode, /api/apis or /api/schema/... . The docs site has pages
// under /api/{name}/ too, so a server that mounts the handler beside the
// static files sends it these paths only (as wrangler.jsonc's
// run_worker_first does) and the rest to the files.
func IsRoute(path string) bool {
	switch path {
	case "/api/decode", "/api/encode", "/api/apis":
		return true
	}
	return strings.HasPrefix(path, "/api/schema/")
}

// allow answers 405 unless r uses method (GET also allows HEAD).
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || method == http.MethodGet && r.Method == http.MethodHead {
		return true
	}
	a := method
	if method == http.MethodGet {
		a = "GET, HEAD"
	}
	w.Header().Set("Allow", a)
	writeError(w, http.StatusMethodNotAllowed, &Error{Message: "method " + r.Method + " not allowed; use " + a,
		Expected: a, Found: r.Method})
	return false
}

// body reads the request body (413 over the limit, 400 when empty) and
// then takes a slot of the Limiter (503 when none is free); when it returns
// true the caller calls h.lim.Release once done. The body is read first so
// that a client slow to send it holds no slot.
func (h *handler) body(w http.ResponseWriter, r *http.Request, what string) ([]byte, bool) {
	limit := strconv.FormatInt(h.o.MaxBody, 10)
	tooLarge := &Error{Message: "the body is larger than " + limit + " bytes", Expected: "at most " + limit + " bytes"}
	if r.ContentLength > h.o.MaxBody {
		tooLarge.Found = strconv.FormatInt(r.ContentLength, 10) + " bytes"
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge)
		return nil, false
	}
	var b []byte
	if r.Body != nil {
		var err error
		b, err = io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooLarge.Found = "more"
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge)
			return nil, false
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The server's read timeout cut a body that came too slowly.
			writeError(w, http.StatusRequestTimeout, &Error{Message: "the body did not arrive in time",
				Expected: what, Found: strconv.Itoa(len(b)) + " bytes before the timeout"})
			return nil, false
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, &Error{Message: "reading the body: " + err.Error()})
			return nil, false
		}
	}
	if len(b) == 0 {
		writeError(w, http.StatusBadRequest, &Error{Message: "the body is empty", Expected: what, Found: "nothing"})
		return nil, false
	}
	if !h.lim.Acquire(r.Context()) {
		h.busy(w)
		return nil, false
	}
	return b, true
}

// Error is the body of every failed request:
//
//	{"error": "at byte 12 (header.clientId): expected 5 bytes, found 2",
//	 "offset": 12, "path": "header.clientId", "expected": "5 bytes", "found": "2"}
//
// Offset is the byte offset in the decoded frame, or in the request body
// for malformed hex, base64 and JSON; null when the error is about no byte.
// Path is the JSON path of the field (decode and encode), or "?name" for
// a query parameter. Every key is always present. A failed decode adds
// "partial": the JSON of the fields decoded before the failure.
type Error struct {
	Message  string          `json:"error"`
	Offset   *int            `json:"offset"`
	Path     string          `json:"path"`
	Expected string          `json:"expected"`
	Found    string          `json:"found"`
	Partial  json.RawMessage `json:"partial,omitempty"`
}

func at(off int) *int { return &off }

func writeError(w http.ResponseWriter, status int, e *Error) {
	writeJSON(w, status, e.appendJSON(nil))
}

// appendJSON appends e as JSON (its fields' tags), through the codec's
// JSON writer; a Partial that is not valid JSON is left out.
func (e *Error) appendJSON(dst []byte) []byte {
	w := jsontext.Writer{B: dst}
	w.BeginObject()
	w.Key("error")
	w.String([]byte(e.Message))
	w.Key("offset")
	if e.Offset == nil {
		w.Null()
	} else {
		w.Int(int64(*e.Offset))
	}
	for _, kv := range [...][2]string{{"path", e.Path}, {"expected", e.Expected}, {"found", e.Found}} {
		w.Key(kv[0])
		w.String([]byte(kv[1]))
	}
	if len(e.Partial) > 0 && json.Valid(e.Partial) {
		w.Key("partial")
		w.Raw(e.Partial)
	}
	w.EndObject()
	return w.B
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	// The newline is written apart: appending it could copy a large b.
	write(w, status, "application/json", b, '\n')
}

func write(w http.ResponseWriter, status int, contentType string, b []byte, end ...byte) {
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Content-Length", strconv.Itoa(len(b)+len(end)))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	if len(end) > 0 {
		w.Write(end)
	}
}
