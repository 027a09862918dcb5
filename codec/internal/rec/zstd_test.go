package rec

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/internal/decompress"
)

// zstdStream compresses b as a streaming encoder writes it: no content
// size in the frame header, blocks of up to 128 KiB.
func zstdStream(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20), zstd.WithEncoderCRC(true))
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if _, ok := decompress.ZstdContentSize(out.Bytes()); ok {
		tb.Fatal("a streamed frame declares its size")
	}
	return out.Bytes()
}

// TestZstdStreamFillsItsBuffer is the hostile corpus's zstd regression:
// a valid streamed frame (140,000 7-byte records, 123 bytes compressed)
// whose output outgrew the first buffer failed with "output bigger than
// max block size", klauspost/compress's answer when a compressed block
// runs out of room in a capacity-limited DecodeAll, which is also its
// answer to a corrupt block. It must decode whatever buffer it starts in,
// and be cut by the limit (decompress.ErrLimit) only when the output passes it.
func TestZstdStreamFillsItsBuffer(t *testing.T) {
	plain := bytes.Repeat([]byte{12, 0, 0, 2, 1, 0, 0}, 140_000)
	src := zstdStream(t, plain)
	for _, dst := range [][]byte{nil, make([]byte, 0, 1000), make([]byte, 0, 200_000), make([]byte, 0, len(plain)-1), make([]byte, 0, 4<<20)} {
		out, warn, done, err := inflateInto(dst, CodecZstd, src, 32<<20)
		if err != nil || warn != "" || !bytes.Equal(out, plain) || done != len(plain) {
			t.Fatalf("into a buffer of %d: %d bytes, done %d, %q, %v", cap(dst), len(out), done, warn, err)
		}
	}
	for _, limit := range []int{0, 1000, 131072, len(plain) - 1} {
		out, _, done, err := inflateInto(nil, CodecZstd, src, limit)
		if err != decompress.ErrLimit || len(out) != 0 || done != limit {
			t.Fatalf("limit %d: %d bytes, done %d, %v; want decompress.ErrLimit", limit, len(out), done, err)
		}
	}
	if out, _, _, err := inflateInto(nil, CodecZstd, src, len(plain)); err != nil || len(out) != len(plain) {
		t.Fatalf("a limit of exactly the output: %d bytes, %v", len(out), err)
	}
	// A corrupt block is the stream's error, not a limit, however big the
	// buffer has to grow to meet it.
	bad := bytes.Clone(src)
	bad[len(bad)/2] ^= 0x5a
	if _, _, _, err := inflateInto(nil, CodecZstd, bad, 32<<20); err == nil || err == decompress.ErrLimit {
		t.Fatalf("a corrupt frame: %v; want its error", err)
	}
}

// TestZstdBounds: the block headers say what raw and RLE blocks make, so
// a bomb of them is refused before anything is decoded or allocated.
func TestZstdBounds(t *testing.T) {
	rle := func(n int) []byte {
		b := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
		b = append(b, 0, 7<<3) // no content size, a 128 KiB window
		for i := 0; i < n; i++ {
			h := uint32(128<<10)<<3 | 1<<1
			if i == n-1 {
				h |= 1
			}
			b = append(b, byte(h), byte(h>>8), byte(h>>16), 'z')
		}
		return b
	}
	lo, hi, ok := decompress.ZstdBounds(rle(8192))
	if !ok || lo != 1<<30 || hi != 1<<30 {
		t.Fatalf("8192 RLE blocks: %d-%d %v", lo, hi, ok)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, _, _, err := inflateInto(nil, CodecZstd, rle(8192), 32<<20); err != decompress.ErrLimit {
			t.Fatal(err)
		}
	})
	// (rle itself allocates while it grows; inflate allocates nothing.)
	if allocs > 20 {
		t.Errorf("%v allocations to refuse a 1 GiB RLE bomb", allocs)
	}
	// Two frames and a skippable one between them.
	two := append(rle(2), 0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3)
	two = append(two, rle(3)...)
	if lo, hi, ok := decompress.ZstdBounds(two); !ok || lo != 5<<17 || hi != 5<<17 {
		t.Fatalf("two frames: %d-%d %v", lo, hi, ok)
	}
	out, _, _, err := inflateInto(nil, CodecZstd, two, 1<<20)
	if err != nil || len(out) != 5<<17 || out[0] != 'z' {
		t.Fatalf("two frames: %d bytes, %v", len(out), err)
	}
	plain := bytes.Repeat([]byte("kwire "), 50_000)
	src := zstdStream(t, plain)
	if lo, hi, ok := decompress.ZstdBounds(src); !ok || lo > len(plain) || hi < len(plain) {
		t.Fatalf("a streamed frame of %d bytes: bounds %d-%d %v", len(plain), lo, hi, ok)
	}
	if _, _, ok := decompress.ZstdBounds(src[:len(src)-3]); ok {
		t.Error("a frame cut short has bounds")
	}
}

// TestInflateFailureLeavesItsBuffer: a decompression that fails gives back
// a buffer to reuse, and counts the same work whatever buffer it had.
func TestInflateFailureLeavesItsBuffer(t *testing.T) {
	src := zstdStream(t, make([]byte, 4<<20))
	out, _, done, err := inflateInto(nil, CodecZstd, src, 1<<20)
	if err != decompress.ErrLimit || len(out) != 0 || cap(out) < 1<<20 || done != 1<<20 {
		t.Fatalf("%d/%d, done %d, %v", len(out), cap(out), done, err)
	}
	out2, _, done2, err := inflateInto(out, CodecZstd, src, 1<<20)
	if err != decompress.ErrLimit || done2 != done || &out2[:1][0] != &out[:1][0] {
		t.Fatalf("the second time: done %d, %v, same buffer %v", done2, err, &out2[:1][0] == &out[:1][0])
	}
	gz, err := deflate(CodecGzip, make([]byte, 4<<20), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, dst := range [][]byte{nil, make([]byte, 0, 3<<20)} {
		out, _, done, err := inflateInto(dst, CodecGzip, gz, 1<<20)
		if err != decompress.ErrLimit || done != 1<<20 || cap(out) < cap(dst) {
			t.Fatalf("gzip into %d: done %d, cap %d, %v", cap(dst), done, cap(out), err)
		}
	}
}
