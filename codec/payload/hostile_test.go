package payload

import (
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/internal/hostile"
)

// TestHostilePayloads reads the hostile corpus's payload values with their
// schemas under the CLI's default budget for their frames: each that must
// stop at a limit says which, on both paths alike; none costs more nodes
// or work than the budget holds.
func TestHostilePayloads(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{}}
	for name, text := range hostile.PayloadSchemas() {
		id := int(name[0] - '0')
		typ := TypeAvro
		if strings.HasSuffix(name, ".proto") {
			typ = TypeProtobuf
		}
		src.ids[id] = &Schema{Type: typ, Text: text}
	}
	d := NewDecoder(src, Config{})
	for _, e := range hostile.Payloads() {
		t.Run(e.Name, func(t *testing.T) {
			n := len(e.Value)
			b := budget.Budget{MaxNodes: 1<<19 + n/8, NestedNodes: 1<<19 + n/8 - 64, MaxWork: 256<<20 + 4*n}
			r := decodeBoth(t, d, e.Value, false, "t", b)
			if r.spent.Nodes > b.MaxNodes || r.spent.Work > b.MaxWork {
				t.Fatalf("spent %d nodes, %d work", r.spent.Nodes, r.spent.Work)
			}
			switch {
			case e.Limit == "" && len(r.warnings) > 0:
				t.Fatalf("warnings: %v", r.warnings)
			case e.Limit != "" && (len(r.warnings) != 1 || !r.warnings[0].Limit || !strings.Contains(r.warnings[0].Message, e.Limit)):
				t.Fatalf("warnings %v, want one saying %s", r.warnings, e.Limit)
			}
		})
	}
}
