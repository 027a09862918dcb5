//go:build !js

package rec

import (
	"bytes"
	"errors"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/kwire/kwire/internal/decompress"
)

// deflate compresses src with codec. magic0 selects the lz4 header
// checksum Kafka writes for magic 0 (over the magic number too,
// KafkaLZ4BlockOutputStream's useBrokenFlagDescriptorChecksum).
func deflate(codec int, src []byte, magic0 bool) ([]byte, error) {
	switch codec {
	case CodecGzip:
		var b bytes.Buffer
		return writeAll(&b, gzip.NewWriter(&b), src)
	case CodecSnappy:
		return s2.EncodeSnappy(nil, src), nil
	case CodecLZ4:
		var b bytes.Buffer
		out, err := writeAll(&b, lz4.NewWriter(&b), src)
		if err != nil {
			return nil, err
		}
		if hc := decompress.LZ4HeaderEnd(out); magic0 && hc > 0 {
			out[hc] = byte(decompress.XXH32(out[:hc]) >> 8)
		}
		return out, nil
	case CodecZstd:
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		out := e.EncodeAll(src, nil)
		e.Close()
		return out, nil
	}
	return nil, errors.New("cannot compress with codec " + itoa(codec))
}

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
