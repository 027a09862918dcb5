//go:build js && wasm && kwire_payload

package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// TestPayloadMembersLinkTheirJSONLines: in a record value read as JSON,
// members named as the records reader's nodes (record, batch, header,
// message) or as framing (end, count) light their own lines of the
// value JSON, and a container's framing (its closing bracket) is on the
// container's path and lines, in the page's breadcrumb too.
func TestPayloadMembersLinkTheirJSONLines(t *testing.T) {
	value := []byte(`{"record":{"batch":[1,{"header":2}],"message":"m"},"end":3,"count":[4,{"end":5}],"header":{"end":6,"record":[7]}}`)
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": nil, "value": value}}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	decode(js.Undefined(), []js.Value{bytesValue(b), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("no"), js.ValueOf("records")})
	// The page numbers the nodes in pre-order.
	f, err := codec.Decode(b, codec.Options{Data: "records", NoSizePrefix: true, Payload: dec.Decode})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*tree.Node
	tree.Walk(f.Root, func(n *tree.Node) bool {
		nodes = append(nodes, n)
		return true
	})
	parent := map[*tree.Node]int{}
	for i, n := range nodes {
		for _, k := range n.Children {
			parent[k] = i
		}
	}
	size := func(n *tree.Node) (k int) {
		tree.Walk(n, func(*tree.Node) bool { k++; return true })
		return k
	}
	call := func(fn func(js.Value, []js.Value) any, args ...any) string {
		var vs []js.Value
		for _, a := range args {
			vs = append(vs, js.ValueOf(a))
		}
		switch r := fn(js.Undefined(), vs).(type) {
		case string:
			return r
		case int:
			return strconv.Itoa(r)
		default:
			t.Fatalf("%T", r)
		}
		return ""
	}
	firstLine := func(id int) string {
		var sp [2]int
		if err := json.Unmarshal([]byte(call(jsonSpanOf, id)), &sp); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(strings.TrimSpace(call(jsonLines, sp[0], 1)), ",")
	}
	data := -1
	members := 0
	for i, n := range nodes {
		if n.Name == "json" && n.Type == "json object" {
			data = i
		}
		if data < 0 || i <= data {
			continue
		}
		if i >= data+size(nodes[data]) {
			break
		}
		p := nodes[parent[n]]
		if n.Role == tree.RoleFraming {
			if got, want := call(jsonSpanOf, i), call(jsonSpanOf, parent[n]); got != want {
				t.Errorf("framing %q of %q lights lines %s, its container %s", n.Type, call(nodePath, parent[n]), got, want)
			}
			if got, want := call(nodePath, i), call(nodePath, parent[n]); got != want {
				t.Errorf("framing %q: breadcrumb %q, its container's %q", n.Type, got, want)
			}
			continue
		}
		// The line a node's lines start on: its member's key, then a
		// scalar's value as its bytes hold it, or a container's opening.
		want := strings.TrimSpace(string(f.Buffers[n.Buf][n.DataStart():n.End]))
		switch n.Type {
		case "json object":
			want = "{"
		case "json array":
			want = "["
		}
		if n.Role != tree.RoleElement {
			want = strconv.Quote(n.Name) + ": " + want
		}
		if got := firstLine(i); got != want {
			t.Errorf("%s (%s, in %s): lights a line %q, not %q", call(nodePath, i), n.Type, p.Name, got, want)
		}
		members++
	}
	if data < 0 || members < 15 {
		t.Fatalf("the value's JSON nodes: %d after node %d", members, data)
	}
}
