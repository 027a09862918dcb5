package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// schemaMap is a payload.Source over schemas by id.
type schemaMap map[int]*payload.Schema

func (s schemaMap) SchemaByID(id int) (*payload.Schema, error) {
	if sc, ok := s[id]; ok {
		return sc, nil
	}
	return nil, errors.New("no schema " + strconv.Itoa(id))
}

func (s schemaMap) SchemaFor(string, bool) (*payload.Schema, error) { return nil, nil }

// clashJSON is a record value whose JSON members have the names of the
// records reader's nodes (record, batch, header, message, inflated) and of
// framing nodes (end, count).
const clashJSON = `{"record":{"batch":[1,{"header":2}],"message":"m"},"end":3,"count":[4,{"end":5}],"header":{"end":6,"record":[7]},"message":{"inflated":8},"inflated":{"record":9}}`

// clashAvro is the Avro schema of a value with such fields, and an
// array, a map (keys "end" and "count") and a union.
const clashAvro = `{"type":"record","name":"R","fields":[{"name":"record","type":"long"},{"name":"batch","type":{"type":"array","items":"long"}},{"name":"header","type":{"type":"map","values":"long"}},{"name":"message","type":"string"},{"name":"end","type":"long"},{"name":"count","type":{"type":"record","name":"Count","fields":[{"name":"end","type":"long"},{"name":"count","type":["null","long"]}]}}]}`

// clashAvroValue: schema id 1, then record 1, batch [2, 3], header
// {"end": 4, "count": 5}, message "m", end 6, count {end 7, count 8}.
var clashAvroValue = []byte{0, 0, 0, 0, 1, 2, 4, 4, 6, 0, 4, 6, 'e', 'n', 'd', 8, 10, 'c', 'o', 'u', 'n', 't', 10, 0, 2, 'm', 12, 14, 2, 16}

// clashFrame is a records blob of one batch of two records, values v0
// and v1, the first with a header, read with payload decoder d.
func clashFrame(t *testing.T, d *payload.Decoder, v0, v1 []byte) *codec.Frame {
	t.Helper()
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{
			{"key": []byte("k"), "value": v0, "headers": []map[string]any{{"key": "record", "value": []byte("batch")}}},
			{"key": nil, "value": v1},
		}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	return f
}

// TestPayloadMembersNamedAsRecordsNodes: a record value's members named
// "record", "batch", "header", "message", "inflated", "end" or "count"
// get the value-JSON paths of those members (each path locates, in the
// value JSON the codec writes, the value the node shows), not the paths
// of records' entries or of a container's framing; and the records'
// own nodes keep theirs.
func TestPayloadMembersNamedAsRecordsNodes(t *testing.T) {
	d := payload.NewDecoder(schemaMap{1: {ID: 1, Type: payload.TypeAvro, Text: clashAvro}}, payload.Config{})
	f := clashFrame(t, d, []byte(clashJSON), clashAvroValue)
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	var doc any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&doc))
	var ps Paths
	lines := ScanJSONLines(js, &ps)
	paths := NodePaths(f.Root, &ps)
	text := strings.Split(string(js), "\n")

	// Each node's path and its parent's, in pre-order.
	var nodes, parents []*tree.Node
	tree.Walk(f.Root, func(n *tree.Node) bool {
		nodes = append(nodes, n)
		return true
	})
	parents = make([]*tree.Node, len(nodes))
	id := map[*tree.Node]int{}
	for i, n := range nodes {
		id[n] = i
	}
	for _, n := range nodes {
		for _, k := range n.Children {
			parents[id[k]] = n
		}
	}
	at := func(n *tree.Node) string { return ps.String(paths[id[n]]) }

	// The records' own nodes.
	rec0, err := f.Root.Lookup("value[0].records[0]")
	require.NoError(t, err)
	rec1, err := f.Root.Lookup("value[0].records[1]")
	require.NoError(t, err)
	require.Equal(t, "value[0]", at(parents[id[parents[id[rec0]]]]))
	require.Equal(t, "value[0].records[0]", at(rec0))
	require.Equal(t, "value[0].records[1]", at(rec1))
	hdr, err := f.Root.Lookup("value[0].records[0].headers[0]")
	require.NoError(t, err)
	require.Equal(t, "value[0].records[0].headers[0]", at(hdr))
	require.Equal(t, "value[0].records[0].headers[0].key", at(hdr.Children[0]))

	checked := 0
	for _, rec := range []*tree.Node{rec0, rec1} {
		val := rec.Get("value")
		require.NotNil(t, val)
		var data *tree.Node
		for _, c := range val.Children {
			if strings.HasPrefix(c.Type, "json ") || strings.HasPrefix(c.Type, "avro ") {
				data = c
			}
		}
		require.NotNil(t, data, "the value's decoded data")
		tree.Walk(data, func(n *tree.Node) bool {
			p := at(n)
			if n.Role == tree.RoleFraming {
				require.Equal(t, at(parents[id[n]]), p, "%s (%s): framing is on its container's path", n.Name, n.Type)
				return true
			}
			require.True(t, lines.Has(paths[id[n]]), "%s (%s): no JSON line for %q", n.Name, n.Type, p)
			got, ok := locate(doc, p)
			require.True(t, ok, "%s (%s): %q locates nothing in the value JSON", n.Name, n.Type, p)
			// The line the path starts on holds the member's key.
			if n.Role != tree.RoleElement && n != data && n.Name != "key" && n.Name != "value" {
				require.Contains(t, text[lines.Span(paths[id[n]])[0]], strconv.Quote(n.Name)+": ", p)
			}
			switch {
			case strings.HasPrefix(n.Type, "json "):
				// The node's own bytes are the JSON value the path locates.
				// From its start: white space and a comma, the member's key
				// and colon, then the value.
				var want any
				b := bytes.TrimLeft(f.Buffers[n.Buf][n.Start:n.End], " \t\r\n,")
				if n.Role != tree.RoleElement && n != data {
					b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte(strconv.Quote(n.Name))), " \t\r\n:")
				}
				d := json.NewDecoder(bytes.NewReader(b))
				d.UseNumber()
				require.NoError(t, d.Decode(&want), "%s: %q", p, b)
				require.True(t, reflect.DeepEqual(want, got), "%s: the node holds %v, the path locates %v", p, want, got)
			case n.Name == "key" && parents[id[n]].Type == "avro map entry":
				require.True(t, strings.HasSuffix(p, "."+string(n.Raw)), "%s: a map entry's key %q", p, n.Raw)
			case n.Kind == schema.Int64 && !strings.HasPrefix(n.Type, "avro union"):
				require.Equal(t, json.Number(strconv.FormatInt(n.Int, 10)), got, p)
			case n.Kind == schema.String:
				require.Equal(t, string(n.Raw), got, p)
			case n.Kind == schema.Struct && n.Type != "avro map entry", n.Kind == schema.Array:
				members := 0
				for _, c := range n.Children {
					if c.Role != tree.RoleFraming {
						members++
					}
				}
				require.Equal(t, members, reflect.ValueOf(got).Len(), "%s: the container's members", p)
			}
			checked++
			return true
		})
	}
	require.Greater(t, checked, 30)
}

// locate finds path ("a.b[2].c", names without dots or brackets) in a
// value decoded by encoding/json.
func locate(doc any, path string) (any, bool) {
	for path != "" {
		if path[0] == '[' {
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:end])
			a, ok := doc.([]any)
			if err != nil || !ok || i >= len(a) {
				return nil, false
			}
			doc, path = a[i], path[end+1:]
			continue
		}
		path = strings.TrimPrefix(path, ".")
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[path[:end]]; !ok {
			return nil, false
		}
		path = path[end:]
	}
	return doc, true
}

// TestMixedEntriesNumberedInOneArray: a records field whose entries are
// a legacy message, then a batch, then a message (a log converted in
// place holds both) lists them in one JSON array: each entry's path is
// its place in it, not its place among entries of its own kind.
func TestMixedEntriesNumberedInOneArray(t *testing.T) {
	msg := func(off int, v string) map[string]any {
		return map[string]any{"offset": off, "magic": 1, "timestamp": 0, "key": nil, "value": []byte(v)}
	}
	batch := map[string]any{"baseOffset": 1, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": nil, "value": []byte("b")}}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{msg(0, "m0"), batch, msg(2, "m2")}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records"})
	require.NoError(t, err)
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	var doc any
	require.NoError(t, json.Unmarshal(js, &doc))
	var ps Paths
	lines := ScanJSONLines(js, &ps)
	paths := NodePaths(f.Root, &ps)
	id := 0
	var entries []string
	tree.Walk(f.Root, func(n *tree.Node) bool {
		if IsEntry(n) && (n.Type == "Message" || n.Type == "RecordBatch") {
			p := ps.String(paths[id])
			require.True(t, lines.Has(paths[id]), p)
			got, ok := locate(doc, p)
			require.True(t, ok, p)
			magic := n.Get("magic").Int
			require.Equal(t, float64(magic), got.(map[string]any)["magic"], "%s: the entry of magic %d", p, magic)
			entries = append(entries, p)
		}
		id++
		return true
	})
	require.Equal(t, []string{"value[0]", "value[1]", "value[2]"}, entries)
}

// TestWrapperMessagesPaths: the messages a compressed legacy message
// wraps are its "messages" in the JSON (its value is not shown): their
// nodes, and their payloads', have the lines of those.
func TestWrapperMessagesPaths(t *testing.T) {
	inner := func(v string) map[string]any {
		return map[string]any{"offset": 0, "magic": 1, "timestamp": 0, "key": nil, "value": []byte(v)}
	}
	wrapper := map[string]any{"offset": 1, "magic": 1, "timestamp": 0, "attributes": map[string]any{"compression": "gzip"}, "key": nil,
		"messages": []any{inner(`{"message":1}`), inner(`{"record":[2]}`)}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{wrapper}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: payload.NewDecoder(nil, payload.Config{}).Decode})
	require.NoError(t, err)
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	var doc any
	require.NoError(t, json.Unmarshal(js, &doc))
	var ps Paths
	lines := ScanJSONLines(js, &ps)
	paths := NodePaths(f.Root, &ps)
	got := map[string]any{}
	id := 0
	tree.Walk(f.Root, func(n *tree.Node) bool {
		p := ps.String(paths[id])
		id++
		if n.Type == "Message" || strings.HasPrefix(n.Type, "json ") && n.Role != tree.RoleFraming {
			require.True(t, lines.Has(paths[id-1]), "%s (%s): no JSON line for %q", n.Name, n.Type, p)
			v, ok := locate(doc, p)
			require.True(t, ok, p)
			got[p] = v
		}
		return true
	})
	require.Equal(t, float64(1), got["value[0].messages[0].value.decoded.message"], "%v", got)
	require.Equal(t, []any{float64(2)}, got["value[0].messages[1].value.decoded.record"], "%v", got)
	require.Equal(t, float64(1), got["value[0]"].(map[string]any)["offset"])
}

// TestNodePathsAreLookupPaths: the path NodePaths gives a node is the
// path tree's Lookup finds it by, so the playground's JSON lines and the
// library name a payload's data ("decoded") and its members alike, by
// one rule (tree's). Nodes on their container's path (framing, an Avro
// map entry's key and value, the decompressed bytes) have none of their
// own.
func TestNodePathsAreLookupPaths(t *testing.T) {
	d := payload.NewDecoder(schemaMap{1: {ID: 1, Type: payload.TypeAvro, Text: clashAvro}}, payload.Config{})
	f := clashFrame(t, d, []byte(clashJSON), clashAvroValue)
	var ps Paths
	paths := NodePaths(f.Root, &ps)
	var nodes []*tree.Node
	tree.Walk(f.Root, func(n *tree.Node) bool {
		nodes = append(nodes, n)
		return true
	})
	own := map[int32]bool{} // paths of nodes found by them
	decoded, checked := 0, 0
	parent := map[*tree.Node]int32{}
	for i, n := range nodes {
		for _, k := range n.Children {
			parent[k] = paths[i]
		}
		if i == 0 || paths[i] == parent[n] || own[paths[i]] {
			continue
		}
		p := ps.String(paths[i])
		got, err := f.Root.Lookup(p)
		require.NoError(t, err, "%s (%s)", n.Name, n.Type)
		require.Same(t, n, got, "%s: Lookup finds another node than %s (%s)", p, n.Name, n.Type)
		own[paths[i]] = true
		if strings.HasSuffix(p, ".decoded") {
			decoded++
		}
		checked++
	}
	require.Equal(t, 2, decoded, "both values' data")
	require.Greater(t, checked, 60)
}

// linked is a decoded frame's value JSON, as a document and as lines,
// and its nodes in pre-order with their paths.
type linked struct {
	doc   any
	ps    Paths
	lines JSONLines
	nodes []*tree.Node
	paths []int32
}

func link(t *testing.T, f *codec.Frame) *linked {
	t.Helper()
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	l := &linked{}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&l.doc))
	l.lines = ScanJSONLines(js, &l.ps)
	l.paths = NodePaths(f.Root, &l.ps)
	tree.Walk(f.Root, func(n *tree.Node) bool {
		l.nodes = append(l.nodes, n)
		return true
	})
	require.Equal(t, len(l.nodes), len(l.paths))
	return l
}

// of is node n's path.
func (l *linked) of(n *tree.Node) int32 {
	for i, m := range l.nodes {
		if m == n {
			return l.paths[i]
		}
	}
	panic("no such node")
}

// path numbers a path given as its steps: a member's name (any text: a
// map's key may hold dots and brackets), an element's index.
func (l *linked) path(steps ...any) int32 {
	id := int32(Root)
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			id = l.ps.child(id, s, -1)
		case int:
			id = l.ps.child(id, "", int32(s))
		}
	}
	return id
}

// find is the value at path id in the document, following its steps.
func (l *linked) find(id int32) (any, bool) {
	if id == Root {
		return l.doc, true
	}
	up, ok := l.find(l.ps.parent[id])
	if !ok {
		return nil, false
	}
	if s := l.ps.step[id]; s < 0 {
		a, ok := up.([]any)
		if i := int(-1 - s); ok && i < len(a) {
			return a[i], true
		}
		return nil, false
	} else {
		m, ok := up.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := m[l.ps.names[s]]
		return v, ok
	}
}

// protoPathsSchema has repeated fields (packed scalars, messages,
// strings) and maps keyed by strings, int32, sint32 and bool.
const protoPathsSchema = `syntax = "proto3"; package t;
message M {
  repeated int32 nums = 1;
  repeated Inner items = 2;
  map<string, int32> counts = 3;
  map<int32, Inner> by_id = 4;
  repeated string tags = 5;
  map<sint32, string> signed = 6;
  map<bool, int32> flags = 7;
  Inner one = 8;
}
message Inner { string name = 1; repeated sint64 deltas = 2; }`

// protoPathsValue is a t.M (schema id 2), its repeated fields written in
// runs: nums packed [1,2,3], then 4 alone, then packed [5,6], an item
// between; and its maps' entries.
func protoPathsValue() []byte {
	field := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	packed := func(b []byte, num protowire.Number, vs ...uint64) []byte {
		var e []byte
		for _, v := range vs {
			e = protowire.AppendVarint(e, v)
		}
		return field(b, num, e)
	}
	inner := func(name string, deltas ...int64) []byte {
		b := field(nil, 1, []byte(name))
		var zz []uint64
		for _, d := range deltas {
			zz = append(zz, protowire.EncodeZigZag(d))
		}
		if len(zz) > 0 {
			b = packed(b, 2, zz...)
		}
		return b
	}
	b := []byte{0, 0, 0, 0, 2, 0}
	b = packed(b, 1, 1, 2, 3)
	b = varint(b, 1, 4)
	b = field(b, 2, inner("a", -1))
	b = packed(b, 1, 5, 6)
	b = field(b, 2, inner("b"))
	b = field(b, 3, varint(field(nil, 1, []byte("x.y")), 2, 7))
	b = field(b, 3, varint(field(nil, 1, []byte(`q"[0]`)), 2, 8))
	b = field(b, 3, varint(field(nil, 1, []byte("é\n\t<&>")), 2, 9))
	b = field(b, 4, field(varint(nil, 1, 9), 2, varint(inner("c", 3), 2, protowire.EncodeZigZag(4))))
	b = field(b, 4, field(varint(nil, 1, uint64(1<<64-2)), 2, inner("d")))
	b = field(b, 5, []byte("t0"))
	b = field(b, 5, []byte("t1"))
	b = field(b, 6, field(varint(nil, 1, protowire.EncodeZigZag(-5)), 2, []byte("x")))
	b = field(b, 7, varint(varint(nil, 1, 1), 2, 1))
	b = field(b, 8, inner("o"))
	return varint(b, 9, 1) // not in the schema
}

// TestProtobufRepeatedAndMapPaths: each element of a Protobuf repeated
// field, packed or not, has the path of its place in the field's array
// in the value JSON ("decoded.nums[3]", counted over the field's runs),
// and each map entry the path of its key's member in the field's object
// ("decoded.counts.x.y", the key as protojson writes it); every node the
// JSON shows locates its value there. A field not in the schema keeps
// its path, which the JSON (protojson leaves it out) has no line for.
func TestProtobufRepeatedAndMapPaths(t *testing.T) {
	d := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{})
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": nil, "value": protoPathsValue()}}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1, "field 9, not in the schema")
	l := link(t, f)
	var data *tree.Node
	for _, n := range l.nodes {
		if n.Name == "protobuf" && n.Type == "protobuf message t.M" {
			data = n
		}
	}
	require.NotNil(t, data)
	dec := []any{"value", 0, "records", 0, "value", "decoded"}
	at := func(steps ...any) int32 { return l.path(append(dec[:len(dec):len(dec)], steps...)...) }
	str := func(id int32) string { return l.ps.String(id) }
	nums := func(i int) int32 { return at("nums", i) }
	k := data.Children
	require.Len(t, k, 16)
	for _, c := range []struct {
		n    *tree.Node
		want int32
	}{
		{k[0], at("nums")}, // a packed run: the array
		{k[0].Children[0], nums(0)}, {k[0].Children[2], nums(2)},
		{k[1], nums(3)}, // one element alone, after the run's three
		{k[2], at("items", 0)},
		{k[2].Children[1], at("items", 0, "deltas")},
		{k[2].Children[1].Children[0], at("items", 0, "deltas", 0)},
		{k[3], at("nums")}, {k[3].Children[0], nums(4)}, {k[3].Children[1], nums(5)},
		{k[4], at("items", 1)},
		{k[5], at("counts", "x.y")},
		{k[5].Children[0], at("counts", "x.y")}, {k[5].Children[1], at("counts", "x.y")}, // key and value: the member
		{k[6], at("counts", `q"[0]`)},
		{k[7], at("counts", "é\n\t<&>")},
		{k[8], at("byId", "9")},
		{k[8].Children[1].Children[1], at("byId", "9", "deltas")},
		{k[8].Children[1].Children[1].Children[0], at("byId", "9", "deltas", 0)},
		{k[8].Children[1].Children[2], at("byId", "9", "deltas", 1)},
		{k[9], at("byId", "-2")},
		{k[10], at("tags", 0)}, {k[11], at("tags", 1)},
		{k[12], at("signed", "-5")},
		{k[13], at("flags", "true")},
		{k[14], at("one")},
		{k[15], at("9")}, // unknown: as it was
	} {
		require.Equal(t, str(c.want), str(l.of(c.n)), "%s (%s)", c.n.Name, c.n.Type)
		require.Equal(t, c.want, l.of(c.n), "%s (%s): %q", c.n.Name, c.n.Type, str(c.want))
	}
	require.Equal(t, "protobuf map<string, int32> entry", k[5].Type)
	require.Equal(t, "protobuf map<int32, t.Inner> entry", k[8].Type)
	require.False(t, l.lines.Has(l.of(k[15])))

	// Every node the JSON shows (all but the unknown field) has its
	// lines, and its path locates its value.
	checked := 0
	entry := map[*tree.Node]*tree.Node{} // a map entry's key and value: the entry
	tree.Walk(data, func(n *tree.Node) bool {
		if n == k[15] {
			return false
		}
		if protoMapEntry(n) {
			entry[n.Children[0]], entry[n.Children[1]] = n, n
		}
		id := l.of(n)
		require.True(t, l.lines.Has(id), "%s (%s): no JSON line for %q", n.Name, n.Type, str(id))
		got, ok := l.find(id)
		require.True(t, ok, "%s (%s): %q locates nothing", n.Name, n.Type, str(id))
		switch {
		case entry[n] != nil && n.Name == "key":
			// The entry's member: its name is the key.
			key, _ := protoMapKey(entry[n])
			require.Equal(t, key, l.ps.names[l.ps.step[id]])
		case n.Kind == schema.Int64:
			require.Equal(t, strconv.FormatInt(n.Int, 10), fmt.Sprint(got), "%q", str(id))
		case n.Kind == schema.Bool:
			require.Equal(t, n.Int != 0, got, "%q", str(id))
		case n.Kind == schema.String:
			require.Equal(t, string(n.Raw), got, "%q", str(id))
		case n.Kind == schema.Struct && !protoMapEntry(n):
			require.IsType(t, map[string]any{}, got, "%q", str(id))
		case n.Kind == schema.Array:
			require.GreaterOrEqual(t, len(got.([]any)), len(n.Children), "%q", str(id))
		}
		checked++
		return true
	})
	require.Greater(t, checked, 40)
	v, _ := l.find(at("nums"))
	require.Equal(t, "[1 2 3 4 5 6]", fmt.Sprint(v))
}

// FuzzProtobufPaths: whatever a t.M payload holds, when value JSON has
// its "decoded", each element of a repeated field, packed or not, and
// each map entry the tree shows has a path there, and an element's
// path locates its value.
func FuzzProtobufPaths(f *testing.F) {
	f.Add(protoPathsValue()[6:])
	f.Add([]byte{0x0a, 0, 0x08, 1, 0x0a, 2, 3, 4, 0x08, 5})
	f.Add([]byte{0x1a, 0, 0x1a, 2, 0x10, 1, 0x22, 2, 0x08, 1, 0x22, 0})
	d := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := withValues(t, append([]byte{0, 0, 0, 0, 2, 0}, data...), nil)
		fr, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
		require.NoError(t, err)
		l := link(t, fr)
		dec := l.path("value", 0, "records", 0, "value", "decoded")
		if _, ok := l.find(dec); !ok {
			return // not decoded: nothing to light but the value
		}
		var walk func(n *tree.Node, elems bool)
		walk = func(n *tree.Node, elems bool) {
			id := l.of(n)
			repeated := protoRepeated(n)
			switch {
			case repeated && n.Kind == schema.Array && len(n.Children) == 0:
				// An empty packed run: no elements, maybe no array.
			case repeated || protoMapEntry(n) || elems && n.Role == tree.RoleElement:
				require.True(t, l.lines.Has(id), "%s (%s): no JSON line for %q", n.Name, n.Type, l.ps.String(id))
				got, ok := l.find(id)
				require.True(t, ok, "%s (%s): %q locates nothing", n.Name, n.Type, l.ps.String(id))
				if protoMapEntry(n) {
					key, ok := protoMapKey(n)
					if ok {
						require.Equal(t, key, l.ps.names[l.ps.step[id]])
					}
					break
				}
				switch n.Kind {
				case schema.Int64:
					require.Equal(t, strconv.FormatInt(n.Int, 10), fmt.Sprint(got), "%q", l.ps.String(id))
				case schema.String:
					require.Equal(t, string(n.Raw), got, "%q", l.ps.String(id))
				}
			}
			for _, k := range n.Children {
				walk(k, repeated && n.Kind == schema.Array)
			}
		}
		for _, n := range l.nodes {
			if n.Name == "protobuf" && strings.HasPrefix(n.Type, "protobuf message ") {
				walk(n, false)
			}
		}
	})
}

// TestProtobufMapEntryWithoutKeyPath: a Protobuf map entry that holds no
// key (only its value, or a key of a wire type its type is never written
// as) is the member of its key type's default, as protojson shows it
// ("byId":{"0":...}, "counts":{"":...}, "flags":{"false":...}); it was
// lit as the map's path, and its value's members as members of the map
// ("byId.deltas[0]", which no line has). FuzzProtobufPaths found it.
func TestProtobufMapEntryWithoutKeyPath(t *testing.T) {
	d := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{})
	data := []byte{
		0x22, 4, 0x12, 2, 0x10, 3, // byId: value {deltas: [-2]}, no key
		0x1a, 2, 0x10, 5, // counts: value 5, no key
		0x3a, 5, 0x0d, 1, 0, 0, 0, // flags: a key as fixed32 (not a bool's wire type), no value
	}
	b := withValues(t, append([]byte{0, 0, 0, 0, 2, 0}, data...), nil)
	fr, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
	require.NoError(t, err)
	l := link(t, fr)
	var root *tree.Node
	for _, n := range l.nodes {
		if n.Type == "protobuf message t.M" {
			root = n
		}
	}
	require.NotNil(t, root)
	dec := []any{"value", 0, "records", 0, "value", "decoded"}
	at := func(steps ...any) int32 { return l.path(append(dec[:len(dec):len(dec)], steps...)...) }
	k := root.Children
	require.Len(t, k, 3)
	for _, c := range []struct {
		n    *tree.Node
		want int32
	}{
		{k[0], at("byId", "0")},
		{k[0].Children[0].Children[0], at("byId", "0", "deltas", 0)},
		{k[1], at("counts", "")},
		{k[2], at("flags", "false")},
	} {
		got := l.of(c.n)
		require.Equal(t, l.ps.String(c.want), l.ps.String(got), "%s (%s)", c.n.Name, c.n.Type)
		require.True(t, l.lines.Has(got), "no JSON line for %q", l.ps.String(got))
	}
}

// TestProtobufRepeatedTreeNames: the tree view and the grid's cell paths
// name a Protobuf repeated field's values as value JSON does, over all
// its occurrences: an element alone after a packed run of three is
// "nums[3]", the next run's elements "nums[4]" and "nums[5]" (the run
// itself "nums"). They were named by occurrence, "nums[1]" and
// "nums[2][0]".
func TestProtobufRepeatedTreeNames(t *testing.T) {
	d := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{})
	b := withValues(t, protoPathsValue(), nil)
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
	require.NoError(t, err)
	var nodes []*tree.Node
	tree.Walk(f.Root, func(n *tree.Node) bool {
		nodes = append(nodes, n)
		return true
	})
	cellPath := map[*tree.Node]string{}
	for _, c := range Cells(f, 0) {
		cellPath[nodes[c.Node]] = c.Path
	}
	var names []string
	var walk func(n *tree.Node)
	walk = func(n *tree.Node) {
		for _, k := range n.Children {
			if n.Type == "protobuf message t.M" && strings.HasPrefix(TreeName(k), "nums") {
				names = append(names, TreeName(k)+" "+cellPath[k])
				for _, e := range k.Children {
					names = append(names, cellPath[e])
				}
			}
			walk(k)
		}
	}
	walk(f.Root)
	const v = "value[0].records[0].value.decoded.nums" // the levels above as value JSON names them too
	require.Equal(t, []string{
		"nums " + v, v + "[0]", v + "[1]", v + "[2]",
		"nums[3] " + v + "[3]",
		"nums " + v, v + "[4]", v + "[5]",
	}, names)
}
