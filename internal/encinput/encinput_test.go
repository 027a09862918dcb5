package encinput

import (
	"fmt"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
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

// TestFromAnnotatedExamples reads back the annotated JSON of every
// example (each API, version and direction) as value JSON, which encodes
// to the example's bytes.
func TestFromAnnotatedExamples(t *testing.T) {
	n := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				name := fmt.Sprintf("%s v%d response=%v", api.Name, v, response)
				want, err := codec.Encode(nil, codec.Example(api, v, response), codec.EncodeOptions{})
				require.NoError(t, err, name)
				opts := codec.Options{}
				if response {
					opts = codec.Options{Response: true, APIKey: api.Key, Version: v}
				}
				f, err := codec.Decode(want, opts)
				require.NoError(t, err, name)
				doc, err := jsontext.Parse(f.AppendAnnotated(nil, nil))
				require.NoError(t, err, name)
				require.True(t, Annotated(doc), name)
				value, err := FromAnnotated(doc)
				require.NoError(t, err, name)
				got, err := codec.Encode(nil, value, codec.EncodeOptions{})
				require.NoError(t, err, name)
				require.Equal(t, want, got, name)
				n++
			}
		}
	}
	require.Greater(t, n, 700)
}

func TestFromAnnotatedRefused(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"buffers":[9],"root":{"children":[{"name":"size","role":"size"},{"name":"","role":"trailing","type":"bytes"}]}}`, "root.children[1] (trailing): bytes the decoder could not read"},
		{`{"buffers":[9],"root":{"children":[{"role":"body","children":[{"name":"a","role":"field","type":"bytes","size":5000}]}]}}`, "root.children[0].children[0] (a): a value of 5000 bytes"},
		{`{"buffers":[9],"root":{"children":[{"role":"body","truncated":true}]}}`, "truncated: the frame was read in part"},
		{`{"data":"X","buffers":[9],"root":{}}`, "data message"},
	} {
		v, err := jsontext.Parse([]byte(tc.in))
		require.NoError(t, err)
		_, err = FromAnnotated(v)
		require.ErrorContains(t, err, tc.want, tc.in)
	}
}
