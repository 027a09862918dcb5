package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// The data-message decoder and encoder for codec/storage (through
// codec/internal/datamsg): the same walk as Decode with Options.Data, into
// the caller's slab and at the caller's offsets.
func init() {
	datamsg.Decode = decodeDataMessage
	datamsg.Encode = encodeDataMessage
	datamsg.AppendJSON = appendDataJSON
}

func decodeDataMessage(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	var f Frame
	ts := treeSink{slab: s, f: &f}
	o := Options{}.resolve(max(end-start, 0))
	var w walker
	w.init(&f, &ts, &o, max(end-start, 0), nil)
	n, err := w.dataMessage(name, version, buf, bufIdx, start, end)
	if err != nil {
		return n, err
	}
	return n, nil
}

// appendDataJSON writes the data message through the walk's JSON sink,
// as one element of an array whose brackets it then leaves out.
func appendDataJSON(dst []byte, name string, version int16, buf []byte, start, end int) []byte {
	var f Frame
	var w walker
	var s jsonSink
	o := Options{}.resolve(max(end-start, 0))
	out := jsontext.Writer{B: append(dst, '[')}
	s.resetBare(&f, &out, levelArray)
	w.init(&f, &s, &o, max(end-start, 0), nil)
	w.dataMessage(name, version, buf, 0, start, end)
	b := out.B
	copy(b[len(dst):], b[len(dst)+1:])
	return b[:len(b)-1]
}

func encodeDataMessage(dst []byte, name string, version int16, v map[string]any, path string) ([]byte, error) {
	m := schema.DataMessage(name)
	if m == nil {
		return dst, &EncodeError{Path: path, Msg: "no data message " + name}
	}
	lv := min(version, m.Valid.Hi)
	d := m.At(lv)
	if d == nil {
		return dst, &EncodeError{Path: path, Msg: name + " has no version " + strconv.Itoa(int(version))}
	}
	return encodeStruct(dst, d.Root, lv, d.Flexible.Contains(lv), v, path, EncodeOptions{})
}
