package codec

import (
	"encoding/base64"
	"io"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/jsontext"
)

// AppendAnnotated appends the annotated tree as JSON: every node with its
// name, role, type, [start, end) span, prefix extent, value, warnings and
// children, for pages and tools. Values of error codes and enumerated
// fields carry their names.
func (f *Frame) AppendAnnotated(dst []byte) []byte {
	a := annotator{b: dst}
	a.frame(f)
	return a.b
}

// WriteAnnotated writes what AppendAnnotated appends to w, streaming: a
// big tree's JSON is never held whole.
func (f *Frame) WriteAnnotated(w io.Writer) error {
	a := annotator{w: w}
	a.frame(f)
	a.flush(true)
	return a.err
}

// annotator writes the annotated JSON to b, and from b to w (when set)
// between nodes once b is big.
type annotator struct {
	b   []byte
	w   io.Writer
	err error
}

func (a *annotator) flush(force bool) {
	if a.w == nil || a.err != nil || !force && len(a.b) < 64<<10 {
		return
	}
	_, a.err = a.w.Write(a.b)
	a.b = a.b[:0]
}

func (a *annotator) frame(f *Frame) {
	dst := f.AppendEnvelopeHead(a.b)
	dst = append(dst, `,"headerVersion":`...)
	dst = strconv.AppendInt(dst, int64(f.HeaderVersion), 10)
	dst = append(dst, `,"flexible":`...)
	dst = strconv.AppendBool(dst, f.Flexible)
	if f.Assumed {
		dst = append(dst, `,"assumedLayout":`...)
		dst = strconv.AppendInt(dst, int64(f.Layout), 10)
	}
	dst = append(dst, `,"buffers":[`...)
	for i, b := range f.Buffers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(len(b)), 10)
	}
	dst = append(dst, `],"root":`...)
	a.b = dst
	a.node(f.Root, f.APIKey)
	a.b = append(a.b, '}')
}

// AppendNode appends one node and its subtree as annotated JSON.
func AppendNode(dst []byte, n *tree.Node, apiKey int16) []byte {
	a := annotator{b: dst}
	a.node(n, apiKey)
	return a.b
}

func (a *annotator) node(n *tree.Node, apiKey int16) {
	dst := appendNodeHead(a.b, n, apiKey)
	if len(n.Children) > 0 {
		dst = append(dst, `,"children":[`...)
		for i, c := range n.Children {
			if i > 0 {
				dst = append(dst, ',')
			}
			a.b = dst
			a.node(c, apiKey)
			a.flush(false)
			dst = a.b
		}
		dst = append(dst, ']')
	}
	a.b = append(dst, '}')
}

// appendNodeHead writes a node's members but its children, leaving the
// object open.
func appendNodeHead(dst []byte, n *tree.Node, apiKey int16) []byte {
	dst = append(dst, `{"name":`...)
	name := n.Name
	if n.Field != nil {
		name = n.Field.JSON
	}
	dst = jsontext.AppendString(dst, []byte(name))
	if n.Index >= 0 {
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(n.Index), 10)
	}
	dst = append(dst, `,"role":"`...)
	dst = append(dst, n.Role.String()...)
	dst = append(dst, `","type":`...)
	dst = jsontext.AppendString(dst, []byte(n.Type))
	dst = append(dst, `,"start":`...)
	dst = strconv.AppendInt(dst, int64(n.Start), 10)
	dst = append(dst, `,"end":`...)
	dst = strconv.AppendInt(dst, int64(n.End), 10)
	if n.TagEnd > n.Start {
		dst = append(dst, `,"tag":`...)
		dst = strconv.AppendInt(dst, int64(n.Tag), 10)
		dst = append(dst, `,"tagEnd":`...)
		dst = strconv.AppendInt(dst, int64(n.TagEnd), 10)
		dst = append(dst, `,"sizeEnd":`...)
		dst = strconv.AppendInt(dst, int64(n.SizeEnd), 10)
	}
	if n.PrefixEnd > n.ValueStart() {
		dst = append(dst, `,"prefixEnd":`...)
		dst = strconv.AppendInt(dst, int64(n.PrefixEnd), 10)
	}
	if n.Buf != 0 {
		dst = append(dst, `,"buf":`...)
		dst = strconv.AppendInt(dst, int64(n.Buf), 10)
	}
	if n.Flags&tree.Tagged != 0 {
		dst = append(dst, `,"tagged":true`...)
	}
	if n.Flags&tree.Truncated != 0 {
		dst = append(dst, `,"truncated":true`...)
	}
	if n.Flags&tree.Broken != 0 {
		dst = append(dst, `,"broken":true`...)
	}
	if n.Flags&tree.Assumed != 0 {
		dst = append(dst, `,"assumed":true`...)
	}
	if n.Null {
		dst = append(dst, `,"null":true`...)
	} else if len(n.Children) == 0 || n.Kind == schema.Records || n.Kind == schema.Bytes {
		dst = appendLeafValue(dst, n, apiKey)
	}
	if len(n.Warnings) > 0 {
		dst = append(dst, `,"warnings":[`...)
		for i, w := range n.Warnings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendString(dst, []byte(w))
		}
		dst = append(dst, ']')
	}
	return dst
}

func appendLeafValue(dst []byte, n *tree.Node, apiKey int16) []byte {
	switch n.Kind {
	case schema.Bool:
		dst = append(dst, `,"value":`...)
		return strconv.AppendBool(dst, n.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		dst = append(dst, `,"value":`...)
		dst = strconv.AppendInt(dst, n.Int, 10)
		if name := ValueName(n, apiKey); name != "" {
			dst = append(dst, `,"valueName":`...)
			dst = jsontext.AppendString(dst, []byte(name))
		}
		return dst
	case schema.Float64:
		dst = append(dst, `,"value":`...)
		return jsontext.AppendFloat(dst, n.Float)
	case schema.String:
		dst = append(dst, `,"value":`...)
		return jsontext.AppendString(dst, n.Raw)
	case schema.UUID:
		dst = append(dst, `,"value":"`...)
		dst = base64.RawURLEncoding.AppendEncode(dst, n.Raw)
		return append(dst, '"')
	case schema.Bytes, schema.Records:
		if n.Raw == nil {
			return dst
		}
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, int64(len(n.Raw)), 10)
		if len(n.Raw) <= 4096 {
			dst = append(dst, `,"value":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, n.Raw)
			dst = append(dst, '"')
		}
		if n.Role == tree.RoleUnknownTag {
			dst = append(dst, `,"unknownTag":`...)
			dst = strconv.AppendInt(dst, n.Int, 10)
		}
		return dst
	}
	return dst
}

// ValueName names an integer value where the schema gives it meaning: error
// codes by their Kafka name, enumerated fields by their enum's name.
func ValueName(n *tree.Node, apiKey int16) string {
	f := n.Field
	if f == nil {
		return ""
	}
	if f.Kind == schema.Int16 && (f.Name == "ErrorCode" || len(f.Name) > 9 && f.Name[len(f.Name)-9:] == "ErrorCode") {
		return schema.ErrorName(int16(n.Int))
	}
	if e := schema.EnumFor(apiKey, f); e != nil {
		return e.ValueName(n.Int)
	}
	return ""
}
