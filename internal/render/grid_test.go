package render

import (
	"encoding/hex"
	"testing"

	"github.com/kwire/kwire/codec"
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

// A value decoding failed in is shown as not read, in the grid and the
// tree alike, not as the zero its node holds: a string whose length is
// -8531 read as "" (user probe), as if the frame held an empty one.
func TestBrokenValueNotRead(t *testing.T) {
	b, err := hex.DecodeString("00000010deadbeefdeadbeefdeadbeefdeadbeef")
	if err != nil {
		t.Fatal(err)
	}
	f, err := codec.Decode(b, codec.Options{})
	if err == nil {
		t.Fatal("decoded")
	}
	n, _ := f.Root.Lookup("header.clientId")
	if n == nil || n.Flags&tree.Broken == 0 {
		t.Fatalf("header.clientId: %v", n)
	}
	if got := ShortValue(n, f.APIKey); got != "(not read)" {
		t.Errorf("broken clientId shows %q", got)
	}
	ok, _ := f.Root.Lookup("header.correlationId")
	if got := ShortValue(ok, f.APIKey); got != "-559038737" {
		t.Errorf("correlationId, read before the failure, shows %q", got)
	}
	for _, c := range Cells(f, 0) {
		if c.Path == "header.clientId" && c.Kind == KindValue && c.Value != "(not read)" {
			t.Errorf("clientId's grid cell shows %q", c.Value)
		}
	}
}
