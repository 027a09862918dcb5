package render

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// A record attribute's coded bits are shown with their names, as the value
// JSON writes them (issue 24: "compression = 0" meant nothing to a reader).
func TestValueNameCodedAttributes(t *testing.T) {
	for _, c := range []struct {
		n    tree.Node
		want string
	}{
		{tree.Node{Name: "compression", Type: "bits 0-2", Kind: schema.Int16, Int: 0}, "0 none"},
		{tree.Node{Name: "compression", Type: "bits 0-2", Kind: schema.Int16, Int: 4}, "4 zstd"},
		{tree.Node{Name: "compression", Type: "bits 0-2", Kind: schema.Int16, Int: 6}, "6"},
		{tree.Node{Name: "timestampType", Type: "bit 3", Kind: schema.Int16, Int: 1}, "1 LogAppendTime"},
		{tree.Node{Name: "timestampType", Type: "bit 3", Kind: schema.Int16, Int: 0}, "0 CreateTime"},
		{tree.Node{Name: "compression", Type: "int8", Kind: schema.Int8, Int: 1}, "1"}, // not a bit field
	} {
		if got := ShortValue(&c.n, 0); got != c.want {
			t.Errorf("%s %s = %d: %q, want %q", c.n.Name, c.n.Type, c.n.Int, got, c.want)
		}
	}
}
