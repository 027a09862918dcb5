package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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

func TestServeStopsWithContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, serveDir(t)) }()
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

	_, errOut, code := runCLI(t, []string{"serve", "--dir", filepath.Join(t.TempDir(), "none")}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is not a folder")
	_, _, code = runCLI(t, []string{"serve", "extra"}, nil)
	require.Equal(t, 2, code)

	cmd := exec.Command(kwireBin, "serve", "--dir", serveDir(t), "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	_, url, ok := strings.Cut(strings.TrimSpace(line), " at ")
	require.True(t, ok, line)
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), line)
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
	srv := httptest.NewServer(siteHandler(dir))
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
	res, err = http.Post(srv.URL+"/api/decode", "text/plain", strings.NewReader("0000001c001200030000000700056b7769726500076b776972652004312e3000"))
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(body), `"apiName":"ApiVersions"`)
}
