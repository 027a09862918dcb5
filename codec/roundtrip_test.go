package codec

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// eachVersion calls fn for every API, version and direction the tables know.
func eachVersion(t *testing.T, fn func(t *testing.T, api *schema.API, v int16, response bool)) int {
	n := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				fn(t, api, v, response)
				n++
			}
		}
	}
	return n
}

func noWarnings(t *testing.T, root *tree.Node) {
	t.Helper()
	tree.Walk(root, func(n *tree.Node) bool {
		if len(n.Warnings) > 0 {
			t.Errorf("%s [%d,%d): %v", n.Name, n.Start, n.End, n.Warnings)
		}
		return true
	})
}

// coverage checks that the nodes directly under root tile the input without
// gaps, and that each node's children lie within it, in order.
func coverage(t *testing.T, root *tree.Node, size int) {
	t.Helper()
	require.Equal(t, 0, root.Start)
	require.Equal(t, size, root.End)
	var check func(n *tree.Node)
	check = func(n *tree.Node) {
		pos := n.DataStart()
		if n.BitView() {
			return
		}
		for _, c := range n.Children {
			if c.Buf != n.Buf {
				continue
			}
			require.GreaterOrEqual(t, c.Start, pos, "%s starts before its predecessor ends", c.Name)
			require.LessOrEqual(t, c.End, n.End, "%s ends after its parent %s", c.Name, n.Name)
			pos = c.End
			check(c)
		}
	}
	check(root)
	pos := 0
	for _, c := range root.Children {
		require.Equal(t, pos, c.Start, "gap before %s", c.Name)
		pos = c.End
	}
	require.Equal(t, size, pos)
}

func TestRoundTripExamples(t *testing.T) {
	n := eachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		b, err := ExampleFrame(api, v, response)
		require.NoError(t, err, "%s v%d response=%v", api.Name, v, response)
		f, err := Decode(b, Options{Response: response, APIKey: api.Key, Version: v})
		require.NoError(t, err, "%s v%d response=%v", api.Name, v, response)
		noWarnings(t, f.Root)
		coverage(t, f.Root, len(b))
		js := f.AppendJSON(nil)
		b2, err := Encode(nil, js, EncodeOptions{})
		require.NoError(t, err, "%s v%d response=%v: %s", api.Name, v, response, js)
		if !bytes.Equal(b, b2) {
			t.Fatalf("%s v%d response=%v: re-encoded bytes differ\n%x\n%x\n%s", api.Name, v, response, b, b2, js)
		}
		f2, err := Decode(b2, Options{Response: response, APIKey: api.Key, Version: v})
		require.NoError(t, err)
		require.Equal(t, string(js), string(f2.AppendJSON(nil)))
	})
	t.Logf("%d API/version/direction examples round-tripped", n)
}

// A reused Decoder gives the same results as fresh decoding, frame after
// frame, though it recycles its memory.
func TestDecoderReuse(t *testing.T) {
	var dec Decoder
	n := eachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		b, err := ExampleFrame(api, v, response)
		require.NoError(t, err)
		opts := Options{Response: response, APIKey: api.Key, Version: v}
		want, err := Decode(b, opts)
		require.NoError(t, err)
		got, err := dec.Decode(b, opts)
		require.NoError(t, err)
		require.Equal(t, string(want.AppendJSON(nil)), string(got.AppendJSON(nil)))
		require.Equal(t, string(want.AppendAnnotated(nil, nil)), string(got.AppendAnnotated(nil, nil)))
	})
	require.Greater(t, n, 700)
}

// Tags are unsigned varints up to 2^32-1: an unknown tag past 2^31 is
// written with its own number in value JSON and annotated JSON (it was
// -2147483648, while its warning said 2147483648), and the JSON encodes
// back to the same bytes.
func TestUnknownTagPastInt32RoundTrips(t *testing.T) {
	for _, tag := range []struct {
		varint string
		n      string
	}{{"8080808008", "2147483648"}, {"ffffffff0f", "4294967295"}} {
		// An ApiVersions v3 request whose header carries the unknown tag.
		b := mustHex(t, "00000000"+"001200030000000700056b77697265"+"01"+tag.varint+"00"+"066b7769726504312e3000")
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		js := f.AppendJSON(nil)
		require.Contains(t, string(js), `"_unknownTaggedFields":[{"tag":`+tag.n+`,"data":""}]`)
		require.Contains(t, string(f.AppendAnnotated(nil, f.Root)), `"tag":`+tag.n+`,`)
		back, err := Encode(nil, js, EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, b, back)
	}
}
