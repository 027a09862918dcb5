package site

import (
	"strings"
	"testing"
)

// Every property the light style sets is set again under
// prefers-color-scheme: dark, by github-dark or by a reset: a light colour
// left standing on the dark code background is unreadable (punctuation,
// .p, was #1f2328 on #161b22).
func TestHighlightCSSDarkCoversLight(t *testing.T) {
	var b strings.Builder
	if err := highlightCSS(&b); err != nil {
		t.Fatal(err)
	}
	css := b.String()
	light, dark, ok := strings.Cut(css, "@media (prefers-color-scheme: dark) {")
	if !ok {
		t.Fatalf("no dark block:\n%s", css)
	}
	inDark := map[string]bool{}
	for _, r := range cssRules(dark) {
		for _, p := range r.props {
			inDark[r.selector+" "+p] = true
		}
	}
	rules := cssRules(light)
	if len(rules) < 50 {
		t.Fatalf("read %d light rules; chroma's CSS changed shape?\n%s", len(rules), light)
	}
	for _, r := range rules {
		for _, p := range r.props {
			if !inDark[r.selector+" "+p] {
				t.Errorf("%s sets %s in light pages, and nothing sets it in dark ones", r.selector, p)
			}
		}
	}
	for _, want := range []string{".chroma .p { color: unset }", ".chroma .nx { color: unset }"} {
		if !strings.Contains(dark, want) {
			t.Errorf("the dark block lacks %q", want)
		}
	}
}
