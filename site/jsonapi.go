package site

import (
	"bytes"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/api"
)

// json-api.html documents the JSON API that kwire serve and the Worker
// answer beside the pages, from internal/api itself: its routes and their
// query parameters (api.Routes, which tests hold to what the handler
// reads), its limits (api's defaults and api.WorkerOptions), and examples
// whose answers are the handler's own: each is run through api.New when
// the site is built, and a build whose example is answered otherwise than
// the page says fails.

// apiExample is one request on the page: a curl command (with $KWIRE for
// the server's address) and what it is answered.
type apiExample struct {
	ID      string
	Title   string
	Curl    string
	Status  int
	Headers []string      // answer headers worth seeing: "Kwire-Guess: ..."
	Answer  template.HTML // highlighted JSON or escaped text; "" when not shown
	Note    string        // said of the answer instead, or beside it
}

// exampleSpec is an example before it is run: the request as curl sends
// it.
type exampleSpec struct {
	route  string // the route's path, whose section shows it
	title  string
	method string
	target string // path and query
	body   []byte
	file   string // the body comes from this file (raw bytes); else it is inline text
	ctype  string // with a file: its Content-Type
	status int
	show   bool
	header string // an answer header to show
	note   string
}

// curl is the command that sends the request.
func (s exampleSpec) curl() string {
	var b strings.Builder
	b.WriteString("curl")
	switch {
	case s.file != "":
		b.WriteString(" --data-binary @" + s.file + " -H 'Content-Type: " + s.ctype + "'")
	case s.body != nil:
		b.WriteString(" -d " + shellQuote(string(s.body)))
	}
	if strings.ContainsAny(s.target, "?&") {
		b.WriteString(` "$KWIRE` + s.target + `"`)
	} else {
		b.WriteString(" $KWIRE" + s.target)
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// request is what curl sends for s: -d's body as a form (which the API
// reads as text), a file's with its type, curl's Accept.
func (s exampleSpec) request() (*http.Request, error) {
	r, err := http.NewRequest(s.method, "http://127.0.0.1:8080"+s.target, bytes.NewReader(s.body))
	if err != nil {
		return nil, err
	}
	switch {
	case s.file != "":
		r.Header.Set("Content-Type", s.ctype)
	case s.body != nil:
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.Header.Set("Accept", "*/*")
	return r, nil
}

// recorder keeps what a handler answers.
type recorder struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// run sends s through h and writes its example.
func (s exampleSpec) run(h http.Handler, id string) (apiExample, error) {
	ex := apiExample{ID: id, Title: s.title, Curl: s.curl(), Status: s.status, Note: s.note}
	req, err := s.request()
	if err != nil {
		return ex, err
	}
	w := &recorder{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.code != s.status {
		return ex, errors.New("site: json-api.html: " + ex.Curl + " is answered " + strconv.Itoa(w.code) + ", not " + strconv.Itoa(s.status) + ": " + w.body.String())
	}
	ex.Note = strings.ReplaceAll(ex.Note, "{len}", count(w.body.Len()))
	if s.header != "" {
		v := w.h.Get(s.header)
		if v == "" {
			return ex, errors.New("site: json-api.html: " + ex.Curl + " is answered without " + s.header)
		}
		ex.Headers = append(ex.Headers, s.header+": "+v)
	}
	if !s.show {
		return ex, nil
	}
	if strings.HasPrefix(w.h.Get("Content-Type"), "application/json") {
		h, err := highlightJSON(jsontext.Indent(nil, bytes.TrimSpace(w.body.Bytes())))
		if err != nil {
			return ex, err
		}
		ex.Answer = template.HTML(h)
	} else {
		ex.Answer = template.HTML(`<pre tabindex="0">` + template.HTMLEscapeString(w.body.String()) + `</pre>`)
	}
	return ex, nil
}

type apiRouteDoc struct {
	api.Route
	ID       string
	GET      bool
	Examples []apiExample
}

type limitRow struct {
	What, Serve, Worker, Bounds string
}

type jsonAPIPage struct {
	Routes []apiRouteDoc
	Limits []limitRow
	Errors []apiExample
}

// byteSize writes n bytes as people read them: "1 MiB", "512 KiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// count writes n with thousands separated: "65,536".
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func jsonAPIData() (*jsonAPIPage, error) {
	frame, err := hex.DecodeString(quickFrame)
	if err != nil {
		return nil, err
	}
	fc := schema.ByName("FindCoordinator")
	resp, err := codec.ExampleFrame(fc, fc.Response.Valid.Hi, true)
	if err != nil {
		return nil, err
	}
	// quickFrame's value JSON, as short as the encoder takes it.
	encodeBody := `{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`
	specs := []exampleSpec{
		{route: "/api/decode", title: "A request, as hex (or a dump, or base64)", method: "POST", target: "/api/decode", body: []byte(quickFrame),
			status: 200, show: true},
		{route: "/api/decode", title: "The same request as raw bytes", method: "POST", target: "/api/decode", body: frame, file: "frame.bin",
			ctype: "application/octet-stream", status: 200, note: "frame.bin holds the same 32 bytes: the same answer."},
		{route: "/api/decode", title: "A response, its API and version guessed", method: "POST", target: "/api/decode?direction=response", body: resp,
			file: "response.bin", ctype: "application/octet-stream", status: 200, show: true, header: "Kwire-Guess",
			note: "response.bin holds a FindCoordinator v" + strconv.Itoa(int(fc.Response.Valid.Hi)) + " response. Versions 4 to " +
				strconv.Itoa(int(fc.Response.Valid.Hi)) + " read these bytes the same: the answer names the lowest and lists the others in guess.sameAs. " +
				"Given api and version (?api=FindCoordinator&version=6), nothing is guessed."},
		{route: "/api/decode", title: "Annotated JSON: the tree, every node with its byte range", method: "POST", target: "/api/decode?format=annotated",
			body: []byte(quickFrame), status: 200, note: "The answer ({len} bytes here) is the playground's tree: every node with its name, type, byte range and value."},
		{route: "/api/decode", title: "Kafka's own JSON form", method: "POST", target: "/api/decode?kafka=1", body: frame, file: "frame.bin",
			ctype: "application/octet-stream", status: 200, note: "Records and nested payloads stay base64, as Kafka's own JSON writes them, and /api/encode reads them back."},
		{route: "/api/encode", title: "Value JSON to a line of hex", method: "POST", target: "/api/encode?as=hex", body: []byte(encodeBody),
			status: 200, show: true, note: "The request decoded above, back to its bytes."},
		{route: "/api/encode", title: "To raw bytes, without the size prefix", method: "POST", target: "/api/encode?sizePrefix=false",
			body: []byte(encodeBody), status: 200, note: "The answer is the frame's {len} bytes after its size (curl -o frame.bin keeps them)."},
		{route: "/api/apis", title: "Every API", method: "GET", target: "/api/apis", status: 200, note: "{len} bytes: an object per API."},
		{route: "/api/schema/{api}/{version}", title: "Metadata v12's layouts", method: "GET", target: "/api/schema/Metadata/12", status: 200,
			note: "{len} bytes: the BNF and field table of the request and of the response, as kwire schema prints them."},
	}
	errs := []exampleSpec{
		{title: "A frame cut short: where reading stopped, and what was read before", method: "POST", target: "/api/decode",
			body: []byte(quickFrame[:44]), status: 400, show: true},
		{title: "A frame's hex sent to encode", method: "POST", target: "/api/encode", body: []byte(quickFrame), status: 400, show: true},
		{title: "A path near a route", method: "POST", target: "/api/decode/", body: []byte(quickFrame), status: 404, show: true},
	}
	h := api.New(api.Options{})
	d := &jsonAPIPage{}
	for _, r := range api.Routes() {
		rd := apiRouteDoc{Route: r, ID: routeID(r.Path), GET: r.Method == "GET"}
		for _, s := range specs {
			if s.route != r.Path {
				continue
			}
			ex, err := s.run(h, rd.ID+"-ex"+strconv.Itoa(len(rd.Examples)+1))
			if err != nil {
				return nil, err
			}
			rd.Examples = append(rd.Examples, ex)
		}
		if len(rd.Examples) == 0 {
			return nil, errors.New("site: json-api.html has no example of " + r.Path)
		}
		d.Routes = append(d.Routes, rd)
	}
	for i, s := range errs {
		ex, err := s.run(h, "error-ex"+strconv.Itoa(i+1))
		if err != nil {
			return nil, err
		}
		d.Errors = append(d.Errors, ex)
	}
	serve, worker := api.Options{}.WithDefaults(), api.WorkerOptions.WithDefaults()
	d.Limits = []limitRow{
		{"body", byteSize(serve.MaxBody), byteSize(worker.MaxBody), "a request's body; larger gets 413"},
		{"nodes", count(serve.MaxNodes), count(worker.MaxNodes), "the decoded tree, and so the size of annotated JSON"},
		{"decompressed", byteSize(int64(serve.MaxDecompressed)), byteSize(int64(worker.MaxDecompressed)), "the bytes decompressing records may produce"},
		{"work", byteSize(int64(serve.MaxWork)), byteSize(int64(worker.MaxWork)), "the bytes a decode scans: the frame, every nested payload, every reading tried while guessing"},
		{"guessing", byteSize(int64(serve.MaxGuess)), byteSize(int64(worker.MaxGuess)), "the largest response decoded without its API and version"},
	}
	return d, nil
}

// quickFrame is the README's ApiVersions v3 request (client "kwire",
// correlation id 7).
const quickFrame = "0000001b001200030000000700056b7769726500066b7769726504312e3000"

// routeID is a route's section id: "route-decode", "route-schema".
func routeID(path string) string {
	p := strings.TrimPrefix(path, "/api/")
	p, _, _ = strings.Cut(p, "/")
	return "route-" + p
}

func (b *builder) jsonAPIPage() error {
	d, err := jsonAPIData()
	if err != nil {
		return err
	}
	return b.render("jsonapi", "json-api.html", page{Title: "The JSON API", Nav: "jsonapi", Body: d})
}
