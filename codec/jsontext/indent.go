package jsontext

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
	return x.Append(dst, src)
}

// Append appends the indented form of the next piece of JSON to dst.
func (x *Indenter) Append(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if x.inStr {
			// Copy the string's run up to its closing quote at once.
			j := i
			for ; j < len(src); j++ {
				b := src[j]
				if x.escaped {
					x.escaped = false
				} else if b == '\\' {
					x.escaped = true
				} else if b == '"' {
					x.inStr = false
					break
				}
			}
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

func (x *Indenter) newline(dst []byte) []byte {
	dst = append(dst, '\n')
	for i := 0; i < x.depth; i++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
