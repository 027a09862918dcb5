package rec

import (
	"encoding/binary"
	"fmt"
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

// BenchmarkBytesValue: appendBytesValue on the kinds of value records
// carry: JSON documents (a quote every few bytes), plain text, keys, and
// binary bytes (base64). Each kind cycles through 4,096 values, as a
// segment's records do, so that branch predictors cannot learn one
// value's bytes.
func BenchmarkBytesValue(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"the", "order", "ships", "from", "eu-west", "warehouse", "today", "paid", "customer", "note:", "a", "42"}
	kinds := []struct {
		name string
		make func(n int) []byte
	}{
		{"json", func(n int) []byte {
			return []byte(fmt.Sprintf(`{"order":%d,"customer":"c-%05d","items":[{"sku":"sku-%04d","qty":%d,"price":%d.%02d},{"sku":"sku-%04d","qty":1,"price":9.99}],"total":%d.%02d,"currency":"EUR","status":"%s","created":"2023-11-14T22:%02d:%02dZ"}`,
				n, n%9973, n%811, 1+n%4, 5+n%50, n%100, (n*7)%811, 20+n%90, n%100, []string{"placed", "paid", "shipped"}[n%3], n/60%60, n%60))
		}},
		{"text", func(int) []byte {
			var v []byte
			for len(v) < 100+rng.Intn(100) {
				v = append(append(v, words[rng.Intn(len(words))]...), ' ')
			}
			return v
		}},
		{"key", func(n int) []byte { return []byte(fmt.Sprintf("c-%05d", n%9973)) }},
		{"binary", func(int) []byte {
			v := make([]byte, 100+rng.Intn(100))
			rng.Read(v)
			return v
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			vals := make([][]byte, 4096)
			size := 0
			for i := range vals {
				vals[i] = k.make(i * 7919)
				size += len(vals[i])
			}
			b.SetBytes(int64(size / len(vals)))
			var out []byte
			i := 0
			for b.Loop() {
				out = appendBytesValue(out[:0], vals[i&4095])
				i++
			}
		})
	}
}
