package render

import (
	"bytes"
	"encoding/json"
	"errors"
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
		if isEntry(n) && (n.Type == "Message" || n.Type == "RecordBatch") {
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
