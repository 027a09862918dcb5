package codec

import (
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// A plain frame's tree holds every node its walk handed the sink, in the
// order it handed them (Frame.plain: no nested payload, nothing read
// early, no error). Its value JSON is then those nodes handed to the JSON
// sink again, from the tree, rather than the bytes read again: the same
// writer, so the same text, for a fraction of the walk's cost.

// replayState is what a replay writes with: the JSON sink and its writer.
type replayState struct {
	s   jsonSink
	out jsontext.Writer
}

// replayJSON appends f's value JSON, replayed from its tree, to dst.
func (f *Frame) replayJSON(dst []byte) []byte {
	st := f.replaying.Swap(nil)
	if st == nil {
		st = new(replayState)
	}
	st.out.Reset(nil)
	st.out.B = dst
	st.s.reset(f, &st.out, &f.opts)
	f.replay(&st.s, f.Root, nil)
	dst = st.out.B
	st.out.B, st.s.f = nil, nil
	f.replaying.Store(st)
	return dst
}

// replay hands n and the nodes under it to s as the walk did; l is n's
// layout when n is a struct, its elements' when n is an array of structs.
// The nodes are the tree's: the sink's scratch holds none, so giving them
// back does nothing.
func (f *Frame) replay(s *jsonSink, n *tree.Node, l *schema.Layout) {
	if n.Role == tree.RoleElement && n.Kind == schema.Struct && s.flatElement(n) {
		return
	}
	s.begin(n, l, 0)
	for _, c := range n.Children {
		switch {
		case c.Null || c.Kind < schema.Struct && c.Role != tree.RoleTags:
			s.leaf(c) // the walk handed it over whole
		case c.Kind == schema.Array && numbersSize(c.Field) > 0:
			// Fixed-size integers, handed over at once as the walk does.
			count, size := len(c.Children), numbersSize(c.Field)
			s.numbers(c, c.Field.Elem, f.Buffers[c.Buf][c.PrefixEnd:c.PrefixEnd+size*count], count)
		case c.Role == tree.RoleElement:
			f.replay(s, c, l)
		case c.Field != nil: // a struct, or an array
			f.replay(s, c, c.Field.Struct)
		case c.Role == tree.RoleHeader && f.Response:
			f.replay(s, c, schema.ResponseHeader().At(f.HeaderVersion).Root)
		case c.Role == tree.RoleHeader:
			f.replay(s, c, schema.RequestHeader().At(f.HeaderVersion).Root)
		case c.Role == tree.RoleBody:
			f.replay(s, c, f.Message.At(f.LayoutVersion).Root)
		default: // a tag section
			f.replay(s, c, nil)
		}
	}
	s.end(n)
}
