package codec

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// The reference the differential tests hold the walk's JSON sink to: value
// JSON written from a tree (the tree sink's), by a writer of its own that
// knows nothing of the walk. Both must agree on every frame that reads.

// treeJSON is value JSON written from f's tree, with the options f was
// decoded with (Kafka's form, the records mode).
func treeJSON(f *Frame) []byte {
	w := jsonWriter{kafka: f.opts.Kafka, records: f.opts.Records, f: f}
	if f.opts.Data != "" {
		// {"data":name,"version" (read from the bytes),"value":...}
		dst := jsontext.AppendString(append([]byte(nil), `{"data":`...), []byte(f.opts.Data))
		if v := f.Root.Get("version"); v != nil {
			dst = strconv.AppendInt(append(dst, `,"version":`...), v.Int, 10)
		}
		if f.Body == nil { // a raw SASL token whose size fails
			return appendEnvelopeTail(dst, f.Guess, f.Warnings)
		}
		dst = append(dst, `,"value":`...)
		switch {
		case f.Body.Kind == schema.Records || f.opts.Data == "sasl":
			dst = w.value(dst, f.Body, nil)
		case f.Message != nil && (len(f.Body.Children) > 0 || f.Body.End > f.Body.Start):
			w.v, w.flex = f.LayoutVersion, f.Flexible
			dst = w.structJSON(dst, f.Body, f.Message.At(f.LayoutVersion).Root)
		default:
			dst = append(dst, "null"...)
		}
		return appendEnvelopeTail(dst, f.Guess, f.Warnings)
	}
	dst := treeEnvelopeHead(nil, f)
	if f.Header != nil {
		hdr := schema.RequestHeader()
		if f.Response {
			hdr = schema.ResponseHeader()
		}
		if d := hdr.At(f.HeaderVersion); d != nil {
			dst = append(dst, `,"header":`...)
			w.v, w.flex = f.HeaderVersion, d.Flexible.Contains(f.HeaderVersion)
			dst = w.structJSON(dst, f.Header, d.Root)
		}
	}
	if f.Body != nil && f.Message != nil {
		dst = append(dst, `,"body":`...)
		w.v, w.flex = f.LayoutVersion, f.Flexible
		dst = w.structJSON(dst, f.Body, f.Message.At(f.LayoutVersion).Root)
	}
	return appendEnvelopeTail(dst, f.Guess, f.Warnings)
}

// treeEnvelopeHead opens a frame's value-JSON envelope:
// {"direction","apiKey","apiName" (a known API),"apiVersion".
func treeEnvelopeHead(dst []byte, f *Frame) []byte {
	dst = append(dst, `{"direction":`...)
	if f.Response {
		dst = append(dst, `"response"`...)
	} else {
		dst = append(dst, `"request"`...)
	}
	// A request's key and version are shown when its bytes hold them; a
	// response's when they were known (not Any: no reading fitted).
	key, version := f.APIKey != Any, f.Version != Any
	if !f.Response {
		key, version = requestHeadRead(f)
	}
	if key {
		dst = strconv.AppendInt(append(dst, `,"apiKey":`...), int64(f.APIKey), 10)
	}
	if f.API != nil {
		dst = jsontext.AppendString(append(dst, `,"apiName":`...), []byte(f.API.Name))
	}
	if version {
		dst = strconv.AppendInt(append(dst, `,"apiVersion":`...), int64(f.Version), 10)
	}
	return dst
}

// requestHeadRead reports whether a request's API key and version were
// there to read: its header was begun (the size prefix let it), and the
// frame's bytes (as far as its size) hold 2 and 4 bytes of it.
func requestHeadRead(f *Frame) (key, version bool) {
	if f.Header == nil {
		return false, false
	}
	start, end := 0, len(f.Buffers[0])
	if !f.opts.NoSizePrefix {
		start = 4
		if s := f.Root.Get("size"); s != nil && s.Int >= 0 {
			end = min(end, 4+int(s.Int))
		}
	}
	return true, end-start >= 4
}

// dataJSON writes a bytes field decoded as a data message: its version,
// then the message's fields.
func (w *jsonWriter) dataJSON(dst []byte, n *tree.Node, dv treeDataView) []byte {
	dst = append(dst, `{"version":`...)
	dst = strconv.AppendInt(dst, int64(dv.version), 10)
	inner := jsonWriter{kafka: w.kafka, records: w.records, f: w.f, v: dv.layout, flex: dv.msg.Flexible(dv.layout)}
	view := *n
	view.Children = n.Children[1:]
	body := inner.structJSON(nil, &view, dv.msg.At(dv.layout).Root)
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:len(body)-1]...)
	}
	return append(dst, '}')
}

// treeDataView is how a bytes field was read as a data message, derived
// from its node: the message (named in its type), the version its bytes
// declare and the layout that read them.
type treeDataView struct {
	msg     *schema.Message
	version int16
	layout  int16
}

func dataViewOf(n *tree.Node) (treeDataView, bool) {
	t := n.Type
	i := len(t) - 1
	if i < 0 || t[i] != ')' || len(n.Children) == 0 || n.Children[0].Name != "version" {
		return treeDataView{}, false
	}
	j := i
	for j > 0 && t[j] != '(' {
		j--
	}
	m := schema.DataMessage(t[j+1 : i])
	if m == nil {
		return treeDataView{}, false
	}
	v := int16(n.Children[0].Int)
	return treeDataView{msg: m, version: v, layout: min(v, m.Valid.Hi)}, true
}

// appendBytesField writes a bytes or records field that was not decoded
// further: null, its size, or base64.
func appendBytesField(dst []byte, k schema.Kind, null bool, raw []byte, mode RecordsMode) []byte {
	switch {
	case null:
		return append(dst, "null"...)
	case k == schema.Records && mode == RecordsSize:
		dst = append(dst, `{"sizeInBytes":`...)
		dst = strconv.AppendInt(dst, int64(len(raw)), 10)
		return append(dst, '}')
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, raw)
	return append(dst, '"')
}

type jsonWriter struct {
	kafka   bool        // Kafka's own form
	records RecordsMode // how records fields are shown
	f       *Frame
	v       int16
	flex    bool
}

func (w *jsonWriter) structJSON(dst []byte, n *tree.Node, l *schema.Layout) []byte {
	dst = append(dst, '{')
	// The struct's untagged values in order, its tag section, and the
	// tagged values read early whose section the walk did not finish.
	var kids, early []*tree.Node
	var tags *tree.Node
	for _, c := range n.Children {
		switch {
		case c.Role == tree.RoleTags:
			tags = c
		case c.Flags&tree.Tagged != 0:
			early = append(early, c)
		default:
			kids = append(kids, c)
		}
	}
	ki := 0
	first := true
	// late holds a tagged value that failed in its section with no early
	// reading of it (an early reading that fails is dropped): the JSON
	// writer has written the untagged fields by then, so it comes after
	// them, as a section's values do.
	var late []*tree.Node
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(w.v) {
			continue
		}
		var c *tree.Node
		if w.flex && f.IsTagged(w.v) {
			// A tagged field appears exactly when the bytes carry it.
			if tags != nil {
				for _, t := range tags.Children {
					if t.Field == f {
						c = t
						break
					}
				}
			}
			if c == nil || c.Flags&tree.Broken != 0 {
				// Not read in its section (not reached, or failed there):
				// a value read early, at its declared place, stays (after
				// the struct's other children).
				section := c
				for _, t := range early {
					if t.Field == f {
						c = t
						break
					}
				}
				if c == section && c != nil && len(c.Children) > 0 {
					late = append(late, c)
					continue
				}
			}
			if c == nil || c.Flags&tree.Broken != 0 && len(c.Children) == 0 {
				continue // absent, or a value that could not be read
			}
		} else {
			if ki >= len(kids) || kids[ki].Field != f {
				break // a partial struct ends here
			}
			c = kids[ki]
			ki++
			if c.Flags&tree.Broken != 0 && len(c.Children) == 0 {
				break // a value that could not be read
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendKey(dst, f.JSON)
		dst = w.value(dst, c, f)
	}
	for _, c := range late {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendKey(dst, c.Field.JSON)
		dst = w.value(dst, c, c.Field)
	}
	if tags != nil && !w.kafka {
		unknown := false
		for _, t := range tags.Children {
			if t.Role != tree.RoleUnknownTag {
				continue
			}
			if !unknown {
				if !first {
					dst = append(dst, ',')
				}
				dst = append(dst, `"_unknownTaggedFields":[`...)
				unknown = true
			} else {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"tag":`...)
			dst = strconv.AppendInt(dst, t.Int, 10)
			dst = append(dst, `,"data":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, t.Raw)
			dst = append(dst, `"}`...)
		}
		if unknown {
			dst = append(dst, ']')
		}
	}
	return append(dst, '}')
}

func (w *jsonWriter) value(dst []byte, n *tree.Node, f *schema.Field) []byte {
	switch n.Kind {
	case schema.Bool:
		return strconv.AppendBool(dst, n.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return strconv.AppendInt(dst, n.Int, 10)
	case schema.Float64:
		return jsontext.AppendFloat(dst, n.Float)
	case schema.UUID:
		dst = append(dst, '"')
		dst = base64.RawURLEncoding.AppendEncode(dst, n.Raw)
		return append(dst, '"')
	case schema.String:
		if n.Null {
			return append(dst, "null"...)
		}
		return jsontext.AppendString(dst, n.Raw)
	case schema.Bytes, schema.Records:
		if n.Null {
			return append(dst, "null"...)
		}
		if w.kafka {
			return appendBytesField(dst, n.Kind, false, n.Raw, RecordsBase64)
		}
		if n.Kind == schema.Records && w.records != RecordsDecoded {
			return appendBytesField(dst, n.Kind, false, n.Raw, w.records)
		}
		if w.f != nil {
			// Records read, even zero bytes of them (an empty list).
			if res := w.f.records[n]; res != nil {
				info := func(n *tree.Node) (int64, int64, bool) {
					ri, ok := res.Info(n)
					return ri.Offset, ri.Timestamp, ok
				}
				return rec.AppendTreeJSON(dst, res.Nodes, info, n.Raw, rec.JSONMode(w.records), w.topicPartJSON, appendDataJSON)
			}
		}
		if w.f != nil && len(n.Children) > 0 {
			if dv, ok := dataViewOf(n); ok {
				return w.dataJSON(dst, n, dv)
			}
			if strings.Contains(n.Type, " (SASL ") {
				// A SASL message: its parts, each a leaf, by name.
				dst = append(dst, '{')
				for i, c := range n.Children {
					if i > 0 {
						dst = append(dst, ',')
					}
					dst = strconv.AppendQuote(dst, c.Name)
					dst = append(dst, ':')
					dst = w.value(dst, c, nil)
				}
				return append(dst, '}')
			}
		}
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, n.Raw)
		return append(dst, '"')
	case schema.Array:
		if n.Null {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for i, c := range n.Children {
			if c.Flags&tree.Broken != 0 && len(c.Children) == 0 {
				break
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if f.Elem == schema.Struct {
				dst = w.structJSON(dst, c, f.Struct)
			} else {
				dst = w.value(dst, c, f)
			}
		}
		return append(dst, ']')
	case schema.Struct:
		if n.Null {
			return append(dst, "null"...)
		}
		return w.structJSON(dst, n, f.Struct)
	}
	return append(dst, "null"...)
}

func appendKey(dst []byte, k string) []byte {
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

// topicPartJSON writes the members the walk made of a key or value of an
// internal topic's record (walk_topics.go) from its nodes: "format", its
// framing integers, "schema", and "decoded" unless the message failed.
func (w *jsonWriter) topicPartJSON(dst []byte, n *tree.Node) []byte {
	switch n.Children[0].Name {
	case "type", "version", "frameVersion", "undecoded":
	default:
		return nil // another hook's
	}
	dst = append(dst, `,"format":"kafka"`...)
	for i, c := range n.Children {
		switch {
		case c.Role == tree.RoleRecord:
			dst = append(dst, ',')
			dst = appendKey(dst, c.Name)
			dst = strconv.AppendInt(dst, c.Int, 10)
		case c.Role == tree.RoleField && c.Kind == schema.Struct:
			sp := strings.LastIndex(c.Type, " v")
			name := c.Type[:sp]
			v, _ := strconv.Atoi(c.Type[sp+2:])
			m := schema.DataMessage(name)
			dst = append(dst, `,"schema":`...)
			dst = jsontext.AppendString(dst, []byte(name))
			failed := c.Flags&tree.Broken != 0 || i+1 < len(n.Children) && n.Children[i+1].Role == tree.RoleRaw
			if failed || m == nil {
				continue
			}
			lv := min(int16(v), m.Valid.Hi)
			inner := jsonWriter{kafka: w.kafka, records: w.records, f: w.f, v: lv, flex: m.Flexible(lv)}
			dst = append(dst, `,"decoded":`...)
			dst = inner.structJSON(dst, c, m.At(lv).Root)
		}
	}
	return dst
}

// appendEnvelopeTail ends a value-JSON envelope, as the reference writes it: "guess" when the frame
// was read as a guessed response, "warnings" when there are any, then the
// closing brace.
func appendEnvelopeTail(dst []byte, g *Guess, ws []Warning) []byte {
	if g != nil {
		dst = append(dst, `,"guess":`...)
		dst = appendGuess(dst, g)
	}
	if len(ws) > 0 {
		// Warnings can be most of the document (a flood of unknown tags):
		// room for them all at once, not in many steps of growth.
		n := 16
		for i := range ws {
			n += len(ws[i].Path) + len(ws[i].Message) + 64
		}
		if cap(dst)-len(dst) < n {
			nd := make([]byte, len(dst), len(dst)+n)
			copy(nd, dst)
			dst = nd
		}
		dst = append(dst, `,"warnings":`...)
		dst = appendWarnings(dst, ws)
	}
	return append(dst, '}')
}

// appendWarnings writes warnings as a JSON array of
// {"offset","buf" (when > 0),"path","message","limit" (when true)}.
func appendWarnings(dst []byte, ws []Warning) []byte {
	dst = append(dst, '[')
	for i := range ws {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendWarning(dst, &ws[i])
	}
	return append(dst, ']')
}
