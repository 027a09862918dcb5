//go:build js && wasm

package whole

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall/js"
	"testing"
)

// jsWriter stands for syumai/workers' ResponseWriter: it takes a raw
// JavaScript body, and its Write must not be used (a streamed body is
// what ends syumai/workers' Serve).
type jsWriter struct {
	t      *testing.T
	header http.Header
	status int
	raw    *js.Value
}

func (w *jsWriter) Header() http.Header { return w.header }
func (w *jsWriter) WriteHeader(s int)   { w.status = s }
func (w *jsWriter) Write(p []byte) (int, error) {
	w.t.Errorf("Write(%q) on syumai/workers' writer: the answer was streamed", p)
	return len(p), nil
}
func (w *jsWriter) WriteRawJSBody(v js.Value) { w.raw = &v }

// body is the raw body's bytes, or nil for JavaScript null.
func (w *jsWriter) body(t *testing.T) []byte {
	t.Helper()
	if w.raw == nil {
		t.Fatal("no raw body given")
	}
	if w.raw.IsNull() {
		return nil
	}
	b := make([]byte, w.raw.Get("byteLength").Int())
	js.CopyBytesToGo(b, *w.raw)
	return b
}

func serve(t *testing.T, h http.HandlerFunc, r *http.Request) *jsWriter {
	w := &jsWriter{t: t, header: http.Header{}}
	Handler(h).ServeHTTP(w, r)
	return w
}

func TestAnswerIsOneJavaScriptBody(t *testing.T) {
	w := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"a":`)
		io.WriteString(w, `1}`)
		w.WriteHeader(http.StatusTeapot) // too late, as in net/http
	}, httptest.NewRequest("GET", "/api/apis", nil))
	if w.status != http.StatusCreated || w.header.Get("Content-Type") != "application/json" {
		t.Errorf("status %d, header %v", w.status, w.header)
	}
	if got := string(w.body(t)); got != `{"a":1}` {
		t.Errorf("body %q", got)
	}
}

func TestHeadHasNoBody(t *testing.T) {
	w := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[1,2,3]`)
	}, httptest.NewRequest("HEAD", "/api/apis", nil))
	if w.status != http.StatusOK || w.header.Get("Content-Type") != "application/json" {
		t.Errorf("status %d, header %v", w.status, w.header)
	}
	if b := w.body(t); b != nil {
		t.Errorf("HEAD answered with a body: %q", b)
	}
}

func TestPanicBecomes500(t *testing.T) {
	w := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Kwire-Guess", "apiKey=3")
		io.WriteString(w, `{"half`)
		panic("boom")
	}, httptest.NewRequest("POST", "/api/decode", strings.NewReader("00")))
	if w.status != http.StatusInternalServerError {
		t.Errorf("status %d", w.status)
	}
	if w.header.Get("Kwire-Guess") != "" || w.header.Get("Content-Type") != "application/json" {
		t.Errorf("header %v", w.header)
	}
	if got := string(w.body(t)); got != internalError {
		t.Errorf("body %q", got)
	}
}

// rawBody stands for syumai/workers' request body: the JavaScript value
// it would read as a stream, which must not be read when it holds bytes.
type rawBody struct {
	t     *testing.T
	v     js.Value
	r     io.Reader
	reads int
}

func (b *rawBody) GetRawJSBody() js.Value { return b.v }
func (b *rawBody) Close() error           { return nil }
func (b *rawBody) Read(p []byte) (int, error) {
	b.reads++
	return b.r.Read(p)
}

func echo(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Write(b)
}

func TestBodyTakenWhole(t *testing.T) {
	u := js.Global().Get("Uint8Array").New(3)
	js.CopyBytesToJS(u, []byte{0, 0xff, 7})
	o := js.Global().Get("Object").New()
	o.Set("bytes", u)
	body := &rawBody{t: t, v: o, r: strings.NewReader("streamed")}
	r := httptest.NewRequest("POST", "/api/decode", nil)
	r.Body = body
	w := serve(t, echo, r)
	if got := w.body(t); string(got) != "\x00\xff\x07" {
		t.Errorf("the handler read %q, not the bytes handed over", got)
	}
	if body.reads != 0 {
		t.Errorf("the stream was read %d times", body.reads)
	}
}

// A body that is a stream (no bytes property), or not syumai/workers'
// at all, is read as it comes.
func TestOtherBodiesRead(t *testing.T) {
	for _, v := range []js.Value{js.Global().Get("Object").New(), js.Null()} {
		body := &rawBody{t: t, v: v, r: strings.NewReader("streamed")}
		r := httptest.NewRequest("POST", "/api/decode", nil)
		r.Body = body
		if got := string(serve(t, echo, r).body(t)); got != "streamed" || body.reads == 0 {
			t.Errorf("%v: the handler read %q in %d reads", v, got, body.reads)
		}
	}
	w := serve(t, echo, httptest.NewRequest("POST", "/api/decode", strings.NewReader("plain")))
	if got := string(w.body(t)); got != "plain" {
		t.Errorf("a plain body: %q", got)
	}
}

// Behind any other ResponseWriter the answer is written through.
func TestOtherWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "ok")
	})).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusAccepted || rec.Body.String() != "ok" {
		t.Errorf("%d %q", rec.Code, rec.Body.String())
	}
}
