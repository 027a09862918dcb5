package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/api/worst"
	"github.com/kwire/kwire/internal/proxy"
)

func serveDir(t *testing.T) string {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":                       "<!DOCTYPE html><title>x</title>",
		"playground/index.html":            "<!DOCTYPE html><title>p</title>",
		"playground/kwire.0123456789.wasm": "\x00asm\x01\x00\x00\x00",
		"playground/app.0123456789.js":     "1",
		"playground/sw.js":                 "2",
		"assets/site.abcdef0123.css":       "a{}",
		"data.json":                        "{}",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("no"), 0o644))
	return dir
}

func TestServeFiles(t *testing.T) {
	srv := httptest.NewServer(fileHandler(serveDir(t)))
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		path, ctype, cache string
		status             int
	}{
		{"/", "text/html; charset=utf-8", "no-cache", 200},
		{"/index.html", "text/html; charset=utf-8", "no-cache", 200},
		{"/playground/", "text/html; charset=utf-8", "no-cache", 200},
		{"/playground/kwire.0123456789.wasm", "application/wasm", "public, max-age=31536000, immutable", 200},
		{"/playground/app.0123456789.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"/playground/sw.js", "text/javascript; charset=utf-8", "no-cache", 200},
		{"/assets/site.abcdef0123.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"/data.json", "application/json", "no-cache", 200},
		{"/playground", "", "", 301},
		{"/missing.html", "", "", 404},
		{"/../secret.txt", "", "", 404},
		{"/%2e%2e/secret.txt", "", "", 404},
	} {
		resp, err := noRedirect.Get(srv.URL + c.path)
		require.NoError(t, err, c.path)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, c.status, resp.StatusCode, c.path)
		if c.status == 200 {
			require.Equal(t, c.ctype, resp.Header.Get("Content-Type"), c.path)
			require.Equal(t, c.cache, resp.Header.Get("Cache-Control"), c.path)
			require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), c.path)
		}
		if c.status == 301 {
			require.Equal(t, "playground/", resp.Header.Get("Location"))
		}
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/index.html", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// A file with a gzip copy beside it goes as that copy to a client that
// accepts gzip (saying so, and how long the decoded body is), as itself to
// one that does not, and as itself when the copy is older than the file.
func TestServePrecompressed(t *testing.T) {
	dir := serveDir(t)
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 kwire "), 1000)
	name := filepath.Join(dir, "playground", "kwire.0123456789.wasm")
	require.NoError(t, os.WriteFile(name, wasm, 0o644))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(wasm)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(name+".gz", gz.Bytes(), 0o644))
	srv := httptest.NewServer(fileHandler(dir))
	defer srv.Close()
	// The transport's own gzip handling is off: the test reads the raw answer.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(method, accept string) (*http.Response, []byte) {
		req, err := http.NewRequest(method, srv.URL+"/playground/kwire.0123456789.wasm", nil)
		require.NoError(t, err)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
		require.Equal(t, "public, max-age=31536000, immutable", resp.Header.Get("Cache-Control"))
		return resp, b
	}
	for _, accept := range []string{"gzip, deflate, br, zstd", "br;q=1, GZIP;q=0.5", "*"} {
		resp, b := get(http.MethodGet, accept)
		require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), accept)
		require.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"), accept)
		require.Equal(t, strconv.Itoa(gz.Len()), resp.Header.Get("Content-Length"), accept)
		require.Equal(t, strconv.Itoa(len(wasm)), resp.Header.Get("X-Decoded-Content-Length"), accept)
		zr, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		plain, err := io.ReadAll(zr)
		require.NoError(t, err)
		require.Equal(t, wasm, plain, accept)
	}
	resp, b := get(http.MethodHead, "gzip")
	require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	require.Empty(t, b)
	for _, accept := range []string{"", "identity", "br, zstd", "gzip;q=0", "*;q=0", "*, gzip;q=0"} {
		resp, b := get(http.MethodGet, accept)
		require.Empty(t, resp.Header.Get("Content-Encoding"), accept)
		require.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"), accept)
		require.Empty(t, resp.Header.Get("X-Decoded-Content-Length"), accept)
		require.Equal(t, wasm, b, accept)
	}
	// Rebuilt since its copy was written: the file itself, to everyone.
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(name+".gz", old, old))
	resp, b = get(http.MethodGet, "gzip")
	require.Empty(t, resp.Header.Get("Content-Encoding"))
	require.Equal(t, wasm, b)
}

func TestServeStopsWithContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, siteHandler(serveDir(t), nil), defaultLimits, serveOptions{}) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// The binary listens where it is told, on loopback by default, and says where.
func TestServeCLI(t *testing.T) {
	out, _, code := runCLI(t, []string{"serve", "--help"}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, `(default "127.0.0.1:8080")`)

	none := filepath.Join(t.TempDir(), "none")
	_, errOut, code := runCLI(t, []string{"serve", "--dir", none}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: --dir "+none+": no such file or directory: kwire serve serves the site kwire site --out "+none+" writes (make site writes dist in kwire's repository)\n", errOut)
	_, errOut, code = runCLI(t, []string{"serve", "--dir", "frame.bin"}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: --dir frame.bin: not a folder: ")
	_, _, code = runCLI(t, []string{"serve", "extra"}, nil)
	require.Equal(t, 2, code)

	url, _ := startServeBinary(t)
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	resp, err := http.Get(url + "playground/kwire.0123456789.wasm")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
}

// kwire serve answers the JSON API on its routes and the site's files
// (including its own pages under /api/) everywhere else.
func TestServeMountsAPI(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "api", "produce"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api", "produce", "v9.html"), []byte("<!doctype html><p>produce"), 0o644))
	srv := httptest.NewServer(siteHandler(dir, nil))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/api/apis")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(body), `"name":"Produce"`)
	res, err = http.Get(srv.URL + "/api/produce/v9.html")
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(body), "produce")
	res, err = http.Post(srv.URL+"/api/decode", "text/plain", strings.NewReader("0000001b001200030000000700056b7769726500066b7769726504312e3000"))
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(body), `"apiName":"ApiVersions"`)
}

// kwire serve's /api/decode takes kafka=1: a Produce request's records
// come back as one base64 string (Kafka's form), not as batches.
func TestServeDecodeKafkaForm(t *testing.T) {
	srv := httptest.NewServer(siteHandler(t.TempDir(), nil))
	defer srv.Close()
	b, err := codec.ExampleFrame(schema.ByName("Produce"), 9, false)
	require.NoError(t, err)
	post := func(q string) string {
		res, err := http.Post(srv.URL+"/api/decode"+q, "application/octet-stream", bytes.NewReader(b))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, string(body))
		return string(body)
	}
	require.Contains(t, post(""), `"records":[{"baseOffset":`)
	kafka := post("?kafka=1")
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	recs, err := f.Root.Lookup("body.topicData[0].partitionData[0].records")
	require.NoError(t, err)
	require.Contains(t, kafka, `"records":"`+base64.StdEncoding.EncodeToString(recs.Raw)+`"`)
	require.NotContains(t, kafka, `"baseOffset"`)
}

// startServe runs serve with h and l on a free loopback port until the
// test ends, and returns its address. It answers for the host name
// "kwire" too, which the raw requests of the tests name.
func startServe(t *testing.T, h http.Handler, l serverLimits) string {
	return startServeOpts(t, h, l, serveOptions{allowHosts: []string{"kwire"}})
}

func startServeOpts(t *testing.T, h http.Handler, l serverLimits, o serveOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, h, l, o) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// testLimits are defaultLimits with timeouts short enough for a test to
// see them cut; what is asserted is that they cut, never how fast.
var testLimits = serverLimits{
	readHeader:     300 * time.Millisecond,
	read:           300 * time.Millisecond,
	write:          5 * time.Second,
	idle:           time.Second,
	maxHeaderBytes: defaultLimits.maxHeaderBytes,
	maxConns:       64,
}

// dialGuarded connects to addr; a deadline far beyond the server's
// timeouts turns a server that never cuts the connection into a failure
// instead of a hang.
func dialGuarded(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	return c
}

// requireCut reads c to its end and fails if only the guard deadline
// ended it: the server must have closed the connection. The guard starts
// again here: a deadline already past fails a read at once, even of a
// connection the server closed long before (what a test slowed past the
// dial's guard, under load, met).
func requireCut(t *testing.T, c net.Conn) []byte {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
	got, err := io.ReadAll(c)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the server kept the connection open; read so far: %q", got)
	return got
}

func decodeRequest(t *testing.T, addr string) *http.Response {
	t.Helper()
	res, err := http.Post("http://"+addr+"/api/decode", "text/plain", strings.NewReader(apiVersionsV3))
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res
}

// A POST whose body stalls after its headers is answered 408 and cut by
// the read timeout; while it stalls it holds no decode slot, so another
// client decodes through the only one.
func TestServeCutsStalledBody(t *testing.T) {
	lim := api.NewLimiter(1, 0, 0)
	addr := startServe(t, siteHandler(serveDir(t), lim), testLimits)
	c := dialGuarded(t, addr)
	_, err := io.WriteString(c, "POST /api/decode HTTP/1.1\r\nHost: kwire\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0000001c0012")
	require.NoError(t, err)

	res := decodeRequest(t, addr)
	require.Equal(t, http.StatusOK, res.StatusCode)

	got := requireCut(t, c)
	res, err = http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
	require.NoError(t, err, "%q", got)
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	body, _ := io.ReadAll(res.Body)
	require.Contains(t, string(body), "did not arrive in time")
}

// Headers that stop coming, or trickle in a byte at a time, are cut by the
// header timeout.
func TestServeCutsSlowHeaders(t *testing.T) {
	addr := startServe(t, siteHandler(serveDir(t), nil), testLimits)

	c := dialGuarded(t, addr)
	_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: kwire\r\n")
	require.NoError(t, err)
	requireCut(t, c)

	// The slow loris: one byte of an endless header every 20 ms.
	c = dialGuarded(t, addr)
	_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: kwire\r\nX-Slow: ")
	require.NoError(t, err)
	stop := make(chan struct{})
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	requireCut(t, c)
	close(stop)
	<-trickled
}

// Headers over the limit get 431; headers as large as a browser's with
// cookies are served.
func TestServeHeaderLimit(t *testing.T) {
	addr := startServe(t, siteHandler(serveDir(t), nil), testLimits)
	c := dialGuarded(t, addr)
	_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: kwire\r\nX-Big: "+strings.Repeat("a", 64<<10)+"\r\n\r\n")
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode)

	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
	require.NoError(t, err)
	req.Header.Set("Cookie", strings.Repeat("c", 12<<10))
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
}

// With every decode slot taken and none to wait in, a decode over a real
// connection gets 503 with Retry-After, and decodes again once a slot is free.
func TestServeBusy(t *testing.T) {
	lim := api.NewLimiter(1, 0, 0)
	addr := startServe(t, siteHandler(serveDir(t), lim), testLimits)
	require.True(t, lim.Acquire(context.Background()))
	res := decodeRequest(t, addr)
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	require.Equal(t, "1", res.Header.Get("Retry-After"))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	lim.Release()
	require.Equal(t, http.StatusOK, decodeRequest(t, addr).StatusCode)
}

// The binary's limits are all set and ordered: the whole request's time
// covers the headers', and the answer's covers the request's body.
func TestServeDefaultLimits(t *testing.T) {
	l := defaultLimits
	require.Positive(t, l.readHeader)
	require.Greater(t, l.read, l.readHeader)
	require.Greater(t, l.write, l.read)
	require.Positive(t, l.idle)
	require.Positive(t, l.maxHeaderBytes)
	require.Positive(t, l.maxConns)
}

// startServeBinary runs the kwire binary's serve on a free loopback port
// with args added, until the test ends, and returns its URL (ending in /)
// and the command, whose ProcessState is set once the test's cleanup ran.
func startServeBinary(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(kwireBin, append([]string{"serve", "--dir", serveDir(t), "--addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	_, url, ok := strings.Cut(strings.TrimSpace(line), " at ")
	require.True(t, ok, line)
	return url, cmd
}

// 32 clients at once post the costliest requests the API accepts to the
// kwire binary, with two decode slots: each gets its answer or 503 with
// Retry-After, the server stays up, and its peak memory stays bounded.
func TestServeManyClients(t *testing.T) {
	cases, err := worst.Cases(worst.LimitsOf(api.Options{}))
	require.NoError(t, err)
	url, cmd := startServeBinary(t, "--max-decodes", "2")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 2 * time.Minute}
	const clients = 32
	status := make([]int, clients)
	var wg sync.WaitGroup
	for i := range clients {
		c := cases[i%len(cases)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := client.Post(url+c.Route[1:]+c.Query, c.ContentType, bytes.NewReader(c.Body))
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			status[i] = res.StatusCode
			if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") == "" {
				t.Errorf("%s: 503 without Retry-After", c.Name)
			}
		}()
	}
	wg.Wait()
	counts := map[int]int{}
	for i, s := range status {
		counts[s]++
		require.Contains(t, []int{http.StatusOK, http.StatusServiceUnavailable}, s, cases[i%len(cases)].Name)
	}
	require.Positive(t, counts[http.StatusOK])
	// Still up: it answers again.
	res, err := client.Post(url+"api/decode", "text/plain", strings.NewReader(apiVersionsV3))
	require.NoError(t, err)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	rss, err := worst.PeakRSS(cmd.Process.Pid)
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())
	t.Logf("%d clients, 2 decode slots: %d answered 200, %d got 503; peak RSS %d MiB", clients, counts[200], counts[503], rss>>20)
	// Two decodes at api.RequestPeak each, and every client's body read
	// (at most 2 MiB in memory for a 1 MiB body), over the server's own
	// 32 MiB at most.
	require.LessOrEqual(t, rss, int64(32<<20+2*api.RequestPeak+clients*2<<20))
}

// TestServeSymlinks: a symbolic link inside --dir that leads out of it,
// to a file or a folder, is not followed (os.Root); one that stays inside
// is.
func TestServeSymlinks(t *testing.T) {
	dir := serveDir(t)
	outside := filepath.Join(filepath.Dir(dir), "secret.txt")
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "leak.txt")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.txt")))
	require.NoError(t, os.Symlink(filepath.Dir(dir), filepath.Join(dir, "up")))
	require.NoError(t, os.Symlink("index.html", filepath.Join(dir, "home.html")))
	srv := httptest.NewServer(fileHandler(dir))
	defer srv.Close()
	for p, want := range map[string]int{
		"/leak.txt":       404,
		"/passwd.txt":     404,
		"/up/secret.txt":  404,
		"/up/":            404,
		"/home.html":      200,
		"/index.html":     200,
		"/../secret.txt":  404,
		"/up/../leak.txt": 404,
	} {
		res, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, want, res.StatusCode, "%s: %s", p, body)
		require.NotContains(t, string(body), "root:", p)
		require.NotEqual(t, "no", string(body), p)
	}
}

// TestServeHTMLPolicy: every HTML answer forbids framing by other pages
// (frame-ancestors in a Content-Security-Policy header, which a meta tag
// cannot set, and X-Frame-Options for older browsers).
func TestServeHTMLPolicy(t *testing.T) {
	srv := httptest.NewServer(siteHandler(serveDir(t), nil))
	defer srv.Close()
	for _, p := range []string{"/", "/index.html", "/playground/"} {
		res, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, p)
		csp := res.Header.Get("Content-Security-Policy")
		require.Contains(t, csp, "frame-ancestors 'none'", p)
		require.Contains(t, csp, "object-src 'none'", p)
		require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"), p)
	}
	res, err := http.Get(srv.URL + "/data.json")
	require.NoError(t, err)
	res.Body.Close()
	require.Empty(t, res.Header.Get("Content-Security-Policy"), "not on other files")
}

// get sends a request with a Host and an Origin (either may be empty)
// and returns the status.
func get(t *testing.T, method, addr, path, host, origin string) int {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(apiVersionsV3)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, body)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// TestServeHostOrigin: kwire serve answers only requests made to it by
// name (localhost, an address literal, a name given with --allow-host),
// else 421, so a page under another name resolved to 127.0.0.1 (DNS
// rebinding) reads nothing; and a request a page of another origin sends
// gets 403, the API and the files alike.
func TestServeHostOrigin(t *testing.T) {
	addr := startServeOpts(t, siteHandler(serveDir(t), nil), testLimits, serveOptions{allowHosts: []string{"kwire.test"}})
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"", "", 200},
		{"localhost:" + port, "", 200},
		{"LocalHost:" + port, "", 200},
		{"[::1]:" + port, "", 200},
		{"kwire.test:" + port, "", 200},
		{"kwire.test", "", 200},
		{"evil.example:" + port, "", 421},
		{"localhost.evil.example:" + port, "", 421},
		{"127.0.0.1.nip.io:" + port, "", 421},
		{"", "http://" + addr, 200},
		{"localhost:" + port, "http://localhost:" + port, 200},
		{"", "https://kwire.test", 200},
		{"", "http://evil.example:" + port, 403},
		{"", "http://127.0.0.1:1", 403},
		{"", "http://localhost:" + port, 403},
		{"", "http://LOCALHOST:1", 403}, // localhost in any case is only this port's
		{"", "http://LocalHost:" + port, 403},
		{"", "null", 403},
		{"evil.example:" + port, "http://evil.example:" + port, 421},
	} {
		for _, r := range []struct{ method, path string }{{"GET", "/"}, {"GET", "/api/apis"}, {"POST", "/api/decode"}} {
			require.Equal(t, c.want, get(t, r.method, addr, r.path, c.host, c.origin), "%s %s Host %q Origin %q", r.method, r.path, c.host, c.origin)
		}
	}
}

// TestServeEvictsIdle: with every connection slot held by keep-alive
// connections that sent one request each (or by connections that sent
// nothing for a second), a new client is served at once: the longest idle
// connection is closed to make room, where a plain limit made it wait for
// the idle timeout.
func TestServeEvictsIdle(t *testing.T) {
	l := testLimits
	l.readHeader, l.read, l.idle, l.maxConns = 30*time.Second, 30*time.Second, time.Minute, 8
	// The server marks a connection idle after its response is sent; under
	// load that can come after the client has sent its next connection's
	// request, so each is waited for: the order held is the order idled.
	idled := make(chan string, 64)
	addr := startServeOpts(t, siteHandler(serveDir(t), nil), l, serveOptions{allowHosts: []string{"kwire"},
		connState: func(c net.Conn, s http.ConnState) {
			if s == http.StateIdle {
				select {
				case idled <- c.RemoteAddr().String():
				default: // only the held connections' first idling is waited for
				}
			}
		}})
	var held []net.Conn
	for range l.maxConns {
		c := dialGuarded(t, addr)
		_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: kwire\r\n\r\n")
		require.NoError(t, err)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		select {
		case a := <-idled:
			require.Equal(t, c.LocalAddr().String(), a)
		case <-time.After(10 * time.Second):
			require.Fail(t, "the server never marked the connection idle")
		}
		held = append(held, c)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 {
		start := time.Now()
		res, err := client.Get("http://" + addr + "/")
		require.NoError(t, err, "client %d", i)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		require.Less(t, time.Since(start), 5*time.Second, "served long before the idle timeout")
	}
	// The oldest idle connections were the ones closed.
	requireCut(t, held[0])

	// Connections that send nothing at all.
	for range l.maxConns {
		dialGuarded(t, addr)
	}
	res, err := client.Get("http://" + addr + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
}

// TestServeFeedOutlivesTimeouts: the live feed's stream lasts past the
// server's read and write timeouts (each write gets its own deadline), and
// it is behind the same Host check as everything else.
func TestServeFeedOutlivesTimeouts(t *testing.T) {
	feed := &proxy.Feed{Heartbeat: time.Hour}
	l := testLimits
	l.write = l.read
	addr := startServeOpts(t, feed, l, serveOptions{onShutdown: feed.Close})
	require.Equal(t, http.StatusMisdirectedRequest, get(t, "GET", addr, "/", "evil.example", ""))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/", nil)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 1000\n", line)
	time.Sleep(3 * l.read) // past the read and write timeouts
	for i := range 3 {
		feed.Publish(feed.AppendEvent(nil, []byte(`{"n":`+strconv.Itoa(i)+`}`), nil, nil))
		for {
			line, err = r.ReadString('\n')
			require.NoError(t, err, "the stream is still open")
			if strings.HasPrefix(line, "data: ") {
				break
			}
		}
		require.Equal(t, `data: {"exchange":{"n":`+strconv.Itoa(i)+"}}\n", line)
		time.Sleep(l.read)
	}
}

// TestServeListensWhereTold: an address without a host would listen on
// every interface; kwire serve and kwire proxy --web refuse it, and say
// how to ask for every interface on purpose.
func TestServeListensWhereTold(t *testing.T) {
	_, errOut, code := runCLI(t, []string{"serve", "--dir", t.TempDir(), "--addr", ":0"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--addr :0 would listen on every interface: give the address, 127.0.0.1:0 (this machine only), or 0.0.0.0:0")
	_, errOut, code = runCLI(t, []string{"proxy", "--upstream", "127.0.0.1:9092", "--web", ":0"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--web :0 would listen on every interface")
	_, errOut, code = runCLI(t, []string{"proxy", "--upstream", "127.0.0.1:9092", "--web", "8080"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--web must be HOST:PORT")
}

// startLimited runs the kwire binary with args under a descriptor limit
// of n (sh's ulimit, soft and hard, in the child only) and returns the
// command and its standard error, read line by line.
func startLimited(t *testing.T, n int, args ...string) (*exec.Cmd, *lockedBuffer, <-chan string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, strconv.Itoa(n), kwireBin}, args...)...)
	cmd.Dir = workDir
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	buf := &lockedBuffer{}
	lines := make(chan string, 1024)
	go func() {
		s := bufio.NewScanner(errPipe)
		for s.Scan() {
			buf.Write([]byte(s.Text() + "\n"))
			select {
			case lines <- s.Text():
			default:
			}
		}
		close(lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return cmd, buf, lines
}

// TestServeOutOfFiles: kwire serve out of file descriptors keeps its
// clients waiting, says so once (net/http alone logs every retry, every 5
// ms to 1 s), and serves them once descriptors are free; while the
// connections let go are still closing, a page it cannot open is 503
// (try again), never 404.
func TestServeOutOfFiles(t *testing.T) {
	_, stderr, lines := startLimited(t, 32, "serve", "--dir", serveDir(t), "--addr", "127.0.0.1:0")
	var url string
	for l := range lines {
		if _, u, ok := strings.Cut(l, " at "); ok {
			url = u
			break
		}
	}
	require.NotEmpty(t, url, stderr.String())
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 48 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		held = append(held, c)
	}
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "too many open files") }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(2 * time.Second) // a dozen retries
	for _, c := range held {
		c.Close()
	}
	held = nil
	client := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := client.Get(url)
		require.NoError(t, err, stderr.String())
		res.Body.Close()
		if res.StatusCode == 503 && time.Now().Before(deadline) {
			require.Equal(t, "1", res.Header.Get("Retry-After"))
			time.Sleep(50 * time.Millisecond)
			continue
		}
		require.Equal(t, 200, res.StatusCode)
		break
	}
	require.Equal(t, 1, strings.Count(stderr.String(), "too many open files"), "said once:\n%s", stderr.String())
	require.Contains(t, stderr.String(), "kwire: serve: cannot accept connections")
}

// TestServeStopsAtTheCap: a server whose every slot is held, with a
// client waiting for one, still stops when asked.
func TestServeStopsAtTheCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := testLimits
	l.readHeader, l.read, l.maxConns = 30*time.Second, 30*time.Second, 2
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, siteHandler(serveDir(t), nil), l, serveOptions{}) }()
	for range 3 {
		c := dialGuarded(t, ln.Addr().String())
		io.WriteString(c, "GET / HTTP/1.1\r\n") // active, not evictable
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// A path that is no file goes to the API handler, as the Worker's static
// assets send it to the Worker: the two servers give the same 404, an HTML
// page (with the site's policy) to a browser asking for a page, the API's
// JSON error to anything else, near-misses of routes included.
func TestServeNotFoundAsTheWorker(t *testing.T) {
	site := siteHandler(serveDir(t), nil)
	worker := api.New(api.Options{})
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		method, path, accept, ctype string
	}{
		{"GET", "/api/Metadata/v12.html", browser, "text/html; charset=utf-8"},
		{"HEAD", "/api/Metadata/v12.html", browser, "text/html; charset=utf-8"},
		{"GET", "/missing.html", browser, "text/html; charset=utf-8"},
		{"GET", "/api/Metadata/v12.html", "*/*", "application/json"},
		{"GET", "/api/foo", "", "application/json"},
		{"POST", "/api/decode/", "*/*", "application/json"},
		{"POST", "/missing", browser, "application/json"},
		{"DELETE", "/nope/", "", "application/json"},
	} {
		name := tc.method + " " + tc.path + " " + tc.accept
		answer := func(h http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader("00"))
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		got, want := answer(site), answer(worker)
		require.Equal(t, http.StatusNotFound, got.Code, name)
		require.Equal(t, tc.ctype, got.Header().Get("Content-Type"), name)
		require.Equal(t, want.Header().Get("Content-Type"), got.Header().Get("Content-Type"), name)
		require.Equal(t, want.Body.String(), got.Body.String(), name)
		if strings.HasPrefix(tc.ctype, "text/html") {
			require.Equal(t, htmlPolicy, got.Header().Get("Content-Security-Policy"), name)
		}
	}
	// A file asked for with another method is still refused as such.
	req := httptest.NewRequest("POST", "/index.html", nil)
	w := httptest.NewRecorder()
	site.ServeHTTP(w, req)
	require.Equal(t, http.StatusMethodNotAllowed, w.Code)
	require.Equal(t, "GET, HEAD", w.Header().Get("Allow"))
}

// TestServeEvictsSlowBodies: with every connection slot held by clients
// that trickle their request bodies (a byte every 200 ms, the slow-loris
// of bodies), a new client is served long before the read timeout: the
// slowest sender is closed to make room, and the log says so. It was
// 200 such connections delaying every other client by up to 21 s.
func TestServeEvictsSlowBodies(t *testing.T) {
	l := testLimits
	l.readHeader, l.read, l.maxConns = 30*time.Second, 30*time.Second, 4
	var log lockedBuffer
	addr := startServeOpts(t, siteHandler(serveDir(t), api.NewLimiter(1, 0, 0)), l, serveOptions{allowHosts: []string{"kwire"},
		log: func(s string) { log.Write([]byte(s + "\n")) }})
	stop := make(chan struct{})
	defer close(stop)
	var held []net.Conn
	for range l.maxConns {
		c := dialGuarded(t, addr)
		_, err := io.WriteString(c, "POST /api/decode HTTP/1.1\r\nHost: kwire\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n00")
		require.NoError(t, err)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
				if _, err := io.WriteString(c, "0"); err != nil {
					return
				}
			}
		}()
		held = append(held, c)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 {
		res, err := client.Post("http://"+addr+"/api/decode", "text/plain", strings.NewReader(apiVersionsV3))
		require.NoError(t, err, "client %d waited for the read timeout", i)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
	}
	cut := 0
	for _, c := range held {
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			cut++
		}
	}
	require.Positive(t, cut, "a slow sender was closed to make room (each client's own connection frees it for the next)")
	require.Contains(t, log.String(), "sending a request's body at under 64 KiB/s closed to make room for new clients")
}

// TestCapVictimOrder: to make room, the cap closes an idle keep-alive
// connection first, then one that sent nothing for a second, then the
// slowest body sender under 64 KiB/s; never a body arriving faster, nor
// one in its first second, nor a request being answered.
func TestCapVictimOrder(t *testing.T) {
	now := time.Now()
	l := newCapListener(nil, 8, nil)
	add := func(s http.ConnState, since time.Duration, inBody bool, bytes int64) *capConn {
		c := &capConn{l: l, state: s, since: now.Add(-since), inBody: inBody, bodySince: now.Add(-since), bodyBytes: bytes}
		l.conns[c] = struct{}{}
		return c
	}
	add(http.StateActive, 10*time.Second, false, 1000)       // answering
	add(http.StateActive, 2*time.Second, true, 1<<20)        // 512 KiB/s
	add(http.StateActive, 500*time.Millisecond, true, 0)     // in its first second
	add(http.StateNew, 500*time.Millisecond, false, 0)       // new, under a second
	slow := add(http.StateActive, 4*time.Second, true, 100)  // 25 B/s
	slower := add(http.StateActive, 3*time.Second, true, 30) // 10 B/s
	require.Same(t, slower, l.victim())
	delete(l.conns, slower)
	require.Same(t, slow, l.victim())
	fresh := add(http.StateNew, 2*time.Second, false, 0)
	require.Same(t, fresh, l.victim())
	idle := add(http.StateIdle, time.Second, false, 0)
	require.Same(t, idle, l.victim())
	delete(l.conns, slow)
	delete(l.conns, fresh)
	delete(l.conns, idle)
	require.Nil(t, l.victim(), "no connection may be closed")
}

// An address already taken is said with the flag that named it and what
// to do, for each of the servers: kwire proxy's --listen and --web,
// kwire serve's --addr. Go's own "listen tcp ...: bind: address already
// in use" named no flag, and, for the default address, gave a user who
// never typed it nothing to change.
func TestListenAddressInUse(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer held.Close()
	addr := held.Addr().String()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("hi"), 0o644))
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"proxy", "--upstream", addr, "--listen", addr}, "--listen"},
		{[]string{"proxy", "--upstream", addr, "--listen", "127.0.0.1:0", "--web", addr, "--web-dir", dir}, "--web"},
		{[]string{"serve", "--dir", dir, "--addr", addr}, "--addr"},
	} {
		_, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "kwire: "+c.flag+" "+addr+": the address is already in use: stop what listens there, or give "+c.flag+" another HOST:PORT (port 0 picks a free one)\n", c.args)
	}
}
