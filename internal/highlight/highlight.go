// Package highlight holds the chroma definitions kwire colours JSON with:
// chroma's JSON lexer and the three styles the CLI and the docs site use
// (monokai for terminals, github and github-dark for pages), read from
// copies of chroma's own XML definitions (chroma/, from chroma v2.27.0,
// MIT licensed, see chroma/COPYING) the first time they are asked for.
//
// chroma's lexers and styles packages would give the same definitions,
// but importing them loads both registries (some 250 lexers, 70 styles)
// at init: about 30 ms and 4.7 MB allocated in every kwire process,
// whether or not it colours anything. This package does nothing at init.
// A test keeps the copies equal to chroma's registry.
//
// Only the CLI and the site generator import it; the WebAssembly builds
// never do.
package highlight

import (
	"embed"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed chroma/*.xml
var defs embed.FS

// JSON is chroma's JSON lexer, as its registry gives it (the site
// coalesces its tokens, the terminal's colouring does not).
var JSON = sync.OnceValue(func() chroma.Lexer {
	return chroma.MustNewXMLLexer(defs, "chroma/json.xml")
})

// Style names.
const (
	Monokai    = "monokai"
	GitHub     = "github"
	GitHubDark = "github-dark"
)

var loadStyles = sync.OnceValue(func() map[string]*chroma.Style {
	m := map[string]*chroma.Style{}
	for _, name := range []string{Monokai, GitHub, GitHubDark} {
		f, err := defs.Open("chroma/" + name + ".xml")
		if err != nil {
			panic(err) // embedded above: cannot happen
		}
		m[name] = chroma.MustNewXMLStyle(f)
		f.Close()
	}
	return m
})

// Style returns the style of that name (one of the constants), or nil.
func Style(name string) *chroma.Style { return loadStyles()[name] }
