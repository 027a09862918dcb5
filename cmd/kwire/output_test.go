package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// The streaming indenter writes what json.Indent(dst, src, "", "  ")
// does, whatever the pieces the JSON arrives in: checked on the value JSON
// of every example frame (escapes, empty objects and arrays, nesting) cut
// at random places.
func TestIndentWriterIsJSONIndent(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	n := 0
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			m := api.Request
			if resp {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				b, err := codec.ExampleFrame(api, v, resp)
				require.NoError(t, err)
				f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
				require.NoError(t, err)
				js := f.AppendJSON(nil)
				js = append(js[:len(js)-1], `,"s":"a\"b\\c{[,:]}","e":{},"a":[],"n":[{}]}`...)
				var want bytes.Buffer
				require.NoError(t, json.Indent(&want, js, "", "  "))
				var got bytes.Buffer
				x := indentWriter{w: &got}
				for rest := js; len(rest) > 0; {
					k := min(len(rest), 1+rnd.Intn(40))
					x.Write(rest[:k])
					rest = rest[k:]
				}
				require.NoError(t, x.Close())
				require.Equal(t, want.String(), got.String())
				n++
			}
		}
	}
	t.Logf("%d documents", n)
}
