package jsontext

import (
	"encoding/base64"
	"io"
	"math"
	"strconv"
)

// Writer writes JSON text: it places commas and keys itself, can mark a
// place and roll back to it, flushes its buffer to an io.Writer at the
// boundaries its caller chooses, and writes big base64 values in pieces.
// The zero Writer appends to B and never flushes.
type Writer struct {
	B       []byte    // the text not yet flushed
	W       io.Writer // where Flush writes B; nil: B only grows
	Flushed int64     // bytes written to W so far
	Err     error     // W's first error; later flushes do nothing

	hold     int    // > 0: no flushing (a reading that may be rolled back)
	comma    bool   // the next value or key at this level needs a comma
	afterKey bool   // a key was just written: the next value needs none
	stack    []bool // the comma state of each enclosing level
}

// FlushAt is how much output a Writer keeps before Flush writes it away:
// small beside any frame worth streaming, big enough that the output of
// an ordinary frame is still whole when its reading is rolled back.
const FlushAt = 1 << 20

// Reset empties w for new output to out (nil: none), keeping its memory.
func (w *Writer) Reset(out io.Writer) {
	*w = Writer{B: w.B[:0], W: out, stack: w.stack[:0]}
}

// Pos is the position of the next byte written, counting flushed bytes.
func (w *Writer) Pos() int64 { return w.Flushed + int64(len(w.B)) }

// Flush writes the buffer away when it holds FlushAt bytes (or any, when
// force), unless a mark holds it or there is nowhere to write.
func (w *Writer) Flush(force bool) {
	if len(w.B) > 0 && (force || len(w.B) >= FlushAt) {
		w.flush()
	}
}

func (w *Writer) flush() {
	if w.W == nil || w.hold > 0 || w.Err != nil {
		return
	}
	_, w.Err = w.W.Write(w.B)
	w.Flushed += int64(len(w.B))
	w.B = w.B[:0]
}

// Hold keeps Flush from writing until the matching Release, so that what
// is written meanwhile can still be rolled back. Holds nest.
func (w *Writer) Hold() { w.hold++ }

// Release ends one Hold; once every Hold is released, the next Flush
// writes again (Release itself writes nothing).
func (w *Writer) Release() { w.hold-- }

// Mark is a place Rollback can return to.
type Mark struct {
	pos             int64
	depth           int
	comma, afterKey bool
}

// Mark returns the current place.
func (w *Writer) Mark() Mark {
	return Mark{pos: w.Pos(), depth: len(w.stack), comma: w.comma, afterKey: w.afterKey}
}

// Rollback drops what was written since m, unless some of it was flushed
// already: false then, and nothing changes.
func (w *Writer) Rollback(m Mark) bool {
	if m.pos < w.Flushed {
		return false
	}
	w.B = w.B[:m.pos-w.Flushed]
	w.stack = w.stack[:m.depth]
	w.comma, w.afterKey = m.comma, m.afterKey
	return true
}

// Since reports whether anything was written since m.
func (w *Writer) Since(m Mark) bool { return w.Pos() != m.pos }

// sep writes the comma a value or key needs at this level.
func (w *Writer) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if w.comma {
		w.B = append(w.B, ',')
	}
	w.comma = true
}

// Key writes an object member's key, which must need no escaping (the
// schemas' and kwire's own names).
func (w *Writer) Key(k string) {
	b := w.B
	if w.comma && !w.afterKey {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	w.B = append(b, '"', ':')
	w.comma, w.afterKey = true, true
}

// BeginObject opens an object where a value goes (at the top, as an array
// element, or after a Key); its members follow as Key and value pairs, and
// EndObject closes it.
func (w *Writer) BeginObject() { w.open('{') }

// EndObject closes the object the last BeginObject opened.
func (w *Writer) EndObject() { w.close('}') }

// BeginArray opens an array where a value goes (at the top, as an array
// element, or after a Key); its elements follow, and EndArray closes it.
func (w *Writer) BeginArray() { w.open('[') }

// EndArray closes the array the last BeginArray opened.
func (w *Writer) EndArray() { w.close(']') }

func (w *Writer) open(c byte) {
	comma := w.comma
	if w.afterKey {
		w.afterKey = false
	} else {
		if comma {
			w.B = append(w.B, ',')
		}
		comma = true
	}
	w.B = append(w.B, c)
	w.stack = append(w.stack, comma)
	w.comma = false
}

func (w *Writer) close(c byte) {
	w.B = append(w.B, c)
	w.afterKey = false
	if n := len(w.stack); n > 0 {
		w.comma = w.stack[n-1]
		w.stack = w.stack[:n-1]
	}
}

// Int writes an integer.
func (w *Writer) Int(v int64) {
	w.sep()
	w.B = AppendInt(w.B, v)
}

// Int64 writes an int64 field's value: a number, or when quote (the
// Int64Strings option) a string of its digits.
func (w *Writer) Int64(v int64, quote bool) {
	w.sep()
	w.B = AppendInt64(w.B, v, quote)
}

// Bool writes true or false.
func (w *Writer) Bool(v bool) {
	w.sep()
	w.B = strconv.AppendBool(w.B, v)
}

// Null writes null.
func (w *Writer) Null() {
	w.sep()
	w.B = append(w.B, "null"...)
}

// Float writes a float64; NaN and the infinities, which JSON lacks, as the
// strings "NaN", "Infinity" and "-Infinity".
func (w *Writer) Float(x float64) {
	w.sep()
	w.B = AppendFloat(w.B, x)
}

// AppendFloat is Float for a plain buffer.
func AppendFloat(dst []byte, x float64) []byte {
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

// String writes s as a JSON string (invalid UTF-8 as U+FFFD).
func (w *Writer) String(s []byte) {
	w.sep()
	w.B = appendString(w.B, s, false)
}

// HTMLSafe writes s as a string that also escapes <, > and &
// (AppendHTMLSafe), for text a page takes as data.
func (w *Writer) HTMLSafe(s string) {
	w.sep()
	w.B = appendString(w.B, []byte(s), true)
}

// Strings writes ss as an array of strings.
func (w *Writer) Strings(ss []string) {
	w.BeginArray()
	for _, s := range ss {
		w.String([]byte(s))
	}
	w.EndArray()
}

// Text writes s, which needs no escaping (kwire's own names), as a string.
func (w *Writer) Text(s string) {
	w.sep()
	w.B = append(w.B, '"')
	w.B = append(w.B, s...)
	w.B = append(w.B, '"')
}

// Base64 writes b as a standard base64 string; a big one in pieces,
// flushing between them, so the buffer never holds all of it.
func (w *Writer) Base64(b []byte) {
	w.sep()
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	w.B = append(w.B, '"')
	for len(b) > piece {
		w.B = base64.StdEncoding.AppendEncode(w.B, b[:piece])
		b = b[piece:]
		w.Flush(false)
	}
	w.B = append(base64.StdEncoding.AppendEncode(w.B, b), '"')
}

// AppendBase64 appends b as a standard base64 string.
func AppendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// Base64URL writes b as an unpadded base64url string (Kafka's UUIDs).
func (w *Writer) Base64URL(b []byte) {
	w.sep()
	w.B = append(w.B, '"')
	w.B = base64.RawURLEncoding.AppendEncode(w.B, b)
	w.B = append(w.B, '"')
}

// Raw writes v, a whole JSON value written elsewhere.
func (w *Writer) Raw(v []byte) {
	w.sep()
	w.B = append(w.B, v...)
}

// Fresh starts a value that stands alone, whatever was written before:
// no comma before it.
func (w *Writer) Fresh() { w.comma, w.afterKey = false, false }

// Value readies w for a value its caller appends to B itself.
func (w *Writer) Value() { w.sep() }
