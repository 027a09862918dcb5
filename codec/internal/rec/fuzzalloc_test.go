package rec_test

import (
	"runtime"
	"testing"

	"github.com/kwire/kwire/codec"
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
		fr, err := codec.Decode(b, codec.Options{Kafka: true}) // nothing nested decoded
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

// FuzzRecordsAlloc decodes any input as a records field (codec.Decode
// with Options.Data "records": KRaft control values decoded too) and
// checks its allocation stays within hostile.FuzzAllocBound. Seeded with
// the records fields of the hostile corpus.
func FuzzRecordsAlloc(f *testing.F) {
	for _, b := range hostileRecords(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := codec.Options{Data: "records", Limits: codec.Limits{MaxDecompressed: hostile.FuzzMaxDecompressed, MaxNodes: hostile.FuzzMaxNodes}}
		var out []byte
		got := hostile.Allocated(func() {
			fr, _ := codec.Decode(b, opts)
			out = fr.AppendJSON(nil)
		})
		runtime.KeepAlive(out)
		bound := hostile.FuzzAllocBound(len(b))
		if got > bound {
			t.Fatalf("decoding %d bytes of records allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		// The tree-less writer.
		var js []byte
		got = hostile.Allocated(func() { js, _, _ = new(codec.Decoder).AppendJSON(nil, b, opts) })
		runtime.KeepAlive(js)
		if got > bound {
			t.Fatalf("writing %d bytes of records as JSON allocated %s; the bound is %s", len(b), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
	})
}
