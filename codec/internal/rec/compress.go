package rec

import (
	"github.com/kwire/kwire/internal/decompress"
)

// Compression codecs, as in the low three attribute bits: numbered once,
// in internal/decompress.
const (
	CodecNone   = decompress.CodecNone
	CodecGzip   = decompress.CodecGzip
	CodecSnappy = decompress.CodecSnappy
	CodecLZ4    = decompress.CodecLZ4
	CodecZstd   = decompress.CodecZstd
)

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// CodecName is the JSON name of a codec: "none", "gzip", "snappy", "lz4",
// "zstd", or "" for the unassigned values 5-7.
func CodecName(c int) string {
	if c >= 0 && c < len(codecNames) {
		return codecNames[c]
	}
	return ""
}

// inflate decompresses src with codec, producing at most limit bytes.
// Memory grows with the bytes actually produced: sizes the compressed
// data declares (gzip's ISIZE, lz4's content size, snappy's decoded
// length, zstd's frame content size) are never trusted for an allocation
// beyond what that many compressed bytes could really hold. warn is set
// for accepted quirks a decompressor says (an lz4 header checksum, right
// or wrong for its entry's magic, is not one: decompress.
// LZ4ChecksumWarning judges it where the magic is known). The last
// argument is unused (it sized decoder pools once).
func inflate(codec int, src []byte, limit, _ int) (out []byte, warn string, err error) {
	out, warn, _, err = inflateInto(nil, codec, src, limit)
	if err != nil {
		out = nil
	}
	return out, warn, err
}

// inflateInto is inflate writing into dst's memory when it is big enough
// (the tree-less path reuses one buffer per nesting depth). done is the
// work it counts for, the same whatever dst was: the bytes it made, or
// limit when they would be more, or the bytes made before a failure. On
// failure out is an empty buffer to reuse (dst's, or a bigger one the
// attempt made), so that a flood of decompressions that fail does not
// allocate anew each time.
func inflateInto(dst []byte, codec int, src []byte, limit int) (out []byte, warn string, done int, err error) {
	return decompress.Into(dst, codec, src, limit)
}

const defaultMaxDecompressed = 64 << 20
