package payload

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// framingPaths checks, over the nodes of one decoded payload, that every
// framing node (a closing bracket, an Avro block count) is on its
// container's path, as the playground's highlighting numbers paths
// (render.NodePaths), and that no other node shares a framing node's
// path: a member named "end" or "count" keeps its own.
func framingPaths(t *testing.T, nodes []*tree.Node) (framing int) {
	t.Helper()
	root := &tree.Node{Name: "value", Role: tree.RoleRecord, Index: -1, Children: nodes}
	var ps render.Paths
	paths := render.NodePaths(root, &ps)
	var order []*tree.Node
	parent := map[*tree.Node]*tree.Node{}
	tree.Walk(root, func(n *tree.Node) bool {
		order = append(order, n)
		for _, c := range n.Children {
			parent[c] = n
		}
		return true
	})
	require.Len(t, paths, len(order))
	pathOf := map[*tree.Node]int32{}
	for i, n := range order {
		pathOf[n] = paths[i]
	}
	framingAt := map[int32]*tree.Node{} // a framing node's path -> its container
	for _, n := range order {
		if n.Role == tree.RoleFraming {
			framing++
			require.Equal(t, ps.String(pathOf[parent[n]]), ps.String(pathOf[n]), "framing node %q (%s) is on its container's path", n.Name, n.Type)
			framingAt[pathOf[n]] = parent[n]
		}
	}
	for _, n := range order {
		if c := framingAt[pathOf[n]]; n.Role != tree.RoleFraming && c != nil && c != n {
			require.Fail(t, "a path shared", "member %q (%s) shares its path %q with a framing node", n.Name, n.Type, ps.String(pathOf[n]))
		}
	}
	return framing
}

// A JSON object's member named "end" is found, valued and highlighted as
// itself, not as the closing bracket after it (before, the bracket was a
// node named "end" on the member's path: Value gave the member's value
// as the bracket's empty object, Lookup found a bracket where no member
// "end" was, and the playground lit the member's lines for it).
func TestFramingJSONMemberNamedEnd(t *testing.T) {
	d := NewDecoder(nil, Config{})
	p := []byte(`{"a": [1, 2], "end": {"count": 1, "end": [3]} }`)
	r := decodeBoth(t, d, p, false, "t", bigBudget())
	require.Equal(t, `,"format":"json","decoded":{"a":[1,2],"end":{"count":1,"end":[3]}}`, r.json)
	require.Len(t, r.nodes, 1)
	js := r.nodes[0]
	require.Equal(t, 4, framingPaths(t, r.nodes), "a closing bracket for each of the four containers")
	require.Equal(t, map[string]any{"a": []any{int64(1), int64(2)}, "end": map[string]any{"count": int64(1), "end": []any{int64(3)}}}, js.Value())
	n, err := js.Lookup("end.end")
	require.NoError(t, err)
	require.Equal(t, "json array", n.Type)
	_, err = js.Lookup("a.end")
	require.ErrorContains(t, err, `no "end"`, "an array has no member end: its closing bracket is none")
	_, err = js.Lookup("end.count.end")
	require.Error(t, err)

	// A limit that stops the walk at a closing bracket says so on the
	// container's path, the framing node's, in both sinks (decodeBoth).
	b := bigBudget()
	b.NestedNodes = 3 // the object, its member x and x's member "end": x's bracket is cut
	r = decodeBoth(t, d, []byte(`{"x":{"end":1}}`), false, "t", b)
	require.Len(t, r.warnings, 1)
	require.Equal(t, "value.decoded.x", r.warnings[0].Path)
	require.True(t, r.warnings[0].Limit)
}

// An Avro record whose field is named "end", a map with keys "end" and
// "count" written in two blocks: the block count between them and the
// closing zero count are framing nodes on the map's path, and Lookup
// finds the entries.
func TestFramingAvroFieldNamedEnd(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{7: {Text: `{"type":"record","name":"R","fields":[
	 {"name":"end","type":{"type":"map","values":"int"}},
	 {"name":"list","type":{"type":"array","items":"int"}}]}`}}}
	d := NewDecoder(src, Config{})
	data := []byte{
		2, 6, 'e', 'n', 'd', 10, // a block of one entry: "end": 5
		2, 10, 'c', 'o', 'u', 'n', 't', 14, // another: "count": 7
		0,        // the map's end
		2, 18, 0, // list: [9]
	}
	r := decodeBoth(t, d, framed(7, data), false, "t", bigBudget())
	require.True(t, strings.HasSuffix(r.json, `"decoded":{"end":{"end":5,"count":7},"list":[9]}`), r.json)
	require.Equal(t, 3, framingPaths(t, r.nodes), "the map's second block count and zero count, the list's zero count")
	avro := r.nodes[len(r.nodes)-1]
	require.Equal(t, "avro", avro.Name)
	for key, want := range map[string]int64{"end": 5, "count": 7} {
		n, err := avro.Lookup("end." + key + ".value")
		require.NoError(t, err, key)
		require.Equal(t, want, n.Int, key)
	}
	_, err := avro.Lookup("list.end")
	require.Error(t, err, "an array's closing count is no member")
}
