package render

import (
	"html"
	"math/rand/v2"
	"testing"
)

// escapeHTML writes what html.EscapeString writes: each of the five
// characters it escapes alone, at the ends and beside each other, every
// byte value (invalid UTF-8 among them, left as it is), entities that
// are already escaped (escaped again), and random strings drawn mostly
// from the escaped characters.
func TestEscapeHTMLMatchesHTML(t *testing.T) {
	cases := []string{"", "&", "<", ">", "'", `"`, "&amp;", "a<b>c", `<a href="x">'&'</a>`, "&&<<>>''\"\"", "\xff<\xfe", "é<ü", "&#39;"}
	for c := range 256 {
		cases = append(cases, string(rune(c)), string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"<")
	}
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "&<>'\"a é\x00\xff;#"
	for range 20000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := escapeHTML(s), html.EscapeString(s); got != want {
			t.Fatalf("escapeHTML(%q) = %q, html.EscapeString gives %q", s, got, want)
		}
	}
}
