package site

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/api"
)

// The API handler's 404 page for a browser (kwire serve and the Worker
// answer a path that is no page with it) is a well-formed page whose links,
// relative to the path asked for, reach the site's pages.
func TestNotFoundPageLinksIntoTheSite(t *testing.T) {
	out := buildOnce(t)
	h := api.New(api.Options{})
	for _, p := range []string{"api/Metadata/v12.html", "no-such-page.html", "api/metadata/v99.html", "rules/nope/deeper/x"} {
		req := httptest.NewRequest("GET", "/"+p, nil)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusNotFound || w.Header().Get("Content-Security-Policy") != HTMLPolicy {
			t.Fatalf("%s: %d, policy %q", p, w.Code, w.Header().Get("Content-Security-Policy"))
		}
		d, err := checkHTML(w.Body.Bytes())
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if len(d.refs) < 2 {
			t.Errorf("%s: links %v", p, d.refs)
		}
		for _, ref := range d.refs {
			if err := checkLink(out, p, ref, nil); err != nil {
				t.Errorf("%s: broken link %q: %v", p, ref, err)
			}
		}
	}
}

// The 404 page suggests a path's lower case only when that is a page: the
// API handler knows the site's pages from the schema tables, so every page
// written (the rules' own pages aside), asked for in capitals, with or
// without .html, and every folder with an index, gets its lower case
// suggested; paths near them that are no page do not.
func TestNotFoundSuggestsOnlyPages(t *testing.T) {
	out := buildOnce(t)
	h := api.New(api.Options{})
	hint := func(p string) string {
		req := httptest.NewRequest("GET", p, nil)
		req.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		_, after, ok := strings.Cut(w.Body.String(), "Page names are lower case: <code>")
		if !ok {
			return ""
		}
		s, _, _ := strings.Cut(after, "</code>")
		return s
	}
	n := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel := filepath.ToSlash(p[len(out):])
		if strings.HasPrefix(rel, "/rules/") && rel != "/rules/index.html" {
			return nil
		}
		if rel != strings.ToLower(rel) {
			t.Errorf("%s: page names are lower case", rel)
		}
		forms := []string{rel, strings.TrimSuffix(rel, ".html")}
		if dir, ok := strings.CutSuffix(rel, "index.html"); ok && dir != "/" {
			forms = append(forms, dir)
		}
		for _, f := range forms {
			if got := hint(strings.ToUpper(f)); got != f {
				t.Errorf("%s: suggests %q, not %q", strings.ToUpper(f), got, f)
			}
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Fatalf("only %d pages", n)
	}
	for _, p := range []string{"/API/FETCH/V99.HTML", "/API/FETCH/V99", "/API/NOPE/", "/INTERNAL/CLUSTER_METADATA/", "/INTERNAL/CLUSTER_METADATA/NOPE/V0.HTML", "/PLAYGROUND/NOPE.HTML", "/NOPE.HTML"} {
		if got := hint(p); got != "" {
			t.Errorf("%s: suggests %q, which is no page", p, got)
		}
	}
}
