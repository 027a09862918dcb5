package codec

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/wire"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

func warnings(root *tree.Node) []string {
	var out []string
	tree.Walk(root, func(n *tree.Node) bool {
		out = append(out, n.Warnings...)
		return true
	})
	return out
}

func TestMalformedErrorsNameOffsetAndPath(t *testing.T) {
	cases := []struct {
		name, hex      string
		offset         int
		path, expected string
	}{
		{"truncated header", "00000006 0012 0000 0000", 8, "header.correlationId", "4 bytes for int32"},
		{"string longer than the frame", "0000000e 0012 0000 00000001 0040 6b636174", 12, "header.clientId", "a length of at most 4"},
		{"negative string length", "0000000e 0012 0000 00000001 fffe 6b636174", 12, "header.clientId", "a length of -1 or more"},
		{"array count beyond the bytes", "00000010 0003 0000 00000001 ffff 7fffffff 0000", 14, "body.topics", "a count of at most 2"},
		{"negative frame size", "ffffff00 0012 0000", 0, "size", "a non-negative frame size"},
		{"unknown API key", "0000000a 0100 0000 00000001 ffff", 4, "header.requestApiKey", "a known API key"},
		{"bytes after the message inside the frame", "0000000e 0012 0000 00000001 0001 61 000000", 15, "", "the end of the message"},
		{"element cut short", "00000014 0003 0000 0000002a ffff 00000002 0001 61 0003 62", 21, "body.topics[1].name", "a length of at most 1"},
		// Read as given, a cut-short frame's bytes are read: the error is
		// where reading stopped (its Found says the frame is cut short).
		{"size beyond the bytes given", "00000016 0003 0000 0000002a ffff 00000002 0001 61 0003 62", 21, "body.topics[1].name", "a length of at most 1"},
		{"size of a frame cut short", "7fffffff 0012 0000 0000002a ffff", 0, "size", "a size of at most 10"},
		{"no room for the api version", "00000002 0012", 6, "header.requestApiVersion", "2 bytes for int16"},
		{"no room for the api key", "00000000", 4, "header.requestApiKey", "2 bytes for int16"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := mustHex(t, c.hex)
			f, err := Decode(b, Options{})
			require.Error(t, err)
			var de *DecodeError
			require.True(t, errors.As(err, &de))
			require.Equal(t, c.offset, de.Offset, err.Error())
			require.Equal(t, c.path, de.Path, err.Error())
			require.Contains(t, de.Expected, c.expected)
			require.NotNil(t, f.Root, "the partial tree comes back with the error")
			require.Equal(t, len(b), f.Root.End)
			// Every byte still belongs to some node at the top level.
			end := 0
			for _, k := range f.Root.Children {
				end = max(end, k.End)
			}
			require.Equal(t, len(b), end, "undecoded bytes are kept as a node")
		})
	}
}

func TestPartialResultKeepsWhatWasRead(t *testing.T) {
	b := mustHex(t, "00000014 0003 0000 0000002a ffff 00000002 0001 61 0003 62")
	f, err := Decode(b, Options{})
	require.Error(t, err)
	require.JSONEq(t, `{"direction":"request","apiKey":3,"apiName":"Metadata","apiVersion":0,
		"header":{"requestApiKey":3,"requestApiVersion":0,"correlationId":42,"clientId":null},
		"body":{"topics":[{"name":"a"},{}]}}`, string(f.AppendJSON(nil)))
}

func TestLeniency(t *testing.T) {
	t.Run("null where non-nullable is a warning", func(t *testing.T) {
		// Metadata v0 topic name (non-nullable string) sent as null.
		b := mustHex(t, "00000010 0003 0000 00000001 ffff 00000001 ffff")
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		require.Contains(t, strings.Join(warnings(f.Root), "\n"), "null where the schema says non-nullable")
		require.Contains(t, string(f.AppendJSON(nil)), `"topics":[{"name":null}]`)
		// The encoder writes no such null, as Kafka's writers do not: the
		// JSON says where to give a value.
		_, err = Encode(nil, f.AppendJSON(nil), EncodeOptions{})
		require.EqualError(t, err, "body.topics[0].name: null is not allowed here at v0")
	})
	t.Run("a null element of a nullable array is a warning", func(t *testing.T) {
		// DescribeConfigs v0: resources [{resourceType 2, resourceName
		// "t", configurationKeys [null]}]. configurationKeys may be null
		// (nullableVersions); its elements may not, as in Kafka's readers.
		b := mustHex(t, "00000018 0020 0000 00000001 ffff 00000001 02 0001 74 00000001 ffff")
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		require.Equal(t, []string{"null where the schema says non-nullable at v0"}, warnings(f.Root))
		require.Contains(t, string(f.AppendJSON(nil)), `"configurationKeys":[null]`)
		require.Contains(t, string(f.AppendJSON(nil)), `"path":"body.resources[0].configurationKeys[0]"`)
		_, err = Encode(nil, f.AppendJSON(nil), EncodeOptions{})
		require.EqualError(t, err, "body.resources[0].configurationKeys[0]: null is not allowed here at v0")
		// The array itself null is what nullableVersions allows.
		b = mustHex(t, "00000016 0020 0000 00000001 ffff 00000001 02 0001 74 ffffffff")
		f, err = Decode(b, Options{})
		require.NoError(t, err)
		require.Empty(t, warnings(f.Root))
		again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
	t.Run("unknown tags are kept with their bytes", func(t *testing.T) {
		// ApiVersions v3 request whose body carries tag 9 with 2 bytes.
		b := mustHex(t, "00000014 0012 0003 00000007 ffff 00 02 61 02 30 01 09 02 abcd")
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		require.Contains(t, strings.Join(warnings(f.Root), "\n"), "unknown tag 9")
		require.Contains(t, string(f.AppendJSON(nil)), `"_unknownTaggedFields":[{"tag":9,"data":"q80="}]`)
		again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
	t.Run("a version newer than any known uses the newest layout", func(t *testing.T) {
		api := schema.ByName("ApiVersions")
		newest := api.Request.Valid.Hi
		b, err := ExampleFrame(api, newest, false)
		require.NoError(t, err)
		b[7] = byte(newest + 3) // the version in the header
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		require.True(t, f.Assumed)
		require.Equal(t, newest, f.LayoutVersion)
		require.Equal(t, newest+3, f.Version)
		require.NotZero(t, f.Body.Flags&tree.Assumed)
		require.Contains(t, strings.Join(f.Body.Warnings, ""), "newer than any known")
	})
	t.Run("trailing bytes after the declared size", func(t *testing.T) {
		b := mustHex(t, "0000000a 0012 0000 00000001 ffff beef")
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		last := f.Root.Children[len(f.Root.Children)-1]
		require.Equal(t, tree.RoleTrailing, last.Role)
		require.Equal(t, [2]int{14, 16}, [2]int{last.Start, last.End})
		require.NotEmpty(t, last.Warnings)
	})
}

func TestLimits(t *testing.T) {
	// Metadata v0 with 3 topics and a node limit of 5.
	b := mustHex(t, "00000017 0003 0000 00000001 ffff 00000003 0001 61 0001 62 0001 63")
	_, err := Decode(b, Options{Limits: Limits{MaxNodes: 5}})
	require.ErrorContains(t, err, "MaxNodes")
	_, err = Decode(b, Options{})
	require.NoError(t, err)
	// A nested struct deeper than MaxDepth.
	api := schema.ByName("Produce")
	fr, err := ExampleFrame(api, 9, false)
	require.NoError(t, err)
	_, err = Decode(fr, Options{Limits: Limits{MaxDepth: 2}})
	require.ErrorContains(t, err, "MaxDepth")
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"apiKey":18,"apiVersion":3,"body":{"clientSoftwareNam":"x"}}`, "body.clientSoftwareNam: unknown field; valid here: clientSoftwareName, clientSoftwareVersion, _unknownTaggedFields (at v3)"},
		{`{"apiKey":3,"apiVersion":0,"body":{"topics":[{"name":5}]}}`, "body.topics[0].name: expected a string, found a number"},
		{`{"apiKey":3,"apiVersion":0,"body":{"topics":"x"}}`, "body.topics: expected an array, found a string"},
		{`{"apiKey":0,"apiVersion":9,"body":{"acks":70000}}`, "body.acks: expected an integer in -32768..32767, found 70000"},
		{`{"apiKey":18,"apiVersion":99,"body":{}}`, "apiVersion: ApiVersionsRequest has versions 0-5, not 99"},
		{`{"apiKey":999,"apiVersion":0}`, "apiKey: unknown API key 999"},
		{`{"apiName":"nope","apiVersion":0}`, `apiName: unknown API "nope"`},
		{`{"apiKey":18,"apiVersion":0,"header":{"requestApiKey":3}}`, "header.requestApiKey: is 3 but the envelope says 18"},
		{`{"apiKey":0,"apiName":"Fetch","apiVersion":9,"header":{"correlationId":1},"body":{}}`, "apiName: is Fetch (key 1) but apiKey says 0 (Produce)"},
		{`{"apiKey":1,"apiName":7,"apiVersion":9}`, "apiName: expected a string, found a number"},
		// A header's fields are valid at the header's version, which is not
		// the API's: the error names it as the header's.
		{`{"direction":"response","apiKey":18,"apiVersion":3,"header":{"correlationId":1,"foo":1},"body":{}}`, "header.foo: unknown field; valid here: correlationId (at response header v0)"},
		{`{"apiKey":18,"apiVersion":3,"header":{"correlationId":1,"foo":1},"body":{}}`, "header.foo: unknown field; valid here: requestApiKey, requestApiVersion, correlationId, clientId, _unknownTaggedFields (at request header v2)"},
		{`{"direction":"response","apiKey":18,"apiVersion":3,"header":{"correlationId":1,"_unknownTaggedFields":[{"tag":0,"data":"AA=="}]},"body":{}}`, "header._unknownTaggedFields: expected no tagged fields (response header v0 is not a flexible version: it has none)"},
		{`[1]`, "expected an object"},
		{`{"apiKey":18`, "invalid JSON"},
	}
	for _, c := range cases {
		_, err := Encode(nil, []byte(c.json), EncodeOptions{})
		require.Error(t, err, c.json)
		require.Contains(t, err.Error(), c.want)
	}
}

func TestEncodeDefaults(t *testing.T) {
	// Missing fields take their defaults: Metadata v4's allowAutoTopicCreation defaults to true.
	b, err := Encode(nil, []byte(`{"apiKey":3,"apiVersion":4,"header":{"correlationId":1,"clientId":"c"},"body":{"topics":null}}`), EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	require.Contains(t, string(f.AppendJSON(nil)), `"allowAutoTopicCreation":true`)
}

// Found by FuzzDecode (testdata/fuzz/FuzzDecode/nullable_struct_marker_48): a
// nullable struct's presence byte of 48 reads as present, but re-encodes as
// 1, so it must be a warning, not a clean decode.
func TestRegressionNullableStructMarker(t *testing.T) {
	b := []byte("\x00\x00\x00C0000\x00000000\r000000000000\t00\x0000000000000000\x020000000000000000\x020000\x00\x00\x00")
	f, err := Decode(b, Options{Response: true, APIKey: 68, Version: 1})
	require.NoError(t, err)
	require.Contains(t, strings.Join(warnings(f.Root), "\n"), "struct presence byte is 48")
}

// A frame cut short (its size says more than the bytes given, as a capture
// with a small snap length or a partial paste does) is read as far as its
// bytes go: the partial value is there, the error is where reading stopped
// and says the frame is cut short, and the tree-less path agrees.
func TestCutShortFrameKeepsWhatWasRead(t *testing.T) {
	b := mustHex(t, "00000016 0003 0000 0000002a ffff 00000002 0001 61 0003 62")
	f, err := Decode(b, Options{})
	require.EqualError(t, err, "at byte 21 (body.topics[1].name): expected a length of at most 1 (the bytes left), "+
		"found 3 (the frame is cut short: its size says 22 bytes follow, 20 do, 2 are missing)")
	require.True(t, errors.Is(err, wire.ErrShort))
	require.JSONEq(t, `{"direction":"request","apiKey":3,"apiName":"Metadata","apiVersion":0,
		"header":{"requestApiKey":3,"requestApiVersion":0,"correlationId":42,"clientId":null},
		"body":{"topics":[{"name":"a"},{}]}}`, string(f.AppendJSON(nil)))
	var dec Decoder
	_, _, ferr := dec.AppendJSON(nil, b, Options{})
	require.EqualError(t, ferr, err.Error())

	// Guessing never starts from a cut-short frame: the size is the error
	// (this header, with a null client id, is no request as clients send
	// them).
	_, err = Decode(b, Options{Auto: true})
	require.EqualError(t, err, "at byte 0 (size): expected a size of at most 20 (the bytes given after it), found 22")
}

// A request cut short read with Auto is read as that request when it
// starts with a request header as clients send it (a known API at one of
// its versions, a client id): its header names the API and version, so
// nothing is guessed; the partial value is there and the error says how
// many bytes are missing, on both paths. A response cut short is still
// an error at its size.
func TestCutShortRequestReadWithAuto(t *testing.T) {
	full, err := ExampleFrame(schema.ByName("Produce"), 9, false)
	require.NoError(t, err)
	b := full[:150]
	for _, o := range []Options{{Auto: true}, {}} {
		f, err := Decode(b, o)
		var de *DecodeError
		require.ErrorAs(t, err, &de)
		require.NotEqual(t, "size", de.Path)
		require.True(t, errors.Is(err, wire.ErrShort))
		require.Contains(t, de.Found, "(the frame is cut short: its size says "+strconv.Itoa(len(full)-4)+" bytes follow, 146 do, "+
			strconv.Itoa(len(full)-150)+" are missing)")
		require.False(t, f.Response)
		require.Nil(t, f.Guess)
		js := string(f.AppendJSON(nil))
		require.Contains(t, js, `"apiName":"Produce","apiVersion":9`)
		require.Contains(t, js, `"clientId":`)
		bothPaths(t, b, o)
	}
	resp, err := ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	_, err = Decode(resp[:len(resp)-3], Options{Auto: true})
	require.ErrorContains(t, err, "at byte 0 (size)")
}

// Found by FuzzFastPath (testdata/fuzz/FuzzFastPath/a6dadef1427d3c36):
// "0000" read with a guess is a size of 808,464,432 over no bytes. The
// tree-less path read it as given (a header cut short) while the tree
// path said "size": a guess reads such a frame as an error at "size" on
// both.
func TestCutShortGuessSameOnBothPaths(t *testing.T) {
	b := []byte("0000")
	for _, o := range []Options{{Auto: true}, {Response: true, APIKey: Any, Version: Any}} {
		_, err := Decode(b, o)
		require.EqualError(t, err, "at byte 0 (size): expected a size of at most 0 (the bytes given after it), found 808464432")
		var dec Decoder
		_, _, ferr := dec.AppendJSON(nil, b, o)
		require.EqualError(t, ferr, err.Error())
	}
}

// A response no reading fits, read with its API or version left to guess,
// has no apiKey or apiVersion in its envelope (never Any's -1), on either
// path; when its bytes start with a request's header, the error says what
// that header names.
func TestUnreadResponseNamesNoAPI(t *testing.T) {
	req, err := ExampleFrame(schema.ByName("ApiVersions"), 3, false)
	require.NoError(t, err)
	h, err := ParseRequestHeader(req, Options{})
	require.NoError(t, err)
	for _, o := range []Options{{Response: true, APIKey: Any, Version: Any}, {Response: true, APIKey: 3, Version: Any}} {
		f, err := Decode(req, o)
		require.ErrorContains(t, err, "bytes that read as none; they start with a request's header: "+h.describe())
		require.Contains(t, h.describe(), "api key 18 (ApiVersions) v3, correlation id ")
		js, _, ferr := new(Decoder).AppendJSON(nil, req, o)
		require.EqualError(t, ferr, err.Error())
		for _, s := range []string{string(f.AppendJSON(nil)), string(js)} {
			require.NotContains(t, s, "-1")
			require.NotContains(t, s, `"apiVersion"`)
			require.Equal(t, o.APIKey == 3, strings.Contains(s, `"apiKey":3,"apiName":"Metadata"`), s)
		}
		bothPaths(t, req, o)
	}
}
