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
// "messages", "raw", or as the tree names a payload's data: "decoded",
// and its formats, "json", "avro". The tree tells them apart by what the nodes are,
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
 {"name":"key","type":"string"},
 {"name":"decoded","type":{"type":"record","name":"decoded","fields":[{"name":"avro","type":"string"}]}},
 {"name":"json","type":"long"}]}`

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
		"raw": "r", "key": "k", "decoded": map[string]any{"avro": "d"}, "json": int64(6)})
	require.NoError(t, err)
	jsonValue = []byte(`{"inflated": {"record": {"a": 1}, "inflated": [2]}, "record": 1, "batch": [1, 2], "header": {"key": "k", "value": "v"},
		"headers": [{"key": "a"}], "raw": 5, "value": {"inflated": 2}, "messages": 3, "key": null,
		"json": {"decoded": [4]}, "decoded": {"json": "j"}}`)
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

	js := must(f.Root.Lookup(rec + ".key.decoded"))
	require.Equal(t, "json object", js.Type)
	require.Equal(t, "json", js.Name, "its Name says its format")
	require.Equal(t, int64(3), must(js.Lookup("messages")).Int, "the member messages")
	require.Equal(t, []any{int64(1), int64(2)}, must(js.Lookup("batch")).Value())
	require.Equal(t, int64(2), must(js.Lookup("batch[1]")).Int)
	require.Equal(t, "a", string(must(js.Lookup("headers[0].key")).Raw))
	require.Equal(t, int64(2), must(js.Lookup("inflated.inflated[0]")).Int)
	require.Equal(t, 0, js.Get("inflated").Count(), "an object lists nothing")
	require.Equal(t, int64(5), must(js.Lookup("raw")).Int)
	// The payload's own members "json" and "decoded" keep their names.
	require.Equal(t, int64(4), must(js.Lookup("json.decoded[0]")).Int)
	require.Equal(t, map[string]any{"json": "j"}, must(js.Lookup("decoded")).Value())
	require.Equal(t, "j", must(f.Root.Lookup(rec+".key.decoded.decoded.json")).Value())

	avro := must(f.Root.Lookup(rec + ".value.decoded"))
	require.Equal(t, "avro", avro.Name)
	require.Equal(t, "avro record Names", avro.Type)
	require.Equal(t, "d", must(avro.Lookup("decoded.avro")).Value(), "the field decoded, of record type decoded")
	require.Equal(t, "avro record decoded", avro.Get("decoded").Type)
	require.Equal(t, int64(6), must(avro.Lookup("json")).Int)
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

// A payload's data is its key's or value's "decoded", as in value JSON:
// Get, Lookup and the names Lookup lists when a step is missing say so in
// every frame the records reach the payload decoder through (a records
// field alone, a Produce v2 message set, a gzip'd v3 batch, v9, Fetch v4
// and v13), and its format's name ("json", "avro", its node's Name) is no
// member; the payload's framing keeps its names. A node of a format's
// type that is no key's or value's child (the Avro field "value", a
// record whose one field is a long) holds no "decoded".
func TestPayloadDataIsDecoded(t *testing.T) {
	jv, av := namesPayloads(t)
	d := payload.NewDecoder(namesSource{}, payload.Config{})
	for _, fr := range sinkFrames(t, [][2][]byte{{jv, av}, {nil, jv}, {av, nil}}) {
		o := codec.Options{Response: fr.response, APIKey: fr.key, Version: fr.version, Payload: d.Decode,
			TopicNames: func([16]byte) string { return "orders" }}
		first := "body.topicData[0].partitionData[0].records[0]"
		switch {
		case fr.records:
			o, first = codec.Options{Data: "records", Payload: d.Decode}, "value[0]"
		case fr.response:
			first = "body.responses[0].partitions[0].records[0]"
		}
		if fr.version > 2 || fr.response || fr.records {
			first += ".records[0]" // a batch's first record; else the message set's first message
		}
		f, err := codec.Decode(fr.b, o)
		require.NoError(t, err)
		data := payloadData(f.Root)
		require.Len(t, data, 4, "key %d v%d", fr.key, fr.version)

		js := must(f.Root.Lookup(first + ".key.decoded"))
		require.Same(t, data[0], js, "key %d v%d", fr.key, fr.version)
		require.Equal(t, "json object", js.Type)
		require.Equal(t, int64(4), must(f.Root.Lookup(first+".key.decoded.json.decoded[0]")).Int)
		_, err = f.Root.Lookup(first + ".key.json")
		require.ErrorContains(t, err, `no "json" (there: decoded)`)

		avro := must(f.Root.Lookup(first + ".value.decoded"))
		require.Same(t, data[1], avro)
		require.Equal(t, "avro record Names", avro.Type)
		require.Equal(t, int64(9), must(f.Root.Lookup(first+".value.schemaId")).Int)
		require.Equal(t, "d", must(f.Root.Lookup(first+".value.decoded.decoded.avro")).Value())
		_, err = f.Root.Lookup(first + ".value.avro")
		require.ErrorContains(t, err, `no "avro" (there: magic, schemaId, decoded)`)
		require.Nil(t, avro.Get("value").Get("decoded"), "a payload's member is no key or value")
		require.NotNil(t, avro.Get("value").Get("inflated"))
	}
}

func must(n *tree.Node, err error) *tree.Node {
	if err != nil {
		panic(err)
	}
	return n
}
