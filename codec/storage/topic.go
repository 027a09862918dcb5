package storage

import (
	"errors"
	"strconv"

	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Part is a record's key or value as DecodeTopicRecord reads it: the
// bytes Buf[Start:End], numbered Index for the nodes' Buf (so a caller
// decoding records inside a frame or a decompressed batch gets spans in
// its own buffers), or null.
type Part struct {
	Buf        []byte
	Index      int
	Start, End int
	Null       bool
}

// BytesPart is a key or value given as bytes of its own: nil is null.
func BytesPart(b []byte) Part { return Part{Buf: b, End: len(b), Null: b == nil} }

func (p Part) bytes() []byte { return p.Buf[p.Start:p.End] }

// TopicRecord is a record of one of Kafka's internal topics decoded
// through Kafka's schemas for it: the record type its key or frame
// declares, and its key and value as named fields with their spans.
type TopicRecord struct {
	Topic *schema.InternalTopic
	// Schema is the record type's schemas, nil when the type is unknown or
	// could not be read.
	Schema *schema.InternalRecord
	// Type is the coordinator record type or the metadata apiKey, -1 when
	// not read.
	Type int16
	// ValueVersion is the version of the value (coordinator framing) or of
	// the record (metadata framing); FrameVersion the metadata frame's.
	ValueVersion, FrameVersion int16
	Key, Value                 Part // the bytes that were read
	// KeyNode and ValueNode cover every byte of the key and the value (nil
	// when null): the framing (type, version, frame version) and the
	// message, which is KeyMessage or ValueMessage (nil when not decoded).
	KeyNode, ValueNode       *tree.Node
	KeyMessage, ValueMessage *tree.Node
	// Err is the first failure (a *RecordError); the nodes hold what was
	// read before it.
	Err error
}

// RecordError is a key or value that could not be read as its schema
// says: which part, the offset in its buffer, the field path, and what
// went wrong.
type RecordError struct {
	Part   string // "key" or "value"
	Offset int
	Path   string
	Msg    string
	Err    error // the codec's *codec.DecodeError, when it is one
}

// Error says which part failed, at which offset and path, and why.
func (e *RecordError) Error() string {
	s := "storage: " + e.Part + " at offset " + strconv.Itoa(e.Offset)
	if e.Path != "" {
		s += " (" + e.Path + ")"
	}
	return s + ": " + e.Msg
}

// Unwrap gives the codec's error underneath (a *codec.DecodeError), or
// nil, so errors.As finds it.
func (e *RecordError) Unwrap() error { return e.Err }

// DecodeTopicRecord decodes a record of the internal topic named topic
// (its key and value, as a records walker finds them).
// It returns nil when topic is not one of Kafka's internal topics whose
// records the schemas describe (schema.InternalTopicByName), so it can be
// called for every record. It never panics; what cannot be read is in
// Err, with what was read before it.
func DecodeTopicRecord(topic string, key, value Part) *TopicRecord {
	return decodeTopicRecord(new(slab.Slab), topic, key, value)
}

// decodeTopicRecord is DecodeTopicRecord into nodes from s: the key and
// the value each read by the codec's walk (readTopicPart), as records of
// the topic are read inside frames.
func decodeTopicRecord(s *slab.Slab, topic string, key, value Part) *TopicRecord {
	t := schema.InternalTopicByName(topic)
	if t == nil {
		return nil
	}
	r := &TopicRecord{Topic: t, Type: -1, Key: key, Value: value}
	coordinator := t.Framing == schema.CoordinatorFraming
	// read reads the key or the value into its node, whose children are
	// the walk's nodes; the record type comes from the part that frames
	// it (a coordinator's key, a metadata value).
	read := func(name string, p Part, key bool) (*tree.Node, datamsg.TopicPart) {
		tp := r.part(p, key)
		tp.Slab = s
		n := partNode(s, name, p)
		_, n.Children = readTopicPart(nil, &tp)
		if key == coordinator {
			r.Type, r.Schema = tp.Type, tp.Record
		}
		r.fail(name, &tp)
		return n, tp
	}
	if !key.Null {
		var p datamsg.TopicPart
		r.KeyNode, p = read("key", key, true)
		r.KeyMessage = p.Msg
	}
	switch {
	case !value.Null:
		var p datamsg.TopicPart
		r.ValueNode, p = read("value", value, false)
		r.ValueMessage, r.ValueVersion, r.FrameVersion = p.Msg, p.Version, p.FrameVersion
	case !coordinator:
		r.fail("value", &datamsg.TopicPart{Failed: true, FailMsg: "a record of " + t.Name + " has a value; this one is null"})
	}
	return r
}

// part is key or value (the record's other part named in it) for
// datamsg.ReadTopicPart.
func (r *TopicRecord) part(p Part, key bool) datamsg.TopicPart {
	tp := datamsg.TopicPart{Topic: r.Topic, B: p.Buf, Buf: p.Index, Start: p.Start, End: p.End, Key: key}
	if !key && !r.Key.Null {
		tp.RecordKey = r.Key.Buf[r.Key.Start:r.Key.End]
	}
	return tp
}

// fail keeps the first failure: part's, when reading it failed.
func (r *TopicRecord) fail(part string, p *datamsg.TopicPart) {
	if r.Err == nil && p.Failed {
		r.Err = &RecordError{Part: part, Offset: p.FailOffset, Path: p.FailPath, Msg: p.FailMsg, Err: p.FailErr}
	}
}

// partNode is the node of a whole key or value.
func partNode(s *slab.Slab, name string, p Part) *tree.Node {
	n := s.New()
	n.Name, n.Role, n.Type, n.Buf = name, tree.RoleRecord, "bytes", p.Index
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = p.Start, p.Start, p.Start, p.Start, p.End
	n.Raw = p.bytes()
	return n
}

// Warnings lists the warnings of the record's nodes in document order.
func (r *TopicRecord) Warnings() []string {
	var out []string
	for _, n := range [...]*tree.Node{r.KeyNode, r.ValueNode} {
		if n != nil {
			tree.Walk(n, func(x *tree.Node) bool {
				out = append(out, x.Warnings...)
				return true
			})
		}
	}
	return out
}

// AppendJSON appends the record as value JSON, which EncodeTopicRecord
// reads back:
//
//	coordinator topics: {"type":2,"keySchema":"GroupMetadataKey","key":{...},
//	  "valueVersion":3,"valueSchema":"GroupMetadataValue","value":{...}}
//	  ("value":null for a tombstone)
//	metadata topics:    {"frameVersion":1,"type":2,"version":0,
//	  "schema":"TopicRecord","value":{...}}
//
// The members are written by the codec's walk, reading the bytes again
// into its JSON writer (the tree's reading wrote the nodes), as records of
// these topics are written inside frames. A part that could not be read
// as its schema says is written whole as "keyBytes" or "valueBytes"
// (base64) after the members read before the failure, beside "error":
// {"part","offset","path","message"}; "warnings" lists the lenient
// readings. Consumer-protocol bytes in a classic group's members are
// written decoded, {"version":N,...}.
func (r *TopicRecord) AppendJSON(dst []byte) []byte { return r.AppendJSONAt(dst, 0) }

// ErrorAt is where the record's failure (nil when it is none a
// *RecordError) lies, for an entry whose bytes start at pos in its
// segment: a segment position when it is in the entry's own bytes (buf
// 0), else an offset in decompressed records buffer buf. kwire log's
// "error" and the playground both say it so.
func (r *TopicRecord) ErrorAt(pos int64) (re *RecordError, off int64, buf int) {
	if !errors.As(r.Err, &re) {
		return nil, 0, 0
	}
	buf = r.Key.Index
	if re.Part == "value" {
		buf = r.Value.Index
	}
	off = int64(re.Offset)
	if buf == 0 {
		off += pos
	}
	return re, off, buf
}

// AppendJSONAt is AppendJSON for a record of an entry that starts at pos
// in its segment: the error's offset is a position in the segment when it
// is in buffer 0 (the entry's bytes), as kwire log says it; in a
// decompressed buffer it stays an offset there, and "buf" says which, as
// a batch's warnings say theirs.
func (r *TopicRecord) AppendJSONAt(dst []byte, pos int64) []byte {
	at := len(dst)
	coordinator := r.Topic.Framing == schema.CoordinatorFraming
	if r.Type == -1 {
		dst = append(dst, `,"type":-1`...) // not read: "type" is always there
	}
	if coordinator {
		if !r.Key.Null {
			dst = r.appendPart(dst, r.Key, true)
		}
		if r.Value.Null {
			dst = append(dst, `,"value":null`...)
		}
	}
	if !r.Value.Null {
		dst = r.appendPart(dst, r.Value, false)
	} else if !coordinator {
		dst = append(dst, `,"value":null`...)
	}
	if !coordinator && !r.Key.Null {
		dst = appendB64Field(dst, "keyBytes", r.Key.bytes())
	}
	if re, off, buf := r.ErrorAt(pos); re != nil {
		dst = append(dst, `,"error":{"part":`...)
		dst = jsontext.AppendString(dst, []byte(re.Part))
		dst = append(dst, `,"offset":`...)
		dst = jsontext.AppendInt(dst, off)
		if buf != 0 {
			dst = append(dst, `,"buf":`...)
			dst = jsontext.AppendInt(dst, int64(buf))
		}
		dst = append(dst, `,"path":`...)
		dst = jsontext.AppendString(dst, []byte(re.Path))
		dst = append(dst, `,"message":`...)
		dst = jsontext.AppendString(dst, []byte(re.Msg))
		dst = append(dst, '}')
	}
	if ws := r.Warnings(); len(ws) > 0 {
		dst = append(dst, `,"warnings":[`...)
		for i, x := range ws {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendString(dst, []byte(x))
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '}')
	dst[at] = '{' // the first member's comma
	return dst
}

// appendPart appends the members of the key or value p as the walk writes
// them, and its bytes whole when it did not read.
func (r *TopicRecord) appendPart(dst []byte, p Part, key bool) []byte {
	tp := r.part(p, key)
	dst, _ = readTopicPart(dst, &tp)
	if tp.Failed {
		name := "valueBytes"
		if key {
			name = "keyBytes"
		}
		dst = appendB64Field(dst, name, p.bytes())
	}
	return dst
}

func appendB64Field(dst []byte, name string, b []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, `":`...)
	return jsontext.AppendBase64(dst, b)
}
