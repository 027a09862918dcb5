package codec

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

// valueOf is f's value JSON in generic form, as the encoder takes it.
func valueOf(t testing.TB, f *Frame) map[string]any {
	t.Helper()
	v, err := parseJSON(f.AppendJSON(nil))
	require.NoError(t, err)
	return v.(map[string]any)
}

// requireTagsAsCarried checks that f's value JSON shows a tagged field
// exactly when the bytes carry it, at every depth: the form the encoder
// writes back byte for byte. It returns how many tagged fields the
// flexible structs declare that were present and absent.
func requireTagsAsCarried(t testing.TB, f *Frame) (present, absent int) {
	t.Helper()
	var n [2]int
	env := valueOf(t, f)
	if hdr, ok := env["header"].(map[string]any); ok && f.Header != nil {
		hm := schema.RequestHeader()
		if f.Response {
			hm = schema.ResponseHeader()
		}
		if d := hm.At(f.HeaderVersion); d != nil {
			tagsAsCarried(t, &n, "header", f.Header, d.Root, hdr, f.HeaderVersion, hm.Flexible(f.HeaderVersion))
		}
	}
	if body, ok := env["body"].(map[string]any); ok && f.Body != nil && f.Message != nil {
		tagsAsCarried(t, &n, "body", f.Body, f.Message.At(f.LayoutVersion).Root, body, f.LayoutVersion, f.Flexible)
	}
	return n[0], n[1]
}

func tagsAsCarried(t testing.TB, seen *[2]int, path string, n *tree.Node, l *schema.Layout, obj map[string]any, v int16, flex bool) {
	t.Helper()
	present := map[*schema.Field]*tree.Node{}
	for _, c := range n.Children {
		if c.Role == tree.RoleTags {
			for _, x := range c.Children {
				if x.Field != nil {
					present[x.Field] = x
				}
			}
			continue
		}
		if c.Field != nil {
			inValue(t, seen, path+"."+c.Field.JSON, c, c.Field, obj[c.Field.JSON], v, flex)
		}
	}
	if !flex {
		return
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || !f.IsTagged(v) {
			continue
		}
		val, shown := obj[f.JSON]
		c := present[f]
		if (c != nil) != shown {
			t.Fatalf("%s.%s: carried %v, shown %v", path, f.JSON, c != nil, shown)
		}
		if c != nil {
			seen[0]++
			inValue(t, seen, path+"."+f.JSON, c, f, val, v, flex)
		} else {
			seen[1]++
		}
	}
}

func inValue(t testing.TB, seen *[2]int, path string, n *tree.Node, f *schema.Field, val any, v int16, flex bool) {
	t.Helper()
	switch {
	case n.Null:
	case f.Kind == schema.Struct:
		if obj, ok := val.(map[string]any); ok {
			tagsAsCarried(t, seen, path, n, f.Struct, obj, v, flex)
		}
	case f.Kind == schema.Array && f.Elem == schema.Struct:
		arr, _ := val.([]any)
		i := 0
		for _, el := range n.Children {
			if el.Role != tree.RoleElement || i >= len(arr) {
				continue
			}
			if obj, ok := arr[i].(map[string]any); ok {
				tagsAsCarried(t, seen, path+"["+itoa(i)+"]", el, f.Struct, obj, v, flex)
			}
			i++
		}
	}
}

// Issue 13's vector: an ApiVersions v3 response carrying tag 1,
// finalizedFeaturesEpoch, holding its default -1. The JSON shows it (and
// no other tagged field: supportedFeatures, finalizedFeatures and
// zkMigrationReady are not in the bytes), both paths agree, and the
// encoder writes it back: the same bytes. The same response without the
// tag shows none.
func TestTaggedFieldCarriedBothPaths(t *testing.T) {
	b, err := hex.DecodeString("0000001d0000000700000200030000000c0000000000010108ffffffffffffffff")
	require.NoError(t, err)
	o := Options{Response: true, APIKey: 18, Version: 3}
	f, err := Decode(b, o)
	require.NoError(t, err)
	js := string(f.AppendJSON(nil))
	require.Contains(t, js, `"throttleTimeMs":0,"finalizedFeaturesEpoch":-1}`)
	require.NotContains(t, js, "supportedFeatures")
	require.NotContains(t, js, "zkMigrationReady")
	requireTagsAsCarried(t, f)
	// Present at its default is lenient (Kafka's encoders leave it out),
	// so it is said; it is kept all the same.
	require.Len(t, f.Warnings, 1)
	require.Equal(t, "body.finalizedFeaturesEpoch", f.Warnings[0].Path)
	bothPaths(t, b, o)
	again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(b), hex.EncodeToString(again))

	// Without the tag: size 19, the tag count 0.
	without, err := hex.DecodeString("00000013" + "00000007" + "0000" + "02" + "0003" + "0000" + "000c" + "00" + "00000000" + "00")
	require.NoError(t, err)
	g, err := Decode(without, o)
	require.NoError(t, err)
	require.NotContains(t, string(g.AppendJSON(nil)), "finalizedFeaturesEpoch")
	require.Empty(t, g.Warnings)
	again, err = Encode(nil, g.AppendJSON(nil), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, without, again)
}

// DecodeBody spans every byte as Decode does. A 12-byte Metadata v0
// request body: two topics announced, "abc", then a name whose length
// (5) runs past the 1 byte left. The body ends where reading stopped and
// "_undecoded" holds the rest, as under Decode; the error's cause is
// wire.ErrShort.
func TestDecodeBodySpansEveryByte(t *testing.T) {
	body, err := hex.DecodeString("00000002" + "0003616263" + "0005" + "61")
	require.NoError(t, err)
	require.Len(t, body, 12)
	f, berr := Decode(body, Options{Body: true, APIKey: 3, Version: 0})
	require.ErrorIs(t, berr, wire.ErrShort)
	coverage(t, f.Root, len(body))
	kids := f.Root.Children
	require.Equal(t, "_undecoded", kids[len(kids)-1].Name)

	// The same body behind a size and a header decodes to the same
	// body and the same "_undecoded", shifted by the 14 bytes before it.
	frame, err := hex.DecodeString("00000016" + "0003000000000007ffff")
	require.NoError(t, err)
	frame = append(frame, body...)
	g, gerr := Decode(frame, Options{})
	require.ErrorIs(t, gerr, wire.ErrShort)
	var ge, fe *DecodeError
	require.True(t, errors.As(gerr, &ge))
	require.True(t, errors.As(berr, &fe))
	require.Equal(t, ge.Offset-14, fe.Offset)
	require.Equal(t, ge.Path, fe.Path)
	gk := g.Root.Children
	require.Equal(t, [2]int{gk[len(gk)-2].Start - 14, gk[len(gk)-2].End - 14}, [2]int{kids[0].Start, kids[0].End}, "body")
	require.Equal(t, [2]int{gk[len(gk)-1].Start - 14, gk[len(gk)-1].End - 14}, [2]int{kids[1].Start, kids[1].End}, "_undecoded")

	// Bytes after a body that reads are "_undecoded" too.
	ok, err := hex.DecodeString("00000001" + "0003616263" + "ffff")
	require.NoError(t, err)
	f, err = Decode(ok, Options{Body: true, APIKey: 3, Version: 0})
	require.ErrorContains(t, err, "the end of the body")
	coverage(t, f.Root, len(ok))
}

// A truncated header or body is wire.ErrShort under errors.Is, through
// the tree and without it; a corrupt one is not.
func TestDecodeErrorKeepsItsCause(t *testing.T) {
	full, err := ExampleFrame(schema.ByName("Metadata"), 9, false)
	require.NoError(t, err)
	resp, err := ExampleFrame(schema.ByName("Metadata"), 9, true)
	require.NoError(t, err)
	cases := []struct {
		name  string
		b     []byte
		o     Options
		short bool
	}{
		{"header cut after the api key", full[:6], Options{NoSizePrefix: false}, true},
		{"header cut (no size prefix)", full[4:7], Options{NoSizePrefix: true}, true},
		{"request body cut", full[4 : len(full)-3], Options{NoSizePrefix: true}, true},
		{"size larger than the bytes", full[:len(full)-1], Options{}, true},
		{"response body cut", resp[4 : len(resp)-5], Options{NoSizePrefix: true, Response: true, APIKey: 3, Version: 9}, true},
		{"correlation id cut", resp[4:6], Options{NoSizePrefix: true, Response: true, APIKey: 3, Version: 9}, true},
		{"unknown API key", []byte{0, 0, 0, 10, 0x7f, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff}, Options{}, false},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xff, 0}, Options{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.b, c.o)
			require.Error(t, err)
			var de *DecodeError
			require.True(t, errors.As(err, &de))
			require.Equal(t, c.short, errors.Is(err, wire.ErrShort), "%v", err)
			var dec Decoder
			_, _, ferr := dec.AppendJSON(nil, c.b, c.o)
			require.Equal(t, c.short, errors.Is(ferr, wire.ErrShort), "%v", ferr)
		})
	}
}
