//go:build js && wasm

package main

import (
	"bytes"
	"encoding/binary"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// TestRawLineSelectsItsEntry: the line of a batch's "_raw" (a batch with
// warnings: all its bytes, as base64) selects the batch, whose bytes
// those are, not the bytes left undecoded inside it that share the
// member's path; an entry cut short's "_truncated" selects the entry,
// not its first field; bytes that are an entry alone, {"_raw": ...},
// select those bytes.
func TestRawLineSelectsItsEntry(t *testing.T) {
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": []byte("k"), "value": []byte("v0")}}}
	base, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tail := append(bytes.Clone(base), 0xff, 0xff, 0xff) // 3 bytes after the records, inside the batch's length
	binary.BigEndian.PutUint32(tail[8:], binary.BigEndian.Uint32(tail[8:])+3)
	badMagic := make([]byte, 20)
	badMagic[16] = 7
	for _, c := range []struct {
		name   string
		b      []byte
		member string
		want   func(n *tree.Node) bool
		span   [2]int // the node's bytes
	}{
		{"bytes after a batch's records", tail, `"_raw": `, func(n *tree.Node) bool { return n.Type == "RecordBatch" }, [2]int{0, len(tail)}},
		{"an entry cut short", append(bytes.Clone(base), make([]byte, 14)...), `"_truncated": `, func(n *tree.Node) bool { return n.Type == "RecordBatch" }, [2]int{len(base), len(base) + 14}},
		{"an entry that is bytes alone", append(bytes.Clone(base), badMagic...), `"_raw": `, func(n *tree.Node) bool { return n.Role == tree.RoleRaw }, [2]int{len(base), len(base) + 20}},
	} {
		decode(js.Undefined(), []js.Value{bytesValue(c.b), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("no"), js.ValueOf("records")})
		count := jsonCount(js.Undefined(), nil).(int)
		lines := strings.Split(jsonLines(js.Undefined(), []js.Value{js.ValueOf(0), js.ValueOf(count)}).(string), "\n")
		found := 0
		for i, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), c.member) {
				continue
			}
			found++
			id := jsonNodeAt(js.Undefined(), []js.Value{js.ValueOf(i)}).(int)
			n := view0().nodes[id]
			if !c.want(n) || n.Start != c.span[0] || n.End != c.span[1] {
				t.Errorf("%s: the line %q selects %s %s [%d, %d), not the entry's [%d, %d)", c.name, strings.TrimSpace(l)[:20], n.Name, n.Type, n.Start, n.End, c.span[0], c.span[1])
			}
		}
		if found != 1 {
			t.Errorf("%s: %d lines %s", c.name, found, c.member)
		}
	}
}
