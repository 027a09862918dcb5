package codec_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/internal/hostile"
)

// Regressions the hostile corpus found, each named.

// TestFastPathKRaftValue: the tree-less path decoding a KRaft control
// value (as a small tree of its own) panicked on a nil JSON writer: the
// tree-less sink was left in place while the value was built as a tree.
// The corpus's KRaft entries found it; both paths must give the same JSON
// and warnings.
func TestFastPathKRaftValue(t *testing.T) {
	for _, name := range []string{"kraft-voters-count-max.bin", "kraft-tag-flood-in-budget.bin"} {
		e, err := hostile.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := hostile.Load(e)
		if err != nil {
			t.Fatal(err)
		}
		f, ferr := codec.Decode(b, codec.Options{})
		want := f.AppendJSON(nil)
		got, info, err := new(codec.Decoder).AppendJSON(nil, b, codec.Options{})
		if (err == nil) != (ferr == nil) || string(got) != string(want) || len(info.Warnings) != len(f.Warnings) {
			t.Errorf("%s: the paths differ: %v / %v, %d / %d bytes, %d / %d warnings", name, err, ferr, len(got), len(want), len(info.Warnings), len(f.Warnings))
		}
	}
}

// unknownTags is an ApiVersions v3 request whose body ends with n
// unknown tagged fields (tags 0..n-1, empty): a warning each.
func unknownTags(n int) []byte {
	b := []byte{0, 0, 0, 0, 0, 18, 0, 3, 0, 0, 0, 1, 0xff, 0xff, 0}
	b = append(b, 6, 'k', 'w', 'i', 'r', 'e', 2, '1')
	b = binary.AppendUvarint(b, uint64(n))
	for i := 0; i < n; i++ {
		b = binary.AppendUvarint(b, uint64(i))
		b = append(b, 0)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// TestWarningsAreCharged: a warning costs about two nodes' memory, and is
// charged so (budget.WarningNodes): a flood of them stops at MaxNodes, on
// both paths alike, where before it grew without bound (the corpus's
// KRaft tag flood took 520 MiB).
func TestWarningsAreCharged(t *testing.T) {
	const n = 5000
	b := unknownTags(n)
	_, info, err := new(codec.Decoder).AppendJSON(nil, b, codec.Options{})
	if err != nil || len(info.Warnings) != n {
		t.Fatalf("%v, %d warnings", err, len(info.Warnings))
	}
	if info.Spent.MaxNodes < n+budget.WarningNodes*n {
		t.Errorf("%d nodes spent for %d tags and as many warnings; want at least %d", info.Spent.MaxNodes, n, n+budget.WarningNodes*n)
	}
	// Room for every tag's node but not for its warning too.
	lim := codec.Options{Limits: codec.Limits{MaxNodes: 2 * n}}
	_, ferr := codec.Decode(b, lim)
	_, _, err = new(codec.Decoder).AppendJSON(nil, b, lim)
	for _, err := range []error{ferr, err} {
		var de *codec.DecodeError
		if !errors.As(err, &de) || !strings.Contains(de.Error(), "MaxNodes") {
			t.Errorf("%d nodes for %d tags and warnings: %v; want the MaxNodes limit", 2*n, n, err)
		}
	}
}
