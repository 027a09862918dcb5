package payload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/tree"
)

// validMembers fails t unless js, members as Decode appends them (each
// after its comma), makes a valid JSON object: a member "decoded" with no
// value made the key's or value's object invalid.
func validMembers(t testing.TB, js string) {
	t.Helper()
	obj := "{" + strings.TrimPrefix(js, ",") + "}"
	if js != "" && js[0] != ',' || !json.Valid([]byte(obj)) {
		t.Fatalf("the members are not valid JSON: %s", js)
	}
}

// cutLimits are budgets that cut a payload that takes nodes nodes and
// work work at every place: NestedNodes from 0 past it, MaxWork likewise.
func cutLimits(nodes, work int) []struct {
	name string
	b    func() (n, w int)
} {
	var ls []struct {
		name string
		b    func() (n, w int)
	}
	for n := 0; n <= nodes+2; n++ {
		ls = append(ls, struct {
			name string
			b    func() (n, w int)
		}{fmt.Sprintf("NestedNodes %d", n), func() (int, int) { return n, 1 << 30 }})
	}
	for w := 0; w <= work+2; w++ {
		ls = append(ls, struct {
			name string
			b    func() (n, w int)
		}{fmt.Sprintf("MaxWork %d", w), func() (int, int) { return 1 << 20, w }})
	}
	return ls
}

// TestPayloadCutByLimit: a payload of every format that a limit cuts at
// any place (NestedNodes or MaxWork) leaves its members valid JSON, the
// same on both paths, and a payload that decodes whole but not under
// the limit has no "decoded" and a limit warning instead. A JSON value
// (plain, or JSON Schema's data) cut by NestedNodes left `"decoded":`
// with no value: jsonValue rolled back only to just after the key.
func TestPayloadCutByLimit(t *testing.T) {
	src := mapSource{
		ids: map[int]*Schema{
			1: {Text: `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"long"}},{"name":"m","type":{"type":"map","values":"string"}}]}`},
			3: {Type: TypeProtobuf, Text: refundProto},
			5: {Type: TypeJSON, Text: `{"type":"object","properties":{"a":{"type":"array"}}}`},
		},
		subs: map[string]*Schema{"avro-value": {Text: `{"type":"array","items":"int"}`}},
	}
	doc := []byte(`{"a":[1,2,3,4,5,6]}`)
	avro := []byte{6, 2, 4, 6, 0, 2, 2, 'k', 2, 'v', 0} // a: [1,2,3], m: {k: v}
	for _, c := range []struct {
		name  string
		d     *Decoder
		p     []byte
		topic string
	}{
		{"JSON, no source", NewDecoder(nil, Config{}), doc, "t"},
		{"JSON, a source", NewDecoder(src, Config{}), doc, "t"},
		{"JSON, spaced", NewDecoder(src, Config{}), []byte(` { "a" : [ 1 , [ ] , { "b" : null } ] } `), "t"},
		{"JSON Schema", NewDecoder(src, Config{}), framed(5, doc), "t"},
		{"JSON Schema, validated", NewDecoder(src, Config{Validate: true}), framed(5, doc), "t"},
		{"Avro", NewDecoder(src, Config{}), framed(1, avro), "t"},
		{"Avro, the topic's schema", NewDecoder(src, Config{}), []byte{6, 2, 4, 6, 0}, "avro"},
		{"Protobuf", NewDecoder(src, Config{}), framed(3, []byte{0, 8, 42, 0x12, 3, 10, 1, 'A'}), "t"},
	} {
		t.Run(c.name, func(t *testing.T) {
			full := decodeBoth(t, c.d, c.p, false, c.topic, bigBudget())
			if !strings.Contains(full.json, `"decoded":`) || len(full.warnings) > 0 {
				t.Fatalf("not decoded whole: %s %v", full.json, full.warnings)
			}
			cut := 0
			for _, l := range cutLimits(full.spent.Nodes, full.spent.Work) {
				n, w := l.b()
				r := decodeBothCut(t, c.d, c.p, false, c.topic, fuzzLimitBudget(n, w))
				if strings.Contains(r.json, `"decoded":`) {
					continue
				}
				cut++
				limit := false
				for _, w := range r.warnings {
					limit = limit || w.Limit
				}
				if !limit {
					t.Fatalf("%s: no \"decoded\" and no limit warning: %s %v", l.name, r.json, r.warnings)
				}
			}
			if cut == 0 {
				t.Fatal("no limit cut the payload")
			}
		})
	}
}

// TestDecodeBytesCutByMaxNodes: DecodeBytes, DecodeBytesJSON and Decode
// with no budget give a JSON value that passes the 2^20 nodes they allow
// no "decoded" (it was `"decoded":` and nothing), and say the limit.
func TestDecodeBytesCutByMaxNodes(t *testing.T) {
	p := []byte("[" + strings.Repeat("0,", 1<<20) + "0]")
	for _, d := range []*Decoder{NewDecoder(nil, Config{}), NewDecoder(mapSource{}, Config{})} {
		js, _, ws := d.DecodeBytes(p, false, "t")
		validMembers(t, string(js))
		if string(js) != `,"format":"json"` || len(ws) != 1 || !ws[0].Limit {
			t.Fatalf("DecodeBytes: %s %v", js, ws)
		}
		members, value, ws := d.DecodeBytesJSON(p, false, "t")
		if string(members) != `,"format":"json"` || value != nil || len(ws) != 1 || !ws[0].Limit {
			t.Fatalf("DecodeBytesJSON: %s %q %v", members, value, ws)
		}
		js, _ = d.Decode(nil, &In{B: p, End: len(p), Path: valuePath})
		validMembers(t, string(js))
	}
}

// recordsFrame is a records data message: one plain batch of one record
// with key and value (nil: null).
func recordsFrame(t testing.TB, key, value []byte) []byte {
	t.Helper()
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none"}, "lastOffsetDelta": 0, "baseTimestamp": 0, "maxTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []any{map[string]any{"attributes": 0, "timestampDelta": 0,
			"offsetDelta": 0, "key": part(key), "value": part(value), "headers": []any{}}}}}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// framesBoth decodes a records frame whose record has key and value with
// d as its payload hook, at a MaxNodes that pick (a hash of the input)
// chooses up to three times what the frame takes whole (records may take
// half of it): the tree's records JSON (Frame.AppendJSON) and the
// tree-less one (Decoder.AppendJSON) are valid JSON and the same, with
// the same error and warnings.
func framesBoth(t testing.TB, d *Decoder, key, value []byte, pick uint32) {
	t.Helper()
	b := recordsFrame(t, key, value)
	o := codec.Options{Data: "records", Payload: d.Decode}
	o.MaxNodes, o.MaxWork = 1<<14, 1<<20
	whole, err := codec.Decode(b, o)
	if err != nil {
		t.Fatalf("the frame does not decode: %v", err)
	}
	o.MaxNodes = 1 + int(pick%uint32(3*whole.Spent.MaxNodes))
	f, terr := codec.Decode(b, o)
	var dec codec.Decoder
	fjs, fr, ferr := dec.AppendJSON(nil, b, o)
	if fmt.Sprint(terr) != fmt.Sprint(ferr) {
		t.Fatalf("MaxNodes %d: errors differ\ntree %v\njson %v", o.MaxNodes, terr, ferr)
	}
	if terr != nil {
		return
	}
	tjs := f.AppendJSON(nil)
	switch {
	case !json.Valid(tjs):
		t.Fatalf("MaxNodes %d: the tree's JSON is invalid: %s", o.MaxNodes, tjs)
	case !json.Valid(fjs):
		t.Fatalf("MaxNodes %d: the JSON is invalid: %s", o.MaxNodes, fjs)
	case string(tjs) != string(fjs):
		t.Fatalf("MaxNodes %d: JSON differs\ntree %s\njson %s", o.MaxNodes, tjs, fjs)
	case fmt.Sprint(f.Warnings) != fmt.Sprint(fr.Warnings):
		t.Fatalf("MaxNodes %d: warnings differ\ntree %v\njson %v", o.MaxNodes, f.Warnings, fr.Warnings)
	}
}

// TestLimitAtDataStart: a framed payload whose framing took the last
// nodes below NestedNodes is cut at its data's first node, and the limit
// warning says so where the data starts (after the magic byte and schema
// id, or after Protobuf's message indexes for the message), where the
// raw node of what was not decoded starts, not at the magic byte.
func TestLimitAtDataStart(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{
		1: {Text: `"long"`},
		3: {Type: TypeProtobuf, Text: refundProto},
		5: {Type: TypeJSON, Text: `{"type":"object"}`},
	}}
	d := NewDecoder(src, Config{})
	for _, tc := range []struct {
		name   string
		p      []byte
		nested int
		at     int
	}{
		{"avro", framed(1, []byte{2}), 2, 5},
		{"jsonschema", framed(5, []byte(`{"a":1}`)), 2, 5},
		{"protobuf indexes", framed(3, []byte{0, 8, 1}), 2, 5},
		{"protobuf message", framed(3, []byte{0, 8, 1}), 3, 6},
		// Unframed data starts at the payload's first byte (no nodes:
		// none fit).
		{"json", []byte(`{"a":1}`), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := cutAt(t, d, tc.p, tc.nested, tc.at)
			require.Equal(t, "value", w.Path)
			if tc.at > 0 {
				last := r.nodes[len(r.nodes)-1]
				require.Equal(t, tc.at, last.Start, "the node of what was not decoded: %s", last.Name)
			}
		})
	}
}

// TestLimitAtCutElement: a limit that cuts the data after its first node
// is said where the node it cut starts, on both sinks (decodeBothCut
// compares their warnings), and the tree's raw node of what was not
// decoded starts there too, the warning on the cut node's path (see
// TestLimitCutPath): an element of Protobuf's message-index list,
// a member or element of a top-level JSON object or array (plain or
// JSON Schema's) or of one inside it, a closing bracket's node, a field
// of a top-level Avro record or Protobuf message. Each was said at the
// payload's first byte (a nested JSON member at the value before it),
// as take placed every cut outside a named field there.
func TestLimitAtCutElement(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{
		1: {Text: `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"long"}]}`},
		3: {Type: TypeProtobuf, Text: refundProto},
		5: {Type: TypeJSON, Text: `{"type":"object"}`},
	}}
	d := NewDecoder(src, Config{})
	// Indexes [0,0] (shop.Order.Item): a count of 2 (zig-zag 4) at 5,
	// the elements at 6 and 7, the message at 8.
	idx := framed(3, []byte{4, 0, 0, 10, 1, 'A'})
	obj := []byte(`{"a":1,"b":2}`)
	arr := []byte(` [1, 2, [3, 4]] `)
	js := framed(5, []byte(`{"a":1,"b":{"c":2,"d":3}}`))
	for _, tc := range []struct {
		name   string
		p      []byte
		nested int
		at     int
		path   string
	}{
		{"protobuf index 0", idx, 3, 6, "value.messageIndexes[0]"},
		{"protobuf index 1", idx, 4, 7, "value.messageIndexes[1]"},
		{"json first member", obj, 1, 1, "value.decoded.a"},
		{"json second member", obj, 2, 6, "value.decoded.b"}, // at its comma, its node's prefix
		{"json object end", obj, 3, 12, "value"},
		{"json first element", arr, 1, 2, "value.decoded[0]"},
		{"json third element", arr, 3, 6, "value.decoded[2]"},
		{"json nested element", arr, 5, 10, "value.decoded[2][1]"},
		{"json nested end", arr, 6, 13, "value.decoded[2]"},
		{"json array end", arr, 7, 14, "value"},
		{"jsonschema first member", js, 3, 6, "value.decoded.a"},
		{"jsonschema second member", js, 4, 11, "value.decoded.b"},
		{"jsonschema nested member", js, 6, 22, "value.decoded.b.d"},
		{"avro second field", framed(1, []byte{2, 4}), 4, 6, "value.decoded.b"},
		{"protobuf second field", framed(3, []byte{0, 8, 1, 8, 2}), 5, 8, "value.decoded.id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := cutAt(t, d, tc.p, tc.nested, tc.at)
			require.Equal(t, tc.path, w.Path)
			require.True(t, rawAt(r.nodes, tc.at), "no raw node of what was not decoded starts at %d", tc.at)
		})
	}
}

// rawAt reports whether a raw node among nodes or below them starts at
// at: the bytes a limit left undecoded.
func rawAt(nodes []*tree.Node, at int) bool {
	for _, n := range nodes {
		if n.Role == tree.RoleRaw && n.Start == at || rawAt(n.Children, at) {
			return true
		}
	}
	return false
}

// TestFailAfterFieldsKeepsThem: a failure said where the fields the walk
// read whole end (an Avro record with a byte after it) leaves them their
// spans, the raw node of what was not decoded starting at the failure:
// closeOpen took the last field for one cut short and ended it at its
// prefix, so the raw node held the field's bytes too.
func TestFailAfterFieldsKeepsThem(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{1: {Text: `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"long"}]}`}}}
	r := decodeBothCut(t, NewDecoder(src, Config{}), framed(1, []byte{2, 4, 9}), false, "t", bigBudget())
	require.Len(t, r.warnings, 1, "%+v", r.warnings)
	require.Equal(t, 7, r.warnings[0].Offset)
	require.Contains(t, r.warnings[0].Message, "1 byte after the value")
	root := r.nodes[len(r.nodes)-1]
	require.Len(t, root.Children, 3)
	b, raw := root.Children[1], root.Children[2]
	require.Equal(t, [2]int{6, 7}, [2]int{b.Start, b.End}, "field b")
	require.Equal(t, tree.RoleRaw, raw.Role)
	require.Equal(t, [2]int{7, 8}, [2]int{raw.Start, raw.End}, "the byte after the value")
}

// cutAt decodes p on both sinks with NestedNodes nested, and returns what
// they read and its one warning, which must be the MaxNodes limit's, at
// offset at.
func cutAt(t *testing.T, d *Decoder, p []byte, nested, at int) (result, budget.Warning) {
	t.Helper()
	b := bigBudget()
	b.NestedNodes = nested
	r := decodeBothCut(t, d, p, false, "t", b)
	require.Len(t, r.warnings, 1, "%+v", r.warnings)
	w := r.warnings[0]
	require.True(t, w.Limit, "%+v", w)
	require.Contains(t, w.Message, "the MaxNodes limit")
	require.Equal(t, at, w.Offset, "%+v", w)
	return r, w
}
