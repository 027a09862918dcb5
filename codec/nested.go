package codec

import (
	"errors"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Nested payloads (records fields, consumer-protocol bytes, KRaft control
// values) are decoded where the walk meets them, with the frame's budget:
// their nodes stop at the budget's NestedNodes, which leaves room for the
// frame's own fields after them, and a limit that stops one is a warning
// on its node, never an error of the frame.

// dataView records how an opaque bytes field was decoded as a data message
// (consumer-protocol metadata and assignments): which message, at which
// version, and which layout was used.
type dataView struct {
	msg     *schema.Message
	version int16 // as the bytes declare it
	layout  int16 // the version whose layout was used
}

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
}

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
// whole and may end past NestedNodes only by wire.NestedSlack, which is
// reserved too. So a limit met inside a nested payload is a warning and
// the frame still decodes whenever its own fields fit, at any MaxNodes.
func (d *decoder) reserveNested() {
	if d.nested {
		return
	}
	b := d.b
	reserve := min(b.MaxNodes/2, 4*max(d.frameEnd-d.r.Off, 0))
	b.NestedNodes = b.MaxNodes - reserve - wire.NestedSlack(d.lim.MaxRecordNesting)
}

// records decodes the batches of the records field n (its bytes read up
// to d.r.Off) into its children.
func (d *decoder) records(n *tree.Node) {
	if n.Null || d.r.Off <= n.PrefixEnd {
		return
	}
	f := d.f
	size := d.r.Off - n.PrefixEnd
	if !d.b.WorkLeft(size) {
		d.warnAt(nil, n, n.Start, "", "records not decoded: the MaxWork limit ("+decimal(d.b.MaxWork)+" bytes) is reached", true)
		return
	}
	d.reserveNested()
	path := d.pathString()
	ro := records.Options{MaxDepth: d.lim.MaxRecordNesting, Budget: d.b, Warnings: d.w, Path: path, Data: d.dataHook, Payload: d.payload, Topic: d.topic, Spare: &d.spare,
		Start: n.PrefixEnd, Buffer: d.buf, Base: len(f.Buffers)}
	res, err := records.Decode(d.s, d.r.B[:d.r.Off], ro)
	if res != nil {
		f.Buffers = append(f.Buffers, res.Derived...)
		n.Children = res.Nodes
		if f.records == nil {
			f.records = map[*tree.Node]*records.Result{}
		}
		f.records[n] = res
	}
	if err != nil && d.nestErr == nil {
		n.Flags |= tree.Broken
		var we *wire.Error
		if errors.As(err, &we) {
			d.nestErr = wireDecodeError(we, n.Buf, path)
		} else {
			d.nestErr = newDecodeError(n.PrefixEnd, n.Buf, path, "a record batch or message set", err.Error(), err)
		}
	}
}

// limitError is a nested decoding cut short by a limit.
type limitError struct{ *DecodeError }

// LimitHit tells the records package that a limit, not the bytes, ended
// the nested decoding.
func (limitError) LimitHit() bool { return true }

// dataHook decodes a KRaft control record value for the records package,
// within the frame's budget.
func (d *decoder) dataHook(name string, version int16, buf []byte, bufIdx, start, end int, path string) (*tree.Node, error) {
	if !d.b.WorkLeft(end - start) {
		return nil, limitError{newDecodeError(start, bufIdx, path, "work within the MaxWork limit ("+decimal(d.b.MaxWork)+" bytes)", "more", wire.ErrLimit)}
	}
	d.path = append(d.path, pathSeg{path, absPath})
	if d.out != nil {
		// The tree-less path too decodes a KRaft value as a small tree
		// (records writes its generic JSON), one at a time.
		out, s, sink := d.out, d.s, d.sink
		d.out, d.s, d.sink = nil, &d.fast.dataSlab, nil
		d.s.Reset()
		defer func() { d.out, d.s, d.sink = out, s, sink }()
	}
	n, err := d.dataMessage(name, version, buf, bufIdx, start, end)
	d.pop()
	if err != nil {
		if d.limitHit {
			d.limitHit = false
			return n, limitError{err}
		}
		return n, err
	}
	return n, nil
}

// dataMessage decodes buf[start:end] (buffer bufIdx) as the data message
// name at version, with the decoder's budget and limits, as a struct node.
// The decoder's state is kept and restored around it.
func (d *decoder) dataMessage(name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, *DecodeError) {
	m := schema.DataMessage(name)
	if m == nil {
		return nil, newDecodeError(start, bufIdx, d.pathString(), "a known data message", name, nil)
	}
	if start < 0 || end > len(buf) || start > end {
		return nil, newDecodeError(start, bufIdx, d.pathString(), "a span inside the buffer", decimal(start)+"-"+decimal(end), nil)
	}
	lv := version
	if lv > m.Valid.Hi {
		lv = m.Valid.Hi
	}
	if lv < m.Valid.Lo {
		return nil, newDecodeError(start, bufIdx, d.pathString(), name+" version "+m.Valid.String(), "version "+decimal(int(version)), nil)
	}
	saved := walkState{d.r, d.v, d.flex, d.buf, d.err, d.nested, d.consumer, d.pt, d.depth, len(d.path)}
	d.r = wire.Reader{B: buf[:end], Off: start}
	d.v, d.flex, d.buf, d.err, d.nested, d.limitHit = lv, m.Flexible(lv), bufIdx, nil, true, false
	d.consumer, d.pt = nil, protocolType{}
	d.b.Work += end - start
	n := d.node()
	n.Name, n.Role, n.Kind, n.Type = name, tree.RoleField, schema.Struct, name+" v"+decimal(int(version))
	d.start(n)
	if lv != version {
		n.Flags |= tree.Assumed
		d.warn(n, start, "", "version "+decimal(int(version))+" is newer than any known; decoded with the v"+decimal(int(lv))+" layout")
	}
	d.structBody(n, m.At(lv).Root)
	n.End = d.r.Off
	err := d.err
	if err == nil && d.r.Off < end {
		err = newDecodeError(d.r.Off, bufIdx, d.pathString(), "the end of "+name, decimal(end-d.r.Off)+" more bytes", nil)
	}
	d.r, d.v, d.flex, d.buf, d.err, d.nested = saved.r, saved.v, saved.flex, saved.buf, saved.err, saved.nested
	d.consumer, d.pt, d.depth, d.path = saved.consumer, saved.pt, saved.depth, d.path[:saved.path]
	return n, err
}

// walkState is what a nested decoding changes and puts back.
type walkState struct {
	r        wire.Reader
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

// nestData decodes the consumer-protocol bytes of field n (read up to
// d.r.Off) as the data message name, unless the group's protocol type
// says it is something else.
func (d *decoder) nestData(n *tree.Node, name string) {
	if n.Null || (d.pt.known && d.pt.name != "consumer") {
		return
	}
	if len(n.Raw) < 2 {
		return // an empty assignment (followers get one) stays empty bytes
	}
	buf, at, end := d.r.B, n.PrefixEnd, d.r.Off
	if !d.b.WorkLeft(end - at) {
		d.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxWork limit ("+decimal(d.b.MaxWork)+" bytes) is reached; kept as bytes", true)
		return
	}
	d.reserveNested()
	version := int16(uint16(buf[at])<<8 | uint16(buf[at+1]))
	mark, own := d.w.Mark(), len(n.Warnings)
	vn := d.nestedNode()
	var sub *tree.Node
	var err *DecodeError
	if vn != nil {
		sub, err = d.dataMessage(name, version, buf, d.buf, at+2, end)
	}
	if err != nil || vn == nil {
		d.w.Truncate(mark)
		n.Warnings = n.Warnings[:own]
		switch {
		case d.limitHit || vn == nil:
			d.limitHit = false
			d.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxNodes limit ("+decimal(d.b.MaxNodes)+" nodes) is reached; kept as bytes", true)
		case d.pt.known:
			msg := "not a valid " + name
			if err != nil {
				msg += ": " + err.Error()
			}
			d.warn(n, n.Start, "", msg+"; kept as bytes")
		}
		return
	}
	vn.Name, vn.Role, vn.Kind, vn.Type = "version", tree.RoleField, schema.Int16, "int16"
	vn.Start, vn.TagEnd, vn.SizeEnd, vn.PrefixEnd, vn.End, vn.Int = at, at, at, at, at+2, int64(version)
	kids := d.s.Kids(len(sub.Children) + 1)
	kids = append(kids, vn)
	kids = append(kids, sub.Children...)
	n.Children = kids
	n.Warnings = append(n.Warnings, sub.Warnings...)
	if sub.Flags&tree.Assumed != 0 {
		n.Flags |= tree.Assumed
	}
	n.Type = n.Type + " (" + name + ")"
	lv := version
	if m := schema.DataMessage(name); lv > m.Valid.Hi {
		lv = m.Valid.Hi
	}
	if d.f.data == nil {
		d.f.data = map[*tree.Node]dataView{}
	}
	d.f.data[n] = dataView{msg: schema.DataMessage(name), version: version, layout: lv}
}

// nestedNode takes a node from the nested share of the budget, or nil.
func (d *decoder) nestedNode() *tree.Node {
	if d.b.Nodes >= d.b.NestedNodes {
		d.b.Nodes++
		return nil
	}
	d.b.Nodes++
	if d.out != nil {
		return d.scratchNode()
	}
	n := d.s.New()
	n.Buf = d.buf
	return n
}

// DecodeDataMessage decodes a data message (e.g. "LeaderChangeMessage") at
// version from buf[start:end], as a struct node whose nodes point into
// buffer bufIdx, with the default limits. Versions newer than known use
// the newest layout, with a warning.
func DecodeDataMessage(s *tree.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	if schema.DataMessage(name) == nil {
		return nil, errors.New("codec: unknown data message " + name)
	}
	if start < 0 || end > len(buf) || start > end {
		return nil, errors.New("codec: data message span out of range")
	}
	lim := Limits{}.Resolve(end - start)
	d := &decoder{f: &Frame{}, s: s, lim: lim, b: lim.budget(), w: &wire.Warnings{}}
	d.path = append(d.path, pathSeg{name, -1})
	n, err := d.dataMessage(name, version, buf, bufIdx, start, end)
	if err != nil {
		return n, err
	}
	return n, nil
}
