package codec

import (
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// A plain frame's tree holds every node its walk handed the sink, in the
// order it handed them (Frame.plain: no nested payload, nothing read
// early, no error). Its value JSON is then those nodes handed to the JSON
// sink again, from the tree, rather than the bytes read again: the same
// writer, so the same text, for a fraction of the walk's cost.

// replay hands n and the nodes under it to s as the walk did; l is n's
// layout when n is a struct.
func (f *Frame) replay(s *jsonSink, n *tree.Node, l *schema.Layout) {
	s.begin(n, l, 0)
	if size := numbersSize(n.Field); size > 0 && n.Kind == schema.Array {
		// Fixed-size integers, handed over at once as the walk does.
		count := len(n.Children)
		s.numbers(n, n.Field.Elem, f.Buffers[n.Buf][n.PrefixEnd:n.PrefixEnd+size*count], count)
	} else {
		for _, c := range n.Children {
			if c.Role == tree.RoleTags && len(c.Children) == 0 {
				continue // an empty section writes nothing
			}
			if opened(c) {
				f.replay(s, c, f.layoutOf(c, n))
			} else {
				s.leaf(c)
			}
		}
	}
	s.end(n)
}

// opened reports whether the walk opened n in its sink (begin, end)
// rather than handing it over as a leaf.
func opened(n *tree.Node) bool {
	switch n.Role {
	case tree.RoleFrame, tree.RoleHeader, tree.RoleBody, tree.RoleTags:
		return true
	}
	return (n.Kind == schema.Struct || n.Kind == schema.Array) && !n.Null
}

// layoutOf is the layout of struct c, a child of p.
func (f *Frame) layoutOf(c, p *tree.Node) *schema.Layout {
	switch {
	case c.Role == tree.RoleHeader:
		h := schema.RequestHeader()
		if f.Response {
			h = schema.ResponseHeader()
		}
		return h.At(f.HeaderVersion).Root
	case c.Role == tree.RoleBody:
		return f.Message.At(f.LayoutVersion).Root
	case c.Kind != schema.Struct:
		return nil
	case c.Role == tree.RoleElement && p.Field != nil:
		return p.Field.Struct
	case c.Field != nil:
		return c.Field.Struct
	}
	return nil
}
