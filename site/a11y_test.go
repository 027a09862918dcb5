package site

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestScrollRegionsAndLandmarks checks every generated page (the
// playground aside) for two things axe-core reported on the built site:
//
//   - a box that may scroll sideways (every <pre>, every .scroll wrapper)
//     takes the keyboard's focus itself (tabindex="0") or holds, as its
//     first element, something that does (the byte grid), so a keyboard
//     user can scroll it (axe scrollable-region-focusable); one that is a
//     region has a name;
//   - no two landmarks of the same role share a name (axe landmark-unique):
//     a version page's request and response trees were both "decoded tree".
func TestScrollRegionsAndLandmarks(t *testing.T) {
	out := buildOnce(t)
	pages := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "playground/") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages++
		for _, problem := range a11yProblems(b) {
			t.Errorf("%s: %s", rel, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 100 {
		t.Fatalf("only %d pages checked", pages)
	}
}

// a11yProblems lists what a page gets wrong of the two rules above.
func a11yProblems(b []byte) []string {
	var problems []string
	attr := func(tok html.Token, k string) (string, bool) {
		for _, a := range tok.Attr {
			if a.Key == k {
				return a.Val, true
			}
		}
		return "", false
	}
	landmarks := map[string]int{}
	z := html.NewTokenizer(bytes.NewReader(b))
	var pending string // a .scroll wrapper without tabindex, waiting for its first child
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		class, _ := attr(tok, "class")
		tab, _ := attr(tok, "tabindex")
		role, _ := attr(tok, "role")
		label, labelled := attr(tok, "aria-label")
		if pending != "" {
			if tab != "0" {
				problems = append(problems, pending+" scrolls but neither it nor its first element takes focus")
			}
			pending = ""
		}
		desc := "<" + tok.Data + ` class="` + class + `">`
		scroller := tok.Data == "pre" || slices.Contains(strings.Fields(class), "scroll")
		switch {
		case scroller && tab == "0":
		case scroller && tok.Data != "pre":
			pending = desc
		case scroller:
			problems = append(problems, desc+" scrolls but takes no focus")
		}
		if role == "region" && strings.TrimSpace(label) == "" {
			problems = append(problems, desc+" is a region without a name")
		}
		// Landmarks: nav, role=region and role=search, and a section
		// with a name.
		lm := role
		switch {
		case tok.Data == "nav" && role == "":
			lm = "navigation"
		case tok.Data == "section" && role == "" && labelled:
			lm = "region"
		}
		if lm == "navigation" || lm == "region" || lm == "search" {
			k := lm + ` "` + label + `"`
			landmarks[k]++
			if landmarks[k] == 2 {
				problems = append(problems, "two "+k+" landmarks")
			}
		}
	}
	return problems
}
