package codec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/tree"
)

// The attacks of issue 11's table, rebuilt here byte by byte, each kept as
// a named regression test: every one decodes in bounded memory with the
// default limits, and the limit that cut it short is a warning (Limit
// set) in Frame.Warnings and in the JSON, never silent.

// legacyMessage is a magic 0 or 1 message (offset 0) with the given
// attributes, key and value (nil: null).
func legacyMessage(magic, attrs byte, key, value []byte) []byte {
	m := make([]byte, 12, 64)
	m = append(m, 0, 0, 0, 0, magic, attrs)
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, 1700000000000)
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			m = binary.BigEndian.AppendUint32(m, 0xffffffff)
			continue
		}
		m = binary.BigEndian.AppendUint32(m, uint32(len(b)))
		m = append(m, b...)
	}
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return m
}

// recordBatch is a magic 2 batch holding count records whose (maybe
// compressed) bytes are recs.
func recordBatch(codec int16, count int32, recs []byte) []byte {
	b := make([]byte, 61, 61+len(recs))
	binary.BigEndian.PutUint32(b[8:], uint32(49+len(recs)))
	b[16] = 2
	binary.BigEndian.PutUint16(b[21:], uint16(codec))
	binary.BigEndian.PutUint32(b[23:], uint32(max(count-1, 0)))
	binary.BigEndian.PutUint64(b[43:], 0xffffffffffffffff) // producer id -1
	binary.BigEndian.PutUint16(b[51:], 0xffff)
	binary.BigEndian.PutUint32(b[53:], 0xffffffff)
	binary.BigEndian.PutUint32(b[57:], uint32(count))
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// tinyRecord is the smallest record: length 6, attributes 0, timestamp and
// offset deltas 0, null key and value, no headers: 7 bytes.
var tinyRecord = []byte{0x0c, 0, 0, 0, 0x01, 0x01, 0}

// produceV0 is a Produce v0 request for topic "t" partition 0 with records.
func produceV0(recs []byte) []byte {
	b := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 'c', 0, 1, 0, 0, 0x75, 0x30}
	b = binary.BigEndian.AppendUint32(b, 1)
	b = append(b, 0, 1, 't')
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(recs)))
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// fetchV4Response is a Fetch v4 response (correlation 7) for topic "t"
// partition 0 with records.
func fetchV4Response(recs []byte) []byte {
	b := []byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0} // size, correlation, throttle
	b = binary.BigEndian.AppendUint32(b, 1)
	b = append(b, 0, 1, 't')
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)                 // partition
	b = append(b, 0, 0)                                     // error
	b = binary.BigEndian.AppendUint64(b, 100)               // high watermark
	b = binary.BigEndian.AppendUint64(b, 100)               // last stable
	b = binary.BigEndian.AppendUint32(b, 0xffffffff)        // aborted: null
	b = binary.BigEndian.AppendUint32(b, uint32(len(recs))) // records
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func gzipped(tb testing.TB, b []byte) []byte {
	var out bytes.Buffer
	w, _ := gzip.NewWriterLevel(&out, gzip.DefaultCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// gzipRepeated is one gzip stream that inflates to unit n times: gzip
// readers go on to the next member, so n copies of one member do it.
func gzipRepeated(tb testing.TB, unit []byte, n int) []byte {
	m := gzipped(tb, unit)
	return bytes.Repeat(m, n)
}

func zstdOf(b []byte) []byte {
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	defer e.Close()
	return e.EncodeAll(b, nil)
}

// zstdRLEBomb is a zstd frame of RLE blocks (4 bytes each stand for 128
// KiB of zeros) that inflates to n bytes; it declares no content size.
func zstdRLEBomb(n int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic; no FCS; window 128 KiB
	const block = 128 << 10
	for left := n; left > 0; left -= block {
		size := min(left, block)
		h := uint32(size)<<3 | 1<<1
		if left <= block {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// lz4Repeated is one lz4 frame whose 4 MiB independent blocks of zeros
// repeat n times.
func lz4Repeated(tb testing.TB, n int) []byte {
	zeros := make([]byte, 4<<20)
	blk := make([]byte, lz4.CompressBlockBound(len(zeros)))
	k, err := lz4.CompressBlock(zeros, blk, nil)
	if err != nil || k == 0 {
		tb.Fatal(err)
	}
	// The frame header (magic, FLG, BD 4 MiB, checksum) as pierrec/lz4
	// writes it for an empty frame.
	var hdr bytes.Buffer
	w := lz4.NewWriter(&hdr)
	if err := w.Apply(lz4.BlockSizeOption(lz4.Block4Mb), lz4.ChecksumOption(false)); err != nil {
		tb.Fatal(err)
	}
	w.Write([]byte{0})
	w.Close()
	b := append([]byte(nil), hdr.Bytes()[:7]...)
	for i := 0; i < n; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(k))
		b = append(b, blk[:k]...)
	}
	return binary.LittleEndian.AppendUint32(b, 0)
}

// snappyXerial is the Java client's framed snappy: chunks of 64 KiB of
// zeros, n of them.
func snappyXerial(n int) []byte {
	b := []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}
	blk := s2.EncodeSnappy(nil, make([]byte, 64<<10))
	for i := 0; i < n; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(len(blk)))
		b = append(b, blk...)
	}
	return b
}

// allocated runs fn and returns the bytes it allocated in all (garbage
// included: an upper bound on what it held at once).
func allocated(fn func()) uint64 {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// decodeBound is what decoding a frame of n bytes may allocate in all with
// the default limits: the derived buffers (grown by doubling, so twice
// MaxDecompressed), MaxNodes nodes at 256 bytes with their child slices,
// and 64 bytes per input byte for everything else.
func decodeBound(n int) uint64 {
	l := Limits{}.resolve(n)
	return uint64(2*l.MaxDecompressed + 256*l.MaxNodes + 64*n + 16<<20)
}

// jsonBound is the most value JSON a frame of n bytes may come to with the
// default limits: base64 of every byte it holds (input and decompressed)
// twice over (a batch's "_raw" repeats its records), and 128 bytes of
// text per node.
func jsonBound(n int) int {
	l := Limits{}.resolve(n)
	return 2*4*(l.MaxDecompressed+n)/3 + 128*l.MaxNodes
}

// hostile decodes b with the default limits (plus opts) through the tree
// and its JSON, and requires bounded allocation and a limit warning
// naming limit.
func hostile(t *testing.T, b []byte, opts Options, limit string) *Frame {
	t.Helper()
	var f *Frame
	var js []byte
	var err error
	n := allocated(func() { f, err = Decode(b, opts) })
	require.NoError(t, err)
	nj := allocated(func() { js = f.AppendJSON(nil) })
	t.Logf("%d input bytes: decode allocated %d MiB (%d nodes, %d buffers), JSON %d MiB (allocated %d MiB), %d warnings",
		len(b), n>>20, countNodes(f), len(f.Buffers), len(js)>>20, nj>>20, len(f.Warnings))
	require.LessOrEqual(t, n, decodeBound(len(b)), "decode allocated %d MiB", n>>20)
	require.LessOrEqual(t, len(js), jsonBound(len(b)))
	// append grows a big slice by a quarter, so all its copies add up to
	// five times the final size.
	require.LessOrEqual(t, nj, uint64(6*len(js)+1<<20), "the JSON writer allocates only its output, as append grows it")
	hit := false
	for _, w := range f.Warnings {
		if w.Limit && strings.Contains(w.Message, limit) {
			hit = true
		}
	}
	require.True(t, hit, "no %s limit warning in %v", limit, f.Warnings)
	require.Contains(t, string(js), `"limit":true`)
	return f
}

// Issue 11: "Produce v0, zstd message set of tiny messages, 764 bytes:
// exit 0, 1.1 GB peak". A wrapper of a million 26-byte messages.
func TestHostileZstdMessageSetOfTinyMessages(t *testing.T) {
	inner := bytes.Repeat(legacyMessage(0, 0, nil, nil), 1<<20)
	wrapper := legacyMessage(1, rec.CodecZstd, nil, zstdOf(inner))
	b := produceV0(wrapper)
	require.Less(t, len(b), 4096)
	hostile(t, b, Options{}, "MaxNodes")
}

// Issue 11: "gzip message set of small messages, 152 KB: out of memory".
func TestHostileGzipMessageSetOfSmallMessages(t *testing.T) {
	unit := bytes.Repeat(legacyMessage(0, 0, []byte("k"), []byte("a small value of some bytes")), 1<<14)
	wrapper := legacyMessage(0, rec.CodecGzip, nil, gzipRepeated(t, unit, 200))
	hostile(t, produceV0(wrapper), Options{}, "MaxDecompressed")
	// Under the decompression limit, the messages meet the node limit.
	wrapper = legacyMessage(0, rec.CodecGzip, nil, gzipRepeated(t, unit, 30))
	hostile(t, produceV0(wrapper), Options{}, "MaxNodes")
}

// Issue 11: "60 MiB of empty record batches inside a magic-0 gzip
// wrapper, 183 KB: out of memory".
func TestHostileEmptyBatchesInGzipWrapper(t *testing.T) {
	unit := bytes.Repeat(recordBatch(0, 0, nil), (1<<20)/61)
	wrapper := legacyMessage(0, rec.CodecGzip, nil, gzipRepeated(t, unit, 60))
	hostile(t, produceV0(wrapper), Options{}, "MaxDecompressed")
	// Within the decompression limit they stop at the node limit.
	wrapper = legacyMessage(0, rec.CodecGzip, nil, gzipRepeated(t, unit, 30))
	hostile(t, produceV0(wrapper), Options{}, "MaxNodes")
}

// Issue 11: "gzip of 7 MiB of 7-byte records, 10.8 KB: 537 MB".
func TestHostileSevenByteRecords(t *testing.T) {
	recs := bytes.Repeat(tinyRecord, 1<<20)
	b := produceV0(recordBatch(rec.CodecGzip, 1<<20, gzipped(t, recs)))
	hostile(t, b, Options{}, "MaxNodes")
}

// Issue 11: "1 GiB decompression bombs (gzip, zstd, lz4, snappy): cut at
// 64 MiB, but silently". Each is now a limit warning on the batch's
// records.
func TestHostileBombs(t *testing.T) {
	zeros := make([]byte, 16<<20)
	bombs := []struct {
		name  string
		codec int16
		data  []byte
	}{
		{"gzip 1 GiB", rec.CodecGzip, gzipRepeated(t, zeros, 64)},
		{"zstd 1 GiB", rec.CodecZstd, zstdRLEBomb(1 << 30)},
		{"lz4 256 MiB", rec.CodecLZ4, lz4Repeated(t, 64)},
		{"snappy 40 MiB", rec.CodecSnappy, snappyXerial(640)},
	}
	for _, bomb := range bombs {
		t.Run(bomb.name, func(t *testing.T) {
			f := hostile(t, produceV0(recordBatch(bomb.codec, 1, bomb.data)), Options{}, "MaxDecompressed")
			require.Len(t, f.Buffers, 1, "nothing was kept of the bomb")
		})
	}
}

// Issue 11: "a Fetch-response-shaped frame, 5.9 KB, decoded without
// hints (guessing): 20 GB peak". Every reading tried leaves records
// undecoded and keeps no tree; the chosen one decodes them within the
// frame's budget.
func TestHostileGuessingFetchShapedFrame(t *testing.T) {
	recs := bytes.Repeat(tinyRecord, 1<<20)
	batch := recordBatch(rec.CodecZstd, 1<<20, zstdOf(recs))
	b := fetchV4Response(bytes.Repeat(batch, 8))
	require.Less(t, len(b), 8<<10)
	f := hostile(t, b, Options{Auto: true}, "MaxNodes")
	require.NotNil(t, f.Guess)
	require.Equal(t, int16(1), f.APIKey, "read as a Fetch response")
}

// Issue 11: "a protocol varint written non-minimally (87 00 for 7):
// decodes with no warning". ApiVersions v3 request whose client software
// name length (uvarint 7, "kwire " + 1) is written 87 00.
func TestNonMinimalProtocolVarint(t *testing.T) {
	b := mustHex(t, "0000001c 0012 0003 00000007 0005 6b77697265 00 8600 6b77697265 04 312e30 00")
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	ws := f.Warnings
	require.Len(t, ws, 1)
	require.Equal(t, Warning{Offset: 20, Path: "body.clientSoftwareName", Message: "non-minimal varint: 2 bytes for a value that needs 1"}, ws[0])
	require.Contains(t, string(f.AppendJSON(nil)), `"warnings":[{"offset":20,"path":"body.clientSoftwareName","message":"non-minimal varint: 2 bytes for a value that needs 1"}]`)
	// Tag numbers and sizes, and the tag count, too: tag section 81 00
	// (count 1), tag 80 00 (0), size 82 00 (2)... of an unknown tag.
	b = mustHex(t, "00000017 0012 0003 00000007 ffff 00 02 61 02 30 8100 8000 8200 abcd")
	f, err = Decode(b, Options{})
	require.NoError(t, err)
	var msgs []string
	for _, w := range f.Warnings {
		msgs = append(msgs, w.Path+": "+w.Message)
	}
	require.Equal(t, []string{
		"body._tagged: non-minimal varint: 2 bytes for a value that needs 1",
		"body._unknownTaggedFields: non-minimal varint: 2 bytes for a value that needs 1 (the tag number)",
		"body._unknownTaggedFields: non-minimal varint: 2 bytes for a value that needs 1 (the tagged field's size)",
		"body._unknownTaggedFields: unknown tag 0 at v3 (2 bytes kept)",
	}, msgs)
}

func countNodes(f *Frame) int {
	n := 0
	tree.Walk(f.Root, func(*tree.Node) bool { n++; return true })
	return n
}
