package codec

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/jsontext"
)

// dataJSON writes a bytes field decoded as a data message: its version,
// then the message's fields.
func (w *jsonWriter) dataJSON(dst []byte, n *tree.Node, dv dataView) []byte {
	dst = append(dst, `{"version":`...)
	dst = strconv.AppendInt(dst, int64(dv.version), 10)
	inner := jsonWriter{o: w.o, f: w.f, v: dv.layout, flex: dv.msg.Flexible(dv.layout)}
	view := *n
	view.Children = n.Children[1:]
	body := inner.structJSON(nil, &view, dv.msg.At(dv.layout).Root)
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:len(body)-1]...)
	}
	return append(dst, '}')
}

// JSONOptions choose how value JSON is written.
type JSONOptions struct {
	// Records chooses how decoded records fields appear: as batches and
	// records (the default), as base64, or as their size.
	Records records.JSONMode
	// Kafka writes Kafka's own JSON form: every bytes field as base64
	// (records, consumer-protocol metadata and assignments, and so the
	// KRaft values inside records), Records ignored, and no key of
	// kwire's own inside the body (unknown tags, which Kafka's form has
	// no place for, are left out; the frame's warnings name them). The
	// envelope is the same. The encoder reads this form back.
	// Decoder.AppendJSON and WriteJSON then decode nothing nested, so
	// their "warnings" are the frame's own: Decode with
	// Options.RawRecords gives the same.
	Kafka bool
}

// AppendJSON appends the frame's value JSON: an envelope with direction, API
// key, name, version and header, and the body in Kafka's own JSON form,
// then "guess" (for a guessed response) and "warnings" (when there are
// any). A partial frame (after a decode error) gives the fields decoded so
// far.
func (f *Frame) AppendJSON(dst []byte, o JSONOptions) []byte {
	w := jsonWriter{o: o, f: f}
	dst = f.AppendEnvelopeHead(dst)
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
		w.v, w.flex = f.Layout, f.Flexible
		dst = w.structJSON(dst, f.Body, f.Message.At(f.Layout).Root)
	}
	return appendEnvelopeTail(dst, f.Guess, f.warnings)
}

// AppendEnvelopeHead opens the envelope the JSON forms share and leaves it
// open for more members: {"direction","apiKey","apiName","apiVersion".
func (f *Frame) AppendEnvelopeHead(dst []byte) []byte {
	dst = append(dst, `{"direction":`...)
	if f.Response {
		dst = append(dst, `"response"`...)
	} else {
		dst = append(dst, `"request"`...)
	}
	dst = append(dst, `,"apiKey":`...)
	dst = strconv.AppendInt(dst, int64(f.APIKey), 10)
	if f.API != nil {
		dst = append(dst, `,"apiName":`...)
		dst = jsontext.AppendString(dst, []byte(f.API.Name))
	}
	dst = append(dst, `,"apiVersion":`...)
	return strconv.AppendInt(dst, int64(f.Version), 10)
}

// JSON returns the frame's value JSON.
func (f *Frame) JSON() []byte {
	return f.AppendJSON(make([]byte, 0, 2*len(f.Buffers[0])+256), JSONOptions{})
}

type jsonWriter struct {
	o    JSONOptions
	f    *Frame
	v    int16
	flex bool
}

func (w *jsonWriter) structJSON(dst []byte, n *tree.Node, l *schema.Layout) []byte {
	dst = append(dst, '{')
	kids := n.Children
	var tags *tree.Node
	if k := len(kids); k > 0 && kids[k-1].Role == tree.RoleTags {
		tags = kids[k-1]
		kids = kids[:k-1]
	}
	ki := 0
	first := true
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(w.v) {
			continue
		}
		var c *tree.Node
		if w.flex && f.IsTagged(w.v) {
			// A tagged field appears exactly when the bytes carry it.
			if tags == nil {
				continue // the section was not reached
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
	if tags != nil && !w.o.Kafka {
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
		return appendFloat(dst, n.Float)
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
		if w.o.Kafka {
			return appendBytesField(dst, n.Kind, false, n.Raw, records.Base64)
		}
		if n.Kind == schema.Records && w.o.Records != records.Decoded {
			return appendBytesField(dst, n.Kind, false, n.Raw, w.o.Records)
		}
		if w.f != nil && len(n.Children) > 0 {
			if res := w.f.records[n]; res != nil {
				return records.AppendJSON(dst, res, n.Raw, w.o.Records)
			}
			if dv, ok := w.f.data[n]; ok {
				return w.dataJSON(dst, n, dv)
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

// appendFloat writes a float64; NaN and the infinities, which JSON lacks,
// are written as the strings "NaN", "Infinity" and "-Infinity".
func appendFloat(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(x, -1):
		return append(dst, `"-Infinity"`...)
	}
	return strconv.AppendFloat(dst, x, 'g', -1, 64)
}

func appendKey(dst []byte, k string) []byte {
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}
