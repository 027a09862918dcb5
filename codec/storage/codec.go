package storage

// This file is the package's one meeting point with the codec: every call
// into the codec's data-message decoder and encoder (codec/internal/datamsg,
// set by package codec) and its records reader (codec/internal/rec) is
// here, and the value JSON of a decoded data message.

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// decodeMessage decodes buf[start:end] (buffer bufIdx) as the data message
// m at version, into nodes from s, with the codec's default limits for
// that many bytes. The node spans [start, end) when it succeeds; the
// error (a *codec.DecodeError) has the offset and field path.
func decodeMessage(s *slab.Slab, m *schema.Message, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	return datamsg.Decode(s, m.Name, version, buf, bufIdx, start, end)
}

// decodeErrorAt says where a decoding error of decodeMessage happened: the
// offset, the field path, and what was expected and found.
func decodeErrorAt(err error) (offset int, path, msg string) {
	var de *codec.DecodeError
	if errors.As(err, &de) {
		msg = "expected " + de.Expected
		if de.Found != "" {
			msg += ", found " + de.Found
		}
		return de.Offset, de.Path, msg
	}
	return 0, "", err.Error()
}

// encodeMessage appends m at version from its value JSON (as parseJSON
// gives it). Versions newer than known are written with the newest
// layout, as they decode.
func encodeMessage(dst []byte, m *schema.Message, version int16, v map[string]any, path string) ([]byte, error) {
	return datamsg.Encode(dst, m.Name, version, v, path)
}

// parseJSON parses JSON with numbers kept exact, as the codec's encoders
// want them.
func parseJSON(js []byte) (any, error) { return jsontext.Parse(js) }

// batchOptions are the records options of one batch: its own budget (the
// records package's default limits for its size), warnings collected in
// w, KRaft control values decoded through the data-message schemas.
func batchOptions(w *budget.Warnings, spare *[]byte, maxDecompressed int) rec.Options {
	return rec.Options{Warnings: w, Spare: spare, MaxDecompressed: maxDecompressed, DecodeData: datamsg.Decode}
}

// decodeBatch decodes one batch or message-set entry (all of b) into a
// tree from s.
func decodeBatch(s *slab.Slab, b []byte, o rec.Options) (*rec.Result, error) {
	return rec.Decode(s, b, o)
}

// writeBatchJSON appends the records JSON of one entry (all of b) to *out
// straight from the bytes, without a tree: the fast path for topics whose
// records need no decoding of their own.
func writeBatchJSON(out *[]byte, b []byte, o rec.Options) error {
	at := len(*out)
	_, err := rec.WriteJSON(out, b, o, nil)
	*out = trimArray(*out, at)
	return err
}

// trimArray takes the brackets off the one-element array written from at.
func trimArray(dst []byte, at int) []byte {
	if len(dst)-at >= 2 && dst[at] == '[' && dst[len(dst)-1] == ']' {
		copy(dst[at:], dst[at+1:len(dst)-1])
		return dst[:len(dst)-2]
	}
	return dst
}

// encodeBatches turns records JSON (one entry or an array of them) back
// into bytes.
func encodeBatches(dst []byte, v any) ([]byte, error) {
	if _, ok := v.(map[string]any); ok {
		v = []any{v}
	}
	return rec.Encode(dst, v)
}

// appendStructJSON appends the value JSON of a struct node n laid out by
// l at version v (flexible or not), as the codec writes a frame's body:
// fields in declared order, a tagged field exactly when the bytes carry
// it, unknown tags as "_unknownTaggedFields". A bytes node whose children
// hold a decoded data message (consumer-protocol bytes) is written as that
// message: {"version": N, fields...}.
func (w *valueWriter) appendStructJSON(dst []byte, n *tree.Node, l *schema.Layout, v int16, flex bool) []byte {
	dst = append(dst, '{')
	kids := n.Children
	var tags *tree.Node
	if k := len(kids); k > 0 && kids[k-1].Role == tree.RoleTags {
		tags = kids[k-1]
		kids = kids[:k-1]
	}
	ki, first := 0, true
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		var c *tree.Node
		if flex && f.IsTagged(v) {
			if tags == nil {
				continue
			}
			for _, t := range tags.Children {
				if t.Field == f {
					c = t
					break
				}
			}
			if c == nil {
				continue
			}
		} else {
			if ki >= len(kids) || kids[ki].Field != f {
				break // a partial struct ends here
			}
			c = kids[ki]
			ki++
			if c.Flags&tree.Broken != 0 && len(c.Children) == 0 {
				break
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = jsontext.AppendString(dst, []byte(f.JSON))
		dst = append(dst, ':')
		dst = w.appendValueJSON(dst, c, f, v, flex)
	}
	if tags != nil {
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

func (w *valueWriter) appendValueJSON(dst []byte, n *tree.Node, f *schema.Field, v int16, flex bool) []byte {
	switch n.Kind {
	case schema.Bool:
		return strconv.AppendBool(dst, n.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return strconv.AppendInt(dst, n.Int, 10)
	case schema.Float64:
		switch {
		case math.IsNaN(n.Float):
			return append(dst, `"NaN"`...)
		case math.IsInf(n.Float, 1):
			return append(dst, `"Infinity"`...)
		case math.IsInf(n.Float, -1):
			return append(dst, `"-Infinity"`...)
		}
		return strconv.AppendFloat(dst, n.Float, 'g', -1, 64)
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
		if nv, ok := w.nested[n]; ok {
			// {"version": N, fields...}: the first child is the version.
			dst = append(dst, `{"version":`...)
			dst = strconv.AppendInt(dst, int64(nv.version), 10)
			body := w.appendStructJSON(nil, &tree.Node{Children: n.Children[1:]}, nv.msg.At(nv.layout).Root, nv.layout, nv.msg.Flexible(nv.layout))
			if len(body) > 2 {
				dst = append(dst, ',')
				dst = append(dst, body[1:len(body)-1]...)
			}
			return append(dst, '}')
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
				dst = w.appendStructJSON(dst, c, f.Struct, v, flex)
			} else {
				dst = w.appendValueJSON(dst, c, f, v, flex)
			}
		}
		return append(dst, ']')
	case schema.Struct:
		if n.Null {
			return append(dst, "null"...)
		}
		return w.appendStructJSON(dst, n, f.Struct, v, flex)
	}
	return append(dst, "null"...)
}

// valueWriter writes value JSON from decoded nodes; nested holds the bytes
// nodes decoded as data messages of their own.
type valueWriter struct {
	nested map[*tree.Node]nestedView
}

// nestedView is how a bytes node was decoded as a data message: which
// message, the version its bytes declare, the version whose layout read it.
type nestedView struct {
	msg             *schema.Message
	version, layout int16
}
