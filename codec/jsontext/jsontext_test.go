package jsontext

import (
	"encoding/json"
	"testing"
)

func TestStrings(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "tab\tnl\n\x01", "é😀", "\u2028x", "<script>&</script>", "bad\xffutf8"} {
		for _, html := range []bool{false, true} {
			out := appendString(nil, []byte(s), html)
			var back string
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("%q: invalid JSON %s: %v", s, out, err)
			}
			want := string([]rune(s)) // invalid bytes read as U+FFFD
			if back != want {
				t.Errorf("%q: round trip gave %q", s, back)
			}
			for _, c := range out {
				if html && (c == '<' || c == '>' || c == '&') {
					t.Errorf("%q: %s holds %c", s, out, c)
				}
			}
		}
	}
}

// TestWriterStringsArray: Strings writes an array of strings where a value
// goes, commas placed around it.
func TestWriterStringsArray(t *testing.T) {
	var w Writer
	w.BeginObject()
	w.Key("none")
	w.Strings(nil)
	w.Key("some")
	w.Strings([]string{"a", `b"c`, "<d>"})
	w.Key("n")
	w.Int(1)
	w.EndObject()
	if got, want := string(w.B), `{"none":[],"some":["a","b\"c","<d>"],"n":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestUnquote reads one string as Parse reads it, and refuses what is not
// one string.
func TestUnquote(t *testing.T) {
	for _, q := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\ud800\u0041"`, "\"bad\xff\""} {
		got, err := Unquote([]byte(q))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want, _ := Parse([]byte(q))
		if got != want {
			t.Errorf("%s: %q, Parse reads %q", q, got, want)
		}
	}
	for _, q := range []string{``, `x`, `"open`, `"a" "b"`, `"\x"`} {
		if _, err := Unquote([]byte(q)); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}
