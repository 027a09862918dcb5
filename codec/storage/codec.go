package storage

// This file is the package's one meeting point with the codec: every call
// into the codec's walk and data-message encoder (codec/internal/datamsg,
// set by package codec) and its records reader (codec/internal/rec) is
// here.

import (
	"strings"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// decodeMessage decodes buf[start:end] (buffer bufIdx) as the data message
// m at version, into nodes from s, with the codec's default limits for
// that many bytes. The node spans [start, end) when it succeeds; the
// error (a *codec.DecodeError) has the offset and field path.
func decodeMessage(s *slab.Slab, m *schema.Message, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	return datamsg.Decode(s, m.Name, version, buf, bufIdx, start, end)
}

// readTopicPart reads a key or value of an internal topic through the
// codec's walk: its nodes, or its members in kwire log's JSON form.
func readTopicPart(dst []byte, p *datamsg.TopicPart) ([]byte, []*tree.Node) {
	return datamsg.ReadTopicPart(dst, p)
}

// dataJSON appends the value JSON of the data message m at version in
// buf[start:end], bytes that decode, as the codec's walk writes it.
func dataJSON(dst []byte, name string, version int16, buf []byte, start, end int) []byte {
	return datamsg.AppendJSON(dst, name, version, buf, start, end)
}

// encodeMessage appends m at version from its value JSON (as parseJSON
// gives it). Versions newer than known are written with the newest
// layout, as they decode.
func encodeMessage(dst []byte, m *schema.Message, version int16, v map[string]any, path string) ([]byte, error) {
	return datamsg.Encode(dst, m.Name, version, v, path)
}

// parseJSON parses JSON with numbers kept exact, as the codec's encoders
// want them.
func parseJSON(js []byte) (any, error) { return jsontext.Parse(js) }

// batchOptions are the records options of one batch: its own budget (the
// records package's default limits for its size, or maxNodes when above
// 0), warnings collected in w, KRaft control values decoded and written
// through the data-message schemas.
func batchOptions(w *budget.Warnings, spare *[]byte, maxDecompressed, maxNodes int) rec.Options {
	return rec.Options{Warnings: w, Spare: spare, MaxDecompressed: maxDecompressed, MaxNodes: maxNodes, DecodeData: datamsg.Decode, DataJSON: datamsg.AppendJSON}
}

// decodeBatch decodes one batch or message-set entry (all of b) into a
// tree from s.
func decodeBatch(s *slab.Slab, b []byte, o rec.Options) (*rec.Result, error) {
	return rec.Decode(s, b, o)
}

// writeBatchJSON appends the records JSON of one entry (all of b) to *out
// straight from the bytes, without a tree: the fast path for topics whose
// records need no decoding of their own.
func writeBatchJSON(out *[]byte, b []byte, o rec.Options) error {
	at := len(*out)
	_, err := rec.WriteJSON(out, b, o, nil)
	*out = trimArray(*out, at)
	return err
}

// trimArray takes the brackets off the one-element array written from at.
func trimArray(dst []byte, at int) []byte {
	if len(dst)-at >= 2 && dst[at] == '[' && dst[len(dst)-1] == ']' {
		copy(dst[at:], dst[at+1:len(dst)-1])
		return dst[:len(dst)-2]
	}
	return dst
}

// wrapperSpan is the first offset, the first timestamp and the number of
// the messages inside the legacy wrapper entry, decompressed within limit
// into *spare.
func wrapperSpan(entry []byte, limit int, spare *[]byte) (first, firstTS int64, n int, ok bool) {
	return rec.WrapperSpan(entry, limit, spare)
}

// firstRecordTimestamp is the timestamp of a batch's first record.
func firstRecordTimestamp(b []byte, limit int, spare *[]byte) (int64, bool) {
	return rec.FirstRecordTimestamp(b, limit, spare)
}

// encodeBatches turns records JSON (one entry or an array of them) back
// into bytes. An error in one entry, a kwire log line's, names its place
// as "batch" (the line's member), not as the array's first element.
func encodeBatches(dst []byte, v any) ([]byte, error) {
	if _, ok := v.(map[string]any); ok {
		out, err := rec.Encode(dst, []any{v})
		if e, ok := err.(*rec.EncodeError); ok && strings.HasPrefix(e.Path, "[0]") {
			return out, &rec.EncodeError{Path: "batch" + e.Path[len("[0]"):], Msg: e.Msg, Err: e.Err}
		}
		return out, err
	}
	return rec.Encode(dst, v)
}
