package codec

import (
	"io"
	"strings"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// AppendAnnotated appends the annotated tree as JSON: every node with its
// name, role, type, [start, end) span, prefix extent, value, warnings and
// children, for pages and tools. Values of error codes and enumerated
// fields carry their names. With n nil it is the whole frame, in an
// envelope that says how it was read; else the subtree of n alone.
func (f *Frame) AppendAnnotated(dst []byte, n *tree.Node) []byte {
	w := jsontext.Writer{B: dst}
	if n != nil {
		annotate(&w, n, f.APIKey)
	} else {
		f.annotated(&w)
	}
	return w.B
}

// WriteAnnotated writes what AppendAnnotated appends for the whole frame
// to out, streaming: a big tree's JSON is never held whole.
func (f *Frame) WriteAnnotated(out io.Writer) error {
	w := jsontext.Writer{W: out}
	f.annotated(&w)
	w.Flush(true)
	return w.Err
}

func (f *Frame) annotated(w *jsontext.Writer) {
	w.BeginObject()
	if f.Message != nil && f.API == nil {
		w.Key("data")
		w.String([]byte(f.Message.Name))
		w.Key("version")
		w.Int(int64(f.Version))
	} else {
		writeFrameHead(w, f)
	}
	w.Key("headerVersion")
	w.Int(int64(f.HeaderVersion))
	w.Key("flexible")
	w.Bool(f.Flexible)
	if f.Assumed {
		w.Key("assumedLayout")
		w.Int(int64(f.LayoutVersion))
	}
	if f.Guess != nil {
		w.Key("guess") // as in value JSON
		w.Value()
		w.B = appendGuess(w.B, f.Guess)
	}
	w.Key("buffers")
	w.BeginArray()
	for _, b := range f.Buffers {
		w.Int(int64(len(b)))
	}
	w.EndArray()
	w.Key("root")
	if f.Root != nil {
		annotate(w, f.Root, f.APIKey)
	} else {
		w.Null()
	}
	w.EndObject()
}

// annotate writes node n and its subtree.
func annotate(w *jsontext.Writer, n *tree.Node, apiKey int16) {
	w.BeginObject()
	w.Key("name")
	if n.Field != nil {
		w.String([]byte(n.Field.JSON))
	} else {
		w.String([]byte(n.Name))
	}
	if n.Index >= 0 {
		w.Key("index")
		w.Int(int64(n.Index))
	}
	w.Key("role")
	w.Text(n.Role.String())
	w.Key("type")
	w.String([]byte(n.Type))
	w.Key("start")
	w.Int(int64(n.Start))
	w.Key("end")
	w.Int(int64(n.End))
	if n.TagEnd > n.Start {
		w.Key("tag")
		w.Int(int64(uint32(n.Tag))) // tags are unsigned: up to 2^32-1
		w.Key("tagEnd")
		w.Int(int64(n.TagEnd))
		w.Key("sizeEnd")
		w.Int(int64(n.SizeEnd))
	}
	if n.PrefixEnd > n.ValueStart() {
		w.Key("prefixEnd")
		w.Int(int64(n.PrefixEnd))
	}
	if n.Buf != 0 {
		w.Key("buf")
		w.Int(int64(n.Buf))
	}
	for _, fl := range [...]struct {
		f    tree.Flags
		name string
	}{{tree.Tagged, "tagged"}, {tree.Truncated, "truncated"}, {tree.Broken, "broken"}, {tree.Assumed, "assumed"}} {
		if n.Flags&fl.f != 0 {
			w.Key(fl.name)
			w.Bool(true)
		}
	}
	if n.Null {
		w.Key("null")
		w.Bool(true)
	} else if len(n.Children) == 0 || n.Kind == schema.Records || n.Kind == schema.Bytes {
		annotateValue(w, n, apiKey)
	}
	if len(n.Warnings) > 0 {
		w.Key("warnings")
		w.Strings(n.Warnings)
	}
	if len(n.Children) > 0 {
		w.Key("children")
		w.BeginArray()
		for _, c := range n.Children {
			annotate(w, c, apiKey)
			w.Flush(false)
		}
		w.EndArray()
	}
	w.EndObject()
}

// annotateValue writes a leaf's value: "value", and "valueName" for a
// named code, or for bytes their "size" (and "value" when small).
func annotateValue(w *jsontext.Writer, n *tree.Node, apiKey int16) {
	switch n.Kind {
	case schema.Bool:
		w.Key("value")
		w.Bool(n.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		w.Key("value")
		w.Int(n.Int)
		if name := ValueName(n, apiKey); name != "" {
			w.Key("valueName")
			w.String([]byte(name))
		}
	case schema.Float64:
		w.Key("value")
		w.Float(n.Float)
	case schema.String:
		w.Key("value")
		w.String(n.Raw)
	case schema.UUID:
		w.Key("value")
		w.Base64URL(n.Raw)
	case schema.Bytes, schema.Records:
		if n.Raw == nil {
			return
		}
		w.Key("size")
		w.Int(int64(len(n.Raw)))
		if len(n.Raw) <= 4096 {
			w.Key("value")
			w.Base64(n.Raw)
		}
		if n.Role == tree.RoleUnknownTag {
			w.Key("unknownTag")
			w.Int(n.Int)
		}
	}
}

// ValueName names a node's integer value where it has a meaning: an error
// code by Kafka's name for it, an enumerated field's value by its enum's
// name, a record batch's or message's compression ("none", "gzip",
// "snappy", "lz4", "zstd") and timestampType ("CreateTime",
// "LogAppendTime") as value JSON writes them; "" when there is none.
// apiKey is the frame's API.
func ValueName(n *tree.Node, apiKey int16) string {
	f := n.Field
	if f == nil {
		// A record attribute's coded bits, which no schema describes,
		// are typed "bit N" or "bits N-M" by the records reader.
		if !strings.HasPrefix(n.Type, "bit") {
			return ""
		}
		switch n.Name {
		case "compression":
			return rec.CodecName(int(n.Int))
		case "timestampType":
			if n.Int == 0 {
				return "CreateTime"
			}
			return "LogAppendTime"
		}
		return ""
	}
	if isErrorCode(f) {
		return schema.ErrorName(int16(n.Int))
	}
	if e := schema.EnumFor(apiKey, f); e != nil {
		return e.ValueName(n.Int)
	}
	return ""
}
