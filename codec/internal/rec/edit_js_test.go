//go:build js

package rec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/wire"
	"github.com/twmb/franz-go/pkg/kgo"
)

// In the browser build there is no compressor: unchanged compressed content
// reuses its bytes, and an edit inside it is refused with an error naming
// the path, never written with the old bytes.
//
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run Browser ./codec/internal/rec
func TestBrowserRefusesEditInsideCompressed(t *testing.T) {
	inner := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
	for _, p := range [][]byte{
		buildBatch(t, CodecGzip, 0, 0, sampleRecs(2)),
		wrapMessage(t, CodecSnappy, inner),
	} {
		var s slab.Slab
		res, err := Decode(&s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := parseJSON(t, treeJSON(nil, res, p, Decoded)).([]any)
		out, err := Encode(nil, v)
		if err != nil || !bytes.Equal(out, p) {
			t.Fatalf("unchanged: %v", err)
		}
		e := v[0].(map[string]any)
		list, _ := e["records"].([]any)
		if list == nil {
			list = e["messages"].([]any)
		}
		list[1].(map[string]any)["value"] = map[string]any{"text": "edited"}
		out, err = Encode(nil, v)
		if err == nil || out != nil && bytes.Contains(out, []byte("edited")) {
			t.Fatal("an edit inside compressed content was written")
		}
		if !strings.HasPrefix(err.Error(), "[0].attributes.compression: expected the compressed content as it was, found it changed") || !strings.Contains(err.Error(), "browser build") {
			t.Fatalf("err %v", err)
		}
	}
}

// wrapMessage builds a magic 1 wrapper around inner, compressed by
// franz-go's compressor (this build has no deflate).
func wrapMessage(t *testing.T, codec int, inner []byte) []byte {
	c, err := kgo.DefaultCompressor(kgoCodecs[codec])
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	comp, _ := c.Compress(&buf, inner)
	m := wire.AppendInt64(nil, 1)
	m = wire.AppendInt32(m, 0)
	m = wire.AppendInt32(m, 0)
	m = append(m, 1, byte(codec))
	m = wire.AppendInt64(m, 1700000000005)
	m = wire.AppendInt32(m, -1)
	m = wire.AppendInt32(m, int32(len(comp)))
	m = append(m, comp...)
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return m
}
