package rec

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/wire"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchPayload is ~1 MiB: 10 batches of 1,000 records (key, ~80-byte
// JSON-ish value, one header each).
func benchPayload(tb testing.TB, codec int) []byte {
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "delta", "order", "user", "amount", "status", "shipped", "pending", "eu-west", "id"}
	var out []byte
	for b := 0; b < 10; b++ {
		recs := make([]tRec, 1000)
		for i := range recs {
			v := []byte(`{"`)
			for len(v) < 70 {
				v = append(v, words[rng.Intn(len(words))]...)
				v = append(v, `":`...)
				v = append(v, itoa(rng.Intn(100000))...)
				v = append(v, `,"`...)
			}
			v = append(v, `x":0}`...)
			recs[i] = tRec{key: []byte("user-" + itoa(rng.Intn(1e6))), val: v, tsDelta: int64(i),
				hdrs: []kmsg.Header{{Key: "trace", Value: []byte(itoa(rng.Int()))}}}
		}
		out = append(out, buildBatch(tb, codec, int64(b*1000), 0, recs)...)
	}
	return out
}

var benchCodecs = []struct {
	name  string
	codec int
}{{"none", CodecNone}, {"lz4", CodecLZ4}, {"zstd", CodecZstd}}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCodecs {
		p := benchPayload(b, c.codec)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var s slab.Slab
				res, err := Decode(&s, p, Options{})
				if err != nil || len(res.Records) != 10000 {
					b.Fatal(err, len(res.Records))
				}
			}
		})
		// As codec.Decoder does: the node slab is kept from one decode to the next.
		b.Run(c.name+"-reused", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			var s slab.Slab
			for i := 0; i < b.N; i++ {
				s.Reset()
				res, err := Decode(&s, p, Options{})
				if err != nil || len(res.Records) != 10000 {
					b.Fatal(err, len(res.Records))
				}
			}
		})
	}
}

// BenchmarkJSON compares the records' JSON through the tree (Decode, then
// AppendJSON, the slab reused) with WriteJSON, which builds no tree and
// writes each record as it reads it, reusing its memory (Scratch).
func BenchmarkJSON(b *testing.B) {
	for _, c := range benchCodecs {
		p := benchPayload(b, c.codec)
		b.Run(c.name+"/tree", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			var s slab.Slab
			var out []byte
			for i := 0; i < b.N; i++ {
				s.Reset()
				res, err := Decode(&s, p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				out = treeJSON(out[:0], res, p, Decoded)
			}
		})
		b.Run(c.name+"/stream", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			var sc Scratch
			var out []byte
			for i := 0; i < b.N; i++ {
				out = out[:0]
				if _, err := WriteJSON(&out, p, Options{Scratch: &sc}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFranz does franz-go's work on the same bytes: kmsg.RecordBatch
// ReadFrom, kgo's default decompressor, kmsg.Record ReadFrom per record.
func BenchmarkFranz(b *testing.B) {
	dec := kgo.DefaultDecompressor()
	for _, c := range benchCodecs {
		p := benchPayload(b, c.codec)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n := 0
				for off := 0; off < len(p); {
					l := int(binary.BigEndian.Uint32(p[off+8:]))
					var rb kmsg.RecordBatch
					if err := rb.ReadFrom(p[off : off+12+l]); err != nil {
						b.Fatal(err)
					}
					off += 12 + l
					raw := rb.Records
					if codec := rb.Attributes & 7; codec != 0 {
						var err error
						if raw, err = dec.Decompress(raw, kgo.CompressionCodecType(codec)); err != nil {
							b.Fatal(err)
						}
					}
					for j := 0; j < int(rb.NumRecords); j++ {
						rl, sz, _ := wire.Varint(raw)
						var r kmsg.Record
						if err := r.ReadFrom(raw[:sz+int(rl)]); err != nil {
							b.Fatal(err)
						}
						raw = raw[sz+int(rl):]
						n++
					}
				}
				if n != 10000 {
					b.Fatal(n)
				}
			}
		})
	}
}
