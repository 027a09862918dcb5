package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/jsontext"
)

// ParseJSON agrees with encoding/json (UseNumber) on what both accept.
func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `123456789012345678901234567890`,
		`{"a":[1,{"b":null}],"c":"x\"y\\z\/\b\f\n\r\t\u00e9\ud83d\ude00"}`,
		` { "k" : [ 1 , 2 ] } `, `"é"`,
	} {
		got, err := parseJSON([]byte(s))
		require.NoError(t, err, s)
		var want any
		d := json.NewDecoder(stringsReader(s))
		d.UseNumber()
		require.NoError(t, d.Decode(&want))
		require.True(t, reflect.DeepEqual(want, got), "%s: %#v vs %#v", s, want, got)
	}
	for _, s := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `1.`, `-`, `"abc`, `"\x"`, `tru`, `{} {}`, "\"a\x01\"", `{"a":1,}`} {
		_, err := parseJSON([]byte(s))
		require.Error(t, err, s)
		require.Contains(t, err.Error(), "invalid JSON at byte")
	}
	// Where encoding/json reads U+FFFD, for bytes that are not UTF-8 and
	// for half a surrogate pair, the encoder's text is refused: the bytes
	// written would not be what it shows. The error names the string.
	for s, msg := range map[string]string{
		`"\ud800"`:                         `invalid JSON at byte 1: a lone surrogate \ud800 in a string (half of a UTF-16 pair without its other half: no character)`,
		`{"a":["x","\udc00\ud800"]}`:       `invalid JSON at byte 11: a lone surrogate \udc00 in a string (half of a UTF-16 pair without its other half: no character) at a[1]`,
		`{"a":{"b":"\ud83d\u0041"}}`:       `invalid JSON at byte 11: a lone surrogate \ud83d in a string (half of a UTF-16 pair without its other half: no character) at a.b`,
		"{\"body\":{\"name\":\"a\xffb\"}}": `invalid JSON at byte 18: invalid UTF-8 (byte 0xff) in a string at body.name`,
		"{\"k\xc3\":1}":                    `invalid JSON at byte 3: invalid UTF-8 (byte 0xc3) in a key`,
	} {
		_, err := parseJSON([]byte(s))
		require.EqualError(t, err, msg, "%q", s)
		_, _, err = jsontext.ParseNext([]byte(s))
		require.EqualError(t, err, msg, "%q", s)
	}
	deep := make([]byte, 0, 5000)
	for i := 0; i < 2000; i++ {
		deep = append(deep, '[')
	}
	_, err := parseJSON(deep)
	require.ErrorContains(t, err, "nested too deeply")
}

func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":null}],"c":"\u00e9"}`))
	f.Add([]byte("000000ce0000000d"))
	f.Add([]byte("1c 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseJSON(b)
		var want any
		d := json.NewDecoder(bytesReader(b))
		d.UseNumber()
		d.Decode(&want)
		valid := json.Valid(b)
		if err != nil && (strings.Contains(err.Error(), "nested too deeply") || valid && strings.Contains(err.Error(), ": duplicate key ")) {
			return // refused on purpose: json.Valid takes a key twice
		}
		var se *jsontext.SyntaxError
		if valid && errors.As(err, &se) {
			// Refused on purpose too, where json.Valid takes them (and
			// encoding/json reads U+FFFD): bytes that are not UTF-8, half
			// a surrogate pair. The error must be at one.
			switch {
			case strings.Contains(se.Msg, "invalid UTF-8"):
				if r, n := utf8.DecodeRune(b[se.Offset:]); r == utf8.RuneError && n <= 1 {
					return
				}
			case strings.Contains(se.Msg, "a lone surrogate"):
				if u, perr := strconv.ParseUint(string(b[se.Offset+2:se.Offset+6]), 16, 32); perr == nil && b[se.Offset] == '\\' && utf16.IsSurrogate(rune(u)) {
					return
				}
			}
			t.Fatalf("%q refused at byte %d, which is neither: %v", b, se.Offset, err)
		}
		if (err == nil) != valid {
			t.Fatalf("disagree on %q: ours %v, json.Valid %v", b, err, valid)
		}
		if err == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("different values for %q", b)
		}
		// ParseNext, a stream's reader, reads what Parse reads, and a
		// value it takes from a longer text is valid alone and ends where
		// the next could start: a number or word only before white space
		// or JSON's structure ("00" is no two numbers).
		v, n, nerr := jsontext.ParseNext(b)
		if err == nil && (nerr != nil || !reflect.DeepEqual(got, v) || len(bytes.TrimLeft(b[n:], " \t\r\n")) != 0) {
			t.Fatalf("ParseNext reads %q otherwise: %v, %d bytes", b, nerr, n)
		}
		if nerr != nil {
			return
		}
		if !json.Valid(b[:n]) {
			t.Fatalf("ParseNext took %q from %q", b[:n], b)
		}
		if n < len(b) && !strings.ContainsRune(" \t\r\n{[\",:]}", rune(b[n])) {
			if last := b[n-1]; last != '}' && last != ']' && last != '"' {
				t.Fatalf("ParseNext ended %q inside a token of %q", b[:n], b)
			}
		}
	})
}

func stringsReader(s string) *bytesReaderT { return &bytesReaderT{b: []byte(s)} }
func bytesReader(b []byte) *bytesReaderT   { return &bytesReaderT{b: b} }

type bytesReaderT struct{ b []byte }

func (r *bytesReaderT) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
