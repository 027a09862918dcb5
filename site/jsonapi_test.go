package site

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/api"
)

// json-api.html documents every route and query parameter api.Routes
// lists, with the limits the handler has, is linked from every page, and
// each curl command it shows, run against the API handler as curl would
// send it, is answered with the status the page says.
func TestJSONAPIPage(t *testing.T) {
	out := buildOnce(t)
	b, err := os.ReadFile(filepath.Join(out, "json-api.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, r := range api.Routes() {
		if !strings.Contains(page, "<h2><code>"+r.Method+" "+r.Path+"</code></h2>") {
			t.Errorf("no section for %s %s", r.Method, r.Path)
		}
		for _, p := range r.Params {
			if !strings.Contains(page, `<tr id="`+routeID(r.Path)+"-"+p.Name+`">`) {
				t.Errorf("%s: no row for ?%s", r.Path, p.Name)
			}
		}
	}
	serve, worker := api.Options{}.WithDefaults(), api.WorkerOptions.WithDefaults()
	if want := "<td data-label=\"kwire serve\">" + byteSize(serve.MaxBody) + "</td><td data-label=\"Worker\">" + byteSize(worker.MaxBody) + "</td>"; !strings.Contains(page, want) {
		t.Errorf("the body limits are not %s", want)
	}
	for _, p := range []string{"index.html", "errors.html", "api/metadata/v12.html", "rules/index.html"} {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		root := strings.Repeat("../", strings.Count(p, "/"))
		if !bytes.Contains(b, []byte(`<a href="`+root+`json-api.html"`)) {
			t.Errorf("%s does not link to json-api.html", p)
		}
	}

	// The commands as shown, run as curl sends them.
	frame, err := hex.DecodeString(quickFrame)
	if err != nil {
		t.Fatal(err)
	}
	fc := schema.ByName("FindCoordinator")
	resp, err := codec.ExampleFrame(fc, fc.Response.Valid.Hi, true)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"frame.bin": frame, "response.bin": resp}
	ex := regexp.MustCompile(`(?s)<pre class="curl" tabindex="0"><code>(.*?)</code></pre>\s*<p class="meta">Answered (\d+)`)
	found := ex.FindAllStringSubmatch(page, -1)
	if len(found) < 10 {
		t.Fatalf("%d examples on the page", len(found))
	}
	h := api.New(api.Options{})
	for _, m := range found {
		cmd := html.UnescapeString(m[1])
		want, _ := strconv.Atoi(m[2])
		req, err := curlRequest(cmd, files)
		if err != nil {
			t.Errorf("%s: %v", cmd, err)
			continue
		}
		w := &recorder{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.code != want {
			t.Errorf("%s: answered %d, the page says %d: %s", cmd, w.code, want, w.body.String())
		}
	}
}

// curlRequest reads the few curl commands the page shows: -d TEXT,
// --data-binary @FILE, -H 'Name: value', and the URL under $KWIRE.
func curlRequest(cmd string, files map[string][]byte) (*http.Request, error) {
	args, err := shellWords(strings.TrimPrefix(cmd, "curl "))
	if err != nil {
		return nil, err
	}
	var body []byte
	method, target := "GET", ""
	hdr := http.Header{"Accept": {"*/*"}}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-d" && i+1 < len(args):
			i++
			method, body = "POST", []byte(args[i])
			hdr.Set("Content-Type", "application/x-www-form-urlencoded")
		case a == "--data-binary" && i+1 < len(args):
			i++
			b, ok := files[strings.TrimPrefix(args[i], "@")]
			if !ok {
				return nil, errString("no file " + args[i])
			}
			method, body = "POST", b
		case a == "-H" && i+1 < len(args):
			i++
			k, v, _ := strings.Cut(args[i], ":")
			hdr.Set(k, strings.TrimSpace(v))
		case strings.HasPrefix(a, "$KWIRE/"):
			target = strings.TrimPrefix(a, "$KWIRE")
		default:
			return nil, errString("cannot read " + a)
		}
	}
	if target == "" {
		return nil, errString("no $KWIRE URL")
	}
	r, err := http.NewRequest(method, "http://127.0.0.1:8080"+target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		r.Header[k] = v
	}
	return r, nil
}

// shellWords splits a command line as a POSIX shell would, for the quoting
// the page uses: words, single quotes (a quote inside one closes it, is
// escaped and opens another), double quotes (holding no $ but $KWIRE's)
// and backslashes.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errString("unclosed ' in " + s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errString("unclosed \" in " + s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case '\\':
			if i+1 < len(s) {
				i++
				w.WriteByte(s[i])
			}
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
