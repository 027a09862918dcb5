package jsontext

import (
	"bytes"
	"slices"
)

// Indenter indents JSON by two spaces a level, writing what
// encoding/json.Indent(dst, src, "", "  ") writes for valid JSON (empty
// objects and arrays stay {} and [], whitespace between tokens is dropped)
// without its scanner: the input is JSON kwire wrote. It keeps its place
// between calls, so the JSON may come in pieces cut anywhere (a stream);
// a zero Indenter is ready for a new text. It is the one indenter of the
// CLI, the docs site and the playground.
type Indenter struct {
	depth   int
	inStr   bool
	escaped bool // the byte before, inside a string, was a backslash
	pending bool // a { or [ whose newline waits to see whether it is empty
}

// Indent appends the indented form of one whole JSON text src to dst.
func Indent(dst, src []byte) []byte {
	var x Indenter
	// Indented JSON runs to about twice its compact form: room for that at
	// once, rather than the output copied as it grows.
	dst = slices.Grow(dst, 2*len(src))
	return x.Append(dst, src)
}

// Append appends the indented form of the next piece of JSON to dst.
func (x *Indenter) Append(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if x.inStr {
			// Copy the string's run up to its closing quote at once.
			j := x.stringEnd(src, i)
			if j == len(src) {
				return append(dst, src[i:]...)
			}
			dst = append(dst, src[i:j+1]...)
			i = j
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if x.pending && c != '}' && c != ']' {
			x.pending = false
			x.depth++
			dst = x.newline(dst)
		}
		switch c {
		case '"':
			x.inStr = true
			dst = append(dst, c)
		case '{', '[':
			x.pending = true
			dst = append(dst, c)
		case ',':
			dst = x.newline(append(dst, c))
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if x.pending {
				x.pending = false
			} else {
				x.depth--
				dst = x.newline(dst)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd is the index in src of the quote that closes the string
// being read from i, or len(src) when src ends first (x.escaped then says
// whether its last byte was an unpaired backslash). Quotes are looked for
// with IndexByte, and a backslash run before one says whether it is
// escaped: text is long runs of plain bytes.
func (x *Indenter) stringEnd(src []byte, i int) int {
	if x.escaped { // the byte at i is escaped by the piece before
		x.escaped = false
		i++
	}
	for i < len(src) {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			// Whether the last byte escapes the next piece's first.
			n := 0
			for k := len(src) - 1; k >= i && src[k] == '\\'; k-- {
				n++
			}
			x.escaped = n%2 == 1
			return len(src)
		}
		q += i
		n := 0 // the backslashes before the quote, back to i
		for k := q - 1; k >= i && src[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			x.inStr = false
			return q
		}
		i = q + 1
	}
	return len(src)
}

// spaces is the indentation of 32 levels, cut to size.
const spaces = "                                                                "

func (x *Indenter) newline(dst []byte) []byte {
	dst = append(dst, '\n')
	n := 2 * x.depth
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		dst = append(dst, spaces[:n]...)
	}
	return dst
}
