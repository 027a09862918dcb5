package storage

import (
	"encoding/base64"
	"errors"
	"strconv"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
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

	nested map[*tree.Node]nestedView // consumer-protocol bytes decoded
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

func (e *RecordError) Error() string {
	s := "storage: " + e.Part + " at offset " + strconv.Itoa(e.Offset)
	if e.Path != "" {
		s += " (" + e.Path + ")"
	}
	return s + ": " + e.Msg
}

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

// decodeTopicRecord is DecodeTopicRecord into nodes from s.
func decodeTopicRecord(s *slab.Slab, topic string, key, value Part) *TopicRecord {
	t := schema.InternalTopicByName(topic)
	if t == nil {
		return nil
	}
	r := &TopicRecord{Topic: t, Type: -1, Key: key, Value: value}
	if !key.Null {
		r.KeyNode = partNode(s, "key", key)
	}
	if !value.Null {
		r.ValueNode = partNode(s, "value", value)
	}
	if t.Framing == schema.CoordinatorFraming {
		r.coordinator(s)
	} else {
		r.metadata(s)
	}
	return r
}

// partNode is the node of a whole key or value.
func partNode(s *slab.Slab, name string, p Part) *tree.Node {
	n := s.New()
	n.Name, n.Role, n.Type, n.Buf = name, tree.RoleRecord, "bytes", p.Index
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = p.Start, p.Start, p.Start, p.Start, p.End
	n.Raw = p.bytes()
	return n
}

// intNode adds to parent a framing integer of p at [start, end).
func intNode(s *slab.Slab, parent *tree.Node, name, typ string, p Part, start, end int, v int64) *tree.Node {
	n := s.New()
	n.Name, n.Role, n.Type, n.Kind, n.Buf, n.Int = name, tree.RoleRecord, typ, schema.Int16, p.Index, v
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = start, start, start, start, end
	if typ == "uvarint" {
		n.Flags |= tree.Varint
	}
	parent.Children = append(parent.Children, n)
	return n
}

// rawNode adds to parent the bytes of p from start that were not read.
func rawNode(s *slab.Slab, parent *tree.Node, p Part, start int) {
	if start >= p.End {
		return
	}
	n := s.New()
	n.Name, n.Role, n.Type, n.Kind, n.Buf = "undecoded", tree.RoleRaw, "bytes", schema.Bytes, p.Index
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = start, start, start, start, p.End
	n.Raw = p.Buf[start:p.End]
	parent.Children = append(parent.Children, n)
}

func (r *TopicRecord) fail(part string, offset int, path, msg string, err error) {
	if r.Err == nil {
		r.Err = &RecordError{Part: part, Offset: offset, Path: path, Msg: msg, Err: err}
	}
}

// failDecode records the codec's error for part.
func (r *TopicRecord) failDecode(part string, err error) {
	offset, path, msg := decodeErrorAt(err)
	r.fail(part, offset, path, msg, err)
}

// message decodes m at version from p, starting at start, as the last
// child of parent; bytes it does not reach stay a raw node.
func (r *TopicRecord) message(s *slab.Slab, parent *tree.Node, part string, m *schema.Message, version int16, p Part, start int) *tree.Node {
	n, err := decodeMessage(s, m, version, p.Buf, p.Index, start, p.End)
	if n != nil {
		parent.Children = append(parent.Children, n)
	}
	if err != nil {
		r.failDecode(part, err)
		if n == nil {
			rawNode(s, parent, p, start)
		} else {
			rawNode(s, parent, p, n.End)
		}
		return nil
	}
	return n
}

// int16Prefix reads the int16 part p (the key or the value) starts with
// into *dst, a node named name under parent; false, with *dst untouched,
// p's bytes left raw and the record's error set, when p holds fewer than
// 2 bytes.
func (r *TopicRecord) int16Prefix(s *slab.Slab, parent *tree.Node, part, name, what string, p Part, dst *int16) bool {
	if p.End-p.Start < 2 {
		rawNode(s, parent, p, p.Start)
		r.fail(part, p.Start, name, "an int16 "+what+", found "+strconv.Itoa(p.End-p.Start)+" bytes", nil)
		return false
	}
	*dst = int16(uint16(p.Buf[p.Start])<<8 | uint16(p.Buf[p.Start+1]))
	intNode(s, parent, name, "int16", p, p.Start, p.Start+2, int64(*dst))
	return true
}

// coordinator reads a coordinator topic's record: key = int16 type + key
// message; value = int16 version + value message, or null.
func (r *TopicRecord) coordinator(s *slab.Slab) {
	k := r.Key
	if k.Null {
		r.fail("key", 0, "", "a record of "+r.Topic.Name+" has a key; this one is null", nil)
		return
	}
	if !r.int16Prefix(s, r.KeyNode, "key", "type", "record type", k, &r.Type) {
		return
	}
	rs := r.Topic.RecordType(r.Type)
	if len(rs) == 0 {
		rawNode(s, r.KeyNode, k, k.Start+2)
		r.fail("key", k.Start, "type", "a record type of "+r.Topic.Name+", found "+strconv.Itoa(int(r.Type)), nil)
		return
	}
	r.Schema = &rs[0]
	r.KeyMessage = r.message(s, r.KeyNode, "key", r.Schema.Key, r.Schema.KeyVersion, k, k.Start+2)
	v := r.Value
	if v.Null {
		return // a tombstone
	}
	if !r.int16Prefix(s, r.ValueNode, "value", "version", "version", v, &r.ValueVersion) {
		return
	}
	r.ValueMessage = r.message(s, r.ValueNode, "value", r.Schema.Value, r.ValueVersion, v, v.Start+2)
	if r.ValueMessage != nil {
		r.consumerProtocol(s)
	}
}

// metadata reads a metadata-framed record: the key is null; the value is
// uvarint frame version (1), uvarint apiKey, uvarint version, the record.
func (r *TopicRecord) metadata(s *slab.Slab) {
	if !r.Key.Null {
		warn(r.KeyNode, "a record of "+r.Topic.Name+" has a null key; this one's bytes are kept as they are")
	}
	v := r.Value
	if v.Null {
		r.fail("value", 0, "", "a record of "+r.Topic.Name+" has a value; this one is null", nil)
		return
	}
	at := v.Start
	var head [3]int64
	for i, name := range [...]string{"frameVersion", "type", "version"} {
		x, n, minimal := wire.Uvarint(v.Buf[at:v.End])
		if n <= 0 || x > 0x7fff {
			rawNode(s, r.ValueNode, v, at)
			r.fail("value", at, name, "an unsigned varint below 32768", nil)
			return
		}
		node := intNode(s, r.ValueNode, name, "uvarint", v, at, at+n, int64(x))
		if !minimal {
			warn(node, "the varint is written in more bytes than it needs")
		}
		head[i] = int64(x)
		at += n
	}
	r.FrameVersion, r.Type, r.ValueVersion = int16(head[0]), int16(head[1]), int16(head[2])
	if r.FrameVersion != 1 {
		rawNode(s, r.ValueNode, v, at)
		r.fail("value", v.Start, "frameVersion", "frame version 1, found "+strconv.Itoa(int(r.FrameVersion)), nil)
		return
	}
	rs := r.Topic.RecordType(r.Type)
	if len(rs) == 0 {
		rawNode(s, r.ValueNode, v, at)
		r.fail("value", v.Start, "type", "a record type (apiKey) of "+r.Topic.Name+", found "+strconv.Itoa(int(r.Type)), nil)
		return
	}
	// Where Kafka's files give two records one apiKey, the first that
	// reads the bytes whole is taken, and the choice is said.
	r.Schema = &rs[len(rs)-1]
	for i := range rs[:len(rs)-1] {
		if n, err := decodeMessage(s, rs[i].Value, r.ValueVersion, v.Buf, v.Index, at, v.End); err == nil {
			r.Schema, r.ValueMessage = &rs[i], n
			r.ValueNode.Children = append(r.ValueNode.Children, n)
			break
		}
	}
	if r.ValueMessage == nil {
		r.ValueMessage = r.message(s, r.ValueNode, "value", r.Schema.Value, r.ValueVersion, v, at)
	}
	if len(rs) > 1 && r.ValueMessage != nil {
		names := ""
		for i, x := range rs {
			if i > 0 {
				names += " or "
			}
			names += x.Value.Name
		}
		warn(r.ValueMessage, "apiKey "+strconv.Itoa(int(r.Type))+" is "+names+" in Kafka's files; these bytes read whole as "+r.Schema.Value.Name)
	}
}

// consumerFields are the bytes fields of coordinator values that hold
// consumer-protocol messages when the group's protocol type is
// "consumer": a classic group's members' subscriptions and assignments.
var consumerFields = map[string]map[string]string{
	"GroupMetadataValue": {"subscription": "ConsumerProtocolSubscription", "assignment": "ConsumerProtocolAssignment"},
}

// consumerProtocol decodes the consumer-protocol bytes of a classic
// group's members (GroupMetadataValue), as the codec does for JoinGroup
// and SyncGroup: bytes that do not read stay bytes, with a warning.
func (r *TopicRecord) consumerProtocol(s *slab.Slab) {
	fields := consumerFields[r.Schema.Value.Name]
	if fields == nil {
		return
	}
	if pt := r.ValueMessage.Get("protocolType"); pt == nil || pt.Null || string(pt.Raw) != "consumer" {
		return
	}
	members := r.ValueMessage.Get("members")
	if members == nil {
		return
	}
	for _, m := range members.Children {
		for _, c := range m.Children {
			name := fields[c.Name]
			if name == "" || c.Null || len(c.Raw) < 2 {
				continue
			}
			msg := schema.DataMessage(name)
			at := c.DataStart()
			version := int16(uint16(r.Value.Buf[at])<<8 | uint16(r.Value.Buf[at+1]))
			sub, err := decodeMessage(s, msg, version, r.Value.Buf, r.Value.Index, at+2, c.End)
			if err != nil {
				warn(c, "not a valid "+name+": "+err.Error()+"; kept as bytes")
				continue
			}
			vn := s.New()
			vn.Name, vn.Role, vn.Kind, vn.Type, vn.Buf, vn.Int = "version", tree.RoleRecord, schema.Int16, "int16", r.Value.Index, int64(version)
			vn.Start, vn.TagEnd, vn.SizeEnd, vn.PrefixEnd, vn.End = at, at, at, at, at+2
			kids := s.Kids(len(sub.Children) + 1)
			kids = append(kids, vn)
			c.Children = append(kids, sub.Children...)
			c.Warnings = append(c.Warnings, sub.Warnings...)
			if r.nested == nil {
				r.nested = map[*tree.Node]nestedView{}
			}
			r.nested[c] = nestedView{msg: msg, version: version, layout: min(version, msg.Valid.Hi)}
		}
	}
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
// A part that could not be read as its schema says is written whole as
// "keyBytes" or "valueBytes" (base64) instead, beside "error":
// {"part","offset","path","message"}; "warnings" lists the lenient
// readings. Consumer-protocol bytes in a classic group's members are
// written decoded, {"version":N,...}.
func (r *TopicRecord) AppendJSON(dst []byte) []byte {
	w := valueWriter{nested: r.nested}
	failed := func(part string) bool {
		var re *RecordError
		return errors.As(r.Err, &re) && re.Part == part
	}
	if r.Topic.Framing == schema.CoordinatorFraming {
		dst = append(dst, `{"type":`...)
		dst = strconv.AppendInt(dst, int64(r.Type), 10)
		if r.Schema != nil {
			dst = append(dst, `,"keySchema":`...)
			dst = jsontext.AppendString(dst, []byte(r.Schema.Key.Name))
		}
		if r.KeyMessage != nil && !failed("key") {
			dst = append(dst, `,"key":`...)
			dst = w.appendStructJSON(dst, r.KeyMessage, layoutAt(r.Schema.Key, r.Schema.KeyVersion), r.Schema.KeyVersion, r.Schema.Key.Flexible(r.Schema.KeyVersion))
		} else if !r.Key.Null {
			dst = appendB64Field(dst, "keyBytes", r.Key.bytes())
		}
		switch {
		case r.Value.Null:
			dst = append(dst, `,"value":null`...)
		case r.ValueMessage != nil && !failed("value"):
			dst = append(dst, `,"valueVersion":`...)
			dst = strconv.AppendInt(dst, int64(r.ValueVersion), 10)
			dst = append(dst, `,"valueSchema":`...)
			dst = jsontext.AppendString(dst, []byte(r.Schema.Value.Name))
			dst = append(dst, `,"value":`...)
			dst = r.appendValue(dst, &w)
		default:
			dst = appendB64Field(dst, "valueBytes", r.Value.bytes())
		}
	} else {
		dst = append(dst, '{')
		if r.ValueMessage != nil && !failed("value") {
			dst = append(dst, `"frameVersion":`...)
			dst = strconv.AppendInt(dst, int64(r.FrameVersion), 10)
			dst = append(dst, `,"type":`...)
			dst = strconv.AppendInt(dst, int64(r.Type), 10)
			dst = append(dst, `,"version":`...)
			dst = strconv.AppendInt(dst, int64(r.ValueVersion), 10)
			dst = append(dst, `,"schema":`...)
			dst = jsontext.AppendString(dst, []byte(r.Schema.Value.Name))
			dst = append(dst, `,"value":`...)
			dst = r.appendValue(dst, &w)
		} else {
			dst = append(dst, `"type":`...)
			dst = strconv.AppendInt(dst, int64(r.Type), 10)
			if r.Value.Null {
				dst = append(dst, `,"value":null`...)
			} else {
				dst = appendB64Field(dst, "valueBytes", r.Value.bytes())
			}
		}
		if !r.Key.Null {
			dst = appendB64Field(dst, "keyBytes", r.Key.bytes())
		}
	}
	var re *RecordError
	if errors.As(r.Err, &re) {
		dst = append(dst, `,"error":{"part":`...)
		dst = jsontext.AppendString(dst, []byte(re.Part))
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, int64(re.Offset), 10)
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
	return append(dst, '}')
}

func (r *TopicRecord) appendValue(dst []byte, w *valueWriter) []byte {
	m := r.Schema.Value
	lv := min(r.ValueVersion, m.Valid.Hi)
	return w.appendStructJSON(dst, r.ValueMessage, layoutAt(m, lv), lv, m.Flexible(lv))
}

func layoutAt(m *schema.Message, v int16) *schema.Layout {
	return m.At(min(v, m.Valid.Hi)).Root
}

func appendB64Field(dst []byte, name string, b []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, `":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
