//go:build js && wasm

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// crumbFrame is a frame the breadcrumb test decodes as the page does.
type crumbFrame struct {
	name     string
	b        []byte
	response bool
	api, ver int
	data     string // codec.Options.Data: "records" for a segment's bytes
}

// checkBreadcrumbs decodes c in the current slot and reads the breadcrumb
// of every node (nodePath) back as a value-JSON path ("body › topics[0] ›
// name" is "body.topics[0].name"). From the frame's root, codec's Lookup
// must find the node by it; or the node is one value JSON has no member
// for (a container's framing, a tagged-field section, a batch's
// decompressed bytes), and Lookup finds what holds it, whose breadcrumb
// it shares; or the path ends in a member value JSON has and Lookup has
// no name for: "_raw" (bytes left undecoded, shown in their entry's
// "_raw"), "_truncated" (an entry cut short), a control record's
// "control" members, and Lookup finds the entry (or, for bytes that are
// an entry alone, the bytes) by the rest. Each warning the frame carries
// is on a node whose breadcrumb is the warning's path. It returns how
// many nodes Lookup found exactly.
func checkBreadcrumbs(t *testing.T, c crumbFrame) (exact int) {
	t.Helper()
	size := "auto"
	if c.data != "" {
		size = "no"
	}
	decode(js.Undefined(), []js.Value{bytesValue(c.b), js.ValueOf(c.response), js.ValueOf(c.api), js.ValueOf(c.ver), js.ValueOf(size), js.ValueOf(c.data)})
	v := view0()
	if v.err != nil {
		t.Fatalf("%s: %v", c.name, v.err)
	}
	crumb := make([]string, len(v.nodes))
	for i := range v.nodes {
		crumb[i] = nodePath(js.Undefined(), []js.Value{js.ValueOf(i)}).(string)
	}
	// ancestorOrSelf reports whether a is id or above it.
	ancestorOrSelf := func(a *tree.Node, id int32) bool {
		for ; id >= 0; id = v.parent[id] {
			if v.nodes[id] == a {
				return true
			}
		}
		return false
	}
	for i, n := range v.nodes {
		if i == 0 {
			if crumb[0] != "" {
				t.Errorf("%s: the root's breadcrumb %q", c.name, crumb[0])
			}
			continue
		}
		if crumb[i] == "" {
			t.Errorf("%s: node %d (%s %s, %s) has no breadcrumb", c.name, i, n.Name, n.Type, v.oldCrumb(int32(i)))
			continue
		}
		path := strings.ReplaceAll(strings.ReplaceAll(crumb[i], " › [", "["), " › ", ".")
		got, err := v.f.Root.Lookup(path)
		switch {
		case err == nil && got == n:
			exact++
		case protoMapPart(v, int32(i)) >= 0:
			// A Protobuf map's entry, its key and its value: value JSON
			// shows the entry as the member of its key ("counts.x"). A
			// Lookup that names a map's value by its key finds the
			// entry's value; one that names no key finds the map by the
			// rest of the path.
			e := protoMapPart(v, int32(i))
			if err == nil {
				if id := v.id(got); id != e && (id < 0 || v.parent[id] != e) {
					t.Errorf("%s: %q (%s %s) leads to %s %s, out of its map entry", c.name, crumb[i], n.Name, n.Type, got.Name, got.Type)
				}
				break
			}
			m, err := v.f.Root.Lookup(path[:strings.LastIndex(path, ".")])
			if err != nil || !strings.HasPrefix(m.Type, "protobuf map<") {
				t.Errorf("%s: %q (%s %s) is in no map: %v", c.name, crumb[i], n.Name, n.Type, err)
			}
		case err == nil && ancestorOrSelf(got, int32(i)):
			// n shares the breadcrumb of what holds it: every node from
			// there down to n has no member of its own.
			for id := int32(i); v.nodes[id] != got; id = v.parent[id] {
				if crumb[id] != crumb[i] || !v.noMember(id) {
					t.Errorf("%s: %q (%s %s) leads to %s %s, above it", c.name, crumb[i], n.Name, n.Type, got.Name, got.Type)
					break
				}
			}
		case err == nil && ancestorOrSelf(n, v.id(got)):
			// n holds a node of its breadcrumb that has no member of its
			// own (a wrapper message's value, which value JSON shows as
			// its "messages", and the decompressed messages in it).
			for id := v.id(got); v.nodes[id] != n; id = v.parent[id] {
				if crumb[id] != crumb[i] || !v.noMember(id) {
					t.Errorf("%s: %q (%s %s) leads to %s %s, below it", c.name, crumb[i], n.Name, n.Type, got.Name, got.Type)
					break
				}
			}
		case err == nil && got.Name == n.Name && v.parent[i] >= 0 && slices.Contains(v.nodes[v.parent[i]].Children, got) && strings.HasPrefix(n.Type, "protobuf "):
			// Another occurrence of the same Protobuf repeated field (a
			// packed run, here): value JSON shows one array over all of
			// them, Lookup's name the first.
		default:
			cut := -1
			for _, m := range []string{"._raw", "._truncated", ".control."} {
				if k := strings.LastIndex(path, m); k > cut {
					cut = k
				}
			}
			var entry *tree.Node
			if cut > 0 {
				entry, err = v.f.Root.Lookup(path[:cut])
			}
			if cut < 0 || err != nil || !ancestorOrSelf(entry, int32(i)) {
				t.Errorf("%s: %q (%s %s) does not lead to it: %v", c.name, crumb[i], n.Name, n.Type, err)
			}
		}
	}
	// The grid's cells, as gridRows hands them to the page for their
	// tooltips, name their nodes by the same path.
	for buf, g := range v.grids {
		var rows []struct {
			Cell *struct {
				Node        int
				Path, Label string
			}
			Segs []struct {
				Cell struct {
					Node        int
					Path, Label string
				}
			}
		}
		rowsJSON := gridRows(js.Undefined(), []js.Value{js.ValueOf(buf), js.ValueOf(0), js.ValueOf(len(g.rows))}).(string)
		if err := json.Unmarshal([]byte(rowsJSON), &rows); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, r := range rows {
			cells := []struct {
				Node        int
				Path, Label string
			}{}
			if r.Cell != nil {
				cells = append(cells, *r.Cell)
			}
			for _, s := range r.Segs {
				cells = append(cells, s.Cell)
			}
			for _, cell := range cells {
				if want := strings.ReplaceAll(strings.ReplaceAll(crumb[cell.Node], " › [", "["), " › ", "."); cell.Path != want {
					t.Errorf("%s: buffer %d: the cell %q of node %d has path %q, its breadcrumb %q", c.name, buf, cell.Label, cell.Node, cell.Path, want)
				}
			}
		}
	}
	// The warnings' paths: each on a node of that breadcrumb.
	for _, w := range v.f.Warnings {
		found := false
		for i, n := range v.nodes {
			if slices.Contains(n.Warnings, w.Message) && strings.ReplaceAll(strings.ReplaceAll(crumb[i], " › [", "["), " › ", ".") == w.Path {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: no node of breadcrumb %q carries the warning %q", c.name, w.Path, w.Message)
		}
	}
	return exact
}

// noMember reports whether value JSON shows node id on no member of its
// own: a container's framing, a tagged-field section (its fields are the
// struct's), the decompressed bytes of a batch or wrapper message (its
// records are the batch's "records"), bytes left undecoded in a key or
// value (its "base64" or "text" holds them), an Avro map entry's key and
// value (the entry is the member of its key).
func (v *view) noMember(id int32) bool {
	n := v.nodes[id]
	switch {
	case n.Role == tree.RoleFraming, n.Role == tree.RoleTags, n.Role == tree.RoleRaw:
		return true
	case n.Role == tree.RoleRecord && n.Name == "inflated" && strings.HasSuffix(n.Type, " inflated"):
		return true
	}
	return v.parent[id] >= 0 && v.nodes[v.parent[id]].Type == "avro map entry"
}

// protoMapPart is the number of the Protobuf map entry node id is, or
// whose key or value it is; -1 when none.
func protoMapPart(v *view, id int32) int32 {
	for k := 0; k < 2 && id >= 0; k, id = k+1, v.parent[id] {
		if strings.HasPrefix(v.nodes[id].Type, "protobuf map<") {
			return id
		}
	}
	return -1
}

// id is the number of node n.
func (v *view) id(n *tree.Node) int32 { return int32(slices.Index(v.nodes, n)) }

// oldCrumb is the node's chain of tree names, for messages.
func (v *view) oldCrumb(id int32) string {
	var s []string
	for ; id > 0; id = v.parent[id] {
		s = append([]string{v.nodes[id].Name}, s...)
	}
	return strings.Join(s, "/")
}

// exampleFrames are the page's examples with records (examples.json).
func exampleFrames(t *testing.T) []crumbFrame {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "site", "playground", "static", "examples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex []struct {
		ID, Hex, Dir string
		API, V       int
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	var out []crumbFrame
	for _, e := range ex {
		if e.ID != "produce" && e.ID != "fetch-gzip" {
			continue
		}
		raw, err := hex.DecodeString(e.Hex)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, crumbFrame{name: e.ID, b: raw, response: e.Dir == "response", api: e.API, ver: e.V})
	}
	if len(out) != 2 {
		t.Fatalf("examples with records: %d", len(out))
	}
	return out
}

// TestBreadcrumbIsTheNodesPath: the breadcrumb of every node of the
// example frames with records, of Kafka's storage files (the segments of
// every internal topic, read as the records they hold and carried in a
// Produce request, whose records decode through the topic's schemas),
// and of records with bytes left undecoded, a legacy wrapper message and
// an entry cut short, is the node's value-JSON path: Lookup finds the
// node by it (see checkBreadcrumbs), and the warnings name their nodes
// by it.
func TestBreadcrumbIsTheNodesPath(t *testing.T) {
	frames := exampleFrames(t)
	for _, topic := range []string{"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata", "__remote_log_metadata", "orders"} {
		part := map[bool]string{true: "7", false: "0"}[topic == "__consumer_offsets"]
		log, err := os.ReadFile(filepath.Join("..", "testdata", "storage", "logdir", topic+"-"+part, "00000000000000000000.log"))
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, crumbFrame{name: topic + " segment", b: log, data: "records"})
		js := `{"direction":"request","apiKey":0,"apiVersion":9,"header":{"correlationId":1,"clientId":"t"},` +
			`"body":{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"` + topic +
			`","partitionData":[{"index":0,"records":"` + base64.StdEncoding.EncodeToString(log) + `"}]}]}}`
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, crumbFrame{name: topic + " produce", b: b})
	}
	// A batch of two records (the first with a header) and bytes after
	// its records; a gzip wrapper message; an entry cut short.
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{
			{"key": []byte("k"), "value": []byte("v0"), "headers": []map[string]any{{"key": "h", "value": []byte("hv")}}},
			{"key": nil, "value": []byte("v1")},
		}}
	base, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tail := append(bytes.Clone(base), 0xff, 0xff, 0xff)
	binary.BigEndian.PutUint32(tail[8:], binary.BigEndian.Uint32(tail[8:])+3)
	msg := func(off int, v string) map[string]any {
		return map[string]any{"offset": off, "magic": 1, "timestamp": 0, "key": nil, "value": []byte(v)}
	}
	legacy, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{msg(0, "m0"), msg(1, "m1")}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(legacy)
	zw.Close()
	wrapped := []byte{0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff} // crc, magic 1, gzip, timestamp, null key
	wrapped = append(binary.BigEndian.AppendUint32(wrapped, uint32(gz.Len())), gz.Bytes()...)
	wrapper := append(binary.BigEndian.AppendUint32([]byte{0, 0, 0, 0, 0, 0, 0, 1}, uint32(len(wrapped))), wrapped...)
	frames = append(frames,
		crumbFrame{name: "bytes after a batch's records", b: tail, data: "records"},
		crumbFrame{name: "a gzip wrapper message", b: append(bytes.Clone(wrapper), base...), data: "records"},
		crumbFrame{name: "an entry cut short", b: append(bytes.Clone(base), make([]byte, 14)...), data: "records"},
	)
	for _, c := range frames {
		if exact := checkBreadcrumbs(t, c); exact < 20 {
			t.Errorf("%s: %d nodes found by their breadcrumb", c.name, exact)
		}
	}
	// The breadcrumb of the produce example's second record's key, as
	// the selection bar shows it.
	checkBreadcrumbs(t, frames[0])
	key, err := view0().f.Root.Lookup("body.topicData[0].partitionData[0].records[0].records[1].key")
	if err != nil {
		t.Fatal(err)
	}
	id := slices.Index(view0().nodes, key)
	if got, want := nodePath(js.Undefined(), []js.Value{js.ValueOf(id)}), "body › topicData[0] › partitionData[0] › records[0] › records[1] › key"; got != want {
		t.Errorf("the second record's key: %q, not %q", got, want)
	}
}
