// Package recjson is the JSON form of a records field: its leaves (the
// attributes object, key and value bytes, KRaft data values, codec and
// control-type names), written once and shared by the records reader's
// JSON sink; and AppendJSON, which writes the whole form from a decoded
// tree without the reader: the reference the tests hold that sink to.
// Only the tests link AppendJSON.
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

// The modes of AppendJSON, as records.JSONMode numbers them.
const (
	Decoded = iota
	Base64
	Size
)

// Info gives a record's or message's absolute offset and timestamp.
type Info func(n *tree.Node) (offset, timestamp int64, ok bool)

// CodecNames are the JSON names of the compression codecs, by number.
var CodecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// CodecName is the JSON name of a codec: "none", "gzip", "snappy", "lz4",
// "zstd", or "" for the unassigned values 5-7.
func CodecName(c int) string {
	if c >= 0 && c < len(CodecNames) {
		return CodecNames[c]
	}
	return ""
}

// ControlNames are the names of the control record types, by number.
var ControlNames = [...]string{"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}

// ControlTypeName names a control record type ("ABORT", "COMMIT",
// "LEADER_CHANGE", ...), or "" if unknown.
func ControlTypeName(t int) string {
	if t >= 0 && t < len(ControlNames) {
		return ControlNames[t]
	}
	return ""
}

// AppendJSON appends the JSON form of a records field: raw is its bytes
// (used by Base64 and Size; Decoded reads the nodes of res). A nil res in
// Decoded mode writes null.
//
// Decoded form: an array with one object per entry.
//
//	Batch (magic 2): {"baseOffset","partitionLeaderEpoch","magic":2,"crc",
//	  "attributes":{"compression":"none|gzip|snappy|lz4|zstd" (or a number),
//	    "timestampType":"CreateTime|LogAppendTime","transactional","control",
//	    "deleteHorizon", "otherBits" (only when bits 7-15 are set)},
//	  "lastOffsetDelta","baseTimestamp","maxTimestamp","producerId",
//	  "producerEpoch","baseSequence","records":[...] (null if undecodable),
//	  "_compressed":"<base64 of the compressed records bytes>" (compressed only),
//	  "_raw":"<base64 of the whole batch>" (only when it decoded with warnings)}
//	Record: {"attributes","timestampDelta","offsetDelta","offset","timestamp",
//	  "key","value","headers":[{"key","value"}],
//	  "control":{...} (control batches: "keyVersion","type" name or number,
//	    "valueVersion", "coordinatorEpoch" (markers) or "data" (KRaft))}
//	Message (magic 0/1): {"offset","magic","crc","attributes":{"compression",
//	  "timestampType" (magic 1)},"timestamp" (magic 1),"key","value"} where a
//	  compressed wrapper has "messages":[...] and "_compressed" instead of
//	  "value"; inner messages whose absolute offset differs from the stored
//	  one add "absoluteOffset"; "_raw" as for batches.
//	A final entry cut short: {"_truncated":"<base64>"}; undecodable bytes
//	  after a framing error: {"_raw":"<base64>"}.
//
// Keys, values and header values are null, {"text":"..."} when the bytes
// are valid UTF-8 of printable characters (and tab, CR, LF), else
// {"base64":"..."}. Header keys are a plain string when valid UTF-8, else
// {"base64":"..."}, or null. "crc", "offset", "timestamp",
// "absoluteOffset" and "control" are informational: Encode recomputes or
// ignores them.
func AppendJSON(dst []byte, nodes []*tree.Node, info Info, raw []byte, mode int) []byte {
	switch mode {
	case Size:
		dst = append(dst, `{"sizeInBytes":`...)
		dst = strconv.AppendInt(dst, int64(len(raw)), 10)
		return append(dst, '}')
	case Base64:
		return AppendBase64(dst, raw)
	}
	if info == nil {
		return append(dst, "null"...)
	}
	j := treeJSON{info: info}
	return j.entries(dst, nodes)
}

type treeJSON struct{ info Info }

// AppendBase64 writes b as a base64 string.
func AppendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

func (j *treeJSON) entries(dst []byte, nodes []*tree.Node) []byte {
	dst = append(dst, '[')
	for i, n := range nodes {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch {
		case n.Role == tree.RoleRaw:
			dst = append(dst, `{"_raw":`...)
			dst = AppendBase64(dst, n.Raw)
			dst = append(dst, '}')
		case n.Flags&tree.Truncated != 0:
			dst = append(dst, `{"_truncated":`...)
			dst = AppendBase64(dst, n.Raw)
			dst = append(dst, '}')
		case n.Name == "batch":
			dst = j.batch(dst, n)
		default:
			dst = j.message(dst, n)
		}
	}
	return append(dst, ']')
}

func hasWarnings(n *tree.Node) bool {
	return !tree.Walk(n, func(x *tree.Node) bool { return len(x.Warnings) == 0 && x.Role != tree.RoleRaw })
}

func key(dst []byte, first bool, k string) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

func intField(dst []byte, n *tree.Node, name string, first bool) []byte {
	dst = key(dst, first, name)
	if c := child(n, name); c != nil {
		return strconv.AppendInt(dst, c.Int, 10)
	}
	return append(dst, '0')
}

func (j *treeJSON) batch(dst []byte, n *tree.Node) []byte {
	dst = append(dst, '{')
	dst = intField(dst, n, "baseOffset", true)
	dst = intField(dst, n, "partitionLeaderEpoch", false)
	dst = intField(dst, n, "magic", false)
	dst = intField(dst, n, "crc", false)
	attrs := 0
	if a := child(n, "attributes"); a != nil {
		attrs = int(a.Int)
	}
	dst = key(dst, false, "attributes")
	dst = AppendAttrs(dst, attrs, 2)
	for _, f := range [...]string{"lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence"} {
		dst = intField(dst, n, f, false)
	}
	recs := child(n, "records")
	dst = key(dst, false, "records")
	if recs == nil {
		dst = append(dst, "null"...)
	} else {
		list := recs.Children
		ok := true
		if attrs&7 != 0 {
			ok = len(list) == 1 && list[0].Name == "inflated"
			if ok {
				list = list[0].Children
			}
		}
		if !ok {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, '[')
			first := true
			for _, r := range list {
				if r.Name != "record" {
					continue
				}
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = j.record(dst, r, attrs&0x20 != 0)
			}
			dst = append(dst, ']')
		}
		if attrs&7 != 0 {
			dst = key(dst, false, "_compressed")
			dst = AppendBase64(dst, recs.Raw)
		}
	}
	if hasWarnings(n) {
		dst = j.rawOf(dst, n)
	}
	return append(dst, '}')
}

// rawOf writes "_raw" with the bytes of the entry n (kept in n.Raw).
func (j *treeJSON) rawOf(dst []byte, n *tree.Node) []byte {
	if n.Raw == nil {
		return dst
	}
	dst = key(dst, false, "_raw")
	return AppendBase64(dst, n.Raw)
}

// appendName writes v's name as name gives it, or v when it has none.
func appendName(dst []byte, name func(int) string, v int) []byte {
	if s := name(v); s != "" {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	return strconv.AppendInt(dst, int64(v), 10)
}

// AppendControlType writes a control record's type: its name, or its
// number when it has none.
func AppendControlType(dst []byte, t int) []byte { return appendName(dst, ControlTypeName, t) }

// AppendHeaderKey writes a record header's key: null, a string when it is
// valid UTF-8, else {"base64":...}.
func AppendHeaderKey(dst []byte, raw []byte, null bool) []byte {
	switch {
	case null:
		return append(dst, "null"...)
	case utf8.Valid(raw):
		return jsontext.AppendString(dst, raw)
	}
	dst = append(dst, `{"base64":`...)
	dst = AppendBase64(dst, raw)
	return append(dst, '}')
}

// AppendAttrs writes the attributes object of an entry of the magic given.
func AppendAttrs(dst []byte, attrs int, magic int) []byte {
	dst = append(dst, `{"compression":`...)
	dst = appendName(dst, CodecName, attrs&7)
	if magic >= 1 {
		dst = append(dst, `,"timestampType":`...)
		if attrs&8 != 0 {
			dst = append(dst, `"LogAppendTime"`...)
		} else {
			dst = append(dst, `"CreateTime"`...)
		}
	}
	known := 0x0f
	switch magic {
	case 0:
		known = 0x07
	case 2:
		known = 0x7f
		for i, f := range [...]string{"transactional", "control", "deleteHorizon"} {
			dst = key(dst, false, f)
			dst = strconv.AppendBool(dst, attrs&(0x10<<i) != 0)
		}
	}
	if o := attrs &^ known; o != 0 {
		dst = append(dst, `,"otherBits":`...)
		dst = strconv.AppendInt(dst, int64(o), 10)
	}
	return append(dst, '}')
}

func (j *treeJSON) record(dst []byte, r *tree.Node, control bool) []byte {
	off, ts, _ := j.info(r)
	dst = append(dst, '{')
	dst = intField(dst, r, "attributes", true)
	dst = intField(dst, r, "timestampDelta", false)
	dst = intField(dst, r, "offsetDelta", false)
	dst = key(dst, false, "offset")
	dst = strconv.AppendInt(dst, off, 10)
	dst = key(dst, false, "timestamp")
	dst = strconv.AppendInt(dst, ts, 10)
	k, v := child(r, "key"), child(r, "value")
	dst = key(dst, false, "key")
	dst = appendBytesJSON(dst, k)
	dst = key(dst, false, "value")
	dst = appendBytesJSON(dst, v)
	dst = key(dst, false, "headers")
	dst = append(dst, '[')
	if hs := child(r, "headers"); hs != nil {
		for i, h := range hs.Children {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			if hk := child(h, "key"); hk != nil {
				dst = AppendHeaderKey(dst, hk.Raw, hk.Null)
			} else {
				dst = append(dst, "null"...)
			}
			dst = append(dst, `,"value":`...)
			dst = appendBytesJSON(dst, child(h, "value"))
			dst = append(dst, '}')
		}
	}
	dst = append(dst, ']')
	if control && k != nil && len(k.Children) >= 2 {
		dst = key(dst, false, "control")
		dst = append(dst, `{"keyVersion":`...)
		dst = strconv.AppendInt(dst, k.Children[0].Int, 10)
		dst = append(dst, `,"type":`...)
		dst = AppendControlType(dst, int(k.Children[1].Int))
		if v != nil && len(v.Children) > 0 {
			dst = append(dst, `,"valueVersion":`...)
			dst = strconv.AppendInt(dst, v.Children[0].Int, 10)
			for _, c := range v.Children[1:] {
				switch c.Name {
				case "coordinatorEpoch":
					dst = append(dst, `,"coordinatorEpoch":`...)
					dst = strconv.AppendInt(dst, c.Int, 10)
				case "rest":
				default:
					dst = append(dst, `,"data":`...)
					dst = AppendNode(dst, c)
				}
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func (j *treeJSON) message(dst []byte, m *tree.Node) []byte {
	off, _, ok := j.info(m)
	dst = append(dst, '{')
	dst = intField(dst, m, "offset", true)
	if o := child(m, "offset"); o != nil && o.Int != off && ok {
		dst = key(dst, false, "absoluteOffset")
		dst = strconv.AppendInt(dst, off, 10)
	}
	dst = intField(dst, m, "magic", false)
	dst = intField(dst, m, "crc", false)
	magic := 0
	if c := child(m, "magic"); c != nil {
		magic = int(c.Int)
	}
	attrs := 0
	if a := child(m, "attributes"); a != nil {
		attrs = int(a.Int) & 0xff
	}
	dst = key(dst, false, "attributes")
	dst = AppendAttrs(dst, attrs, magic)
	if magic == 1 {
		dst = intField(dst, m, "timestamp", false)
	}
	if k := child(m, "key"); k != nil {
		dst = key(dst, false, "key")
		dst = appendBytesJSON(dst, k)
	}
	if v := child(m, "value"); v != nil {
		if attrs&7 != 0 && !v.Null {
			dst = key(dst, false, "messages")
			if len(v.Children) == 1 && v.Children[0].Name == "inflated" {
				dst = j.entries(dst, v.Children[0].Children)
			} else {
				dst = append(dst, "null"...)
			}
			dst = key(dst, false, "_compressed")
			dst = AppendBase64(dst, v.Raw)
		} else {
			dst = key(dst, false, "value")
			dst = appendBytesJSON(dst, v)
		}
	}
	if hasWarnings(m) {
		dst = j.rawOf(dst, m)
	}
	return append(dst, '}')
}

func appendBytesJSON(dst []byte, n *tree.Node) []byte {
	if n == nil || n.Null {
		return append(dst, "null"...)
	}
	return AppendBytes(dst, n.Raw)
}

// AppendBytes writes a key, value or header value that is not null:
// {"text":...} when printable, else {"base64":...}. One pass: the text is
// written as it is checked, and taken back when a byte is not printable.
// Text at most doubles (each byte escaped), so room for that is made
// first and bytes are written in place: JSON values, dense with quotes,
// cost no growth check per escape.
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
		dst = append(dst[:at], `{"base64":`...)
		dst = AppendBase64(dst, raw)
		return append(dst, '}')
	}
	buf[j], buf[j+1] = '"', '}'
	return buf[:j+2]
}

// How AppendBytes treats each byte: printable ASCII as it is; the
// quote, backslash, tab, CR and LF escaped; other control bytes (and DEL)
// not printable; bytes of multi-byte UTF-8 checked as runes.
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

// AppendNode writes a generic JSON view of a decoded data-message node
// (from Options.DecodeData): structs as objects keyed by the field's JSON
// name, arrays as arrays, bytes as base64.
func AppendNode(dst []byte, n *tree.Node) []byte {
	if n.Null {
		return append(dst, "null"...)
	}
	switch {
	case n.Kind == schema.Array:
		dst = append(dst, '[')
		first := true
		for _, c := range n.Children {
			if c.Role != tree.RoleElement && c.Role != tree.RoleRecord {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = AppendNode(dst, c)
		}
		return append(dst, ']')
	case n.Kind == schema.Struct || (n.Kind == schema.Invalid && len(n.Children) > 0) || n.Role == tree.RoleBody:
		dst = append(dst, '{')
		first := true
		for _, c := range n.Children {
			if c.Role != tree.RoleField && c.Role != tree.RoleRecord && c.Role != tree.RoleElement {
				continue
			}
			name := c.Name
			if c.Field != nil && c.Field.JSON != "" {
				name = c.Field.JSON
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsontext.AppendString(dst, []byte(name))
			dst = append(dst, ':')
			dst = AppendNode(dst, c)
		}
		return append(dst, '}')
	}
	switch n.Kind {
	case schema.Bool:
		return strconv.AppendBool(dst, n.Int != 0)
	case schema.Float64:
		return strconv.AppendFloat(dst, n.Float, 'g', -1, 64)
	case schema.String:
		if utf8.Valid(n.Raw) {
			return jsontext.AppendString(dst, n.Raw)
		}
		return AppendBase64(dst, n.Raw)
	case schema.Bytes, schema.Records:
		return AppendBase64(dst, n.Raw)
	case schema.UUID:
		dst = append(dst, '"')
		dst = base64.RawURLEncoding.AppendEncode(dst, n.Raw)
		return append(dst, '"')
	}
	return strconv.AppendInt(dst, n.Int, 10)
}

// child is the first child of n named name, or nil.
func child(n *tree.Node, name string) *tree.Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}
