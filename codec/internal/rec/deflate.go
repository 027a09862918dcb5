//go:build !js

package rec

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/internal/decompress"
)

// deflate compresses src with codec. magic0 selects the lz4 header
// checksum Kafka writes for magic 0 (over the magic number too,
// KafkaLZ4BlockOutputStream's useBrokenFlagDescriptorChecksum). The
// compressors are kept between calls (a gzip writer's tables, a zstd
// encoder's state, several hundred KiB each, made anew for every batch
// were a third of kwire encode's time, spent clearing them).
func deflate(codec int, src []byte, magic0 bool) ([]byte, error) {
	switch codec {
	case CodecGzip:
		var b bytes.Buffer
		w := gzipWriters.Get().(*gzip.Writer)
		defer gzipWriters.Put(w)
		w.Reset(&b)
		return writeAll(&b, w, src)
	case CodecSnappy:
		return s2.EncodeSnappy(nil, src), nil
	case CodecLZ4:
		var b bytes.Buffer
		w := lz4Writers.Get().(*lz4.Writer)
		defer lz4Writers.Put(w)
		w.Reset(&b)
		out, err := writeAll(&b, w, src)
		if err != nil {
			return nil, err
		}
		if hc := decompress.LZ4HeaderEnd(out); magic0 && hc > 0 {
			out[hc] = byte(decompress.XXH32(out[:hc]) >> 8)
		}
		return out, nil
	case CodecZstd:
		e, err := zstdEncoder()
		if err != nil {
			return nil, err
		}
		return e.EncodeAll(src, nil), nil
	}
	return nil, errors.New("cannot compress with codec " + itoa(codec))
}

// The compressors deflate keeps: writers reset for each use, and one zstd
// encoder, whose EncodeAll serves concurrent callers (kwire batch's
// workers) with a state each.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	lz4Writers  = sync.Pool{New: func() any { return lz4.NewWriter(nil) }}
	zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) { return zstd.NewWriter(nil) })
)

// writeAll compresses src through w, a stream writer into b.
func writeAll(b *bytes.Buffer, w io.WriteCloser, src []byte) ([]byte, error) {
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
