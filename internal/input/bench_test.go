package input

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchFrame is 256 KiB shaped like a Produce frame's: runs of zeros
// (sizes, offsets, attributes) between JSON-like text and random bytes
// (compressed batches, CRCs).
func benchFrame() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, 256<<10)
	for len(b) < 256<<10 {
		switch r.IntN(3) {
		case 0:
			b = append(b, make([]byte, 1+r.IntN(12))...)
		case 1:
			b = fmt.Appendf(b, `{"order":%d,"item":"espresso beans","qty":%d}`, r.IntN(1e6), r.IntN(9))
		default:
			for range 1 + r.IntN(64) {
				b = append(b, byte(r.Uint32()))
			}
		}
	}
	return b[:256<<10]
}

// BenchmarkParse reads the same bytes in each shape people paste: the
// speed is of the text read (SetBytes is the text's length).
func BenchmarkParse(b *testing.B) {
	frame := benchFrame()
	forms := []struct{ name, text string }{
		{"hex", hex.EncodeToString(frame)},
		{"xxd", dumpXXDText(frame, 2)},
		{"hexdump-C", dumpHexdumpCText(frame)},
		{"base64", base64.StdEncoding.EncodeToString(frame)},
		{"go-v", fmt.Sprintln(frame)},
		{"python-list", strings.ReplaceAll(fmt.Sprint(frame), " ", ", ")},
	}
	for _, f := range forms {
		got, _, err := Parse([]byte(f.text), Auto)
		if err != nil || string(got) != string(frame) {
			b.Fatalf("%s: %d bytes, %v", f.name, len(got), err)
		}
		b.Run(f.name, func(b *testing.B) {
			text := []byte(f.text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Parse(text, Auto); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
