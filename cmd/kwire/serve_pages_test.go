package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A page's URL without its .html (/api/fetch/v12: the URL the Worker's
// static assets serve, redirecting /api/fetch/v12.html to it) is that page
// here too, and so is the URL with it, so a URL copied from either works on
// both; a folder with an index keeps its own (/rules/), and a name that is
// both a folder without an index and a page (/internal, internal.html) is
// the page, as on the Worker.
func TestServePagesWithoutHTML(t *testing.T) {
	dir := t.TempDir()
	pages := map[string]string{
		"index.html":              "home",
		"internal.html":           "internal topics",
		"api/fetch/index.html":    "fetch",
		"api/fetch/v12.html":      "fetch v12",
		"rules/index.html":        "rules",
		"rules/conn.order.html":   "conn.order",
		"internal/x/y/index.html": "record y",
		"internal/x/y/v0.html":    "record y v0",
	}
	for name, body := range pages {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("<!DOCTYPE html><title>"+body+"</title>"), 0o644))
	}
	srv := httptest.NewServer(siteHandler(dir, nil))
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		path   string
		status int
		body   string // the page's title, or where a redirect sends
	}{
		{"/api/fetch/v12", 200, "fetch v12"},
		{"/api/fetch/v12.html", 200, "fetch v12"},
		{"/api/fetch/", 200, "fetch"},
		{"/api/fetch/index", 200, "fetch"},
		{"/api/fetch", 301, "fetch/"},
		{"/internal", 200, "internal topics"},
		{"/internal.html", 200, "internal topics"},
		{"/internal/x/y/", 200, "record y"},
		{"/internal/x/y/v0", 200, "record y v0"},
		{"/rules", 301, "rules/"},
		{"/rules/conn.order", 200, "conn.order"},
		{"/api/fetch/v99", 404, ""},
		{"/api/fetch/v12/", 404, ""},
		{"/api/fetch/v12.html.html", 404, ""},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			req, _ := http.NewRequest(method, srv.URL+c.path, nil)
			req.Header.Set("Accept", "text/html")
			resp, err := noRedirect.Do(req)
			require.NoError(t, err, c.path)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, c.status, resp.StatusCode, "%s %s", method, c.path)
			switch c.status {
			case 200:
				require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"), c.path)
				require.Equal(t, htmlPolicy, resp.Header.Get("Content-Security-Policy"), c.path)
				if method == "GET" {
					require.Equal(t, "<!DOCTYPE html><title>"+c.body+"</title>", string(b), c.path)
				}
			case 301:
				require.Equal(t, c.body, resp.Header.Get("Location"), c.path)
			}
		}
	}
	// The API's routes are its own, page or no page beside them.
	resp, err := http.Get(srv.URL + "/api/decode")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
