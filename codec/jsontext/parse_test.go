package jsontext

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseNextEndsWhereAValueEnds: a stream's value ends where the next
// could start. A number with a leading zero is an error at the zero
// ("00" was read as two numbers, so a line of hex gave an error a pair
// of zeros), and a number or word followed by a byte that could go on
// with it is an error at that byte, so a line of hex is one error.
func TestParseNextEndsWhereAValueEnds(t *testing.T) {
	for _, c := range []struct {
		in  string
		n   int    // bytes taken, when the value is read
		err string // else the error
	}{
		{in: "00", err: "invalid JSON at byte 0: a number with a leading zero"},
		{in: "000000ce0000000d", err: "invalid JSON at byte 0: a number with a leading zero"},
		{in: " -01", err: "invalid JSON at byte 2: a number with a leading zero"},
		{in: "[1,02]", err: "invalid JSON at byte 3: a number with a leading zero"},
		{in: "1c000000", err: "invalid JSON at byte 1: unexpected character 'c' after a number"},
		{in: "0x1f", err: "invalid JSON at byte 1: unexpected character 'x' after a number"},
		{in: "1.5é", err: "invalid JSON at byte 3: unexpected character 'é' after a number"},
		{in: "truex", err: "invalid JSON at byte 4: unexpected character 'x' after true"},
		{in: "null0", err: "invalid JSON at byte 4: unexpected character '0' after null"},
		{in: "\xef\xbb\xbf{}", err: "invalid JSON at byte 0: unexpected byte order mark (U+FEFF)"},
		{in: "\xff", err: "invalid JSON at byte 0: unexpected byte 0xff"},
		{in: "0", n: 1},
		{in: "0.5e3 1", n: 5},
		{in: "-0\n{}", n: 2},
		{in: "12,", n: 2},
		{in: "false]", n: 5},
		{in: `1"x"`, n: 1},
		{in: "{}{}", n: 2},
		{in: `"a""b"`, n: 3},
		{in: "[0]0", n: 3},
	} {
		_, n, err := ParseNext([]byte(c.in))
		if c.err != "" {
			require.EqualError(t, err, c.err, "%q", c.in)
			continue
		}
		require.NoError(t, err, "%q", c.in)
		require.Equal(t, c.n, n, "%q", c.in)
	}
	// Parse, of one value, says the same of a leading zero.
	_, err := Parse([]byte("[007]"))
	require.EqualError(t, err, "invalid JSON at byte 1: a number with a leading zero")
}

// An object with a key twice is refused at the second, in objects at any
// depth: which value was meant is not known.
func TestParseRefusesDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		in string
		at int
	}{
		{`{"a":1,"a":2}`, 7},
		{`{"x":{"b":[],"c":1,"b":{}}}`, 19},
		{`[{"k":1},{"k":2,"k":3}]`, 16},
		{`{"\u0061":1,"a":2}`, 12}, // the same key, escaped once
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tc.at || !strings.HasPrefix(se.Msg, "duplicate key ") {
			t.Errorf("%s: %v, want a duplicate key at byte %d", tc.in, err, tc.at)
		}
	}
	if _, err := Parse([]byte(`[{"k":1},{"k":2}]`)); err != nil {
		t.Errorf("the same key in two objects: %v", err)
	}
}

// Within a member named "decoded" (a record payload as kwire decode read
// it: a JSON payload's own text, which no encoder reads) keys twice and
// lone surrogates are taken, so decode's JSON parses back; around it,
// and beside it, they are still refused.
func TestParseTakesPayloadsAsRead(t *testing.T) {
	v, err := Parse([]byte(`{"value":{"text":"x","format":"json","decoded":{"a":1,"a":{"b":2,"b":"\ud800"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(map[string]any)["value"].(map[string]any)["decoded"].(map[string]any)
	if a, ok := d["a"].(map[string]any); !ok || a["b"] != "\ufffd" {
		t.Fatalf("decoded %v", d)
	}
	for _, tc := range []struct {
		in string
		at int
	}{
		{`{"value":{"text":"x","decoded":{},"text":"y"}}`, 34},
		{`{"decoded":{"a":1},"decoded":{"a":1}}`, 19},
		{`{"v":{"a":1,"a":2},"decoded":1}`, 12},
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tc.at || !strings.HasPrefix(se.Msg, "duplicate key ") {
			t.Errorf("%s: %v, want a duplicate key at byte %d", tc.in, err, tc.at)
		}
	}
	if _, err := Parse([]byte(`{"value":{"text":"\ud800","decoded":{}}}`)); err == nil {
		t.Error("a lone surrogate beside decoded was taken")
	}
	// A stream's documents are read alike (kwire encode's NDJSON).
	if _, _, err := ParseNext([]byte(`{"decoded":{"a":1,"a":2}} {}`)); err != nil {
		t.Error(err)
	}
}
