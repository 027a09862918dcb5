package storage

import (
	"github.com/kwire/kwire/codec"
	"io"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// flushAt is how much JSON a batch's line holds before it is written away.
const flushAt = 256 << 10

// decoding is what Segment keeps from one entry's decoding to the next,
// so a warm reader allocates little: one budget per entry, memory reused.
type decoding struct {
	slab     slab.Slab
	spare    []byte
	scratch  rec.Scratch
	warnings budget.Warnings
	// inflations keeps Decode's decompressions for the JSON written after
	// it; res is Decode's result.
	inflations rec.Inflations
	res        rec.Result
	out        []byte
	// hole is the byte of out (the records' '[') left out when out is
	// written, -1 for none: cut out by writing around it, not by moving
	// the batch's JSON after it.
	hole int
	// topicWarned is set when a record of an internal topic did not
	// decode as one, or decoded with warnings.
	topicWarned bool
}

// internalTopic is the internal topic whose keys and values the segment
// decodes, or nil.
func (s *Segment) internalTopic() *schema.InternalTopic {
	if s.o.Kafka {
		return nil
	}
	return schema.InternalTopicByName(s.o.Topic)
}

// WriteJSON writes entry b as one JSON object to w, without a newline:
// head (the caller's opening, such as {"file":"...",; "{" when nil), then
//
//	"position":P,"size":N,"batch":{...}
//
// ("searched":true after "size" when a resync found the entry by
// searching past damage rather than by following lengths:
// Batch.Searched)
// where batch is the records JSON of the entry (the object the codec
// writes in a records field's list for that one batch or legacy message,
// which EncodeLine reads back), then,
// for an internal topic's records, "internal":[{"offset":O,...}], one
// decoded key and value per record (TopicRecord.AppendJSON), and
// "warnings":[{"offset","buf","path","message"}] (offsets in the segment
// for buffer 0, else in decompressed buffer buf; so are an internal
// record's "error" offsets). An entry passed over for
// its size has "skipped" and no "batch", and what its header says:
// "magic", "baseOffset", "lastOffset", "firstTimestamp", "maxTimestamp",
// "records" (Batch's fields; its CRC matched as it streamed past).
func (s *Segment) WriteJSON(w io.Writer, head []byte, b *Batch) error {
	d := &s.dec
	d.warnings.Reset()
	d.topicWarned = false
	d.hole = -1
	out := d.out[:0]
	if head == nil {
		head = []byte{'{'}
	}
	out = append(out, head...)
	out = append(out, `"position":`...)
	out = jsontext.AppendInt(out, b.Position)
	out = append(out, `,"size":`...)
	out = jsontext.AppendInt(out, b.Size())
	if b.Searched {
		out = append(out, `,"searched":true`...)
	}
	var err error
	switch {
	case b.Skipped:
		out = append(out, `,"skipped":`...)
		out = jsontext.AppendString(out, []byte("the entry declares "+strconv.FormatInt(b.Size()-entryHead, 10)+" bytes after its length, more than the limit ("+strconv.Itoa(s.o.MaxBatch)+"); passed over"))
		out = appendHeader(out, b)
	case s.internalTopic() != nil:
		out, err = s.internalJSON(out, b)
	default:
		out, err = s.fastJSON(w, out, b)
	}
	batchPaths(d.warnings.List)
	out = appendWarnings(out, d.warnings.List, b.Position)
	out = append(out, '}')
	d.out = out
	if err != nil {
		return err
	}
	return writeAround(w, out, d.hole)
}

// appendHeader appends what the header of an entry passed over says.
func appendHeader(out []byte, b *Batch) []byte {
	for _, f := range [...]struct {
		name string
		v    int64
	}{{"magic", int64(b.Magic)}, {"baseOffset", b.BaseOffset}, {"lastOffset", b.LastOffset}, {"firstTimestamp", b.FirstTimestamp},
		{"maxTimestamp", b.MaxTimestamp}, {"records", int64(b.Records)}} {
		out = append(out, ',', '"')
		out = append(out, f.name...)
		out = append(out, '"', ':')
		out = jsontext.AppendInt(out, f.v)
	}
	return out
}

// writeAround writes b to w without its byte at hole (none when -1).
func writeAround(w io.Writer, b []byte, hole int) error {
	if hole < 0 {
		_, err := w.Write(b)
		return err
	}
	if _, err := w.Write(b[:hole]); err != nil {
		return err
	}
	_, err := w.Write(b[hole+1:])
	return err
}

// fastJSON writes the records JSON straight from the bytes, flushing to w
// as it grows.
func (s *Segment) fastJSON(w io.Writer, out []byte, b *Batch) ([]byte, error) {
	d := &s.dec
	out = append(out, `,"batch":`...)
	open := len(out) // where records writes its '['
	var werr error
	flush := func() {
		if len(out) < flushAt || werr != nil {
			return
		}
		werr = writeAround(w, out, open)
		open = -1
		out = out[:0]
	}
	o := batchOptions(&d.warnings, &d.spare, s.o.MaxDecompressed, s.o.MaxNodes)
	o.Scratch = &d.scratch
	o.Payload, o.Topic = s.o.Payload, s.o.Topic
	_, err := rec.WriteJSON(&out, b.Bytes, o, flush)
	if open >= 0 && len(out) > open && out[open] == '[' {
		d.hole = open
	}
	if n := len(out); n > 0 && out[n-1] == ']' {
		out = out[:n-1]
	}
	if werr != nil {
		return out, werr
	}
	if err != nil {
		out = appendError(out, err)
	}
	return out, nil
}

// internalJSON decodes the entry as a tree, writes its records JSON and
// each record's key and value decoded through the topic's schemas.
func (s *Segment) internalJSON(out []byte, b *Batch) ([]byte, error) {
	d := &s.dec
	_, recs, err := s.Decode(b)
	res := &d.res
	out = append(out, `,"batch":`...)
	// The batch's JSON from its bytes again, its decompressions read
	// from the tree's walk and its warnings said once.
	o := batchOptions(nil, &d.spare, s.o.MaxDecompressed, s.o.MaxNodes)
	o.Scratch, o.Inflations = &d.scratch, d.inflations.Replay()
	if werr := writeBatchJSON(&out, b.Bytes, o); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		out = appendError(out, err)
	}
	if len(recs) > 0 {
		out = append(out, `,"internal":[`...)
		for i, r := range recs {
			if i > 0 {
				out = append(out, ',')
			}
			info, _ := res.Info(r.node)
			out = append(out, `{"offset":`...)
			out = jsontext.AppendInt(out, info.Offset)
			out = append(out, ',')
			rec := r.rec.AppendJSONAt(nil, b.Position)
			out = append(out, rec[1:]...)
		}
		out = append(out, ']')
	}
	_ = d
	return out, nil
}

// Entry is an entry's records decoded as a tree: Nodes (the batch or
// message), Derived (its decompressed buffers, numbered from Base) and
// Records (each record's node, absolute offset and timestamp; Info finds
// a node's).
type Entry = rec.Result

// ControlTypeName names a control record type ("ABORT", "COMMIT",
// "LEADER_CHANGE", ...), or "" if unknown.
func ControlTypeName(t int) string { return rec.ControlTypeName(t) }

// RecordInfo is a record's node, absolute offset and timestamp.
type RecordInfo = rec.RecordInfo

// DecodedRecord is a record of an internal topic's entry and its key and
// value decoded.
type DecodedRecord struct {
	node *tree.Node
	rec  *TopicRecord
}

// Node is the record's node in the entry's tree.
func (r DecodedRecord) Node() *tree.Node { return r.node }

// Topic is the record's key and value decoded.
func (r DecodedRecord) Topic() *TopicRecord { return r.rec }

// Decode decodes entry b as a tree (valid until the next call), with, for
// an internal topic, each data record's key and value decoded (control
// records are read by the records package: transaction markers, KRaft
// control values). Node offsets are within the entry (add b.Position for
// the segment's) or within its decompressed buffers.
func (s *Segment) Decode(b *Batch) (*Entry, []DecodedRecord, error) {
	d := &s.dec
	d.slab.Reset()
	d.warnings.Reset()
	d.topicWarned = false
	o := batchOptions(&d.warnings, &d.spare, s.o.MaxDecompressed, s.o.MaxNodes)
	if s.internalTopic() == nil {
		o.Payload, o.Topic = s.o.Payload, s.o.Topic
	}
	d.inflations.Keep()
	o.Inflations = &d.inflations
	res, err := decodeBatch(&d.slab, b.Bytes, o)
	batchPaths(d.warnings.List)
	d.res = rec.Result{}
	if res != nil {
		d.res = *res
	}
	t := s.internalTopic()
	if t == nil || res == nil || b.Control {
		return res, nil, err
	}
	var out []DecodedRecord
	for _, ri := range res.Records {
		k, v := ri.Node.Get("key"), ri.Node.Get("value")
		if k == nil || v == nil {
			continue
		}
		buf := res.Buffer(b.Bytes, k.Buf)
		r := decodeTopicRecord(&d.slab, t.Name, nodePart(k, buf), nodePart(v, res.Buffer(b.Bytes, v.Buf)))
		if r.Err != nil || len(r.Warnings()) > 0 {
			d.topicWarned = true
		}
		out = append(out, DecodedRecord{node: ri.Node, rec: r})
	}
	return res, out, err
}

// nodePart is the key or value a records node holds.
func nodePart(n *tree.Node, buf []byte) Part {
	return Part{Buf: buf, Index: n.Buf, Start: n.DataStart(), End: n.End, Null: n.Null}
}

func appendError(out []byte, err error) []byte {
	out = append(out, `,"error":`...)
	return jsontext.AppendString(out, []byte(err.Error()))
}

// batchPaths names the entry in its warnings' paths as its line does,
// "batch": the records reader, reading the entry alone, calls it its
// first, "[0]" ("[0].crc" is "batch.crc").
func batchPaths(ws []budget.Warning) {
	for i := range ws {
		if rest, ok := strings.CutPrefix(ws[i].Path, "[0]"); ok {
			ws[i].Path = "batch" + rest
		}
	}
}

// appendWarnings writes the entry's warnings, offsets in buffer 0 made
// positions in the segment.
func appendWarnings(out []byte, ws []budget.Warning, pos int64) []byte {
	if len(ws) == 0 {
		return out
	}
	out = append(out, `,"warnings":[`...)
	for i, x := range ws {
		if i > 0 {
			out = append(out, ',')
		}
		off := int64(x.Offset)
		if x.Buf == 0 {
			off += pos
		}
		out = append(out, `{"offset":`...)
		out = jsontext.AppendInt(out, off)
		if x.Buf != 0 {
			out = append(out, `,"buf":`...)
			out = jsontext.AppendInt(out, int64(x.Buf))
		}
		out = append(out, `,"path":`...)
		out = jsontext.AppendString(out, []byte(x.Path))
		out = append(out, `,"message":`...)
		out = jsontext.AppendString(out, []byte(x.Message))
		if x.Limit {
			out = append(out, `,"limit":true`...)
		}
		out = append(out, '}')
	}
	return append(out, ']')
}

// Warnings are the warnings of the entry decoded last (WriteJSON or
// Decode), offsets within the entry or its decompressed buffers.
func (s *Segment) Warnings() []codec.Warning { return s.dec.warnings.List }

// Warned reports whether the entry decoded last had warnings: its
// reading's (Warnings), or, for an internal topic, a record that did not
// decode as one of its records or decoded with warnings (its
// TopicRecord's Err and Warnings).
func (s *Segment) Warned() bool { return len(s.dec.warnings.List) > 0 || s.dec.topicWarned }
