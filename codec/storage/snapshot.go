package storage

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// ProducerSnapshot is a producer-state snapshot (<offset>.snapshot in a
// partition directory, ProducerStateManager): an int16 version, then the
// ProducerSnapshot message at that version (a uint32 CRC-32C of every
// byte after it, the producers' entries).
type ProducerSnapshot struct {
	Version  int16
	Node     *tree.Node // the ProducerSnapshot message, nil when not read
	CRC      uint32     // as stored
	CRCValid bool       // the CRC matches bytes 6 to the end
	Err      error      // what could not be read (offset and field path), beside what was
	Bytes    []byte
}

// readProducerSnapshot decodes the snapshot b into nodes from s.
func readProducerSnapshot(s *slab.Slab, b []byte) *ProducerSnapshot {
	p := &ProducerSnapshot{Bytes: b}
	if len(b) < 6 {
		// A binary file: said at its byte, not at a line.
		const least = "a producer snapshot has at least an int16 version and a uint32 CRC (6 bytes)"
		if len(b) == 0 {
			p.Err = errors.New("at byte 0: the file is empty; " + least)
		} else {
			p.Err = errors.New("at byte 0: " + least + "; this one has " + strconv.Itoa(len(b)))
		}
		return p
	}
	p.Version = int16(binary.BigEndian.Uint16(b))
	p.CRC = binary.BigEndian.Uint32(b[2:])
	p.CRCValid = crc32.Checksum(b[6:], castagnoli) == p.CRC
	m := schema.DataMessage("ProducerSnapshot")
	n, err := decodeMessage(s, m, p.Version, b, 0, 2, len(b))
	p.Node, p.Err = n, err
	return p
}

// AppendJSON appends the snapshot as JSON: {"version":V,"crcValid":B,
// "snapshot":{value JSON of ProducerSnapshot}} and "error" when it could
// not be read whole. "snapshot" is what EncodeProducerSnapshot reads.
func (p *ProducerSnapshot) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"version":`...)
	dst = jsontext.AppendInt(dst, int64(p.Version))
	dst = append(dst, `,"crcValid":`...)
	dst = strconv.AppendBool(dst, p.CRCValid)
	if p.Node != nil && p.Err == nil {
		m := schema.DataMessage("ProducerSnapshot")
		dst = append(dst, `,"snapshot":`...)
		dst = dataJSON(dst, m.Name, p.Version, p.Bytes, 2, len(p.Bytes))
	} else {
		dst = appendB64Field(dst, "bytes", p.Bytes)
	}
	if p.Err != nil {
		dst = append(dst, `,"error":`...)
		dst = jsontext.AppendString(dst, []byte(p.Err.Error()))
	}
	return append(dst, '}')
}

// EncodeProducerSnapshot writes a producer snapshot from the JSON
// AppendJSON writes (parsed: codec.ParseJSON): "bytes" as they are, or
// the version and the ProducerSnapshot message, its CRC as given.
func EncodeProducerSnapshot(v map[string]any) ([]byte, error) {
	if raw, err := rawPart(v, "bytes"); raw != nil || err != nil {
		return raw, err
	}
	ver, err := intField(v, "version", "", 0, 0x7fff)
	if err != nil {
		return nil, err
	}
	obj, ok := v["snapshot"].(map[string]any)
	if !ok {
		return nil, errorf("snapshot", "expected the ProducerSnapshot message or bytes")
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(ver))
	return encodeMessage(b, schema.DataMessage("ProducerSnapshot"), int16(ver), obj, "snapshot")
}

// Problems says what is wrong with the snapshot, each once: a CRC that
// does not match, and what could not be read (a file too short to hold a
// CRC has no CRC to mismatch).
func (p *ProducerSnapshot) Problems() []string {
	var out []string
	if !p.CRCValid && len(p.Bytes) >= 6 {
		out = append(out, "the CRC does not match the bytes")
	}
	if p.Err != nil {
		out = append(out, p.Err.Error())
	}
	return out
}

// ReadProducerSnapshot decodes the snapshot b, with the codec's limits
// for its size (a limit that stops it is its Err).
func ReadProducerSnapshot(b []byte) *ProducerSnapshot {
	var s slab.Slab
	return readProducerSnapshot(&s, b)
}
