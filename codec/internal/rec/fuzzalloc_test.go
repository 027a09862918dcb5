package rec_test

import (
	"runtime"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/hostile"
)

// hostileRecords is the records fields of the hostile corpus's frames,
// read without decoding them.
func hostileRecords(f *testing.F) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for _, e := range hostile.Frames() {
		b, err := hostile.Load(e)
		if err != nil {
			f.Fatal(err)
		}
		var o codec.Options
		o.RawRecords = true
		fr, err := codec.Decode(b, o)
		if err != nil || fr.Root == nil {
			continue
		}
		tree.Walk(fr.Root, func(n *tree.Node) bool {
			if r := b[n.PrefixEnd:n.End]; n.Kind == schema.Records && !n.Null && len(r) <= 64<<10 && !seen[string(r)] {
				seen[string(r)] = true
				out = append(out, r)
			}
			return true
		})
	}
	return out
}

// FuzzRecordsAlloc decodes any input as a records field and checks its
// allocation stays within hostile.FuzzAllocBound. Seeded with the records fields
// of the hostile corpus.
func FuzzRecordsAlloc(f *testing.F) {
	for _, b := range hostileRecords(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := records.Options{MaxDecompressed: hostile.FuzzMaxDecompressed, MaxNodes: hostile.FuzzMaxNodes, DecodeData: codec.DecodeDataMessage}
		var out []byte
		got := hostile.Allocated(func() {
			var s slab.Slab
			records.Decode(&s, b, opts)
			records.WriteJSON(&out, b, opts, nil)
		})
		runtime.KeepAlive(out)
		bound := hostile.FuzzAllocBound(len(b))
		if got > bound {
			t.Fatalf("decoding %d bytes of records allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		// The tree-less writer, as the codec's fast path calls it.
		opts = records.Options{MaxDecompressed: hostile.FuzzMaxDecompressed, MaxNodes: hostile.FuzzMaxNodes, DecodeData: codec.DecodeDataMessage}
		var js []byte
		got = hostile.Allocated(func() { records.WriteJSON(&js, b, opts, nil) })
		runtime.KeepAlive(js)
		if got > bound {
			t.Fatalf("writing %d bytes of records as JSON allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
	})
}
