package payload

import (
	"encoding/binary"
	"testing"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
)

// mapSource holds schemas in memory, by id and by subject.
type mapSource struct {
	ids  map[int]*Schema
	subs map[string]*Schema
}

func (m mapSource) SchemaByID(id int) (*Schema, error) { return m.ids[id], nil }
func (m mapSource) SchemaFor(topic string, key bool) (*Schema, error) {
	sub := topic + "-value"
	if key {
		sub = topic + "-key"
	}
	return m.subs[sub], nil
}

// framed puts the registry's framing before data.
func framed(id int, data ...[]byte) []byte {
	b := []byte{0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(id))
	for _, d := range data {
		b = append(b, d...)
	}
	return b
}

// result is one payload decoded both ways.
type result struct {
	json     string // the members Decode appended
	nodes    []*tree.Node
	warnings []budget.Warning
	spent    budget.Budget
}

// decodeBoth decodes p with and without a slab and checks that both give
// the same JSON, warnings and budget, and that the nodes tile p.
func decodeBoth(t testing.TB, d *Decoder, p []byte, key bool, topic string, b budget.Budget) result {
	t.Helper()
	var s slab.Slab
	var w1, w2 budget.Warnings
	b1, b2 := b, b
	in := In{B: p, End: len(p), Key: key, Topic: topic, Path: valuePath, Slab: &s, Budget: &b1, Warnings: &w1}
	js1, nodes := d.Decode(nil, &in)
	in2 := In{B: p, End: len(p), Key: key, Topic: topic, Path: valuePath, Budget: &b2, Warnings: &w2}
	js2, nodes2 := d.Decode(nil, &in2)
	if string(js1) != string(js2) {
		t.Fatalf("JSON differs between the paths:\ntree: %s\njson: %s", js1, js2)
	}
	if nodes2 != nil {
		t.Fatalf("the JSON path made nodes")
	}
	// What each path looked up for its frame is its own.
	b1.Payload, b2.Payload = nil, nil
	if b1 != b2 {
		t.Fatalf("budget spent differs: tree %+v, json %+v", b1, b2)
	}
	if len(w1.List) != len(w2.List) {
		t.Fatalf("warnings differ: tree %v, json %v", w1.List, w2.List)
	}
	for i := range w1.List {
		if w1.List[i] != w2.List[i] {
			t.Fatalf("warning %d differs: tree %+v, json %+v", i, w1.List[i], w2.List[i])
		}
	}
	validMembers(t, string(js1))
	checkSpans(t, nodes, 0, len(p))
	return result{json: string(js1), nodes: nodes, warnings: w1.List, spent: b1}
}

// decodeBothCut is decodeBoth under a limit: its members are valid JSON
// all the same, and its nodes tile the payload whatever the limit cut
// (framing that took the last nodes below it leaves its data a raw node
// past it, within the slack).
func decodeBothCut(t testing.TB, d *Decoder, p []byte, key bool, topic string, b budget.Budget) result {
	t.Helper()
	return decodeBoth(t, d, p, key, topic, b)
}

// checkSpans checks the nodes tile [lo, hi): each starts where the one
// before it ended, and the children of each tile it after its prefix
// (every byte of a payload belongs to a node).
func checkSpans(t testing.TB, nodes []*tree.Node, lo, hi int) {
	t.Helper()
	pos := lo
	for i, n := range nodes {
		if n.Start > n.PrefixEnd || n.PrefixEnd > n.End {
			t.Fatalf("node %s (%s): bad span %d/%d/%d", n.Name, n.Type, n.Start, n.PrefixEnd, n.End)
		}
		switch {
		case n.Start == pos:
		case i == 0 && n.Start == lo:
		default:
			t.Fatalf("node %s (%s) [%d,%d) starts at %d, want %d", n.Name, n.Type, n.Start, n.End, n.Start, pos)
		}
		pos = n.End
		if len(n.Children) > 0 {
			checkSpans(t, n.Children, n.PrefixEnd, n.End)
		}
	}
	if len(nodes) > 0 && pos != hi {
		t.Fatalf("nodes end at %d, want %d", pos, hi)
	}
}

func bigBudget() budget.Budget {
	return budget.Budget{MaxNodes: 1 << 20, NestedNodes: 1 << 20, MaxWork: 1 << 30, MaxDecompressed: 1 << 20}
}

// valuePath is In.Path for a value decoded alone.
func valuePath() string { return "value" }

// fuzzLimitBudget is a budget whose nested nodes and work stop at n and w.
func fuzzLimitBudget(n, w int) budget.Budget {
	return budget.Budget{MaxNodes: 1 << 20, NestedNodes: n, MaxWork: w}
}
