package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// The data-message decoder and encoder for codec/storage (through
// codec/internal/datamsg): the same walk as Decode with Options.Data, into
// the caller's slab and at the caller's offsets.
func init() {
	datamsg.Decode = decodeDataMessage
	datamsg.Encode = encodeDataMessage
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
