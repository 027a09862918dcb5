package registry

import (
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/registry/registrytest"
	"github.com/kwire/kwire/internal/registry/resolve"
)

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func TestClientReferencesAndCache(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	reg.Register("common", registrytest.Schema{Schema: `syntax = "proto3"; package c; message M { int32 a = 1; }`, SchemaType: "PROTOBUF"})
	id := reg.Register("main", registrytest.Schema{Schema: `syntax = "proto3"; import "c/m.proto"; message T { c.M m = 1; }`, SchemaType: "PROTOBUF",
		References: []registrytest.Reference{{Name: "c/m.proto", Subject: "common", Version: 1}}})
	c, err := New(srv.URL, Options{Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		s, err := c.SchemaByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != id || s.Type != payload.TypeProtobuf || len(s.References) != 1 || s.References[0].Name != "c/m.proto" || !strings.Contains(s.References[0].Schema.Text, "message M") {
			t.Fatalf("schema %+v", s)
		}
	}
	if reg.Requests != 2 {
		t.Fatalf("%d requests for one schema and its reference asked three times, want 2", reg.Requests)
	}
	if _, err := c.SchemaByID(99); err == nil || !strings.Contains(err.Error(), "Schema 99 not found") {
		t.Fatalf("missing schema: %v", err)
	}
}

func TestClientAuth(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	id := reg.Register("s", registrytest.Schema{Schema: `"string"`})
	for _, c := range []struct {
		name string
		env  []string
		auth string
	}{
		{"basic", []string{EnvUser, "ana", EnvPassword, "s3cret"}, "Basic " + base64.StdEncoding.EncodeToString([]byte("ana:s3cret"))},
		{"bearer", []string{EnvToken, "tok"}, "Bearer tok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg.Auth = c.auth
			cl, err := New(srv.URL, Options{Getenv: env(c.env...)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.SchemaByID(id); err != nil {
				t.Fatal(err)
			}
			cl, _ = New(srv.URL, Options{Getenv: env()})
			if _, err := cl.SchemaByID(id); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				t.Fatalf("without credentials: %v", err)
			}
		})
	}
	if _, err := New(strings.Replace(srv.URL, "http://", "http://ana:pw@", 1), Options{Getenv: env()}); err == nil || !strings.Contains(err.Error(), EnvUser) {
		t.Fatalf("credentials in the URL: %v", err)
	}
	if _, err := New(srv.URL, Options{Getenv: env(EnvUser, "a", EnvToken, "t")}); err == nil {
		t.Fatal("both a user and a token were taken")
	}
}

func TestClientUnreachableSlowGarbage(t *testing.T) {
	reg, srv := registrytest.Start()
	url := srv.URL
	srv.Close()
	c, _ := New(url, Options{Getenv: env(), Timeout: time.Second})
	_, err := c.SchemaByID(1)
	if err == nil || !strings.Contains(err.Error(), "is unreachable") {
		t.Fatalf("closed registry: %v", err)
	}
	// Later ids fail at once with the same error, not a timeout each.
	start := time.Now()
	if _, err2 := c.SchemaByID(2); err2 == nil || err2.Error() != err.Error() || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("second lookup: %v after %v", err2, time.Since(start))
	}

	reg, srv = registrytest.Start()
	defer srv.Close()
	release := make(chan struct{})
	defer close(release)
	reg.Handler = func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/schemas/ids/1":
			select {
			case <-release:
			case <-time.After(5 * time.Second):
			}
		case "/schemas/ids/2":
			w.Write([]byte("<html>proxy error</html>"))
		case "/schemas/ids/3":
			w.Write([]byte(`{"schema":""}`))
		case "/schemas/ids/4":
			w.Write([]byte(strings.Repeat(" ", resolve.MaxBody+10)))
		default:
			return false
		}
		return true
	}
	c, _ = New(srv.URL, Options{Getenv: env(), Timeout: 10 * time.Second})
	for id, want := range map[int]string{2: "not the registry's JSON", 3: "holds no schema", 4: "longer than"} {
		if _, err := c.SchemaByID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("id %d: %v, want %q", id, err, want)
		}
	}
	c, _ = New(srv.URL, Options{Getenv: env(), Timeout: 200 * time.Millisecond})
	start = time.Now()
	if _, err := c.SchemaByID(1); err == nil || !strings.Contains(err.Error(), "unreachable") || time.Since(start) > 2*time.Second {
		t.Fatalf("slow registry: %v after %v", err, time.Since(start))
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("7.avsc", `{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"ship","type":"com.acme.Address"}]}`)
	write("com.acme.Address.avsc", `{"type":"record","name":"Address","namespace":"com.acme","fields":[{"name":"zip","type":"com.acme.Zip"}]}`)
	write("com.acme.Zip.avsc", `{"type":"fixed","name":"Zip","namespace":"com.acme","size":5}`)
	write("8.proto", `syntax = "proto3"; import "acme/money.proto"; import "google/protobuf/timestamp.proto"; message O { acme.Money m = 1; google.protobuf.Timestamp at = 2; }`)
	write("acme/money.proto", `syntax = "proto3"; package acme; message Money { int64 units = 1; }`)
	write("9.proto", `syntax = "proto3"; import "../secret.proto"; message X {}`)
	write("orders-key.json", `{"type":"object"}`)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	dec := payload.NewDecoder(d, payload.Config{})
	// The Avro schema needs two shared types, read in name order (Address
	// first, which needs Zip): it compiles.
	js, _, ws := decodeAll(t, dec, []byte{0, 0, 0, 0, 7, '1', '2', '3', '4', '5'})
	if len(ws) > 0 || !strings.Contains(string(js), `"decoded":{"ship":{"zip":"12345"}}`) {
		t.Fatalf("avro: %s %v", js, ws)
	}
	js, _, ws = decodeAll(t, dec, []byte{0, 0, 0, 0, 8, 0, 0x0a, 2, 8, 5, 0x12, 2, 8, 1})
	if len(ws) > 0 || !strings.Contains(string(js), `"decoded":{"m":{"units":"5"},"at":"1970-01-01T00:00:01Z"}`) {
		t.Fatalf("protobuf: %s %v", js, ws)
	}
	// An import outside DIR is not read.
	_, _, ws = decodeAll(t, dec, []byte{0, 0, 0, 0, 9, 0})
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "secret.proto") {
		t.Fatalf("import outside DIR: %v", ws)
	}
	if s, err := d.SchemaFor("orders", true); err != nil || s == nil || s.Type != payload.TypeJSON {
		t.Fatalf("orders-key: %+v %v", s, err)
	}
	if s, err := d.SchemaFor("orders", false); err != nil || s != nil {
		t.Fatalf("orders-value: %+v %v", s, err)
	}
	if _, err := d.SchemaByID(10); err == nil || !strings.Contains(err.Error(), "10.avsc") {
		t.Fatalf("missing id: %v", err)
	}
}

// TestClientStalledBodyMarksDown: a registry that sends its headers and
// then stalls the body is down, as one that never answers is: the first
// lookup waits out the timeout, later ones fail at once with its error.
func TestClientStalledBodyMarksDown(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	release := make(chan struct{})
	defer close(release)
	reg.Handler = func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.Write([]byte(`{"schema":`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return true
	}
	c, _ := New(srv.URL, Options{Getenv: env(), Timeout: 200 * time.Millisecond})
	_, err := c.SchemaByID(1)
	if err == nil || !strings.Contains(err.Error(), "is unreachable") || !strings.Contains(err.Error(), "did not come whole within 200ms") {
		t.Fatalf("stalled body: %v", err)
	}
	start := time.Now()
	for id := 2; id < 5; id++ {
		if _, err2 := c.SchemaByID(id); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("id %d: %v", id, err2)
		}
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Fatalf("three more lookups took %v: each waited for the timeout", d)
	}
}

// TestClientURLWithQuery: a registry URL with a path and a query (a
// gateway's) is asked at path/schemas/ids/N?query: the query after the
// request's path, not the path glued onto the query.
func TestClientURLWithQuery(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.RequestURI())
		if r.URL.Path == "/sr/schemas/ids/11" && r.URL.RawQuery == "x=1&y=a%20b" {
			w.Write([]byte(`{"schema":"\"string\""}`))
			return
		}
		w.WriteHeader(404)
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/sr?x=1&y=a%20b#frag", Options{Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := c.SchemaByID(11); err != nil || s.Text != `"string"` {
		t.Fatalf("%v %v; asked %q", s, err, got)
	}
}

// TestClientRetriesAfterBackoff: with Options.Retry (kwire proxy's), a
// registry that could not be reached is asked again once the backoff is
// over (lookups fail at once before), through a payload.Decoder too,
// which keeps no answer of a registry that was down; without Retry it is
// never asked again.
func TestClientRetriesAfterBackoff(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: the first lookup is refused
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	retrying, err := New("http://"+addr, Options{Getenv: env(), Timeout: time.Second, Retry: 30 * time.Second, RetryMax: 2 * time.Minute, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	oneShot, _ := New("http://"+addr, Options{Getenv: env(), Timeout: time.Second})
	dec := payload.NewDecoder(retrying, payload.Config{})
	decode := func() string {
		js, _, ws := dec.DecodeBytes([]byte{0, 0, 0, 0, 1, 4, 'h', 'i'}, false, "t")
		if len(ws) > 0 {
			return ws[0].Message
		}
		return string(js)
	}
	if got := decode(); !strings.Contains(got, "is unreachable") {
		t.Fatalf("registry down: %s", got)
	}
	if _, err := oneShot.SchemaByID(1); err == nil {
		t.Fatal("one-shot: no error")
	}

	reg, other := registrytest.Start()
	other.Close() // reg is served on addr below
	reg.Register("s", registrytest.Schema{Schema: `"string"`})
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: reg}
	go srv.Serve(l)
	defer srv.Close()

	now = now.Add(29 * time.Second) // within the backoff: not asked
	if got := decode(); !strings.Contains(got, "is unreachable") || reg.Requests != 0 {
		t.Fatalf("within the backoff: %s, %d requests", got, reg.Requests)
	}
	now = now.Add(time.Second)
	if got := decode(); got != `,"schemaId":1,"format":"avro","decoded":"hi"` || reg.Requests != 1 {
		t.Fatalf("after the backoff: %s, %d requests", got, reg.Requests)
	}
	if _, err := oneShot.SchemaByID(1); err == nil || !strings.Contains(err.Error(), "is unreachable") || reg.Requests != 1 {
		t.Fatalf("one-shot: %v, %d requests", err, reg.Requests)
	}
}
