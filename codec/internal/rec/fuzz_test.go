package rec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/internal/decompress"
)

// fuzzCheck is the property every input must meet: no panic, spans that
// tile, valid JSON, the same JSON, warnings and error without the tree,
// and for inputs decoded without error, warning or truncation,
// Encode(JSON) gives back the input.
func fuzzCheck(t *testing.T, data []byte) {
	var s slab.Slab
	opts := Options{MaxDecompressed: 1 << 20, MaxDepth: 3}
	// The tree-less writer agrees with the tree, here and under tight limits.
	bothWays(t, data, Options{MaxDecompressed: 1 << 20, MaxDepth: 3, DecodeData: fakeData, DataJSON: fakeDataJSON})
	bothWays(t, data, Options{MaxDecompressed: 200, MaxDepth: 1, MaxNodes: 50, DecodeData: fakeData, DataJSON: fakeDataJSON})
	res, err := Decode(&s, data, opts)
	checkTree(t, res, 0, len(data))
	js := treeJSON(nil, res, data, Decoded)
	if !json.Valid(js) {
		t.Fatalf("invalid JSON: %s", js)
	}
	total := 0
	for _, d := range res.Derived {
		total += len(d)
	}
	if total > opts.MaxDecompressed {
		t.Fatalf("decompressed %d bytes", total)
	}
	if err != nil {
		return
	}
	v := parseJSON(t, js)
	out, eerr := Encode(nil, v)
	if eerr != nil {
		t.Fatalf("encode: %v\n%s", eerr, js)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("round trip differs:\n in %x\nout %x\njson %s", data, out, js)
	}
}

func FuzzBatch(f *testing.F) {
	for codec := CodecNone; codec <= CodecZstd; codec++ {
		f.Add(buildBatch(f, codec, 0, 0, sampleRecs(3)))
	}
	f.Add(buildBatch(f, CodecNone, 50, 0x30, []tRec{{key: []byte{0, 0, 0, 1}, val: []byte{0, 0, 0, 0, 0, 7}}}))
	f.Add(buildBatch(f, CodecNone, 5, 0x18, sampleRecs(2)))
	f.Fuzz(fuzzCheck)
}

func FuzzMessageSet(f *testing.F) {
	f.Add(append(append([]byte(nil), msgV0...), msgV1...))
	inner := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
	for _, codec := range []int{CodecGzip, CodecSnappy, CodecLZ4} {
		comp, _ := deflate(codec, inner, false)
		f.Add(wrapRaw(1, codec, 1, comp))
	}
	f.Fuzz(fuzzCheck)
}

// wrapRaw builds a magic 0/1 wrapper message with value comp.
func wrapRaw(magic int8, codec int, offset int64, comp []byte) []byte {
	var m []byte
	m = binary.BigEndian.AppendUint64(m, uint64(offset))
	m = binary.BigEndian.AppendUint32(m, 0)
	m = binary.BigEndian.AppendUint32(m, 0)
	m = append(m, byte(magic), byte(codec))
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, 1700000000000)
	}
	m = binary.BigEndian.AppendUint32(m, 0xffffffff)
	m = binary.BigEndian.AppendUint32(m, uint32(len(comp)))
	m = append(m, comp...)
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return m
}

// codecBatch wraps a fuzzed compressed payload in a valid batch header
// with codec set (and a correct CRC, so the payload path is what is tested).
func codecBatch(codec int, count int32, payload []byte) []byte {
	b := kmsg.RecordBatch{Magic: 2, Attributes: int16(codec), ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: count, Records: payload}
	p := b.AppendTo(nil)
	binary.BigEndian.PutUint32(p[8:], uint32(len(p)-12))
	binary.BigEndian.PutUint32(p[17:], crc32.Checksum(p[21:], castagnoli))
	return p
}

func fuzzCodec(f *testing.F, codec int) {
	var raw []byte
	for i, r := range sampleRecs(4) {
		kr := kmsg.Record{OffsetDelta: int32(i), Key: r.key, Value: r.val, Headers: r.hdrs}
		kr.Length = int32(len(kr.AppendTo(nil)) - 1)
		raw = kr.AppendTo(raw)
	}
	comp, err := deflate(codec, raw, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(comp, int32(4))
	if codec == CodecSnappy {
		x := append([]byte(nil), decompress.XerialMagic...)
		x = binary.BigEndian.AppendUint32(x, 1)
		x = binary.BigEndian.AppendUint32(x, 1)
		x = binary.BigEndian.AppendUint32(x, uint32(len(comp)))
		f.Add(append(x, comp...), int32(4))
	}
	f.Fuzz(func(t *testing.T, payload []byte, count int32) {
		fuzzCheck(t, codecBatch(codec, count, payload))
	})
}

func FuzzGzip(f *testing.F)   { fuzzCodec(f, CodecGzip) }
func FuzzSnappy(f *testing.F) { fuzzCodec(f, CodecSnappy) }
func FuzzLZ4(f *testing.F)    { fuzzCodec(f, CodecLZ4) }
func FuzzZstd(f *testing.F)   { fuzzCodec(f, CodecZstd) }
