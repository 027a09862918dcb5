package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
)

// EncodeLine gives back the bytes a line of kwire log's JSON was read
// from, as parsed (codec.ParseJSON) with its "kind":
//
//   - "batch": the entry, from its records JSON; an internal topic's
//     decoded keys and values ("internal", by offset) are encoded and take
//     the place of the records' key and value where they differ, so an
//     edit made to either form is kept;
//   - "damage": the bytes of a damaged region inside a segment, when the
//     line has them;
//   - "tail": the bytes of a torn or corrupt tail, when the line has them
//     (a torn tail too large to carry whole carries those before its
//     "zeroFrom", and the zeros after them, "size" in all, are given);
//     for a tail of zeros ("zero":true, TailError.Zero), "size" zeros (at
//     most MaxUnused) when it has none;
//   - "index", "timeindex", "txnindex": the entry; "index-unused",
//     "timeindex-unused": the zero entries of preallocated space ("count"
//     of them, at most MaxUnused bytes); "index-tail", "timeindex-tail",
//     "txnindex-tail": the bytes of a partial entry at the end ("bytes");
//   - "producer-snapshot": the file.
//
// A text file's lines (checkpoints' entries, meta.properties,
// partition.metadata, quorum-state) carry what was read, not the text: an
// error says they have no bytes to give. Other lines that describe rather
// than hold bytes (summaries, problems) give none.
//
// The zeros it gives are held in memory: EncodeLineZeros counts them
// instead.
func EncodeLine(kind string, v map[string]any) ([]byte, error) {
	b, zeros, err := EncodeLineZeros(kind, v)
	if err != nil || zeros == 0 {
		return b, err
	}
	out := make([]byte, int64(len(b))+zeros)
	copy(out, b)
	return out, nil
}

// EncodeLineZeros is EncodeLine with the zeros that end the bytes left
// out and counted: EncodeLine gives b followed by zeros zero bytes. A
// line that stands for zeros alone (a tail of zeros without its bytes,
// an index's unused space) gives no bytes and their count; a torn tail
// carrying its bytes up to "zeroFrom" gives those bytes and the zeros
// after them ("size" in all); any other line gives its bytes and 0. A
// caller writing them out (kwire encode) writes the zeros in pieces
// rather than hold them, since a line of a few hundred bytes may ask for
// MaxUnused of them.
func EncodeLineZeros(kind string, v map[string]any) (b []byte, zeros int64, err error) {
	switch kind {
	case "batch":
		b, ok := v["batch"].(map[string]any)
		if !ok {
			if why, ok := v["skipped"].(string); ok {
				// --max-batch passed the entry over: its bytes were
				// never read, so they are not in the line.
				return nil, 0, errorf("skipped", "the entry was not read ("+why+"), so this line does not carry its bytes: read it again with a larger limit (kwire log --max-batch)")
			}
			return nil, 0, errorf("batch", "expected the entry's records JSON")
		}
		if in, ok := v["internal"].([]any); ok {
			topic, _ := v["topic"].(string)
			if err := applyInternal(b, topic, in); err != nil {
				return nil, 0, err
			}
		}
		p, err := encodeBatches(nil, b)
		return p, 0, err
	case "tail", "index-unused", "timeindex-unused":
		if n, ok, err := zeroLine(kind, v); ok || err != nil {
			if err != nil {
				return nil, 0, err
			}
			return []byte{}, n, nil
		}
		if _, ok := v["bytes"]; !ok {
			return nil, 0, errorf("bytes", "the tail was too large to carry its bytes")
		}
		b, err := rawPart(v, "bytes")
		if err != nil || kind != "tail" {
			return b, 0, err
		}
		return zerosAfter(b, v)
	case "damage":
		if _, ok := v["bytes"]; !ok {
			return nil, 0, errorf("bytes", "the damaged region was too large to carry its bytes")
		}
		b, err := rawPart(v, "bytes")
		return b, 0, err
	case "index", "timeindex", "txnindex":
		b, err := encodeIndexEntry(kind, v)
		return b, 0, err
	case "index-tail", "timeindex-tail", "txnindex-tail":
		b, err := rawPart(v, "bytes")
		return b, 0, err
	case "producer-snapshot":
		b, err := EncodeProducerSnapshot(v)
		return b, 0, err
	case "leader-epoch", "offset-checkpoint", "leader-epoch-error", "offset-checkpoint-error", "meta-properties", "partition-metadata", "quorum-state":
		// What a text file holds, read, not its text: giving nothing
		// would pass for an empty file.
		return nil, 0, errorf("kind", "a line of a text file ("+kind+") says what the file holds, not its bytes: there are none to give back (copy the file itself)")
	}
	return []byte{}, 0, nil
}

// zerosAfter counts the zeros that end the tail whose bytes b a line
// carries: a torn tail too large to carry whole carries its bytes up to
// "zeroFrom", and "size" says how many zeros follow them (at most
// MaxUnused); 0 for a tail carried whole.
func zerosAfter(b []byte, v map[string]any) ([]byte, int64, error) {
	if _, ok := v["zeroFrom"]; !ok {
		return b, 0, nil
	}
	pos, err := intField(v, "position", "", 0, math.MaxInt64)
	if err != nil {
		return nil, 0, err
	}
	from, err := intField(v, "zeroFrom", "", pos, math.MaxInt64)
	if err != nil {
		return nil, 0, err
	}
	size, err := intField(v, "size", "", 0, math.MaxInt64)
	if err != nil {
		return nil, 0, err
	}
	if int64(len(b)) == size || pos+int64(len(b)) != from {
		return b, 0, nil
	}
	if size-int64(len(b)) > MaxUnused {
		return nil, 0, errorf("size", "the tail's zeros after its bytes ("+strconv.FormatInt(size-int64(len(b)), 10)+") are more than are written back ("+strconv.Itoa(MaxUnused)+")")
	}
	if size < int64(len(b)) {
		return nil, 0, errorf("size", "the tail's size is less than its bytes")
	}
	return b, size - int64(len(b)), nil
}

// zeroLine reports whether a line of kwire log's JSON stands for zeros
// alone (a tail of zeros without its bytes, an index's unused space), and
// how many.
func zeroLine(kind string, v map[string]any) (n int64, ok bool, err error) {
	switch kind {
	case "tail":
		if _, has := v["bytes"]; has {
			return 0, false, nil
		}
		if zero, _ := v["zero"].(bool); !zero {
			return 0, false, nil
		}
		n, err = intField(v, "size", "", 0, MaxUnused)
		return n, true, err
	case "index-unused", "timeindex-unused":
		size := int64(OffsetIndex.size())
		if kind == "timeindex-unused" {
			size = int64(TimeIndex.size())
		}
		n, err = intField(v, "count", "", 0, MaxUnused/size)
		return n * size, true, err
	}
	return 0, false, nil
}

// MaxUnused is the most preallocated index space, or zero-filled tail of
// a segment, EncodeLine writes back: far past Kafka's default
// segment.index.bytes (10 MiB).
const MaxUnused = 256 << 20

// applyInternal encodes each decoded record of in and puts its key and
// value into the record of b with the same offset, where they differ.
func applyInternal(b map[string]any, topic string, in []any) error {
	byOffset := map[int64]map[string]any{}
	var walk func(list any)
	walk = func(list any) {
		items, _ := list.([]any)
		for _, x := range items {
			r, ok := x.(map[string]any)
			if !ok {
				continue
			}
			if off, err := intField(r, "offset", "", math.MinInt64, math.MaxInt64); err == nil {
				byOffset[off] = r
			}
			walk(r["messages"])
		}
	}
	walk(b["records"])
	walk(b["messages"])
	if off, err := intField(b, "offset", "", math.MinInt64, math.MaxInt64); err == nil && b["key"] != nil {
		byOffset[off] = b
	}
	for i, x := range in {
		d, ok := x.(map[string]any)
		if !ok {
			return errorf("internal["+itoa(int64(i))+"]", "expected an object")
		}
		off, err := intField(d, "offset", "internal["+itoa(int64(i))+"]", math.MinInt64, math.MaxInt64)
		if err != nil {
			return err
		}
		r := byOffset[off]
		if r == nil {
			return errorf("internal["+itoa(int64(i))+"].offset", "no record of the batch has offset "+itoa(off))
		}
		key, value, err := EncodeTopicRecord(topic, d)
		if err != nil {
			return errorf("internal["+itoa(int64(i))+"]", err.Error())
		}
		for name, part := range map[string][]byte{"key": key, "value": value} {
			if cur, ok := currentBytes(r[name]); ok && (cur == nil) == (part == nil) && bytes.Equal(cur, part) {
				continue
			}
			if part == nil {
				r[name] = nil
			} else {
				r[name] = map[string]any{"base64": base64.StdEncoding.EncodeToString(part)}
			}
		}
	}
	return nil
}

// currentBytes reads a record's key or value as records JSON writes it.
func currentBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return []byte(t), true
		}
		if s, ok := x["base64"].(string); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if b == nil {
				b = []byte{}
			}
			return b, err == nil
		}
	}
	return nil, false
}

// encodeIndexEntry writes an index entry from its JSON.
func encodeIndexEntry(kind string, v map[string]any) ([]byte, error) {
	get := func(name string, lo, hi int64) int64 {
		n, _ := intField(v, name, "", lo, hi)
		return n
	}
	for _, name := range map[string][]string{"index": {"relativeOffset", "position"}, "timeindex": {"timestamp", "relativeOffset"},
		"txnindex": {"version", "producerId", "firstOffset", "lastOffset", "lastStableOffset"}}[kind] {
		if _, err := intField(v, name, "", math.MinInt64, math.MaxInt64); err != nil {
			return nil, err
		}
	}
	var b []byte
	switch kind {
	case "index":
		b = binary.BigEndian.AppendUint32(b, uint32(get("relativeOffset", math.MinInt32, math.MaxInt32)))
		b = binary.BigEndian.AppendUint32(b, uint32(get("position", math.MinInt32, math.MaxInt32)))
	case "timeindex":
		b = binary.BigEndian.AppendUint64(b, uint64(get("timestamp", math.MinInt64, math.MaxInt64)))
		b = binary.BigEndian.AppendUint32(b, uint32(get("relativeOffset", math.MinInt32, math.MaxInt32)))
	case "txnindex":
		b = binary.BigEndian.AppendUint16(b, uint16(get("version", math.MinInt16, math.MaxInt16)))
		for _, name := range []string{"producerId", "firstOffset", "lastOffset", "lastStableOffset"} {
			b = binary.BigEndian.AppendUint64(b, uint64(get(name, math.MinInt64, math.MaxInt64)))
		}
	}
	return b, nil
}
