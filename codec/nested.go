package codec

import (
	"errors"
	"strconv"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// dataView records how an opaque bytes field was decoded as a data message
// (consumer-protocol metadata and assignments): which message, at which
// version, and which layout was used.
type dataView struct {
	msg     *schema.Message
	version int16 // as the bytes declare it
	layout  int16 // the version whose layout was used
}

// opaqueField is a records or bytes field queued for nested decoding once
// the frame itself has been read.
type opaqueField struct {
	n    *tree.Node
	path string
}

// nestOpaque decodes the contents of records fields and of consumer-protocol
// bytes, adding derived buffers and children to the frame's tree.
func (d *decoder) nestOpaque(o *Options) error {
	f := d.f
	for _, q := range d.hooked {
		if q.n.Kind == schema.Records {
			if err := nestRecords(f, q.n, q.path, o); err != nil {
				return err
			}
		}
	}
	if f.Body != nil && f.API != nil {
		nestConsumer(f, d)
	}
	return nil
}

func nestRecords(f *Frame, n *tree.Node, path string, o *Options) error {
	if n.Null || n.End <= n.PrefixEnd {
		return nil
	}
	ro := records.Options{MaxDecompressed: o.MaxDecompressed, MaxDepth: o.MaxRecordNesting, DecodeData: DecodeDataMessage}
	res, err := records.Decode(f.Slab(), f.Buffers[n.Buf], n.Buf, n.PrefixEnd, n.End, len(f.Buffers), ro)
	if res != nil {
		f.Buffers = append(f.Buffers, res.Derived...)
		n.Children = res.Nodes
		if f.records == nil {
			f.records = map[*tree.Node]*records.Result{}
		}
		f.records[n] = res
	}
	if err != nil {
		n.Flags |= tree.Broken
		var we *wire.Error
		if errors.As(err, &we) {
			return &DecodeError{Offset: we.Offset, Buf: n.Buf, Path: path, Expected: we.Expected, Found: we.Found}
		}
		return &DecodeError{Offset: n.PrefixEnd, Buf: n.Buf, Path: path, Expected: "a record batch or message set", Found: err.Error()}
	}
	return nil
}

// DecodeDataMessage decodes a data message (e.g. "LeaderChangeMessage") at
// version from buf[start:end], as a struct node whose nodes point into
// buffer bufIdx. Versions newer than known use the newest layout, with a
// warning.
func DecodeDataMessage(s *tree.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	m := schema.DataMessage(name)
	if m == nil {
		return nil, errors.New("codec: unknown data message " + name)
	}
	if start < 0 || end > len(buf) || start > end {
		return nil, errors.New("codec: data message span out of range")
	}
	lv := version
	if lv > m.Valid.Hi {
		lv = m.Valid.Hi
	}
	if lv < m.Valid.Lo {
		return nil, &DecodeError{Offset: start, Buf: bufIdx, Path: name, Expected: name + " version " + m.Valid.String(), Found: "version " + strconv.Itoa(int(version))}
	}
	d := &decoder{f: &Frame{}, s: s, maxDepth: DefaultMaxDepth, maxNodes: DefaultMaxNodes, buf: bufIdx}
	d.r.B, d.r.Off = buf[:end], start
	d.v, d.flex = lv, m.Flexible(lv)
	n := d.node()
	n.Name, n.Role, n.Kind, n.Type = name, tree.RoleField, schema.Struct, name+" v"+strconv.Itoa(int(version))
	d.path = append(d.path, pathSeg{name, -1})
	d.start(n)
	d.structBody(n, m.At(lv).Root)
	n.End = d.r.Off
	if lv != version {
		n.Flags |= tree.Assumed
		n.Warn("version " + strconv.Itoa(int(version)) + " is newer than any known; decoded with the v" + strconv.Itoa(int(lv)) + " layout")
	}
	if d.err != nil {
		d.err.Buf = bufIdx
		return n, d.err
	}
	if d.r.Off < end {
		return n, &DecodeError{Offset: d.r.Off, Buf: bufIdx, Path: name, Expected: "the end of " + name, Found: strconv.Itoa(end-d.r.Off) + " more bytes"}
	}
	return n, nil
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

// nestConsumer decodes the consumer-protocol metadata and assignments of
// JoinGroup, SyncGroup and DescribeGroups where the group's protocol type is
// "consumer" (or not given, in older versions).
func nestConsumer(f *Frame, d *decoder) {
	body := f.Body
	switch {
	case f.APIKey == 11 && !f.Response: // JoinGroup request
		pt, known := stringField(body, "ProtocolType")
		for _, p := range elements(body, "Protocols") {
			nestData(f, d, p.Child("Metadata"), pt, known)
		}
	case f.APIKey == 11: // JoinGroup response
		pt, known := stringField(body, "ProtocolType")
		for _, m := range elements(body, "Members") {
			nestData(f, d, m.Child("Metadata"), pt, known)
		}
	case f.APIKey == 14: // SyncGroup
		pt, known := stringField(body, "ProtocolType")
		if f.Response {
			nestData(f, d, body.Child("Assignment"), pt, known)
			return
		}
		for _, a := range elements(body, "Assignments") {
			nestData(f, d, a.Child("Assignment"), pt, known)
		}
	case f.APIKey == 15 && f.Response: // DescribeGroups response
		for _, g := range elements(body, "Groups") {
			pt, known := stringField(g, "ProtocolType")
			for _, m := range elements(g, "Members") {
				nestData(f, d, m.Child("MemberMetadata"), pt, known)
				nestData(f, d, m.Child("MemberAssignment"), pt, known)
			}
		}
	}
}

func stringField(n *tree.Node, name string) (string, bool) {
	c := n.Child(name)
	if c == nil || c.Null {
		return "", false
	}
	return string(c.Raw), true
}

func elements(n *tree.Node, name string) []*tree.Node {
	if c := n.Child(name); c != nil {
		return c.Children
	}
	return nil
}

func nestData(f *Frame, d *decoder, n *tree.Node, protocolType string, known bool) {
	if n == nil || n.Null || n.Field == nil || (known && protocolType != "consumer") {
		return
	}
	name := consumerData(n.Field.Name)
	if name == "" || n.End-n.PrefixEnd < 2 {
		return // an empty assignment (followers get one) stays empty bytes
	}
	buf := f.Buffers[n.Buf]
	at := n.PrefixEnd
	version := int16(uint16(buf[at])<<8 | uint16(buf[at+1]))
	sub, err := DecodeDataMessage(f.Slab(), name, version, buf, n.Buf, at+2, n.End)
	if err != nil || sub.Flags&tree.Assumed != 0 && version < 0 {
		if known {
			msg := "not a valid " + name
			if err != nil {
				msg += ": " + err.Error()
			}
			n.Warn(msg + "; kept as bytes")
		}
		return
	}
	vn := f.Slab().New()
	vn.Name, vn.Role, vn.Kind, vn.Type, vn.Buf = "version", tree.RoleField, schema.Int16, "int16", n.Buf
	vn.Start, vn.TagEnd, vn.SizeEnd, vn.PrefixEnd, vn.End, vn.Int = at, at, at, at, at+2, int64(version)
	kids := make([]*tree.Node, 0, len(sub.Children)+1)
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
	if f.data == nil {
		f.data = map[*tree.Node]dataView{}
	}
	f.data[n] = dataView{msg: schema.DataMessage(name), version: version, layout: lv}
}
