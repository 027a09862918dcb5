package rec

// What a segment's reader wants to know of an entry beyond its header,
// read without the walk, its budget or a sink: codec/storage's Segment
// asks it of every entry it describes.

// WrapperSpan reads the message set inside the legacy (magic 0 or 1)
// compressed wrapper message entry (all of it): how many messages it
// holds and the absolute offset of the first (a magic 1 wrapper's inner
// offsets are relative, the wrapper's offset its last message's). It
// decompresses at most limit bytes, into *spare's memory, which it keeps
// for the next call. ok is false when the value cannot be read or
// decompressed, or holds no whole message; messages are counted at the
// first level (a wrapper inside counts as one). firstTS is the first
// message's timestamp: its own (magic 1), or the wrapper's under
// log-append time (-1 for magic 0).
func WrapperSpan(entry []byte, limit int, spare *[]byte) (first, firstTS int64, count int, ok bool) {
	if len(entry) < 17 {
		return 0, 0, 0, false
	}
	var m msgParse
	parseMessage(entry, 0, len(entry), &m)
	codec := m.attrs & 7
	if m.stage < 2 || m.val.null || codec == CodecNone {
		return 0, 0, 0, false
	}
	out, err := inflateSpare(spare, codec, m.val.raw, limit)
	if err != nil {
		return 0, 0, 0, false
	}
	firstTS = -1
	for off := 0; off < len(out); {
		_, next, whole, err := frameAt(out, off, len(out))
		if err != nil || !whole {
			break
		}
		if count == 0 {
			first = be64(out[off:])
			if out[off+16] == 1 && off+26 <= len(out) {
				firstTS = be64(out[off+18:])
			}
		}
		count++
		off = next
	}
	if count == 0 {
		return 0, 0, 0, false
	}
	if m.magic == 1 && m.attrs&8 != 0 { // the wrapper's log-append time
		firstTS = m.ts
	}
	return first + innerShift(out, 0, len(out), &m), firstTS, count, true
}

// FirstRecordTimestamp is the timestamp of the first record of the
// record batch b (all of it, or, uncompressed, at least its header and
// its first record's length, attributes and timestamp delta): the base
// timestamp plus that delta. A batch whose delete-horizon attribute is
// set keeps the horizon in its base timestamp, and its records' deltas
// are from it. Compressed records are decompressed (at most limit bytes,
// into *spare, kept as in WrapperSpan). ok is false when the first
// record's start cannot be read.
func FirstRecordTimestamp(b []byte, limit int, spare *[]byte) (ts int64, ok bool) {
	if len(b) < batchHeader {
		return 0, false
	}
	recs := b[batchHeader:]
	if codec := int(be16(b[21:]) & 7); codec != CodecNone {
		out, err := inflateSpare(spare, codec, recs, limit)
		if err != nil {
			return 0, false
		}
		recs = out
	}
	_, n, _ := varint(recs, 0, len(recs)) // the record's length
	if n <= 0 || n+1 >= len(recs) {
		return 0, false
	}
	delta, k, _ := varlong(recs, n+1, len(recs)) // after its attributes
	if k <= 0 {
		return 0, false
	}
	return be64(b[27:]) + delta, true
}

// inflateSpare decompresses src (at most limit bytes) into *spare's
// memory, keeping a bigger buffer the decompression made for the next.
func inflateSpare(spare *[]byte, codec int, src []byte, limit int) ([]byte, error) {
	out, _, _, err := inflateInto((*spare)[:0], codec, src, limit)
	if cap(out) > cap(*spare) {
		*spare = out[:0]
	}
	return out, err
}
