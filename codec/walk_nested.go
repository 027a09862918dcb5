package codec

import (
	"errors"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/sasl"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Nested payloads (records fields, consumer-protocol bytes, KRaft control
// values) are read where the walk meets them, with the frame's budget:
// their nodes stop at the budget's NestedNodes, which leaves room for the
// frame's own fields after them, and a limit that stops one is a warning
// on its node, never an error of the frame.

// consumerField is a bytes field that holds a consumer-protocol data
// message when the group's protocol type is "consumer" (or not given).
type consumerField struct {
	field, data string
}

// consumerFields lists, per API and direction, the bytes fields holding
// consumer-protocol data messages (KIP-429's ConsumerProtocolSubscription
// and ConsumerProtocolAssignment), beside the group's ProtocolType.
var consumerFields = []struct {
	api      int16
	response bool
	fields   []consumerField
}{
	{schema.KeyJoinGroup, false, []consumerField{{"Metadata", "ConsumerProtocolSubscription"}}}, // protocols[].metadata
	{schema.KeyJoinGroup, true, []consumerField{{"Metadata", "ConsumerProtocolSubscription"}}},  // members[].metadata
	{schema.KeySyncGroup, false, []consumerField{{"Assignment", "ConsumerProtocolAssignment"}}}, // assignments[].assignment
	{schema.KeySyncGroup, true, []consumerField{{"Assignment", "ConsumerProtocolAssignment"}}},  // assignment
	{schema.KeyDescribeGroups, true, []consumerField{{"MemberMetadata", "ConsumerProtocolSubscription"}, // groups[].members[]
		{"MemberAssignment", "ConsumerProtocolAssignment"}}},
	{schema.KeySaslAuthenticate, false, []consumerField{{"AuthBytes", saslMessage}}},
	{schema.KeySaslAuthenticate, true, []consumerField{{"AuthBytes", saslMessage}}},
}

// saslMessage is what consumerFields says SaslAuthenticate's AuthBytes
// hold: a SASL message (codec/internal/sasl), not a data message.
const saslMessage = "SASL"

// dataSASL is Options.Data for a raw SASL token.
const dataSASL = "sasl"

func consumerFieldsOf(api int16, response bool) []consumerField {
	for _, c := range consumerFields {
		if c.api == api && c.response == response {
			return c.fields
		}
	}
	return nil
}

// consumerData names the data message a consumer-protocol bytes field holds.
func consumerData(field string) string {
	switch field {
	case "Metadata", "MemberMetadata":
		return "ConsumerProtocolSubscription"
	case "Assignment", "MemberAssignment":
		return "ConsumerProtocolAssignment"
	}
	return ""
}

// protocolType is the ProtocolType field of the struct at depth, the
// nearest one enclosing the walk.
type protocolType struct {
	name  string
	known bool // present and not null
	depth int
}

// reserveNested sets where nested payloads must stop taking nodes, so
// that the frame's own fields after them (up to 4 nodes per byte, at most
// half of MaxNodes) still fit: a payload takes a unit only when it fits
// whole and may end past NestedNodes only by budget.NestedSlack, which is
// reserved too. So a limit met inside a nested payload is a warning and
// the frame still decodes whenever its own fields fit, at any MaxNodes.
func (w *walker) reserveNested() {
	if w.nested {
		return
	}
	b := w.b
	reserve := min(b.MaxNodes/2, 4*max(w.frameEnd-w.r.Off, 0))
	b.NestedNodes = b.MaxNodes - reserve - budget.NestedSlack(w.lim.MaxRecordNesting)
}

// nestedOver fails the frame when a nested payload ended past MaxNodes:
// that happens only when the frame's own fields left it no room even for
// the node that keeps its bytes, so the frame's own fields did not fit.
func (w *walker) nestedOver() {
	if !w.nested && w.b.Nodes > w.b.MaxNodes {
		w.overLimit(w.r.Off, "more")
	}
}

// recordsPath is rec.Options.Path: the path of the records field being
// read, the walk's path as it was there, whatever a payload hook has
// pushed on it since (its own place is the records reader's path).
func (w *walker) recordsPath() string {
	p := w.path
	w.path = w.path[:w.recPath]
	s := w.pathString()
	w.path = p
	return s
}

// records is where the records package lists its warnings: the frame's
// list, or none on a quiet walk.
func (w *walker) recordsWarnings() *budget.Warnings {
	if w.quiet {
		return nil
	}
	return &w.w
}

// records reads the batches of the records field n, its bytes read up to
// the reader's offset, through the sink's records side. Zero bytes are
// read too: they are no batches, a list as long as any other, so that the
// field has one JSON type (issue 24).
func (w *walker) records(n *tree.Node) {
	if n.Null {
		w.leaf(n)
		return
	}
	w.deep = true
	size := w.r.Off - n.PrefixEnd
	if !w.b.WorkLeft(size) {
		w.warnAt(nil, n, n.Start, "", "records not decoded: the MaxWork limit ("+decimal(w.b.MaxWork)+" bytes) is reached", true)
		w.leaf(n)
		return
	}
	w.reserveNested()
	outer := w.recPath
	w.recPath = len(w.path)
	ro := rec.Options{MaxDepth: w.lim.MaxRecordNesting, Budget: w.b, Warnings: w.recordsWarnings(), Path: w.hooks().path, Data: w.hooks().data, DataJSON: appendDataJSON, Payload: w.recordsHook(), Topic: w.topic, Spare: &w.spare, Int64Strings: w.int64s,
		Start: n.PrefixEnd, Buffer: w.buf, Base: w.nbufs, Inflations: w.inflations}
	derived, err := w.s.records(n, w.r.B[:w.r.Off], ro)
	w.recPath = outer
	w.nbufs += derived
	if err != nil && w.nestErr == nil {
		n.Flags |= tree.Broken
		path := w.pathString() // the records field's still
		var we *wire.Error
		if errors.As(err, &we) {
			w.nestErr = wireDecodeError(we, n.Buf, path)
		} else {
			w.nestErr = newDecodeError(n.PrefixEnd, n.Buf, path, "a record batch or message set", err.Error(), err)
		}
	}
	w.nestedOver()
}

// consumerData reads the consumer-protocol bytes of field n (read up to
// the reader's offset) as the data message name, unless the group's
// protocol type says they are something else: n opens as an object of
// the message's version and fields. Bytes that do not read so stay bytes.
func (w *walker) consumerData(n *tree.Node, name string) {
	if name == saslMessage {
		if !w.saslData(n) {
			w.leaf(n)
		}
		return
	}
	if n.Null || (w.pt.known && w.pt.name != "consumer") || len(n.Raw) < 2 {
		w.leaf(n) // an empty assignment (followers get one) stays empty bytes
		return
	}
	w.deep = true
	buf, at, end := w.r.B, n.PrefixEnd, w.r.Off
	if !w.b.WorkLeft(end - at) {
		w.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxWork limit ("+decimal(w.b.MaxWork)+" bytes) is reached; kept as bytes", true)
		w.leaf(n)
		return
	}
	w.reserveNested()
	version := int16(uint16(buf[at])<<8 | uint16(buf[at+1]))
	mark, own, typ, flags := w.w.Mark(), len(n.Warnings), n.Type, n.Flags
	m := w.s.mark()
	err := w.dataInto(n, name, version, buf, w.buf, at, end)
	if err != nil {
		w.s.rollback(m)
		w.w.Truncate(mark)
		n.Warnings, n.Type, n.Flags = n.Warnings[:own], typ, flags
		switch {
		case w.limitHit:
			w.limitHit = false
			w.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxNodes limit ("+decimal(w.b.MaxNodes)+" nodes) is reached; kept as bytes", true)
		case w.pt.known:
			w.warn(n, n.Start, "", "not a valid "+name+": "+err.Error()+"; kept as bytes")
		}
		w.leaf(n)
		w.nestedOver()
		return
	}
	w.s.commit(m)
	w.nestedOver()
}

// saslData reads the bytes of SaslAuthenticate's AuthBytes n (read up to
// the reader's offset), or of a raw token, as a SASL message when they
// are one that encodes back to them (sasl.Parse): n opens as an object of
// the mechanism, the message's kind and its parts, each a leaf on its
// bytes. A message the budget has no room for stays bytes; anything else
// is left to the caller (false), unread.
func (w *walker) saslData(n *tree.Node) bool {
	var m sasl.Message
	if n.Null || !sasl.Parse(n.Raw, &m) {
		return false
	}
	w.deep = true
	w.reserveNested()
	if w.b.Nodes+2+len(m.Parts) > w.b.NestedNodes {
		w.warnAt(nil, n, n.Start, "", "not decoded as a SASL message: the MaxNodes limit ("+decimal(w.b.MaxNodes)+" nodes) is reached; kept as bytes", true)
		w.leaf(n)
		w.nestedOver()
		return true
	}
	n.Type += " (SASL " + m.Mechanism + " " + m.Kind + ")"
	w.s.begin(n, nil, 2+len(m.Parts))
	at := n.PrefixEnd
	w.saslPart("mechanism", schema.String, at, at, []byte(m.Mechanism))
	w.saslPart("message", schema.String, at, at, []byte(m.Kind))
	for _, p := range m.Parts {
		k := schema.String
		if p.Num {
			k = schema.Int32
		}
		raw := n.Raw[p.Start:p.End]
		if p.Value != nil { // a JWT's header or claims, decoded
			raw = p.Value
		}
		w.saslPart(p.Name, k, at+p.Start, at+p.End, raw)
	}
	w.close(n)
	return true
}

// saslPart hands the sink a part of a SASL message: a leaf of kind k on
// [start, end) holding raw (an Int32's digits read as its number).
func (w *walker) saslPart(name string, k schema.Kind, start, end int, raw []byte) {
	c := w.nestedNode()
	c.Name, c.Role, c.Kind, c.Type, c.Raw = name, tree.RoleField, k, k.String(), raw
	c.Start, c.TagEnd, c.SizeEnd, c.PrefixEnd, c.End = start, start, start, start, end
	if k == schema.Int32 {
		for _, d := range raw {
			c.Int = c.Int*10 + int64(d-'0')
		}
	}
	w.s.leaf(c)
}

// dataInto reads buf[at:end] of buffer bufIdx, a version (int16, already
// read as version) then the data message name, into n: n opens in the
// sink with a "version" child and the message's fields, and closes. The
// walk's state is kept and put back around it.
func (w *walker) dataInto(n *tree.Node, name string, version int16, buf []byte, bufIdx, at, end int) *DecodeError {
	vn := w.nestedNode()
	if vn == nil {
		w.limitHit = true
		return newDecodeError(at, bufIdx, w.pathString(), "room for "+name, "the MaxNodes limit", budget.ErrLimit)
	}
	m, lv, derr := w.dataLayout(name, version, bufIdx, at+2, end, buf)
	if derr != nil {
		return derr
	}
	l := m.At(lv).Root
	w.s.begin(n, l, len(l.Fields)+2)
	vn.Name, vn.Role, vn.Kind, vn.Type = "version", tree.RoleField, schema.Int16, "int16"
	vn.Buf, vn.Start, vn.TagEnd, vn.SizeEnd, vn.PrefixEnd, vn.End, vn.Int = bufIdx, at, at, at, at, at+2, int64(version)
	w.s.leaf(vn)
	n.Type = n.Type + " (" + name + ")"
	err := w.dataFields(n, m, version, lv, buf, bufIdx, at+2, end, nil)
	w.s.end(n)
	return err
}

// dataLayout finds the data message name and the layout version that
// reads version, or says why not.
func (w *walker) dataLayout(name string, version int16, bufIdx, start, end int, buf []byte) (*schema.Message, int16, *DecodeError) {
	m := schema.DataMessage(name)
	if m == nil {
		return nil, 0, newDecodeError(start, bufIdx, w.pathString(), "a known data message", name, nil)
	}
	if start < 0 || end > len(buf) || start > end {
		return nil, 0, newDecodeError(start, bufIdx, w.pathString(), "a span inside the buffer", decimal(start)+"-"+decimal(end), nil)
	}
	lv := min(version, m.Valid.Hi)
	if lv < m.Valid.Lo {
		return nil, 0, newDecodeError(start, bufIdx, w.pathString(), name+" version "+m.Valid.String(), "version "+decimal(int(version)), nil)
	}
	return m, lv, nil
}

// dataFields reads buf[start:end] of buffer bufIdx as the fields of data
// message m at layout version lv (read as version) into n, open in the
// sink, with the frame's budget and limits. The walk's state is kept and
// put back around it.
func (w *walker) dataFields(n *tree.Node, m *schema.Message, version, lv int16, buf []byte, bufIdx, start, end int, consumer []consumerField) *DecodeError {
	saved := walkState{w.r, w.v, w.flex, w.buf, w.err, w.nested, w.consumer, w.pt, w.depth, len(w.path)}
	w.r = read.Reader{B: buf[:end], Off: start}
	w.v, w.flex, w.buf, w.err, w.nested, w.limitHit = lv, m.Flexible(lv), bufIdx, nil, true, false
	w.consumer, w.pt = consumer, protocolType{}
	w.b.Work += end - start
	w.charge() // the message's own struct
	if lv != version {
		n.Flags |= tree.Assumed
		w.warn(n, start, "", "version "+decimal(int(version))+" is newer than any known; decoded with the v"+decimal(int(lv))+" layout")
	}
	w.structBody(n, m.At(lv).Root)
	err := w.err
	if err == nil && w.r.Off < end {
		err = newDecodeError(w.r.Off, bufIdx, w.pathString(), "the end of "+m.Name, decimal(end-w.r.Off)+" more bytes", nil)
	}
	n.End = w.r.Off
	w.r, w.v, w.flex, w.buf, w.err, w.nested = saved.r, saved.v, saved.flex, saved.buf, saved.err, saved.nested
	w.consumer, w.pt, w.depth, w.path = saved.consumer, saved.pt, saved.depth, w.path[:saved.path]
	return err
}

// walkState is what a nested decoding changes and puts back.
type walkState struct {
	r        read.Reader
	v        int16
	flex     bool
	buf      int
	err      *DecodeError
	nested   bool
	consumer []consumerField
	pt       protocolType
	depth    int
	path     int
}

// nestedNode takes a node from the nested share of the budget, or nil.
func (w *walker) nestedNode() *tree.Node {
	w.b.Nodes++
	if w.b.Nodes > w.b.NestedNodes {
		return nil
	}
	n := w.s.node()
	n.Buf = w.buf
	return n
}

// limitError is a nested decoding cut short by a limit.
type limitError struct{ *DecodeError }

// LimitHit tells the records package that a limit, not the bytes, ended
// the nested decoding.
func (limitError) LimitHit() bool { return true }

// dataHook decodes a KRaft control record value for the records package,
// within the frame's budget, as a small tree (kept in the frame's tree,
// or one at a time when the walk writes JSON).
func (w *walker) dataHook(name string, version int16, buf []byte, bufIdx, start, end int, path string) (*tree.Node, error) {
	if !w.b.WorkLeft(end - start) {
		return nil, limitError{newDecodeError(start, bufIdx, path, "work within the MaxWork limit ("+decimal(w.b.MaxWork)+" bytes)", "more", budget.ErrLimit)}
	}
	w.path = append(w.path, pathSeg{path, absPath})
	saved := w.s
	w.s = w.s.dataSink()
	defer func() { w.s = saved }()
	n, err := w.dataMessage(name, version, buf, bufIdx, start, end)
	w.pop()
	if err != nil {
		if w.limitHit {
			w.limitHit = false
			return n, limitError{err}
		}
		return n, err
	}
	return n, nil
}

// dataMessage decodes buf[start:end] (buffer bufIdx) as the data message
// name at version, as a struct node from the sink.
func (w *walker) dataMessage(name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, *DecodeError) {
	m, lv, err := w.dataLayout(name, version, bufIdx, start, end, buf)
	if err != nil {
		return nil, err
	}
	n := w.s.node()
	n.Name, n.Role, n.Kind, n.Type = name, tree.RoleField, schema.Struct, name+" v"+decimal(int(version))
	n.Buf, n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = bufIdx, start, start, start, start
	l := m.At(lv).Root
	w.s.begin(n, l, len(l.Fields)+1)
	err = w.dataFields(n, m, version, lv, buf, bufIdx, start, end, nil)
	w.s.end(n)
	return n, err
}

// data walks b as o.Data names it: a records field's bytes alone
// ("records"), a raw SASL token ("sasl"), or a data message, its int16
// version first unless o.Version gives it. The value read is the frame's
// Body, named "value" (its fields' paths are "value.members[0]...").
func (w *walker) data(b []byte, o *Options) error {
	f := w.f
	root := w.begin(b)
	start, end := 0, len(b)
	if o.Data == dataSASL && !o.NoSizePrefix {
		var cut int
		if end, cut = w.sizePrefix(len(b)); cut >= 0 {
			w.push("size")
			w.sizeBeyond(len(b), cut)
			w.pop()
		}
		if w.err != nil {
			return w.finish(root, b, end)
		}
		start = 4
	}
	n := w.node()
	n.Name, n.Role = "value", tree.RoleBody
	f.Body = n
	w.path = append(w.path[:0], pathSeg{"value", -1})
	switch o.Data {
	case "records":
		n.Kind, n.Type, n.End, n.Raw = schema.Records, "records", len(b), b
		w.r.Off = len(b)
		w.records(n)
	case dataSASL:
		n.Kind, n.Type, n.Raw = schema.Bytes, "bytes", b[start:end]
		n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = start, start, start, start
		w.r.Off = end
		if !w.nest || !w.saslData(n) {
			// Bytes, as authBytes that are no message are (GSSAPI's, an
			// empty token), or in Kafka's form.
			w.leaf(n)
		}
	default:
		w.dataValue(n, o.Data, o.Version, b)
	}
	w.path = w.path[:0]
	w.b.Work += w.r.Off
	return w.finish(root, b, end)
}

// dataValue reads b as data message name into the frame's value n: at
// version, or (Any) the version its first two bytes say.
func (w *walker) dataValue(n *tree.Node, name string, version int16, b []byte) {
	f := w.f
	n.Kind, n.Type = schema.Struct, name
	at := 0
	if version == Any {
		if len(b) < 2 {
			w.short(0, "2 bytes for the version of "+name, counted(len(b), "byte left", "bytes left"))
			w.s.leaf(n)
			return
		}
		version, at = int16(uint16(b[0])<<8|uint16(b[1])), 2
	}
	m, lv, err := w.dataLayout(name, version, 0, at, len(b), b)
	if err != nil {
		w.err = err
		w.s.leaf(n)
		return
	}
	f.Message, f.Version, f.LayoutVersion, f.Assumed, f.Flexible = m, version, lv, lv != version, m.Flexible(lv)
	n.Type = name + " v" + decimal(int(version))
	if at == 2 {
		// The version the bytes start with is the envelope's, beside
		// the value: KRaft's messages have a field "version" of their own.
		vn := w.node()
		vn.Name, vn.Role, vn.Kind, vn.Type = "version", tree.RoleField, schema.Int16, "int16"
		vn.End, vn.Int = 2, int64(version)
		w.s.leaf(vn)
		n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = 2, 2, 2, 2
	}
	l := m.At(lv).Root
	w.s.begin(n, l, len(l.Fields)+1)
	// (A data message read alone is the frame's own fields: NestedNodes
	// is MaxNodes, as nothing nested was met before it.)
	w.err = w.dataFields(n, m, version, lv, b, 0, at, len(b), nil)
	if w.err != nil && at == 0 && len(b) >= 2 && m.Valid.Contains(int16(uint16(b[0])<<8|uint16(b[1]))) {
		// The commonest slip: bytes that start with their version (as
		// Kafka writes consumer-protocol data), read with the zero
		// Options.Version, which reads none.
		w.err.Found += "; read as v" + decimal(int(version)) + " with no version first, as Options.Version " + decimal(int(version)) +
			" says: bytes that start with their version (" + decimal(int(int16(uint16(b[0])<<8|uint16(b[1])))) + " here?) are read with Version: Any"
	}
	w.r.Off = n.End
	w.s.end(n)
}
