package payload_test

import (
	"encoding/base64"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
)

type oneAvro string

func (s oneAvro) SchemaByID(id int) (*payload.Schema, error) {
	if id != 1 {
		return nil, nil
	}
	return &payload.Schema{Text: string(s)}, nil
}
func (oneAvro) SchemaFor(string, bool) (*payload.Schema, error) { return nil, nil }

// TestHookThroughCodec: codec.Options.Payload set to a Decoder's Decode
// reads record keys and values in plain and compressed batches; the tree
// (its key and value nodes holding the payload's nodes, its JSON written
// by walking the bytes again) and the tree-less JSON agree to the byte,
// with the same warnings and budget, under tight limits too.
func TestHookThroughCodec(t *testing.T) {
	const avsc = `{"type":"record","name":"C","fields":[{"name":"user","type":"string"},{"name":"n","type":"long"}]}`
	c, err := goavro.NewCodec(avsc)
	require.NoError(t, err)
	avro, err := c.BinaryFromNative(nil, map[string]any{"user": "ana", "n": int64(7)})
	require.NoError(t, err)
	framed := append([]byte{0, 0, 0, 0, 1}, avro...)
	bad := append([]byte{0, 0, 0, 0, 1}, 9)
	missing := append([]byte{0, 0, 0, 0, 2}, avro...)
	kv := [][2][]byte{
		{[]byte(`{"id": 1}`), framed},
		{[]byte("text"), bad},
		{nil, missing},
		{{0xff}, []byte(`[1, 2, {"a": null}]`)},
	}
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	d := payload.NewDecoder(oneAvro(avsc), payload.Config{})
	for _, compression := range []string{"none", "gzip"} {
		var recs []any
		for i, x := range kv {
			recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": i, "key": part(x[0]), "value": part(x[1]), "headers": []any{}})
		}
		b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
			"attributes": map[string]any{"compression": compression}, "lastOffsetDelta": len(kv) - 1, "baseTimestamp": 0, "maxTimestamp": 0,
			"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}}, codec.EncodeOptions{})
		require.NoError(t, err)
		for _, maxNodes := range []int{0, 30, 60, 90} {
			o := codec.Options{Data: "records", Payload: d.Decode}
			o.MaxNodes = maxNodes
			f, err := codec.Decode(b, o)
			require.NoError(t, err)
			js := f.AppendJSON(nil)
			var dec codec.Decoder
			js2, f2, err := dec.AppendJSON(nil, b, o)
			require.NoError(t, err)
			require.Equal(t, string(js), string(js2), "%s, MaxNodes %d", compression, maxNodes)
			require.Equal(t, f.Warnings, f2.Warnings)
			require.Equal(t, f.Spent, f2.Spent)
			if maxNodes != 0 {
				continue
			}
			for _, want := range []string{
				`"key":{"text":"{\"id\": 1}","format":"json","decoded":{"id":1}}`,
				`"value":{"base64":"AAAAAAEGYW5hDg==","schemaId":1,"format":"avro","decoded":{"user":"ana","n":7}}`,
				`"value":{"base64":"AAAAAAEJ","schemaId":1,"format":"avro"}`,
				`"value":{"base64":"AAAAAAIGYW5hDg==","schemaId":2}`,
				`"value":{"text":"[1, 2, {\"a\": null}]","format":"json","decoded":[1,2,{"a":null}]}`,
			} {
				require.Contains(t, string(js), want, compression)
			}
			require.NotEmpty(t, f.Warnings, "the bad and the missing schema are said")
			r0, err := f.Root.Lookup("value[0].records[0].value")
			require.NoError(t, err)
			require.Len(t, r0.Children, 3)
			require.Equal(t, "avro", r0.Children[2].Name)
			require.NotNil(t, r0.Children[2].Get("user"))
		}
	}
}

// TestAvroLongsFollowInt64Strings: with Options.Int64Strings, an Avro
// long in "decoded" (a logical type's too, and one in a union) is a string
// of its digits, as every int64 of the frame is; an int stays a number.
// Both paths write it so.
func TestAvroLongsFollowInt64Strings(t *testing.T) {
	const avsc = `{"type":"record","name":"E","fields":[{"name":"big","type":"long"},{"name":"i","type":"int"},` +
		`{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"u","type":["null","long"]}]}`
	c, err := goavro.NewCodec(avsc)
	require.NoError(t, err)
	data, err := c.BinaryFromNative(nil, map[string]any{"big": int64(9223372036854775807), "i": int32(-3), "at": int64(1700000000123), "u": map[string]any{"long": int64(-5)}})
	require.NoError(t, err)
	value := base64.StdEncoding.EncodeToString(append([]byte{0, 0, 0, 0, 1}, data...))
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none"}, "lastOffsetDelta": 0, "baseTimestamp": 0, "maxTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []any{map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": 0,
			"key": nil, "value": map[string]any{"base64": value}, "headers": []any{}}}}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	d := payload.NewDecoder(oneAvro(avsc), payload.Config{})
	for _, strs := range []bool{false, true} {
		o := codec.Options{Data: "records", Payload: d.Decode, Int64Strings: strs}
		f, err := codec.Decode(b, o)
		require.NoError(t, err)
		js := f.AppendJSON(nil)
		var dec codec.Decoder
		js2, _, err := dec.AppendJSON(nil, b, o)
		require.NoError(t, err)
		require.Equal(t, string(js), string(js2))
		want := `"decoded":{"big":9223372036854775807,"i":-3,"at":1700000000123,"u":{"long":-5}}`
		if strs {
			want = `"decoded":{"big":"9223372036854775807","i":-3,"at":"1700000000123","u":{"long":"-5"}}`
		}
		require.Contains(t, string(js), want)
	}
}
