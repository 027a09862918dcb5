package codec_test

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/hostile"
)

// Regressions the hostile corpus found, each named.

// TestFastPathKRaftValue: the tree-less path decoding a KRaft control
// value (as a small tree of its own) panicked on a nil JSON writer: the
// tree-less sink was left in place while the value was built as a tree.
// The corpus's KRaft entries found it; both paths must give the same JSON
// and warnings.
func TestFastPathKRaftValue(t *testing.T) {
	for _, name := range []string{"kraft-voters-count-max.bin"} {
		e, err := hostile.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := hostile.Load(e)
		if err != nil {
			t.Fatal(err)
		}
		f, ferr := codec.Decode(b, codec.Options{})
		want := f.AppendJSON(nil, codec.JSONOptions{})
		got, info, err := new(codec.Decoder).AppendJSON(nil, b, codec.Options{}, codec.JSONOptions{})
		if (err == nil) != (ferr == nil) || string(got) != string(want) || len(info.Warnings) != len(f.Warnings()) {
			t.Errorf("%s: the paths differ: %v / %v, %d / %d bytes, %d / %d warnings", name, err, ferr, len(got), len(want), len(info.Warnings), len(f.Warnings()))
		}
	}
}
