// Package partview draws one record key or value for the playground's
// storage view (wasm/storage's record answer): its bytes as grid rows
// (render's row JSON) and its nodes as tree lines. storage.wasm draws the
// parts its own codec read (an internal topic's, or bytes as stored);
// payload.wasm (wasm/payload.go) those its payload decoders read, with the
// schemas the user gave, so both draw alike.
package partview

import (
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// maxRows is how many grid rows a part's answer holds.
const maxRows = 400

// Append writes the members "buf", "rows" and "tree" of the part whose
// node is node (its bytes buf, the buffer node.Buf names) into the object
// w is writing. valueName, when set, names a leaf's value the schema
// leaves a number (a __transaction_state value's transactionStatus),
// after it, or "".
func Append(w *jsontext.Writer, node *tree.Node, buf []byte, valueName func(n *tree.Node) string) {
	f := &codec.Frame{Root: node, Buffers: make([][]byte, node.Buf+1), APIKey: -1}
	f.Buffers[node.Buf] = buf
	cells := render.Cells(f, node.Buf)
	rows := render.Layout(cells, 4, 96, nil)
	w.Key("buf")
	w.Int(int64(node.Buf))
	w.Key("rows")
	w.Value()
	w.B = render.AppendRowsJSON(w.B, cells, rows, 0, min(len(rows), maxRows), nil)
	w.Key("tree")
	w.BeginArray()
	var walk func(n *tree.Node, depth int)
	walk = func(n *tree.Node, depth int) {
		w.BeginObject()
		w.Key("depth")
		w.Int(int64(depth))
		w.Key("name")
		w.HTMLSafe(render.TreeName(n))
		w.Key("type")
		w.HTMLSafe(n.Type)
		w.Key("start")
		w.Int(int64(n.Start))
		w.Key("end")
		w.Int(int64(n.End))
		if len(n.Children) == 0 || n.Kind == 0 {
			v := render.ShortValue(n, -1)
			if valueName != nil {
				if name := valueName(n); name != "" {
					v += " " + name
				}
			}
			w.Key("value")
			w.HTMLSafe(v)
		}
		if len(n.Warnings) > 0 {
			w.Key("warning")
			w.HTMLSafe(n.Warnings[0])
		}
		w.EndObject()
		for _, k := range n.Children {
			walk(k, depth+1)
		}
	}
	walk(node, 0)
	w.EndArray()
}
