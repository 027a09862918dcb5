// Package records encodes the bytes of a Kafka records field (Produce,
// Fetch, ShareFetch, FetchSnapshot): record batches (magic 2) and the
// legacy message sets (magic 0 and 1), compressed with any of Kafka's
// codecs. Decoding them is the codec's: a frame's records fields are
// decoded with it, and codec.Decode with Options.Data set to "records"
// decodes a records field's bytes alone.
package records

import "github.com/kwire/kwire/codec/internal/rec"

// The compression codecs of a batch's or message's attributes (bits 0-2).
const (
	CodecNone   = rec.CodecNone
	CodecGzip   = rec.CodecGzip
	CodecSnappy = rec.CodecSnappy
	CodecLZ4    = rec.CodecLZ4
	CodecZstd   = rec.CodecZstd
)

// CodecName names a compression codec ("none", "gzip", "snappy", "lz4",
// "zstd"), or "" when Kafka defines none by that number.
func CodecName(c int) string { return rec.CodecName(c) }

// Encode appends the bytes of a records field to dst from its JSON form
// (as codec's value JSON shows records, parsed) or from Go values: a list
// of batches or messages, each a map whose records, keys and values may
// be []byte, strings, {"text": ...} or {"base64": ...}. Offsets, lengths
// and CRCs are computed; compressed contents are compressed again unless
// "_compressed" still holds what the records say. Errors are
// *wire.EncodeError, with the path of the value at fault.
func Encode(dst []byte, v any) ([]byte, error) { return rec.Encode(dst, v) }
