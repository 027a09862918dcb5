package payload_test

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/hostile"
	"github.com/kwire/kwire/internal/render"
)

// BenchmarkHostileJSONFloodBrowser is what the playground's payload.wasm
// does with the hostile corpus's JSON flood (1,038 bytes: a JSON array of
// 450,001 numbers in a gzip batch): decode under the browser's limits
// (MaxNodes 2^18 cuts it short, and says so), then lay out each buffer's
// grid as wasm/view.go does. B/op is the memory it costs; with
// -memprofile it shows where that goes (issue 21: it took the page's heap
// to 554 MiB).
func BenchmarkHostileJSONFloodBrowser(b *testing.B) {
	e, err := hostile.ByName("payload-json-flood.bin")
	if err != nil {
		b.Fatal(err)
	}
	in, err := hostile.Load(e)
	if err != nil {
		b.Fatal(err)
	}
	o := codec.Options{Payload: payload.NewDecoder(nil, payload.Config{}).Decode}
	o.MaxNodes, o.MaxDecompressed, o.MaxRecordNesting = 1<<18, 16<<20, 2
	b.ReportAllocs()
	for b.Loop() {
		f, err := codec.Decode(in, o)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Warnings) != 1 || !f.Warnings[0].Limit {
			b.Fatalf("warnings %+v, want the MaxNodes limit's", f.Warnings)
		}
		for i := range f.Buffers {
			render.Layout(render.CellsWithoutPaths(f, i), 4, 32, nil)
		}
	}
}
