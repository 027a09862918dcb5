package encinput

import (
	"testing"

	"github.com/kwire/kwire/codec/jsontext"
)

func TestHexLine(t *testing.T) {
	for _, tc := range []struct {
		in    string
		start int
		want  int
	}{
		{"0000001c00120003", 0, 16},
		{"0000001c00120003  \r\n{}", 0, 19},
		{"{}\n0000001c", 3, 11},
		{"0000001", 0, -1},             // odd
		{"000000", 0, -1},              // short
		{"12345678", 0, -1},            // a number: JSON
		{"0000 001c 0012 0003", 0, -1}, // spaced: not one run of digits
		{"0000001g", 0, -1},
		{`{"apiKey":18}`, 0, -1},
	} {
		if got := HexLine([]byte(tc.in), tc.start); got != tc.want {
			t.Errorf("HexLine(%q, %d) = %d, want %d", tc.in, tc.start, got, tc.want)
		}
	}
}

func TestAnnotated(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"direction":"request","apiKey":18,"buffers":[32],"root":{"name":"frame","children":[]}}`, true},
		{`{"direction":"request","apiKey":18,"apiVersion":3,"header":{},"body":{}}`, false},
		{`{"buffers":[32]}`, false},
		{`{"buffers":[32],"root":1}`, false},
		{`[1]`, false},
	} {
		v, err := jsontext.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := Annotated(v); got != tc.want {
			t.Errorf("Annotated(%s) = %v", tc.in, got)
		}
	}
}
