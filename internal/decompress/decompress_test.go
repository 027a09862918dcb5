package decompress

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// lz4Frame writes raw as pierrec/lz4's writer does with opts (as Kafka's
// Go clients write batches).
func lz4Frame(t testing.TB, raw []byte, opts ...lz4.Option) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	if err := w.Apply(opts...); err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

// lz4Reader reads src with pierrec/lz4's streaming reader alone, as
// decompress did before it decoded blocks itself.
func lz4Reader(src []byte, limit int) ([]byte, error) {
	return readLimited(nil, lz4.NewReader(bytes.NewReader(src)), src, limit)
}

// Frames of every block size, with and without block and content
// checksums, blocks stored uncompressed (random bytes) and several blocks
// to a frame, decode through lz4Blocks to what the streaming reader
// makes; so does a frame whose header checksum covers the magic number
// (Kafka's for magic 0), without a warning of the decompressor's own.
func TestLZ4Blocks(t *testing.T) {
	text := benchRecords()
	noise := make([]byte, 300<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	long := bytes.Repeat(text, 40) // 1.4 MB: many 64 KiB blocks
	for _, size := range []lz4.BlockSize{lz4.Block64Kb, lz4.Block256Kb, lz4.Block1Mb, lz4.Block4Mb} {
		for _, sums := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, raw := range [][]byte{text, noise, long, {}} {
				src := lz4Frame(t, raw, lz4.BlockSizeOption(size), lz4.ChecksumOption(sums[0]), lz4.BlockChecksumOption(sums[1]))
				out, ok := lz4Blocks(nil, src, 32<<20, false)
				if !ok || !bytes.Equal(out, raw) {
					t.Fatalf("block size %v, checksums %v, %d bytes: ok %v, %d bytes out", size, sums, len(raw), ok, len(out))
				}
				got, warn, done, err := Into(nil, CodecLZ4, src, 32<<20)
				if err != nil || warn != "" || done != len(raw) || !bytes.Equal(got, raw) {
					t.Fatalf("Into: %v %q %d", err, warn, done)
				}
			}
		}
	}
	old := lz4Frame(t, text)
	hc := LZ4HeaderEnd(old)
	old[hc] = byte(XXH32(old[:hc]) >> 8)
	out, warn, _, err := Into(nil, CodecLZ4, old, 32<<20)
	if err != nil || warn != "" || !bytes.Equal(out, text) {
		t.Fatalf("old header checksum: %v %q", err, warn)
	}
	if _, ok := lz4Blocks(nil, old, 32<<20, true); !ok {
		t.Fatal("an old header checksum is read by lz4Blocks")
	}
}

// Kafka writes an lz4 frame's header checksum over the magic number too
// for magic 0 (KafkaLZ4BlockOutputStream's useBrokenFlagDescriptorChecksum)
// and ignores it when reading magic 0 (KafkaLZ4BlockInputStream's
// ignoreFlagDescriptorChecksum); for magic 1 and 2 it writes the
// format's and refuses any other. So only the old checksum at magic 1 or
// 2 is worth a warning, and both forms decode.
func TestLZ4ChecksumWarning(t *testing.T) {
	good := lz4Frame(t, benchRecords())
	hc := LZ4HeaderEnd(good)
	old := append([]byte(nil), good...)
	old[hc] = byte(XXH32(old[:hc]) >> 8)
	if old[hc] == good[hc] {
		t.Fatal("the two checksums agree on this header")
	}
	for _, c := range []struct {
		src   []byte
		magic int8
		warn  bool
	}{{good, 0, false}, {old, 0, false}, {good, 1, false}, {old, 1, true}, {good, 2, false}, {old, 2, true}} {
		w := LZ4ChecksumWarning(c.src, c.magic)
		if (w != "") != c.warn {
			t.Errorf("magic %d, old checksum %v: warning %q", c.magic, c.src[hc] != good[hc], w)
		}
		if c.warn && !strings.Contains(w, "lz4 frame header checksum computed over the magic number too, which Kafka writes only for magic 0") {
			t.Errorf("warning %q", w)
		}
		if _, warn, _, err := Into(nil, CodecLZ4, c.src, 32<<20); err != nil || warn != "" {
			t.Errorf("Into: %v %q", err, warn)
		}
	}
	if w := LZ4ChecksumWarning([]byte("not lz4 at all"), 1); w != "" {
		t.Errorf("not lz4: %q", w)
	}
}

// What lz4Blocks does not take, the streaming reader reads, with its own
// answer: two frames back to back, a corrupt block, a wrong content
// checksum, output past the limit (ErrLimit, the work counted up to the
// limit).
func TestLZ4BlocksFallBack(t *testing.T) {
	text := benchRecords()
	one := lz4Frame(t, text)
	two := append(append([]byte{}, one...), one...)
	if _, ok := lz4Blocks(nil, two, 32<<20, false); ok {
		t.Fatal("two frames are the reader's")
	}
	out, _, _, err := Into(nil, CodecLZ4, two, 32<<20)
	if err != nil || !bytes.Equal(out, append(append([]byte{}, text...), text...)) {
		t.Fatalf("two frames: %v, %d bytes", err, len(out))
	}

	badSum := append([]byte{}, one...)
	badSum[len(badSum)-1] ^= 1
	_, _, _, err = Into(nil, CodecLZ4, badSum, 32<<20)
	if !errors.Is(err, lz4.ErrInvalidFrameChecksum) {
		t.Fatalf("content checksum: %v", err)
	}

	corrupt := append([]byte{}, one...)
	corrupt[11] = 0xff // the first block's first token: literals past the end
	_, _, _, err = Into(nil, CodecLZ4, corrupt, 32<<20)
	_, want := lz4Reader(corrupt, 32<<20)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("corrupt block: %v, the reader says %v", err, want)
	}

	out, _, done, err := Into(nil, CodecLZ4, one, 1000)
	if err != ErrLimit || done != 1000 || len(out) != 0 {
		t.Fatalf("limit: %v, done %d", err, done)
	}
}

// FuzzLZ4Frames: whatever the bytes, what lz4Blocks decodes is what the
// streaming reader decodes from them, without error; what it does not is
// left to the reader.
func FuzzLZ4Frames(f *testing.F) {
	text := benchRecords()
	f.Add(lz4Frame(f, text[:2000]), 1<<20)
	f.Add(lz4Frame(f, text[:3000], lz4.BlockChecksumOption(true)), 1<<20)
	f.Add(lz4Frame(f, text, lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)), 5000)
	f.Add(lz4Frame(f, []byte("abc")), 10)
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		limit = max(0, min(limit, 4<<20))
		out, ok := lz4Blocks(nil, src, limit, false)
		if !ok {
			return
		}
		want, err := lz4Reader(src, limit)
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("lz4Blocks made %d bytes; the reader %d, %v", len(out), len(want), err)
		}
	})
}

// A reused gzip reader reads each stream as a fresh one would: a corrupt
// stream says the same after a good one, a good one after a corrupt one.
func TestGunzipReused(t *testing.T) {
	text := benchRecords()
	var buf bytes.Buffer
	w, _ := stdgzip.NewWriterLevel(&buf, stdgzip.BestCompression)
	w.Write(text)
	w.Close()
	good := buf.Bytes()
	bad := append([]byte{}, good...)
	for i := 20; i < len(bad)-8; i += 97 {
		bad[i] ^= 0x5a
	}
	fresh := func(src []byte) (string, int) {
		zr, err := stdgzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return err.Error(), 0
		}
		out, err := io.ReadAll(zr)
		if err == nil {
			return "", len(out)
		}
		return err.Error(), len(out)
	}
	wantBad, _ := fresh(bad)
	if wantBad == "" {
		t.Fatal("the corrupt stream reads")
	}
	for i := 0; i < 4; i++ {
		out, _, _, err := Into(nil, CodecGzip, good, 32<<20)
		if err != nil || !bytes.Equal(out, text) {
			t.Fatalf("good stream, round %d: %v", i, err)
		}
		_, _, _, err = Into(nil, CodecGzip, bad, 32<<20)
		if err == nil || err.Error() != wantBad {
			t.Fatalf("corrupt stream, round %d: %v, fresh: %s", i, err, wantBad)
		}
	}
	// Streams read first by the fast reader and, when it refuses them,
	// by the standard library's: whatever the damage, each says what a
	// fresh standard reader says, and gives as many bytes, after any
	// stream before it.
	rnd := rand.New(rand.NewPCG(7, 11))
	for n := range 300 {
		c := append([]byte{}, good...)
		for range 1 + rnd.IntN(3) {
			c[rnd.IntN(len(c))] ^= byte(1 + rnd.IntN(255))
		}
		if n%3 == 0 {
			c = c[:rnd.IntN(len(c))]
		}
		want, wantLen := fresh(c)
		Into(nil, CodecGzip, good, 32<<20)
		out, _, _, err := Into(nil, CodecGzip, c, 32<<20)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want || (want == "" && len(out) != wantLen) {
			t.Fatalf("damaged stream %d: %q (%d bytes), a fresh reader: %q (%d bytes)", n, got, len(out), want, wantLen)
		}
	}
}
