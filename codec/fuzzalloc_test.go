package codec_test

import (
	"runtime"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/hostile"
)

// Allocation bounds for fuzzing: with small limits, decoding a frame and
// writing its value JSON may allocate a small multiple of the input plus
// what the limits allow (issue 11: memory grows with work done, never
// with a size or count the input declares). Measured with
// runtime.MemStats' TotalAlloc around the call, garbage included.
const (
	fuzzMaxNodes        = 1 << 14
	fuzzMaxDecompressed = 1 << 20
	fuzzPerInputByte    = 64
	fuzzPerNode         = 512     // a node, its share of child slices, warnings and JSON
	fuzzSlack           = 8 << 20 // decompressors' state (an lz4 block buffer is 4 MiB)
)

// FuzzAllocBound is what decoding b may allocate under the fuzz limits.
func fuzzAllocBound(n int) uint64 {
	return uint64(fuzzPerInputByte*n + 4*fuzzMaxDecompressed + fuzzPerNode*fuzzMaxNodes + fuzzSlack)
}

// FuzzDecodeAlloc decodes any input as a request, or as a response of the
// API and version pick selects, and checks its allocation stays within
// fuzzAllocBound. Seeded with the hostile corpus.
func FuzzDecodeAlloc(f *testing.F) {
	for _, e := range hostile.Frames() {
		b, err := hostile.Load(e)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 64<<10 {
			pick := uint16(0)
			if e.Mode == hostile.Response {
				pick = uint16(e.APIKey)<<8 | uint16(e.Version) | 0x8000
			}
			f.Add(b, pick)
		}
	}
	apis := schema.APIs()
	f.Fuzz(func(t *testing.T, b []byte, pick uint16) {
		var o codec.Options
		o.MaxNodes, o.MaxDecompressed = fuzzMaxNodes, fuzzMaxDecompressed
		if pick&0x8000 != 0 {
			api := apis[int(pick>>8&0x7f)%len(apis)]
			o.Response, o.APIKey = true, api.Key
			o.Version = api.Response.Valid.Lo + int16(pick&0xff)%(api.Response.Valid.Hi-api.Response.Valid.Lo+1)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fr, _ := codec.Decode(b, o)
		var out []byte
		if fr != nil && fr.Root != nil {
			out = fr.AppendJSON(nil, codec.JSONOptions{})
		}
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(out)
		if got, bound := after.TotalAlloc-before.TotalAlloc, fuzzAllocBound(len(b)); got > bound {
			t.Fatalf("decoding %d bytes (response %v, api %d v%d) allocated %s; the bound is %s",
				len(b), o.Response, o.APIKey, o.Version, hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		// The tree-less path, as kwire decode and the API take it.
		runtime.ReadMemStats(&before)
		out, _, _ = new(codec.Decoder).AppendJSON(nil, b, o, codec.JSONOptions{})
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(out)
		if got, bound := after.TotalAlloc-before.TotalAlloc, fuzzAllocBound(len(b)); got > bound {
			t.Fatalf("the tree-less path on %d bytes (response %v, api %d v%d) allocated %s; the bound is %s",
				len(b), o.Response, o.APIKey, o.Version, hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
	})
}
