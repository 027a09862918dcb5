package payload

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// walker is one payload's decoding: where JSON goes, the nodes made, the
// budget, the path for warnings, and whether a failure ended it.
type walker struct {
	in       *In
	s        *slab.Slab // nil: JSON only, nodes counted
	b        *budget.Budget
	maxDepth int
	depth    int
	out      []byte
	kids     []*tree.Node // the payload's top-level nodes
	scratch  tree.Node    // the node handed out when there is no slab

	path []pathSeg // the value's place below "decoded", for warnings
	// mismatched are the Protobuf fields said not to match the schema
	// (protoMismatch), message.number/wiretype.
	mismatched []string
	stopped    bool // a failure or a limit ended the walk
	stopAt     int  // where
	// byTopic is set when the data is read through the topic's schema
	// file, not the schema its framing names: the writer's schema is not
	// known then, and a reader's that adds fields runs past the data.
	byTopic bool
	// valueAt is where in out the member "decoded"'s value starts (0:
	// none written, or rolled back): see decoded.
	valueAt int
	// topEnd is where the last top-level node ends (or would, without a
	// slab): the bytes after it have no node yet (see framed).
	topEnd int
}

type pathSeg struct {
	name string
	idx  int // >= 0: an element index; ownMember, pathEnd: see there
}

// ownMember marks a path's first segment that is a member of the
// payload's own object (beside "decoded", as Protobuf's messageIndexes),
// not of the value below "decoded".
const ownMember = -2

// pathEnd marks where a path ends, the segments after it not said: in a
// Protobuf map entry whose key is not read yet, the field's path is all
// there is.
const pathEnd = -3

// pathString is the JSON path of the value being read.
func (w *walker) pathString() string {
	p := w.in.Path()
	if len(w.path) == 0 {
		return p
	}
	segs := w.path
	if segs[0].idx == ownMember {
		p += "." + segs[0].name
		segs = segs[1:]
	} else {
		p += ".decoded"
	}
	for _, s := range segs {
		if s.idx == pathEnd {
			break
		}
		if s.idx >= 0 {
			p += "[" + strconv.Itoa(s.idx) + "]"
		} else {
			p += "." + s.name
		}
	}
	return p
}

func (w *walker) push(name string, idx int) { w.path = append(w.path, pathSeg{name, idx}) }
func (w *walker) pop()                      { w.path = w.path[:len(w.path)-1] }

// take charges n nodes for what starts at w.stopAt, or stops the walk
// with a limit warning there when they do not fit below the budget's
// NestedNodes: the caller sets stopAt where the node it pays for starts
// (a field, member or element, at the top level too), so the warning
// points at what was not decoded, not at the payload's first byte.
func (w *walker) take(n int) bool { return w.charge(w.stopAt, n) }

// takeData is take for the first node of the data (what follows the
// registry's framing, or the payload itself when it has none): a limit
// that stops it is said at at, where the data left undecoded starts, not
// at the payload's first byte (the magic byte of a framed one).
func (w *walker) takeData(at, n int) bool { return w.charge(at, n) }

// charge charges n nodes, or stops the walk with a limit warning at at
// when they do not fit below the budget's NestedNodes.
func (w *walker) charge(at, n int) bool {
	if w.stopped {
		return false
	}
	if !w.b.Fits(n) {
		w.limit(at, "payload not decoded further: the MaxNodes limit ("+strconv.Itoa(w.b.MaxNodes)+" nodes) is reached")
		return false
	}
	w.b.Nodes += n
	return true
}

// cuts reports whether charging work units of work and then nodes nodes
// would stop the walk (or it is stopped): a caller that needs work to
// name what a cut stops (a key to read) does it only then.
func (w *walker) cuts(work, nodes int) bool {
	return w.stopped || !w.b.WorkLeft(work) || !w.b.Fits(nodes)
}

// takeAt is take for a node at offset at, where a limit that stops it is
// said to be.
func (w *walker) takeAt(at, n int) bool {
	w.stopAt = at
	return w.take(n)
}

// node returns a node for [start, end) of the payload's buffer, already
// paid for. Without a slab it is a scratch node, overwritten by the next.
func (w *walker) node(name, typ string, k schema.Kind, start, end int) *tree.Node {
	var n *tree.Node
	if w.s != nil {
		n = w.s.New()
	} else {
		n = &w.scratch
		*n = tree.Node{Index: -1, Tag: -1}
	}
	n.Name, n.Type, n.Kind, n.Role = name, typ, k, tree.RoleRecord
	n.Buf, n.Start, n.PrefixEnd, n.End = w.in.Buf, start, start, end
	n.TagEnd, n.SizeEnd = start, start
	return n
}

// leaf makes a top-level node (already paid for).
func (w *walker) leaf(name, typ string, k schema.Kind, start, end int) *tree.Node {
	n := w.node(name, typ, k, start, end)
	w.topEnd = end
	if w.s != nil {
		w.kids = append(w.kids, n)
	}
	return n
}

// add appends child c to p's children (nothing without a slab).
func (w *walker) add(p, c *tree.Node) {
	if w.s == nil || p == nil || c == nil {
		return
	}
	if p.Children == nil {
		p.Children = w.s.Kids(4)
	}
	p.Children = append(p.Children, c)
}

// member writes ,member (a JSON member the payload adds to its object).
func (w *walker) member(s string) {
	w.out = append(w.out, ',')
	w.out = append(w.out, s...)
}

// decoded writes the key of the member "decoded", always the last, and
// notes where its value starts (DecodeBytesJSON hands it apart).
func (w *walker) decoded() {
	w.member(`"decoded":`)
	w.valueAt = len(w.out)
}

// rollback takes out back to mark, the "decoded" member too when it was
// written past it.
func (w *walker) rollback(mark int) {
	w.out = w.out[:mark]
	if w.valueAt > mark {
		w.valueAt = 0
	}
}

// warnAt adds a warning at byte off of the payload's buffer.
func (w *walker) warnAt(off int, msg string, limit bool) {
	w.b.ChargeWarning(limit)
	if w.in.Warnings != nil {
		w.in.Warnings.Add(budget.Warning{Offset: off, Buf: w.in.Buf, Path: w.pathString(), Message: msg, Limit: limit})
	}
	switch {
	case w.s == nil:
	case len(w.kids) > 0:
		k := w.kids[len(w.kids)-1]
		k.Warnings = append(k.Warnings, msg)
	case w.in.Node != nil:
		w.in.Node.Warnings = append(w.in.Node.Warnings, msg)
	}
}

// fail stops the walk at off: the bytes do not read as the schema says.
func (w *walker) fail(off int, msg string) {
	if w.stopped {
		return
	}
	w.stopped, w.stopAt = true, off
	if w.byTopic && strings.Contains(msg, "the payload ends inside") {
		msg += " (the topic's schema file reads on past the data: a newer schema than the one the data was written with?)"
	}
	w.warnAt(off, msg, false)
}

// limit stops the walk at off because a limit is reached.
func (w *walker) limit(off int, msg string) {
	if w.stopped {
		return
	}
	w.stopped, w.stopAt = true, off
	w.warnAt(off, msg, true)
}

// rest makes a raw node for the payload's bytes from p on that were not
// decoded. It is charged past NestedNodes if need be, as finish's is (one
// node, within budget.NestedSlack): framing that took the last nodes
// below the limit leaves its data a node all the same, so every byte of a
// payload with nodes keeps one.
func (w *walker) rest(p int, name string) {
	if p >= w.in.End {
		return
	}
	w.b.Nodes++
	if n := w.leaf(name, "bytes", schema.Bytes, p, w.in.End); n != nil {
		n.Role = tree.RoleRaw
		n.Raw = w.in.B[p:w.in.End:w.in.End]
	}
}

// finish ends a data node root that a failure or a limit cut short: the
// nodes still open (the last child at each level) end with their last
// child, the root runs to the payload's end, and a raw child holds the
// bytes after its last child.
func (w *walker) finish(root *tree.Node, mark int) {
	if !w.stopped {
		return
	}
	w.rollback(mark)
	// Charged whether or not bytes are left for it, past NestedNodes if
	// need be (one node, within budget.NestedSlack), so both paths spend
	// alike and every byte keeps a node.
	w.b.Nodes++
	w.topEnd = w.in.End
	if w.s == nil {
		return
	}
	closeOpen(root, w.stopAt)
	at := root.PrefixEnd
	if k := len(root.Children); k > 0 {
		at = root.Children[k-1].End
	}
	root.End = w.in.End
	root.Flags |= tree.Broken
	if at < w.in.End {
		r := w.node("undecoded", "bytes", schema.Bytes, at, w.in.End)
		r.Role = tree.RoleRaw
		r.Raw = w.in.B[at:w.in.End:w.in.End]
		w.add(root, r)
	}
}

// deeper enters one level of nesting, or stops the walk at off when it
// would pass MaxDepth.
func (w *walker) deeper(off int) bool {
	if w.depth >= w.maxDepth {
		w.limit(off, "payload not decoded further: values nest deeper than the MaxDepth limit ("+strconv.Itoa(w.maxDepth)+")")
		return false
	}
	w.depth++
	return true
}

// work charges n bytes (or items) of work, stopping at MaxWork.
func (w *walker) work(off, n int) bool {
	if w.stopped {
		return false
	}
	if !w.b.WorkLeft(n) {
		w.limit(off, "payload not decoded further: the MaxWork limit ("+strconv.Itoa(w.b.MaxWork)+" bytes) is reached")
		return false
	}
	w.b.Work += n
	return true
}

// closeOpen ends the nodes a cut walk left open, the last child at each
// level below n, where what was read of them ends. The walk stopped at
// cut: a last node with no children that ends past its prefix and no
// later than cut was read whole before the stop (the cut fell after it,
// as a limit falls between a container's members), and keeps its end, so
// the raw node of what was not decoded starts where the stop is said.
func closeOpen(n *tree.Node, cut int) {
	if k := len(n.Children); k > 0 {
		last := n.Children[k-1]
		closeOpen(last, cut)
		n.End = last.End
		return
	}
	if n.End > n.PrefixEnd && n.End <= cut {
		return
	}
	n.End = max(n.PrefixEnd, n.SizeEnd, min(n.End, n.PrefixEnd))
}
