package rec

import (
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
)

// The payload hook (issue 21): Options.Payload reads what a record's key
// and value carry (text, JSON, the schema registry's framing with Avro,
// Protobuf or JSON Schema; codec/payload does it). The reader calls it
// once per key and value, after the record's own nodes and warnings are
// spent and before the sink takes the record, so both sinks spend the
// same budget and give the same warnings in the same order: the tree sink
// hangs the nodes it returns under the key or value node, the JSON sink
// writes the members it returns into the key or value object.

// PayloadIn is one record key or value for Options.Payload: B[Start:End]
// in buffer Buf (node offsets absolute in B).
type PayloadIn struct {
	B               []byte
	Buf, Start, End int
	Key             bool   // a record key (else a value)
	Topic           string // the topic the records belong to, when known
	// Path names the key's or value's place in value JSON, for warnings.
	// It builds the name, so it is called only when a warning needs it,
	// and only during the hook's call (the place moves on after it).
	Path func() string
	// RecordKey is, for a value, its record's key (nil when null or not
	// read), aliasing B: what a key says can select how its value reads
	// (the records of Kafka's internal topics).
	RecordKey []byte

	// Slab, when set, receives the payload's nodes; nil asks for JSON
	// members alone (the nodes counted all the same, so both stop at the
	// same byte). Node is where warnings go when the payload has no node
	// of its own for them.
	Slab *slab.Slab
	Node *tree.Node
	// Budget is the frame's budget (nodes up to NestedNodes, work);
	// Warnings receives every warning. Warnings may be nil.
	Budget   *budget.Budget
	Warnings *budget.Warnings
}

// PayloadFunc appends the JSON members a key or value carries to dst
// (",\"format\":...") and returns the nodes that go under its node (none
// without a slab).
type PayloadFunc = func(dst []byte, p *PayloadIn) ([]byte, []*tree.Node)

// payloadOut is what the hook made for one key or value: JSON members,
// nodes, and the warnings that go on the key or value node itself.
type payloadOut struct {
	json  []byte
	kids  []*tree.Node
	warns []string
}

// payloads runs the hook on a key and a value (each when not nil and not
// null), keeping its answers in ko and vo for the sink.
func (d *decoder) payloads(b []byte, bi int, key, val *varField, ko, vo *payloadOut) {
	*ko, *vo = payloadOut{}, payloadOut{}
	if d.opts.Payload == nil {
		return
	}
	d.pay = d.pay[:0]
	var rk []byte
	if key != nil {
		d.payload(b, bi, key, true, nil, ko)
		if !key.null {
			rk = key.raw
		}
	}
	if val != nil {
		d.payload(b, bi, val, false, rk, vo)
	}
}

func (d *decoder) payload(b []byte, bi int, f *varField, key bool, rk []byte, out *payloadOut) {
	if f.null || len(f.raw) == 0 {
		return
	}
	in := &d.payIn
	if in.Path == nil {
		// What stays from part to part, set at the first after init.
		if d.payPath == nil {
			// Made once per decoder: a path string per key and value,
			// most never read, was nearly every allocation of an internal
			// topic's records.
			d.payPath = func() string { return d.pathString(d.payField) }
		}
		in.Topic, in.Path, in.Budget, in.Warnings = d.opts.Topic, d.payPath, d.b, d.w
		if s := d.s.payloadSlab(); s != nil {
			in.Slab, in.Node = s, &d.payAt
		}
	}
	d.payField = "value"
	if key {
		d.payField = "key"
	}
	start := f.at + f.n
	in.B, in.Buf, in.Start, in.End, in.Key, in.RecordKey = b, bi, start, start+len(f.raw), key, rk
	if in.Node != nil {
		d.payAt = tree.Node{}
	}
	mark := len(d.pay)
	d.pay, out.kids = d.opts.Payload(d.pay, in)
	out.json = d.pay[mark:len(d.pay):len(d.pay)]
	out.warns = d.payAt.Warnings
}

// attach gives the key or value node n what the hook made for it.
func (p *payloadOut) attach(n *tree.Node) {
	if n == nil {
		return
	}
	if len(p.kids) > 0 {
		n.Children = p.kids
	}
	if len(p.warns) > 0 { // most keys and values: none, and no call to append them
		n.Warnings = append(n.Warnings, p.warns...)
	}
}

// withPayload writes the key or value object that ends dst with the
// hook's members in it.
func withPayload(dst []byte, p *payloadOut) []byte {
	if len(p.json) == 0 || len(dst) == 0 || dst[len(dst)-1] != '}' {
		return dst
	}
	dst = append(dst[:len(dst)-1], p.json...)
	return append(dst, '}')
}
