// Package recjson holds the leaves of the records JSON (the form
// rec.WriteJSON's doc lays out), written through codec/jsontext.Writer:
// the one place that formats an entry's attributes, a batch's sizes, a
// key, value or header key, a control record's type and a decoded KRaft
// data message. The records reader's JSON sink writes with them, and so
// does the test oracle (rec/rectest), which cannot import the reader
// whose tests use it.
package recjson

import (
	"encoding/base64"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// CodecName is the JSON name of a codec: "none", "gzip", "snappy", "lz4",
// "zstd", or "" for the unassigned values 5-7.
func CodecName(c int) string {
	if c >= 0 && c < len(codecNames) {
		return codecNames[c]
	}
	return ""
}

var controlNames = [...]string{"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}

// ControlTypeName names a control record type ("ABORT", "COMMIT",
// "LEADER_CHANGE", ...), or "" if unknown.
func ControlTypeName(t int) string {
	if t >= 0 && t < len(controlNames) {
		return controlNames[t]
	}
	return ""
}

// key writes a member's key through the one call of Writer.Key the
// leaves make: the Writer's methods are inlined where they are called,
// and the leaves' many keys would otherwise each grow the WebAssembly
// build.
//
//go:noinline
func key(w *jsontext.Writer, k string) { w.Key(k) }

// Name writes v's name as name gives it, or v when it has none.
func Name(w *jsontext.Writer, name func(int) string, v int) {
	if s := name(v); s != "" {
		w.Text(s)
		return
	}
	w.Int(int64(v))
}

// AttrBits names the attribute bits of a batch (magic 2) after the
// compression and timestamp type.
var AttrBits = [...]string{"transactional", "control", "deleteHorizon"}

// Attrs writes the attributes object of an entry of the magic given.
func Attrs(w *jsontext.Writer, attrs int, magic int) {
	w.BeginObject()
	key(w, "compression")
	Name(w, CodecName, attrs&7)
	if magic >= 1 {
		key(w, "timestampType")
		if attrs&8 != 0 {
			w.Text("LogAppendTime")
		} else {
			w.Text("CreateTime")
		}
	}
	known := 0x0f
	switch magic {
	case 0:
		known = 0x07
	case 2:
		known = 0x7f
		for i, f := range AttrBits {
			key(w, f)
			w.Bool(attrs&(0x10<<i) != 0)
		}
	}
	if o := attrs &^ known; o != 0 {
		key(w, "otherBits")
		w.Int(int64(o))
	}
	w.EndObject()
}

// BatchSize writes a batch's annotations of size (as Wireshark shows
// them; issue 24): "_sizeInBytes", the whole batch's bytes, and for a
// compressed batch whose records were decompressed, "_uncompressedBytes"
// and "_compressionRatio" (uncompressed over compressed records bytes, to
// two places). inflated is -1 for a batch not decompressed.
func BatchSize(w *jsontext.Writer, size, compressed, inflated int) {
	key(w, "_sizeInBytes")
	w.Int(int64(size))
	if inflated < 0 {
		return
	}
	key(w, "_uncompressedBytes")
	w.Int(int64(inflated))
	key(w, "_compressionRatio")
	w.Value()
	w.B = strconv.AppendFloat(w.B, float64(inflated)/float64(max(compressed, 1)), 'f', 2, 64)
}

// HeaderKey writes a record header's key: null, a string when it is
// valid UTF-8, else {"base64":...}.
func HeaderKey(w *jsontext.Writer, raw []byte, null bool) {
	switch {
	case null:
		w.Null()
	case utf8.Valid(raw):
		w.String(raw)
	default:
		w.BeginObject()
		key(w, "base64")
		w.Base64(raw)
		w.EndObject()
	}
}

// Bytes writes a key, value or header value: null, or as AppendBytes.
func Bytes(w *jsontext.Writer, raw []byte, null bool) {
	if null {
		w.Null()
		return
	}
	w.Value()
	w.B = AppendBytes(w.B, raw)
}

// AppendBytes writes a key, value or header value that is not null:
// {"text":...} when printable, else {"base64":...}. One pass: the text is
// written as it is checked, and taken back when a byte is not printable.
// Text at most doubles (each byte escaped), so room for that is made
// first and bytes are written in place: JSON values, dense with quotes,
// cost no growth check per escape. It is the records' hottest leaf, so it
// appends to the Writer's buffer itself (after Writer.Value).
func AppendBytes(dst []byte, raw []byte) []byte {
	at := len(dst)
	if n := len(`{"text":""}`) + 2*len(raw); cap(dst)-at < n {
		dst = slices.Grow(dst, n)
	}
	buf := dst[:cap(dst)]
	j := at + copy(buf[at:], `{"text":"`)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch textClass[c] {
		case textPlain:
			buf[j] = c
			j++
			i++
			continue
		case textEscape:
			buf[j], buf[j+1] = '\\', textEscapes[c]
			j += 2
			i++
			continue
		case textMulti:
			r, n := utf8.DecodeRune(raw[i:])
			if !(r == utf8.RuneError && n <= 1) && unicode.IsPrint(r) {
				j += copy(buf[j:], raw[i:i+n])
				i += n
				continue
			}
		}
		// Not printable: base64 instead.
		dst = append(dst[:at], `{"base64":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, raw)
		return append(dst, '"', '}')
	}
	buf[j], buf[j+1] = '"', '}'
	return buf[:j+2]
}

// How AppendBytes treats each byte: printable ASCII as it is; the quote,
// backslash, tab, CR and LF escaped; other control bytes (and DEL) not
// printable; bytes of multi-byte UTF-8 checked as runes.
const (
	textPlain = iota
	textEscape
	textControl
	textMulti
)

var textClass, textEscapes = func() (cls, esc [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c == '"' || c == '\\':
			cls[c], esc[c] = textEscape, byte(c)
		case c == '\t':
			cls[c], esc[c] = textEscape, 't'
		case c == '\n':
			cls[c], esc[c] = textEscape, 'n'
		case c == '\r':
			cls[c], esc[c] = textEscape, 'r'
		case c < 0x20 || c == 0x7f:
			cls[c] = textControl
		case c >= 0x80:
			cls[c] = textMulti
		}
	}
	return
}()

// Node writes a generic JSON view of a decoded data-message node (from
// rec.Options.DecodeData): structs as objects keyed by the field's JSON
// name, arrays as arrays, bytes as base64.
func Node(w *jsontext.Writer, n *tree.Node) {
	switch {
	case n.Null:
		w.Null()
	case n.Kind == schema.Array:
		w.BeginArray()
		for _, c := range n.Children {
			if c.Role == tree.RoleElement || c.Role == tree.RoleRecord {
				Node(w, c)
			}
		}
		w.EndArray()
	case n.Kind == schema.Struct || (n.Kind == schema.Invalid && len(n.Children) > 0) || n.Role == tree.RoleBody:
		w.BeginObject()
		for _, c := range n.Children {
			if c.Role != tree.RoleField && c.Role != tree.RoleRecord && c.Role != tree.RoleElement {
				continue
			}
			name := c.Name
			if c.Field != nil && c.Field.JSON != "" {
				name = c.Field.JSON
			}
			key(w, name)
			Node(w, c)
		}
		w.EndObject()
	case n.Kind == schema.Bool:
		w.Bool(n.Int != 0)
	case n.Kind == schema.Float64:
		w.Value()
		w.B = strconv.AppendFloat(w.B, n.Float, 'g', -1, 64)
	case n.Kind == schema.String && utf8.Valid(n.Raw):
		w.String(n.Raw)
	case n.Kind == schema.String || n.Kind == schema.Bytes || n.Kind == schema.Records:
		w.Base64(n.Raw)
	case n.Kind == schema.UUID:
		w.Base64URL(n.Raw)
	default:
		w.Int(n.Int)
	}
}
