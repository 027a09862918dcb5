package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// cellPathFrames are frames whose grids name nodes of every kind: every
// API's example request and response at its newest version (records in
// Produce and Fetch, tag sections of flexible versions), a frame with an
// unknown tagged field, batches of every codec and legacy wrapper
// messages (derived buffers), bytes left undecoded in a batch, a legacy
// message and a wrapper, an entry cut short, the segments of Kafka's
// internal topics, and a Protobuf value with repeated and map fields.
func cellPathFrames(t *testing.T) map[string]*codec.Frame {
	t.Helper()
	out := map[string]*codec.Frame{}
	decode := func(name string, b []byte, o codec.Options) {
		f, err := codec.Decode(b, o)
		require.NotNil(t, f, "%s: %v", name, err)
		out[name] = f
	}
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			v := api.Request.Valid.Hi
			b, err := codec.ExampleFrame(api, v, resp)
			if err != nil {
				continue
			}
			decode(api.Name+map[bool]string{false: " request", true: " response"}[resp], b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
		}
	}
	// ApiVersions v3 request with an unknown tagged field in its body.
	av, err := codec.Encode(nil, []byte(`{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":1,"clientId":"t"},`+
		`"body":{"clientSoftwareName":"k","clientSoftwareVersion":"1","_unknownTaggedFields":[{"tag":7,"data":"AQI="}]}}`), codec.EncodeOptions{})
	require.NoError(t, err)
	decode("unknown tagged field", av, codec.Options{})

	recs := []map[string]any{
		{"key": []byte("k1"), "value": []byte("v1"), "headers": []map[string]any{{"key": "h", "value": []byte{0xca, 0xfe}}}},
		{"timestampDelta": 5, "key": nil, "value": []byte("v2")},
	}
	var entries []any
	for _, c := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		entries = append(entries, map[string]any{
			"baseOffset": 10, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": c},
			"baseTimestamp": 1700000000000, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs})
	}
	for _, magic := range []int{0, 1} {
		for _, c := range []string{"none", "gzip", "snappy", "lz4"} {
			m := map[string]any{"offset": 7, "magic": magic, "key": nil, "value": []byte("x")}
			if c != "none" {
				m = map[string]any{"offset": 7, "magic": magic, "key": nil, "attributes": map[string]any{"compression": c},
					"messages": []map[string]any{
						{"offset": 6, "magic": magic, "key": []byte("a"), "value": []byte("x")},
						{"offset": 7, "magic": magic, "key": nil, "value": nil},
					}}
			}
			if magic == 1 {
				m["timestamp"] = 1700000000000
				if ms, ok := m["messages"].([]map[string]any); ok {
					for i, x := range ms {
						x["offset"], x["timestamp"] = i, 1700000000001+i
					}
				}
			}
			entries = append(entries, m)
		}
	}
	compressed, err := codec.Encode(nil, map[string]any{"data": "records", "value": entries}, codec.EncodeOptions{})
	require.NoError(t, err)
	decode("compressed batches and wrapper messages", fetchOf("orders", compressed), codec.Options{Response: true, APIKey: 1, Version: 12})

	// Bytes left undecoded: after a batch, in a legacy message, after a
	// gzip wrapper's messages; an entry cut short.
	base := rawBatch(t)
	badMagic := make([]byte, 20)
	badMagic[16] = 7
	records := codec.Options{Data: "records"}
	decode("an entry that is bytes alone", append(bytes.Clone(base), badMagic...), records)
	decode("an entry cut short", append(bytes.Clone(base), make([]byte, 14)...), records)
	legacy, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{
		map[string]any{"offset": 0, "magic": 1, "timestamp": 0, "key": nil, "value": []byte("m0")}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	legacy[bytes.Index(legacy, []byte{0, 0, 0, 2, 'm', '0'})+3] = 9 // the value's length: 9, of 2 bytes
	decode("a legacy message cut short", legacy, records)

	for _, topic := range []string{"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata", "__remote_log_metadata"} {
		decode(topic, internalTopicProduce(t, topic), codec.Options{})
	}
	pb := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{})
	decode("protobuf", withValues(t, protoPathsValue(), []byte("v1")), codec.Options{Data: "records", Payload: pb.Decode})
	return out
}

// TestCellPathsAreNodePaths: every cell of the grid (the docs site's
// tooltips, kwire decode's grid, the playground's rows) names its node
// by the value-JSON path NodePaths gives it, the path value JSON,
// warnings, errors, codec's Lookup and the playground's breadcrumb name
// it by: "body.topicData[0].partitionData[0].records[0].baseOffset", not
// the tree's "...records.batch.baseOffset". Lookup finds the node by
// it, or what holds it when the node has no member of its own (framing,
// a tag section, a batch's decompressed bytes); a "_raw", "_truncated"
// or "control" member is its entry's, and "_unknownTaggedFields" its
// struct's, which Lookup finds by the rest (it has no name for them).
func TestCellPathsAreNodePaths(t *testing.T) {
	seen := map[string]int{}
	for name, f := range cellPathFrames(t) {
		var ps Paths
		paths := NodePaths(f.Root, &ps)
		var nodes []*tree.Node
		parent := map[*tree.Node]*tree.Node{}
		tree.Walk(f.Root, func(n *tree.Node) bool {
			nodes = append(nodes, n)
			for _, k := range n.Children {
				parent[k] = n
			}
			return true
		})
		require.Len(t, paths, len(nodes), name)
		// under reports whether n is a or below it.
		under := func(n, a *tree.Node) bool {
			for ; n != nil; n = parent[n] {
				if n == a {
					return true
				}
			}
			return false
		}
		// samePath reports whether every node from n up to (not
		// including) a has path p.
		samePath := func(n, a *tree.Node, p string) bool {
			for ; n != nil && n != a; n = parent[n] {
				if ps.String(paths[index(nodes, n)]) != p {
					return false
				}
			}
			return n == a
		}
		for buf := range f.Buffers {
			for _, c := range Cells(f, buf) {
				n := nodes[c.Node]
				want := ps.String(paths[c.Node])
				if c.Path != want {
					t.Errorf("%s: buffer %d [%d, %d) %s %q: path %q, its node's is %q", name, buf, c.Start, c.End, c.Kind, c.Label, c.Path, want)
					continue
				}
				seen["cells"]++
				if buf > 0 {
					seen["derived"]++
				}
				for _, k := range []string{"].records[", "._raw", "._truncated", ".control.", ".decoded", "._unknownTaggedFields", ".messages["} {
					if strings.Contains(c.Path, k) {
						seen[k]++
					}
				}
				if c.Kind == KindTag {
					seen["tag"]++
				}
				if c.Path == "" {
					require.True(t, samePath(n, f.Root, "") || n == f.Root, "%s: %s %q has no path below the root", name, c.Kind, c.Label)
					continue
				}
				got, err := f.Root.Lookup(c.Path)
				switch {
				case err == nil && got == n:
				case err == nil && under(n, got) && samePath(n, got, c.Path):
					// n has no member of its own: what holds it does.
				case err == nil && under(got, n) && samePath(got, n, c.Path):
					// A wrapper message's value, whose decompressed
					// messages value JSON lists as its "messages".
				case protoMapOf(n, parent) != nil:
					// A Protobuf map's entry is the member of its key in
					// the map's object, which Lookup finds as the entry:
					// what is in the entry is on the entry's path.
					e := paths[index(nodes, protoMapOf(n, parent))]
					require.True(t, strings.HasPrefix(c.Path, ps.String(e)), "%s: %q is not in its map entry's %q", name, c.Path, ps.String(e))
					m, err := f.Root.Lookup(ps.String(ps.Parent(e)))
					require.NoError(t, err, "%s: %q", name, c.Path)
					require.True(t, protoMapEntry(m), "%s: %q (%s) is in no map: %s", name, c.Path, n.Type, m.Type)
				case err == nil && got.Name == n.Name && parent[got] == parent[n] && strings.HasPrefix(n.Type, "protobuf "):
					// Another occurrence of a Protobuf repeated field.
				default:
					cut := -1
					for _, m := range []string{"._raw", "._truncated", ".control.", "._unknownTaggedFields"} {
						cut = max(cut, strings.LastIndex(c.Path, m))
					}
					require.Positive(t, cut, "%s: %q (%s %s) does not lead to its node: %v", name, c.Path, n.Name, n.Type, err)
					entry, err := f.Root.Lookup(c.Path[:cut])
					require.NoError(t, err, "%s: %q", name, c.Path)
					require.True(t, under(n, entry), "%s: %q (%s %s) is not in %s %s", name, c.Path, n.Name, n.Type, entry.Name, entry.Type)
				}
			}
		}
	}
	for _, k := range []string{"cells", "derived", "].records[", "._raw", "._truncated", ".control.", ".decoded", "._unknownTaggedFields", ".messages[", "tag"} {
		require.Positive(t, seen[k], "no cell of %q", k)
	}
}

func index(nodes []*tree.Node, n *tree.Node) int {
	for i, m := range nodes {
		if m == n {
			return i
		}
	}
	panic("no such node")
}

// protoMapOf is the Protobuf map entry n is or is in, or nil.
func protoMapOf(n *tree.Node, parent map[*tree.Node]*tree.Node) *tree.Node {
	for ; n != nil; n = parent[n] {
		if protoMapEntry(n) {
			return n
		}
	}
	return nil
}
