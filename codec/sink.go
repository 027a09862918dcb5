package codec

import (
	"slices"

	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// sink is what the walk hands each structural step to. Every node the
// walk takes from node() is handed back exactly once, after the nodes
// taken after it: as a leaf, or opened (begin) and closed (end) around
// the nodes read inside it.
type sink interface {
	// node returns a node for the walk to fill: one the tree keeps, or
	// scratch that is reused once handed back.
	node() *tree.Node
	// begin opens n (the frame, header, body, a struct or array value, a
	// tag section, bytes read as a data message), end closes it; l is its
	// layout when it is a struct, hint how many children to expect.
	begin(n *tree.Node, l *schema.Layout, hint int)
	end(n *tree.Node)
	// leaf hands over n, a value with no children of its own (or one the
	// walk could not read: Broken).
	leaf(n *tree.Node)
	// numbers hands over the array n whole: its count elements are
	// fixed-size integers of kind k, as the bytes b hold them.
	numbers(n *tree.Node, k schema.Kind, b []byte, count int)
	// records hands over the records field n, whose payload (with the
	// bytes before it) is b, read with o; it returns how many derived
	// buffers the records numbered and the records' error.
	records(n *tree.Node, b []byte, o rec.Options) (int, error)
	// attach hands over h, the section's node of a tagged value read
	// early into early, now that the walk has reached its section.
	attach(h, early *tree.Node)
	// mark, commit and rollback bracket a reading that may be dropped:
	// rollback forgets what the sink was handed since mark.
	mark() sinkMark
	commit(m sinkMark)
	rollback(m sinkMark)
	// dataSink is the sink KRaft control values are read into: a small
	// tree the records package writes down.
	dataSink() sink
}

// sinkMark is a sink's place to roll back to.
type sinkMark struct {
	depth, kids, pool int
	found, unknown    int
	frames            int
	out               jsontext.Mark
}

// treeSink builds the tree: nodes from a slab, each level's children
// collected while it is open.
type treeSink struct {
	slab   *slab.Slab
	f      *Frame // the frame decoded records and derived buffers go to
	levels []treeLevel
}

type treeLevel struct {
	n    *tree.Node
	kids []*tree.Node
	// early holds the struct's tagged values read at their declared
	// place until the walk reaches its section; what is left when the
	// struct closes (the walk failed first) stays as its children.
	early []*tree.Node
}

func (s *treeSink) node() *tree.Node { return s.slab.New() }

func (s *treeSink) add(n *tree.Node) {
	k := len(s.levels)
	if k == 0 {
		return
	}
	lv := &s.levels[k-1]
	if n.Flags&tree.Tagged != 0 && lv.n.Role != tree.RoleTags {
		lv.early = append(lv.early, n) // attached at its section
		return
	}
	lv.kids = append(lv.kids, n)
}

func (s *treeSink) begin(n *tree.Node, _ *schema.Layout, hint int) {
	s.add(n)
	s.levels = append(s.levels, treeLevel{n: n, kids: s.slab.Kids(hint)})
}

func (s *treeSink) end(n *tree.Node) {
	k := len(s.levels) - 1
	lv := &s.levels[k]
	n.Children = append(lv.kids, lv.early...)
	s.levels = s.levels[:k]
}

func (s *treeSink) leaf(n *tree.Node) { s.add(n) }

func (s *treeSink) attach(h, early *tree.Node) {
	if len(h.Warnings) > 0 {
		early.Warnings = append(h.Warnings, early.Warnings...)
	}
	s.add(early)                     // to the open section
	st := &s.levels[len(s.levels)-2] // the section's struct
	if i := slices.Index(st.early, early); i >= 0 {
		st.early = slices.Delete(st.early, i, i+1)
	}
}

func (s *treeSink) numbers(n *tree.Node, k schema.Kind, b []byte, count int) {
	s.add(n)
	size, typ := k.FixedSize(), k.String()
	kids := s.slab.Kids(count)
	at := n.PrefixEnd
	for i := 0; i < count; i++ {
		c := s.slab.New()
		c.Role, c.Index, c.Kind, c.Type, c.Buf = tree.RoleElement, i, k, typ, n.Buf
		c.Flags = n.Flags & tree.Compact
		c.Start, c.TagEnd, c.SizeEnd, c.PrefixEnd, c.End = at, at, at, at, at+size
		c.Int = read.Fixed(k, b[i*size:])
		at += size
		kids = append(kids, c)
	}
	n.Children = kids
}

func (s *treeSink) records(n *tree.Node, b []byte, o rec.Options) (int, error) {
	res, err := rec.Decode(s.slab, b, o)
	derived := 0
	if res != nil {
		derived = len(res.Derived)
		s.f.Buffers = append(s.f.Buffers, res.Derived...)
		n.Children = res.Nodes
		if s.f.records == nil {
			s.f.records = map[*tree.Node]*rec.Result{}
		}
		s.f.records[n] = res
	}
	s.add(n)
	return derived, err
}

func (s *treeSink) mark() sinkMark {
	m := sinkMark{depth: len(s.levels)}
	if m.depth > 0 {
		m.kids, m.found = len(s.levels[m.depth-1].kids), len(s.levels[m.depth-1].early)
	}
	return m
}

func (s *treeSink) commit(sinkMark) {}

func (s *treeSink) rollback(m sinkMark) {
	s.levels = s.levels[:m.depth]
	if m.depth > 0 {
		lv := &s.levels[m.depth-1]
		lv.kids, lv.early = lv.kids[:m.kids], lv.early[:m.found]
	}
}

func (s *treeSink) dataSink() sink { return &treeSink{slab: s.slab, f: s.f} }

// scratch is a stack of nodes for sinks that keep none: a node is taken
// when the walk asks and given back when it is handed over.
type scratch struct {
	pool []*tree.Node
	n    int
}

func (p *scratch) take() *tree.Node {
	if p.n == len(p.pool) {
		p.pool = append(p.pool, new(tree.Node))
	}
	n := p.pool[p.n]
	p.n++
	*n = tree.Node{Index: -1, Tag: -1, Warnings: n.Warnings[:0]}
	return n
}

// give takes back n, the last node taken (sink's contract); any other
// stays taken, so a node in use is never handed out again.
func (p *scratch) give(n *tree.Node) {
	if p.n > 0 && p.pool[p.n-1] == n {
		p.n--
	}
}

// nullSink keeps nothing: the walk reading ahead (prescan) uses it.
type nullSink struct{ scratch }

func (s *nullSink) node() *tree.Node                                     { return s.take() }
func (s *nullSink) begin(*tree.Node, *schema.Layout, int)                {}
func (s *nullSink) end(n *tree.Node)                                     { s.give(n) }
func (s *nullSink) leaf(n *tree.Node)                                    { s.give(n) }
func (s *nullSink) numbers(n *tree.Node, _ schema.Kind, _ []byte, _ int) { s.give(n) }
func (s *nullSink) records(n *tree.Node, _ []byte, _ rec.Options) (int, error) {
	s.give(n)
	return 0, nil
}
func (s *nullSink) attach(h, _ *tree.Node) { s.give(h) }
func (s *nullSink) mark() sinkMark         { return sinkMark{pool: s.n} }
func (s *nullSink) commit(sinkMark)        {}
func (s *nullSink) rollback(m sinkMark)    { s.n = m.pool }
func (s *nullSink) dataSink() sink         { return s }
