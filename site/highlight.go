package site

import (
	"bytes"
	"io"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/kwire/kwire/internal/highlight"
)

// Value JSON is highlighted with chroma's JSON lexer into class-marked
// spans; the colours come from two chroma styles, one per colour scheme
// (both through internal/highlight, which loads them on first use: the
// kwire binary imports this package, and its other commands must not pay
// for chroma's registries).
var formatter = chtml.New(chtml.WithClasses(true), chtml.PreventSurroundingPre(false), chtml.TabWidth(2))

// highlightJSON returns js as highlighted HTML (a pre element). chroma
// escapes every token, so the result is safe to place in a page.
func highlightJSON(js []byte) (string, error) {
	it, err := chroma.Coalesce(highlight.JSON()).Tokenise(nil, string(js))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := formatter.Format(&b, highlight.Style(highlight.GitHub), it); err != nil {
		return "", err
	}
	// A pre that scrolls must take the keyboard's focus (WCAG 2.1.1).
	return strings.Replace(b.String(), `<pre class="chroma"`, `<pre tabindex="0" class="chroma"`, 1), nil
}

// highlightCSS writes the token colours: github for light pages,
// github-dark under prefers-color-scheme: dark. The code background is
// left to the site's own stylesheet. The dark rules come after the light
// ones and win where both set a property, but a property the light style
// sets and the dark one does not (github-dark has no rule for punctuation,
// .p, whose light colour is near black) would leak into dark pages: each
// is unset in the dark block (darkResets).
func highlightCSS(w io.Writer) error {
	var light, dark strings.Builder
	if err := formatter.WriteCSS(&light, highlight.Style(highlight.GitHub)); err != nil {
		return err
	}
	if err := formatter.WriteCSS(&dark, highlight.Style(highlight.GitHubDark)); err != nil {
		return err
	}
	l, d := stripBackground(light.String()), stripBackground(dark.String())
	io.WriteString(w, "/* value JSON: chroma github / github-dark */\n")
	io.WriteString(w, l)
	io.WriteString(w, "@media (prefers-color-scheme: dark) {\n")
	io.WriteString(w, d)
	io.WriteString(w, darkResets(l, d))
	_, err := io.WriteString(w, "}\n")
	return err
}

// cssRule is one rule of chroma's CSS, which writes a rule a line:
// "/* Name */ .chroma .p { color: #1f2328 }".
type cssRule struct {
	selector string
	props    []string // the properties it sets, in order
}

// cssRules reads chroma's CSS, a rule a line.
func cssRules(css string) []cssRule {
	var rules []cssRule
	for _, line := range strings.Split(css, "\n") {
		if i := strings.Index(line, "*/"); strings.HasPrefix(line, "/*") && i >= 0 {
			line = line[i+2:]
		}
		sel, body, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		body, _, _ = strings.Cut(body, "}")
		r := cssRule{selector: strings.TrimSpace(sel)}
		for _, decl := range strings.Split(body, ";") {
			if p, _, ok := strings.Cut(decl, ":"); ok && strings.TrimSpace(p) != "" {
				r.props = append(r.props, strings.TrimSpace(p))
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// darkResets is a rule for each selector of light whose rule sets
// properties dark's rule for it does not set (or dark has none), setting
// them to unset: the inherited ones (color, font-weight, font-style) take
// the code block's, the others (background-color, text-decoration) their
// initial value.
func darkResets(light, dark string) string {
	set := map[string]map[string]bool{}
	for _, r := range cssRules(dark) {
		if set[r.selector] == nil {
			set[r.selector] = map[string]bool{}
		}
		for _, p := range r.props {
			set[r.selector][p] = true
		}
	}
	var b strings.Builder
	for _, r := range cssRules(light) {
		var unset []string
		for _, p := range r.props {
			if !set[r.selector][p] {
				unset = append(unset, p+": unset")
			}
		}
		if len(unset) > 0 {
			b.WriteString("/* not in github-dark */ " + r.selector + " { " + strings.Join(unset, "; ") + " }\n")
		}
	}
	return b.String()
}

// stripBackground drops chroma's rules for the wrapper and background, so
// the page's code colours apply.
func stripBackground(css string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(css, "\n") {
		if strings.HasPrefix(line, "/* Background */") || strings.HasPrefix(line, "/* PreWrapper */") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
