package highlight

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// The copies must be chroma's own definitions: the same tokens as the
// registry's JSON lexer on JSON of every shape kwire prints (and some it
// does not: comments, floats, escapes), and the same style for every
// token type. A chroma upgrade that changes them fails here; copy the
// new XML files into chroma/.
func TestSameAsChromaRegistry(t *testing.T) {
	samples := []string{
		`{}`, `[]`, `null`, `-0.5e+10`,
		`{"apiKey": 18, "ok": true, "no": false, "x": null, "f": 1.25, "e": -3e-7, "s": "a\"b\\c\u00e9", "list": [1, "two", {"three": [3]}]}`,
		"{\n  // a comment\n  \"k\": \"v\"\n}\n",
		`{"unterminated": "`,
		`{"bad": tru}`,
	}
	// Real output: the CLI's goldens (JSON and text).
	files, _ := filepath.Glob("../../cmd/kwire/testdata/*.golden")
	for _, f := range files[:min(len(files), 20)] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, string(b))
	}
	ref := lexers.Get("json")
	for _, s := range samples {
		want, err := ref.Tokenise(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := JSON().Tokenise(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := want.Tokens(), got.Tokens(); !reflect.DeepEqual(w, g) {
			t.Errorf("tokens of %.60q differ:\n got %v\nwant %v", s, g, w)
		}
	}
	if !reflect.DeepEqual(JSON().Config(), ref.Config()) {
		t.Errorf("config: got %+v, want %+v", JSON().Config(), ref.Config())
	}
	for _, name := range []string{Monokai, GitHub, GitHubDark} {
		got, want := Style(name), styles.Get(name)
		if want == styles.Fallback {
			t.Fatalf("chroma has no style %q", name)
		}
		for tt := range chroma.StandardTypes {
			if g, w := got.Get(tt), want.Get(tt); g != w {
				t.Errorf("%s: %v is %v, chroma's %v", name, tt, g, w)
			}
		}
	}
	if Style("nope") != nil {
		t.Error("an unknown style is not nil")
	}
}
