// Package budget is what decoding one frame may spend and the warnings it
// says, shared by every level of nesting: the codec's walk, the records
// reader and every guessing candidate.
package budget

import (
	"cmp"
	"errors"
	"strconv"
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

	// Payload is what the payload hook keeps for the frame (codec/payload:
	// the schemas its keys and values looked up, which it caps), nil until
	// it keeps something. A new frame's budget starts without it.
	Payload any
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

// String writes w as "at byte N (path): message", where as AppendWhere
// writes it, as a codec.DecodeError is written.
func (w Warning) String() string {
	return string(append(AppendWhere(nil, w.Offset, w.Buf, w.Path), ": "+w.Message...))
}

// AppendWhere appends where a warning or a decoding error is: "at byte
// N", " of derived buffer B" when buf is not 0, " (path)" when path is
// not "". Warnings and codec.DecodeError both start so.
func AppendWhere(dst []byte, off, buf int, path string) []byte {
	dst = append(dst, "at byte "...)
	dst = strconv.AppendInt(dst, int64(off), 10)
	if buf > 0 {
		dst = append(dst, " of derived buffer "...)
		dst = strconv.AppendInt(dst, int64(buf), 10)
	}
	if path != "" {
		dst = append(dst, " ("...)
		dst = append(dst, path...)
		dst = append(dst, ')')
	}
	return dst
}

// Warnings collects a frame's warnings in document order: the order of the
// nodes they belong to in a depth-first walk of the decoded tree. A
// decoder that learns something about a node only after reading its
// children (a record cut short, a count that disagrees) inserts the
// warning at the mark it took when it opened the node.
type Warnings struct {
	List []Warning // in document order

	fold fold // the warning more places are told in (Fold)
}

// fold is a warning said once for many places (Fold): where it is and
// what it says now.
type fold struct {
	key  string    // what the caller folds by ("" none)
	at   int       // its index in List when said: Insert moves it later, never earlier
	node *[]string // the warnings of the node it is on (nil without a tree)
	msg  string    // its message now
	x    Warning   // as it was first said
	// More counts the places told in it after the first, by the caller's
	// kind, and Last is the last of them.
	more map[string]int
	last Warning
}

// Mark is the position a node's own late warnings go to.
func (w *Warnings) Mark() int {
	if w == nil {
		return 0
	}
	return len(w.List)
}

// Reset empties the list, keeping its memory, for the next frame or
// entry: a warning folded into (Fold) is one of the list's.
func (w *Warnings) Reset() {
	w.List = w.List[:0]
	w.fold = fold{}
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

// Fold says the limit warning x on a node (node: its warnings, nil
// without a tree), unless a warning of the same key was said before in
// this frame and is still listed: then x is told in that one instead, the
// first place's, as one more place of its kind, and tell (given the
// first message, the places after it by kind and the last of them) writes
// its message anew, on its node and in the list. A limit that cuts a
// frame at thousands of places (the MaxNodes limit reached in every
// records field after some byte of a Fetch response of 5,000 partitions)
// is so one warning, with the count and the last place, not thousands.
func (w *Warnings) Fold(key string, node *[]string, x Warning, kind string, tell func(first Warning, more map[string]int, last Warning) string) {
	if w == nil { // no list: every place's warning on its node
		if node != nil {
			*node = append(*node, x.Message)
		}
		return
	}
	f := &w.fold
	if f.key == key {
		for i := f.at; i < len(w.List); i++ {
			if y := &w.List[i]; y.Message == f.msg && y.Offset == f.x.Offset && y.Buf == f.x.Buf && y.Limit {
				f.at = i
				f.more[kind]++
				f.last = x
				msg := tell(f.x, f.more, x)
				if f.node != nil {
					for j, m := range *f.node {
						if m == f.msg {
							(*f.node)[j] = msg
							break
						}
					}
				}
				y.Message, f.msg = msg, msg
				return
			}
		}
	}
	// The first of key, or its warning was dropped (Truncate): said here.
	*f = fold{key: key, at: len(w.List), node: node, msg: x.Message, x: x, more: map[string]int{}}
	if node != nil {
		*node = append(*node, x.Message)
	}
	w.Add(x)
}
