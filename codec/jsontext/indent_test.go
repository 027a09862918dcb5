package jsontext_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/bench/traffic"
)

// The indenter writes what json.Indent(dst, src, "", "  ") does, whole or
// in pieces cut anywhere: checked on the value JSON of every example frame
// (with escapes, empty objects and arrays, nesting and whitespace added,
// which it drops as json.Compact would).
func TestIndentIsJSONIndent(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	extra := `,"s":"a\"b\\c{[,:]}\\","e":{},"a":[],"n":[{}], "w" : [ 1 , {} ,"x\\\""] }`
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			v := api.Request.Valid.Hi
			b, err := codec.ExampleFrame(api, v, resp)
			if err != nil {
				t.Fatal(err)
			}
			f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
			if err != nil {
				t.Fatal(err)
			}
			js := f.AppendJSON(nil)
			js = append(js[:len(js)-1], extra...)
			var compact, want bytes.Buffer
			if err := json.Compact(&compact, js); err != nil {
				t.Fatal(err)
			}
			json.Indent(&want, compact.Bytes(), "", "  ")
			if got := jsontext.Indent(nil, js); string(got) != want.String() {
				t.Fatalf("%s whole:\n%s\nwant\n%s", api.Name, got, want.String())
			}
			var x jsontext.Indenter
			var got []byte
			for rest := js; len(rest) > 0; {
				k := min(len(rest), 1+rnd.Intn(40))
				got = x.Append(got, rest[:k])
				rest = rest[k:]
			}
			if string(got) != want.String() {
				t.Fatalf("%s in pieces:\n%s\nwant\n%s", api.Name, got, want.String())
			}
		}
	}
}

// FuzzIndent: on any bytes the indenter does not panic and writes the
// same whole as cut in two anywhere, and on valid JSON it writes what
// json.Indent writes.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":"c\"}"}],"e":{}}`, `"x\\"`, `[[[]]]`, `}}]]`, `{"a":"\u00e9"}`, ` 1 `} {
		f.Add([]byte(s), uint16(1))
	}
	f.Fuzz(func(t *testing.T, src []byte, cut uint16) {
		whole := jsontext.Indent(nil, src)
		at := int(cut) % (len(src) + 1)
		var x jsontext.Indenter
		pieces := x.Append(x.Append(nil, src[:at]), src[at:])
		if !bytes.Equal(whole, pieces) {
			t.Fatalf("whole and in pieces differ:\n%q\n%q", whole, pieces)
		}
		if !json.Valid(src) {
			return
		}
		var compact, want bytes.Buffer
		if err := json.Compact(&compact, src); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if string(whole) != want.String() {
			t.Fatalf("%q:\ngot  %q\nwant %q", src, whole, want.String())
		}
	})
}

// BenchmarkIndent: the value JSON of the benchmark traffic's responses
// indented, as the playground and `kwire decode` show it.
func BenchmarkIndent(b *testing.B) {
	var js []byte
	for _, p := range traffic.Mix() {
		f, err := codec.Decode(p.Response.Bytes, codec.Options{Response: true, APIKey: p.Response.Key, Version: p.Response.Version})
		if err != nil {
			b.Fatal(err)
		}
		js = f.AppendJSON(js)
	}
	b.SetBytes(int64(len(js)))
	for b.Loop() {
		jsontext.Indent(nil, js)
	}
}
