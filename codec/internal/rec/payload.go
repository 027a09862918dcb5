package rec

import (
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
)

// The payload hook (issue 21): Options.Payload reads what a record's key
// and value carry (text, JSON, the schema registry's framing with Avro,
// Protobuf or JSON Schema; codec/payload does it). It runs once per key
// and value, after the record's own nodes and warnings are spent: the
// reader says what it reads (hooked), and the sink runs it as it takes
// the record, with nothing charged or said in between, so both sinks
// spend the same budget and give the same warnings in the same order.
// The tree sink hangs the nodes it returns under the key or value node;
// the JSON sink has it write its members straight into the key's or
// value's object.

// PayloadIn is one record key or value for Options.Payload: B[Start:End]
// in buffer Buf (node offsets absolute in B).
type PayloadIn struct {
	B               []byte
	Buf, Start, End int
	Key             bool   // a record key (else a value)
	Topic           string // the topic the records belong to, when known
	// Int64Strings asks for int64 values (Avro longs) as strings of
	// their digits, as the records' own (Options.Int64Strings).
	Int64Strings bool
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

// hooked is what of a record or legacy message the payload hook reads:
// its key and its value (nil: not read, or no hook). The reader says
// which; the sink runs the hook where it takes them, so the JSON sink
// writes the hook's members straight into the key's or value's object.
type hooked struct{ key, val *varField }

// recordKey is what a value's hook is told of its record's key: nil when
// null or not read.
func (h hooked) recordKey() []byte {
	if h.key == nil || h.key.null {
		return nil
	}
	return h.key.raw
}

// payloads runs the hook on h's key and value for the tree sink, giving
// its nodes and warnings to the key's and value's nodes, kids[at] and
// kids[at+1].
func (d *decoder) payloads(b []byte, bi int, h hooked, kids []*tree.Node, at int) {
	if h.key != nil {
		d.pay = d.payload(d.pay[:0], b, bi, h.key, true, nil, kids[at])
	}
	if h.val != nil {
		d.pay = d.payload(d.pay[:0], b, bi, h.val, false, h.recordKey(), kids[at+1])
	}
}

// payloadJSON writes the hook's members of f (nil: none), a key when key,
// into the key or value object that ends dst; rk is a value's record key.
func (d *decoder) payloadJSON(dst, b []byte, bi int, f *varField, key bool, rk []byte) []byte {
	if f == nil || f.null || len(f.raw) == 0 {
		return dst
	}
	dst = d.payload(dst[:len(dst)-1], b, bi, f, key, rk, nil)
	return append(dst, '}')
}

// payload runs the hook on f, appending its JSON members to dst; n, the
// key's or value's node when the sink makes one, takes its nodes and
// warnings.
func (d *decoder) payload(dst, b []byte, bi int, f *varField, key bool, rk []byte, n *tree.Node) []byte {
	if f.null || len(f.raw) == 0 {
		return dst
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
		in.Int64Strings = d.opts.Int64Strings
		if s := d.s.slab(); s != nil {
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
	dst, kids := d.opts.Payload(dst, in)
	if n != nil {
		if len(kids) > 0 {
			n.Children = kids
		}
		if w := d.payAt.Warnings; len(w) > 0 { // most keys and values: none, and no call to append them
			n.Warnings = append(n.Warnings, w...)
		}
	}
	return dst
}
