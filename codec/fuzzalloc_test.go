package codec_test

import (
	"runtime"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/hostile"
)

// FuzzDecodeAlloc decodes any input as a request, or as a response of the
// API and version pick selects, and checks its allocation stays within
// hostile.FuzzAllocBound. Seeded with the hostile corpus.
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
		o.MaxNodes, o.MaxDecompressed = hostile.FuzzMaxNodes, hostile.FuzzMaxDecompressed
		if pick&0x8000 != 0 {
			api := apis[int(pick>>8&0x7f)%len(apis)]
			o.Response, o.APIKey = true, api.Key
			o.Version = api.Response.Valid.Lo + int16(pick&0xff)%(api.Response.Valid.Hi-api.Response.Valid.Lo+1)
		}
		var out []byte
		got := hostile.Allocated(func() {
			fr, _ := codec.Decode(b, o)
			if fr != nil && fr.Root != nil {
				out = fr.AppendJSON(nil)
			}
		})
		runtime.KeepAlive(out)
		if bound := hostile.FuzzAllocBound(len(b)); got > bound {
			t.Fatalf("decoding %d bytes (response %v, api %d v%d) allocated %s; the bound is %s",
				len(b), o.Response, o.APIKey, o.Version, hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		// The tree-less path, as kwire decode and the API take it.
		got = hostile.Allocated(func() { out, _, _ = new(codec.Decoder).AppendJSON(nil, b, o) })
		runtime.KeepAlive(out)
		if bound := hostile.FuzzAllocBound(len(b)); got > bound {
			t.Fatalf("the tree-less path on %d bytes (response %v, api %d v%d) allocated %s; the bound is %s",
				len(b), o.Response, o.APIKey, o.Version, hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
	})
}
