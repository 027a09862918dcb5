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
// left to the site's own stylesheet.
func highlightCSS(w io.Writer) error {
	var light, dark strings.Builder
	if err := formatter.WriteCSS(&light, highlight.Style(highlight.GitHub)); err != nil {
		return err
	}
	if err := formatter.WriteCSS(&dark, highlight.Style(highlight.GitHubDark)); err != nil {
		return err
	}
	io.WriteString(w, "/* value JSON: chroma github / github-dark */\n")
	io.WriteString(w, stripBackground(light.String()))
	io.WriteString(w, "@media (prefers-color-scheme: dark) {\n")
	io.WriteString(w, stripBackground(dark.String()))
	_, err := io.WriteString(w, "}\n")
	return err
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
