package payload_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/tree"
)

// A payload's members may be named as the records reader names its own
// nodes: "inflated", "record", "batch", "header(s)", "value", "key",
// "messages", "raw". The tree tells them apart by what the nodes are,
// not by their names, so Value, Get, Elems and Lookup of a payload's
// data give what the frame's value JSON says of it ("decoded").

// namesAvsc is an Avro schema whose fields, and one record type, carry
// the records reader's names.
const namesAvsc = `{"type":"record","name":"Names","fields":[
 {"name":"inflated","type":{"type":"record","name":"inflated","fields":[{"name":"record","type":"long"}]}},
 {"name":"value","type":{"type":"record","name":"V","fields":[{"name":"inflated","type":"long"}]}},
 {"name":"record","type":"long"},
 {"name":"batch","type":{"type":"array","items":"long"}},
 {"name":"headers","type":{"type":"map","values":"long"}},
 {"name":"attrs","type":{"type":"map","values":"string"}},
 {"name":"raw","type":"string"},
 {"name":"key","type":"string"}]}`

type namesSource struct{}

func (namesSource) SchemaByID(id int) (*payload.Schema, error) {
	if id == 9 {
		return &payload.Schema{Text: namesAvsc}, nil
	}
	return nil, nil
}

func (namesSource) SchemaFor(string, bool) (*payload.Schema, error) { return nil, nil }

// namesPayloads are a JSON value and an Avro one (schema 9) with members
// of the reader's names.
func namesPayloads(t *testing.T) (jsonValue, avroValue []byte) {
	c, err := goavro.NewCodec(namesAvsc)
	require.NoError(t, err)
	avro, err := c.BinaryFromNative(nil, map[string]any{
		"inflated": map[string]any{"record": int64(7)},
		"value":    map[string]any{"inflated": int64(8)},
		"record":   int64(1), "batch": []any{int64(2), int64(3)},
		"headers": map[string]any{"h": int64(4)}, "attrs": map[string]any{"a": "x"},
		"raw": "r", "key": "k"})
	require.NoError(t, err)
	jsonValue = []byte(`{"inflated": {"record": {"a": 1}, "inflated": [2]}, "record": 1, "batch": [1, 2], "header": {"key": "k", "value": "v"},
		"headers": [{"key": "a"}], "raw": 5, "value": {"inflated": 2}, "messages": 3, "key": null}`)
	return jsonValue, append([]byte{0, 0, 0, 0, 9}, avro...)
}

// decodedMembers are the values of every member "decoded" of a key or
// value in the value JSON js, in the order of the records.
func decodedMembers(t *testing.T, js []byte) []any {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	var out []any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if dec, ok := x["decoded"]; ok {
				if _, ok := x["format"]; ok {
					out = append(out, dec)
				}
			}
			// In sorted order: a record's "key" before its "value", as
			// the tree has them (the other objects hold one path to
			// records).
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if k != "decoded" {
					walk(x[k])
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// asJSON is v (a Value) as its JSON parse, numbers as json.Number.
func asJSON(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	require.NoError(t, d.Decode(&out))
	return out
}

// payloadData are the payload decoders' data nodes (json, avro) under
// the keys and values of the frame's records, in tree order.
func payloadData(root *tree.Node) []*tree.Node {
	var out []*tree.Node
	var walk func(n *tree.Node)
	walk = func(n *tree.Node) {
		if n.Type != "Record" && n.Type != "Message" {
			for _, c := range n.Children {
				walk(c)
			}
			return
		}
		for _, part := range []string{"key", "value"} {
			for _, c := range n.Get(part).Children {
				if c.Name == "json" || c.Name == "avro" {
					out = append(out, c)
				}
			}
		}
	}
	walk(root)
	return out
}

// Value of a payload's data equals the "decoded" the frame's value JSON
// gives it, whatever its members are named, in every frame the records
// reach the payload decoder through: a records field alone, a Produce v2
// message set, a gzip'd v3 batch, v9, Fetch v4 and v13.
func TestPayloadMemberNamesValue(t *testing.T) {
	jv, av := namesPayloads(t)
	d := payload.NewDecoder(namesSource{}, payload.Config{})
	frames := sinkFrames(t, [][2][]byte{{jv, av}, {nil, jv}, {av, nil}})
	for _, fr := range frames {
		o := codec.Options{Response: fr.response, APIKey: fr.key, Version: fr.version, Payload: d.Decode,
			TopicNames: func([16]byte) string { return "orders" }}
		if fr.records {
			o = codec.Options{Data: "records", Payload: d.Decode}
		}
		var dec codec.Decoder
		js, _, err := dec.AppendJSON(nil, fr.b, o)
		require.NoError(t, err)
		f, err := dec.Decode(fr.b, o)
		require.NoError(t, err)
		want := decodedMembers(t, js)
		data := payloadData(f.Root)
		require.Len(t, data, 4, "key %d v%d", fr.key, fr.version)
		require.Len(t, want, len(data), "key %d v%d", fr.key, fr.version)
		for i, n := range data {
			require.Equal(t, want[i], asJSON(t, n.Value()), "key %d v%d: payload %d (%s)", fr.key, fr.version, i, n.Name)
		}
		// The frame's own value is untouched by what the payloads hold:
		// it encodes back to the frame's bytes.
		back, err := codec.Encode(nil, f.Root.Value(), codec.EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, fr.b, back, "key %d v%d", fr.key, fr.version)
	}
}

// Get, Elems and Lookup in a payload's data find its members by their
// names and list only its arrays' elements: a member "value" holding one
// member "inflated" is no wrapper message's value ("messages" is found
// only where the payload has it), an Avro record of type "inflated" is
// no decompressed buffer (it lists no entries), a member "headers" is a
// record's headers only when the records reader made it.
func TestPayloadMemberNamesLookup(t *testing.T) {
	jv, av := namesPayloads(t)
	d := payload.NewDecoder(namesSource{}, payload.Config{})
	fr := sinkFrames(t, [][2][]byte{{jv, av}})[3] // Produce v9
	require.Equal(t, int16(9), fr.version)
	f, err := codec.Decode(fr.b, codec.Options{APIKey: fr.key, Version: fr.version, Payload: d.Decode})
	require.NoError(t, err)
	rec := "body.topicData[0].partitionData[0].records[0].records[0]"

	js := must(f.Root.Lookup(rec + ".key.json"))
	require.Equal(t, "json object", js.Type)
	require.Equal(t, int64(3), must(js.Lookup("messages")).Int, "the member messages")
	require.Equal(t, []any{int64(1), int64(2)}, must(js.Lookup("batch")).Value())
	require.Equal(t, int64(2), must(js.Lookup("batch[1]")).Int)
	require.Equal(t, "a", string(must(js.Lookup("headers[0].key")).Raw))
	require.Equal(t, int64(2), must(js.Lookup("inflated.inflated[0]")).Int)
	require.Equal(t, 0, js.Get("inflated").Count(), "an object lists nothing")
	require.Equal(t, int64(5), must(js.Lookup("raw")).Int)

	avro := must(f.Root.Lookup(rec + ".value.avro"))
	require.Equal(t, "avro", avro.Name)
	require.Nil(t, avro.Get("messages"), "the field value's one field inflated is no wrapper's messages")
	_, err = avro.Lookup("messages")
	require.ErrorContains(t, err, `no "messages"`)
	inf := must(avro.Lookup("inflated"))
	require.Equal(t, "avro record inflated", inf.Type)
	require.Equal(t, 0, inf.Count(), "a record lists nothing")
	_, err = avro.Lookup("inflated[0]")
	require.ErrorContains(t, err, "no item 0 (0 there)")
	require.Equal(t, map[string]any{"record": int64(7)}, inf.Value())
	require.Equal(t, map[string]any{"h": int64(4)}, must(avro.Lookup("headers")).Value())
	require.Equal(t, 0, avro.Get("headers").Count(), "a map is an object in the JSON: no items")
	require.Equal(t, int64(4), must(avro.Lookup("headers.h.value")).Int)
	require.Equal(t, map[string]any{"a": "x"}, must(avro.Lookup("attrs")).Value())
	require.Equal(t, "r", must(avro.Lookup("raw")).Value())

	// The record's own headers, key and value are still the reader's.
	r := must(f.Root.Lookup(rec))
	require.Equal(t, 0, r.Get("headers").Count())
	require.Equal(t, jv, r.Get("key").Value())
}

func must(n *tree.Node, err error) *tree.Node {
	if err != nil {
		panic(err)
	}
	return n
}
