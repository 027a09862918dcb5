package records_test

import (
	"runtime"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/hostile"
)

// Allocation bounds for fuzzing records: with small limits, decoding a
// records field and writing its JSON may allocate a small multiple of the
// input plus what the limits allow (issue 11). Measured with
// runtime.MemStats' TotalAlloc around the call, garbage included.
const (
	fuzzMaxNodes        = 1 << 14
	fuzzMaxDecompressed = 1 << 20
	fuzzPerInputByte    = 64
	fuzzPerNode         = 512     // a node, its share of child slices, warnings and JSON
	fuzzSlack           = 8 << 20 // decompressors' state (an lz4 block buffer is 4 MiB)
)

func fuzzAllocBound(n int) uint64 {
	return uint64(fuzzPerInputByte*n + 4*fuzzMaxDecompressed + fuzzPerNode*fuzzMaxNodes + fuzzSlack)
}

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
// allocation stays within fuzzAllocBound. Seeded with the records fields
// of the hostile corpus.
func FuzzRecordsAlloc(f *testing.F) {
	for _, b := range hostileRecords(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := records.Options{MaxDecompressed: fuzzMaxDecompressed, MaxNodes: fuzzMaxNodes, DecodeData: codec.DecodeDataMessage}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var s tree.Slab
		res, _ := records.Decode(&s, b, opts)
		out := records.AppendJSON(nil, res, b, records.Decoded)
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(out)
		if got, bound := after.TotalAlloc-before.TotalAlloc, fuzzAllocBound(len(b)); got > bound {
			t.Fatalf("decoding %d bytes of records allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		// The tree-less writer, as the codec's fast path calls it.
		opts = records.Options{MaxDecompressed: fuzzMaxDecompressed, MaxNodes: fuzzMaxNodes, DecodeData: codec.DecodeDataMessage}
		runtime.ReadMemStats(&before)
		var js []byte
		records.WriteJSON(&js, b, opts, nil)
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(js)
		if got, bound := after.TotalAlloc-before.TotalAlloc, fuzzAllocBound(len(b)); got > bound {
			t.Fatalf("writing %d bytes of records as JSON allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
	})
}
