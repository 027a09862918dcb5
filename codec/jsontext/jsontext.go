// Package jsontext writes JSON text by hand, for the codec's JSON writers,
// the render layouts and the playground's glue (which run in the browser's
// WebAssembly too, where reflection-driven encoding/json is too heavy).
package jsontext

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD
// (the decoder warns about such strings).
func AppendString(dst []byte, s []byte) []byte { return appendString(dst, s, false) }

// AppendHTMLSafe is AppendString that also escapes <, > and &, so the text
// can stand inside an HTML script block or be handed to a page as data.
func AppendHTMLSafe(dst []byte, s string) []byte { return appendString(dst, []byte(s), true) }

func appendString(dst []byte, s []byte, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf && !(html && (c == '<' || c == '>' || c == '&')) {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
