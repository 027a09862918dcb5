package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

var fuzzRoutes = []string{"/api/decode", "/api/encode", "/api/apis", "/api/schema/"}

var fuzzMethods = []string{"POST", "GET", "HEAD", "PUT", "OPTIONS"}

// FuzzHandler sends random bodies, query strings and paths to every route:
// the handler must never panic, never answer 500, and always answer with a
// status it documents and a body that matches its Content-Type. The seeds
// in testdata/fuzz/FuzzHandler are the shapes that matter: truncated and
// garbage frames, responses to guess, wrong JSON for encode, odd schema
// paths.
func FuzzHandler(f *testing.F) {
	b := frame(f)
	f.Add(uint8(0), uint8(0), "", "", "application/octet-stream", b)
	f.Add(uint8(0), uint8(0), "", "format=annotated", "", []byte(apiVersionsV3))
	f.Add(uint8(0), uint8(0), "", "", "application/octet-stream", b[:17])
	md, _ := codec.ExampleFrame(schema.ByName("Metadata"), 12, true)
	f.Add(uint8(0), uint8(0), "", "direction=response", "application/octet-stream", md)
	f.Add(uint8(0), uint8(0), "", "direction=response&kafka=1", "application/octet-stream", md)
	f.Add(uint8(0), uint8(0), "", "direction=response&api=3&version=12&sizePrefix=true", "application/octet-stream", md[:40])
	f.Add(uint8(1), uint8(0), "", "as=hex", "application/json",
		[]byte(`{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":7},"body":{}}`))
	f.Add(uint8(1), uint8(0), "", "", "application/json", []byte(`{"apiKey":3,"apiVersion":12,"body":{"topics":[{"name":1}]}}`))
	f.Add(uint8(2), uint8(1), "", "", "", []byte(nil))
	f.Add(uint8(3), uint8(1), "Fetch/4", "", "", []byte(nil))
	f.Add(uint8(9), uint8(1), "/api/../api/apis", "", "", []byte(nil))
	h := New(Options{})
	f.Fuzz(func(t *testing.T, route, method uint8, path, query, contentType string, body []byte) {
		p := path
		if int(route) < len(fuzzRoutes) {
			p = fuzzRoutes[route]
			if route == 3 {
				p += path
			}
		}
		req := &http.Request{
			Method:        fuzzMethods[int(method)%len(fuzzMethods)],
			URL:           &url.URL{Path: p, RawQuery: query},
			Header:        http.Header{"Content-Type": {contentType}},
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200, 400, 404, 405, 413:
		default:
			t.Fatalf("%s %s?%s: status %d: %s", req.Method, p, query, w.Code, w.Body.Bytes())
		}
		ct := w.Header().Get("Content-Type")
		switch ct {
		case "application/json":
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("%s %s?%s: invalid JSON: %q", req.Method, p, query, w.Body.Bytes())
			}
		case "application/octet-stream", "text/plain; charset=utf-8":
			if w.Code != 200 {
				t.Fatalf("%s %s?%s: status %d with %s", req.Method, p, query, w.Code, ct)
			}
		default:
			t.Fatalf("%s %s?%s: Content-Type %q", req.Method, p, query, ct)
		}
	})
}
