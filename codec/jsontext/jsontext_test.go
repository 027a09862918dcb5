package jsontext

import (
	"encoding/json"
	"strings"
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

// TestUnquote reads one string as Parse reads it, except what Parse
// refuses in a string (lone surrogates, invalid UTF-8), which it reads as
// U+FFFD, as encoding/json does: a payload's JSON is shown, never
// refused. What is not one string it refuses.
func TestUnquote(t *testing.T) {
	for _, q := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`} {
		got, err := Unquote([]byte(q))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want, _ := Parse([]byte(q))
		if got != want {
			t.Errorf("%s: %q, Parse reads %q", q, got, want)
		}
	}
	for q, want := range map[string]string{`"\ud800x"`: "\ufffdx", `"\ud800\u0041"`: "\ufffdA", "\"bad\xff\"": "bad\ufffd"} {
		got, err := Unquote([]byte(q))
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", q, got, err, want)
		}
		if _, err := Parse([]byte(q)); err == nil {
			t.Errorf("%s: Parse takes it", q)
		}
	}
	for _, q := range []string{``, `x`, `"open`, `"a" "b"`, `"\x"`} {
		if _, err := Unquote([]byte(q)); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}

// AppendString skips whole words of plain text before its byte loop; each
// byte that needs more than copying, at every place of three words, still
// comes out as the byte loop writes it (the HTML-safe form, which never
// skips, is the reference on text without <, > or &), and Plain says no.
func TestAppendStringPlainWords(t *testing.T) {
	for _, c := range []string{"\x00", "\x1f", `"`, `\`, "\x7f", "\x80", "é", "\u2028", "\t"} {
		for p := 0; p <= 24; p++ {
			s := []byte(strings.Repeat("a", p) + c + strings.Repeat("b", 24-p))
			if got, want := AppendString(nil, s), appendString(nil, s, true); string(got) != string(want) {
				t.Fatalf("%q at %d: %s, want %s", c, p, got, want)
			}
			if Plain(s) {
				t.Fatalf("Plain(%q) is true", s)
			}
		}
	}
	for n := 0; n <= 24; n++ {
		s := []byte(strings.Repeat("k", n))
		if !Plain(s) || string(AppendString(nil, s)) != `"`+string(s)+`"` {
			t.Fatalf("%d plain bytes: %v %s", n, Plain(s), AppendString(nil, s))
		}
	}
}

// Base64 in a bytes field is read as Kafka's JSON reads it: padding
// optional, the standard alphabet only.
func TestDecodeBase64(t *testing.T) {
	for in, want := range map[string]string{"AQ": "\x01", "AQ==": "\x01", "AQI": "\x01\x02", "": "", "AQID": "\x01\x02\x03"} {
		got, err := DecodeBase64(in)
		if err != nil || string(got) != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"-_8=", "A", "AQ=", "!!"} {
		if _, err := DecodeBase64(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
