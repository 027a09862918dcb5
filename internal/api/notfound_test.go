package api

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Chromium's Accept for a page it navigates to.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"

func get(h http.Handler, method, path, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// A browser that mistypes a docs URL (the pages live under /api/<name>/
// beside the routes, in lower case) gets a page: the site's policy, a
// link home, a search for what it asked for, links relative to the path.
// API clients keep the JSON 404.
func TestNotFoundPageForBrowsers(t *testing.T) {
	h := New(Options{})
	w := get(h, "GET", "/api/Metadata/v12.html", browserAccept)
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
	require.Equal(t, HTMLPolicy, w.Header().Get("Content-Security-Policy"))
	require.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	page := w.Body.String()
	for _, want := range []string{
		"<!DOCTYPE html>", "<code>/api/Metadata/v12.html</code>", "Page names are lower case: <code>/api/metadata/v12.html</code>?",
		`href="../../index.html"`, `href="../../search.html?q=Metadata+v12"`, `action="../../search.html"`,
		`href="../../json-api.html"`, `value="Metadata v12"`,
	} {
		require.Contains(t, page, want)
	}
	require.Equal(t, http.StatusNotFound, get(h, "HEAD", "/api/Metadata/v12.html", browserAccept).Code)

	// The lower case is suggested only when it is a page: a version the
	// API has, with or without .html, or a folder with an index.
	for path, want := range map[string]string{
		"/api/Metadata/v12": "/api/metadata/v12",
		"/api/Metadata/":    "/api/metadata/",
		"/Errors.html":      "/errors.html",
		"/internal/cluster_metadata/AbortTransactionRecord/": "/internal/cluster_metadata/aborttransactionrecord/",
		"/API/METADATA/V0.HTML":                              "/api/metadata/v0.html",
		"/api/Metadata/v99.html":                             "",
		"/api/Metadata/v012.html":                            "",
		"/api/Nope/v1.html":                                  "",
		"/Internal/cluster_metadata/":                        "",
		"/Rules/Conn.Order.html":                             "",
		"/No-Such-Page.html":                                 "",
	} {
		page := get(h, "GET", path, browserAccept).Body.String()
		if want == "" {
			require.NotContains(t, page, "lower case", path)
		} else {
			require.Contains(t, page, "Page names are lower case: <code>"+want+"</code>?", path)
		}
	}

	// Links from the root, and nothing of the path unescaped.
	w = get(h, "GET", "/no-such-page", "text/html")
	require.Contains(t, w.Body.String(), `href="index.html"`)
	require.NotContains(t, w.Body.String(), "lower case")
	w = get(h, "GET", `/x/"><script>alert(1)</script>.html`, "text/html")
	require.Equal(t, http.StatusNotFound, w.Code)
	require.NotContains(t, w.Body.String(), "<script>")
	require.Contains(t, w.Body.String(), "&lt;script&gt;")

	// Not a page: the JSON error.
	for _, tc := range []struct{ method, path, accept string }{
		{"GET", "/api/Metadata/v12.html", ""},
		{"GET", "/api/Metadata/v12.html", "*/*"},
		{"GET", "/api/Metadata/v12.html", "application/json"},
		{"GET", "/api/Metadata/v12.html", "application/json, text/html;q=0.5"},
		{"POST", "/api/Metadata/v12.html", browserAccept},
		{"GET", "/api/decode", browserAccept},        // a route: 405
		{"GET", "/api/schema/Nope/1", browserAccept}, // a route: its own 404
	} {
		w := get(h, tc.method, tc.path, tc.accept)
		require.Contains(t, []int{404, 405}, w.Code, "%s %s %q", tc.method, tc.path, tc.accept)
		errorBody(t, w)
	}
}

// A path near a route says which; others list them all.
func TestNotFoundNamesTheNearRoute(t *testing.T) {
	h := New(Options{})
	for path, want := range map[string]string{
		"/api/decode/":        "(did you mean POST /api/decode?)",
		"/API/Decode":         "(did you mean POST /api/decode?)",
		"/api/encode//":       "(did you mean POST /api/encode?)",
		"/api/apis/":          "(did you mean GET /api/apis?)",
		"/api/schema":         "(did you mean GET /api/schema/{api}/{version}?)",
		"/api/schema/Produce": "(did you mean GET /api/schema/{api}/{version}?)",
		"/api/foo":            "(routes: POST /api/decode, POST /api/encode, GET /api/apis, GET /api/schema/{api}/{version})",
	} {
		w := get(h, "POST", path, "")
		require.Equal(t, http.StatusNotFound, w.Code, path)
		require.Equal(t, "no such route: "+path+" "+want, errorBody(t, w)["error"], path)
	}
}

func TestPrefersHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		browserAccept:                       true,
		"text/html":                         true,
		"text/*":                            true,
		"":                                  false,
		"*/*":                               false,
		"application/json":                  false,
		"application/json, text/html":       false,
		"text/html;q=0.9, application/json": false,
		"text/html, */*;q=0.1":              true,
		"text/html;q=0":                     false,
		"TEXT/HTML":                         true,
	} {
		var h []string
		if accept != "" {
			h = []string{accept}
		}
		require.Equal(t, want, prefersHTML(h), "%q", accept)
	}
}

// Routes is what the handler serves: every route it answers is listed,
// each query parameter it reads is documented, and the values the docs
// give are the ones it takes (a value it does not take names the
// parameter).
func TestRoutesDocumentTheHandler(t *testing.T) {
	h := New(Options{})
	routes := Routes()
	var paths []string
	for _, r := range routes {
		paths = append(paths, r.Path)
		concrete := strings.NewReplacer("{api}", "Metadata", "{version}", "12").Replace(r.Path)
		require.True(t, IsRoute(concrete), r.Path)
		other := "GET"
		if r.Method == "GET" {
			other = "POST"
		}
		require.Equal(t, http.StatusMethodNotAllowed, get(h, other, concrete, "").Code, r.Path)
		for _, p := range r.Params {
			if p.Values == nil {
				continue
			}
			for _, v := range p.Values {
				w := do(t, h, r.Method, concrete+"?"+p.Name+"="+v, "", []byte(apiVersionsV3))
				if w.Code != http.StatusOK {
					require.NotEqual(t, "?"+p.Name, errorBody(t, w)["path"], "%s ?%s=%s is documented but refused: %s", r.Path, p.Name, v, w.Body)
				}
			}
			w := do(t, h, r.Method, concrete+"?"+p.Name+"=nonsense", "", []byte(apiVersionsV3))
			require.Equal(t, http.StatusBadRequest, w.Code, "%s ?%s=nonsense", r.Path, p.Name)
			require.Equal(t, "?"+p.Name, errorBody(t, w)["path"], "%s ?%s=nonsense", r.Path, p.Name)
		}
	}
	require.Equal(t, []string{"/api/decode", "/api/encode", "/api/apis", "/api/schema/{api}/{version}"}, paths)

	// Every query parameter the handler's source reads is documented for
	// its route.
	read := regexp.MustCompile(`(?:q\.Get\(|choice\(q, |q\[)"(\w+)"`)
	for file, route := range map[string]string{"decode.go": "/api/decode", "encode.go": "/api/encode"} {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		var documented []string
		for _, r := range routes {
			if r.Path == route {
				for _, p := range r.Params {
					documented = append(documented, p.Name)
				}
			}
		}
		found := read.FindAllStringSubmatch(string(src), -1)
		require.NotEmpty(t, found, file)
		for _, m := range found {
			require.True(t, slices.Contains(documented, m[1]), "%s reads ?%s, which Routes does not document for %s", file, m[1], route)
		}
	}
}
