package site

import (
	"net/http"
	"net/http/httptest"
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
