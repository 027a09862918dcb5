package payload_test

import (
	"encoding/json"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
)

// unionAvsc is an Avro schema of unions (a string branch, a null one, a
// map branch), bytes and fixed: what value JSON writes in Avro's own
// JSON encoding.
const unionAvsc = `{"type":"record","name":"U","fields":[
 {"name":"u","type":["null","string"]},
 {"name":"n","type":["null","string"]},
 {"name":"m","type":["null",{"type":"map","values":"long"}]},
 {"name":"b","type":"bytes"},
 {"name":"f","type":{"type":"fixed","name":"F","size":2}}]}`

type unionSource struct{}

func (unionSource) SchemaByID(id int) (*payload.Schema, error) {
	switch id {
	case 1:
		return &payload.Schema{Text: unionAvsc}, nil
	case 3:
		return &payload.Schema{Type: payload.TypeProtobuf, Text: sinkProto}, nil
	}
	return nil, nil
}

func (unionSource) SchemaFor(string, bool) (*payload.Schema, error) { return nil, nil }

// Value of a payload's data gives Go values, not the JSON encoding
// value JSON's "decoded" writes them in (tree.Node.Value's doc says
// so): an Avro union its branch's value ("k", nil, the map), where the
// JSON has {"string":"k"}, null and {"map":{...}}; bytes and fixed
// []byte, where it has strings of code points; Protobuf's int64 an
// int64 and its enum its number, where protojson has "5" and "O".
func TestDecodedValueIsGoValues(t *testing.T) {
	c, err := goavro.NewCodec(unionAvsc)
	require.NoError(t, err)
	avro, err := c.BinaryFromNative(nil, map[string]any{"u": goavro.Union("string", "k"), "n": nil,
		"m": goavro.Union("map", map[string]any{"x": int64(1)}), "b": []byte{0xff, 1}, "f": []byte{1, 2}})
	require.NoError(t, err)
	avro = append([]byte{0, 0, 0, 0, 1}, avro...)
	// Schema 3's message shop.Order (index 0): id 5, e O, qty [1].
	proto := []byte{0, 0, 0, 0, 3, 0, 0x08, 0x05, 0x50, 0x01, 0x1a, 0x01, 0x02}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"baseTimestamp": 0, "producerId": -1, "producerEpoch": -1, "baseSequence": -1,
		"records": []any{map[string]any{"key": nil, "value": avro}, map[string]any{"key": nil, "value": proto}}}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: payload.NewDecoder(unionSource{}, payload.Config{}).Decode})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)

	var doc struct {
		Value []struct {
			Records []struct {
				Value struct {
					Decoded map[string]any `json:"decoded"`
				} `json:"value"`
			} `json:"records"`
		} `json:"value"`
	}
	require.NoError(t, json.Unmarshal(f.AppendJSON(nil), &doc))
	recs := doc.Value[0].Records
	require.Equal(t, map[string]any{"u": map[string]any{"string": "k"}, "n": nil, "m": map[string]any{"map": map[string]any{"x": 1.0}},
		"b": "\u00ff\u0001", "f": "\u0001\u0002"}, recs[0].Value.Decoded)
	require.Equal(t, map[string]any{"id": "5", "e": "O", "qty": []any{1.0}}, recs[1].Value.Decoded)

	av := must(f.Root.Lookup("value[0].records[0].value.decoded"))
	require.Equal(t, map[string]any{"u": "k", "n": nil, "m": map[string]any{"x": int64(1)},
		"b": []byte{0xff, 1}, "f": []byte{1, 2}}, av.Value())
	require.Equal(t, "k", must(av.Lookup("u")).Value())
	require.Equal(t, "avro union[1] string", av.Get("u").Type)
	require.Nil(t, must(av.Lookup("n")).Value())

	pb := must(f.Root.Lookup("value[0].records[1].value.decoded"))
	require.Equal(t, int64(5), must(pb.Lookup("id")).Value())
	require.Equal(t, int64(1), must(pb.Lookup("e")).Value())
}
