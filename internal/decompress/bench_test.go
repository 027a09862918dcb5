package decompress

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// benchRecords is about what a batch of 100 orders holds uncompressed (a
// record's framing, a customer key, a JSON order, two headers): 35 KB.
func benchRecords() []byte {
	var b []byte
	for n := 0; n < 100; n++ {
		b = append(b, byte(n), 0, 0x10, 0x02)
		b = fmt.Appendf(b, "c-%05d", n%9973)
		b = fmt.Appendf(b, `{"order":%d,"customer":"c-%05d","items":[{"sku":"sku-%04d","qty":%d,"price":%d.%02d},{"sku":"sku-%04d","qty":1,"price":9.99}],"total":%d.%02d,"currency":"EUR","status":"%s","created":"2023-11-14T22:%02d:%02dZ"}`,
			n, n%9973, n%811, 1+n%4, 5+n%50, n%100, (n*7)%811, 20+n%90, n%100, []string{"placed", "paid", "shipped"}[n%3], n/60%60, n%60)
		b = fmt.Appendf(b, "\x04\x10trace-id\x20%016x\x0csource\x10checkout", n*7919)
	}
	return b
}

// compressed is raw compressed by each codec's usual writer (as the
// clients' libraries write batches).
func compressed(tb testing.TB, codec int, raw []byte) []byte {
	var buf bytes.Buffer
	switch codec {
	case CodecGzip:
		w := stdgzip.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case CodecSnappy:
		return s2.EncodeSnappy(nil, raw)
	case CodecLZ4:
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case CodecZstd:
		e, _ := zstd.NewWriter(nil)
		return e.EncodeAll(raw, nil)
	}
	return buf.Bytes()
}

// BenchmarkInto decompresses one batch's records per op, into a reused
// buffer as the records reader does; B/op is what each decompression
// allocates, MB/s counts decompressed bytes.
func BenchmarkInto(b *testing.B) {
	raw := benchRecords()
	for _, c := range []struct {
		name  string
		codec int
	}{{"gzip", CodecGzip}, {"snappy", CodecSnappy}, {"lz4", CodecLZ4}, {"zstd", CodecZstd}} {
		b.Run(c.name, func(b *testing.B) {
			src := compressed(b, c.codec, raw)
			var dst []byte
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				out, _, _, err := Into(dst, c.codec, src, 32<<20)
				if err != nil || !bytes.Equal(out, raw) {
					b.Fatal(err)
				}
				dst = out
			}
		})
	}
}
