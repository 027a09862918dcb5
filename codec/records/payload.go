package records

import (
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// The payload hook (issue 21): Options.Payload reads what a record's key
// and value carry (text, JSON, the schema registry's framing with Avro,
// Protobuf or JSON Schema; codec/payload does it). Records calls it on
// both paths, once the record's own nodes and warnings are spent, so both
// spend the same budget and give the same warnings in the same order.
// Everything it touches is in this file and in the calls marked
// "payload hook" in record.go, stream.go and json.go.

// PayloadIn is one record key or value for Options.Payload: B[Start:End]
// in buffer Buf (node offsets absolute in B). Slab is set on the tree
// path, where the returned nodes become the key or value node's children
// and Node is that node (for warnings when there are none); Budget and
// Warnings are the decoding's own.
type PayloadIn struct {
	B               []byte
	Buf, Start, End int
	Key             bool
	Topic           string
	Path            string
	Slab            *tree.Slab
	Node            *tree.Node
	Budget          *wire.Budget
	Warnings        *wire.Warnings
}

// payload runs the hook on f (a key or value, not null, read at path
// field), returning the JSON members it wrote after dst and its nodes.
func (d *decoder) payload(dst []byte, s *tree.Slab, n *tree.Node, b []byte, bi int, f *varField, key bool, field string) ([]byte, []*tree.Node) {
	if d.opts.Payload == nil || f.null || len(f.raw) == 0 {
		return dst, nil
	}
	start := f.at + f.n
	in := PayloadIn{B: b, Buf: bi, Start: start, End: start + len(f.raw), Key: key, Topic: d.opts.Topic,
		Path: d.pathString(field), Slab: s, Node: n, Budget: d.b, Warnings: d.w}
	return d.opts.Payload(dst, &in)
}

// payloadNode runs the hook for the key or value node n on the tree path,
// keeping its JSON members for AppendJSON.
func (d *decoder) payloadNode(b []byte, bi int, f *varField, n *tree.Node, key bool) {
	if n == nil || d.opts.Payload == nil {
		return
	}
	field := "value"
	if key {
		field = "key"
	}
	js, kids := d.payload(nil, d.s, n, b, bi, f, key, field)
	if len(kids) > 0 {
		n.Children = kids
	}
	if len(js) > 0 {
		if d.res.payloads == nil {
			d.res.payloads = map[*tree.Node][]byte{}
		}
		d.res.payloads[n] = js
	}
}

// bytesJSON writes a key or value node as appendBytesJSON does, with the
// members the payload hook found in it.
func (j *jw) bytesJSON(dst []byte, n *tree.Node) []byte {
	dst = appendBytesJSON(dst, n)
	if n == nil || n.Null || j.res.payloads[n] == nil {
		return dst
	}
	dst = append(dst[:len(dst)-1], j.res.payloads[n]...)
	return append(dst, '}')
}

// wbytesPayload is wbytes with the payload hook's members.
func (d *decoder) wbytesPayload(b []byte, bi int, f *varField, key bool) {
	if d.opts.Payload == nil || f.null || len(f.raw) == 0 {
		d.wbytes(f)
		return
	}
	d.wbytes(f)
	field := "value"
	if key {
		field = "key"
	}
	out := (*d.out)[:len(*d.out)-1]
	out, _ = d.payload(out, nil, nil, b, bi, f, key, field)
	*d.out = append(out, '}')
}
