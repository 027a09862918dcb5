package render

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/stretchr/testify/require"
)

func TestPrefixCellsSayWhatTheyHold(t *testing.T) {
	b, _ := hex.DecodeString(apiVersionsV3)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range Cells(f, 0) {
		got[c.Label+"@"+itoa(c.Start)] = c.Type + " " + c.Value
	}
	require.Equal(t, "int16 5", got["clientId length@12"], "a classic string's INT16 length")
	require.Equal(t, "uvarint 6 = 5 + 1", got["clientSoftwareName length@20"], "a compact length is the length + 1")
	require.Equal(t, "uvarint 0", got["tagged fields@19"])
	require.Equal(t, "int32 27", got["size@0"])

	for _, tc := range []struct {
		b       []byte
		kind    string
		compact bool
		typ     string
		want    string
	}{
		{[]byte{0xff, 0xff}, KindPrefix, false, "int16", "-1 (null)"},
		{[]byte{0, 0, 0, 3}, KindPrefix, false, "int32", "3"},
		{[]byte{0xff, 0xff, 0xff, 0xff}, KindPrefix, false, "int32", "-1 (null)"},
		{[]byte{0}, KindPrefix, true, "uvarint", "0 (null)"},
		{[]byte{0x81, 0x01}, KindPrefix, true, "uvarint", "129 = 128 + 1"},
		{[]byte{0x01}, KindPrefix, false, "varint", "-1 (null)"}, // zig-zag, inside records
		{[]byte{0x0a}, KindPrefix, false, "varint", "5"},         // zig-zag 10 -> 5
		{[]byte{0xc8, 0x01}, KindPrefix, false, "varint", "100"}, // a record value of 100 bytes, not int16 -14335
		{[]byte{0x80, 0x80, 0x80, 0x01}, KindPrefix, false, "varint", "1048576"},
		{[]byte{0xff, 0xff}, KindPrefix, false, "int16", "-1 (null)"},
		{[]byte{0x00, 0x80}, KindPrefix, false, "int16", "128"},
		{[]byte{0x00, 0x00, 0x01, 0x00}, KindPrefix, false, "int32", "256"},
		{[]byte{0xff}, KindMarker, false, "int8", "-1 (null)"},         // a null struct
		{[]byte{0x01}, KindMarker, false, "int8", "1 (present)"},       //
		{[]byte{0x03}, KindTag, false, "uvarint", "3"},                 //
		{[]byte{0x80}, KindTags, true, "", ""},                         // a varint cut short says nothing
		{[]byte{0x80, 0x80, 0x00}, KindTagSize, false, "uvarint", "0"}, // non-minimal, still read
	} {
		typ, v := prefixValue(tc.b, 0, len(tc.b), tc.kind, tc.compact)
		require.Equal(t, tc.typ+" "+tc.want, typ+" "+v, "% x as %s", tc.b, tc.kind)
	}
	typ, v := prefixValue([]byte{0, 5}, 0, 4, KindPrefix, false)
	require.Equal(t, "", typ+v, "bytes past the end of a truncated buffer")
}

// Every JSON line maps to a node, and the nodes of a compressed batch's
// records land on their own lines.
func TestNodePathsMeetTheJSONLines(t *testing.T) {
	for _, name := range []string{"Produce", "Fetch", "JoinGroup", "Metadata"} {
		api := schema.ByName(name)
		for _, resp := range []bool{false, true} {
			v := api.Request.Valid.Hi
			b, err := codec.ExampleFrame(api, v, resp)
			require.NoError(t, err)
			f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
			require.NoError(t, err)
			js := jsontext.Indent(nil, f.AppendJSON(nil))
			var ps Paths
			lines := ScanJSONLines(js, &ps)
			require.Equal(t, strings.Count(string(js), "\n")+1, len(lines.Paths))
			paths := NodePaths(f.Root, &ps)
			// Each value cell has its own line, except the fields Kafka's
			// JSON leaves out because they follow from the rest (a batch's
			// length and record count, a record's length): those find
			// the line of what holds them.
			derived := map[string]bool{"batchLength": true, "recordCount": true, "length": true, "messageSize": true}
			for _, c := range Cells(f, 0) {
				if c.Kind != KindValue && c.Kind != KindVarint {
					continue
				}
				p := paths[c.Node]
				if derived[c.Label] {
					require.NotEqual(t, int32(Root), ps.Resolve(p, lines.Has), "%s: %s", name, ps.String(p))
					continue
				}
				require.True(t, lines.Has(p), "%s v%d response=%v: no JSON line for %q (%s)", name, v, resp, ps.String(p), c.Path)
			}
		}
	}
	// "key" of the second record inside a batch.
	b, _ := hex.DecodeString(apiVersionsV3)
	f, _ := codec.Decode(b, codec.Options{})
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	var ps Paths
	lines := ScanJSONLines(js, &ps)
	id := ps.child(ps.child(Root, "header", -1), "clientId", -1)
	sp := lines.Span(id)
	require.True(t, lines.Has(id))
	require.Equal(t, "header.clientId", ps.String(id))
	require.Contains(t, strings.Split(string(js), "\n")[sp[0]], `"clientId": "kwire"`)
	deep := ps.child(ps.child(ps.child(Root, "header", -1), "nothing", -1), "", 3)
	require.Equal(t, "header.nothing[3]", ps.String(deep))
	require.Equal(t, "header", ps.String(ps.Resolve(deep, lines.Has)))
}

// BenchmarkJSONLinks: what the playground does to link a decoded frame's
// tree and its value JSON's lines, on the benchmark traffic's biggest
// Fetch response.
func BenchmarkJSONLinks(b *testing.B) {
	var frame traffic.Frame
	for _, p := range traffic.Mix() {
		if len(p.Response.Bytes) > len(frame.Bytes) {
			frame = p.Response
		}
	}
	f, err := codec.Decode(frame.Bytes, codec.Options{Response: true, APIKey: frame.Key, Version: frame.Version})
	require.NoError(b, err)
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var ps Paths
		lines := ScanJSONLines(js, &ps)
		for _, p := range NodePaths(f.Root, &ps) {
			lines.Span(ps.Resolve(p, lines.Has))
		}
	}
}
