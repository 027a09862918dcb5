package rec

import (
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// TreeInfo gives a record's or message's absolute offset and timestamp.
type TreeInfo func(n *tree.Node) (offset, timestamp int64, ok bool)

// TreePart writes the members a payload hook made of a key or value node
// n (one with children of its own, outside control records) into its
// object: ",\"format\":...".
type TreePart func(dst []byte, n *tree.Node) []byte

// AppendTreeJSON appends the JSON form of a records field from its
// decoded tree, without the reader: the reference the differential tests
// hold the reader's JSON sink to (only they link it). Its leaves are the
// sink's own (appendAttrs, jsontext.AppendTextOrBase64, ...): what it checks is the
// structure. raw is the field's bytes (used by Base64 and Size; Decoded
// reads nodes). A nil info in Decoded mode writes null. part, when set,
// writes the members a payload hook read of keys and values; data is
// Options.DataJSON.
//
// Decoded form: an array with one object per entry.
//
//	Batch (magic 2): {"baseOffset","partitionLeaderEpoch","magic":2,"crc",
//	  "attributes":{"compression":"none|gzip|snappy|lz4|zstd" (or a number),
//	    "timestampType":"CreateTime|LogAppendTime","transactional","control",
//	    "deleteHorizon", "otherBits" (only when bits 7-15 are set)},
//	  "lastOffsetDelta","baseTimestamp","maxTimestamp","producerId",
//	  "producerEpoch","baseSequence","records":[...] (null if undecodable),
//	  "_compressed":"<base64 of the compressed records bytes>" (compressed only),
//	  "_sizeInBytes" (the whole batch's bytes), "_uncompressedBytes" and
//	  "_compressionRatio" (compressed and decompressed only),
//	  "_raw":"<base64 of the whole batch>" (only when it decoded with warnings)}
//	Record: {"attributes","timestampDelta","offsetDelta","offset","timestamp",
//	  "key","value","headers":[{"key","value"}],
//	  "control":{...} (control batches: "keyVersion","type" name or number,
//	    "valueVersion", "coordinatorEpoch" (markers) or "data" (KRaft: the message, its own version first))}
//	Message (magic 0/1): {"offset","magic","crc","attributes":{"compression",
//	  "timestampType" (magic 1)},"timestamp" (magic 1),"key","value"} where a
//	  compressed wrapper has "messages":[...] and "_compressed" instead of
//	  "value"; inner messages whose absolute offset differs from the stored
//	  one add "absoluteOffset", and those of a wrapper stamped with its
//	  log-append time add it, "logAppendTime" (their timestamp as Kafka
//	  reads it); "_raw" as for batches.
//	A final entry cut short: {"_truncated":"<base64>"}; undecodable bytes
//	  after a framing error: {"_raw":"<base64>"}.
//
// Keys, values and header values are null, {"text":"..."} when the bytes
// are valid UTF-8 of printable characters (and tab, CR, LF), else
// {"base64":"..."}. Header keys are a plain string when valid UTF-8, else
// {"base64":"..."}, or null. "crc", "offset", "timestamp",
// "absoluteOffset", "logAppendTime" and "control" are informational:
// Encode recomputes or ignores them.
func AppendTreeJSON(dst []byte, nodes []*tree.Node, info TreeInfo, raw []byte, mode JSONMode, part TreePart, data DataJSONFunc) []byte {
	switch mode {
	case Size:
		dst = append(dst, `{"sizeInBytes":`...)
		dst = strconv.AppendInt(dst, int64(len(raw)), 10)
		return append(dst, '}')
	case Base64:
		return jsontext.AppendBase64(dst, raw)
	}
	if info == nil {
		return append(dst, "null"...)
	}
	j := treeWriter{info: info, part: part, data: data}
	return j.entries(dst, nodes)
}

type treeWriter struct {
	info TreeInfo
	part TreePart
	data DataJSONFunc
}

// bytesJSON writes a record's or message's key or value, with the
// members a payload hook made of it.
func (j *treeWriter) bytesJSON(dst []byte, n *tree.Node) []byte {
	dst = appendBytesJSON(dst, n)
	if j.part == nil || n == nil || n.Null || len(n.Children) == 0 {
		return dst
	}
	members := j.part(nil, n)
	if len(members) == 0 {
		return dst
	}
	dst = append(dst[:len(dst)-1], members...)
	return append(dst, '}')
}

func (j *treeWriter) entries(dst []byte, nodes []*tree.Node) []byte {
	dst = append(dst, '[')
	for i, n := range nodes {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch {
		case n.Role == tree.RoleRaw:
			dst = append(dst, `{"_raw":`...)
			dst = jsontext.AppendBase64(dst, n.Raw)
			dst = append(dst, '}')
		case n.Flags&tree.Truncated != 0:
			dst = append(dst, `{"_truncated":`...)
			dst = jsontext.AppendBase64(dst, n.Raw)
			dst = append(dst, '}')
		case n.Type == "RecordBatch":
			dst = j.batch(dst, n)
		default:
			dst = j.message(dst, n)
		}
	}
	return append(dst, ']')
}

// hasWarnings reports whether the records reader said a warning inside
// entry n (or left bytes raw): what a payload hook made under a key or
// value (and said there) is not the entry's.
func hasWarnings(n *tree.Node) bool {
	if len(n.Warnings) > 0 || n.Role == tree.RoleRaw {
		return true
	}
	hooked := n.Role == tree.RoleRecord && (n.Name == "key" || n.Name == "value")
	for _, c := range n.Children {
		if hooked && !isInflated(c) {
			continue
		}
		if hasWarnings(c) {
			return true
		}
	}
	return false
}

func key(dst []byte, first bool, k string) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

func intField(dst []byte, n *tree.Node, name string, first bool) []byte {
	dst = key(dst, first, name)
	if c := child(n, name); c != nil {
		return strconv.AppendInt(dst, c.Int, 10)
	}
	return append(dst, '0')
}

func (j *treeWriter) batch(dst []byte, n *tree.Node) []byte {
	dst = append(dst, '{')
	dst = intField(dst, n, "baseOffset", true)
	dst = intField(dst, n, "partitionLeaderEpoch", false)
	dst = intField(dst, n, "magic", false)
	dst = intField(dst, n, "crc", false)
	attrs := 0
	if a := child(n, "attributes"); a != nil {
		attrs = int(a.Int)
	}
	dst = appendAttrs(dst, attrs, 2)
	for _, f := range [...]string{"lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence"} {
		dst = intField(dst, n, f, false)
	}
	recs := child(n, "records")
	dst = key(dst, false, "records")
	if recs == nil {
		dst = append(dst, "null"...)
	} else {
		list := recs.Children
		ok := true
		if attrs&7 != 0 {
			ok = len(list) == 1 && isInflated(list[0])
			if ok {
				list = list[0].Children
			}
		}
		if !ok {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, '[')
			first := true
			for _, r := range list {
				if r.Type != "Record" {
					continue
				}
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = j.record(dst, r, attrs&0x20 != 0)
			}
			dst = append(dst, ']')
		}
		if attrs&7 != 0 {
			dst = key(dst, false, "_compressed")
			dst = jsontext.AppendBase64(dst, recs.Raw)
		}
	}
	// The batch's size, and the compression's when its records were
	// decompressed: from the tree's spans, not from the reader's counts.
	inflated := -1
	if recs != nil && attrs&7 != 0 && len(recs.Children) == 1 && isInflated(recs.Children[0]) {
		inflated = recs.Children[0].End - recs.Children[0].Start
	}
	compressed := 0
	if recs != nil {
		compressed = len(recs.Raw)
	}
	dst = appendBatchSize(dst, n.End-n.Start, compressed, inflated)
	// Records left compressed were warned of, maybe in the warning of the
	// first batch a limit left so (the reader's leftCompressed).
	if hasWarnings(n) || attrs&7 != 0 && inflated < 0 {
		dst = j.rawOf(dst, n)
	}
	return append(dst, '}')
}

// rawOf writes "_raw" with the bytes of the entry n (kept in n.Raw).
func (j *treeWriter) rawOf(dst []byte, n *tree.Node) []byte {
	if n.Raw == nil {
		return dst
	}
	dst = key(dst, false, "_raw")
	return jsontext.AppendBase64(dst, n.Raw)
}

func (j *treeWriter) record(dst []byte, r *tree.Node, control bool) []byte {
	off, ts, _ := j.info(r)
	dst = append(dst, '{')
	dst = intField(dst, r, "attributes", true)
	dst = intField(dst, r, "timestampDelta", false)
	dst = intField(dst, r, "offsetDelta", false)
	dst = key(dst, false, "offset")
	dst = strconv.AppendInt(dst, off, 10)
	dst = key(dst, false, "timestamp")
	dst = strconv.AppendInt(dst, ts, 10)
	k, v := child(r, "key"), child(r, "value")
	dst = key(dst, false, "key")
	if control {
		dst = appendBytesJSON(dst, k)
	} else {
		dst = j.bytesJSON(dst, k)
	}
	dst = key(dst, false, "value")
	if control {
		dst = appendBytesJSON(dst, v)
	} else {
		dst = j.bytesJSON(dst, v)
	}
	dst = key(dst, false, "headers")
	dst = append(dst, '[')
	if hs := child(r, "headers"); hs != nil {
		for i, h := range hs.Children {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			if hk := child(h, "key"); hk != nil {
				dst = appendHeaderKey(dst, hk.Raw, hk.Null)
			} else {
				dst = append(dst, "null"...)
			}
			dst = append(dst, `,"value":`...)
			dst = appendBytesJSON(dst, child(h, "value"))
			dst = append(dst, '}')
		}
	}
	dst = append(dst, ']')
	if control && k != nil && len(k.Children) >= 2 {
		dst = key(dst, false, "control")
		dst = append(dst, `{"keyVersion":`...)
		dst = strconv.AppendInt(dst, k.Children[0].Int, 10)
		dst = append(dst, `,"type":`...)
		dst = appendName(dst, ControlTypeName, int(k.Children[1].Int))
		if v != nil {
			for _, c := range v.Children {
				switch c.Name {
				case "version":
					dst = append(dst, `,"valueVersion":`...)
					dst = strconv.AppendInt(dst, c.Int, 10)
				case "coordinatorEpoch":
					dst = append(dst, `,"coordinatorEpoch":`...)
					dst = strconv.AppendInt(dst, c.Int, 10)
				case "rest":
				default: // the data message: read (a struct), or its bytes
					dst = append(dst, `,"data":`...)
					if t := k.Children[1].Int; c.Kind == schema.Struct && j.data != nil && t >= 0 && t < int64(len(controlData)) {
						dst = j.data(dst, controlData[t], int16(be16(v.Raw)), v.Raw, 0, len(v.Raw))
					} else {
						dst = jsontext.AppendBase64(dst, v.Raw)
					}
				}
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func (j *treeWriter) message(dst []byte, m *tree.Node) []byte {
	off, ts, ok := j.info(m)
	dst = append(dst, '{')
	dst = intField(dst, m, "offset", true)
	if o := child(m, "offset"); o != nil && o.Int != off && ok {
		dst = key(dst, false, "absoluteOffset")
		dst = strconv.AppendInt(dst, off, 10)
	}
	dst = intField(dst, m, "magic", false)
	dst = intField(dst, m, "crc", false)
	magic := 0
	if c := child(m, "magic"); c != nil {
		magic = int(c.Int)
	}
	attrs := 0
	if a := child(m, "attributes"); a != nil {
		attrs = int(a.Int) & 0xff
	}
	dst = appendAttrs(dst, attrs, magic)
	if magic == 1 {
		dst = intField(dst, m, "timestamp", false)
		if t := child(m, "timestamp"); t != nil && ok && t.Int != ts {
			dst = key(dst, false, "logAppendTime")
			dst = strconv.AppendInt(dst, ts, 10)
		}
	}
	if k := child(m, "key"); k != nil {
		dst = key(dst, false, "key")
		dst = j.bytesJSON(dst, k)
	}
	leftCompressed := false
	if v := child(m, "value"); v != nil {
		if attrs&7 != 0 && !v.Null {
			dst = key(dst, false, "messages")
			if len(v.Children) == 1 && isInflated(v.Children[0]) {
				dst = j.entries(dst, v.Children[0].Children)
			} else {
				dst = append(dst, "null"...)
				leftCompressed = true
			}
			dst = key(dst, false, "_compressed")
			dst = jsontext.AppendBase64(dst, v.Raw)
		} else {
			dst = key(dst, false, "value")
			dst = j.bytesJSON(dst, v)
		}
	}
	if hasWarnings(m) || leftCompressed {
		dst = j.rawOf(dst, m)
	}
	return append(dst, '}')
}

func appendBytesJSON(dst []byte, n *tree.Node) []byte {
	if n == nil || n.Null {
		return append(dst, "null"...)
	}
	return jsontext.AppendTextOrBase64(dst, n.Raw)
}

// child is the first child of n named name, or nil.
func child(n *tree.Node, name string) *tree.Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// isInflated reports whether n is the node of a batch's or wrapper's
// decompressed bytes as the tree sink makes it (inflated): of a codec's
// type ("gzip inflated"), its number in Int. What a payload decoder
// hangs under a key or value is told from it so, not by its name: a
// payload's member may be named "inflated" too.
func isInflated(n *tree.Node) bool {
	return n.Role == tree.RoleRecord && n.Kind == schema.Bytes && n.Name == "inflated" &&
		n.Int > CodecNone && n.Type == CodecName(int(n.Int))+" inflated"
}
