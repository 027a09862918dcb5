// Package budget is what decoding one frame may spend and the warnings it
// says, shared by every level of nesting: the codec's walk, the records
// reader and every guessing candidate.
package budget

import (
	"cmp"
	"errors"
)

// ErrLimit is the cause when a decoding limit (nodes, nesting, work),
// not the bytes, stopped decoding: the input may be valid, and a larger
// limit would read it.
var ErrLimit = errors.New("codec: a decoding limit is reached")

// Budget is what decoding one frame may spend, shared by every level of
// nesting (the frame itself, records, compressed wrappers inside wrappers,
// data messages) and by every reading tried while guessing. Spending is
// counted as it happens, so what a frame costs grows with the work done,
// never with a count, length or size the input declares.
//
// Nodes counts tree nodes (the tree-less path counts the nodes it would
// have built, so both paths stop at the same place); Decompressed the bytes
// decompression produced; Work the bytes scanned, every nested payload and
// every guessing candidate included.
type Budget struct {
	MaxNodes, MaxDecompressed, MaxWork int // the limits
	Nodes, Decompressed, Work          int // what was spent so far

	// NestedNodes is where nested payloads (records, data messages) must
	// stop taking nodes, below MaxNodes so that the frame's own fields
	// after them still fit. The caller sets it before each payload, less
	// NestedSlack: a payload takes a unit (a batch's header, a record, a
	// message) only when all of it fits (Fits), and what a cut or a
	// failure adds after that (the node holding the bytes left, a
	// warning) stays within the slack.
	NestedNodes int
}

// NestedSlack is how far past NestedNodes a nested payload may end: per
// level of record nesting (maxRecordNesting wrapper levels, then a batch
// and its records) the node for the bytes a cut leaves and the warnings a
// level adds once its units are read (a decompression's, an inner
// message set's, a batch's record count), and what a data message's
// nodes may pass its limit by before they stop.
func NestedSlack(maxRecordNesting int) int { return 16 + 8*(max(maxRecordNesting, 0)+1) }

// WarningNodes is what a warning costs in nodes. A warning that is not a
// limit hit takes about two nodes' memory (a node is ~210 bytes): its
// Warning in the frame's list (56 bytes, up to twice that while the list
// grows), its message, the message's entry on its node, and some 170 bytes
// of "warnings" JSON. Charging it so keeps a flood of warnings (unknown
// tags, non-minimal varints) inside what MaxNodes allows.
const WarningNodes = 2

// ChargeWarning spends a warning's nodes. A limit warning ends work and
// is free.
func (b *Budget) ChargeWarning(limit bool) {
	if !limit {
		b.Nodes += WarningNodes
	}
}

// Limit is a limit as the caller set it, or its default d when it is
// zero or below (unset): the codec's options say so for every limit.
func Limit(v, d int) int { return cmp.Or(max(v, 0), d) }

// NodesLeft reports whether a nested payload may still take nodes.
func (b *Budget) NodesLeft() bool { return b.Nodes < b.NestedNodes }

// Fits reports whether a nested payload may take n more nodes: a unit is
// taken whole or not at all, so a payload never passes NestedNodes by
// more than NestedSlack.
func (b *Budget) Fits(n int) bool { return b.Nodes+n <= b.NestedNodes }

// WorkLeft reports whether n more bytes of work fit.
func (b *Budget) WorkLeft(n int) bool { return b.Work+n <= b.MaxWork }

// Warning is a lenient reading (a null where the schema says non-nullable,
// an unknown tag, a non-minimal varint, a CRC mismatch...) or a limit that
// cut decoding short (Limit set): where it is (Offset in buffer Buf: 0 for
// the input, n for the nth decompressed buffer), the field path in value
// JSON terms, and what happened.
type Warning struct {
	Offset  int    // byte offset in buffer Buf
	Buf     int    // 0 for the input, n for the nth decompressed buffer
	Path    string // e.g. "body.topics[0].partitions[1].records"
	Message string // what happened, in words
	Limit   bool   // a limit cut decoding short here
}

// Warnings collects a frame's warnings in document order: the order of the
// nodes they belong to in a depth-first walk of the decoded tree. A
// decoder that learns something about a node only after reading its
// children (a record cut short, a count that disagrees) inserts the
// warning at the mark it took when it opened the node.
type Warnings struct {
	List []Warning // in document order
}

// Mark is the position a node's own late warnings go to.
func (w *Warnings) Mark() int {
	if w == nil {
		return 0
	}
	return len(w.List)
}

// Add appends a warning.
func (w *Warnings) Add(x Warning) {
	if w != nil {
		w.List = append(w.List, x)
	}
}

// Insert puts x at position i (a Mark), after the warnings already there
// for the same node: *at is advanced so that a node's late warnings keep
// their order.
func (w *Warnings) Insert(at *int, x Warning) {
	if w == nil {
		return
	}
	i := *at
	if i < 0 || i > len(w.List) {
		i = len(w.List)
	}
	w.List = append(w.List, Warning{})
	copy(w.List[i+1:], w.List[i:])
	w.List[i] = x
	*at = i + 1
}

// Truncate drops the warnings after position n (a Mark): a nested reading
// that is thrown away takes its warnings with it.
func (w *Warnings) Truncate(n int) {
	if w != nil && n >= 0 && n < len(w.List) {
		clear(w.List[n:])
		w.List = w.List[:n]
	}
}

// PathText is the text of a warning's field path, built in a reused
// buffer. A flood of warnings at one place (unknown tags, non-minimal
// varints) shares one string: the text is kept while it is the one
// built last.
type PathText struct {
	Buf  []byte // the buffer paths are built in
	last string
}

// Intern is b, built in Buf, as a string: the one returned last when b
// says the same.
func (p *PathText) Intern(b []byte) string {
	p.Buf = b
	if string(b) != p.last {
		p.last = string(b)
	}
	return p.last
}
